/* SPDX-License-Identifier: Apache-2.0 */
/*
 * process.terminal, the container's side: the init makes a pseudoterminal
 * in the container's own devpts, binds its peer over /dev/console and makes
 * it the controlling terminal and stdio of the container's process.  The
 * master goes to brig (sync.h), which hands it to --console-socket or
 * relays it (console.h).
 */
#ifndef BRIG_LINUX_TERMINAL_H
#define BRIG_LINUX_TERMINAL_H

#include <stdbool.h>

struct brig_error;
struct brig_process;

/*
 * Called by the init after pivot_root, when nothing of the host is in
 * reach any more; @rootfd is the container's root, @procfd brig's private
 * procfs (linux/procfs.h).
 *
 * 1. "/dev/pts/ptmx" is resolved in the root without following a final
 *    symlink (O_PATH), checked to be the char device 5:2 on a devpts, and
 *    only then opened for real, through its fd.
 * 2. The pty is unlocked and its peer opened with TIOCGPTPEER: never by a
 *    path the container could have swapped (CVE-2025-52565); the peer is
 *    checked to be a pts of the same devpts.  process.consoleSize is set.
 * 3. The peer is bind-mounted by fd (open_tree of the peer itself) over
 *    "/dev/console", a file of the root's /dev: an existing regular file
 *    or char device is mounted over; a symlink or anything else is
 *    replaced by an empty file when @replace_console (brig owns /dev),
 *    else refused.  A symlink is never followed.
 * 4. The caller becomes a session leader with the peer as its controlling
 *    terminal and its stdin, stdout and stderr; the peer is owned by the
 *    process's uid (as runc does, so the user can reopen its tty).
 *
 * Returns the master (close-on-exec), which the caller hands on, or -1.
 */
int brig_terminal_setup(int rootfd, int procfd, const struct brig_process *p, bool replace_console,
                        struct brig_error *err);

/* exec -t: steps 1, 2 and 4, in the container's namespaces (@rootfd its
 * root); /dev/console stays the container's. */
int brig_terminal_setup_exec(int rootfd, int procfd, const struct brig_process *p,
                             struct brig_error *err);

#endif
