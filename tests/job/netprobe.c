/* SPDX-License-Identifier: Apache-2.0 */
/*
 * netprobe: what a job's network lets through, for tests/job/egress.sh.
 * Busybox's nc has no UDP and no IPv6 literal, says little about why a
 * connection failed, and its nslookup cannot ask over TCP nor show an
 * rcode: this does it with the raw sockets.  Statically linked (no NSS:
 * names are resolved with a query of its own to the nameserver of
 * /etc/resolv.conf), it runs in a busybox rootfs.
 *
 *   netprobe [-w MS] tcp HOST PORT
 *   netprobe [-w MS] udp HOST PORT
 *       HOST is an IPv4 or IPv6 address (no brackets) or a name, resolved
 *       first (an A query); then "ping\n" is sent and an answer awaited.
 *       One line: "tcp|udp HOST PORT STATUS [ADDRESS]", STATUS one of
 *         ok            connected (TCP), sent, and an answer came back
 *         noecho        connected (TCP) or sent (UDP), nothing came back
 *                       (UDP: indistinguishable from a drop)
 *         refused       a reset (TCP) or a port unreachable (UDP)
 *         timeout       no answer to the connect (TCP)
 *         unreachable   EHOSTUNREACH, ENETUNREACH, EACCES, EPERM...
 *         error=ENAME   any other failure
 *         nxdomain      HOST did not resolve: NXDOMAIN
 *         noaddr        HOST resolved to no A record (NODATA)
 *         dns=RCODE     the resolver answered HOST with another rcode
 *         dns=timeout   the resolver did not answer about HOST (a UDP query
 *                       is sent again every 5 s, as a stub resolver does)
 *       ADDRESS is the address connected to (a name's first A record).
 *
 *   netprobe [-w MS] dns [-t] SERVER NAME TYPE
 *       One query of TYPE (A AAAA TXT MX ANY CNAME NS SOA PTR SRV or a
 *       number) for NAME to SERVER (an address, port 53; "-" for
 *       /etc/resolv.conf's first nameserver) over UDP, or TCP with -t.
 *       One line: "dns NAME TYPE RCODE [ANSWER...]", RCODE NOERROR,
 *       FORMERR, SERVFAIL, NXDOMAIN, NOTIMP, REFUSED (or rcode=N), or the
 *       failure to get an answer (timeout, refused, unreachable,
 *       error=ENAME); each ANSWER "A=addr", "AAAA=addr", "CNAME=name",
 *       "TXT=text" or "typeN".
 *
 *   netprobe resolver
 *       /etc/resolv.conf's first nameserver.
 *
 *   netprobe spoof arp|nd IFACE SOURCE TARGET
 *       One ARP request (who has the IPv4 TARGET, tell SOURCE; broadcast)
 *       or one IPv6 neighbour solicitation (for TARGET, from SOURCE, to
 *       TARGET's solicited-node group, with IFACE's address as the
 *       source link-layer option), SOURCE being any address: what a job
 *       with CAP_NET_RAW could send to make its neighbour on the link
 *       learn addresses it does not have.  Sent through a packet socket
 *       on IFACE.  One line: "spoof arp|nd SOURCE TARGET sent" or
 *       "... error=ENAME".
 *
 * -w MS: how long to wait for each connect and each answer (default
 * 1000).  Exit status 0 when a line was printed, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int wait_ms = 1000;

/* One line on stdout in one write(2): probes run side by side in a job. */
static void say(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(1, buf, (size_t)n) < 0)
		exit(1);
}

static const char *errname(int e)
{
	const char *n = strerrorname_np(e);
	return n ? n : "unknown";
}

/* A connect's or a send's failure, as a STATUS word. */
static const char *fail_status(int e, char *buf, size_t size)
{
	switch (e) {
	case ECONNREFUSED:
		return "refused";
	case ETIMEDOUT:
		return "timeout";
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EACCES:
	case EPERM:
	case EADDRNOTAVAIL:
		return "unreachable";
	default:
		snprintf(buf, size, "error=%s", errname(e));
		return buf;
	}
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* poll(fd, EV) for what is left of @deadline: >0 ready, 0 timeout, -1 error */
static int wait_fd(int fd, short ev, long long deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };
	for (;;) {
		long long left = deadline - now_ms();
		int r;
		if (left < 0)
			left = 0;
		r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		return r;
	}
}

