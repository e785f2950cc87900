/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The parent <-> container-init protocol: one SOCK_SEQPACKET socketpair, one
 * message format, named steps.  This is the whole conversation, in order:
 *
 *    parent (brig create/run)                 child (container init)
 *    ------------------------                 ----------------------
 *    clone3(namespaces, CLONE_PIDFD) ------->  born non-dumpable, in its
 *                                              namespaces; waits
 *    [user ns: write uid/gid maps]
 *    MAPS_DONE ----------------------------->  joins, hostname, mounts,
 *                                              devices, pivot_root, masks,
 *                                              process setup, PATH lookup
 *                                   <--------  READY (the exec path is known)
 *    create: record state, pid file, exit;     create: block on exec.fifo
 *            `brig start` writes the fifo      until `brig start` writes it
 *    run:    GO ---------------------------->  run: go on
 *                                              close fds, execve
 *
 *    Any time:                      <--------  ERROR "<message>", then exit
 *
 * The reader enforces the order: a message other than the one the current
 * step expects, a truncated one, or end-of-file is an error naming the
 * step, never a hang (both ends close their copies of the other's socket,
 * so a dead peer is seen as end-of-file).
 */
#ifndef BRIG_SYNC_H
#define BRIG_SYNC_H

#include <stddef.h>

struct brig_error;

enum brig_sync_step {
	BRIG_SYNC_MAPS_DONE = 1,
	BRIG_SYNC_READY,
	BRIG_SYNC_GO,
	BRIG_SYNC_ERROR,
};

/* "MAPS_DONE", "READY", ... */
const char *brig_sync_step_name(enum brig_sync_step step);

/* Send @step (with an optional message for ERROR). */
int brig_sync_send(int fd, enum brig_sync_step step, const char *msg, struct brig_error *err);

/*
 * Wait for @expected.  An ERROR from the peer becomes @err with the peer's
 * message; anything else unexpected fails with
 * 'container init: expected READY, got ...' (@who names the peer).
 */
int brig_sync_expect(int fd, enum brig_sync_step expected, const char *who, struct brig_error *err);

#endif
