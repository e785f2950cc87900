/* SPDX-License-Identifier: Apache-2.0 */
/*
 * brig: an OCI runtime with runc's command line.  main() parses the global
 * flags, dispatches to the subcommand, and is the one place that reports an
 * error: once to the log and once to stderr.  Exit status: 0 on success,
 * 1 on a runtime error, 2 on a usage error.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "linux/process.h"
#include "util/error.h"
#include "util/log.h"
#include "util/fault.h"
#include "util/phases.h"

static void print_version(void)
{
	printf("brig version %s\ncommit: %s\nspec: %s\n", PACKAGE_VERSION, BRIG_COMMIT,
	       BRIG_SPEC_VERSION);
}

static void print_help(void)
{
	printf("NAME:\n   brig - an OCI runtime for short, ephemeral, untrusted jobs\n\n"
	       "USAGE:\n   brig [global options] command [command options] [arguments...]\n\n"
	       "VERSION:\n   %s (commit %s, spec %s)\n\nCOMMANDS:\n",
	       PACKAGE_VERSION, BRIG_COMMIT, BRIG_SPEC_VERSION);
	for (size_t i = 0; i < brig_n_commands; i++)
		printf("   %-12s %s\n", brig_commands[i]->name, brig_commands[i]->summary);
	printf("\nGLOBAL OPTIONS:\n");
	brig_options_print(brig_global_options, brig_n_global_options);
	printf("\nRun 'brig COMMAND --help' for more about a command.\n");
}

static void print_command_help(const struct brig_command *c)
{
	printf("NAME:\n   brig %s - %s\n\nUSAGE:\n   brig %s%s%s%s\n", c->name, c->summary, c->name,
	       c->n_options ? " [command options]" : "", c->args_usage ? " " : "",
	       c->args_usage ? c->args_usage : "");
	if (c->description)
		printf("\nDESCRIPTION:\n%s\n", c->description);
	printf("\nOPTIONS:\n");
	brig_options_print(c->options, c->n_options);
}

static const struct brig_command *find_command(const char *name)
{
	for (size_t i = 0; i < brig_n_commands; i++)
		if (strcmp(brig_commands[i]->name, name) == 0)
			return brig_commands[i];
	return NULL;
}

static const char *default_root(void)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	static char buf[4096];

	/* as runc: an unprivileged user keeps state in its runtime dir */
	if (geteuid() != 0 && xdg && *xdg) {
		snprintf(buf, sizeof(buf), "%s/brig", xdg);
		return buf;
	}
	return "/run/brig";
}

static int check_arg_count(const struct brig_command *c, int n, struct brig_error *err)
{
	if (c->min_args == c->max_args && n != c->min_args)
		return brig_error_usage(err, "\"%s\" requires exactly %d argument%s", c->name,
		                        c->min_args, c->min_args == 1 ? "" : "s");
	if (n < c->min_args)
		return brig_error_usage(err, "\"%s\" requires at least %d argument%s", c->name,
		                        c->min_args, c->min_args == 1 ? "" : "s");
	if (c->max_args >= 0 && n > c->max_args)
		return brig_error_usage(err, "\"%s\" takes at most %d argument%s", c->name,
		                        c->max_args, c->max_args == 1 ? "" : "s");
	return 0;
}

