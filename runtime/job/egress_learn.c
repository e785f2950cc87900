/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A slot's part of the egress table (egress.h, egress_nft.c) while a job
 * has it, through libnftnl on a netfilter socket of brig's own: made
 * ready for a new job (its sets and CIDR rules emptied, its counters
 * zeroed, in one nf_tables batch and two gets), the resolver's answers
 * into its learned sets (an element added, or renewed, by one batch), and
 * the result's figures (the counters, the denied sets), each asked of
 * this slot's objects alone; and the tables' existence and end.
 * libnftables would parse a command and dump every object of the table
 * each time (its cache): an element took 0.4 ms alone, 2.8 ms beside 60
 * other jobs' tables, and 64 jobs at once spent minutes reading their
 * counters.  libnftnl is loaded with dlopen() on first use; whether a
 * slot's objects are there is asked without it (its load is half a
 * millisecond that an egress job would otherwise pay before its clone).
 */
#include "config.h"
#include "job/egress.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libnftnl/common.h>
#include <libnftnl/object.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "linux/netlink.h"
#include "util/cleanup.h"
#include "util/dlib.h"
#include "util/error.h"

#define NFTNL_FUNCS(X)                         \
	X(nftnl_table_alloc)                   \
	X(nftnl_table_free)                    \
	X(nftnl_table_set_str)                 \
	X(nftnl_table_nlmsg_build_payload)     \
	X(nftnl_rule_alloc)                    \
	X(nftnl_rule_free)                     \
	X(nftnl_rule_set_str)                  \
	X(nftnl_rule_set_u32)                  \
	X(nftnl_rule_nlmsg_build_payload)      \
	X(nftnl_set_alloc)                     \
	X(nftnl_set_free)                      \
	X(nftnl_set_set_str)                   \
	X(nftnl_set_set_u32)                   \
	X(nftnl_set_elem_alloc)                \
	X(nftnl_set_elem_set)                  \
	X(nftnl_set_elem_set_u64)              \
	X(nftnl_set_elem_add)                  \
	X(nftnl_batch_begin)                   \
	X(nftnl_batch_end)                     \
	X(nftnl_nlmsg_build_hdr)               \
	X(nftnl_set_elems_nlmsg_build_payload) \
	X(nftnl_set_elems_nlmsg_parse)         \
	X(nftnl_set_elems_iter_create)         \
	X(nftnl_set_elems_iter_next)           \
	X(nftnl_set_elems_iter_destroy)        \
	X(nftnl_set_elem_get)                  \
	X(nftnl_obj_alloc)                     \
	X(nftnl_obj_free)                      \
	X(nftnl_obj_set_str)                   \
	X(nftnl_obj_set_u32)                   \
	X(nftnl_obj_get_u64)                   \
	X(nftnl_obj_nlmsg_build_payload)       \
	X(nftnl_obj_nlmsg_parse)

static struct {
#define X(f) __typeof__(&f) f;
	NFTNL_FUNCS(X)
#undef X
} lib;

static int load(struct brig_error *err)
{
	static void *handle;
#define X(f) { #f, (void **)&lib.f },
	static const struct brig_dlsym syms[] = { NFTNL_FUNCS(X) };
#undef X

	return brig_dlib_load(&handle, BRIG_NFTNL_SONAME, "libnftnl11", syms, ARRAY_SIZE(syms),
	                      err);
}

struct brig_egress_learn {
	int fd; /* NETLINK_NETFILTER */
	uint32_t seq;
};

int brig_egress_learn_open(struct brig_egress_learn **out, struct brig_error *err)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct brig_egress_learn *l = brig_xcalloc(1, sizeof(*l));

	l->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	if (l->fd < 0 || bind(l->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		brig_error_setp(err, errno, "netfilter socket");
		brig_egress_learn_free(l);
		return -1;
	}
	l->seq = (uint32_t)getpid() << 8;
	*out = l;
	return 0;
}

void brig_egress_learn_free(struct brig_egress_learn *l)
{
	if (!l)
		return;
	if (l->fd >= 0)
		close(l->fd);
	free(l);
}

