/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a job changed in its root (internal.h): the writable layer (the
 * overlay's upper directory) walked beside the rootfs (its lower one),
 * every upper entry one change:
 *
 *   an upper entry, no lower one          created
 *   an upper entry over a lower one       modified (a directory: its entries
 *                                         changed, or it was made again)
 *   a whiteout (character device 0:0)     deleted: the lower's entry
 *   an entry of the lower's that an       deleted, hidden: a directory the job
 *   opaque directory hides                removed and made again hides all the
 *                                         lower's entries below it
 *
 * The job has ended when its layer is walked: nothing changes it any
 * more.  All the same its names, depth and kinds of entry are the job's
 * choice: every entry is reached by fd from its parent, never through a
 * link (O_NOFOLLOW, AT_SYMLINK_NOFOLLOW), the lower beside it the same
 * way; directories nest BRIG_JOB_CHANGES_DEPTH deep at most, and the
 * deadline and brig's signals stop the walk as they stop --export.  Its
 * memory is one directory's names per level, sorted (the same order each
 * time).  The overlay has redirect_dir and metacopy off (rootfs.c): every
 * upper entry is what the job sees there, none refers to the lower's.
 *
 * Then the change set as JSON (--changes): one object per change, its
 * path as the job saw it (with "path_hex" where the name is no valid
 * UTF-8: the JSON string has U+FFFD there), a regular file's sha256
 * through nettle, loaded with dlopen() by the jobs that ask for it.
 */
#include "config.h"
#include "job/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/dlib.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/jsonw.h"
#include "util/strbuf.h"

/* ------------------------------------------------------------ the walk */

/* A directory over the lower's whose entry waits: said only when
 * something below it is (its copy up alone, for a mount point or a
 * file only opened, changed nothing the job sees). */
struct pending {
	size_t len; /* its path's, a prefix of the walk's */
	int dirfd;  /* the upper directory holding it (its walk holds it open) */
	const char *name;
	struct stat st;
};

struct walk {
	const struct brig_job_changes *w;
	struct brig_strbuf path; /* the entry's, from the root: "a/b" */
	unsigned int depth;
	struct pending *pend; /* the directories above the entry that wait */
	size_t n_pend, cap_pend;
	uint64_t held; /* the bytes of the names read of every directory above */
};

struct names {
	char **v;
	size_t n;
	uint64_t bytes; /* what they take, counted in the walk's held */
};

static void names_release(struct walk *k, struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
	k->held -= ns->bytes;
	*ns = (struct names){ 0 };
}

/* The directory being read, for errors: "/" and its path. */
static const char *shown(const struct walk *k)
{
	return k->path.len ? k->path.buf : "";
}

/* The names of directory @fd, sorted (none kept on a failure); its
 * reading buffer is let go of before the walk goes deeper.  What they
 * take (their bytes, and a pointer each) is bounded by the limit of
 * what the walk may write, and the bounds are checked as they come: a
 * directory of a million names is the job's to make, not brig's memory
 * to give. */
