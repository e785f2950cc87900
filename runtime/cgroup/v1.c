/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cgroup v1, and the hybrid layout: the resources go to the v1
 * controllers; `unified` keys, and hugetlb where v1 has no hierarchy for
 * it, go to the cgroup2 hierarchy at /sys/fs/cgroup/unified.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/devices_bpf.h"
#include "cgroup/internal.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/jsonw.h"

/* runc's words for unified resources on a v1 host */
#define V1_UNIFIED "invalid configuration: cannot use unified on cgroup v1"

/* The hierarchy for @ctrl, or an error naming @path. */
static const struct brig_cg_hier *need(const struct brig_cgroup *cg, const char *ctrl,
                                       const char *path, struct brig_error *err)
{
	const struct brig_cg_hier *h = brig_cg_find(cg, ctrl);

	if (!h || h->v2)
		brig_error_set(err, "%s%s: no \"%s\" cgroup v1 hierarchy is mounted", BRIG_CG_R,
		               path, ctrl);
	return h && !h->v2 ? h : NULL;
}

/* Where hugetlb lives: its v1 hierarchy, else the unified one when the
 * controller is enabled there (hybrid). */
static const struct brig_cg_hier *hugetlb_hier(const struct brig_cgroup *cg, bool *v2)
{
	const struct brig_cg_hier *h = brig_cg_find(cg, "hugetlb");

	if (h && !h->v2) {
		*v2 = false;
		return h;
	}
	h = brig_cg_find(cg, BRIG_CG_UNIFIED);
	*v2 = true;
	return h;
}

static bool memory_set(const struct brig_memory *m)
{
	return m && (m->limit.set || m->reservation.set || m->swap.set || m->swappiness.set ||
	             m->disable_oom_killer.set || m->use_hierarchy.set);
}

static bool cpu_set(const struct brig_cpu *c)
{
	return c && (c->shares.set || c->quota.set || c->period.set || c->burst.set ||
	             c->realtime_runtime.set || c->realtime_period.set || c->idle.set);
}

static int check(const struct brig_cgroup *cg, const struct brig_resources *r,
                 struct brig_error *err)
{
	bool v2;

	if (memory_set(r->memory) && !need(cg, "memory", "memory", err))
		return -1;
	if (cpu_set(r->cpu) && !need(cg, "cpu", "cpu", err))
		return -1;
	if (r->cpu && (r->cpu->cpus || r->cpu->mems) && !need(cg, "cpuset", "cpu", err))
		return -1;
	if (r->has_pids && !need(cg, "pids", "pids", err))
		return -1;
	if (r->block_io && !need(cg, "blkio", "blockIO", err))
		return -1;
	if (r->network && r->network->class_id.set && !need(cg, "net_cls", "network.classID", err))
		return -1;
	if (r->network && r->network->n_priorities &&
	    !need(cg, "net_prio", "network.priorities", err))
		return -1;
	if (r->n_rdma && !need(cg, "rdma", "rdma", err))
		return -1;
	if (r->n_hugepage_limits && !hugetlb_hier(cg, &v2))
		return brig_error_set(err,
		                      "%shugepageLimits: no \"hugetlb\" cgroup hierarchy is "
		                      "mounted",
		                      BRIG_CG_R);
	if (r->n_unified && !brig_cg_find(cg, BRIG_CG_UNIFIED))
		return brig_error_set(
		    err, V1_UNIFIED ": %sunified: no cgroup2 hierarchy is mounted", BRIG_CG_R);
	if (r->n_devices && !need(cg, "devices", "devices", err))
		return -1;
	return 0;
}

#define put brig_cg_put

/* -1 means unlimited, as the kernel writes it in v1 */
static long long v1_limit(int64_t v)
{
	return v < 0 ? -1 : (long long)v;
}

static int apply_memory(const struct brig_cgroup *cg, const struct brig_memory *m,
                        struct brig_error *err)
{
	const struct brig_cg_hier *h;
	int64_t limit = m->limit.set ? m->limit.value : 0;
	int64_t swap = m->swap.set ? m->swap.value : 0;

