/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A pool's members as brig keeps them (pool.c has the layout): their
 * entries in creating/, ready/ and claimed/, the record of each that only
 * brig writes (<root>/jobs/<id>/member), what makes a container a member,
 * and a member's end.  pool.c, pool_claim.c and member.c use it.
 */
#include "config.h"
#include "job/egress.h"
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

#include "lifecycle/container.h"
#include "lifecycle/context.h"
#include "lifecycle/state.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/fs.h"

/* A pool's directories of members, by how far they are (pool.c). */
const char *const brig_pool_subdirs[3] = { "creating", "ready", "claimed" };

char *brig_pool_dir(const char *root, const char *name)
{
	return brig_xasprintf("%s/pools/%s", root, name);
}

char *brig_pool_entry(const char *root, const char *name, const char *sub, const char *id)
{
	return brig_xasprintf("%s/pools/%s/%s/%s", root, name, sub, id);
}

/* Whether member @id still waits: its container exists, created, its
 * init alive. */
bool brig_pool_member_waits(const char *root, const char *id)
{
	struct brig_container_ref c = BRIG_CONTAINER_REF_INIT;
	struct brig_error e = BRIG_ERROR_INIT;
	bool waits = false;

	if (brig_container_ref_open(&c, root, id, BRIG_LOCK_SHARED, &e) == 0)
		waits = brig_state_status(c.s) == BRIG_STATUS_CREATED;
	brig_container_ref_close(&c);
	brig_error_release(&e);
	return waits;
}

/* The job directory a member's config lives in (job/rootfs.c). */
void brig_pool_remove_job_dir(const char *root, const char *id)
{
	_cleanup_free_ char *jobs = brig_xasprintf("%s/jobs", root);
	_cleanup_close_ int fd = open(jobs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0)
		brig_job_dir_remove(fd, id);
}

int brig_pool_read_record(const char *root, const char *id, struct brig_pool_record *r)
{
	_cleanup_free_ char *path = brig_xasprintf("%s/jobs/%s/member", root, id);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	char buf[128] = { 0 };
	struct stat st;
	int end = 0;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || pread(fd, buf, sizeof(buf) - 1, 0) <= 0)
		return -1;
	r->notify_fd = r->lower_fd = -1;
	if (sscanf(buf,
	           "%d %d %" SCNu32 " %" SCNu64 " %" SCNu64 " %d %d %" SCNu64 " %" SCNu64 "\n%n",
	           &r->upper_fd, &r->handoff_fd, &r->host_id, &r->dev, &r->ino, &r->notify_fd,
	           &r->lower_fd, &r->lower_dev, &r->lower_ino, &end) == 9 &&
	    end && !buf[end] && r->notify_fd >= -1 && r->lower_fd >= 0)
		return 0;
	r->notify_fd = r->lower_fd = -1;
	end = 0;
	if (sscanf(buf, "%d %d %" SCNu32 " %" SCNu64 " %" SCNu64 "\n%n", &r->upper_fd,
	           &r->handoff_fd, &r->host_id, &r->dev, &r->ino, &end) == 5 &&
	    !buf[end])
		return 0;
	end = 0;
	if (sscanf(buf, "%d %d %" SCNu32 " %" SCNu64 " %" SCNu64 " %d\n%n", &r->upper_fd,
	           &r->handoff_fd, &r->host_id, &r->dev, &r->ino, &r->notify_fd, &end) != 6 ||
	    !end || buf[end] || r->notify_fd < 0)
		return -1;
	return 0;
}

/*
 * Whether container @id is a pool's member, as only brig records it: its
 * job directory has the member record, or (a member of an older brig,
 * which wrote none) its bundle is its job directory and it still waits.
 * A running cold job whose --id looks like a member's is neither: an
 * entry's name alone never makes brig delete it.
 */
bool brig_pool_is_member(const char *root, const char *id)
{
	struct brig_container_ref c = BRIG_CONTAINER_REF_INIT;
	struct brig_error e = BRIG_ERROR_INIT;
	_cleanup_free_ char *bundle = brig_xasprintf("%s/jobs/%s", root, id);
	struct brig_pool_record rec;
	bool yes = false;

	if (brig_pool_read_record(root, id, &rec) == 0)
		return true;
	if (brig_container_ref_open(&c, root, id, BRIG_LOCK_SHARED, &e) == 0)
		yes = c.s->bundle && !strcmp(c.s->bundle, bundle) &&
		      brig_state_status(c.s) == BRIG_STATUS_CREATED;
	brig_container_ref_close(&c);
	brig_error_release(&e);
	return yes;
}

/* Everything of member @id: its container (and with its init, its
 * processes and cgroup), its namespace, its entries.  In brig's own mount
 * namespace (the host's).  With @checked, the container only if it is a
 * member (is_member): the entries of ready/ and claimed/ name members
 * that exist; a half-made one (creating/) may have no record yet. */
