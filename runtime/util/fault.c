/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "util/fault.h"

#ifdef BRIG_FAULTS
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Read once, at brig's start (brig_fault_init): a process that has
 * replaced its environment (the init, before execve) still sees them. */
static char fault[256], fault_log[4096];
static bool loaded;
static int log_fd = -1;

static void copy_env(const char *name, char *to, size_t size)
{
	const char *v = getenv(name);

	to[0] = '\0';
	if (v && strlen(v) < size)
		strcpy(to, v);
}

static void open_log(void)
{
	int fd = open(fault_log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

	/* high, out of the way of the fds brig places */
	log_fd = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 900) : -1;
	if (fd >= 0)
		close(fd);
}

void brig_fault_init(void)
{
	copy_env("BRIG_FAULT", fault, sizeof(fault));
	copy_env("BRIG_FAULT_LOG", fault_log, sizeof(fault_log));
	loaded = true;
	/* opened now: the init writes to it from inside its own root */
	if (fault_log[0])
		open_log();
}

/* One line a step; where the fd was closed (by a process that closes all
 * of its fds), the file is opened again. */
static void log_step(const char *step)
{
	char line[256];
	size_t len = strlen(step);

	if (!fault_log[0] || len >= sizeof(line))
		return;
	memcpy(line, step, len);
	line[len++] = '\n';
	if (log_fd < 0 || write(log_fd, line, len) < 0) {
		open_log();
		if (log_fd >= 0)
			(void)!write(log_fd, line, len);
	}
}

/* @n bytes allocated and the pointer dropped: a leak that the sanitizer
 * build must report at exit (tests/integration/01-harness.sh). */
static __attribute__((noinline)) void leak(size_t n)
{
	char *volatile p = malloc(n);

	if (p)
		memset(p, 0x5a, n);
	p = NULL;
}

int brig_fault(const char *step)
{
	int saved = errno;
	size_t len = strlen(step);
	const char *action;
	long n;

	if (!loaded)
		brig_fault_init();
	log_step(step);
	errno = saved;
	if (strncmp(fault, step, len) != 0 || fault[len] != ':')
		return 0;
	action = fault + len + 1;
	if (!strcmp(action, "kill")) {
		kill(getpid(), SIGKILL);
		/* the init of a pid namespace ignores its own SIGKILL */
		_exit(128 + SIGKILL);
	} else if (!strcmp(action, "stop")) {
		kill(getpid(), SIGSTOP);
	} else if (!strncmp(action, "sleep=", 6) && (n = strtol(action + 6, NULL, 10)) > 0) {
		struct timespec ts = { .tv_sec = n / 1000, .tv_nsec = n % 1000 * 1000000L };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		errno = saved;
	} else if (!strncmp(action, "errno=", 6) && (n = strtol(action + 6, NULL, 10)) > 0) {
		errno = (int)n;
		return -1;
	} else if (!strncmp(action, "leak=", 5) && (n = strtol(action + 5, NULL, 10)) > 0) {
		leak((size_t)n);
		errno = saved;
	}
	return 0;
}
#endif
