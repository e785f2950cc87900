/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"
#include "cmd/criu.h"

#include "lifecycle/checkpoint.h"
#include "util/error.h"
#include "util/id.h"

enum {
	OPT_BUNDLE = OPT_CRIU_N,
	OPT_CONSOLE_SOCKET,
	OPT_DETACH,
	OPT_PID_FILE,
	OPT_NO_SUBREAPER,
	OPT_NO_PIVOT,
};

static const struct brig_option options[] = {
	BRIG_CRIU_OPTIONS("path to criu image files for restoring"),
	[OPT_BUNDLE] = { "bundle", 'b', BRIG_OPT_STRING, "DIR",
	                 "path to the root of the bundle directory", "the current directory" },
	[OPT_CONSOLE_SOCKET] = { "console-socket", 0, BRIG_OPT_STRING, "PATH",
	                         "path to an AF_UNIX socket which will receive a file descriptor "
	                         "referencing the master end of the console's pseudoterminal",
	                         NULL },
	[OPT_DETACH] = { "detach", 'd', BRIG_OPT_BOOL, NULL, "detach from the container's process",
	                 NULL },
	[OPT_PID_FILE] = { "pid-file", 0, BRIG_OPT_STRING, "PATH",
	                   "specify the file to write the process id to", NULL },
	[OPT_NO_SUBREAPER] = { "no-subreaper", 0, BRIG_OPT_BOOL, NULL,
	                       "disable the use of the subreaper used to reap reparented processes",
	                       NULL },
	[OPT_NO_PIVOT] = { "no-pivot", 0, BRIG_OPT_BOOL, NULL,
	                   "do not use pivot root to jail process inside rootfs", NULL },
};

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	struct brig_restore_opts o = {
		.id = a->pos[0],
		.bundle = a->vals[OPT_BUNDLE].str,
		.pid_file = a->vals[OPT_PID_FILE].str,
		.console_socket = a->vals[OPT_CONSOLE_SOCKET].str,
		.detach = a->vals[OPT_DETACH].b,
		.no_subreaper = a->vals[OPT_NO_SUBREAPER].b,
		.no_pivot = a->vals[OPT_NO_PIVOT].b,
	};

	if (brig_id_validate(o.id, err) < 0 || brig_cmd_criu_flags(a->vals, &o.f, err) < 0)
		return -1;
	return brig_container_restore(&cli->ctx, &o, &cli->exit_status, err);
}

const struct brig_command brig_cmd_restore = {
	.name = "restore",
	.args_usage = "<container-id>",
	.summary = "restore a container from a previous checkpoint",
	.description =
	    "   Make a new container <container-id> from the bundle and a CRIU image: its\n"
	    "   own state, cgroup and stdio, whatever id the image was taken from, so one\n"
	    "   image restores into many containers. In the foreground, brig waits for it,\n"
	    "   exits with its status and deletes it, as run does.",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
