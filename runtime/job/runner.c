/* SPDX-License-Identifier: Apache-2.0 */
/*
 * brig job (job.h): the one runner of every job, whatever its source
 * (source.h: a cold create, a pool claim, a restore).
 *
 *   check the options       nothing exists yet: a bad one is one line, 125
 *   start                   the source's: the job's root, its stdio, its process
 *   watch                   the pipes (job/output.c), the deadline, SIGINT/SIGTERM,
 *                           and what the source hears of the job's end
 *   report                  the cgroup's figures, the writable layer, --export
 *   remove                  the source's container, the mounts, the directory
 *
 * At the deadline or on a signal the job's pid 1 is SIGKILLed: the kernel
 * kills everything else in its pid namespace with it.
 */
#include "config.h"
#include "job/job.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "job/egress.h"
#include "job/source.h"
#include "lifecycle/container.h"
#include "lifecycle/context.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/fs.h"
#include "util/id.h"
#include "util/log.h"
#include "util/phases.h"

/* After the job's end, how long the pipes may take to reach EOF (its
 * namespace's other processes are being killed) before brig stops
 * waiting for them. */
#define DRAIN_GRACE_MS 2000

/* Every process of the job at once: its pid 1 (in a claimed member, the
 * init that runs the job) takes the rest of its pid namespace with it. */
static void kill_job(struct job_run *run)
{
	pidfd_send_signal(run->pidfd, SIGKILL, NULL, 0);
}

/* Until the job has ended and its pipes are at EOF (or the grace after
 * its end is over): copy the output, enforce the deadline, end the job on
 * a signal.  The job has ended when its pid 1 has, or when its source
 * says so (a claimed member's init: the job and all of it). */
static void watch(struct job_run *run, struct job_source *src)
{
	struct job_stdio *io = &run->io;
	uint64_t t0 = run->t0;
	uint64_t deadline = run->o->timeout_ms ? t0 + run->o->timeout_ms : 0, ended_at = 0;
	bool ended = false, killed = false, over = false;
	unsigned long polls = 0;

	brig_fault("job.watch");
	for (;;) {
		int more = !ended && src->ops->watch_fd ? src->ops->watch_fd(src) : -1;
		int denials_wait = -1;
		int denials = ended ? -1 : brig_job_denials_fd(run->denials, &denials_wait);
		int dns[2];

		/* the job's resolver answers for as long as the job runs */
		brig_egress_fds(ended ? NULL : run->egress, dns);
		struct pollfd p[10] = {
			{ .fd = ended ? -1 : run->pidfd, .events = POLLIN },
			{ .fd = job_signal_fd(), .events = POLLIN },
			{ .fd = io->so.in, .events = brig_job_stream_in_events(&io->so) },
			{ .fd = io->se.in, .events = brig_job_stream_in_events(&io->se) },
			{ .fd = io->so.out, .events = brig_job_stream_out_events(&io->so) },
			{ .fd = io->se.out, .events = brig_job_stream_out_events(&io->se) },
			{ .fd = more, .events = POLLIN },
			{ .fd = dns[0], .events = POLLIN },
			{ .fd = dns[1], .events = POLLIN },
			{ .fd = denials, .events = POLLIN },
		};
		uint64_t now = brig_job_now_ms(), until = 0;
		int wait = -1;

		if (ended && ((io->so.in < 0 && io->se.in < 0) || now >= ended_at + DRAIN_GRACE_MS))
			break;
		if (!ended && !killed && deadline && now >= deadline) {
			run->res.timed_out = true;
			killed = true;
			kill_job(run);
		}
		if (!ended && !killed && deadline)
			until = deadline;
		if (ended)
			until = ended_at + DRAIN_GRACE_MS;
		if (until)
			wait = (int)(until - now);
		/* the resolver's resends and expiries need a tick */
		if (dns[0] >= 0 && (wait < 0 || wait > 1000))
			wait = 1000;
		/* the next refused call's answer, when they wait */
		if (denials_wait >= 0 && (wait < 0 || wait > denials_wait))
			wait = denials_wait;
		for (int i = 4; i < 6; i++)
			if (!p[i].events)
				p[i].fd = -1;
		polls++;
		if (poll(p, 10, wait) < 0 && errno != EINTR)
			break;
		if (p[9].revents && brig_job_denials_service(run->denials, p[9].revents) < 0 &&
		    !killed) {
			free(run->error);
			run->error =
			    brig_xstrdup("the seccomp listener's fd never came: the job was "
			                 "killed");
			run->not_started = true;
			killed = true;
			kill_job(run);
		}
		if (dns[0] >= 0)
			brig_egress_service(run->egress);
		if (p[1].revents & POLLIN) {
			char c;

			while (read(job_signal_fd(), &c, 1) == 1)
				;
			if (!ended && !killed) {
				run->res.interrupted = brig_job_signalled();
				free(run->error);
				run->error = brig_xasprintf("brig got SIG%s: the job was killed",
				                            sigabbrev_np(brig_job_signalled()));
				killed = true;
				kill_job(run);
			}
		}
		if (p[2].revents)
			brig_job_stream_read(&io->so, NULL);
		if (p[3].revents)
			brig_job_stream_read(&io->se, NULL);
		if (p[4].revents)
			brig_job_stream_write(&io->so);
		if (p[5].revents)
			brig_job_stream_write(&io->se);
		if (p[6].revents && src->ops->heard(src, run))
			over = true;
		if (!ended && ((p[0].revents & POLLIN) || over)) {
			src->ops->reap(src, run);
			ended = true;
			ended_at = brig_job_now_ms();
			run->res.wall_ms = ended_at - t0;
		}
	}
	brig_job_stream_finish(&io->so);
	brig_job_stream_finish(&io->se);
	/* (tests/job/denials.sh reads it: brig never spins) */
	brig_debug("job %s: watched in %lu polls", run->id, polls);
}

