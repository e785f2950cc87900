/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/rootfs.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/syscalls.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/log.h"
#include "util/mountinfo.h"

unsigned long brig_rootfs_propagation_flag(const char *name)
{
	static const struct {
		const char *name;
		unsigned long flag;
	} table[] = {
		{ "private", MS_PRIVATE },       { "rprivate", MS_PRIVATE | MS_REC },
		{ "slave", MS_SLAVE },           { "rslave", MS_SLAVE | MS_REC },
		{ "shared", MS_SHARED },         { "rshared", MS_SHARED | MS_REC },
		{ "unbindable", MS_UNBINDABLE }, { "runbindable", MS_UNBINDABLE | MS_REC },
	};

	for (size_t i = 0; name && i < ARRAY_SIZE(table); i++)
		if (strcmp(table[i].name, name) == 0)
			return table[i].flag;
	return 0;
}

/*
 * The mount holding @path, if it is shared, becomes private in this mount
 * namespace (runc's rootfsParentMountPrivate): the bind of the rootfs must
 * not propagate back to the host, and pivot_root refuses a shared parent.
 */
static int make_parent_mount_private(const char *path, struct brig_error *err)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
	struct statx stx;
	size_t cap = 0;

	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID, &stx) < 0)
		return brig_error_setp(err, errno, "statx \"%s\"", path);
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return brig_error_setp(err, errno, "open /proc/self/mountinfo");
	while (getline(&line, &cap, f) > 0) {
		struct brig_mountinfo e;

		if (!brig_mountinfo_parse(line, &e) || e.id != stx.stx_mnt_id)
			continue;
		if (!strstr(e.optional, "shared:"))
			return 0;
		if (mount(NULL, e.mountpoint, NULL, MS_PRIVATE, NULL) < 0)
			return brig_error_setp(err, errno, "make \"%s\" private", e.mountpoint);
		return 0;
	}
	return 0;
}

/*
 * Make the host's mounts stop propagating into the container's namespace
 * (recursively slave, or rootfsPropagation), then make the rootfs a mount
 * of its own (pivot_root needs one) and return an O_PATH fd of it.  In
 * the caller's own mount namespace (no mount namespace in config.json)
 * its "/" is left as it is: only the rootfs bind, private, is brig's, and
 * everything the container mounts goes below it, out of the caller's way.
 */
