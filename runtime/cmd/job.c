/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

#include <stdlib.h>
#include <string.h>

#include "job/job.h"
#include "util/units.h"
#include "util/error.h"

enum {
	OPT_ROOTFS,
	OPT_BUNDLE,
	OPT_TIMEOUT,
	OPT_CPU_TIME,
	OPT_MEMORY,
	OPT_PIDS,
	OPT_CPUS,
	OPT_WRITABLE,
	OPT_TMPFS,
	OPT_MOUNT,
	OPT_COPY_IN,
	OPT_EXPORT,
	OPT_ENV,
	OPT_CWD,
	OPT_USER,
	OPT_NETWORK,
	OPT_OUTPUT_LIMIT,
	OPT_STDOUT,
	OPT_STDERR,
	OPT_STDIN,
	OPT_RESULT,
	OPT_ID,
	OPT_SECCOMP,
	OPT_KEEP_CAPS,
	OPT_GC,
};

static const struct brig_option options[] = {
	[OPT_ROOTFS] = { "rootfs", 0, BRIG_OPT_STRING, "DIR",
	                 "the job's root: a directory, used read-only as the lower layer", NULL },
	[OPT_BUNDLE] = { "bundle", 'b', BRIG_OPT_STRING, "DIR",
	                 "an OCI bundle: its rootfs, and its process as the base, hardened", NULL },
	[OPT_TIMEOUT] = { "timeout", 0, BRIG_OPT_STRING, "DURATION",
	                  "wall-clock limit (500ms, 2s, 1m; 0: none)", "60s" },
	[OPT_CPU_TIME] = { "cpu-time", 0, BRIG_OPT_STRING, "DURATION",
	                   "CPU time limit of each process (RLIMIT_CPU)", "none" },
	[OPT_MEMORY] = { "memory", 0, BRIG_OPT_STRING, "SIZE", "memory limit, swap off (0: none)",
	                 "512M" },
	[OPT_PIDS] = { "pids", 0, BRIG_OPT_STRING, "N", "limit of processes and threads (0: none)",
	               "256" },
	[OPT_CPUS] = { "cpus", 0, BRIG_OPT_STRING, "FLOAT", "CPU bandwidth in CPUs", "unlimited" },
	[OPT_WRITABLE] = { "writable", 0, BRIG_OPT_STRING, "SIZE",
	                   "size of the tmpfs that takes every write to the rootfs", "64M" },
	[OPT_TMPFS] = { "tmpfs", 0, BRIG_OPT_LIST, "PATH[:SIZE]", "mount a tmpfs (size: 64M)",
	                NULL },
	[OPT_MOUNT] = { "mount", 0, BRIG_OPT_LIST, "SRC:DST[:ro|rw]",
	                "bind a host path into the job (ro unless :rw)", NULL },
	[OPT_COPY_IN] = { "copy-in", 0, BRIG_OPT_LIST, "HOSTPATH:PATH",
	                  "copy a host file or tree into the writable layer before the job", NULL },
	[OPT_EXPORT] = { "export", 0, BRIG_OPT_STRING, "DIR",
	                 "after the job, copy the files it wrote to DIR", NULL },
	[OPT_ENV] = { "env", 'e', BRIG_OPT_LIST, "KEY=VALUE",
	              "set an environment variable (the environment is PATH and HOME only)", NULL },
	[OPT_CWD] = { "cwd", 0, BRIG_OPT_STRING, "DIR", "the job's working directory", "/" },
	[OPT_USER] = { "user", 'u', BRIG_OPT_STRING, "UID[:GID]", "the job's user in its namespace",
	               "0:0" },
	[OPT_NETWORK] = { "network", 0, BRIG_OPT_STRING, "MODE",
	                  "none, loopback (a network namespace with lo up) or host", "loopback" },
	[OPT_OUTPUT_LIMIT] = { "output-limit", 0, BRIG_OPT_STRING, "SIZE",
	                       "bytes kept of each of stdout and stderr (head and tail)", "1M" },
	[OPT_STDOUT] = { "stdout", 0, BRIG_OPT_STRING, "FILE", "the job's stdout to FILE",
	                 "brig's stdout" },
	[OPT_STDERR] = { "stderr", 0, BRIG_OPT_STRING, "FILE", "the job's stderr to FILE",
	                 "brig's stderr" },
	[OPT_STDIN] = { "stdin", 0, BRIG_OPT_STRING, "FILE|-", "the job's stdin ('-': brig's)",
	                "/dev/null" },
	[OPT_RESULT] = { "result", 0, BRIG_OPT_STRING, "FILE|-",
	                 "write the result JSON to FILE ('-': stdout, the job's stdout then goes "
	                 "to "
	                 "stderr)",
	                 NULL },
	[OPT_ID] = { "id", 0, BRIG_OPT_STRING, "ID", "the job's container id", "job-<random>" },
	[OPT_SECCOMP] = { "seccomp", 0, BRIG_OPT_STRING, "FILE|default|unconfined",
	                  "the seccomp profile", "default" },
	[OPT_KEEP_CAPS] = { "keep-caps", 0, BRIG_OPT_LIST, "CAP,...",
	                    "capabilities the job keeps (none by default)", NULL },
	[OPT_GC] = { "gc", 0, BRIG_OPT_BOOL, NULL,
	             "remove what jobs whose brig is gone left, and run no job", NULL },
};

