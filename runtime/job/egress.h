/* SPDX-License-Identifier: Apache-2.0 */
/*
 * brig job --network egress: the job reaches the hosts its --allow rules
 * name, and nothing else.
 *
 *   egress_rules.c  the rules: --allow's values parsed, a name matched,
 *                   an address classified (never / learnable)
 *   egress_dns.c    the job's resolver: answers only the names the rules
 *                   match, forwards those upstream, and allows the answers'
 *                   addresses for their TTL (c-ares, loaded with dlopen(),
 *                   parses the names and the answers)
 *   egress_nft.c    the egress tables and a slot's chains in them
 *                   (libnftables): what leaves the job's link, what is
 *                   counted, what is masqueraded
 *   egress_learn.c  a slot's chains readied for a job, an answer's
 *                   addresses into its sets, and the result's figures out
 *                   of them (libnftnl)
 *   egress_slot.c   the slots: a job's link, chains and addresses are its
 *                   slot's; taken, let go, ended (by a child of brig's),
 *                   and what a dead brig left (gc); the last let go takes
 *                   the tables with it
 *   egress.c        a job's egress across its life: its slot, its link
 *                   (linux/veth.h), its chains, its resolver, its figures
 *
 * The job has a network namespace of its own with lo and eth0, one end of
 * a veth pair whose other end is in brig's namespace; brig routes and
 * masquerades what its slot's chains let through.  The job has no capability in
 * brig's namespace and cannot change any of it.
 */
#ifndef BRIG_JOB_EGRESS_H
#define BRIG_JOB_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

struct brig_error;

/* ---------------------------------------------------------- egress_rules.c */

enum brig_egress_kind {
	BRIG_EGRESS_NAME,   /* "pypi.org": that name only */
	BRIG_EGRESS_SUFFIX, /* "*.pythonhosted.org": every name below it (not itself) */
	BRIG_EGRESS_NET4,   /* "203.0.113.0/24", "192.0.2.7" */
	BRIG_EGRESS_NET6,   /* "2001:db8::/32", "[2001:db8::1]:443" */
};

struct brig_egress_rule {
	enum brig_egress_kind kind;
	char *name;       /* NAME, SUFFIX: lowercase, no trailing dot; SUFFIX
	                   * without its "*." (heap) */
	uint8_t addr[16]; /* NET4: the first 4 bytes; host bits zero */
	unsigned prefix;  /* NET4: 0-32, NET6: 0-128 */
	uint16_t port;    /* 0: any port */
};

struct brig_egress_rules {
	struct brig_egress_rule *v;
	size_t n;
};

/*
 * --allow's values, in order.  Each is NAME, *.NAME, ADDRESS or CIDR
 * (IPv6 in brackets when a port follows), with an optional :PORT
 * (1-65535).  Refused, as one usage error naming the value: an empty
 * value, "*", "*.", a name that is not a host name (a label of letters,
 * digits, '-' or '_', 1-63 bytes, 253 in all), a port out of range, a
 * malformed address or CIDR, and a CIDR that reaches an address never
 * allowed (brig_egress_never4/6).
 */
int brig_egress_rules_parse(const char *const *allow, size_t n, struct brig_egress_rules *out,
                            struct brig_error *err);
void brig_egress_rules_release(struct brig_egress_rules *r);

/*
 * Whether @name (any case, with or without a trailing dot) is allowed by
 * a NAME or SUFFIX rule: 1 when one rule allowing every port matches
 * (*@any_port true), else the number of distinct ports of the matching
 * rules, at most @max of them stored in @ports (*@any_port false); 0 when
 * no rule matches.  The count is of every distinct port, stored or not
 * (r->n is always room enough); @ports may be NULL when @max is 0.
 */
size_t brig_egress_match(const struct brig_egress_rules *r, const char *name, bool *any_port,
                         uint16_t *ports, size_t max);

/* Addresses the job never reaches, whatever its rules say: unspecified
 * (0/8, ::), loopback, link-local (169.254/16, fe80::/10, the cloud
 * metadata address with them; and AWS's fd00:ec2::254), multicast, 240/4
 * and broadcast, IPv4-mapped IPv6 (::ffff:0:0/96: IPv4 on the wire, the
 * IPv4 rules decide), and brig's own egress network (BRIG_EGRESS_NET). */
bool brig_egress_never4(const uint8_t a[4]);
bool brig_egress_never6(const uint8_t a[16]);
/* Addresses a DNS answer may add to the job's allowed set: not never, and
 * not private (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7, and the
 * deprecated IPv4-compatible ::/96), which only a CIDR rule of the job's
 * own allows; a NAT64 address (64:ff9b::/96) as the IPv4 one it holds. */
