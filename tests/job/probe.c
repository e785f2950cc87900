/* SPDX-License-Identifier: Apache-2.0 */
/*
 * probe CALL...: what a job may and may not do, for the tests in tests/job.  Busybox
 * has no keyctl, ptrace or bpf, and its mount and unshare say little about
 * why they failed: this issues the raw system calls.  Statically linked, it
 * runs in a busybox rootfs.
 *
 * Each CALL runs in a child of its own, so that a seccomp filter that kills
 * (SIGSYS) ends only that child, and prints one line on stdout:
 *
 *   CALL ok                  the call succeeded
 *   CALL errno=ENAME         it failed with that errno
 *   CALL signal=SIGNAME      the child was killed by that signal
 *
 * The CALLs:
 *   mount            mount("none", "/tmp", "tmpfs")
 *   umount           umount2("/proc", MNT_DETACH)
 *   pivot_root       pivot_root(".", ".") in /
 *   unshare-user     unshare(CLONE_NEWUSER)
 *   unshare-mnt      unshare(CLONE_NEWNS)
 *   clone-user       clone(CLONE_NEWUSER) (the child exits at once)
 *   ptrace-attach    PTRACE_ATTACH to a child of its own (same uid)
 *   ptrace-traceme   PTRACE_TRACEME
 *   process_vm_readv of a child of its own
 *   keyctl           KEYCTL_GET_KEYRING_ID of the session keyring
 *   add_key          a "user" key in the process keyring
 *   request_key      a "user" key that does not exist
 *   bpf              BPF_MAP_CREATE of a small array
 *   perf_event_open  a software clock counting this process, user only
 *   userfaultfd      with UFFD_USER_MODE_ONLY (what an unprivileged
 *                    process may open when the call is allowed)
 *   kexec_load       with no segments
 *   open_by_handle_at  a handle of / from name_to_handle_at
 *   mount-int80      mount("none", "/tmp", "tmpfs") through int 0x80
 *   getpid-int80     getpid() through int 0x80 (whether the kernel has the
 *                    32-bit entry at all: some refuse it, SIGSEGV)
 *   unix-socket      a unix socket bound at /tmp/probe.sock
 *
 * `probe segv` (alone) dies of a SIGSEGV, for the tests of a job that is
 * killed by a signal.  `probe loop N CALL` makes CALL N times in this
 * process, and `probe threads T N CALL` N times in each of T threads at
 * once; each prints "CALL N errno=ENAME" for each errno it got, N the
 * times (and "CALL N ok" for successes).  Exit status 0, or 2 for an
 * unknown CALL.
 *
 * Never run it as root on the host: mount, umount and pivot_root would
 * really happen there.  It refuses to (exit 3) when it is uid 0 of the
 * initial user namespace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <linux/bpf.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

/* A child that waits to be looked at, killed by the caller. */
static pid_t sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static void reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

static long do_ptrace_attach(void)
{
	pid_t pid = sleeper();
	long r;

	if (pid < 0)
		return -1;
	r = ptrace(PTRACE_ATTACH, pid, NULL, NULL);
	reap(pid);
	return r;
}

static long do_process_vm_readv(void)
{
	static char buf[16];
	struct iovec local = { buf, sizeof(buf) }, remote = { buf, sizeof(buf) };
	pid_t pid = sleeper();
	long r;

	if (pid < 0)
		return -1;
	r = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	reap(pid);
	return r < 0 ? -1 : 0;
}

static long do_clone_user(void)
{
	long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, NULL);

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return pid < 0 ? -1 : 0;
}

static long do_bpf(void)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	return syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
}

static long do_perf_event_open(void)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

static long do_open_by_handle_at(void)
{
	struct file_handle *fh = calloc(1, sizeof(*fh) + MAX_HANDLE_SZ);
	int mount_id;

	if (!fh)
		return -1;
	fh->handle_bytes = MAX_HANDLE_SZ;
	/* the handle itself: when even this is refused, so is the rest */
	if (name_to_handle_at(AT_FDCWD, "/", fh, &mount_id, 0) < 0)
		return -1;
	return open_by_handle_at(AT_FDCWD, fh, O_RDONLY);
}

/* uid 0 of the initial user namespace (whose uid_map is "0 0 4294967295"). */
static int host_root(void)
{
	unsigned long inside, outside, count;
	FILE *f;
	int r;

	if (geteuid() != 0)
		return 0;
	f = fopen("/proc/self/uid_map", "re");
	if (!f)
		return 1; /* cannot tell: assume the worst */
	r = fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3 && inside == 0 &&
	    outside == 0 && count == 4294967295UL;
	fclose(f);
	return r;
}

/* getpid() through the 32-bit entry (i386's 20) */
static long do_getpid_int80(void)
{
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
	return r;
}

/* mount("none", "/tmp", "tmpfs") through the 32-bit entry (int 0x80):
 * the same call to the job's filter, under another architecture */
