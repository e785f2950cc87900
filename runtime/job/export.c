/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A job's files out to the host (--export) and the caller's in (--copy-in):
 * one copier for both (internal.h), whose source may be hostile (the job's
 * layer: any names, any depth, any modes, sparse files of any size, hard
 * links) and which never makes the host pay for it:
 *
 *   - only directories, regular files and symlinks are copied; symlinks
 *     as symlinks, never followed; every open of the source by fd, with
 *     O_NOFOLLOW (a device, a FIFO, a socket, a whiteout is skipped);
 *   - every entry is created by brig, as brig (or given @uid/@gid as it is
 *     made), without setuid or setgid bits: mode & 01777 at creation, and
 *     no chmod that adds them;
 *   - holes stay holes (SEEK_DATA/SEEK_HOLE), and a hard link of the
 *     source is a hard link of the copy: the copy costs what the source
 *     holds;
 *   - bounds: the bytes written (each entry counted besides its data), the
 *     depth of directories, a deadline and brig's signals
 *     (brig_job_signalled); past one the copy fails.
 *
 * The export is made in a staging directory inside DIR that only brig's
 * user can enter (0700), moved into DIR once complete, and removed on any
 * failure: nothing half-written is ever in DIR.
 */
#include "config.h"
#include "job/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"

#define COPY_BUF (1u << 16)

/* One hard-linked file of the source already copied: its copy's path,
 * relative to the copy's top. */
struct link {
	struct brig_job_inode inode; /* first: the tree's key */
	char *path;
};

struct copier {
	const struct brig_job_copy_bounds *b;
	const char *flag; /* "--export" or "--copy-in", in errors */
	int top;          /* the copy's top directory */
	uint64_t charged;
	void *links; /* tsearch tree of struct link */
	char *path;  /* the entry being copied, relative to top */
	size_t len, cap;
	char *buf;
};

