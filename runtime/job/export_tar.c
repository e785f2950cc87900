/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --export-tar (internal.h): the job's changes (changes.c's walk) as an
 * OCI image layer, a pax tar written through libarchive (loaded with
 * dlopen() by the jobs that ask for it):
 *
 *   created, modified   the entry as it is now: a directory, a regular
 *                       file, a symlink, a FIFO, or a hard link to a file
 *                       already written; devices and sockets are left
 *                       out, as --export leaves them (a layer applied by
 *                       root makes the device it holds)
 *   deleted             an empty file ".wh.NAME" beside it
 *   opaque directory    an empty file ".wh..wh..opq" in it (the lower's
 *                       entries it hid need no whiteout of their own)
 *
 * Bounded as --export is: no setuid or setgid bit (mode & 01777), holes
 * stay holes (a sparse entry), a hard link is one, the bytes written at
 * most --export-limit, the deadline and brig's signals.  Owners are the
 * job's ids, as an image's layer has them.  A name of the job's that an
 * OCI layer reserves (".wh." and what follows) would delete something
 * when the layer is applied: the export fails on it.
 */
#include "config.h"
#include "job/internal.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/dlib.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/fs.h"

#define FLAG "--export-tar"
#define DATA_BUF (1u << 20)
/* A hole is given to libarchive, which skips it (reading nothing), as
 * zeros: address space only, never touched.  It takes at most INT_MAX
 * bytes a call, so holes cost a call each 2 GiB: their sum is bounded
 * (tmpfs takes a file of 8 EiB, 2^32 calls), and the bounds are checked
 * each ZEROS_CHECK calls. */
#define ZEROS ((size_t)1 << 31)
#define ZEROS_CHECK 1024
#define HOLES_MAX ((uint64_t)1 << 50) /* 1 PiB of holes in a layer at most */
#define WHITEOUT ".wh."
#define OPAQUE ".wh..wh..opq"

static struct {
	__typeof__(&archive_write_new) write_new;
	__typeof__(&archive_write_set_format_pax_restricted) set_format_pax_restricted;
	__typeof__(&archive_write_set_bytes_in_last_block) set_bytes_in_last_block;
	__typeof__(&archive_write_open) open;
	__typeof__(&archive_write_header) header;
	__typeof__(&archive_write_data) data;
	__typeof__(&archive_write_finish_entry) finish_entry;
	__typeof__(&archive_write_close) close;
	__typeof__(&archive_write_free) free;
	__typeof__(&archive_error_string) error_string;
	__typeof__(&archive_entry_new) entry_new;
	__typeof__(&archive_entry_free) entry_free;
	__typeof__(&archive_entry_clear) entry_clear;
	__typeof__(&archive_entry_copy_pathname) set_pathname;
	__typeof__(&archive_entry_copy_symlink) set_symlink;
	__typeof__(&archive_entry_copy_hardlink) set_hardlink;
	__typeof__(&archive_entry_set_filetype) set_filetype;
	__typeof__(&archive_entry_set_perm) set_perm;
	__typeof__(&archive_entry_set_size) set_size;
	__typeof__(&archive_entry_set_uid) set_uid;
	__typeof__(&archive_entry_set_gid) set_gid;
	__typeof__(&archive_entry_set_mtime) set_mtime;
	__typeof__(&archive_entry_sparse_add_entry) sparse_add;
} la;

static int la_load(struct brig_error *err)
{
	static void *handle;
	static const struct brig_dlsym syms[] = {
		{ "archive_write_new", (void **)&la.write_new },
		{ "archive_write_set_format_pax_restricted",
		  (void **)&la.set_format_pax_restricted },
		{ "archive_write_set_bytes_in_last_block", (void **)&la.set_bytes_in_last_block },
		{ "archive_write_open", (void **)&la.open },
		{ "archive_write_header", (void **)&la.header },
		{ "archive_write_data", (void **)&la.data },
		{ "archive_write_finish_entry", (void **)&la.finish_entry },
		{ "archive_write_close", (void **)&la.close },
		{ "archive_write_free", (void **)&la.free },
		{ "archive_error_string", (void **)&la.error_string },
		{ "archive_entry_new", (void **)&la.entry_new },
		{ "archive_entry_free", (void **)&la.entry_free },
		{ "archive_entry_clear", (void **)&la.entry_clear },
		{ "archive_entry_copy_pathname", (void **)&la.set_pathname },
		{ "archive_entry_copy_symlink", (void **)&la.set_symlink },
		{ "archive_entry_copy_hardlink", (void **)&la.set_hardlink },
		{ "archive_entry_set_filetype", (void **)&la.set_filetype },
		{ "archive_entry_set_perm", (void **)&la.set_perm },
		{ "archive_entry_set_size", (void **)&la.set_size },
		{ "archive_entry_set_uid", (void **)&la.set_uid },
		{ "archive_entry_set_gid", (void **)&la.set_gid },
		{ "archive_entry_set_mtime", (void **)&la.set_mtime },
		{ "archive_entry_sparse_add_entry", (void **)&la.sparse_add },
	};

	return brig_dlib_load(&handle, BRIG_ARCHIVE_SONAME, "libarchive13", syms, ARRAY_SIZE(syms),
	                      err);
}

