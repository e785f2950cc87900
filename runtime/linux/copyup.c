/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/copyup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/error.h"

/* ------------------------------------------------------------ copy-up */

#define COPYUP_MAX_DEPTH 128

/* Owner, mode and times of @name in @dstdir from @st. */
static int copy_metadata(int dstdir, const char *name, const struct stat *st,
                         struct brig_error *err)
{
	const struct timespec times[2] = { st->st_atim, st->st_mtim };

	if (fchownat(dstdir, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW) < 0)
		return brig_error_setp(err, errno, "tmpcopyup: chown \"%s\"", name);
	if (!S_ISLNK(st->st_mode) && fchmodat(dstdir, name, st->st_mode & 07777, 0) < 0)
		return brig_error_setp(err, errno, "tmpcopyup: chmod \"%s\"", name);
	if (utimensat(dstdir, name, times, AT_SYMLINK_NOFOLLOW) < 0)
		return brig_error_setp(err, errno, "tmpcopyup: set times of \"%s\"", name);
	return 0;
}

static int copy_contents(int in, int out, const char *name, struct brig_error *err)
{
	char buf[65536];

	for (;;) {
		ssize_t r = sendfile(out, in, NULL, 1 << 30);

		if (r == 0)
			return 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EINVAL || errno == ENOSYS))
			break;
		if (r < 0)
			return brig_error_setp(err, errno, "tmpcopyup: copy \"%s\"", name);
	}
	for (;;) {
		ssize_t r = read(in, buf, sizeof(buf));

		if (r == 0)
			return 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return brig_error_setp(err, errno, "tmpcopyup: read \"%s\"", name);
		for (ssize_t off = 0; off < r;) {
			ssize_t w = write(out, buf + off, (size_t)(r - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return brig_error_setp(err, errno, "tmpcopyup: write \"%s\"", name);
			off += w;
		}
	}
}

static int copy_file(int srcdir, int dstdir, const char *name, struct brig_error *err)
{
	_cleanup_close_ int in = -1, out = -1;
	struct stat st;

	/* O_NONBLOCK: the container may have swapped the file for a fifo */
	in = openat(srcdir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (in < 0)
		return brig_error_setp(err, errno, "tmpcopyup: open \"%s\"", name);
	if (fstat(in, &st) < 0)
		return brig_error_setp(err, errno, "tmpcopyup: stat \"%s\"", name);
	if (!S_ISREG(st.st_mode))
		return 0;
	out = openat(dstdir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0)
		return brig_error_setp(err, errno, "tmpcopyup: create \"%s\"", name);
	if (copy_contents(in, out, name, err) < 0)
		return -1;
	return copy_metadata(dstdir, name, &st, err);
}

static int copy_symlink(int srcdir, int dstdir, const char *name, const struct stat *st,
                        struct brig_error *err)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(srcdir, name, target, sizeof(target));

	if (n < 0 || (size_t)n >= sizeof(target))
		return brig_error_setp(err, n < 0 ? errno : ENAMETOOLONG,
		                       "tmpcopyup: read link \"%s\"", name);
	target[n] = '\0';
	if (symlinkat(target, dstdir, name) < 0)
		return brig_error_setp(err, errno, "tmpcopyup: create link \"%s\"", name);
	return copy_metadata(dstdir, name, st, err);
}

/* Copy the entries of directory @src (any fd of it) into directory @dst:
 * directories, regular files and symlinks with owner, mode and times;
 * anything else is skipped.  No symlink of the source is followed. */
static int copy_tree(int src, int dst, unsigned int depth, struct brig_error *err)
{
	_cleanup_closedir_ DIR *dir = NULL;
	struct dirent *de;
	int fd;

	if (depth > COPYUP_MAX_DEPTH)
		return brig_error_setp(err, ELOOP, "tmpcopyup: directories nested too deep");
	fd = openat(src, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return brig_error_setp(err, errno, "tmpcopyup: open directory");
	dir = fdopendir(fd);
	if (!dir) {
		int saved = errno;

		close(fd);
		return brig_error_setp(err, saved, "tmpcopyup: open directory");
	}
	while ((errno = 0, de = readdir(dir))) {
		const char *name = de->d_name;
		struct stat st;

		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (fstatat(dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return brig_error_setp(err, errno, "tmpcopyup: stat \"%s\"", name);
		if (S_ISDIR(st.st_mode)) {
			_cleanup_close_ int sub_src = -1, sub_dst = -1;

			if (mkdirat(dst, name, 0700) < 0)
				return brig_error_setp(err, errno, "tmpcopyup: mkdir \"%s\"", name);
			sub_src = openat(dirfd(dir), name,
			                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub_src < 0)
				return brig_error_setp(err, errno, "tmpcopyup: open \"%s\"", name);
			sub_dst = openat(dst, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub_dst < 0)
				return brig_error_setp(err, errno, "tmpcopyup: open \"%s\"", name);
			if (copy_tree(sub_src, sub_dst, depth + 1, err) < 0 ||
			    copy_metadata(dst, name, &st, err) < 0)
				return -1;
		} else if (S_ISREG(st.st_mode)) {
			if (copy_file(dirfd(dir), dst, name, err) < 0)
				return -1;
		} else if (S_ISLNK(st.st_mode)) {
			if (copy_symlink(dirfd(dir), dst, name, &st, err) < 0)
				return -1;
		}
	}
	if (errno)
		return brig_error_setp(err, errno, "tmpcopyup: read directory");
	return 0;
}

int brig_copy_tree(int src, int dst, struct brig_error *err)
{
	return copy_tree(src, dst, 0, err);
}
