/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

#include "lifecycle/container.h"

enum { OPT_FORCE };

static const struct brig_option options[] = {
	[OPT_FORCE] = { "force", 'f', BRIG_OPT_BOOL, NULL,
	                "forcibly delete the container if it is still running (uses SIGKILL)",
	                NULL },
};

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	return brig_container_delete(&cli->ctx, a->pos[0], a->vals[OPT_FORCE].b, err);
}

const struct brig_command brig_cmd_delete = {
	.name = "delete",
	.args_usage = "<container-id>",
	.summary = "delete any resources held by the container",
	.description =
	    "   Delete a stopped container and everything brig holds for it. With\n"
	    "   --force, a running container is killed first, and a container that does\n"
	    "   not exist is not an error.",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
