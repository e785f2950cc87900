/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "util/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"

int brig_read_fd(int fd, const char *name, size_t max, char **out, size_t *len,
                 struct brig_error *err)
{
	_cleanup_free_ char *buf = NULL;
	size_t alloc = 4096, used = 0;
	struct stat st;

	/* a file's size, and room for the read that finds its end; the
	 * kernel's files (proc, sysfs, cgroupfs) say 0: a page */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		if ((unsigned long long)st.st_size > max)
			return brig_error_set(err, "%s: larger than the %zu MiB limit", name,
			                      max >> 20);
		alloc = (size_t)st.st_size + 2;
	}
	buf = brig_xmalloc(alloc);
	for (;;) {
		ssize_t n;

		if (used + 1 >= alloc) {
			if (alloc > max + 1)
				return brig_error_set(err, "%s: larger than the %zu MiB limit",
				                      name, max >> 20);
			alloc *= 2;
			buf = brig_xrealloc(buf, alloc);
		}
		n = read(fd, buf + used, alloc - used - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return brig_error_setp(err, errno, "read \"%s\"", name);
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used > max)
			return brig_error_set(err, "%s: larger than the %zu MiB limit", name,
			                      max >> 20);
	}
	buf[used] = '\0';
	*out = TAKE_PTR(buf);
	if (len)
		*len = used;
	return 0;
}

int brig_read_file(int dirfd, const char *path, size_t max, char **out, size_t *len,
                   struct brig_error *err)
{
	_cleanup_close_ int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return brig_error_setp(err, errno, "open \"%s\"", path);
	return brig_read_fd(fd, path, max, out, len, err);
}

int brig_write_file_atomic(int dirfd, const char *path, const void *data, size_t len, mode_t mode,
                           struct brig_error *err)
{
	_cleanup_free_ char *tmp = NULL;
	_cleanup_close_ int fd = -1;
	const char *p = data;

	tmp = brig_xasprintf("%s.tmp.%d", path, (int)getpid());
	/* a new file, never one found at the name: the directory may be one
	 * that others write (a --pid-file in a container's volume), and what
	 * they left there (a symlink, a hard link of another file, a FIFO
	 * that would block the open) is removed, not written through */
	for (int tries = 0; fd < 0 && tries < 8; tries++) {
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
		if (fd < 0 && (errno != EEXIST || unlinkat(dirfd, tmp, 0) < 0))
			break;
	}
	if (fd < 0)
		return brig_error_setp(err, errno, "create \"%s\"", tmp);
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			brig_error_setp(err, errno, "write \"%s\"", tmp);
			unlinkat(dirfd, tmp, 0);
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	if (brig_fault("write.rename") < 0 || fchmod(fd, mode) < 0 ||
	    renameat(dirfd, tmp, dirfd, path) < 0) {
		brig_error_setp(err, errno, "replace \"%s\"", path);
		unlinkat(dirfd, tmp, 0);
		return -1;
	}
	return 0;
}

int brig_mkdir_p(const char *path, mode_t mode, struct brig_error *err)
{
	_cleanup_free_ char *copy = brig_xstrdup(path);

	for (char *p = copy + 1;; p++) {
		bool last = *p == '\0';

		if (*p != '/' && !last)
			continue;
		*p = '\0';
		if (mkdir(copy, mode) < 0 && errno != EEXIST)
			return brig_error_setp(err, errno, "mkdir \"%s\"", copy);
		if (last)
			break;
		*p = '/';
	}
	return 0;
}

int brig_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
