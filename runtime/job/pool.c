/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Warm pools (job.h): sandboxes made ahead, each a container created from
 * a job's config whose init waits for its job (handoff.h), claimed by one
 * job each.
 *
 *   <root>/pools/NAME/options          the shaping flags, NUL-separated
 *   <root>/pools/NAME/size             N
 *   <root>/pools/NAME/cgroup           where every member's cgroup is made, per
 *                                      hierarchy (cgroup.h: brig_cgroup_parents),
 *                                      resolved once, at create
 *   <root>/pools/NAME/creating/<id>    a member being made (its maker's flock)
 *   <root>/pools/NAME/ready/<id>       a member waiting: its init's fds, ids, pid
 *   <root>/pools/NAME/claimed/<id>     a member running a job (its claimer's
 *                                      and follower's flock)
 *   <root>/pools/NAME/fill.lock        held by the fill that runs,
 *   <root>/pools/NAME/fill.next        by the one that waits behind it,
 *   <root>/pools/NAME/fillers          (shared) by every follower
 *   <root>/jobs/<id>/member            what the member's maker recorded of
 *                                      it, which a ready/ entry must match
 *
 * A member's mounts (its writable layer, its idmapped rootfs, the overlay)
 * are made in a mount namespace of their own, as a cold job's are in
 * brig's, by a child that exits once the container is created: they live
 * on as the container's root, and the upper directory as an fd its
 * waiting init holds.  The claimer checks the member (verify() below),
 * takes the upper directory and the hand-off socket with pidfd_getfd(),
 * copies in through the init's root (opened once, its pidfd checked
 * after), and hands the job over.  Nothing of a pool is mounted in anyone's
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
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/magic.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "lifecycle/context.h"
#include "job/job.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/fs.h"
#include "util/id.h"
#include "util/strbuf.h"

int brig_pool_check_name(const char *name, struct brig_error *err)
{
	if (brig_id_validate(name, err) < 0)
		return brig_error_wrap(err, "pool name");
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

	char *end;

	if (brig_read_file(AT_FDCWD, path, 64, &text, &len, err) < 0)
		return -1;
	/* as pool create wrote it: 1 to 1024 and a newline, or nothing is
	 * made (a fill must never make members until something runs out) */
	errno = 0;
	*size = strtoul(text, &end, 10);
	if (text[0] < '0' || text[0] > '9' || errno || (*end && strcmp(end, "\n")) || *size < 1 ||
	    *size > 1024)
		return brig_error_set(err, "\"%s\": not a size from 1 to 1024", path);
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
		if (only_dead && brig_pool_member_waits(ctx->root, e->d_name))
			continue;
		brig_pool_member_destroy(ctx, name, e->d_name, strcmp(sub, "creating") != 0);
	}
}

void brig_pool_gc_claims(const struct brig_context *ctx, const char *name)
{
	each_member(ctx, name, "claimed", true, false);
}

/*
 * The pool's cgroup parents (<pool>/cgroup), read back as carefully as
 * they were written: a regular file of brig's own, not writable by
 * others, bounded, each line "<hierarchy>\t<a directory under
 * /sys/fs/cgroup>" (the cgroup layer checks the directory again), and
 * each directory there: a member is never made elsewhere, nor does it
 * make the parent (which its delete would then remove).
 */
static int parents_check(const char *name, const char *text, struct brig_error *err)
{
	for (const char *l = text; *l;) {
		const char *tab = strchr(l, '\t'), *end = strchrnul(l, '\n');
		_cleanup_free_ char *dir = NULL;
		struct stat st;

		if (!tab || tab > end || !*end || strncmp(tab + 1, "/sys/fs/cgroup/", 15))
			return brig_error_set(err, "pool \"%s\": a bad cgroup parent record", name);
		dir = brig_xasprintf("%.*s", (int)(end - tab - 1), tab + 1);
		if (stat(dir, &st) < 0)
			return brig_error_setp(err, errno, "pool \"%s\": cgroup parent \"%s\"",
			                       name, dir);
		if (!S_ISDIR(st.st_mode))
			return brig_error_setp(err, ENOTDIR, "pool \"%s\": cgroup parent \"%s\"",
			                       name, dir);
		l = end + 1;
	}
	return 0;
}

static char *read_parents(const char *dir, const char *name, struct brig_error *err)
{
	_cleanup_free_ char *path = brig_xasprintf("%s/cgroup", dir);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	char *text = NULL;
	struct stat st;
	size_t len;

	if (fd < 0)
		return errno == ENOENT ? (brig_error_sete(err, ENOENT,
		                                          "pool \"%s\": no cgroup parent recorded "
		                                          "(made by an older brig: destroy it and "
		                                          "create it again)",
		                                          name),
		                          NULL)
		                       : (brig_error_setp(err, errno, "open \"%s\"", path), NULL);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		brig_error_set(err, "\"%s\": not a file of brig's own", path);
		return NULL;
	}
	if (brig_read_fd(fd, path, 1 << 16, &text, &len, err) < 0)
		return NULL;
	if (strlen(text) != len || parents_check(name, text, err) < 0) {
		if (!err->msg)
			brig_error_set(err, "pool \"%s\": a bad cgroup parent record", name);
		free(text);
		return NULL;
	}
	return text;
}

/*
 * Whether a refill should wait: a claim came or went (claimed/ changed)
 * in the last BRIG_POOL_QUIET_MS, and at least a quarter of the pool's
 * @size is still ready.  Making a member costs about what a cold job
 * does, so one made during a burst of claims slows every claim of it;
 * the pool is refilled once the burst is over, or as soon as it runs
 * low.  A pool that went (destroyed: renamed away) has nothing to wait
 * for, nor has a clock stepped back past the change.
 */
