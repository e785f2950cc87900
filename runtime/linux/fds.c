/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fds a container's process keeps: the caller's, noted at start, and
 * nothing of brig's (linux/process.h).
 */
#include "config.h"
#include "linux/process.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/keyctl.h>
#include <linux/magic.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "linux/caps.h"
#include "linux/procfs.h"
#include "linux/selinux.h"
#include "linux/syscalls.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/strbuf.h"

/* ---------------------------------------------------------------- fds */

/* A decimal unsigned number of at most 9 digits, else -1. */
static long env_count(const char *name)
{
	const char *s = getenv(name);
	char *end;
	long n;

	if (!s || !*s || strlen(s) > 9)
		return -1;
	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || *end || n < 0)
		return -1;
	return n;
}

unsigned int brig_listen_fds(void)
{
	long n = env_count("LISTEN_FDS");
	long pid = env_count("LISTEN_PID");

	if (n > 0 && pid == (long)getpid())
		return (unsigned int)n;
	/* not ours (or malformed): the init must not keep fds for them */
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDNAMES");
	return 0;
}

/* The first fd at or above 3 that was not open when brig started: the
 * caller passed [3, caller_fds_end) and nothing above it counts.  -1 until
 * brig_fds_note_caller() ran (then no fd counts as passed). */
static int caller_fds_end = -1;

void brig_fds_note_caller(void)
{
	const char *before = getenv(BRIG_CALLER_FDS_ENV);
	int fd;

	/* a closed 0, 1 or 2 becomes /dev/null (each open takes the lowest
	 * free number), so that none of brig's own fds lands there and is
	 * handed to the container as its stdio */
	for (fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR | O_NOCTTY) != fd)
			break;
	fd = 3;
	while (fcntl(fd, F_GETFD) >= 0)
		fd++;
	caller_fds_end = fd;
	/* brig re-executed itself (linux/selfexe.h): what its first image saw
	 * counts, whatever it left open; it can only be lower */
	if (before) {
		long n = strtol(before, NULL, 10);

		if (n >= 3 && n < caller_fds_end)
			caller_fds_end = (int)n;
		unsetenv(BRIG_CALLER_FDS_ENV);
	}
}

int brig_fds_caller_end(void)
{
	return caller_fds_end < 3 ? 3 : caller_fds_end;
}

/* $LISTEN_FDS as brig_listen_fds() left it: 0 unless meant for brig. */
static unsigned long listen_count(void)
{
	long n = env_count("LISTEN_FDS");

	return n > 0 ? (unsigned long)n : 0;
}

int brig_fds_check(unsigned int preserve, struct brig_error *err)
{
	unsigned long listen = listen_count(), base = 3 + listen;
	long end = brig_fds_caller_end();

	if (base + preserve > INT_MAX)
		return brig_error_set(err, "too many fds to preserve: %lu", base + preserve - 3);
	/* an fd at or past the first hole may be one of brig's own by now */
	if ((long)base > end)
		return brig_error_setp(err, EBADF, "unable to stat LISTEN_FDS fd %ld (of %lu)",
		                       end - 3, listen);
	if ((long)(base + preserve) > end)
		return brig_error_setp(err, EBADF, "unable to stat preserved-fd %ld (of %u)",
		                       end - (long)base, preserve);
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * Every fd from @from to @to closed.  close_range first; where a seccomp
 * filter of the container (loaded before this when noNewPrivileges is
 * false) denies it or the kernel lacks it, each open fd that
 * /proc/self/fd lists, and without a /proc every fd up to the hard
 * RLIMIT_NOFILE: brig's own work never depends on what the filter allows.
 */
static int close_from(unsigned int from, unsigned int to)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct statfs sfs;
	struct rlimit rl;
	struct dirent *de;

	if (close_range(from, to, 0) == 0)
		return 0;
	if (errno != ENOSYS && errno != EPERM)
		return -1;
	d = opendir("/proc/self/fd");
	/* the container's /proc: it counts only if it is a procfs */
	if (d && fstatfs(dirfd(d), &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC) {
		while ((de = readdir(d))) {
			char *end;
			unsigned long fd = strtoul(de->d_name, &end, 10);

			if (*end || !isdigit((unsigned char)de->d_name[0]) || fd < from ||
			    fd > to || (int)fd == dirfd(d))
				continue;
			close((int)fd);
		}
		return 0;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -1;
	for (unsigned long fd = from; fd <= to && fd < rl.rlim_max; fd++)
		close((int)fd);
	return 0;
}

static bool is_netlink(int fd, int protocol)
{
	int v;
	socklen_t len = sizeof(v);

	return getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &len) == 0 && v == AF_NETLINK &&
	       getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &v, &len) == 0 && v == protocol;
}

