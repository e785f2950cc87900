/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared by the files of runtime/cgroup/; not exported.  Two tables:
 *
 *   struct brig_cg_ops      what differs between the layouts: v1 (and
 *                           hybrid) in v1.c, v2 in v2.c;
 *   struct brig_cg_manager  who makes the cgroup: brig (cgroupfs.c),
 *                           systemd (systemd_manager.c) or nobody (the
 *                           disabled manager, in cgroup.c).
 *
 * cgroup.c does the rest once, for every layout and manager; files.c
 * reads and writes the cgroup files for all of them.
 */
#ifndef BRIG_CGROUP_INTERNAL_H
#define BRIG_CGROUP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup/cgroup.h"

struct brig_dev_rule;
struct brig_error;
struct brig_jsonw;
struct brig_linux;
struct brig_resources;

#define BRIG_CG_ROOT "/sys/fs/cgroup"
/* how long teardown waits for a cgroup to empty, and how often it looks */
#define BRIG_CG_DRAIN_TRIES 200
#define BRIG_CG_DRAIN_SLEEP_MS 10
/* walks of brig_cg_make_dir restarted when a parent vanishes under it */
#define BRIG_CG_MKDIR_RESTARTS 8

/* runc's MemoryData, in bytes */
struct brig_cg_memdata {
	uint64_t usage, max_usage, failcnt, limit;
};

/* What `events --stats` reports; each back end fills it from its own
 * files, cgroup.c writes it as runc's JSON.  A value not found is 0. */
struct brig_cg_stats {
	uint64_t cpu_total, cpu_kernel, cpu_user; /* ns */
	bool has_percpu;                          /* v1: cpuacct's per-cpu usage */
	char *percpu;                             /* its text as read, or NULL */
	uint64_t periods, throttled_periods, throttled_time;
	uint64_t cache;
	struct brig_cg_memdata usage, swap;
	bool has_kmem; /* v1: kernel and kernelTCP */
	struct brig_cg_memdata kernel, kernel_tcp;
	const struct brig_cg_hier *memory; /* memory.stat's ("raw"), or NULL */
	uint64_t pids_current, pids_limit; /* limit 0: none */
};

/* What differs between v1 (and hybrid, whose v1 controllers hold the
 * resources) and v2.  cgroup.c does everything else. */
struct brig_cg_ops {
	/* write the resources @r sets; @devices is the full device rule list
	 * (NULL on an update that does not change them) */
	int (*apply)(const struct brig_cgroup *cg, const struct brig_resources *r,
	             const struct brig_dev_rule *devices, size_t n_devices, struct brig_error *err);
	/* which JSON path of @r the host cannot honour, as an error */
	int (*check)(const struct brig_cgroup *cg, const struct brig_resources *r,
	             struct brig_error *err);
	int (*freeze)(const struct brig_cgroup *cg, bool frozen, struct brig_error *err);
	bool (*frozen)(const struct brig_cgroup *cg);
	void (*stats)(const struct brig_cgroup *cg, struct brig_cg_stats *st);
	int (*oom_watch)(const struct brig_cgroup *cg, struct brig_cg_oom_watch *w,
	                 struct brig_error *err);
	int64_t (*oom_read)(const struct brig_cgroup *cg, struct brig_cg_oom_watch *w);
};

extern const struct brig_cg_ops brig_cg_v1_ops, brig_cg_v2_ops;

static inline const struct brig_cg_ops *brig_cg_ops_of(const struct brig_cgroup *cg)
{
	return cg->layout == BRIG_CG_V2 ? &brig_cg_v2_ops : &brig_cg_v1_ops;
}

/*
 * Who makes the container's cgroup, and the steps that differ with it
 * (crun's cgroup managers).  Chosen once: by brig_cgroup_create from the
 * driver, by brig_cgroup_from_state from what the state recorded.  Every
 * hook is set (the disabled manager's do nothing, as a cgroup without a
 * hierarchy would); cgroup.c never asks which manager it has.
 */
struct brig_cg_manager {
	const char *name; /* "cgroupfs", "systemd", "disabled" */
	/* brig_cgroup_create: @cg is empty, its mgr already set; on failure
	 * nothing is left and @cg is released */
	int (*create)(const struct brig_linux *lx, const char *id, struct brig_cgroup *cg,
	              struct brig_error *err);
	/* brig_cgroup_open_tasks and brig_cgroup_enter */
	int (*open_tasks)(struct brig_cgroup *cg, char *const *subs, struct brig_error *err);
	int (*enter)(struct brig_cgroup *cg, char *const *subs, pid_t pid, struct brig_error *err);
	/* brig_cgroup_entered_at_birth: enter would do nothing */
	bool (*entered_at_birth)(const struct brig_cgroup *cg);
	/* update: what the manager holds besides the files, before they are
	 * written (the unit's properties) */
	int (*update)(const struct brig_cgroup *cg, const struct brig_resources *r,
	              struct brig_error *err);
	/* destroy: once the cgroup is empty, before brig's directories go */
	int (*destroy)(struct brig_cgroup *cg, struct brig_error *err);
	/* brig_cgroup_release: what the manager keeps in @cg */
	void (*release)(struct brig_cgroup *cg);
	/* the cgroup is the container's own in every hierarchy, whoever made
	 * the directories (a unit brig started), not only where brig made one */
	bool owns_all;
};

extern const struct brig_cg_manager brig_cg_cgroupfs_manager, brig_cg_systemd_manager;

/* ------------------------------------------------------------ cgroupfs.c */

/* Is every comma-separated item of @want among those of @have? */
bool brig_cg_list_includes(const char *have, const char *want);
void brig_cg_sleep_ms(long ms);