static int run_main(int argc, char **argv, int *status, int *fail_status, struct brig_error *err)
{
	struct brig_cli cli = { .ctx = { .root = default_root(), .rootless = BRIG_ROOTLESS_AUTO } };
	struct brig_args g = { 0 }, a = { 0 };
	const struct brig_command *cmd;
	int cmd_index, r = -1;

	if (brig_options_parse(brig_global_options, brig_n_global_options, argc - 1, argv + 1,
	                       BRIG_PARSE_STOP, &g, err) < 0)
		return -1;
	if (g.vals[BRIG_G_VERSION].b) {
		print_version();
		r = 0;
		goto out;
	}
	if (g.help || g.n_pos == 0) {
		print_help();
		r = 0;
		goto out;
	}
	if (g.vals[BRIG_G_LOG_FORMAT].set &&
	    brig_log_format_parse(g.vals[BRIG_G_LOG_FORMAT].str, &cli.log_format) < 0) {
		brig_error_usage(err, "invalid --log-format \"%s\": expected \"text\" or \"json\"",
		                 g.vals[BRIG_G_LOG_FORMAT].str);
		goto out;
	}
	if (g.vals[BRIG_G_ROOTLESS].set) {
		const char *v = g.vals[BRIG_G_ROOTLESS].str;

		if (!strcmp(v, "true")) {
			cli.ctx.rootless = BRIG_ROOTLESS_TRUE;
		} else if (!strcmp(v, "false")) {
			cli.ctx.rootless = BRIG_ROOTLESS_FALSE;
		} else if (strcmp(v, "auto")) {
			brig_error_usage(
			    err, "invalid --rootless \"%s\": expected auto, true or false", v);
			goto out;
		}
	}
	if (g.vals[BRIG_G_ROOT].set) {
		if (!g.vals[BRIG_G_ROOT].str[0]) {
			brig_error_usage(err, "--root must not be empty");
			goto out;
		}
		cli.ctx.root = g.vals[BRIG_G_ROOT].str;
	}
	if (g.vals[BRIG_G_CRIU].set) {
		if (!g.vals[BRIG_G_CRIU].str[0]) {
			brig_error_usage(err, "--criu must not be empty");
			goto out;
		}
		cli.ctx.criu = g.vals[BRIG_G_CRIU].str;
	}
	cli.log_path = g.vals[BRIG_G_LOG].str;
	cli.debug = g.vals[BRIG_G_DEBUG].b;
	cli.ctx.systemd_cgroup = g.vals[BRIG_G_SYSTEMD_CGROUP].b;
	if (g.vals[BRIG_G_CGROUP_MANAGER].set) {
		const char *v = g.vals[BRIG_G_CGROUP_MANAGER].str;

		if (!strcmp(v, "systemd"))
			cli.ctx.systemd_cgroup = true;
		else if (!strcmp(v, "disabled"))
			cli.ctx.no_cgroup = true;
		else if (strcmp(v, "cgroupfs")) {
			brig_error_usage(err,
			                 "invalid --cgroup-manager \"%s\": expected cgroupfs, "
			                 "systemd or disabled",
			                 v);
			goto out;
		}
		if (cli.ctx.no_cgroup && cli.ctx.systemd_cgroup) {
			brig_error_usage(
			    err, "--cgroup-manager disabled conflicts with --systemd-cgroup");
			goto out;
		}
	}
	if (brig_log_open(cli.log_path, cli.log_format, cli.debug, err) < 0)
		goto out;

	cmd = find_command(g.pos[0]);
	if (!cmd) {
		brig_error_usage(err, "unknown command \"%s\" (see brig --help)", g.pos[0]);
		goto out;
	}
	*fail_status = cmd->error_status;
	/* everything after the command name belongs to the command */
	for (cmd_index = 1; argv[cmd_index] != g.pos[0]; cmd_index++)
		;
	if (brig_options_parse(cmd->options, cmd->n_options, argc - cmd_index - 1,
	                       argv + cmd_index + 1, cmd->mode, &a, err) < 0) {
		brig_error_wrap(err, "%s", cmd->name);
		goto out;
	}
	if (a.help) {
		print_command_help(cmd);
		r = 0;
		goto out;
	}
	if (check_arg_count(cmd, a.n_pos, err) < 0)
		goto out;
	/* the commands that make processes in a container run from a
	 * read-only mount of brig's binary (linux/selfexe.h): create, run,
	 * exec, job, pool create and pool fill re-execute with these once they
	 * know the container's user namespace */
	cli.ctx.argv = argv;
	brig_phases_command();
	r = cmd->run(&cli, &a, err);
	*status = cli.exit_status;
	brig_phases_report(cmd->name);
out:
	brig_args_release(&g);
	brig_args_release(&a);
	return r;
}

int main(int argc, char **argv)
{
	struct brig_error err = BRIG_ERROR_INIT;
	int status = 0, fail_status = 0;

	brig_phases_start();
	/* before anything is opened: which fds are the caller's */
	brig_fds_note_caller();
	brig_fault_init();
	if (run_main(argc, argv, &status, &fail_status, &err) < 0) {
		brig_log_report(err.msg);
		status = fail_status ? fail_status : err.status ? err.status : 1;
	}
	brig_error_release(&err);
	brig_log_close();
	return status;
}
