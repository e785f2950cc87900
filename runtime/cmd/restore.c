/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

enum { OPT_IMAGE_PATH, OPT_WORK_PATH, OPT_BUNDLE };

static const struct brig_option options[] = {
	[OPT_IMAGE_PATH] = { "image-path", 0, BRIG_OPT_STRING, "DIR",
	                     "path to criu image files for restoring", NULL },
	[OPT_WORK_PATH] = { "work-path", 0, BRIG_OPT_STRING, "DIR",
	                    "path for saving work files and logs", NULL },
	[OPT_BUNDLE] = { "bundle", 'b', BRIG_OPT_STRING, "DIR",
	                 "path to the root of the bundle directory", NULL },
};

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	return brig_cmd_not_implemented("restore", err);
}

const struct brig_command brig_cmd_restore = {
	.name = "restore",
	.args_usage = "<container-id>",
	.summary = "restore a container from a previous checkpoint (reserved: not supported)",
	.description = "   Reserved for runc compatibility; brig does not restore containers.",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
