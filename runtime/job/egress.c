/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A job's egress across its life (egress.h):
 *
 *   open     a slot (its addresses, its link's and chains' names); the
 *            slot's chains, if they are not there, made by a child
 *            meanwhile (make_chains_aside)
 *   record   the job's resolv.conf (and a member's slot) in its directory
 *   give     once the job's network namespace exists (before its process
 *            runs): the slot's chains readied (egress_nft.c), then the
 *            veth pair, brig's end addressed and up, the other end in it
 *            as eth0, addressed, up, routed; the resolver's socket on
 *            brig's end
 *   service  the resolver, from the runner's watch
 *   figures  the slot's counters and sets, the resolver's, the link's bytes
 *   close    the link, the slot: in a child of brig's that holds the slot
 *            until the link is gone (egress_slot.c)
 *
 * A slot (egress_slot.c) gives the job its link's name and addresses.
 */
#include "config.h"
#include "job/egress.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "job/internal.h"
#include "lifecycle/result.h"
#include "linux/netdev.h"
#include "linux/process.h"
#include "linux/veth.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/fs.h"
#include "util/jsonw.h"
#include "util/log.h"
#include "util/phases.h"

/* The links' IPv6 addresses: the same slot's /126 at the end of this ULA
 * /96 of brig's, fd62:7269:6700::/96.  IPv6 is not routed: the job has an
 * address and a default route only so that what it sends over IPv6
 * reaches brig's end, to be refused and counted there. */
static const uint8_t LINK6[16] = { 0xfd, 0x62, 0x72, 0x69, 0x67 };
/* A learned address is allowed this long at least and at most, whatever
 * its answer's TTL says. */
#define TTL_FLOOR 30u
#define TTL_CAP 3600u
/* Addresses learned at most: past that the resolver answers SERVFAIL. */
#define LEARNED_MAX 4096

struct learned {
	uint8_t addr[4];
	uint16_t port;
	uint64_t until_ms; /* when the kernel drops it */
};

struct brig_egress {
	struct brig_egress_slot slot;
	uint8_t host[4], job[4];
	struct brig_veth_addr6 v6; /* the link's IPv6 addresses */
	struct brig_egress_rules rules;
	struct brig_egress_nft *nft;
	struct brig_egress_learn *learner;
	struct brig_egress_dns *dns;
	struct brig_egress_dns_sink sink;
	int listen;
	struct sockaddr_storage up[3]; /* the host's resolvers */
	size_t n_up;
	int netns;    /* the job's, held so that its link outlives the job until close */
	pid_t maker;  /* the child that makes the slot's chains, or 0 */
	int maker_fd; /* its socket: its word and its netfilter sockets */
	bool chains, linked;
	bool member;                        /* a pool member's: no resolver until a claim */
	struct brig_egress_figures figures; /* the result's, read at the end */
	char *resolv_conf;                  /* heap: the job's resolv.conf, in its directory */
	struct learned *learned;
	size_t n_learned;
	char *error;                  /* the first failure to allow an address, for the log */
	struct brig_job_audit *audit; /* --audit, or NULL */
};

/* IPv4 forwarding in brig's network namespace, as every router of
 * containers needs it (Podman's netavark, Docker): on, and left on. */
static int forwarding(struct brig_error *err)
{
	static const char path[] = "/proc/sys/net/ipv4/ip_forward";
	char c = 0;
	_cleanup_close_ int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return brig_error_setp(err, errno, "open \"%s\"", path);
	if (pread(fd, &c, 1, 0) == 1 && c == '1')
		return 0;
	if (pwrite(fd, "1", 1, 0) != 1)
		return brig_error_setp(err, errno, "write \"%s\"", path);
	return 0;
}

/* ---------------------------------------------------------- learning */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct learned *find_learned(struct brig_egress *e, const uint8_t addr[4], uint16_t port)
{
	for (size_t i = 0; i < e->n_learned; i++)
		if (e->learned[i].port == port && !memcmp(e->learned[i].addr, addr, 4))
			return &e->learned[i];
	return NULL;
}

