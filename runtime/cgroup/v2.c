/* SPDX-License-Identifier: Apache-2.0 */
/* cgroup v2: one hierarchy; devices are an eBPF program. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/devices_bpf.h"
#include "cgroup/internal.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/jsonw.h"
#include "util/log.h"

#define put brig_cg_put

static const struct brig_cg_hier *hier(const struct brig_cgroup *cg)
{
	return brig_cg_find(cg, BRIG_CG_UNIFIED);
}

static int unsupported(const char *path, struct brig_error *err)
{
	return brig_error_set(err, "%s%s: not supported on cgroup v2", BRIG_CG_R, path);
}

/* memory.swap.max is swap alone; the spec's swap is memory + swap.  An
 * update without a limit takes the one in force (runc merges updates
 * into the container's resources). */
static int swap_value(const struct brig_cg_hier *h, const struct brig_memory *m, int64_t *out,
                      struct brig_error *err)
{
	int64_t swap = m->swap.value, limit = m->limit.set ? m->limit.value : 0;
	uint64_t cur;

	if (!m->limit.set && h && brig_cg_read_u64(h, "memory.max", &cur) == 0)
		limit = cur == UINT64_MAX ? -1 : (int64_t)cur;

	if (swap == -1 || swap == 0) {
		*out = swap;
		return 0;
	}
	if (limit == 0 || limit == -1)
		return brig_error_set(err, "%smemory.swap: a swap limit needs a memory limit",
		                      BRIG_CG_R);
	if (swap < limit)
		return brig_error_set(err, "%smemory.swap: must be at least memory.limit (%lld)",
		                      BRIG_CG_R, (long long)limit);
	*out = swap - limit;
	return 0;
}

static int check(const struct brig_cgroup *cg, const struct brig_resources *r,
                 struct brig_error *err)
{
	int64_t swap;

	if (r->cpu && r->cpu->realtime_runtime.set && r->cpu->realtime_runtime.value)
		return unsupported("cpu.realtimeRuntime", err);
	if (r->cpu && r->cpu->realtime_period.set && r->cpu->realtime_period.value)
		return unsupported("cpu.realtimePeriod", err);
	if (r->network && (r->network->class_id.set || r->network->n_priorities))
		return unsupported("network", err);
	if (r->block_io && r->block_io->leaf_weight.set)
		return unsupported("blockIO.leafWeight", err);
	if (r->memory && r->memory->swap.set && swap_value(hier(cg), r->memory, &swap, err) < 0)
		return -1;
	return 0;
}

/* The controller must be enabled in the container's cgroup. */
static int need(const struct brig_cg_hier *h, const char *ctrl, const char *path,
                struct brig_error *err)
{
	if (brig_cg_v2_has_controller(h, ctrl))
		return 0;
	return brig_error_set(err, "%s%s: the %s controller is not enabled in cgroup \"%s\"",
	                      BRIG_CG_R, path, ctrl, h->dir);
}

static void limit_str(int64_t v, char *buf, size_t size)
{
	if (v < 0)
		snprintf(buf, size, "max");
	else
		snprintf(buf, size, "%lld", (long long)v);
}

static int apply_memory(const struct brig_cg_hier *h, const struct brig_memory *m,
                        struct brig_error *err)
{
	char v[32];

	if (!m->limit.set && !m->swap.set && !m->reservation.set)
		return 0; /* swappiness, disableOOMKiller: v1 only, ignored as runc */
	if (need(h, "memory", "memory", err) < 0)
		return -1;
	if (m->swap.set) {
		int64_t swap;

		if (swap_value(h, m, &swap, err) < 0)
			return -1;
		limit_str(swap, v, sizeof(v));
		if (swap && put(h, "memory.swap.max", "memory.swap", err, "%s", v) < 0)
			return -1;
	}
	if (m->limit.set && m->limit.value) {
		limit_str(m->limit.value, v, sizeof(v));
		if (put(h, "memory.max", "memory.limit", err, "%s", v) < 0)
			return -1;
	}
	if (m->reservation.set && m->reservation.value) {
		limit_str(m->reservation.value, v, sizeof(v));
		if (put(h, "memory.low", "memory.reservation", err, "%s", v) < 0)
			return -1;
	}
	return 0;
}

