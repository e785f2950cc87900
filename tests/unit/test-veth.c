/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The veth pair of an egress job (linux/veth.h), for real: as root, in a
 * network namespace of the test's own (the host's network is never
 * touched), with a child in another one standing for the job.  Checked
 * through a netlink socket opened in the job's namespace
 * (linux/netlink.h), and by a datagram the job sends through its eth0.
 * BRIG_VETH_BENCH=N times N creates and gives (default 20).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "linux/netlink.h"
#include "linux/veth.h"
#include "tap.h"
#include "util/error.h"

static const uint8_t HOST[4] = { 10, 213, 0, 1 };
static const uint8_t JOB[4] = { 10, 213, 0, 2 };

/* ------------------------------------------------------------- the job */

/* The job: a network namespace of its own; on 'u' + a port it sends a
 * datagram to HOST:port and answers its errno, on 'q' it ends. */
static pid_t job_start(int *ctl)
{
	int sp[2];
	pid_t pid;
	char c;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct {
			char cmd;
			uint16_t port;
		} m;

		close(sp[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		c = unshare(CLONE_NEWNET) < 0 ? 'e' : 'r';
		if (write(sp[1], &c, 1) != 1 || c != 'r')
			_exit(1);
		while (read(sp[1], &m, sizeof(m)) == (ssize_t)sizeof(m) && m.cmd == 'u') {
			struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = m.port };
			int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
			int e = 0;

			memcpy(&to.sin_addr, HOST, 4);
			if (s < 0 ||
			    sendto(s, "egress", 6, 0, (struct sockaddr *)&to, sizeof(to)) != 6)
				e = errno;
			if (s >= 0)
				close(s);
			if (write(sp[1], &e, sizeof(e)) != (ssize_t)sizeof(e))
				_exit(1);
		}
		_exit(0);
	}
	close(sp[1]);
	if (read(sp[0], &c, 1) != 1 || c != 'r') {
		close(sp[0]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	*ctl = sp[0];
	return pid;
}

/* The job sends a datagram to HOST:@port: its errno (0 when sent). */
static int job_send(int ctl, uint16_t port)
{
	struct {
		char cmd;
		uint16_t port;
	} m = { 'u', port };
	int e = EPROTO;

	if (write(ctl, &m, sizeof(m)) != (ssize_t)sizeof(m) ||
	    read(ctl, &e, sizeof(e)) != (ssize_t)sizeof(e))
		return EPROTO;
	return e;
}

/* ------------------------------------------------------ what netlink says */

struct seen {
	int index;
	/* links */
	int gen_mode; /* IFLA_INET6_ADDR_GEN_MODE, -1 when not told */
	/* addresses of @index */
	int n4, n6;
	uint8_t addr4[4], addr6[16];
	unsigned prefix4, prefix6;
	/* default routes */
	bool default_route, default_route6;
	uint8_t gw[4], gw6[16];
	int oif, oif6;
};

static void on_link(const struct nlmsghdr *h, void *arg)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	struct seen *s = arg;
	const struct rtattr *a;
	int len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi)));

	for (a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		const struct rtattr *f, *g;
		int flen, glen;

		if (a->rta_type != IFLA_AF_SPEC)
			continue;
		flen = (int)RTA_PAYLOAD(a);
		for (f = RTA_DATA(a); RTA_OK(f, flen); f = RTA_NEXT(f, flen)) {
			if (f->rta_type != AF_INET6)
				continue;
			glen = (int)RTA_PAYLOAD(f);
			for (g = RTA_DATA(f); RTA_OK(g, glen); g = RTA_NEXT(g, glen))
				if (g->rta_type == IFLA_INET6_ADDR_GEN_MODE)
					s->gen_mode = *(const uint8_t *)RTA_DATA(g);
		}
	}
}

/* IFLA_INET6_ADDR_GEN_MODE of @name in the namespace of @fd, -1 when
 * the kernel does not tell it. */
static int gen_mode(int fd, const char *name)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct seen s = { .gen_mode = -1 };
	struct brig_nl_req r;

	brig_nl_init(&r, RTM_GETLINK, NLM_F_ACK, &ifi, sizeof(ifi));
	brig_nl_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	if (brig_nl_talk(fd, &r, on_link, &s) < 0)
		return -2;
	return s.gen_mode;
}

