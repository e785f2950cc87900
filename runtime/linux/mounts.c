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
#include "util/fault.h"
#include "util/mountinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "linux/copyup.h"
#include "linux/mountapi.h"
#include "linux/resolve.h"
#include "linux/selinux.h"
#include "linux/syscalls.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/strbuf.h"

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
		if (brig_mount_option_is_data(m->options[i]) &&
		    brig_fs_param(fsfd, m->options[i], err) < 0)
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
	return brig_fs_param(fsfd, opt, err);
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
	                       : brig_bind_open(source, r->fl.rbind, err);
	if (tree < 0)
		return r->premade >= 0 ? brig_error_setp(err, errno, "dup") : -1;
	if (fstat(tree, &st) < 0)
		return brig_error_setp(err, errno, "stat \"%s\"", source);
	if (resolve_target(r, S_ISDIR(st.st_mode) ? BRIG_MKPATH_DIR : BRIG_MKPATH_FILE, err) < 0)
		return -1;
	if (brig_mnt_set_attrs(tree, r->fl.attr_set, r->fl.attr_clr, false, err) < 0 ||
	    brig_mnt_set_attrs(tree, r->fl.rec_attr_set, r->fl.rec_attr_clr, true, err) < 0)
		return -1;
	/* "ro" on an rbind covers the whole tree, as "rro" does: a read-only
	 * /sys must not leave /sys/fs/cgroup (or any submount) writable */
	if (r->fl.rbind && (r->fl.attr_set & MOUNT_ATTR_RDONLY) &&
	    brig_mnt_set_attrs(tree, MOUNT_ATTR_RDONLY, 0, true, err) < 0)
		return -1;
	if (brig_mnt_attach(tree, r->targetfd, err) < 0)
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
	fsfd = brig_fs_open(fstype, r->m->source, err);
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
		if (S_ISDIR(st.st_mode) && brig_fs_param(fsfd, mode, err) < 0)
			return -1;
	}
	if (!strcmp(fstype, "cgroup2") && !r->env->new_cgroupns &&
	    cgroup2_keep_root_options(fsfd, err) < 0)
		return -1;
	if (fs_params_from_spec(fsfd, r->m, err) < 0 || fs_param_label(fsfd, r, fstype, err) < 0)
		return -1;
	/* a tmpfs stays writable underneath until it is populated; the mount
	 * is made read-only afterwards */
	if (r->fl.sb_ro && !tmpfs && brig_fs_param(fsfd, "ro", err) < 0)
		return -1;
	if (tmpfs)
		attrs &= ~(uint64_t)MOUNT_ATTR_RDONLY;
	mnt = brig_fs_mount(fsfd, attrs, err);
	if (mnt < 0)
		return -1;
	/* the mqueue of the container's own ipc namespace gets the label on
	 * its root, as in runc (the host's, when shared, is left alone) */
	if (!strcmp(fstype, "mqueue") && r->env->new_ipcns && !options_set_context(r->m) &&
	    brig_selinux_set_file_label(mnt, r->env->mount_label, err) < 0)
		return -1;
	if (tmpfs && r->fl.tmpcopyup && brig_copy_tree(r->targetfd, mnt, err) < 0)
		return -1;
	if (tmpfs && (r->fl.attr_set & MOUNT_ATTR_RDONLY) &&
	    brig_mnt_set_attrs(mnt, MOUNT_ATTR_RDONLY, 0, false, err) < 0)
		return -1;
	if (brig_mnt_set_attrs(mnt, r->fl.rec_attr_set, r->fl.rec_attr_clr, true, err) < 0 ||
	    brig_mnt_attach(mnt, r->targetfd, err) < 0)
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
		r->fl.attr_set |= MOUNT_ATTR_RDONLY;
		r->fl.attr_clr &= ~(uint64_t)MOUNT_ATTR_RDONLY;
	}
	fd = mount_filesystem(r, "sysfs", err);
	if (fd >= 0 || err->errnum != EPERM || r->targetfd < 0)
		return fd;
	brig_error_release(err);
	tree = brig_bind_open("/sys", true, err);
	if (tree < 0)
		return -1;
	if (brig_mnt_set_attrs(tree, r->fl.attr_set | r->fl.rec_attr_set | MOUNT_ATTR_RDONLY,
	                       (r->fl.attr_clr | r->fl.rec_attr_clr) & ~(uint64_t)MOUNT_ATTR_RDONLY,
	                       true, err) < 0 ||
	    brig_mnt_attach(tree, r->targetfd, err) < 0)
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
			return brig_fs_fail(fsfd, errno, "reconfigure", err);
	}
	if (brig_mnt_set_attrs(target, r->fl.attr_set, r->fl.attr_clr, false, err) < 0 ||
	    brig_mnt_set_attrs(target, r->fl.rec_attr_set, r->fl.rec_attr_clr, true, err) < 0)
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
			    brig_fs_param(fsfd, t, err) < 0)
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
	_cleanup_close_ int fsfd = brig_fs_open(fstype, fstype, err);
	_cleanup_free_ char *ctrls = NULL;
	char *save = NULL;

	if (fsfd < 0)
		return -1;
	if (!h->v2) {
		ctrls = brig_xstrdup(h->controllers);
		for (char *t = strtok_r(ctrls, ",", &save); t; t = strtok_r(NULL, ",", &save))
			if (brig_fs_param(fsfd, t, err) < 0)
				return -1;
	}
	return brig_fs_mount(fsfd, attrs, err);
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

		mnt = brig_bind_open(dir, false, err);
		if (mnt < 0 ||
		    brig_mnt_set_attrs(mnt, r->fl.attr_set, r->fl.attr_clr, false, err) < 0)
			return -1;
	}
	return brig_mnt_attach(mnt, sub, err);
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
	fsfd = brig_fs_open("tmpfs", "tmpfs", err);
	if (fsfd < 0 || brig_fs_param(fsfd, "mode=755", err) < 0 ||
	    fs_param_label(fsfd, r, "tmpfs", err) < 0)
		return -1;
	mnt = brig_fs_mount(fsfd, r->fl.attr_set & ~(uint64_t)MOUNT_ATTR_RDONLY, err);
	if (mnt < 0 || brig_mnt_attach(mnt, r->targetfd, err) < 0)
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
	    brig_mnt_set_attrs(mnt, MOUNT_ATTR_RDONLY, 0, false, err) < 0)
		return -1;
	if (brig_mnt_set_attrs(mnt, r->fl.rec_attr_set, r->fl.rec_attr_clr, true, err) < 0)
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
	tree = brig_bind_open(dir, false, err);
	if (tree < 0 || brig_mnt_set_attrs(tree, r->fl.attr_set, r->fl.attr_clr, false, err) < 0 ||
	    brig_mnt_set_attrs(tree, r->fl.rec_attr_set, r->fl.rec_attr_clr, true, err) < 0 ||
	    brig_mnt_attach(tree, r->targetfd, err) < 0)
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
		ret = brig_mnt_set_propagation(mnt, r.fl.propagation, r.fl.rec_propagation, err);
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
		if (brig_fault("init.mount") < 0)
			return brig_error_setp(err, errno, "mount \"%s\"", out->dest[i]);
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
		    brig_mnt_set_attrs(m->fd[i], MOUNT_ATTR_RDONLY, 0, false, err) < 0)
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
