/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The `mounts` of config.json, all made with the new mount API.
 *
 * Choices worth knowing (the API is in the header):
 *
 *  - Per-mount flags (ro, nosuid, nodev, noexec, the atime family,
 *    nodiratime, nosymfollow) are MOUNT_ATTR_* bits: given to fsmount() for
 *    a new filesystem, to mount_setattr() for a bind.  The atime settings
 *    are one value, not bits: the last of atime/noatime/relatime/strictatime
 *    wins; norelatime and nostrictatime only undo their own setting (the
 *    kernel's default, relatime, is what is left); "atime" means relatime
 *    unless strictatime was asked for.
 *  - Superblock flags that fsconfig's generic parser understands (sync,
 *    async, dirsync, lazytime, nolazytime, mand, nomand) are passed to it as
 *    flags, like any other data option.  "ro" on a new filesystem is both
 *    the superblock flag and MOUNT_ATTR_RDONLY, as mount(2) does it, except
 *    for tmpfs which stays writable underneath until it is populated.
 *    silent, loud, iversion, noiversion and defaults are accepted and
 *    dropped: the new API has nothing for them (i_version is the
 *    filesystem's own business since Linux 6.1).
 *  - A bind's "ro" (and nosuid, ...) applies to its top mount only, as in
 *    runc; the r* forms apply to the whole tree (AT_RECURSIVE), and so does
 *    "ro" on an rbind: a read-only tree must have no writable submount.
 *  - remount (without bind) changes the mount already at the destination:
 *    its flags, ro included, through mount_setattr (that mount only); data
 *    through fspick + FSCONFIG_CMD_RECONFIGURE.  The superblock's ro/rw is
 *    left alone, since it may be shared with the host (sysfs, mqueue).
 *  - Data options are handed to fsconfig one spec option at a time, split
 *    at the first '=' only, so values with ',' or ':' (overlay's lowerdir)
 *    reach the filesystem unchanged.  Data is ignored on a bind, as in runc.
 *  - The propagation flag is set once the mount is attached.
 *  - linux.mountLabel (SELinux) is a context= data option of every new
 *    filesystem except proc, sysfs, mqueue and cgroup2, as in runc; the
 *    mqueue of the container's own ipc namespace has its root labelled
 *    instead.  A context set by the entry's own options wins.
 *
 * Only host paths (bind sources, /sys, /sys/fs/cgroup) are given to the
 * kernel as strings; everything inside the rootfs is reached through fds.
 */
#include "config.h"
#include "linux/mounts.h"
#include "util/mountinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "linux/resolve.h"
#include "linux/selinux.h"
#include "linux/syscalls.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/log.h"
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
static bool option_is_data(const char *opt)
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

/* ----------------------------------------------- mount API primitives */

/* The last error the filesystem logged on its fs_context fd ("e ..."),
 * without the "e "; heap, or NULL when it said nothing. */
static char *fs_log_error(int fsfd)
{
	char *msg = NULL;
	char buf[512];

	for (int i = 0; i < 64; i++) {
		ssize_t r = read(fsfd, buf, sizeof(buf) - 1);

		if (r <= 0)
			break;
		buf[r] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		if (r > 2 && buf[0] == 'e' && buf[1] == ' ') {
			free(msg);
			msg = brig_xstrdup(buf + 2);
		}
	}
	return msg;
}

/* Fail with @errnum, adding what the kernel logged on @fsfd. */
static int fs_fail(int fsfd, int errnum, const char *what, struct brig_error *err)
{
	_cleanup_free_ char *kmsg = fs_log_error(fsfd);

	if (kmsg)
		return brig_error_setp(err, errnum, "%s: %s", what, kmsg);
	return brig_error_setp(err, errnum, "%s", what);
}

/* fsopen(@fstype) with "source" set when @source is given. */
static int fs_open(const char *fstype, const char *source, struct brig_error *err)
{
	_cleanup_close_ int fsfd = fsopen(fstype, FSOPEN_CLOEXEC);

	if (fsfd < 0) {
		if (errno == ENODEV)
			return brig_error_setp(err, errno, "unknown filesystem type");
		return brig_error_setp(err, errno, "fsopen");
	}
	if (source && source[0] && fsconfig(fsfd, FSCONFIG_SET_STRING, "source", source, 0) < 0) {
		int saved = errno;
		_cleanup_free_ char *what = brig_xasprintf("source \"%s\"", source);

		return fs_fail(fsfd, saved, what, err);
	}
	return TAKE_FD(fsfd);
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

/* One data option: "key=value" is a string, a bare "key" a flag
 * (brig_mount_data_split). */
static int fs_param(int fsfd, const char *opt, struct brig_error *err)
{
	_cleanup_free_ char *key = NULL, *value = NULL;
	int r;

	brig_mount_data_split(opt, &key, &value);
	if (value)
		r = fsconfig(fsfd, FSCONFIG_SET_STRING, key, value, 0);
	else
		r = fsconfig(fsfd, FSCONFIG_SET_FLAG, key, NULL, 0);
	if (r < 0) {
		int saved = errno;
		_cleanup_free_ char *what = brig_xasprintf("option \"%s\"", opt);

		return fs_fail(fsfd, saved, what, err);
	}
	return 0;
}

/* Create the superblock and return a detached mount of it with @attrs. */
static int fs_mount(int fsfd, uint64_t attrs, struct brig_error *err)
{
	int mnt;

	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return fs_fail(fsfd, errno, "create the filesystem", err);
	mnt = fsmount(fsfd, FSMOUNT_CLOEXEC, (unsigned int)attrs);
	if (mnt < 0)
		return fs_fail(fsfd, errno, "fsmount", err);
	return mnt;
}

/* A detached copy of the host path @source (the whole tree if @recursive). */
static int bind_open(const char *source, bool recursive, struct brig_error *err)
{
	int fd = open_tree(AT_FDCWD, source,
	                   OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (recursive ? AT_RECURSIVE : 0));

	if (fd < 0)
		return brig_error_setp(err, errno, "open \"%s\"", source);
	return fd;
}

static int set_attrs(int mntfd, uint64_t set, uint64_t clr, bool recursive, struct brig_error *err)
{
	struct mount_attr attr = { .attr_set = set, .attr_clr = clr };

	if (!set && !clr)
		return 0;
	if (mount_setattr(mntfd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &attr,
	                  sizeof(attr)) < 0)
		return brig_error_setp(err, errno, "set the %sflags",
		                       recursive ? "recursive " : "");
	return 0;
}

static int set_propagation(int mntfd, uint64_t propagation, bool recursive, struct brig_error *err)
{
	struct mount_attr attr = { .propagation = propagation };

	if (!propagation)
		return 0;
	if (mount_setattr(mntfd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &attr,
	                  sizeof(attr)) < 0)
		return brig_error_setp(err, errno, "set the propagation");
	return 0;
}

/* Put the detached mount @mntfd on top of @targetfd.  Afterwards @mntfd
 * refers to the attached mount. */
static int attach(int mntfd, int targetfd, struct brig_error *err)
{
	struct stat src, dst;
	int saved;

	if (move_mount(mntfd, "", targetfd, "",
	               MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) >= 0)
		return 0;
	saved = errno;
	/* the kernel says EINVAL when a directory goes onto a file or back */
	if (saved == EINVAL && fstat(mntfd, &src) == 0 && fstat(targetfd, &dst) == 0 &&
	    S_ISDIR(src.st_mode) != S_ISDIR(dst.st_mode)) {
		return brig_error_sete(err, S_ISDIR(dst.st_mode) ? EISDIR : ENOTDIR, "%s",
		                       S_ISDIR(dst.st_mode)
		                           ? "the source is a file but the mount point a directory"
		                           : "the mount point is not a directory");
	}
	return brig_error_setp(err, saved, "attach the mount");
}

/* ------------------------------------------------------------ copy-up */

#define COPYUP_MAX_DEPTH 128

/* Owner, mode and times of @name in @dstdir from @st. */
static int copy_metadata(int dstdir, const char *name, const struct stat *st,
                         struct brig_error *err)
{
	const struct timespec times[2] = { st->st_atim, st->st_mtim };

	if (fchownat(dstdir, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW) < 0)
		return brig_error_setp(err, errno, "tmpcopyup: chown \"%s\"", name);
	if (!S_ISLNK(st->st_mode) && fchmodat(dstdir, name, st->st_mode & 07777, 0) < 0)
		return brig_error_setp(err, errno, "tmpcopyup: chmod \"%s\"", name);
	if (utimensat(dstdir, name, times, AT_SYMLINK_NOFOLLOW) < 0)
		return brig_error_setp(err, errno, "tmpcopyup: set times of \"%s\"", name);
	return 0;
}

static int copy_contents(int in, int out, const char *name, struct brig_error *err)
{
	char buf[65536];

	for (;;) {
		ssize_t r = sendfile(out, in, NULL, 1 << 30);

		if (r == 0)
			return 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EINVAL || errno == ENOSYS))
			break;
		if (r < 0)
			return brig_error_setp(err, errno, "tmpcopyup: copy \"%s\"", name);
	}
	for (;;) {
		ssize_t r = read(in, buf, sizeof(buf));

		if (r == 0)
			return 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return brig_error_setp(err, errno, "tmpcopyup: read \"%s\"", name);
		for (ssize_t off = 0; off < r;) {
			ssize_t w = write(out, buf + off, (size_t)(r - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return brig_error_setp(err, errno, "tmpcopyup: write \"%s\"", name);
			off += w;
		}
	}
}

static int copy_file(int srcdir, int dstdir, const char *name, struct brig_error *err)
{
	_cleanup_close_ int in = -1, out = -1;
	struct stat st;

	/* O_NONBLOCK: the container may have swapped the file for a fifo */
	in = openat(srcdir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (in < 0)
		return brig_error_setp(err, errno, "tmpcopyup: open \"%s\"", name);
	if (fstat(in, &st) < 0)
		return brig_error_setp(err, errno, "tmpcopyup: stat \"%s\"", name);
	if (!S_ISREG(st.st_mode))
		return 0;
	out = openat(dstdir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0)
		return brig_error_setp(err, errno, "tmpcopyup: create \"%s\"", name);
	if (copy_contents(in, out, name, err) < 0)
		return -1;
	return copy_metadata(dstdir, name, &st, err);
}

static int copy_symlink(int srcdir, int dstdir, const char *name, const struct stat *st,
                        struct brig_error *err)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(srcdir, name, target, sizeof(target));

	if (n < 0 || (size_t)n >= sizeof(target))
		return brig_error_setp(err, n < 0 ? errno : ENAMETOOLONG,
		                       "tmpcopyup: read link \"%s\"", name);
	target[n] = '\0';
	if (symlinkat(target, dstdir, name) < 0)
		return brig_error_setp(err, errno, "tmpcopyup: create link \"%s\"", name);
	return copy_metadata(dstdir, name, st, err);
}

/* Copy the entries of directory @src (any fd of it) into directory @dst:
 * directories, regular files and symlinks with owner, mode and times;
 * anything else is skipped.  No symlink of the source is followed. */
static int copy_tree(int src, int dst, unsigned int depth, struct brig_error *err)
{
	_cleanup_closedir_ DIR *dir = NULL;
	struct dirent *de;
	int fd;

	if (depth > COPYUP_MAX_DEPTH)
		return brig_error_setp(err, ELOOP, "tmpcopyup: directories nested too deep");
	fd = openat(src, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return brig_error_setp(err, errno, "tmpcopyup: open directory");
	dir = fdopendir(fd);
	if (!dir) {
		int saved = errno;

		close(fd);
		return brig_error_setp(err, saved, "tmpcopyup: open directory");
	}
	while ((errno = 0, de = readdir(dir))) {
		const char *name = de->d_name;
		struct stat st;

		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (fstatat(dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return brig_error_setp(err, errno, "tmpcopyup: stat \"%s\"", name);
		if (S_ISDIR(st.st_mode)) {
			_cleanup_close_ int sub_src = -1, sub_dst = -1;

			if (mkdirat(dst, name, 0700) < 0)
				return brig_error_setp(err, errno, "tmpcopyup: mkdir \"%s\"", name);
			sub_src = openat(dirfd(dir), name,
			                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub_src < 0)
				return brig_error_setp(err, errno, "tmpcopyup: open \"%s\"", name);
			sub_dst = openat(dst, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub_dst < 0)
				return brig_error_setp(err, errno, "tmpcopyup: open \"%s\"", name);
			if (copy_tree(sub_src, sub_dst, depth + 1, err) < 0 ||
			    copy_metadata(dst, name, &st, err) < 0)
				return -1;
		} else if (S_ISREG(st.st_mode)) {
			if (copy_file(dirfd(dir), dst, name, err) < 0)
				return -1;
		} else if (S_ISLNK(st.st_mode)) {
			if (copy_symlink(dirfd(dir), dst, name, &st, err) < 0)
				return -1;
		}
	}
	if (errno)
		return brig_error_setp(err, errno, "tmpcopyup: read directory");
	return 0;
}

/* ------------------------------------------------------- one mount */

/* What one entry of cfg->mounts asks for. */
struct mount_req {
	const struct brig_mount *m;
	const struct brig_mount_env *env;
	struct brig_mount_flags fl;
	int targetfd;        /* O_PATH fd of the destination, once resolved */
	bool target_existed; /* the destination was there before brig */
	const char *type;    /* the filesystem type, NULL for a bind */
	bool bind;
	int premade; /* an idmapped tree from brig, or -1 */
};

static int check_proc_destination(const struct mount_req *r, const char *type, bool bind,
                                  struct brig_error *err);

/* proc and sysfs go on an ordinary directory, never through a symlink
 * (runc's rule since CVE-2019-19921). */
static bool needs_ordinary_directory(const char *type)
{
	return type && (!strcmp(type, "proc") || !strcmp(type, "sysfs"));
}

/*
 * The destination, resolved once: what is checked is what is mounted on.
 * (A rename may still move it afterwards; what brig does beneath a mount
 * later goes through the mount itself: brig_mounted_open.)
 */
static int resolve_target(struct mount_req *r, enum brig_mkpath_kind kind, struct brig_error *err)
{
	bool ordinary = needs_ordinary_directory(r->type);
	struct stat st;

	r->targetfd = brig_open_in_root(r->env->rootfd, r->m->destination,
	                                O_PATH | (ordinary ? O_NOFOLLOW : 0), 0);
	r->target_existed = r->targetfd >= 0;
	if (r->targetfd < 0 && errno != ENOENT)
		return brig_error_setp(err, errno, "resolve \"%s\" in the rootfs",
		                       r->m->destination);
	if (r->targetfd < 0)
		r->targetfd = brig_mkpath_in_root(r->env->rootfd, r->m->destination, kind, err);
	if (r->targetfd < 0)
		return -1;
	if (ordinary && (fstat(r->targetfd, &st) < 0 || !S_ISDIR(st.st_mode)))
		return brig_error_set(
		    err, "filesystem \"%s\" must be mounted on ordinary directory", r->type);
	return check_proc_destination(r, r->type, r->bind, err);
}

/* Where @fd is, as a path inside the rootfs ("/proc/sys"), from the host's
 * view of both fds (brig runs before pivot_root: /proc is the host's). */
static char *path_in_root(int rootfd, int fd)
{
	char link[64], root[4096], path[4096];
	ssize_t rn, pn;
	size_t len;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", rootfd);
	rn = readlink(link, root, sizeof(root) - 1);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	pn = readlink(link, path, sizeof(path) - 1);
	if (rn < 0 || pn < 0)
		return NULL;
	root[rn] = path[pn] = '\0';
	len = strcmp(root, "/") == 0 ? 0 : (size_t)rn;
	if (strncmp(path, root, len) != 0 || (path[len] != '/' && path[len] != '\0'))
		return NULL;
	return brig_xstrdup(path[len] ? path + len : "/");
}

/*
 * Nothing but a procfs goes on /proc, and nothing goes inside it except the
 * few files lxcfs emulates (runc's rule since CVE-2019-16884): a mount over
 * /proc/self/attr or /proc/sys would redirect what the runtime and the
 * container write there.  Checked on the destination as resolved.
 */
static int check_proc_destination(const struct mount_req *r, const char *type, bool bind,
                                  struct brig_error *err)
{
	static const char *const lxcfs[] = {
		"/proc/cpuinfo", "/proc/diskstats",
		"/proc/meminfo", "/proc/stat",
		"/proc/swaps",   "/proc/uptime",
		"/proc/loadavg", "/proc/slabinfo",
		"/proc/net/dev", "/proc/sys/kernel/ns_last_pid",
	};
	_cleanup_free_ char *where = path_in_root(r->env->rootfd, r->targetfd);
	struct statfs sfs;

	if (!where)
		return brig_error_set(err, "cannot tell where the destination is");
	if (strcmp(where, "/proc") == 0) {
		if (!bind && type && strcmp(type, "proc") == 0)
			return 0;
		if (bind && r->m->source && statfs(r->m->source, &sfs) == 0 &&
		    sfs.f_type == PROC_SUPER_MAGIC)
			return 0;
		return brig_error_set(err, "\"/proc\" cannot be mounted because it is not of type "
		                           "proc");
	}
	if (strncmp(where, "/proc/", 6) != 0)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(lxcfs); i++)
		if (strcmp(where, lxcfs[i]) == 0)
			return 0;
	return brig_error_set(err, "\"%s\" cannot be mounted because it is inside /proc", where);
}

/* Apply the data options of the entry (everything brig does not consume). */
static int fs_params_from_spec(int fsfd, const struct brig_mount *m, struct brig_error *err)
{
	for (size_t i = 0; i < m->n_options; i++)
		if (option_is_data(m->options[i]) && fs_param(fsfd, m->options[i], err) < 0)
			return -1;
	return 0;
}

/* Do the entry's own options set an SELinux context?  Then they win over
 * linux.mountLabel: the kernel refuses a second context on one mount. */
static bool options_set_context(const struct brig_mount *m)
{
	for (size_t i = 0; i < m->n_options; i++) {
		_cleanup_free_ char *key = NULL, *value = NULL;

		brig_mount_data_split(m->options[i], &key, &value);
		if (value && brig_selinux_is_context_option(key))
			return true;
	}
	return false;
}

/*
 * linux.mountLabel as the context of a new filesystem of @fstype, as runc
 * adds it (label.FormatMountLabel): not on proc and sysfs, which SELinux
 * labels itself, nor on a filesystem whose superblock exists before the
 * mount and would refuse another context (mqueue, whose root is labelled
 * instead, and cgroup).
 */
static int fs_param_label(int fsfd, const struct mount_req *r, const char *fstype,
                          struct brig_error *err)
{
	static const char *const no_context[] = { "proc", "sysfs", "mqueue", "cgroup", "cgroup2" };
	const char *label = r->env->mount_label;
	_cleanup_free_ char *opt = NULL;

	if (!label || !label[0] || options_set_context(r->m))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(no_context); i++)
		if (!strcmp(fstype, no_context[i]))
			return 0;
	opt = brig_selinux_format_mount_label(NULL, label);
	return fs_param(fsfd, opt, err);
}

static int mount_bind(struct mount_req *r, struct brig_error *err)
{
	_cleanup_free_ char *abs = NULL;
	_cleanup_close_ int tree = -1;
	const char *source = r->m->source;
	struct stat st;

	if (!source || !source[0])
		return brig_error_set(err, "a bind mount needs a source");
	if (source[0] != '/') {
		if (!r->env->bundle)
			return brig_error_set(err, "relative source \"%s\" without a bundle",
			                      source);
		source = abs = brig_xasprintf("%s/%s", r->env->bundle, source);
	}
	/* an idmapped mount comes ready from brig (linux/idmap.h) */
	tree = r->premade >= 0 ? fcntl(r->premade, F_DUPFD_CLOEXEC, 3)
	                       : bind_open(source, r->fl.rbind, err);
	if (tree < 0)
		return r->premade >= 0 ? brig_error_setp(err, errno, "dup") : -1;
	if (fstat(tree, &st) < 0)
		return brig_error_setp(err, errno, "stat \"%s\"", source);
	if (resolve_target(r, S_ISDIR(st.st_mode) ? BRIG_MKPATH_DIR : BRIG_MKPATH_FILE, err) < 0)
		return -1;
	if (set_attrs(tree, r->fl.attr_set, r->fl.attr_clr, false, err) < 0 ||
	    set_attrs(tree, r->fl.rec_attr_set, r->fl.rec_attr_clr, true, err) < 0)
		return -1;
	/* "ro" on an rbind covers the whole tree, as "rro" does: a read-only
	 * /sys must not leave /sys/fs/cgroup (or any submount) writable */
	if (r->fl.rbind && (r->fl.attr_set & MOUNT_ATTR_RDONLY) &&
	    set_attrs(tree, MOUNT_ATTR_RDONLY, 0, true, err) < 0)
		return -1;
	if (attach(tree, r->targetfd, err) < 0)
		return -1;
	return TAKE_FD(tree);
}

static int cgroup2_keep_root_options(int fsfd, struct brig_error *err);

/* A new filesystem of @fstype with the entry's data and flags. */
static int mount_filesystem(struct mount_req *r, const char *fstype, struct brig_error *err)
{
	_cleanup_close_ int fsfd = -1, mnt = -1;
	bool tmpfs = !strcmp(fstype, "tmpfs");
	uint64_t attrs = r->fl.attr_set;

	if (resolve_target(r, BRIG_MKPATH_DIR, err) < 0)
		return -1;
	fsfd = fs_open(fstype, r->m->source, err);
	if (fsfd < 0)
		return -1;
	if (tmpfs && r->target_existed) {
		/* as runc: the tmpfs root keeps the mode of the directory it
		 * covers unless the options say otherwise */
		struct stat st;
		char mode[16];

		if (fstat(r->targetfd, &st) < 0)
			return brig_error_setp(err, errno, "stat the mount point");
		snprintf(mode, sizeof(mode), "mode=%04o", st.st_mode & 07777);
		if (S_ISDIR(st.st_mode) && fs_param(fsfd, mode, err) < 0)
			return -1;
	}
	if (!strcmp(fstype, "cgroup2") && !r->env->new_cgroupns &&
	    cgroup2_keep_root_options(fsfd, err) < 0)
		return -1;
	if (fs_params_from_spec(fsfd, r->m, err) < 0 || fs_param_label(fsfd, r, fstype, err) < 0)
		return -1;
	/* a tmpfs stays writable underneath until it is populated; the mount
	 * is made read-only afterwards */
	if (r->fl.sb_ro && !tmpfs && fs_param(fsfd, "ro", err) < 0)
		return -1;
	if (tmpfs)
		attrs &= ~(uint64_t)MOUNT_ATTR_RDONLY;
	mnt = fs_mount(fsfd, attrs, err);
	if (mnt < 0)
		return -1;
	/* the mqueue of the container's own ipc namespace gets the label on
	 * its root, as in runc (the host's, when shared, is left alone) */
	if (!strcmp(fstype, "mqueue") && r->env->new_ipcns && !options_set_context(r->m) &&
	    brig_selinux_set_file_label(mnt, r->env->mount_label, err) < 0)
		return -1;
	if (tmpfs && r->fl.tmpcopyup && copy_tree(r->targetfd, mnt, 0, err) < 0)
		return -1;
	if (tmpfs && (r->fl.attr_set & MOUNT_ATTR_RDONLY) &&
	    set_attrs(mnt, MOUNT_ATTR_RDONLY, 0, false, err) < 0)
		return -1;
	if (set_attrs(mnt, r->fl.rec_attr_set, r->fl.rec_attr_clr, true, err) < 0 ||
	    attach(mnt, r->targetfd, err) < 0)
		return -1;
	return TAKE_FD(mnt);
}

/* sysfs: read-only unless the container has its own network namespace.
 * Without one the kernel may refuse a new instance (EPERM, e.g. in a user
 * namespace); then the host's /sys is bind-mounted, read-only all through,
 * as runc does for rootless containers. */
static int mount_sysfs(struct mount_req *r, struct brig_error *err)
{
	_cleanup_close_ int tree = -1;
	int fd;

	if (!r->env->new_netns) {
		r->fl.sb_ro = true;
		attr_set(&r->fl.attr_set, &r->fl.attr_clr, MOUNT_ATTR_RDONLY);
	}
	fd = mount_filesystem(r, "sysfs", err);
	if (fd >= 0 || err->errnum != EPERM || r->targetfd < 0)
		return fd;
	brig_error_release(err);
	tree = bind_open("/sys", true, err);
	if (tree < 0)
		return -1;
	if (set_attrs(tree, r->fl.attr_set | r->fl.rec_attr_set | MOUNT_ATTR_RDONLY,
	              (r->fl.attr_clr | r->fl.rec_attr_clr) & ~(uint64_t)MOUNT_ATTR_RDONLY, true,
	              err) < 0 ||
	    attach(tree, r->targetfd, err) < 0)
		return -1;
	return TAKE_FD(tree);
}

/*
 * "remount": change the mount that is already at the destination.  Its
 * flags (ro included) change with mount_setattr, for this mount only; data
 * options reconfigure the superblock (fspick).  The superblock's own
 * read-only state is never changed: it may be the host's (sysfs, mqueue).
 */
static int mount_remount(struct mount_req *r, struct brig_error *err)
{
	_cleanup_close_ int target = -1;

	target = brig_open_in_root(r->env->rootfd, r->m->destination, O_PATH, 0);
	if (target < 0)
		return brig_error_setp(err, errno, "resolve \"%s\" in the rootfs",
		                       r->m->destination);
	if (r->fl.data) {
		_cleanup_close_ int fsfd =
		    fspick(target, "", FSPICK_EMPTY_PATH | FSPICK_CLOEXEC | FSPICK_NO_AUTOMOUNT);

		if (fsfd < 0)
			return brig_error_setp(err, errno, "fspick");
		if (fs_params_from_spec(fsfd, r->m, err) < 0)
			return -1;
		if (fsconfig(fsfd, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0) < 0)
			return fs_fail(fsfd, errno, "reconfigure", err);
	}
	if (set_attrs(target, r->fl.attr_set, r->fl.attr_clr, false, err) < 0 ||
	    set_attrs(target, r->fl.rec_attr_set, r->fl.rec_attr_clr, true, err) < 0)
		return -1;
	return TAKE_FD(target);
}

/* ------------------------------------------------------------ cgroup */

#define CGROUP_ROOT "/sys/fs/cgroup"

struct cgroup_layout {
	struct brig_cg_mount *h;
	size_t n;
};

static void cgroup_layout_release(struct cgroup_layout *l)
{
	brig_cgroup_mounts_free(l->h, l->n);
	l->h = NULL;
	l->n = 0;
}

static int cgroup_layout_read(struct cgroup_layout *l, struct brig_error *err)
{
	return brig_cgroup_mounts(&l->h, &l->n, err);
}

/*
 * A new cgroup2 mount made from the initial cgroup namespace resets the
 * options of the one cgroup2 hierarchy (nsdelegate, memory_recursiveprot,
 * ...) for the whole host to what that mount says.  Give it the options in
 * force, read from any cgroup2 mount, so that nothing changes.
 */
static int cgroup2_keep_root_options(int fsfd, struct brig_error *err)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;

	if (!f)
		return brig_error_setp(err, errno, "open \"/proc/self/mountinfo\"");
	while (getline(&line, &cap, f) > 0) {
		struct brig_mountinfo e;
		char *save = NULL;

		if (!brig_mountinfo_parse(line, &e) || strcmp(e.fstype, "cgroup2"))
			continue;
		for (char *t = strtok_r(e.superopts, ",", &save); t; t = strtok_r(NULL, ",", &save))
			if (strcmp(t, "rw") && strcmp(t, "ro") && strcmp(t, "seclabel") &&
			    fs_param(fsfd, t, err) < 0)
				return -1;
		break;
	}
	return 0;
}

/* The host directory of the caller's own cgroup in @h. */
static char *cgroup_host_dir(const struct brig_cg_mount *h)
{
	return brig_cgroup_mount_dir(h, h->path);
}

/* A new mount of the hierarchy @h, seen from the caller's cgroup namespace. */
static int cgroup_fresh(const struct brig_cg_mount *h, uint64_t attrs, struct brig_error *err)
{
	const char *fstype = h->v2 ? "cgroup2" : "cgroup";
	_cleanup_close_ int fsfd = fs_open(fstype, fstype, err);
	_cleanup_free_ char *ctrls = NULL;
	char *save = NULL;

	if (fsfd < 0)
		return -1;
	if (!h->v2) {
		ctrls = brig_xstrdup(h->controllers);
		for (char *t = strtok_r(ctrls, ",", &save); t; t = strtok_r(NULL, ",", &save))
			if (fs_param(fsfd, t, err) < 0)
				return -1;
	}
	return fs_mount(fsfd, attrs, err);
}

/* One hierarchy of a v1/hybrid host inside the container's cgroup tmpfs
 * @tmpfd: a fresh mount with a cgroup namespace, else a bind of the
 * caller's own cgroup directory (runc's behaviour). */
static int cgroup_mount_hier(const struct mount_req *r, const struct brig_cg_mount *h, int tmpfd,
                             struct brig_error *err)
{
	const char *name = strrchr(h->mountpoint, '/') + 1;
	_cleanup_close_ int sub = -1, mnt = -1;

	if (mkdirat(tmpfd, name, 0755) < 0 && errno != EEXIST)
		return brig_error_setp(err, errno, "mkdir");
	sub = openat(tmpfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0)
		return brig_error_setp(err, errno, "open");
	if (r->env->new_cgroupns) {
		mnt = cgroup_fresh(h, r->fl.attr_set, err);
		if (mnt < 0)
			return -1;
	} else {
		_cleanup_free_ char *dir = cgroup_host_dir(h);

		mnt = bind_open(dir, false, err);
		if (mnt < 0 || set_attrs(mnt, r->fl.attr_set, r->fl.attr_clr, false, err) < 0)
			return -1;
	}
	return attach(mnt, sub, err);
}

/* Co-mounted controllers get a link each, as runc makes them:
 * cpu -> cpu,cpuacct and cpuacct -> cpu,cpuacct. */
static int cgroup_comount_links(const struct cgroup_layout *l, int tmpfd, struct brig_error *err)
{
	for (size_t i = 0; i < l->n; i++) {
		const char *name = strrchr(l->h[i].mountpoint, '/') + 1;
		_cleanup_free_ char *copy = NULL;
		char *save = NULL;

		if (l->h[i].v2 || !strchr(name, ','))
			continue;
		copy = brig_xstrdup(name);
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
			if (symlinkat(name, tmpfd, t) < 0 && errno != EEXIST)
				return brig_error_setp(err, errno, "symlink \"%s\"", t);
	}
	return 0;
}

/* A v1 or hybrid host: a tmpfs with one directory per hierarchy of the
 * host's /sys/fs/cgroup (the unified one included), read-only at the end. */
static int mount_cgroup_v1(struct mount_req *r, struct brig_error *err)
{
	_cleanup_(cgroup_layout_release) struct cgroup_layout l = { NULL, 0 };
	_cleanup_close_ int fsfd = -1, mnt = -1;

	if (resolve_target(r, BRIG_MKPATH_DIR, err) < 0 || cgroup_layout_read(&l, err) < 0)
		return -1;
	fsfd = fs_open("tmpfs", "tmpfs", err);
	if (fsfd < 0 || fs_param(fsfd, "mode=755", err) < 0 ||
	    fs_param_label(fsfd, r, "tmpfs", err) < 0)
		return -1;
	mnt = fs_mount(fsfd, r->fl.attr_set & ~(uint64_t)MOUNT_ATTR_RDONLY, err);
	if (mnt < 0 || attach(mnt, r->targetfd, err) < 0)
		return -1;
	for (size_t i = 0; i < l.n; i++) {
		if (!strcmp(l.h[i].mountpoint, CGROUP_ROOT))
			continue;
		if (cgroup_mount_hier(r, &l.h[i], mnt, err) < 0)
			return brig_error_wrap(err, "cgroup \"%s\"", l.h[i].mountpoint);
	}
	if (cgroup_comount_links(&l, mnt, err) < 0)
		return -1;
	if ((r->fl.attr_set & MOUNT_ATTR_RDONLY) &&
	    set_attrs(mnt, MOUNT_ATTR_RDONLY, 0, false, err) < 0)
		return -1;
	if (set_attrs(mnt, r->fl.rec_attr_set, r->fl.rec_attr_clr, true, err) < 0)
		return -1;
	return TAKE_FD(mnt);
}

/* A v2 host: a new cgroup2 mount (runc mounts one even without a cgroup
 * namespace); where the kernel refuses it (a user namespace without a
 * cgroup namespace), a bind of the caller's own cgroup. */
static int mount_cgroup_v2(struct mount_req *r, struct brig_error *err)
{
	_cleanup_(cgroup_layout_release) struct cgroup_layout l = { NULL, 0 };
	_cleanup_close_ int tree = -1;
	_cleanup_free_ char *dir = NULL;
	int fd;

	fd = mount_filesystem(r, "cgroup2", err);
	if (fd >= 0 || (err->errnum != EPERM && err->errnum != EBUSY) || r->targetfd < 0)
		return fd;
	brig_error_release(err);
	if (cgroup_layout_read(&l, err) < 0)
		return -1;
	for (size_t i = 0; i < l.n && !dir; i++)
		if (l.h[i].v2 && !strcmp(l.h[i].mountpoint, CGROUP_ROOT))
			dir = cgroup_host_dir(&l.h[i]);
	if (!dir)
		return brig_error_set(err, "no cgroup2 mount at \"%s\"", CGROUP_ROOT);
	tree = bind_open(dir, false, err);
	if (tree < 0 || set_attrs(tree, r->fl.attr_set, r->fl.attr_clr, false, err) < 0 ||
	    set_attrs(tree, r->fl.rec_attr_set, r->fl.rec_attr_clr, true, err) < 0 ||
	    attach(tree, r->targetfd, err) < 0)
		return -1;
	return TAKE_FD(tree);
}

/* type "cgroup": the container's view of the host's cgroup layout. */
static int mount_cgroup(struct mount_req *r, struct brig_error *err)
{
	struct statfs sfs;

	if (statfs(CGROUP_ROOT, &sfs) < 0)
		return brig_error_setp(err, errno, "statfs \"%s\"", CGROUP_ROOT);
	if (sfs.f_type == CGROUP2_SUPER_MAGIC)
		return mount_cgroup_v2(r, err);
	return mount_cgroup_v1(r, err);
}

/* ------------------------------------------------------------- setup */

static int mount_one(const struct brig_mount *m, int premade, const struct brig_mount_env *env,
                     int *attached, bool *ro_later, struct brig_error *err)
{
	struct mount_req r = { .m = m, .env = env, .targetfd = -1, .premade = premade };
	const char *type = m->type && m->type[0] ? m->type : NULL;
	_cleanup_close_ int mnt = -1;
	bool bind = false;
	int ret = -1;

	if (brig_mount_flags_parse(m->options, m->n_options, &r.fl, err) < 0)
		goto out;
	bind = r.fl.bind || r.fl.rbind || (type && !strcmp(type, "bind"));
	if ((r.fl.idmap || r.fl.ridmap || m->n_uid_mappings || m->n_gid_mappings) &&
	    (!bind || premade < 0)) {
		brig_error_set(err, "idmap: only bind mounts can be idmapped");
		goto out;
	}
	r.type = bind ? NULL : type;
	r.bind = bind;
	/* a read-only /dev of its own (a tmpfs, "ro") is made read-only only
	 * once the devices, links and mounts under it are there (runc's
	 * order): writable until brig_mounts_finish() */
	if (!bind && !r.fl.remount && (r.fl.attr_set & MOUNT_ATTR_RDONLY) &&
	    brig_mounted_is_dev(m->destination)) {
		r.fl.attr_set &= ~(uint64_t)MOUNT_ATTR_RDONLY;
		r.fl.sb_ro = false;
		*ro_later = true;
	}
	if (bind)
		mnt = mount_bind(&r, err);
	else if (r.fl.remount)
		mnt = mount_remount(&r, err);
	else if (!type)
		brig_error_set(err, "no filesystem type given");
	else if (!strcmp(type, "cgroup"))
		mnt = mount_cgroup(&r, err);
	else if (!strcmp(type, "sysfs"))
		mnt = mount_sysfs(&r, err);
	else
		mnt = mount_filesystem(&r, type, err);
	if (mnt >= 0)
		ret = set_propagation(mnt, r.fl.propagation, r.fl.rec_propagation, err);
	if (ret == 0)
		*attached = TAKE_FD(mnt);
out:
	if (r.targetfd >= 0)
		close(r.targetfd);
	brig_mount_flags_release(&r.fl);
	if (ret < 0) {
		if (type || bind)
			return brig_error_wrap(err, "mount \"%s\" (%s)", m->destination,
			                       type ? type : "bind");
		return brig_error_wrap(err, "mount \"%s\"", m->destination);
	}
	return 0;
}

int brig_mounts_setup(const struct brig_config *cfg, const struct brig_mount_env *env,
                      struct brig_mounted *out, struct brig_error *err)
{
	size_t cap = cfg->n_mounts ? cfg->n_mounts : 1;

	out->n = 0;
	out->dest = brig_xcalloc(cap, sizeof(*out->dest));
	out->fd = brig_xcalloc(cap, sizeof(*out->fd));
	out->ro_later = brig_xcalloc(cap, sizeof(*out->ro_later));
	for (size_t i = 0; i < cfg->n_mounts; i++) {
		out->fd[i] = -1;
		out->dest[i] = brig_path_clean(cfg->mounts[i].destination);
		out->n++;
		if (mount_one(&cfg->mounts[i], env->premade ? env->premade[i] : -1, env,
		              &out->fd[i], &out->ro_later[i], err) < 0)
			return -1;
	}
	return 0;
}

bool brig_mounted_is_dev(const char *destination)
{
	_cleanup_free_ char *clean = NULL;

	if (!destination || destination[0] != '/')
		return false;
	clean = brig_path_clean(destination);
	return !strcmp(clean, "/dev");
}

int brig_mounts_finish(const struct brig_mounted *m, struct brig_error *err)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->ro_later[i] && m->fd[i] >= 0 &&
		    set_attrs(m->fd[i], MOUNT_ATTR_RDONLY, 0, false, err) < 0)
			return brig_error_wrap(err, "mount \"%s\"", m->dest[i]);
	return 0;
}

void brig_mounted_release(struct brig_mounted *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->dest[i]);
		if (m->fd[i] >= 0)
			close(m->fd[i]);
	}
	free(m->dest);
	free(m->fd);
	free(m->ro_later);
	*m = (struct brig_mounted){ 0 };
}

