/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/job/egress_rules.c: every accepted form of --allow and every
 * refused one (each message names the value), a name matched against the
 * rules, the address classes (never, learnable).
 *
 * runtime/job/egress_dns.c on hand-built packets: an allowed A query goes
 * upstream with our id and the job's bytes; a name no rule matches gets
 * NXDOMAIN and is counted and kept, escaped (a dot inside a label, a
 * newline); a TXT of an allowed name is refused; AAAA with and without
 * IPv6; the forms of a malformed query; an answer's CNAME chain gives its
 * learnable addresses to the sink once per port and nothing else; an
 * answer to another question is dropped; a sink that fails gives the job
 * SERVFAIL.  Then the same through real sockets on 127.0.0.1, a fake
 * upstream answered by hand, a forged answer from elsewhere ignored and a
 * query resent to the next upstream after 2 s.
 */
#include "config.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "job/egress.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/error.h"

/* ---------------------------------------------------------------- rules */

static void rule_ok(const char *value, enum brig_egress_kind kind, const char *name,
                    const char *addr, unsigned prefix, uint16_t port)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_egress_rules r = { NULL, 0 };
	const char *v[] = { value };
	char shown[INET6_ADDRSTRLEN] = "";
	bool good;

	if (brig_egress_rules_parse(v, 1, &r, &err) < 0) {
		ok(false, "\"%s\" is accepted", value);
		printf("#   %s\n", err.msg);
		brig_error_release(&err);
		return;
	}
	good = r.n == 1 && r.v[0].kind == kind && r.v[0].port == port;
	if (name)
		good = good && r.v[0].name && strcmp(r.v[0].name, name) == 0;
	if (addr) {
		inet_ntop(kind == BRIG_EGRESS_NET4 ? AF_INET : AF_INET6, r.v[0].addr, shown,
		          sizeof(shown));
		good = good && strcmp(shown, addr) == 0 && r.v[0].prefix == prefix;
	}
	ok(good, "\"%s\" is %s %s%s/%u port %u", value, name ? "name" : "net", name ? name : "",
	   addr ? addr : "", prefix, port);
	if (!good)
		printf("#   got kind %d name %s addr %s/%u port %u\n", r.v[0].kind,
		       r.v[0].name ? r.v[0].name : "-", shown, r.v[0].prefix, r.v[0].port);
	brig_egress_rules_release(&r);
}

/* @value refused, its message "--allow "@shown": ...@why..." on one line
 * (@shown NULL: @value as it is). */
static void rule_bad_shown(const char *value, const char *shown, const char *why)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_egress_rules r = { NULL, 0 };
	const char *v[] = { "pypi.org", value };
	char *want = brig_xasprintf("--allow \"%s\": ", shown ? shown : value);
	bool good;

	good = brig_egress_rules_parse(v, 2, &r, &err) == -1 && r.v == NULL && r.n == 0 &&
	       err.status == 2 && err.msg && strncmp(err.msg, want, strlen(want)) == 0 &&
	       strstr(err.msg, why) && !strchr(err.msg, '\n');
	ok(good, "\"%s\" is refused: %s", shown ? shown : value, why);
	if (!good)
		printf("#   got: %s (status %d)\n", err.msg ? err.msg : "(none)", err.status);
	free(want);
	brig_error_release(&err);
}

static void rule_bad(const char *value, const char *why)
{
	rule_bad_shown(value, NULL, why);
}

