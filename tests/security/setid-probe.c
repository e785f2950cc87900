/* SPDX-License-Identifier: Apache-2.0 */
/*
 * setid-probe DIR CALL...: the raw system calls a hostile job would use to
 * leave a setuid, setgid or device file in DIR (a rw bind), for
 * tests/security/job-binds.sh and job-confine.sh.  Statically linked: it
 * runs in a busybox rootfs.  Each CALL prints one line:
 *
 *   CALL ok            the call succeeded (the file is DIR/CALL)
 *   CALL errno=ENAME   it failed with that errno
 *
 * The CALLs (each makes or changes DIR/<CALL>, mode 06755 unless said):
 *   chmod fchmod fchmodat fchmodat2   on a file made first with mode 0755
 *   open openat creat                 create with the mode
 *   tmpfile                           openat(O_TMPFILE) with the mode, then linkat
 *   openat2                           create with the mode through open_how
 *   mkdir mkdirat                     a directory, mode 06755
 *   mknod-suid                        mknodat of a regular file, 06755
 *   mknod-chr mknod-blk               mknodat of /dev/null's and a block device's numbers
 *   io_uring                          io_uring_setup(1)
 *
 * `setid-probe euid` (alone) prints "euid=N egid=N": what a host user who
 * runs a copy the job left gets.
 *
 * Exit status 0, or 2 for an unknown CALL.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif

#define MODE 06755

struct how {
	uint64_t flags, mode, resolve;
};

static int plain(int dir, const char *name)
{
	int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);

	if (fd >= 0)
		close(fd);
	return fd < 0 ? -1 : 0;
}

static long call(int dir, const char *c)
{
	char params[120] = { 0 };
	long r;
	int fd;

	if (!strcmp(c, "chmod") || !strcmp(c, "fchmod") || !strcmp(c, "fchmodat") ||
	    !strcmp(c, "fchmodat2")) {
		if (plain(dir, c) < 0)
			return -1;
		if (!strcmp(c, "fchmod")) {
			fd = openat(dir, c, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				return -1;
			r = syscall(SYS_fchmod, fd, MODE);
			close(fd);
			return r;
		}
		if (!strcmp(c, "chmod")) {
			if (fchdir(dir) < 0)
				return -1;
			return syscall(SYS_chmod, c, MODE);
		}
		if (!strcmp(c, "fchmodat"))
			return syscall(SYS_fchmodat, dir, c, MODE);
		return syscall(SYS_fchmodat2, dir, c, MODE, 0);
	}
	if (!strcmp(c, "open") || !strcmp(c, "creat")) {
		if (fchdir(dir) < 0)
			return -1;
		r = !strcmp(c, "open") ? syscall(SYS_open, c, O_WRONLY | O_CREAT, MODE)
		                       : syscall(SYS_creat, c, MODE);
		return r < 0 ? r : close((int)r);
	}
	if (!strcmp(c, "openat")) {
		r = syscall(SYS_openat, dir, c, O_WRONLY | O_CREAT, MODE);
		return r < 0 ? r : close((int)r);
	}
	if (!strcmp(c, "tmpfile")) {
		char path[64];

		r = syscall(SYS_openat, dir, ".", O_TMPFILE | O_WRONLY, MODE);
		if (r < 0)
			return r;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", (int)r);
		if (linkat(AT_FDCWD, path, dir, c, AT_SYMLINK_FOLLOW) < 0)
			return -1;
		return close((int)r);
	}
	if (!strcmp(c, "openat2")) {
		struct how h = { O_WRONLY | O_CREAT, MODE, 0 };

		r = syscall(SYS_openat2, dir, c, &h, sizeof(h));
		return r < 0 ? r : close((int)r);
	}
	if (!strcmp(c, "mkdir")) {
		if (fchdir(dir) < 0)
			return -1;
		return syscall(SYS_mkdir, c, MODE);
	}
	if (!strcmp(c, "mkdirat"))
		return syscall(SYS_mkdirat, dir, c, MODE);
	if (!strcmp(c, "mknod-suid"))
		return syscall(SYS_mknodat, dir, c, S_IFREG | MODE, 0);
	if (!strcmp(c, "mknod-chr"))
		return syscall(SYS_mknodat, dir, c, S_IFCHR | 0666, makedev(1, 3));
	if (!strcmp(c, "mknod-blk"))
		return syscall(SYS_mknodat, dir, c, S_IFBLK | 0666, makedev(7, 0));
	if (!strcmp(c, "io_uring"))
		return syscall(SYS_io_uring_setup, 1, params);
	errno = 0;
	return -2;
}

int main(int argc, char **argv)
{
	int dir, status = 0;

	if (argc == 2 && !strcmp(argv[1], "euid")) {
		printf("euid=%u egid=%u\n", (unsigned)geteuid(), (unsigned)getegid());
		return 0;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: setid-probe DIR CALL...\n");
		return 2;
	}
	dir = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0) {
		fprintf(stderr, "setid-probe: open \"%s\": %s\n", argv[1], strerror(errno));
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		long r;

		errno = 0;
		r = call(dir, argv[i]);
		if (r == -2) {
			fprintf(stderr, "setid-probe: unknown call \"%s\"\n", argv[i]);
			status = 2;
		} else if (r < 0) {
			printf("%s errno=%s\n", argv[i], strerrorname_np(errno));
		} else {
			printf("%s ok\n", argv[i]);
		}
		fflush(stdout);
	}
	return status;
}
