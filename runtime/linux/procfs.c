/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "linux/syscalls.h"
#include "util/cleanup.h"
#include "util/error.h"

int brig_procfs_open(struct brig_error *err)
{
	_cleanup_close_ int fsfd = fsopen("proc", FSOPEN_CLOEXEC);
	int mfd;

	if (fsfd < 0)
		return brig_error_setp(err, errno, "fsopen \"proc\"");
	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return brig_error_setp(err, errno, "create a private procfs");
	mfd = fsmount(fsfd, FSMOUNT_CLOEXEC,
	              MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	if (mfd < 0)
		return brig_error_setp(err, errno, "mount a private procfs");
	return mfd;
}

int brig_procfs_write(int procfd, const char *path, const char *data, size_t len,
                      struct brig_error *err)
{
	_cleanup_close_ int fd = -1;
	struct statfs sfs;
	ssize_t n;

	do
		fd = brig_openat2(procfd, path, O_WRONLY | O_CLOEXEC | O_NOCTTY, 0,
		                  RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
		                      RESOLVE_NO_XDEV);
	while (fd < 0 && errno == EAGAIN);
	if (fd < 0)
		return brig_error_setp(err, errno, "open \"/proc/%s\"", path);
	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != PROC_SUPER_MAGIC)
		return brig_error_set(err, "\"/proc/%s\" is not on procfs", path);
	n = write(fd, data, len);
	if (n < 0)
		return brig_error_setp(err, errno, "write \"/proc/%s\"", path);
	if ((size_t)n != len)
		return brig_error_set(err, "write \"/proc/%s\": short write", path);
	return 0;
}
