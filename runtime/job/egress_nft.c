/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The egress tables (egress.h), through libnftables, loaded with dlopen()
 * by an egress job that needs it alone.  One table in the inet family,
 * "brig_egress", for every slot of brig's network namespace: its base
 * chains hand what comes from a job's link (brig-e<slot>) to that slot's
 * chains ("s<slot>_..."), through a verdict map keyed by the link's name,
 * with goto: a slot's chain that returns, or ends, ends the base chain as
 * its policy does.
 *
 *   pre       IPv6 from the job's link, which is not routed: neighbour
 *             discovery from the job's own address passes, the rest is
 *             counted and dropped
 *   in        from the job's link: its DNS queries to brig's end (UDP 53,
 *             from the job's own address) and nothing else: the host's own
 *             addresses, every one of them, are local and end here
 *   out       (forward) to a job's link only replies; from the job's
 *             link, from the job's address: what its conntrack entry
 *             allows, then new flows to what the rules allow (the learned
 *             sets, the CIDR rules in s<slot>_cidr), never to the
 *             never-allowed ranges
 *   deny      (a slot's) the destination kept (a dynamic set: the
 *             result's denied_addresses), counted, dropped
 *   nat       what leaves from the egress network, masqueraded
 *
 * What comes from a link brig-e* that no slot's chains take is dropped:
 * a link is never without its rules.  A table of the same name in the
 * arp family drops what comes from a job's link with a sender address
 * other than the job's.  A job with CAP_NET_RAW could otherwise have
 * brig's namespace (the host's) learn a neighbour for any address it
 * names, one ARP request or solicitation each, up to the neighbour
 * tables' limit, which every link of the namespace shares.
 *
 * A packet goes through every table's chains at a hook: these tables
 * only drop or accept what touches a job's link and return otherwise.
 *
 * The tables and a slot's chains, sets and counters stay while any slot
 * is taken (egress_slot.c): the next job of a slot finds them and only
 * empties them (egress_learn.c), a fraction of a millisecond, where
 * making a table of its own took milliseconds in libnftables and in the
 * kernel (its hooks registered and unregistered, and conntrack's and
 * masquerade's with them, under locks that the next job's link and
 * namespace wait for).  Whoever lets the last slot go deletes the tables.
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

/* The library is loaded, and the context made, by the first command. */
void brig_egress_nft_open(struct brig_egress_nft **out)
{
	*out = brig_xcalloc(1, sizeof(**out));
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

	if (!n->ctx && !(n->ctx = context(err)))
		return -1;
	if (lib.nft_run_cmd_from_buffer(n->ctx, cmd) == 0)
		return 0;
	msg = lib.nft_ctx_get_error_buffer(n->ctx);
	msg = msg ? msg : "";
	if (!strncmp(msg, "Error: ", 7))
		msg += 7;
	len = strcspn(msg, "\n");
	return brig_error_set(err, "nftables: %s: %.*s", what, (int)len, len ? msg : "failed");
}

#define TABLE "inet " BRIG_EGRESS_TABLE
#define ARP_TABLE "arp " BRIG_EGRESS_TABLE
#define LINKS "\"brig-e*\""

/* The tables, made whole, with no slot's chains yet: created, so that
 * the transaction fails if they are there (another brig made them). */
static void tables(struct brig_strbuf *b)
{
	brig_strbuf_addf(b, "create table " ARP_TABLE "\ncreate table " TABLE "\n");
	brig_strbuf_addf(b, "table " ARP_TABLE " {\n"
	                    "\tmap links { type ifname : verdict; }\n"
	                    "\tchain in {\n"
	                    "\t\ttype filter hook input priority filter - 10; policy accept;\n"
	                    "\t\tiifname vmap @links\n"
	                    "\t\tiifname " LINKS " drop\n\t}\n}\n");
	brig_strbuf_addf(b,
	                 "table " TABLE " {\n"
	                 "\tset never { type ipv4_addr; flags interval; elements = { "
	                 "0.0.0.0/8, 127.0.0.0/8, 169.254.0.0/16, 224.0.0.0/3, "
	                 "%d.%d.0.0/16 } }\n"
	                 "\tmap pre_links { type ifname : verdict; }\n"
	                 "\tmap in_links { type ifname : verdict; }\n"
	                 "\tmap out_links { type ifname : verdict; }\n",
	                 BRIG_EGRESS_NET_A, BRIG_EGRESS_NET_B);
	/* IPv6 is not routed: what the job sends over it is refused and
	 * counted before routing (with forwarding off the kernel would drop
	 * it unseen) */
	brig_strbuf_addf(b, "\tchain pre {\n"
	                    "\t\ttype filter hook prerouting priority filter - 10; policy accept;\n"
	                    "\t\tiifname vmap @pre_links\n"
	                    "\t\tiifname " LINKS " drop\n\t}\n");
	brig_strbuf_addf(b, "\tchain in {\n"
	                    "\t\ttype filter hook input priority filter - 10; policy accept;\n"
	                    "\t\tiifname vmap @in_links\n"
	                    "\t\tiifname " LINKS " drop\n\t}\n");
	brig_strbuf_addf(b, "\tchain out {\n"
	                    "\t\ttype filter hook forward priority filter - 10; policy accept;\n"
	                    "\t\toifname " LINKS " ct state established,related accept\n"
	                    "\t\toifname " LINKS " drop\n"
	                    "\t\tiifname vmap @out_links\n"
	                    "\t\tiifname " LINKS " drop\n\t}\n");
	brig_strbuf_addf(b,
	                 "\tchain nat {\n"
	                 "\t\ttype nat hook postrouting priority srcnat; policy accept;\n"
	                 "\t\tip saddr %d.%d.0.0/16 oifname != " LINKS " masquerade\n\t}\n}\n",
	                 BRIG_EGRESS_NET_A, BRIG_EGRESS_NET_B);
}

/* Slot @slot's chains, sets, counters and map elements, each made first
 * so that a missing one is no error, then deleted; and the tables of
 * brig's earlier layout (one per slot, "brig_e<slot>"), which a job of
 * an older brig may have left. */
static void drop_slot(struct brig_strbuf *b, unsigned slot, const char *link)
{
	static const char *const chains[] = { "pre", "in", "out", "cidr", "deny" };
	static const char *const maps[] = { "pre", "in", "out" };

	for (size_t i = 0; i < ARRAY_SIZE(chains); i++)
		brig_strbuf_addf(b, "add chain " TABLE " s%u_%s\n", slot, chains[i]);
	brig_strbuf_addf(b, "add chain " ARP_TABLE " s%u\n", slot);
	for (size_t i = 0; i < ARRAY_SIZE(maps); i++)
		brig_strbuf_addf(b,
		                 "add element " TABLE " %s_links { \"%s\" : goto s%u_%s }\n"
		                 "delete element " TABLE " %s_links { \"%s\" }\n",
		                 maps[i], link, slot, maps[i], maps[i], link);
	brig_strbuf_addf(b,
	                 "add element " ARP_TABLE " links { \"%s\" : goto s%u }\n"
	                 "delete element " ARP_TABLE " links { \"%s\" }\n"
	                 "flush chain " ARP_TABLE " s%u\ndelete chain " ARP_TABLE " s%u\n",
	                 link, slot, link, slot, slot);
	for (size_t i = 0; i < ARRAY_SIZE(chains); i++)
		brig_strbuf_addf(b, "flush chain " TABLE " s%u_%s\n", slot, chains[i]);
	for (size_t i = 0; i < ARRAY_SIZE(chains); i++)
		brig_strbuf_addf(b, "delete chain " TABLE " s%u_%s\n", slot, chains[i]);
	brig_strbuf_addf(
	    b,
	    "add set " TABLE " s%u_learned { type ipv4_addr; flags timeout; }\n"
	    "delete set " TABLE " s%u_learned\n"
	    "add set " TABLE " s%u_learned_port "
	    "{ type ipv4_addr . inet_service; flags timeout; }\n"
	    "delete set " TABLE " s%u_learned_port\n"
	    "add set " TABLE " s%u_denied { type ipv4_addr; size %d; flags dynamic; }\n"
	    "delete set " TABLE " s%u_denied\n"
	    "add set " TABLE " s%u_denied6 { type ipv6_addr; size %d; flags dynamic; }\n"
	    "delete set " TABLE " s%u_denied6\n"
	    "add counter " TABLE " s%u_allowed\ndelete counter " TABLE " s%u_allowed\n"
	    "add counter " TABLE " s%u_dropped\ndelete counter " TABLE " s%u_dropped\n",
	    slot, slot, slot, slot, slot, BRIG_EGRESS_ADDRS_KEPT, slot, slot,
	    BRIG_EGRESS_ADDRS_KEPT, slot, slot, slot, slot, slot);
	brig_strbuf_addf(b,
	                 "table inet brig_e%u\ndelete table inet brig_e%u\n"
	                 "table arp brig_e%u\ndelete table arp brig_e%u\n",
	                 slot, slot, slot, slot);
}

/* Slot @slot's chains, sets and counters, with no CIDR rule yet, and the
 * map elements that hand its link's packets to them. */
static void make_slot(struct brig_strbuf *b, const struct brig_egress_table *t)
{
	char host[INET_ADDRSTRLEN], job[INET_ADDRSTRLEN], job6[INET6_ADDRSTRLEN];
	unsigned n = t->slot;

	inet_ntop(AF_INET, t->host, host, sizeof(host));
	inet_ntop(AF_INET, t->job, job, sizeof(job));
	inet_ntop(AF_INET6, t->job6, job6, sizeof(job6));
	brig_strbuf_addf(b,
	                 "table " ARP_TABLE " {\n"
	                 "\tchain s%u {\n\t\tarp saddr ip != %s drop\n\t}\n}\n"
	                 "add element " ARP_TABLE " links { \"%s\" : goto s%u }\n",
	                 n, job, t->link, n);
	brig_strbuf_addf(b, "table " TABLE " {\n");
	brig_strbuf_addf(
	    b,
	    "\tset s%u_learned { type ipv4_addr; flags timeout; }\n"
	    "\tset s%u_learned_port { type ipv4_addr . inet_service; flags timeout; }\n"
	    "\tset s%u_denied { type ipv4_addr; size %d; flags dynamic; }\n"
	    "\tset s%u_denied6 { type ipv6_addr; size %d; flags dynamic; }\n"
	    "\tcounter s%u_allowed { }\n\tcounter s%u_dropped { }\n",
	    n, n, n, BRIG_EGRESS_ADDRS_KEPT, n, BRIG_EGRESS_ADDRS_KEPT, n, n);
	brig_strbuf_addf(b,
	                 "\tchain s%u_deny {\n"
	                 "\t\tmeta nfproto ipv4 add @s%u_denied { ip daddr }\n"
	                 "\t\tmeta nfproto ipv6 add @s%u_denied6 { ip6 daddr }\n"
	                 "\t\tcounter name s%u_dropped drop\n\t}\n"
	                 "\tchain s%u_cidr {\n\t}\n",
	                 n, n, n, n, n);
	/* neighbour discovery with brig's end, which the job needs to send
	 * anything, passes from the job's own address (the link's only one:
	 * no link-local), and the rest of the link's own multicast (MLD
	 * reports, a solicitation from any other source) is dropped
	 * uncounted: no attempt to reach anyone */
	brig_strbuf_addf(b,
	                 "\tchain s%u_pre {\n"
	                 "\t\tmeta nfproto ipv4 return\n"
	                 "\t\tip6 saddr %s icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert } "
	                 "ip6 hoplimit 255 return\n"
	                 "\t\tip6 daddr ff02::/16 drop\n"
	                 "\t\tjump s%u_deny\n\t}\n",
	                 n, job6, n);
	brig_strbuf_addf(b,
	                 "\tchain s%u_in {\n"
	                 "\t\tmeta nfproto ipv6 accept\n"
	                 "\t\tip saddr %s ip daddr %s udp dport 53 accept\n"
	                 "\t\tip daddr %s tcp dport 53 add @s%u_denied { ip daddr } "
	                 "counter name s%u_dropped reject with tcp reset\n"
	                 "\t\tjump s%u_deny\n\t}\n",
	                 n, job, host, host, n, n, n);
	brig_strbuf_addf(b,
	                 "\tchain s%u_out {\n"
	                 "\t\tip saddr != %s jump s%u_deny\n"
	                 "\t\tct state established,related accept\n"
	                 "\t\tip daddr @never jump s%u_deny\n"
	                 "\t\tct state new ip daddr @s%u_learned counter name s%u_allowed accept\n"
	                 "\t\tct state new ip daddr . tcp dport @s%u_learned_port "
	                 "counter name s%u_allowed accept\n"
	                 "\t\tct state new ip daddr . udp dport @s%u_learned_port "
	                 "counter name s%u_allowed accept\n"
	                 "\t\tjump s%u_cidr\n"
	                 "\t\tjump s%u_deny\n\t}\n",
	                 n, job, n, n, n, n, n, n, n, n, n, n);
	brig_strbuf_addf(b,
	                 "}\n"
	                 "add element " TABLE " pre_links { \"%s\" : goto s%u_pre }\n"
	                 "add element " TABLE " in_links { \"%s\" : goto s%u_in }\n"
	                 "add element " TABLE " out_links { \"%s\" : goto s%u_out }\n",
	                 t->link, n, t->link, n, t->link, n);
}

int brig_egress_nft_slot(struct brig_egress_nft *n, const struct brig_egress_table *t,
                         bool make_tables, struct brig_error *err)
{
	struct brig_strbuf b = BRIG_STRBUF_INIT;
	int r;

	if (make_tables)
		tables(&b);
	drop_slot(&b, t->slot, t->link);
	make_slot(&b, t);
	r = run(n, b.buf, "the job's chains", err);
	brig_strbuf_release(&b);
	return r;
}

int brig_egress_nft_cidr(struct brig_egress_nft *n, const struct brig_egress_table *t,
                         struct brig_error *err)
{
	struct brig_strbuf b = BRIG_STRBUF_INIT;
	char text[INET_ADDRSTRLEN];
	int r;

	for (size_t i = 0; t->rules && i < t->rules->n; i++) {
		const struct brig_egress_rule *rule = &t->rules->v[i];

		if (rule->kind != BRIG_EGRESS_NET4)
			continue;
		inet_ntop(AF_INET, rule->addr, text, sizeof(text));
		brig_strbuf_addf(&b, "add rule " TABLE " s%u_cidr ct state new ip daddr %s/%u ",
		                 t->slot, text, rule->prefix);
		if (rule->port)
			brig_strbuf_addf(&b, "meta l4proto { tcp, udp } th dport %u ", rule->port);
		brig_strbuf_addf(&b, "counter name s%u_allowed accept\n", t->slot);
	}
	r = b.len ? run(n, b.buf, "the job's CIDR rules", err) : 0;
	brig_strbuf_release(&b);
	return r;
}
