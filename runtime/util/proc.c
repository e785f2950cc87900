/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "util/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util/cleanup.h"

int brig_proc_stat(pid_t pid, char *state, uint64_t *start_time)
{
	char path[64], buf[1024];
	_cleanup_close_ int fd = -1;
	char *p, *save = NULL;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			errno = ESRCH;
		return -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0) {
		errno = n < 0 ? errno : ESRCH;
		return -1;
	}
	buf[n] = '\0';
	/* the command name may hold spaces and parentheses: skip to the last ')' */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ') {
		errno = EINVAL;
		return -1;
	}
	p += 2;
	/* fields from 3 (state) on; starttime is field 22 */
	for (int field = 3; (p = strtok_r(p, " ", &save)); field++, p = NULL) {
		if (field == 3 && state)
			*state = p[0];
		if (field == 22) {
			if (start_time)
				*start_time = strtoull(p, NULL, 10);
			return 0;
		}
	}
	errno = EINVAL;
	return -1;
}

pid_t brig_pidfd_pid(int pidfd)
{
	char path[64], buf[4096], *line;
	_cleanup_close_ int fd = -1;
	ssize_t n;
	long pid;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	line = strstr(buf, "\nPid:");
	if (!line) {
		errno = EINVAL;
		return -1;
	}
	pid = strtol(line + 5, NULL, 10);
	if (pid <= 0) {
		errno = ESRCH;
		return -1;
	}
	return (pid_t)pid;
}

/* Linux 6.15's struct pidfd_info, up to exit_code (its first 64 bytes,
 * PIDFD_INFO_SIZE_VER0: older kernels take the same size). */
struct pidfd_info_v0 {
	uint64_t mask, cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t exit_code;
};
#define BRIG_PIDFD_GET_INFO _IOWR(0xFF, 11, struct pidfd_info_v0)
#define BRIG_PIDFD_INFO_EXIT (1ULL << 3)

/* The exit_code field (52) of /proc/<pid>/stat, if @pid is a zombie. */
static int zombie_status(pid_t pid, int *status)
{
	char path[64], buf[1024], *p;
	_cleanup_close_ int fd = -1;
	ssize_t n;
	int field = 2;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || (n = read(fd, buf, sizeof(buf) - 1)) <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] != 'Z')
		return -1;
	for (; *p && field < 52; p++)
		field += *p == ' ';
	return sscanf(p, "%d", status) == 1 ? 0 : -1;
}

int brig_pidfd_exit_status(int pidfd, pid_t pid, int *status)
{
	struct pidfd_info_v0 info = { .mask = BRIG_PIDFD_INFO_EXIT };

	if (pidfd >= 0 && ioctl(pidfd, BRIG_PIDFD_GET_INFO, &info) == 0 &&
	    (info.mask & BRIG_PIDFD_INFO_EXIT)) {
		*status = info.exit_code;
		return 0;
	}
	return pid > 0 ? zombie_status(pid, status) : -1;
}
