/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

#include <signal.h>

#include "lifecycle/container.h"
#include "util/error.h"

enum { OPT_ALL };

static const struct brig_option options[] = {
	[OPT_ALL] = { "all", 'a', BRIG_OPT_BOOL, NULL,
	              "send the specified signal to all processes inside the container", NULL },
};

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	const char *name = a->n_pos > 1 ? a->pos[1] : "TERM";
	int sig = brig_signal_parse(name);

	/* 0 is a signal too: is the container alive? (runc takes it) */
	if (sig < 0)
		return brig_error_usage(err, "unknown signal \"%s\"", name);
	return brig_container_kill(&cli->ctx, a->pos[0], sig, a->vals[OPT_ALL].b, err);
}

const struct brig_command brig_cmd_kill = {
	.name = "kill",
	.args_usage = "<container-id> [signal]",
	.summary =
	    "kill sends the specified signal (default: SIGTERM) to the container's init process",
	.description = "   Send a signal, by name (KILL, SIGKILL) or number, to the container's "
	               "init\n   process, or with --all to every process of the container.",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 1,
	.max_args = 2,
	.run = run,
};