bool brig_egress_learnable4(const uint8_t a[4]);
bool brig_egress_learnable6(const uint8_t a[16]);

/* The egress tables' name (inet and arp): one pair for every slot of a
 * network namespace (egress_nft.c). */
#define BRIG_EGRESS_TABLE "brig_egress"

/* The network the links' addresses come from: one /30 per slot. */
#define BRIG_EGRESS_NET_A 10
#define BRIG_EGRESS_NET_B 213 /* 10.213.0.0/16 */
#define BRIG_EGRESS_SLOTS 16384

/* ---------------------------------------------------------- egress_slot.c */

struct brig_egress_nft;

/* A slot held: its number, its file (locked while the slot is the
 * holder's), the names of its link (brig's end, brig-eN) and of the
 * link's other end until it is given away (brig-jN). */
struct brig_egress_slot {
	unsigned n;
	int fd;     /* -1: none held */
	bool scrub; /* its file was there: what a dead owner left may be */
	char link[16], peer[16];
};

/* A free slot taken for job @id (or, with @member, pool member @id): its
 * file says so ("job ID", "member ID"). */
int brig_egress_slot_claim(struct brig_egress_slot *s, const char *id, bool member,
                           struct brig_error *err);
/* Slot @slot locked for a claim of pool member @id: its file must say it
 * is @id's and, with @alive, its link must be there, its other end given
 * away (the member's). */
int brig_egress_slot_lock_member(struct brig_egress_slot *s, unsigned slot, const char *id,
                                 bool alive, struct brig_error *err);
/* What a dead owner of slot @slot left in this network namespace (its
 * link, the link's other end): gone.  Its chains stay for the slot's next
 * job, which empties them, or go with the tables. */
int brig_egress_slot_scrub(unsigned slot, struct brig_error *err);
/* The slot let go: its file unlinked (while still locked: whoever opened
 * it meanwhile sees so); if it was the last, the tables and the
 * directories with it. */
void brig_egress_slot_release(struct brig_egress_slot *s);
/* The end of a job's slot: its link removed, then the slot let go, by a
 * child of brig's that brig does not wait for (egress_slot.c); by brig
 * if no child can be made.  What cannot be removed is left to the slot's
 * next owner or to gc. */
int brig_egress_slot_end(struct brig_egress_slot *s, struct brig_error *err);
/* ---------------------------------------------------------- egress_dns.c */

/* What the resolver tells its owner: an address the job may now reach on
 * @port (0: any) for @ttl seconds (the caller applies its floor and cap).
 * A negative return refuses the answer (the job gets SERVFAIL). */
struct brig_egress_dns_sink {
	int (*allow4)(void *data, const uint8_t addr[4], uint16_t port, uint32_t ttl);
	int (*allow6)(void *data, const uint8_t addr[16], uint16_t port, uint32_t ttl);
	/* a query refused for its name (escaped: printable bytes only); NULL:
	 * none told */
	void (*denied)(void *data, const char *name);
	void *data;
};

/* The first names the resolver refused, kept for the result. */
#define BRIG_EGRESS_NAMES_KEPT 32

struct brig_egress_dns_stats {
	uint64_t allowed; /* queries answered from upstream */
	uint64_t denied;  /* queries refused: a name no rule matches, a type not served */
	/* the names no rule matches (a type refused is counted, not named):
	 * distinct, in order, lowercase, escaped as c-ares does ("\.", "\DDD";
	 * no byte outside 0x20-0x7e) (heap) */
	char *denied_names[BRIG_EGRESS_NAMES_KEPT];
	size_t n_denied_names;
};

struct brig_egress_dns;

/*
 * A resolver for the job: @listen is a UDP socket bound where the job's
 * resolv.conf points (brig's end of the link, port 53), @upstreams the
 * host's resolvers (port 53 when the address has none), 1 to 3.
 * @listen, @rules and @sink are borrowed for the resolver's life (the
 * caller closes @listen after brig_egress_dns_free); @sink->allow4 is
 * required, @sink->allow6 NULL answers AAAA with no address.  The socket
 * to the upstreams is made here, in the calling thread's network
 * namespace: brig's.  With @listen -1 and no upstreams, a resolver for the
 * packet logic alone (below: the fuzzer's and the unit tests').  Fails
 * when c-ares (BRIG_CARES_SONAME) cannot be loaded.
 */
struct brig_egress_dns *brig_egress_dns_new(int listen, const struct sockaddr_storage *upstreams,
                                            size_t n_upstreams,
                                            const struct brig_egress_rules *rules,
                                            const struct brig_egress_dns_sink *sink,
                                            struct brig_error *err);
