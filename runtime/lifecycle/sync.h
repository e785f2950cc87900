/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The parent <-> container-init protocol: one SOCK_SEQPACKET socketpair, one
 * message format, named steps.  This is the whole conversation, in order:
 *
 *    parent (brig create/run)                 child (container init)
 *    ------------------------                 ----------------------
 *    clone3(namespaces, CLONE_PIDFD) ------->  born non-dumpable, in its
 *                                              namespaces; waits
 *    [v1 cgroups the init does not enter
 *     itself: write the pid]
 *    [user ns: write uid/gid maps]
 *    MAPS_DONE ----------------------------->  [no user ns: enters its v1
 *                                              cgroups, "0" into the tasks
 *                                              fds brig opened for it]
 *                                              [user ns: becomes its root]
 *    [idmapped mounts, made here,              joins, unshares the cgroup
 *     each: MOUNT_FD + the mount] ---------->  ns; hostname, mounts (the
 *                                              idmapped ones attached),
 *                                              devices
 *    [only with prestart, createRuntime,       [the same condition]
 *     createContainer or startContainer
 *     hooks]                        <--------  CREATE_RUNTIME_HOOKS
 *    prestart, createRuntime hooks
 *    (brig's namespaces, status creating)
 *    CREATE_RUNTIME_HOOKS_DONE "<pid>" ----->  createContainer hooks (the
 *                                              init's pid as brig sees it
 *                                              is for their state); masks,
 *                                              pivot_root
 *    [the master goes to            <--------  PTY_MASTER + the pty master
 *     --console-socket, or stays               (only with process.terminal:
 *     for the relay of a foreground            a pty of the container's
 *     run]                                     devpts, its peer bound over
 *                                              /dev/console, made the ctty
 *                                              and stdio); process setup,
 *                                              PATH lookup
 *    [the fd and the state go to    <--------  SECCOMP_FD + the notify fd
 *     linux.seccomp.listenerPath]              (only with SCMP_ACT_NOTIFY)
 *                                   <--------  READY (the exec path is known)
 *    record state, pid file
 *    GO ---------------------------------->  (end-of-file instead: brig died
 *                                              before the state was saved,
 *                                              and nobody would ever start,
 *                                              claim or delete it: exit)
 *    create: exit; `brig start`                create: block on exec.fifo
 *            writes the fifo                   until `brig start` writes it
 *                                              (a pool member: wait for its
 *                                              job, handoff.h)
 *    run:    go on                             run: go on
 *                                              startContainer hooks
 *    [poststart hooks: wait for     <--------  (one failed: ERROR, exit;
 *     end-of-file, run them unless              create: a byte into the
 *     ERROR came first]                         fifo, which `brig start`
 *                                               watches the same way)
 *                                              close fds (end-of-file on
 *                                              the socket), execve
 *
 *    Any time:                      <--------  ERROR "<message>", then exit
 *
 * The init loads the seccomp filter before it drops its capabilities when
 * noNewPrivileges is false (runc's order: it needs CAP_SYS_ADMIN), else
 * right before READY when the filter notifies (its fd must reach the
 * parent), else as the last step before execve.
 *
 * The reader enforces the order: a message other than the one the current
 * step expects, a truncated one, or end-of-file is an error naming the
 * step, never a hang (both ends close their copies of the other's socket,
 * so a dead peer is seen as end-of-file).
 */
#ifndef BRIG_SYNC_H
#define BRIG_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct brig_error;

enum brig_sync_step {
	BRIG_SYNC_MAPS_DONE = 1,
	BRIG_SYNC_READY,
	BRIG_SYNC_GO,
	BRIG_SYNC_ERROR,
	BRIG_SYNC_SECCOMP_FD, /* carries the seccomp notify fd */
	BRIG_SYNC_CREATE_RUNTIME_HOOKS,
	BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, /* text: the init's pid */
	BRIG_SYNC_PTY_MASTER,                /* carries the master of the container's pty */
	BRIG_SYNC_MOUNT_FD,                  /* carries an idmapped mount (linux/idmap.h) */
	BRIG_SYNC_PIDFD,                     /* exec: carries the exec'd process's pidfd */
	BRIG_SYNC_JOB_EXIT,                  /* handoff.h: text: the job's wait status */
};

/* "MAPS_DONE", "READY", ... */
const char *brig_sync_step_name(enum brig_sync_step step);

/* Send @step (with an optional message: ERROR, CREATE_RUNTIME_HOOKS_DONE). */
int brig_sync_send(int fd, enum brig_sync_step step, const char *msg, struct brig_error *err);

/* Send @step with the file descriptor @passfd attached (SCM_RIGHTS). */
int brig_sync_send_fd(int fd, enum brig_sync_step step, int passfd, struct brig_error *err);

/*
 * Wait for @expected.  An ERROR from the peer becomes @err with the peer's
 * message; anything else unexpected fails with
 * 'container init: expected READY, got ...' (@who names the peer).
 */
int brig_sync_expect(int fd, enum brig_sync_step expected, const char *who, struct brig_error *err);

/* Wait for @expected and copy its text (NUL-terminated, cut to @size). */
int brig_sync_expect_text(int fd, enum brig_sync_step expected, const char *who, char *text,
                          size_t size, struct brig_error *err);

/* Load @prog (linux/seccomp.h) and send its notify fd, if it has one, as
 * SECCOMP_FD on @fd: the init's and an exec'd process's step alike.  With
 * @keep the loader keeps its copy too (close-on-exec): a pool member's
 * init, whose claimer takes it (handoff.h). */
struct brig_seccomp_prog;
int brig_sync_seccomp_load(int fd, const struct brig_seccomp_prog *prog, bool keep,
                           struct brig_error *err);

/* The other end of it, brig's: wait for the SECCOMP_FD of a filter that
 * notifies and hand the fd on to @sc's listenerPath with @state as the
 * listener is to see it, @pid the filtered process
 * (linux/seccomp.h: brig_seccomp_send_listener).  Create's and exec's
 * step alike; @who names the sender in errors. */
struct brig_seccomp;
struct brig_state;
int brig_sync_seccomp_listener(int fd, const char *who, const struct brig_seccomp *sc, pid_t pid,
                               const struct brig_state *state, struct brig_error *err);

/* Wait for the peer to close its end; a message instead is an error: an
 * ERROR's own text, else a protocol error. */
int brig_sync_expect_eof(int fd, const char *who, struct brig_error *err);

/* Wait for @expected, which carries a file descriptor: return it
 * (close-on-exec), or -1.  An fd sent with any other step is closed. */
int brig_sync_expect_fd(int fd, enum brig_sync_step expected, const char *who,
                        struct brig_error *err);

#endif
