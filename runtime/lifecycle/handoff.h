/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A warm pool's member (job/pool.c) is a created container whose init,
 * instead of waiting on exec.fifo for `brig start`, waits on a socket of
 * its own for a job: the command, its environment and working directory,
 * its stdio.  The claimer hands the job over; the init runs it and reports
 * how it ended.  Nothing else of the container changes at the claim: its
 * namespaces, cgroup, rootfs and identity are the ones the init already
 * has.
 *
 *    claimer (brig job --pool)                  the member's init (pid 1)
 *    -------------------------                  -------------------------
 *                                               before READY: makes the
 *                                               socket itself, on the fd
 *                                               numbers it was cloned with
 *                                               (so it is its ends' peer)
 *    checks the member (job/pool.c: its
 *    state, its record, a pidfd),
 *    pidfd_getfd(init, its spare end),
 *    its SO_PEERCRED is the init                waits in recvmsg
 *    JOB: header + stdin, stdout, stderr,
 *         the reply socket, the payload -------> closes both ends of the
 *         (a memfd: args, env, cwd)               hand-off socket; cwd, env,
 *                                                 PATH lookup; spawns the
 *                                                 job (a vfork): its stdio,
 *                                                 every other fd closed,
 *                                                 signals at their defaults
 *                                                 (a user's profile: a fork
 *                                                 that loads it, execve)
 *                                   <---------    [ERROR "<message>": the
 *                                                  job could not be started]
 *                                                 reaps every orphan of the
 *                                                 container; when the job
 *                                   <---------    ends, JOB_EXIT "<status>"
 *                                                 (+ " alone": nothing else
 *                                                 of it is left) and exits:
 *                                                 the kernel ends the rest
 *
 * Waiting, the init is confined already: no capabilities, no_new_privs,
 * not dumpable, and brig's own seccomp profile loaded (init.c).  When
 * that filter notifies (brig job's denials), the init keeps its listener
 * fd (close-on-exec, never the job's) and the create gives it to no
 * listenerPath: the claimer takes it with pidfd_getfd and answers.  It stays
 * the container's pid 1 and reaper (the job is its child): its exit ends
 * the container.  The end of the reply
 * socket is the claimer's: when it closes (the claimer died) the init
 * exits at once, and the job with it, as a cold job dies with brig.
 */
#ifndef BRIG_HANDOFF_H
#define BRIG_HANDOFF_H

#include <stdbool.h>
#include <stddef.h>

struct brig_error;
struct brig_init_args;

struct brig_handoff_job {
	const char *const *args; /* none: the config's process.args */
	size_t n_args;
	const char *const *env; /* added to the config's process.env */
	size_t n_env;
	const char *cwd; /* NULL: the config's process.cwd */
};

/*
 * The claimer's side: hand @job to the init waiting on @sock, with @stdio
 * as its fds 0, 1 and 2.  *@reply is the claimer's end of the reply
 * socket, to keep open for as long as the job may run.
 */
int brig_handoff_send(int sock, const struct brig_handoff_job *job, const int stdio[3], int *reply,
                      struct brig_error *err);

/*
 * What the init said on @reply, once it is readable.  1 and *@wstatus (as
 * waitpid(2) gives it): the job ended, and with *@alone every other
 * process of the container had too (only the init is left, and it is
 * exiting); 0: the init ended without a word (it was killed); -1 with
 * @err: the job could not be started.
 */
int brig_handoff_outcome(int reply, int *wstatus, bool *alone, struct brig_error *err);

/* The init's side, after READY (init.c): wait on @a->handoff, run the job,
 * report, exit.  @filtered: the init loaded the container's filter
 * already; else the job's process loads it last before execve.  @env: the
 * environment the config's process would have had (linux/process.h:
 * brig_exec_env). */
__attribute__((noreturn)) void brig_handoff_serve(const struct brig_init_args *a, bool filtered,
                                                  char **env);

#endif
