/* SPDX-License-Identifier: Apache-2.0 */
/* A job's egress veth pair (veth.h): rtnetlink by hand (netlink.h), every
 * request acked. */
#include "config.h"
#include "linux/veth.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/veth.h>
#include <net/if.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "linux/netdev.h"
#include "linux/netlink.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/log.h"

#define A4(a) (a)[0], (a)[1], (a)[2], (a)[3]

/* ---------------------------------------------------------------- links */

/* What RTM_GETLINK tells of a link beyond brig_nl_link. */
struct info {
	int index;
	int link;     /* IFLA_LINK: a veth's other end's index, 0 when none */
	bool veth;    /* IFLA_INFO_KIND "veth" */
	bool link_ns; /* IFLA_LINK_NETNSID: @link is in another namespace */
	bool has_stats;
	uint64_t rx_bytes, tx_bytes;
};

/* Whether the IFLA_LINKINFO @info says "veth". */
static bool is_veth(const struct rtattr *info)
{
	int len = (int)RTA_PAYLOAD(info);

	for (const struct rtattr *a = RTA_DATA(info); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == IFLA_INFO_KIND)
			return RTA_PAYLOAD(a) >= 4 && !memcmp(RTA_DATA(a), "veth", 4) &&
			       (RTA_PAYLOAD(a) == 4 || ((const char *)RTA_DATA(a))[4] == '\0');
	return false;
}

static void on_info(const struct nlmsghdr *h, void *arg)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	struct info *in = arg;
	const struct rtattr *a;
	int len;

	if (h->nlmsg_type != RTM_NEWLINK || h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return;
	in->index = ifi->ifi_index;
	len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi)));
	for (a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == IFLA_LINK && RTA_PAYLOAD(a) == sizeof(uint32_t)) {
			memcpy(&in->link, RTA_DATA(a), sizeof(uint32_t));
		} else if (a->rta_type == IFLA_LINK_NETNSID) {
			in->link_ns = true;
		} else if (a->rta_type == IFLA_LINKINFO) {
			in->veth = is_veth(a);
		} else if (a->rta_type == IFLA_STATS64 &&
		           RTA_PAYLOAD(a) >=
		               offsetof(struct rtnl_link_stats64, tx_bytes) + sizeof(uint64_t)) {
			const char *s = RTA_DATA(a);

			memcpy(&in->rx_bytes, s + offsetof(struct rtnl_link_stats64, rx_bytes),
			       sizeof(uint64_t));
			memcpy(&in->tx_bytes, s + offsetof(struct rtnl_link_stats64, tx_bytes),
			       sizeof(uint64_t));
			in->has_stats = true;
		}
	}
}

/* The link @name in the namespace of @fd, with its IFLA_LINK and counters;
 * ENODEV when there is none. */
static int get_info(int fd, const char *name, struct info *in)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct brig_nl_req r;

	memset(in, 0, sizeof(*in));
	brig_nl_init(&r, RTM_GETLINK, NLM_F_ACK, &ifi, sizeof(ifi));
	brig_nl_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	if (brig_nl_talk(fd, &r, on_info, in) < 0)
		return -1;
	if (in->index <= 0) {
		errno = ENODEV;
		return -1;
	}
	return 0;
}

/* RTM_DELLINK of the link @index, or of the one called @name when @index
 * is 0. */
static int del_link(int fd, int index, const char *name)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = index };
	struct brig_nl_req r;

	brig_nl_init(&r, RTM_DELLINK, NLM_F_ACK, &ifi, sizeof(ifi));
	if (!index)
		brig_nl_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	return brig_nl_talk(fd, &r, NULL, NULL);
}

/* @addr/@prefix (@family's: 4 or 16 bytes) on the link @index; IPv6 ones
 * without duplicate address detection (IFA_F_NODAD: usable at once). */
