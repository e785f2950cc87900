/* SPDX-License-Identifier: Apache-2.0 */
/* Shared inside runtime/job/; not exported. */
#ifndef BRIG_JOB_INTERNAL_H
#define BRIG_JOB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct brig_config;
struct brig_context;
struct brig_error;
struct brig_id_mapping;
struct brig_job_opts;

/* The ids of a job's user namespace: 0..BRIG_JOB_IDS-1 inside are
 * host_id.. outside, a range no other running job has. */
#define BRIG_JOB_IDS 65536u

/* What the cold source decided (cold.c), for the config (config.c). */
struct brig_job_plan {
	bool member; /* a pool's: its process is never run (an exec is) */
	bool userns; /* the job has a user namespace of its own */
	const struct brig_job_opts *o;
	const struct brig_config *base; /* --bundle's config.json, or NULL */
	const char *rootfs;             /* root.path: the overlay */
	uint32_t host_id;
	uint32_t bind_id;        /* without a user namespace: the binds' id range */
	const char *resolv_conf; /* --network egress: bound over /etc/resolv.conf */
	const char *listener;    /* the job's denials notify this socket (denials.c) */
};

/* --keep-caps's NAME as the kernel's name: "net_raw", "NET_RAW" and
 * "CAP_NET_RAW" are all "CAP_NET_RAW" (heap). */
char *brig_job_cap_name(const char *name);
/* Now, CLOCK_MONOTONIC, in ms: the clock of every deadline of a job. */
uint64_t brig_job_now_ms(void);

/* The job's config.json: hardened (job.h, brig-job(8)), heap text. */
char *brig_job_config(const struct brig_job_plan *p, struct brig_error *err);

/*
 * A job's own directory, <state root>/jobs/<id>, locked (flock) by the
 * brig that runs the job for as long as it lives: `brig job --gc` takes
 * the lock of a dead brig's job and removes what is left.  Its mounts
 * (w: the writable tmpfs, lower: the rootfs idmapped, rootfs: the
 * overlay) live in brig's own private mount namespace (rootfs.c says
 * where), so they go when brig does, whatever kills it (and a pool
 * member's, as its container's root, when the container goes).
 */
struct brig_job_root {
	char *jobs;   /* <state root>/jobs */
	char *dir;    /* <state root>/jobs/<id> */
	char *merged; /* dir/rootfs: the job's root.path */
	int dirfd;    /* dir, locked */
	int idfd;     /* the lock of the id range, or -1 */
	uint32_t host_id;
	bool mounted;   /* the job's mounts exist (rootfs.c's JOB_MNT) */
	int upperfd;    /* the writable layer's upper directory, or -1 */
	int lowerfd;    /* its lower one, the rootfs as the job sees it, or -1 */
	bool lower_raw; /* lowerfd is the rootfs itself, not idmapped: its ids are
	                 * the job's already */
	bool userns;    /* the job has a user namespace: ids and an idmapped lower */
	/* without a user namespace: an id range all the same, in bind_id
	 * (host_id stays 0), that the binds are idmapped to (config.c) */
	bool bind_ids;
	uint32_t bind_id;
};

#define BRIG_JOB_ROOT_INIT                                                            \
	{                                                                             \
		.dirfd = -1, .idfd = -1, .upperfd = -1, .lowerfd = -1, .userns = true \
	}

/* brig's own mount namespace, private: the job's mounts are nobody
 * else's and go with brig.  First, before any fd that mounts are made
 * through is opened (the kernel mounts only on the caller's namespace's
 * mounts). */
int brig_job_private_mounts(struct brig_error *err);
/* The mount namespace brig was started in, held (close-on-exec) once
 * brig_job_private_mounts() left it, for a child that outlives brig
 * (egress.c's end): -1 while brig is still in it. */
int brig_job_host_mntns(void);
/*
 * linux/selfexe.h: before brig makes a job's or a pool member's processes
 * it runs from a read-only mount of its binary, re-executed (@ctx's argv
 * from the start: call it before anything is made), unless the job's user
 * namespace keeps the container from the binary (its ids are an
 * unprivileged range of the host's).
 */
int brig_job_protect_exe(const struct brig_context *ctx, const struct brig_job_opts *o,
                         struct brig_error *err);