/* An answer's IPv4 address allowed (the resolver's allow4: IPv6 is not
 * routed, egress_nft.c). */
static int allow4(void *data, const uint8_t addr[4], uint16_t port, uint32_t ttl)
{
	struct brig_egress *e = data;
	struct brig_error err = BRIG_ERROR_INIT;
	uint64_t now = now_ms(), until;
	struct learned *l = find_learned(e, addr, port);
	bool replace;
	int r;

	ttl = ttl < TTL_FLOOR ? TTL_FLOOR : ttl > TTL_CAP ? TTL_CAP : ttl;
	until = now + (uint64_t)ttl * 1000;
	/* allowed for long enough already */
	if (l && l->until_ms >= until)
		return 0;
	if (!l && e->n_learned >= LEARNED_MAX)
		return -1;
	/* the kernel still has it (a second's margin either way) */
	replace = l && l->until_ms > now + 1000;
	r = brig_egress_learn(e->learner, e->slot.n, addr, port, ttl, replace, &err);
	if (r < 0 && l && l->until_ms <= now + 2000) {
		brig_error_release(&err);
		r = brig_egress_learn(e->learner, e->slot.n, addr, port, ttl, !replace, &err);
	}
	if (r < 0) {
		brig_debug("egress: %s", err.msg);
		if (!e->error)
			e->error = brig_xstrdup(err.msg);
		brig_error_release(&err);
		return -1;
	}
	if (!l) {
		if (!(e->n_learned % 64))
			e->learned = brig_xrealloc(e->learned, (e->n_learned + 64) * sizeof(*l));
		l = &e->learned[e->n_learned++];
		*l = (struct learned){ .port = port };
		memcpy(l->addr, addr, 4);
	}
	l->until_ms = until;
	return 0;
}

/* ---------------------------------------------------------- the life */

