/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cgroupfs manager, brig's default: brig itself makes the container's
 * directories (hierarchies.c finds where), applies the resources and
 * removes what it made.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/internal.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/strbuf.h"

/* ------------------------------------------------------------ checks */

/*
 * An existing cgroup that holds processes, in any hierarchy or anywhere
 * below it, is another workload's: refused.  A container would share its
 * limits, and its delete or kill --all would reach that workload.
 */
static int check_empty(const struct brig_cgroup *cg, struct brig_error *err)
{
	for (size_t i = 0; i < cg->n; i++) {
		_cleanup_free_ pid_t *pids = NULL;
		size_t n = 0;

		if (cg->h[i].created)
			continue; /* made by brig just now */
		if (brig_cg_read_pids(&cg->h[i], &pids, &n, err) < 0)
			return -1;
		if (n)
			return brig_error_set(err,
			                      "cgroup \"%s\" is not empty: %zu process(es) found",
			                      cg->h[i].dir, n);
	}
	return 0;
}

/* Frozen, by itself or by a parent: v1's freezer.state, v2's
 * cgroup.events. */
static bool hier_frozen(const struct brig_cg_hier *h)
{
	_cleanup_free_ char *s = NULL;

	if (h->v2) {
		s = brig_cg_read(h, "cgroup.events");
		return s && (strstr(s, "\nfrozen 1") || !strncmp(s, "frozen 1", 8));
	}
	if (!brig_cg_list_includes(h->name, "freezer"))
		return false;
	s = brig_cg_read(h, "freezer.state");
	return s && (!strncmp(s, "FROZEN", 6) || !strncmp(s, "FREEZING", 8));
}

/*
 * A frozen cgroup (a parent someone froze, a leftover of a paused
 * container) would stop the init the moment it enters, and create would
 * wait for it for ever: refused.
 */
static int check_not_frozen(const struct brig_cgroup *cg, struct brig_error *err)
{
	for (size_t i = 0; i < cg->n; i++)
		if (hier_frozen(&cg->h[i]))
			/* runc's words first: its tests match them */
			return brig_error_set(
			    err,
			    "container's cgroup unexpectedly frozen: cgroup \"%s\" "
			    "is frozen",
			    cg->h[i].dir);
	return 0;
}

/* The topmost directory of @dir below @mountpoint that does not exist
 * yet (what brig_cg_make_dir will have made), or NULL. */
static char *first_missing(const char *dir, const char *mountpoint)
{
	_cleanup_free_ char *path = brig_xstrdup(dir);
	char *missing = NULL;

	while (strlen(path) > strlen(mountpoint) && access(path, F_OK) < 0 && errno == ENOENT) {
		free(missing);
		missing = brig_xstrdup(path);
		*strrchr(path, '/') = '\0';
	}
	return missing;
}

/* cg->record: the directories about to be made (brig_cgroup_from_record) */
static int record_dirs(const struct brig_cgroup *cg, const char *const *mps, struct brig_error *err)
{
	struct brig_strbuf b = BRIG_STRBUF_INIT;
	int r;

	for (size_t i = 0; i < cg->n; i++) {
		_cleanup_free_ char *missing = mps[i] ? first_missing(cg->h[i].dir, mps[i]) : NULL;

		brig_strbuf_addf(&b, "%s\t%s\t%s\n", cg->h[i].name, cg->h[i].dir,
		                 missing ? missing : "");
	}
	r = cg->record(cg->record_arg, b.buf ? b.buf : "", err);
	brig_strbuf_release(&b);
	return r;
}

/* ------------------------------------------------------------ the manager */

static int cgroupfs_create(const struct brig_linux *lx, const char *id, struct brig_cgroup *cg,
                           struct brig_error *err)
{
	struct brig_cg_mount *mounts = NULL;
	_cleanup_free_ const char **mps = NULL;
	_cleanup_free_ struct brig_dev_rule *rules = NULL;
	const struct brig_resources *r = lx ? lx->resources : NULL;
	size_t n_mounts = 0, n_rules;
	struct brig_resources none = { 0 };
	struct brig_error ignored = BRIG_ERROR_INIT;
	int ret = -1;

