/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

#define RES(name, help)                                       \
	{                                                     \
		name, 0, BRIG_OPT_STRING, "VALUE", help, NULL \
	}

static const struct brig_option options[] = {
	{ "resources", 'r', BRIG_OPT_STRING, "FILE",
	  "path to a file containing the resources to update, or \"-\" to read from stdin", NULL },
	RES("blkio-weight", "specifies per cgroup weight, range is from 10 to 1000"),
	RES("cpu-period", "CPU CFS period to be used for hardcapping (in usecs). 0 to use "
	                  "system default"),
	RES("cpu-quota", "CPU CFS hardcap limit (in usecs). Allowed cpu time in a given period"),
	RES("cpu-burst", "CPU CFS hardcap burst limit (in usecs). Allowed accumulated cpu time "
	                 "additionally for burst a given period"),
	RES("cpu-share", "CPU shares (relative weight vs. other containers)"),
	RES("cpu-rt-period", "CPU realtime period to be used for hardcapping (in usecs). 0 to "
	                     "use system default"),
	RES("cpu-rt-runtime", "CPU realtime hardcap limit (in usecs). Allowed cpu time in a "
	                      "given period"),
	RES("cpuset-cpus", "CPU(s) to use"),
	RES("cpuset-mems", "memory node(s) to use"),
	RES("kernel-memory", "(obsoleted; do not use)"),
	RES("kernel-memory-tcp", "(obsoleted; do not use)"),
	RES("memory", "memory limit (in bytes)"),
	RES("cpu-idle", "set cgroup SCHED_IDLE or not, 0: default behavior, 1: SCHED_IDLE"),
	RES("memory-reservation", "memory reservation or soft_limit (in bytes)"),
	RES("memory-swap", "total memory usage (memory + swap); set '-1' to enable unlimited "
	                   "swap"),
	RES("pids-limit", "maximum number of pids allowed in the container"),
	RES("l3-cache-schema", "the string of Intel RDT/CAT L3 cache schema"),
	RES("mem-bw-schema", "the string of Intel RDT/MBA memory bandwidth schema"),
};

static int run(struct brig_context *ctx, struct brig_args *a, struct brig_error *err)
{
	return brig_cmd_not_implemented("update", err);
}

const struct brig_command brig_cmd_update = {
	.name = "update",
	.args_usage = "<container-id>",
	.summary = "update container resource constraints",
	.description = "   Change the cgroup limits of a running container, from flags or from a\n"
	               "   LinuxResources JSON document (--resources FILE, or - for stdin).",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
