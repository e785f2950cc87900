/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The flags brig job and brig pool share (cmd/job.h): parsed into a
 * job's options, and a pool's, kept at pool create, read back for a
 * claim.  cmd/job.c and cmd/pool.c use it.
 */
#include "config.h"
#include "cmd/job.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/units.h"

static char *keep(struct brig_job_args *ja, const char *s, size_t len)
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

void brig_job_args_release(struct brig_job_args *ja)
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
static int parse_tmpfs(struct brig_job_args *ja, const struct brig_optval *v,
                       struct brig_job_opts *o, struct brig_error *err)
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
static int parse_mounts(struct brig_job_args *ja, const struct brig_optval *v,
                        struct brig_job_opts *o, struct brig_error *err)
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
static int parse_copies(struct brig_job_args *ja, const struct brig_optval *v,
                        struct brig_job_opts *o, struct brig_error *err)
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
static void parse_caps(struct brig_job_args *ja, const struct brig_optval *v,
                       struct brig_job_opts *o)
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
	else if (!strcmp(s, "egress"))
		*out = BRIG_JOB_NET_EGRESS;
	else
		return brig_error_usage(
		    err, "--network \"%s\": expected none, loopback, egress or host", s);
	return 0;
}

static const struct brig_optval unset;

const struct brig_optval *brig_cmd_opt(const struct brig_option *table, size_t n_table,
                                       const struct brig_args *a, const char *name)
{
	for (size_t i = 0; i < n_table; i++)
		if (!strcmp(table[i].name, name))
			return &a->vals[i];
	return &unset;
}

int brig_cmd_job_parse(const struct brig_option *table, size_t n_table, struct brig_args *a,
                       struct brig_job_args *ja, struct brig_job_opts *o, struct brig_error *err)
{
#define V(name) brig_cmd_opt(table, n_table, a, name)
	o->rootfs = V("rootfs")->str;
	o->bundle = V("bundle")->str;
	o->argv = a->pos;
	o->argc = (size_t)a->n_pos;
	o->export_dir = V("export")->str;
	o->changes_path = V("changes")->str;
	o->export_tar = V("export-tar")->str;
	o->audit_path = V("audit")->str;
	o->export_paths = V("export-path")->list;
	o->n_export_paths = V("export-path")->n;
	o->env = V("env")->list;
	o->n_env = V("env")->n;
	o->cwd = V("cwd")->str;
	o->stdout_path = V("stdout")->str;
	o->stderr_path = V("stderr")->str;
	o->stdin_path = V("stdin")->str;
	o->result_path = V("result")->str;
	o->id = V("id")->str;
	o->pool = V("pool")->str;
	o->seccomp = V("seccomp")->str;
	o->no_userns = V("no-userns")->b;
	o->from_checkpoint = V("from-checkpoint")->str;
	o->allow = V("allow")->list;
	o->n_allow = V("allow")->n;
	if (duration(V("timeout"), "timeout", 60000, &o->timeout_ms, err) < 0 ||
	    duration(V("cpu-time"), "cpu-time", 0, &o->cpu_time_ms, err) < 0 ||
	    size(V("memory"), "memory", 512u << 20, &o->memory, err) < 0 ||
	    count(V("pids"), "pids", 256, &o->pids, err) < 0 ||
	    size(V("writable"), "writable", 64u << 20, &o->writable, err) < 0 ||
	    size(V("output-limit"), "output-limit", 1u << 20, &o->output_limit, err) < 0 ||
	    size(V("export-limit"), "export-limit", 2 * o->writable, &o->export_limit, err) < 0 ||
	    count(V("audit-limit"), "audit-limit", 1000, &o->audit_limit, err) < 0)
		return -1;
	/* a node running untrusted jobs is not starved by default: one CPU */
	o->cpus = 1;
	if (V("cpus")->set && (brig_parse_decimal(V("cpus")->str, &o->cpus) < 0 || o->cpus < 0))
		return brig_error_usage(
		    err, "--cpus \"%s\": expected a number of CPUs (0: no bound)", V("cpus")->str);
	if (o->writable < 4096)
		return brig_error_usage(err, "--writable: at least 4K");
	if (V("user")->set && parse_user(V("user")->str, o, err) < 0)
		return -1;
	if (V("network")->set && parse_network(V("network")->str, &o->network, err) < 0)
		return -1;
	if (o->seccomp && !*o->seccomp)
		return brig_error_usage(err, "--seccomp: expected FILE, default or unconfined");
	if (parse_tmpfs(ja, V("tmpfs"), o, err) < 0 || parse_mounts(ja, V("mount"), o, err) < 0 ||
	    parse_copies(ja, V("copy-in"), o, err) < 0)
		return -1;
	parse_caps(ja, V("keep-caps"), o);
	return 0;
#undef V
}

int brig_cmd_pool_options(const struct brig_context *ctx, const char *name,
                          const struct brig_option *table, size_t n_table,
                          struct brig_cmd_pool_args *pa, struct brig_error *err)
{
	size_t len, argc = 1;

	if (brig_pool_options(ctx, name, &pa->text, &len, err) < 0)
		return -1;
	for (size_t i = 0; i < len; i++)
		argc += pa->text[i] == '\0';
	pa->argv = brig_xcalloc(argc + 1, sizeof(*pa->argv));
	argc = 0;
	for (size_t i = 0; i < len; i += strlen(pa->text + i) + 1)
		pa->argv[argc++] = pa->text + i;
	if (brig_options_parse(table, n_table, (int)argc, pa->argv, BRIG_PARSE_PERMUTE, &pa->a,
	                       err) < 0)
		return brig_error_wrap(err, "pool \"%s\"", name);
	return 0;
}

void brig_cmd_pool_options_release(struct brig_cmd_pool_args *pa)
{
	brig_args_release(&pa->a);
	free(pa->argv);
	free(pa->text);
}