/* A file written already: its later hard links name it. */
struct written {
	struct brig_job_inode inode; /* first: the tree's key */
	char *path;
};

struct tar {
	const struct brig_job_root *r;
	const struct brig_job_copy_bounds *b;
	struct archive *a;
	struct archive_entry *e;
	int fd;
	uint64_t written;
	bool over;   /* the write callback refused: past the limit */
	int wr_err;  /* its write's errno */
	void *files; /* tsearch tree of struct written */
	char *buf;
	const char *zeros; /* a hole's bytes (ZEROS), never read by libarchive */
	size_t n_zeros;
	uint64_t holes; /* given so far */
};

static void free_written(void *p)
{
	struct written *w = p;

	free(w->path);
	free(w);
}

/* The archive's bytes to the file, within the limit.  Past it, or after
 * a failed write, they are taken and dropped, never refused: libarchive
 * 3.6 leaks its block buffer when an archive it writes goes fatal, and
 * brig stops at its next call anyway (stopped()). */
static la_ssize_t write_out(struct archive *a, void *data, const void *buf, size_t n)
{
	struct tar *t = data;

	(void)a;
	if (t->over || t->wr_err)
		return (la_ssize_t)n;
	if (t->b->limit && (n > t->b->limit || t->written > t->b->limit - n))
		t->over = true;
	else if (brig_write_all(t->fd, buf, n) < 0)
		t->wr_err = errno;
	else
		t->written += n;
	/* (a test stops brig here, with bytes written, to kill it) */
	brig_fault("export.tar.write");
	return (la_ssize_t)n;
}

/* Whether the writes stopped (the limit, a failed write). */
static bool stopped(const struct tar *t)
{
	return t->over || t->wr_err;
}

/* libarchive's failure, as the cause: the limit, the write, its words. */
static int failed(struct tar *t, const char *path, struct brig_error *err)
{
	if (t->over)
		return brig_error_set(err, "%s: more than %llu bytes to write (--export-limit)",
		                      FLAG, (unsigned long long)t->b->limit);
	if (t->wr_err)
		return brig_error_setp(err, t->wr_err, "%s: write", FLAG);
	return brig_error_set(err, "%s: \"/%s\": %s", FLAG, path, la.error_string(t->a));
}

/* @n bytes of @buf to the entry: libarchive takes INT_MAX at most a
 * call, never none. */
