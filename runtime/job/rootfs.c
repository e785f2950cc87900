/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A job's directory, its id range and its root (internal.h): a size-capped
 * tmpfs for every write, over the caller's rootfs idmapped read-only, as
 * one overlay.  The lower directory is never written: the kernel refuses
 * it (a read-only mount), and overlayfs copies up into the tmpfs.
 */
#include "config.h"
#include "job/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "linux/idmap.h"
#include "linux/resolve.h"
#include "linux/selfexe.h"
#include "linux/syscalls.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/fs.h"
#include "util/log.h"

/* Without a "brig" entry in /etc/subuid and /etc/subgid, jobs map their ids
 * to host ids from here: 1024 ranges of 65536 (brig-job(8)). */
#define JOB_ID_BASE 1073741824u
#define JOB_ID_RANGES 1024u
/*
 * Where a job's mounts are made, in brig's private mount namespace: a
 * tmpfs mounted over this directory holds w, lower and rootfs.  Not under
 * the state root: the job's init resolves root.path as the job's root,
 * an unprivileged host id, which the state root's 0700 would stop (and
 * every job has a namespace of its own, so one path serves them all).
 */
#define JOB_MNT "/run/brig-job"

/* A directory left half-made (".new-*") by a brig killed at once is gc'd
 * only when older than this: younger, it may be a claim in progress. */
#define JOB_NEW_GRACE_S 60

/* The "brig" entry of @file: its first id and how many. */
static bool subid_range(const char *file, uint32_t *start, uint32_t *count)
{
	_cleanup_fclose_ FILE *f = fopen(file, "re");
	unsigned long s, n;
	char name[64];

	while (f && fscanf(f, " %63[^:\n]:%lu:%lu", name, &s, &n) == 3)
		if (!strcmp(name, "brig") && s <= UINT32_MAX && n <= UINT32_MAX - s) {
			*start = (uint32_t)s;
			*count = (uint32_t)n;
			return true;
		}
	return false;
}

/* The locks of the id ranges: one set for the whole host, whatever the
 * state root, since every job's ids are the host's. */
#define JOB_ID_LOCKS "/run/brig-job-ids"

/* The ranges jobs take their ids from: @n of BRIG_JOB_IDS from @start,
 * the same for uids and gids (read once a process). */
static void id_ranges(uint32_t *start, uint32_t *n)
{
	static uint32_t s = JOB_ID_BASE, k = JOB_ID_RANGES;
	static bool known;
	uint32_t us, uc, gs, gc;

	if (!known && subid_range("/etc/subuid", &us, &uc) &&
	    subid_range("/etc/subgid", &gs, &gc) && us == gs && uc >= BRIG_JOB_IDS) {
		s = us;
		k = (uc < gc ? uc : gc) / BRIG_JOB_IDS;
	}
	known = true;
	*start = s;
	*n = k;
}

void brig_job_id_span(struct brig_id_mapping *all)
{
	uint32_t n;

	id_ranges(&all->host_id, &n);
	all->container_id = 0;
	all->size = n * BRIG_JOB_IDS;
}

/* Whether @fd (locked) is still the file named @name in @dirfd: a lock
 * file is unlinked by its last holder (brig_job_ids_release), and a lock
 * taken on it after that guards nothing. */
static bool still_named(int dirfd, const char *name, int fd)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && a.st_nlink > 0 &&
	       fstatat(dirfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev;
}

/* How often a slot is tried again when its file went while it was being
 * locked (released meanwhile: the range is free, under a new file). */
#define ID_LOCK_TRIES 4

/* The lock of slot @name, taken (an fd), or -1: busy (errno EWOULDBLOCK),
 * or an error in @err. */
static int lock_slot(int dirfd, const char *locks, const char *name, struct brig_error *err)
{
	for (int tries = 0; tries < ID_LOCK_TRIES; tries++) {
		_cleanup_close_ int fd =
		    openat(dirfd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

		if (fd < 0)
			return brig_error_setp(err, errno, "open \"%s/%s\"", locks, name);
		/* (where a release may unlink the file under the claimer) */
		brig_fault("job.ids-lock");
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			errno = EWOULDBLOCK;
			return -1;
		}
		if (still_named(dirfd, name, fd))
			return TAKE_FD(fd);
	}
	errno = EWOULDBLOCK;
	return -1;
}

