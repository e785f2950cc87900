/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A pool's member made ahead (internal.h: brig_job_member_create): a cold
 * job's container (cold.c) whose init waits for its job, recorded where
 * only brig writes (pool_member.c) and made ready for claims.
 */
#include "config.h"
#include "job/source.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lifecycle/container.h"
#include "lifecycle/context.h"
#include "lifecycle/sync.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/proc.h"

/* The number of the seccomp listener the init of @pidfd kept (init.c:
 * a member's filter notifies its claimer), or -1. */
static int init_notify_fd(int pidfd)
{
	_cleanup_closedir_ DIR *d = NULL;
	char path[64], link[64];
	struct dirent *e;
	pid_t pid = brig_pidfd_pid(pidfd);

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		char *end;
		long n = strtol(e->d_name, &end, 10);
		ssize_t len;

		if (*end || end == e->d_name)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%ld", (int)pid, n);
		len = readlink(path, link, sizeof(link) - 1);
		if (len > 0 && (link[len] = '\0', !strcmp(link, BRIG_SECCOMP_NOTIFY_LINK)))
			return (int)n;
	}
	return -1;
}

/*
 * A pool's member: made by a child, which builds the job's mounts in a
 * mount namespace of its own and creates the container, whose init waits
 * and keeps the upper directory's fd; the child tells brig the fd's
 * number and exits, and brig makes the member ready.
 */
static __attribute__((noreturn)) void member_child(const struct brig_context *ctx,
                                                   const struct brig_job_opts *o,
                                                   const char *parents, char *id, int sock)
{
	struct job_run run = JOB_RUN_INIT(ctx, o);
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_pool_member m;
	int handoff[2] = { -1, -1 };
	struct job_source *cold = job_cold_new(&(struct job_cold_opts){
	    .member = true, .handoff = handoff, .cgroup_parents = parents, .refill = -1 });
	char entry[64];
	int notify;

	run.id = id;
	if (job_cold_start(cold, &run, &err) < 0) {
		brig_sync_send(sock, BRIG_SYNC_ERROR, err.msg, &err);
		run.id = NULL; /* the caller's */
		cold->ops->release(cold, &run);
		job_run_release(&run);
		_exit(1);
	}
	/* the init, cloned with them open, keeps the upper directory's fd
	 * and both ends of its hand-off socket; what they are is recorded
	 * where only brig writes, for the claims to check (pool_claim.c) */
	m = (struct brig_pool_member){ .upper_fd = run.root.upperfd,
		                       .handoff_fd = handoff[1],
		                       .host_id = run.root.host_id };
	notify = init_notify_fd(run.pidfd);
	/* a filter that notifies with no listener to take: the claims'
	 * refused calls would wait for an answer that never comes */
	if (notify < 0 && job_counts_denials(o))
		brig_error_set(&err, "pool member: its init kept no seccomp listener");
	if (err.msg || brig_job_member_record(run.root.dirfd, &m, run.root.upperfd, notify,
	                                      run.root.lowerfd, &err) < 0) {
		struct brig_error ignored = BRIG_ERROR_INIT;

		brig_container_delete(ctx, id, true, &ignored);
		brig_sync_send(sock, BRIG_SYNC_ERROR, err.msg, &err);
		_exit(1);
	}
	snprintf(entry, sizeof(entry), "%d %d %u\n", run.root.upperfd, handoff[1],
	         run.root.host_id);
	brig_sync_send(sock, BRIG_SYNC_READY, entry, &err);
	_exit(0); /* the container stays, with its mounts: it is the member */
}

int brig_job_member_create(const struct brig_context *ctx, const struct brig_job_opts *o,
                           const char *pool, const char *parents, struct brig_error *err)
{
	_cleanup_free_ char *id = NULL;
	char entry[64] = "";
	struct brig_pool_member m;
	int lock = -1, sock[2], r;
	pid_t child;

	if (job_check_opts(o, true, err) < 0)
		return -1;
	if (brig_pool_member_begin(ctx->root, pool, &id, &lock, err) < 0)
		return -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) < 0) {
		brig_error_setp(err, errno, "socketpair");
		goto fail;
	}
	child = fork();
	if (child == 0) {
		/* the member's init, cloned by this child, keeps what it holds:
		 * nothing of brig's but the socket (not the creating/ entry's
		 * lock, which claimers take once it is ready/, nor the pool's
		 * fill lock) */
		if (dup2(sock[1], 3) != 3)
			_exit(1);
		close_range(4, ~0U, 0);
		member_child(ctx, o, parents, id, 3);
	}
	close(sock[1]);
	r = child < 0 ? brig_error_setp(err, errno, "fork")
	              : brig_sync_expect_text(sock[0], BRIG_SYNC_READY, "pool member", entry,
	                                      sizeof(entry), err);
	close(sock[0]);
	if (child > 0)
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
	if (r < 0)
		goto fail;
	if (!brig_pool_member_parse(entry, &m))
		r = brig_error_set(err, "pool member: a bad READY \"%s\"", entry);
	if (r < 0 || brig_pool_member_ready(ctx->root, pool, id, &m, err) < 0) {
		struct brig_error ignored = BRIG_ERROR_INIT;

		brig_container_delete(ctx, id, true, &ignored);
		brig_error_release(&ignored);
		if (r == 0)
			brig_job_ids_release(m.host_id);
		goto fail;
	}
	close(lock); /* the entry is ready/<id> now: unlocked, for claimers */
	return 0;
fail:
	brig_pool_member_abort(ctx->root, pool, id, lock);
	return -1;
}
