/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exec: a new process in a container that exists.  It is brig's child,
 * born in the container's pid namespace (joined by brig for the clone)
 * and its cgroup (CLONE_INTO_CGROUP on v2), and joins the other
 * namespaces of the init through its pidfd; then it gets the process
 * settings, the container's seccomp filter, and execs.  Nothing is
 * mounted on the way: engines exec health probes many times a second.
 */
#ifndef BRIG_EXEC_H
#define BRIG_EXEC_H

#include <stdbool.h>
#include <stddef.h>

struct brig_context;
struct brig_error;

struct brig_exec_opts {
	const char *id;
	/* re-execute brig from a read-only mount of its binary once the
	 * container is known, unless its user namespace keeps its processes
	 * from the binary (linux/selfexe.h) */
	bool protect_exe;
	const char *process_file; /* --process: a process.json, instead of... */
	char **args;              /* ...the command, on top of the container's process */
	int n_args;
	const char *cwd;
	const char **env; /* KEY=VALUE, added to (replacing) the process's */
	size_t n_env;
	bool tty, tty_set;
	const char *user; /* "uid[:gid]" */
	const char **additional_gids;
	size_t n_additional_gids;
	const char **caps; /* added to the bounding, effective and permitted sets */
	size_t n_caps;
	bool no_new_privs;
	const char *process_label, *apparmor;
	bool detach;
	const char *pid_file;
	const char *console_socket;
	unsigned int preserve_fds;
	const char **cgroups; /* --cgroup, each given: sub-cgroups of the container's */
	size_t n_cgroups;
	bool ignore_paused;
};

/* Run the process; in the foreground, wait for it (forwarding signals,
 * relaying a terminal) and store its exit status in *@status. */
int brig_container_exec(const struct brig_context *ctx, const struct brig_exec_opts *o, int *status,
                        struct brig_error *err);

#endif