int brig_rootfs_prepare(const struct brig_rootfs *r, struct brig_error *err)
{
	unsigned long root_flag = brig_rootfs_propagation_flag(r->propagation);
	_cleanup_close_ int tree = -1;
	int fd;

	/* an unbindable "/" could not give the rootfs its bind: slave it
	 * stays until the container's own root is made unbindable, at the
	 * end (runc >= 1.2: runc 1.1.5 fails with EINVAL) */
	if (root_flag & MS_UNBINDABLE)
		root_flag = 0;

	if (!r->shared_mntns &&
	    mount(NULL, "/", NULL, root_flag ? root_flag : MS_SLAVE | MS_REC, NULL) < 0)
		return brig_error_setp(err, errno, "set the propagation of \"/\"");
	/* after a recursive slave or private, nothing is shared any more */
	if (!r->shared_mntns && root_flag && root_flag != (MS_SLAVE | MS_REC) &&
	    root_flag != (MS_PRIVATE | MS_REC) && make_parent_mount_private(r->path, err) < 0)
		return -1;
	tree = open_tree(AT_FDCWD, r->path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (tree < 0)
		return brig_error_setp(err, errno, "rootfs \"%s\"", r->path);
	if (move_mount(tree, "", AT_FDCWD, r->path, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return brig_error_setp(err, errno, "bind the rootfs \"%s\"", r->path);
	/* pivot_root refuses a shared new root */
	if (mount(NULL, r->path, NULL, MS_PRIVATE, NULL) < 0)
		return brig_error_setp(err, errno, "make the rootfs mount private");
	fd = open(r->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return brig_error_setp(err, errno, "open the rootfs \"%s\"", r->path);
	return fd;
}

/* Whether @path is @dir or below it. */
static bool path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/*
 * --no-pivot: the host's root stays under the container's, in its mount
 * namespace, and with it the host's full procfs and sysfs mounts, which
 * tell the kernel that a fresh procfs or sysfs mount reveals nothing new
 * (mount_too_revealing).  They are unmounted first, or covered by a tmpfs
 * where they cannot be (locked in a user namespace), as runc does.  Not
 * under a shared "/" (rootfsPropagation): the unmount would reach the
 * host's.
 */
static int hide_host_proc_sys(const struct brig_rootfs *r, struct brig_error *err)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;

	if (brig_rootfs_propagation_flag(r->propagation) & MS_SHARED)
		return 0;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return brig_error_setp(err, errno, "open /proc/self/mountinfo");
	while (getline(&line, &cap, f) > 0) {
		struct brig_mountinfo e;

		if (!brig_mountinfo_parse(line, &e) || strcmp(e.root, "/") != 0 ||
		    (strcmp(e.fstype, "proc") != 0 && strcmp(e.fstype, "sysfs") != 0) ||
		    path_under(e.mountpoint, r->path))
			continue;
		if (umount2(e.mountpoint, MNT_DETACH | UMOUNT_NOFOLLOW) == 0 || errno == ENOENT)
			continue;
		if (errno != EINVAL && errno != EPERM)
			return brig_error_setp(err, errno, "unmount the host's \"%s\"",
			                       e.mountpoint);
		if (mount("tmpfs", e.mountpoint, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		          "size=4k,mode=0") < 0 &&
		    errno != ENOENT)
			return brig_error_setp(err, errno, "cover the host's \"%s\"", e.mountpoint);
	}
	return 0;
}

int brig_rootfs_enter(const struct brig_rootfs *r, int rootfd, struct brig_error *err)
{
	/* in the caller's mount namespace neither pivot_root nor a move over
	 * its "/" may happen: a chroot, as runc does there */
	if (r->shared_mntns) {
		if (fchdir(rootfd) < 0 || chroot(".") < 0 || chdir("/") < 0)
			return brig_error_setp(err, errno, "chroot into the rootfs");
		return 0;
	}
	if (r->no_pivot) {
		if (hide_host_proc_sys(r, err) < 0)
			return -1;
		if (fchdir(rootfd) < 0 || mount(".", "/", NULL, MS_MOVE, NULL) < 0 ||
		    chroot(".") < 0 || chdir("/") < 0)
			return brig_error_setp(err, errno, "move into the rootfs (--no-pivot)");
		return 0;
	}
	{
		_cleanup_close_ int oldroot = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

		/* pivot_root(".", "."): the old root ends up under the new one,
		 * is made a slave so unmounting it cannot reach the host, and is
		 * detached */
		if (oldroot < 0 || fchdir(rootfd) < 0)
			return brig_error_setp(err, errno, "enter the rootfs");
		if (brig_pivot_root(".", ".") < 0)
			return brig_error_setp(err, errno, "pivot_root");
		if (fchdir(oldroot) < 0 || mount(NULL, ".", NULL, MS_SLAVE | MS_REC, NULL) < 0 ||
		    umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
			return brig_error_setp(err, errno, "detach the old root");
	}
	return 0;
}

int brig_rootfs_propagate(const char *propagation, struct brig_error *err)
{
	unsigned long flag = brig_rootfs_propagation_flag(propagation);

	if (flag & (MS_SHARED | MS_UNBINDABLE) &&
	    mount(NULL, "/", NULL, flag & (MS_SHARED | MS_UNBINDABLE | MS_REC), NULL) < 0)
		return brig_error_setp(err, errno, "set the propagation of the rootfs (%s)",
		                       propagation);
	return 0;
}

int brig_rootfs_readonly(struct brig_error *err)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };

	if (mount_setattr(AT_FDCWD, "/", 0, &attr, sizeof(attr)) < 0)
		return brig_error_setp(err, errno, "make the rootfs read-only");
	return 0;
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
