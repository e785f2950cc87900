/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

#include "lifecycle/container.h"
#include "util/error.h"
#include "util/id.h"

enum {
	OPT_BUNDLE,
	OPT_CONSOLE_SOCKET,
	OPT_DETACH,
	OPT_KEEP,
	OPT_PID_FILE,
	OPT_NO_SUBREAPER,
	OPT_NO_PIVOT,
	OPT_NO_NEW_KEYRING,
	OPT_PRESERVE_FDS,
};

static const struct brig_option options[] = {
	[OPT_BUNDLE] = { "bundle", 'b', BRIG_OPT_STRING, "DIR",
	                 "path to the root of the bundle directory", "the current directory" },
	[OPT_CONSOLE_SOCKET] = { "console-socket", 0, BRIG_OPT_STRING, "PATH",
	                         "path to an AF_UNIX socket which will receive a file descriptor "
	                         "referencing the master end of the console's pseudoterminal",
	                         NULL },
	[OPT_DETACH] = { "detach", 'd', BRIG_OPT_BOOL, NULL, "detach from the container's process",
	                 NULL },
	[OPT_KEEP] = { "keep", 0, BRIG_OPT_BOOL, NULL, "do not delete the container after it exits",
	               NULL },
	[OPT_PID_FILE] = { "pid-file", 0, BRIG_OPT_STRING, "PATH",
	                   "specify the file to write the process id to", NULL },
	[OPT_NO_SUBREAPER] = { "no-subreaper", 0, BRIG_OPT_BOOL, NULL,
	                       "disable the use of the subreaper used to reap reparented processes",
	                       NULL },
	[OPT_NO_PIVOT] = { "no-pivot", 0, BRIG_OPT_BOOL, NULL,
	                   "do not use pivot root to jail process inside rootfs", NULL },
	[OPT_NO_NEW_KEYRING] = { "no-new-keyring", 0, BRIG_OPT_BOOL, NULL,
	                         "do not create a new session keyring for the container", NULL },
	[OPT_PRESERVE_FDS] = { "preserve-fds", 0, BRIG_OPT_STRING, "N",
	                       "pass N additional file descriptors to the container (stdio + "
	                       "$LISTEN_FDS + N in total)",
	                       "0" },
};

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	struct brig_create_opts o = {
		.id = a->pos[0],
		.bundle = a->vals[OPT_BUNDLE].str,
		.pid_file = a->vals[OPT_PID_FILE].str,
		.console_socket = a->vals[OPT_CONSOLE_SOCKET].str,
		.no_pivot = a->vals[OPT_NO_PIVOT].b,
		.no_new_keyring = a->vals[OPT_NO_NEW_KEYRING].b,
		.protect_exe = true,
		.run = true,
		.detach = a->vals[OPT_DETACH].b,
		.keep = a->vals[OPT_KEEP].b,
		.no_subreaper = a->vals[OPT_NO_SUBREAPER].b,
	};

	if (brig_id_validate(o.id, err) < 0 ||
	    brig_cmd_parse_preserve_fds(a->vals[OPT_PRESERVE_FDS].str, &o.preserve_fds, err) < 0)
		return -1;
	return brig_container_create(&cli->ctx, &o, &cli->exit_status, err);
}

const struct brig_command brig_cmd_run = {
	.name = "run",
	.args_usage = "<container-id>",
	.summary = "create and run a container",
	.description =
	    "   Create a container from the bundle and start it. In the foreground, brig\n"
	    "   waits for the container, forwards signals to it, exits with its status\n"
	    "   (128+N when killed by signal N) and deletes it. With process.terminal it\n"
	    "   relays its own stdio to the container's terminal (raw mode, window size);\n"
	    "   --detach then needs --console-socket.",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
