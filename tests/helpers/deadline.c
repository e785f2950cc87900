/* SPDX-License-Identifier: Apache-2.0 */
/*
 * deadline [-k GRACE] SECS CMD [ARGS...]: what `timeout -k GRACE SECS CMD
 * ARGS...` of coreutils does (GRACE 5 unless given), for tests/lib/tap.sh's
 * run_cmd, which wraps every command of every test in it.  Linked
 * statically and without the sanitizers: coreutils' timeout, dynamically
 * linked, cost 6.2 ms more than the command alone on this machine (and
 * more under TCG); this costs 2.6.
 *
 * The same behaviour, as 01-harness.sh checks against timeout itself:
 *  - CMD runs in a process group of ours, made first (setpgid), with
 *    SIGTTIN and SIGTTOU back to their defaults;
 *  - after SECS, SIGTERM (then SIGCONT) to CMD and to the group, and
 *    GRACE seconds later SIGKILL; a SIGTERM, SIGINT, SIGHUP or SIGQUIT
 *    sent to us is passed on the same way;
 *  - the status: CMD's exit status; 124 when SECS ran out (137 when it
 *    took the SIGKILL: the group's SIGKILL ends us too); when CMD died of
 *    a signal of anyone else's, that same signal ends us (so the shell
 *    sees 128 + it); 127 when CMD is not found, 126 when it cannot run;
 *    125 on a bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t timed_out;
static volatile sig_atomic_t term_signal = SIGTERM;
static volatile pid_t child;
static unsigned grace;

/* @sig to @where (0: our group), ignored by us first when it is the group
 * (it reaches us too; SIGKILL cannot be, and ends us with the rest). */
static void send_sig(pid_t where, int sig)
{
	if (where == 0 && sig != SIGKILL)
		signal(sig, SIG_IGN);
	kill(where, sig);
}

/* An alarm (the deadline, then the grace's end) or a signal to pass on. */
static void on_signal(int sig)
{
	int saved = errno;

	if (sig == SIGALRM) {
		timed_out = 1;
		sig = term_signal;
	}
	if (child <= 0)
		_exit(128 + sig);
	if (grace) {
		/* the next alarm sends SIGKILL */
		term_signal = SIGKILL;
		alarm(grace);
		grace = 0;
	}
	send_sig(child, sig);
	send_sig(0, sig);
	if (sig != SIGKILL && sig != SIGCONT) {
		send_sig(child, SIGCONT);
		send_sig(0, SIGCONT);
	}
	errno = saved;
}

static unsigned seconds(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > 1000000) {
		fprintf(stderr, "deadline: bad number of seconds \"%s\"\n", s);
		exit(125);
	}
	return (unsigned)v;
}

int main(int argc, char **argv)
{
	static const int forwarded[] = { SIGALRM, SIGINT, SIGQUIT, SIGHUP, SIGTERM };
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned secs, k = 5;
	posix_spawnattr_t attr;
	sigset_t dfl;
	int status, err, i = 1;
	pid_t pid;

	if (argc > 2 && !strcmp(argv[1], "-k")) {
		k = seconds(argv[2]);
		i = 3;
	}
	if (argc - i < 2) {
		fprintf(stderr, "usage: deadline [-k GRACE] SECS CMD [ARGS...]\n");
		return 125;
	}
	secs = seconds(argv[i]);
	grace = k;
	setpgid(0, 0);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGTTIN);
	sigaddset(&dfl, SIGTTOU);
	sigemptyset(&sa.sa_mask);
	for (size_t n = 0; n < sizeof(forwarded) / sizeof(*forwarded); n++)
		sigaction(forwarded[n], &sa, NULL);

	/* (posix_spawn: the child shares our memory until it executes CMD,
	 * 1 ms less than a fork here) */
	if (posix_spawnattr_init(&attr) || posix_spawnattr_setsigdefault(&attr, &dfl) ||
	    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF)) {
		fprintf(stderr, "deadline: posix_spawnattr failed\n");
		return 125;
	}
	err = posix_spawnp(&pid, argv[i + 1], NULL, &attr, argv + i + 1, environ);
	if (err) {
		fprintf(stderr, "deadline: failed to run command '%s': %s\n", argv[i + 1],
		        strerror(err));
		return err == ENOENT ? 127 : 126;
	}
	child = pid;
	if (secs)
		alarm(secs);

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("deadline: waitpid");
			return 125;
		}
	if (WIFEXITED(status))
		return timed_out ? 124 : WEXITSTATUS(status);
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);

		if (timed_out)
			return sig == SIGKILL ? 128 + SIGKILL : 124;
		/* died of someone else's signal: so do we (no core of ours) */
		setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
		signal(sig, SIG_DFL);
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(sig);
		return 128 + sig;
	}
	return 125;
}
