/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The systemd manager (--systemd-cgroup): systemd makes the container's
 * cgroup, a transient unit started with the init's pid, and stops it at
 * delete; brig writes the rest through cgroupfs, as runc does: the
 * hierarchies systemd does not manage, and what the unit's properties
 * cannot say.  The unit's name, properties and D-Bus calls are
 * cgroup/systemd.c's and cgroup/systemd_props.c's.
 *
 * During create @cg->sd holds the unit to start; a cgroup read back from
 * the state has only @cg->unit, and the unit exists: brig then enters it
 * (exec) as the cgroupfs manager enters its directories.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cgroup/devices_bpf.h"
#include "cgroup/internal.h"
#include "cgroup/systemd.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"

/*
 * systemd creates the cgroup, as a transient unit started with the init's
 * pid (brig_cgroup_enter).  Here only what can fail before anything
 * exists: the path, systemd itself, the resources.
 */
static int systemd_create(const struct brig_linux *lx, const char *id, struct brig_cgroup *cg,
                          struct brig_error *err)
{
	const struct brig_resources *r = lx ? lx->resources : NULL;
	struct brig_resources none = { 0 };
	struct brig_cg_mount *mounts = NULL;
	_cleanup_free_ char *top = NULL;
	size_t n_mounts = 0;
	int ret = -1;

	cg->sd = brig_xcalloc(1, sizeof(*cg->sd));
	if (brig_systemd_parse_path(lx ? lx->cgroups_path : NULL, id, cg->sd, err) < 0) {
		brig_error_wrap(err, "config.json");
		goto out;
	}
	if (!brig_systemd_running()) {
		brig_error_set(err, "systemd cgroup driver: systemd is not running");
		goto out;
	}
	/* rootless, the user's manager places its units below its own cgroup */
	top = brig_systemd_manager_cgroup(err);
	if (!top)
		goto out;
	if (top[0]) {
		char *full = brig_xasprintf("%s%s", top, cg->sd->cgroup);

		free(cg->sd->cgroup);
		cg->sd->cgroup = full;
	}
	if (brig_cg_plan_dirs(cg, NULL, id, cg->sd->cgroup, &mounts, &n_mounts, err) < 0)
		goto out;
	if (brig_cg_ops_of(cg)->check(cg, r ? r : &none, err) < 0) {
		brig_error_wrap(err, "config.json");
		goto out;
	}
	cg->unit = brig_xstrdup(cg->sd->unit);
	cg->lx = lx;
	ret = 0;
out:
	brig_cgroup_mounts_free(mounts, n_mounts);
	if (ret < 0)
		brig_cgroup_release(cg);
	return ret;
}

/* The init cannot enter a unit that does not exist yet: brig starts it
 * with the init's pid.  A unit that exists (exec) is entered as cgroupfs
 * directories are. */
static int systemd_open_tasks(struct brig_cgroup *cg, char *const *subs, struct brig_error *err)
{
	if (cg->sd)
		return 0;
	return brig_cg_cgroupfs_manager.open_tasks(cg, subs, err);
}

/* The unit, with the init in it; then the hierarchies systemd does not
 * manage, and what its properties cannot say, through cgroupfs (runc). */
static int systemd_enter(struct brig_cgroup *cg, char *const *subs, pid_t pid,
                         struct brig_error *err)
{
	const struct brig_resources *r = NULL;
	_cleanup_free_ struct brig_dev_rule *rules = NULL;
	size_t n_rules;
	struct brig_resources none = { 0 };
	bool created = false;

	if (!cg->sd)
		return brig_cg_cgroupfs_manager.enter(cg, subs, pid, err);
	r = cg->lx ? cg->lx->resources : NULL;
	n_rules = brig_cg_device_rules(cg->lx, &rules);
	if (brig_systemd_start(cg->sd, pid, r, rules, n_rules, cg->layout == BRIG_CG_V2, &created,
	                       err) < 0) {
		/* a unit systemd did not make for us (its name is another
		 * container's, say) is not ours: the failed create must not
		 * stop it */
		if (!created) {
			free(cg->unit);
			cg->unit = NULL;
		}
		return -1;
	}
	for (size_t i = 0; i < cg->n; i++) {
		size_t ml = strlen(cg->h[i].dir) - strlen(cg->sd->cgroup);
		_cleanup_free_ char *mp = strndup(cg->h[i].dir, ml);

		if (!mp)
			brig_oom();
		if (brig_cg_make_dir(&cg->h[i], mp, cg->layout == BRIG_CG_V2, err) < 0 ||
		    brig_cg_writef(&cg->h[i], "cgroup.procs", err, "%d", (int)pid) < 0)
			return -1;
	}
	cg->lx = NULL;
	if (brig_cg_ops_of(cg)->apply(cg, r ? r : &none, rules, n_rules, err) < 0)
		return brig_error_wrap(err, "config.json");
	return 0;
}

/* The unit's properties first (the device rules stay, as in the files),
 * then cgroup.c writes the files. */
static int systemd_update(const struct brig_cgroup *cg, const struct brig_resources *r,
                          struct brig_error *err)
{
	return brig_systemd_update(cg->unit, r, NULL, 0, cg->layout == BRIG_CG_V2, err);
}

/* A unit brig started (a path naming one of the host's own units never
 * gets this far: its cgroup is not empty, and create refuses that). */
static int systemd_destroy(struct brig_cgroup *cg, struct brig_error *err)
{
	/* none: a failed start of a unit that was not brig's (enter) */
	if (!cg->unit)
		return 0;
	return brig_systemd_stop(cg->unit, err);
}

static void systemd_release(struct brig_cgroup *cg)
{
	if (!cg->sd)
		return;
	brig_systemd_unit_release(cg->sd);
	free(cg->sd);
	cg->sd = NULL;
}

/* A unit to start is brig's to start, with the pid. */
static bool systemd_entered_at_birth(const struct brig_cgroup *cg)
{
	return !cg->sd && brig_cg_cgroupfs_manager.entered_at_birth(cg);
}

const struct brig_cg_manager brig_cg_systemd_manager = {
	.name = "systemd",
	.create = systemd_create,
	.open_tasks = systemd_open_tasks,
	.enter = systemd_enter,
	.entered_at_birth = systemd_entered_at_birth,
	.update = systemd_update,
	.destroy = systemd_destroy,
	.release = systemd_release,
	/* the unit's cgroup is the container's, though systemd made it */
	.owns_all = true,
};
