/* SPDX-License-Identifier: Apache-2.0 */
/* linux.netDevices (netdev.h): rtnetlink by hand (netlink.h), every
 * request acked. */
#include "config.h"
#include "linux/netdev.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/netlink.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/log.h"

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

/* ----------------------------------------------------------- addresses */

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
	struct brig_nl_req r;

	brig_nl_init(&r, RTM_GETADDR, NLM_F_DUMP, &m, sizeof(m));
	if (brig_nl_talk(fd, &r, on_addr, as) < 0)
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
	struct brig_nl_req r;

	m.ifa_index = (unsigned)index;
	m.ifa_flags = 0;
	brig_nl_init(&r, RTM_NEWADDR, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, &m, sizeof(m));
	if (a->has_local)
		brig_nl_attr(&r, IFA_LOCAL, a->local, alen);
	if (a->has_address)
		brig_nl_attr(&r, IFA_ADDRESS, a->address, alen);
	if (a->has_brd)
		brig_nl_attr(&r, IFA_BROADCAST, a->brd, alen);
	if (keep)
		brig_nl_attr(&r, IFA_FLAGS, &keep, sizeof(keep));
	/* an IPv6 link-local address the kernel made already is the same */
	if (brig_nl_talk(fd, &r, NULL, NULL) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

/* ----------------------------------------------------------- namespaces */

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
	struct brig_nl_link l;

	if (brig_nl_get_link(fd, name, &l) < 0)
		return brig_error_setp(err, errno, "network device \"%s\" once moved", name);
	for (size_t i = 0; i < as->n; i++)
		if (add_addr(fd, l.index, &as->a[i]) < 0)
			return brig_error_setp(err, errno,
			                       "add an address to network device \"%s\"", name);
	if ((flags & IFF_UP) && brig_nl_set_up(fd, l.index) < 0)
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
	struct brig_nl_link l, there;
	int r = -1, e;

	*moved = false;
	if (!as)
		return brig_error_setp(err, ENOMEM, "network device \"%s\"", from);
	if (brig_nl_get_link(src, from, &l) < 0) {
		brig_error_setp(err, errno, "network device \"%s\"", from);
		goto out;
	}
	if (brig_nl_get_link(dst, to, &there) == 0) {
		brig_error_setp(err, EEXIST, "move network device \"%s\" as \"%s\"", from, to);
		goto out;
	}
	as->index = l.index;
	if (get_addrs(src, as) < 0) {
		brig_error_setp(err, errno, "addresses of network device \"%s\"", from);
		goto out;
	}
	if (brig_nl_move(src, l.index, dstns, to) < 0) {
		e = errno;
		if (strcmp(from, to) != 0 && brig_nl_get_link(dst, from, &there) == 0 &&
		    there.index == l.index && brig_nl_move(dst, there.index, srcns, from) == 0) {
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
	if ((host = brig_nl_open(err)) < 0 || (ctr = brig_nl_open_in(nsfd, err)) < 0)
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
	if ((host = brig_nl_open(err)) < 0 || (ctr = brig_nl_open_in(nsfd, err)) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct brig_error e2 = BRIG_ERROR_INIT;
		struct brig_nl_link l;
		bool moved;

		/* only what is in the container's namespace now */
		if (brig_nl_get_link(ctr, devs[i].inside, &l) < 0) {
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
	fd = brig_nl_open(err);
	if (fd < 0)
		return brig_error_wrap(err, "config.json: linux.netDevices");
	for (size_t i = 0; i < lx->n_net_devices; i++) {
		const struct brig_net_device *nd = &lx->net_devices[i];
		const char *name = inside_name(nd);
		struct brig_nl_link l;

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
		if (brig_nl_get_link(fd, nd->host_name, &l) < 0)
			return brig_error_setp(
			    err, errno,
			    "config.json: linux.netDevices[\"%s\"]: network device "
			    "\"%s\"",
			    nd->host_name, nd->host_name);
	}
	return 0;
}