/* Lock one free range of ids, trying from one that depends on the pid so
 * that concurrent jobs rarely try the same lock first. */
static int claim_ids(struct brig_job_root *r, struct brig_error *err)
{
	uint32_t start, n;
	const char *locks = JOB_ID_LOCKS;
	_cleanup_close_ int dirfd = -1;

	id_ranges(&start, &n);
	if (brig_mkdir_p(locks, 0700, err) < 0)
		return -1;
	dirfd = open(locks, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return brig_error_setp(err, errno, "open \"%s\"", locks);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t slot = (uint32_t)(getpid() + k) % n;
		char name[16];
		int fd;

		snprintf(name, sizeof(name), "%u", slot);
		fd = lock_slot(dirfd, locks, name, err);
		if (fd >= 0) {
			struct stat st;

			/* which file is the range's lock (tests/security/job-state.sh
			 * checks that it goes with the job) */
			if (brig_log_debug_enabled() && fstat(fd, &st) == 0)
				brig_debug("job: id range %u: %s/%s, inode %llu", slot, locks, name,
				           (unsigned long long)st.st_ino);
			r->idfd = fd;
			r->host_id = start + slot * BRIG_JOB_IDS;
			return 0;
		}
		if (err->msg)
			return -1;
	}
	return brig_error_setp(err, EBUSY,
	                       "no free id range for the job's user namespace (%u in use)", n);
}

void brig_job_ids_release(uint32_t host_id)
{
	uint32_t start, n;
	_cleanup_close_ int dirfd = -1;
	_cleanup_close_ int fd = -1;
	char name[16];

	id_ranges(&start, &n);
	if (host_id < start || (host_id - start) % BRIG_JOB_IDS ||
	    (host_id - start) / BRIG_JOB_IDS >= n)
		return;
	snprintf(name, sizeof(name), "%u", (host_id - start) / BRIG_JOB_IDS);
	dirfd = open(JOB_ID_LOCKS, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	fd = dirfd < 0 ? -1 : openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	/* locked: nobody else holds it (a process that shares the lock of
	 * the range's user, or a job that took the range since), and a
	 * claimer that locks the file next sees that it is gone */
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 && still_named(dirfd, name, fd))
		unlinkat(dirfd, name, 0);
}

static int host_mntns = -1;

int brig_job_host_mntns(void)
{
	return host_mntns;
}

int brig_job_private_mounts(struct brig_error *err)
{
	if (host_mntns < 0) {
		host_mntns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
		if (host_mntns < 0)
			return brig_error_setp(err, errno, "open \"/proc/self/ns/mnt\"");
	}
	if (unshare(CLONE_NEWNS) < 0)
		return brig_error_setp(err, errno, "unshare(CLONE_NEWNS)");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return brig_error_setp(err, errno, "make / private");
	return 0;
}

int brig_job_root_claim(struct brig_job_root *r, const char *state_root, const char *id,
                        struct brig_error *err)
{
	_cleanup_free_ char *tmp = NULL;

	r->jobs = brig_xasprintf("%s/jobs", state_root);
	if (brig_mkdir_p(r->jobs, 0700, err) < 0)
		return -1;
	/* made under a name gc leaves alone, locked, then renamed: gc never
	 * sees an unlocked job directory that is not a dead brig's */
	tmp = brig_xasprintf("%s/.new-%s", r->jobs, id);
	r->dir = brig_xasprintf("%s/%s", r->jobs, id);
	if (mkdir(tmp, 0700) < 0)
		return brig_error_setp(err, errno, "mkdir \"%s\"", tmp);
	r->dirfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (r->dirfd < 0 || flock(r->dirfd, LOCK_EX) < 0) {
		brig_error_setp(err, errno, "lock \"%s\"", tmp);
		rmdir(tmp);
		return -1;
	}
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, r->dir, RENAME_NOREPLACE) < 0) {
		int e = errno;

		rmdir(tmp);
		close(TAKE_FD(r->dirfd));
		if (e == EEXIST)
			return brig_error_setp(err, e, "job \"%s\" exists", id);
		return brig_error_setp(err, e, "rename \"%s\"", tmp);
	}
	r->merged = brig_xstrdup(JOB_MNT "/rootfs");
	if (r->userns)
		return claim_ids(r, err);
	/* no user namespace: the range is the binds', and the job's ids
	 * are the host's everywhere else */
	if (!r->bind_ids)
		return 0;
	if (claim_ids(r, err) < 0)
		return -1;
	r->bind_id = r->host_id;
	r->host_id = 0;
	return 0;
}