/* Every host id a job's user namespace may map (the id ranges jobs take
 * theirs from), as one mapping: what linux/selfexe.h weighs. */
void brig_job_id_span(struct brig_id_mapping *all);
/* Make and lock the job's directory and take a free id range. */
int brig_job_root_claim(struct brig_job_root *r, const char *state_root, const char *id,
                        struct brig_error *err);
/* The writable tmpfs of
 * @writable bytes, @rootfs idmapped read-only, and the overlay of both. */
int brig_job_root_mount(struct brig_job_root *r, const char *rootfs, uint64_t writable,
                        struct brig_error *err);
/* Copy @host (a file or a directory tree) to @path in the job's root, owned
 * by the job's @uid/@gid; a destination that is not a regular file or a
 * directory is refused.  Stops on brig's signals (brig_job_signalled). */
int brig_job_copy_in(const struct brig_job_root *r, const char *host, const char *path,
                     uint32_t uid, uint32_t gid, struct brig_error *err);

/* job/export.c: the copier of --export and --copy-in, and its bounds. */
/* A file met again through a hard link: the first member of the entries
 * of the trees (tsearch) that export.c, changes.c and export_tar.c key on
 * it, and their comparison. */
struct brig_job_inode {
	dev_t dev;
	ino_t ino;
};
int brig_job_inode_cmp(const void *a, const void *b);
#define BRIG_JOB_COPY_DEPTH 128        /* directories nested at most */
#define BRIG_JOB_ENTRY_COST 256u       /* bytes each entry counts besides its data */
#define BRIG_JOB_EXPORT_GRACE_MS 5000u /* the export's time after the job's deadline */
struct brig_job_copy_bounds {
	uint64_t limit;       /* bytes written at most (0: none) */
	uint64_t deadline_ms; /* CLOCK_MONOTONIC, ms (0: none) */
	uid_t uid;            /* each entry's owner; (uid_t)-1: brig's, as made */
	gid_t gid;
	/* brig_job_copy_tree: only these paths of the source ("a/b"; none:
	 * all of it) */
	const char *const *only;
	size_t n_only;
};
/* The directories, regular files and symlinks under @src into @dst (brig
 * makes every entry, never with setuid/setgid bits; holes and hard links
 * kept); @flag names the copy in errors. */
int brig_job_copy_tree(int src, int dst, const struct brig_job_copy_bounds *b, const char *flag,
                       struct brig_error *err);
struct stat;
/* The data of regular file @in (@st) to @out, holes kept, stopping on
 * brig's signals. */
int brig_job_copy_data(int in, int out, const struct stat *st, const char *flag, const char *path,
                       struct brig_error *err);
/* Copy what the job wrote (the upper layer) into @dir, owned by brig's
 * caller, all at once: staged in @dir (0700), moved in once complete,
 * removed on any failure.  With @only (--export-path, as the change
 * walk takes it), only what is at or below those paths, the directories
 * on the way made 0700 and left so. */
int brig_job_export(const struct brig_job_root *r, const char *dir, const char *const *only,
                    size_t n_only, const struct brig_job_copy_bounds *b, struct brig_error *err);
/* A signal of brig's or past @b's deadline: -1, and @err says which
 * stopped @flag. */
int brig_job_copy_check(const struct brig_job_copy_bounds *b, const char *flag,
                        struct brig_error *err);

/*
 * job/changes.c: what the job changed in its root, from its writable
 * layer (the upper directory) beside the rootfs (the lower), once the
 * job has ended.  The walk calls @entry for each change, a directory
 * before its entries, in name order.
 */
#define BRIG_JOB_CHANGES_DEPTH 4096u /* directories nested at most */
enum brig_job_change_kind { BRIG_JOB_CREATED, BRIG_JOB_MODIFIED, BRIG_JOB_DELETED };
struct brig_job_change {
	enum brig_job_change_kind kind;
	const char *path; /* from the root, without the leading '/' */
	size_t len;
	const char *name;      /* the last component */
	int dirfd;             /* the upper directory holding it; -1: deleted */
	const struct stat *st; /* the upper entry's; a deleted one's: the lower's */
	bool opaque;           /* a directory that hides the lower's entries */
	bool hidden;           /* deleted by an opaque directory above, not by a
	                        * whiteout of its own */
};
/* What the change set is written to and how: @fd (the JSON: with -1, an
 * array into *@array instead), the bounds (@b->limit: bytes written), the
 * paths left out, and (--changes) the bytes hashed at most: a file past
 * them has "sha256": null. */