/* Every fd from @from on, in the kernel's fd table: @fn(@fd, @data), and
 * the fd closed when it returns true.  -1 when /proc cannot tell. */
static int each_fd(unsigned int from, bool (*fn)(int fd, void *data), void *data)
{
	_cleanup_closedir_ DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char *end;
		unsigned long fd = strtoul(de->d_name, &end, 10);

		if (*end || !isdigit((unsigned char)de->d_name[0]) || fd < from ||
		    (int)fd == dirfd(d))
			continue;
		if (fn((int)fd, data))
			close((int)fd);
	}
	return 0;
}

static bool not_netlink(int fd, void *protocol)
{
	return !is_netlink(fd, *(int *)protocol);
}

int brig_fds_keep_netlink(unsigned int from, int protocol)
{
	if (each_fd(from, not_netlink, &protocol) == 0)
		return 0;
	close_range(from, ~0U, 0);
	return -1;
}

struct netlink_list {
	int protocol;
	int *fds;
	size_t max, n;
};

static bool list_netlink(int fd, void *data)
{
	struct netlink_list *l = data;

	if (l->n < l->max && is_netlink(fd, l->protocol))
		l->fds[l->n++] = fd;
	return false;
}

size_t brig_fds_netlink(int protocol, int *fds, size_t max)
{
	struct netlink_list l = { .protocol = protocol, .fds = fds, .max = max };

	each_fd(0, list_netlink, &l);
	return l.n;
}

int brig_fds_prepare(unsigned int preserve, const int *spare, size_t n_spare,
                     struct brig_error *err)
{
	unsigned long keep = 3UL + listen_count() + preserve;
	unsigned int from;
	int sorted[4] = { 0 };

	if (keep > INT_MAX)
		return brig_error_set(err, "too many fds to preserve: %lu", keep - 3);
	if (n_spare > ARRAY_SIZE(sorted))
		return brig_error_set(err, "too many fds to spare: %zu", n_spare);
	for (int fd = 3; fd < (int)keep; fd++) {
		int flags = fcntl(fd, F_GETFD);

		if (flags < 0)
			continue; /* not open */
		if ((flags & FD_CLOEXEC) && fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC) < 0)
			return brig_error_setp(err, errno, "clear close-on-exec of fd %d", fd);
	}
	/* everything else is closed now, not at execve: an args[0] or cwd
	 * through /proc/self/fd/N must find nothing (CVE-2024-21626) */
	if (n_spare)
		memcpy(sorted, spare, n_spare * sizeof(*spare));
	qsort(sorted, n_spare, sizeof(*sorted), cmp_int);
	from = (unsigned int)keep;
	for (size_t i = 0; i < n_spare; i++) {
		unsigned int fd = (unsigned int)sorted[i];

		if (sorted[i] < (int)keep || fcntl(sorted[i], F_SETFD, FD_CLOEXEC) < 0)
			return brig_error_set(err, "fd %d cannot be spared", sorted[i]);
		if (fd > from && close_from(from, fd - 1) < 0)
			return brig_error_setp(err, errno, "close_range \"%u\"", from);
		if (fd >= from)
			from = fd + 1;
	}
	if (close_from(from, ~0U) < 0)
		return brig_error_setp(err, errno, "close_range \"%u\"", from);
	return 0;
}

/*
 * Every signal back to its default action.  The raw system call, because
 * glibc refuses to touch the two it keeps for itself (32 and 33), which a
 * caller may still have left ignored.
 */
void brig_reset_signals(void)
{
	struct {
		void *handler;
		unsigned long flags;
		void *restorer;
		unsigned long mask;
	} act = { .handler = SIG_DFL };

	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			syscall(SYS_rt_sigaction, sig, &act, NULL, sizeof(act.mask));
}

int brig_fds_place_stdio(const int *stdio, struct brig_error *err)
{
	int high[3];

	for (int i = 0; i < 3; i++) {
		high[i] = fcntl(stdio[i], F_DUPFD_CLOEXEC, 3);
		if (high[i] < 0)
			return brig_error_setp(err, errno, "dup fd %d", stdio[i]);
	}
	for (int i = 0; i < 3; i++) {
		if (dup2(high[i], i) < 0)
			return brig_error_setp(err, errno, "dup2 to fd %d", i);
		close(high[i]);
	}
	return 0;
}
