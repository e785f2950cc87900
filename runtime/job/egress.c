/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A job's egress across its life (egress.h):
 *
 *   open     a slot (its addresses, its link's and table's names), the
 *            table, the veth pair, brig's end addressed and up, the
 *            resolver's socket on it, the job's resolv.conf
 *   give     once the job's network namespace exists (before its process
 *            runs): the other end in it as eth0, addressed, up, routed
 *   service  the resolver, from the runner's watch
 *   figures  the table's counters and sets, the resolver's, the link's bytes
 *   close    the link, the table, the slot: in a child of brig's that
 *            holds the slot until they are gone (end_in_background)
 *
 * A slot n is taken while its file /run/brig-egress/net-<ns>/<n> is
 * flock()ed (by the brig that sets it up, or runs its job, or by the
 * child that removes what the job had), or while its link brig-e<n> is
 * in brig's network namespace with its other end given away (a job's or
 * a pool member's namespace holds it; it goes when that namespace does).
 * Whoever locks a slot that is not taken so removes what a dead owner
 * left of it (its table, a link never given away): the next brig that
 * takes it, or brig job --gc.  The directory is one for
 * every state root, and one for each network namespace (<ns>: the inode
 * of brig's), as links and tables are: a brig in another namespace would
 * see a member's link nowhere and take its slot for a dead one's.
 */
#include "config.h"
#include "job/egress.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <linux/netlink.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

#define SLOT_DIR "/run/brig-egress"
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
	unsigned slot;
	int slot_fd; /* locked while the slot is ours */
	char link[16], peer[16];
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
	int netns; /* the job's, held so that its link outlives the job until close */
	bool table, linked;
	bool scrub;  /* the slot's file was there: what a dead owner left may be */
	bool member; /* a pool member's: no resolver until a claim */
	struct brig_egress_figures figures; /* the result's, read at the end */
	char *resolv_conf;                  /* heap: the job's resolv.conf, in its directory */
	struct learned *learned;
	size_t n_learned;
	char *error;                  /* the first failure to allow an address, for the log */
	struct brig_job_audit *audit; /* --audit, or NULL */
};

static void slot_names(unsigned slot, char link[16], char peer[16])
{
	snprintf(link, 16, "brig-e%u", slot);
	snprintf(peer, 16, "brig-j%u", slot);
}

/* Whether @slot's link is in use: here, with its other end given away. */
static bool slot_in_use(unsigned slot)
{
	char link[16], peer[16];

	slot_names(slot, link, peer);
	return brig_link_exists(link) && !brig_link_exists(peer);
}

/* What a dead owner of @slot left in this network namespace: gone. */
static int scrub_slot(struct brig_egress_nft *nft, unsigned slot, struct brig_error *err)
{
	char link[16], peer[16];

	slot_names(slot, link, peer);
	if (brig_link_delete(peer, err) < 0 || brig_link_delete(link, err) < 0)
		return -1;
	return brig_egress_nft_remove(nft, slot, err);
}

/* Whether @fd is still the file named @name in @dirfd (not unlinked by
 * an owner that let go, or by gc, since it was opened). */
