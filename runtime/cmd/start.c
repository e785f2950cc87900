/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

#include "lifecycle/container.h"

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	return brig_container_start(&cli->ctx, a->pos[0], err);
}

const struct brig_command brig_cmd_start = {
	.name = "start",
	.args_usage = "<container-id>",
	.summary = "executes the user defined process in a created container",
	.description = "   Release the process of a created container: it executes the user\n   "
	               "process of config.json.  start returns once it runs, and fails, saying\n   "
	               "why, when the init could not execute it (a startContainer hook or the\n   "
	               "execve failed).",

	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