/* ---------------------------------------------------------- the result */

static int exit_status(const struct brig_result *r)
{
	if (r->interrupted)
		return 128 + r->interrupted;
	if (r->timed_out)
		return 124;
	if (r->signaled)
		return 128 + r->signal;
	return r->exit_code;
}

static void write_result(struct job_run *run, int result_fd, struct brig_error *err)
{
	_cleanup_free_ char *text = NULL;
	int fd;

	if (!run->o->result_path)
		return;
	run->res.id = run->id;
	run->res.error = run->error;
	run->res.has_streams = true;
	run->res.stdout_bytes = run->io.so.total;
	run->res.stderr_bytes = run->io.se.total;
	run->res.stdout_dropped = run->io.so.dropped;
	run->res.stderr_dropped = run->io.se.dropped;
	run->res.has_writable = true;
	text = brig_result_json(&run->res);
	fd = strcmp(run->o->result_path, "-") ? result_fd : STDOUT_FILENO;
	if (fd < 0)
		return; /* it could not be opened: brig said so */
	if (brig_write_all(fd, text, strlen(text)) < 0)
		brig_error_setp(err, errno, "--result \"%s\"", run->o->result_path);
}

/* What the job wrote, as the options ask: its change set, its layer as a
 * tar, its files, and what it tried (--audit); each bounded by
 * --export-limit, the job's deadline and a grace, brig's signals
 * (brig-job(8)), and none named unless all are complete. */
static int files_out(struct job_run *run, struct brig_error *err)
{
	const struct brig_job_opts *o = run->o;
	const struct brig_job_copy_bounds b = {
		.limit = o->export_limit,
		.deadline_ms =
		    o->timeout_ms ? run->t0 + o->timeout_ms + BRIG_JOB_EXPORT_GRACE_MS : 0,
		.uid = (uid_t)-1,
		.gid = (gid_t)-1,
	};
	struct brig_job_changes_opts co = {
		.b = &b,
		/* only holes can make a file larger than the layer */
		.hash_limit = o->writable,
	};
	_cleanup_(job_paths_free) struct job_paths mounts = { 0 }, only = { 0 };

	/* brig's mount points are not the job's changes */
	if ((o->changes_path || o->export_tar) && job_mount_points(run, &mounts, err) < 0)
		return -1;
	co.skip = (const char *const *)mounts.v;
	co.n_skip = mounts.n;
	job_export_paths(o, &only);
	co.only = (const char *const *)only.v;
	co.n_only = only.n;
	if (o->changes_path) {
		co.fd = run->changes_file.fd;
		if (brig_job_changes_json(&run->root, &co, &run->changes, err) < 0)
			return -1;
		run->res.changes = run->changes;
		brig_phase("changes");
	}
	if (o->export_tar) {
		co.fd = run->tar.fd;
		if (brig_job_export_tar(&run->root, &co, err) < 0)
			return -1;
		brig_phase("export-tar");
	}
	if (o->export_dir &&
	    brig_job_export(&run->root, o->export_dir, co.only, co.n_only, &b, err) < 0)
		return -1;
	run->res.audit_truncated = run->audit.truncated;
	if (o->audit_path && run->audit.failed)
		return brig_error_setp(err, run->audit.failed, "--audit \"%s\"", o->audit_path);
	/* named once all are complete: a failure leaves none */
	if ((run->changes_file.fd >= 0 &&
	     job_staged_publish(&run->changes_file, "--changes", o->changes_path, err) < 0) ||
	    (o->export_tar &&
	     job_staged_publish(&run->tar, "--export-tar", o->export_tar, err) < 0) ||
	    (o->audit_path &&
	     job_staged_publish(&run->audit_file, "--audit", o->audit_path, err) < 0))
		return -1;
	return 0;
}

