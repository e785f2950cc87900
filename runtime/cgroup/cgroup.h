/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's cgroup, on the three layouts found in the wild:
 *
 *   v2      one cgroup2 hierarchy at /sys/fs/cgroup (modern distributions,
 *           Kubernetes nodes);
 *   v1      one cgroup hierarchy per controller (or co-mounted group of
 *           them: "cpu,cpuacct") under /sys/fs/cgroup;
 *   hybrid  v1 as above plus a cgroup2 hierarchy at /sys/fs/cgroup/unified
 *           that may hold some controllers.
 *
 * The layout is detected once; the per-layout code sits behind a small
 * ops table (cgroup/internal.h).  Who makes the cgroup is a second table,
 * chosen once at create and recorded in the state: brig itself through
 * cgroupfs, systemd as a transient unit, or nobody (--cgroup-manager
 * disabled: no cgroup, no limits).  The caller never asks which one it has.
 *
 * Placement follows runc: an absolute linux.cgroupsPath names the cgroup
 * in every hierarchy; a relative one is nested under the caller's own
 * cgroup, hierarchy by hierarchy; without one, the container gets a child
 * named after its id under the caller's cgroup.  On a cgroup2 hierarchy the
 * init is born inside (CLONE_INTO_CGROUP); v1 hierarchies get its pid
 * before it does anything.  Every directory brig creates is recorded in
 * the container's state so that delete removes exactly those.
 */
#ifndef BRIG_CGROUP_CGROUP_H
#define BRIG_CGROUP_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct brig_error;
struct brig_jsonw;
struct brig_linux;
struct brig_resources;
struct brig_state;

enum brig_cg_layout {
	BRIG_CG_V1,
	BRIG_CG_HYBRID,
	BRIG_CG_V2,
};

/* The name of the v2 hierarchy in the per-hierarchy lists. */
#define BRIG_CG_UNIFIED "unified"

struct brig_cg_hier {
	char *name;    /* "memory", "cpu,cpuacct", "name=systemd", BRIG_CG_UNIFIED */
	char *dir;     /* the container's cgroup: "/sys/fs/cgroup/memory/a/b" */
	char *created; /* the topmost directory brig created for it, or NULL */
	bool v2;
};

struct brig_systemd_unit;
struct brig_cg_manager; /* cgroup/internal.h */

/* Who makes the container's cgroup (--cgroup-manager, --systemd-cgroup). */
enum brig_cg_driver {
	BRIG_CG_DRIVER_CGROUPFS,
	BRIG_CG_DRIVER_SYSTEMD,
	BRIG_CG_DRIVER_DISABLED,
};

/* The manager of a cgroup that has none: brig_cgroup_create's with
 * BRIG_CG_DRIVER_DISABLED, and an empty struct brig_cgroup's. */
extern const struct brig_cg_manager brig_cg_disabled_manager;

struct brig_cgroup {
	enum brig_cg_layout layout;
	struct brig_cg_hier *h;
	size_t n;
	char *unit; /* systemd driver: the unit, else NULL */
	int v2fd;   /* the v2 cgroup's directory (CLONE_INTO_CGROUP), or -1 */
	/* systemd driver, during create: the unit to start once the init
	 * exists (it is started with its pid), and the config to apply */
	struct brig_systemd_unit *sd;
	const struct brig_linux *lx;
	/* the v1 hierarchies' "tasks" files, one per entry of h (-1: none),
	 * for the init to enter itself (brig_cgroup_open_tasks), or NULL */
	int *tasks;
	const struct brig_cg_manager *mgr; /* never NULL */
	/* create, before it makes any directory: @record gets the ones it is
	 * about to make (brig_cgroup_from_record reads them back), so that a
	 * brig killed before its state is saved leaves them named; NULL: no
	 * record (the systemd driver makes none) */
	int (*record)(void *arg, const char *text, struct brig_error *err);
	void *record_arg;
	/* create (cgroupfs): where a relative cgroupsPath, or the id, goes
	 * instead of under the caller's own cgroup, per hierarchy, as
	 * brig_cgroup_parents gives it (a warm pool's, job/pool.c); NULL:
	 * the caller's */
	const char *parents;
};

#define BRIG_CGROUP_INIT                                                                   \
	{                                                                                  \
		BRIG_CG_V1, NULL, 0, NULL, -1, NULL, NULL, NULL, &brig_cg_disabled_manager \
	}

void brig_cgroup_release(struct brig_cgroup *cg);

/* A cgroup filesystem mounted at /sys/fs/cgroup or right under it, with
 * the caller's own cgroup in it (from /proc/self/cgroup). */
struct brig_cg_mount {
	char *mountpoint;  /* "/sys/fs/cgroup/cpu,cpuacct" */
	char *root;        /* the hierarchy's directory mounted there */
	char *controllers; /* "cpu,cpuacct", "name=systemd", BRIG_CG_UNIFIED */
	char *path;        /* the caller's cgroup in this hierarchy */
	bool v2;
};

