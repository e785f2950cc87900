/* SPDX-License-Identifier: Apache-2.0 */
/*
 * linux.netDevices across the container's life (linux/netdev.h moves
 * them).  What create moved is recorded in the state directory before it
 * is moved ("netdevices"), and the container's network namespace is
 * pinned there too ("netns", a bind mount of it, as `ip netns add` makes):
 * a delete then moves every device back to brig's network namespace under
 * its host name, whether the container still runs, has exited, or its
 * create was killed half-way.  Without the pin, a namespace that dies
 * with the container's last process takes virtual devices (veth, dummy)
 * with it, and sends physical ones to the initial namespace, which need
 * not be brig's.
 */
#ifndef BRIG_LIFECYCLE_NETDEVS_H
#define BRIG_LIFECYCLE_NETDEVS_H

#include <sys/types.h>

struct brig_error;
struct brig_linux;

/* create, the init at READY: record, pin its namespace, move every
 * device in.  On error nothing is moved (the record and pin stay, for
 * brig_netdevs_return to undo). */
int brig_netdevs_give(int dirfd, const struct brig_linux *lx, int pidfd, pid_t pid,
                      struct brig_error *err);

/*
 * delete, before the container's processes are killed (and a failed
 * create): move back each recorded device that is in the container's
 * network namespace now, that of its init when @pidfd (@pid) is alive,
 * else the pinned one; then unpin.  Nothing recorded: nothing done.
 */
int brig_netdevs_return(int dirfd, int pidfd, pid_t pid, struct brig_error *err);

/* delete --force, when brig_netdevs_return failed: the pin and the
 * record go (what could not come back dies with the namespace). */
void brig_netdevs_forget(int dirfd);

#endif