	if (!memory_set(m))
		return 0;
	h = brig_cg_find(cg, "memory");
	/* runc's order: memory+swap must never be below memory, so when the
	 * new pair grows, memsw goes first */
	if (limit == -1 && !m->swap.set)
		swap = -1;
	if (limit && swap) {
		uint64_t cur = 0;

		brig_cg_read_u64(h, "memory.limit_in_bytes", &cur);
		if (swap == -1 || cur < (uint64_t)swap) {
			if (put(h, "memory.memsw.limit_in_bytes", "memory.swap", err, "%lld",
			        v1_limit(swap)) < 0 ||
			    put(h, "memory.limit_in_bytes", "memory.limit", err, "%lld",
			        v1_limit(limit)) < 0)
				return -1;
		} else if (put(h, "memory.limit_in_bytes", "memory.limit", err, "%lld",
		               v1_limit(limit)) < 0 ||
		           put(h, "memory.memsw.limit_in_bytes", "memory.swap", err, "%lld",
		               v1_limit(swap)) < 0) {
			return -1;
		}
	} else if ((limit && put(h, "memory.limit_in_bytes", "memory.limit", err, "%lld",
	                         v1_limit(limit)) < 0) ||
	           (swap && put(h, "memory.memsw.limit_in_bytes", "memory.swap", err, "%lld",
	                        v1_limit(swap)) < 0)) {
		return -1;
	}
	if (m->reservation.set && put(h, "memory.soft_limit_in_bytes", "memory.reservation", err,
	                              "%lld", v1_limit(m->reservation.value)) < 0)
		return -1;
	if (m->swappiness.set && put(h, "memory.swappiness", "memory.swappiness", err, "%llu",
	                             (unsigned long long)m->swappiness.value) < 0)
		return -1;
	if (m->disable_oom_killer.set && m->disable_oom_killer.value &&
	    put(h, "memory.oom_control", "memory.disableOOMKiller", err, "1") < 0)
		return -1;
	if (m->use_hierarchy.set && m->use_hierarchy.value &&
	    put(h, "memory.use_hierarchy", "memory.useHierarchy", err, "1") < 0)
		return -1;
	return 0;
}

static int apply_cpu(const struct brig_cgroup *cg, const struct brig_cpu *c, struct brig_error *err)
{
	const struct brig_cg_hier *h = brig_cg_find(cg, "cpu");
	const struct brig_cg_hier *cs = brig_cg_find(cg, "cpuset");

	if (cpu_set(c)) {
		if (c->shares.set && c->shares.value &&
		    put(h, "cpu.shares", "cpu.shares", err, "%llu",
		        (unsigned long long)c->shares.value) < 0)
			return -1;
		bool quota = c->quota.set && c->quota.value, retry = false;

		/* the kernel refuses a period under which the current quota
		 * would exceed the parent's limit (EINVAL), which the new
		 * quota may not: then the quota first, and the period again,
		 * as runc does */
		if (c->period.set && c->period.value &&
		    put(h, "cpu.cfs_period_us", "cpu.period", err, "%llu",
		        (unsigned long long)c->period.value) < 0) {
			if (err->errnum != EINVAL || !quota)
				return -1;
			brig_error_release(err);
			retry = true;
		}
		if (quota && put(h, "cpu.cfs_quota_us", "cpu.quota", err, "%lld",
		                 c->quota.value < 0 ? -1LL : (long long)c->quota.value) < 0)
			return -1;
		if (retry && put(h, "cpu.cfs_period_us", "cpu.period", err, "%llu",
		                 (unsigned long long)c->period.value) < 0)
			return -1;
		if (c->burst.set && put(h, "cpu.cfs_burst_us", "cpu.burst", err, "%llu",
		                        (unsigned long long)c->burst.value) < 0)
			return -1;
		if (c->realtime_period.set && c->realtime_period.value &&
		    put(h, "cpu.rt_period_us", "cpu.realtimePeriod", err, "%llu",
		        (unsigned long long)c->realtime_period.value) < 0)
			return -1;
		if (c->realtime_runtime.set && c->realtime_runtime.value &&
		    put(h, "cpu.rt_runtime_us", "cpu.realtimeRuntime", err, "%lld",
		        (long long)c->realtime_runtime.value) < 0)
			return -1;
		if (c->idle.set &&
		    put(h, "cpu.idle", "cpu.idle", err, "%lld", (long long)c->idle.value) < 0)
			return -1;
	}
	if (c->cpus && *c->cpus && put(cs, "cpuset.cpus", "cpu.cpus", err, "%s", c->cpus) < 0)
		return -1;
	if (c->mems && *c->mems && put(cs, "cpuset.mems", "cpu.mems", err, "%s", c->mems) < 0)
		return -1;
	return 0;
}

