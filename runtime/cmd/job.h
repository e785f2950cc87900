/* SPDX-License-Identifier: Apache-2.0 */
/*
 * brig job's flags, shared with brig pool (cmd/job.c, cmd/pool.c): those
 * that shape a sandbox (a pool's are fixed at pool create) and those of
 * one run.  Both commands' tables hold them; the parser finds each by
 * name, whatever table it is in.
 */
#ifndef BRIG_CMD_JOB_H
#define BRIG_CMD_JOB_H

#include <stddef.h>

#include "cmd/options.h"
#include "job/job.h"

struct brig_error;

/* clang-format off */
#define BRIG_JOB_SANDBOX_OPTIONS \
	{ "rootfs", 0, BRIG_OPT_STRING, "DIR", "the job's root: a directory, used read-only as the lower layer", NULL }, \
	{ "bundle", 'b', BRIG_OPT_STRING, "DIR", "an OCI bundle: its rootfs, and its process as the base, hardened", NULL }, \
	{ "cpu-time", 0, BRIG_OPT_STRING, "DURATION", "CPU time limit of each process (RLIMIT_CPU)", "none" }, \
	{ "memory", 0, BRIG_OPT_STRING, "SIZE", "memory limit, swap off (0: none)", "512M" }, \
	{ "pids", 0, BRIG_OPT_STRING, "N", "limit of processes and threads (0: none)", "256" }, \
	{ "cpus", 0, BRIG_OPT_STRING, "FLOAT", "CPU bandwidth in CPUs (0: no bound)", "1" }, \
	{ "writable", 0, BRIG_OPT_STRING, "SIZE", "size of the tmpfs that takes every write to the rootfs", "64M" }, \
	{ "tmpfs", 0, BRIG_OPT_LIST, "PATH[:SIZE]", "mount a tmpfs (size: 64M)", NULL }, \
	{ "mount", 0, BRIG_OPT_LIST, "SRC:DST[:ro|rw]", "bind a host path into the job (ro unless :rw)", NULL }, \
	{ "network", 0, BRIG_OPT_STRING, "MODE", "none, loopback (a network namespace with lo up), egress (a link to what --allow names) or host", "loopback" }, \
	{ "user", 'u', BRIG_OPT_STRING, "UID[:GID]", "the job's user in its namespace", "0:0" }, \
	{ "seccomp", 0, BRIG_OPT_STRING, "FILE|default|unconfined", "the seccomp profile", "default" }, \
	{ "no-userns", 0, BRIG_OPT_BOOL, NULL, "no user namespace: the job's root is the host's root (with no capabilities but --keep-caps's); the result says so", NULL }, \
	{ "keep-caps", 0, BRIG_OPT_LIST, "CAP,...", "capabilities the job keeps (none by default)", NULL }

#define BRIG_JOB_RUN_OPTIONS \
	{ "timeout", 0, BRIG_OPT_STRING, "DURATION", "wall-clock limit (500ms, 2s, 1m; 0: none)", "60s" }, \
	{ "copy-in", 0, BRIG_OPT_LIST, "HOSTPATH:PATH", "copy a host file or tree into the writable layer before the job", NULL }, \
	{ "export", 0, BRIG_OPT_STRING, "DIR", "after the job, copy the files it wrote to DIR", NULL }, \
	{ "export-limit", 0, BRIG_OPT_STRING, "SIZE", "bytes each of --export, --export-tar and --changes may write (an --export entry counts 256 besides its data; 0: none); past it nothing is written", "twice the --writable size: a full layer and what each format adds to it" }, \
	{ "export-path", 0, BRIG_OPT_LIST, "PATH", "--export, --export-tar and --changes take only what is at or below PATH (absolute; repeatable)", NULL }, \
	{ "changes", 0, BRIG_OPT_STRING, "FILE|-", "after the job, write what it created, modified and deleted to FILE, one JSON object a line ('-': as the result's \"changes\")", NULL }, \
	{ "audit", 0, BRIG_OPT_STRING, "FILE", "write one JSON line to FILE for each system call the job's filter refused and brig counted (time, pid, call, arguments)", NULL }, \
	{ "audit-limit", 0, BRIG_OPT_STRING, "N", "lines --audit writes at most", "1000" }, \
	{ "export-tar", 0, BRIG_OPT_STRING, "FILE", "after the job, write its changes to FILE as an OCI image layer (a tar, deletions as whiteouts)", NULL }, \
	{ "env", 'e', BRIG_OPT_LIST, "KEY=VALUE", "set an environment variable (the environment is PATH and HOME only)", NULL }, \
	{ "cwd", 0, BRIG_OPT_STRING, "DIR", "the job's working directory", "/" }, \
	{ "output-limit", 0, BRIG_OPT_STRING, "SIZE", "bytes kept of each of stdout and stderr (head and tail)", "1M" }, \
	{ "stdout", 0, BRIG_OPT_STRING, "FILE", "the job's stdout to FILE", "brig's stdout" }, \
	{ "stderr", 0, BRIG_OPT_STRING, "FILE", "the job's stderr to FILE", "brig's stderr" }, \
	{ "stdin", 0, BRIG_OPT_STRING, "FILE|-", "the job's stdin ('-': brig's)", "/dev/null" }, \
	{ "result", 0, BRIG_OPT_STRING, "FILE|-", "write the result JSON to FILE ('-': stdout, the job's stdout then goes to stderr)", NULL }, \
	{ "allow", 0, BRIG_OPT_LIST, "RULE", "with --network egress: NAME, *.NAME (the names below it), ADDRESS or CIDR, each with an optional :PORT, that the job may reach", NULL }
/* clang-format on */

/* The pieces of repeated flags, kept until the job has run. */
struct brig_job_args {
	struct brig_job_tmpfs *tmpfs;
	struct brig_job_bind *binds;
	struct brig_job_copy *copies;
	char **caps;
	size_t n_caps;
	char **parts; /* strdup'd pieces the above point into */
	size_t n_parts;
};

/* @a (parsed against @table) into @o: every flag of the two sets that
 * @table has, the defaults for the others. */
int brig_cmd_job_parse(const struct brig_option *table, size_t n_table, struct brig_args *a,
                       struct brig_job_args *ja, struct brig_job_opts *o, struct brig_error *err);
void brig_job_args_release(struct brig_job_args *ja);

/* The value of flag @name of @table in @a (one that is never set when the
 * table has no such flag). */
const struct brig_optval *brig_cmd_opt(const struct brig_option *table, size_t n_table,
                                       const struct brig_args *a, const char *name);

/* A pool's sandbox flags (kept at pool create), parsed against @table. */
struct brig_cmd_pool_args {
	struct brig_args a;
	char *text;  /* the flags, each NUL-terminated */
	char **argv; /* into text */
};
struct brig_context;
int brig_cmd_pool_options(const struct brig_context *ctx, const char *name,
                          const struct brig_option *table, size_t n_table,
                          struct brig_cmd_pool_args *pa, struct brig_error *err);
void brig_cmd_pool_options_release(struct brig_cmd_pool_args *pa);

#endif
