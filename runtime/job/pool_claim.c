/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A claim of a pool's member (internal.h): an flock then a rename from
 * ready/ to claimed/, so that two claimers never get the same member;
 * the member checked against what only brig recorded of it before
 * anything of the caller's goes to it; then its root and hand-off socket
 * taken from its init (pidfd_getfd), for the job's source (claimed.c).
 */
#include "config.h"
#include "job/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/pidfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/magic.h>
#include <unistd.h>

#include "lifecycle/context.h"
#include "lifecycle/state.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/log.h"
#include "util/proc.h"

/*
 * A claim trusts nothing a ready/ entry says (whoever can write the pool
 * directory can forge one): before anything of the caller's goes to the
 * member, the member is checked against what only brig writes, under the
 * 0700 state root:
 *
 *   - its id is one brig gives this pool's members ("NAME-" and 12 hex
 *     digits), and the state root has a container of that id whose bundle
 *     is the member's job directory: else the entry is not this pool's
 *     member, and only the entry goes (the container it names, if any,
 *     is left alone);
 *   - the entry's pid and start time are the ones that container's state
 *     records, its init still waits (created), and a pidfd opened for it
 *     names the same process once open (the start time again);
 *   - the job directory's record (brig_job_member_record: the fd numbers,
 *     the job's first host id, the upper directory's device and inode)
 *     says what the entry says;
 *   - the fd copied from the init as its hand-off socket is an AF_UNIX
 *     SOCK_SEQPACKET socket whose peer (SO_PEERCRED) is that init (it
 *     makes the socket itself, init.c), and the one copied as the upper
 *     directory is that directory (a directory on a tmpfs, of the device
 *     and inode recorded).
 *
 * A member of this pool that fails a check is destroyed, never served.
 * Either way the claim goes on to the next entry; with none left it is a
 * miss (a cold job), and the log says which entry was refused and why.
 */
enum verdict { MEMBER_OK, MEMBER_DEAD, MEMBER_REFUSED, NOT_A_MEMBER };

/* "NAME-" and the 12 hex digits of brig_pool_member_begin. */
static bool member_id(const char *name, const char *id)
{
	size_t n = strlen(name);

	if (strncmp(id, name, n) || id[n] != '-' || strlen(id + n + 1) != 12)
		return false;
	for (const char *p = id + n + 1; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return false;
	return true;
}

/* The init's fd @num, copied (brig is root: the kernel lets it). */
static int copy_fd(int pidfd, int num)
{
	return (int)syscall(SYS_pidfd_getfd, pidfd, num, 0);
}

static bool handoff_ok(int fd, pid_t init)
{
	struct ucred peer = { 0 };
	socklen_t len = sizeof(peer);
	int domain = 0, type = 0;
	socklen_t ilen = sizeof(int);
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode) ||
	    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &ilen) < 0 || domain != AF_UNIX)
		return false;
	ilen = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &ilen) < 0 || type != SOCK_SEQPACKET)
		return false;
	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) == 0 && peer.pid == init;
}

static bool upper_ok(int fd, const struct brig_pool_record *r)
{
	struct statfs sf;
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && fstatfs(fd, &sf) == 0 &&
	       sf.f_type == TMPFS_MAGIC && (uint64_t)st.st_dev == r->dev &&
	       (uint64_t)st.st_ino == r->ino;
}

static bool lower_ok(int fd, const struct brig_pool_record *r)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && (uint64_t)st.st_dev == r->lower_dev &&
	       (uint64_t)st.st_ino == r->lower_ino;
}

static bool notify_ok(int fd)
{
	char path[64], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	return !strcmp(link, BRIG_SECCOMP_NOTIFY_LINK);
}

/* Whether the process of @pidfd is still the one that started at @start:
 * alive (a signal 0 reaches it) and its pid's start time the same. */
static bool still_there(int pidfd, pid_t pid, uint64_t start)
{
	uint64_t now = 0;

	return pidfd_send_signal(pidfd, 0, NULL, 0) == 0 && brig_proc_stat(pid, NULL, &now) == 0 &&
	       now == start;
}

