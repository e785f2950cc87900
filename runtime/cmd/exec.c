/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

enum {
	O_CONSOLE_SOCKET,
	O_CWD,
	O_ENV,
	O_TTY,
	O_USER,
	O_ADDITIONAL_GIDS,
	O_PROCESS,
	O_DETACH,
	O_PID_FILE,
	O_PROCESS_LABEL,
	O_APPARMOR,
	O_NO_NEW_PRIVS,
	O_CAP,
	O_PRESERVE_FDS,
	O_CGROUP,
	O_IGNORE_PAUSED,
};

static const struct brig_option options[] = {
	[O_CONSOLE_SOCKET] = { "console-socket", 0, BRIG_OPT_STRING, "PATH",
	                       "path to an AF_UNIX socket which will receive a file descriptor "
	                       "referencing the master end of the console's pseudoterminal",
	                       NULL },
	[O_CWD] = { "cwd", 0, BRIG_OPT_STRING, "DIR", "current working directory in the container",
	            NULL },
	[O_ENV] = { "env", 'e', BRIG_OPT_LIST, "KEY=VALUE", "set environment variables", NULL },
	[O_TTY] = { "tty", 't', BRIG_OPT_BOOL, NULL, "allocate a pseudo-TTY", NULL },
	[O_USER] = { "user", 'u', BRIG_OPT_STRING, "UID[:GID]", "UID (format: <uid>[:<gid>])",
	             NULL },
	[O_ADDITIONAL_GIDS] = { "additional-gids", 'g', BRIG_OPT_LIST, "GID", "additional gids",
	                        NULL },
	[O_PROCESS] = { "process", 'p', BRIG_OPT_STRING, "FILE", "path to the process.json", NULL },
	[O_DETACH] = { "detach", 'd', BRIG_OPT_BOOL, NULL, "detach from the container's process",
	               NULL },
	[O_PID_FILE] = { "pid-file", 0, BRIG_OPT_STRING, "PATH",
	                 "specify the file to write the process id to", NULL },
	[O_PROCESS_LABEL] = { "process-label", 0, BRIG_OPT_STRING, "LABEL",
	                      "set the asm process label for the process commonly used with "
	                      "selinux",
	                      NULL },
	[O_APPARMOR] = { "apparmor", 0, BRIG_OPT_STRING, "PROFILE",
	                 "set the apparmor profile for the process", NULL },
	[O_NO_NEW_PRIVS] = { "no-new-privs", 0, BRIG_OPT_BOOL, NULL,
	                     "set the no new privileges value for the process", NULL },
	[O_CAP] = { "cap", 'c', BRIG_OPT_LIST, "CAP",
	            "add a capability to the bounding set for "
	            "the process",
	            NULL },
	[O_PRESERVE_FDS] = { "preserve-fds", 0, BRIG_OPT_STRING, "N",
	                     "pass N additional file descriptors to the container (stdio + "
	                     "$LISTEN_FDS + N in total)",
	                     "0" },
	[O_CGROUP] = { "cgroup", 0, BRIG_OPT_LIST, "PATH",
	               "run the process in an (existing) sub-cgroup(s). Format is "
	               "[<controller>:]<cgroup>",
	               NULL },
	[O_IGNORE_PAUSED] = { "ignore-paused", 0, BRIG_OPT_BOOL, NULL,
	                      "allow exec in a paused container", NULL },
};

static int run(struct brig_context *ctx, struct brig_args *a, struct brig_error *err)
{
	return brig_cmd_not_implemented("exec", err);
}

const struct brig_command brig_cmd_exec = {
	.name = "exec",
	.args_usage =
	    "<container-id> <command> [command options]  ||  -p process.json <container-id>",
	.summary = "execute new process inside the container",
	.description = "   Run a new process in a running container: it joins every namespace,\n"
	               "   the cgroup and the confinement of the container.",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_STOP,
	.min_args = 1,
	.max_args = -1,
	.run = run,
};
