/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"
#include "cmd/job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/id.h"
#include "util/jsonw.h"

static const struct brig_option options[] = {
	BRIG_JOB_SANDBOX_OPTIONS,
	{ "size", 0, BRIG_OPT_STRING, "N", "create: how many sandboxes wait (1 to 1024)", NULL },
	{ "cgroup-parent", 0, BRIG_OPT_STRING, "PATH",
	  "create: the cgroup every sandbox's is made under, whoever fills the pool or claims "
	  "from it (absolute: in every hierarchy; relative: below the creator's)",
	  "the creator's cgroup" },
	{ "format", 'f', BRIG_OPT_STRING, "table|json", "list: the output format", "table" },
	{ "queue", 0, BRIG_OPT_BOOL, NULL,
	  "fill: return at once when a fill runs and another waits behind it (which will "
	  "count what this one would); what a claim's background child runs",
	  NULL },
};

/* The sandbox flags as given, "--name" "value" each: what the pool keeps
 * for the members made later and for list. */
static char **given_flags(const struct brig_args *a, size_t *n)
{
	static const struct brig_option sandbox[] = { BRIG_JOB_SANDBOX_OPTIONS };
	char **flags = NULL;

	*n = 0;
	for (size_t i = 0; i < ARRAY_SIZE(sandbox); i++) {
		const struct brig_optval *v =
		    brig_cmd_opt(options, ARRAY_SIZE(options), a, sandbox[i].name);
		size_t k = sandbox[i].type == BRIG_OPT_LIST ? v->n : v->set;

		if (sandbox[i].type == BRIG_OPT_BOOL) {
			if (v->b) {
				flags = realloc(flags, (*n + 1) * sizeof(*flags));
				if (!flags)
					brig_oom();
				flags[(*n)++] = brig_xasprintf("--%s", sandbox[i].name);
			}
			continue;
		}
		for (size_t j = 0; j < k; j++) {
			flags = realloc(flags, (*n + 2) * sizeof(*flags));
			if (!flags)
				brig_oom();
			flags[(*n)++] = brig_xasprintf("--%s", sandbox[i].name);
			flags[(*n)++] =
			    brig_xstrdup(sandbox[i].type == BRIG_OPT_LIST ? v->list[j] : v->str);
		}
	}
	return flags;
}

static int need_name(const struct brig_args *a, const char *sub, struct brig_error *err)
{
	if (a->n_pos != 2)
		return brig_error_usage(err, "pool %s takes one NAME", sub);
	return brig_pool_check_name(a->pos[1], err);
}

/* --cgroup-parent: a cgroup path, absolute or relative, of plain
 * components (no ".", "..", empty ones), no control characters. */
