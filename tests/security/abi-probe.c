/* SPDX-License-Identifier: Apache-2.0 */
/*
 * abi-probe CALL...: the probe of tests/security/syscall-abi.sh.  A static
 * x86_64 program that issues system calls through the other two ABIs an
 * x86_64 kernel may take from the same process:
 *
 *   x86_64  `syscall`, the native numbers (mkdir 83, getpid 39);
 *   i386    `int $0x80`, the i386 numbers (mkdir 39, getpid 20), which
 *           the kernel takes when it has CONFIG_IA32_EMULATION; seccomp
 *           sees them as AUDIT_ARCH_I386;
 *   x32     `syscall` with __X32_SYSCALL_BIT (0x40000000) in the number
 *           (mkdir 83, getpid 39 of the common table), taken when the
 *           kernel has CONFIG_X86_X32_ABI (ENOSYS otherwise, but only
 *           after seccomp, which sees AUDIT_ARCH_X86_64 with the bit).
 *
 * The numbers matter: i386's mkdir is 39, x86_64's getpid.  A filter that
 * looks at the number without the architecture lets an i386 mkdir through
 * as a getpid.
 *
 * Each CALL is ABI:NAME[:PATH] (NAME is mkdir or getpid) and runs in a
 * child of its own, so that a filter that kills it ends only that child.
 * One line per CALL on stdout:
 *
 *   ABI:NAME[:PATH] ok                 (getpid: the pid is the right one)
 *   ABI:NAME[:PATH] errno=ENAME (N)
 *   ABI:NAME[:PATH] signal=SIGNAME (N) the child was killed (SIGSYS: a
 *                                      seccomp KILL action)
 *   ABI:NAME[:PATH] wrong=VALUE        getpid returned something else
 *
 * Exit status 0 when every CALL was understood, 2 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define X32_SYSCALL_BIT 0x40000000L

enum abi { ABI_X86_64, ABI_I386, ABI_X32 };

struct call {
	enum abi abi;
	int getpid; /* else mkdir */
	const char *path;
};

/* int $0x80 takes 32-bit registers: the path must be below 4 GiB */
static char *low_page;

static long sys_x86_64(long nr, long a, long b)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b) : "rcx", "r11", "memory");
	return ret;
}

static long sys_i386(long nr, long a, long b)
{
	long ret;

	/* the compat entry hands back r8-r11 zeroed */
	__asm__ volatile("int $0x80"
	                 : "=a"(ret)
	                 : "a"(nr), "b"(a), "c"(b)
	                 : "r8", "r9", "r10", "r11", "memory");
	return (long)(int)ret;
}

static long do_call(const struct call *c)
{
	long path = (long)(uintptr_t)low_page;

	switch (c->abi) {
	case ABI_I386:
		return c->getpid ? sys_i386(20, 0, 0) : sys_i386(39, path, 0755);
	case ABI_X32:
		return c->getpid ? sys_x86_64(X32_SYSCALL_BIT | 39, 0, 0)
		                 : sys_x86_64(X32_SYSCALL_BIT | 83, path, 0755);
	case ABI_X86_64:
	default:
		return c->getpid ? sys_x86_64(39, 0, 0) : sys_x86_64(83, path, 0755);
	}
}

static int parse(char *arg, struct call *c)
{
	char *abi = strtok(arg, ":"), *name = strtok(NULL, ":"), *path = strtok(NULL, "");

	if (!abi || !name)
		return -1;
	if (strcmp(abi, "x86_64") == 0)
		c->abi = ABI_X86_64;
	else if (strcmp(abi, "i386") == 0)
		c->abi = ABI_I386;
	else if (strcmp(abi, "x32") == 0)
		c->abi = ABI_X32;
	else
		return -1;
	if (strcmp(name, "getpid") == 0)
		c->getpid = 1;
	else if (strcmp(name, "mkdir") == 0 && path && strlen(path) < 4000)
		c->getpid = 0;
	else
		return -1;
	c->path = path;
	return 0;
}

/* The call in a child: its result through a pipe, or its death. */
static void run(const struct call *c, const char *label)
{
	int p[2], status;
	long ret = 0;
	pid_t pid;

	fflush(stdout);
	if (pipe(p) < 0) {
		perror("abi-probe: pipe");
		exit(2);
	}
	pid = fork();
	if (pid < 0) {
		perror("abi-probe: fork");
		exit(2);
	}
	if (pid == 0) {
		/* killed by SIGSYS: no core file (nor core_pattern's program) */
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		close(p[0]);
		if (c->path)
			strcpy(low_page, c->path);
		ret = do_call(c);
		if (c->getpid && ret == (long)getpid())
			ret = 0;
		else if (c->getpid && ret > 0)
			ret = -100000 - ret; /* a pid, not ours */
		_exit(write(p[1], &ret, sizeof(ret)) == sizeof(ret) ? 0 : 3);
	}
	close(p[1]);
	if (read(p[0], &ret, sizeof(ret)) != sizeof(ret))
		ret = 1; /* nothing: it died */
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("abi-probe: waitpid");
			exit(2);
		}
	if (WIFSIGNALED(status))
		printf("%s signal=SIG%s (%d)\n", label, sigabbrev_np(WTERMSIG(status)) ?: "?",
		       WTERMSIG(status));
	else if (ret == 0)
		printf("%s ok\n", label);
	else if (ret <= -100000)
		printf("%s wrong=%ld\n", label, -(ret + 100000));
	else if (ret < 0 && ret > -4096)
		printf("%s errno=%s (%ld)\n", label, strerrorname_np((int)-ret) ?: "?", -ret);
	else
		printf("%s wrong=%ld\n", label, ret);
}

int main(int argc, char **argv)
{
	int bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: abi-probe {x86_64|i386|x32}:{getpid|mkdir:PATH}...\n");
		return 2;
	}
	low_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
	                -1, 0);
	if (low_page == MAP_FAILED) {
		perror("abi-probe: mmap(MAP_32BIT)");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		char label[4096], *copy = strdup(argv[i]);
		struct call c;

		snprintf(label, sizeof(label), "%s", argv[i]);
		if (!copy || parse(copy, &c) < 0) {
			printf("%s bad-call\n", label);
			bad = 1;
		} else {
			run(&c, label);
		}
		free(copy);
	}
	fflush(stdout);
	return bad ? 2 : 0;
}
