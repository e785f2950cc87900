/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "util/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
