/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The job runner (runner.c) and the sources of a job's process, behind
 * one small interface, as the cgroup managers are behind theirs:
 *
 *   cold.c      a container created for the job (and, for a pool, a
 *               member created ahead: member.c)
 *   claimed.c   a pool member claimed, the job handed over to its init
 *               (or, on a miss, a cold one)
 *   restored.c  a checkpoint image restored as the job
 *
 * The runner does what every job needs, in this order: check, stdio,
 * start (the source's), watch (the pipes, the deadline, brig's signals,
 * and whatever the source says of the job's end), report (the figures,
 * the export, the result), remove (the source's, then the job's root).
 * It knows no source's fields: each source keeps its own state in its
 * own file, and the runner sees only struct job_run, which every source
 * fills its part of, and the ops below.
 *
 * common.c is the ground both stand on: the job's clock and signals, the
 * options' checks, its stdio, its user namespace's warning.
 */
#ifndef BRIG_JOB_SOURCE_H
#define BRIG_JOB_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "job/internal.h"
#include "job/output.h"
#include "lifecycle/result.h"

struct brig_bundle;
struct brig_egress;
struct brig_context;
struct brig_error;
struct brig_job_opts;

/* The job's stdio: the init's ends (until the source has handed them
 * over), and brig's, which the runner copies to where they go. */
struct job_stdio {
	int init[3];        /* the init's stdin, stdout, stderr */
	int out_fd, err_fd; /* where the job's stdout and stderr go */
	bool own_out, own_err;
	struct brig_job_stream so, se;
};

/* A file without a name in @path's directory (O_TMPFILE), for brig's
 * writes: nothing is at @path, half-written or not, until
 * job_staged_publish() gives it @path's name, replacing what was there. */
struct job_staged {
	int fd;     /* the file, or -1 */
	int dir;    /* its directory (O_PATH) */
	char *name; /* its name to be there */
};
#define JOB_STAGED_INIT             \
	{                           \
		.fd = -1, .dir = -1 \
	}

/* What the runner knows of a job, whatever its source. */
struct job_run {
	const struct brig_context *ctx;
	const struct brig_job_opts *o;
	char *id;
	struct brig_job_root root;
	struct job_stdio io;
	int pidfd;        /* the process whose end is the job's (its pid 1) */
	bool created;     /* a container exists: the job may run, it must be removed */
	bool not_started; /* the source says the job's process could not be started */
	struct brig_result res;
	char *error;                            /* res.error's storage */
	char *warning;                          /* res.warning's */
	uint64_t t0;                            /* when brig began the job: its deadline's start */
	struct brig_egress *egress;             /* --network egress: its link (egress.h) */
	struct brig_result_egress egress_res;   /* its figures, for res.egress */
	struct job_staged changes_file, tar;    /* --changes FILE, --export-tar */
	struct job_staged audit_file;           /* --audit */
	struct brig_job_audit audit;            /* what the denials write there */
	struct brig_job_denials *denials;       /* the refused calls (denials.c) */
	struct brig_result_denials denials_res; /* their figures, for res.denials */
	char *changes;                          /* --changes -: res.changes's storage */
};

/* clang-format off */
#define JOB_STDIO_INIT { .init = { -1, -1, -1 }, .out_fd = -1, .err_fd = -1, \
                         .so = { .in = -1 }, .se = { .in = -1 } }
#define JOB_RUN_INIT(ctx_, o_) ((struct job_run){ .ctx = (ctx_), .o = (o_), \
	.root = BRIG_JOB_ROOT_INIT, .io = JOB_STDIO_INIT, .pidfd = -1, \
	.changes_file = JOB_STAGED_INIT, .tar = JOB_STAGED_INIT, \
	.audit_file = JOB_STAGED_INIT, .audit = { .fd = -1 } })
/* clang-format on */

struct job_source;

struct job_source_ops {
	/* Everything up to the started job: @run->pidfd is the process whose
	 * end is the job's, @run->created is set once there is a container,
	 * and the init's stdio is handed over (job_stdio_close_init). */
	int (*start)(struct job_source *s, struct job_run *run, struct brig_error *err);
	/* An fd that says more of the job's end, polled beside the pidfd while
	 * the job runs (-1: none, or nothing more to hear). */
	int (*watch_fd)(struct job_source *s);
	/* That fd is readable: true once the job has ended, whether or not
	 * its process has. */
	bool (*heard)(struct job_source *s, struct job_run *run);
	/* The job has ended: how, into @run->res. */
	void (*reap)(struct job_source *s, struct job_run *run);
	/* The job's cgroup's figures, into @run->res.usage. */
	int (*figures)(struct job_source *s, struct job_run *run, struct brig_error *err);
	/* Once the job's files are out: its container removed (@run->created
	 * false), or left to whoever removes it (still created: the runner
	 * kills what is left of the job). */
	int (*remove)(struct job_source *s, struct job_run *run, struct brig_error *err);
	/* Whatever the source still holds, the container too if it is left
	 * (the runner has killed the job first); then the source is freed. */
	void (*release)(struct job_source *s, struct job_run *run);
	/* It makes a container: what dead brigs' jobs left is removed first. */
	bool fresh;
};

