/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The options of one entry of `mounts`, split as the kernel wants them
 * (linux/mounts.h says how; linux/mounts.c the choices made).
 */
#include "config.h"
#include "linux/mounts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "linux/selinux.h"
#include "linux/syscalls.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/strbuf.h"

/* ------------------------------------------------------------ options */

enum option_kind {
	OPT_IGNORED,       /* accepted, nothing to do */
	OPT_SET,           /* set MOUNT_ATTR bits on the top mount */
	OPT_CLR,           /* clear them */
	OPT_ATIME,         /* select an atime mode on the top mount */
	OPT_ATIME_DEFAULT, /* "atime": relatime unless strictatime */
	OPT_ATIME_UNSET,   /* undo this atime mode if it is the selected one */
	OPT_REC_SET,       /* the same, on the whole tree */
	OPT_REC_CLR,
	OPT_REC_ATIME,
	OPT_REC_ATIME_DEFAULT,
	OPT_REC_ATIME_UNSET,
	OPT_RO,
	OPT_RW,
	OPT_PROPAGATION,
	OPT_REC_PROPAGATION,
	OPT_BIND,
	OPT_RBIND,
	OPT_REMOUNT,
	OPT_TMPCOPYUP,
	OPT_IDMAP,
	OPT_RIDMAP,
	OPT_SB_FLAG, /* a superblock flag: passed to fsconfig as data */
};

/* One list, alphabetical: the parser's table and brig_mount_option_names. */
#define MOUNT_OPTIONS(X)                                                 \
	X("async", OPT_SB_FLAG, 0)                                       \
	X("atime", OPT_ATIME_DEFAULT, 0)                                 \
	X("bind", OPT_BIND, 0)                                           \
	X("defaults", OPT_IGNORED, 0)                                    \
	X("dev", OPT_CLR, MOUNT_ATTR_NODEV)                              \
	X("diratime", OPT_CLR, MOUNT_ATTR_NODIRATIME)                    \
	X("dirsync", OPT_SB_FLAG, 0)                                     \
	X("exec", OPT_CLR, MOUNT_ATTR_NOEXEC)                            \
	X("idmap", OPT_IDMAP, 0)                                         \
	X("iversion", OPT_IGNORED, 0)                                    \
	X("lazytime", OPT_SB_FLAG, 0)                                    \
	X("loud", OPT_IGNORED, 0)                                        \
	X("mand", OPT_SB_FLAG, 0)                                        \
	X("noatime", OPT_ATIME, MOUNT_ATTR_NOATIME)                      \
	X("nodev", OPT_SET, MOUNT_ATTR_NODEV)                            \
	X("nodiratime", OPT_SET, MOUNT_ATTR_NODIRATIME)                  \
	X("noexec", OPT_SET, MOUNT_ATTR_NOEXEC)                          \
	X("noiversion", OPT_IGNORED, 0)                                  \
	X("nolazytime", OPT_SB_FLAG, 0)                                  \
	X("nomand", OPT_SB_FLAG, 0)                                      \
	X("norelatime", OPT_ATIME_UNSET, MOUNT_ATTR_RELATIME)            \
	X("nostrictatime", OPT_ATIME_UNSET, MOUNT_ATTR_STRICTATIME)      \
	X("nosuid", OPT_SET, MOUNT_ATTR_NOSUID)                          \
	X("nosymfollow", OPT_SET, MOUNT_ATTR_NOSYMFOLLOW)                \
	X("private", OPT_PROPAGATION, MS_PRIVATE)                        \
	X("ratime", OPT_REC_ATIME_DEFAULT, 0)                            \
	X("rbind", OPT_RBIND, 0)                                         \
	X("rdev", OPT_REC_CLR, MOUNT_ATTR_NODEV)                         \
	X("rdiratime", OPT_REC_CLR, MOUNT_ATTR_NODIRATIME)               \
	X("relatime", OPT_ATIME, MOUNT_ATTR_RELATIME)                    \
	X("remount", OPT_REMOUNT, 0)                                     \
	X("rexec", OPT_REC_CLR, MOUNT_ATTR_NOEXEC)                       \
	X("ridmap", OPT_RIDMAP, 0)                                       \
	X("rnoatime", OPT_REC_ATIME, MOUNT_ATTR_NOATIME)                 \
	X("rnodev", OPT_REC_SET, MOUNT_ATTR_NODEV)                       \
	X("rnodiratime", OPT_REC_SET, MOUNT_ATTR_NODIRATIME)             \
	X("rnoexec", OPT_REC_SET, MOUNT_ATTR_NOEXEC)                     \
	X("rnorelatime", OPT_REC_ATIME_UNSET, MOUNT_ATTR_RELATIME)       \
	X("rnostrictatime", OPT_REC_ATIME_UNSET, MOUNT_ATTR_STRICTATIME) \
	X("rnosuid", OPT_REC_SET, MOUNT_ATTR_NOSUID)                     \
	X("rnosymfollow", OPT_REC_SET, MOUNT_ATTR_NOSYMFOLLOW)           \
	X("ro", OPT_RO, 0)                                               \
	X("rprivate", OPT_REC_PROPAGATION, MS_PRIVATE)                   \
	X("rrelatime", OPT_REC_ATIME, MOUNT_ATTR_RELATIME)               \
	X("rro", OPT_REC_SET, MOUNT_ATTR_RDONLY)                         \
	X("rrw", OPT_REC_CLR, MOUNT_ATTR_RDONLY)                         \
	X("rshared", OPT_REC_PROPAGATION, MS_SHARED)                     \
	X("rslave", OPT_REC_PROPAGATION, MS_SLAVE)                       \
	X("rstrictatime", OPT_REC_ATIME, MOUNT_ATTR_STRICTATIME)         \
	X("rsuid", OPT_REC_CLR, MOUNT_ATTR_NOSUID)                       \
	X("rsymfollow", OPT_REC_CLR, MOUNT_ATTR_NOSYMFOLLOW)             \
	X("runbindable", OPT_REC_PROPAGATION, MS_UNBINDABLE)             \
	X("rw", OPT_RW, 0)                                               \
	X("shared", OPT_PROPAGATION, MS_SHARED)                          \
	X("silent", OPT_IGNORED, 0)                                      \
	X("slave", OPT_PROPAGATION, MS_SLAVE)                            \
	X("strictatime", OPT_ATIME, MOUNT_ATTR_STRICTATIME)              \
	X("suid", OPT_CLR, MOUNT_ATTR_NOSUID)                            \
	X("symfollow", OPT_CLR, MOUNT_ATTR_NOSYMFOLLOW)                  \
	X("sync", OPT_SB_FLAG, 0)                                        \
	X("tmpcopyup", OPT_TMPCOPYUP, 0)                                 \
	X("unbindable", OPT_PROPAGATION, MS_UNBINDABLE)

