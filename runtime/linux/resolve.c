/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/syscalls.h"
#include "util/cleanup.h"
#include "util/error.h"

/* openat2 says EAGAIN when a rename raced the lookup: tried again, but a
 * bounded number of times, so that a container renaming in a loop makes
 * brig fail rather than spin. */
#define OPENAT2_TRIES 4096

int brig_openat2_retry(int dirfd, const char *path, int flags, mode_t mode,
                       unsigned long long resolve)
{
	int fd, tries = 0;

	do
		fd = brig_openat2(dirfd, path, (unsigned)flags | O_CLOEXEC, mode, resolve);
	while (fd < 0 && errno == EAGAIN && ++tries < OPENAT2_TRIES);
	return fd;
}

int brig_open_in_root(int rootfd, const char *path, int flags, mode_t mode)
{
	return brig_openat2_retry(rootfd, path, flags, mode, BRIG_RESOLVE_IN_ROOT_FLAGS);
}

#define MKPATH_MAX_LINKS 40 /* the kernel's own limit before ELOOP */

/* The mounts on which mkpath may create anything (NULL: any). */
struct mnt_guard {
	const uint64_t *ids;
	size_t n;
};

static int mkpath(int rootfd, const char *path, enum brig_mkpath_kind kind,
                  const struct mnt_guard *g, int links, struct brig_error *err);

uint64_t brig_mnt_id(int fd)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) < 0 ||
	    !(stx.stx_mask & STATX_MNT_ID))
		return 0;
	return stx.stx_mnt_id;
}

bool brig_mnt_id_in(int fd, const uint64_t *ids, size_t n)
{
	uint64_t id = brig_mnt_id(fd);

	for (size_t i = 0; id && i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* Whether @dirfd is on one of the mounts @g allows. */
static bool guard_allows(const struct mnt_guard *g, int dirfd)
{
	return !g || brig_mnt_id_in(dirfd, g->ids, g->n);
}

/*
 * Component @name of @parent is a symlink whose target does not exist:
 * create the target inside the root, as runc does, by going on with the
 * link's text resolved from the link's own directory @dir, then @rest.
 */
static int follow_dangling(int rootfd, int parent, const char *name, const char *dir,
                           const char *rest, enum brig_mkpath_kind kind, const struct mnt_guard *g,
                           int links, struct brig_error *err)
{
	_cleanup_free_ char *next = NULL;
	char target[4096];
	ssize_t n;

	if (links >= MKPATH_MAX_LINKS)
		return brig_error_setp(err, ELOOP, "resolve a mount point in the rootfs");
	n = readlinkat(parent, name, target, sizeof(target) - 1);
	if (n < 0)
		return brig_error_setp(err, errno, "readlink \"%s\" in the rootfs", name);
	target[n] = '\0';
	next = brig_xasprintf("%s/%s%s%s", target[0] == '/' ? "" : dir, target, rest ? "/" : "",
	                      rest ? rest : "");
	return mkpath(rootfd, next, kind, g, links + 1, err);
}

static int mkpath(int rootfd, const char *path, enum brig_mkpath_kind kind,
                  const struct mnt_guard *g, int links, struct brig_error *err)
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
		const char *rest;
		bool last;
		int child;

		next = strchr(p, '/');
		if (next)
			*next = '\0';
		rest = next ? next + 1 + strspn(next + 1, "/") : NULL;
		last = !rest || !*rest;
		/* never create through dot components; they are resolved below */
		if (strcmp(p, "..") != 0 && strcmp(p, ".") != 0) {
			int r;

			if (!guard_allows(g, parent) &&
			    faccessat(parent, p, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
				return brig_error_setp(
				    err, EXDEV,
				    "create \"%s\" in the rootfs: a part of it is "
				    "on a mount it may not be created on",
				    path);
			r = last && kind == BRIG_MKPATH_FILE ? mknodat(parent, p, S_IFREG | 0644, 0)
			                                     : mkdirat(parent, p, 0755);

			if (r < 0 && errno != EEXIST)
				return brig_error_setp(err, errno, "create \"%s\" in the rootfs",
				                       path);
		}
		/* resolve the prefix up to this component, from the root */
		child = brig_open_in_root(rootfd, copy, O_PATH, 0);
		if (child < 0 && errno == ENOENT) {
			struct stat st;

			if (fstatat(parent, p, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode)) {
				_cleanup_free_ char *dir = brig_xstrdup(copy);

				dir[p - copy] = '\0';
				return follow_dangling(rootfd, parent, p, dir, last ? NULL : rest,
				                       kind, g, links, err);
			}
			errno = ENOENT;
		}
		if (child < 0)
			return brig_error_setp(err, errno, "resolve \"%s\" in the rootfs", path);
		close(parent);
		parent = child;
		if (last)
			break;
		*next = '/';
		p = (char *)rest;
	}
	return TAKE_FD(parent);
}

int brig_mkpath_in_root(int rootfd, const char *path, enum brig_mkpath_kind kind,
                        struct brig_error *err)
{
	return mkpath(rootfd, path, kind, NULL, 0, err);
}

int brig_mkpath_on_mounts(int rootfd, const char *path, enum brig_mkpath_kind kind,
                          const uint64_t *mnt_ids, size_t n, struct brig_error *err)
{
	const struct mnt_guard g = { mnt_ids, n };

	return mkpath(rootfd, path, kind, &g, 0, err);
}

char *brig_path_clean(const char *path)
{
	size_t len = strlen(path);
	char *out = brig_xmalloc(len + 2);
	size_t n = 0;

	/* "/", then each component but "" and "."; ".." drops the last one
	 * and stops at the root */
	out[n++] = '/';
	while (*path) {
		size_t l;

		path += strspn(path, "/");
		l = strcspn(path, "/");
		if (l == 0 || (l == 1 && path[0] == '.')) {
			/* nothing */
		} else if (l == 2 && path[0] == '.' && path[1] == '.') {
			while (n > 1 && out[n - 1] != '/')
				n--;
			if (n > 1)
				n--;
		} else {
			if (n > 1)
				out[n++] = '/';
			memcpy(out + n, path, l);
			n += l;
		}
		path += l;
	}
	out[n] = '\0';
	return out;
}