static void test_rules(void)
{
	char label64[80], name254[300];

	rule_ok("pypi.org", BRIG_EGRESS_NAME, "pypi.org", NULL, 0, 0);
	rule_ok("PyPI.org.", BRIG_EGRESS_NAME, "pypi.org", NULL, 0, 0);
	rule_ok("*.pythonhosted.org", BRIG_EGRESS_SUFFIX, "pythonhosted.org", NULL, 0, 0);
	rule_ok("*.PythonHosted.org.:8443", BRIG_EGRESS_SUFFIX, "pythonhosted.org", NULL, 0, 8443);
	rule_ok("github.com:443", BRIG_EGRESS_NAME, "github.com", NULL, 0, 443);
	rule_ok("_dmarc.x-y.org", BRIG_EGRESS_NAME, "_dmarc.x-y.org", NULL, 0, 0);
	rule_ok("localhost", BRIG_EGRESS_NAME, "localhost", NULL, 0, 0);
	rule_ok("a.b.c.d.e.f.example:65535", BRIG_EGRESS_NAME, "a.b.c.d.e.f.example", NULL, 0,
	        65535);
	rule_ok("xn--bcher-kva.example", BRIG_EGRESS_NAME, "xn--bcher-kva.example", NULL, 0, 0);
	rule_ok("203.0.113.0/24:5432", BRIG_EGRESS_NET4, NULL, "203.0.113.0", 24, 5432);
	rule_ok("192.0.2.7", BRIG_EGRESS_NET4, NULL, "192.0.2.7", 32, 0);
	rule_ok("192.0.2.7:1", BRIG_EGRESS_NET4, NULL, "192.0.2.7", 32, 1);
	rule_ok("8.8.8.8/32:53", BRIG_EGRESS_NET4, NULL, "8.8.8.8", 32, 53);
	rule_ok("10.1.0.0/16", BRIG_EGRESS_NET4, NULL, "10.1.0.0", 16, 0);
	rule_ok("172.16.0.0/12", BRIG_EGRESS_NET4, NULL, "172.16.0.0", 12, 0);
	rule_ok("2001:db8::/32", BRIG_EGRESS_NET6, NULL, "2001:db8::", 32, 0);
	rule_ok("[2001:db8::1]:443", BRIG_EGRESS_NET6, NULL, "2001:db8::1", 128, 443);
	rule_ok("[2001:db8::/48]:443", BRIG_EGRESS_NET6, NULL, "2001:db8::", 48, 443);
	rule_ok("2001:db8::1", BRIG_EGRESS_NET6, NULL, "2001:db8::1", 128, 0);
	rule_ok("2001:db8::1:443", BRIG_EGRESS_NET6, NULL, "2001:db8::1:443", 128, 0);
	rule_ok("[2001:db8::1]", BRIG_EGRESS_NET6, NULL, "2001:db8::1", 128, 0);

	memset(label64, 'a', 64);
	strcpy(label64 + 64, ".org");
	memset(name254, 0, sizeof(name254));
	for (int i = 0; i < 127; i++)
		memcpy(name254 + 2 * i, "a.", 2);
	name254[253] = 'b'; /* 254 bytes, without a trailing dot */

	rule_bad("", "empty");
	rule_bad("*", "wildcard");
	rule_bad("*.", "no name");
	rule_bad("*.*.x", "wildcard");
	rule_bad("a*.x", "wildcard");
	rule_bad("x.*", "wildcard");
	rule_bad(label64, "label longer than 63 bytes");
	rule_bad(name254, "name longer than 253 bytes");
	rule_bad("a..b", "empty label");
	rule_bad(".a", "empty label");
	rule_bad("a..", "empty label");
	rule_bad(".", "no name");
	rule_bad("a b.org", "bad character \" \"");
	rule_bad("a!b.org", "bad character \"!\"");
	rule_bad("caf\xc3\xa9.org", "bad character \\xc3");
	rule_bad_shown("a\nb.org", "a\\x0ab.org", "bad character \\x0a");
	rule_bad_shown("a\"b.org", "a\\\"b.org", "bad character \\x22");
	rule_bad_shown("a..b\n", "a..b\\x0a", "empty label");
	rule_bad_shown("x.org:4\n", "x.org:4\\x0a", "port \"4\\x0a\"");
	rule_bad("pypi.org:0", "port \"0\"");
	rule_bad("pypi.org:65536", "port \"65536\"");
	rule_bad("pypi.org:123456", "port \"123456\"");
	rule_bad("pypi.org:https", "port \"https\"");
	rule_bad("pypi.org:-1", "port \"-1\"");
	rule_bad("pypi.org:+1", "port \"+1\"");
	rule_bad("pypi.org:", "port \"\"");
	rule_bad(":443", "no name or address");
	rule_bad("203.0.113.1/24", "host bits set (the network is 203.0.113.0/24)");
	rule_bad("2001:db8::1/32", "host bits set");
	rule_bad("192.0.2.0/33", "prefix \"/33\"");
	rule_bad("192.0.2.0/", "prefix \"/\"");
	rule_bad("192.0.2.0/x", "prefix \"/x\"");
	rule_bad("192.0.2.0/-8", "prefix \"/-8\"");
	rule_bad("2001:db8::/129", "prefix \"/129\"");
	rule_bad("pypi.org/24", "not an IP address");
	rule_bad("1.2.3", "ends in a number");
	rule_bad("10.1", "ends in a number");
	rule_bad("010.1.2.3", "ends in a number");
	rule_bad("1.2.3.256", "ends in a number");
	rule_bad("[1.2.3.4]:80", "not an IPv6 address");
	rule_bad("[2001:db8::1", "without \"]\"");
	rule_bad("[2001:db8::1]443", "not \":PORT\"");
	rule_bad("2001:db8::g", "not an IP address");
	rule_bad("127.0.0.1", "reaches never-allowed addresses (127.0.0.0/8: loopback)");
	rule_bad("169.254.169.254:80", "never-allowed addresses (169.254.0.0/16");
	rule_bad("0.0.0.0/0", "reaches never-allowed addresses");
	rule_bad("0.0.0.0", "never-allowed");
	rule_bad("224.0.0.1", "multicast");
	rule_bad("255.255.255.255", "broadcast");
	rule_bad("128.0.0.0/1", "never-allowed");
	rule_bad("10.0.0.0/8", "never-allowed addresses (10.213.0.0/16: brig's egress network)");
	rule_bad("10.213.0.4/30", "brig's egress network");
	rule_bad("::1", "never-allowed addresses (::1/128: loopback)");
	rule_bad("[::1]:80", "loopback");
	rule_bad("::", "unspecified");
	rule_bad("::/0", "never-allowed");
	rule_bad("fe80::1", "link-local");
	rule_bad("ff02::1", "multicast");
	rule_bad("::ffff:8.8.8.8", "IPv4-mapped");
	rule_bad("fd00::/8", "the cloud metadata address");
}

