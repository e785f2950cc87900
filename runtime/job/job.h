/* SPDX-License-Identifier: Apache-2.0 */
/*
 * brig job: one call runs an untrusted command in a complete, hardened,
 * single-use sandbox and reports what happened (docs/brig-job.8 has the
 * whole contract).  Built on the lifecycle: the job is a container in the
 * state root, created from a config that job/config.c writes, run in the
 * foreground with its stdio on pipes, and deleted at the end.
 */
#ifndef BRIG_JOB_H
#define BRIG_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct brig_context;
struct brig_error;

enum brig_job_network {
	BRIG_JOB_NET_LOOPBACK, /* a network namespace with lo up */
	BRIG_JOB_NET_NONE,     /* a network namespace, lo down */
	BRIG_JOB_NET_HOST,     /* brig's own */
	BRIG_JOB_NET_EGRESS,   /* its own, with a link to what @allow names (egress.h) */
};

struct brig_job_bind {
	const char *source, *destination;
	bool rw;
};

struct brig_job_tmpfs {
	const char *path;
	uint64_t size; /* bytes */
};

struct brig_job_copy {
	const char *host, *path;
};

struct brig_job_opts {
	const char *id;              /* NULL: generated */
	const char *rootfs, *bundle; /* one of them */
	char *const *argv;           /* the command; NULL with a bundle: its process.args */
	size_t argc;
	uint64_t timeout_ms;  /* wall clock; 0: none */
	uint64_t cpu_time_ms; /* RLIMIT_CPU; 0: none */
	uint64_t memory;      /* bytes; 0: none */
	uint64_t pids;        /* 0: none */
	double cpus;          /* 0: unlimited */
	uint64_t writable;    /* the size of the upper layer's tmpfs */
	const struct brig_job_tmpfs *tmpfs;
	size_t n_tmpfs;
	const struct brig_job_bind *binds;
	size_t n_binds;
	const struct brig_job_copy *copy_in;
	size_t n_copy_in;
	const char *export_dir;
	const char *changes_path;        /* --changes: a file, or "-": in the result */
	const char *export_tar;          /* --export-tar: a file */
	uint64_t export_limit;           /* bytes each of them writes at most (0: none) */
	const char *const *export_paths; /* --export-path: all three take only these */
	size_t n_export_paths;
	const char *audit_path; /* --audit: a line per refused call */
	uint64_t audit_limit;   /* lines at most */
	const char *const *env; /* "K=V" */
	size_t n_env;
	const char *cwd;
	bool has_user;
	uid_t uid;
	gid_t gid;
	enum brig_job_network network;
	const char *const *allow; /* --allow: with BRIG_JOB_NET_EGRESS */
	size_t n_allow;
	uint64_t output_limit;                 /* per stream */
	const char *stdout_path, *stderr_path; /* NULL: brig's own */
	const char *stdin_path;                /* NULL: /dev/null; "-": brig's */
	const char *result_path;               /* NULL: none; "-": stdout */
	const char *seccomp;                   /* NULL or "default", "unconfined", a file */
	const char *const *keep_caps;          /* "CAP_NET_RAW" or "NET_RAW" */
	size_t n_keep_caps;
	const char *pool; /* run in a member of this pool (a cold job if none is ready) */
	bool no_userns;   /* no user namespace: the job's root is the host's */
	/* restore the job from this image of a container of @bundle
	 * (brig checkpoint) instead of running a command */
	const char *from_checkpoint;
};

/*
 * Run the job.  *@status is brig's exit status: the job's exit code, 128+N
 * for signal N, 124 for a timeout.  -1 with @err (status 125) when the job
 * could not be run; nothing is left behind either way.
 */
int brig_job_run(const struct brig_context *ctx, const struct brig_job_opts *o, int *status,
                 struct brig_error *err);

/* Remove every job whose brig is gone: its container, cgroup, state; and
 * once the egress links and tables that ended jobs' brigs left to a child
 * to remove are gone (a second at most), what dead brigs left of them. */
int brig_job_gc(const struct brig_context *ctx, struct brig_error *err);

/*
 * Warm pools (job/pool.c): @size sandboxes made ahead with @o's shaping
 * options (its rootfs or bundle, limits, mounts, network, user, seccomp,
 * capabilities), each an init that waits for one job; `brig job --pool`
 * claims one.  @flags are those options as given, kept for the members
 * made later (fill) and for list.  Every member's cgroup, whoever fills
 * the pool, is made under the cgroup recorded now: @cgroup_parent
 * (absolute: that cgroup in every hierarchy; relative: below the
 * caller's), or with NULL the caller's own (where a job's would go).
 */
int brig_pool_create(const struct brig_context *ctx, const char *name, unsigned long size,
                     const struct brig_job_opts *o, const char *const *flags, size_t n_flags,
                     const char *cgroup_parent, struct brig_error *err);
/* Make members until the ready and the ones being made reach the size;
 * with @queue, nothing when a fill runs and another waits behind it. */
int brig_pool_fill(const struct brig_context *ctx, const char *name, const struct brig_job_opts *o,
                   bool queue, struct brig_error *err);
/* `brig pool follow NAME [ID]`, spawned by a claim (job/pool.c): the
 * claimer's pipe, the claim's lock and the member's mount namespace are
 * fds 3, 4 and 5.  Returns once ID is destroyed, or not at all (it
 * becomes `brig pool fill`). */
int brig_pool_follower(const struct brig_context *ctx, const char *name, const char *id);
/* Every member, waiting or running, and the pool, gone. */
int brig_pool_destroy(const struct brig_context *ctx, const char *name, struct brig_error *err);
/* Members whose init died, half-made ones, abandoned claims, half-made pools. */
int brig_pool_gc(const struct brig_context *ctx, struct brig_error *err);
/* A pool name is a path component, as a container id is. */
int brig_pool_check_name(const char *name, struct brig_error *err);

struct brig_pool_info {
	char *name;
	unsigned long size;
	size_t ready, creating;
	char *options; /* the shaping flags, each NUL-terminated */
	size_t options_len;
};
int brig_pool_list(const struct brig_context *ctx, struct brig_pool_info **out, size_t *n,
                   struct brig_error *err);
void brig_pool_info_free(struct brig_pool_info *p, size_t n);
/* The shaping flags pool @name was made with (each NUL-terminated). */
int brig_pool_options(const struct brig_context *ctx, const char *name, char **text, size_t *len,
                      struct brig_error *err);

#endif
