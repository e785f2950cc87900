/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A pooled job's source (source.h): a member of the pool claimed
 * (pool_claim.c has the claim and its checks), brig copies in through its
 * init's root and hands the job over to its init (handoff.h), which runs
 * it as the container's process and says how it ended.  brig enters none
 * of the member's namespaces.  What follows the claim (the member's end,
 * a replacement) is a follower's, a brig of its own (pool.c).  With no
 * member ready, the job is a cold one (cold.c) and the follower only
 * refills.
 */
#include "config.h"
#include "job/source.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job/egress.h"
#include "job/job.h"
#include "lifecycle/handoff.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/log.h"
#include "util/phases.h"

struct claimed {
	struct job_source s;
	struct brig_pool_claim claim;
	const char *pool;
	int reply;         /* its init: how the job ended (handoff.h) */
	bool heard, alone; /* what the init said, and whether it is alone */
	int mntns;         /* its mount namespace, for the follower */
	int refill;        /* the follower waits for it to close (pool.c) */
};

static int claimed_start(struct job_source *s, struct job_run *run, struct brig_error *err)
{
	struct claimed *c = (struct claimed *)s;
	const struct brig_job_opts *o = run->o;
	struct brig_handoff_job hj = {
		.args = (const char *const *)o->argv,
		.n_args = o->argc,
		.env = (const char *const *)o->env,
		.n_env = o->n_env,
		.cwd = o->cwd,
	};
	_cleanup_close_ int sock = -1;
	int notify = -1;

	if (job_make_export_dir(o, err) < 0)
		return -1;
	/* the member was made with these options: a hit warns as a cold job */
	if (o->no_userns || !job_userns_available())
		job_warn_no_userns(run);
	run->created = true;
	if (brig_pool_adopt(run->ctx, &c->claim, &run->root, &sock, &notify, &c->mntns, err) < 0)
		return -1;
	/* its refused calls are brig's to answer and count, as a cold job's */
	if (notify >= 0)
		run->denials = brig_job_denials_adopt(notify, &run->audit);
	run->pidfd = TAKE_FD(c->claim.pidfd);
	/* what the job changed is told against the member's own lower (the
	 * rootfs as it was when the member was made, seen through the job's
	 * ids), or, for a member of an older brig, the pool's rootfs now */
	if (c->claim.lower >= 0) {
		run->root.lowerfd = TAKE_FD(c->claim.lower);
	} else if ((o->changes_path || o->export_tar) && job_open_lower(o, &run->root, err) < 0) {
		return -1;
	}
	if (job_stdio_open(&run->io, o, err) < 0)
		return -1;
	for (size_t i = 0; i < o->n_copy_in; i++)
		if (brig_job_copy_in(&run->root, o->copy_in[i].host, o->copy_in[i].path,
		                     o->has_user ? o->uid : 0, o->has_user ? o->gid : 0, err) < 0)
			return brig_error_wrap(err, "--copy-in");
	/* the member's link gets the claim's rules, and its resolver */
	if (o->network == BRIG_JOB_NET_EGRESS &&
	    brig_egress_claim(&run->egress, c->claim.id, run->root.dir, run->pidfd, c->claim.m.pid,
	                      o->allow, o->n_allow, err) < 0)
		return brig_error_wrap(err, "--network egress");
	brig_egress_audit(run->egress, &run->audit);
	if (brig_fault("job.handoff") < 0)
		return brig_error_setp(err, errno, "hand the job over");
	if (brig_handoff_send(sock, &hj, run->io.init, &c->reply, err) < 0)
		return -1;
	job_stdio_close_init(&run->io);
	/* while the job runs: what follows it, in a brig of its own
	 * (pool.c), and what its figures need */
	c->refill = brig_pool_follow(run->ctx, c->pool, c->claim.id, c->claim.lock, c->mntns);
	if (c->mntns >= 0)
		close(TAKE_FD(c->mntns));
	{
		struct brig_error e = BRIG_ERROR_INIT;

		if (brig_pool_claim_state(run->ctx, &c->claim, &e) < 0)
			brig_debug("job %s: no state: %s", run->id, e.msg);
		brig_error_release(&e);
	}
	return 0;
}

static int claimed_watch_fd(struct job_source *s)
{
	struct claimed *c = (struct claimed *)s;

	return c->heard ? -1 : c->reply;
}