static int add_addr(int fd, int family, int index, const uint8_t *addr, unsigned prefix)
{
	struct ifaddrmsg m = {
		.ifa_family = (uint8_t)family,
		.ifa_prefixlen = (uint8_t)prefix,
		.ifa_flags = family == AF_INET6 ? IFA_F_NODAD : 0,
		.ifa_scope = RT_SCOPE_UNIVERSE,
		.ifa_index = (unsigned)index,
	};
	size_t len = family == AF_INET6 ? 16 : 4;
	struct brig_nl_req r;

	/* the same address again is no error (REPLACE) */
	brig_nl_init(&r, RTM_NEWADDR, NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE, &m, sizeof(m));
	brig_nl_attr(&r, IFA_LOCAL, addr, len);
	brig_nl_attr(&r, IFA_ADDRESS, addr, len);
	return brig_nl_talk(fd, &r, NULL, NULL);
}

static int add_addr4(int fd, int index, const uint8_t addr[4], unsigned prefix)
{
	return add_addr(fd, AF_INET, index, addr, prefix);
}

/* The default route of @family via @gw on the link @index. */
static int default_route(int fd, int family, int index, const uint8_t *gw)
{
	struct rtmsg m = {
		.rtm_family = (uint8_t)family,
		.rtm_table = RT_TABLE_MAIN,
		.rtm_protocol = RTPROT_BOOT,
		.rtm_scope = RT_SCOPE_UNIVERSE,
		.rtm_type = RTN_UNICAST,
	};
	uint32_t oif = (uint32_t)index;
	struct brig_nl_req r;

	brig_nl_init(&r, RTM_NEWROUTE, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, &m, sizeof(m));
	brig_nl_attr(&r, RTA_GATEWAY, gw, family == AF_INET6 ? 16 : 4);
	brig_nl_attr(&r, RTA_OIF, &oif, sizeof(oif));
	return brig_nl_talk(fd, &r, NULL, NULL);
}

/* Whether a failure to add an IPv6 address says that IPv6 is off there
 * (ipv6.disable=1, or disable_ipv6 on the link): then the link has none. */
static bool ipv6_off(int e)
{
	return e == EAFNOSUPPORT || e == EOPNOTSUPP || e == EACCES;
}

static int check_name(const char *what, const char *name, struct brig_error *err)
{
	if (!brig_netdev_name_ok(name))
		return brig_error_setp(err, EINVAL, "%s \"%s\"", what, name ? name : "");
	return 0;
}

/* ----------------------------------------------------------------- veth */

/* A veth pair @host here and @peer, in the namespace @nsfd unless it is -1. */
static int new_veth(int fd, const char *host, const char *peer, int nsfd)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct rtattr *info, *data, *end;
	struct brig_nl_req r;

	brig_nl_init(&r, RTM_NEWLINK, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, &ifi, sizeof(ifi));
	brig_nl_attr(&r, IFLA_IFNAME, host, strlen(host) + 1);
	info = brig_nl_nest(&r, IFLA_LINKINFO);
	brig_nl_attr(&r, IFLA_INFO_KIND, "veth", 4);
	data = brig_nl_nest(&r, IFLA_INFO_DATA);
	end = brig_nl_attr(&r, VETH_INFO_PEER, &ifi, sizeof(ifi));
	brig_nl_attr(&r, IFLA_IFNAME, peer, strlen(peer) + 1);
	if (nsfd >= 0)
		brig_nl_attr(&r, IFLA_NET_NS_FD, &nsfd, sizeof(nsfd));
	brig_nl_nest_end(&r, end);
	brig_nl_nest_end(&r, data);
	brig_nl_nest_end(&r, info);
	return brig_nl_talk(fd, &r, NULL, NULL);
}

/*
 * IFLA_AF_SPEC { AF_INET6 { IFLA_INET6_ADDR_GEN_MODE: none } } on the link
 * @name, down: once up it makes no IPv6 address of its own (no link-local).
 * Not in the RTM_NEWLINK that creates the pair: the kernel refuses it there
 * (EAFNOSUPPORT: a link has no IPv6 state before it is registered).  With
 * IPv6 off (ipv6.disable=1) it is refused too, and there is nothing to stop.
 */
