/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A job restored from a checkpoint's source (source.h): `brig job
 * --from-checkpoint IMG --bundle B`, the image's process tree as the job,
 * its root the job's overlay over B's rootfs.
 */
#include "config.h"
#include "job/source.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "job/job.h"
#include "lifecycle/bundle.h"
#include "lifecycle/checkpoint.h"
#include "lifecycle/container.h"
#include "lifecycle/context.h"
#include "spec/spec.h"
#include "util/error.h"
#include "util/log.h"

struct restored {
	struct job_source s;
	struct brig_bundle base; /* --bundle's */
	char *rootfs;            /* its rootfs, absolute */
	int keeper;              /* the keeper's pipe (keep_restored) */
};

/*
 * A restored job's keeper: a child of brig's in a session of its own,
 * deaf to the signals that end a job, holding nothing of the job's but
 * the read end of a pipe that only brig writes to: 'r' once the container
 * is restored (before, the id may be another's), 'k' once brig has removed
 * it.  An end of file after an 'r' means that brig died, and the keeper
 * removes the container.  (A cold job's init dies with brig by
 * PR_SET_PDEATHSIG; a restored init has what the image gives it, and
 * CRIU, not brig, is its maker.  A brig killed during the restore leaves
 * CRIU to end the tree, and the rest to gc.)
 */
static int keep_restored(struct restored *r, struct job_run *run, struct brig_error *err)
{
	int p[2];
	pid_t child;

	if (pipe2(p, O_CLOEXEC) < 0)
		return brig_error_setp(err, errno, "pipe");
	child = fork();
	if (child < 0) {
		close(p[0]);
		close(p[1]);
		return brig_error_setp(err, errno, "fork the keeper");
	}
	if (child == 0) {
		struct brig_error e = BRIG_ERROR_INIT;
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		char c, last = 0;
		ssize_t n;

		setsid();
		for (const int *sig = (const int[]){ SIGINT, SIGTERM, SIGHUP, SIGPIPE, 0 }; *sig;
		     sig++)
			signal(*sig, SIG_IGN);
		if (null >= 0)
			for (int fd = 0; fd < 3; fd++)
				dup2(null, fd);
		if (dup2(p[0], 3) != 3)
			_exit(1);
		/* nothing else of brig's: not the job's pipes, not the lock of
		 * its directory (gc must see it free once brig is gone) */
		close_range(4, ~0U, 0);
		while ((n = read(3, &c, 1)) != 0)
			if (n == 1)
				last = c;
			else if (errno != EINTR)
				break;
		if (last == 'r')
			if (brig_container_delete(run->ctx, run->id, true, &e) < 0)
				brig_debug("job %s: keeper: %s", run->id, e.msg);
		_exit(0);
	}
	close(p[0]);
	r->keeper = p[1];
	return 0;
}

/*
 * A job restored from a checkpoint image (brig checkpoint) of a container
 * of --bundle: the image's process tree, in a container of its own (the
 * job's id and cgroup) whose root is the job's overlay over the bundle's
 * rootfs, its stdio pipes the job's.  It is as confined as the container
 * that was checkpointed: the image has its namespaces, user mapping,
 * capabilities and seccomp filter.
 */
static int restored_start(struct job_source *s, struct job_run *run, struct brig_error *err)
{
	struct restored *r = (struct restored *)s;
	const struct brig_job_opts *o = run->o;
	struct brig_restore_opts ro = {
		.id = run->id,
		.bundle = o->bundle,
		.f = { .image_path = o->from_checkpoint, .manage_cgroups_mode = -1 },
		.detach = true,
		.stdio = run->io.init,
		.own_cgroup = true,
		.pidfd = &run->pidfd,
	};
	const struct brig_namespace *pidns;

	if (job_load_base(o, &r->base, &r->rootfs, err) < 0)
		return -1;
	pidns = brig_config_namespace(r->base.config->linux, BRIG_NS_PID);
	if (!pidns || pidns->path)
		return brig_error_set(err, "--from-checkpoint: the bundle's config.json needs a "
		                           "pid namespace of its own (linux.namespaces): the job's "
		                           "processes end with its pid 1");
	if (job_make_export_dir(o, err) < 0)
		return -1;
	run->root.userns = false; /* the image has the container's user mapping */
	/* the keeper first, in the caller's mount namespace: it holds none
	 * of the job's mounts */
	if (keep_restored(r, run, err) < 0)
		return -1;
	if (brig_job_private_mounts(err) < 0 || job_stdio_open(&run->io, o, err) < 0)
		return -1;
	if (brig_job_root_claim(&run->root, run->ctx->root, run->id, err) < 0 ||
	    brig_job_root_mount(&run->root, r->rootfs, o->writable, err) < 0)
		return -1;
	ro.rootfs = run->root.merged;
	run->created = true;
	if (brig_container_restore(run->ctx, &ro, NULL, err) < 0) {
		run->created = false;
		return -1;
	}
	(void)!write(r->keeper, "r", 1);
	job_stdio_close_init(&run->io);
	return 0;
}

static int restored_figures(struct job_source *s, struct job_run *run, struct brig_error *err)
{
	(void)s;
	return job_container_figures(run, err);
}

static int restored_remove(struct job_source *s, struct job_run *run, struct brig_error *err)
{
	(void)s;
	return job_container_remove(run, err);
}

static void restored_reap(struct job_source *s, struct job_run *run)
{
	(void)s;
	job_reap_child(run);
}

static void restored_release(struct job_source *s, struct job_run *run)
{
	struct restored *r = (struct restored *)s;

	job_container_drop(run);
	if (r->keeper >= 0) {
		/* the container is gone, or brig could not remove it: the
		 * keeper may leave it (gc removes what is left) */
		(void)!write(r->keeper, "k", 1);
		close(r->keeper);
	}
	brig_bundle_release(&r->base);
	free(r->rootfs);
	free(r);
}

static const struct job_source_ops restored_ops = {
	.start = restored_start,
	.reap = restored_reap,
	.figures = restored_figures,
	.remove = restored_remove,
	.release = restored_release,
	.fresh = true,
};

struct job_source *job_restored_new(void)
{
	struct restored *r = calloc(1, sizeof(*r));

	if (!r)
		brig_oom();
	*r = (struct restored){ .s.ops = &restored_ops, .base = BRIG_BUNDLE_INIT, .keeper = -1 };
	return &r->s;
}