static void test_match(void)
{
	const char *allow[] = { "pypi.org",    "*.x.org:443",    "*.x.org:8443", "a.x.org:443",
		                "files.x.org", "203.0.113.0/24", "*.y.org:22" };
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_egress_rules r = { NULL, 0 };
	uint16_t ports[8];
	bool any = false;
	size_t n;

	if (!ok(brig_egress_rules_parse(allow, ARRAY_SIZE(allow), &r, &err) == 0,
	        "the match tests' rules parse"))
		return;
	ok(brig_egress_match(&r, "pypi.org", &any, ports, 8) == 1 && any, "pypi.org: any port");
	ok(brig_egress_match(&r, "PYPI.Org.", &any, ports, 8) == 1 && any,
	   "PYPI.Org.: any case, trailing dot");
	ok(brig_egress_match(&r, "www.pypi.org", &any, ports, 8) == 0,
	   "www.pypi.org: a name rule has no subdomains");
	ok(brig_egress_match(&r, "x.org", &any, ports, 8) == 0, "x.org is not *.x.org's");
	ok(brig_egress_match(&r, "ax.org", &any, ports, 8) == 0, "ax.org is not *.x.org's");
	ok(brig_egress_match(&r, ".x.org", &any, ports, 8) == 0, ".x.org is not *.x.org's");
	n = brig_egress_match(&r, "b.x.org", &any, ports, 8);
	ok(n == 2 && !any && ports[0] == 443 && ports[1] == 8443, "b.x.org: 443 and 8443");
	n = brig_egress_match(&r, "A.X.ORG", &any, ports, 8);
	ok(n == 2 && !any && ports[0] == 443 && ports[1] == 8443,
	   "A.X.ORG: 443 and 8443, 443 once (two rules)");
	n = brig_egress_match(&r, "a.b.x.org", &any, ports, 8);
	ok(n == 2 && !any, "a.b.x.org: *.x.org's too");
	n = brig_egress_match(&r, "files.x.org", &any, ports, 8);
	ok(n == 1 && any, "files.x.org: a rule of any port wins");
	memset(ports, 0, sizeof(ports));
	n = brig_egress_match(&r, "b.x.org", &any, ports, 1);
	ok(n == 2 && ports[0] == 443 && ports[1] == 0, "max 1: 2 counted, 1 stored");
	ok(brig_egress_match(&r, "b.x.org", &any, NULL, 0) == 2, "max 0: counted, none stored");
	ok(brig_egress_match(&r, "203.0.113.5", &any, ports, 8) == 0,
	   "an address does not match a name");
	n = brig_egress_match(&r, "q.y.org", &any, ports, 8);
	ok(n == 1 && !any && ports[0] == 22, "q.y.org: 22");
	brig_egress_rules_release(&r);
	brig_egress_rules_release(&r); /* twice: released is empty */
}

static void class4(const char *a, bool never, bool learnable)
{
	uint8_t b[4];

	inet_pton(AF_INET, a, b);
	ok(brig_egress_never4(b) == never && brig_egress_learnable4(b) == learnable,
	   "%s: %snever, %slearnable", a, never ? "" : "not ", learnable ? "" : "not ");
}

static void class6(const char *a, bool never, bool learnable)
{
	uint8_t b[16];

	inet_pton(AF_INET6, a, b);
	ok(brig_egress_never6(b) == never && brig_egress_learnable6(b) == learnable,
	   "%s: %snever, %slearnable", a, never ? "" : "not ", learnable ? "" : "not ");
}

static void test_classes(void)
{
	class4("0.1.2.3", true, false);
	class4("127.0.0.1", true, false);
	class4("127.255.255.254", true, false);
	class4("169.254.169.254", true, false);
	class4("224.0.0.251", true, false);
	class4("239.255.255.250", true, false);
	class4("240.0.0.1", true, false);
	class4("255.255.255.255", true, false);
	class4("10.213.0.1", true, false);
	class4("10.213.255.254", true, false);
	class4("10.212.0.1", false, false);
	class4("10.1.2.3", false, false);
	class4("172.16.0.1", false, false);
	class4("172.31.255.255", false, false);
	class4("192.168.1.1", false, false);
	class4("100.64.0.1", false, false);
	class4("100.127.255.255", false, false);
	class4("172.32.0.1", false, true);
	class4("100.128.0.1", false, true);
	class4("8.8.8.8", false, true);
	class4("93.184.216.34", false, true);
	class4("223.255.255.255", false, true);

	class6("::", true, false);
	class6("::1", true, false);
	class6("fe80::1", true, false);
	class6("febf::1", true, false);
	class6("ff02::fb", true, false);
	class6("::ffff:8.8.8.8", true, false);
	class6("fd00:ec2::254", true, false);
	class6("fd12:3456::1", false, false);
	class6("fc00::1", false, false);
	class6("::8.8.8.8", false, false);
	class6("64:ff9b::a9fe:a9fe", false, false);
	class6("64:ff9b::a00:1", false, false);
	class6("64:ff9b::808:808", false, true);
	class6("2606:4700:4700::1111", false, true);
	class6("2001:db8::1", false, true);
	class6("fec0::1", false, true);
}

/* ---------------------------------------------------------------- packets */

struct pkt {
	uint8_t b[2048];
	size_t n;
};

static void p8(struct pkt *p, unsigned v)
{
	p->b[p->n++] = (uint8_t)v;
}

static void p16(struct pkt *p, unsigned v)
{
	p8(p, v >> 8);
	p8(p, v & 0xff);
}

static void p32(struct pkt *p, uint32_t v)
{
	p16(p, v >> 16);
	p16(p, v & 0xffff);
}

static void praw(struct pkt *p, const void *data, size_t n)
{
	memcpy(p->b + p->n, data, n);
	p->n += n;
}

/* A name as labels split at '.'; "\x01" in @name stands for a '.' inside
 * a label. */
static void pname(struct pkt *p, const char *name)
{
	while (*name) {
		size_t len = strcspn(name, ".");

		p8(p, (unsigned)len);
		for (size_t i = 0; i < len; i++)
			p8(p, name[i] == '\x01' ? '.' : (uint8_t)name[i]);
		name += len;
		if (*name == '.')
			name++;
	}
	p8(p, 0);
}

static void header(struct pkt *p, unsigned id, unsigned flags, unsigned qd, unsigned an,
                   unsigned ns, unsigned ar)
{
	p->n = 0;
	p16(p, id);
	p16(p, flags);
	p16(p, qd);
	p16(p, an);
	p16(p, ns);
	p16(p, ar);
}

#define QUERY_RD 0x0100
#define ANSWER_OK 0x8180
#define T_A 1
#define T_CNAME 5
#define T_TXT 16
#define T_AAAA 28
#define T_OPT 41

static void question(struct pkt *p, const char *name, unsigned type, unsigned class)
{
	pname(p, name);
	p16(p, type);
	p16(p, class);
}