static int parse_addr(const char *s, uint16_t port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		*len = sizeof(*a4);
		return 0;
	}
	if (inet_pton(AF_INET6, s, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		*len = sizeof(*a6);
		return 0;
	}
	return -1;
}

/* /etc/resolv.conf's first nameserver, in @buf; -1 when there is none */
static int resolver(char *buf, size_t size)
{
	char line[512];
	FILE *f = fopen("/etc/resolv.conf", "r");
	int found = -1;

	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		char word[64], addr[128];
		if (sscanf(line, "%63s %127s", word, addr) == 2 && !strcmp(word, "nameserver")) {
			snprintf(buf, size, "%s", addr);
			found = 0;
		}
	}
	fclose(f);
	return found;
}

/* Connect @fd to @sa within the deadline: 0, or an errno (ETIMEDOUT). */
static int connect_by(int fd, const struct sockaddr_storage *sa, socklen_t len, long long deadline)
{
	int e = 0;
	socklen_t el = sizeof(e);

	if (connect(fd, (const struct sockaddr *)sa, len) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return errno;
	if (wait_fd(fd, POLLOUT, deadline) <= 0)
		return ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
		return errno;
	return e;
}

/* ------------------------------------------------------------------ DNS */

struct dns_answer {
	int rcode;       /* -1: none came */
	char text[3000]; /* the answers, " A=..." each */
	char first_a[INET_ADDRSTRLEN];
	char why[64]; /* rcode -1: timeout, refused... */
};

static const struct {
	const char *name;
	int type;
} types[] = {
	{ "A", 1 },   { "NS", 2 },   { "CNAME", 5 }, { "SOA", 6 },  { "PTR", 12 },
	{ "MX", 15 }, { "TXT", 16 }, { "AAAA", 28 }, { "SRV", 33 }, { "ANY", 255 },
};

static int type_of(const char *s)
{
	size_t i;
	char *end;
	long v;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcasecmp(s, types[i].name))
			return types[i].type;
	v = strtol(s, &end, 10);
	if (*s && !*end && v > 0 && v < 65536)
		return (int)v;
	return -1;
}

static const char *rcode_name(int rc, char *buf, size_t size)
{
	static const char *const names[] = { "NOERROR",  "FORMERR", "SERVFAIL",
		                             "NXDOMAIN", "NOTIMP",  "REFUSED" };
	if (rc >= 0 && rc < 6)
		return names[rc];
	snprintf(buf, size, "rcode=%d", rc);
	return buf;
}

/* The query for @name of @type, with @id: its length, or -1. */
static int dns_query(uint8_t *q, size_t size, uint16_t id, const char *name, int type)
{
	size_t n = 12;
	const char *p = name;

	if (size < 12 + strlen(name) + 2 + 4)
		return -1;
	memset(q, 0, 12);
	q[0] = id >> 8;
	q[1] = id & 0xff;
	q[2] = 0x01; /* RD */
	q[5] = 1;    /* QDCOUNT */
	while (*p) {
		const char *dot = strchr(p, '.');
		size_t l = dot ? (size_t)(dot - p) : strlen(p);
		if (l == 0 || l > 63)
			return -1;
		q[n++] = (uint8_t)l;
		memcpy(q + n, p, l);
		n += l;
		p += l;
		if (*p == '.')
			p++;
	}
	q[n++] = 0;
	q[n++] = (uint8_t)(type >> 8);
	q[n++] = (uint8_t)type;
	q[n++] = 0;
	q[n++] = 1; /* IN */
	return (int)n;
}

/* The name at @off of the message (pointers followed) in @out; the offset
 * just past it in the record, or -1. */
