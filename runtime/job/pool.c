/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Warm pools (job.h): sandboxes made ahead, each a container created from
 * a job's config whose init waits for its job (handoff.h), claimed by one
 * job each.
 *
 *   <root>/pools/NAME/options          the shaping flags, NUL-separated
 *   <root>/pools/NAME/size             N
 *   <root>/pools/NAME/creating/<id>    a member being made (its maker's flock)
 *   <root>/pools/NAME/ready/<id>       a member waiting: its init's fds, ids, pid
 *   <root>/pools/NAME/claimed/<id>     a member running a job (its claimer's
 *                                      and follower's flock)
 *   <root>/pools/NAME/fill.lock        held by the fill that runs,
 *   <root>/pools/NAME/fill.next        by the one that waits behind it,
 *   <root>/pools/NAME/fillers          (shared) by every follower
 *
 * A member's mounts (its writable layer, its idmapped rootfs, the overlay)
 * are made in a mount namespace of their own, as a cold job's are in
 * brig's, by a child that exits once the container is created: they live
 * on as the container's root, and the upper directory as an fd its
 * waiting init holds.  The claimer copies in through /proc/<init>/root,
 * takes the upper directory and the hand-off socket with pidfd_getfd(),
 * and hands the job over.  Nothing of a pool is mounted in anyone's
 * namespace but the member's own.  A claim is an flock then a rename from
 * ready/ to claimed/: two claimers never get the same member, and one that
 * dies (with its follower) leaves an unlocked claimed/ entry that the next
 * claim's follower, or gc, removes with its member.
 */
#include "config.h"
#include "job/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/pidfd.h>
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
#include "util/fault.h"
#include "util/fs.h"
#include "util/id.h"
#include "util/proc.h"
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
	_cleanup_free_ char *jobs = brig_xasprintf("%s/jobs", root);
	_cleanup_close_ int fd = open(jobs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0)
		brig_job_dir_remove(fd, id);
}

/* Everything of member @id: its container (and with its init, its
 * processes and cgroup), its namespace, its entries.  In brig's own mount
 * namespace (the host's). */
static bool read_member(int fd, struct brig_pool_member *m);

static void member_destroy(const struct brig_context *ctx, const char *name, const char *id)
{
	struct brig_error ignored = BRIG_ERROR_INIT;
	struct brig_pool_member m = { .host_id = 0 };

	/* its id range, as its entry says: the lock was its init's, gone
	 * with it, and the range's file goes next (job/rootfs.c) */
	for (size_t i = 0; i < ARRAY_SIZE(subdirs) && !m.host_id; i++) {
		_cleanup_free_ char *e = entry(ctx->root, name, subdirs[i], id);
		_cleanup_close_ int fd = open(e, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

		if (fd < 0 || !read_member(fd, &m))
			m.host_id = 0;
	}
	brig_container_delete(ctx, id, true, &ignored);
	brig_error_release(&ignored);
	if (m.host_id)
		brig_job_ids_release(m.host_id);
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

/* A member that never became ready: its entry, and the job directory its
 * maker made (its container is gone: the directory's lock with it).  A
 * destroy that ran meanwhile may have removed the entry already, before
 * the directory was there. */
void brig_pool_member_abort(const char *root, const char *name, const char *id, int lock)
{
	_cleanup_free_ char *path = entry(root, name, "creating", id);

	unlink(path);
	remove_job_dir(root, id);
	if (lock >= 0)
		close(lock);
}

/*
 * Ready: the entry says which fds of the member's init are the writable
 * layer's upper directory and the spare end of its hand-off socket (both
 * open when the init was cloned, and kept), the job's first host id, and
 * the init's pid and start time (a claim needs nothing else); then it
 * moves to ready/.
 */
int brig_pool_member_ready(const char *root, const char *name, const char *id,
                           struct brig_pool_member *m, struct brig_error *err)
{
	_cleanup_free_ char *from = entry(root, name, "creating", id);
	_cleanup_free_ char *to = entry(root, name, "ready", id);
	_cleanup_close_ int fd = open(from, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	struct brig_container_ref c = BRIG_CONTAINER_REF_INIT;

	if (brig_container_ref_open(&c, root, id, BRIG_LOCK_SHARED, err) < 0) {
		brig_container_ref_close(&c);
		return -1;
	}
	m->pid = c.s->pid;
	m->start = c.s->pid_start;
	brig_container_ref_close(&c);
	if (fd < 0 || dprintf(fd, "%d %d %u %d %" PRIu64 "\n", m->upper_fd, m->handoff_fd,
	                      m->host_id, (int)m->pid, m->start) < 0)
		return brig_error_setp(err, errno, "write \"%s\"", from);
	if (brig_fault("pool.member-ready") < 0 || rename(from, to) < 0)
		return brig_error_setp(err, errno, "rename \"%s\"", from);
	return 0;
}

/* ------------------------------------------------------------ claims */

/* What a ready entry says (brig_pool_member_ready). */
bool brig_pool_member_parse(const char *text, struct brig_pool_member *m)
{
	unsigned int host;
	int upper, handoff, pid = 0, end = 0;
	uint64_t start = 0;
	int n = sscanf(text, "%d %d %u %d %" SCNu64 "\n%n", &upper, &handoff, &host, &pid, &start,
	               &end);

	/* (a member's maker says the first three; the entry has all five) */
	if ((n != 3 && n != 5) || (n == 5 && (text[end] || pid <= 0)) || upper < 3 || handoff < 3 ||
	    upper > 1 << 20 || handoff > 1 << 20)
		return false;
	m->upper_fd = upper;
	m->handoff_fd = handoff;
	m->host_id = host;
	m->pid = pid;
	m->start = start;
	return true;
}

static bool read_member(int fd, struct brig_pool_member *m)
{
	char buf[64] = { 0 };

	return pread(fd, buf, sizeof(buf) - 1, 0) > 0 && brig_pool_member_parse(buf, m);
}

/* A pidfd of the init of member @m, if it still waits: its pid is still
 * the process it was (the start time, checked once the pidfd pins it);
 * else -1. */
static int member_pidfd(const struct brig_pool_member *m)
{
	uint64_t start = 0;
	int fd = m->pid > 0 ? pidfd_open(m->pid, 0) : -1;

	if (fd >= 0 && (brig_proc_stat(m->pid, NULL, &start) < 0 || start != m->start))
		close(TAKE_FD(fd));
	return fd;
}

int brig_pool_claim_state(const struct brig_context *ctx, struct brig_pool_claim *c,
                          struct brig_error *err)
{
	struct brig_container_ref ref = BRIG_CONTAINER_REF_INIT;
	int r = brig_container_ref_open(&ref, ctx->root, c->id, BRIG_LOCK_SHARED, err);

	if (r == 0)
		c->s = TAKE_PTR(ref.s);
	brig_container_ref_close(&ref);
	return r;
}

void brig_pool_claim_release(struct brig_pool_claim *c)
{
	free(c->id);
	if (c->lock >= 0)
		close(c->lock);
	if (c->pidfd >= 0)
		close(c->pidfd);
	if (c->s)
		brig_state_free(c->s);
	*c = (struct brig_pool_claim)BRIG_POOL_CLAIM_INIT;
}

int brig_pool_claim(const struct brig_context *ctx, const char *name, struct brig_pool_claim *c,
                    struct brig_error *err)
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
		if (!read_member(fd, &c->m) || (c->pidfd = member_pidfd(&c->m)) < 0) {
			/* its init died while it waited: gone, and the next */
			brig_pool_claim_release(c);
			member_destroy(ctx, name, e->d_name);
			close(fd);
			continue;
		}
		c->id = brig_xstrdup(e->d_name);
		c->lock = fd;
		brig_fault("pool.claimed");
		return 1;
	}
	return 0;
}

int brig_pool_adopt(const struct brig_context *ctx, const struct brig_pool_claim *c,
                    struct brig_job_root *r, int *handoff, int *mntns, struct brig_error *err)
{
	char ns[64];
	int upper;

	/* the init's fds, copied: brig is root, the init brig's own child's */
	upper = (int)syscall(SYS_pidfd_getfd, c->pidfd, c->m.upper_fd, 0);
	*handoff = upper < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, c->pidfd, c->m.handoff_fd, 0);
	if (*handoff < 0) {
		brig_error_setp(err, errno, "the fds of pool member \"%s\"", c->id);
		if (upper >= 0)
			close(upper);
		return -1;
	}
	brig_job_root_adopt(r, ctx->root, c->id, c->m.pid, upper, c->m.host_id);
	/* opened by pid, then the pidfd asked whether that is still the init */
	snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", (int)c->m.pid);
	*mntns = open(ns, O_RDONLY | O_CLOEXEC);
	if (*mntns >= 0 && pidfd_send_signal(c->pidfd, 0, NULL, 0) < 0)
		close(TAKE_FD(*mntns));
	return 0;
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

/*
 * One fill at a time: each claim starts one, and two counting at once
 * would both make the member that is missing (fill.lock).  Queued, at
 * most one more waits behind it (fill.next): a fill that finds both taken
 * has nothing to do that the waiting one, which counts after it, will not
 * do; so a stream of claims that outruns the fills does not pile fills up.
 */
static int fill_members(const struct brig_context *ctx, const char *name,
                        const struct brig_job_opts *o, bool queue, struct brig_error *err)
{
	_cleanup_free_ char *dir = pool_dir(ctx->root, name);
	_cleanup_free_ char *lockpath = brig_xasprintf("%s/fill.lock", dir);
	_cleanup_free_ char *nextpath = brig_xasprintf("%s/fill.next", dir);
	_cleanup_close_ int lock = -1, next = -1;
	unsigned long size;

	if (queue) {
		next = open(nextpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (next < 0)
			return brig_error_setp(err, errno, "pool \"%s\": lock", name);
		if (flock(next, LOCK_EX | LOCK_NB) < 0)
			return 0;
	}
	lock = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (lock < 0 || flock(lock, LOCK_EX) < 0)
		return brig_error_setp(err, errno, "pool \"%s\": lock", name);
	/* running now: the next may wait */
	if (next >= 0)
		close(TAKE_FD(next));
	if (read_size(dir, &size, err) < 0)
		return brig_error_wrap(err, "pool \"%s\"", name);
	/* members whose init died do not count: gone first */
	each_member(ctx, name, "ready", true, true);
	while (count(dir, "ready", false) + count(dir, "creating", true) < size)
		if (brig_job_member_create(ctx, o, name, err) < 0)
			return -1;
	return 0;
}

int brig_pool_fill(const struct brig_context *ctx, const char *name, const struct brig_job_opts *o,
                   bool queue, struct brig_error *err)
{
	if (brig_job_protect_exe(ctx, o, err) < 0)
		return -1;
	return fill_members(ctx, name, o, queue, err);
}

/*
 * What follows a claim runs in a brig of its own, its follower (`brig pool
 * follow NAME [ID]`), spawned by the claimer once it has handed the job
 * over (a vfork: the claimer's memory is not copied), in a session of its
 * own, niced, never waited for.  It holds the claim's lock and the
 * member's mount namespace, and watches a pipe whose write end only the
 * claimer holds:
 *
 *   - once the claimer is gone (end-of-file) it destroys the member: the
 *     job's processes have ended already, so this is the container's
 *     cgroup, state and entries, off the caller's time, and the last of
 *     the mount namespace (its unmounting) is the follower's; then the
 *     members of claimers that died with their followers (unlocked
 *     claimed/ entries), also off the caller's time;
 *   - after the claimer is gone or BRIG_POOL_REFILL_MS has passed,
 *     whichever comes first, it runs `brig pool fill --queue NAME`: making
 *     a member takes a CPU for milliseconds, which a short job must not
 *     have to share.
 *
 * A miss's follower (no ID) only refills.  The `fillers` lock (shared) is
 * taken by the claimer before the follower is spawned, and held by the
 * follower and the fill it becomes or starts until they end: destroy
 * waits for every one of them, however late they run.
 */
enum { FOLLOW_PIPE = 3, FOLLOW_LOCK, FOLLOW_HOLD, FOLLOW_FILLERS, FOLLOW_FDS };

/* `brig pool fill --queue NAME`, unless a fill waits behind a running one
 * already (brig_pool_fill): then there is nothing to start. */
static __attribute__((noreturn)) void fill_exec(const char *root, const char *name)
{
	_cleanup_free_ char *next = brig_xasprintf("%s/pools/%s/fill.next", root, name);
	int fd = open(next, O_RDWR | O_CLOEXEC | O_NOFOLLOW);

	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0)
		_exit(0);
	if (fd >= 0)
		close(fd);
	/* the fill holds the follower's share of `fillers` until it ends */
	fcntl(FOLLOW_FILLERS, F_SETFD, 0);
	execl("/proc/self/exe", "brig", "--root", root, "pool", "fill", "--queue", name,
	      (char *)NULL);
	_exit(127);
}

int brig_pool_follower(const struct brig_context *ctx, const char *name, const char *id)
{
	struct pollfd claimer = { .fd = FOLLOW_PIPE, .events = POLLIN };
	bool refilled = false;

	/* what the claimer passed is the follower's alone from here on */
	for (int fd = FOLLOW_PIPE; fd < FOLLOW_FDS; fd++)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (fcntl(FOLLOW_PIPE, F_GETFD) < 0)
		return -1;
	brig_fault("pool.follow");
	(void)!setpriority(PRIO_PROCESS, 0, 10);
	if (poll(&claimer, 1, BRIG_POOL_REFILL_MS) == 0) {
		/* a long job: the replacement now, the member at its end */
		if (fork() == 0)
			fill_exec(ctx->root, name);
		while (poll(&claimer, 1, -1) < 0 && errno == EINTR)
			;
		refilled = true;
	}
	/* the claimer has gone: its member, then those of claimers that
	 * died with their followers */
	if (id)
		member_destroy(ctx, name, id);
	brig_pool_gc_claims(ctx, name);
	if (refilled)
		return 0;
	close(FOLLOW_PIPE);
	close(FOLLOW_HOLD);
	fill_exec(ctx->root, name);
}

int brig_pool_follow(const struct brig_context *ctx, const char *name, const char *id, int lock,
                     int hold)
{
	char *argv[] = { "brig",   "--root",     (char *)ctx->root, "pool",
		         "follow", (char *)name, (char *)id,        NULL };
	_cleanup_free_ char *path = brig_xasprintf("%s/pools/%s/fillers", ctx->root, name);
	_cleanup_close_ int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	_cleanup_close_ int fillers = -1;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int p[2], src[FOLLOW_FDS - FOLLOW_PIPE], r = -1;
	sigset_t none;
	pid_t pid;

	if (null < 0)
		return -1;
	/* the follower's share of `fillers`, before it exists: a destroy
	 * that comes first waits for it (a pool being destroyed has none) */
	fillers = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fillers < 0 || flock(fillers, LOCK_SH) < 0)
		return -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	/* 3: the claimer's pipe, 4: the claim's lock, 5: what to hold,
	 * 6: `fillers`, each copied above them first (one may sit where
	 * another goes); nothing else of the claimer's (its result file, its
	 * stdio, the member's fds) */
	src[0] = p[0];
	src[1] = lock >= 0 ? lock : null;
	src[2] = hold >= 0 ? hold : null;
	src[3] = fillers;
	for (int i = 0; i < FOLLOW_FDS - FOLLOW_PIPE; i++)
		src[i] = fcntl(src[i], F_DUPFD_CLOEXEC, FOLLOW_FDS);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	for (int fd = 0; fd < 3; fd++)
		posix_spawn_file_actions_adddup2(&fa, null, fd);
	for (int i = 0; i < FOLLOW_FDS - FOLLOW_PIPE; i++)
		if (src[i] >= 0)
			posix_spawn_file_actions_adddup2(&fa, src[i], FOLLOW_PIPE + i);
	posix_spawn_file_actions_addclosefrom_np(&fa, FOLLOW_FDS);
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK);
	if (src[0] >= 0)
		r = posix_spawn(&pid, "/proc/self/exe", &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(p[0]);
	for (int i = 0; i < FOLLOW_FDS - FOLLOW_PIPE; i++)
		if (src[i] >= 0)
			close(src[i]);
	if (r != 0) {
		close(p[1]);
		return -1;
	}
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

	if (brig_job_protect_exe(ctx, o, err) < 0 || brig_mkdir_p(pools, 0700, err) < 0)
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
	if (fill_members(ctx, name, o, false, err) == 0)
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
		unlinkat(fd, "fill.next", 0);
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
	/* every member first: a running job ends, its claimer returns, and
	 * the claim's follower, which waits for that, goes on */
	for (size_t i = 0; i < ARRAY_SIZE(subdirs); i++)
		each_member(ctx, tomb, subdirs[i], false, false);
	/* the followers and refills under way end next: a member one was
	 * making finds no pool to be ready in, and goes; the next ones find
	 * no pool */
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
		close(brig_pool_follow(ctx, e->d_name, NULL, -1, -1));
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
