/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Warm pools (job.h): sandboxes made ahead, each a container created from
 * a job's config whose init waits, claimed by one job each.
 *
 *   <root>/pools/NAME/options          the shaping flags, NUL-separated
 *   <root>/pools/NAME/size             N
 *   <root>/pools/NAME/creating/<id>    a member being made (its maker's flock)
 *   <root>/pools/NAME/ready/<id>       a member waiting
 *   <root>/pools/NAME/claimed/<id>     a member running a job (its claimer's flock)
 *
 * A member's mounts (its writable layer, its idmapped rootfs, the overlay)
 * are made in a mount namespace of their own, as a cold job's are in
 * brig's, by a child that exits once the container is created: they live
 * on as the container's root, and the upper directory as an fd its
 * waiting init holds, whose number the ready/ entry says.  The claimer
 * copies in through /proc/<init>/root and takes the upper directory with
 * pidfd_getfd() to export and measure.  Nothing of a pool is mounted in
 * anyone's namespace but the member's own.  A claim is an
 * flock then a rename from ready/ to claimed/: two claimers never get the
 * same member, and one that dies leaves an unlocked claimed/ entry that
 * the next gc removes with its member.
 */
#include "config.h"
#include "job/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "container.h"
#include "context.h"
#include "job/job.h"
#include "spec/state.h"
#include "state.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/id.h"
#include "util/strbuf.h"

static const char *const subdirs[] = { "creating", "ready", "claimed" };

static char *pool_dir(const char *root, const char *name)
{
	return brig_xasprintf("%s/pools/%s", root, name);
}

static char *entry(const char *root, const char *name, const char *sub, const char *id)
{
	return brig_xasprintf("%s/pools/%s/%s/%s", root, name, sub, id);
}

int brig_pool_check_name(const char *name, struct brig_error *err)
{
	if (brig_id_validate(name, err) < 0)
		return brig_error_wrap(err, "pool name");
	return 0;
}

/* ------------------------------------------------------------ members */

/* Whether member @id still waits: its container exists, created, its
 * init alive. */
static bool member_waits(const char *root, const char *id)
{
	struct brig_container_ref c = BRIG_CONTAINER_REF_INIT;
	struct brig_error e = BRIG_ERROR_INIT;
	bool waits = false;

	if (brig_container_ref_open(&c, root, id, BRIG_LOCK_SHARED, &e) == 0)
		waits = brig_state_status(c.s) == BRIG_STATUS_CREATED;
	brig_container_ref_close(&c);
	brig_error_release(&e);
	return waits;
}

/* The job directory a member's config lives in (job/rootfs.c). */
static void remove_job_dir(const char *root, const char *id)
{
	_cleanup_free_ char *dir = brig_xasprintf("%s/jobs/%s", root, id);
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0)
		unlinkat(fd, "config.json", 0);
	rmdir(dir);
}

/* Everything of member @id: its container (and with its init, its
 * processes and cgroup), its namespace, its entries.  In brig's own mount
 * namespace (the host's). */
static void member_destroy(const struct brig_context *ctx, const char *name, const char *id)
{
	struct brig_error ignored = BRIG_ERROR_INIT;

	brig_container_delete(ctx, id, true, &ignored);
	brig_error_release(&ignored);
	remove_job_dir(ctx->root, id);
	for (size_t i = 0; i < ARRAY_SIZE(subdirs); i++) {
		_cleanup_free_ char *e = entry(ctx->root, name, subdirs[i], id);

		unlink(e);
	}
}

int brig_pool_member_begin(const char *root, const char *name, char **id, int *lock,
                           struct brig_error *err)
{
	unsigned char b[6] = { 0 };
	char hex[13];
	_cleanup_free_ char *path = NULL;

	(void)!getrandom(b, sizeof(b), 0);
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i] ^ (unsigned char)(getpid() >> (i % 4 * 8)));
	*id = brig_xasprintf("%s-%s", name, hex);
	path = entry(root, name, "creating", *id);
	*lock = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (*lock < 0 || flock(*lock, LOCK_EX) < 0) {
		brig_error_setp(err, errno, "pool \"%s\": %s", name, path);
		free(TAKE_PTR(*id));
		return -1;
	}
	return 0;
}