/* The name of slot @slot's object @what: "s<slot>_<what>". */
static const char *slot_object(char out[32], unsigned slot, const char *what)
{
	snprintf(out, 32, "s%u_%s", slot, what);
	return out;
}

/* Slot @slot's set @name, with no element yet. */
static struct nftnl_set *slot_set(unsigned slot, const char *name)
{
	struct nftnl_set *s = lib.nftnl_set_alloc();
	char set[32];

	if (!s)
		brig_oom();
	lib.nftnl_set_set_str(s, NFTNL_SET_TABLE, BRIG_EGRESS_TABLE);
	lib.nftnl_set_set_str(s, NFTNL_SET_NAME, slot_object(set, slot, name));
	lib.nftnl_set_set_u32(s, NFTNL_SET_FAMILY, NFPROTO_INET);
	return s;
}

/* Slot @slot's set @name with one element, @key of @len bytes, timing
 * out after @ttl seconds (0: no timeout attribute). */
static struct nftnl_set *one_element(unsigned slot, const char *name, const void *key, size_t len,
                                     uint32_t ttl)
{
	struct nftnl_set *s = slot_set(slot, name);
	struct nftnl_set_elem *e = lib.nftnl_set_elem_alloc();

	if (!e)
		brig_oom();
	lib.nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY, key, (uint32_t)len);
	if (ttl)
		lib.nftnl_set_elem_set_u64(e, NFTNL_SET_ELEM_TIMEOUT, (uint64_t)ttl * 1000);
	lib.nftnl_set_elem_add(s, e);
	return s;
}

/* Append a message of @type for @s to the batch in @buf at *@len. */
static void append(struct brig_egress_learn *l, char *buf, size_t *len, uint16_t type,
                   uint16_t flags, struct nftnl_set *s)
{
	struct nlmsghdr *h =
	    lib.nftnl_nlmsg_build_hdr(buf + *len, type, NFPROTO_INET, flags | NLM_F_ACK, ++l->seq);

	lib.nftnl_set_elems_nlmsg_build_payload(h, s);
	*len += NLMSG_ALIGN(h->nlmsg_len);
	lib.nftnl_set_free(s);
}

typedef void (*reply_cb)(const struct nlmsghdr *h, void *arg);

/*
 * Send the @len bytes at @msg, then read until they are answered: a batch
 * (@cb NULL) by @acks acks, or the first error; a get (@cb set: a dump
 * with @dump) by its replies of sequence @seq, each handed to @cb, until
 * its end (the ack, or NLMSG_DONE).  0 or -errno.
 */
static int exchange(struct brig_egress_learn *l, const void *msg, size_t len, int acks,
                    uint32_t seq, bool dump, reply_cb cb, void *arg)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char buf[16384];

	/* what an earlier exchange that failed may have left unread */
	while (recv(l->fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	if (sendto(l->fd, msg, len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(l->fd, buf, sizeof(buf), 0);
		int rlen = (int)n;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, rlen);
		     h = NLMSG_NEXT(h, rlen)) {
			const struct nlmsgerr *e = NLMSG_DATA(h);

			if (cb && h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE && cb)
				return 0;
			if (h->nlmsg_type != NLMSG_ERROR) {
				if (cb)
					cb(h, arg);
				continue;
			}
			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
				return -EPROTO;
			/* a failed batch says so once, for the message that
			 * failed; a get's ack ends it, as a dump's DONE does */
			if (e->error)
				return e->error;
			if (cb ? !dump : --acks == 0)
				return 0;
		}
	}
}