/* The host's resolvers, from /etc/resolv.conf's nameserver lines (at
 * most 3; 127.0.0.53 and other loopback ones are kept: brig runs on the
 * host).  0 of them is an error. */
int brig_egress_dns_upstreams(const char *resolv_conf, struct sockaddr_storage *out, size_t max,
                              size_t *n, struct brig_error *err);
/* The fds to poll for input (the job's side, the upstream side): 2. */
void brig_egress_dns_fds(const struct brig_egress_dns *d, int fds[2]);
/* Whatever can be read on either fd now, handled (at most 256 packets of
 * each at a time: call it again while poll says so); nothing blocks.  Also
 * resends a query pending upstream for 2 s to the next upstream, and drops
 * one pending for 5 s: call it at least every second or so even when
 * nothing is read. */
void brig_egress_dns_service(struct brig_egress_dns *d);
const struct brig_egress_dns_stats *brig_egress_dns_stats(const struct brig_egress_dns *d);
void brig_egress_dns_free(struct brig_egress_dns *d);

/*
 * The packet logic, without sockets (what the fuzzer drives):
 *
 * A query from the job, @q of @qlen bytes: 1 when it goes upstream
 * (@out: the query to send, its id replaced by @new_id; *@out_len), 0
 * when the job gets @out as its answer now (REFUSED, NXDOMAIN, NODATA,
 * FORMERR), -1 when it is dropped unanswered (not a query at all).
 *
 * An answer from upstream, @a of @alen bytes, to the query @q (the
 * job's, as it sent it): 0 with @out the answer for the job (the job's
 * id, the addresses it holds given to the sink first), -1 when it is
 * dropped (not an answer to @q).
 *
 * @out has room for @out_size bytes (at least 512).
 */
int brig_egress_dns_on_query(struct brig_egress_dns *d, const uint8_t *q, size_t qlen,
                             uint16_t new_id, uint8_t *out, size_t out_size, size_t *out_len);
int brig_egress_dns_on_answer(struct brig_egress_dns *d, const uint8_t *q, size_t qlen,
                              const uint8_t *a, size_t alen, uint8_t *out, size_t out_size,
                              size_t *out_len);

/* ---------------------------------------------------------- egress_nft.c */

/* The destinations of dropped packets the result lists, at most. */
#define BRIG_EGRESS_ADDRS_KEPT 32

struct brig_egress_nft;

/* A libnftables context (the library loaded, and the context made, by
 * its first command). */
void brig_egress_nft_open(struct brig_egress_nft **out);
void brig_egress_nft_free(struct brig_egress_nft *n);

/* What a slot's chains are made from. */
struct brig_egress_table {
	unsigned slot;
	const char *link;                      /* brig's end of the job's link */
	uint8_t host[4];                       /* its address: the job's resolver */
	uint8_t job[4];                        /* the job's address */
	uint8_t job6[16];                      /* its IPv6 address (the link's) */
	const struct brig_egress_rules *rules; /* its CIDR rules; NULL: none */
};

/* The slot's chains, sets and counters, made anew (whatever of them a
 * dead job of the slot left goes), with no CIDR rule; with @make_tables,
 * the tables first, in the same transaction, which then fails if they
 * are there. */
int brig_egress_nft_slot(struct brig_egress_nft *n, const struct brig_egress_table *t,
                         bool make_tables, struct brig_error *err);
/* The job's CIDR rules, into the slot's chain for them (emptied first:
 * brig_egress_learn_ready). */
int brig_egress_nft_cidr(struct brig_egress_nft *n, const struct brig_egress_table *t,
                         struct brig_error *err);
struct brig_egress_figures {
	uint64_t allowed;                               /* new flows let through */
	uint64_t dropped;                               /* packets dropped */
	char *denied_addresses[BRIG_EGRESS_ADDRS_KEPT]; /* heap */
	size_t n_denied_addresses;
};

/* ---------------------------------------------------------- egress_learn.c */

struct brig_egress_learn;

/* A netfilter socket for the learned sets (libnftnl loaded on first use). */
int brig_egress_learn_open(struct brig_egress_learn **out, struct brig_error *err);
void brig_egress_learn_free(struct brig_egress_learn *l);
/* Slot @slot's chains readied for a new job: its learned and denied sets
 * and its CIDR rules emptied, its counters zeroed.  1 when the tables or
 * the slot's chains are not there (brig_egress_nft_slot makes them). */
int brig_egress_learn_ready(struct brig_egress_learn *l, unsigned slot, struct brig_error *err);
/* Whether slot @slot's chains are there (1) or not (0, the tables
 * perhaps not either), by a get of one of its counters. */