struct brig_job_changes_opts {
	const struct brig_job_copy_bounds *b;
	/* paths left out, with what is below them: the job's mount points,
	 * brig's; sorted, without the leading '/' */
	const char *const *skip;
	size_t n_skip;
	/* with any, only what is at or below one of these (--export-path:
	 * sorted, none below another, without the leading '/') */
	const char *const *only;
	size_t n_only;
	int fd;
	uint64_t hash_limit;
};
struct brig_job_changes {
	const struct brig_job_root *r;         /* its upper and lower directories */
	const struct brig_job_changes_opts *o; /* the bounds, the paths left out */
	const char *flag;                      /* in errors */
	int (*entry)(void *data, const struct brig_job_change *c, struct brig_error *err);
	void *data;
};
int brig_job_changes_walk(const struct brig_job_changes *w, struct brig_error *err);
/* A host id of @r's upper layer as the job saw it: its range's, or the
 * overflow id (65534) for one outside it. */
uint32_t brig_job_view_id(const struct brig_job_root *r, uint32_t id);
/* --changes: one JSON object per line into @o->fd, or an array. */
int brig_job_changes_json(const struct brig_job_root *r, const struct brig_job_changes_opts *o,
                          char **array, struct brig_error *err);
/* job/export_tar.c, --export-tar: an OCI image layer (a pax tar,
 * deletions as whiteouts) into @o->fd. */
int brig_job_export_tar(const struct brig_job_root *r, const struct brig_job_changes_opts *o,
                        struct brig_error *err);

/*
 * job/denials.c: the calls the job's filter refuses beyond the base
 * profile's, each one notified to brig, answered with EPERM and counted
 * (with --audit, a line each).  open: the socket of the filter's
 * listenerPath (brig_job_denials_path), in the job's directory @dir;
 * then brig_job_denials_service() whenever brig_job_denials_fd()'s is
 * readable: the create's connection, its fd, then each notification.
 */
/* What /proc/PID/fd/N links to for a seccomp listener's fd. */
#define BRIG_SECCOMP_NOTIFY_LINK "anon_inode:seccomp notify"
#define BRIG_JOB_DENIALS_FREE 10000u  /* answered at once; then 1 a ms */
#define BRIG_JOB_DENIALS_MAX 1000000u /* events counted at most */
struct brig_job_audit {
	int fd;         /* --audit's file, or -1 */
	uint64_t limit; /* lines at most */
	uint64_t t0;    /* the job's start (brig_job_now_ms): each line's "ms" */
	uint64_t lines; /* written */
	bool truncated; /* one was not: past the limit */
	int failed;     /* the errno of a write that failed, or 0 */
};
/* job/audit.c: a line of --audit begun in @w, its "ms" in it: false when
 * there is no --audit or the limit is reached (then truncated); the
 * caller adds its fields and ends it, which writes it whole. */
struct brig_jsonw;
bool brig_job_audit_begin(struct brig_job_audit *a, struct brig_jsonw *w);
void brig_job_audit_end(struct brig_job_audit *a, struct brig_jsonw *w);
struct brig_job_denials;
struct brig_result_denials;
int brig_job_denials_open(struct brig_job_denials **d, const char *dir,
                          struct brig_job_audit *audit, struct brig_error *err);
/* A pool member's: its listener @notify (taken), from its claimer. */
struct brig_job_denials *brig_job_denials_adopt(int notify, struct brig_job_audit *audit);
const char *brig_job_denials_path(const struct brig_job_denials *d);
/* The fd to poll, or -1 while the answers wait (past
 * BRIG_JOB_DENIALS_FREE): then *@wait says for how many ms (else -1). */
int brig_job_denials_fd(const struct brig_job_denials *d, int *wait);
/* What poll() said of that fd (@revents) served.  -1 when the listener's
 * fd did not come with the create's message: the job must not run on
 * (its refused calls would fail open: ENOSYS, and a listener of its own
 * could answer them). */
int brig_job_denials_service(struct brig_job_denials *d, short revents);
/* The counts, into @r (valid until the next call or close); false when
 * the job's profile counts none (@d NULL).  A job that ended before its
 * listener's fd came has made no refused call: none counted. */