int brig_egress_learn(struct brig_egress_learn *l, unsigned slot, const uint8_t addr[4],
                      uint16_t port, uint32_t ttl, bool replace, struct brig_error *err)
{
	/* a concatenation's fields are each 4-byte aligned */
	uint8_t key[8] = { 0 };
	size_t klen = port ? 8 : 4;
	const char *set = port ? "learned_port" : "learned";
	char buf[2048];
	size_t len = 0;
	int r;

	if (load(err) < 0)
		return -1;
	memcpy(key, addr, 4);
	if (port) {
		uint16_t be = htons(port);

		memcpy(key + 4, &be, 2);
	}
	len += NLMSG_ALIGN(lib.nftnl_batch_begin(buf, ++l->seq)->nlmsg_len);
	/* an element there already keeps its timeout: it is replaced, in the
	 * same transaction */
	if (replace)
		append(l, buf, &len, NFT_MSG_DELSETELEM, 0, one_element(slot, set, key, klen, 0));
	append(l, buf, &len, NFT_MSG_NEWSETELEM, NLM_F_CREATE,
	       one_element(slot, set, key, klen, ttl));
	len += NLMSG_ALIGN(lib.nftnl_batch_end(buf + len, ++l->seq)->nlmsg_len);
	r = exchange(l, buf, len, replace ? 2 : 1, 0, false, NULL, NULL);
	if (r < 0)
		return brig_error_setp(err, -r, "nftables: allow an address in set \"%s\"", set);
	return 0;
}

/* ---------------------------------------------------------- figures */

/* Send the one request @h (a get: a dump with @dump) and hand each reply
 * of the kind asked to @cb until its end. */
static int ask(struct brig_egress_learn *l, struct nlmsghdr *h, bool dump, reply_cb cb, void *arg)
{
	return exchange(l, h, h->nlmsg_len, 0, h->nlmsg_seq, dump, cb, arg);
}

static void on_counter(const struct nlmsghdr *h, void *arg)
{
	struct nftnl_obj *o = lib.nftnl_obj_alloc();

	if (!o)
		brig_oom();
	if (lib.nftnl_obj_nlmsg_parse(h, o) == 0)
		*(uint64_t *)arg = lib.nftnl_obj_get_u64(o, NFTNL_OBJ_CTR_PKTS);
	lib.nftnl_obj_free(o);
}

/* The packets counted by slot @slot's counter @name; with @reset, the
 * counter zeroed as it is read. */
static int counter(struct brig_egress_learn *l, unsigned slot, const char *name, bool reset,
                   uint64_t *packets, struct brig_error *err)
{
	struct nftnl_obj *o = lib.nftnl_obj_alloc();
	char buf[512], object[32];
	struct nlmsghdr *h;
	int r;

	if (!o)
		brig_oom();
	lib.nftnl_obj_set_str(o, NFTNL_OBJ_TABLE, BRIG_EGRESS_TABLE);
	lib.nftnl_obj_set_str(o, NFTNL_OBJ_NAME, slot_object(object, slot, name));
	lib.nftnl_obj_set_u32(o, NFTNL_OBJ_TYPE, NFT_OBJECT_COUNTER);
	h = lib.nftnl_nlmsg_build_hdr(buf, reset ? NFT_MSG_GETOBJ_RESET : NFT_MSG_GETOBJ,
	                              NFPROTO_INET, NLM_F_ACK, ++l->seq);
	lib.nftnl_obj_nlmsg_build_payload(h, o);
	lib.nftnl_obj_free(o);
	*packets = 0;
	r = ask(l, h, false, on_counter, packets);
	if (r < 0)
		return brig_error_setp(err, -r, "nftables: counter \"%s\"", object);
	return 0;
}

struct elements {
	int family;
	struct brig_egress_figures *f;
};

static void on_elements(const struct nlmsghdr *h, void *arg)
{
	struct elements *el = arg;
	struct nftnl_set *s = lib.nftnl_set_alloc();
	struct nftnl_set_elems_iter *it;
	struct nftnl_set_elem *e;

	if (!s)
		brig_oom();
	if (lib.nftnl_set_elems_nlmsg_parse(h, s) < 0 ||
	    !(it = lib.nftnl_set_elems_iter_create(s))) {
		lib.nftnl_set_free(s);
		return;
	}
	while ((e = lib.nftnl_set_elems_iter_next(it)) &&
	       el->f->n_denied_addresses < BRIG_EGRESS_ADDRS_KEPT) {
		char text[INET6_ADDRSTRLEN];
		uint32_t len = 0;
		const void *key = lib.nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &len);

		if (!key || len != (el->family == AF_INET ? 4u : 16u) ||
		    !inet_ntop(el->family, key, text, sizeof(text)))
			continue;
		el->f->denied_addresses[el->f->n_denied_addresses++] = brig_xstrdup(text);
	}
	lib.nftnl_set_elems_iter_destroy(it);
	lib.nftnl_set_free(s);
}