static void on_addr(const struct nlmsghdr *h, void *arg)
{
	const struct ifaddrmsg *m = NLMSG_DATA(h);
	struct seen *s = arg;
	const struct rtattr *a;
	int len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));

	if (h->nlmsg_type != RTM_NEWADDR || (int)m->ifa_index != s->index)
		return;
	if (m->ifa_family == AF_INET6) {
		s->n6++;
		s->prefix6 = m->ifa_prefixlen;
		for (a = IFA_RTA(m); RTA_OK(a, len); a = RTA_NEXT(a, len))
			if (a->rta_type == IFA_ADDRESS && RTA_PAYLOAD(a) == 16)
				memcpy(s->addr6, RTA_DATA(a), 16);
		return;
	}
	s->n4++;
	s->prefix4 = m->ifa_prefixlen;
	for (a = IFA_RTA(m); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == IFA_LOCAL && RTA_PAYLOAD(a) == 4)
			memcpy(s->addr4, RTA_DATA(a), 4);
}

static void on_route(const struct nlmsghdr *h, void *arg)
{
	const struct rtmsg *m = NLMSG_DATA(h);
	struct seen *s = arg;
	const struct rtattr *a;
	int len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));

	bool v6 = m->rtm_family == AF_INET6;

	if (h->nlmsg_type != RTM_NEWROUTE || (m->rtm_family != AF_INET && !v6) ||
	    m->rtm_dst_len != 0 || m->rtm_table != RT_TABLE_MAIN)
		return;
	*(v6 ? &s->default_route6 : &s->default_route) = true;
	for (a = RTM_RTA(m); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == RTA_GATEWAY && RTA_PAYLOAD(a) == (v6 ? 16u : 4u))
			memcpy(v6 ? s->gw6 : s->gw, RTA_DATA(a), v6 ? 16 : 4);
		else if (a->rta_type == RTA_OIF && RTA_PAYLOAD(a) == 4)
			memcpy(v6 ? &s->oif6 : &s->oif, RTA_DATA(a), 4);
	}
}

/* The addresses of the link @index, and the default routes, in the
 * namespace of @fd. */
static int look(int fd, int index, struct seen *s)
{
	struct ifaddrmsg am = { .ifa_family = AF_UNSPEC };
	struct rtmsg rm = { .rtm_family = AF_UNSPEC };
	struct brig_nl_req r;

	memset(s, 0, sizeof(*s));
	s->index = index;
	brig_nl_init(&r, RTM_GETADDR, NLM_F_DUMP, &am, sizeof(am));
	if (brig_nl_talk(fd, &r, on_addr, s) < 0)
		return -1;
	brig_nl_init(&r, RTM_GETROUTE, NLM_F_DUMP, &rm, sizeof(rm));
	return brig_nl_talk(fd, &r, on_route, s);
}

static bool has_link(int fd, const char *name)
{
	struct brig_nl_link l;

	return brig_nl_get_link(fd, name, &l) == 0;
}

/* ---------------------------------------------------------------- tests */

/* What an error says, for a test's line ("ok" when none is set). */
static const char *why(const struct brig_error *err)
{
	return err->msg ? err->msg : "ok";
}

static void create(int own)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_nl_link l;
	int r;

	r = brig_veth_create("brig-t0", "brig-t0p", &err);
	ok(r == 0, "create a pair: %s", why(&err));
	brig_error_release(&err);
	ok(brig_link_exists("brig-t0") && brig_link_exists("brig-t0p"), "both ends exist");
	ok(brig_nl_get_link(own, "brig-t0", &l) == 0 && !(l.flags & IFF_UP) &&
	       brig_nl_get_link(own, "brig-t0p", &l) == 0 && !(l.flags & IFF_UP),
	   "both ends down");
	is_int(gen_mode(own, "brig-t0"), IN6_ADDR_GEN_MODE_NONE,
	       "no IPv6 address made on the host end");
	is_int(gen_mode(own, "brig-t0p"), IN6_ADDR_GEN_MODE_NONE, "nor on the peer");

	ok(brig_veth_create("brig-t0", "brig-t0q", &err) < 0, "a second create is refused");
	is_int(err.errnum, EEXIST, "EEXIST");
	is_str(err.msg, "veth \"brig-t0\": File exists", "the message names the link");
	brig_error_release(&err);
	ok(brig_veth_create("brig-t1", "brig-t0p", &err) < 0 && err.errnum == EEXIST,
	   "a peer name taken is EEXIST too");
	is_str(err.msg, "veth peer \"brig-t0p\": File exists", "the message names the peer");
	brig_error_release(&err);
	ok(!brig_link_exists("brig-t1") && !brig_link_exists("brig-t0q"), "nothing left of either");
	r = brig_veth_create("brig-t0-far-too-long", "x", &err);
	ok(r < 0 && err.errnum == EINVAL, "a name of 16 bytes or more is refused: %s", why(&err));
	brig_error_release(&err);
}

