/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --allow's rules: parsed once, at the edge (brig job's flags), into
 * names, suffixes and networks; a name matched against them (the
 * resolver's question); an address classified (never / learnable).
 *
 * One table per family drives both the classes and the refusal of a
 * CIDR: a range never allowed refuses an address inside it and a network
 * that overlaps it, and names itself in the message (10.0.0.0/8 is
 * refused because brig's own links are in 10.213.0.0/16).
 */
#include "config.h"
#include "job/egress.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/cleanup.h"
#include "util/error.h"

#define NAME_MAX_LEN 253
#define LABEL_MAX_LEN 63

struct range {
	uint8_t addr[16];
	unsigned prefix;
	const char *what;
};

static const struct range never4[] = {
	{ { 0, 0, 0, 0 }, 8, "unspecified" },
	{ { 127, 0, 0, 0 }, 8, "loopback" },
	{ { 169, 254, 0, 0 }, 16, "link-local, the cloud metadata address" },
	{ { 224, 0, 0, 0 }, 4, "multicast" },
	{ { 240, 0, 0, 0 }, 4, "reserved and broadcast" },
	{ { BRIG_EGRESS_NET_A, BRIG_EGRESS_NET_B, 0, 0 }, 16, "brig's egress network" },
};

static const struct range never6[] = {
	{ { 0 }, 128, "unspecified" },
	{ { [15] = 1 }, 128, "loopback" },
	/* IPv4 on the wire: the IPv4 rules decide */
	{ { [10] = 0xff, [11] = 0xff }, 96, "IPv4-mapped" },
	{ { 0xfe, 0x80 }, 10, "link-local" },
	{ { 0xff }, 8, "multicast" },
	/* AWS's instance metadata service over IPv6 */
	{ { 0xfd, 0x00, 0x0e, 0xc2, [14] = 0x02, [15] = 0x54 }, 128, "the cloud metadata address" },
};

static const struct range private4[] = {
	{ { 10, 0, 0, 0 }, 8, "private" },
	{ { 172, 16, 0, 0 }, 12, "private" },
	{ { 192, 168, 0, 0 }, 16, "private" },
	{ { 100, 64, 0, 0 }, 10, "shared address space" },
};

static const struct range private6[] = {
	{ { 0xfc }, 7, "unique local" },
	/* IPv4-compatible (deprecated): nothing real answers there */
	{ { 0 }, 96, "IPv4-compatible" },
};

/* NAT64's well-known prefix: the IPv4 address it embeds decides */
static const struct range nat64 = { { 0, 0x64, 0xff, 0x9b }, 96, "NAT64" };

/* Whether the first @bits bits of @a and @b are equal. */
static bool same_bits(const uint8_t *a, const uint8_t *b, unsigned bits)
{
	unsigned whole = bits / 8, rest = bits % 8;

	if (memcmp(a, b, whole) != 0)
		return false;
	if (rest == 0)
		return true;
	return ((a[whole] ^ b[whole]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

/* The range of @table that overlaps @addr/@prefix, or NULL. */
static const struct range *overlap(const struct range *table, size_t n, const uint8_t *addr,
                                   unsigned prefix)
{
	for (size_t i = 0; i < n; i++) {
		unsigned bits = prefix < table[i].prefix ? prefix : table[i].prefix;

		if (same_bits(addr, table[i].addr, bits))
			return &table[i];
	}
	return NULL;
}

bool brig_egress_never4(const uint8_t a[4])
{
	return overlap(never4, ARRAY_SIZE(never4), a, 32) != NULL;
}

bool brig_egress_never6(const uint8_t a[16])
{
	return overlap(never6, ARRAY_SIZE(never6), a, 128) != NULL;
}

bool brig_egress_learnable4(const uint8_t a[4])
{
	return !brig_egress_never4(a) && !overlap(private4, ARRAY_SIZE(private4), a, 32);
}

bool brig_egress_learnable6(const uint8_t a[16])
{
	if (brig_egress_never6(a) || overlap(private6, ARRAY_SIZE(private6), a, 128))
		return false;
	if (same_bits(a, nat64.addr, nat64.prefix))
		return brig_egress_learnable4(a + 12);
	return true;
}

/* ---------------------------------------------------------------- parse */

/* @in as one line into @out: control bytes as \xNN, and with @quotes '"'
 * and '\\' escaped too (the value quoted in a message). */
static void escape(const char *in, bool quotes, char *out, size_t size)
{
	size_t n = 0;

	for (const unsigned char *c = (const unsigned char *)in; *c && n + 5 < size; c++)
		if (*c < 0x20 || *c == 0x7f)
			n += (size_t)snprintf(out + n, size - n, "\\x%02x", *c);
		else if (quotes && (*c == '"' || *c == '\\'))
			n += (size_t)snprintf(out + n, size - n, "\\%c", *c);
		else
			out[n++] = (char)*c;
	out[n] = '\0';
}

static __attribute__((format(printf, 3, 4))) int refuse(struct brig_error *err, const char *value,
                                                        const char *fmt, ...)
{
	char why[512], shown_why[4 * sizeof(why)], shown[4 * 512 + 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	escape(value, true, shown, sizeof(shown));
	escape(why, false, shown_why, sizeof(shown_why));
	return brig_error_usage(err, "--allow \"%s\": %s", shown, shown_why);
}

/* A decimal number of at most @digits digits, at most @max, or -1. */
static long parse_number(const char *s, int digits, long max)
{
	long v = 0;
	int n = 0;

	for (; *s; s++, n++) {
		if (*s < '0' || *s > '9' || n == digits)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return n == 0 || v > max ? -1 : v;
}

static int parse_port(const char *value, const char *s, struct brig_egress_rule *rule,
                      struct brig_error *err)
{
	long port = parse_number(s, 5, 65535);

	if (port < 1)
		return refuse(err, value, "port \"%s\" is not a number from 1 to 65535", s);
	rule->port = (uint16_t)port;
	return 0;
}

/* @host (an address, with /PREFIX or without) into @rule; 0 when it is
 * one, 1 when it is not an address at all (a name), -1 when refused. */
static int parse_net(const char *value, char *host, bool bracketed, struct brig_egress_rule *rule,
                     struct brig_error *err)
{
	char *slash = strchr(host, '/');
	const struct range *never;
	unsigned max;
	int family;
	uint8_t net[16];
	char shown[INET6_ADDRSTRLEN];

	if (slash)
		*slash = '\0';
	if (!bracketed && inet_pton(AF_INET, host, rule->addr) == 1) {
		rule->kind = BRIG_EGRESS_NET4;
		max = 32;
	} else if (strchr(host, ':') && inet_pton(AF_INET6, host, rule->addr) == 1) {
		rule->kind = BRIG_EGRESS_NET6;
		max = 128;
	} else if (bracketed || slash || strchr(host, ':')) {
		return refuse(err, value, "\"%s\" is not an %saddress", host,
		              bracketed ? "IPv6 " : "IP ");
	} else {
		return 1;
	}

	rule->prefix = max;
	if (slash) {
		long p = parse_number(slash + 1, 3, max);

		if (p < 0)
			return refuse(err, value, "prefix \"/%s\" is not a number from 0 to %u",
			              slash + 1, max);
		rule->prefix = (unsigned)p;
	}
	family = rule->kind == BRIG_EGRESS_NET4 ? AF_INET : AF_INET6;
	memcpy(net, rule->addr, sizeof(net));
	for (unsigned bit = rule->prefix; bit < max; bit++)
		net[bit / 8] &= (uint8_t) ~(0x80 >> (bit % 8));
	if (memcmp(net, rule->addr, sizeof(net)) != 0) {
		inet_ntop(family, net, shown, sizeof(shown));
		return refuse(err, value, "host bits set (the network is %s/%u)", shown,
		              rule->prefix);
	}

	if (rule->kind == BRIG_EGRESS_NET4)
		never = overlap(never4, ARRAY_SIZE(never4), rule->addr, rule->prefix);
	else
		never = overlap(never6, ARRAY_SIZE(never6), rule->addr, rule->prefix);
	if (never) {
		inet_ntop(family, never->addr, shown, sizeof(shown));
		return refuse(err, value, "reaches never-allowed addresses (%s/%u: %s)", shown,
		              never->prefix, never->what);
	}
	return 0;
}

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n > 0;
}

/* @host, a name or "*." and a name, into @rule (lowercased, without its
 * trailing dot). */
static int parse_name(const char *value, char *host, struct brig_egress_rule *rule,
                      struct brig_error *err)
{
	size_t len = strlen(host), label = 0;
	char *name = host;

	rule->kind = BRIG_EGRESS_NAME;
	if (name[0] == '*' && name[1] == '.') {
		rule->kind = BRIG_EGRESS_SUFFIX;
		name += 2;
		len -= 2;
	}
	if (len > 0 && name[len - 1] == '.')
		name[--len] = '\0';
	if (len == 0)
		return refuse(err, value, "no name");
	if (len > NAME_MAX_LEN)
		return refuse(err, value, "name longer than %d bytes", NAME_MAX_LEN);

	for (size_t i = 0; i <= len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c == '.' || c == '\0') {
			if (label == 0)
				return refuse(err, value, "empty label");
			if (label > LABEL_MAX_LEN)
				return refuse(err, value, "label longer than %d bytes",
				              LABEL_MAX_LEN);
			if (c == '\0' && all_digits(name + i - label, label))
				return refuse(err, value,
				              "ends in a number but is not an IPv4 address");
			label = 0;
			continue;
		}
		label++;
		if (c >= 'A' && c <= 'Z')
			name[i] = (char)(c - 'A' + 'a');
		else if (c == '*')
			return refuse(err, value,
			              "a wildcard is only a whole first label (\"*.NAME\")");
		else if (!(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') && c != '-' && c != '_')
			return refuse(err, value,
			              c >= 0x20 && c < 0x7f && c != '"' && c != '\\'
			                  ? "bad character \"%c\" in a name"
			                  : "bad character \\x%02x in a name",
			              c);
	}
	rule->name = brig_xstrdup(name);
	return 0;
}

static int parse_one(const char *value, struct brig_egress_rule *rule, struct brig_error *err)
{
	_cleanup_free_ char *s = NULL;
	char *host, *port = NULL, *colon;
	bool bracketed = false;
	int r;

	memset(rule, 0, sizeof(*rule));
	if (!value || !value[0])
		return brig_error_usage(err, "--allow \"\": empty");
	if (strlen(value) > 512)
		return refuse(err, value, "too long");
	s = brig_xstrdup(value);
	host = s;
	if (s[0] == '[') {
		char *close = strchr(s, ']');

		if (!close)
			return refuse(err, value, "\"[\" without \"]\"");
		*close = '\0';
		host = s + 1;
		bracketed = true;
		if (close[1] == ':')
			port = close + 2;
		else if (close[1] != '\0')
			return refuse(err, value, "\"]\" followed by \"%s\", not \":PORT\"",
			              close + 1);
	} else if ((colon = strchr(s, ':')) && !strchr(colon + 1, ':')) {
		/* one colon: NAME:PORT or IPv4:PORT (IPv6 has two or more) */
		*colon = '\0';
		port = colon + 1;
	}
	if (port && parse_port(value, port, rule, err) < 0)
		return -1;
	if (!host[0])
		return refuse(err, value, "no name or address");

	r = parse_net(value, host, bracketed, rule, err);
	if (r <= 0)
		return r;
	return parse_name(value, host, rule, err);
}

int brig_egress_rules_parse(const char *const *allow, size_t n, struct brig_egress_rules *out,
                            struct brig_error *err)
{
	struct brig_egress_rules r = { brig_xcalloc(n ? n : 1, sizeof(*r.v)), 0 };

	for (size_t i = 0; i < n; i++) {
		if (parse_one(allow[i], &r.v[i], err) < 0) {
			brig_egress_rules_release(&r);
			return -1;
		}
		r.n++;
	}
	*out = r;
	return 0;
}

void brig_egress_rules_release(struct brig_egress_rules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].name);
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

/* ---------------------------------------------------------------- match */

/* Whether @name of @len bytes (no trailing dot) is @rule's. */
static bool rule_matches(const struct brig_egress_rule *rule, const char *name, size_t len)
{
	size_t rlen;

	if (rule->kind != BRIG_EGRESS_NAME && rule->kind != BRIG_EGRESS_SUFFIX)
		return false;
	rlen = strlen(rule->name);
	if (rule->kind == BRIG_EGRESS_NAME)
		return len == rlen && strncasecmp(name, rule->name, len) == 0;
	/* at least one label in front: "x.org" is not "*.x.org"'s */
	return len > rlen + 1 && name[len - rlen - 1] == '.' && name[len - rlen - 2] != '.' &&
	       strncasecmp(name + len - rlen, rule->name, rlen) == 0;
}

size_t brig_egress_match(const struct brig_egress_rules *r, const char *name, bool *any_port,
                         uint16_t *ports, size_t max)
{
	size_t len = strlen(name), count = 0;

	*any_port = false;
	if (len > 0 && name[len - 1] == '.')
		len--;
	for (size_t i = 0; i < r->n; i++) {
		const struct brig_egress_rule *rule = &r->v[i];
		bool seen = false;

		if (!rule_matches(rule, name, len))
			continue;
		if (rule->port == 0) {
			*any_port = true;
			continue;
		}
		for (size_t j = 0; j < i && !seen; j++)
			seen = r->v[j].port == rule->port && rule_matches(&r->v[j], name, len);
		if (seen)
			continue;
		if (count < max)
			ports[count] = rule->port;
		count++;
	}
	return *any_port ? 1 : count;
}
