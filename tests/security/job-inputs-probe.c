/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What tests/security/job-inputs.sh runs in a job, as a setuid-root copy
 * and plainly: it prints its real and effective ids, then, for each PATH
 * argument, whether open(PATH, O_RDONLY) and a read of one byte work
 * (a device node of the rootfs must not be usable).  Static: it runs in a
 * busybox rootfs.
 *
 *   job-inputs-probe [PATH...]
 *     ids ruid=R euid=E rgid=G egid=G
 *     open PATH ok | open PATH errno=N (STRERROR)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	printf("ids ruid=%u euid=%u rgid=%u egid=%u\n", (unsigned)getuid(), (unsigned)geteuid(),
	       (unsigned)getgid(), (unsigned)getegid());
	for (int i = 1; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		char c;

		if (fd < 0 || read(fd, &c, 1) < 0) {
			int e = errno;

			printf("open %s errno=%d (%s)\n", argv[i], e, strerror(e));
		} else {
			printf("open %s ok\n", argv[i]);
		}
		if (fd >= 0)
			close(fd);
	}
	return 0;
}