static int listen_on(struct brig_egress *e, struct brig_error *err)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(53) };

	memcpy(&sa.sin_addr, e->host, 4);
	e->listen = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (e->listen < 0)
		return brig_error_setp(err, errno, "socket");
	if (bind(e->listen, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return brig_error_setp(err, errno, "bind the job's resolver to \"%s\":53",
		                       inet_ntoa(sa.sin_addr));
	return 0;
}

/* The resolver at brig's end, once it has its address. */
static int resolve(struct brig_egress *e, struct brig_error *err)
{
	if (listen_on(e, err) < 0)
		return -1;
	e->dns = brig_egress_dns_new(e->listen, e->up, e->n_up, &e->rules, &e->sink, err);
	return e->dns ? 0 : -1;
}

static int write_resolv_conf(struct brig_egress *e, int dirfd, const char *dir,
                             struct brig_error *err)
{
	char text[64];

	snprintf(text, sizeof(text), "nameserver %u.%u.%u.%u\noptions edns0\n", e->host[0],
	         e->host[1], e->host[2], e->host[3]);
	if (brig_write_file_atomic(dirfd, "resolv.conf", text, strlen(text), 0644, err) < 0)
		return -1;
	e->resolv_conf = brig_xasprintf("%s/resolv.conf", dir);
	return 0;
}

/* The job's addresses and names, from its slot. */
static void slot_addresses(struct brig_egress *e)
{
	uint32_t base = (BRIG_EGRESS_NET_A << 24) | (BRIG_EGRESS_NET_B << 16) | (e->slot.n * 4);

	for (int i = 0; i < 4; i++) {
		e->host[i] = (uint8_t)((base + 1) >> (24 - 8 * i));
		e->job[i] = (uint8_t)((base + 2) >> (24 - 8 * i));
	}
	/* the same slot's /126 of LINK6 */
	memcpy(e->v6.host, LINK6, 16);
	memcpy(e->v6.inside, e->v6.host, 16);
	for (int i = 0; i < 4; i++) {
		e->v6.host[12 + i] = (uint8_t)((e->slot.n * 4 + 1) >> (24 - 8 * i));
		e->v6.inside[12 + i] = (uint8_t)((e->slot.n * 4 + 2) >> (24 - 8 * i));
	}
	e->v6.prefix = 126;
}

/* The slot's chains, sets and counters made (brig_egress_learn_ready
 * found them missing), with the tables if they are not there either.
 * The tables are made in the same transaction as the chains, and that
 * transaction fails whole if another brig made them meanwhile (create
 * table): then only the chains are made.  No lock is needed for it, nor
 * against the last slot let go deleting them: this job's slot is taken,
 * so nobody deletes them now (egress_slot.c). */
static int make_chains(struct brig_egress *e, const struct brig_egress_table *t,
                       struct brig_error *err)
{
	int have = brig_egress_learn_tables_exist(e->learner, err);

	if (have < 0)
		return -1;
	if (have == 0 && brig_fault("egress.make-tables") < 0)
		return brig_error_setp(err, errno, "egress tables");
	if (brig_egress_nft_slot(e->nft, t, have == 0, err) == 0)
		return 0;
	if (have || brig_egress_learn_tables_exist(e->learner, err) != 1)
		return -1;
	brig_error_release(err);
	return brig_egress_nft_slot(e->nft, t, false, err);
}

/* The slot's chains made ready for the job: emptied if they are there
 * (the slot's last job left them), else made; then the job's CIDR
 * rules. */
static int ready_chains(struct brig_egress *e, struct brig_error *err)
{
	struct brig_egress_table t = { .slot = e->slot.n,
		                       .link = e->slot.link,
		                       .rules = &e->rules };
	int r;

	memcpy(t.host, e->host, 4);
	memcpy(t.job, e->job, 4);
	memcpy(t.job6, e->v6.inside, 16);
	e->chains = true;
	if (!e->learner && brig_egress_learn_open(&e->learner, err) < 0)
		return -1;
	if (!e->nft)
		brig_egress_nft_open(&e->nft);
	r = brig_egress_learn_ready(e->learner, e->slot.n, err);
	if (r == 1)
		r = make_chains(e, &t, err);
	return r < 0 ? -1 : brig_egress_nft_cidr(e->nft, &t, err);
}

/*
 * A slot's chains that are not there (the first job of the slot since
 * the tables were made, or the tables too: each job more than half a
 * second after the last) take libnftables 4 to 6 ms here: its load, the
 * parse, the kernel's commit.  A child makes them while brig builds the
 * job and clones its init, and brig waits for it before the link
 * (wait_chains).  The child lives a few milliseconds, with brig's memory
 * and fds, and netfilter sockets of its own: it ignores the signals that
 * a terminal sends the caller's group (the tables are made in one
 * transaction, or not at all).  It hands brig its word (its error, if
 * any) and those sockets: the last release of a netfilter socket after a
 * commit waits for the transaction's destruction, an RCU grace period
 * (11 to 14 ms here), which the child's exit would take and brig would
 * wait for.  brig keeps them, as it keeps its own, until the child that
 * ends the slot (egress_slot.c) has them too.  Where the chains are there
 * (one get tells), brig readies them itself, at give.
 */
#define MAKER_FDS 8

static void maker_main(struct brig_egress *e, int sock)
{
	struct brig_error err = BRIG_ERROR_INIT;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * MAKER_FDS)];
	} c = { 0 };
	int fds[MAKER_FDS];
	size_t n;
	const char *word = "+";
	bool ok;
	struct iovec iov;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	for (const int *sig = (const int[]){ SIGINT, SIGTERM, SIGHUP, SIGPIPE, 0 }; *sig; sig++)
		signal(*sig, SIG_IGN);
	/* (brig's own, left as they are) */
	e->learner = NULL;
	e->nft = NULL;
	ok = ready_chains(e, &err) == 0;
	if (!ok)
		word = err.msg;
	iov = (struct iovec){ .iov_base = (void *)word, .iov_len = strlen(word) };
	n = brig_fds_netlink(NETLINK_NETFILTER, fds, MAKER_FDS);
	if (n) {
		msg.msg_control = c.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		c.h.cmsg_level = SOL_SOCKET;
		c.h.cmsg_type = SCM_RIGHTS;
		c.h.cmsg_len = CMSG_LEN(sizeof(int) * n);
		memcpy(CMSG_DATA(&c.h), fds, sizeof(int) * n);
	}
	_exit(sendmsg(sock, &msg, MSG_NOSIGNAL) < 0 || !ok);
}

