/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"
#include "cmd/criu.h"

#include "lifecycle/checkpoint.h"
#include "util/error.h"
#include "util/id.h"

enum {
	OPT_PARENT_PATH = OPT_CRIU_N,
	OPT_LEAVE_RUNNING,
	OPT_PRE_DUMP,
	OPT_PAGE_SERVER,
};

static const struct brig_option options[] = {
	BRIG_CRIU_OPTIONS("path for saving criu image files"),
	[OPT_PARENT_PATH] = { "parent-path", 0, BRIG_OPT_STRING, "DIR",
	                      "path for previous criu image files in pre-dump (relative to "
	                      "the image path)",
	                      NULL },
	[OPT_LEAVE_RUNNING] = { "leave-running", 0, BRIG_OPT_BOOL, NULL,
	                        "leave the process running after checkpointing", NULL },
	[OPT_PRE_DUMP] = { "pre-dump", 0, BRIG_OPT_BOOL, NULL,
	                   "dump container's memory information only, leave the container "
	                   "running after this",
	                   NULL },
	[OPT_PAGE_SERVER] = { "page-server", 0, BRIG_OPT_STRING, "ADDRESS:PORT",
	                      "ADDRESS:PORT of the page server", NULL },
};

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	struct brig_checkpoint_opts o = {
		.id = a->pos[0],
		.parent_path = a->vals[OPT_PARENT_PATH].str,
		.page_server = a->vals[OPT_PAGE_SERVER].str,
		.leave_running = a->vals[OPT_LEAVE_RUNNING].b,
		.pre_dump = a->vals[OPT_PRE_DUMP].b,
	};

	if (brig_id_validate(o.id, err) < 0 || brig_cmd_criu_flags(a->vals, &o.f, err) < 0)
		return -1;
	return brig_container_checkpoint(&cli->ctx, &o, err);
}

const struct brig_command brig_cmd_checkpoint = {
	.name = "checkpoint",
	.args_usage = "<container-id>",
	.summary = "checkpoint a running container",
	.description =
	    "   Dump the container's processes with CRIU into --image-path (descriptors.json\n"
	    "   beside the images records their stdio), then delete the container, unless\n"
	    "   --leave-running or --pre-dump keep it. Needs criu (--criu) and a container\n"
	    "   with a mount namespace of its own.",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