static int read_names(struct walk *k, int fd, struct names *ns, struct brig_error *err)
{
	_cleanup_closedir_ DIR *d = NULL;
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *e;

	if (dfd < 0 || !(d = fdopendir(dfd))) {
		int saved = errno;

		if (dfd >= 0)
			close(dfd);
		return brig_error_setp(err, saved, "%s: open \"/%s\"", k->w->flag, shown(k));
	}
	while ((errno = 0, e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		ns->bytes += len + 1 + sizeof(*ns->v);
		k->held += len + 1 + sizeof(*ns->v);
		if (k->w->o->b->limit && k->held > k->w->o->b->limit) {
			brig_error_set(
			    err, "%s: \"/%s\": more than %llu bytes of names (--export-limit)",
			    k->w->flag, shown(k), (unsigned long long)k->w->o->b->limit);
			names_release(k, ns);
			return -1;
		}
		if (ns->n % 4096 == 4095 && brig_job_copy_check(k->w->o->b, k->w->flag, err) < 0) {
			names_release(k, ns);
			return -1;
		}
		if (!(ns->n & (ns->n + 1))) {
			ns->v = realloc(ns->v, (ns->n * 2 + 2) * sizeof(*ns->v));
			if (!ns->v)
				brig_oom();
		}
		ns->v[ns->n++] = brig_xstrdup(e->d_name);
	}
	if (errno) {
		brig_error_setp(err, errno, "%s: read the directory \"/%s\"", k->w->flag, shown(k));
		names_release(k, ns);
		return -1;
	}
	if (ns->n > 1)
		qsort(ns->v, ns->n, sizeof(*ns->v), brig_cmp_strp);
	return 0;
}

static bool whiteout(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == makedev(0, 0);
}

static bool opaque(int dirfd)
{
	char v[2];

	return fgetxattr(dirfd, "trusted.overlay.opaque", v, sizeof(v)) == 1 && v[0] == 'y';
}

uint32_t brig_job_view_id(const struct brig_job_root *r, uint32_t id)
{
	if (!r->host_id)
		return id;
	return id >= r->host_id && id - r->host_id < BRIG_JOB_IDS ? id - r->host_id : 65534;
}

/* Whether upper directory @st has the mode and owner of the lower's @lst. */
static bool same_dir(const struct walk *k, const struct stat *st, const struct stat *lst)
{
	const struct brig_job_root *r = k->w->r;

	return (st->st_mode & 07777) == (lst->st_mode & 07777) &&
	       brig_job_view_id(r, st->st_uid) ==
	           (r->lower_raw ? lst->st_uid : brig_job_view_id(r, lst->st_uid)) &&
	       brig_job_view_id(r, st->st_gid) ==
	           (r->lower_raw ? lst->st_gid : brig_job_view_id(r, lst->st_gid));
}

/* Where the entry is against --export-path's: outside them all, on the
 * way to one, or at or below one. */
enum place { OUTSIDE, ON_THE_WAY, INSIDE };

static enum place place(const struct walk *k)
{
	const char *p = k->path.buf;
	size_t len = k->path.len;
	bool way = false;

	if (!k->w->o->n_only)
		return INSIDE;
	for (size_t i = 0; i < k->w->o->n_only; i++) {
		const char *o = k->w->o->only[i];
		size_t olen = strlen(o);

		if (len >= olen && !memcmp(p, o, olen) && (len == olen || p[olen] == '/'))
			return INSIDE;
		if (olen > len && !memcmp(p, o, len) && o[len] == '/')
			way = true;
	}
	return way ? ON_THE_WAY : OUTSIDE;
}

static bool skipped(const struct walk *k)
{
	const char *p = k->path.buf;

	return k->w->o->n_skip &&
	       bsearch(&p, k->w->o->skip, k->w->o->n_skip, sizeof(*k->w->o->skip), brig_cmp_strp);
}

static int call(struct walk *k, const struct brig_job_change *c, struct brig_error *err)
{
	return k->w->entry(k->w->data, c, err);
}

/* The waiting directories first: the entry is below them. */
static int emit(struct walk *k, enum brig_job_change_kind kind, int dirfd, const char *name,
                const struct stat *st, bool is_opaque, bool hidden, struct brig_error *err)
{
	const struct brig_job_change c = {
		.kind = kind,
		.path = k->path.buf,
		.len = k->path.len,
		.name = name,
		.dirfd = dirfd,
		.st = st,
		.opaque = is_opaque,
		.hidden = hidden,
	};

	for (size_t i = 0; i < k->n_pend; i++) {
		const struct pending *p = &k->pend[i];
		_cleanup_free_ char *path = strndup(k->path.buf, p->len);
		const struct brig_job_change pc = {
			.kind = BRIG_JOB_MODIFIED,
			.path = path,
			.len = p->len,
			.name = p->name,
			.dirfd = p->dirfd,
			.st = &p->st,
		};

		if (!path)
			brig_oom();
		if (call(k, &pc, err) < 0)
			return -1;
	}
	k->n_pend = 0;
	return call(k, &c, err);
}

static void path_push(struct walk *k, const char *name, size_t *saved)
{
	*saved = k->path.len;
	if (k->path.len)
		brig_strbuf_addch(&k->path, '/');
	brig_strbuf_addstr(&k->path, name);
}

/* Whether the lower's entries below are hidden, and by what: an opaque
 * directory said (its marker in the layer hides them), or one on the way
 * to an --export-path, never said (each hidden entry then needs a
 * whiteout of its own). */
enum hide { SHOWN, HIDDEN_SAID, HIDDEN_UNSAID };

static int walk_dir(struct walk *k, int upper, int lower, enum hide hides, struct brig_error *err);

/* Upper directory @name of @upper (changed as @kind), and below it. */
static int walk_subdir(struct walk *k, int upper, int lower, const char *name,
                       const struct stat *st, const struct stat *lst, enum hide hides,
                       enum brig_job_change_kind kind, bool said, struct brig_error *err)
{
	_cleanup_close_ int sub = -1, sublower = -1;
	size_t waits = (size_t)-1;
	bool opq;

	if (k->depth >= BRIG_JOB_CHANGES_DEPTH)
		return brig_error_set(err, "%s: \"/%s\": directories nested more than %u deep",
		                      k->w->flag, k->path.buf, BRIG_JOB_CHANGES_DEPTH);
	sub = openat(upper, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0)
		return brig_error_setp(err, errno, "%s: open \"/%s\"", k->w->flag, k->path.buf);
	opq = opaque(sub);
	if (!said) {
		/* on the way to an --export-path: walked, never said */
	} else if (kind == BRIG_JOB_MODIFIED && !opq && !hides && S_ISDIR(lst->st_mode) &&
	           same_dir(k, st, lst)) {
		/* (below an opaque directory it is no copy up: it was made again,
		 * and the layer must say it) */
		if (k->n_pend == k->cap_pend) {
			k->cap_pend = k->cap_pend * 2 + 8;
			k->pend = realloc(k->pend, k->cap_pend * sizeof(*k->pend));
			if (!k->pend)
				brig_oom();
		}
		waits = k->n_pend;
		k->pend[k->n_pend++] =
		    (struct pending){ .len = k->path.len, .dirfd = upper, .name = name, .st = *st };
	} else if (emit(k, kind, upper, name, st, opq, false, err) < 0) {
		return -1;
	}
	if (lst && S_ISDIR(lst->st_mode)) {
		sublower = openat(lower, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sublower < 0)
			return brig_error_setp(err, errno, "%s: open the rootfs's \"/%s\"",
			                       k->w->flag, k->path.buf);
	}
	k->depth++;
	if (walk_dir(k, sub, sublower,
	             opq && said ? HIDDEN_SAID
	             : hides     ? hides
	             : opq       ? HIDDEN_UNSAID
	                         : SHOWN,
	             err) < 0)
		return -1;
	k->depth--;
	/* nothing below it was said: it changed nothing */
	if (waits != (size_t)-1 && k->n_pend > waits)
		k->n_pend = waits;
	return 0;
}

/* The lower's entries that directory @upper hides (@hides): each one
 * the upper has not is deleted. */
static int hidden_deletions(struct walk *k, int upper, int lower, enum hide hides,
                            struct brig_error *err)
{
	struct names ns = { 0 };
	int r = 0;

	if (read_names(k, lower, &ns, err) < 0)
		return -1;
	for (size_t i = 0; i < ns.n && r == 0; i++) {
		struct stat st, lst;
		size_t saved;

		if (fstatat(upper, ns.v[i], &st, AT_SYMLINK_NOFOLLOW) == 0 ||
		    fstatat(lower, ns.v[i], &lst, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		path_push(k, ns.v[i], &saved);
		if (!skipped(k) && place(k) == INSIDE)
			r = emit(k, BRIG_JOB_DELETED, -1, ns.v[i], &lst, false,
			         hides == HIDDEN_SAID, err);
		brig_strbuf_setlen(&k->path, saved);
	}
	names_release(k, &ns);
	return r;
}

/* The entry at hand is on the way to --export-paths and no directory in
 * the layer (a whiteout, a file): each such path is gone from the job's
 * view, and deleted if the rootfs (@lower, the entry's directory's, at
 * @dir_len of the walk's path) had it. */
static int way_gone(struct walk *k, int lower, size_t dir_len, struct brig_error *err)
{
	_cleanup_free_ char *at = brig_xstrdup(k->path.buf);
	size_t len = strlen(at);
	int r = 0;

	for (size_t i = 0; i < k->w->o->n_only && r == 0 && lower >= 0; i++) {
		const char *o = k->w->o->only[i];
		_cleanup_free_ char *rel = NULL;
		_cleanup_close_ int dir = -1;
		struct stat lst;
		char *last, *c;

		if (strncmp(o, at, len) || o[len] != '/')
			continue;
		rel = brig_xstrdup(o + dir_len + (dir_len ? 1 : 0));
		last = strrchr(rel, '/') + 1; /* below the entry: one '/' at least */
		dir = openat(lower, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		for (c = rel; dir >= 0 && c != last; c += strlen(c) + 1) {
			int next;

			c[strcspn(c, "/")] = '\0';
			next = openat(dir, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			close(dir);
			dir = next;
		}
		if (dir < 0 || fstatat(dir, last, &lst, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		brig_strbuf_setlen(&k->path, 0);
		brig_strbuf_addstr(&k->path, o);
		r = emit(k, BRIG_JOB_DELETED, -1, last, &lst, false, false, err);
		brig_strbuf_setlen(&k->path, 0);
		brig_strbuf_addstr(&k->path, at);
	}
	return r;
}

/* The entries of upper directory @upper, beside @lower (-1: none). */
static int walk_dir(struct walk *k, int upper, int lower, enum hide hides, struct brig_error *err)
{
	struct names ns = { 0 };
	int r = 0;

	if (read_names(k, upper, &ns, err) < 0)
		return -1;
	for (size_t i = 0; i < ns.n && r == 0; i++) {
		const char *name = ns.v[i];
		struct stat st, lst;
		enum place at;
		bool in_lower;
		size_t saved;

		path_push(k, name, &saved);
		at = place(k);
		if (skipped(k) || at == OUTSIDE) {
			brig_strbuf_setlen(&k->path, saved);
			continue;
		}
		r = brig_job_copy_check(k->w->o->b, k->w->flag, err);
		if (r == 0 && fstatat(upper, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			r = brig_error_setp(err, errno, "%s: stat \"/%s\"", k->w->flag,
			                    k->path.buf);
		if (r < 0)
			break;
		in_lower = lower >= 0 && fstatat(lower, name, &lst, AT_SYMLINK_NOFOLLOW) == 0;
		if (S_ISDIR(st.st_mode))
			r = walk_subdir(k, upper, lower, name, &st, in_lower ? &lst : NULL, hides,
			                in_lower ? BRIG_JOB_MODIFIED : BRIG_JOB_CREATED,
			                at == INSIDE, err);
		else if (at != INSIDE)
			/* on the way to an --export-path, and no directory now */
			r = way_gone(k, lower, saved, err);
		else if (whiteout(&st))
			r = in_lower ? emit(k, BRIG_JOB_DELETED, -1, name, &lst, false, false, err)
			             : 0;
		else
			r = emit(k, in_lower ? BRIG_JOB_MODIFIED : BRIG_JOB_CREATED, upper, name,
			         &st, false, false, err);
		brig_strbuf_setlen(&k->path, saved);
	}
	names_release(k, &ns);
	if (r == 0 && hides && lower >= 0)
		r = hidden_deletions(k, upper, lower, hides, err);
	return r;
}

int brig_job_changes_walk(const struct brig_job_changes *w, struct brig_error *err)
{
	struct walk k = { .w = w };
	struct rlimit old, rl;
	bool raised = false;
	int r;

	if (w->r->upperfd < 0)
		return brig_error_set(err, "%s: the job has no writable layer", w->flag);
	/* a signal or the deadline before the first entry stops it too */
	if (brig_job_copy_check(w->o->b, w->flag, err) < 0)
		return -1;
	/* an fd per level: as many as the deepest tree may need, within the
	 * hard limit (past it, the open at that depth fails and says so) */
	if (getrlimit(RLIMIT_NOFILE, &old) == 0 && old.rlim_cur < 2 * BRIG_JOB_CHANGES_DEPTH + 64) {
		rl = old;
		rl.rlim_cur = rl.rlim_max < 2 * BRIG_JOB_CHANGES_DEPTH + 64
		                  ? rl.rlim_max
		                  : 2 * BRIG_JOB_CHANGES_DEPTH + 64;
		raised = setrlimit(RLIMIT_NOFILE, &rl) == 0;
	}
	brig_strbuf_addstr(&k.path, "");
	r = walk_dir(&k, w->r->upperfd, w->r->lowerfd, SHOWN, err);
	brig_strbuf_release(&k.path);
	free(k.pend);
	if (raised)
		setrlimit(RLIMIT_NOFILE, &old);
	return r;
}

/* ------------------------------------------------------------ nettle */

static struct {
	__typeof__(&nettle_sha256_init) init;
	__typeof__(&nettle_sha256_update) update;
	__typeof__(&nettle_sha256_digest) digest;
} nettle;

static int nettle_load(struct brig_error *err)
{
	static void *handle;
	static const struct brig_dlsym syms[] = {
		{ "nettle_sha256_init", (void **)&nettle.init },
		{ "nettle_sha256_update", (void **)&nettle.update },
		{ "nettle_sha256_digest", (void **)&nettle.digest },
	};

	return brig_dlib_load(&handle, BRIG_NETTLE_SONAME, "libnettle8", syms, ARRAY_SIZE(syms),
	                      err);
}

/* ------------------------------------------------------------ the JSON */

#define FLAG "--changes"
#define HASH_BUF (1u << 16)
#define HASH_CHECK (1u << 24) /* the bounds are checked each time so much is read */
#define FLUSH_AT (1u << 16)

/* A file hashed already, for its hard links. */
struct hashed {
	struct brig_job_inode inode; /* first: the tree's key */
	char hex[2 * SHA256_DIGEST_SIZE + 1];
};

struct json_sink {
	const struct brig_job_root *r;
	const struct brig_job_changes_opts *o;
	uint64_t hash_left; /* bytes still to be hashed at most */
	void *hashed;       /* tsearch tree of struct hashed */
	struct brig_strbuf out;
	uint64_t written;
	bool any;
	char *buf;
};

static const char *type_name(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG:
		return "file";
	case S_IFDIR:
		return "dir";
	case S_IFLNK:
		return "symlink";
	case S_IFIFO:
		return "fifo";
	case S_IFSOCK:
		return "socket";
	case S_IFCHR:
		return "char";
	case S_IFBLK:
		return "block";
	}
	return "unknown";
}

/* @n bytes of @p in lowercase hex at @hex, NUL-terminated. */
static void to_hex(char *hex, const void *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = digits[b[i] >> 4];
		hex[2 * i + 1] = digits[b[i] & 15];
	}
	hex[2 * n] = '\0';
}

/* "k": @s, and "k_hex" beside it when the JSON string cannot say it. */
static void kv_name(struct brig_jsonw *j, const char *key, const char *s, size_t len)
{
	brig_jsonw_key(j, key);
	brig_jsonw_stringn(j, s, len);
	if (!brig_utf8_valid(s, len)) {
		_cleanup_free_ char *hex = brig_xcalloc(2 * len + 1, 1);
		_cleanup_free_ char *k = brig_xasprintf("%s_hex", key);

		to_hex(hex, s, len);
		brig_jsonw_kv_string(j, k, hex);
	}
}

/* The sha256 of regular file @name of @dirfd in @hex, or "" when it is
 * larger than what is left to hash (only holes make a file larger than
 * the layer: hashing them costs their size all the same). */
static int hash_file(struct json_sink *s, int dirfd, const char *name, const struct stat *st,
                     const char *path, char *hex, struct brig_error *err)
{
	struct hashed key = { .inode = { st->st_dev, st->st_ino } }, *h;
	void **found = st->st_nlink > 1 ? tfind(&key, &s->hashed, brig_job_inode_cmp) : NULL;
	uint8_t digest[SHA256_DIGEST_SIZE];
	_cleanup_close_ int fd = -1;
	struct sha256_ctx ctx;
	uint64_t done = 0, next_check = HASH_CHECK;

	if (found) {
		memcpy(hex, (*(struct hashed **)found)->hex, sizeof(key.hex));
		return 0;
	}
	hex[0] = '\0';
	if ((uint64_t)st->st_size > s->hash_left)
		return 0;
	s->hash_left -= (uint64_t)st->st_size;
	if (nettle_load(err) < 0)
		return brig_error_wrap(err, "%s", FLAG);
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return brig_error_setp(err, errno, "%s: open \"/%s\"", FLAG, path);
	nettle.init(&ctx);
	for (;;) {
		ssize_t n = read(fd, s->buf, HASH_BUF);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return brig_error_setp(err, errno, "%s: read \"/%s\"", FLAG, path);
		if (n == 0)
			break;
		nettle.update(&ctx, (size_t)n, (const uint8_t *)s->buf);
		done += (uint64_t)n;
		if (done >= next_check) {
			next_check += HASH_CHECK;
			if (brig_job_copy_check(s->o->b, FLAG, err) < 0)
				return -1;
		}
	}
	nettle.digest(&ctx, sizeof(digest), digest);
	to_hex(hex, digest, sizeof(digest));
	if (st->st_nlink > 1) {
		h = brig_xcalloc(1, sizeof(*h));
		*h = key;
		memcpy(h->hex, hex, sizeof(h->hex));
		if (!tsearch(h, &s->hashed, brig_job_inode_cmp))
			brig_oom();
	}
	return 0;
}

static int flush(struct json_sink *s, bool all, struct brig_error *err)
{
	if (s->o->fd < 0 || (!all && s->out.len < FLUSH_AT))
		return 0;
	if (brig_write_all(s->o->fd, s->out.buf, s->out.len) < 0)
		return brig_error_setp(err, errno, "%s: write", FLAG);
	brig_strbuf_setlen(&s->out, 0);
	return 0;
}

static int json_entry(void *data, const struct brig_job_change *c, struct brig_error *err)
{
	static const char *const kinds[] = { "created", "modified", "deleted" };
	struct json_sink *s = data;
	const struct stat *st = c->st;
	_cleanup_free_ char *line = NULL, *path = brig_xasprintf("/%s", c->path);
	struct brig_jsonw j;
	size_t len;

	brig_jsonw_init(&j, NULL);
	brig_jsonw_object_begin(&j);
	kv_name(&j, "path", path, c->len + 1);
	brig_jsonw_kv_string(&j, "change", kinds[c->kind]);
	brig_jsonw_kv_string(&j, "type", type_name(st->st_mode));
	if (c->kind != BRIG_JOB_DELETED) {
		char mode[8];

		snprintf(mode, sizeof(mode), "%04o", (unsigned int)(st->st_mode & 07777));
		brig_jsonw_kv_string(&j, "mode", mode);
		brig_jsonw_kv_uint(&j, "uid", brig_job_view_id(s->r, st->st_uid));
		brig_jsonw_kv_uint(&j, "gid", brig_job_view_id(s->r, st->st_gid));
		if (!S_ISDIR(st->st_mode))
			brig_jsonw_kv_uint(&j, "size", (uint64_t)st->st_size);
	}
	if (c->kind != BRIG_JOB_DELETED && S_ISREG(st->st_mode)) {
		char hex[2 * SHA256_DIGEST_SIZE + 1];

		if (hash_file(s, c->dirfd, c->name, st, c->path, hex, err) < 0) {
			brig_jsonw_release(&j);
			return -1;
		}
		brig_jsonw_kv_string(&j, "sha256", hex[0] ? hex : NULL);
	}
	if (c->kind != BRIG_JOB_DELETED && S_ISLNK(st->st_mode)) {
		char target[4096];
		ssize_t n = readlinkat(c->dirfd, c->name, target, sizeof(target));

		if (n < 0) {
			brig_jsonw_release(&j);
			return brig_error_setp(err, errno, "%s: readlink \"%s\"", FLAG, path);
		}
		kv_name(&j, "target", target, (size_t)n);
	}
	if (c->opaque)
		brig_jsonw_kv_bool(&j, "opaque", true);
	brig_jsonw_object_end(&j);
	line = brig_jsonw_finish(&j);
	len = strlen(line);
	if (s->o->b->limit && s->written + len + 2 > s->o->b->limit)
		return brig_error_set(err, "%s: more than %llu bytes to write (--export-limit)",
		                      FLAG, (unsigned long long)s->o->b->limit);
	s->written += len + 2;
	if (s->o->fd < 0)
		brig_strbuf_addstr(&s->out, s->any ? "," : "[");
	brig_strbuf_add(&s->out, line, len);
	if (s->o->fd >= 0)
		brig_strbuf_addch(&s->out, '\n');
	s->any = true;
	return flush(s, false, err);
}

int brig_job_changes_json(const struct brig_job_root *r, const struct brig_job_changes_opts *o,
                          char **array, struct brig_error *err)
{
	struct json_sink s = {
		.r = r,
		.o = o,
		.hash_left = o->hash_limit,
		.buf = brig_xcalloc(1, HASH_BUF),
	};
	const struct brig_job_changes w = {
		.r = r,
		.o = o,
		.flag = FLAG,
		.entry = json_entry,
		.data = &s,
	};
	int ret = brig_job_changes_walk(&w, err);

	if (ret == 0)
		ret = flush(&s, true, err);
	if (ret == 0 && o->fd < 0) {
		brig_strbuf_addstr(&s.out, s.any ? "]" : "[]");
		*array = brig_strbuf_detach(&s.out);
	}
	brig_strbuf_release(&s.out);
	tdestroy(s.hashed, free);
	free(s.buf);
	return ret;
}