static int mkdirs(int dirfd, const char *const *names, struct brig_error *err)
{
	for (; *names; names++)
		if (mkdirat(dirfd, *names, 0700) < 0 && errno != EEXIST)
			return brig_error_setp(err, errno, "mkdir \"%s\"", *names);
	return 0;
}

/* @rootfs, read-only, its files' owners seen through the job's ids. */
static int idmapped_lower(const struct brig_job_root *r, int base, const char *rootfs,
                          struct brig_error *err)
{
	struct brig_id_mapping map = { .container_id = 0,
		                       .host_id = r->host_id,
		                       .size = BRIG_JOB_IDS };
	struct brig_linux maps = {
		.uid_mappings = &map, .n_uid_mappings = 1, .gid_mappings = &map, .n_gid_mappings = 1
	};
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_RDONLY |
		                               MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV };
	_cleanup_close_ int userns = -1;
	_cleanup_close_ int tree = -1;

	/* without a user namespace, the same read-only bind, not idmapped */
	if (r->userns) {
		userns = brig_idmap_userns(&maps, err);
		if (userns < 0)
			return -1;
		attr.userns_fd = (uint64_t)userns;
	} else {
		attr.attr_set &= ~(uint64_t)MOUNT_ATTR_IDMAP;
	}
	tree = open_tree(AT_FDCWD, rootfs, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0)
		return brig_error_setp(err, errno, "--rootfs: open \"%s\"", rootfs);
	if (mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
		return brig_error_setp(err, errno, "--rootfs: idmap \"%s\"", rootfs);
	if (move_mount(tree, "", base, "lower", MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return brig_error_setp(err, errno, "--rootfs: attach \"%s\"", rootfs);
	return 0;
}

int brig_job_root_mount(struct brig_job_root *r, const char *rootfs, uint64_t writable,
                        struct brig_error *err)
{
	_cleanup_free_ char *opts =
	    brig_xasprintf("size=%llu,mode=0755", (unsigned long long)writable);
	_cleanup_close_ int base = -1, w = -1;
	struct stat st;

	if (stat(rootfs, &st) < 0)
		return brig_error_setp(err, errno, "--rootfs \"%s\"", rootfs);
	if (brig_mkdir_p(JOB_MNT, 0755, err) < 0)
		return -1;
	if (mount("tmpfs", JOB_MNT, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	          "size=64k,mode=0755") < 0)
		return brig_error_setp(err, errno, "mount tmpfs on \"%s\"", JOB_MNT);
	r->mounted = true;
	base = open(JOB_MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (base < 0)
		return brig_error_setp(err, errno, "open \"%s\"", JOB_MNT);
	if (mkdirs(base, (const char *const[]){ "w", "lower", "rootfs", NULL }, err) < 0)
		return -1;
	if (mount("tmpfs", JOB_MNT "/w", "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
		return brig_error_setp(err, errno, "--writable: mount tmpfs (%s)", opts);
	w = open(JOB_MNT "/w", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w < 0)
		return brig_error_setp(err, errno, "open \"%s/w\"", JOB_MNT);
	/* the upper directory is the job's root directory: the job's root
	 * owns it (without a user namespace of the job's, the rootfs's
	 * owner: a restored job's ids are its image's), with the rootfs's
	 * mode */
	if (mkdirs(w, (const char *const[]){ "upper", "work", NULL }, err) < 0)
		return -1;
	if (fchownat(w, "upper", r->userns ? r->host_id : st.st_uid,
	             r->userns ? r->host_id : st.st_gid, AT_SYMLINK_NOFOLLOW) < 0 ||
	    fchmodat(w, "upper", st.st_mode & 07777, 0) < 0)
		return brig_error_setp(err, errno, "prepare \"%s/w/upper\"", JOB_MNT);
	if (idmapped_lower(r, base, rootfs, err) < 0)
		return -1;
	/* the job's writes, by fd: export and the figures read them, and a
	 * pool member's init keeps it for its claimer (pool.c) */
	r->upperfd = openat(w, "upper", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (r->upperfd < 0)
		return brig_error_setp(err, errno, "open \"%s/w/upper\"", JOB_MNT);
	/* the rootfs as the job sees it, for its change set (changes.c) */
	r->lowerfd = openat(base, "lower", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (r->lowerfd < 0)
		return brig_error_setp(err, errno, "open \"%s/lower\"", JOB_MNT);
	/* whatever the kernel's defaults: every upper entry is what the job
	 * sees there (--export and the change set read it), none a directory
	 * renamed by reference to the lower's or a file whose data is still
	 * the lower's */
	if (mount("overlay", JOB_MNT "/rootfs", "overlay", MS_NOSUID | MS_NODEV,
	          "lowerdir=" JOB_MNT "/lower,upperdir=" JOB_MNT "/w/upper,workdir=" JOB_MNT
	          "/w/work,redirect_dir=off,metacopy=off") < 0)
		return brig_error_setp(err, errno, "mount the overlay of \"%s\"", rootfs);
	return 0;
}

/* The first @k components of @dir ("/a/b/c", 2: "/a/b"), or NULL when it
 * has fewer (heap). */
static char *path_prefix(const char *dir, unsigned int k)
{
	const char *end = dir;
	char *p;

	for (unsigned int i = 0; i < k; i++) {
		end = strchr(end + 1, '/');
		if (!end)
			return i + 1 == k && dir[1] ? brig_xstrdup(dir) : NULL;
	}
	p = strndup(dir, (size_t)(end - dir));
	if (!p)
		brig_oom();
	return p;
}

/* How many directories on @dir's path (inside @root) exist: the ones
 * past them are those brig_mkpath_in_root() will make (a missing one has
 * no existing one below it). */
static unsigned int dirs_there(int root, const char *dir)
{
	unsigned int k = 1;

	for (char *p; (p = path_prefix(dir, k)); k++) {
		_cleanup_close_ int fd =
		    brig_open_in_root(root, p, O_PATH | O_DIRECTORY | O_NOFOLLOW, 0);
		int e = errno;

		free(p);
		if (fd < 0 && e == ENOENT)
			break;
	}
	return k - 1;
}

/* The directories on @dir's path past the first @there, which brig has
 * just made, go to the job's user; none that was there before: those are
 * the rootfs's (or, through a symlink of it, another mount's). */
static void own_made_dirs(int root, const char *dir, unsigned int there, uid_t uid, gid_t gid)
{
	for (char *p; (p = path_prefix(dir, there + 1)); there++) {
		_cleanup_close_ int fd =
		    brig_open_in_root(root, p, O_PATH | O_DIRECTORY | O_NOFOLLOW, 0);

		free(p);
		if (fd >= 0)
			fchownat(fd, "", uid, gid, AT_EMPTY_PATH);
	}
}

/* @base in @dst (the job's root, whose files may be hostile: the rootfs's
 * own): a regular file made or truncated, the contents of @src, the job's
 * owner; anything else there is refused, and nothing is opened that could
 * block (a FIFO) or follow a link. */
static int copy_in_file(int src, const struct stat *st, const char *host, int dst, const char *base,
                        const char *path, uid_t uid, gid_t gid, struct brig_error *err)
{
	_cleanup_close_ int out = -1;
	struct stat ost;

	if (fstatat(dst, base, &ost, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(ost.st_mode))
		return brig_error_set(err, "\"%s\": not a regular file in the job's root", path);
	/* O_TRUNC: overlayfs copies up a lower file without its data */
	out = openat(dst, base,
	             O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
	             0600);
	if (out < 0)
		return brig_error_setp(err, errno, "create \"%s\"", path);
	if (fstat(out, &ost) < 0)
		return brig_error_setp(err, errno, "stat \"%s\"", path);
	if (!S_ISREG(ost.st_mode))
		return brig_error_set(err, "\"%s\": not a regular file in the job's root", path);
	{
		_cleanup_free_ char *what = brig_xasprintf("\"%s\"", path);

		if (brig_job_copy_data(src, out, st, what, host, err) < 0)
			return -1;
	}
	if (fchown(out, uid, gid) < 0 || fchmod(out, st->st_mode & 0777) < 0)
		return brig_error_setp(err, errno, "chown \"%s\"", path);
	return 0;
}

int brig_job_copy_in(const struct brig_job_root *r, const char *host, const char *path,
                     uint32_t uid, uint32_t gid, struct brig_error *err)
{
	_cleanup_free_ char *clean = brig_path_clean(path), *base = NULL;
	_cleanup_close_ int src = -1, root = -1, parent = -1, dst = -1, sub = -1;
	char *slash;
	struct stat st;
	uint64_t root_mnt;
	unsigned int there;
	const struct brig_job_copy_bounds owner = { .uid = r->host_id + uid,
		                                    .gid = r->host_id + gid };

	/* the caller's, but no FIFO of theirs blocks brig either */
	src = open(host, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (src < 0 || fstat(src, &st) < 0)
		return brig_error_setp(err, errno, "open \"%s\"", host);
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
		return brig_error_set(err, "\"%s\" is not a regular file or a directory", host);
	if (!strcmp(clean, "/"))
		return brig_error_set(err, "\"%s\" is the root", path);
	slash = strrchr(clean, '/');
	base = brig_xstrdup(slash + 1);
	slash[slash == clean ? 1 : 0] = '\0';
	root = open(r->merged, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return brig_error_setp(err, errno, "open \"%s\"", r->merged);
	/* inside the job's root, whatever its symlinks say, and on the root's
	 * own mount: never through a symlink into a bind of the host's, the
	 * job's /proc or another of a pool member's mounts, where brig, as
	 * root, would write what the job's ids could not */
	root_mnt = brig_mnt_id(root);
	there = dirs_there(root, clean);
	parent = brig_mkpath_on_mounts(root, clean, BRIG_MKPATH_DIR, &root_mnt, 1, err);
	if (parent < 0)
		return -1;
	if (!brig_mnt_id_in(parent, &root_mnt, 1))
		return brig_error_set(err,
		                      "\"%s\": not in the job's own root filesystem (a mount "
		                      "or a symlink to one is on its path)",
		                      path);
	own_made_dirs(root, clean, there, owner.uid, owner.gid);
	dst = brig_open_in_root(parent, ".", O_RDONLY | O_DIRECTORY, 0);
	if (dst < 0)
		return brig_error_setp(err, errno, "open \"%s\"", clean);
	if (S_ISREG(st.st_mode))
		return copy_in_file(src, &st, host, dst, base, path, owner.uid, owner.gid, err);
	if (mkdirat(dst, base, st.st_mode & 0777) < 0 && errno != EEXIST)
		return brig_error_setp(err, errno, "mkdir \"%s\"", path);
	sub = openat(dst, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0)
		return brig_error_setp(err, errno, "open \"%s\"", path);
	if (fchown(sub, owner.uid, owner.gid) < 0)
		return brig_error_setp(err, errno, "chown \"%s\"", path);
	{
		_cleanup_free_ char *what = brig_xasprintf("\"%s\"", path);

		return brig_job_copy_tree(src, sub, &owner, what, err);
	}
}

uint64_t brig_job_writable_used(const struct brig_job_root *r)
{
	struct statfs sf;

	if (r->upperfd < 0 || fstatfs(r->upperfd, &sf) < 0)
		return 0;
	return (uint64_t)(sf.f_blocks - sf.f_bfree) * (uint64_t)sf.f_bsize;
}

/* What a job directory holds once nothing is mounted on it: its files
 * (config.json, and the temporary file of a brig killed while it wrote
 * it), the seccomp listener's socket, its empty mount points, itself. */
void brig_job_dir_remove(int jobsfd, const char *name)
{
	_cleanup_close_ int fd =
	    openat(jobsfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_closedir_ DIR *d = fd >= 0 ? fdopendir(dup(fd)) : NULL;
	struct dirent *e;

	while (d && (e = readdir(d))) {
		struct stat st;

		/* files, and the seccomp listener's socket (denials.c) */
		if (e->d_type == DT_REG || e->d_type == DT_SOCK ||
		    (e->d_type == DT_UNKNOWN &&
		     fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		     (S_ISREG(st.st_mode) || S_ISSOCK(st.st_mode))))
			unlinkat(fd, e->d_name, 0);
	}
	if (fd >= 0)
		for (const char *const *m = (const char *const[]){ "rootfs", "lower", "w", NULL };
		     *m; m++)
			unlinkat(fd, *m, AT_REMOVEDIR);
	unlinkat(jobsfd, name, AT_REMOVEDIR);
}

void brig_job_root_release(struct brig_job_root *r)
{
	_cleanup_close_ int jobs = r->jobs ? open(r->jobs, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

	/* the whole tree at once: the overlay, lower, w and their base */
	if (r->mounted)
		umount2(JOB_MNT, MNT_DETACH);
	if (r->dirfd >= 0 && jobs >= 0)
		brig_job_dir_remove(jobs, strrchr(r->dir, '/') + 1);
	if (r->dirfd >= 0)
		close(r->dirfd);
	/* the range's file goes once its last holder has let go (the job's
	 * processes are gone: its init held the lock until its end) */
	if (r->idfd >= 0) {
		close(r->idfd);
		brig_job_ids_release(r->host_id);
	}
	if (r->upperfd >= 0)
		close(r->upperfd);
	if (r->lowerfd >= 0)
		close(r->lowerfd);
	free(r->jobs);
	free(r->dir);
	free(r->merged);
	*r = (struct brig_job_root)BRIG_JOB_ROOT_INIT;
}

void brig_job_root_adopt(struct brig_job_root *r, const char *state_root, const char *id,
                         pid_t init, int upperfd, uint32_t host_id)
{
	r->jobs = brig_xasprintf("%s/jobs", state_root);
	r->dir = brig_xasprintf("%s/jobs/%s", state_root, id);
	r->merged = brig_xasprintf("/proc/%d/root", (int)init);
	r->upperfd = upperfd;
	r->host_id = host_id;
}

void brig_job_root_forget(struct brig_job_root *r)
{
	if (r->dirfd >= 0)
		close(r->dirfd);
	if (r->idfd >= 0)
		close(r->idfd);
	if (r->upperfd >= 0)
		close(r->upperfd);
	if (r->lowerfd >= 0)
		close(r->lowerfd);
	free(r->jobs);
	free(r->dir);
	free(r->merged);
	*r = (struct brig_job_root)BRIG_JOB_ROOT_INIT;
}

/* A ".new-*" directory older than the grace period. */
static bool stale_new(int jobsfd, const char *name)
{
	struct stat st;

	return fstatat(jobsfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       time(NULL) - st.st_mtime > JOB_NEW_GRACE_S;
}

int brig_job_root_gc(const char *state_root, void (*reap)(const char *id, void *data), void *data,
                     struct brig_error *err)
{
	_cleanup_free_ char *jobs = brig_xasprintf("%s/jobs", state_root);
	_cleanup_closedir_ DIR *d = opendir(jobs);
	struct dirent *e;

	if (!d)
		return errno == ENOENT ? 0 : brig_error_setp(err, errno, "open \"%s\"", jobs);
	while ((e = readdir(d))) {
		bool fresh = !strncmp(e->d_name, ".new-", 5);
		_cleanup_close_ int fd = -1;

		if (e->d_name[0] == '.' && (!fresh || !stale_new(dirfd(d), e->d_name)))
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		/* held: its brig is alive */
		if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0)
			continue;
		if (!fresh)
			reap(e->d_name, data);
		brig_job_dir_remove(dirfd(d), e->d_name);
	}
	return 0;
}
