/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The egress slots (egress.h): a job's link, tables and addresses are its
 * slot's.  A slot n is taken while its file /run/brig-egress/net-<ns>/<n>
 * is flock()ed (by the brig that sets it up, or runs its job, or by the
 * child that ends what the job had), or while its link brig-e<n> is in
 * brig's network namespace with its other end given away (a job's or a
 * pool member's namespace holds it; it goes when that namespace does).
 * Whoever locks a slot that is not taken so removes what a dead owner
 * left of it (a link never given away): the next brig that takes it, or
 * brig job --gc.  The directory is one for every state root, and one for
 * each network namespace (<ns>: the inode of brig's), as links and tables
 * are: a brig in another namespace would see a member's link nowhere and
 * take its slot for a dead one's.
 *
 * The egress tables (egress_nft.c) are there while any slot is: a slot's
 * chains stay in them for its next job.  Whoever lets the last slot go
 * deletes them, then removes the directory (the child that ends a job's
 * slot, after keeping them half a second for a next job: linger()).  The
 * directory's own lock orders that: a taker holds it shared until its
 * slot's file is there, whoever deletes the tables (finding no slot file)
 * holds it alone.  So the tables are never deleted under a job that has a
 * slot.  Making them needs no lock: whoever makes them has a slot, and
 * two that make them at once are ordered by nftables (egress.c).
 */
#include "config.h"
#include "job/egress.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job/internal.h"
#include "linux/process.h"
#include "linux/veth.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/log.h"

#define SLOT_DIR "/run/brig-egress"

/* What a slot's file says of its owner: "job ID" (a brig holds the lock
 * while the job lives), "member ID" (its link holds the slot) or "end"
 * (a child of brig's removes what a job had: brig_egress_slot_end). */
#define OWNER_JOB "job "
#define OWNER_MEMBER "member "
#define OWNER_END "end"

/* Slot @slot's link (brig's end) and peer (the other end, until given). */
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

int brig_egress_slot_scrub(unsigned slot, struct brig_error *err)
{
	char link[16], peer[16];

	slot_names(slot, link, peer);
	if (brig_link_delete(peer, err) < 0 || brig_link_delete(link, err) < 0)
		return -1;
	return 0;
}

/* Whether @fd is still the file named @name in @dirfd (not unlinked by
 * an owner that let go, or by gc, since it was opened; the slots'
 * directory: not removed with the last slot). */
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

/* The slots' directory, made with @make.  Whoever lets the last slot go
 * removes it (last_out): one made a moment ago may be gone again, and is
 * made anew. */
static int open_slot_dir(bool make, struct brig_error *err)
{
	for (int tries = 0;; tries++) {
		int fd;

		if (make && ((mkdir(SLOT_DIR, 0700) < 0 && errno != EEXIST) ||
		             (mkdir(slot_dir(), 0700) < 0 && errno != EEXIST))) {
			if (errno == ENOENT && tries < 10)
				continue;
			return brig_error_setp(err, errno, "mkdir \"%s\"", slot_dir());
		}
		fd = open(slot_dir(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		if (!make || errno != ENOENT || tries >= 10)
			return brig_error_setp(err, errno, "open \"%s\"", slot_dir());
	}
}

/* Lock @fd with @op (flock(2)'s LOCK_SH or LOCK_EX) within @ms
 * milliseconds. */
static bool flock_within(int fd, int op, int ms)
{
	for (int i = 0; flock(fd, op | LOCK_NB) < 0; i++) {
		if (errno != EWOULDBLOCK || i >= ms)
			return false;
		usleep(1000);
	}
	return true;
}

/* The slots' directory, made with @make, locked with @op within 5 s
 * (see above: held for a moment at most). */
static int lock_slot_dir(bool make, int op, struct brig_error *err)
{
	for (int tries = 0; tries < 10; tries++) {
		int fd = open_slot_dir(make, err);

		if (fd < 0)
			return -1;
		if (!flock_within(fd, op, 5000)) {
			brig_error_setp(err, errno == EWOULDBLOCK ? ETIMEDOUT : errno,
			                "lock \"%s\"", slot_dir());
			close(fd);
			return -1;
		}
		if (still_named(AT_FDCWD, slot_dir(), fd))
			return fd;
		close(fd);
	}
	return brig_error_set(err, "\"%s\": removed as often as made", slot_dir());
}

/* Whether the directory @fd holds no slot's file (read through an open
 * file of its own: @fd's offset is not moved). */
static bool no_slot_left(int fd)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	int copy = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (copy < 0 || !(d = fdopendir(copy))) {
		if (copy >= 0)
			close(copy);
		return false;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			return false;
	return true;
}

/* If no slot is left: the tables deleted, then the slots' directory and
 * /run/brig-egress removed (a network namespace's directory would
 * otherwise outlive it).  With @wait, once whoever holds the directory's
 * lock lets it go (5 s at most: a taker, or a child that lingers, below);
 * without, not while anyone holds it.  What cannot be deleted stays for
 * gc. */
static void last_out(bool wait)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_egress_learn *l = NULL;
	_cleanup_close_ int fd = open(slot_dir(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0 && flock_within(fd, LOCK_EX, wait ? 5000 : 0) &&
	    still_named(AT_FDCWD, slot_dir(), fd) && no_slot_left(fd)) {
		if (brig_egress_learn_open(&l, &err) < 0 ||
		    brig_egress_learn_drop_tables(l, &err) < 0)
			brig_debug("egress tables: %s", err.msg);
		else if (rmdir(slot_dir()) == 0)
			rmdir(SLOT_DIR);
	}
	brig_egress_learn_free(l);
	brig_error_release(&err);
}

/* How long the child that let the last slot go keeps the tables for a
 * next job: a caller that runs jobs one after the other finds them there,
 * and its jobs only empty their slot's chains (egress_nft.c). */
#define LINGER_MS 500

/* The tables kept LINGER_MS for a next job, then deleted if no slot was
 * taken meanwhile (whoever took one deletes them when it lets it go).
 * The directory's lock is held shared meanwhile: a job's gc leaves the
 * tables to this child, brig job --gc waits for it. */
static void linger(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	int fd = lock_slot_dir(false, LOCK_SH, &err);
	bool none;

	brig_error_release(&err);
	if (fd < 0)
		return;
	for (int ms = 0; (none = no_slot_left(fd)) && ms < LINGER_MS; ms += 20)
		usleep(20 * 1000);
	/* (its own shared lock would keep last_out's out) */
	close(fd);
	if (none)
		last_out(true);
}

int brig_egress_slot_claim(struct brig_egress_slot *s, const char *id, bool member,
                           struct brig_error *err)
{
	_cleanup_free_ char *owner = brig_xasprintf("%s%s", member ? OWNER_MEMBER : OWNER_JOB, id);
	/* shared until the slot's file is there (see above) */
	_cleanup_close_ int dirfd = lock_slot_dir(true, LOCK_SH, err);
	int again = 0;

	if (dirfd < 0)
		return -1;
	/* the lowest free: its chains are likely there, from its last job */
	for (unsigned n = 0; n < BRIG_EGRESS_SLOTS; n++) {
		char name[16];
		int fd;

		snprintf(name, sizeof(name), "%u", n);
		/* a file made now: the slot's last owner let it go clean */
		fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		s->scrub = fd < 0;
		if (fd < 0 && errno == EEXIST)
			fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && again++ < 10) {
			/* the directory went with the last slot (last_out) */
			close(dirfd);
			dirfd = lock_slot_dir(true, LOCK_SH, err);
			if (dirfd < 0)
				return -1;
			n--;
			continue;
		}
		if (fd < 0)
			return brig_error_setp(err, errno, "open \"%s/%s\"", slot_dir(), name);
		if (flock(fd, LOCK_EX | LOCK_NB) < 0 || !still_named(dirfd, name, fd) ||
		    (s->scrub && slot_in_use(n))) {
			close(fd);
			continue;
		}
		s->n = n;
		s->fd = fd;
		slot_names(n, s->link, s->peer);
		/* whose it is: a claim of a pool's member checks it */
		if (ftruncate(fd, 0) < 0 || pwrite(fd, owner, strlen(owner), 0) < 0)
			return brig_error_setp(err, errno, "write \"%s/%s\"", slot_dir(), name);
		return 0;
	}
	return brig_error_set(err, "no free egress slot: %u jobs have one", BRIG_EGRESS_SLOTS);
}

/* The slot let go: its file unlinked while still locked (whoever opened
 * it meanwhile sees so), then closed. */
static void let_go(struct brig_egress_slot *s)
{
	_cleanup_close_ int dirfd = -1;
	char name[16];

	if (s->fd < 0)
		return;
	snprintf(name, sizeof(name), "%u", s->n);
	dirfd = open(slot_dir(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd >= 0 && still_named(dirfd, name, s->fd))
		unlinkat(dirfd, name, 0);
	close(s->fd);
	s->fd = -1;
}

void brig_egress_slot_release(struct brig_egress_slot *s)
{
	if (s->fd < 0)
		return;
	let_go(s);
	last_out(true);
}

int brig_egress_slot_lock_member(struct brig_egress_slot *s, unsigned slot, const char *id,
                                 bool alive, struct brig_error *err)
{
	_cleanup_close_ int dirfd = open_slot_dir(false, err);
	_cleanup_free_ char *want = brig_xasprintf("%s%s", OWNER_MEMBER, id);
	char name[16], owner[256];
	ssize_t n;
	int fd;

	if (dirfd < 0)
		return -1;
	s->n = slot;
	slot_names(slot, s->link, s->peer);
	snprintf(name, sizeof(name), "%u", slot);
	fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return brig_error_setp(err, errno, "egress slot %u", slot);
	s->fd = fd;
	/* gc holds it for a moment at most */
	if (!flock_within(fd, LOCK_EX, 100))
		return brig_error_setp(err, errno, "lock egress slot %u", slot);
	n = pread(fd, owner, sizeof(owner) - 1, 0);
	owner[n > 0 ? n : 0] = '\0';
	if (!still_named(dirfd, name, fd) || strcmp(owner, want) || (alive && !slot_in_use(slot)))
		return brig_error_set(err, "egress slot %u is not pool member \"%s\"'s", slot, id);
	return 0;
}

/* What the job had of its slot removed: the link (the job's end with
 * it); then the slot is let go, its chains left for its next job.  The
 * last slot let go takes the tables with it: at once in brig, after
 * linger() in the child of brig's that ends the slot.  What fails stays in
 * the slot, for its next owner or gc. */
static int end_slot(struct brig_egress_slot *s, bool child, struct brig_error *err)
{
	if (brig_egress_slot_scrub(s->n, err) < 0) {
		close(s->fd);
		s->fd = -1;
		return -1;
	}
	if (!child) {
		brig_egress_slot_release(s);
		return 0;
	}
	let_go(s);
	linger();
	return 0;
}

/* end_slot() in a child of brig's, which brig does not wait for.  Deleting
 * a link waits for the kernel's RCU grace periods (10 to 50 ms here, most
 * of an egress job's cost when brig waited for it), and nobody needs to:
 * the job's processes are gone, and the slot stays taken while the child
 * holds its lock.  The child keeps nothing of brig's but the slot's file
 * and the netfilter sockets: no fd of the caller's (a pipe brig's caller
 * reads to its end, a file on a mount), not brig's private mount
 * namespace (its mounts go with brig, as ever), not brig's session (a
 * signal to the caller's process group would leave the link to the next
 * gc).  The file says "end", so that gc waits for the child, and takes
 * the slot for a dead job's if the child dies. */
int brig_egress_slot_end(struct brig_egress_slot *s, struct brig_error *err)
{
	int mntns = brig_job_host_mntns(), null;
	pid_t pid;

	if (ftruncate(s->fd, 0) < 0 || pwrite(s->fd, OWNER_END, strlen(OWNER_END), 0) < 0)
		return end_slot(s, false, err);
	pid = fork();
	if (pid < 0)
		return end_slot(s, false, err);
	if (pid > 0) {
		close(s->fd);
		s->fd = -1;
		return 0;
	}
	setsid();
	for (const int *sig = (const int[]){ SIGINT, SIGTERM, SIGHUP, 0 }; *sig; sig++)
		signal(*sig, SIG_IGN);
	if ((mntns >= 0 && setns(mntns, CLONE_NEWNS) < 0) ||
	    (s->fd != 3 && dup3(s->fd, 3, O_CLOEXEC) < 0))
		_exit(1);
	s->fd = 3;
	/* brig's netfilter sockets (its nftables context's, the learner's)
	 * stay: the release of such a socket waits for the destruction of
	 * the tables deleted meanwhile (a grace period, 10 ms here), which
	 * brig would wait for at its exit if the child's copies were not
	 * the last.  The child uses none of them. */
	brig_fds_keep_netlink(4, NETLINK_NETFILTER);
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
	brig_link_wait_gone(s->link, 1000);
	_exit(end_slot(s, true, err) < 0 ? 1 : 0);
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
		if (brig_egress_slot_scrub((unsigned)n, err) < 0) {
			close(fd);
			r = -1;
			break;
		}
		unlinkat(dirfd, de->d_name, 0);
		close(fd);
	}
	last_out(wait);
	return r;
}