void brig_pool_member_abort(const char *root, const char *name, const char *id, int lock)
{
	_cleanup_free_ char *path = entry(root, name, "creating", id);

	unlink(path);
	if (lock >= 0)
		close(lock);
}

/*
 * Ready: the entry says which fd of the member's init is the writable
 * layer's upper directory (it was open when the init was cloned, and the
 * waiting init closes nothing), then moves to ready/.
 */
int brig_pool_member_ready(const char *root, const char *name, const char *id, int upperfd,
                           struct brig_error *err)
{
	_cleanup_free_ char *from = entry(root, name, "creating", id);
	_cleanup_free_ char *to = entry(root, name, "ready", id);
	_cleanup_close_ int fd = open(from, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0 || dprintf(fd, "%d\n", upperfd) < 0)
		return brig_error_setp(err, errno, "write \"%s\"", from);
	if (rename(from, to) < 0)
		return brig_error_setp(err, errno, "rename \"%s\"", from);
	return 0;
}

/* ------------------------------------------------------------ claims */

/* The number a ready entry holds. */
static bool read_fd_number(int fd, int *out)
{
	char buf[16] = { 0 };
	char *end;
	long n;

	if (pread(fd, buf, sizeof(buf) - 1, 0) <= 0)
		return false;
	n = strtol(buf, &end, 10);
	if (end == buf || n < 0 || n > 1 << 20)
		return false;
	*out = (int)n;
	return true;
}

int brig_pool_claim(const struct brig_context *ctx, const char *name, char **id, int *lock,
                    int *upperfd, struct brig_error *err)
{
	_cleanup_free_ char *dir = pool_dir(ctx->root, name);
	_cleanup_free_ char *ready = brig_xasprintf("%s/ready", dir);
	_cleanup_free_ char *claimed = brig_xasprintf("%s/claimed", dir);
	_cleanup_closedir_ DIR *d = opendir(ready);
	_cleanup_close_ int to = open(claimed, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *e;

	if (!d || to < 0)
		return errno == ENOENT
		           ? brig_error_sete(err, ENOENT, "pool \"%s\" does not exist", name)
		           : brig_error_setp(err, errno, "pool \"%s\"", name);
	while ((e = readdir(d))) {
		int fd;

		if (e->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue; /* another claimer's now */
		/* the lock first, then the move: whoever holds it owns it */
		if (flock(fd, LOCK_EX | LOCK_NB) < 0 ||
		    renameat2(dirfd(d), e->d_name, to, e->d_name, RENAME_NOREPLACE) < 0) {
			close(fd);
			continue;
		}
		if (!member_waits(ctx->root, e->d_name) || !read_fd_number(fd, upperfd)) {
			/* its init died while it waited: gone, and the next */
			member_destroy(ctx, name, e->d_name);
			close(fd);
			continue;
		}
		*id = brig_xstrdup(e->d_name);
		*lock = fd;
		return 1;
	}
	return 0;
}

int brig_pool_adopt(const struct brig_context *ctx, const char *id, int upperfd,
                    struct brig_job_root *r, struct brig_error *err)
{
	struct brig_container_ref c = BRIG_CONTAINER_REF_INIT;
	_cleanup_close_ int pidfd = -1;
	int fd = -1, ret = -1;

	if (brig_container_ref_open(&c, ctx->root, id, BRIG_LOCK_SHARED, err) < 0)
		goto out;
	pidfd = brig_open_init(c.s);
	/* the init's fd, copied: brig is root, the init brig's own child's */
	fd = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, upperfd, 0);
	if (fd < 0) {
		brig_error_setp(err, errno, "the writable layer of \"%s\"", id);
		goto out;
	}
	brig_job_root_adopt(r, ctx->root, id, c.s->pid, fd);
	ret = 0;
out:
	brig_container_ref_close(&c);
	return ret;
}

void brig_pool_done(const struct brig_context *ctx, const char *name, const char *id, int lock)
{
	member_destroy(ctx, name, id);
	if (lock >= 0)
		close(lock);
}

/* ------------------------------------------------------------ filling */

/* The number of entries of @sub, and of those locked (held by a live
 * maker or claimer) when @locked. */
static size_t count(const char *dir, const char *sub, bool locked_only)
{
	_cleanup_free_ char *path = brig_xasprintf("%s/%s", dir, sub);
	_cleanup_closedir_ DIR *d = opendir(path);
	struct dirent *e;
	size_t n = 0;

	while (d && (e = readdir(d))) {
		_cleanup_close_ int fd = -1;

		if (e->d_name[0] == '.')
			continue;
		if (!locked_only) {
			n++;
			continue;
		}
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0)
			n++;
	}
	return n;
}

