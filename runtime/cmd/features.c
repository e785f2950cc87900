/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

#include <stdio.h>

#include "lifecycle/features.h"
#include "linux/criu.h"

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	_cleanup_free_ char *json = brig_features_json(brig_criu_usable(cli->ctx.criu));

	fputs(json, stdout);
	return 0;
}

const struct brig_command brig_cmd_features = {
	.name = "features",
	.args_usage = NULL,
	.summary = "show the enabled features",
	.description =
	    "   Print the runtime-spec features document: what this build of brig\n"
	    "   implements (spec versions, hooks, mount options, namespaces,\n"
	    "   capabilities, cgroup drivers, seccomp, LSMs). Only what works is listed:\n"
	    "   checkpoint and restore only where criu (--criu) passes its check.",
	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 0,
	.max_args = 0,
	.run = run,
};