static int no_addr_gen(int fd, const char *name)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	uint8_t mode = IN6_ADDR_GEN_MODE_NONE;
	struct rtattr *spec, *inet6;
	struct brig_nl_req r;

	brig_nl_init(&r, RTM_NEWLINK, NLM_F_ACK, &ifi, sizeof(ifi));
	brig_nl_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	spec = brig_nl_nest(&r, IFLA_AF_SPEC);
	inet6 = brig_nl_nest(&r, AF_INET6);
	brig_nl_attr(&r, IFLA_INET6_ADDR_GEN_MODE, &mode, sizeof(mode));
	brig_nl_nest_end(&r, inet6);
	brig_nl_nest_end(&r, spec);
	if (brig_nl_talk(fd, &r, NULL, NULL) < 0 && errno != EAFNOSUPPORT && errno != EOPNOTSUPP)
		return -1;
	return 0;
}

int brig_veth_create(const char *host, const char *peer, struct brig_error *err)
{
	_cleanup_close_ int fd = -1;
	struct brig_nl_link l;
	int e;

	if (check_name("veth", host, err) < 0 || check_name("veth peer", peer, err) < 0)
		return -1;
	fd = brig_nl_open(err);
	if (fd < 0)
		return -1;
	if (new_veth(fd, host, peer, -1) < 0) {
		/* say which name is taken */
		if (errno == EEXIST && brig_nl_get_link(fd, host, &l) < 0 &&
		    brig_nl_get_link(fd, peer, &l) == 0)
			return brig_error_setp(err, EEXIST, "veth peer \"%s\"", peer);
		return brig_error_setp(err, errno, "veth \"%s\"", host);
	}
	if (no_addr_gen(fd, host) == 0 && no_addr_gen(fd, peer) == 0)
		return 0;
	e = errno;
	del_link(fd, 0, host);
	return brig_error_setp(err, e, "veth \"%s\": no IPv6 address generation", host);
}

/* ---------------------------------------------------------------- give */

/* "add address A/PREFIX to link L" failed with @e. */
static int addr6_failed(struct brig_error *err, int e, const uint8_t a[16], unsigned prefix,
                        const char *link)
{
	char text[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, a, text, sizeof(text));
	return brig_error_setp(err, e, "add address %s/%u to link \"%s\"", text, prefix, link);
}

/* The steps of brig_veth_give on the other side, for @inside just moved
 * into the namespace of @fd: no IPv6 address of its making, its address,
 * up, the default route (its prefix's route the kernel adds itself). */
static int settle(int fd, const char *inside, const uint8_t addr[4], unsigned prefix,
                  const uint8_t gw[4], const struct brig_veth_addr6 *v6, struct brig_error *err)
{
	char text[INET6_ADDRSTRLEN];
	struct brig_nl_link l;

	if (brig_nl_get_link(fd, inside, &l) < 0)
		return brig_error_setp(err, errno, "link \"%s\" once moved", inside);
	/* a link's IPv6 state is made anew in its new namespace */
	if (no_addr_gen(fd, inside) < 0)
		return brig_error_setp(err, errno, "link \"%s\": no IPv6 address generation",
		                       inside);
	if (add_addr4(fd, l.index, addr, prefix) < 0)
		return brig_error_setp(err, errno, "add address %u.%u.%u.%u/%u to link \"%s\"",
		                       A4(addr), prefix, inside);
	if (brig_nl_set_up(fd, l.index) < 0)
		return brig_error_setp(err, errno, "set link \"%s\" up", inside);
	if (default_route(fd, AF_INET, l.index, gw) < 0)
		return brig_error_setp(err, errno, "default route via %u.%u.%u.%u on link \"%s\"",
		                       A4(gw), inside);
	if (!v6)
		return 0;
	if (add_addr(fd, AF_INET6, l.index, v6->inside, v6->prefix) < 0) {
		if (ipv6_off(errno))
			return 0;
		return addr6_failed(err, errno, v6->inside, v6->prefix, inside);
	}
	if (default_route(fd, AF_INET6, l.index, v6->host) < 0) {
		inet_ntop(AF_INET6, v6->host, text, sizeof(text));
		return brig_error_setp(err, errno, "default route via %s on link \"%s\"", text,
		                       inside);
	}
	return 0;
}

