/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A veth pair for a job's egress link (job/egress.h): made in brig's
 * network namespace, one end given to the job's namespace as its eth0
 * with an address and a default route, the other kept, addressed and up.
 * rtnetlink spoken by hand (linux/netlink.h), as netdev.c does; brig never
 * changes its own network namespace (a short-lived child opens the socket
 * of the other side).
 */
#ifndef BRIG_LINUX_VETH_H
#define BRIG_LINUX_VETH_H

#include <stdbool.h>
#include <stdint.h>

struct brig_error;

/* A veth pair @host and @peer (each at most 15 bytes) in brig's network
 * namespace, both down, with no IPv6 address generated on either end
 * (IN6_ADDR_GEN_MODE_NONE, set once created: the kernel refuses it in the
 * creating message; skipped when IPv6 is off).  EEXIST (in err->errnum)
 * when a name is taken, the message naming which; EINVAL for a name that
 * cannot be an interface's. */
int brig_veth_create(const char *host, const char *peer, struct brig_error *err);

/* The link @name in brig's namespace removed (a veth's peer goes with it);
 * a link that is not there is no error. */
int brig_link_delete(const char *name, struct brig_error *err);

/* Whether a link @name exists in brig's namespace. */
bool brig_link_exists(const char *name);

/* Wait, @timeout_ms at most, for the link @name in brig's namespace to
 * go (a veth whose other end's namespace dies goes with it): 1 when it
 * is gone (or was never there), 0 when the time is up, -1 with errno.
 * It listens for the kernel's notices: no request waits on the kernel's
 * lock of links meanwhile. */
int brig_link_wait_gone(const char *name, int timeout_ms);

/* @name in brig's namespace gets the IPv4 address @addr/@prefix (again is
 * no error), and is up. */
int brig_link_addr4_up(const char *name, const uint8_t addr[4], unsigned prefix,
                       struct brig_error *err);

/*
 * @peer (in brig's namespace) moved into the network namespace @nsfd as
 * @inside, in one request; there it makes no IPv6 address (its IPv6 state
 * is new there), gets @addr/@prefix, is up, and the default route goes via
 * @gw (EEXIST when that namespace has one).  @peer must be one end of a
 * veth pair whose other end is in brig's namespace (EINVAL otherwise): on
 * any failure that other end is deleted, which takes the peer along
 * wherever it is.  One fork (the socket of @nsfd); the move itself is the
 * slow part (the kernel waits for RCU: some 16 ms, against 1 ms for the
 * rest).
 */
int brig_veth_give(const char *peer, int nsfd, const char *inside, const uint8_t addr[4],
                   unsigned prefix, const uint8_t gw[4], struct brig_error *err);

/* The IPv6 addresses of a pair's ends (/@prefix), @host's the gateway. */
struct brig_veth_addr6 {
	uint8_t host[16];
	uint8_t inside[16];
	unsigned prefix;
};

/*
 * A veth pair made at once across two namespaces: @host in brig's, with
 * @host_addr/@prefix and up, and @inside in the network namespace @nsfd,
 * with @addr/@prefix, up, and the default route via @host_addr; neither
 * end makes IPv6 addresses of its own.  With @v6, each end also has its
 * IPv6 address (no duplicate address detection) and @inside the IPv6
 * default route via @host's, unless IPv6 is off in either namespace (then
 * neither has one).  Made there, the end costs no move (the kernel's move
 * of a link waits for an RCU grace period: 16 ms here).  On failure
 * nothing is left.
 */
int brig_veth_create_in(const char *host, const uint8_t host_addr[4], int nsfd, const char *inside,
                        const uint8_t addr[4], unsigned prefix, const struct brig_veth_addr6 *v6,
                        struct brig_error *err);

/* The byte counters of @name in brig's namespace (IFLA_STATS64): what it
 * received and what it sent (of a host end: what the job sent, and what it
 * was sent), link-layer headers included. */
int brig_link_bytes(const char *name, uint64_t *rx, uint64_t *tx, struct brig_error *err);

#endif
