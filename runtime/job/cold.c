/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A cold job's source (source.h): a container created for the job from
 * the hardened config, its root the job's overlay.
 *
 *   claim the job's root    <root>/jobs/<id> locked, an id range, the overlay
 *   write config.json       job/config.c, read back by the lifecycle
 *   --copy-in               into the job's root, owned by the job's user
 *   create and start        run --detach, stdio on pipes, the init dies with brig
 *
 * A pool's member (member.c) is made the same way, but its init waits for
 * its job on a hand-off socket, with no stdio, and outlives its maker.
 */
#include "config.h"
#include "job/source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "job/egress.h"
#include "job/job.h"
#include "lifecycle/bundle.h"
#include "lifecycle/container.h"
#include "lifecycle/context.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"

struct cold {
	struct job_source s;
	struct job_cold_opts co;
	struct brig_bundle base; /* --bundle's */
	char *rootfs;            /* the lower directory, absolute */
	char *listener;          /* a member's listenerPath (its init keeps the fd) */
};

static int write_config(struct cold *c, struct job_run *run, struct brig_error *err)
{
	struct brig_job_plan plan = {
		.member = c->co.member,
		.userns = run->root.userns,
		.o = run->o,
		.base = run->o->bundle ? c->base.config : NULL,
		.rootfs = run->root.merged,
		.host_id = run->root.host_id,
		.bind_id = run->root.bind_id,
		.resolv_conf = run->egress ? brig_egress_resolv_conf(run->egress) : NULL,
		.listener = run->denials ? brig_job_denials_path(run->denials) : c->listener,
	};
	_cleanup_free_ char *text = brig_job_config(&plan, err);

	if (!text)
		return -1;
	return brig_write_file_atomic(run->root.dirfd, "config.json", text, strlen(text), 0600,
	                              err);
}

/* The job's network namespace is made: its link goes in. */
static int egress_ready(void *data, int pidfd, pid_t pid, struct brig_error *err)
{
	return brig_egress_give(data, pidfd, pid, err);
}

/* Everything up to the started job (or, for a pool's member, up to its
 * created container, whose init waits). */
int job_cold_start(struct job_source *s, struct job_run *run, struct brig_error *err)
{
	struct cold *c = (struct cold *)s;
	const struct brig_job_opts *o = run->o;
	const struct brig_process *bp;
	uint32_t uid, gid;
	struct brig_create_opts co = {
		.id = run->id,
		.run = !c->co.member,
		.detach = true,
		.stdio = run->io.init,
		.parent_death = !c->co.member,
		.pidfd = &run->pidfd,
		.cgroup_parents = c->co.cgroup_parents,
	};

	if (job_load_base(o, &c->base, &c->rootfs, err) < 0)
		return -1;
	bp = o->bundle ? c->base.config->process : NULL;
	uid = o->has_user ? o->uid : bp ? bp->user.uid : 0;
	gid = o->has_user ? o->gid : bp ? bp->user.gid : 0;
	if (job_make_export_dir(o, err) < 0)
		return -1;
	/* first: the slot's chains, when they must be made, are made while
	 * the rest is */
	if (o->network == BRIG_JOB_NET_EGRESS &&
	    brig_egress_open(&run->egress, run->id, c->co.member, o->allow, o->n_allow, err) < 0)
		return brig_error_wrap(err, "--network egress");
	run->root.userns = !o->no_userns && job_userns_available();
	/* its binds get an id range of their own all the same (config.c) */
	run->root.bind_ids = !run->root.userns;
	if (!run->root.userns)
		job_warn_no_userns(run);
	if (brig_job_private_mounts(err) < 0)
		return -1;
	if ((c->co.member ? job_stdio_null(&run->io, err) : job_stdio_open(&run->io, o, err)) < 0)
		return -1;
	if (c->co.member) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, c->co.handoff) < 0)
			return brig_error_setp(err, errno, "socketpair");
		co.handoff = c->co.handoff;
		/* brig's own profile allows what the init does after the claim:
		 * it waits under it; another is loaded last, as a cold job's */
		co.handoff_filtered = !o->seccomp || !strcmp(o->seccomp, "default");
	}
	if (job_stopped(err) < 0 ||
	    brig_job_root_claim(&run->root, run->ctx->root, run->id, err) < 0)
		return -1;
	if (brig_job_root_mount(&run->root, c->rootfs, o->writable, err) < 0)
		return -1;
	/* the job profile's own denials are counted (denials.c): a cold
	 * job's by brig, through the socket of its filter's listenerPath; a
	 * pool member's by its claimer, which takes the fd from the init
	 * (the create gives the path no fd) */
	if (job_counts_denials(o)) {
		if (c->co.member)
			c->listener = brig_xasprintf("%s/seccomp.sock", run->root.dir);
		else if (brig_job_denials_open(&run->denials, run->root.dir, &run->audit, err) < 0)
			return -1;
	}
	if (run->egress) {
		if (brig_egress_record(run->egress, run->root.dirfd, run->root.dir, err) < 0)
			return brig_error_wrap(err, "--network egress");
		brig_egress_audit(run->egress, &run->audit);
		co.netns_ready = egress_ready;
		co.netns_data = run->egress;
	}
	if (write_config(c, run, err) < 0)
		return -1;
	for (size_t i = 0; i < o->n_copy_in; i++)
		if (job_stopped(err) < 0 || brig_job_copy_in(&run->root, o->copy_in[i].host,
		                                             o->copy_in[i].path, uid, gid, err) < 0)
			return brig_error_wrap(err, "--copy-in");
	if (job_stopped(err) < 0)
		return -1;
	co.bundle = run->root.dir;
	if (brig_container_create(run->ctx, &co, NULL, err) < 0)
		return -1;
	run->created = true;
	job_stdio_close_init(&run->io);
	/* a signal during the create: the watch ends the job at once */
	return 0;
}

static int cold_figures(struct job_source *s, struct job_run *run, struct brig_error *err)
{
	(void)s;
	return job_container_figures(run, err);
}

static int cold_remove(struct job_source *s, struct job_run *run, struct brig_error *err)
{
	(void)s;
	return job_container_remove(run, err);
}

static void cold_reap(struct job_source *s, struct job_run *run)
{
	(void)s;
	job_reap_child(run);
}

static void cold_release(struct job_source *s, struct job_run *run)
{
	struct cold *c = (struct cold *)s;

	job_container_drop(run);
	if (c->co.refill >= 0)
		close(c->co.refill);
	brig_bundle_release(&c->base);
	free(c->rootfs);
	free(c->listener);
	free(c);
}

static const struct job_source_ops cold_ops = {
	.start = job_cold_start,
	.reap = cold_reap,
	.figures = cold_figures,
	.remove = cold_remove,
	.release = cold_release,
	.fresh = true,
};

struct job_source *job_cold_new(const struct job_cold_opts *co)
{
	struct cold *c = calloc(1, sizeof(*c));

	if (!c)
		brig_oom();
	c->s.ops = &cold_ops;
	c->co = *co;
	c->base = (struct brig_bundle)BRIG_BUNDLE_INIT;
	return &c->s;
}