int brig_cgroup_mounts(struct brig_cg_mount **out, size_t *n, struct brig_error *err);
void brig_cgroup_mounts_free(struct brig_cg_mount *m, size_t n);
/* The directory of cgroup @path (as /proc/PID/cgroup names it) under @m. */
char *brig_cgroup_mount_dir(const struct brig_cg_mount *m, const char *path);

/*
 * Where a container with a relative cgroupsPath (or none) would be placed
 * now, one "<controllers>\t<directory>\n" line per hierarchy it joins: the
 * caller's cgroup (on pure v2, its parent: runc's rule); with @path, as
 * linux.cgroupsPath is placed: absolute, that cgroup in every hierarchy,
 * relative, below the caller's.  Heap text, for struct brig_cgroup's
 * @parents.
 */
char *brig_cgroup_parents(const char *path, struct brig_error *err);

/* The host's layout, read from /sys/fs/cgroup (once per process). */
int brig_cgroup_layout(enum brig_cg_layout *out, struct brig_error *err);
const char *brig_cgroup_layout_name(enum brig_cg_layout layout);

/* The path of the container's v1 cpu.rt_runtime_us when it is 0 (heap),
 * else NULL: a budget, or none to give (v2, no RT_GROUP_SCHED). */
char *brig_cgroup_rt_budget_empty(const struct brig_cgroup *cg);

/*
 * Check @r against what the host offers before anything exists: a
 * resource whose controller is missing, a v1-only resource on v2 (or the
 * reverse), a value out of range.  The error names the JSON path under
 * "linux.resources" (@prefix is put in front: "config.json: ").
 */
int brig_cgroup_check(const struct brig_resources *r, const char *prefix, struct brig_error *err);

/*
 * Create the container's cgroup from linux.cgroupsPath (NULL or "": one
 * named after @id) and apply @lx's resources, device rules included (the
 * defaults runc allows, then the rules of the config, then the config's
 * devices).  On failure nothing brig created is left.  @driver says who
 * makes it: brig (cgroupfs); systemd, whose unit starts with the init at
 * brig_cgroup_enter ("slice:prefix:name" paths); or nobody (disabled: @cg
 * stays empty, and linux.resources is not applied, crun's rule).
 */
int brig_cgroup_create(const struct brig_linux *lx, const char *id, enum brig_cg_driver driver,
                       struct brig_cgroup *cg, struct brig_error *err);

/* The clone3 cgroup fd, or -1 when the init is placed afterwards. */
static inline int brig_cgroup_clone_fd(const struct brig_cgroup *cg)
{
	return cg->v2fd;
}

/*
 * Before the clone: open the "tasks" file of every v1 hierarchy (of its
 * sub-cgroup @subs[i] of hierarchy i when @subs and it are not NULL:
 * exec --cgroup), so that the new process
 * can enter them itself with brig_cgroup_enter_self.  A process
 * that moves itself by writing "0" there skips the kernel's global
 * threadgroup lock, whose first writer after an idle spell waits for an
 * RCU grace period: 5-15 ms for a pid written into cgroup.procs, 50 us
 * this way.  An init in a user namespace of its own can do it too: the
 * kernel lets a task move itself (and since 5.16 checks a v1 move against
 * the credentials the file was opened with, brig's).  Not for the systemd
 * driver.
 */
int brig_cgroup_open_tasks(struct brig_cgroup *cg, char *const *subs, struct brig_error *err);
/*
 * exec --cgroup, as runc reads it (@args: each flag given): "PATH" alone,
 * a sub-cgroup of the container's in every hierarchy; "CTRL[,CTRL]:PATH",
 * in those controllers' v1 hierarchies, the flag repeated for others.
 * *@out: one entry per hierarchy of @cg, NULL for the container's own
 * cgroup (and NULL itself when @n is 0); each named one must exist.  A
 * path out of the container's cgroup, an unknown controller, a missing
 * sub-cgroup: refused in runc's words.  Freed by brig_cgroup_sub_paths_free.
 */
int brig_cgroup_sub_paths(const struct brig_cgroup *cg, const char *const *args, size_t n,
                          char ***out, struct brig_error *err);
void brig_cgroup_sub_paths_free(const struct brig_cgroup *cg, char **subs);
/* In the new process, first thing: into each hierarchy opened above, the
 * freezer last.  It changes nothing in @cg (the process may share brig's
 * memory: linux/clone_vm.h).  The fds are root's and must never reach the
 * container's processes: the caller closes them next (brig_cgroup_close_tasks,
 * or with the rest of brig's: brig_fds_prepare). */
