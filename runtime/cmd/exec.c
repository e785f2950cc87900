/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

#include <string.h>

#include "lifecycle/exec.h"
#include "util/error.h"

enum {
	OPT_CONSOLE_SOCKET,
	OPT_CWD,
	OPT_ENV,
	OPT_TTY,
	OPT_USER,
	OPT_ADDITIONAL_GIDS,
	OPT_PROCESS,
	OPT_DETACH,
	OPT_PID_FILE,
	OPT_PROCESS_LABEL,
	OPT_APPARMOR,
	OPT_NO_NEW_PRIVS,
	OPT_CAP,
	OPT_PRESERVE_FDS,
	OPT_CGROUP,
	OPT_IGNORE_PAUSED,
};

static const struct brig_option options[] = {
	[OPT_CONSOLE_SOCKET] = { "console-socket", 0, BRIG_OPT_STRING, "PATH",
	                         "path to an AF_UNIX socket which will receive a file descriptor "
	                         "referencing the master end of the console's pseudoterminal",
	                         NULL },
	[OPT_CWD] = { "cwd", 0, BRIG_OPT_STRING, "DIR",
	              "current working directory in the container", NULL },
	[OPT_ENV] = { "env", 'e', BRIG_OPT_LIST, "KEY=VALUE", "set environment variables", NULL },
	[OPT_TTY] = { "tty", 't', BRIG_OPT_BOOL, NULL, "allocate a pseudo-TTY", NULL },
	[OPT_USER] = { "user", 'u', BRIG_OPT_STRING, "UID[:GID]", "UID (format: <uid>[:<gid>])",
	               NULL },
	[OPT_ADDITIONAL_GIDS] = { "additional-gids", 'g', BRIG_OPT_LIST, "GID", "additional gids",
	                          NULL },
	[OPT_PROCESS] = { "process", 'p', BRIG_OPT_STRING, "FILE", "path to the process.json",
	                  NULL },
	[OPT_DETACH] = { "detach", 'd', BRIG_OPT_BOOL, NULL, "detach from the container's process",
	                 NULL },
	[OPT_PID_FILE] = { "pid-file", 0, BRIG_OPT_STRING, "PATH",
	                   "specify the file to write the process id to", NULL },
	[OPT_PROCESS_LABEL] = { "process-label", 0, BRIG_OPT_STRING, "LABEL",
	                        "set the asm process label for the process commonly used with "
	                        "selinux",
	                        NULL },
	[OPT_APPARMOR] = { "apparmor", 0, BRIG_OPT_STRING, "PROFILE",
	                   "set the apparmor profile for the process", NULL },
	[OPT_NO_NEW_PRIVS] = { "no-new-privs", 0, BRIG_OPT_BOOL, NULL,
	                       "set the no new privileges value for the process", NULL },
	[OPT_CAP] = { "cap", 'c', BRIG_OPT_LIST, "CAP",
	              "add a capability to the bounding set for "
	              "the process",
	              NULL },
	[OPT_PRESERVE_FDS] = { "preserve-fds", 0, BRIG_OPT_STRING, "N",
	                       "pass N additional file descriptors to the container (stdio + "
	                       "$LISTEN_FDS + N in total)",
	                       "0" },
	[OPT_CGROUP] = { "cgroup", 0, BRIG_OPT_LIST, "PATH",
	                 "run the process in an (existing) sub-cgroup(s). Format is "
	                 "[<controller>:]<cgroup>",
	                 NULL },
	[OPT_IGNORE_PAUSED] = { "ignore-paused", 0, BRIG_OPT_BOOL, NULL,
	                        "allow exec in a paused container", NULL },
};

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	const struct brig_optval *v = a->vals;
	struct brig_exec_opts o = {
		.id = a->pos[0],
		.protect_exe = true,
		.process_file = v[OPT_PROCESS].set ? v[OPT_PROCESS].str : NULL,
		.args = a->pos + 1,
		.n_args = a->n_pos - 1,
		.cwd = v[OPT_CWD].set ? v[OPT_CWD].str : NULL,
		.env = v[OPT_ENV].list,
		.n_env = v[OPT_ENV].n,
		.tty = v[OPT_TTY].b,
		.tty_set = v[OPT_TTY].set,
		.user = v[OPT_USER].set ? v[OPT_USER].str : NULL,
		.additional_gids = v[OPT_ADDITIONAL_GIDS].list,
		.n_additional_gids = v[OPT_ADDITIONAL_GIDS].n,
		.caps = v[OPT_CAP].list,
		.n_caps = v[OPT_CAP].n,
		.no_new_privs = v[OPT_NO_NEW_PRIVS].b,
		.process_label = v[OPT_PROCESS_LABEL].set ? v[OPT_PROCESS_LABEL].str : NULL,
		.apparmor = v[OPT_APPARMOR].set ? v[OPT_APPARMOR].str : NULL,
		.detach = v[OPT_DETACH].b,
		.pid_file = v[OPT_PID_FILE].set ? v[OPT_PID_FILE].str : NULL,
		.console_socket = v[OPT_CONSOLE_SOCKET].set ? v[OPT_CONSOLE_SOCKET].str : NULL,
		.ignore_paused = v[OPT_IGNORE_PAUSED].b,
	};

	if (v[OPT_PRESERVE_FDS].set &&
	    brig_cmd_parse_preserve_fds(v[OPT_PRESERVE_FDS].str, &o.preserve_fds, err) < 0)
		return -1;
	/* an integer flag: a bad value is a usage error, as runc's flag
	 * parser says it (the ids themselves are checked with the process) */
	for (size_t i = 0; i < o.n_additional_gids; i++) {
		const char *g = o.additional_gids[i];

		if (!*g || strspn(g, "0123456789") != strlen(g) || strlen(g) > 10)
			return brig_error_usage(
			    err, "invalid value \"%s\" for flag --additional-gids", g);
	}
	o.cgroups = v[OPT_CGROUP].list;
	o.n_cgroups = v[OPT_CGROUP].n;
	if (!o.process_file && o.n_args < 1)
		return brig_error_usage(err, "exec: no command given (or --process FILE)");
	/* runc's exec: whatever fails once the command line is read is
	 * "exec failed: ..." with status 255, which no process of the
	 * container's gives alone (a caller tells the two apart) */
	if (brig_container_exec(&cli->ctx, &o, &cli->exit_status, err) < 0) {
		brig_error_wrap(err, "exec failed");
		err->status = 255;
		return -1;
	}
	return 0;
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