static enum verdict verify(const struct brig_context *ctx, const char *name, const char *id,
                           struct brig_pool_claim *c, const char **why)
{
	struct brig_container_ref ref = BRIG_CONTAINER_REF_INIT;
	struct brig_error e = BRIG_ERROR_INIT;
	_cleanup_free_ char *bundle = brig_xasprintf("%s/jobs/%s", ctx->root, id);
	struct brig_pool_record rec;
	pid_t pid;
	uint64_t start;
	bool created;

	if (!member_id(name, id)) {
		*why = "not a name of this pool's members";
		return NOT_A_MEMBER;
	}
	if (brig_container_ref_open(&ref, ctx->root, id, BRIG_LOCK_SHARED, &e) < 0 ||
	    !ref.s->bundle || strcmp(ref.s->bundle, bundle)) {
		brig_container_ref_close(&ref);
		brig_error_release(&e);
		*why = "no member of this pool has that id";
		return NOT_A_MEMBER;
	}
	pid = ref.s->pid;
	start = ref.s->pid_start;
	created = brig_state_status(ref.s) == BRIG_STATUS_CREATED;
	brig_container_ref_close(&ref);
	if (!brig_pool_is_member(ctx->root, id)) {
		*why = "no member of this pool has that id";
		return NOT_A_MEMBER;
	}
	if (!created)
		return MEMBER_DEAD;
	if (c->m.pid != pid || c->m.start != start) {
		*why = "its pid is not its init's";
		return MEMBER_REFUSED;
	}
	if (brig_pool_read_record(ctx->root, id, &rec) < 0 || rec.upper_fd != c->m.upper_fd ||
	    rec.handoff_fd != c->m.handoff_fd || rec.host_id != c->m.host_id) {
		*why = "it does not say what the member's record says";
		return MEMBER_REFUSED;
	}
	c->pidfd = pidfd_open(pid, 0);
	if (c->pidfd < 0 || !still_there(c->pidfd, pid, start))
		return MEMBER_DEAD;
	c->handoff = copy_fd(c->pidfd, rec.handoff_fd);
	if (c->handoff < 0 || !handoff_ok(c->handoff, pid)) {
		*why = "its hand-off socket is not its init's";
		return MEMBER_REFUSED;
	}
	c->upper = copy_fd(c->pidfd, rec.upper_fd);
	if (c->upper < 0 || !upper_ok(c->upper, &rec)) {
		*why = "its upper directory is not the member's";
		return MEMBER_REFUSED;
	}
	if (rec.lower_fd >= 0) {
		c->lower = copy_fd(c->pidfd, rec.lower_fd);
		if (c->lower < 0 || !lower_ok(c->lower, &rec)) {
			*why = "its rootfs is not the member's";
			return MEMBER_REFUSED;
		}
	}
	if (rec.notify_fd >= 0) {
		c->notify = copy_fd(c->pidfd, rec.notify_fd);
		if (c->notify < 0 || !notify_ok(c->notify)) {
			*why = "its seccomp listener is not its init's";
			return MEMBER_REFUSED;
		}
	}
	/* the fds were copied from that very process */
	if (!still_there(c->pidfd, pid, start))
		return MEMBER_DEAD;
	return MEMBER_OK;
}

int brig_pool_claim_state(const struct brig_context *ctx, struct brig_pool_claim *c,
                          struct brig_error *err)
{
	struct brig_container_ref ref = BRIG_CONTAINER_REF_INIT;
	int r = brig_container_ref_open(&ref, ctx->root, c->id, BRIG_LOCK_SHARED, err);

	if (r == 0)
		c->s = TAKE_PTR(ref.s);
	brig_container_ref_close(&ref);
	return r;
}