int brig_veth_give(const char *peer, int nsfd, const char *inside, const uint8_t addr[4],
                   unsigned prefix, const uint8_t gw[4], struct brig_error *err)
{
	_cleanup_close_ int host = -1;
	_cleanup_close_ int ctr = -1;
	struct info in;

	if (check_name("veth peer", peer, err) < 0 || check_name("link", inside, err) < 0)
		return -1;
	if (prefix > 32)
		return brig_error_setp(err, EINVAL, "prefix length %u of link \"%s\"", prefix,
		                       inside);
	host = brig_nl_open(err);
	if (host < 0)
		return -1;
	if (get_info(host, peer, &in) < 0)
		return brig_error_setp(err, errno, "veth peer \"%s\"", peer);
	/* its other end, here, is what takes it along should a step fail */
	if (!in.veth || in.link <= 0 || in.link_ns)
		return brig_error_sete(err, EINVAL,
		                       "link \"%s\" is not the end of a veth pair whose other "
		                       "end is in brig's network namespace",
		                       peer);
	ctr = brig_nl_open_in(nsfd, err);
	if (ctr < 0)
		goto fail;
	if (brig_nl_move(host, in.index, nsfd, inside) < 0) {
		brig_error_setp(err, errno,
		                "move veth peer \"%s\" into a network namespace as \"%s\"", peer,
		                inside);
		goto fail;
	}
	if (settle(ctr, inside, addr, prefix, gw, NULL, err) < 0)
		goto fail;
	return 0;
fail:
	/* the peer goes, wherever it is now: its other end takes it along */
	if (del_link(host, in.link, NULL) < 0 && errno != ENODEV)
		brig_warn("veth peer \"%s\" left behind: delete its other end: %s", peer,
		          strerror(errno));
	return -1;
}

/* ------------------------------------------------------------ create in */

int brig_veth_create_in(const char *host, const uint8_t host_addr[4], int nsfd, const char *inside,
                        const uint8_t addr[4], unsigned prefix, const struct brig_veth_addr6 *v6,
                        struct brig_error *err)
{
	_cleanup_close_ int fd = -1;
	_cleanup_close_ int ctr = -1;
	struct brig_nl_link l;

	if (check_name("veth", host, err) < 0 || check_name("link", inside, err) < 0)
		return -1;
	if (prefix > 32)
		return brig_error_setp(err, EINVAL, "prefix length %u of link \"%s\"", prefix,
		                       host);
	fd = brig_nl_open(err);
	if (fd < 0)
		return -1;
	ctr = brig_nl_open_in(nsfd, err);
	if (ctr < 0)
		return -1;
	if (new_veth(fd, host, inside, nsfd) < 0)
		return brig_error_setp(err, errno, "veth \"%s\"", host);
	if (no_addr_gen(fd, host) < 0) {
		brig_error_setp(err, errno, "veth \"%s\": no IPv6 address generation", host);
		goto fail;
	}
	if (brig_nl_get_link(fd, host, &l) < 0) {
		brig_error_setp(err, errno, "link \"%s\"", host);
		goto fail;
	}
	if (add_addr4(fd, l.index, host_addr, prefix) < 0) {
		brig_error_setp(err, errno, "add address %u.%u.%u.%u/%u to link \"%s\"",
		                A4(host_addr), prefix, host);
		goto fail;
	}
	if (v6 && add_addr(fd, AF_INET6, l.index, v6->host, v6->prefix) < 0) {
		if (!ipv6_off(errno)) {
			addr6_failed(err, errno, v6->host, v6->prefix, host);
			goto fail;
		}
		v6 = NULL; /* IPv6 is off here: none inside either */
	}
	if (brig_nl_set_up(fd, l.index) < 0) {
		brig_error_setp(err, errno, "set link \"%s\" up", host);
		goto fail;
	}
	if (settle(ctr, inside, addr, prefix, host_addr, v6, err) < 0)
		goto fail;
	return 0;
fail:
	/* the other end goes with it */
	if (del_link(fd, 0, host) < 0 && errno != ENODEV)
		brig_warn("veth \"%s\" left behind: %s", host, strerror(errno));
	return -1;
}

/* --------------------------------------------------------------- others */

int brig_link_delete(const char *name, struct brig_error *err)
{
	_cleanup_close_ int fd = -1;

	if (check_name("link", name, err) < 0)
		return -1;
	fd = brig_nl_open(err);
	if (fd < 0)
		return -1;
	if (del_link(fd, 0, name) < 0 && errno != ENODEV)
		return brig_error_setp(err, errno, "delete link \"%s\"", name);
	return 0;
}