static int check_cgroup_parent(const char *path, struct brig_error *err)
{
	size_t len = strlen(path);

	if (!len || len > 1024)
		return brig_error_usage(err, "--cgroup-parent \"%s\": expected a cgroup path",
		                        path);
	for (const char *p = path; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return brig_error_usage(err,
			                        "--cgroup-parent: a control character in the path");
	if (!strcmp(path, "/"))
		return 0;
	for (const char *c = path[0] == '/' ? path + 1 : path;;) {
		const char *end = strchrnul(c, '/');
		size_t n = (size_t)(end - c);

		if (!n || (n == 1 && c[0] == '.') || (n == 2 && !strncmp(c, "..", 2)))
			return brig_error_usage(err,
			                        "--cgroup-parent \"%s\": \".\", \"..\" and empty "
			                        "components are refused",
			                        path);
		if (!*end)
			return 0;
		c = end + 1;
	}
}

static int create(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	const struct brig_optval *size = brig_cmd_opt(options, ARRAY_SIZE(options), a, "size");
	const struct brig_optval *cgp =
	    brig_cmd_opt(options, ARRAY_SIZE(options), a, "cgroup-parent");
	struct brig_job_opts o = { 0 };
	struct brig_job_args ja = { 0 };
	char **flags = NULL, *end;
	size_t n_flags = 0;
	unsigned long n;
	int r = -1;

	if (need_name(a, "create", err) < 0)
		return -1;
	if (!size->set)
		return brig_error_usage(err, "pool create: --size is needed");
	n = strtoul(size->str, &end, 10);
	if (size->str[0] < '0' || size->str[0] > '9' || *end || n < 1 || n > 1024)
		return brig_error_usage(err, "--size \"%s\": expected a number from 1 to 1024",
		                        size->str);
	if (cgp->set && check_cgroup_parent(cgp->str, err) < 0)
		return -1;
	a->n_pos = 0; /* NAME is not a command */
	if (brig_cmd_job_parse(options, ARRAY_SIZE(options), a, &ja, &o, err) < 0)
		goto out;
	flags = given_flags(a, &n_flags);
	r = brig_pool_create(&cli->ctx, a->pos[1], n, &o, (const char *const *)flags, n_flags,
	                     cgp->set ? cgp->str : NULL, err);
out:
	for (size_t i = 0; i < n_flags; i++)
		free(flags[i]);
	free(flags);
	brig_job_args_release(&ja);
	return r;
}

/* fill: what a claim starts in the background, by hand too. */
static int fill(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	static const struct brig_option sandbox[] = { BRIG_JOB_SANDBOX_OPTIONS };
	struct brig_cmd_pool_args pa = { 0 };
	struct brig_job_opts o = { 0 };
	struct brig_job_args ja = { 0 };
	int r;

	if (need_name(a, "fill", err) < 0)
		return -1;
	r = brig_cmd_pool_options(&cli->ctx, a->pos[1], sandbox, ARRAY_SIZE(sandbox), &pa, err);
	if (r == 0)
		r = brig_cmd_job_parse(sandbox, ARRAY_SIZE(sandbox), &pa.a, &ja, &o, err);
	if (r == 0)
		r = brig_pool_fill(&cli->ctx, a->pos[1], &o,
		                   brig_cmd_opt(options, ARRAY_SIZE(options), a, "queue")->b, err);
	brig_job_args_release(&ja);
	brig_cmd_pool_options_release(&pa);
	return r;
}

static void print_json(const struct brig_pool_info *p, size_t n)
{
	struct brig_jsonw w;
	char *text;

	brig_jsonw_init(&w, NULL);
	brig_jsonw_array_begin(&w);
	for (size_t i = 0; i < n; i++) {
		brig_jsonw_object_begin(&w);
		brig_jsonw_kv_string(&w, "name", p[i].name);
		brig_jsonw_kv_uint(&w, "size", p[i].size);
		brig_jsonw_kv_uint(&w, "ready", p[i].ready);
		brig_jsonw_kv_uint(&w, "creating", p[i].creating);
		brig_jsonw_key(&w, "options");
		brig_jsonw_array_begin(&w);
		for (size_t k = 0; k < p[i].options_len; k += strlen(p[i].options + k) + 1)
			brig_jsonw_string(&w, p[i].options + k);
		brig_jsonw_array_end(&w);
		brig_jsonw_object_end(&w);
	}
	brig_jsonw_array_end(&w);
	text = brig_jsonw_finish(&w);
	printf("%s\n", text);
	free(text);
}

static int list(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	const struct brig_optval *f = brig_cmd_opt(options, ARRAY_SIZE(options), a, "format");
	struct brig_pool_info *p;
	size_t n;

	if (a->n_pos != 1)
		return brig_error_usage(err, "pool list takes no NAME");
	if (f->set && strcmp(f->str, "table") && strcmp(f->str, "json"))
		return brig_error_usage(err, "invalid format option \"%s\"", f->str);
	if (brig_pool_list(&cli->ctx, &p, &n, err) < 0)
		return -1;
	if (f->set && !strcmp(f->str, "json")) {
		print_json(p, n);
	} else {
		printf("%-20s %6s %6s %9s\n", "NAME", "SIZE", "READY", "CREATING");
		for (size_t i = 0; i < n; i++)
			printf("%-20s %6lu %6zu %9zu\n", p[i].name, p[i].size, p[i].ready,
			       p[i].creating);
	}
	brig_pool_info_free(p, n);
	return 0;
}

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	const char *sub = a->pos[0];

	if (strcmp(sub, "create") &&
	    brig_cmd_opt(options, ARRAY_SIZE(options), a, "cgroup-parent")->set)
		return brig_error_usage(err, "--cgroup-parent is a flag of pool create: a "
		                             "pool's cgroup is decided once");

	if (!strcmp(sub, "create"))
		return create(cli, a, err);
	if (!strcmp(sub, "list"))
		return list(cli, a, err);
	if (!strcmp(sub, "fill"))
		return fill(cli, a, err);
	if (!strcmp(sub, "follow")) {
		if (a->n_pos < 2 || a->n_pos > 3)
			return brig_error_usage(err, "pool follow takes NAME [ID]");
		if (brig_pool_check_name(a->pos[1], err) < 0 ||
		    (a->n_pos == 3 && brig_id_validate(a->pos[2], err) < 0))
			return -1;
		if (brig_pool_follower(&cli->ctx, a->pos[1], a->n_pos == 3 ? a->pos[2] : NULL) < 0)
			return brig_error_set(err,
			                      "pool follow: no claimer's pipe at fd 3 (brig job "
			                      "--pool starts it; it is not for use by hand)");
		return 0;
	}
	if (!strcmp(sub, "destroy"))
		return need_name(a, sub, err) < 0 ? -1
		                                  : brig_pool_destroy(&cli->ctx, a->pos[1], err);
	if (!strcmp(sub, "gc")) {
		if (a->n_pos != 1)
			return brig_error_usage(err, "pool gc takes no NAME");
		return brig_pool_gc(&cli->ctx, err);
	}
	return brig_error_usage(err,
	                        "unknown pool command \"%s\": expected create, list, fill, destroy "
	                        "or gc",
	                        sub);
}