/* blkio.weight, or BFQ's file where CFQ is gone */
static const char *blkio_file(const struct brig_cg_hier *h, const char *plain, const char *bfq)
{
	return brig_cg_has(h, plain) || !brig_cg_has(h, bfq) ? plain : bfq;
}

static int throttle(const struct brig_cg_hier *h, const char *file, const char *path,
                    const struct brig_throttle_device *d, size_t n, struct brig_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (put(h, file, path, err, "%lld:%lld %llu", (long long)d[i].major,
		        (long long)d[i].minor, (unsigned long long)d[i].rate) < 0)
			return -1;
	return 0;
}

static int apply_blkio(const struct brig_cgroup *cg, const struct brig_blkio *b,
                       struct brig_error *err)
{
	const struct brig_cg_hier *h = brig_cg_find(cg, "blkio");

	if (b->weight.set && put(h, blkio_file(h, "blkio.weight", "blkio.bfq.weight"),
	                         "blockIO.weight", err, "%u", (unsigned)b->weight.value) < 0)
		return -1;
	if (b->leaf_weight.set && put(h, "blkio.leaf_weight", "blockIO.leafWeight", err, "%u",
	                              (unsigned)b->leaf_weight.value) < 0)
		return -1;
	for (size_t i = 0; i < b->n_weight_device; i++) {
		const struct brig_weight_device *d = &b->weight_device[i];

		if (d->weight.set &&
		    put(h, blkio_file(h, "blkio.weight_device", "blkio.bfq.weight_device"),
		        "blockIO.weightDevice", err, "%lld:%lld %u", (long long)d->major,
		        (long long)d->minor, (unsigned)d->weight.value) < 0)
			return -1;
		if (d->leaf_weight.set &&
		    put(h, "blkio.leaf_weight_device", "blockIO.weightDevice", err, "%lld:%lld %u",
		        (long long)d->major, (long long)d->minor,
		        (unsigned)d->leaf_weight.value) < 0)
			return -1;
	}
	return throttle(h, "blkio.throttle.read_bps_device", "blockIO.throttleReadBpsDevice",
	                b->throttle_read_bps, b->n_throttle_read_bps, err) < 0 ||
	               throttle(h, "blkio.throttle.write_bps_device",
	                        "blockIO.throttleWriteBpsDevice", b->throttle_write_bps,
	                        b->n_throttle_write_bps, err) < 0 ||
	               throttle(h, "blkio.throttle.read_iops_device",
	                        "blockIO.throttleReadIOPSDevice", b->throttle_read_iops,
	                        b->n_throttle_read_iops, err) < 0 ||
	               throttle(h, "blkio.throttle.write_iops_device",
	                        "blockIO.throttleWriteIOPSDevice", b->throttle_write_iops,
	                        b->n_throttle_write_iops, err) < 0
	           ? -1
	           : 0;
}

/* devices.deny "a" empties the list, then the rules go in order, one
 * write each, through one open file of devices.allow and one of
 * devices.deny (a dozen rules by default: two opens, not a dozen). */
static int apply_devices(const struct brig_cgroup *cg, const struct brig_dev_rule *rules, size_t n,
                         struct brig_error *err)
{
	const struct brig_cg_hier *h = brig_cg_find(cg, "devices");
	_cleanup_close_ int allow = -1, deny = -1;

	if (!h || h->v2)
		return 0; /* no devices hierarchy: /dev holds only what the config made */
	for (size_t i = 0; i < n; i++) {
		bool a = rules[i].allow;
		char rule[80];

		brig_cg_dev_rule_format(&rules[i], rule, sizeof(rule));
		if (brig_cg_write_through(h, a ? &allow : &deny,
		                          a ? "devices.allow" : "devices.deny", rule, err) < 0)
			return brig_error_wrap(err, BRIG_CG_R "devices");
	}
	return 0;
}

