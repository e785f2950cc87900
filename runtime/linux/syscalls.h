/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Thin wrappers for the system calls glibc 2.36 does not wrap.  The mount
 * API (fsopen, fsconfig, fsmount, move_mount, open_tree, mount_setattr),
 * pidfd_open, pidfd_send_signal and close_range come from glibc itself.
 */
#ifndef BRIG_LINUX_SYSCALLS_H
#define BRIG_LINUX_SYSCALLS_H

#include <linux/openat2.h>
#include <linux/sched.h>
#include <sched.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline pid_t brig_clone3(struct clone_args *args)
{
	return (pid_t)syscall(SYS_clone3, args, sizeof(*args));
}

static inline int brig_openat2(int dirfd, const char *path, unsigned long long flags,
                               unsigned long long mode, unsigned long long resolve)
{
	struct open_how how = { .flags = flags, .mode = mode, .resolve = resolve };

	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

static inline int brig_pivot_root(const char *new_root, const char *put_old)
{
	return (int)syscall(SYS_pivot_root, new_root, put_old);
}

#endif
