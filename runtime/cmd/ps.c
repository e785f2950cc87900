/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

enum { O_FORMAT };

static const struct brig_option options[] = {
	[O_FORMAT] = { "format", 'f', BRIG_OPT_STRING, "table|json", "select one of: table or json",
	               "table" },
};

static int run(struct brig_context *ctx, struct brig_args *a, struct brig_error *err)
{
	return brig_cmd_not_implemented("ps", err);
}

const struct brig_command brig_cmd_ps = {
	.name = "ps",
	.args_usage = "<container-id> [ps options]",
	.summary = "ps displays the processes running inside a container",
	.description = "   List the processes of the container; --format json prints a JSON "
	               "array\n   of pids, the rest is passed to ps(1).",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_STOP,
	.min_args = 1,
	.max_args = -1,
	.run = run,
};