struct job_source {
	const struct job_source_ops *ops;
};

/* ---------------------------------------------------------- the sources */

/* cold.c: a container created for the job.  @member (a pool's, made
 * ahead: member.c) waits for its job with no stdio, on the hand-off
 * socket @handoff, its cgroup under @cgroup_parents; @refill (or -1) is
 * a pool miss's replacement follower, held until brig exits. */
struct job_cold_opts {
	bool member;
	int *handoff;
	const char *cgroup_parents;
	int refill;
};
struct job_source *job_cold_new(const struct job_cold_opts *co);
/* The cold source's start without the runner (member.c). */
int job_cold_start(struct job_source *s, struct job_run *run, struct brig_error *err);

/* restored.c: --from-checkpoint. */
struct job_source *job_restored_new(void);

/*
 * claimed.c: --pool.  A member claimed (1, *@src the claim, @run->id
 * the member's), or none ready (0, *@src a cold source whose replacement
 * follower runs already); "hit" or "miss" in @run->res.pool.
 */
int job_pool_source(struct job_run *run, struct job_source **src, struct brig_error *err);

/* ---------------------------------------------------------- common.c */

/* brig's signals (SIGINT, SIGTERM, SIGHUP): caught from here on, each
 * also a byte on job_signal_fd(); the one brig got is brig_job_signalled(). */
int job_catch_signals(struct brig_error *err);
int job_signal_fd(void);
/* Before the job runs: a signal ends brig ("the job was not started"). */
int job_stopped(struct brig_error *err);
/* "job-" and 16 hex digits, random (heap). */
char *job_new_id(void);
/* Everything that can be checked of @o before anything exists. */
int job_check_opts(const struct brig_job_opts *o, bool member, struct brig_error *err);
/* --bundle's config into @base and its rootfs into *@rootfs (heap), or
 * --rootfs's, absolute. */
int job_load_base(const struct brig_job_opts *o, struct brig_bundle *base, char **rootfs,
                  struct brig_error *err);
/* Whether @o's profile is the job's own, whose denials notify brig
 * (denials.c): the default. */
bool job_counts_denials(const struct brig_job_opts *o);
/* The rootfs of @o (--rootfs, or --bundle's) opened as @r's lower
 * directory, for the change set of a job whose root brig did not mount
 * (a pool's member). */
int job_open_lower(const struct brig_job_opts *o, struct brig_job_root *r, struct brig_error *err);
/* Paths, sorted (heap). */
struct job_paths {
	char **v;
	size_t n;
};
void job_paths_free(struct job_paths *p);
/* --export-path's paths as the walks say them ("a/b"), sorted, none below
 * another; none at all for "/" (everything). */
void job_export_paths(const struct brig_job_opts *o, struct job_paths *out);
/* The destinations of the job's container's mounts (its config.json in
 * the state root), as the change set leaves them out: without the
 * leading '/'. */
int job_mount_points(const struct job_run *run, struct job_paths *out, struct brig_error *err);
/* --export's directory, made if it is not there. */
int job_make_export_dir(const struct brig_job_opts *o, struct brig_error *err);
/* Whether this kernel gives brig user namespaces. */
bool job_userns_available(void);
/* The result's warning for a job without a user namespace of its own. */
void job_warn_no_userns(struct job_run *run);
/* @path created (truncated) for brig's writes; @flag names it in errors. */
int job_open_output(const char *flag, const char *path, int *fd, struct brig_error *err);
/* job_staged: @path's directory and an unnamed file there; published, it
 * replaces @path whole; released unpublished, nothing is left. */
int job_staged_open(struct job_staged *s, const char *flag, const char *path,
                    struct brig_error *err);
int job_staged_publish(struct job_staged *s, const char *flag, const char *path,
                       struct brig_error *err);
void job_staged_release(struct job_staged *s);
/* The job's stdio: its stdin, pipes for its stdout and stderr, and where
 * brig copies them (--stdout, --stderr, --result -). */
int job_stdio_open(struct job_stdio *io, const struct brig_job_opts *o, struct brig_error *err);
/* A pool member's: /dev/null three times. */
int job_stdio_null(struct job_stdio *io, struct brig_error *err);
/* The init's ends, once it has them. */
void job_stdio_close_init(struct job_stdio *io);
/* How the job's pid 1 ended (@run->pidfd, a child of brig's). */
void job_reap_child(struct job_run *run);
/* A container of brig's making (cold, restored): its figures, its
 * removal (@run->created false after), and its removal at release when
 * it is still there, whatever fails. */
int job_container_figures(struct job_run *run, struct brig_error *err);
int job_container_remove(struct job_run *run, struct brig_error *err);
void job_container_drop(struct job_run *run);
/* Everything of @run's but what its source holds: the root (unmounted,
 * removed, unlocked), the stdio, the strings. */
void job_run_release(struct job_run *run);

#endif