static int apply(const struct brig_cgroup *cg, const struct brig_resources *r,
                 const struct brig_dev_rule *devices, size_t n_devices, struct brig_error *err)
{
	bool v2 = false;

	if (r->memory && apply_memory(cg, r->memory, err) < 0)
		return -1;
	if (r->cpu && apply_cpu(cg, r->cpu, err) < 0)
		return -1;
	if (r->has_pids) {
		const struct brig_cg_hier *h = brig_cg_find(cg, "pids");
		int64_t v = r->pids_limit.value;

		if ((v > 0 ? put(h, "pids.max", "pids.limit", err, "%lld", (long long)v)
		           : put(h, "pids.max", "pids.limit", err, "max")) < 0)
			return -1;
	}
	if (r->block_io && apply_blkio(cg, r->block_io, err) < 0)
		return -1;
	if (r->n_hugepage_limits) {
		const struct brig_cg_hier *h = hugetlb_hier(cg, &v2);

		if (brig_cg_apply_hugetlb(h, v2, r->hugepage_limits, r->n_hugepage_limits, err) < 0)
			return -1;
	}
	if (r->network) {
		const struct brig_network *nw = r->network;

		if (nw->class_id.set &&
		    put(brig_cg_find(cg, "net_cls"), "net_cls.classid", "network.classID", err,
		        "%u", (unsigned)nw->class_id.value) < 0)
			return -1;
		for (size_t i = 0; i < nw->n_priorities; i++)
			if (put(brig_cg_find(cg, "net_prio"), "net_prio.ifpriomap",
			        "network.priorities", err, "%s %u", nw->priorities[i].name,
			        (unsigned)nw->priorities[i].priority) < 0)
				return -1;
	}
	if (r->n_rdma && brig_cg_apply_rdma(brig_cg_find(cg, "rdma"), r->rdma, r->n_rdma, err) < 0)
		return -1;
	/* a hybrid host's cgroup2 takes the keys of its own controllers;
	 * any other is refused in runc's words, which its tests match */
	if (r->n_unified && brig_cg_apply_unified(brig_cg_find(cg, BRIG_CG_UNIFIED), r->unified,
	                                          r->n_unified, err) < 0)
		return err->errnum == ENOTSUP ? brig_error_wrap(err, V1_UNIFIED) : -1;
	return devices ? apply_devices(cg, devices, n_devices, err) : 0;
}

/* ------------------------------------------------------------ freezer */

static int freeze(const struct brig_cgroup *cg, bool frozen, struct brig_error *err)
{
	const struct brig_cg_hier *h = brig_cg_find(cg, "freezer");
	const char *want = frozen ? "FROZEN" : "THAWED";

	if (!h || h->v2)
		return brig_error_set(err, "no \"freezer\" cgroup v1 hierarchy is mounted");
	/* FREEZING until every task has stopped: ask again until it is done */
	for (int tries = 0; tries < 1000; tries++) {
		_cleanup_free_ char *state = NULL;
		struct timespec ts = { 0, 1000000L };

		if (brig_cg_write(h, "freezer.state", want, err) < 0)
			return -1;
		state = brig_cg_read(h, "freezer.state");
		if (state && !strncmp(state, want, strlen(want)))
			return 0;
		nanosleep(&ts, NULL);
	}
	return brig_error_set(err, "cgroup \"%s\" did not become %s", h->dir, want);
}

static bool frozen(const struct brig_cgroup *cg)
{
	const struct brig_cg_hier *h = brig_cg_find(cg, "freezer");
	_cleanup_free_ char *state = h && !h->v2 ? brig_cg_read(h, "freezer.state") : NULL;

	return state && !strncmp(state, "FROZEN", 6);
}

/* ------------------------------------------------------------ stats */

/* <prefix>.usage_in_bytes and its three siblings */
static struct brig_cg_memdata memory_data(const struct brig_cg_hier *h, const char *prefix)
{
	struct brig_cg_memdata d;
	char f[96];

