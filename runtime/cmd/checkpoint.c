/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

enum { OPT_IMAGE_PATH, OPT_WORK_PATH, OPT_LEAVE_RUNNING };

static const struct brig_option options[] = {
	[OPT_IMAGE_PATH] = { "image-path", 0, BRIG_OPT_STRING, "DIR",
	                     "path for saving criu image files", NULL },
	[OPT_WORK_PATH] = { "work-path", 0, BRIG_OPT_STRING, "DIR",
	                    "path for saving work files and logs", NULL },
	[OPT_LEAVE_RUNNING] = { "leave-running", 0, BRIG_OPT_BOOL, NULL,
	                        "leave the process running after checkpointing", NULL },
};

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	return brig_cmd_not_implemented("checkpoint", err);
}

const struct brig_command brig_cmd_checkpoint = {
	.name = "checkpoint",
	.args_usage = "<container-id>",
	.summary = "checkpoint a running container (reserved: not supported)",
	.description = "   Reserved for runc compatibility; brig does not checkpoint containers.",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
