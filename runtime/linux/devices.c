/* SPDX-License-Identifier: Apache-2.0 */
/*
 * /dev inside the container, maskedPaths and readonlyPaths.
 *
 * Everything here acts on the container's rootfs, which the container
 * controls: each path is resolved inside it with openat2(RESOLVE_IN_ROOT),
 * the last component is never followed when it is a symlink, nodes are
 * created relative to the fd of their parent directory, and every mount is
 * made by fd (open_tree / fsmount + move_mount).  The source of a mask is the
 * host's /dev/null opened and checked by brig, never a path of the rootfs
 * (CVE-2025-31133).
 */
#include "config.h"
#include "linux/devices.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "linux/mounts.h"
#include "linux/resolve.h"
#include "linux/syscalls.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452 /* Linux 6.6, the same number on every architecture */
#endif

/* One node to create: a default device or a linux.devices entry. */
struct node {
	const char *path;
	char type; /* 'c', 'b', 'u' or 'p' */
	unsigned major, minor;
	mode_t mode; /* permission bits only */
	uid_t uid;
	gid_t gid;
};

/* clang-format off */
static const struct node default_devices[] = {
	{ "/dev/null",    'c', 1, 3, 0666, 0, 0 },
	{ "/dev/zero",    'c', 1, 5, 0666, 0, 0 },
	{ "/dev/full",    'c', 1, 7, 0666, 0, 0 },
	{ "/dev/tty",     'c', 5, 0, 0666, 0, 0 },
	{ "/dev/random",  'c', 1, 8, 0666, 0, 0 },
	{ "/dev/urandom", 'c', 1, 9, 0666, 0, 0 },
};
/* clang-format on */

static const struct {
	const char *name; /* in /dev */
	const char *target;
} dev_links[] = {
	{ "fd", "/proc/self/fd" },
	{ "stdin", "/proc/self/fd/0" },
	{ "stdout", "/proc/self/fd/1" },
	{ "stderr", "/proc/self/fd/2" },
};

static mode_t node_ifmt(char type)
{
	switch (type) {
	case 'c':
	case 'u':
		return S_IFCHR;
	case 'b':
		return S_IFBLK;
	case 'p':
		return S_IFIFO;
	default:
		return 0;
	}
}

static bool node_matches(const struct node *n, const struct stat *st)
{
	mode_t fmt = node_ifmt(n->type);

	if ((st->st_mode & S_IFMT) != fmt)
		return false;
	return fmt == S_IFIFO || st->st_rdev == makedev(n->major, n->minor);
}

