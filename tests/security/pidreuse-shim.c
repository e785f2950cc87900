/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pidreuse-shim.so: LD_PRELOADed into brig by tests/security/cgroup-hijack.sh
 * to make a pid reuse happen at the worst moment for brig, deterministically.
 *
 * brig signals the processes of a container by pid: it lists them (from
 * /proc or a cgroup.procs file), then pins each with pidfd_open().  If one
 * exits between the two and its pid is handed to an unrelated process, the
 * pidfd pins that process, and the signal is someone else's.  brig's
 * defence is to pin first and check membership after.
 *
 * The shim waits for brig to pin (or freeze, see below) the pid
 * $PIDREUSE_TARGET, a container process the test chose.  Then, before
 * letting brig go on:
 *   1. it SIGKILLs that process and waits until it is reaped;
 *   2. it makes a victim take the pid: write P-1 to ns_last_pid and fork,
 *      retrying, until the child is P (the test runs brig in a pid
 *      namespace of its own, so only that namespace's pids are touched);
 *      the child, in its own session with no fd of brig's, execs
 *      $PIDREUSE_VICTIM ("sleep"-like, given one argument: 1000);
 *   3. it lets brig's call go on.
 * Every step is appended to $PIDREUSE_REPORT ("reused P" when the victim
 * really has pid P), so that the test can tell a failed attack from a
 * defended one.
 *
 * The moments brig may pin the pid: pidfd_open() (glibc's, or through
 * syscall(SYS_pidfd_open)), or an open of "/proc/P" itself.  And the
 * moment a cgroup is frozen (a write of FROZEN to freezer.state, of 1 to
 * cgroup.freeze), since a pid read before a freeze may belong to a process
 * that exited before it; a brig that freezes first and reads after is then
 * simply not shown the pid.  Whichever comes first triggers, once.
 *
 * With $PIDREUSE_NO_CGROUP_KILL set, opening any "cgroup.kill" fails with
 * ENOENT, as on a v1-only host or a kernel before 5.14: brig then drains a
 * cgroup by signalling its pids one by one, the path under attack.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/close_range.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int done;

static void report(const char *fmt, ...)
{
	const char *path = getenv("PIDREUSE_REPORT");
	char buf[512];
	va_list ap;
	int fd, n;

	if (!path)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, buf, (size_t)n) != n) {
		/* nothing to do: the test sees a missing line */
	}
	close(fd);
}

