/* SPDX-License-Identifier: Apache-2.0 */
/* linux.netDevices (netdev.h): rtnetlink by hand, every request acked. */
#include "config.h"
#include "linux/netdev.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/log.h"

#define NL_BUF 16384
#define MAX_ADDRS 64

/* ---------------------------------------------------------------- names */

bool brig_netdev_name_ok(const char *name)
{
	size_t len = name ? strlen(name) : 0;

	if (len == 0 || len >= IFNAMSIZ || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (const char *p = name; *p; p++)
		if (*p == '/' || *p == ':' || *p == ' ' || (*p >= '\t' && *p <= '\r'))
			return false;
	return true;
}

static const char *inside_name(const struct brig_net_device *nd)
{
	return nd->name ? nd->name : nd->host_name;
}

char *brig_netdev_record(const struct brig_linux *lx)
{
	size_t n = lx ? lx->n_net_devices : 0;
	char *text = calloc(n * 2 * IFNAMSIZ + 1, 1);
	size_t off = 0;

	if (!text)
		return NULL;
	for (size_t i = 0; i < n; i++)
		off += (size_t)sprintf(text + off, "%s %s\n", lx->net_devices[i].host_name,
		                       inside_name(&lx->net_devices[i]));
	return text;
}

ssize_t brig_netdev_record_parse(const char *text, struct brig_netdev **out)
{
	size_t n = 0, cap = 0;
	struct brig_netdev *v = NULL;

	*out = NULL;
	while (text && *text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		char line[2 * IFNAMSIZ + 2], host[IFNAMSIZ], inside[IFNAMSIZ];
		char extra;

		if (len < sizeof(line)) {
			memcpy(line, text, len);
			line[len] = '\0';
			if (sscanf(line, "%15s %15s %c", host, inside, &extra) == 2 &&
			    brig_netdev_name_ok(host) && brig_netdev_name_ok(inside)) {
				if (n == cap) {
					struct brig_netdev *w;

					cap = cap ? 2 * cap : 4;
					w = realloc(v, cap * sizeof(*v));
					if (!w) {
						free(v);
						return -1;
					}
					v = w;
				}
				snprintf(v[n].host, sizeof(v[n].host), "%s", host);
				snprintf(v[n].inside, sizeof(v[n].inside), "%s", inside);
				n++;
			}
		}
		text += len + (nl ? 1 : 0);
	}
	*out = v;
	return (ssize_t)n;
}

/* ------------------------------------------------------------- netlink */

struct nl_req {
	struct nlmsghdr h;
	char body[1024];
};

static int nl_open(struct brig_error *err)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0)
		return brig_error_setp(err, errno, "netlink socket");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		brig_error_setp(err, errno, "bind netlink socket");
		close(fd);
		return -1;
	}
	return fd;
}

static void nl_init(struct nl_req *r, uint16_t type, uint16_t flags, const void *hdr, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->h.nlmsg_len = NLMSG_LENGTH(len);
	r->h.nlmsg_type = type;
	r->h.nlmsg_flags = NLM_F_REQUEST | flags;
	memcpy(NLMSG_DATA(&r->h), hdr, len);
}

/* Append an attribute; the buffer is sized for every message built here. */
static void nl_attr(struct nl_req *r, uint16_t type, const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)((char *)&r->h + NLMSG_ALIGN(r->h.nlmsg_len));

	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(a), data, len);
	r->h.nlmsg_len = NLMSG_ALIGN(r->h.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

typedef void (*nl_cb)(const struct nlmsghdr *h, void *arg);

/* Send @r and read until its ack (or, for a dump, NLMSG_DONE); each
 * other message of its sequence goes to @cb.  -1 with errno (the
 * kernel's) on error. */
static int nl_talk(int fd, struct nl_req *r, nl_cb cb, void *arg)
{
	static uint32_t seq;
	char buf[NL_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));
	/* a dump is a GET (rtnetlink: type % 4 == 2) with NLM_F_DUMP; on a
	 * NEW, NLM_F_EXCL is the same bit as NLM_F_MATCH */
	bool dump = (r->h.nlmsg_type & 3) == 2 && (r->h.nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;

	r->h.nlmsg_seq = ++seq;
	if (send(fd, &r->h, r->h.nlmsg_len, 0) < 0)
		return -1;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_TRUNC);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if ((size_t)n > sizeof(buf)) {
			errno = EMSGSIZE;
			return -1;
		}
		for (size_t left = (size_t)n; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_seq != r->h.nlmsg_seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE && dump)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e))) {
					errno = EBADMSG;
					return -1;
				}
				if (e->error == 0 && !dump)
					return 0;
				errno = e->error ? -e->error : EBADMSG;
				return -1;
			}
			if (cb)
				cb(h, arg);
		}
	}
}

struct link {
	int index;
	unsigned flags;
};

