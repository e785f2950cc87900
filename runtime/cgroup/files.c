/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cgroup files, for every back end and manager: one value written or
 * read (bounded, never through a symlink, never creating a file), and the
 * pids of a cgroup's tree, signalled only by pidfd.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "cgroup/internal.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/fs.h"

int brig_cg_open_file(const struct brig_cg_hier *h, const char *file, int flags)
{
	_cleanup_free_ char *path = brig_xasprintf("%s/%s", h->dir, file);

	return open(path, flags | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
}

int brig_cg_write_through(const struct brig_cg_hier *h, int *fd, const char *file,
                          const char *value, struct brig_error *err)
{
	size_t len = strlen(value);
	ssize_t n;

	if (*fd < 0 && (*fd = brig_cg_open_file(h, file, O_WRONLY)) < 0)
		return brig_error_setp(err, errno, "open \"%s/%s\"", h->dir, file);
	n = write(*fd, value, len);
	if (n < 0 || (size_t)n != len)
		return brig_error_setp(err, n < 0 ? errno : EIO, "write \"%s\" to \"%s/%s\"", value,
		                       h->dir, file);
	return 0;
}

int brig_cg_write(const struct brig_cg_hier *h, const char *file, const char *value,
                  struct brig_error *err)
{
	_cleanup_close_ int fd = -1;

	return brig_cg_write_through(h, &fd, file, value, err);
}

static int vwrite(const struct brig_cg_hier *h, const char *file, struct brig_error *err,
                  const char *fmt, va_list ap)
{
	_cleanup_free_ char *value = NULL;

	if (vasprintf(&value, fmt, ap) < 0)
		brig_oom();
	return brig_cg_write(h, file, value, err);
}

int brig_cg_writef(const struct brig_cg_hier *h, const char *file, struct brig_error *err,
                   const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vwrite(h, file, err, fmt, ap);
	va_end(ap);
	return r;
}

int brig_cg_put(const struct brig_cg_hier *h, const char *file, const char *path,
                struct brig_error *err, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vwrite(h, file, err, fmt, ap);
	va_end(ap);
	if (r < 0)
		return brig_error_wrap(err, "%s%s", BRIG_CG_R, path);
	return 0;
}

char *brig_cg_read(const struct brig_cg_hier *h, const char *file)
{
	_cleanup_close_ int fd = brig_cg_open_file(h, file, O_RDONLY);
	struct brig_error err = BRIG_ERROR_INIT;
	char *buf = NULL;
	size_t len;

	if (fd < 0)
		return NULL;
	if (brig_read_fd(fd, file, 4 << 20, &buf, &len, &err) < 0) {
		errno = err.errnum ? err.errnum : EIO;
		brig_error_release(&err);
		return NULL;
	}
	return buf;
}

int brig_cg_read_u64(const struct brig_cg_hier *h, const char *file, uint64_t *out)
{
	_cleanup_free_ char *s = brig_cg_read(h, file);
	char *end;

	if (!s)
		return -1;
	if (!strncmp(s, "max", 3)) {
		*out = UINT64_MAX;
		return 0;
	}
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	return 0;
}

int brig_cg_read_keyed(const struct brig_cg_hier *h, const char *file, const char *key,
                       uint64_t *out)
{
	_cleanup_free_ char *s = brig_cg_read(h, file);
	size_t kl = strlen(key);

	if (!s)
		return -1;
	for (char *line = s; *line;) {
		char *end = strchrnul(line, '\n');

		if (!strncmp(line, key, kl) && line[kl] == ' ') {
			*out = strtoull(line + kl + 1, NULL, 10);
			return 0;
		}
		line = *end ? end + 1 : end;
	}
	return -1;
}

uint64_t brig_cg_value(const struct brig_cg_hier *h, const char *file)
{
	uint64_t v = 0;

	if (h)
		brig_cg_read_u64(h, file, &v);
	return v;
}

uint64_t brig_cg_keyed(const struct brig_cg_hier *h, const char *file, const char *key)
{
	uint64_t v = 0;

	if (h)
		brig_cg_read_keyed(h, file, key, &v);
	return v;
}

bool brig_cg_has(const struct brig_cg_hier *h, const char *file)
{
	_cleanup_free_ char *path = brig_xasprintf("%s/%s", h->dir, file);

	return access(path, F_OK) == 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The pids of @dir's cgroup.procs and of every cgroup below it (exec
 * --cgroup makes sub-cgroups), appended to @list. */
static int read_tree_pids(const char *dir, int depth, pid_t **list, size_t *cnt,
                          struct brig_error *err)
{
	struct brig_cg_hier h = { .dir = (char *)dir };
	_cleanup_free_ char *path = brig_xasprintf("%s/cgroup.procs", dir), *s = NULL;
	_cleanup_close_ int fd = brig_cg_open_file(&h, "cgroup.procs", O_RDONLY);
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	size_t len;

	/* a cgroup removed before the open is ENOENT, one removed between
	 * the open and the read (systemd stops a scope that has emptied, a
	 * caller's cleanup) ENODEV: gone either way, so nothing in it */
	if (fd < 0)
		return errno == ENOENT ? 0 : brig_error_setp(err, errno, "open \"%s\"", path);
	brig_fault("cgroup.procs.opened");
	if (brig_read_fd(fd, path, 4 << 20, &s, &len, err) < 0) {
		if (err->errnum != ENODEV)
			return -1;
		brig_error_release(err);
		return 0;
	}
	for (char *p = s; *p;) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		*list = brig_xrealloc(*list, (*cnt + 1) * sizeof(**list));
		(*list)[(*cnt)++] = (pid_t)v;
		p = end;
		while (*p == '\n')
			p++;
	}
	if (depth >= 32 || !(d = opendir(dir)))
		return 0;
	while ((de = readdir(d))) {
		_cleanup_free_ char *sub = NULL;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		sub = brig_xasprintf("%s/%s", dir, de->d_name);
		if (read_tree_pids(sub, depth + 1, list, cnt, err) < 0)
			return -1;
	}
	return 0;
}