bool brig_job_denials_result(struct brig_job_denials *d, struct brig_result_denials *r);
void brig_job_denials_close(struct brig_job_denials *d);

/* job/common.c: the signal (SIGINT, SIGTERM, SIGHUP) brig got, or 0. */
int brig_job_signalled(void);
/* The bytes the writable layer holds. */
uint64_t brig_job_writable_used(const struct brig_job_root *r);
/* Unmount, remove the directory, unlock (and remove the id range's lock
 * file, brig_job_ids_release). */
void brig_job_root_release(struct brig_job_root *r);
/*
 * The lock file of the id range that starts at @host_id removed, when
 * nobody holds its lock (it is taken, then the file unlinked): a range
 * that was let go of leaves nothing in /run/brig-job-ids.  Safe whoever
 * calls it: a range still held (by a pool member's init, or a job that
 * took it since) keeps its file, and a claimer that locked the file as it
 * went tries again (claim_ids).  A host id outside the ranges: nothing.
 */
void brig_job_ids_release(uint32_t host_id);
/* Remove the job directory @name of the jobs directory @jobsfd, once
 * nothing is mounted on it. */
void brig_job_dir_remove(int jobsfd, const char *name);

/* A claimed pool member's root (job/pool.c): its init's root, and the
 * upper directory its init kept; brig made none of it and removes none
 * of it (forget). */
void brig_job_root_adopt(struct brig_job_root *r, const char *state_root, const char *id,
                         pid_t init, int upperfd, uint32_t host_id);
void brig_job_root_forget(struct brig_job_root *r);

/* Call @reap for each job of @state_root whose brig is gone (its lock is
 * free), then remove its directory. */
int brig_job_root_gc(const char *state_root, void (*reap)(const char *id, void *data), void *data,
                     struct brig_error *err);

/*
 * job/pool_member.c: a pool's members as brig keeps them.  Its
 * directories (brig_pool_subdirs: creating, ready, claimed) and their
 * entries' paths (heap).
 */
extern const char *const brig_pool_subdirs[3];
char *brig_pool_dir(const char *root, const char *name);
char *brig_pool_entry(const char *root, const char *name, const char *sub, const char *id);
/* The member's own record, <root>/jobs/<id>/member (brig_job_member_record):
 * 0, or -1 when it is not a file of brig's own that says all of this. */
struct brig_pool_record {
	int upper_fd, handoff_fd;
	uint32_t host_id;
	uint64_t dev, ino;
	int notify_fd; /* its seccomp listener's (-1: none; a record of an
	                * older brig has no such field) */
	int lower_fd;  /* the rootfs it was made from, as its overlay's lower
	                * (-1: a record of an older brig has none) */
	uint64_t lower_dev, lower_ino;
};
int brig_pool_read_record(const char *root, const char *id, struct brig_pool_record *r);
/* Whether member @id still waits: its container exists, created, its
 * init alive. */
bool brig_pool_member_waits(const char *root, const char *id);
/* Whether container @id is a pool's member, as only brig records it (an
 * entry's name alone never makes brig delete a container). */
bool brig_pool_is_member(const char *root, const char *id);
/* Everything of member @id of pool @name: with @checked, its container
 * only if it is a member (brig_pool_is_member); its entries in any case. */
void brig_pool_member_destroy(const struct brig_context *ctx, const char *name, const char *id,
                              bool checked);
/* The job directory of member @id (job/rootfs.c). */
void brig_pool_remove_job_dir(const char *root, const char *id);
/* A member's making, from its entry in creating/ to ready/. */
int brig_pool_member_begin(const char *root, const char *name, char **id, int *lock,
                           struct brig_error *err);
void brig_pool_member_abort(const char *root, const char *name, const char *id, int lock);
/* A ready member, as its entry says: the numbers of two fds its init
 * keeps, and the job's first host id. */
struct brig_pool_member {
	int upper_fd;   /* the writable layer's upper directory */
	int handoff_fd; /* the spare end of its hand-off socket (handoff.h) */
	uint32_t host_id;
	pid_t pid; /* the init, as the entry says */
	uint64_t start;
};
bool brig_pool_member_parse(const char *text, struct brig_pool_member *m);
/* What the entry open at @fd says (brig_pool_member_parse). */
bool brig_pool_read_member(int fd, struct brig_pool_member *m);
/* What a member's maker records of it in its job directory (the 0700
 * state root's, <root>/jobs/<id>/member): @m's fd numbers and host id,
 * and the device and inode of the upper directory @upperfd, which a claim
 * checks an entry against (pool.c); the init's seccomp listener
 * @notify_fd (-1: none) and its fd @lowerfd of the overlay's lower, with
 * its device and inode. */