void brig_pool_member_destroy(const struct brig_context *ctx, const char *name, const char *id,
                              bool checked)
{
	struct brig_error ignored = BRIG_ERROR_INIT;
	struct brig_pool_member m = { .host_id = 0 };
	struct brig_pool_record rec;

	if (!checked || brig_pool_is_member(ctx->root, id)) {
		/* its id range: the lock was its init's, gone with it, and the
		 * range's file goes next (job/rootfs.c; a release removes only a
		 * file nobody holds), as brig's record says, else as its entry
		 * does (a half-made member may have no record yet) */
		if (brig_pool_read_record(ctx->root, id, &rec) == 0)
			m.host_id = rec.host_id;
		for (size_t i = 0; i < ARRAY_SIZE(brig_pool_subdirs) && !m.host_id; i++) {
			_cleanup_free_ char *e =
			    brig_pool_entry(ctx->root, name, brig_pool_subdirs[i], id);
			_cleanup_close_ int fd = open(e, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

			if (fd < 0 || !brig_pool_read_member(fd, &m))
				m.host_id = 0;
		}
		brig_container_delete(ctx, id, true, &ignored);
		brig_error_release(&ignored);
		if (m.host_id)
			brig_job_ids_release(m.host_id);
		/* its egress link and table, at once rather than at the next gc */
		{
			_cleanup_free_ char *dir = brig_xasprintf("%s/jobs/%s", ctx->root, id);

			brig_egress_member_gone(id, dir);
		}
		brig_pool_remove_job_dir(ctx->root, id);
	}
	for (size_t i = 0; i < ARRAY_SIZE(brig_pool_subdirs); i++) {
		_cleanup_free_ char *e = brig_pool_entry(ctx->root, name, brig_pool_subdirs[i], id);

		unlink(e);
	}
}

int brig_pool_member_begin(const char *root, const char *name, char **id, int *lock,
                           struct brig_error *err)
{
	unsigned char b[6] = { 0 };
	char hex[13];
	_cleanup_free_ char *path = NULL;

	(void)!getrandom(b, sizeof(b), 0);
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i] ^ (unsigned char)(getpid() >> (i % 4 * 8)));
	*id = brig_xasprintf("%s-%s", name, hex);
	path = brig_pool_entry(root, name, "creating", *id);
	*lock = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (*lock < 0 || flock(*lock, LOCK_EX) < 0) {
		brig_error_setp(err, errno, "pool \"%s\": %s", name, path);
		free(TAKE_PTR(*id));
		return -1;
	}
	return 0;
}

/* A member that never became ready: its entry, and the job directory its
 * maker made (its container is gone: the directory's lock with it).  A
 * destroy that ran meanwhile may have removed the entry already, before
 * the directory was there. */
void brig_pool_member_abort(const char *root, const char *name, const char *id, int lock)
{
	_cleanup_free_ char *path = brig_pool_entry(root, name, "creating", id);

	unlink(path);
	brig_pool_remove_job_dir(root, id);
	if (lock >= 0)
		close(lock);
}

int brig_job_member_record(int jobdirfd, const struct brig_pool_member *m, int upperfd,
                           int notify_fd, int lowerfd, struct brig_error *err)
{
	struct stat st, lst;
	char text[128];

	if (fstat(upperfd, &st) < 0)
		return brig_error_setp(err, errno, "the writable layer");
	if (fstat(lowerfd, &lst) < 0)
		return brig_error_setp(err, errno, "the rootfs");
	snprintf(text, sizeof(text),
	         "%d %d %" PRIu32 " %" PRIu64 " %" PRIu64 " %d %d %" PRIu64 " %" PRIu64 "\n",
	         m->upper_fd, m->handoff_fd, m->host_id, (uint64_t)st.st_dev, (uint64_t)st.st_ino,
	         notify_fd, lowerfd, (uint64_t)lst.st_dev, (uint64_t)lst.st_ino);
	return brig_write_file_atomic(jobdirfd, "member", text, strlen(text), 0600, err);
}

/*
 * Ready: the entry says which fds of the member's init are the writable
 * layer's upper directory and the spare end of its hand-off socket (both
 * open when the init was cloned, and kept), the job's first host id, and
 * the init's pid and start time (a claim needs nothing else); then it
 * moves to ready/.
 */
int brig_pool_member_ready(const char *root, const char *name, const char *id,
                           struct brig_pool_member *m, struct brig_error *err)
{
	_cleanup_free_ char *from = brig_pool_entry(root, name, "creating", id);
	_cleanup_free_ char *to = brig_pool_entry(root, name, "ready", id);
	_cleanup_close_ int fd = open(from, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	struct brig_container_ref c = BRIG_CONTAINER_REF_INIT;

	if (brig_container_ref_open(&c, root, id, BRIG_LOCK_SHARED, err) < 0) {
		brig_container_ref_close(&c);
		return -1;
	}
	m->pid = c.s->pid;
	m->start = c.s->pid_start;
	brig_container_ref_close(&c);
	if (fd < 0 || dprintf(fd, "%d %d %u %d %" PRIu64 "\n", m->upper_fd, m->handoff_fd,
	                      m->host_id, (int)m->pid, m->start) < 0)
		return brig_error_setp(err, errno, "write \"%s\"", from);
	if (brig_fault("pool.member-ready") < 0 || rename(from, to) < 0)
		return brig_error_setp(err, errno, "rename \"%s\"", from);
	return 0;
}

/* What a ready entry says (brig_pool_member_ready). */
bool brig_pool_member_parse(const char *text, struct brig_pool_member *m)
{
	unsigned int host;
	int upper, handoff, pid = 0, end = 0;
	uint64_t start = 0;
	int n = sscanf(text, "%d %d %u %d %" SCNu64 "\n%n", &upper, &handoff, &host, &pid, &start,
	               &end);

	/* (a member's maker says the first three; the entry has all five) */
	if ((n != 3 && n != 5) || (n == 5 && (text[end] || pid <= 0)) || upper < 3 || handoff < 3 ||
	    upper > 1 << 20 || handoff > 1 << 20)
		return false;
	m->upper_fd = upper;
	m->handoff_fd = handoff;
	m->host_id = host;
	m->pid = pid;
	m->start = start;
	return true;
}

bool brig_pool_read_member(int fd, struct brig_pool_member *m)
{
	char buf[64] = { 0 };

	return pread(fd, buf, sizeof(buf) - 1, 0) > 0 && brig_pool_member_parse(buf, m);
}