int brig_cg_read_pids(const struct brig_cg_hier *h, pid_t **pids, size_t *n, struct brig_error *err)
{
	pid_t *list = NULL;
	size_t cnt = 0;

	*pids = NULL;
	*n = 0;
	if (read_tree_pids(h->dir, 0, &list, &cnt, err) < 0) {
		free(list);
		return -1;
	}
	if (cnt)
		qsort(list, cnt, sizeof(*list), cmp_pid);
	*pids = list;
	*n = cnt;
	return 0;
}

/*
 * A pid read from cgroup.procs may have been reused by another process by
 * the time it is opened.  So: a pidfd for each, then the tree read again.
 * A signal that reaches a pidfd's process proves it alive now, so alive
 * when the tree was reread, so the pid found there was that very process.
 */
void brig_cg_signal_pids(const struct brig_cg_hier *h, const pid_t *pids, size_t n, int sig)
{
	struct brig_error ignored = BRIG_ERROR_INIT;
	_cleanup_free_ int *fds = brig_xcalloc(n ? n : 1, sizeof(*fds));
	_cleanup_free_ pid_t *now = NULL;
	size_t n_now = 0;

	for (size_t i = 0; i < n; i++)
		fds[i] = pidfd_open(pids[i], 0);
	/* (an empty tree reread has no array: bsearch must not see NULL) */
	if (brig_cg_read_pids(h, &now, &n_now, &ignored) == 0 && n_now)
		for (size_t i = 0; i < n; i++)
			if (fds[i] >= 0 && bsearch(&pids[i], now, n_now, sizeof(*now), cmp_pid))
				pidfd_send_signal(fds[i], sig, NULL, 0);
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	brig_error_release(&ignored);
}
