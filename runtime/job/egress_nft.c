/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A job's nftables table (egress.h), through libnftables, loaded with
 * dlopen() by an egress job alone.  One table per slot, "brig_e<slot>",
 * in the inet family, made whole in one transaction (and replaced so:
 * the job's link is never without its table):
 *
 *   input     from the job's link: its DNS queries to brig's end (UDP 53,
 *             from the job's own address) and nothing else: the host's own
 *             addresses, every one of them, are local and end here
 *   forward   from the job's link, from the job's address: what its
 *             conntrack entry allows, then new flows to what the rules
 *             allow (the learned sets, the CIDR rules), never to the
 *             never-allowed ranges; to the job's link only replies
 *   deny      the destination kept (a dynamic set: the result's
 *             denied_addresses), counted, dropped
 *   nat       the job's address masqueraded as it leaves
 *   pre       IPv6 from the job's link, which is not routed: neighbour
 *             discovery from the job's own address passes, the rest is
 *             counted and dropped
 *
 * and a table of the same name in the arp family, whose input chain drops
 * what comes from the job's link with a sender address other than the
 * job's.  A job with CAP_NET_RAW could otherwise have brig's namespace
 * (the host's) learn a neighbour for any address it names, one ARP
 * request or solicitation each, up to the neighbour tables' limit, which
 * every link of the namespace shares.
 *
 * A packet goes through every table's chains at a hook: this table only
 * drops or accepts what touches its own link and returns otherwise.
 */
#include "config.h"
#include "job/egress.h"

#include <arpa/inet.h>
#include <errno.h>
#include <nftables/libnftables.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/dlib.h"
#include "util/error.h"
#include "util/strbuf.h"

/* libnftables' functions brig calls, loaded once */
#define NFT_FUNCS(X)                 \
	X(nft_ctx_new)               \
	X(nft_ctx_free)              \
	X(nft_ctx_buffer_output)     \
	X(nft_ctx_buffer_error)      \
	X(nft_ctx_get_output_buffer) \
	X(nft_ctx_get_error_buffer)  \
	X(nft_run_cmd_from_buffer)

static struct {
#define X(f) __typeof__(&f) f;
	NFT_FUNCS(X)
#undef X
} lib;

static int load(struct brig_error *err)
{
	static void *handle;
#define X(f) { #f, (void **)&lib.f },
	static const struct brig_dlsym syms[] = { NFT_FUNCS(X) };
#undef X

	return brig_dlib_load(&handle, BRIG_NFT_SONAME, "libnftables1", syms, ARRAY_SIZE(syms),
	                      err);
}

struct brig_egress_nft {
	struct nft_ctx *ctx;
};

/*
 * One context for brig's life, never freed: nft_ctx_free() takes 7 to 11
 * ms here (it tears down the library's tables), which every egress job
 * would pay at its end; brig exits soon after anyway.
 */
static struct nft_ctx *shared_ctx;

void brig_egress_nft_forget(void)
{
	shared_ctx = NULL;
}

static struct nft_ctx *context(struct brig_error *err)
{
	struct nft_ctx *c;

	if (shared_ctx)
		return shared_ctx;
	if (load(err) < 0)
		return NULL;
	c = lib.nft_ctx_new(NFT_CTX_DEFAULT);
	if (!c) {
		brig_error_set(err, "nftables: cannot make a context");
		return NULL;
	}
	/* (a context that cannot buffer is left as it is: see above) */
	if (lib.nft_ctx_buffer_output(c) < 0 || lib.nft_ctx_buffer_error(c) < 0) {
		brig_error_set(err, "nftables: cannot buffer its output");
		return NULL;
	}
	shared_ctx = c;
	return shared_ctx;
}

int brig_egress_nft_open(struct brig_egress_nft **out, struct brig_error *err)
{
	struct nft_ctx *ctx = context(err);

	if (!ctx)
		return -1;
	*out = brig_xcalloc(1, sizeof(**out));
	(*out)->ctx = ctx;
	return 0;
}

void brig_egress_nft_free(struct brig_egress_nft *n)
{
	free(n);
}

/* Run @cmd; on failure the first line of nftables' message, after @what. */
static int run(struct brig_egress_nft *n, const char *cmd, const char *what, struct brig_error *err)
{
	const char *msg;
	size_t len;

	if (lib.nft_run_cmd_from_buffer(n->ctx, cmd) == 0)
		return 0;
	msg = lib.nft_ctx_get_error_buffer(n->ctx);
	msg = msg ? msg : "";
	if (!strncmp(msg, "Error: ", 7))
		msg += 7;
	len = strcspn(msg, "\n");
	return brig_error_set(err, "nftables: %s: %.*s", what, (int)len, len ? msg : "failed");
}

#define TABLE "inet brig_e%u"
#define ARP_TABLE "arp brig_e%u"

/* Slot @slot's two tables deleted, each made first so that a missing one
 * is no error. */
static void drop_tables(struct brig_strbuf *b, unsigned slot)
{
	brig_strbuf_addf(b, "table " TABLE "\ndelete table " TABLE "\n", slot, slot);
	brig_strbuf_addf(b, "table " ARP_TABLE "\ndelete table " ARP_TABLE "\n", slot, slot);
}

/* A CIDR rule's match (NET4: IPv6 is not routed). */
static void cidr_rule(struct brig_strbuf *b, const struct brig_egress_rule *r)
{
	char text[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, r->addr, text, sizeof(text));
	brig_strbuf_addf(b, "\t\tct state new ip daddr %s/%u ", text, r->prefix);
	if (r->port)
		brig_strbuf_addf(b, "meta l4proto { tcp, udp } th dport %u ", r->port);
	brig_strbuf_addf(b, "counter name allowed accept\n");
}

int brig_egress_nft_table(struct brig_egress_nft *n, const struct brig_egress_table *t,
                          struct brig_error *err)
{
	char host[INET_ADDRSTRLEN], job[INET_ADDRSTRLEN], job6[INET6_ADDRSTRLEN];
	struct brig_strbuf b = BRIG_STRBUF_INIT;
	int r;

	inet_ntop(AF_INET, t->host, host, sizeof(host));
	inet_ntop(AF_INET, t->job, job, sizeof(job));
	inet_ntop(AF_INET6, t->job6, job6, sizeof(job6));
	/* made, emptied and deleted in one go: tables left by a dead job of
	 * this slot go, and these are made anew */
	drop_tables(&b, t->slot);
	brig_strbuf_addf(&b,
	                 "table " ARP_TABLE " {\n"
	                 "\tchain in {\n"
	                 "\t\ttype filter hook input priority filter - 10; policy accept;\n"
	                 "\t\tiifname != \"%s\" return\n"
	                 "\t\tarp saddr ip != %s drop\n\t}\n}\n",
	                 t->slot, t->link, job);
	brig_strbuf_addf(&b, "table " TABLE " {\n", t->slot);
	brig_strbuf_addf(&b,
	                 "\tset learned { type ipv4_addr; flags timeout; }\n"
	                 "\tset learned_port { type ipv4_addr . inet_service; flags timeout; }\n"
	                 "\tset never { type ipv4_addr; flags interval; elements = { "
	                 "0.0.0.0/8, 127.0.0.0/8, 169.254.0.0/16, 224.0.0.0/3, "
	                 "%d.%d.0.0/16 } }\n"
	                 "\tset denied { type ipv4_addr; size %d; flags dynamic; }\n"
	                 "\tset denied6 { type ipv6_addr; size %d; flags dynamic; }\n"
	                 "\tcounter allowed { }\n\tcounter dropped { }\n",
	                 BRIG_EGRESS_NET_A, BRIG_EGRESS_NET_B, BRIG_EGRESS_ADDRS_KEPT,
	                 BRIG_EGRESS_ADDRS_KEPT);
	brig_strbuf_addf(&b, "\tchain deny {\n"
	                     "\t\tmeta nfproto ipv4 add @denied { ip daddr }\n"
	                     "\t\tmeta nfproto ipv6 add @denied6 { ip6 daddr }\n"
	                     "\t\tcounter name dropped drop\n\t}\n");
	/* IPv6 is not routed: what the job sends over it is refused and
	 * counted before routing (with forwarding off the kernel would drop
	 * it unseen); neighbour discovery with brig's end, which the job
	 * needs to send anything, passes from the job's own address (the
	 * link's only one: no link-local), and the rest of the link's own
	 * multicast (MLD reports, a solicitation from any other source) is
	 * dropped uncounted: no attempt to reach anyone */
	brig_strbuf_addf(&b,
	                 "\tchain pre {\n"
	                 "\t\ttype filter hook prerouting priority filter - 10; policy accept;\n"
	                 "\t\tiifname != \"%s\" return\n"
	                 "\t\tmeta nfproto ipv4 return\n"
	                 "\t\tip6 saddr %s icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert } "
	                 "ip6 hoplimit 255 return\n"
	                 "\t\tip6 daddr ff02::/16 drop\n"
	                 "\t\tjump deny\n\t}\n",
	                 t->link, job6);
	brig_strbuf_addf(&b,
	                 "\tchain in {\n"
	                 "\t\ttype filter hook input priority filter - 10; policy accept;\n"
	                 "\t\tiifname != \"%s\" return\n"
	                 "\t\tmeta nfproto ipv6 accept\n"
	                 "\t\tip saddr %s ip daddr %s udp dport 53 accept\n"
	                 "\t\tip daddr %s tcp dport 53 add @denied { ip daddr } "
	                 "counter name dropped reject with tcp reset\n"
	                 "\t\tjump deny\n\t}\n",
	                 t->link, job, host, host);
	brig_strbuf_addf(&b,
	                 "\tchain out {\n"
	                 "\t\ttype filter hook forward priority filter - 10; policy accept;\n"
	                 "\t\toifname \"%s\" ct state established,related accept\n"
	                 "\t\toifname \"%s\" drop\n"
	                 "\t\tiifname != \"%s\" return\n"
	                 "\t\tip saddr != %s jump deny\n"
	                 "\t\tct state established,related accept\n"
	                 "\t\tip daddr @never jump deny\n"
	                 "\t\tct state new ip daddr @learned counter name allowed accept\n"
	                 "\t\tct state new ip daddr . tcp dport @learned_port "
	                 "counter name allowed accept\n"
	                 "\t\tct state new ip daddr . udp dport @learned_port "
	                 "counter name allowed accept\n",
	                 t->link, t->link, t->link, job);
	for (size_t i = 0; t->rules && i < t->rules->n; i++)
		if (t->rules->v[i].kind == BRIG_EGRESS_NET4)
			cidr_rule(&b, &t->rules->v[i]);
	brig_strbuf_addf(&b, "\t\tjump deny\n\t}\n");
	brig_strbuf_addf(&b,
	                 "\tchain nat {\n"
	                 "\t\ttype nat hook postrouting priority srcnat; policy accept;\n"
	                 "\t\tip saddr %s oifname != \"%s\" masquerade\n\t}\n}\n",
	                 job, t->link);
	r = run(n, b.buf, "the job's table", err);
	brig_strbuf_release(&b);
	return r;
}

int brig_egress_nft_remove(struct brig_egress_nft *n, unsigned slot, struct brig_error *err)
{
	struct brig_strbuf b = BRIG_STRBUF_INIT;
	int r;

	drop_tables(&b, slot);
	r = run(n, b.buf, "remove the job's tables", err);
	brig_strbuf_release(&b);
	return r;
}