/* The part of @path below @dest ("" for @dest itself), or NULL when @dest
 * is not @path or one of its parents (both clean). */
static const char *below(const char *path, const char *dest)
{
	size_t len = strlen(dest);

	if (!strcmp(dest, "/"))
		return path + 1;
	if (strncmp(path, dest, len) != 0 || (path[len] != '/' && path[len] != '\0'))
		return NULL;
	return path[len] ? path + len + 1 : path + len;
}

int brig_mounted_open(const struct brig_mounted *m, int rootfd, const char *path)
{
	_cleanup_free_ char *clean = brig_path_clean(path);
	const char *rest = NULL;
	size_t best = 0;
	int fd = -1;

	/* the deepest destination holding @path; of equals, the last (on top) */
	for (size_t i = 0; i < m->n; i++) {
		const char *r = m->fd[i] >= 0 ? below(clean, m->dest[i]) : NULL;

		if (r && strlen(m->dest[i]) >= best) {
			best = strlen(m->dest[i]);
			rest = r;
			fd = m->fd[i];
		}
	}
	if (fd < 0)
		return brig_open_in_root(rootfd, path, O_PATH | O_NOFOLLOW, 0);
	if (!*rest)
		return fcntl(fd, F_DUPFD_CLOEXEC, 3);
	/* beneath the filesystem brig attached, wherever its mount point went:
	 * no symlink or ".." leads out of it */
	return brig_openat2_retry(fd, rest, O_PATH | O_NOFOLLOW, 0,
	                          RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
}

/* ------------------------------------------------- a rootfs in the caller's */

uint64_t brig_rootfs_below(const char *rootfs)
{
	struct statx stx;

	if (statx(AT_FDCWD, rootfs, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) < 0)
		return 0;
	if (!(stx.stx_mask & STATX_MNT_ID)) {
		errno = ENOSYS;
		return 0;
	}
	return stx.stx_mnt_id;
}

uint64_t brig_mntns(void)
{
	struct stat st;

	return stat("/proc/self/ns/mnt", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* A container may have mounted over its own root again and again (it is
 * stopped by now): as many layers as the kernel's default fs.mount-max. */
#define ROOTFS_LAYERS_MAX 100000

int brig_rootfs_release(const char *rootfs, uint64_t mntns, uint64_t below, struct brig_error *err)
{
	uint64_t id;

	if (brig_mntns() != mntns) {
		brig_warn("the rootfs \"%s\" stays mounted: its mount namespace is not this one",
		          rootfs);
		return 0;
	}
	for (int i = 0; i < ROOTFS_LAYERS_MAX; i++) {
		id = brig_rootfs_below(rootfs);
		if (id == 0 && errno == ENOENT)
			return 0; /* the bundle went first: nothing there to unmount */
		if (id == 0)
			return brig_error_setp(err, errno, "statx \"%s\"", rootfs);
		if (id == below)
			return 0;
		if (umount2(rootfs, MNT_DETACH | UMOUNT_NOFOLLOW) < 0)
			return brig_error_setp(err, errno, "unmount the rootfs \"%s\"", rootfs);
	}
	return brig_error_set(err, "unmount the rootfs \"%s\": still mounted after %d unmounts",
	                      rootfs, ROOTFS_LAYERS_MAX);
}