static pid_t target(void)
{
	const char *s = getenv("PIDREUSE_TARGET");

	return s ? (pid_t)atoi(s) : 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int set_last_pid(pid_t p)
{
	char buf[32];
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
	int n, r;

	if (fd < 0)
		return -1;
	n = snprintf(buf, sizeof(buf), "%d", (int)p);
	r = write(fd, buf, (size_t)n) == n ? 0 : -1;
	close(fd);
	return r;
}

static void victim(void)
{
	const char *prog = getenv("PIDREUSE_VICTIM");
	sigset_t none;

	/* nothing of brig's: no fd (its locks: closed at execve, which
	 * also tells brig's side the victim is ready), no blocked signal,
	 * no process group or session */
	syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setsid();
	report("victim %d", (int)getpid());
	execl(prog ? prog : "/bin/sleep", prog ? prog : "/bin/sleep", "1000", (char *)NULL);
	_exit(127);
}

/* The attack: P gone, then P a victim's.  Runs once, inside brig. */
static void reuse(const char *why)
{
	pid_t p = target(), c;
	char proc[64], byte;
	int saved = errno, i, ready[2];

	done = 1;
	report("trigger %s %d", why, (int)p);
	if (kill(p, SIGKILL) < 0 && errno != ESRCH)
		report("kill %d: %s", (int)p, strerror(errno));
	/* reaped, not only dead: a zombie still holds its pid */
	snprintf(proc, sizeof(proc), "/proc/%d", (int)p);
	for (i = 0; i < 5000 && access(proc, F_OK) == 0; i++)
		sleep_ms(1);
	if (access(proc, F_OK) == 0) {
		report("pid %d was not reaped", (int)p);
		goto out;
	}
	for (i = 0; i < 1000; i++) {
		if (set_last_pid(p - 1) < 0) {
			report("ns_last_pid: %s", strerror(errno));
			goto out;
		}
		if (pipe2(ready, O_CLOEXEC) < 0) {
			report("pipe: %s", strerror(errno));
			goto out;
		}
		c = fork();
		if (c < 0) {
			report("fork: %s", strerror(errno));
			goto out;
		}
		if (c == 0) {
			if (getpid() != p)
				_exit(0);
			victim();
		}
		close(ready[1]);
		if (c == p) {
			/* until its execve: it is the victim before brig goes on */
			while (read(ready[0], &byte, 1) < 0 && errno == EINTR)
				;
			close(ready[0]);
			report("reused %d after %d fork(s)", (int)p, i + 1);
			goto out;
		}
		close(ready[0]);
		waitpid(c, NULL, 0);
	}
	report("no reuse of %d", (int)p);
out:
	errno = saved;
}

/* ------------------------------------------------------- the pin points */

int pidfd_open(pid_t pid, unsigned int flags)
{
	if (!done && pid > 0 && pid == target())
		reuse("pidfd_open");
	return (int)syscall(SYS_pidfd_open, pid, flags);
}

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;

	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_pidfd_open && !done && a[0] > 0 && (pid_t)a[0] == target())
		reuse("syscall(SYS_pidfd_open)");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* "/proc/P" or "/proc/P/": a directory fd is a pidfd too */
static int is_target_dir(const char *path)
{
	char want[64];
	size_t n;

	if (done || !path || target() <= 0)
		return 0;
	n = (size_t)snprintf(want, sizeof(want), "/proc/%d", (int)target());
	return !strncmp(path, want, n) && (!path[n] || (path[n] == '/' && !path[n + 1]));
}

static int is_cgroup_kill(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	return getenv("PIDREUSE_NO_CGROUP_KILL") && n >= 11 &&
	       !strcmp(path + n - 11, "cgroup.kill") && (n == 11 || path[n - 12] == '/');
}

static int open_common(int dirfd, const char *path, int flags, mode_t mode, int at)
{
	static int (*real_open)(const char *, int, ...);
	static int (*real_openat)(int, const char *, int, ...);

	if (is_cgroup_kill(path)) {
		errno = ENOENT;
		return -1;
	}
	if (is_target_dir(path))
		reuse("open /proc/PID");
	if (at) {
		if (!real_openat)
			real_openat =
			    (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
		return real_openat(dirfd, path, flags, mode);
	}
	if (!real_open)
		real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	return real_open(path, flags, mode);
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return open_common(AT_FDCWD, path, flags, mode, 0);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return open_common(AT_FDCWD, path, flags, mode, 0);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return open_common(dirfd, path, flags, mode, 1);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return open_common(dirfd, path, flags, mode, 1);
}

/* A freeze of the container's cgroup: FROZEN into v1's freezer.state, 1
 * into v2's cgroup.freeze. */
static int is_freeze(int fd, const void *buf, size_t len)
{
	const char *b = buf;
	char link[64], path[4096];
	ssize_t n;
	int v1 = len >= 6 && !memcmp(b, "FROZEN", 6), v2 = len >= 1 && b[0] == '1';

	if (done || target() <= 0 || (!v1 && !v2))
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 14)
		return 0;
	path[n] = '\0';
	return (v1 && !strcmp(path + n - 14, "/freezer.state")) ||
	       (v2 && !strcmp(path + n - 14, "/cgroup.freeze"));
}

ssize_t write(int fd, const void *buf, size_t len)
{
	static ssize_t (*real)(int, const void *, size_t);

	if (!real)
		real = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (is_freeze(fd, buf, len))
		reuse("freeze");
	return real(fd, buf, len);
}