struct mount_option {
	const char *name;
	enum option_kind kind;
	uint64_t value;
};

#define OPTION_ENTRY(n, k, v) { n, k, v },
#define OPTION_NAME(n, k, v) n,

static const struct mount_option mount_options[] = { MOUNT_OPTIONS(OPTION_ENTRY) };

const char *const brig_mount_option_names[] = { MOUNT_OPTIONS(OPTION_NAME) NULL };

static int option_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct mount_option *)elem)->name);
}

static const struct mount_option *option_find(const char *name)
{
	return bsearch(name, mount_options, ARRAY_SIZE(mount_options), sizeof(mount_options[0]),
	               option_cmp);
}

/* Does @opt go to the filesystem (fsconfig) rather than to brig? */
bool brig_mount_option_is_data(const char *opt)
{
	const struct mount_option *o = option_find(opt);

	return !o || o->kind == OPT_SB_FLAG;
}

static void attr_set(uint64_t *set, uint64_t *clr, uint64_t bits)
{
	*set |= bits;
	*clr &= ~bits;
}

static void attr_clear(uint64_t *set, uint64_t *clr, uint64_t bits)
{
	*clr |= bits;
	*set &= ~bits;
}

/* mount_setattr(2): an atime mode is selected by MOUNT_ATTR__ATIME in
 * attr_clr plus the mode (RELATIME is 0) in attr_set. */
static void atime_select(uint64_t *set, uint64_t *clr, uint64_t mode)
{
	*set = (*set & ~(uint64_t)MOUNT_ATTR__ATIME) | mode;
	*clr |= MOUNT_ATTR__ATIME;
}

static bool atime_selected(uint64_t set, uint64_t clr, uint64_t mode)
{
	return (clr & MOUNT_ATTR__ATIME) && (set & MOUNT_ATTR__ATIME) == mode;
}

static void atime_unset(uint64_t *set, uint64_t *clr, uint64_t mode)
{
	if (!atime_selected(*set, *clr, mode))
		return;
	*set &= ~(uint64_t)MOUNT_ATTR__ATIME;
	*clr &= ~(uint64_t)MOUNT_ATTR__ATIME;
}