static void on_link(const struct nlmsghdr *h, void *arg)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	struct link *l = arg;

	if (h->nlmsg_type == RTM_NEWLINK && h->nlmsg_len >= NLMSG_LENGTH(sizeof(*ifi))) {
		l->index = ifi->ifi_index;
		l->flags = ifi->ifi_flags;
	}
}

/* The device called @name in the namespace of @fd. */
static int get_link(int fd, const char *name, struct link *l)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nl_req r;

	nl_init(&r, RTM_GETLINK, NLM_F_ACK, &ifi, sizeof(ifi));
	nl_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	l->index = 0;
	if (nl_talk(fd, &r, on_link, l) < 0)
		return -1;
	if (l->index <= 0) {
		errno = ENODEV;
		return -1;
	}
	return 0;
}

/* An address to add again after a move (IFA_LABEL is not kept: it
 * holds the device's old name). */
struct addr {
	struct ifaddrmsg m;
	uint32_t flags;
	unsigned char local[16], address[16], brd[16];
	bool has_local, has_address, has_brd;
};

struct addrs {
	int index;
	size_t n;
	struct addr a[MAX_ADDRS];
	bool overflow;
};

static void copy_attr(const struct rtattr *a, unsigned char *to, bool *has)
{
	size_t len = RTA_PAYLOAD(a);

	if (len == 4 || len == 16) {
		memcpy(to, RTA_DATA(a), len);
		*has = true;
	}
}

static void on_addr(const struct nlmsghdr *h, void *arg)
{
	const struct ifaddrmsg *m = NLMSG_DATA(h);
	struct addrs *as = arg;
	struct addr a = { 0 };
	const struct rtattr *rta;
	int len;

	if (h->nlmsg_type != RTM_NEWADDR || h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)) ||
	    (int)m->ifa_index != as->index)
		return;
	a.m = *m;
	a.flags = m->ifa_flags;
	len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
	for (rta = IFA_RTA(m); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == IFA_LOCAL)
			copy_attr(rta, a.local, &a.has_local);
		else if (rta->rta_type == IFA_ADDRESS)
			copy_attr(rta, a.address, &a.has_address);
		else if (rta->rta_type == IFA_BROADCAST)
			copy_attr(rta, a.brd, &a.has_brd);
		else if (rta->rta_type == IFA_FLAGS && RTA_PAYLOAD(rta) == 4)
			memcpy(&a.flags, RTA_DATA(rta), 4);
	}
	if (!(a.flags & IFA_F_PERMANENT))
		return;
	if (as->n == MAX_ADDRS) {
		as->overflow = true;
		return;
	}
	as->a[as->n++] = a;
}

static int get_addrs(int fd, struct addrs *as)
{
	struct ifaddrmsg m = { .ifa_family = AF_UNSPEC };
	struct nl_req r;

	nl_init(&r, RTM_GETADDR, NLM_F_DUMP, &m, sizeof(m));
	if (nl_talk(fd, &r, on_addr, as) < 0)
		return -1;
	if (as->overflow) {
		errno = E2BIG;
		return -1;
	}
	return 0;
}

static int add_addr(int fd, int index, const struct addr *a)
{
	struct ifaddrmsg m = a->m;
	size_t alen = m.ifa_family == AF_INET ? 4 : 16;
	uint32_t keep = a->flags & (IFA_F_NODAD | IFA_F_NOPREFIXROUTE | IFA_F_HOMEADDRESS |
	                            IFA_F_MANAGETEMPADDR);
	struct nl_req r;

	m.ifa_index = (unsigned)index;
	m.ifa_flags = 0;
	nl_init(&r, RTM_NEWADDR, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, &m, sizeof(m));
	if (a->has_local)
		nl_attr(&r, IFA_LOCAL, a->local, alen);
	if (a->has_address)
		nl_attr(&r, IFA_ADDRESS, a->address, alen);
	if (a->has_brd)
		nl_attr(&r, IFA_BROADCAST, a->brd, alen);
	if (keep)
		nl_attr(&r, IFA_FLAGS, &keep, sizeof(keep));
	/* an IPv6 link-local address the kernel made already is the same */
	if (nl_talk(fd, &r, NULL, NULL) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

static int set_up(int fd, int index)
{
	struct ifinfomsg ifi = {
		.ifi_family = AF_UNSPEC,
		.ifi_index = index,
		.ifi_flags = IFF_UP,
		.ifi_change = IFF_UP,
	};
	struct nl_req r;

	nl_init(&r, RTM_NEWLINK, NLM_F_ACK, &ifi, sizeof(ifi));
	return nl_talk(fd, &r, NULL, NULL);
}

/* The one message that moves and renames. */
static int change_netns(int fd, int index, int nsfd, const char *name)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = index };
	uint32_t ns = (uint32_t)nsfd;
	struct nl_req r;

	nl_init(&r, RTM_NEWLINK, NLM_F_ACK, &ifi, sizeof(ifi));
	nl_attr(&r, IFLA_NET_NS_FD, &ns, sizeof(ns));
	nl_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	return nl_talk(fd, &r, NULL, NULL);
}