const struct brig_command brig_cmd_pool = {
	.name = "pool",
	.args_usage = "create|list|fill|destroy|gc|follow [<name>] [<id>]",
	.summary = "manage warm pools of waiting sandboxes for brig job --pool",
	.description =
	    "   A pool keeps sandboxes made ahead for brig job --pool: each has what a\n"
	    "   job's sandbox has (its namespaces, its cgroup with the limits, the overlay\n"
	    "   rootfs with its tmpfs upper layer, /dev, the masks, no capabilities, and\n"
	    "   brig's seccomp profile loaded, or another compiled) and an init that\n"
	    "   waits for a command. A job claims one and hands it the command, which the\n"
	    "   init runs exactly as a cold brig job would (same result, plus \"pool\":\n"
	    "   \"hit\" or \"miss\"); a sandbox never serves two jobs. What follows a claim\n"
	    "   runs in the background (brig pool follow, started by brig job and not\n"
	    "   waited for; not a daemon): it removes the sandbox once brig job has\n"
	    "   returned, and starts a replacement (brig pool fill) once the job has run\n"
	    "   50 ms or is done. An empty pool is a cold start, never an error.\n"
	    "   A waiting sandbox's init shows as \"brig init\" (/proc/1/cmdline), with\n"
	    "   an empty environment: nothing of the command line or environment of\n"
	    "   the brig that made it.\n"
	    "\n"
	    "   A claim trusts nothing a pool's ready/ entry says: the sandbox must be\n"
	    "   the container of that name in --root's state (its init's pid and start\n"
	    "   time), its hand-off socket one its init made (SO_PEERCRED) and its\n"
	    "   writable layer the one recorded when it was made. An entry that does\n"
	    "   not check out gets nothing of the job's (command, --env, stdio,\n"
	    "   --copy-in, --export): it is removed (with it a sandbox of the pool,\n"
	    "   never served; a container of another name is left alone), a warning\n"
	    "   names it, and the claim takes the next one, or runs the job cold\n"
	    "   (\"pool\": \"miss\").\n"
	    "\n"
	    "   pool create NAME --size N [sandbox flags]: make N sandboxes now, with\n"
	    "   brig job's flags that shape a sandbox (--rootfs or --bundle, --memory,\n"
	    "   --pids, --cpus, --cpu-time, --writable, --tmpfs, --mount, --network,\n"
	    "   --user, --seccomp, --keep-caps). Prints nothing; on failure one line,\n"
	    "   and nothing is left. Every sandbox's cgroup, whoever fills the pool\n"
	    "   (create, fill, a claim's replacement) or claims from it, is made under\n"
	    "   one parent recorded now, in every cgroup hierarchy: the creator's own\n"
	    "   cgroup (where its brig job's would go), or --cgroup-parent PATH's (an\n"
	    "   absolute cgroup path, in every hierarchy; a relative one, below the\n"
	    "   creator's), which must exist. A fill fails, saying so, once it is gone.\n"
	    "\n"
	    "   pool list [--format json]: name, size, ready, creating (and options).\n"
	    "\n"
	    "   pool fill NAME [--queue]: make sandboxes until the pool is full again.\n"
	    "   With --queue (a claim's replacement), it makes none while a claim came\n"
	    "   or went in the last 100 ms and a quarter of the pool is still ready,\n"
	    "   for 5 s at most: a burst of claims runs without sandboxes being made\n"
	    "   beside it, and the pool fills once the burst is over, or as soon as\n"
	    "   it runs low.\n"
	    "\n"
	    "   pool destroy NAME: every sandbox, waiting or running (its job is killed),\n"
	    "   and the pool gone.\n"
	    "\n"
	    "   pool follow NAME [ID]: what brig job --pool starts in the background\n"
	    "   after a claim (not for use by hand): once the claimer has gone, sandbox\n"
	    "   ID is removed, then those of claims whose brig and follower died, and\n"
	    "   a pool fill --queue runs.\n"
	    "\n"
	    "   pool gc: sandboxes whose init died, half-made ones, claims whose brig\n"
	    "   died, half-made pools; then each pool is filled back to its size, in\n"
	    "   the background.\n"
	    "\n"
	    "   A pool lives under --root (pools/NAME), survives its creator and serves\n"
	    "   any caller that can use the root. A job whose brig is killed dies at\n"
	    "   once, with everything it left running (its init sees brig go); its\n"
	    "   sandbox is removed by the claim's follower, or, when brig was killed\n"
	    "   before it handed the job over, by the next claim's follower\n"
	    "   or pool gc.",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 1,
	.max_args = 3,
	.run = run,
	.error_status = 125,
};