int brig_job_member_record(int jobdirfd, const struct brig_pool_member *m, int upperfd,
                           int notify_fd, int lowerfd, struct brig_error *err);
/* The member made ready: its init's pid and start time into @m, and @m
 * into its entry, which moves to ready/. */
int brig_pool_member_ready(const char *root, const char *name, const char *id,
                           struct brig_pool_member *m, struct brig_error *err);
/* A claim: the member, locked (its entry moved to claimed/), a pidfd of
 * its init, and its state once read (brig_pool_claim_state). */
struct brig_state;
struct brig_pool_claim {
	char *id;
	int lock;
	struct brig_pool_member m; /* as checked against the member's records */
	struct brig_state *s;
	int pidfd;
	int handoff, upper; /* the init's fds, copied and checked (pool.c) */
	int notify;         /* its seccomp listener, copied and checked, or -1 */
	int lower;          /* the rootfs as its overlay's lower, copied and checked, or -1 */
	int rootfd;         /* its root, for --copy-in (brig_pool_adopt) */
};
#define BRIG_POOL_CLAIM_INIT                                                                    \
	{                                                                                       \
		.lock = -1, .pidfd = -1, .handoff = -1, .upper = -1, .notify = -1, .lower = -1, \
		.rootfd = -1                                                                    \
	}
void brig_pool_claim_release(struct brig_pool_claim *c);
/* job/pool_claim.c: a claim, its checks, the member's root and socket.
 * The claimed member's state, for its cgroup's figures: read while the
 * job runs. */
int brig_pool_claim_state(const struct brig_context *ctx, struct brig_pool_claim *c,
                          struct brig_error *err);
/* 1 and @c: a member claimed, checked against what brig recorded of it
 * (pool.c says what); 0: none ready, or none that checks out. */
int brig_pool_claim(const struct brig_context *ctx, const char *name, struct brig_pool_claim *c,
                    struct brig_error *err);
/* The claimed member's root (its init's, with the upper directory its init
 * kept), the socket to hand it the job on and its seccomp listener (or
 * -1; all copied from the init with pidfd_getfd) and its mount namespace
 * (or -1). */
int brig_pool_adopt(const struct brig_context *ctx, struct brig_pool_claim *c,
                    struct brig_job_root *r, int *handoff, int *notify, int *mntns,
                    struct brig_error *err);
/* What follows a claim of member @id (NULL: a miss), whose lock is @lock,
 * in a brig of its own (`brig pool follow`, job/pool.c): the member's end
 * once the claimer has gone, and a replacement.  @hold (or -1), the
 * member's mount namespace, is let go of after the claimer: the last of
 * it, its unmounting, is the follower's.  The claimer keeps the returned
 * fd until it exits. */
int brig_pool_follow(const struct brig_context *ctx, const char *name, const char *id, int lock,
                     int hold);
/* How long after a claim its replacement is started at the latest. */
#define BRIG_POOL_REFILL_MS 50
/* A refill makes nothing while a claim came or went this recently and a
 * quarter of the pool is still ready (pool.c: claims_under_way), for at
 * most BRIG_POOL_YIELD_MS in all. */
#define BRIG_POOL_QUIET_MS 100
#define BRIG_POOL_YIELD_MS 5000
/* The members of claimers that died with their followers (each follower
 * does this once its own claimer has gone). */
void brig_pool_gc_claims(const struct brig_context *ctx, const char *name);
/* job/member.c: make one member of @pool with @o's sandbox, its cgroup under
 * @parents (cgroup.h: brig_cgroup_parents; the pool's record). */
int brig_job_member_create(const struct brig_context *ctx, const struct brig_job_opts *o,
                           const char *pool, const char *parents, struct brig_error *err);

/* contrib/seccomp/default.json, built in (default_profile.c) */
extern const char brig_job_default_profile[];
extern const size_t brig_job_default_profile_len;

#endif
