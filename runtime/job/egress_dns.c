/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The egress job's resolver.  The job's resolv.conf points at brig's end
 * of its link; every query arrives here and is either answered at once
 * (refused, NXDOMAIN, NODATA, FORMERR) or sent upstream with an id of
 * ours; an upstream's answer gives its addresses to the sink (brig's
 * nftables set) before the job sees it, so that the job can reach an
 * address as soon as it learns it, and never one no rule's name led to.
 *
 * What a query may be is narrow: one question, class IN, type A or AAAA,
 * a name of letters, digits, '-', '_' and dots that a rule matches, and at
 * most an OPT record after it.  Every other type is refused, as DNS
 * tunnels use TXT, NULL, ANY and their kin; every other name gets
 * NXDOMAIN and is counted and kept (escaped) for the job's result.
 *
 * Names and answers are parsed by c-ares (the CNAME chain from the
 * question's name, as a stub resolver follows it), loaded with dlopen() on
 * the first resolver: linked, it would cost every brig exec its loading.
 * Only the 12-byte header and the question's fixed fields are read here.
 */
#include "config.h"
#include "job/egress.h"

#include <ares.h>
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "util/cleanup.h"
#include "util/dlib.h"
#include "util/error.h"

/* ---------------------------------------------------------------- c-ares */

static struct {
	__typeof__(&ares_expand_name) expand_name;
	__typeof__(&ares_parse_a_reply) parse_a_reply;
	__typeof__(&ares_parse_aaaa_reply) parse_aaaa_reply;
	__typeof__(&ares_free_string) free_string;
} cares;

/* Load the c-ares functions once; the library stays (brig is short-lived). */
static int cares_load(struct brig_error *err)
{
	static void *handle;
	static const struct brig_dlsym syms[] = {
		{ "ares_expand_name", (void **)&cares.expand_name },
		{ "ares_parse_a_reply", (void **)&cares.parse_a_reply },
		{ "ares_parse_aaaa_reply", (void **)&cares.parse_aaaa_reply },
		{ "ares_free_string", (void **)&cares.free_string },
	};

	return brig_dlib_load(&handle, BRIG_CARES_SONAME, "libc-ares2", syms, ARRAY_SIZE(syms),
	                      err);
}

/* ---------------------------------------------------------------- packets */

#define HDR 12
#define F_QR 0x8000
#define F_OPCODE 0x7800
#define F_TC 0x0200
#define F_RD 0x0100
#define F_RA 0x0080
#define RCODE(f) ((f)&0x000f)

enum { NOERROR = 0, FORMERR = 1, SERVFAIL = 2, NXDOMAIN = 3, NOTIMP = 4, REFUSED = 5 };
enum { T_A = 1, T_AAAA = 28, T_OPT = 41, C_IN = 1 };

/* Addresses of one answer given to the sink; more are relayed, not allowed. */
#define ADDRS_MAX 64
/* A name as c-ares writes it: 255 bytes on the wire, "\DDD" for each at worst. */
#define NAME_TEXT_MAX 1024

/* The resolver's pending queries, and their clock (ms). */
#define PENDING_MAX 256
#define RESEND_MS 2000
#define DROP_MS 5000
/* The packets read at a time on each fd, so that no side starves the loop. */
#define BATCH 256
#define PACKET_MAX 65536

struct pending {
	bool used, resent;
	uint16_t id;      /* ours, upstream */
	size_t upstream;  /* where it was sent last */
	uint64_t sent_ms; /* when it was first sent */
	struct sockaddr_storage job;
	socklen_t job_len;
	uint8_t *q; /* the job's query, as it sent it */
	size_t qlen;
};

struct brig_egress_dns {
	const struct brig_egress_rules *rules;
	const struct brig_egress_dns_sink *sink;
	uint16_t *ports; /* room for the ports of every rule */
	struct brig_egress_dns_stats stats;

	int listen, up;
	struct sockaddr_storage upstreams[3]; /* in the family of @up */
	size_t n_upstreams;
	struct pending pending[PENDING_MAX];
	uint8_t *in, *out; /* PACKET_MAX each */
};

struct question {
	char name[NAME_TEXT_MAX]; /* as c-ares writes it, lowercased */
	size_t end;               /* the offset after QTYPE and QCLASS */
	uint16_t type, class;
	bool compressed; /* the name holds a pointer */
};

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The question of @p (the first after the header); -1 when it is not one. */
static int read_question(const uint8_t *p, size_t len, struct question *q)
{
	char *s = NULL;
	long enclen = 0;
	size_t n;

	if (len <= HDR || len > PACKET_MAX)
		return -1;
	if (cares.expand_name(p + HDR, p, (int)len, &s, &enclen) != ARES_SUCCESS)
		return -1;
	n = strlen(s);
	if (n < sizeof(q->name))
		for (size_t i = 0; i <= n; i++)
			q->name[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
	cares.free_string(s);
	if (n >= sizeof(q->name) || enclen <= 0 || (size_t)enclen + 4 > len - HDR)
		return -1;
	q->end = HDR + (size_t)enclen + 4;
	q->type = get16(p + q->end - 4);
	q->class = get16(p + q->end - 2);
	/* c-ares has checked the labels: walk their lengths for a pointer */
	q->compressed = false;
	for (size_t off = HDR; off < HDR + (size_t)enclen && p[off] != 0; off += 1 + p[off])
		if (p[off] & 0xc0) {
			q->compressed = true;
			break;
		}
	return 0;
}

/* Whether what follows the question of a query (@end of @len bytes) is
 * nothing (@arcount 0) or one OPT record (EDNS, @arcount 1), exactly. */
static bool tail_ok(const uint8_t *p, size_t len, size_t end, uint16_t arcount)
{
	if (arcount == 0)
		return end == len;
	/* root name, TYPE, CLASS (the payload size), TTL, RDLENGTH: 11 bytes */
	if (len - end < 11 || p[end] != 0 || get16(p + end + 1) != T_OPT)
		return false;
	return end + 11 + get16(p + end + 9) == len;
}

/* The answer the job gets now: its header (id, opcode, RD), QR, RA and
 * @rcode, and its question when @qend (the question's end) is not 0. */
static int answer_now(const uint8_t *q, size_t qend, unsigned rcode, uint8_t *out, size_t out_size,
                      size_t *out_len)
{
	size_t n = qend && qend <= out_size ? qend : HDR;
	uint16_t flags = get16(q + 2);

	memcpy(out, q, n);
	put16(out + 2, (uint16_t)(F_QR | (flags & (F_OPCODE | F_RD)) | F_RA | rcode));
	put16(out + 4, n > HDR ? 1 : 0);
	memset(out + 6, 0, 6);
	*out_len = n;
	return 0;
}

/* Whether a rule could name @name at all (c-ares escapes a dot inside a
 * label and every odd byte with '\', which is not one of these). */
static bool plain_name(const char *name)
{
	for (const char *c = name; *c; c++)
		if (!(*c >= 'a' && *c <= 'z') && !(*c >= '0' && *c <= '9') && *c != '-' &&
		    *c != '_' && *c != '.')
			return false;
	return true;
}

/* Count a query refused for its name, and keep the name: distinct, the
 * first BRIG_EGRESS_NAMES_KEPT, every byte not printable as "\DDD" (c-ares
 * has escaped them already: this makes sure of it). */
static void deny_name(struct brig_egress_dns *d, const char *name)
{
	struct brig_egress_dns_stats *st = &d->stats;
	char text[NAME_TEXT_MAX * 4 + 2];
	size_t n = 0;

	st->denied++;
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		if (*c < 0x20 || *c >= 0x7f)
			n += (size_t)snprintf(text + n, sizeof(text) - n, "\\%03u", *c);
		else
			text[n++] = (char)*c;
	if (n == 0)
		text[n++] = '.';
	text[n] = '\0';
	if (d->sink->denied)
		d->sink->denied(d->sink->data, text);
	if (st->n_denied_names == BRIG_EGRESS_NAMES_KEPT)
		return;
	for (size_t i = 0; i < st->n_denied_names; i++)
		if (strcmp(st->denied_names[i], text) == 0)
			return;
	st->denied_names[st->n_denied_names++] = brig_xstrdup(text);
}

int brig_egress_dns_on_query(struct brig_egress_dns *d, const uint8_t *q, size_t qlen,
                             uint16_t new_id, uint8_t *out, size_t out_size, size_t *out_len)
{
	struct question qs;
	uint16_t flags;
	bool any_port;

	if (qlen < HDR || out_size < 512)
		return -1;
	flags = get16(q + 2);
	if (flags & F_QR)
		return -1;
	if (flags & F_OPCODE)
		return answer_now(q, 0, NOTIMP, out, out_size, out_len);
	if (get16(q + 4) != 1 || get16(q + 6) != 0 || get16(q + 8) != 0 || get16(q + 10) > 1)
		return answer_now(q, 0, FORMERR, out, out_size, out_len);
	if (read_question(q, qlen, &qs) < 0 || qs.compressed)
		return answer_now(q, 0, FORMERR, out, out_size, out_len);
	if (!tail_ok(q, qlen, qs.end, get16(q + 10)))
		return answer_now(q, qs.end, FORMERR, out, out_size, out_len);
	if (qs.class != C_IN)
		return answer_now(q, qs.end, REFUSED, out, out_size, out_len);

	if (!plain_name(qs.name) || brig_egress_match(d->rules, qs.name, &any_port, NULL, 0) == 0) {
		deny_name(d, qs.name);
		return answer_now(q, qs.end, NXDOMAIN, out, out_size, out_len);
	}
	if (qs.type == T_AAAA && !d->sink->allow6)
		return answer_now(q, qs.end, NOERROR, out, out_size, out_len);
	if (qs.type != T_A && qs.type != T_AAAA) {
		d->stats.denied++;
		return answer_now(q, qs.end, REFUSED, out, out_size, out_len);
	}
	if (qlen > out_size)
		return -1;
	memcpy(out, q, qlen);
	put16(out, new_id);
	*out_len = qlen;
	return 1;
}

/* Give the sink the learnable addresses of answer @a to question @qs,
 * once per port of the rules its name matches: -1 when the sink refuses
 * one or c-ares cannot read the answer. */
static int learn(struct brig_egress_dns *d, const struct question *qs, const uint8_t *a,
                 size_t alen)
{
	const struct brig_egress_dns_sink *sink = d->sink;
	static const uint16_t any = 0;
	const uint16_t *ports = d->ports;
	bool any_port;
	size_t n_ports = brig_egress_match(d->rules, qs->name, &any_port, d->ports, d->rules->n);
	int n = ADDRS_MAX, r;

	if (n_ports == 0)
		return -1;
	if (any_port)
		ports = &any;
	if (n_ports > d->rules->n)
		n_ports = d->rules->n;

	if (qs->type == T_A) {
		struct ares_addrttl addrs[ADDRS_MAX];

		r = cares.parse_a_reply(a, (int)alen, NULL, addrs, &n);
		if (r == ARES_ENODATA)
			return 0;
		if (r != ARES_SUCCESS)
			return -1;
		for (int i = 0; i < n; i++) {
			uint8_t addr[4];
			uint32_t ttl = addrs[i].ttl > 0 ? (uint32_t)addrs[i].ttl : 0;

			memcpy(addr, &addrs[i].ipaddr, 4);
			if (!brig_egress_learnable4(addr))
				continue;
			for (size_t p = 0; p < n_ports; p++)
				if (sink->allow4(sink->data, addr, ports[p], ttl) < 0)
					return -1;
		}
		return 0;
	}

	struct ares_addr6ttl addrs[ADDRS_MAX];

	if (!sink->allow6)
		return -1;
	r = cares.parse_aaaa_reply(a, (int)alen, NULL, addrs, &n);
	if (r == ARES_ENODATA)
		return 0;
	if (r != ARES_SUCCESS)
		return -1;
	for (int i = 0; i < n; i++) {
		uint8_t addr[16];
		uint32_t ttl = addrs[i].ttl > 0 ? (uint32_t)addrs[i].ttl : 0;

		memcpy(addr, &addrs[i].ip6addr, 16);
		if (!brig_egress_learnable6(addr))
			continue;
		for (size_t p = 0; p < n_ports; p++)
			if (sink->allow6(sink->data, addr, ports[p], ttl) < 0)
				return -1;
	}
	return 0;
}

int brig_egress_dns_on_answer(struct brig_egress_dns *d, const uint8_t *q, size_t qlen,
                              const uint8_t *a, size_t alen, uint8_t *out, size_t out_size,
                              size_t *out_len)
{
	struct question qs, as;
	uint16_t flags;

	if (qlen < HDR || alen < HDR || alen > out_size || out_size < 512)
		return -1;
	flags = get16(a + 2);
	if (!(flags & F_QR) || get16(a + 4) != 1)
		return -1;
	if (read_question(q, qlen, &qs) < 0 || read_question(a, alen, &as) < 0)
		return -1;
	if (strcmp(qs.name, as.name) != 0 || qs.type != as.type || qs.class != as.class)
		return -1;
	if (qs.type != T_A && qs.type != T_AAAA)
		return -1; /* never sent upstream */

	if (RCODE(flags) == NOERROR && !(flags & F_TC) && learn(d, &qs, a, alen) < 0)
		return answer_now(q, qs.end, SERVFAIL, out, out_size, out_len);
	memcpy(out, a, alen);
	memcpy(out, q, 2); /* the job's id */
	*out_len = alen;
	d->stats.allowed++;
	return 0;
}

/* ---------------------------------------------------------------- sockets */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct pending *pending_find(struct brig_egress_dns *d, uint16_t id)
{
	for (size_t i = 0; i < PENDING_MAX; i++)
		if (d->pending[i].used && d->pending[i].id == id)
			return &d->pending[i];
	return NULL;
}

static void pending_drop(struct pending *p)
{
	free(p->q);
	memset(p, 0, sizeof(*p));
}

/* A free entry, or the oldest one dropped. */
static struct pending *pending_new(struct brig_egress_dns *d)
{
	struct pending *oldest = &d->pending[0];

	for (size_t i = 0; i < PENDING_MAX; i++) {
		if (!d->pending[i].used)
			return &d->pending[i];
		if (d->pending[i].sent_ms < oldest->sent_ms)
			oldest = &d->pending[i];
	}
	pending_drop(oldest);
	return oldest;
}

/* An id no pending query has, or -1. */
static int new_id(struct brig_egress_dns *d, uint16_t *id)
{
	for (int tries = 0; tries < 32; tries++) {
		if (getrandom(id, sizeof(*id), GRND_NONBLOCK) != sizeof(*id))
			return -1;
		if (!pending_find(d, *id))
			return 0;
	}
	return -1;
}

static socklen_t addr_len(const struct sockaddr_storage *a)
{
	return a->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

/* Send @p's query to its upstream, with our id. */
static void send_upstream(struct brig_egress_dns *d, const struct pending *p)
{
	const struct sockaddr_storage *to = &d->upstreams[p->upstream];

	memcpy(d->out, p->q, p->qlen);
	put16(d->out, p->id);
	(void)!sendto(d->up, d->out, p->qlen, MSG_DONTWAIT, (const struct sockaddr *)to,
	              addr_len(to));
}

static void on_job_packet(struct brig_egress_dns *d, size_t len,
                          const struct sockaddr_storage *from, socklen_t from_len)
{
	struct pending *p;
	uint16_t id;
	size_t out_len = 0;
	int r;

	if (new_id(d, &id) < 0)
		return;
	r = brig_egress_dns_on_query(d, d->in, len, id, d->out, PACKET_MAX, &out_len);
	if (r == 0)
		(void)!sendto(d->listen, d->out, out_len, MSG_DONTWAIT,
		              (const struct sockaddr *)from, from_len);
	if (r != 1)
		return;
	p = pending_new(d);
	*p = (struct pending){ .used = true, .id = id, .sent_ms = now_ms(), .job_len = from_len };
	memcpy(&p->job, from, sizeof(p->job));
	p->q = brig_xmalloc(len);
	memcpy(p->q, d->in, len);
	p->qlen = len;
	send_upstream(d, p);
}

/* Whether @from is one of the upstreams (address and port). */
static bool from_upstream(const struct brig_egress_dns *d, const struct sockaddr_storage *from)
{
	for (size_t i = 0; i < d->n_upstreams; i++) {
		const struct sockaddr_storage *u = &d->upstreams[i];

		if (u->ss_family != from->ss_family)
			continue;
		if (u->ss_family == AF_INET) {
			const struct sockaddr_in *a = (const void *)u, *b = (const void *)from;

			if (a->sin_port == b->sin_port && a->sin_addr.s_addr == b->sin_addr.s_addr)
				return true;
		} else {
			const struct sockaddr_in6 *a = (const void *)u, *b = (const void *)from;

			if (a->sin6_port == b->sin6_port &&
			    memcmp(&a->sin6_addr, &b->sin6_addr, 16) == 0)
				return true;
		}
	}
	return false;
}

static void on_upstream_packet(struct brig_egress_dns *d, size_t len,
                               const struct sockaddr_storage *from)
{
	struct pending *p;
	size_t out_len = 0;

	if (len < HDR || !from_upstream(d, from))
		return;
	p = pending_find(d, get16(d->in));
	if (!p)
		return;
	/* not an answer to it: a real one may still come */
	if (brig_egress_dns_on_answer(d, p->q, p->qlen, d->in, len, d->out, PACKET_MAX, &out_len) <
	    0)
		return;
	(void)!sendto(d->listen, d->out, out_len, MSG_DONTWAIT, (const struct sockaddr *)&p->job,
	              p->job_len);
	pending_drop(p);
}

/* Handle what @fd holds now, at most BATCH packets. */
static void drain(struct brig_egress_dns *d, int fd, bool from_job)
{
	for (int i = 0; i < BATCH; i++) {
		struct sockaddr_storage from;
		socklen_t from_len = sizeof(from);
		ssize_t n;

		memset(&from, 0, sizeof(from));
		n = recvfrom(fd, d->in, PACKET_MAX, MSG_DONTWAIT | MSG_TRUNC,
		             (struct sockaddr *)&from, &from_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return; /* EAGAIN, or an ICMP error of an earlier send */
		if ((size_t)n > PACKET_MAX)
			continue;
		if (from_job)
			on_job_packet(d, (size_t)n, &from, from_len);
		else
			on_upstream_packet(d, (size_t)n, &from);
	}
}

void brig_egress_dns_service(struct brig_egress_dns *d)
{
	uint64_t now;

	if (d->listen >= 0)
		drain(d, d->listen, true);
	if (d->up >= 0)
		drain(d, d->up, false);

	now = now_ms();
	for (size_t i = 0; i < PENDING_MAX; i++) {
		struct pending *p = &d->pending[i];

		if (!p->used)
			continue;
		if (now - p->sent_ms > DROP_MS) {
			pending_drop(p);
		} else if (now - p->sent_ms > RESEND_MS && !p->resent && d->up >= 0) {
			p->upstream = (p->upstream + 1) % d->n_upstreams;
			p->resent = true;
			send_upstream(d, p);
		}
	}
}

/* ---------------------------------------------------------------- setup */

/* @a as an address of the upstream socket's @family (IPv4 in IPv6 as
 * ::ffff:a.b.c.d). */
static void to_family(struct sockaddr_storage *a, int family)
{
	struct sockaddr_in v4;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)a;

	if (a->ss_family != AF_INET || family != AF_INET6)
		return;
	memcpy(&v4, a, sizeof(v4));
	memset(a, 0, sizeof(*a));
	v6->sin6_family = AF_INET6;
	v6->sin6_port = v4.sin_port;
	v6->sin6_addr.s6_addr[10] = 0xff;
	v6->sin6_addr.s6_addr[11] = 0xff;
	memcpy(&v6->sin6_addr.s6_addr[12], &v4.sin_addr, 4);
}

struct brig_egress_dns *brig_egress_dns_new(int listen, const struct sockaddr_storage *upstreams,
                                            size_t n_upstreams,
                                            const struct brig_egress_rules *rules,
                                            const struct brig_egress_dns_sink *sink,
                                            struct brig_error *err)
{
	struct brig_egress_dns *d;
	int family = AF_INET, zero = 0;

	if (n_upstreams > ARRAY_SIZE(d->upstreams) || (listen >= 0 && n_upstreams == 0)) {
		brig_error_set(err, "resolver: %zu upstream resolvers (1 to %zu)", n_upstreams,
		               ARRAY_SIZE(d->upstreams));
		return NULL;
	}
	if (!sink || !sink->allow4) {
		brig_error_set(err, "resolver: no sink for the addresses it learns");
		return NULL;
	}
	if (cares_load(err) < 0)
		return NULL;

	d = brig_xcalloc(1, sizeof(*d));
	d->rules = rules;
	d->sink = sink;
	d->ports = brig_xcalloc(rules->n ? rules->n : 1, sizeof(*d->ports));
	d->listen = listen;
	d->up = -1;
	d->in = brig_xmalloc(PACKET_MAX);
	d->out = brig_xmalloc(PACKET_MAX);
	for (size_t i = 0; i < n_upstreams; i++)
		if (upstreams[i].ss_family == AF_INET6)
			family = AF_INET6;
	for (size_t i = 0; i < n_upstreams; i++) {
		d->upstreams[i] = upstreams[i];
		to_family(&d->upstreams[i], family);
	}
	d->n_upstreams = n_upstreams;
	if (n_upstreams == 0)
		return d;

	d->up = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (d->up < 0 || (family == AF_INET6 &&
	                  setsockopt(d->up, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) < 0)) {
		brig_error_setp(err, errno, "resolver: the upstream socket");
		brig_egress_dns_free(d);
		return NULL;
	}
	return d;
}

/* A nameserver line's address, with port 53 (and an IPv6 scope). */
static bool parse_nameserver(char *s, struct sockaddr_storage *out)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)out;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)out;
	char *scope = strchr(s, '%');

	memset(out, 0, sizeof(*out));
	if (!scope && inet_pton(AF_INET, s, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons(53);
		return true;
	}
	if (scope)
		*scope++ = '\0';
	if (inet_pton(AF_INET6, s, &v6->sin6_addr) != 1)
		return false;
	v6->sin6_family = AF_INET6;
	v6->sin6_port = htons(53);
	if (scope) {
		v6->sin6_scope_id = if_nametoindex(scope);
		if (v6->sin6_scope_id == 0)
			v6->sin6_scope_id = (uint32_t)strtoul(scope, NULL, 10);
	}
	return true;
}

int brig_egress_dns_upstreams(const char *resolv_conf, struct sockaddr_storage *out, size_t max,
                              size_t *n, struct brig_error *err)
{
	_cleanup_fclose_ FILE *f = fopen(resolv_conf, "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;

	*n = 0;
	if (!f)
		return brig_error_setp(err, errno, "open \"%s\"", resolv_conf);
	while (*n < max && getline(&line, &cap, f) >= 0) {
		char *p = line + strspn(line, " \t");

		if (strncmp(p, "nameserver", 10) != 0 || (p[10] != ' ' && p[10] != '\t'))
			continue;
		p += 10 + strspn(p + 10, " \t");
		p[strcspn(p, " \t\r\n#;")] = '\0';
		if (parse_nameserver(p, &out[*n]))
			(*n)++;
	}
	if (ferror(f))
		return brig_error_setp(err, EIO, "read \"%s\"", resolv_conf);
	if (*n == 0)
		return brig_error_set(err, "\"%s\": no nameserver line with an address",
		                      resolv_conf);
	return 0;
}

void brig_egress_dns_fds(const struct brig_egress_dns *d, int fds[2])
{
	fds[0] = d->listen;
	fds[1] = d->up;
}

const struct brig_egress_dns_stats *brig_egress_dns_stats(const struct brig_egress_dns *d)
{
	return &d->stats;
}

void brig_egress_dns_free(struct brig_egress_dns *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < PENDING_MAX; i++)
		free(d->pending[i].q);
	for (size_t i = 0; i < d->stats.n_denied_names; i++)
		free(d->stats.denied_names[i]);
	if (d->up >= 0)
		close(d->up);
	free(d->ports);
	free(d->in);
	free(d->out);
	free(d);
}