static void atime_default(uint64_t *set, uint64_t *clr)
{
	if (!atime_selected(*set, *clr, MOUNT_ATTR_STRICTATIME))
		atime_select(set, clr, MOUNT_ATTR_RELATIME);
}

static void option_apply(const struct mount_option *o, struct brig_mount_flags *f)
{
	switch (o->kind) {
	case OPT_IGNORED:
	case OPT_SB_FLAG:
		break;
	case OPT_SET:
		attr_set(&f->attr_set, &f->attr_clr, o->value);
		break;
	case OPT_CLR:
		attr_clear(&f->attr_set, &f->attr_clr, o->value);
		break;
	case OPT_ATIME:
		atime_select(&f->attr_set, &f->attr_clr, o->value);
		break;
	case OPT_ATIME_DEFAULT:
		atime_default(&f->attr_set, &f->attr_clr);
		break;
	case OPT_ATIME_UNSET:
		atime_unset(&f->attr_set, &f->attr_clr, o->value);
		break;
	case OPT_REC_SET:
		attr_set(&f->rec_attr_set, &f->rec_attr_clr, o->value);
		break;
	case OPT_REC_CLR:
		attr_clear(&f->rec_attr_set, &f->rec_attr_clr, o->value);
		break;
	case OPT_REC_ATIME:
		atime_select(&f->rec_attr_set, &f->rec_attr_clr, o->value);
		break;
	case OPT_REC_ATIME_DEFAULT:
		atime_default(&f->rec_attr_set, &f->rec_attr_clr);
		break;
	case OPT_REC_ATIME_UNSET:
		atime_unset(&f->rec_attr_set, &f->rec_attr_clr, o->value);
		break;
	case OPT_RO:
		f->sb_ro = true;
		attr_set(&f->attr_set, &f->attr_clr, MOUNT_ATTR_RDONLY);
		break;
	case OPT_RW:
		f->sb_ro = false;
		attr_clear(&f->attr_set, &f->attr_clr, MOUNT_ATTR_RDONLY);
		break;
	case OPT_PROPAGATION:
	case OPT_REC_PROPAGATION:
		f->propagation = o->value;
		f->rec_propagation = o->kind == OPT_REC_PROPAGATION;
		break;
	case OPT_BIND:
		f->bind = true;
		break;
	case OPT_RBIND:
		f->rbind = true;
		break;
	case OPT_REMOUNT:
		f->remount = true;
		break;
	case OPT_TMPCOPYUP:
		f->tmpcopyup = true;
		break;
	case OPT_IDMAP:
		f->idmap = true;
		break;
	case OPT_RIDMAP:
		f->ridmap = true;
		break;
	}
}

int brig_mount_flags_parse(const char *const *opts, size_t n, struct brig_mount_flags *out,
                           struct brig_error *err)
{
	struct brig_strbuf data = BRIG_STRBUF_INIT;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		const struct mount_option *o;

		if (!opts[i] || !opts[i][0]) {
			brig_strbuf_release(&data);
			return brig_error_set(err, "mount option %zu is empty", i);
		}
		o = option_find(opts[i]);
		if (!o || o->kind == OPT_SB_FLAG) {
			if (data.len)
				brig_strbuf_addch(&data, ',');
			brig_strbuf_addstr(&data, opts[i]);
		}
		if (o)
			option_apply(o, out);
	}
	out->data = data.len ? brig_strbuf_detach(&data) : NULL;
	return 0;
}

void brig_mount_flags_release(struct brig_mount_flags *f)
{
	free(f->data);
	f->data = NULL;
}

void brig_mount_data_split(const char *opt, char **key, char **value)
{
	const char *eq = strchr(opt, '=');

	*value = NULL;
	if (!eq) {
		*key = brig_xstrdup(opt);
		return;
	}
	*key = strndup(opt, (size_t)(eq - opt));
	if (!*key)
		brig_oom();
	*value = brig_xstrdup(eq + 1);
	/* mount(2) data quotes an SELinux context so that the commas of its
	 * MCS range stay in it, and the kernel drops every quote of it;
	 * fsconfig takes the value as it is given */
	if (brig_selinux_is_context_option(*key)) {
		char *to = *value;

		for (const char *from = *value; *from; from++)
			if (*from != '"')
				*to++ = *from;
		*to = '\0';
	}
}
