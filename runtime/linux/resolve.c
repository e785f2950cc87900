/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "linux/syscalls.h"
#include "util/cleanup.h"
#include "util/error.h"

int brig_open_in_root(int rootfd, const char *path, int flags, mode_t mode)
{
	int fd;

	do
		fd = brig_openat2(rootfd, path, (unsigned)flags | O_CLOEXEC, mode,
		                  BRIG_RESOLVE_IN_ROOT_FLAGS);
	while (fd < 0 && errno == EAGAIN);
	return fd;
}

int brig_mkpath_in_root(int rootfd, const char *path, enum brig_mkpath_kind kind,
                        struct brig_error *err)
{
	_cleanup_free_ char *copy = NULL;
	_cleanup_close_ int parent = -1;
	char *p, *next;
	int fd;

	fd = brig_open_in_root(rootfd, path, O_PATH, 0);
	if (fd >= 0 || errno != ENOENT) {
		if (fd < 0)
			return brig_error_setp(err, errno, "resolve \"%s\" in the rootfs", path);
		return fd;
	}
	/* Walk from the root: every prefix is resolved afresh inside the root
	 * (symlinks in it stay inside), and only a missing last piece of a
	 * prefix is created, relative to the fd of its resolved parent. */
	copy = brig_xstrdup(path);
	parent = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
	if (parent < 0)
		return brig_error_setp(err, errno, "dup");
	for (p = copy; *p == '/'; p++)
		;
	while (*p) {
		bool last;
		int child;

		next = strchr(p, '/');
		if (next)
			*next = '\0';
		last = !next || !next[strspn(next + 1, "/") + 1];
		if (!strcmp(p, "..") || !strcmp(p, ".")) {
			/* never create through dot components; resolve the prefix */
		} else {
			int r;

			if (last && kind == BRIG_MKPATH_FILE)
				r = mknodat(parent, p, S_IFREG | 0644, 0);
			else
				r = mkdirat(parent, p, 0755);
			if (r < 0 && errno != EEXIST)
				return brig_error_setp(err, errno, "create \"%s\" in the rootfs",
				                       path);
		}
		if (next)
			*next = '/';
		/* reopen the prefix [copy .. end of this component] from the root */
		{
			char saved = next ? *next : '\0';

			if (next)
				*next = '\0';
			child = brig_open_in_root(rootfd, copy, O_PATH, 0);
			if (next)
				*next = saved;
		}
		if (child < 0)
			return brig_error_setp(err, errno, "resolve \"%s\" in the rootfs", path);
		close(parent);
		parent = child;
		if (!next)
			break;
		for (p = next; *p == '/'; p++)
			;
	}
	return TAKE_FD(parent);
}