static int apply_cpu(const struct brig_cg_hier *h, const struct brig_cpu *c, struct brig_error *err)
{
	bool quota = c->quota.set && c->quota.value, period = c->period.set && c->period.value;

	if ((c->shares.set || quota || period || c->burst.set || c->idle.set) &&
	    need(h, "cpu", "cpu", err) < 0)
		return -1;
	if (c->shares.set && c->shares.value &&
	    put(h, "cpu.weight", "cpu.shares", err, "%llu",
	        (unsigned long long)brig_cg_shares_to_weight(c->shares.value)) < 0)
		return -1;
	if (quota || period) {
		char q[32] = "max";

		if (quota && c->quota.value > 0)
			snprintf(q, sizeof(q), "%lld", (long long)c->quota.value);
		if (period ? put(h, "cpu.max", "cpu.quota", err, "%s %llu", q,
		                 (unsigned long long)c->period.value) < 0
		           : put(h, "cpu.max", "cpu.quota", err, "%s", q) < 0)
			return -1;
	}
	if (c->burst.set && put(h, "cpu.max.burst", "cpu.burst", err, "%llu",
	                        (unsigned long long)c->burst.value) < 0)
		return -1;
	if (c->idle.set &&
	    put(h, "cpu.idle", "cpu.idle", err, "%lld", (long long)c->idle.value) < 0)
		return -1;
	if (((c->cpus && *c->cpus) || (c->mems && *c->mems)) &&
	    need(h, "cpuset", "cpu.cpus", err) < 0)
		return -1;
	if (c->cpus && *c->cpus && put(h, "cpuset.cpus", "cpu.cpus", err, "%s", c->cpus) < 0)
		return -1;
	if (c->mems && *c->mems && put(h, "cpuset.mems", "cpu.mems", err, "%s", c->mems) < 0)
		return -1;
	return 0;
}

static int io_max(const struct brig_cg_hier *h, const char *key, const char *path,
                  const struct brig_throttle_device *d, size_t n, struct brig_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (put(h, "io.max", path, err, "%lld:%lld %s=%llu", (long long)d[i].major,
		        (long long)d[i].minor, key, (unsigned long long)d[i].rate) < 0)
			return -1;
	return 0;
}

static int apply_io(const struct brig_cg_hier *h, const struct brig_blkio *b,
                    struct brig_error *err)
{
	/* BFQ takes blkio's own scale; io.weight needs runc's conversion */
	bool bfq = brig_cg_has(h, "io.bfq.weight");

	if (need(h, "io", "blockIO", err) < 0)
		return -1;
	if (b->weight.set &&
	    (bfq ? put(h, "io.bfq.weight", "blockIO.weight", err, "%u", (unsigned)b->weight.value)
	         : put(h, "io.weight", "blockIO.weight", err, "default %llu",
	               (unsigned long long)brig_cg_blkio_to_io_weight(b->weight.value))) < 0)
		return -1;
	for (size_t i = 0; i < b->n_weight_device; i++) {
		const struct brig_weight_device *d = &b->weight_device[i];

		if (!d->weight.set)
			continue;
		if ((bfq ? put(h, "io.bfq.weight", "blockIO.weightDevice", err, "%lld:%lld %u",
		               (long long)d->major, (long long)d->minor, (unsigned)d->weight.value)
		         : put(h, "io.weight", "blockIO.weightDevice", err, "%lld:%lld %llu",
		               (long long)d->major, (long long)d->minor,
		               (unsigned long long)brig_cg_blkio_to_io_weight(d->weight.value))) <
		    0)
			return -1;
	}
	if (io_max(h, "rbps", "blockIO.throttleReadBpsDevice", b->throttle_read_bps,
	           b->n_throttle_read_bps, err) < 0 ||
	    io_max(h, "wbps", "blockIO.throttleWriteBpsDevice", b->throttle_write_bps,
	           b->n_throttle_write_bps, err) < 0 ||
	    io_max(h, "riops", "blockIO.throttleReadIOPSDevice", b->throttle_read_iops,
	           b->n_throttle_read_iops, err) < 0 ||
	    io_max(h, "wiops", "blockIO.throttleWriteIOPSDevice", b->throttle_write_iops,
	           b->n_throttle_write_iops, err) < 0)
		return -1;
	return 0;
}

static int apply(const struct brig_cgroup *cg, const struct brig_resources *r,
                 const struct brig_dev_rule *devices, size_t n_devices, struct brig_error *err)
{
	const struct brig_cg_hier *h = hier(cg);

	if (r->memory && apply_memory(h, r->memory, err) < 0)
		return -1;
	if (r->cpu && apply_cpu(h, r->cpu, err) < 0)
		return -1;
	if (r->has_pids) {
		int64_t v = r->pids_limit.value;

		if (need(h, "pids", "pids", err) < 0 ||
		    (v > 0 ? put(h, "pids.max", "pids.limit", err, "%lld", (long long)v)
		           : put(h, "pids.max", "pids.limit", err, "max")) < 0)
			return -1;
	}
	if (r->block_io && apply_io(h, r->block_io, err) < 0)
		return -1;
	if (r->n_hugepage_limits &&
	    brig_cg_apply_hugetlb(h, true, r->hugepage_limits, r->n_hugepage_limits, err) < 0)
		return -1;
	if (r->n_rdma && (need(h, "rdma", "rdma", err) < 0 ||
	                  brig_cg_apply_rdma(h, r->rdma, r->n_rdma, err) < 0))
		return -1;
	if (r->n_unified && brig_cg_apply_unified(h, r->unified, r->n_unified, err) < 0)
		return -1;
	if (devices) {
		_cleanup_close_ int fd = open(h->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0)
			return brig_error_setp(err, errno, "open \"%s\"", h->dir);
		if (brig_devices_bpf_apply(fd, devices, n_devices, err) < 0) {
			/* Rootless, the kernel refuses the filter (it takes
			 * CAP_SYS_ADMIN); the container's /dev holds only
			 * what the user could open anyway.  runc ignores
			 * this error too when rootless. */
			if (geteuid() != 0 && (err->errnum == EPERM || err->errnum == EACCES)) {
				brig_debug("rootless: no device filter (%s)", err->msg);
				brig_error_release(err);
				return 0;
			}
			return brig_error_wrap(err, "%sdevices", BRIG_CG_R);
		}
	}
	return 0;
}