bool brig_link_exists(const char *name)
{
	struct brig_error ignored = BRIG_ERROR_INIT;
	_cleanup_close_ int fd = -1;
	struct brig_nl_link l;

	if (!brig_netdev_name_ok(name))
		return false;
	fd = brig_nl_open(&ignored);
	brig_error_release(&ignored);
	return fd >= 0 && brig_nl_get_link(fd, name, &l) == 0;
}

/* Whether the notices in @buf (@n bytes) tell that link @index is gone. */
static bool deleted(const char *buf, ssize_t n, int index)
{
	for (const struct nlmsghdr *h = (const void *)buf; NLMSG_OK(h, (size_t)n);
	     h = NLMSG_NEXT(h, n)) {
		const struct ifinfomsg *ifi = NLMSG_DATA(h);

		if (h->nlmsg_type == RTM_DELLINK && h->nlmsg_len >= NLMSG_LENGTH(sizeof(*ifi)) &&
		    ifi->ifi_index == index)
			return true;
	}
	return false;
}

int brig_link_wait_gone(const char *name, int timeout_ms)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
	struct brig_error ignored = BRIG_ERROR_INIT;
	_cleanup_close_ int ev = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	_cleanup_close_ int fd = -1;
	struct brig_nl_link l;
	struct timespec end, now;

	if (ev < 0 || bind(ev, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -1;
	fd = brig_nl_open(&ignored);
	brig_error_release(&ignored);
	/* listening first: a link gone after this look is noticed */
	if (fd < 0)
		return -1;
	if (brig_nl_get_link(fd, name, &l) < 0)
		return errno == ENODEV ? 1 : -1;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += timeout_ms / 1000;
	end.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	for (;;) {
		char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
		struct pollfd p = { .fd = ev, .events = POLLIN };
		long left;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (end.tv_sec - now.tv_sec) * 1000 + (end.tv_nsec - now.tv_nsec) / 1000000;
		if (left <= 0)
			return 0;
		if (poll(&p, 1, (int)left) < 0 && errno != EINTR)
			return -1;
		n = recv(ev, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0 && deleted(buf, n, l.index))
			return 1;
		/* notices lost (ENOBUFS): look again */
		if (n < 0 && errno == ENOBUFS && brig_nl_get_link(fd, name, &l) < 0)
			return errno == ENODEV ? 1 : -1;
	}
}

int brig_link_addr4_up(const char *name, const uint8_t addr[4], unsigned prefix,
                       struct brig_error *err)
{
	_cleanup_close_ int fd = -1;
	struct brig_nl_link l;

	if (check_name("link", name, err) < 0)
		return -1;
	if (prefix > 32)
		return brig_error_setp(err, EINVAL, "prefix length %u of link \"%s\"", prefix,
		                       name);
	fd = brig_nl_open(err);
	if (fd < 0)
		return -1;
	if (brig_nl_get_link(fd, name, &l) < 0)
		return brig_error_setp(err, errno, "link \"%s\"", name);
	if (add_addr4(fd, l.index, addr, prefix) < 0)
		return brig_error_setp(err, errno, "add address %u.%u.%u.%u/%u to link \"%s\"",
		                       A4(addr), prefix, name);
	if (brig_nl_set_up(fd, l.index) < 0)
		return brig_error_setp(err, errno, "set link \"%s\" up", name);
	return 0;
}

int brig_link_bytes(const char *name, uint64_t *rx, uint64_t *tx, struct brig_error *err)
{
	_cleanup_close_ int fd = -1;
	struct info in;

	if (check_name("link", name, err) < 0)
		return -1;
	fd = brig_nl_open(err);
	if (fd < 0)
		return -1;
	if (get_info(fd, name, &in) < 0)
		return brig_error_setp(err, errno, "link \"%s\"", name);
	if (!in.has_stats)
		return brig_error_setp(err, ENODATA, "counters of link \"%s\"", name);
	*rx = in.rx_bytes;
	*tx = in.tx_bytes;
	return 0;
}