/* What the init said (handoff.h), once its reply is readable or the init
 * gone: how the job ended; nothing said: it was killed, which the
 * deadline or a signal already says, or it died.  The job has ended when
 * the init said so and that nothing else of it is left. */
static bool claimed_heard(struct job_source *s, struct job_run *run)
{
	struct claimed *c = (struct claimed *)s;
	struct brig_error e = BRIG_ERROR_INIT;
	int status;

	c->heard = true;
	switch (brig_handoff_outcome(c->reply, &status, &c->alone, &e)) {
	case 1:
		if (WIFEXITED(status)) {
			run->res.exited = true;
			run->res.exit_code = WEXITSTATUS(status);
		} else {
			run->res.signaled = true;
			run->res.signal = WTERMSIG(status);
		}
		break;
	case 0:
		if (!run->res.timed_out && !run->res.interrupted) {
			run->res.signaled = true;
			run->res.signal = SIGKILL;
		}
		break;
	default:
		free(run->error);
		run->error = brig_xstrdup(e.msg);
		run->not_started = true;
		break;
	}
	brig_error_release(&e);
	return c->alone;
}

static void claimed_reap(struct job_source *s, struct job_run *run)
{
	struct claimed *c = (struct claimed *)s;

	if (!c->heard)
		claimed_heard(s, run);
}

/* The member's cgroup, as its state (read while the job ran) says. */
static int claimed_figures(struct job_source *s, struct job_run *run, struct brig_error *err)
{
	struct claimed *c = (struct claimed *)s;
	struct brig_cgroup cg = BRIG_CGROUP_INIT;
	int r;

	if (!c->claim.s)
		return job_container_figures(run, err);
	r = brig_cgroup_from_state(c->claim.s, &cg, err);
	if (r == 0)
		brig_cgroup_usage(&cg, &run->res.usage);
	brig_cgroup_release(&cg);
	return r;
}

/* The member is its follower's to remove, once brig has gone. */
static int claimed_remove(struct job_source *s, struct job_run *run, struct brig_error *err)
{
	(void)s;
	(void)run;
	(void)err;
	return 0;
}

static void claimed_release(struct job_source *s, struct job_run *run)
{
	struct claimed *c = (struct claimed *)s;

	/* a claim that failed before its follower was started: one now, to
	 * remove the member at once and replace it */
	if (c->refill < 0)
		c->refill = brig_pool_follow(run->ctx, c->pool, c->claim.id, c->claim.lock, -1);
	brig_job_root_forget(&run->root);
	if (c->reply >= 0)
		close(c->reply);
	brig_pool_claim_release(&c->claim);
	if (c->mntns >= 0)
		close(c->mntns);
	if (c->refill >= 0)
		close(c->refill);
	free(c);
}

static const struct job_source_ops claimed_ops = {
	.start = claimed_start,
	.watch_fd = claimed_watch_fd,
	.heard = claimed_heard,
	.reap = claimed_reap,
	.figures = claimed_figures,
	.remove = claimed_remove,
	.release = claimed_release,
};

int job_pool_source(struct job_run *run, struct job_source **src, struct brig_error *err)
{
	const struct brig_job_opts *o = run->o;
	struct claimed *c = calloc(1, sizeof(*c));
	int hit;

	if (!c)
		brig_oom();
	*c = (struct claimed){ .s.ops = &claimed_ops,
		               .claim = BRIG_POOL_CLAIM_INIT,
		               .pool = o->pool,
		               .reply = -1,
		               .mntns = -1,
		               .refill = -1 };
	hit = brig_pool_claim(run->ctx, o->pool, &c->claim, err);
	brig_phase("claim");
	if (hit <= 0) {
		brig_pool_claim_release(&c->claim);
		free(c);
	}
	if (hit < 0)
		return -1;
	if (!hit) {
		/* a cold start makes the container's processes (a claim makes
		 * none); a replacement, in the background */
		if (brig_job_protect_exe(run->ctx, o, err) < 0)
			return -1;
		run->res.pool = "miss";
		*src = job_cold_new(&(struct job_cold_opts){
		    .refill = brig_pool_follow(run->ctx, o->pool, NULL, -1, -1) });
		return 0;
	}
	run->res.pool = "hit";
	/* the member's id is the job's */
	free(run->id);
	run->id = brig_xstrdup(c->claim.id);
	*src = &c->s;
	return 1;
}