	snprintf(f, sizeof(f), "%s.usage_in_bytes", prefix);
	d.usage = brig_cg_value(h, f);
	snprintf(f, sizeof(f), "%s.max_usage_in_bytes", prefix);
	d.max_usage = brig_cg_value(h, f);
	snprintf(f, sizeof(f), "%s.failcnt", prefix);
	d.failcnt = brig_cg_value(h, f);
	snprintf(f, sizeof(f), "%s.limit_in_bytes", prefix);
	d.limit = brig_cg_value(h, f);
	return d;
}

static void stats(const struct brig_cgroup *cg, struct brig_cg_stats *st)
{
	const struct brig_cg_hier *cpu = brig_cg_find(cg, "cpu");
	const struct brig_cg_hier *acct = brig_cg_find(cg, "cpuacct");
	const struct brig_cg_hier *mem = brig_cg_find(cg, "memory");
	const struct brig_cg_hier *pids = brig_cg_find(cg, "pids");
	uint64_t max;

	st->cpu_total = brig_cg_value(acct, "cpuacct.usage");
	st->has_percpu = true;
	st->percpu = acct ? brig_cg_read(acct, "cpuacct.usage_percpu") : NULL;
	st->cpu_kernel = brig_cg_value(acct, "cpuacct.usage_sys");
	st->cpu_user = brig_cg_value(acct, "cpuacct.usage_user");
	st->periods = brig_cg_keyed(cpu, "cpu.stat", "nr_periods");
	st->throttled_periods = brig_cg_keyed(cpu, "cpu.stat", "nr_throttled");
	st->throttled_time = brig_cg_keyed(cpu, "cpu.stat", "throttled_time");
	st->cache = brig_cg_keyed(mem, "memory.stat", "total_cache");
	st->usage = memory_data(mem, "memory");
	st->swap = memory_data(mem, "memory.memsw");
	st->has_kmem = true;
	st->kernel = memory_data(mem, "memory.kmem");
	st->kernel_tcp = memory_data(mem, "memory.kmem.tcp");
	st->memory = mem;
	st->pids_current = brig_cg_value(pids, "pids.current");
	max = brig_cg_value(pids, "pids.max");
	st->pids_limit = max == UINT64_MAX ? 0 : max;
}

/* v1's OOM notification: an eventfd registered on memory.oom_control
 * through cgroup.event_control.  It also fires once when the cgroup goes. */
static int oom_watch(const struct brig_cgroup *cg, struct brig_cg_oom_watch *w,
                     struct brig_error *err)
{
	const struct brig_cg_hier *h = brig_cg_find(cg, "memory");
	_cleanup_close_ int efd = -1, ocfd = -1;
	_cleanup_free_ char *path = NULL;

	if (!h || h->v2)
		return brig_error_set(err, "no \"memory\" cgroup v1 hierarchy is mounted");
	path = brig_xasprintf("%s/memory.oom_control", h->dir);
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ocfd = open(path, O_RDONLY | O_CLOEXEC);
	if (efd < 0 || ocfd < 0)
		return brig_error_setp(err, errno, "open \"%s\"", path);
	if (brig_cg_writef(h, "cgroup.event_control", err, "%d %d", efd, ocfd) < 0)
		return -1;
	w->fd = TAKE_FD(efd);
	w->aux = TAKE_FD(ocfd);
	return 0;
}

static int64_t oom_read(const struct brig_cgroup *cg, struct brig_cg_oom_watch *w)
{
	const struct brig_cg_hier *h = brig_cg_find(cg, "memory");
	uint64_t n = 0;

	if (read(w->fd, &n, sizeof(n)) != sizeof(n))
		return 0;
	/* one of them was the cgroup's removal */
	if (!brig_cg_has(h, "cgroup.event_control") && n)
		n--;
	return (int64_t)n;
}

const struct brig_cg_ops brig_cg_v1_ops = {
	.apply = apply,
	.check = check,
	.freeze = freeze,
	.frozen = frozen,
	.stats = stats,
	.oom_watch = oom_watch,
	.oom_read = oom_read,
};