void brig_pool_claim_release(struct brig_pool_claim *c)
{
	free(c->id);
	if (c->lock >= 0)
		close(c->lock);
	if (c->pidfd >= 0)
		close(c->pidfd);
	if (c->handoff >= 0)
		close(c->handoff);
	if (c->upper >= 0)
		close(c->upper);
	if (c->notify >= 0)
		close(c->notify);
	if (c->lower >= 0)
		close(c->lower);
	if (c->rootfd >= 0)
		close(c->rootfd);
	if (c->s)
		brig_state_free(c->s);
	*c = (struct brig_pool_claim)BRIG_POOL_CLAIM_INIT;
}

int brig_pool_claim(const struct brig_context *ctx, const char *name, struct brig_pool_claim *c,
                    struct brig_error *err)
{
	_cleanup_free_ char *dir = brig_pool_dir(ctx->root, name);
	_cleanup_free_ char *ready = brig_xasprintf("%s/ready", dir);
	_cleanup_free_ char *claimed = brig_xasprintf("%s/claimed", dir);
	_cleanup_closedir_ DIR *d = opendir(ready);
	_cleanup_close_ int to = open(claimed, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *e;

	if (!d || to < 0)
		return errno == ENOENT
		           ? brig_error_sete(err, ENOENT, "pool \"%s\" does not exist", name)
		           : brig_error_setp(err, errno, "pool \"%s\"", name);
	while ((e = readdir(d))) {
		const char *why = "it cannot be read", *unread = NULL;
		enum verdict v;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue; /* another claimer's now */
		/* the lock first, then the move: whoever holds it owns it */
		if (flock(fd, LOCK_EX | LOCK_NB) < 0 ||
		    renameat2(dirfd(d), e->d_name, to, e->d_name, RENAME_NOREPLACE) < 0) {
			close(fd);
			continue;
		}
		if (!brig_pool_read_member(fd, &c->m))
			c->m = (struct brig_pool_member){ .pid = -1 };
		else
			why = NULL;
		v = verify(ctx, name, e->d_name, c, why ? &unread : &why);
		if (v != MEMBER_OK) {
			if (v != MEMBER_DEAD)
				brig_warn("pool \"%s\": entry \"%s\" refused: %s", name, e->d_name,
				          why);
			brig_pool_claim_release(c);
			/* its init died while it waited, or it is not to be
			 * trusted: gone, and the next; what is not this pool's
			 * member loses its entry only */
			if (v == NOT_A_MEMBER)
				unlinkat(to, e->d_name, 0);
			else
				brig_pool_member_destroy(ctx, name, e->d_name, true);
			close(fd);
			continue;
		}
		c->id = brig_xstrdup(e->d_name);
		c->lock = fd;
		brig_fault("pool.claimed");
		return 1;
	}
	return 0;
}

int brig_pool_adopt(const struct brig_context *ctx, struct brig_pool_claim *c,
                    struct brig_job_root *r, int *handoff, int *notify, int *mntns,
                    struct brig_error *err)
{
	char path[64];

	/* the init's root for --copy-in, opened by pid, then the pidfd asked
	 * whether that is still the init: a pid reused meanwhile is another
	 * process, whose root is not the member's */
	snprintf(path, sizeof(path), "/proc/%d/root", (int)c->m.pid);
	c->rootfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c->rootfd < 0 || !still_there(c->pidfd, c->m.pid, c->m.start))
		return brig_error_setp(err, c->rootfd < 0 ? errno : ESRCH,
		                       "the root of pool member \"%s\"", c->id);
	brig_job_root_adopt(r, ctx->root, c->id, c->m.pid, TAKE_FD(c->upper), c->m.host_id);
	/* what copy-in opens is that root, by the fd the check pinned */
	free(r->merged);
	r->merged = brig_xasprintf("/proc/self/fd/%d", c->rootfd);
	*handoff = TAKE_FD(c->handoff);
	*notify = TAKE_FD(c->notify);
	/* opened by pid, then the pidfd asked whether that is still the init */
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)c->m.pid);
	*mntns = open(path, O_RDONLY | O_CLOEXEC);
	if (*mntns >= 0 && !still_there(c->pidfd, c->m.pid, c->m.start))
		close(TAKE_FD(*mntns));
	return 0;
}