/*
 * The hierarchies a container joins, into @cg (its layout too): every v1
 * one the caller is in, and the v2 one.  The directory in each is
 * @unit_cgroup below the hierarchy's root when not NULL (systemd's unit,
 * where systemd puts it), else linux.cgroupsPath @cgpath or @id placed as
 * runc does.  @mounts gets the mounts read, for the caller to free.
 */
int brig_cg_plan_dirs(struct brig_cgroup *cg, const char *cgpath, const char *id,
                      const char *unit_cgroup, struct brig_cg_mount **mounts, size_t *n_mounts,
                      struct brig_error *err);
/* mkdir -p @h->dir below @mountpoint, remembering the topmost new
 * directory in @h->created (v1 cpuset filled, v2 controllers enabled: from
 * the root down with @whole_path, a pure v2 host, as runc does). */
int brig_cg_make_dir(struct brig_cg_hier *h, const char *mountpoint, bool whole_path,
                     struct brig_error *err);
/* rmdir what brig created of @h, the cgroups below it first: the
 * container's own, EBUSY retried a bounded number of times; then the
 * parents brig made, up to @h->created, each while nothing else uses it
 * (a busy one is left).  A directory already gone is fine. */
int brig_cg_remove_dir(const struct brig_cg_hier *h, struct brig_error *err);

/* ------------------------------------------------------------ cgroup.c */

/* The hierarchy that holds @controller ("memory"; BRIG_CG_UNIFIED: the v2
 * one; on v2 every controller is in the one hierarchy), or NULL. */
const struct brig_cg_hier *brig_cg_find(const struct brig_cgroup *cg, const char *controller);

/* ------------------------------------------------------------ files.c */

/* Open @file of @h with @flags (no symlinks, close-on-exec); -1 and errno. */
int brig_cg_open_file(const struct brig_cg_hier *h, const char *file, int flags);

/* Write @value to @file of @h (no O_CREAT, no symlinks).  The error is
 * `write "<value>" to "<dir>/<file>": <errno>`. */
int brig_cg_write(const struct brig_cg_hier *h, const char *file, const char *value,
                  struct brig_error *err);
/* The same through *@fd, opened on first use and kept open for the next
 * value (a file that takes one value a write: v1's device rules). */
int brig_cg_write_through(const struct brig_cg_hier *h, int *fd, const char *file,
                          const char *value, struct brig_error *err);
int brig_cg_writef(const struct brig_cg_hier *h, const char *file, struct brig_error *err,
                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The same, the error prefixed with the JSON path "linux.resources.<path>". */
#define BRIG_CG_R "linux.resources."
int brig_cg_put(const struct brig_cg_hier *h, const char *file, const char *path,
                struct brig_error *err, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Read @file of @h (bounded, NUL-terminated); NULL with errno set. */
char *brig_cg_read(const struct brig_cg_hier *h, const char *file);
/* @file of @h read as one unsigned number ("max": UINT64_MAX); -1 if not. */
int brig_cg_read_u64(const struct brig_cg_hier *h, const char *file, uint64_t *out);
/* The value of @key in a "key value" per line file (memory.stat, cpu.stat). */
int brig_cg_read_keyed(const struct brig_cg_hier *h, const char *file, const char *key,
                       uint64_t *out);
bool brig_cg_has(const struct brig_cg_hier *h, const char *file);
/* The same as plain values for stats: 0 when @h is NULL or the file or key
 * is missing. */
uint64_t brig_cg_value(const struct brig_cg_hier *h, const char *file);
uint64_t brig_cg_keyed(const struct brig_cg_hier *h, const char *file, const char *key);

/* Freeze-aware helpers for v1 and for v2 without cgroup.kill. */
int brig_cg_read_pids(const struct brig_cg_hier *h, pid_t **pids, size_t *n,
                      struct brig_error *err);
/* Signal those of @pids (sorted, read from @h) that are still in @h's
 * tree: each by a pidfd opened before the tree is read again, so that a
 * pid reused meanwhile by another process is never signalled. */
void brig_cg_signal_pids(const struct brig_cg_hier *h, const pid_t *pids, size_t n, int sig);

/* resources.c: conversions that runc makes, shared by the back ends. */
uint64_t brig_cg_shares_to_weight(uint64_t shares);
uint64_t brig_cg_blkio_to_io_weight(uint64_t weight);
/* The device rule list of a new container: deny all, the config's rules,
 * then runc's defaults (linux.devices adds none). */
size_t brig_cg_device_rules(const struct brig_linux *lx, struct brig_dev_rule **out);
/* The rules of linux.resources.devices alone (update). */
size_t brig_cg_config_device_rules(const struct brig_resources *r, struct brig_dev_rule **out);
/* "c 1:3 rwm" for v1's devices.allow / devices.deny */
void brig_cg_dev_rule_format(const struct brig_dev_rule *rule, char *buf, size_t size);

/* resources.c: writers shared by v1 (and hybrid, whose cgroup2 hierarchy
 * takes the unified keys) and v2. */
struct brig_hugepage_limit;
struct brig_kv;
struct brig_rdma;
bool brig_cg_v2_has_controller(const struct brig_cg_hier *h, const char *ctrl);
int brig_cg_apply_hugetlb(const struct brig_cg_hier *h, bool v2,
                          const struct brig_hugepage_limit *l, size_t n, struct brig_error *err);
int brig_cg_apply_unified(const struct brig_cg_hier *h, const struct brig_kv *kv, size_t n,
                          struct brig_error *err);
int brig_cg_apply_rdma(const struct brig_cg_hier *h, const struct brig_rdma *rd, size_t n,
                       struct brig_error *err);

#endif