int brig_egress_learn_slot_made(struct brig_egress_learn *l, unsigned slot, struct brig_error *err);
/* Whether the tables are there: 1 or 0. */
int brig_egress_learn_tables_exist(struct brig_egress_learn *l, struct brig_error *err);
/* The tables gone, with every slot's chains; none there is no error. */
int brig_egress_learn_drop_tables(struct brig_egress_learn *l, struct brig_error *err);
/* The IPv4 address @addr (IPv6 is not routed) allowed on @port (0: any)
 * for @ttl seconds in slot @slot's sets; with @replace the element is
 * there already and its timeout is renewed (deleted and added in one
 * transaction). */
int brig_egress_learn(struct brig_egress_learn *l, unsigned slot, const uint8_t addr[4],
                      uint16_t port, uint32_t ttl, bool replace, struct brig_error *err);
/* Slot @slot's figures, asked of its own counters and sets alone. */
int brig_egress_learn_figures(struct brig_egress_learn *l, unsigned slot,
                              struct brig_egress_figures *f, struct brig_error *err);

/* ---------------------------------------------------------- egress.c */

struct brig_egress;
struct brig_result_egress;

/*
 * The egress of job @id up to its link: the rules of @allow parsed, a
 * slot taken (its file says @id; @member: a pool's, whose resolver waits
 * for a claim), and its chains, if they are not there, being made by a
 * child (brig_egress_give waits for it).  Called first, so that the child
 * has time.  *@out is set even on failure: close it.
 */
int brig_egress_open(struct brig_egress **out, const char *id, bool member,
                     const char *const *allow, size_t n_allow, struct brig_error *err);
/* The job's resolv.conf written in its directory (@dirfd, @dir); a pool
 * member's slot recorded there too (the file "egress"). */
int brig_egress_record(struct brig_egress *e, int dirfd, const char *dir, struct brig_error *err);
/*
 * A claim of pool member @id (its directory @dir) made with --network
 * egress: the member's slot (its record in @dir, the slot's file saying
 * it is @id's, its link there), its network namespace held (its init's,
 * @pidfd/@pid), the member's chains emptied and given the CIDR rules of
 * @allow, and the resolver at brig's end.  *@out is set even
 * on failure: close it.
 */
int brig_egress_claim(struct brig_egress **out, const char *id, const char *dir, int pidfd,
                      pid_t pid, const char *const *allow, size_t n_allow, struct brig_error *err);
/* Pool member @id (its directory @dir) is gone: its link, its slot, if
 * the slot is still its own. */
void brig_egress_member_gone(const char *id, const char *dir);
/* The host path of the job's resolv.conf (bound over /etc/resolv.conf). */
const char *brig_egress_resolv_conf(const struct brig_egress *e);
/* The job's network namespace is there (its init's, @pidfd/@pid): the
 * slot's chains readied, then the veth pair, brig's end addressed and
 * up, the other in it as eth0, addressed, up, with its route; then (not
 * a member's) the resolver.  Called while the init sets itself up
 * (lifecycle/container.h: netns_ready), which none of this waits for. */
int brig_egress_give(struct brig_egress *e, int pidfd, pid_t pid, struct brig_error *err);
/* The resolver's fds to poll (-1: none), and its work when one is readable. */
void brig_egress_fds(const struct brig_egress *e, int fds[2]);
void brig_egress_service(struct brig_egress *e);
/* The result's egress figures; its strings live as long as @e.  With an
 * audit (brig_egress_audit), a line each for the denied addresses kept. */
int brig_egress_result(struct brig_egress *e, struct brig_result_egress *r, struct brig_error *err);
/* --audit (job/audit.c): a line for each name the resolver refuses, as it
 * does, and for each denied address kept, at the end. */
struct brig_job_audit;
void brig_egress_audit(struct brig_egress *e, struct brig_job_audit *audit);
/* Everything of the job's egress gone (NULL: nothing): the resolver now,
 * the link by a child of brig's that holds the slot until it is (brig
 * does not wait for it: call this last, once brig's mounts are gone),
 * the slot's chains left for its next job (the last slot takes the tables
 * with it); what could not be removed is left to the slot's next owner or
 * to gc. */
int brig_egress_close(struct brig_egress *e, struct brig_error *err);
/* What dead brigs' jobs left of their egress in this network namespace;
 * with @wait, once the slots being ended now are (brig_egress_close), or
 * a second has gone by, rather than leaving them be. */
int brig_egress_gc(bool wait, struct brig_error *err);

#endif