static void give(int own, int nsfd, int job)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_nl_link l;
	struct seen s;
	int fd, r;

	r = brig_link_addr4_up("brig-t0", HOST, 30, &err);
	ok(r == 0, "the host end addressed and up: %s", why(&err));
	brig_error_release(&err);
	ok(brig_nl_get_link(own, "brig-t0", &l) == 0 && (l.flags & IFF_UP), "the host end is up");
	ok(look(own, l.index, &s) == 0 && s.n4 == 1 && !memcmp(s.addr4, HOST, 4) && s.prefix4 == 30,
	   "the host end has 10.213.0.1/30");
	ok(brig_link_addr4_up("brig-t0", HOST, 30, &err) == 0,
	   "the same address again is no error");
	brig_error_release(&err);

	r = brig_veth_give("brig-t0p", nsfd, "eth0", JOB, 30, HOST, &err);
	ok(r == 0, "the peer given to the job as eth0: %s", why(&err));
	brig_error_release(&err);
	ok(!brig_link_exists("brig-t0p"), "the peer's name is gone from brig's namespace");

	fd = brig_nl_open_in(nsfd, &err);
	brig_error_release(&err);
	ok(fd >= 0 && brig_nl_get_link(fd, "eth0", &l) == 0, "eth0 is in the job's namespace");
	ok(fd >= 0 && (l.flags & IFF_UP), "eth0 is up");
	ok(fd >= 0 && look(fd, l.index, &s) == 0 && s.n4 == 1 && !memcmp(s.addr4, JOB, 4) &&
	       s.prefix4 == 30,
	   "eth0 has 10.213.0.2/30");
	is_int(s.n6, 0, "eth0 has no IPv6 address");
	is_int(fd >= 0 ? gen_mode(fd, "eth0") : -3, IN6_ADDR_GEN_MODE_NONE,
	       "eth0 makes none once moved");
	ok(s.default_route && !memcmp(s.gw, HOST, 4) && s.oif == l.index,
	   "the default route goes via 10.213.0.1 on eth0");
	ok(fd >= 0 && !has_link(fd, "brig-t0p"), "no brig-t0p in the job's namespace");
	if (fd >= 0)
		close(fd);

	/* a datagram from the job to the host end */
	{
		struct sockaddr_in at = { .sin_family = AF_INET };
		socklen_t alen = sizeof(at);
		uint64_t rx0 = 0, tx0 = 0, rx1 = 0, tx1 = 0;
		struct pollfd p;
		char buf[16] = { 0 };
		int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		memcpy(&at.sin_addr, HOST, 4);
		ok(u >= 0 && bind(u, (struct sockaddr *)&at, sizeof(at)) == 0 &&
		       getsockname(u, (struct sockaddr *)&at, &alen) == 0,
		   "a UDP socket on 10.213.0.1");
		r = brig_link_bytes("brig-t0", &rx0, &tx0, &err);
		ok(r == 0, "the host end's counters: %s", why(&err));
		brig_error_release(&err);
		is_int(job_send(job, at.sin_port), 0, "the job sends a datagram to 10.213.0.1");
		p = (struct pollfd){ .fd = u, .events = POLLIN };
		ok(poll(&p, 1, 5000) == 1 && recv(u, buf, sizeof(buf) - 1, 0) == 6 &&
		       !strcmp(buf, "egress"),
		   "the host end receives it");
		r = brig_link_bytes("brig-t0", &rx1, &tx1, &err);
		ok(r == 0 && rx1 >= rx0 + 6 + 28 && tx1 > tx0,
		   "the counters grow: received %llu -> %llu, sent %llu -> %llu",
		   (unsigned long long)rx0, (unsigned long long)rx1, (unsigned long long)tx0,
		   (unsigned long long)tx1);
		brig_error_release(&err);
		if (u >= 0)
			close(u);
	}

	r = brig_link_delete("brig-t0", &err);
	ok(r == 0, "delete the host end: %s", why(&err));
	brig_error_release(&err);
	ok(!brig_link_exists("brig-t0"), "it is gone");
	fd = brig_nl_open_in(nsfd, &err);
	brig_error_release(&err);
	ok(fd >= 0 && !has_link(fd, "eth0"), "and eth0 with it");
	if (fd >= 0)
		close(fd);
	ok(brig_link_delete("brig-t0", &err) == 0, "delete of a link not there: 0");
	brig_error_release(&err);
}