static int read_size(const char *dir, unsigned long *size, struct brig_error *err)
{
	_cleanup_free_ char *path = brig_xasprintf("%s/size", dir), *text = NULL;
	size_t len;

	if (brig_read_file(AT_FDCWD, path, 64, &text, &len, err) < 0)
		return -1;
	*size = strtoul(text, NULL, 10);
	return 0;
}

/* Destroy the members of @sub: all, or those unlocked (their maker or
 * claimer died), or those whose init died. */
static void each_member(const struct brig_context *ctx, const char *name, const char *sub,
                        bool only_unlocked, bool only_dead)
{
	_cleanup_free_ char *path = brig_xasprintf("%s/pools/%s/%s", ctx->root, name, sub);
	_cleanup_closedir_ DIR *d = opendir(path);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		_cleanup_close_ int fd = -1;

		if (e->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (only_unlocked && (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0))
			continue;
		if (only_dead && member_waits(ctx->root, e->d_name))
			continue;
		member_destroy(ctx, name, e->d_name);
	}
}

void brig_pool_gc_claims(const struct brig_context *ctx, const char *name)
{
	each_member(ctx, name, "claimed", true, false);
}

int brig_pool_fill(const struct brig_context *ctx, const char *name, const struct brig_job_opts *o,
                   struct brig_error *err)
{
	_cleanup_free_ char *dir = pool_dir(ctx->root, name);
	_cleanup_free_ char *lockpath = brig_xasprintf("%s/fill.lock", dir);
	_cleanup_close_ int lock = -1;
	unsigned long size;

	/* one fill at a time: each claim starts one, and two counting at
	 * once would both make the member that is missing */
	lock = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (lock < 0 || flock(lock, LOCK_EX) < 0)
		return brig_error_setp(err, errno, "pool \"%s\": lock", name);
	if (read_size(dir, &size, err) < 0)
		return brig_error_wrap(err, "pool \"%s\"", name);
	/* members whose init died do not count: gone first */
	each_member(ctx, name, "ready", true, true);
	while (count(dir, "ready", false) + count(dir, "creating", true) < size)
		if (brig_job_member_create(ctx, o, name, err) < 0)
			return -1;
	return 0;
}

/*
 * A replacement for a claimed member, made by a detached brig (forked
 * twice: nobody waits for it) running `brig pool fill NAME`, niced, and
 * after the claimer is gone or REFILL_DELAY_MS has passed, whichever is
 * first: making a member takes a CPU for milliseconds, which a short job
 * must not have to share.  The claimer holds the returned pipe's write
 * end until it exits (-1: no refill).
 */
#define REFILL_DELAY_MS 50