static int put(struct tar *t, const char *buf, size_t n, const char *path, struct brig_error *err)
{
	while (n) {
		la_ssize_t w = la.data(t->a, buf, n);

		if (w > 0 && stopped(t))
			return failed(t, path, err);
		if (w <= 0)
			return w < 0 ? failed(t, path, err)
			             : brig_error_set(err, "%s: \"/%s\": the archive took no bytes",
			                              FLAG, path);
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The data of @fd (@st), holes as holes: its data's extents are the
 * entry's sparse map, and libarchive is given the holes' length in
 * zeros that it skips. */
static int put_data(struct tar *t, int fd, const struct stat *st, const char *path,
                    struct brig_error *err)
{
	off_t pos = 0, size = st->st_size;

	while (pos < size) {
		off_t data = lseek(fd, pos, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			data = size;
		else if (data < 0)
			return brig_error_setp(err, errno, "%s: seek \"/%s\"", FLAG, path);
		if ((uint64_t)(data - pos) > HOLES_MAX - t->holes)
			return brig_error_set(
			    err, "%s: \"/%s\": more than %llu TiB of holes in the layer", FLAG,
			    path, (unsigned long long)(HOLES_MAX >> 40));
		t->holes += (uint64_t)(data - pos);
		for (unsigned long k = 0; pos < data; k++) {
			size_t n =
			    (uint64_t)(data - pos) > t->n_zeros ? t->n_zeros : (size_t)(data - pos);

			if (k % ZEROS_CHECK == ZEROS_CHECK - 1 &&
			    brig_job_copy_check(t->b, FLAG, err) < 0)
				return -1;
			if (put(t, t->zeros, n, path, err) < 0)
				return -1;
			pos += (off_t)n;
		}
		if (pos >= size)
			break;
		hole = lseek(fd, pos, SEEK_HOLE);
		if (hole < 0)
			return brig_error_setp(err, errno, "%s: seek \"/%s\"", FLAG, path);
		if (lseek(fd, pos, SEEK_SET) < 0)
			return brig_error_setp(err, errno, "%s: seek \"/%s\"", FLAG, path);
		while (pos < hole) {
			size_t want = hole - pos > DATA_BUF ? DATA_BUF : (size_t)(hole - pos);
			ssize_t n = read(fd, t->buf, want);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return brig_error_setp(err, n < 0 ? errno : EIO, "%s: read \"/%s\"",
				                       FLAG, path);
			if (put(t, t->buf, (size_t)n, path, err) < 0)
				return -1;
			pos += n;
			if (brig_job_copy_check(t->b, FLAG, err) < 0)
				return -1;
		}
	}
	return 0;
}

/* The sparse map of @fd: its data's extents, when it has a hole. */
static int sparse_map(struct tar *t, int fd, const struct stat *st, const char *path,
                      struct brig_error *err)
{
	off_t pos = 0, size = st->st_size;

	if ((uint64_t)st->st_blocks * 512 >= (uint64_t)size)
		return 0;
	while (pos < size) {
		off_t data = lseek(fd, pos, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			break;
		if (data < 0)
			return brig_error_setp(err, errno, "%s: seek \"/%s\"", FLAG, path);
		hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			return brig_error_setp(err, errno, "%s: seek \"/%s\"", FLAG, path);
		la.sparse_add(t->e, data, hole - data);
		pos = hole;
	}
	/* a file that ends in a hole: an empty extent at its end says its size */
	la.sparse_add(t->e, size, 0);
	return 0;
}

static int put_whiteout(struct tar *t, const struct brig_job_change *c, const char *name,
                        struct brig_error *err)
{
	_cleanup_free_ char *path = NULL;
	const char *slash = memrchr(c->path, '/', c->len);
	int prefix = slash ? (int)(slash - c->path + 1) : 0;

	path = c->opaque ? brig_xasprintf("%s/%s", c->path, OPAQUE)
	                 : brig_xasprintf("%.*s%s%s", prefix, c->path, WHITEOUT, name);
	la.entry_clear(t->e);
	la.set_pathname(t->e, path);
	la.set_filetype(t->e, AE_IFREG);
	la.set_perm(t->e, 0600);
	la.set_size(t->e, 0);
	if (la.header(t->a, t->e) < ARCHIVE_WARN || stopped(t))
		return failed(t, path, err);
	return 0;
}

static int put_entry(struct tar *t, const struct brig_job_change *c, struct brig_error *err)
{
	const struct stat *st = c->st;
	_cleanup_close_ int fd = -1;
	struct written key = { .inode = { st->st_dev, st->st_ino } }, *w;
	void **first = NULL;
	char target[4096];

	la.entry_clear(t->e);
	la.set_pathname(t->e, c->path);
	la.set_perm(t->e, st->st_mode & 01777);
	la.set_uid(t->e, (la_int64_t)brig_job_view_id(t->r, st->st_uid));
	la.set_gid(t->e, (la_int64_t)brig_job_view_id(t->r, st->st_gid));
	la.set_mtime(t->e, st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
	if (S_ISDIR(st->st_mode)) {
		la.set_filetype(t->e, AE_IFDIR);
	} else if (S_ISFIFO(st->st_mode)) {
		la.set_filetype(t->e, AE_IFIFO);
	} else if (S_ISLNK(st->st_mode)) {
		ssize_t n = readlinkat(c->dirfd, c->name, target, sizeof(target) - 1);

		if (n < 0)
			return brig_error_setp(err, errno, "%s: readlink \"/%s\"", FLAG, c->path);
		target[n] = '\0';
		la.set_filetype(t->e, AE_IFLNK);
		la.set_symlink(t->e, target);
	} else {
		la.set_filetype(t->e, AE_IFREG);
		if (st->st_nlink > 1)
			first = tfind(&key, &t->files, brig_job_inode_cmp);
		if (first) {
			la.set_hardlink(t->e, (*(struct written **)first)->path);
			la.set_size(t->e, 0);
		} else {
			fd = openat(c->dirfd, c->name,
			            O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
			if (fd < 0)
				return brig_error_setp(err, errno, "%s: open \"/%s\"", FLAG,
				                       c->path);
			la.set_size(t->e, st->st_size);
			if (sparse_map(t, fd, st, c->path, err) < 0)
				return -1;
		}
	}
	if (la.header(t->a, t->e) < ARCHIVE_WARN || stopped(t))
		return failed(t, c->path, err);
	if (fd >= 0 && put_data(t, fd, st, c->path, err) < 0)
		return -1;
	if (la.finish_entry(t->a) < ARCHIVE_OK || stopped(t))
		return failed(t, c->path, err);
	if (fd >= 0 && st->st_nlink > 1) {
		w = brig_xcalloc(1, sizeof(*w));
		*w = key;
		w->path = brig_xstrdup(c->path);
		if (!tsearch(w, &t->files, brig_job_inode_cmp))
			brig_oom();
	}
	return 0;
}

static int tar_entry(void *data, const struct brig_job_change *c, struct brig_error *err)
{
	struct tar *t = data;
	mode_t type = c->st->st_mode & S_IFMT;

	if (brig_job_copy_check(t->b, FLAG, err) < 0)
		return -1;
	if (!strncmp(c->name, WHITEOUT, strlen(WHITEOUT)))
		return brig_error_set(err,
		                      "%s: \"/%s\": an OCI layer keeps names that begin "
		                      "with \"" WHITEOUT "\" for whiteouts",
		                      FLAG, c->path);
	if (c->kind == BRIG_JOB_DELETED)
		return c->hidden ? 0 : put_whiteout(t, c, c->name, err);
	/* left out; over the rootfs's entry, that one goes all the same */
	if (type != S_IFDIR && type != S_IFREG && type != S_IFLNK && type != S_IFIFO)
		return c->kind == BRIG_JOB_MODIFIED ? put_whiteout(t, c, c->name, err) : 0;
	if (put_entry(t, c, err) < 0)
		return -1;
	return c->opaque ? put_whiteout(t, c, NULL, err) : 0;
}

int brig_job_export_tar(const struct brig_job_root *r, const struct brig_job_changes_opts *o,
                        struct brig_error *err)
{
	struct tar t = { .r = r, .b = o->b, .fd = o->fd };
	const struct brig_job_changes w = {
		.r = r,
		.o = o,
		.flag = FLAG,
		.entry = tar_entry,
		.data = &t,
	};
	locale_t utf8 = (locale_t)0, was = (locale_t)0;
	int ret = -1;

	if (la_load(err) < 0)
		return brig_error_wrap(err, FLAG);
	/* where 2 GiB of address space cannot be had, 1 MiB slices */
	t.n_zeros = ZEROS;
	t.zeros =
	    mmap(NULL, t.n_zeros, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (t.zeros == MAP_FAILED) {
		t.n_zeros = DATA_BUF;
		t.zeros = mmap(NULL, t.n_zeros, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	if (t.zeros == MAP_FAILED)
		return brig_error_setp(err, errno, "%s: mmap", FLAG);
	/* pax keeps names in UTF-8: libarchive converts them from the
	 * locale's charset, so that one a name is valid in passes as it is,
	 * and one it is not is kept as the job's bytes ("hdrcharset=BINARY"
	 * in its header, and a warning) */
	utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	if (utf8)
		was = uselocale(utf8);
	t.buf = brig_xcalloc(1, DATA_BUF);
	t.a = la.write_new();
	t.e = la.entry_new();
	if (!t.a || !t.e)
		brig_oom();
	if (la.set_format_pax_restricted(t.a) < ARCHIVE_OK ||
	    la.set_bytes_in_last_block(t.a, 1) < ARCHIVE_OK ||
	    la.open(t.a, &t, NULL, write_out, NULL) < ARCHIVE_OK) {
		failed(&t, "", err);
		goto out;
	}
	if (brig_job_changes_walk(&w, err) < 0)
		goto out;
	if (la.close(t.a) < ARCHIVE_OK || stopped(&t)) {
		failed(&t, "", err);
		goto out;
	}
	ret = 0;
out:
	la.entry_free(t.e);
	la.free(t.a);
	tdestroy(t.files, free_written);
	free(t.buf);
	munmap((void *)t.zeros, t.n_zeros);
	if (utf8) {
		uselocale(was);
		freelocale(utf8);
	}
	return ret;
}