/* create_in with IPv6: each end addressed, the job's routed both ways;
 * deleting brig's end takes the job's along */
static void create_in(int own, int nsfd)
{
	static const struct brig_veth_addr6 v6 = {
		.host = { 0xfd, 0x62, 0x72, 0x69, 0x67, [15] = 1 },
		.inside = { 0xfd, 0x62, 0x72, 0x69, 0x67, [15] = 2 },
		.prefix = 126,
	};
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_nl_link l;
	struct seen s;
	int fd, r;

	r = brig_veth_create_in("brig-t4", HOST, nsfd, "eth0", JOB, 30, &v6, &err);
	ok(r == 0, "a pair made across the namespaces, with IPv6: %s", why(&err));
	brig_error_release(&err);
	ok(brig_nl_get_link(own, "brig-t4", &l) == 0 && (l.flags & IFF_UP), "brig's end is up");
	ok(look(own, l.index, &s) == 0 && s.n4 == 1 && !memcmp(s.addr4, HOST, 4) && s.n6 == 1 &&
	       !memcmp(s.addr6, v6.host, 16) && s.prefix6 == 126,
	   "brig's end has 10.213.0.1/30 and fd62:7269:6700::1/126, and no other IPv6 address");
	fd = brig_nl_open_in(nsfd, &err);
	brig_error_release(&err);
	ok(fd >= 0 && brig_nl_get_link(fd, "eth0", &l) == 0 && (l.flags & IFF_UP),
	   "eth0 is up in the job's namespace");
	ok(fd >= 0 && look(fd, l.index, &s) == 0 && s.n4 == 1 && !memcmp(s.addr4, JOB, 4) &&
	       s.n6 == 1 && !memcmp(s.addr6, v6.inside, 16) && s.prefix6 == 126,
	   "eth0 has 10.213.0.2/30 and fd62:7269:6700::2/126, and no other IPv6 address");
	ok(s.default_route && !memcmp(s.gw, HOST, 4) && s.oif == l.index,
	   "the default route goes via 10.213.0.1 on eth0");
	ok(s.default_route6 && !memcmp(s.gw6, v6.host, 16) && s.oif6 == l.index,
	   "the IPv6 default route goes via fd62:7269:6700::1 on eth0");
	ok(brig_link_delete("brig-t4", &err) == 0 && fd >= 0 && !has_link(fd, "eth0"),
	   "deleting brig's end takes eth0 along");
	brig_error_release(&err);
	if (fd >= 0)
		close(fd);
}