/* Compare two absolute paths, ignoring repeated and trailing slashes. */
static bool same_path(const char *a, const char *b)
{
	for (;;) {
		while (*a == '/' && (a[1] == '/' || a[1] == '\0'))
			a++;
		while (*b == '/' && (b[1] == '/' || b[1] == '\0'))
			b++;
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}

/*
 * Split @path into its parent directory and its last component, both in
 * one heap buffer *buf ("parent\0name\0"; the parent of "/x" is "/").
 * Fails when the last component is empty, "." or "..", e.g. for "/".
 */
static int split_path(const char *path, char **buf, const char **parent, const char **base,
                      struct brig_error *err)
{
	size_t len = strlen(path), start, plen;
	char *b;

	while (len > 1 && path[len - 1] == '/')
		len--;
	if (path[0] != '/')
		return brig_error_set(err, "device path \"%s\" is not absolute", path);
	for (start = len; path[start - 1] != '/'; start--)
		;
	if (start == len || (len - start == 1 && path[start] == '.') ||
	    (len - start == 2 && path[start] == '.' && path[start + 1] == '.'))
		return brig_error_set(err, "device path \"%s\" does not name a file", path);
	for (plen = start; plen > 1 && path[plen - 1] == '/'; plen--)
		;
	b = brig_xmalloc(plen + 1 + (len - start) + 1);
	memcpy(b, path, plen);
	b[plen] = '\0';
	memcpy(b + plen + 1, path + start, len - start);
	b[plen + 1 + len - start] = '\0';
	*buf = b;
	*parent = b;
	*base = b + plen + 1;
	return 0;
}

/*
 * The O_PATH fd of a directory of the rootfs, created if missing; the last
 * one is cached, since nearly every node lives in /dev.  Nodes are made,
 * and entries replaced, only on the mounts of @own: the rootfs's own and a
 * filesystem the config mounts at /dev.  An image whose /dev is a symlink
 * into a volume (a directory of the host) gets nothing made there.
 */
struct dir_cache {
	char *path;
	int fd;
	bool own_dir; /* fd is on one of @own */
	uint64_t own[2];
	size_t n_own;
};

static void dir_cache_release(struct dir_cache *c)
{
	free(c->path);
	if (c->fd >= 0)
		close(c->fd);
}

static int dir_cache_get(struct dir_cache *c, int rootfd, const char *dir, struct brig_error *err)
{
	int fd;

	if (c->fd >= 0 && !strcmp(c->path, dir))
		return c->fd;
	fd = brig_mkpath_on_mounts(rootfd, dir, BRIG_MKPATH_DIR, c->own, c->n_own, err);
	if (fd < 0)
		return -1;
	free(c->path);
	if (c->fd >= 0)
		close(c->fd);
	c->path = brig_xstrdup(dir);
	c->fd = fd;
	c->own_dir = brig_mnt_id_in(fd, c->own, c->n_own);
	return fd;
}

/* Nothing may be made or removed at @path in a directory off our mounts:
 * only a node that is already right is taken as it is. */
static int refuse_foreign(const char *path, struct brig_error *err)
{
	return brig_error_set(err,
	                      "device \"%s\": its directory is not on the rootfs or the /dev "
	                      "mount (an image's symlink leads elsewhere): nothing is made there",
	                      path);
}

/* The last entry of cfg->mounts on /dev (the one on top), or NULL. */
static const struct brig_mount *dev_mount(const struct brig_config *cfg)
{
	const struct brig_mount *top = NULL;

	for (size_t i = 0; cfg && i < cfg->n_mounts; i++)
		if (brig_mounted_is_dev(cfg->mounts[i].destination))
			top = &cfg->mounts[i];
	return top;
}

bool brig_dev_is_bind_mounted(const struct brig_config *cfg)
{
	const struct brig_mount *m = dev_mount(cfg);

	if (!m)
		return false;
	if (m->type && !strcmp(m->type, "bind"))
		return true;
	for (size_t k = 0; k < m->n_options; k++)
		if (!strcmp(m->options[k], "bind") || !strcmp(m->options[k], "rbind"))
			return true;
	return false;
}

/* The mount of the config's own /dev filesystem (not a bind), reached
 * without a symlink, or 0. */
static uint64_t dev_mount_id(int rootfd, const struct brig_config *cfg)
{
	_cleanup_close_ int fd = -1;
	struct statx stx;

	if (!dev_mount(cfg) || brig_dev_is_bind_mounted(cfg))
		return 0;
	fd = brig_openat2_retry(rootfd, "/dev", O_PATH | O_DIRECTORY, 0,
	                        BRIG_RESOLVE_IN_ROOT_FLAGS | RESOLVE_NO_SYMLINKS);
	if (fd < 0 || statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) < 0 ||
	    !(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
	    !(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
		return 0;
	return stx.stx_mnt_id;
}

/* Remove whatever is at @name in @dirfd (an empty directory too). */
static int remove_entry(int dirfd, const char *name, const struct stat *st)
{
	return unlinkat(dirfd, name, S_ISDIR(st->st_mode) ? AT_REMOVEDIR : 0);
}

/* chmod that never follows a symlink and ignores the umask. */
static int chmod_nofollow(int dirfd, const char *name, mode_t mode)
{
	if (syscall(SYS_fchmodat2, dirfd, name, mode, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	/* before Linux 6.6: glibc emulates the flag through O_PATH */
	return fchmodat(dirfd, name, mode, AT_SYMLINK_NOFOLLOW);
}

/*
 * Bind the host's node at n->path onto an empty regular file @name of
 * @dirfd, by fd.  The host node is checked to be the device asked for; its
 * mode and owner are left alone (chmod/chown would reach the host's node).
 */
static int bind_host_node(const struct dir_cache *c, const char *name, const struct node *n,
                          struct brig_error *err)
{
	_cleanup_close_ int tree = -1, target = -1;
	int dirfd = c->fd;
	struct stat st;

	/* O_PATH crosses a mount on the entry: a bind made before is seen */
	target = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (target >= 0) {
		if (fstat(target, &st) < 0)
			return brig_error_setp(err, errno, "stat \"%s\"", n->path);
		if (node_matches(n, &st))
			return 0;
		if (!c->own_dir)
			return refuse_foreign(n->path, err);
		if (!S_ISREG(st.st_mode)) {
			/* a node, link or directory the rootfs shipped: make way */
			close(target);
			target = -1;
			if (remove_entry(dirfd, name, &st) < 0)
				return brig_error_setp(err, errno, "remove \"%s\"", n->path);
		}
	} else if (errno != ENOENT) {
		return brig_error_setp(err, errno, "open \"%s\"", n->path);
	}
	if (target < 0) {
		if (!c->own_dir)
			return refuse_foreign(n->path, err);
		/* a new empty file, and an fd of exactly that file */
		target =
		    openat(dirfd, name, O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (target < 0)
			return brig_error_setp(err, errno, "create \"%s\"", n->path);
	}

	tree = open_tree(AT_FDCWD, n->path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0)
		return brig_error_setp(err, errno, "open the host's \"%s\"", n->path);
	if (fstat(tree, &st) < 0)
		return brig_error_setp(err, errno, "stat the host's \"%s\"", n->path);
	if (!node_matches(n, &st))
		return brig_error_set(err, "the host's \"%s\" is not the device %c %u:%u", n->path,
		                      n->type, n->major, n->minor);
	if (move_mount(tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return brig_error_setp(err, errno, "bind the host's \"%s\"", n->path);
	return 0;
}

static int create_node(int rootfd, struct dir_cache *dirs, const struct node *n, bool bind,
                       struct brig_error *err)
{
	_cleanup_free_ char *buf = NULL;
	const char *parent = NULL, *name = NULL;
	mode_t fmt = node_ifmt(n->type);
	struct stat st;
	int dirfd;

	if (!fmt)
		return brig_error_set(err, "device \"%s\": unknown type '%c'", n->path, n->type);
	if (split_path(n->path, &buf, &parent, &name, err) < 0)
		return -1;
	dirfd = dir_cache_get(dirs, rootfd, parent, err);
	if (dirfd < 0)
		return brig_error_wrap(err, "device \"%s\"", n->path);

	/* a fifo needs no privilege: it is made even in a user namespace */
	if (bind && fmt != S_IFIFO)
		return bind_host_node(dirs, name, n, err);
	if (!dirs->own_dir) {
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && node_matches(n, &st))
			return 0;
		return refuse_foreign(n->path, err);
	}

	while (mknodat(dirfd, name, fmt | n->mode, makedev(n->major, n->minor)) < 0) {
		if (errno == EPERM && fmt != S_IFIFO)
			return bind_host_node(dirs, name, n, err);
		if (errno != EEXIST)
			return brig_error_setp(err, errno, "mknod \"%s\"", n->path);
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			return brig_error_setp(err, errno, "stat \"%s\"", n->path);
		}
		/* The right node is kept as it is, like runc does: it may be a
		 * bind of the host's node, which must not be chmod'ed.  Anything
		 * else (a symlink to /proc/sys/..., a file) is replaced. */
		if (node_matches(n, &st))
			return 0;
		if (remove_entry(dirfd, name, &st) < 0)
			return brig_error_setp(err, errno, "remove \"%s\"", n->path);
	}
	/* chown first: it clears set-id bits the mode may ask for */
	if (fchownat(dirfd, name, n->uid, n->gid, AT_SYMLINK_NOFOLLOW) < 0)
		return brig_error_setp(err, errno, "chown \"%s\"", n->path);
	if (chmod_nofollow(dirfd, name, n->mode) < 0)
		return brig_error_setp(err, errno, "chmod \"%s\"", n->path);
	return 0;
}

/*
 * Make @name in @dirfd a symlink to @target.  A symlink with another target
 * or a non-directory is replaced; a directory is removed when @force (an
 * error if it is not empty), else left alone.
 */
static int make_link(int dirfd, const char *name, const char *target, bool force,
                     struct brig_error *err)
{
	char buf[64];
	struct stat st;
	ssize_t len;

	while (symlinkat(target, dirfd, name) < 0) {
		if (errno != EEXIST)
			return brig_error_setp(err, errno, "symlink \"/dev/%s\"", name);
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			return brig_error_setp(err, errno, "stat \"/dev/%s\"", name);
		}
		if (S_ISLNK(st.st_mode)) {
			len = readlinkat(dirfd, name, buf, sizeof(buf));
			if (len < 0)
				return brig_error_setp(err, errno, "readlink \"/dev/%s\"", name);
			if ((size_t)len == strlen(target) && !memcmp(buf, target, (size_t)len))
				return 0;
		} else if (S_ISDIR(st.st_mode) && !force) {
			return 0;
		}
		if (remove_entry(dirfd, name, &st) < 0)
			return brig_error_setp(err, errno, "remove \"/dev/%s\"", name);
	}
	return 0;
}

static int dev_links_setup(int rootfd, struct dir_cache *dirs, struct brig_error *err)
{
	int dirfd;
	size_t i;

	dirfd = dir_cache_get(dirs, rootfd, "/dev", err);
	if (dirfd < 0)
		return -1;
	if (!dirs->own_dir)
		return refuse_foreign("/dev", err);
	/* runc removes whatever /dev/ptmx is (a node, a file) for the link */
	if (make_link(dirfd, "ptmx", "pts/ptmx", true, err) < 0)
		return -1;
	for (i = 0; i < ARRAY_SIZE(dev_links); i++)
		if (make_link(dirfd, dev_links[i].name, dev_links[i].target, false, err) < 0)
			return -1;
	/* as runc: only when the kernel has CONFIG_PROC_KCORE */
	if (faccessat(AT_FDCWD, "/proc/kcore", F_OK, 0) == 0 &&
	    make_link(dirfd, "core", "/proc/kcore", false, err) < 0)
		return -1;
	return 0;
}

int brig_devices_setup(int rootfd, const struct brig_config *cfg, bool in_userns,
                       struct brig_error *err)
{
	_cleanup_(dir_cache_release) struct dir_cache dirs = { .fd = -1 };
	const struct brig_device *devs = NULL;
	size_t n_devs = 0, i, j;
	uint64_t dev_id = dev_mount_id(rootfd, cfg);

	dirs.own[dirs.n_own++] = brig_mnt_id(rootfd);
	if (dev_id)
		dirs.own[dirs.n_own++] = dev_id;

	if (cfg && cfg->linux) {
		devs = cfg->linux->devices;
		n_devs = cfg->linux->n_devices;
	}

	for (i = 0; i < ARRAY_SIZE(default_devices); i++) {
		bool overridden = false;

		/* an entry of linux.devices with the same path takes priority */
		for (j = 0; j < n_devs && !overridden; j++)
			overridden =
			    devs[j].path && same_path(devs[j].path, default_devices[i].path);
		if (!overridden &&
		    create_node(rootfd, &dirs, &default_devices[i], in_userns, err) < 0)
			return -1;
	}
	for (i = 0; i < n_devs; i++) {
		const struct brig_device *d = &devs[i];
		struct node n = {
			.path = d->path,
			.type = d->type,
			.mode = d->file_mode.set ? (d->file_mode.value & 07777) : 0666,
			.uid = d->uid.set ? d->uid.value : 0,
			.gid = d->gid.set ? d->gid.value : 0,
		};

		if (!d->path)
			continue;
		if (d->major < 0 || d->major > UINT32_MAX || d->minor < 0 || d->minor > UINT32_MAX)
			return brig_error_set(err, "device \"%s\": bad numbers %lld:%lld", d->path,
			                      (long long)d->major, (long long)d->minor);
		n.major = (unsigned)d->major;
		n.minor = (unsigned)d->minor;
		if (create_node(rootfd, &dirs, &n, in_userns, err) < 0)
			return -1;
	}
	return dev_links_setup(rootfd, &dirs, err);
}

int brig_devnull_open(struct brig_error *err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	fd = open("/dev/null", O_PATH | O_CLOEXEC);
	if (fd < 0)
		return brig_error_setp(err, errno, "open \"/dev/null\"");
	if (fstat(fd, &st) < 0)
		return brig_error_setp(err, errno, "stat \"/dev/null\"");
	if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3))
		return brig_error_set(err, "\"/dev/null\" is not the character device 1:3");
	return TAKE_FD(fd);
}

/* An empty, read-only tmpfs, detached: the fd of its mount.  Its files
 * have the SELinux context @mount_label when one is given. */
static int empty_tmpfs(const char *mount_label, struct brig_error *err)
{
	_cleanup_close_ int fs = -1;
	int mnt;

	fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return brig_error_setp(err, errno, "fsopen \"tmpfs\"");
	/* fsconfig takes the context without the quotes of mount(2) data */
	if (mount_label && mount_label[0] &&
	    fsconfig(fs, FSCONFIG_SET_STRING, "context", mount_label, 0) < 0)
		return brig_error_setp(err, errno, "empty tmpfs: context \"%s\"", mount_label);
	if (fsconfig(fs, FSCONFIG_SET_STRING, "source", "tmpfs", 0) < 0 ||
	    fsconfig(fs, FSCONFIG_SET_FLAG, "ro", NULL, 0) < 0 ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return brig_error_setp(err, errno, "create an empty tmpfs");
	mnt = fsmount(fs, FSMOUNT_CLOEXEC,
	              MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	if (mnt < 0)
		return brig_error_setp(err, errno, "fsmount an empty tmpfs");
	return mnt;
}

/*
 * The mask of a directory.  One tmpfs serves them all: it is mounted on the
 * first directory and cloned (open_tree, attached, so any kernel allows it)
 * onto the others — one superblock to create and tear down instead of one
 * per directory.  It is read-only and empty, so sharing it leaks nothing.
 */
static int mask_dir(int target, int *shared, const char *mount_label, const char *path,
                    struct brig_error *err)
{
	_cleanup_close_ int tree = -1;

	if (*shared < 0) {
		*shared = empty_tmpfs(mount_label, err);
		if (*shared < 0)
			return brig_error_wrap(err, "mask \"%s\"", path);
		tree = fcntl(*shared, F_DUPFD_CLOEXEC, 3);
	} else {
		tree = open_tree(*shared, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	}
	if (tree < 0)
		return brig_error_setp(err, errno, "mask \"%s\": clone the empty tmpfs", path);
	if (move_mount(tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return brig_error_setp(err, errno, "mask \"%s\"", path);
	return 0;
}

static int mask_file(int target, int devnull, const char *path, struct brig_error *err)
{
	_cleanup_close_ int tree = -1;
	struct stat st;

	tree = open_tree(devnull, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (tree < 0)
		return brig_error_setp(err, errno, "mask \"%s\": clone \"/dev/null\"", path);
	/* the clone is of the inode brig checked; check it once more anyway */
	if (fstat(tree, &st) < 0 || !S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3))
		return brig_error_set(err, "mask \"%s\": the source is not \"/dev/null\"", path);
	if (move_mount(tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return brig_error_setp(err, errno, "mask \"%s\"", path);
	return 0;
}

/* Open @path of the rootfs as O_PATH without following a final symlink.
 * 0 and *fd = -1 when the path is missing or is a symlink (skipped). */
/* @path beneath the mount brig made for it (linux/mounts.h): a /proc that a
 * rename turned into a symlink leaves the masks on the real procfs. */
static int open_target(int rootfd, const struct brig_mounted *m, const char *path, const char *what,
                       int *fd, struct stat *st, struct brig_error *err)
{
	_cleanup_close_ int f = -1;

	*fd = -1;
	f = brig_mounted_open(m, rootfd, path);
	if (f < 0) {
		if (errno == ENOENT)
			return 0;
		return brig_error_setp(err, errno, "%s \"%s\"", what, path);
	}
	if (fstat(f, st) < 0)
		return brig_error_setp(err, errno, "%s \"%s\": stat", what, path);
	if (S_ISLNK(st->st_mode))
		return 0;
	*fd = TAKE_FD(f);
	return 0;
}

/*
 * @devnull must have been opened in the mount namespace being set up
 * (after the unshare, before pivot_root): open_tree() refuses to clone a
 * mount of another namespace (EINVAL).
 */
int brig_paths_mask(int rootfd, const struct brig_mounted *m, int devnull, const char *const *paths,
                    size_t n, const char *mount_label, struct brig_error *err)
{
	_cleanup_close_ int shared = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		_cleanup_close_ int target = -1;
		struct stat st;
		int r;

		if (open_target(rootfd, m, paths[i], "mask", &target, &st, err) < 0)
			return -1;
		if (target < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			r = mask_dir(target, &shared, mount_label, paths[i], err);
		else
			r = mask_file(target, devnull, paths[i], err);
		if (r < 0)
			return -1;
	}
	return 0;
}

int brig_paths_readonly(int rootfd, const struct brig_mounted *m, const char *const *paths,
                        size_t n, struct brig_error *err)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };
	size_t i;

	for (i = 0; i < n; i++) {
		_cleanup_close_ int target = -1, tree = -1;
		struct stat st;

		if (open_target(rootfd, m, paths[i], "readonly", &target, &st, err) < 0)
			return -1;
		if (target < 0)
			continue;
		tree = open_tree(
		    target, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_EMPTY_PATH);
		if (tree < 0)
			return brig_error_setp(err, errno, "readonly \"%s\": bind", paths[i]);
		/* only "ro" is added; nosuid/nodev/noexec stay as they were (runc) */
		if (mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0)
			return brig_error_setp(err, errno, "readonly \"%s\": set read-only",
			                       paths[i]);
		if (move_mount(tree, "", target, "",
		               MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
			return brig_error_setp(err, errno, "readonly \"%s\"", paths[i]);
	}
	return 0;
}