/* The addresses in slot @slot's set @name (of @family's). */
static int elements(struct brig_egress_learn *l, unsigned slot, const char *name, int family,
                    struct brig_egress_figures *f, struct brig_error *err)
{
	struct nftnl_set *s = slot_set(slot, name);
	struct elements el = { .family = family, .f = f };
	char buf[512];
	struct nlmsghdr *h;
	int r;

	h = lib.nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETSETELEM, NFPROTO_INET, NLM_F_DUMP | NLM_F_ACK,
	                              ++l->seq);
	lib.nftnl_set_elems_nlmsg_build_payload(h, s);
	lib.nftnl_set_free(s);
	r = ask(l, h, true, on_elements, &el);
	if (r < 0)
		return brig_error_setp(err, -r, "nftables: set \"s%u_%s\"", slot, name);
	return 0;
}

int brig_egress_learn_figures(struct brig_egress_learn *l, unsigned slot,
                              struct brig_egress_figures *f, struct brig_error *err)
{
	if (load(err) < 0 || counter(l, slot, "allowed", false, &f->allowed, err) < 0 ||
	    counter(l, slot, "dropped", false, &f->dropped, err) < 0 ||
	    elements(l, slot, "denied", AF_INET, f, err) < 0 ||
	    elements(l, slot, "denied6", AF_INET6, f, err) < 0)
		return -1;
	return 0;
}

/* ---------------------------------------------------------- a slot readied */

int brig_egress_learn_slot_made(struct brig_egress_learn *l, unsigned slot, struct brig_error *err)
{
	struct nfgenmsg g = { .nfgen_family = NFPROTO_INET, .version = NFNETLINK_V0 };
	uint32_t type = htonl(NFT_OBJECT_COUNTER);
	struct brig_nl_req r;
	char name[32];

	/* (a get of one counter, spoken by hand: see above) */
	brig_nl_init(&r, NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_GETOBJ, NLM_F_ACK, &g, sizeof(g));
	brig_nl_attr(&r, NFTA_OBJ_TABLE, BRIG_EGRESS_TABLE, sizeof(BRIG_EGRESS_TABLE));
	slot_object(name, slot, "dropped");
	brig_nl_attr(&r, NFTA_OBJ_NAME, name, strlen(name) + 1);
	brig_nl_attr(&r, NFTA_OBJ_TYPE, &type, sizeof(type));
	if (brig_nl_talk(l->fd, &r, NULL, NULL) == 0)
		return 1;
	if (errno == ENOENT)
		return 0;
	return brig_error_setp(err, errno, "nftables: counter \"%s\"", name);
}

/*
 * Whether the slot's objects are there is asked first, with gets (its
 * counters, reset on the way): a batch that fails aborts, and the
 * kernel's abort of an nftables transaction waits for an RCU grace
 * period (14 ms here), where a get costs a round trip.  A slot's objects
 * are made and deleted together (egress_nft.c), and only by whoever holds
 * the slot, so what the gets find stays for the batch.
 */
