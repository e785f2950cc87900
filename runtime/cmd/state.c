/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

#include <stdio.h>
#include <stdlib.h>

#include "lifecycle/control.h"
#include "lifecycle/state.h"
#include "util/error.h"

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	struct brig_container_ref c;
	char *json;
	int r = -1;

	if (brig_container_ref_open(&c, cli->ctx.root, a->pos[0], BRIG_LOCK_SHARED, err) < 0)
		goto out;
	json = brig_state_to_oci_json(c.s, brig_container_status(c.s));
	fputs(json, stdout);
	free(json);
	r = 0;
out:
	brig_container_ref_close(&c);
	return r;
}

const struct brig_command brig_cmd_state = {
	.name = "state",
	.args_usage = "<container-id>",
	.summary = "output the state of a container",
	.description = "   Print the OCI state of the container as JSON.",
	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