int brig_job_inode_cmp(const void *a, const void *b)
{
	const struct brig_job_inode *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

static void free_link(void *p)
{
	struct link *l = p;

	free(l->path);
	free(l);
}

int brig_job_copy_check(const struct brig_job_copy_bounds *b, const char *flag,
                        struct brig_error *err)
{
	int sig = brig_job_signalled();

	if (sig)
		return brig_error_set(err, "%s: stopped, brig got SIG%s", flag, sigabbrev_np(sig));
	if (b->deadline_ms && brig_job_now_ms() >= b->deadline_ms)
		return brig_error_set(err,
		                      "%s: stopped, past the job's deadline (--timeout) and %u s",
		                      flag, BRIG_JOB_EXPORT_GRACE_MS / 1000);
	return 0;
}

/* A signal of brig's or the deadline: the copy stops. */
static int check(const struct copier *c, struct brig_error *err)
{
	return brig_job_copy_check(c->b, c->flag, err);
}

/* @n more bytes to write, within the bound. */
static int charge(struct copier *c, uint64_t n, struct brig_error *err)
{
	if (c->b->limit && (n > c->b->limit || c->charged > c->b->limit - n))
		return brig_error_set(err, "%s: more than %llu bytes to write (--export-limit)",
		                      c->flag, (unsigned long long)c->b->limit);
	c->charged += n;
	return 0;
}

static void path_push(struct copier *c, const char *name, size_t *saved)
{
	size_t n = strlen(name);

	*saved = c->len;
	if (c->len + n + 2 > c->cap) {
		c->cap = (c->len + n + 2) * 2;
		c->path = realloc(c->path, c->cap);
		if (!c->path)
			brig_oom();
	}
	if (c->len)
		c->path[c->len++] = '/';
	memcpy(c->path + c->len, name, n + 1);
	c->len += n;
}

static void path_pop(struct copier *c, size_t saved)
{
	c->len = saved;
	c->path[c->len] = '\0';
}

/* The owner the bounds ask for, if any. */
static int own(const struct copier *c, int dirfd, const char *name, struct brig_error *err)
{
	if (c->b->uid == (uid_t)-1)
		return 0;
	if (fchownat(dirfd, name, c->b->uid, c->b->gid, AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH) < 0)
		return brig_error_setp(err, errno, "%s: chown \"%s\"", c->flag, c->path);
	return 0;
}

/* Bytes [@from, @to) of @in to @out, at the same offsets. */
static int copy_range(struct copier *c, int in, int out, off_t from, off_t to,
                      struct brig_error *err)
{
	while (from < to) {
		size_t want = (uint64_t)(to - from) < COPY_BUF ? (size_t)(to - from) : COPY_BUF;
		ssize_t n;

		if (check(c, err) < 0 || charge(c, want, err) < 0)
			return -1;
		n = pread(in, c->buf, want, from);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return brig_error_setp(err, errno, "%s: read \"%s\"", c->flag, c->path);
		if (n == 0)
			return 0; /* it got shorter */
		for (ssize_t done = 0; done < n;) {
			ssize_t w = pwrite(out, c->buf + done, (size_t)(n - done), from + done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return brig_error_setp(err, errno, "%s: write \"%s\"", c->flag,
				                       c->path);
			done += w;
		}
		from += n;
	}
	return 0;
}

/* The data of @in (of @size bytes) to @out, its holes kept as holes. */
static int copy_data(struct copier *c, int in, int out, off_t size, struct brig_error *err)
{
	off_t off = 0;

	while (off < size) {
		off_t data = lseek(in, off, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			break; /* a hole to the end */
		if (data < 0 && errno == EINVAL) {
			/* no SEEK_DATA here: all of it is data */
			if (copy_range(c, in, out, off, size, err) < 0)
				return -1;
			break;
		}
		if (data < 0)
			return brig_error_setp(err, errno, "%s: seek \"%s\"", c->flag, c->path);
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0)
			return brig_error_setp(err, errno, "%s: seek \"%s\"", c->flag, c->path);
		if (hole > size)
			hole = size;
		if (copy_range(c, in, out, data, hole, err) < 0)
			return -1;
		off = hole;
	}
	if (ftruncate(out, size) < 0)
		return brig_error_setp(err, errno, "%s: truncate \"%s\"", c->flag, c->path);
	return 0;
}

/* Mode (without setuid and setgid) and times of @fd from @st. */
static int finish_entry(const struct copier *c, int fd, const struct stat *st,
                        struct brig_error *err)
{
	const struct timespec times[2] = { st->st_atim, st->st_mtim };

	if (own(c, fd, "", err) < 0)
		return -1;
	if (fchmod(fd, st->st_mode & 01777) < 0)
		return brig_error_setp(err, errno, "%s: chmod \"%s\"", c->flag, c->path);
	if (futimens(fd, times) < 0)
		return brig_error_setp(err, errno, "%s: set the times of \"%s\"", c->flag, c->path);
	return 0;
}

int brig_job_copy_data(int in, int out, const struct stat *st, const char *flag, const char *path,
                       struct brig_error *err)
{
	static const struct brig_job_copy_bounds none = { .uid = (uid_t)-1 };
	_cleanup_free_ char *buf = brig_xcalloc(1, COPY_BUF);
	struct copier c = { .b = &none, .flag = flag, .path = (char *)path, .buf = buf };

	return copy_data(&c, in, out, st->st_size, err);
}

/* An earlier copy of the file @st is a hard link to, linked as @name. */
static int link_again(struct copier *c, const struct stat *st, int dst, const char *name,
                      struct link **made, struct brig_error *err)
{
	struct link key = { .inode = { st->st_dev, st->st_ino } }, **found;

	*made = NULL;
	found = tfind(&key, &c->links, brig_job_inode_cmp);
	if (found) {
		if (linkat(c->top, (*found)->path, dst, name, 0) == 0)
			return charge(c, BRIG_JOB_ENTRY_COST, err) < 0 ? -1 : 1;
		if (errno != ENAMETOOLONG)
			return brig_error_setp(err, errno, "%s: link \"%s\"", c->flag, c->path);
		return 0; /* a path too long for linkat: a copy of its own, charged */
	}
	*made = brig_xcalloc(1, sizeof(**made));
	**made = key;
	return 0;
}

static int copy_file(struct copier *c, int src, int dst, const char *name, struct brig_error *err)
{
	_cleanup_close_ int in = -1, out = -1;
	struct link *made = NULL;
	struct stat st;
	int r;

	in = openat(src, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (in < 0)
		return brig_error_setp(err, errno, "%s: open \"%s\"", c->flag, c->path);
	if (fstat(in, &st) < 0)
		return brig_error_setp(err, errno, "%s: stat \"%s\"", c->flag, c->path);
	if (!S_ISREG(st.st_mode))
		return 0; /* swapped since: skipped */
	if (st.st_nlink > 1) {
		r = link_again(c, &st, dst, name, &made, err);
		if (r != 0)
			return r < 0 ? -1 : 0;
	}
	r = -1;
	if (charge(c, BRIG_JOB_ENTRY_COST, err) < 0)
		goto out;
	out = openat(dst, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0) {
		brig_error_setp(err, errno, "%s: create \"%s\"", c->flag, c->path);
		goto out;
	}
	if (copy_data(c, in, out, st.st_size, err) < 0 || finish_entry(c, out, &st, err) < 0)
		goto out;
	if (made) {
		made->path = brig_xstrdup(c->path);
		if (!tsearch(made, &c->links, brig_job_inode_cmp))
			brig_oom();
		made = NULL;
	}
	r = 0;
out:
	free(made);
	return r;
}

static int copy_symlink(struct copier *c, int src, int dst, const char *name, const struct stat *st,
                        struct brig_error *err)
{
	const struct timespec times[2] = { st->st_atim, st->st_mtim };
	char target[PATH_MAX];
	ssize_t n = readlinkat(src, name, target, sizeof(target));

	if (n < 0 || (size_t)n >= sizeof(target))
		return brig_error_setp(err, n < 0 ? errno : ENAMETOOLONG,
		                       "%s: read the link \"%s\"", c->flag, c->path);
	target[n] = '\0';
	if (charge(c, BRIG_JOB_ENTRY_COST + (uint64_t)n, err) < 0)
		return -1;
	if (symlinkat(target, dst, name) < 0)
		return brig_error_setp(err, errno, "%s: create the link \"%s\"", c->flag, c->path);
	if (c->b->uid != (uid_t)-1 &&
	    fchownat(dst, name, c->b->uid, c->b->gid, AT_SYMLINK_NOFOLLOW) < 0)
		return brig_error_setp(err, errno, "%s: chown \"%s\"", c->flag, c->path);
	if (utimensat(dst, name, times, AT_SYMLINK_NOFOLLOW) < 0)
		return brig_error_setp(err, errno, "%s: set the times of \"%s\"", c->flag, c->path);
	return 0;
}

static int copy_dir(struct copier *c, int src, int dst, unsigned int depth, struct brig_error *err);

static int copy_subdir(struct copier *c, int src, int dst, const char *name, unsigned int depth,
                       struct brig_error *err)
{
	_cleanup_close_ int in = -1, out = -1;
	struct stat st;

	if (depth >= BRIG_JOB_COPY_DEPTH)
		return brig_error_setp(err, ELOOP, "%s: \"%s\": directories nested deeper than %u",
		                       c->flag, c->path, BRIG_JOB_COPY_DEPTH);
	in = openat(src, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return brig_error_setp(err, errno, "%s: open \"%s\"", c->flag, c->path);
	if (fstat(in, &st) < 0)
		return brig_error_setp(err, errno, "%s: stat \"%s\"", c->flag, c->path);
	if (charge(c, BRIG_JOB_ENTRY_COST, err) < 0)
		return -1;
	if (mkdirat(dst, name, 0700) < 0)
		return brig_error_setp(err, errno, "%s: mkdir \"%s\"", c->flag, c->path);
	out = openat(dst, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (out < 0)
		return brig_error_setp(err, errno, "%s: open \"%s\"", c->flag, c->path);
	/* made 0700 (a setgid parent's bit cleared too), its mode once full */
	if (fchmod(out, 0700) < 0)
		return brig_error_setp(err, errno, "%s: chmod \"%s\"", c->flag, c->path);
	if (copy_dir(c, in, out, depth + 1, err) < 0)
		return -1;
	return finish_entry(c, out, &st, err);
}

/* The entries of directory @src into directory @dst. */
static int copy_dir(struct copier *c, int src, int dst, unsigned int depth, struct brig_error *err)
{
	_cleanup_closedir_ DIR *d = NULL;
	int fd = openat(src, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *e;

	if (fd < 0 || !(d = fdopendir(fd))) {
		int saved = errno;

		if (fd >= 0)
			close(fd);
		return brig_error_setp(err, saved, "%s: open \"%s\"", c->flag,
		                       c->len ? c->path : ".");
	}
	while ((errno = 0, e = readdir(d))) {
		struct stat st;
		size_t saved;
		int r = 0;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		path_push(c, e->d_name, &saved);
		if (check(c, err) < 0)
			return -1;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return brig_error_setp(err, errno, "%s: stat \"%s\"", c->flag, c->path);
		if (S_ISDIR(st.st_mode))
			r = copy_subdir(c, fd, dst, e->d_name, depth, err);
		else if (S_ISREG(st.st_mode))
			r = copy_file(c, fd, dst, e->d_name, err);
		else if (S_ISLNK(st.st_mode))
			r = copy_symlink(c, fd, dst, e->d_name, &st, err);
		/* anything else (a whiteout, a device, a FIFO, a socket): skipped */
		if (r < 0)
			return -1;
		path_pop(c, saved);
	}
	if (errno)
		return brig_error_setp(err, errno, "%s: read the directory \"%s\"", c->flag,
		                       c->len ? c->path : ".");
	return 0;
}

/* What is at @path (relative, "a/b") of @src into the same path of @dst,
 * the directories on the way made 0700; nothing when the source has no
 * such entry, or a symlink or no directory on the way (the job's layer
 * holds it only if the job wrote there, and a link is never followed). */
static int copy_path(struct copier *c, int src, int dst, const char *path, struct brig_error *err)
{
	_cleanup_free_ char *p = brig_xstrdup(path);
	_cleanup_close_ int in = openat(src, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int out = openat(dst, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	const char *last = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
	unsigned int depth = 0;
	struct stat st;
	size_t saved;

	if (in < 0 || out < 0)
		return brig_error_setp(err, errno, "%s: open", c->flag);
	/* the source's way first: nothing is made for a path it has not */
	for (char *name = p; name != last; name += strlen(name) + 1) {
		int next;

		name[strcspn(name, "/")] = '\0';
		next = openat(in, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			return errno == ENOENT || errno == ENOTDIR || errno == ELOOP
			           ? 0
			           : brig_error_setp(err, errno, "%s: open \"%s\"", c->flag, path);
		close(in);
		in = next;
	}
	if (fstatat(in, last, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT
		           ? 0
		           : brig_error_setp(err, errno, "%s: stat \"%s\"", c->flag, path);
	for (char *name = p; name != last; name += strlen(name) + 1, depth++) {
		int next;

		path_push(c, name, &saved);
		if (mkdirat(out, name, 0700) == 0) {
			if (charge(c, BRIG_JOB_ENTRY_COST, err) < 0 || own(c, out, name, err) < 0)
				return -1;
		} else if (errno != EEXIST) {
			return brig_error_setp(err, errno, "%s: mkdir \"%s\"", c->flag, c->path);
		}
		next = openat(out, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			return brig_error_setp(err, errno, "%s: open \"%s\"", c->flag, c->path);
		close(out);
		out = next;
	}
	path_push(c, last, &saved);
	if (S_ISDIR(st.st_mode))
		return copy_subdir(c, in, out, last, depth, err);
	if (S_ISREG(st.st_mode))
		return copy_file(c, in, out, last, err);
	if (S_ISLNK(st.st_mode))
		return copy_symlink(c, in, out, last, &st, err);
	return 0;
}

int brig_job_copy_tree(int src, int dst, const struct brig_job_copy_bounds *b, const char *flag,
                       struct brig_error *err)
{
	struct copier c = { .b = b, .flag = flag, .top = dst, .buf = brig_xcalloc(1, COPY_BUF) };
	int r = 0;

	c.path = brig_xstrdup("");
	c.cap = 1;
	if (b->n_only)
		for (size_t i = 0; i < b->n_only && r == 0; i++) {
			path_pop(&c, 0);
			r = copy_path(&c, src, dst, b->only[i], err);
		}
	else
		r = copy_dir(&c, src, dst, 0, err);
	tdestroy(c.links, free_link);
	free(c.path);
	free(c.buf);
	return r;
}

/* ------------------------------------------------------------ export */

/* Everything under @dirfd (which brig made), bounded as the copy was. */
static void remove_entries(int dirfd, unsigned int depth)
{
	_cleanup_closedir_ DIR *d = NULL;
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *e;

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(fd, e->d_name, 0) == 0 || errno != EISDIR)
			continue;
		if (depth <= BRIG_JOB_COPY_DEPTH) {
			_cleanup_close_ int sub =
			    openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0)
				remove_entries(sub, depth + 1);
		}
		unlinkat(fd, e->d_name, AT_REMOVEDIR);
	}
}

static void remove_staging(int dir, const char *name)
{
	_cleanup_close_ int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0)
		remove_entries(fd, 0);
	unlinkat(dir, name, AT_REMOVEDIR);
}

/* The entries of @staging moved into @dir, none replacing one there; on a
 * failure those moved go back. */
static int move_in(int dir, int staging, const char *path, struct brig_error *err)
{
	_cleanup_closedir_ DIR *d = NULL;
	int fd = openat(staging, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char **moved = NULL;
	size_t n = 0;
	struct dirent *e;
	int r = 0;

	if (fd < 0 || !(d = fdopendir(fd))) {
		int saved = errno;

		if (fd >= 0)
			close(fd);
		return brig_error_setp(err, saved, "--export: open the staging directory");
	}
	while ((errno = 0, e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (renameat2(staging, e->d_name, dir, e->d_name, RENAME_NOREPLACE) < 0) {
			r = brig_error_setp(err, errno, "--export: move \"%s\" into \"%s\"",
			                    e->d_name, path);
			break;
		}
		moved = realloc(moved, (n + 1) * sizeof(*moved));
		if (!moved)
			brig_oom();
		moved[n++] = brig_xstrdup(e->d_name);
	}
	if (r == 0 && errno)
		r = brig_error_setp(err, errno, "--export: read the staging directory");
	for (size_t i = 0; i < n; i++) {
		if (r < 0)
			renameat2(dir, moved[i], staging, moved[i], RENAME_NOREPLACE);
		free(moved[i]);
	}
	free(moved);
	return r;
}

int brig_job_export(const struct brig_job_root *r, const char *dir, const char *const *only,
                    size_t n_only, const struct brig_job_copy_bounds *b, struct brig_error *err)
{
	struct brig_job_copy_bounds paths = *b;

	_cleanup_close_ int src = -1, dst = -1, staging = -1;
	char name[64];
	int ret = -1;

	if (brig_mkdir_p(dir, 0755, err) < 0)
		return brig_error_wrap(err, "--export");
	src = r->upperfd >= 0 ? openat(r->upperfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (src < 0)
		return brig_error_setp(err, errno, "--export: open the writable layer");
	dst = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dst < 0)
		return brig_error_setp(err, errno, "--export: open \"%s\"", dir);
	/* inside DIR (one filesystem for the moves), for brig's user only */
	snprintf(name, sizeof(name), ".brig-export-%d-%llu", (int)getpid(),
	         (unsigned long long)brig_job_now_ms());
	if (mkdirat(dst, name, 0700) < 0)
		return brig_error_setp(err, errno, "--export: mkdir \"%s/%s\"", dir, name);
	staging = openat(dst, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (staging < 0 || fchmod(staging, 0700) < 0) {
		brig_error_setp(err, errno, "--export: open \"%s/%s\"", dir, name);
		goto out;
	}
	paths.only = only;
	paths.n_only = n_only;
	if (brig_job_copy_tree(src, staging, &paths, "--export", err) < 0 ||
	    move_in(dst, staging, dir, err) < 0)
		goto out;
	ret = 0;
out:
	remove_staging(dst, name);
	return ret;
}
