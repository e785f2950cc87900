/* SPDX-License-Identifier: Apache-2.0 */
/*
 * brig job's deadline and result for containers that engines make: a
 * bundle whose annotations say
 *
 *   "run.brig.job.timeout": "30s"           kill every process at 30 s
 *   "run.brig.job.result": "/abs/path.json" write the result there
 *
 * gets, when it starts, a watcher: a small detached process (no daemon:
 * it lives as long as the container) that waits for the container's end
 * or its deadline, kills the whole container at the deadline, and writes
 * the result (result.h) when it has ended: once, renamed over whatever
 * is at the path by then (brig_result_write_file: a container that can
 * write that directory may have put a forged record, a FIFO or a symlink
 * there), in a directory reached from "/" through no symlink (one there
 * fails create, and at the end leaves no result).  At create nothing may
 * be at the path but an earlier record of brig's (result.h): a file of the
 * host's there fails create, and is never replaced.  The engine reaps the
 * container's process, not brig: exit_code and signal come from its pidfd
 * (PIDFD_INFO_EXIT, Linux 6.15), or from /proc while it is a zombie, and
 * are null when neither could say.
 */
#ifndef BRIG_WATCH_H
#define BRIG_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct brig_error;
struct brig_kv;

#define BRIG_ANN_JOB_TIMEOUT "run.brig.job.timeout"
#define BRIG_ANN_JOB_RESULT "run.brig.job.result"

/* Whether the annotations @ann ask for a watcher. */
bool brig_watch_wanted(const struct brig_kv *ann, size_t n);

/* The annotations' values, checked when the bundle is loaded; the error
 * names the annotation. */
int brig_watch_check(const struct brig_kv *ann, size_t n, struct brig_error *err);

/* After the container's process started: the watcher, when the
 * annotations @ann ask for one (nothing else).  @root is the state root,
 * @pidfd (kept by the watcher, not taken) and @pid the container's init. */
int brig_watch_spawn(const char *root, const char *id, const struct brig_kv *ann, size_t n,
                     int pidfd, pid_t pid, struct brig_error *err);

#endif