static int dns_name(const uint8_t *m, size_t len, size_t off, char *out, size_t size)
{
	size_t o = off, w = 0;
	int end = -1, hops = 0;

	if (size)
		out[0] = 0;
	for (;;) {
		uint8_t l;
		if (o >= len)
			return -1;
		l = m[o];
		if ((l & 0xc0) == 0xc0) {
			if (o + 1 >= len || ++hops > 32)
				return -1;
			if (end < 0)
				end = (int)(o + 2);
			o = (size_t)((l & 0x3f) << 8 | m[o + 1]);
			continue;
		}
		if (l & 0xc0)
			return -1;
		if (l == 0) {
			if (end < 0)
				end = (int)(o + 1);
			break;
		}
		if (o + 1 + l > len)
			return -1;
		if (w + l + 2 < size) {
			if (w)
				out[w++] = '.';
			memcpy(out + w, m + o + 1, l);
			w += l;
			out[w] = 0;
		}
		o += 1 + (size_t)l;
	}
	return end;
}

static void append(struct dns_answer *a, const char *fmt, ...)
{
	size_t n = strlen(a->text);
	va_list ap;

	if (n >= sizeof(a->text) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(a->text + n, sizeof(a->text) - n, fmt, ap);
	va_end(ap);
}

/* The answer @m of @len bytes to the query of @id: 0, or -1 when it is
 * not one. */
static int dns_parse(const uint8_t *m, size_t len, uint16_t id, struct dns_answer *a)
{
	unsigned qd, an, i;
	int o = 12;

	if (len < 12 || (m[0] << 8 | m[1]) != id || !(m[2] & 0x80))
		return -1;
	a->rcode = m[3] & 0x0f;
	qd = (unsigned)(m[4] << 8 | m[5]);
	an = (unsigned)(m[6] << 8 | m[7]);
	for (i = 0; i < qd; i++) {
		char name[256];
		o = dns_name(m, len, (size_t)o, name, sizeof(name));
		if (o < 0 || (size_t)o + 4 > len)
			return 0;
		o += 4;
	}
	for (i = 0; i < an; i++) {
		char name[256];
		unsigned type, rdlen;
		size_t rd;
		o = dns_name(m, len, (size_t)o, name, sizeof(name));
		if (o < 0 || (size_t)o + 10 > len)
			return 0;
		type = (unsigned)(m[o] << 8 | m[o + 1]);
		rdlen = (unsigned)(m[o + 8] << 8 | m[o + 9]);
		rd = (size_t)o + 10;
		if (rd + rdlen > len)
			return 0;
		if (type == 1 && rdlen == 4) {
			char s[INET_ADDRSTRLEN];
			inet_ntop(AF_INET, m + rd, s, sizeof(s));
			append(a, " A=%s", s);
			if (!a->first_a[0])
				snprintf(a->first_a, sizeof(a->first_a), "%s", s);
		} else if (type == 28 && rdlen == 16) {
			char s[INET6_ADDRSTRLEN];
			inet_ntop(AF_INET6, m + rd, s, sizeof(s));
			append(a, " AAAA=%s", s);
		} else if (type == 5) {
			char target[256];
			dns_name(m, len, rd, target, sizeof(target));
			append(a, " CNAME=%s", target);
		} else if (type == 16 && rdlen >= 1) {
			size_t l = m[rd];
			char t[256];
			size_t j;
			if (l > rdlen - 1)
				l = rdlen - 1;
			for (j = 0; j < l; j++)
				t[j] = (m[rd + 1 + j] > ' ' && m[rd + 1 + j] < 127)
				           ? (char)m[rd + 1 + j]
				           : '_';
			t[l] = 0;
			append(a, " TXT=%s", t);
		} else {
			append(a, " type%u", type);
		}
		o = (int)(rd + rdlen);
	}
	return 0;
}

static int read_full(int fd, uint8_t *buf, size_t n, long long deadline)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r;
		if (wait_fd(fd, POLLIN, deadline) <= 0)
			return ETIMEDOUT;
		r = read(fd, buf + got, n - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (r == 0)
			return ECONNRESET;
		got += (size_t)r;
	}
	return 0;
}