int brig_pool_refill(const char *root, const char *name)
{
	_cleanup_free_ char *fillers = brig_xasprintf("%s/pools/%s/fillers", root, name);
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		/* held (shared) while it waits and fills: destroy waits for it */
		int held = open(fillers, O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
		struct pollfd wait = { .fd = 3, .events = POLLIN };

		if (held >= 0)
			flock(held, LOCK_SH);
		setsid();
		if (fork() != 0)
			_exit(0);
		for (int fd = 0; fd < 3 && null >= 0; fd++)
			dup2(null, fd);
		if (dup2(p[0], 3) != 3 || (held >= 0 && dup2(held, 4) != 4))
			_exit(1);
		close_range(held >= 0 ? 5 : 4, ~0U, 0);
		(void)!setpriority(PRIO_PROCESS, 0, 10);
		(void)!poll(&wait, 1, REFILL_DELAY_MS);
		close(3);
		execl("/proc/self/exe", "brig", "--root", root, "pool", "fill", name, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return -1;
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return p[1];
}

/* ------------------------------------------------------------ the pool */

static int write_options(int dirfd, const char *const *flags, size_t n, unsigned long size,
                         struct brig_error *err)
{
	struct brig_strbuf b = BRIG_STRBUF_INIT;
	char sz[32];
	int r;

	for (size_t i = 0; i < n; i++)
		brig_strbuf_add(&b, flags[i], strlen(flags[i]) + 1);
	r = brig_write_file_atomic(dirfd, "options", b.buf ? b.buf : "", b.len, 0600, err);
	brig_strbuf_release(&b);
	snprintf(sz, sizeof(sz), "%lu\n", size);
	if (r == 0)
		r = brig_write_file_atomic(dirfd, "size", sz, strlen(sz), 0600, err);
	return r;
}

int brig_pool_create(const struct brig_context *ctx, const char *name, unsigned long size,
                     const struct brig_job_opts *o, const char *const *flags, size_t n_flags,
                     struct brig_error *err)
{
	_cleanup_free_ char *pools = brig_xasprintf("%s/pools", ctx->root);
	_cleanup_free_ char *dir = pool_dir(ctx->root, name);
	_cleanup_close_ int fd = -1;
	struct brig_error ignored = BRIG_ERROR_INIT;

	if (brig_mkdir_p(pools, 0700, err) < 0)
		return -1;
	if (mkdir(dir, 0700) < 0)
		return errno == EEXIST ? brig_error_sete(err, EEXIST, "pool \"%s\" exists", name)
		                       : brig_error_setp(err, errno, "pool \"%s\"", name);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		brig_error_setp(err, errno, "open \"%s\"", dir);
		goto fail;
	}
	for (size_t i = 0; i < ARRAY_SIZE(subdirs); i++)
		if (mkdirat(fd, subdirs[i], 0700) < 0) {
			brig_error_setp(err, errno, "mkdir \"%s/%s\"", dir, subdirs[i]);
			goto fail;
		}
	if (write_options(fd, flags, n_flags, size, err) < 0)
		goto fail;
	if (brig_pool_fill(ctx, name, o, err) == 0)
		return 0;
fail:
	brig_pool_destroy(ctx, name, &ignored);
	brig_error_release(&ignored);
	return -1;
}

/* Empty and remove the pool directory @tomb (a basename under pools/):
 * members made meanwhile by a fill that was under way go too. */
static int remove_pool(const struct brig_context *ctx, const char *tomb, struct brig_error *err)
{
	_cleanup_free_ char *dir = pool_dir(ctx->root, tomb);

	for (int tries = 0; tries < 200; tries++) {
		_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

		if (fd < 0)
			return errno == ENOENT ? 0
			                       : brig_error_setp(err, errno, "open \"%s\"", dir);
		/* every member, waiting or running: a running job then ends */
		for (size_t i = 0; i < ARRAY_SIZE(subdirs); i++)
			each_member(ctx, tomb, subdirs[i], false, false);
		for (size_t i = 0; i < ARRAY_SIZE(subdirs); i++)
			unlinkat(fd, subdirs[i], AT_REMOVEDIR);
		unlinkat(fd, "options", 0);
		unlinkat(fd, "size", 0);
		unlinkat(fd, "fill.lock", 0);
		unlinkat(fd, "fillers", 0);
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		usleep(10000);
	}
	return brig_error_setp(err, errno, "remove \"%s\"", dir);
}

/* Wait for every holder of the lock @file in @dir to let it go. */
static void wait_for(const char *dir, const char *file)
{
	_cleanup_free_ char *path = brig_xasprintf("%s/%s", dir, file);
	_cleanup_close_ int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);

	if (fd >= 0)
		flock(fd, LOCK_EX);
}

/*
 * The pool is first renamed out of the way (pools/.destroy-NAME-PID): no
 * claim or fill finds it any more, and what a fill already under way
 * makes in it is removed with the rest.
 */