	if (brig_cg_plan_dirs(cg, lx ? lx->cgroups_path : NULL, id, NULL, &mounts, &n_mounts, err) <
	    0)
		goto out;
	if (brig_cg_ops_of(cg)->check(cg, r ? r : &none, err) < 0) {
		brig_error_wrap(err, "config.json");
		goto out;
	}
	mps = brig_xcalloc(cg->n, sizeof(*mps));
	for (size_t i = 0; i < cg->n; i++)
		for (size_t k = 0; k < n_mounts && !mps[i]; k++)
			if (!strncmp(cg->h[i].dir, mounts[k].mountpoint,
			             strlen(mounts[k].mountpoint)) &&
			    cg->h[i].dir[strlen(mounts[k].mountpoint)] == '/' &&
			    mounts[k].v2 == cg->h[i].v2)
				mps[i] = mounts[k].mountpoint;
	if (cg->record && record_dirs(cg, mps, err) < 0)
		goto out;
	brig_fault("cgroup.recorded");
	for (size_t i = 0; i < cg->n; i++)
		if (brig_cg_make_dir(&cg->h[i], mps[i], cg->layout == BRIG_CG_V2, err) < 0)
			goto fail;
	if (check_empty(cg, err) < 0 || check_not_frozen(cg, err) < 0)
		goto fail;
	n_rules = brig_cg_device_rules(lx, &rules);
	if (brig_cg_ops_of(cg)->apply(cg, r ? r : &none, rules, n_rules, err) < 0) {
		brig_error_wrap(err, "config.json");
		goto fail;
	}
	for (size_t i = 0; i < cg->n; i++) {
		if (!cg->h[i].v2)
			continue;
		cg->v2fd = open(cg->h[i].dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cg->v2fd < 0) {
			brig_error_setp(err, errno, "open \"%s\"", cg->h[i].dir);
			goto fail;
		}
	}
	ret = 0;
	goto out;
fail:
	for (size_t i = 0; i < cg->n; i++)
		brig_cg_remove_dir(&cg->h[i], &ignored);
	brig_error_release(&ignored);
out:
	brig_cgroup_mounts_free(mounts, n_mounts);
	if (ret < 0)
		brig_cgroup_release(cg);
	return ret;
}

/* The file @name of hierarchy @i's sub-cgroup, or of its own cgroup. */
static char *sub_file(char *const *subs, size_t i, const char *name)
{
	return subs && subs[i] ? brig_xasprintf("%s/%s", subs[i], name) : brig_xstrdup(name);
}

static int cgroupfs_open_tasks(struct brig_cgroup *cg, char *const *subs, struct brig_error *err)
{
	if (!cg->n)
		return 0;
	cg->tasks = brig_xcalloc(cg->n, sizeof(*cg->tasks));
	for (size_t i = 0; i < cg->n; i++)
		cg->tasks[i] = -1;
	for (size_t i = 0; i < cg->n; i++) {
		_cleanup_free_ char *file = NULL;

		if (cg->h[i].v2)
			continue; /* born there, or entered by brig */
		file = sub_file(subs, i, "tasks");
		cg->tasks[i] = brig_cg_open_file(&cg->h[i], file, O_WRONLY);
		if (cg->tasks[i] < 0)
			return brig_error_setp(err, errno, "open \"%s/%s\"", cg->h[i].dir, file);
	}
	return 0;
}

/* Hierarchy @i of @cg needs no pid written: the process was born there
 * (the v2 one, CLONE_INTO_CGROUP) or entered it itself (its tasks file). */
static bool entered_alone(const struct brig_cgroup *cg, size_t i)
{
	return (cg->h[i].v2 && cg->v2fd >= 0) || (cg->tasks && cg->tasks[i] >= 0);
}

static int cgroupfs_enter(struct brig_cgroup *cg, char *const *subs, pid_t pid,
                          struct brig_error *err)
{
	for (size_t i = 0; i < cg->n; i++) {
		_cleanup_free_ char *file = NULL;

		if (entered_alone(cg, i))
			continue;
		file = sub_file(subs, i, "cgroup.procs");
		if (brig_cg_writef(&cg->h[i], file, err, "%d", (int)pid) < 0)
			return -1;
	}
	return 0;
}

static bool cgroupfs_entered_at_birth(const struct brig_cgroup *cg)
{
	for (size_t i = 0; i < cg->n; i++)
		if (!entered_alone(cg, i))
			return false;
	return true;
}

/* The files are all brig keeps: nothing else to update, stop or free. */
static int cgroupfs_update(const struct brig_cgroup *cg, const struct brig_resources *r,
                           struct brig_error *err)
{
	(void)cg;
	(void)r;
	(void)err;
	return 0;
}

static int cgroupfs_destroy(struct brig_cgroup *cg, struct brig_error *err)
{
	(void)cg;
	(void)err;
	return 0;
}

static void cgroupfs_release(struct brig_cgroup *cg)
{
	(void)cg;
}

const struct brig_cg_manager brig_cg_cgroupfs_manager = {
	.name = "cgroupfs",
	.create = cgroupfs_create,
	.open_tasks = cgroupfs_open_tasks,
	.enter = cgroupfs_enter,
	.entered_at_birth = cgroupfs_entered_at_birth,
	.update = cgroupfs_update,
	.destroy = cgroupfs_destroy,
	.release = cgroupfs_release,
	.owns_all = false,
};
