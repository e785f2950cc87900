/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/selfexe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "linux/process.h"
#include "linux/syscalls.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/log.h"
#include "util/phases.h"

#define GUARD "_BRIG_EXE_PROTECTED"

extern char **environ;

/* Is the binary behind @fd on a read-only mount? */
static bool on_readonly_mount(int fd)
{
	struct statvfs sv;

	return fstatvfs(fd, &sv) == 0 && (sv.f_flag & ST_RDONLY);
}

int brig_selfexe_protect(char **argv, struct brig_error *err)
{
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
	};
	_cleanup_close_ int exe = -1, tree = -1;
	bool again = getenv(GUARD) != NULL;

	unsetenv(GUARD);
	exe = open("/proc/self/exe", O_PATH | O_CLOEXEC);
	if (exe >= 0 && on_readonly_mount(exe))
		return 0;
	if (again)
		return brig_error_set(err, "brig's binary is still writable after re-executing "
		                           "it from a read-only mount");
	tree = open_tree(AT_FDCWD, "/proc/self/exe", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0) {
		/* unprivileged: the binary is no more writable from inside than
		 * by the user who runs brig */
		if (geteuid() != 0 && (errno == EPERM || errno == EACCES)) {
			brig_debug("rootless: brig's binary is not re-executed read-only");
			return 0;
		}
		return brig_error_setp(err, errno, "protect brig's binary (open_tree)");
	}
	if (mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
		return brig_error_setp(err, errno, "protect brig's binary (mount_setattr)");
	setenv(GUARD, "1", 1);
	brig_phases_export();
	{
		char end[16];

		snprintf(end, sizeof(end), "%d", brig_fds_caller_end());
		setenv(BRIG_CALLER_FDS_ENV, end, 1);
	}
	syscall(SYS_execveat, tree, "", argv, environ, AT_EMPTY_PATH);
	unsetenv(GUARD);
	unsetenv(BRIG_CALLER_FDS_ENV);
	return brig_error_setp(err, errno, "re-execute brig from a read-only mount");
}
