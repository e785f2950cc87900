/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lifecycle/control.h"
#include "util/error.h"

enum { OPT_FORMAT };

static const struct brig_option options[] = {
	[OPT_FORMAT] = { "format", 'f', BRIG_OPT_STRING, "table|json",
	                 "select one of: table or json", "table" },
};

static bool listed(const pid_t *pids, size_t n, long pid)
{
	for (size_t i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* The column of "PID" in the header line of ps(1), or -1. */
static int pid_column(const char *header)
{
	char *copy = brig_xstrdup(header), *save = NULL;
	int col = -1, i = 0;

	for (char *t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save), i++)
		if (!strcmp(t, "PID")) {
			col = i;
			break;
		}
	free(copy);
	return col;
}

static long field(const char *line, int col)
{
	char *copy = brig_xstrdup(line), *save = NULL, *t;
	long v = -1;
	int i = 0;

	for (t = strtok_r(copy, " \t\n", &save); t && i < col; t = strtok_r(NULL, " \t\n", &save))
		i++;
	if (t)
		v = strtol(t, NULL, 10);
	free(copy);
	return v;
}

/* runc's table: ps(1) with the given arguments (default -ef), only the
 * header and the lines whose PID is the container's. */
static int ps_table(const pid_t *pids, size_t n, char **args, int n_args, struct brig_error *err)
{
	_cleanup_free_ char **argv = brig_xcalloc((size_t)n_args + 3, sizeof(char *));
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	FILE *f;
	int fds[2], col = -1, status;
	pid_t child;

	argv[0] = "ps";
	if (n_args)
		memcpy(argv + 1, args, (size_t)n_args * sizeof(char *));
	else
		argv[1] = "-ef";
	if (pipe2(fds, O_CLOEXEC) < 0)
		return brig_error_setp(err, errno, "pipe");
	child = fork();
	if (child < 0) {
		close(fds[0]);
		close(fds[1]);
		return brig_error_setp(err, errno, "fork");
	}
	if (child == 0) {
		dup2(fds[1], STDOUT_FILENO);
		execvp("ps", argv);
		fprintf(stderr, "brig: exec \"ps\": %s\n", strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f) {
		close(fds[0]);
		waitpid(child, NULL, 0);
		return brig_error_setp(err, errno, "fdopen");
	}
	while (getline(&line, &cap, f) > 0) {
		if (col < 0) {
			col = pid_column(line);
			if (col < 0)
				break;
			fputs(line, stdout);
		} else if (listed(pids, n, field(line, col))) {
			fputs(line, stdout);
		}
	}
	fclose(f);
	waitpid(child, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return brig_error_set(err, "ps failed");
	if (col < 0)
		return brig_error_set(err, "couldn't find PID field in ps output");
	return 0;
}

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	const char *format = a->vals[OPT_FORMAT].set ? a->vals[OPT_FORMAT].str : "table";
	_cleanup_free_ pid_t *pids = NULL;
	size_t n = 0;

	if (strcmp(format, "table") && strcmp(format, "json"))
		return brig_error_usage(err, "invalid format option");
	if (!strcmp(format, "json") && a->n_pos > 1 + (a->n_pos > 1 && !strcmp(a->pos[1], "--")))
		return brig_error_usage(err, "ps arguments are not allowed with --format json");
	if (brig_container_pids(&cli->ctx, a->pos[0], &pids, &n, err) < 0)
		return -1;
	if (!strcmp(format, "json")) {
		/* containerd parses this: a JSON array of pids */
		putchar('[');
		for (size_t i = 0; i < n; i++)
			printf("%s%d", i ? "," : "", (int)pids[i]);
		printf("]\n");
		return 0;
	}
	/* `ps ID -- -o pid,comm`: the "--" only ends brig's flags */
	if (a->n_pos > 1 && !strcmp(a->pos[1], "--"))
		return ps_table(pids, n, a->pos + 2, a->n_pos - 2, err);
	return ps_table(pids, n, a->pos + 1, a->n_pos - 1, err);
}

const struct brig_command brig_cmd_ps = {
	.name = "ps",
	.args_usage = "<container-id> [ps options]",
	.summary = "ps displays the processes running inside a container",
	.description = "   List the processes of the container; --format json prints a JSON "
	               "array\n   of pids, the rest is passed to ps(1).",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_STOP,
	.min_args = 1,
	.max_args = -1,
	.run = run,
};
