/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

#include "lifecycle/control.h"

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	return brig_container_pause(&cli->ctx, a->pos[0], err);
}

const struct brig_command brig_cmd_pause = {
	.name = "pause",
	.args_usage = "<container-id>",
	.summary = "pause suspends all processes inside the container",
	.description = "   Freeze every process of the container (cgroup freezer).",

	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