/* ----------------------------------------------------------- namespaces */

/* A netlink socket made in the network namespace @nsfd, by a child
 * that joins it and sends the socket back. */
static int nl_open_in(int nsfd, struct brig_error *err)
{
	int sp[2];
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	pid_t pid;
	int fd = -1, status;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
		return brig_error_setp(err, errno, "socketpair");
	pid = fork();
	if (pid < 0) {
		close(sp[0]);
		close(sp[1]);
		return brig_error_setp(err, errno, "fork");
	}
	if (pid == 0) {
		int s;

		close(sp[0]);
		if (setns(nsfd, CLONE_NEWNET) < 0 ||
		    (s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE)) < 0)
			_exit(errno & 0x7f);
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &s, sizeof(int));
		_exit(sendmsg(sp[1], &mh, 0) < 0 ? (errno & 0x7f) : 0);
	}
	close(sp[1]);
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	if (recvmsg(sp[0], &mh, MSG_CMSG_CLOEXEC) > 0 && (c = CMSG_FIRSTHDR(&mh)) &&
	    c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	close(sp[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (fd < 0) {
		int e = WIFEXITED(status) && WEXITSTATUS(status) ? WEXITSTATUS(status) : EPROTO;

		return brig_error_setp(err, e,
		                       "netlink socket in the container's network namespace");
	}
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		brig_error_setp(err, errno, "bind netlink socket");
		close(fd);
		return -1;
	}
	return fd;
}

int brig_netns_of(int pidfd, pid_t pid, struct brig_error *err)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return brig_error_setp(err, errno, "open %s", path);
	/* the pidfd's process is still alive: /proc named that one */
	if (pidfd_send_signal(pidfd, 0, NULL, 0) < 0) {
		brig_error_setp(err, errno, "the container's init");
		close(fd);
		return -1;
	}
	return fd;
}

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

bool brig_netns_is_own(int nsfd)
{
	_cleanup_close_ int own = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

	return own < 0 || same_file(own, nsfd);
}

/* ---------------------------------------------------------------- moves */

/* @name in the namespace of @fd, just moved there: its addresses @as
 * again, and up if @flags say it was. */
static int settle(int fd, const char *name, const struct addrs *as, unsigned flags,
                  struct brig_error *err)
{
	struct link l;

	if (get_link(fd, name, &l) < 0)
		return brig_error_setp(err, errno, "network device \"%s\" once moved", name);
	for (size_t i = 0; i < as->n; i++)
		if (add_addr(fd, l.index, &as->a[i]) < 0)
			return brig_error_setp(err, errno,
			                       "add an address to network device \"%s\"", name);
	if ((flags & IFF_UP) && set_up(fd, l.index) < 0)
		return brig_error_setp(err, errno, "set network device \"%s\" up", name);
	return 0;
}

/*
 * Move @from (in @src's namespace, @srcns) to the namespace @dstns (@dst)
 * as @to, with its permanent addresses and up state; *@moved says whether
 * it left.  The kernel moves a device under its own name first and renames
 * it after: a rename that fails leaves it moved, and it is brought back
 * here (the same ifindex under @from on the other side proves it ours).
 */
static int move_one(int src, int srcns, int dst, int dstns, const char *from, const char *to,
                    bool *moved, struct brig_error *err)
{
	struct addrs *as = calloc(1, sizeof(*as));
	struct link l, there;
	int r = -1, e;

	*moved = false;
	if (!as)
		return brig_error_setp(err, ENOMEM, "network device \"%s\"", from);
	if (get_link(src, from, &l) < 0) {
		brig_error_setp(err, errno, "network device \"%s\"", from);
		goto out;
	}
	if (get_link(dst, to, &there) == 0) {
		brig_error_setp(err, EEXIST, "move network device \"%s\" as \"%s\"", from, to);
		goto out;
	}
	as->index = l.index;
	if (get_addrs(src, as) < 0) {
		brig_error_setp(err, errno, "addresses of network device \"%s\"", from);
		goto out;
	}
	if (change_netns(src, l.index, dstns, to) < 0) {
		e = errno;
		if (strcmp(from, to) != 0 && get_link(dst, from, &there) == 0 &&
		    there.index == l.index && change_netns(dst, there.index, srcns, from) == 0) {
			struct brig_error ignored = BRIG_ERROR_INIT;

			settle(src, from, as, l.flags, &ignored);
			brig_error_release(&ignored);
		}
		brig_error_setp(err, e, "move network device \"%s\" as \"%s\"", from, to);
		goto out;
	}
	*moved = true;
	r = settle(dst, to, as, l.flags, err);
out:
	free(as);
	return r;
}