/* The pieces of a repeated flag, kept until the job has run. */
struct job_args {
	struct brig_job_tmpfs *tmpfs;
	struct brig_job_bind *binds;
	struct brig_job_copy *copies;
	char **caps;
	size_t n_caps;
	char **parts; /* strdup'd pieces the above point into */
	size_t n_parts;
};

static char *keep(struct job_args *ja, const char *s, size_t len)
{
	char *p = strndup(s, len);

	if (!p)
		brig_oom();
	ja->parts = realloc(ja->parts, (ja->n_parts + 1) * sizeof(*ja->parts));
	if (!ja->parts)
		brig_oom();
	ja->parts[ja->n_parts++] = p;
	return p;
}

static void job_args_release(struct job_args *ja)
{
	for (size_t i = 0; i < ja->n_parts; i++)
		free(ja->parts[i]);
	free(ja->parts);
	free(ja->tmpfs);
	free(ja->binds);
	free(ja->copies);
	free(ja->caps);
}

static int duration(const struct brig_optval *v, const char *flag, uint64_t def, uint64_t *out,
                    struct brig_error *err)
{
	*out = def;
	if (v->set && brig_parse_duration_ms(v->str, out) < 0)
		return brig_error_usage(err, "--%s \"%s\": expected a duration (500ms, 2s, 1m)",
		                        flag, v->str);
	return 0;
}

static int size(const struct brig_optval *v, const char *flag, uint64_t def, uint64_t *out,
                struct brig_error *err)
{
	*out = def;
	if (v->set && brig_parse_size(v->str, out) < 0)
		return brig_error_usage(err, "--%s \"%s\": expected a size (64K, 512M, 1G)", flag,
		                        v->str);
	return 0;
}

static int count(const struct brig_optval *v, const char *flag, uint64_t def, uint64_t *out,
                 struct brig_error *err)
{
	char *end;

	*out = def;
	if (!v->set)
		return 0;
	if (v->str[0] < '0' || v->str[0] > '9')
		return brig_error_usage(err, "--%s \"%s\": expected a number", flag, v->str);
	*out = strtoull(v->str, &end, 10);
	if (*end)
		return brig_error_usage(err, "--%s \"%s\": expected a number", flag, v->str);
	return 0;
}

/* --tmpfs PATH[:SIZE] */
static int parse_tmpfs(struct job_args *ja, const struct brig_optval *v, struct brig_job_opts *o,
                       struct brig_error *err)
{
	ja->tmpfs = brig_xcalloc(v->n ? v->n : 1, sizeof(*ja->tmpfs));
	for (size_t i = 0; i < v->n; i++) {
		const char *colon = strchr(v->list[i], ':');

		ja->tmpfs[i].path =
		    keep(ja, v->list[i], colon ? (size_t)(colon - v->list[i]) : strlen(v->list[i]));
		ja->tmpfs[i].size = 64u << 20;
		if (colon && brig_parse_size(colon + 1, &ja->tmpfs[i].size) < 0)
			return brig_error_usage(err, "--tmpfs \"%s\": expected PATH[:SIZE]",
			                        v->list[i]);
	}
	o->tmpfs = ja->tmpfs;
	o->n_tmpfs = v->n;
	return 0;
}

