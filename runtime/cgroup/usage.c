/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a container used, for brig job's result: read from whichever
 * hierarchy holds each figure (v1 controllers first on a hybrid host,
 * where they hold the limits; the unified hierarchy's core files else).
 */
#include "config.h"
#include "cgroup/cgroup.h"

#include "cgroup/internal.h"

void brig_cgroup_usage(const struct brig_cgroup *cg, struct brig_cgroup_usage *u)
{
	const struct brig_cg_hier *cpuacct = brig_cg_find(cg, "cpuacct");
	const struct brig_cg_hier *mem = brig_cg_find(cg, "memory");
	const struct brig_cg_hier *pids = brig_cg_find(cg, "pids");
	const struct brig_cg_hier *v2 = brig_cg_find(cg, BRIG_CG_UNIFIED);

	*u = (struct brig_cgroup_usage){ 0 };
	if (cpuacct && !cpuacct->v2 && brig_cg_has(cpuacct, "cpuacct.usage_user")) {
		u->cpu_user_ns = brig_cg_value(cpuacct, "cpuacct.usage_user");
		u->cpu_system_ns = brig_cg_value(cpuacct, "cpuacct.usage_sys");
	} else if (v2) {
		u->cpu_user_ns = brig_cg_keyed(v2, "cpu.stat", "user_usec") * 1000;
		u->cpu_system_ns = brig_cg_keyed(v2, "cpu.stat", "system_usec") * 1000;
	}
	if (mem && !mem->v2) {
		u->memory_peak = brig_cg_value(mem, "memory.max_usage_in_bytes");
		u->oom_kills = brig_cg_keyed(mem, "memory.oom_control", "oom_kill");
	} else if (mem) {
		u->memory_peak = brig_cg_value(mem, "memory.peak");
		u->oom_kills = brig_cg_keyed(mem, "memory.events", "oom_kill");
	}
	/* only v2 keeps a peak of pids (pids.peak, Linux 6.13) */
	if (pids && pids->v2 && brig_cg_has(pids, "pids.peak")) {
		u->pids_peak = brig_cg_value(pids, "pids.peak");
		u->has_pids_peak = true;
	}
}
