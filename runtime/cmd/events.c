/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

enum { O_INTERVAL, O_STATS };

static const struct brig_option options[] = {
	[O_INTERVAL] = { "interval", 0, BRIG_OPT_STRING, "DURATION",
	                 "set the stats collection interval", "5s" },
	[O_STATS] = { "stats", 0, BRIG_OPT_BOOL, NULL, "display the container's stats then exit",
	              NULL },
};

static int run(struct brig_context *ctx, struct brig_args *a, struct brig_error *err)
{
	return brig_cmd_not_implemented("events", err);
}

const struct brig_command brig_cmd_events = {
	.name = "events",
	.args_usage = "<container-id>",
	.summary = "display container events such as OOM notifications, cpu, memory, and IO usage "
	           "statistics",
	.description =
	    "   Print the container's events (OOM) and resource statistics as JSON lines.",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