int brig_egress_learn_ready(struct brig_egress_learn *l, unsigned slot, struct brig_error *err)
{
	static const char *const sets[] = { "learned", "learned_port", "denied", "denied6" };
	struct nftnl_rule *rule;
	char buf[4096], chain[32];
	struct nlmsghdr *h;
	uint64_t ignored;
	size_t len = 0;
	int r;

	if (load(err) < 0)
		return -1;
	for (const char *const *c = (const char *const[]){ "allowed", "dropped", NULL }; *c; c++)
		if (counter(l, slot, *c, true, &ignored, err) < 0) {
			if (err->errnum != ENOENT)
				return -1;
			brig_error_release(err);
			return 1;
		}
	rule = lib.nftnl_rule_alloc();
	if (!rule)
		brig_oom();
	len += NLMSG_ALIGN(lib.nftnl_batch_begin(buf, ++l->seq)->nlmsg_len);
	/* a set's elements deleted with no element named: the set flushed */
	for (size_t i = 0; i < ARRAY_SIZE(sets); i++)
		append(l, buf, &len, NFT_MSG_DELSETELEM, 0, slot_set(slot, sets[i]));
	/* a chain's rules deleted with no rule named: the chain flushed */
	lib.nftnl_rule_set_str(rule, NFTNL_RULE_TABLE, BRIG_EGRESS_TABLE);
	lib.nftnl_rule_set_str(rule, NFTNL_RULE_CHAIN, slot_object(chain, slot, "cidr"));
	lib.nftnl_rule_set_u32(rule, NFTNL_RULE_FAMILY, NFPROTO_INET);
	h = lib.nftnl_nlmsg_build_hdr(buf + len, NFT_MSG_DELRULE, NFPROTO_INET, NLM_F_ACK,
	                              ++l->seq);
	lib.nftnl_rule_nlmsg_build_payload(h, rule);
	lib.nftnl_rule_free(rule);
	len += NLMSG_ALIGN(h->nlmsg_len);
	len += NLMSG_ALIGN(lib.nftnl_batch_end(buf + len, ++l->seq)->nlmsg_len);
	r = exchange(l, buf, len, (int)ARRAY_SIZE(sets) + 1, 0, false, NULL, NULL);
	/* (an older brig's slot, made otherwise) */
	if (r == -ENOENT)
		return 1;
	if (r < 0)
		return brig_error_setp(err, -r, "nftables: ready slot %u's sets and rules", slot);
	return 0;
}

/* ---------------------------------------------------------- the tables */

static void ignore_reply(const struct nlmsghdr *h, void *arg)
{
	(void)h;
	(void)arg;
}

/* The table of family @family: a get (@type NFT_MSG_GETTABLE) or its
 * deletion (NFT_MSG_DELTABLE, in a batch of its own).  0 or -errno. */
static int table_msg(struct brig_egress_learn *l, uint16_t type, int family)
{
	struct nftnl_table *t = lib.nftnl_table_alloc();
	char buf[512];
	size_t len = 0;
	struct nlmsghdr *h;
	bool batch = type != NFT_MSG_GETTABLE;

	if (!t)
		brig_oom();
	lib.nftnl_table_set_str(t, NFTNL_TABLE_NAME, BRIG_EGRESS_TABLE);
	if (batch)
		len += NLMSG_ALIGN(lib.nftnl_batch_begin(buf, ++l->seq)->nlmsg_len);
	h = lib.nftnl_nlmsg_build_hdr(buf + len, type, (uint16_t)family, NLM_F_ACK, ++l->seq);
	lib.nftnl_table_nlmsg_build_payload(h, t);
	lib.nftnl_table_free(t);
	len += NLMSG_ALIGN(h->nlmsg_len);
	if (!batch)
		return ask(l, h, false, ignore_reply, NULL);
	len += NLMSG_ALIGN(lib.nftnl_batch_end(buf + len, ++l->seq)->nlmsg_len);
	return exchange(l, buf, len, 1, 0, false, NULL, NULL);
}

int brig_egress_learn_tables_exist(struct brig_egress_learn *l, struct brig_error *err)
{
	int r;

	if (load(err) < 0)
		return -1;
	r = table_msg(l, NFT_MSG_GETTABLE, NFPROTO_INET);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return brig_error_setp(err, -r, "nftables: table \"%s\"", BRIG_EGRESS_TABLE);
	return 1;
}

int brig_egress_learn_drop_tables(struct brig_egress_learn *l, struct brig_error *err)
{
	if (load(err) < 0)
		return -1;
	for (const int *f = (const int[]){ NFPROTO_INET, NFPROTO_ARP, -1 }; *f >= 0; f++) {
		int r = table_msg(l, NFT_MSG_DELTABLE, *f);

		if (r < 0 && r != -ENOENT)
			return brig_error_setp(err, -r, "nftables: delete table \"%s\"",
			                       BRIG_EGRESS_TABLE);
	}
	return 0;
}
