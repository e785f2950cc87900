/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runs inside a busybox container (static: no libc there) for
 * 80-seccomp.sh: for each argument NR, the raw system call NR with the
 * harmless arguments (-1, 0, 0, 0, 0, 0), and one line "NR ERRNO" with
 * the errno's name ("ok" when it did not fail).  Every call used by the
 * test fails on such arguments (EBADF, EFAULT, EINVAL) where the kernel
 * has it, ENOSYS where it does not, EPERM where a filter says no.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		long nr = strtol(argv[i], NULL, 0);
		long r = syscall(nr, -1L, 0L, 0L, 0L, 0L, 0L);
		int e = errno;

		printf("%ld %s\n", nr,
		       r >= 0               ? "ok"
		       : strerrorname_np(e) ? strerrorname_np(e)
		                            : "?");
	}
	return 0;
}
