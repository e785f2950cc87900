/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/selfexe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "linux/process.h"
#include "linux/syscalls.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
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

static bool mapped(const struct brig_id_mapping *ids, size_t n, uint64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (id >= ids[i].host_id && id - ids[i].host_id < ids[i].size)
			return true;
	return false;
}

bool brig_selfexe_out_of_reach(const struct brig_id_mapping *uids, size_t n_uids,
                               const struct brig_id_mapping *gids, size_t n_gids)
{
	struct stat st;

	/* the ids as the binary's mount shows them (an idmapped one's too) */
	if (stat("/proc/self/exe", &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	if ((st.st_mode & S_IWOTH) || mapped(uids, n_uids, st.st_uid) ||
	    ((st.st_mode & S_IWGRP) && mapped(gids, n_gids, st.st_gid)))
		return false;
	/* an ACL may let any id write it: then the re-execution, always */
	if (getxattr("/proc/self/exe", "system.posix_acl_access", NULL, 0) >= 0 ||
	    (errno != ENODATA && errno != ENOTSUP))
		return false;
	return true;
}

int brig_selfexe_protect_ids(char **argv, const struct brig_id_mapping *uids, size_t n_uids,
                             const struct brig_id_mapping *gids, size_t n_gids,
                             struct brig_error *err)
{
	if (!argv)
		return 0;
	/* a brig already re-executed (brig_selfexe_protect_early did not
	 * know) checks that it was, and says so */
	if (n_uids && n_gids && !getenv(GUARD) &&
	    brig_selfexe_out_of_reach(uids, n_uids, gids, n_gids)) {
		brig_debug("brig's binary is out of reach of the container's user namespace: not "
		           "re-executed");
		return 0;
	}
	return brig_selfexe_protect(argv, err);
}

int brig_selfexe_protect_for(char **argv, const struct brig_linux *lx, struct brig_error *err)
{
	bool own = false;

	for (size_t i = 0; lx && i < lx->n_namespaces; i++)
		if (lx->namespaces[i].type == BRIG_NS_USER)
			own = !lx->namespaces[i].path;
	if (!own)
		return brig_selfexe_protect_ids(argv, NULL, 0, NULL, 0, err);
	return brig_selfexe_protect_ids(argv, lx->uid_mappings, lx->n_uid_mappings,
	                                lx->gid_mappings, lx->n_gid_mappings, err);
}

int brig_selfexe_protect_early(char **argv, int dirfd, const char *path, struct brig_error *err)
{
	struct brig_error ignored = BRIG_ERROR_INIT;
	_cleanup_free_ char *text = NULL;
	size_t len;

	if (!argv || getenv(GUARD))
		return 0;
	if (brig_read_file(dirfd, path, BRIG_CONFIG_MAX_BYTES, &text, &len, &ignored) < 0) {
		/* the parse says why, in its words */
		brig_error_release(&ignored);
		return 0;
	}
	if (memmem(text, len, "uidMappings", strlen("uidMappings")))
		return 0;
	return brig_selfexe_protect(argv, err);
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
	if (exe >= 0 && on_readonly_mount(exe)) {
		if (again)
			brig_debug("re-executed from a read-only mount of brig's binary");
		return 0;
	}
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
