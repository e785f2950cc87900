/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the cgroup back ends (v1.c, v2.c) and cgroup.c; not exported. */
#ifndef BRIG_CGROUP_INTERNAL_H
#define BRIG_CGROUP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup/cgroup.h"

struct brig_dev_rule;
struct brig_error;
struct brig_jsonw;
struct brig_resources;

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

/* The hierarchy that holds @controller ("memory"; BRIG_CG_UNIFIED: the v2
 * one; on v2 every controller is in the one hierarchy), or NULL. */
const struct brig_cg_hier *brig_cg_find(const struct brig_cgroup *cg, const char *controller);

/* Write @value to @file of @h (no O_CREAT, no symlinks).  The error is
 * `write "<value>" to "<dir>/<file>": <errno>`. */
int brig_cg_write(const struct brig_cg_hier *h, const char *file, const char *value,
                  struct brig_error *err);
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

/* Shared by v1 (hybrid) and v2, in v1.c. */
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

/* Freeze-aware helpers for v1 and for v2 without cgroup.kill. */
int brig_cg_read_pids(const struct brig_cg_hier *h, pid_t **pids, size_t *n,
                      struct brig_error *err);
/* Signal those of @pids (sorted, read from @h) that are still in @h's
 * tree: each by a pidfd opened before the tree is read again, so that a
 * pid reused meanwhile by another process is never signalled. */
void brig_cg_signal_pids(const struct brig_cg_hier *h, const pid_t *pids, size_t n, int sig);

#endif
