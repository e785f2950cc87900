/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the command line.  An input is an argv, its words
 * separated by NUL bytes; it goes through what main() does before any
 * command runs: the global flags, the subcommand's name, its flags, its
 * count of arguments, and the values brig parses itself (a job's and a
 * pool's sizes, durations, mounts, copies, user and network, a signal,
 * --preserve-fds, a container id).  Nothing is run.  Built and run by
 * tests/fuzz/run.sh.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/job.h"
#include "lifecycle/container.h"
#include "util/error.h"
#include "util/id.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_WORDS 64

static volatile size_t sink;

static const struct brig_command *find(const char *name)
{
	for (size_t i = 0; i < brig_n_commands; i++)
		if (!strcmp(brig_commands[i]->name, name))
			return brig_commands[i];
	return NULL;
}

/* What brig parses of a command's values, the command aside. */
static void values(const struct brig_command *c, struct brig_args *a)
{
	struct brig_error err = BRIG_ERROR_INIT;
	const struct brig_optval *v;

	if (a->n_pos > 0)
		sink += brig_id_validate(a->pos[0], &err) == 0;
	brig_error_release(&err);
	if (!strcmp(c->name, "kill") && a->n_pos > 1)
		sink += (size_t)brig_signal_parse(a->pos[1]);
	v = brig_cmd_opt(c->options, c->n_options, a, "preserve-fds");
	if (v->set) {
		unsigned int n;

		sink += brig_cmd_parse_preserve_fds(v->str, &n, &err) == 0;
		brig_error_release(&err);
	}
	if (!strcmp(c->name, "job") || !strcmp(c->name, "pool")) {
		struct brig_job_args ja = { 0 };
		struct brig_job_opts o = { 0 };

		sink += brig_cmd_job_parse(c->options, c->n_options, a, &ja, &o, &err) == 0;
		brig_error_release(&err);
		brig_job_args_release(&ja);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_args g = { 0 }, a = { 0 };
	const struct brig_command *c;
	char *buf = malloc(size + 1), *argv[MAX_WORDS + 1];
	int argc = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (char *p = buf; p < buf + size && argc < MAX_WORDS; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	if (brig_options_parse(brig_global_options, brig_n_global_options, argc, argv,
	                       BRIG_PARSE_STOP, &g, &err) < 0 ||
	    g.n_pos == 0 || !(c = find(g.pos[0])))
		goto out;
	if (brig_options_parse(c->options, c->n_options, g.n_pos - 1, (char **)g.pos + 1, c->mode,
	                       &a, &err) == 0) {
		values(c, &a);
		brig_args_release(&a);
	}
out:
	brig_error_release(&err);
	brig_args_release(&g);
	free(buf);
	return 0;
}