int brig_cgroup_enter_self(const struct brig_cgroup *cg, struct brig_error *err);
/* Whether a process born with brig_cgroup_clone_fd (CLONE_INTO_CGROUP) that
 * entered the hierarchies opened above itself is in all of the cgroup:
 * brig_cgroup_enter would do nothing for it. */
bool brig_cgroup_entered_at_birth(const struct brig_cgroup *cg);
/* After the clone, in brig: the fds are the new process's business now;
 * in the new process, once it has entered. */
void brig_cgroup_close_tasks(struct brig_cgroup *cg);

/* Put @pid into every hierarchy (its sub-cgroup @subs[i], as above) it
 * was not born into, nor entered itself (systemd driver: start the unit
 * with it, then apply the resources). */
int brig_cgroup_enter(struct brig_cgroup *cg, char *const *subs, pid_t pid, struct brig_error *err);

/* Record @cg into @s (strings are copied into its arena), and back. */
void brig_cgroup_to_state(const struct brig_cgroup *cg, struct brig_state *s);
int brig_cgroup_from_state(const struct brig_state *s, struct brig_cgroup *cg,
                           struct brig_error *err);
/* What create recorded (@record above): one "NAME\tDIR\tCREATED\n" line
 * per hierarchy, CREATED the topmost directory that did not exist yet
 * (empty: none); a line cut short by a crash is ignored.  Enough for
 * brig_cgroup_destroy. */
int brig_cgroup_from_record(const char *text, struct brig_cgroup *cg, struct brig_error *err);

/* Whether @cg has any hierarchy at all (a state without one: none). */
static inline bool brig_cgroup_present(const struct brig_cgroup *cg)
{
	return cg->n > 0;
}

/* update: apply the resources that @r sets, leaving the others. */
int brig_cgroup_update(const struct brig_cgroup *cg, const struct brig_resources *r,
                       struct brig_error *err);

/* Every process in the container's cgroup, sorted. */
int brig_cgroup_pids(const struct brig_cgroup *cg, pid_t **pids, size_t *n, struct brig_error *err);

/*
 * Signal every process of the cgroup, so that none forks past the signal
 * (kill --all, delete --force, the run.brig.job.timeout deadline, a job's
 * teardown): SIGKILL through cgroup.kill where the kernel has it, else,
 * and for every other signal, with the cgroup frozen meanwhile (v1's
 * freezer, v2's cgroup.freeze), else pid by pid; SIGKILL again until the
 * cgroup is empty (bounded: an error when it is not).  A paused container
 * stays frozen after any other signal; after SIGKILL it is thawed, to die.
 * Only a cgroup brig made for the container (in some hierarchy) is ever
 * signalled or drained: 1, and nothing sent, for one that existed before.
 */
int brig_cgroup_signal(const struct brig_cgroup *cg, int sig, struct brig_error *err);

/* pause / resume, and whether the cgroup is frozen now. */
int brig_cgroup_freeze(const struct brig_cgroup *cg, bool frozen, struct brig_error *err);
bool brig_cgroup_frozen(const struct brig_cgroup *cg);

/*
 * Kill everything in the cgroup when brig made it (brig_cgroup_signal's
 * SIGKILL: until it is empty), and remove every directory brig created,
 * retrying EBUSY a bounded number of times.  A cgroup already gone is no
 * error.
 */
int brig_cgroup_destroy(struct brig_cgroup *cg, struct brig_error *err);

/* events --stats: the "data" object of runc's stats event. */
int brig_cgroup_stats(const struct brig_cgroup *cg, struct brig_jsonw *w, struct brig_error *err);

/*
 * events: a watch on the cgroup's OOM kills.  @w->fd polls readable when
 * something happened; brig_cgroup_oom_read() then says how many OOM
 * kills there were since the last call.  v1: an eventfd on
 * memory.oom_control; v2: inotify on memory.events.
 */
struct brig_cg_oom_watch {
	int fd, aux;
	int64_t seen;
};

#define BRIG_CG_OOM_WATCH_INIT \
	{                      \
		-1, -1, 0      \
	}

int brig_cgroup_oom_watch(const struct brig_cgroup *cg, struct brig_cg_oom_watch *w,
                          struct brig_error *err);
int64_t brig_cgroup_oom_read(const struct brig_cgroup *cg, struct brig_cg_oom_watch *w);
void brig_cgroup_oom_unwatch(struct brig_cg_oom_watch *w);

/* What the container used (usage.c); a figure the host does not keep is
 * 0 (pids_peak: has_pids_peak false). */
struct brig_cgroup_usage {
	uint64_t cpu_user_ns, cpu_system_ns;
	uint64_t memory_peak; /* bytes */
	uint64_t oom_kills;   /* processes the OOM killer ended */
	uint64_t pids_peak;
	bool has_pids_peak;
};
void brig_cgroup_usage(const struct brig_cgroup *cg, struct brig_cgroup_usage *u);

#endif