/* ------------------------------------------------------------ freezer */

static bool events_flag(const struct brig_cg_hier *h, const char *key)
{
	uint64_t v = 0;

	return h && brig_cg_read_keyed(h, "cgroup.events", key, &v) == 0 && v == 1;
}

static int freeze(const struct brig_cgroup *cg, bool frozen, struct brig_error *err)
{
	const struct brig_cg_hier *h = hier(cg);

	if (brig_cg_write(h, "cgroup.freeze", frozen ? "1" : "0", err) < 0)
		return -1;
	/* "frozen 1" once every task has stopped (thawing is immediate) */
	for (int tries = 0; frozen && tries < 1000; tries++) {
		struct timespec ts = { 0, 1000000L };

		if (events_flag(h, "frozen") || !events_flag(h, "populated"))
			return 0;
		nanosleep(&ts, NULL);
	}
	if (frozen)
		return brig_error_set(err, "cgroup \"%s\" did not freeze", h->dir);
	return 0;
}

static bool frozen(const struct brig_cgroup *cg)
{
	const struct brig_cg_hier *h = hier(cg);
	uint64_t v = 0;

	return h && brig_cg_read_u64(h, "cgroup.freeze", &v) == 0 && v == 1;
}

/* ------------------------------------------------------------ stats */

static void stats(const struct brig_cgroup *cg, struct brig_cg_stats *st)
{
	const struct brig_cg_hier *h = hier(cg);
	uint64_t max;

	st->cpu_total = brig_cg_keyed(h, "cpu.stat", "usage_usec") * 1000;
	st->cpu_kernel = brig_cg_keyed(h, "cpu.stat", "system_usec") * 1000;
	st->cpu_user = brig_cg_keyed(h, "cpu.stat", "user_usec") * 1000;
	st->periods = brig_cg_keyed(h, "cpu.stat", "nr_periods");
	st->throttled_periods = brig_cg_keyed(h, "cpu.stat", "nr_throttled");
	st->throttled_time = brig_cg_keyed(h, "cpu.stat", "throttled_usec") * 1000;
	st->cache = brig_cg_keyed(h, "memory.stat", "file");
	st->usage = (struct brig_cg_memdata){ brig_cg_value(h, "memory.current"),
		                              brig_cg_value(h, "memory.peak"),
		                              brig_cg_keyed(h, "memory.events", "max"),
		                              brig_cg_value(h, "memory.max") };
	st->swap = (struct brig_cg_memdata){ brig_cg_value(h, "memory.swap.current"),
		                             brig_cg_value(h, "memory.swap.peak"),
		                             brig_cg_keyed(h, "memory.swap.events", "max"),
		                             brig_cg_value(h, "memory.swap.max") };
	st->memory = h;
	st->pids_current = brig_cg_value(h, "pids.current");
	max = brig_cg_value(h, "pids.max");
	st->pids_limit = max == UINT64_MAX ? 0 : max;
}

/* v2: memory.events changes (inotify) when its oom_kill count grows. */
static int oom_watch(const struct brig_cgroup *cg, struct brig_cg_oom_watch *w,
                     struct brig_error *err)
{
	_cleanup_free_ char *path = brig_xasprintf("%s/memory.events", hier(cg)->dir);
	_cleanup_close_ int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	uint64_t v = 0;

	if (fd < 0 || inotify_add_watch(fd, path, IN_MODIFY) < 0)
		return brig_error_setp(err, errno, "watch \"%s\"", path);
	brig_cg_read_keyed(hier(cg), "memory.events", "oom_kill", &v);
	w->seen = (int64_t)v;
	w->fd = TAKE_FD(fd);
	return 0;
}

static int64_t oom_read(const struct brig_cgroup *cg, struct brig_cg_oom_watch *w)
{
	char buf[4096];
	uint64_t v;
	int64_t n;

	while (read(w->fd, buf, sizeof(buf)) > 0)
		;
	if (brig_cg_read_keyed(hier(cg), "memory.events", "oom_kill", &v) < 0 ||
	    (int64_t)v <= w->seen)
		return 0;
	n = (int64_t)v - w->seen;
	w->seen = (int64_t)v;
	return n;
}

const struct brig_cg_ops brig_cg_v2_ops = {
	.apply = apply,
	.check = check,
	.freeze = freeze,
	.frozen = frozen,
	.stats = stats,
	.oom_watch = oom_watch,
	.oom_read = oom_read,
};
