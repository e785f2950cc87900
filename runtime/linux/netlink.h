/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rtnetlink spoken by hand, for linux.netDevices (netdev.h) and the
 * egress link of jobs (veth.h): a request built in one fixed buffer,
 * sent, and read until its ack.
 *
 *     struct brig_nl_req r;
 *     brig_nl_init(&r, RTM_NEWLINK, NLM_F_ACK, &ifi, sizeof(ifi));
 *     brig_nl_attr(&r, IFLA_IFNAME, "eth0", 5);
 *     if (brig_nl_talk(fd, &r, NULL, NULL) < 0)
 *             ... errno is the kernel's ...
 *
 * The helpers below brig_nl_open() return -1 with errno set (the kernel's
 * when it refused) and fill no struct brig_error: the caller knows which
 * device it was about and words the error.  brig never changes its own
 * network namespace: a socket of another is made by a short-lived child
 * that shares brig's memory and fds (brig_nl_open_in).
 */
#ifndef BRIG_LINUX_NETLINK_H
#define BRIG_LINUX_NETLINK_H

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct brig_error;

/* A request: its header, then its body (a family header and attributes).
 * The body holds any message brig builds; an attribute that would not fit
 * is dropped and marks the request @overflow, which brig_nl_talk refuses
 * (EMSGSIZE) rather than send half a message. */
struct brig_nl_req {
	struct nlmsghdr h;
	char body[1024];
	bool overflow;
};

/* A NETLINK_ROUTE socket in brig's network namespace, bound; close-on-exec. */
int brig_nl_open(struct brig_error *err);

/* A NETLINK_ROUTE socket in the network namespace @nsfd, bound; made by a
 * child that joins @nsfd (CLONE_VM, CLONE_FILES, CLONE_VFORK: no copy of
 * brig's memory, the socket lands in brig's fds). */
int brig_nl_open_in(int nsfd, struct brig_error *err);

/* @r becomes a request of @type with NLM_F_REQUEST|@flags, whose body
 * starts with the @len bytes of @hdr (an ifinfomsg, ifaddrmsg, rtmsg...). */
void brig_nl_init(struct brig_nl_req *r, uint16_t type, uint16_t flags, const void *hdr,
                  size_t len);

/* Append the attribute @type carrying the @len bytes of @data; returns it
 * (NULL when it did not fit), so that it may become a nest. */
struct rtattr *brig_nl_attr(struct brig_nl_req *r, uint16_t type, const void *data, size_t len);

/* A nest: brig_nl_nest opens one (an empty attribute of @type), the
 * attributes appended after it go inside, and brig_nl_nest_end closes it.
 * An attribute with a payload (veth's VETH_INFO_PEER: an ifinfomsg, then
 * attributes) opens with brig_nl_attr and closes the same way.  Either
 * accepts the NULL of an attribute that did not fit. */
struct rtattr *brig_nl_nest(struct brig_nl_req *r, uint16_t type);
void brig_nl_nest_end(struct brig_nl_req *r, struct rtattr *nest);

/* Called with each message of a request's answer that is not its ack. */
typedef void (*brig_nl_cb)(const struct nlmsghdr *h, void *arg);

/*
 * Send @r (a sequence number of its own) and read until its ack or, for a
 * dump (a GET with NLM_F_DUMP), NLMSG_DONE; every other message of the
 * request's sequence goes to @cb.  -1 with errno (the kernel's) on error.
 * A request without NLM_F_ACK that the kernel answers with nothing waits
 * for ever: ask for the ack.
 */
int brig_nl_talk(int fd, struct brig_nl_req *r, brig_nl_cb cb, void *arg);

/* A link, as RTM_GETLINK tells it. */
struct brig_nl_link {
	int index;
	unsigned flags; /* IFF_* */
};

/* The link called @name in the namespace of @fd; ENODEV when none is. */
int brig_nl_get_link(int fd, const char *name, struct brig_nl_link *l);

/* The link @index set up (IFF_UP). */
int brig_nl_set_up(int fd, int index);

/*
 * The one message that moves the link @index into the network namespace
 * @nsfd and renames it @name there: there is no moment in which it holds
 * its old name on the other side.  The kernel drops its addresses and
 * takes it down.  Should the rename fail the kernel may leave it moved
 * under its old name (netdev.c brings such a device back).
 */
int brig_nl_move(int fd, int index, int nsfd, const char *name);

#endif