/* --mount SRC:DST[:ro|rw] */
static int parse_mounts(struct job_args *ja, const struct brig_optval *v, struct brig_job_opts *o,
                        struct brig_error *err)
{
	ja->binds = brig_xcalloc(v->n ? v->n : 1, sizeof(*ja->binds));
	for (size_t i = 0; i < v->n; i++) {
		const char *s = v->list[i], *c1 = strchr(s, ':'),
		           *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		struct brig_job_bind *b = &ja->binds[i];

		if (!c1 || c1 == s || !c1[1] ||
		    (c2 && strcmp(c2 + 1, "ro") && strcmp(c2 + 1, "rw")))
			return brig_error_usage(err, "--mount \"%s\": expected SRC:DST[:ro|rw]", s);
		b->source = keep(ja, s, (size_t)(c1 - s));
		b->destination = keep(ja, c1 + 1, c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1));
		b->rw = c2 && !strcmp(c2 + 1, "rw");
	}
	o->binds = ja->binds;
	o->n_binds = v->n;
	return 0;
}

/* --copy-in HOSTPATH:PATH (the last ':' splits: a host path may hold one) */
static int parse_copies(struct job_args *ja, const struct brig_optval *v, struct brig_job_opts *o,
                        struct brig_error *err)
{
	ja->copies = brig_xcalloc(v->n ? v->n : 1, sizeof(*ja->copies));
	for (size_t i = 0; i < v->n; i++) {
		const char *s = v->list[i], *c = strrchr(s, ':');

		if (!c || c == s || !c[1])
			return brig_error_usage(err, "--copy-in \"%s\": expected HOSTPATH:PATH", s);
		ja->copies[i].host = keep(ja, s, (size_t)(c - s));
		ja->copies[i].path = keep(ja, c + 1, strlen(c + 1));
	}
	o->copy_in = ja->copies;
	o->n_copy_in = v->n;
	return 0;
}

/* --keep-caps A,B --keep-caps C */
static void parse_caps(struct job_args *ja, const struct brig_optval *v, struct brig_job_opts *o)
{
	for (size_t i = 0; i < v->n; i++)
		for (const char *s = v->list[i]; *s;) {
			size_t len = strcspn(s, ",");

			if (len) {
				ja->caps = realloc(ja->caps, (ja->n_caps + 1) * sizeof(*ja->caps));
				if (!ja->caps)
					brig_oom();
				ja->caps[ja->n_caps++] = keep(ja, s, len);
			}
			s += len + (s[len] == ',');
		}
	o->keep_caps = (const char *const *)ja->caps;
	o->n_keep_caps = ja->n_caps;
}

static int parse_user(const char *s, struct brig_job_opts *o, struct brig_error *err)
{
	char *end;
	unsigned long uid, gid;

	if (s[0] < '0' || s[0] > '9')
		return brig_error_usage(err, "--user \"%s\": expected UID[:GID]", s);
	uid = strtoul(s, &end, 10);
	gid = uid;
	if (*end == ':' && end[1] >= '0' && end[1] <= '9')
		gid = strtoul(end + 1, &end, 10);
	if (*end || uid > UINT32_MAX || gid > UINT32_MAX)
		return brig_error_usage(err, "--user \"%s\": expected UID[:GID]", s);
	o->has_user = true;
	o->uid = (uid_t)uid;
	o->gid = (gid_t)gid;
	return 0;
}

static int parse_network(const char *s, enum brig_job_network *out, struct brig_error *err)
{
	if (!strcmp(s, "loopback"))
		*out = BRIG_JOB_NET_LOOPBACK;
	else if (!strcmp(s, "none"))
		*out = BRIG_JOB_NET_NONE;
	else if (!strcmp(s, "host"))
		*out = BRIG_JOB_NET_HOST;
	else
		return brig_error_usage(err, "--network \"%s\": expected none, loopback or host",
		                        s);
	return 0;
}

static int parse(struct brig_args *a, struct job_args *ja, struct brig_job_opts *o,
                 struct brig_error *err)
{
	const struct brig_optval *v = a->vals;