static void query(struct pkt *p, unsigned id, const char *name, unsigned type)
{
	header(p, id, QUERY_RD, 1, 0, 0, 0);
	question(p, name, type, 1);
}

static void opt(struct pkt *p)
{
	p8(p, 0);
	p16(p, T_OPT);
	p16(p, 1232);
	p32(p, 0);
	p16(p, 0);
}

static void rr(struct pkt *p, const char *name, unsigned type, uint32_t ttl, const void *rdata,
               size_t len)
{
	pname(p, name);
	p16(p, type);
	p16(p, 1);
	p32(p, ttl);
	p16(p, (unsigned)len);
	praw(p, rdata, len);
}

static void rr_a(struct pkt *p, const char *name, uint32_t ttl, const char *addr)
{
	uint8_t a[4];

	inet_pton(AF_INET, addr, a);
	rr(p, name, T_A, ttl, a, 4);
}

static void rr_aaaa(struct pkt *p, const char *name, uint32_t ttl, const char *addr)
{
	uint8_t a[16];

	inet_pton(AF_INET6, addr, a);
	rr(p, name, T_AAAA, ttl, a, 16);
}

static void rr_cname(struct pkt *p, const char *name, uint32_t ttl, const char *target)
{
	struct pkt t = { .n = 0 };

	pname(&t, target);
	rr(p, name, T_CNAME, ttl, t.b, t.n);
}

/* What the sink was given. */
struct learned {
	int family;
	char addr[INET6_ADDRSTRLEN];
	uint16_t port;
	uint32_t ttl;
};

static struct learned learned[32];
static size_t n_learned;
static int sink_fails;

static int allow4(void *data, const uint8_t addr[4], uint16_t port, uint32_t ttl)
{
	struct learned *l = &learned[n_learned < 31 ? n_learned++ : 31];

	l->family = AF_INET;
	inet_ntop(AF_INET, addr, l->addr, sizeof(l->addr));
	l->port = port;
	l->ttl = ttl;
	return sink_fails ? -1 : 0;
}

static int allow6(void *data, const uint8_t addr[16], uint16_t port, uint32_t ttl)
{
	struct learned *l = &learned[n_learned < 31 ? n_learned++ : 31];

	l->family = AF_INET6;
	inet_ntop(AF_INET6, addr, l->addr, sizeof(l->addr));
	l->port = port;
	l->ttl = ttl;
	return sink_fails ? -1 : 0;
}

static bool was_learned(const char *addr, uint16_t port, uint32_t ttl)
{
	for (size_t i = 0; i < n_learned; i++)
		if (strcmp(learned[i].addr, addr) == 0 && learned[i].port == port &&
		    learned[i].ttl == ttl)
			return true;
	return false;
}

static const struct brig_egress_dns_sink sink4 = { allow4, NULL, NULL };
static const struct brig_egress_dns_sink sink46 = { allow4, allow6, NULL };

static const char *const dns_allow[] = { "allowed.test", "*.allowed.test:443",
	                                 "*.allowed.test:8443", "v6.test", "203.0.113.0/24" };

static uint8_t out[4096];
static size_t out_len;

static unsigned rcode_of(void)
{
	return out[3] & 0x0f;
}

/* @out is a local answer to @q: its id, QR RA RD, @rcode, the question
 * alone (@qd 1) or nothing (@qd 0). */
static bool local_answer(const struct pkt *q, size_t qend, unsigned rcode, unsigned qd)
{
	size_t n = qd ? qend : 12;

	return out_len == n && memcmp(out, q->b, 2) == 0 && out[2] == (0x80 | 0x01) &&
	       out[3] == (0x80 | rcode) && out[4] == 0 && out[5] == qd &&
	       memcmp(out + 6, "\0\0\0\0\0\0", 6) == 0 && memcmp(out + 12, q->b + 12, n - 12) == 0;
}

static int on_query(struct brig_egress_dns *d, const struct pkt *q)
{
	out_len = 0;
	return brig_egress_dns_on_query(d, q->b, q->n, 0xbeef, out, sizeof(out), &out_len);
}

static int on_answer(struct brig_egress_dns *d, const struct pkt *q, const struct pkt *a)
{
	out_len = 0;
	n_learned = 0;
	return brig_egress_dns_on_answer(d, q->b, q->n, a->b, a->n, out, sizeof(out), &out_len);
}

