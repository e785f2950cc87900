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

/*
 * How the process of @pidfd ended, as a wait status, for a caller that is
 * not its parent (an engine reaps it): PIDFD_GET_INFO's PIDFD_INFO_EXIT
 * (Linux 6.15), which holds it even after the reap, else the exit_code
 * field of /proc/<pid>/stat while it is a zombie.  -1 when neither says.
 */
int brig_pidfd_exit_status(int pidfd, pid_t pid, int *status);

#endif