static bool still_named(int dirfd, const char *name, int fd)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && fstatat(dirfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The slots' directory of brig's network namespace (see above). */
static const char *slot_dir(void)
{
	static char dir[64];
	struct stat st;

	if (!dir[0])
		snprintf(dir, sizeof(dir), SLOT_DIR "/net-%llu",
		         stat("/proc/self/ns/net", &st) == 0 ? (unsigned long long)st.st_ino
		                                             : 0ULL);
	return dir;
}

static int open_slot_dir(bool make, struct brig_error *err)
{
	int fd;

	if (make && ((mkdir(SLOT_DIR, 0700) < 0 && errno != EEXIST) ||
	             (mkdir(slot_dir(), 0700) < 0 && errno != EEXIST)))
		return brig_error_setp(err, errno, "mkdir \"%s\"", slot_dir());
	fd = open(slot_dir(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return brig_error_setp(err, errno, "open \"%s\"", slot_dir());
	return fd;
}

/* What a slot's file says of its owner: "job ID" (a brig holds the lock
 * while the job lives), "member ID" (its link holds the slot) or "end"
 * (a child of brig's removes what a job had: end_in_background). */
#define OWNER_JOB "job "
#define OWNER_MEMBER "member "
#define OWNER_END "end"

static int claim_slot(struct brig_egress *e, const char *id, bool member, struct brig_error *err)
{
	_cleanup_free_ char *owner = brig_xasprintf("%s%s", member ? OWNER_MEMBER : OWNER_JOB, id);
	_cleanup_close_ int dirfd = open_slot_dir(true, err);
	uint32_t start = 0;

	if (dirfd < 0)
		return -1;
	if (getrandom(&start, sizeof(start), 0) != sizeof(start))
		start = (uint32_t)getpid();
	for (unsigned i = 0; i < BRIG_EGRESS_SLOTS; i++) {
		unsigned n = (start + i) % BRIG_EGRESS_SLOTS;
		char name[16];
		int fd;

		snprintf(name, sizeof(name), "%u", n);
		/* a file made now: the slot's last owner let it go clean */
		fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		e->scrub = fd < 0;
		if (fd < 0 && errno == EEXIST)
			fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return brig_error_setp(err, errno, "open \"%s/%s\"", slot_dir(), name);
		if (flock(fd, LOCK_EX | LOCK_NB) < 0 || !still_named(dirfd, name, fd) ||
		    (e->scrub && slot_in_use(n))) {
			close(fd);
			continue;
		}
		e->slot = n;
		e->slot_fd = fd;
		/* whose it is: a claim of a pool's member checks it */
		if (ftruncate(fd, 0) < 0 || pwrite(fd, owner, strlen(owner), 0) < 0)
			return brig_error_setp(err, errno, "write \"%s/%s\"", slot_dir(), name);
		return 0;
	}
	return brig_error_set(err, "no free egress slot: %u jobs have one", BRIG_EGRESS_SLOTS);
}

static void release_slot(struct brig_egress *e)
{
	_cleanup_close_ int dirfd = -1;
	char name[16];

	if (e->slot_fd < 0)
		return;
	snprintf(name, sizeof(name), "%u", e->slot);
	/* unlinked while still locked: whoever opened it meanwhile sees so */
	dirfd = open(slot_dir(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd >= 0 && still_named(dirfd, name, e->slot_fd))
		unlinkat(dirfd, name, 0);
	close(e->slot_fd);
	e->slot_fd = -1;
}

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
	r = brig_egress_learn(e->learner, e->slot, addr, port, ttl, replace, &err);
	if (r < 0 && l && l->until_ms <= now + 2000) {
		brig_error_release(&err);
		r = brig_egress_learn(e->learner, e->slot, addr, port, ttl, !replace, &err);
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
	if (brig_egress_learn_open(&e->learner, err) < 0 || listen_on(e, err) < 0)
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
	uint32_t base = (BRIG_EGRESS_NET_A << 24) | (BRIG_EGRESS_NET_B << 16) | (e->slot * 4);

	slot_names(e->slot, e->link, e->peer);
	for (int i = 0; i < 4; i++) {
		e->host[i] = (uint8_t)((base + 1) >> (24 - 8 * i));
		e->job[i] = (uint8_t)((base + 2) >> (24 - 8 * i));
	}
	/* the same slot's /126 of LINK6 */
	memcpy(e->v6.host, LINK6, 16);
	memcpy(e->v6.inside, e->v6.host, 16);
	for (int i = 0; i < 4; i++) {
		e->v6.host[12 + i] = (uint8_t)((e->slot * 4 + 1) >> (24 - 8 * i));
		e->v6.inside[12 + i] = (uint8_t)((e->slot * 4 + 2) >> (24 - 8 * i));
	}
	e->v6.prefix = 126;
}

static int make_table(struct brig_egress *e, struct brig_error *err)
{
	struct brig_egress_table t = { .slot = e->slot, .link = e->link, .rules = &e->rules };

	memcpy(t.host, e->host, 4);
	memcpy(t.job, e->job, 4);
	memcpy(t.job6, e->v6.inside, 16);
	e->table = true;
	return brig_egress_nft_table(e->nft, &t, err);
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

	e->slot_fd = e->listen = e->netns = -1;
	e->sink =
	    (struct brig_egress_dns_sink){ .allow4 = allow4, .denied = name_denied, .data = e };
	if (brig_egress_rules_parse(allow, n_allow, &e->rules, err) < 0)
		brig_error_wrap(err, "--allow");
	else if (brig_egress_dns_upstreams("/etc/resolv.conf", e->up, 3, &e->n_up, err) < 0)
		brig_error_wrap(err, "the host's resolvers");
	return e;
}

int brig_egress_open(struct brig_egress **out, const char *id, bool member,
                     const char *const *allow, size_t n_allow, int dirfd, const char *dir,
                     struct brig_error *err)
{
	struct brig_egress *e = *out = egress_new(allow, n_allow, err);

	if (brig_error_is_set(err))
		return -1;
	if (brig_egress_nft_open(&e->nft, err) < 0 || claim_slot(e, id, member, err) < 0)
		return -1;
	if (brig_fault("egress.slot") < 0)
		return brig_error_setp(err, errno, "egress slot %u", e->slot);
	e->member = member;
	slot_addresses(e);
	if (e->scrub && scrub_slot(e->nft, e->slot, err) < 0)
		return brig_error_wrap(err, "egress slot %u", e->slot);
	/* the table first: the link is never without it */
	if (make_table(e, err) < 0 || forwarding(err) < 0)
		return -1;
	if (brig_fault("egress.table") < 0)
		return brig_error_setp(err, errno, "egress table %u", e->slot);
	/* the slot, for a claim of the member */
	if (member) {
		char text[16];

		snprintf(text, sizeof(text), "%u\n", e->slot);
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

/* Lock the slot of member @id: its file must say it is @id's and, with
 * @alive, its link must be there, its other end given away (the member's). */
static int lock_member_slot(struct brig_egress *e, const char *id, bool alive,
                            struct brig_error *err)
{
	_cleanup_close_ int dirfd = open_slot_dir(false, err);
	_cleanup_free_ char *want = brig_xasprintf("%s%s", OWNER_MEMBER, id);
	char name[16], owner[256];
	ssize_t n;
	int fd;

	if (dirfd < 0)
		return -1;
	snprintf(name, sizeof(name), "%u", e->slot);
	fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return brig_error_setp(err, errno, "egress slot %u", e->slot);
	e->slot_fd = fd;
	/* gc holds it for a moment at most */
	for (int i = 0; flock(fd, LOCK_EX | LOCK_NB) < 0; i++) {
		if (errno != EWOULDBLOCK || i == 100)
			return brig_error_setp(err, errno, "lock egress slot %u", e->slot);
		usleep(1000);
	}
	n = pread(fd, owner, sizeof(owner) - 1, 0);
	owner[n > 0 ? n : 0] = '\0';
	if (!still_named(dirfd, name, fd) || strcmp(owner, want) ||
	    (alive && !slot_in_use(e->slot)))
		return brig_error_set(err, "egress slot %u is not pool member \"%s\"'s", e->slot,
		                      id);
	return 0;
}

int brig_egress_claim(struct brig_egress **out, const char *id, const char *dir, int pidfd,
                      pid_t pid, const char *const *allow, size_t n_allow, struct brig_error *err)
{
	struct brig_egress *e = *out = egress_new(allow, n_allow, err);

	if (brig_error_is_set(err))
		return -1;
	if (member_slot(dir, &e->slot, err) < 0 || lock_member_slot(e, id, true, err) < 0)
		return -1;
	slot_addresses(e);
	e->linked = true;
	/* its namespace, held: the link's counters outlive the job's end */
	e->netns = brig_netns_of(pidfd, pid, err);
	if (e->netns < 0)
		return -1;
	/* the member's table, replaced whole by the claim's in one go */
	if (brig_egress_nft_open(&e->nft, err) < 0 || make_table(e, err) < 0)
		return -1;
	return resolve(e, err);
}

void brig_egress_member_gone(const char *id, const char *dir)
{
	struct brig_error ignored = BRIG_ERROR_INIT;
	struct brig_egress *e = brig_xcalloc(1, sizeof(*e));

	e->slot_fd = e->listen = e->netns = -1;
	/* a member made without egress has no record; a claimer that removed
	 * the slot's things unlinked its file */
	if (member_slot(dir, &e->slot, &ignored) == 0 &&
	    lock_member_slot(e, id, false, &ignored) == 0 &&
	    brig_egress_nft_open(&e->nft, &ignored) == 0) {
		slot_addresses(e);
		e->linked = e->table = true;
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
	e->netns = brig_netns_of(pidfd, pid, err);
	if (e->netns < 0)
		return -1;
	if (brig_veth_create_in(e->link, e->host, e->netns, "eth0", e->job, 30, &e->v6, err) < 0)
		return brig_error_wrap(err, "the job's link");
	e->linked = true;
	if (brig_fault("egress.link") < 0)
		return brig_error_setp(err, errno, "the job's link");
	if (!e->member)
		return resolve(e, err);
	/* a member's slot is its link's from now on (the init, cloned with
	 * the slot's file open, shares the lock: it is let go for both); its
	 * resolver is its claimer's */
	flock(e->slot_fd, LOCK_UN);
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
	int ret = e->learner ? brig_egress_learn_figures(e->learner, e->slot, f, err)
	                     : brig_error_set(err, "no figures: the job's resolver never ran");

	/* brig's end received what the job sent (the job's namespace, held,
	 * keeps the link) */
	if (brig_link_bytes(e->link, &rx, &tx, ret < 0 ? &ignored : err) < 0)
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

/* What the job had of its slot removed: the link (the job's end with it),
 * then the tables, which nothing reaches once the link is gone; then the
 * slot is let go.  What fails stays in the slot, for its next owner or gc. */
static int end_slot(struct brig_egress *e, struct brig_error *err)
{
	if ((!e->nft && brig_egress_nft_open(&e->nft, err) < 0) ||
	    scrub_slot(e->nft, e->slot, err) < 0) {
		close(e->slot_fd);
		e->slot_fd = -1;
		return -1;
	}
	release_slot(e);
	return 0;
}

/* end_slot() in a child of brig's, which brig does not wait for.  Deleting
 * a link waits for the kernel's RCU grace periods (10 to 50 ms here, most
 * of an egress job's cost when brig waited for it), and nobody needs to:
 * the job's processes are gone, and the slot stays taken while the child
 * holds its lock.  The child keeps nothing of brig's but the slot's file
 * and the netfilter sockets: no fd of the caller's
 * (a pipe brig's caller reads to its end, a file on a mount), not
 * brig's private mount namespace (its mounts go with brig, as ever), not
 * brig's session (a signal to the caller's process group would leave the
 * link to the next gc).  The file says "end", so that gc waits for the
 * child, and takes the slot for a dead job's if the child dies. */
static int end_in_background(struct brig_egress *e, struct brig_error *err)
{
	int mntns = brig_job_host_mntns(), null;
	pid_t pid;

	if (ftruncate(e->slot_fd, 0) < 0 || pwrite(e->slot_fd, OWNER_END, strlen(OWNER_END), 0) < 0)
		return end_slot(e, err);
	pid = fork();
	if (pid < 0)
		return end_slot(e, err);
	if (pid > 0) {
		close(e->slot_fd);
		e->slot_fd = -1;
		return 0;
	}
	setsid();
	for (const int *sig = (const int[]){ SIGINT, SIGTERM, SIGHUP, 0 }; *sig; sig++)
		signal(*sig, SIG_IGN);
	if ((mntns >= 0 && setns(mntns, CLONE_NEWNS) < 0) ||
	    (e->slot_fd != 3 && dup3(e->slot_fd, 3, O_CLOEXEC) < 0))
		_exit(1);
	e->slot_fd = 3;
	/* brig's netfilter sockets (its nftables context's, the learner's)
	 * stay: the release of such a socket waits for the destruction of
	 * the tables deleted meanwhile (a grace period, 10 ms here), which
	 * brig would wait for at its exit if the child's copies were not
	 * the last */
	if (brig_fds_keep_netlink(4, NETLINK_NETFILTER) < 0) {
		/* the parent's context, its socket closed */
		brig_egress_nft_forget();
		e->nft = NULL;
	}
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int fd = 0; fd < 3; fd++)
		if (null < 0 || dup2(null, fd) < 0)
			close(fd);
	if (null > 3)
		close(null);
	brig_fault("egress.end");
	/* The job's namespace, which holds the link's other end, dies now
	 * that nothing holds it (brig's fd is closed): the kernel then
	 * removes the link with the namespace's own, in one go, rather than
	 * in a second round of grace periods under its lock of links, which
	 * the next job's link would wait for.  A socket the job left closing
	 * can hold the namespace for minutes: past a second the link is
	 * deleted. */
	brig_link_wait_gone(e->link, 1000);
	_exit(end_slot(e, err) < 0 ? 1 : 0);
}

int brig_egress_close(struct brig_egress *e, struct brig_error *err)
{
	int r = 0;

	if (!e)
		return 0;
	if (e->dns)
		brig_egress_dns_free(e->dns);
	if (e->listen >= 0)
		close(e->listen);
	/* brig's hold on the job's namespace first: it dies and takes the
	 * link with it (end_in_background).  The link goes before the tables.
	 * Nothing of the job is left to send meanwhile: its processes are
	 * gone (a claimed member's init, brig's own code, only reports), and
	 * a socket it left closing retransmits only within a flow the table
	 * had let through. */
	if (e->netns >= 0)
		close(e->netns);
	if (e->table || e->linked)
		r = end_in_background(e, err);
	else
		release_slot(e);
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

/* Whether the slot's file @fd says its owner is @what (OWNER_*). */
static bool owner_is(int fd, const char *what)
{
	char owner[8] = "";
	size_t n = strlen(what);

	return pread(fd, owner, n, 0) == (ssize_t)n && !memcmp(owner, what, n);
}

/* Whether the slot whose file is @fd (locked by the caller) was a job's,
 * or was being ended: its brig, or the child that ended it, is gone, and
 * its link goes with its job, which dies with it. */
static bool dead_job(int fd)
{
	return owner_is(fd, OWNER_JOB) || owner_is(fd, OWNER_END);
}

/* Lock @fd, a slot's file: at once, or, with @wait and the slot being
 * ended, once its child is done (3 s at most: it waits a second for the
 * link to go, then deletes it). */
static bool lock_slot_file(int fd, bool wait)
{
	for (int i = 0; flock(fd, LOCK_EX | LOCK_NB) < 0; i++) {
		if (errno != EWOULDBLOCK || !wait || i == 3000 || !owner_is(fd, OWNER_END))
			return false;
		usleep(1000);
	}
	return true;
}

int brig_egress_gc(bool wait, struct brig_error *err)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct brig_egress_nft *nft = NULL;
	struct dirent *de;
	int dirfd, r = 0;

	dirfd = open(slot_dir(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd < 0)
		return errno == ENOENT ? 0 : brig_error_setp(err, errno, "open \"%s\"", slot_dir());
	d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return brig_error_setp(err, errno, "open \"%s\"", slot_dir());
	}
	while ((de = readdir(d))) {
		char *end;
		unsigned long n = strtoul(de->d_name, &end, 10);
		int fd;

		if (de->d_name[0] < '0' || de->d_name[0] > '9' || *end || n >= BRIG_EGRESS_SLOTS)
			continue;
		fd = openat(dirfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!lock_slot_file(fd, wait) || !still_named(dirfd, de->d_name, fd) ||
		    (slot_in_use((unsigned)n) && !dead_job(fd))) {
			close(fd);
			continue;
		}
		/* a dead owner's: what it left here (a dead job's link too, which
		 * its dying namespace would take a moment later), then its file */
		if ((!nft && brig_egress_nft_open(&nft, err) < 0) ||
		    scrub_slot(nft, (unsigned)n, err) < 0) {
			close(fd);
			r = -1;
			break;
		}
		unlinkat(dirfd, de->d_name, 0);
		close(fd);
	}
	brig_egress_nft_free(nft);
	return r;
}