/* After the job: its figures, its files, then nothing left of it. */
static int finish(struct job_run *run, struct job_source *src, struct brig_error *err)
{
	struct brig_error e = BRIG_ERROR_INIT;
	int r = 0;

	if (src->ops->figures(src, run, &e) < 0)
		brig_debug("job %s: no figures: %s", run->id, e.msg);
	brig_error_release(&e);
	run->res.oom_killed = run->res.usage.oom_kills > 0;
	if (brig_job_denials_result(run->denials, &run->denials_res))
		run->res.denials = &run->denials_res;
	if (run->egress) {
		if (brig_egress_result(run->egress, &run->egress_res, &e) < 0)
			brig_debug("job %s: egress figures: %s", run->id, e.msg);
		brig_error_release(&e);
		run->res.egress = &run->egress_res;
	}
	run->res.writable_used = brig_job_writable_used(&run->root);
	brig_phase("figures");
	if (files_out(run, err) < 0)
		r = -1;
	if (src->ops->remove(src, run, r < 0 ? &e : err) < 0)
		r = -1;
	brig_error_release(&e);
	return r;
}

static void release(struct job_run *run, struct job_source *src)
{
	if (run->created)
		kill_job(run);
	if (src)
		src->ops->release(src, run);
	/* the listener's socket before the job's directory goes */
	brig_job_denials_close(TAKE_PTR(run->denials));
	job_run_release(run);
}

/* gc: a dead brig's container, if it got that far */
static void reap_dead(const char *id, void *data)
{
	struct brig_error ignored = BRIG_ERROR_INIT;

	if (brig_container_delete(data, id, true, &ignored) < 0)
		brig_debug("job gc: %s: %s", id, ignored.msg);
	brig_error_release(&ignored);
}

/* gc, waiting or not for the egress slots being ended now */
static int gc(const struct brig_context *ctx, bool wait, struct brig_error *err)
{
	if (brig_job_root_gc(ctx->root, reap_dead, (void *)ctx, err) < 0)
		return -1;
	/* after the containers: their links went with them */
	return brig_egress_gc(wait, err);
}

int brig_job_gc(const struct brig_context *ctx, struct brig_error *err)
{
	return gc(ctx, true, err);
}

/* The job's source, as its options ask: 1, 0 or -1 as job_pool_source. */
static int open_source(struct job_run *run, struct job_source **src, struct brig_error *err)
{
	if (run->o->pool)
		return job_pool_source(run, src, err);
	*src = run->o->from_checkpoint ? job_restored_new()
	                               : job_cold_new(&(struct job_cold_opts){ .refill = -1 });
	return 0;
}

int brig_job_run(const struct brig_context *ctx, const struct brig_job_opts *o, int *status,
                 struct brig_error *err)
{
	struct job_run run = JOB_RUN_INIT(ctx, o);
	struct job_source *src = NULL;
	struct brig_error ignored = BRIG_ERROR_INIT;
	_cleanup_close_ int result_fd = -1;
	int r = -1;

	if (job_check_opts(o, false, err) < 0)
		return -1;
	if (o->id && brig_id_validate(o->id, err) < 0)
		return brig_error_wrap(err, "--id");
	/* a cold job's processes come from brig's binary (a claim makes none,
	 * a pool's miss protects it then; a restored job's are CRIU's, as
	 * with restore) */
	if (!o->pool && !o->from_checkpoint && brig_job_protect_exe(ctx, o, err) < 0)
		return -1;
	run.id = o->id ? brig_xstrdup(o->id) : job_new_id();
	if ((o->result_path && strcmp(o->result_path, "-") &&
	     job_open_output("--result", o->result_path, &result_fd, err) < 0) ||
	    (o->changes_path && strcmp(o->changes_path, "-") &&
	     job_staged_open(&run.changes_file, "--changes", o->changes_path, err) < 0) ||
	    (o->export_tar && job_staged_open(&run.tar, "--export-tar", o->export_tar, err) < 0) ||
	    (o->audit_path &&
	     job_staged_open(&run.audit_file, "--audit", o->audit_path, err) < 0)) {
		job_run_release(&run);
		return -1;
	}
	if (job_catch_signals(err) < 0)
		goto out;
	/* a job's fds are its stdio: none of brig's caller's go in */
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_PID");
	if (open_source(&run, &src, err) < 0)
		goto out;
	/* what dead brigs left, before this job adds its own */
	if (src->ops->fresh && gc(ctx, false, &ignored) < 0)
		brig_debug("job gc: %s", ignored.msg);
	run.t0 = brig_job_now_ms();
	run.audit = (struct brig_job_audit){ .fd = run.audit_file.fd,
		                             .limit = o->audit_limit,
		                             .t0 = run.t0 };
	if (src->ops->start(src, &run, err) < 0) {
		run.error = brig_xstrdup(err->msg);
		goto out;
	}
	brig_phase("job start");
	watch(&run, src);
	brig_phase("job run");
	if (finish(&run, src, err) < 0) {
		free(run.error);
		run.error = brig_xstrdup(err->msg);
		goto out;
	}
	/* as a cold job whose process could not be started */
	if (run.not_started) {
		brig_error_set(err, "%s", run.error);
		goto out;
	}
	*status = exit_status(&run.res);
	r = 0;
out:
	/* the result last but for the directory: it says what is left */
	write_result(&run, result_fd, r < 0 ? &ignored : err);
	if (r == 0 && err->msg)
		r = -1;
	release(&run, src);
	brig_error_release(&ignored);
	return r;
}