static int make_chains_aside(struct brig_egress *e, struct brig_error *err)
{
	int made, sp[2];

	if (brig_egress_learn_open(&e->learner, err) < 0)
		return -1;
	made = brig_egress_learn_slot_made(e->learner, e->slot.n, err);
	if (made != 0)
		return made < 0 ? -1 : 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
		return brig_error_setp(err, errno, "socketpair");
	e->maker = fork();
	if (e->maker < 0) {
		close(sp[0]);
		close(sp[1]);
		e->maker = 0;
		return brig_error_setp(err, errno, "fork");
	}
	if (e->maker == 0) {
		close(sp[0]);
		maker_main(e, sp[1]);
	}
	close(sp[1]);
	e->maker_fd = sp[0];
	return 0;
}

/* The maker's word and sockets (make_chains_aside): 0, or its error. */
static int wait_chains(struct brig_egress *e, struct brig_error *err)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * MAKER_FDS)];
	} c;
	char word[512];
	struct iovec iov = { .iov_base = word, .iov_len = sizeof(word) - 1 };
	struct msghdr msg = { .msg_iov = &iov,
		              .msg_iovlen = 1,
		              .msg_control = c.buf,
		              .msg_controllen = sizeof(c.buf) };
	ssize_t n;
	int status = 0;

	while ((n = recvmsg(e->maker_fd, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	word[n > 0 ? n : 0] = '\0';
	/* its sockets are brig's now, never closed (see above) */
	close(e->maker_fd);
	e->maker_fd = -1;
	while (waitpid(e->maker, &status, 0) < 0 && errno == EINTR)
		;
	e->maker = 0;
	/* the chains are the slot's now, whatever the child got to */
	e->chains = true;
	if (n > 0 && !strcmp(word, "+") && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (n > 0 && strcmp(word, "+"))
		return brig_error_set(err, "%s", word);
	return brig_error_set(err, "the child that makes the job's chains: %s",
	                      WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "failed");
}

/* A line of --audit for a denial: @what ("name", "address") @text. */
static void audit_denied(struct brig_egress *e, const char *what, const char *text)
{
	struct brig_jsonw w;

	if (!brig_job_audit_begin(e->audit, &w))
		return;
	brig_jsonw_kv_string(&w, "egress", what);
	brig_jsonw_kv_string(&w, what, text);
	brig_job_audit_end(e->audit, &w);
}

static void name_denied(void *data, const char *name)
{
	audit_denied(data, "name", name);
}

void brig_egress_audit(struct brig_egress *e, struct brig_job_audit *audit)
{
	if (e)
		e->audit = audit;
}

/* What both a job's egress and a claim's start from. */
static struct brig_egress *egress_new(const char *const *allow, size_t n_allow,
                                      struct brig_error *err)
{
	struct brig_egress *e = brig_xcalloc(1, sizeof(*e));

	e->slot.fd = e->listen = e->netns = e->maker_fd = -1;
	e->sink =
	    (struct brig_egress_dns_sink){ .allow4 = allow4, .denied = name_denied, .data = e };
	if (brig_egress_rules_parse(allow, n_allow, &e->rules, err) < 0)
		brig_error_wrap(err, "--allow");
	else if (brig_egress_dns_upstreams("/etc/resolv.conf", e->up, 3, &e->n_up, err) < 0)
		brig_error_wrap(err, "the host's resolvers");
	return e;
}

int brig_egress_open(struct brig_egress **out, const char *id, bool member,
                     const char *const *allow, size_t n_allow, struct brig_error *err)
{
	struct brig_egress *e = *out = egress_new(allow, n_allow, err);

	if (brig_error_is_set(err))
		return -1;
	brig_phase("before egress");
	if (brig_egress_slot_claim(&e->slot, id, member, err) < 0)
		return -1;
	brig_phase("egress: slot");
	if (brig_fault("egress.slot") < 0)
		return brig_error_setp(err, errno, "egress slot %u", e->slot.n);
	e->member = member;
	slot_addresses(e);
	if (e->slot.scrub && brig_egress_slot_scrub(e->slot.n, err) < 0)
		return brig_error_wrap(err, "egress slot %u", e->slot.n);
	return make_chains_aside(e, err);
}

int brig_egress_record(struct brig_egress *e, int dirfd, const char *dir, struct brig_error *err)
{
	/* the slot, for a claim of the member */
	if (e->member) {
		char text[16];

		snprintf(text, sizeof(text), "%u\n", e->slot.n);
		if (brig_write_file_atomic(dirfd, "egress", text, strlen(text), 0600, err) < 0)
			return -1;
	}
	return write_resolv_conf(e, dirfd, dir, err);
}

/* The slot of the member whose directory is @dir, from its record. */
static int member_slot(const char *dir, unsigned *slot, struct brig_error *err)
{
	_cleanup_free_ char *path = brig_xasprintf("%s/egress", dir);
	char text[16] = "", *end;
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
	unsigned long v;

	if (n <= 0)
		return brig_error_setp(err, n < 0 ? errno : EINVAL, "the pool member's \"%s\"",
		                       path);
	v = strtoul(text, &end, 10);
	if (text[0] < '0' || text[0] > '9' || *end != '\n' || v >= BRIG_EGRESS_SLOTS)
		return brig_error_set(err, "the pool member's \"%s\": not a slot", path);
	*slot = (unsigned)v;
	return 0;
}

int brig_egress_claim(struct brig_egress **out, const char *id, const char *dir, int pidfd,
                      pid_t pid, const char *const *allow, size_t n_allow, struct brig_error *err)
{
	struct brig_egress *e = *out = egress_new(allow, n_allow, err);
	unsigned slot;

	if (brig_error_is_set(err))
		return -1;
	if (member_slot(dir, &slot, err) < 0 ||
	    brig_egress_slot_lock_member(&e->slot, slot, id, true, err) < 0)
		return -1;
	slot_addresses(e);
	e->linked = true;
	/* its namespace, held: the link's counters outlive the job's end */
	e->netns = brig_netns_of(pidfd, pid, err);
	if (e->netns < 0)
		return -1;
	/* the member's chains, emptied and given the claim's CIDR rules */
	if (ready_chains(e, err) < 0)
		return -1;
	return resolve(e, err);
}

void brig_egress_member_gone(const char *id, const char *dir)
{
	struct brig_error ignored = BRIG_ERROR_INIT;
	struct brig_egress *e = brig_xcalloc(1, sizeof(*e));
	unsigned slot;

	e->slot.fd = e->listen = e->netns = e->maker_fd = -1;
	/* a member made without egress has no record; a claimer that removed
	 * the slot's things unlinked its file */
	if (member_slot(dir, &slot, &ignored) == 0 &&
	    brig_egress_slot_lock_member(&e->slot, slot, id, false, &ignored) == 0) {
		slot_addresses(e);
		e->linked = e->chains = true;
	}
	brig_error_release(&ignored);
	if (brig_egress_close(e, &ignored) < 0)
		brig_debug("pool member \"%s\": egress: %s", id, ignored.msg);
	brig_error_release(&ignored);
}

const char *brig_egress_resolv_conf(const struct brig_egress *e)
{
	return e->resolv_conf;
}

int brig_egress_give(struct brig_egress *e, int pidfd, pid_t pid, struct brig_error *err)
{
	/* the slot's chains first: the link is never without them */
	if ((e->maker ? wait_chains(e, err) : ready_chains(e, err)) < 0 || forwarding(err) < 0)
		return -1;
	brig_phase("egress: chains");
	if (brig_fault("egress.table") < 0)
		return brig_error_setp(err, errno, "egress table %u", e->slot.n);
	e->netns = brig_netns_of(pidfd, pid, err);
	if (e->netns < 0)
		return -1;
	brig_phase("egress: netns");
	if (brig_veth_create_in(e->slot.link, e->host, e->netns, "eth0", e->job, 30, &e->v6, err) <
	    0)
		return brig_error_wrap(err, "the job's link");
	e->linked = true;
	brig_phase("egress: link");
	if (brig_fault("egress.link") < 0)
		return brig_error_setp(err, errno, "the job's link");
	if (!e->member) {
		int r = resolve(e, err);

		brig_phase("egress: resolver");
		return r;
	}
	/* a member's slot is its link's from now on (the init, cloned with
	 * the slot's file open, shares the lock: it is let go for both); its
	 * resolver is its claimer's */
	flock(e->slot.fd, LOCK_UN);
	return 0;
}

void brig_egress_fds(const struct brig_egress *e, int fds[2])
{
	if (e && e->dns) {
		brig_egress_dns_fds(e->dns, fds);
		return;
	}
	fds[0] = fds[1] = -1;
}

void brig_egress_service(struct brig_egress *e)
{
	if (e && e->dns)
		brig_egress_dns_service(e->dns);
}

int brig_egress_result(struct brig_egress *e, struct brig_result_egress *r, struct brig_error *err)
{
	static const struct brig_egress_dns_stats none;
	struct brig_error ignored = BRIG_ERROR_INIT;
	const struct brig_egress_dns_stats *s = e->dns ? brig_egress_dns_stats(e->dns) : &none;
	struct brig_egress_figures *f = &e->figures;
	uint64_t rx = 0, tx = 0;
	int ret = e->learner ? brig_egress_learn_figures(e->learner, e->slot.n, f, err)
	                     : brig_error_set(err, "no figures: the job's resolver never ran");

	/* brig's end received what the job sent (the job's namespace, held,
	 * keeps the link) */
	if (brig_link_bytes(e->slot.link, &rx, &tx, ret < 0 ? &ignored : err) < 0)
		ret = -1;
	brig_error_release(&ignored);
	*r = (struct brig_result_egress){
		.allowed = f->allowed + s->allowed,
		.denied = f->dropped + s->denied,
		.bytes_out = rx,
		.bytes_in = tx,
		.denied_names = (const char *const *)s->denied_names,
		.n_denied_names = s->n_denied_names,
		.denied_addresses = (const char *const *)f->denied_addresses,
		.n_denied_addresses = f->n_denied_addresses,
	};
	for (size_t i = 0; i < f->n_denied_addresses; i++)
		audit_denied(e, "address", f->denied_addresses[i]);
	return ret;
}

int brig_egress_close(struct brig_egress *e, struct brig_error *err)
{
	int r = 0;

	if (!e)
		return 0;
	/* (a job that failed before its link: what the child made is the
	 * slot's, for its next job or the last slot's end) */
	if (e->maker) {
		struct brig_error ignored = BRIG_ERROR_INIT;

		wait_chains(e, &ignored);
		brig_error_release(&ignored);
	}
	if (e->dns)
		brig_egress_dns_free(e->dns);
	if (e->listen >= 0)
		close(e->listen);
	/* brig's hold on the job's namespace first: it dies and takes the
	 * link with it (brig_egress_slot_end).  The slot's chains stay, for
	 * its next job, and filter the link as long as it is there.
	 * Nothing of the job is left to send meanwhile: its processes are
	 * gone (a claimed member's init, brig's own code, only reports), and
	 * a socket it left closing retransmits only within a flow the chains
	 * had let through. */
	if (e->netns >= 0)
		close(e->netns);
	if (e->chains || e->linked)
		r = brig_egress_slot_end(&e->slot, err);
	else
		brig_egress_slot_release(&e->slot);
	brig_egress_nft_free(e->nft);
	brig_egress_learn_free(e->learner);
	brig_egress_rules_release(&e->rules);
	for (size_t i = 0; i < e->figures.n_denied_addresses; i++)
		free(e->figures.denied_addresses[i]);
	free(e->resolv_conf);
	free(e->learned);
	free(e->error);
	free(e);
	return r;
}