static void test_queries(struct brig_egress_dns *d, struct brig_egress_dns *d6)
{
	const struct brig_egress_dns_stats *st = brig_egress_dns_stats(d);
	struct pkt q;
	size_t qend;

	query(&q, 0x1234, "allowed.test", T_A);
	ok(on_query(d, &q) == 1 && out_len == q.n && out[0] == 0xbe && out[1] == 0xef &&
	       memcmp(out + 2, q.b + 2, q.n - 2) == 0,
	   "an allowed A query goes upstream: our id, the job's bytes");
	query(&q, 0x1234, "Foo.ALLOWED.test", T_A);
	q.b[10] = 0;
	q.b[11] = 1;
	opt(&q);
	ok(on_query(d, &q) == 1 && out_len == q.n && memcmp(out + 2, q.b + 2, q.n - 2) == 0,
	   "one below *.allowed.test, any case, with its OPT record: upstream as it is");
	is_int((long long)st->denied, 0, "nothing denied yet");

	query(&q, 0x1234, "evil.test", T_A);
	qend = q.n;
	ok(on_query(d, &q) == 0 && local_answer(&q, qend, 3, 1),
	   "a name no rule matches: NXDOMAIN, the job's header and question");
	ok(st->denied == 1 && st->n_denied_names == 1 &&
	       strcmp(st->denied_names[0], "evil.test") == 0,
	   "counted denied and named");
	query(&q, 0x1235, "EVIL.test", T_AAAA);
	ok(on_query(d, &q) == 0 && rcode_of() == 3 && st->denied == 2 && st->n_denied_names == 1,
	   "again in another case: counted, named once");
	query(&q, 0x1235, "allowed.test.evil.test", T_A);
	ok(on_query(d, &q) == 0 && rcode_of() == 3 && st->n_denied_names == 2 &&
	       strcmp(st->denied_names[1], "allowed.test.evil.test") == 0,
	   "an allowed name as a prefix: NXDOMAIN");
	query(&q, 0x1235, "xallowed.test", T_A);
	ok(on_query(d, &q) == 0 && rcode_of() == 3, "xallowed.test: NXDOMAIN");

	query(&q, 0x1236,
	      "a\x01"
	      "b.allowed.test",
	      T_A);
	ok(on_query(d, &q) == 0 && rcode_of() == 3 && st->n_denied_names == 4 &&
	       strcmp(st->denied_names[3], "a\\.b.allowed.test") == 0,
	   "a dot inside a label (\"a\\.b\" under *.allowed.test): NXDOMAIN, escaped");
	query(&q, 0x1236, "x\ny.allowed.test", T_A);
	ok(on_query(d, &q) == 0 && rcode_of() == 3 && st->n_denied_names == 5 &&
	       strcmp(st->denied_names[4], "x\\010y.allowed.test") == 0,
	   "a newline in a label: NXDOMAIN, escaped as \\010");
	query(&q, 0x1236, "x\"}{y.allowed.test", T_A);
	ok(on_query(d, &q) == 0 && rcode_of() == 3 && st->n_denied_names == 6 &&
	       !strchr(st->denied_names[5], '\n') && strstr(st->denied_names[5], "\\\""),
	   "a quote in a label: NXDOMAIN, escaped");
	header(&q, 0x1237, QUERY_RD, 1, 0, 0, 0);
	p8(&q, 0);
	p16(&q, T_A);
	p16(&q, 1);
	ok(on_query(d, &q) == 0 && rcode_of() == 3 && st->n_denied_names == 7 &&
	       strcmp(st->denied_names[6], ".") == 0,
	   "the root: NXDOMAIN, named \".\"");

	query(&q, 0x1238, "allowed.test", T_TXT);
	qend = q.n;
	ok(on_query(d, &q) == 0 && local_answer(&q, qend, 5, 1) && st->denied == 9 &&
	       st->n_denied_names == 7,
	   "TXT of an allowed name: REFUSED, counted denied, not named");
	query(&q, 0x1238, "x.allowed.test", 255);
	ok(on_query(d, &q) == 0 && rcode_of() == 5, "ANY: REFUSED");
	query(&q, 0x1238, "x.allowed.test", 65);
	ok(on_query(d, &q) == 0 && rcode_of() == 5, "HTTPS: REFUSED");

	query(&q, 0x1239, "allowed.test", T_AAAA);
	qend = q.n;
	ok(on_query(d, &q) == 0 && local_answer(&q, qend, 0, 1) && st->denied == 11,
	   "AAAA without IPv6: NODATA here, not a denial");
	ok(on_query(d6, &q) == 1 && out[0] == 0xbe && memcmp(out + 2, q.b + 2, q.n - 2) == 0,
	   "AAAA with IPv6: upstream");

	query(&q, 0x123a, "allowed.test", T_A);
	q.b[q.n - 1] = 3; /* CH */
	qend = q.n;
	ok(on_query(d, &q) == 0 && local_answer(&q, qend, 5, 1), "class CH: REFUSED");
	query(&q, 0x123a, "allowed.test", T_A);
	q.b[2] |= 0x10; /* opcode 2, STATUS */
	ok(on_query(d, &q) == 0 && out_len == 12 && rcode_of() == 4 && (out[2] & 0x78) == 0x10,
	   "opcode STATUS: NOTIMP, header only");
	query(&q, 0x123a, "allowed.test", T_A);
	q.b[2] |= 0x80;
	ok(on_query(d, &q) == -1, "QR set: dropped");
	ok(brig_egress_dns_on_query(d, q.b, 11, 1, out, sizeof(out), &out_len) == -1,
	   "shorter than a header: dropped");
	header(&q, 0x123b, QUERY_RD, 2, 0, 0, 0);
	question(&q, "allowed.test", T_A, 1);
	question(&q, "evil.test", T_A, 1);
	ok(on_query(d, &q) == 0 && local_answer(&q, 0, 1, 0), "two questions: FORMERR");
	header(&q, 0x123b, QUERY_RD, 0, 0, 0, 0);
	ok(on_query(d, &q) == 0 && local_answer(&q, 0, 1, 0), "no question: FORMERR");
	header(&q, 0x123b, QUERY_RD, 1, 1, 0, 0);
	question(&q, "allowed.test", T_A, 1);
	rr_a(&q, "allowed.test", 60, "192.0.2.1");
	ok(on_query(d, &q) == 0 && rcode_of() == 1, "an answer in a query: FORMERR");
	header(&q, 0x123b, QUERY_RD, 1, 0, 0, 2);
	question(&q, "allowed.test", T_A, 1);
	opt(&q);
	opt(&q);
	ok(on_query(d, &q) == 0 && rcode_of() == 1, "two additional records: FORMERR");
	header(&q, 0x123b, QUERY_RD, 1, 0, 0, 1);
	question(&q, "allowed.test", T_A, 1);
	qend = q.n;
	rr(&q, "", T_TXT, 0, "\x05hello", 6);
	ok(on_query(d, &q) == 0 && local_answer(&q, qend, 1, 1),
	   "an additional record not OPT: FORMERR with the question");
	query(&q, 0x123b, "allowed.test", T_A);
	qend = q.n;
	praw(&q, "tunnel", 6);
	ok(on_query(d, &q) == 0 && local_answer(&q, qend, 1, 1),
	   "bytes after the question: FORMERR");
	query(&q, 0x123b, "allowed.test", T_A);
	q.n -= 2;
	ok(on_query(d, &q) == 0 && local_answer(&q, 0, 1, 0), "a question cut short: FORMERR");
	header(&q, 0x123b, QUERY_RD, 1, 0, 0, 0);
	p8(&q, 0xc0);
	p8(&q, 0);
	p16(&q, T_A);
	p16(&q, 1);
	ok(on_query(d, &q) == 0 && local_answer(&q, 0, 1, 0), "a compressed question: FORMERR");
	header(&q, 0x123b, QUERY_RD, 1, 0, 0, 0);
	p8(&q, 0xc0);
	p8(&q, 12);
	p16(&q, T_A);
	p16(&q, 1);
	ok(on_query(d, &q) == 0 && local_answer(&q, 0, 1, 0), "a pointer loop: FORMERR");
}

