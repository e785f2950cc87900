/* SPDX-License-Identifier: Apache-2.0 */
/*
 * subreaper CMD [ARGS...]: run CMD as a child subreaper, as conmon and
 * containerd's shim are, so that the container inits `brig create` leaves
 * behind are reparented to us (and reaped) rather than to the machine's
 * PID 1.  Exits with CMD's status once CMD and every adopted process are
 * gone.  CMD finds our pid in $BRIG_SUBREAPER_PID: what it leaves behind
 * shows up in /proc/$BRIG_SUBREAPER_PID/task/.../children.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int status = 0, cmd_status = 127;
	pid_t cmd, pid;

	if (argc < 2) {
		fprintf(stderr, "usage: subreaper CMD [ARGS...]\n");
		return 2;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		perror("subreaper: prctl");
		return 1;
	}
	cmd = fork();
	if (cmd < 0) {
		perror("subreaper: fork");
		return 1;
	}
	if (cmd == 0) {
		char pid_str[32];

		snprintf(pid_str, sizeof(pid_str), "%d", (int)getppid());
		setenv("BRIG_SUBREAPER_PID", pid_str, 1);
		execvp(argv[1], argv + 1);
		perror("subreaper: exec");
		_exit(127);
	}
	while ((pid = wait(&status)) > 0 || errno == EINTR) {
		if (pid == cmd)
			cmd_status =
			    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	return cmd_status;
}