int brig_pool_destroy(const struct brig_context *ctx, const char *name, struct brig_error *err)
{
	_cleanup_free_ char *dir = pool_dir(ctx->root, name);
	_cleanup_free_ char *tomb = brig_xasprintf(".destroy-%s-%d", name, (int)getpid());
	_cleanup_free_ char *to = pool_dir(ctx->root, tomb);

	if (rename(dir, to) < 0)
		return errno == ENOENT
		           ? brig_error_sete(err, ENOENT, "pool \"%s\" does not exist", name)
		           : brig_error_setp(err, errno, "pool \"%s\"", name);
	/* the refills under way, waiting or filling, end first: a member one
	 * was making finds no pool to be ready in, and goes; the next ones
	 * find no pool */
	wait_for(to, "fillers");
	wait_for(to, "fill.lock");
	return remove_pool(ctx, tomb, err);
}

int brig_pool_gc(const struct brig_context *ctx, struct brig_error *err)
{
	_cleanup_free_ char *pools = brig_xasprintf("%s/pools", ctx->root);
	_cleanup_closedir_ DIR *d = opendir(pools);
	struct dirent *e;

	if (!d)
		return errno == ENOENT ? 0 : brig_error_setp(err, errno, "open \"%s\"", pools);
	while ((e = readdir(d))) {
		struct brig_error ignored = BRIG_ERROR_INIT;

		/* what a destroy that died left */
		if (!strncmp(e->d_name, ".destroy-", 9)) {
			remove_pool(ctx, e->d_name, &ignored);
			brig_error_release(&ignored);
			continue;
		}
		if (e->d_name[0] == '.')
			continue;
		/* a pool whose options are gone was half made or half destroyed */
		if (faccessat(dirfd(d), e->d_name, F_OK, 0) == 0) {
			_cleanup_free_ char *opts =
			    brig_xasprintf("%s/%s/options", pools, e->d_name);

			if (access(opts, F_OK) < 0) {
				brig_pool_destroy(ctx, e->d_name, &ignored);
				brig_error_release(&ignored);
				continue;
			}
		}
		each_member(ctx, e->d_name, "creating", true, false);
		each_member(ctx, e->d_name, "claimed", true, false);
		each_member(ctx, e->d_name, "ready", true, true);
		/* back to its size, in the background */
		close(brig_pool_refill(ctx->root, e->d_name));
	}
	return 0;
}

int brig_pool_list(const struct brig_context *ctx, struct brig_pool_info **out, size_t *n,
                   struct brig_error *err)
{
	_cleanup_free_ char *pools = brig_xasprintf("%s/pools", ctx->root);
	_cleanup_closedir_ DIR *d = opendir(pools);
	struct dirent *e;

	*out = NULL;
	*n = 0;
	if (!d)
		return errno == ENOENT ? 0 : brig_error_setp(err, errno, "open \"%s\"", pools);
	while ((e = readdir(d))) {
		_cleanup_free_ char *dir = NULL, *opts = NULL;
		struct brig_pool_info *p;
		unsigned long size;
		size_t len;
		struct brig_error ignored = BRIG_ERROR_INIT;

		if (e->d_name[0] == '.')
			continue;
		dir = brig_xasprintf("%s/%s", pools, e->d_name);
		opts = brig_xasprintf("%s/options", dir);
		if (read_size(dir, &size, &ignored) < 0) {
			brig_error_release(&ignored);
			continue;
		}
		*out = realloc(*out, (*n + 1) * sizeof(**out));
		if (!*out)
			brig_oom();
		p = &(*out)[(*n)++];
		*p = (struct brig_pool_info){ .name = brig_xstrdup(e->d_name), .size = size };
		p->ready = count(dir, "ready", false);
		p->creating = count(dir, "creating", true);
		if (brig_read_file(AT_FDCWD, opts, 1 << 20, &p->options, &len, &ignored) == 0)
			p->options_len = len;
		brig_error_release(&ignored);
	}
	return 0;
}

int brig_pool_options(const struct brig_context *ctx, const char *name, char **text, size_t *len,
                      struct brig_error *err)
{
	_cleanup_free_ char *path = NULL;

	if (brig_pool_check_name(name, err) < 0)
		return -1;
	path = brig_xasprintf("%s/pools/%s/options", ctx->root, name);
	if (brig_read_file(AT_FDCWD, path, 1 << 20, text, len, err) < 0) {
		brig_error_release(err);
		return brig_error_sete(err, ENOENT, "pool \"%s\" does not exist", name);
	}
	return 0;
}

void brig_pool_info_free(struct brig_pool_info *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].name);
		free(p[i].options);
	}
	free(p);
}