static void test_answers(struct brig_egress_dns *d, struct brig_egress_dns *d6)
{
	const struct brig_egress_dns_stats *st = brig_egress_dns_stats(d);
	struct pkt q, a;
	size_t qend;

	query(&q, 0x4321, "x.allowed.test", T_A);
	qend = q.n;
	header(&a, 0xbeef, ANSWER_OK, 1, 7, 0, 0);
	question(&a, "x.allowed.test", T_A, 1);
	rr_cname(&a, "x.allowed.test", 300, "edge.cdn.example");
	rr_cname(&a, "edge.cdn.example", 120, "node.cdn.example");
	rr_a(&a, "node.cdn.example", 60, "93.184.216.34");
	rr_a(&a, "node.cdn.example", 60, "10.1.2.3");
	rr_a(&a, "node.cdn.example", 60, "127.0.0.1");
	rr_a(&a, "node.cdn.example", 60, "169.254.169.254");
	rr_a(&a, "elsewhere.example", 60, "198.51.100.9");
	ok(on_answer(d, &q, &a) == 0 && out_len == a.n && out[0] == 0x43 && out[1] == 0x21 &&
	       memcmp(out + 2, a.b + 2, a.n - 2) == 0,
	   "a CNAME chain's answer: relayed with the job's id");
	ok(n_learned == 2 && was_learned("93.184.216.34", 443, 60) &&
	       was_learned("93.184.216.34", 8443, 60),
	   "its final learnable A given to the sink once per port (443, 8443)");
	ok(!was_learned("10.1.2.3", 443, 60) && !was_learned("127.0.0.1", 443, 60) &&
	       !was_learned("169.254.169.254", 443, 60) && !was_learned("198.51.100.9", 443, 60),
	   "private, loopback, metadata and off-chain addresses not given");
	is_int((long long)st->allowed, 1, "counted allowed");

	query(&q, 0x4322, "allowed.test", T_A);
	header(&a, 0xbeef, ANSWER_OK, 1, 1, 0, 0);
	question(&a, "ALLOWED.test", T_A, 1);
	rr_a(&a, "allowed.test", 30, "198.51.100.7");
	ok(on_answer(d, &q, &a) == 0 && n_learned == 1 && was_learned("198.51.100.7", 0, 30),
	   "a name of any port: port 0 (the question in another case)");

	header(&a, 0xbeef, 0x8183, 1, 0, 0, 0);
	question(&a, "allowed.test", T_A, 1);
	ok(on_answer(d, &q, &a) == 0 && out_len == a.n && out[0] == 0x43 && out[3] == 0x83 &&
	       n_learned == 0,
	   "NXDOMAIN upstream: relayed as it is");
	header(&a, 0xbeef, 0x8380, 1, 1, 0, 0);
	question(&a, "allowed.test", T_A, 1);
	rr_a(&a, "allowed.test", 30, "198.51.100.7");
	ok(on_answer(d, &q, &a) == 0 && out_len == a.n && n_learned == 0,
	   "TC set: relayed, nothing learned");
	header(&a, 0xbeef, ANSWER_OK, 1, 0, 0, 0);
	question(&a, "allowed.test", T_A, 1);
	ok(on_answer(d, &q, &a) == 0 && out_len == a.n && n_learned == 0,
	   "no address: relayed (NODATA)");

	header(&a, 0xbeef, ANSWER_OK, 1, 1, 0, 0);
	question(&a, "other.allowed.test", T_A, 1);
	rr_a(&a, "other.allowed.test", 30, "198.51.100.7");
	ok(on_answer(d, &q, &a) == -1 && n_learned == 0, "another question's name: dropped");
	header(&a, 0xbeef, ANSWER_OK, 1, 1, 0, 0);
	question(&a, "allowed.test", T_AAAA, 1);
	rr_aaaa(&a, "allowed.test", 30, "2001:db8::7");
	ok(on_answer(d, &q, &a) == -1 && n_learned == 0, "another question's type: dropped");
	header(&a, 0xbeef, 0x0180, 1, 1, 0, 0);
	question(&a, "allowed.test", T_A, 1);
	rr_a(&a, "allowed.test", 30, "198.51.100.7");
	ok(on_answer(d, &q, &a) == -1 && n_learned == 0, "QR clear: dropped");
	header(&a, 0xbeef, ANSWER_OK, 0, 1, 0, 0);
	rr_a(&a, "allowed.test", 30, "198.51.100.7");
	ok(on_answer(d, &q, &a) == -1, "no question: dropped");

	header(&a, 0xbeef, ANSWER_OK, 1, 1, 0, 0);
	question(&a, "x.allowed.test", T_A, 1);
	rr_a(&a, "x.allowed.test", 30, "198.51.100.8");
	query(&q, 0x4323, "x.allowed.test", T_A);
	sink_fails = 1;
	ok(on_answer(d, &q, &a) == 0 && local_answer(&q, qend, 2, 1),
	   "the sink fails: SERVFAIL, the job's header and question");
	sink_fails = 0;
	header(&a, 0xbeef, ANSWER_OK, 1, 1, 0, 0);
	question(&a, "x.allowed.test", T_A, 1);
	p8(&a, 0xc0);
	p8(&a, 12);
	p16(&a, T_A);
	p16(&a, 1);
	p32(&a, 30);
	p16(&a, 40); /* an A of 40 bytes, 4 there */
	praw(&a, "\xc6\x33\x64\x08", 4);
	ok(on_answer(d, &q, &a) == 0 && rcode_of() == 2 && n_learned == 0,
	   "an answer c-ares cannot read: SERVFAIL");

	query(&q, 0x4324, "v6.test", T_AAAA);
	header(&a, 0xbeef, ANSWER_OK, 1, 4, 0, 0);
	question(&a, "v6.test", T_AAAA, 1);
	rr_aaaa(&a, "v6.test", 90, "2606:4700:4700::1111");
	rr_aaaa(&a, "v6.test", 90, "fd00::1");
	rr_aaaa(&a, "v6.test", 90, "::1");
	rr_aaaa(&a, "v6.test", 90, "::ffff:169.254.169.254");
	ok(on_answer(d6, &q, &a) == 0 && n_learned == 1 &&
	       was_learned("2606:4700:4700::1111", 0, 90) && learned[0].family == AF_INET6,
	   "AAAA: the public address given to allow6, not ULA, loopback or mapped");
}