static long do_mount_int80(void)
{
	static const char src[] = "none", dst[] = "/tmp", type[] = "tmpfs";
	long r;

	/* i386 mount is 21; the pointers fit in 32 bits in a static binary's
	 * data, which is mapped low */
	__asm__ volatile("int $0x80"
	                 : "=a"(r)
	                 : "a"(21L), "b"(src), "c"(dst), "d"(type), "S"(0L), "D"(0L)
	                 : "memory");
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* A unix socket bound at /tmp/probe.sock (what a job's server leaves). */
static long do_unix_socket(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX, .sun_path = "/tmp/probe.sock" };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	return bind(fd, (struct sockaddr *)&a, sizeof(a));
}

static long call(const char *name)
{
	if (!strcmp(name, "mount"))
		return mount("none", "/tmp", "tmpfs", 0, NULL);
	if (!strcmp(name, "umount"))
		return umount2("/proc", MNT_DETACH);
	if (!strcmp(name, "pivot_root"))
		return chdir("/") < 0 ? -1 : syscall(SYS_pivot_root, ".", ".");
	if (!strcmp(name, "unshare-user"))
		return unshare(CLONE_NEWUSER);
	if (!strcmp(name, "unshare-mnt"))
		return unshare(CLONE_NEWNS);
	if (!strcmp(name, "clone-user"))
		return do_clone_user();
	if (!strcmp(name, "ptrace-attach"))
		return do_ptrace_attach();
	if (!strcmp(name, "ptrace-traceme"))
		return ptrace(PTRACE_TRACEME, 0, NULL, NULL);
	if (!strcmp(name, "process_vm_readv"))
		return do_process_vm_readv();
	if (!strcmp(name, "keyctl"))
		return syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
	if (!strcmp(name, "add_key"))
		return syscall(SYS_add_key, "user", "brig-job-probe", "x", 1,
		               KEY_SPEC_PROCESS_KEYRING);
	if (!strcmp(name, "request_key"))
		return syscall(SYS_request_key, "user", "brig-job-probe-none", NULL, 0);
	if (!strcmp(name, "bpf"))
		return do_bpf();
	if (!strcmp(name, "perf_event_open"))
		return do_perf_event_open();
	if (!strcmp(name, "userfaultfd"))
		return syscall(SYS_userfaultfd, UFFD_USER_MODE_ONLY);
	if (!strcmp(name, "kexec_load"))
		return syscall(SYS_kexec_load, 0, 0, NULL, 0);
	if (!strcmp(name, "open_by_handle_at"))
		return do_open_by_handle_at();
	if (!strcmp(name, "mount-int80"))
		return do_mount_int80();
	if (!strcmp(name, "getpid-int80"))
		return do_getpid_int80();
	if (!strcmp(name, "unix-socket"))
		return do_unix_socket();
	fprintf(stderr, "probe: unknown call %s\n", name);
	_exit(2);
}

/* Of a loop: how many times each errno came (0: success). */
static unsigned long tally[4096];
static pthread_mutex_t tally_lock = PTHREAD_MUTEX_INITIALIZER;

struct loop {
	const char *name;
	unsigned long n;
};

static void *loop(void *arg)
{
	const struct loop *l = arg;
	static __thread unsigned long mine[4096];

	for (unsigned long k = 0; k < l->n; k++) {
		long r = call(l->name);
		int e = r < 0 ? errno : 0;

		mine[e >= 0 && e < 4096 ? e : 0]++;
	}
	pthread_mutex_lock(&tally_lock);
	for (int e = 0; e < 4096; e++)
		tally[e] += mine[e];
	pthread_mutex_unlock(&tally_lock);
	return NULL;
}

/* probe loop N CALL, probe threads T N CALL */
static int loops(unsigned long threads, unsigned long n, const char *name)
{
	struct loop l = { name, n };
	pthread_t t[64];

	if (threads < 1 || threads > 64)
		return 2;
	for (unsigned long i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, loop, &l)) {
			printf("%s pthread_create failed\n", name);
			return 1;
		}
	for (unsigned long i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	for (int e = 0; e < 4096; e++)
		if (tally[e] && e == 0)
			printf("%s %lu ok\n", name, tally[e]);
		else if (tally[e])
			printf("%s %lu errno=%s\n", name, tally[e], strerrorname_np(e));
	return 0;
}

int main(int argc, char **argv)
{
	int i, st;

	if (argc == 2 && !strcmp(argv[1], "segv")) {
		/* a real fault: the kernel's SIGSEGV reaches even a pid 1 */
		volatile uintptr_t bad = 8;

		*(volatile int *)bad = 1;
		return 1;
	}
	if (host_root()) {
		fprintf(stderr, "probe: refusing to run as root on the host\n");
		return 3;
	}
	if (argc == 4 && !strcmp(argv[1], "loop"))
		return loops(1, strtoul(argv[2], NULL, 10), argv[3]);
	if (argc == 5 && !strcmp(argv[1], "threads"))
		return loops(strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10), argv[4]);
	for (i = 1; i < argc; i++) {
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			printf("%s fork errno=%s\n", argv[i], strerrorname_np(errno));
			continue;
		}
		if (pid == 0) {
			long r = call(argv[i]);

			if (r < 0)
				printf("%s errno=%s\n", argv[i], strerrorname_np(errno));
			else
				printf("%s ok\n", argv[i]);
			fflush(stdout);
			_exit(0);
		}
		if (waitpid(pid, &st, 0) < 0)
			printf("%s waitpid errno=%s\n", argv[i], strerrorname_np(errno));
		else if (WIFSIGNALED(st))
			printf("%s signal=SIG%s\n", argv[i], sigabbrev_np(WTERMSIG(st)));
		else if (WEXITSTATUS(st) == 2)
			return 2;
	}
	return 0;
}
