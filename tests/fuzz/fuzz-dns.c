/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the egress job's resolver, its packet logic
 * (runtime/job/egress_dns.c): what a hostile job sends as a query, and
 * what an upstream (or anyone spoofing one) sends as an answer, with the
 * rules "allowed.test" and "*.allowed.test:443".  Built and run by
 * tests/fuzz/run.sh.
 *
 * The input's first byte chooses: bit 0 an answer (else a query), bit 1
 * a sink that fails, bit 2 IPv6 (a resolver with allow6; the answer's
 * query is AAAA).  The rest is the packet.  An answer answers the fixed
 * query of "x.allowed.test" (A, or AAAA).  Besides the sanitizers, the
 * target aborts when the resolver breaks its contract: an address given
 * to the sink that is not learnable or on a port no rule names, a query
 * sent upstream that is not the job's bytes with our id, a local answer
 * that is not a response to the job's id, an answer that does not carry
 * the job's id, a name kept for the result with a byte that is not
 * printable.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "job/egress.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool sink_fails;

static int allow4(void *data, const uint8_t addr[4], uint16_t port, uint32_t ttl)
{
	if (!brig_egress_learnable4(addr) || port != 443)
		abort();
	return sink_fails ? -1 : 0;
}

static int allow6(void *data, const uint8_t addr[16], uint16_t port, uint32_t ttl)
{
	if (!brig_egress_learnable6(addr) || port != 443)
		abort();
	return sink_fails ? -1 : 0;
}

static const struct brig_egress_dns_sink sink4 = { allow4, NULL, NULL };
static const struct brig_egress_dns_sink sink46 = { allow4, allow6, NULL };

/* "x.allowed.test", A or AAAA, id 0x1234, RD */
static uint8_t query[] = "\x12\x34\x01\x00\0\1\0\0\0\0\0\0"
                         "\1x\7allowed\4test\0"
                         "\0\1\0\1";
#define QUERY_LEN (sizeof(query) - 1)

static struct brig_egress_rules rules;
static struct brig_egress_dns *dns4, *dns6;
static uint8_t out[65536];

static void setup(void)
{
	static const char *const allow[] = { "allowed.test", "*.allowed.test:443" };
	struct brig_error err = BRIG_ERROR_INIT;

	if (brig_egress_rules_parse(allow, 2, &rules, &err) < 0)
		abort();
	dns4 = brig_egress_dns_new(-1, NULL, 0, &rules, &sink4, &err);
	dns6 = brig_egress_dns_new(-1, NULL, 0, &rules, &sink46, &err);
	if (!dns4 || !dns6)
		abort(); /* c-ares cannot be loaded */
}

static void check_names(const struct brig_egress_dns *d)
{
	const struct brig_egress_dns_stats *st = brig_egress_dns_stats(d);

	if (st->n_denied_names > BRIG_EGRESS_NAMES_KEPT)
		abort();
	for (size_t i = 0; i < st->n_denied_names; i++)
		for (const unsigned char *c = (const unsigned char *)st->denied_names[i]; *c; c++)
			if (*c < 0x20 || *c >= 0x7f)
				abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct brig_egress_dns *d;
	size_t out_len = 0;
	int r;

	if (!dns4)
		setup();
	if (size < 1)
		return 0;
	d = data[0] & 4 ? dns6 : dns4;
	sink_fails = data[0] & 2;
	query[QUERY_LEN - 3] = data[0] & 4 ? 28 : 1;
	data++;
	size--;

	if (!(data[-1] & 1)) {
		r = brig_egress_dns_on_query(d, data, size, 0xbeef, out, sizeof(out), &out_len);
		if (r == 1 && (out_len != size || out[0] != 0xbe || out[1] != 0xef ||
		               memcmp(out + 2, data + 2, size - 2) != 0))
			abort();
		if (r == 0 && (out_len < 12 || out_len > size || memcmp(out, data, 2) != 0 ||
		               !(out[2] & 0x80)))
			abort();
		if (r < -1 || r > 1)
			abort();
		check_names(d);
		return 0;
	}

	r = brig_egress_dns_on_answer(d, query, QUERY_LEN, data, size, out, sizeof(out), &out_len);
	if (r == 0 && (out_len < 12 || out_len > sizeof(out) || out[0] != 0x12 || out[1] != 0x34 ||
	               !(out[2] & 0x80)))
		abort();
	if (r != 0 && r != -1)
		abort();
	return 0;
}