/* ---------------------------------------------------------------- sockets */

static int udp_socket(struct sockaddr_storage *bound)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		return -1;
	if (bound) {
		memset(bound, 0, sizeof(*bound));
		memcpy(bound, &a, sizeof(a));
	}
	return fd;
}

static bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/* Service @d until @fd (not the resolver's) is readable, at most @ms. */
static bool service_until(struct brig_egress_dns *d, int fd, int ms)
{
	int fds[2];

	brig_egress_dns_fds(d, fds);
	for (int waited = 0; waited < ms; waited += 10) {
		struct pollfd p[3] = { { fds[0], POLLIN, 0 },
			               { fds[1], POLLIN, 0 },
			               { fd, POLLIN, 0 } };

		poll(p, 3, 10);
		brig_egress_dns_service(d);
		if (readable(fd, 0))
			return true;
	}
	return false;
}

static ssize_t recv_from(int fd, struct pkt *p, struct sockaddr_storage *from)
{
	socklen_t len = sizeof(*from);
	ssize_t n = recvfrom(fd, p->b, sizeof(p->b), MSG_DONTWAIT, (struct sockaddr *)from, &len);

	p->n = n > 0 ? (size_t)n : 0;
	return n;
}

static void test_sockets(const struct brig_egress_rules *rules)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct sockaddr_storage at, ups[2], from, resolver;
	struct brig_egress_dns *d;
	int lfd = udp_socket(&at), up1 = udp_socket(&ups[0]), up2 = udp_socket(&ups[1]);
	int job = udp_socket(NULL), rogue = udp_socket(NULL);
	struct pkt q, got, a;
	int fds[2];

	if (!ok(lfd >= 0 && up1 >= 0 && up2 >= 0 && job >= 0 && rogue >= 0,
	        "UDP sockets on 127.0.0.1"))
		return;
	d = brig_egress_dns_new(lfd, ups, 2, rules, &sink4, &err);
	if (!ok(d != NULL, "a resolver on 127.0.0.1, two upstreams")) {
		printf("#   %s\n", err.msg);
		return;
	}
	brig_egress_dns_fds(d, fds);
	ok(fds[0] == lfd && fds[1] >= 0 && fds[1] != lfd, "its fds: the job's, the upstreams'");

	query(&q, 0x5151, "x.allowed.test", T_A);
	sendto(job, q.b, q.n, 0, (struct sockaddr *)&at, sizeof(struct sockaddr_in));
	ok(service_until(d, up1, 2000) && recv_from(up1, &got, &from) == (ssize_t)q.n &&
	       memcmp(got.b + 2, q.b + 2, q.n - 2) == 0,
	   "the job's query reaches the first upstream");
	resolver = from;

	/* a forged answer with the right id, from elsewhere: ignored */
	header(&a, (unsigned)(got.b[0] << 8 | got.b[1]), ANSWER_OK, 1, 1, 0, 0);
	question(&a, "x.allowed.test", T_A, 1);
	rr_a(&a, "x.allowed.test", 60, "198.51.100.66");
	sendto(rogue, a.b, a.n, 0, (struct sockaddr *)&from, sizeof(struct sockaddr_in));
	n_learned = 0;
	ok(!service_until(d, job, 200) && n_learned == 0,
	   "an answer from no upstream: ignored, nothing learned");

	header(&a, (unsigned)(got.b[0] << 8 | got.b[1]), ANSWER_OK, 1, 1, 0, 0);
	question(&a, "x.allowed.test", T_A, 1);
	rr_a(&a, "x.allowed.test", 60, "198.51.100.77");
	sendto(up1, a.b, a.n, 0, (struct sockaddr *)&from, sizeof(struct sockaddr_in));
	ok(service_until(d, job, 2000) && recv_from(job, &got, &from) == (ssize_t)a.n &&
	       got.b[0] == 0x51 && got.b[1] == 0x51 && memcmp(got.b + 2, a.b + 2, a.n - 2) == 0,
	   "the upstream's answer reaches the job, with its id");
	ok(n_learned == 2 && was_learned("198.51.100.77", 443, 60) &&
	       was_learned("198.51.100.77", 8443, 60),
	   "the sink was given its address first");
	sendto(up1, a.b, a.n, 0, (struct sockaddr *)&resolver, sizeof(struct sockaddr_in));
	ok(!service_until(d, job, 200), "the same answer again: no longer pending, ignored");

	query(&q, 0x5252, "evil.test", T_A);
	sendto(job, q.b, q.n, 0, (struct sockaddr *)&at, sizeof(struct sockaddr_in));
	ok(service_until(d, job, 2000) && recv_from(job, &got, &from) == (ssize_t)q.n &&
	       got.b[0] == 0x52 && (got.b[3] & 0xf) == 3 && !readable(up1, 0),
	   "a name no rule matches: NXDOMAIN from the resolver, nothing upstream");

	query(&q, 0x5353, "y.allowed.test", T_A);
	sendto(job, q.b, q.n, 0, (struct sockaddr *)&at, sizeof(struct sockaddr_in));
	ok(service_until(d, up1, 2000) && recv_from(up1, &got, &from) > 0,
	   "an unanswered query reaches the first upstream");
	ok(service_until(d, up2, 3000) && recv_from(up2, &got, &from) == (ssize_t)q.n &&
	       memcmp(got.b + 2, q.b + 2, q.n - 2) == 0,
	   "and after 2 s the next one, once");
	header(&a, (unsigned)(got.b[0] << 8 | got.b[1]), ANSWER_OK, 1, 0, 0, 0);
	question(&a, "y.allowed.test", T_A, 1);
	sendto(up2, a.b, a.n, 0, (struct sockaddr *)&from, sizeof(struct sockaddr_in));
	ok(service_until(d, job, 2000) && recv_from(job, &got, &from) == (ssize_t)a.n &&
	       got.b[0] == 0x53,
	   "whose answer reaches the job");

	brig_egress_dns_free(d);
	close(lfd);
	close(up1);
	close(up2);
	close(job);
	close(rogue);
}

