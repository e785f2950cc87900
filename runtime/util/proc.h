/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BRIG_UTIL_PROC_H
#define BRIG_UTIL_PROC_H

#include <stdint.h>
#include <sys/types.h>

/*
 * Read /proc/<pid>/stat: the one-letter state ('R', 'S', 'Z', ...) and the
 * start time in clock ticks since boot, which together with the pid names a
 * process uniquely (pids are reused, start times are not).  -1 with errno
 * set (ESRCH when there is no such process).
 */
int brig_proc_stat(pid_t pid, char *state, uint64_t *start_time);

/* The pid (in brig's pid namespace) of the process behind @pidfd, from
 * /proc/self/fdinfo; -1 with errno (ESRCH: it has been reaped). */
pid_t brig_pidfd_pid(int pidfd);

#endif