/* Ask @server (an address, port 53) for @name of @type over UDP or TCP. */
static void dns_ask(const char *server, int tcp, const char *name, int type, struct dns_answer *a)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	uint8_t q[600], m[65536];
	uint16_t id;
	long long deadline = now_ms() + wait_ms;
	int qlen, fd, e;

	memset(a, 0, sizeof(*a));
	a->rcode = -1;
	if (parse_addr(server, 53, &ss, &sl) < 0) {
		snprintf(a->why, sizeof(a->why), "bad-server");
		return;
	}
	srand((unsigned)(now_ms() ^ getpid()));
	id = (uint16_t)rand();
	qlen = dns_query(q + 2, sizeof(q) - 2, id, name, type);
	if (qlen < 0) {
		snprintf(a->why, sizeof(a->why), "bad-name");
		return;
	}
	fd = socket(ss.ss_family, (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK | SOCK_CLOEXEC,
	            0);
	if (fd < 0) {
		char b[64];
		snprintf(a->why, sizeof(a->why), "%s", fail_status(errno, b, sizeof(b)));
		return;
	}
	e = connect_by(fd, &ss, sl, deadline);
	if (e) {
		char b[64];
		snprintf(a->why, sizeof(a->why), "%s", fail_status(e, b, sizeof(b)));
		close(fd);
		return;
	}
	if (tcp) {
		size_t ml;
		q[0] = (uint8_t)(qlen >> 8);
		q[1] = (uint8_t)qlen;
		if (write(fd, q, (size_t)qlen + 2) != qlen + 2) {
			char b[64];
			snprintf(a->why, sizeof(a->why), "%s", fail_status(errno, b, sizeof(b)));
			close(fd);
			return;
		}
		e = read_full(fd, m, 2, deadline);
		if (!e) {
			ml = (size_t)(m[0] << 8 | m[1]);
			e = read_full(fd, m, ml, deadline);
			if (!e && dns_parse(m, ml, id, a) < 0)
				e = EBADMSG;
		}
		if (e) {
			char b[64];
			snprintf(a->why, sizeof(a->why), "%s", fail_status(e, b, sizeof(b)));
		}
		close(fd);
		return;
	}
	if (send(fd, q + 2, (size_t)qlen, 0) < 0) {
		char b[64];
		snprintf(a->why, sizeof(a->why), "%s", fail_status(errno, b, sizeof(b)));
		close(fd);
		return;
	}
	/* a stub resolver's way (glibc: timeout 5, attempts 2): the query
	 * again every 5 s without an answer, until the deadline */
	for (long long resend = now_ms() + 5000;;) {
		ssize_t r;
		long long until = resend < deadline ? resend : deadline;
		if (wait_fd(fd, POLLIN, until) <= 0) {
			if (until == resend && now_ms() < deadline) {
				resend += 5000;
				if (send(fd, q + 2, (size_t)qlen, 0) >= 0)
					continue;
			}
			snprintf(a->why, sizeof(a->why), "timeout");
			break;
		}
		r = recv(fd, m, sizeof(m), 0);
		if (r < 0) {
			char b[64];
			if (errno == EINTR || errno == EAGAIN)
				continue;
			snprintf(a->why, sizeof(a->why), "%s", fail_status(errno, b, sizeof(b)));
			break;
		}
		if (dns_parse(m, (size_t)r, id, a) == 0)
			break;
	}
	close(fd);
}

/* ---------------------------------------------------------------- probes */