int brig_netdev_move_in(const struct brig_netdev *devs, size_t n, int nsfd, struct brig_error *err)
{
	_cleanup_close_ int host = -1;
	_cleanup_close_ int ctr = -1;
	_cleanup_close_ int own = -1;
	size_t done = 0;
	bool moved = false;

	if (!n)
		return 0;
	own = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (own < 0)
		return brig_error_setp(err, errno, "open /proc/self/ns/net");
	if ((host = nl_open(err)) < 0 || (ctr = nl_open_in(nsfd, err)) < 0)
		return -1;
	for (; done < n; done++)
		if (move_one(host, own, ctr, nsfd, devs[done].host, devs[done].inside, &moved,
		             err) < 0)
			break;
	if (done == n)
		return 0;
	/* all or none: back go the failed one, if it left, and those before */
	for (size_t i = done + (moved ? 1 : 0); i-- > 0;) {
		struct brig_error e2 = BRIG_ERROR_INIT;
		bool back;

		if (move_one(ctr, nsfd, host, own, devs[i].inside, devs[i].host, &back, &e2) < 0)
			brig_warn("linux.netDevices: %s", e2.msg);
		brig_error_release(&e2);
	}
	return -1;
}

int brig_netdev_move_out(const struct brig_netdev *devs, size_t n, int nsfd, struct brig_error *err)
{
	_cleanup_close_ int host = -1;
	_cleanup_close_ int ctr = -1;
	_cleanup_close_ int own = -1;
	int r = 0;

	if (!n)
		return 0;
	if (brig_netns_is_own(nsfd))
		return brig_error_set(err, "the container's network namespace is brig's own: "
		                           "no network device moved back");
	own = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (own < 0)
		return brig_error_setp(err, errno, "open /proc/self/ns/net");
	if ((host = nl_open(err)) < 0 || (ctr = nl_open_in(nsfd, err)) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct brig_error e2 = BRIG_ERROR_INIT;
		struct link l;
		bool moved;

		/* only what is in the container's namespace now */
		if (get_link(ctr, devs[i].inside, &l) < 0) {
			brig_debug("network device \"%s\" is not in the container: %s",
			           devs[i].inside, strerror(errno));
			continue;
		}
		if (move_one(ctr, nsfd, host, own, devs[i].inside, devs[i].host, &moved, &e2) < 0) {
			if (r == 0) {
				*err = e2;
				r = -1;
				continue;
			}
			brig_warn("linux.netDevices: %s", e2.msg);
		}
		brig_error_release(&e2);
	}
	return r;
}

/* --------------------------------------------------------------- checks */

int brig_netdev_check(const struct brig_linux *lx, bool new_netns, bool joined,
                      struct brig_error *err)
{
	_cleanup_close_ int fd = -1;

	if (!lx || !lx->n_net_devices)
		return 0;
	if (joined)
		return brig_error_set(err, "config.json: linux.netDevices: the container joins a "
		                           "network namespace by path: devices move only into a "
		                           "new one");
	if (!new_netns)
		return brig_error_set(err, "config.json: linux.netDevices: needs a new network "
		                           "namespace (linux.namespaces has no \"network\")");
	fd = nl_open(err);
	if (fd < 0)
		return brig_error_wrap(err, "config.json: linux.netDevices");
	for (size_t i = 0; i < lx->n_net_devices; i++) {
		const struct brig_net_device *nd = &lx->net_devices[i];
		const char *name = inside_name(nd);
		struct link l;

		if (!brig_netdev_name_ok(nd->host_name) || !brig_netdev_name_ok(name))
			return brig_error_set(
			    err,
			    "config.json: linux.netDevices[\"%s\"]: invalid network "
			    "interface name \"%s\"",
			    nd->host_name, name);
		if (!strcmp(name, "lo"))
			return brig_error_set(
			    err,
			    "config.json: linux.netDevices[\"%s\"]: name \"lo\" is "
			    "taken in the container by its loopback",
			    nd->host_name);
		for (size_t k = 0; k < i; k++)
			if (!strcmp(inside_name(&lx->net_devices[k]), name))
				return brig_error_set(err,
				                      "config.json: linux.netDevices[\"%s\"]: name "
				                      "\"%s\" is taken in the container by "
				                      "linux.netDevices[\"%s\"]",
				                      nd->host_name, name,
				                      lx->net_devices[k].host_name);
		if (get_link(fd, nd->host_name, &l) < 0)
			return brig_error_setp(
			    err, errno,
			    "config.json: linux.netDevices[\"%s\"]: network device "
			    "\"%s\"",
			    nd->host_name, nd->host_name);
	}
	return 0;
}