/* give failing, before and after the move: nothing is left anywhere */
static void give_fails(int own, int nsfd)
{
	static const uint8_t far[4] = { 10, 99, 0, 1 };
	struct brig_error err = BRIG_ERROR_INIT;
	int fd = brig_nl_open_in(nsfd, &err), r;

	brig_error_release(&err);
	r = brig_veth_give("brig-none", nsfd, "eth0", JOB, 30, HOST, &err);
	ok(r < 0 && err.errnum == ENODEV, "give of a missing peer fails: %s", why(&err));
	brig_error_release(&err);
	ok(fd >= 0 && !has_link(fd, "eth0") && !has_link(fd, "brig-none"),
	   "nothing in the job's namespace");

	r = brig_veth_give("lo", nsfd, "eth0", JOB, 30, HOST, &err);
	ok(r < 0 && err.errnum == EINVAL, "give of a link that is no veth is refused: %s",
	   why(&err));
	brig_error_release(&err);
	ok(has_link(own, "lo"), "and it is left alone");

	/* the rename fails once moved: the job's lo has the name */
	ok(brig_veth_create("brig-t2", "brig-t2p", &err) == 0, "another pair");
	brig_error_release(&err);
	r = brig_veth_give("brig-t2p", nsfd, "lo", JOB, 30, HOST, &err);
	ok(r < 0 && err.errnum == EEXIST, "give as a name taken in the job's namespace fails: %s",
	   why(&err));
	brig_error_release(&err);
	ok(!brig_link_exists("brig-t2") && !brig_link_exists("brig-t2p"), "the pair is gone here");
	ok(fd >= 0 && !has_link(fd, "brig-t2p") && has_link(fd, "lo"),
	   "nothing of it there, and the job's lo is still there");

	/* the route fails once moved and addressed: its gateway is not on-link */
	ok(brig_veth_create("brig-t3", "brig-t3p", &err) == 0, "a third pair");
	brig_error_release(&err);
	r = brig_veth_give("brig-t3p", nsfd, "eth0", JOB, 30, far, &err);
	ok(r < 0 && err.errnum == ENETUNREACH, "give with a gateway off the link fails: %s",
	   why(&err));
	brig_error_release(&err);
	ok(!brig_link_exists("brig-t3") && !brig_link_exists("brig-t3p"), "the pair is gone here");
	ok(fd >= 0 && !has_link(fd, "eth0"), "and eth0 is gone from the job's namespace");
	if (fd >= 0)
		close(fd);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The wall time of create and give, N times: their medians. */
static void bench(int nsfd)
{
	const char *env = getenv("BRIG_VETH_BENCH");
	int n = env ? atoi(env) : 20, done = 0;
	uint64_t *c = calloc((size_t)(n > 0 ? n : 1), sizeof(*c));
	uint64_t *g = calloc((size_t)(n > 0 ? n : 1), sizeof(*g));
	char line[160];

	for (; c && g && done < n; done++) {
		struct brig_error err = BRIG_ERROR_INIT;
		uint64_t t0 = now_ns(), t1, t2;
		bool good = brig_veth_create("brig-b", "brig-bp", &err) == 0;

		t1 = now_ns();
		good = good && brig_link_addr4_up("brig-b", HOST, 30, &err) == 0;
		t2 = now_ns();
		good = good && brig_veth_give("brig-bp", nsfd, "eth0", JOB, 30, HOST, &err) == 0;
		g[done] = now_ns() - t2;
		c[done] = t1 - t0;
		good = brig_link_delete("brig-b", &err) == 0 && good;
		if (!good) {
			ok(false, "create, give, delete #%d: %s", done, why(&err));
			brig_error_release(&err);
			break;
		}
	}
	if (done == n && n > 0) {
		qsort(c, (size_t)n, sizeof(*c), cmp_u64);
		qsort(g, (size_t)n, sizeof(*g), cmp_u64);
		snprintf(line, sizeof(line),
		         "%d times: brig_veth_create median %llu us (max %llu), "
		         "brig_veth_give median %llu us (max %llu)",
		         n, (unsigned long long)c[n / 2] / 1000,
		         (unsigned long long)c[n - 1] / 1000, (unsigned long long)g[n / 2] / 1000,
		         (unsigned long long)g[n - 1] / 1000);
		diag(line);
		ok(true, "create, give, delete %d times", n);
	}
	free(c);
	free(g);
}

int main(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	char path[64];
	int own, nsfd, job = -1, status;
	pid_t pid;

	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root\n");
		return 0;
	}
	/* the test's own network namespace: the host's is never touched */
	if (unshare(CLONE_NEWNET) < 0) {
		printf("1..0 # SKIP unshare(CLONE_NEWNET): %s\n", strerror(errno));
		return 0;
	}
	pid = job_start(&job);
	if (pid < 0) {
		printf("1..0 # SKIP the job's network namespace: %s\n", strerror(errno));
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	own = brig_nl_open(&err);
	brig_error_release(&err);
	if (!ok(nsfd >= 0 && own >= 0, "the job's namespace, a socket in the test's"))
		return tap_done();

	create(own);
	give(own, nsfd, job);
	give_fails(own, nsfd);
	create_in(own, nsfd);
	bench(nsfd);

	close(job); /* the job reads EOF and ends */
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "the job ends well");
	close(nsfd);
	close(own);
	return tap_done();
}