static int probe(int tcp, const char *host, const char *port_s)
{
	const char *proto = tcp ? "tcp" : "udp";
	struct sockaddr_storage ss;
	socklen_t sl;
	char addr[INET6_ADDRSTRLEN + 1], b[64], buf[256];
	char *end;
	long port = strtol(port_s, &end, 10);
	long long deadline;
	int fd, e;

	if (!*port_s || *end || port < 1 || port > 65535)
		return 2;
	snprintf(addr, sizeof(addr), "%s", host);
	if (parse_addr(host, (uint16_t)port, &ss, &sl) < 0) {
		struct dns_answer a;
		char server[128];
		if (resolver(server, sizeof(server)) < 0) {
			say("%s %s %s dns=no-resolv.conf", proto, host, port_s);
			return 0;
		}
		dns_ask(server, 0, host, 1, &a);
		if (a.rcode < 0) {
			say("%s %s %s dns=%s", proto, host, port_s, a.why);
			return 0;
		}
		if (a.rcode == 3) {
			say("%s %s %s nxdomain", proto, host, port_s);
			return 0;
		}
		if (a.rcode != 0) {
			say("%s %s %s dns=%s", proto, host, port_s,
			    rcode_name(a.rcode, b, sizeof(b)));
			return 0;
		}
		if (!a.first_a[0]) {
			say("%s %s %s noaddr", proto, host, port_s);
			return 0;
		}
		snprintf(addr, sizeof(addr), "%s", a.first_a);
		parse_addr(addr, (uint16_t)port, &ss, &sl);
	}
	deadline = now_ms() + wait_ms;
	fd = socket(ss.ss_family, (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK | SOCK_CLOEXEC,
	            0);
	if (fd < 0) {
		say("%s %s %s %s %s", proto, host, port_s, fail_status(errno, b, sizeof(b)), addr);
		return 0;
	}
	e = connect_by(fd, &ss, sl, deadline);
	if (e) {
		say("%s %s %s %s %s", proto, host, port_s, fail_status(e, b, sizeof(b)), addr);
		close(fd);
		return 0;
	}
	/* the answer gets a deadline of its own */
	deadline = now_ms() + wait_ms;
	if (send(fd, "ping\n", 5, MSG_NOSIGNAL) < 0) {
		say("%s %s %s %s %s", proto, host, port_s, fail_status(errno, b, sizeof(b)), addr);
		close(fd);
		return 0;
	}
	for (;;) {
		ssize_t r;
		if (wait_fd(fd, POLLIN, deadline) <= 0) {
			say("%s %s %s noecho %s", proto, host, port_s, addr);
			break;
		}
		r = recv(fd, buf, sizeof(buf), 0);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r > 0)
			say("%s %s %s ok %s", proto, host, port_s, addr);
		else if (r == 0)
			say("%s %s %s noecho %s", proto, host, port_s, addr);
		else
			say("%s %s %s %s %s", proto, host, port_s, fail_status(errno, b, sizeof(b)),
			    addr);
		break;
	}
	close(fd);
	return 0;
}

/* ------------------------------------------------------------ spoof */

/* The ones' complement sum of @n bytes, folded on top of @sum. */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* One frame of @len bytes of @proto to @mac through a packet socket on
 * @iface (the kernel adds the Ethernet header); 0 or an errno. */
static int send_frame(const char *iface, uint16_t proto, const uint8_t mac[6], const void *frame,
                      size_t len, uint8_t own[6])
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET,
		                  .sll_protocol = htons(proto),
		                  .sll_halen = 6 };
	struct ifreq ifr = { 0 };
	int fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(proto)), e = 0;

	if (fd < 0)
		return errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0 || !(to.sll_ifindex = (int)if_nametoindex(iface)))
		e = errno;
	memcpy(to.sll_addr, mac, 6);
	if (!e && own)
		memcpy(own, ifr.ifr_hwaddr.sa_data, 6);
	if (!e && !own && sendto(fd, frame, len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		e = errno;
	close(fd);
	return e;
}

static int spoof_arp(const char *iface, const struct in_addr *src, const struct in_addr *dst)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t p[28] = { 0, 1, 8, 0, 6, 4, 0, 1 }, mac[6];
	int e = send_frame(iface, ETH_P_ARP, bcast, NULL, 0, mac);

	if (e)
		return e;
	memcpy(p + 8, mac, 6);
	memcpy(p + 14, src, 4);
	memcpy(p + 24, dst, 4);
	return send_frame(iface, ETH_P_ARP, bcast, p, sizeof(p), NULL);
}

