/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/mountapi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/mounts.h"
#include "linux/syscalls.h"
#include "util/cleanup.h"
#include "util/error.h"

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
int brig_fs_fail(int fsfd, int errnum, const char *what, struct brig_error *err)
{
	_cleanup_free_ char *kmsg = fs_log_error(fsfd);

	if (kmsg)
		return brig_error_setp(err, errnum, "%s: %s", what, kmsg);
	return brig_error_setp(err, errnum, "%s", what);
}

/* fsopen(@fstype) with "source" set when @source is given. */
int brig_fs_open(const char *fstype, const char *source, struct brig_error *err)
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

		return brig_fs_fail(fsfd, saved, what, err);
	}
	return TAKE_FD(fsfd);
}

/* One data option: "key=value" is a string, a bare "key" a flag
 * (brig_mount_data_split). */
int brig_fs_param(int fsfd, const char *opt, struct brig_error *err)
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

		return brig_fs_fail(fsfd, saved, what, err);
	}
	return 0;
}

/* Create the superblock and return a detached mount of it with @attrs. */
int brig_fs_mount(int fsfd, uint64_t attrs, struct brig_error *err)
{
	int mnt;

	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return brig_fs_fail(fsfd, errno, "create the filesystem", err);
	mnt = fsmount(fsfd, FSMOUNT_CLOEXEC, (unsigned int)attrs);
	if (mnt < 0)
		return brig_fs_fail(fsfd, errno, "fsmount", err);
	return mnt;
}

/* A detached copy of the host path @source (the whole tree if @recursive). */
int brig_bind_open(const char *source, bool recursive, struct brig_error *err)
{
	int fd = open_tree(AT_FDCWD, source,
	                   OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (recursive ? AT_RECURSIVE : 0));

	if (fd < 0)
		return brig_error_setp(err, errno, "open \"%s\"", source);
	return fd;
}

int brig_mnt_set_attrs(int mntfd, uint64_t set, uint64_t clr, bool recursive,
                       struct brig_error *err)
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

int brig_mnt_set_propagation(int mntfd, uint64_t propagation, bool recursive,
                             struct brig_error *err)
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
int brig_mnt_attach(int mntfd, int targetfd, struct brig_error *err)
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