	o->rootfs = v[OPT_ROOTFS].str;
	o->bundle = v[OPT_BUNDLE].str;
	o->argv = a->pos;
	o->argc = (size_t)a->n_pos;
	o->export_dir = v[OPT_EXPORT].str;
	o->env = v[OPT_ENV].list;
	o->n_env = v[OPT_ENV].n;
	o->cwd = v[OPT_CWD].str;
	o->stdout_path = v[OPT_STDOUT].str;
	o->stderr_path = v[OPT_STDERR].str;
	o->stdin_path = v[OPT_STDIN].str;
	o->result_path = v[OPT_RESULT].str;
	o->id = v[OPT_ID].str;
	o->seccomp = v[OPT_SECCOMP].str;
	if (duration(&v[OPT_TIMEOUT], "timeout", 60000, &o->timeout_ms, err) < 0 ||
	    duration(&v[OPT_CPU_TIME], "cpu-time", 0, &o->cpu_time_ms, err) < 0 ||
	    size(&v[OPT_MEMORY], "memory", 512u << 20, &o->memory, err) < 0 ||
	    count(&v[OPT_PIDS], "pids", 256, &o->pids, err) < 0 ||
	    size(&v[OPT_WRITABLE], "writable", 64u << 20, &o->writable, err) < 0 ||
	    size(&v[OPT_OUTPUT_LIMIT], "output-limit", 1u << 20, &o->output_limit, err) < 0)
		return -1;
	if (v[OPT_CPUS].set && (brig_parse_decimal(v[OPT_CPUS].str, &o->cpus) < 0 || o->cpus <= 0))
		return brig_error_usage(err, "--cpus \"%s\": expected a positive number",
		                        v[OPT_CPUS].str);
	if (o->writable < 4096)
		return brig_error_usage(err, "--writable: at least 4K");
	if (v[OPT_USER].set && parse_user(v[OPT_USER].str, o, err) < 0)
		return -1;
	if (v[OPT_NETWORK].set && parse_network(v[OPT_NETWORK].str, &o->network, err) < 0)
		return -1;
	if (o->seccomp && !*o->seccomp)
		return brig_error_usage(err, "--seccomp: expected FILE, default or unconfined");
	if (parse_tmpfs(ja, &v[OPT_TMPFS], o, err) < 0 ||
	    parse_mounts(ja, &v[OPT_MOUNT], o, err) < 0 ||
	    parse_copies(ja, &v[OPT_COPY_IN], o, err) < 0)
		return -1;
	parse_caps(ja, &v[OPT_KEEP_CAPS], o);
	return 0;
}

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	struct brig_job_opts o = { 0 };
	struct job_args ja = { 0 };
	int r;

	if (a->vals[OPT_GC].b) {
		if (a->n_pos)
			return brig_error_usage(err, "--gc takes no command");
		return brig_job_gc(&cli->ctx, err);
	}
	r = parse(a, &ja, &o, err);
	if (r == 0)
		r = brig_job_run(&cli->ctx, &o, &cli->exit_status, err);
	job_args_release(&ja);
	return r;
}

const struct brig_command brig_cmd_job = {
	.name = "job",
	.args_usage = "[--] <command> [<arg>...]",
	.summary = "run an untrusted command in a hardened, single-use sandbox",
	.description =
	    "   Run COMMAND once in a sandbox made for it and removed after it: a user\n"
	    "   namespace whose root is an unprivileged host id range of its own, no\n"
	    "   capabilities, no_new_privs, the default seccomp profile with more\n"
	    "   denials, new pid, ipc, uts, mount, cgroup and network namespaces,\n"
	    "   masked /proc and /sys paths, and pids, memory and CPU limits in a cgroup\n"
	    "   of its own. The rootfs is read-only under an overlay whose upper layer\n"
	    "   is a tmpfs of --writable bytes: every write lands there and is gone\n"
	    "   afterwards (--export copies it out). stdout and stderr stream through\n"
	    "   brig, capped at --output-limit each: past it brig keeps the first and\n"
	    "   the last half and writes \"[brig: N bytes dropped]\" where it cut.\n"
	    "\n"
	    "   At --timeout, or when brig gets SIGINT, SIGTERM or SIGHUP, every process\n"
	    "   of the job dies at once; if brig itself is killed, so is the job, and\n"
	    "   the next job (or --gc) removes what is left.\n"
	    "\n"
	    "   --result writes one JSON object: id, exit_code (or null), signal (\"SIGKILL\"\n"
	    "   or null), reason (exited, signaled, timeout, oom or error), error (or null),\n"
	    "   wall_ms, cpu_user_ms, cpu_system_ms, memory_peak_bytes, pids_peak (null\n"
	    "   where the kernel keeps no peak), stdout_bytes, stderr_bytes,\n"
	    "   stdout_dropped_bytes, stderr_dropped_bytes, writable_used_bytes,\n"
	    "   timed_out and oom_killed.\n"
	    "\n"
	    "   Exit status: the job's, 128+N when it was killed by signal N, 124 at\n"
	    "   the timeout, 125 when brig could not run it (one line on stderr).\n"
	    "\n"
	    "   Host ids: a job's ids 0-65535 are a range of the host's that no other\n"
	    "   running job has: from the \"brig\" entries of /etc/subuid and /etc/subgid\n"
	    "   when both exist with the same start, else from 1073741824 (1024 ranges).",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_STOP,
	.min_args = 0,
	.max_args = -1,
	.run = run,
	.error_status = 125,
};