static int spoof_nd(const char *iface, const struct in6_addr *src, const struct in6_addr *dst)
{
	uint8_t p[40 + 32] = { 0x60 }, mac[6], group[16] = { 0xff, 0x02 }, to[6] = { 0x33, 0x33 };
	uint8_t *icmp = p + 40, len[4] = { 0, 0, 0, 32 }, next[4] = { 0, 0, 0, 58 };
	uint32_t sum;
	uint16_t c;
	int e = send_frame(iface, ETH_P_IPV6, to, NULL, 0, mac);

	if (e)
		return e;
	/* the solicited-node group ff02::1:ffXX:XXXX and its MAC */
	group[11] = 1;
	group[12] = 0xff;
	memcpy(group + 13, dst->s6_addr + 13, 3);
	memcpy(to + 2, group + 12, 4);
	p[5] = 32; /* payload length */
	p[6] = 58; /* ICMPv6 */
	p[7] = 255;
	memcpy(p + 8, src, 16);
	memcpy(p + 24, group, 16);
	icmp[0] = 135; /* neighbour solicitation */
	memcpy(icmp + 8, dst, 16);
	icmp[24] = 1; /* source link-layer address */
	icmp[25] = 1;
	memcpy(icmp + 26, mac, 6);
	sum = csum_add(0, p + 8, 32); /* the pseudo-header */
	sum = csum_add(sum, len, 4);
	sum = csum_add(sum, next, 4);
	c = csum_fold(csum_add(sum, icmp, 32));
	icmp[2] = (uint8_t)(c >> 8);
	icmp[3] = (uint8_t)c;
	return send_frame(iface, ETH_P_IPV6, to, p, sizeof(p), NULL);
}

static int spoof(const char *kind, const char *iface, const char *src, const char *dst)
{
	struct in6_addr s6, d6;
	struct in_addr s4, d4;
	int e;

	if (!strcmp(kind, "arp") && inet_pton(AF_INET, src, &s4) == 1 &&
	    inet_pton(AF_INET, dst, &d4) == 1)
		e = spoof_arp(iface, &s4, &d4);
	else if (!strcmp(kind, "nd") && inet_pton(AF_INET6, src, &s6) == 1 &&
	         inet_pton(AF_INET6, dst, &d6) == 1)
		e = spoof_nd(iface, &s6, &d6);
	else
		return -1;
	if (e)
		say("spoof %s %s %s error=%s", kind, src, dst, errname(e));
	else
		say("spoof %s %s %s sent", kind, src, dst);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: netprobe [-w MS] tcp|udp HOST PORT\n"
	                "       netprobe [-w MS] dns [-t] SERVER|- NAME TYPE\n"
	                "       netprobe resolver\n"
	                "       netprobe spoof arp|nd IFACE SOURCE TARGET\n");
	return 2;
}

int main(int argc, char **argv)
{
	int i = 1;

	if (i + 1 < argc && !strcmp(argv[i], "-w")) {
		wait_ms = atoi(argv[i + 1]);
		if (wait_ms <= 0)
			return usage();
		i += 2;
	}
	if (i >= argc)
		return usage();
	if (!strcmp(argv[i], "tcp") || !strcmp(argv[i], "udp")) {
		if (argc - i != 3)
			return usage();
		if (probe(argv[i][0] == 't', argv[i + 1], argv[i + 2]))
			return usage();
		return 0;
	}
	if (!strcmp(argv[i], "dns")) {
		struct dns_answer a;
		char server[128], b[64];
		int tcp = 0, type;
		i++;
		if (i < argc && !strcmp(argv[i], "-t")) {
			tcp = 1;
			i++;
		}
		if (argc - i != 3 || (type = type_of(argv[i + 2])) < 0)
			return usage();
		snprintf(server, sizeof(server), "%s", argv[i]);
		if (!strcmp(server, "-") && resolver(server, sizeof(server)) < 0) {
			say("dns %s %s no-resolv.conf", argv[i + 1], argv[i + 2]);
			return 0;
		}
		dns_ask(server, tcp, argv[i + 1], type, &a);
		if (a.rcode < 0)
			say("dns %s %s %s", argv[i + 1], argv[i + 2], a.why);
		else
			say("dns %s %s %s%s", argv[i + 1], argv[i + 2],
			    rcode_name(a.rcode, b, sizeof(b)), a.text);
		return 0;
	}
	if (!strcmp(argv[i], "spoof") && argc - i == 5)
		return spoof(argv[i + 1], argv[i + 2], argv[i + 3], argv[i + 4]) < 0 ? usage() : 0;
	if (!strcmp(argv[i], "resolver") && argc - i == 1) {
		char server[128];
		if (resolver(server, sizeof(server)) < 0)
			return 1;
		say("%s", server);
		return 0;
	}
	return usage();
}
