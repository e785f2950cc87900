/* SPDX-License-Identifier: Apache-2.0 */
/*
 * linux.netDevices: host network interfaces moved into the container's
 * network namespace and back, by rtnetlink spoken by hand.
 *
 * A move is one RTM_NEWLINK carrying IFLA_NET_NS_FD and IFLA_IFNAME, so
 * the device changes namespace and name at once (runc's way: no window in
 * which a name could clash).  The kernel drops a moved device's addresses
 * and takes it down; what runc keeps is kept here too: its permanent
 * addresses (IFA_F_PERMANENT, every family), collected before the move and
 * added again on the other side, and its up state.  The socket of the other
 * side is made there by a short-lived child that setns()es into it: brig
 * itself never changes its network namespace.
 *
 * Every request asks for an ack; an error names the device and carries the
 * kernel's errno.
 */
#ifndef BRIG_LINUX_NETDEV_H
#define BRIG_LINUX_NETDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct brig_error;
struct brig_linux;

/* One device: its name on the host, its name in the container. */
struct brig_netdev {
	char host[16];
	char inside[16];
};

/* Whether @name can be a network interface's name (dev_valid_name). */
bool brig_netdev_name_ok(const char *name);

/*
 * Before anything exists: linux.netDevices asks for a new network namespace
 * (@new_netns, not @joined), each host device exists in brig's own network
 * namespace, no two devices take the same name in the container, and none
 * takes "lo" (every new namespace has one).  Errors name config.json and
 * the JSON path.
 */
int brig_netdev_check(const struct brig_linux *lx, bool new_netns, bool joined,
                      struct brig_error *err);

/*
 * The record of linux.netDevices kept in the state directory, one device
 * a line, "HOST INSIDE\n" (a name never holds a space); and its parser,
 * which takes only lines of two valid names (the record may have been
 * tampered with).  parse: a malloc'd array in *@out, its length returned.
 */
char *brig_netdev_record(const struct brig_linux *lx);
ssize_t brig_netdev_record_parse(const char *text, struct brig_netdev **out);

/* A network namespace fd of the process of @pidfd (@pid), checked to be
 * that very process's once opened. */
int brig_netns_of(int pidfd, pid_t pid, struct brig_error *err);

/* Whether @nsfd is brig's own network namespace. */
bool brig_netns_is_own(int nsfd);

/*
 * Move the @n devices of @devs from brig's network namespace into @nsfd,
 * each under its inside name: all of them or, when one fails, none (those
 * already moved go back).
 */
int brig_netdev_move_in(const struct brig_netdev *devs, size_t n, int nsfd, struct brig_error *err);

/*
 * Move back to brig's network namespace, under its host name, each of
 * @devs that is in @nsfd now under its inside name; a device not there is
 * no error (gone with a namespace, or never moved).  Refused when @nsfd is
 * brig's own namespace.  Every device is tried; the first error returned.
 */
int brig_netdev_move_out(const struct brig_netdev *devs, size_t n, int nsfd,
                         struct brig_error *err);

#endif
