/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

#include <stdlib.h>

#include "lifecycle/container.h"
#include "util/error.h"
#include "util/id.h"

enum {
	OPT_BUNDLE,
	OPT_CONSOLE_SOCKET,
	OPT_PID_FILE,
	OPT_NO_PIVOT,
	OPT_NO_NEW_KEYRING,
	OPT_PRESERVE_FDS
};

static const struct brig_option options[] = {
	[OPT_BUNDLE] = { "bundle", 'b', BRIG_OPT_STRING, "DIR",
	                 "path to the root of the bundle directory", "the current directory" },
	[OPT_CONSOLE_SOCKET] = { "console-socket", 0, BRIG_OPT_STRING, "PATH",
	                         "path to an AF_UNIX socket which will receive a file descriptor "
	                         "referencing the master end of the console's pseudoterminal",
	                         NULL },
	[OPT_PID_FILE] = { "pid-file", 0, BRIG_OPT_STRING, "PATH",
	                   "specify the file to write the process id to", NULL },
	[OPT_NO_PIVOT] = { "no-pivot", 0, BRIG_OPT_BOOL, NULL,
	                   "do not use pivot root to jail process inside rootfs", NULL },
	[OPT_NO_NEW_KEYRING] = { "no-new-keyring", 0, BRIG_OPT_BOOL, NULL,
	                         "do not create a new session keyring for the container", NULL },
	[OPT_PRESERVE_FDS] = { "preserve-fds", 0, BRIG_OPT_STRING, "N",
	                       "pass N additional file descriptors to the container (stdio + "
	                       "$LISTEN_FDS + N in total)",
	                       "0" },
};

/* --preserve-fds N: a count of fds, as runc takes it. */
int brig_cmd_parse_preserve_fds(const char *s, unsigned int *out, struct brig_error *err)
{
	char *end;
	unsigned long n;

	*out = 0;
	if (!s)
		return 0;
	n = strtoul(s, &end, 10);
	if (!*s || *end || s[0] == '-' || n > 65536)
		return brig_error_usage(
		    err, "invalid --preserve-fds \"%s\": expected a count of fds", s);
	*out = (unsigned int)n;
	return 0;
}

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
	};

	if (brig_id_validate(o.id, err) < 0 ||
	    brig_cmd_parse_preserve_fds(a->vals[OPT_PRESERVE_FDS].str, &o.preserve_fds, err) < 0)
		return -1;
	return brig_container_create(&cli->ctx, &o, NULL, err);
}

const struct brig_command brig_cmd_create = {
	.name = "create",
	.args_usage = "<container-id>",
	.summary = "create a container",
	.description =
	    "   Create a container from the bundle (the current directory unless --bundle\n"
	    "   is given) and leave its process waiting: `brig start` releases it. The\n"
	    "   container id must be unique on this host.",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