static bool claims_under_way(const char *dir, size_t ready, unsigned long size)
{
	_cleanup_free_ char *path = brig_xasprintf("%s/claimed", dir);
	struct timespec now;
	struct stat st;
	int64_t age_ms;

	if (ready * 4 < size || stat(path, &st) < 0)
		return false;
	clock_gettime(CLOCK_REALTIME, &now);
	age_ms = (int64_t)(now.tv_sec - st.st_mtim.tv_sec) * 1000 +
	         (now.tv_nsec - st.st_mtim.tv_nsec) / 1000000;
	return age_ms >= 0 && age_ms < BRIG_POOL_QUIET_MS;
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
	_cleanup_free_ char *dir = brig_pool_dir(ctx->root, name);
	_cleanup_free_ char *lockpath = brig_xasprintf("%s/fill.lock", dir);
	_cleanup_free_ char *nextpath = brig_xasprintf("%s/fill.next", dir);
	_cleanup_close_ int lock = -1, next = -1;
	_cleanup_free_ char *parents = NULL;
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
	/* under the pool's cgroup, whoever fills it */
	parents = read_parents(dir, name, err);
	if (!parents)
		return -1;
	/* members whose init died do not count: gone first */
	each_member(ctx, name, "ready", true, true);
	for (uint64_t t0 = brig_job_now_ms();;) {
		size_t ready = count(dir, "ready", false);

		if (ready + count(dir, "creating", true) >= size)
			return 0;
		/* a refill (a claim's) yields to the claims under way, for a
		 * while: a fill by hand waits behind it (fill.lock) */
		if (queue && brig_job_now_ms() - t0 < BRIG_POOL_YIELD_MS &&
		    claims_under_way(dir, ready, size)) {
			usleep(BRIG_POOL_QUIET_MS * 1000 / 2);
			continue;
		}
		if (brig_job_member_create(ctx, o, name, parents, err) < 0)
			return -1;
	}
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
		brig_pool_member_destroy(ctx, name, id, true);
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
                         const char *parents, struct brig_error *err)
{
	struct brig_strbuf b = BRIG_STRBUF_INIT;
	char sz[32];
	int r;

	/* before the options, which say that the pool is whole */
	if (brig_write_file_atomic(dirfd, "cgroup", parents, strlen(parents), 0600, err) < 0)
		return -1;
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
                     const char *cgroup_parent, struct brig_error *err)
{
	_cleanup_free_ char *pools = brig_xasprintf("%s/pools", ctx->root);
	_cleanup_free_ char *dir = brig_pool_dir(ctx->root, name);
	_cleanup_free_ char *parents = NULL;
	_cleanup_close_ int fd = -1;
	struct brig_error ignored = BRIG_ERROR_INIT;

	if (brig_job_protect_exe(ctx, o, err) < 0)
		return -1;
	/* the members' cgroup parent, resolved once, now: the creator's
	 * cgroup, or --cgroup-parent's, in every hierarchy */
	parents = brig_cgroup_parents(cgroup_parent, err);
	if (!parents)
		return -1;
	if (parents_check(name, parents, err) < 0) {
		if (cgroup_parent) {
			brig_error_release(err);
			return brig_error_usage(err, "--cgroup-parent \"%s\": no such cgroup",
			                        cgroup_parent);
		}
		return -1;
	}
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
	for (size_t i = 0; i < ARRAY_SIZE(brig_pool_subdirs); i++)
		if (mkdirat(fd, brig_pool_subdirs[i], 0700) < 0) {
			brig_error_setp(err, errno, "mkdir \"%s/%s\"", dir, brig_pool_subdirs[i]);
			goto fail;
		}
	if (write_options(fd, flags, n_flags, size, parents, err) < 0)
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
	_cleanup_free_ char *dir = brig_pool_dir(ctx->root, tomb);

	for (int tries = 0; tries < 200; tries++) {
		_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

		if (fd < 0)
			return errno == ENOENT ? 0
			                       : brig_error_setp(err, errno, "open \"%s\"", dir);
		/* every member, waiting or running: a running job then ends */
		for (size_t i = 0; i < ARRAY_SIZE(brig_pool_subdirs); i++)
			each_member(ctx, tomb, brig_pool_subdirs[i], false, false);
		for (size_t i = 0; i < ARRAY_SIZE(brig_pool_subdirs); i++)
			unlinkat(fd, brig_pool_subdirs[i], AT_REMOVEDIR);
		unlinkat(fd, "options", 0);
		unlinkat(fd, "size", 0);
		unlinkat(fd, "cgroup", 0);
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
	_cleanup_free_ char *dir = brig_pool_dir(ctx->root, name);
	_cleanup_free_ char *tomb = brig_xasprintf(".destroy-%s-%d", name, (int)getpid());
	_cleanup_free_ char *to = brig_pool_dir(ctx->root, tomb);

	if (rename(dir, to) < 0)
		return errno == ENOENT
		           ? brig_error_sete(err, ENOENT, "pool \"%s\" does not exist", name)
		           : brig_error_setp(err, errno, "pool \"%s\"", name);
	/* every member first: a running job ends, its claimer returns, and
	 * the claim's follower, which waits for that, goes on */
	for (size_t i = 0; i < ARRAY_SIZE(brig_pool_subdirs); i++)
		each_member(ctx, tomb, brig_pool_subdirs[i], false, false);
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
