/* SPDX-License-Identifier: Apache-2.0 */
/* linux.netDevices across the container's life (netdevs.h). */
#include "config.h"
#include "lifecycle/netdevs.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "linux/netdev.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/fs.h"
#include "util/log.h"

#define RECORD "netdevices"
#define PIN "netns"

/* Bind the namespace @nsfd at PIN in the state directory @dirfd. */
static int pin(int dirfd, int nsfd, struct brig_error *err)
{
	char src[64], dst[64];
	int fd = openat(dirfd, PIN, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);

	if (fd < 0)
		return brig_error_setp(err, errno, "create \"%s\" in the state directory", PIN);
	close(fd);
	snprintf(src, sizeof(src), "/proc/self/fd/%d", nsfd);
	snprintf(dst, sizeof(dst), "/proc/self/fd/%d/" PIN, dirfd);
	if (mount(src, dst, NULL, MS_BIND, NULL) < 0)
		return brig_error_setp(err, errno, "pin the container's network namespace");
	return 0;
}

/* The pinned namespace, or -1 when there is none (not pinned yet, or a
 * file that is no network namespace). */
static int open_pin(int dirfd)
{
	_cleanup_close_ int fd = openat(dirfd, PIN, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct statfs sf;

	if (fd < 0 || fstatfs(fd, &sf) < 0 || sf.f_type != NSFS_MAGIC ||
	    ioctl(fd, NS_GET_NSTYPE) != CLONE_NEWNET)
		return -1;
	return TAKE_FD(fd);
}

static void unpin(int dirfd)
{
	char dst[64];
	struct stat st;

	/* most containers never had one (a path lookup through
	 * /proc/self/fd costs more than this stat) */
	if (fstatat(dirfd, PIN, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
		return;
	snprintf(dst, sizeof(dst), "/proc/self/fd/%d/" PIN, dirfd);
	while (umount2(dst, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
		;
	unlinkat(dirfd, PIN, 0);
}

int brig_netdevs_give(int dirfd, const struct brig_linux *lx, int pidfd, pid_t pid,
                      struct brig_error *err)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ struct brig_netdev *devs = NULL;
	_cleanup_close_ int nsfd = -1;
	ssize_t n;

	if (!lx || !lx->n_net_devices)
		return 0;
	text = brig_netdev_record(lx);
	if (!text)
		return brig_error_setp(err, ENOMEM, "linux.netDevices");
	n = brig_netdev_record_parse(text, &devs);
	if (n < 0)
		return brig_error_setp(err, ENOMEM, "linux.netDevices");
	if (brig_write_file_atomic(dirfd, RECORD, text, strlen(text), 0600, err) < 0)
		return -1;
	nsfd = brig_netns_of(pidfd, pid, err);
	if (nsfd < 0 || pin(dirfd, nsfd, err) < 0)
		return brig_error_wrap(err, "linux.netDevices");
	if (brig_netdev_move_in(devs, (size_t)n, nsfd, err) < 0)
		return brig_error_wrap(err, "linux.netDevices");
	brig_fault("create.netdevs-moved");
	return 0;
}

int brig_netdevs_return(int dirfd, int pidfd, pid_t pid, struct brig_error *err)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ struct brig_netdev *devs = NULL;
	_cleanup_close_ int nsfd = -1;
	struct brig_error ignored = BRIG_ERROR_INIT;
	size_t len;
	ssize_t n;
	int r = 0;

	if (brig_read_file(dirfd, RECORD, 4096, &text, &len, &ignored) < 0) {
		if (ignored.errnum != ENOENT)
			brig_warn("linux.netDevices: %s", ignored.msg);
		brig_error_release(&ignored);
		unpin(dirfd);
		return 0;
	}
	n = brig_netdev_record_parse(text, &devs);
	if (n < 0)
		return brig_error_setp(err, ENOMEM, "linux.netDevices");
	/* the init's namespace when it lives, the one it had else */
	if (pidfd >= 0)
		nsfd = brig_netns_of(pidfd, pid, &ignored);
	brig_error_release(&ignored);
	if (nsfd < 0)
		nsfd = open_pin(dirfd);
	if (nsfd >= 0)
		r = brig_netdev_move_out(devs, (size_t)n, nsfd, err);
	else
		brig_debug("linux.netDevices: no network namespace to take devices back from");
	if (r < 0)
		return brig_error_wrap(err, "linux.netDevices");
	brig_netdevs_forget(dirfd);
	return 0;
}

void brig_netdevs_forget(int dirfd)
{
	unpin(dirfd);
	unlinkat(dirfd, RECORD, 0);
}
