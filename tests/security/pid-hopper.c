/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pid-hopper: the hostile container of tests/security/kill-all.sh, a
 * process that never keeps its pid.
 *
 *   pid-hopper hop CHAINS READY
 *       a child subreaper that starts CHAINS chains, whose dead the
 *       kernel reaps (SIGCHLD ignored), and waits forever.  A chain forks and lets its parent exit,
 * in a tight loop: at every instant it is one process (two, during a fork) whose pid was not there
 * a moment ago, so that a runtime that reads a cgroup's pids and signals them afterwards signals
 * the dead (and a scan of /proc rarely sees it at all).  Chain I counts its hops in the file
 * READY.I (a decimal number, rewritten every 64 hops): the host sees it live while the number
 * grows.  READY is created once every chain has hopped at least once. pid-hopper reap reaps
 * whatever it is given, forever: the init of the pod's first container, whose pid namespace the
 * hopper's container joins.
 *
 * Statically linked, it runs inside a busybox rootfs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static __attribute__((noreturn)) void reap(void)
{
	for (;;)
		if (waitpid(-1, NULL, 0) < 0)
			sleep_ms(100);
}

/* A chain: fork, the parent exits, the child goes on.  The first hop
 * closes @ready (the pipe's write end): READY's writer waits for that.
 * Every 64th hop writes the count to @beat. */
static __attribute__((noreturn)) void chain(int ready, int beat)
{
	for (unsigned long hops = 0;; hops++) {
		pid_t p;

		if (hops % 64 == 0) {
			char buf[32];
			int n = snprintf(buf, sizeof(buf), "%lu\n", hops);

			if (pwrite(beat, buf, (size_t)n, 0) < 0)
				_exit(1);
		}
		p = fork();

		if (p > 0)
			_exit(0);
		if (p < 0) {
			sleep_ms(1);
			continue;
		}
		if (ready >= 0) {
			close(ready);
			ready = -1;
		}
	}
}

int main(int argc, char **argv)
{
	int chains, fds[2], fd;
	char c;

	if (argc >= 2 && !strcmp(argv[1], "reap"))
		reap();
	if (argc != 4 || strcmp(argv[1], "hop") || (chains = atoi(argv[2])) < 1 || chains > 64) {
		fprintf(stderr, "usage: pid-hopper hop CHAINS READY | reap\n");
		return 2;
	}
	/* the chains' dead are reaped by the kernel at once: a zombie
	 * counts against pids.max, and none may stop a chain's fork */
	signal(SIGCHLD, SIG_IGN);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 || pipe(fds) < 0) {
		perror("pid-hopper");
		return 1;
	}
	for (int i = 0; i < chains; i++) {
		char path[4096];
		int beat;
		pid_t p;

		snprintf(path, sizeof(path), "%s.%d", argv[3], i);
		beat = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (beat < 0) {
			perror(path);
			return 1;
		}
		p = fork();

		if (p < 0) {
			perror("pid-hopper: fork");
			return 1;
		}
		if (p == 0) {
			close(fds[0]);
			chain(fds[1], beat);
		}
		close(beat);
	}
	close(fds[1]);
	/* EOF once every chain's first hop has closed its copy */
	for (ssize_t n = 1; n != 0;)
		if ((n = read(fds[0], &c, 1)) < 0 && errno != EINTR)
			break;
	close(fds[0]);
	fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	for (;;)
		pause();
}