static void test_upstreams(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct sockaddr_storage ups[3];
	char path[] = "/tmp/brig-test-egress.XXXXXX", shown[INET6_ADDRSTRLEN];
	int fd = mkstemp(path);
	const char conf[] = "# generated\n"
	                    "search example\n"
	                    "nameserver\t127.0.0.53 # resolved\n"
	                    "nameserver bogus\n"
	                    "  nameserver 2001:db8::53\n"
	                    "nameservers 192.0.2.99\n"
	                    "nameserver fe80::1%1\n"
	                    "nameserver 192.0.2.4\n"
	                    "options edns0\n";
	const struct sockaddr_in *v4 = (const void *)&ups[0];
	const struct sockaddr_in6 *v6 = (const void *)&ups[1], *ll = (const void *)&ups[2];
	size_t n = 0;

	if (fd < 0 || write(fd, conf, sizeof(conf) - 1) != (ssize_t)sizeof(conf) - 1) {
		ok(false, "a resolv.conf in /tmp");
		return;
	}
	close(fd);
	ok(brig_egress_dns_upstreams(path, ups, 3, &n, &err) == 0 && n == 3, "3 nameservers");
	inet_ntop(AF_INET, &v4->sin_addr, shown, sizeof(shown));
	ok(v4->sin_family == AF_INET && strcmp(shown, "127.0.0.53") == 0 &&
	       ntohs(v4->sin_port) == 53,
	   "the first: 127.0.0.53 port 53 (loopback is kept)");
	inet_ntop(AF_INET6, &v6->sin6_addr, shown, sizeof(shown));
	ok(v6->sin6_family == AF_INET6 && strcmp(shown, "2001:db8::53") == 0 &&
	       ntohs(v6->sin6_port) == 53,
	   "the second: 2001:db8::53 port 53");
	ok(ll->sin6_family == AF_INET6 && ll->sin6_scope_id == 1, "the third: fe80::1 scope 1");
	ok(brig_egress_dns_upstreams(path, ups, 1, &n, &err) == 0 && n == 1, "max 1: 1");

	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd >= 0)
		close(fd);
	ok(brig_egress_dns_upstreams(path, ups, 3, &n, &err) == -1 && n == 0 &&
	       strstr(err.msg, path) && strstr(err.msg, "no nameserver"),
	   "none: an error naming the file");
	brig_error_release(&err);
	unlink(path);
	ok(brig_egress_dns_upstreams(path, ups, 3, &n, &err) == -1 && strstr(err.msg, path),
	   "no file: an error naming it");
	brig_error_release(&err);
}

int main(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_egress_rules rules = { NULL, 0 };
	struct brig_egress_dns *d, *d6;

	test_rules();
	test_match();
	test_classes();

	if (brig_egress_rules_parse(dns_allow, ARRAY_SIZE(dns_allow), &rules, &err) < 0) {
		ok(false, "the resolver's rules parse: %s", err.msg);
		return tap_done();
	}
	d = brig_egress_dns_new(-1, NULL, 0, &rules, &sink4, &err);
	d6 = d ? brig_egress_dns_new(-1, NULL, 0, &rules, &sink46, &err) : NULL;
	if (!ok(d && d6, "resolvers for the packet logic (c-ares loaded)")) {
		printf("#   %s\n", err.msg);
		return tap_done();
	}
	test_queries(d, d6);
	test_answers(d, d6);
	brig_egress_dns_free(d);
	brig_egress_dns_free(d6);
	brig_egress_dns_free(NULL);

	test_sockets(&rules);
	test_upstreams();
	brig_egress_rules_release(&rules);
	return tap_done();
}
