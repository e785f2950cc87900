/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cgroup API, the same for every layout and manager: the layout, the
 * state record, and what works on a cgroup once it exists (update, pids,
 * kill --all, pause, delete, stats, OOM events), through the layout's ops
 * table (v1.c, v2.c) and the manager's (cgroupfs.c, systemd_manager.c, and
 * the disabled one here).
 */
#include "config.h"
#include "cgroup/cgroup.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup/internal.h"
#include "spec/spec.h"
#include "spec/state.h"
#include "util/arena.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/jsonw.h"
#include "util/log.h"

void brig_cgroup_release(struct brig_cgroup *cg)
{
	for (size_t i = 0; i < cg->n; i++) {
		free(cg->h[i].name);
		free(cg->h[i].dir);
		free(cg->h[i].created);
	}
	brig_cgroup_close_tasks(cg);
	free(cg->h);
	free(cg->unit);
	if (cg->v2fd >= 0)
		close(cg->v2fd);
	cg->mgr->release(cg);
	*cg = (struct brig_cgroup)BRIG_CGROUP_INIT;
}

/* ------------------------------------------------------------ hierarchies */

const struct brig_cg_hier *brig_cg_find(const struct brig_cgroup *cg, const char *controller)
{
	for (size_t i = 0; i < cg->n; i++) {
		const struct brig_cg_hier *h = &cg->h[i];

		if (h->v2 ? (cg->layout == BRIG_CG_V2 || !strcmp(controller, BRIG_CG_UNIFIED))
		          : brig_cg_list_includes(h->name, controller))
			return h;
	}
	return NULL;
}

char *brig_cgroup_rt_budget_empty(const struct brig_cgroup *cg)
{
	const struct brig_cg_hier *h = brig_cg_find(cg, "cpu");
	uint64_t us;

	if (!h || h->v2 || brig_cg_read_u64(h, "cpu.rt_runtime_us", &us) < 0 || us != 0)
		return NULL;
	return brig_xasprintf("%s/cpu.rt_runtime_us", h->dir);
}

/* ------------------------------------------------------------ managers */

/*
 * --cgroup-manager disabled (crun's): no cgroup at all, so no limits.  A
 * null object: @cg stays empty (n == 0) and every step does what it does
 * on a cgroup without a hierarchy, which is nothing.
 */
static int disabled_create(const struct brig_linux *lx, const char *id, struct brig_cgroup *cg,
                           struct brig_error *err)
{
	(void)lx;
	(void)id;
	(void)cg;
	(void)err;
	brig_debug("--cgroup-manager disabled: no cgroup, no limits");
	return 0;
}

static int disabled_open_tasks(struct brig_cgroup *cg, char *const *subs, struct brig_error *err)
{
	(void)cg;
	(void)subs;
	(void)err;
	return 0;
}

static int disabled_enter(struct brig_cgroup *cg, char *const *subs, pid_t pid,
                          struct brig_error *err)
{
	(void)cg;
	(void)subs;
	(void)pid;
	(void)err;
	return 0;
}

static bool disabled_entered_at_birth(const struct brig_cgroup *cg)
{
	(void)cg;
	return true;
}

static int disabled_update(const struct brig_cgroup *cg, const struct brig_resources *r,
                           struct brig_error *err)
{
	(void)cg;
	(void)r;
	(void)err;
	return 0;
}

static int disabled_destroy(struct brig_cgroup *cg, struct brig_error *err)
{
	(void)cg;
	(void)err;
	return 0;
}

static void disabled_release(struct brig_cgroup *cg)
{
	(void)cg;
}

const struct brig_cg_manager brig_cg_disabled_manager = {
	.name = "disabled",
	.create = disabled_create,
	.open_tasks = disabled_open_tasks,
	.enter = disabled_enter,
	.entered_at_birth = disabled_entered_at_birth,
	.update = disabled_update,
	.destroy = disabled_destroy,
	.release = disabled_release,
	.owns_all = false,
};

static const struct brig_cg_manager *const managers[] = {
	[BRIG_CG_DRIVER_CGROUPFS] = &brig_cg_cgroupfs_manager,
	[BRIG_CG_DRIVER_SYSTEMD] = &brig_cg_systemd_manager,
	[BRIG_CG_DRIVER_DISABLED] = &brig_cg_disabled_manager,
};

int brig_cgroup_create(const struct brig_linux *lx, const char *id, enum brig_cg_driver driver,
                       struct brig_cgroup *cg, struct brig_error *err)
{
	cg->mgr = managers[driver];
	return cg->mgr->create(lx, id, cg, err);
}

int brig_cgroup_open_tasks(struct brig_cgroup *cg, char *const *subs, struct brig_error *err)
{
	return cg->mgr->open_tasks(cg, subs, err);
}

int brig_cgroup_enter(struct brig_cgroup *cg, char *const *subs, pid_t pid, struct brig_error *err)
{
	return cg->mgr->enter(cg, subs, pid, err);
}

bool brig_cgroup_entered_at_birth(const struct brig_cgroup *cg)
{
	return cg->mgr->entered_at_birth(cg);
}

/* ------------------------------------------------------------ state */

void brig_cgroup_to_state(const struct brig_cgroup *cg, struct brig_state *s)
{
	size_t nc = 0;

	s->cgroup_paths = brig_arena_array(&s->arena, cg->n, sizeof(struct brig_kv));
	s->cgroup_created = brig_arena_array(&s->arena, cg->n, sizeof(struct brig_kv));
	for (size_t i = 0; i < cg->n; i++) {
		s->cgroup_paths[i].key = brig_arena_strdup(&s->arena, cg->h[i].name);
		s->cgroup_paths[i].value = brig_arena_strdup(&s->arena, cg->h[i].dir);
		if (cg->h[i].created) {
			s->cgroup_created[nc].key = s->cgroup_paths[i].key;
			s->cgroup_created[nc++].value =
			    brig_arena_strdup(&s->arena, cg->h[i].created);
		}
	}
	s->n_cgroup_paths = cg->n;
	s->n_cgroup_created = nc;
	s->cgroup_unit = cg->unit ? brig_arena_strdup(&s->arena, cg->unit) : NULL;
}

/* A path recorded in state.json must still be a cgroup directory under
 * /sys/fs/cgroup: state files are root's, but delete removes what they
 * name, so a stray one must not make brig rmdir elsewhere. */
static bool state_path_ok(const char *p)
{
	return !strncmp(p, BRIG_CG_ROOT "/", sizeof(BRIG_CG_ROOT)) && !strstr(p, "/../") &&
	       !strstr(p, "/./");
}

/* The created directory @c of @dir is @dir itself or one of its parents. */
static bool created_ok(const char *dir, const char *c)
{
	size_t n = strlen(c);

	return state_path_ok(c) && !strncmp(dir, c, n) && (!dir[n] || dir[n] == '/');
}

int brig_cgroup_from_record(const char *text, struct brig_cgroup *cg, struct brig_error *err)
{
	size_t cap = 0;

	if (brig_cgroup_layout(&cg->layout, err) < 0)
		return -1;
	for (const char *p = text; *p; p++)
		cap += *p == '\n';
	cg->h = brig_xcalloc(cap ? cap : 1, sizeof(*cg->h));
	for (const char *line = text, *end; (end = strchr(line, '\n')); line = end + 1) {
		_cleanup_free_ char *copy = brig_xasprintf("%.*s", (int)(end - line), line);
		char *dir = strchr(copy, '\t'), *created = dir ? strchr(dir + 1, '\t') : NULL;
		struct brig_cg_hier *h;

		if (!created)
			return brig_error_set(err, "cgroup record: \"%s\"", copy);
		*dir++ = '\0';
		*created++ = '\0';
		/* the same checks as a state's paths */
		if (!state_path_ok(dir) || (*created && !created_ok(dir, created)))
			return brig_error_set(err, "cgroup record: \"%s\" is not brig's", dir);
		h = &cg->h[cg->n++];
		h->name = brig_xstrdup(copy);
		h->dir = brig_xstrdup(dir);
		h->v2 = !strcmp(h->name, BRIG_CG_UNIFIED);
		h->created = *created ? brig_xstrdup(created) : NULL;
	}
	cg->mgr = cg->n ? &brig_cg_cgroupfs_manager : &brig_cg_disabled_manager;
	return 0;
}

int brig_cgroup_from_state(const struct brig_state *s, struct brig_cgroup *cg,
                           struct brig_error *err)
{
	if (brig_cgroup_layout(&cg->layout, err) < 0)
		return -1;
	cg->h = brig_xcalloc(s->n_cgroup_paths ? s->n_cgroup_paths : 1, sizeof(*cg->h));
	for (size_t i = 0; i < s->n_cgroup_paths; i++) {
		struct brig_cg_hier *h = &cg->h[cg->n++];

		h->name = brig_xstrdup(s->cgroup_paths[i].key);
		h->dir = brig_xstrdup(s->cgroup_paths[i].value);
		h->v2 = !strcmp(h->name, BRIG_CG_UNIFIED);
		if (!state_path_ok(h->dir))
			return brig_error_set(err, "state: cgroup path \"%s\" is not under \"%s\"",
			                      h->dir, BRIG_CG_ROOT);
		for (size_t k = 0; k < s->n_cgroup_created; k++) {
			const char *c = s->cgroup_created[k].value;

			if (strcmp(s->cgroup_created[k].key, h->name))
				continue;
			if (!created_ok(h->dir, c))
				return brig_error_set(
				    err, "state: cgroup \"%s\" is not below \"%s\"", h->dir, c);
			h->created = brig_xstrdup(c);
		}
	}
	/* who made it: a recorded unit is systemd's, directories alone are
	 * brig's, and no cgroup at all is the disabled manager's */
	if (s->cgroup_unit) {
		cg->unit = brig_xstrdup(s->cgroup_unit);
		cg->mgr = &brig_cg_systemd_manager;
	} else if (cg->n) {
		cg->mgr = &brig_cg_cgroupfs_manager;
	} else {
		cg->mgr = &brig_cg_disabled_manager;
	}
	return 0;
}

/* ------------------------------------------------------------ operations */

int brig_cgroup_check(const struct brig_resources *r, const char *prefix, struct brig_error *err)
{
	struct brig_cgroup cg = BRIG_CGROUP_INIT;
	struct brig_cg_mount *mounts = NULL;
	size_t n = 0;
	int ret;

	ret = brig_cg_plan_dirs(&cg, "", "x", NULL, &mounts, &n, err);
	if (ret == 0 && (ret = brig_cg_ops_of(&cg)->check(&cg, r, err)) < 0 && prefix)
		brig_error_wrap(err, "%s", prefix);
	brig_cgroup_mounts_free(mounts, n);
	brig_cgroup_release(&cg);
	return ret;
}

int brig_cgroup_update(const struct brig_cgroup *cg, const struct brig_resources *r,
                       struct brig_error *err)
{
	/* the device rules stay as create made them: runc's update leaves
	 * them too, and a partial list would drop the defaults */
	if (brig_cg_ops_of(cg)->check(cg, r, err) < 0)
		return -1;
	if (cg->mgr->update(cg, r, err) < 0)
		return -1;
	return brig_cg_ops_of(cg)->apply(cg, r, NULL, 0, err);
}

/* The hierarchy whose cgroup.procs lists the container's processes. */
static const struct brig_cg_hier *procs_hier(const struct brig_cgroup *cg)
{
	const struct brig_cg_hier *h = brig_cg_find(cg, "pids");

	if (!h)
		h = brig_cg_find(cg, "freezer");
	return h ? h : (cg->n ? &cg->h[0] : NULL);
}

/* The container's own cgroup in @h: made by brig for it (or by systemd,
 * as the unit brig started), never one that existed before. */
static bool owned(const struct brig_cgroup *cg, const struct brig_cg_hier *h)
{
	return h && (h->created || cg->mgr->owns_all);
}

/*
 * The hierarchy whose processes kill --all and delete signal: one that
 * brig made for the container, or NULL.  A cgroup that existed before
 * (and was empty at create) is never drained: whatever joins it later may
 * be someone else's.
 */
static const struct brig_cg_hier *signal_hier(const struct brig_cgroup *cg)
{
	const struct brig_cg_hier *h = procs_hier(cg);

	for (size_t i = 0; !owned(cg, h) && i < cg->n; i++)
		h = &cg->h[i];
	return owned(cg, h) ? h : NULL;
}

int brig_cgroup_pids(const struct brig_cgroup *cg, pid_t **pids, size_t *n, struct brig_error *err)
{
	const struct brig_cg_hier *h = procs_hier(cg);

	if (!h) {
		*pids = NULL;
		*n = 0;
		return 0;
	}
	return brig_cg_read_pids(h, pids, n, err);
}

int brig_cgroup_freeze(const struct brig_cgroup *cg, bool frozen, struct brig_error *err)
{
	return brig_cg_ops_of(cg)->freeze(cg, frozen, err);
}

bool brig_cgroup_frozen(const struct brig_cgroup *cg)
{
	return cg->n && brig_cg_ops_of(cg)->frozen(cg);
}

/*
 * Ending a whole cgroup.  A process that forks and lets its parent exit,
 * over and over, is never the pid it was when cgroup.procs was read: a
 * list read and then signalled misses it (audit 30, finding 4).  So:
 *
 *   - cgroup.kill where there is one (v2, and a hybrid host's unified
 *     hierarchy, kernel 5.14): the kernel kills the tree at once, a fork
 *     that races it included;
 *   - else the freezer (v1's freezer hierarchy, v2's cgroup.freeze): the
 *     cgroup frozen, its pids read, each signalled, thawed; a frozen task
 *     neither forks nor exits, so the list holds while it is signalled;
 *   - else, with no freezer (a cgroup made without one), read and signal
 *     again and again until none is left.
 *
 * For SIGKILL every way is repeated until the tree is empty, within
 * BRIG_CG_DRAIN_TRIES rounds.  Only the container's own cgroup (owned())
 * is killed through or frozen: one that existed before may hold others.
 */

/* The container's freezer, when brig made it for the container. */
static bool can_freeze(const struct brig_cgroup *cg)
{
	const struct brig_cg_hier *h;

	if (cg->layout == BRIG_CG_V2) {
		h = brig_cg_find(cg, BRIG_CG_UNIFIED);
		return owned(cg, h) && brig_cg_has(h, "cgroup.freeze");
	}
	return owned(cg, brig_cg_find(cg, "freezer"));
}

/* cgroup.kill: 0 when written, -1 when there is none to write. */
static int kill_file(const struct brig_cgroup *cg)
{
	const struct brig_cg_hier *h = brig_cg_find(cg, BRIG_CG_UNIFIED);
	struct brig_error ignored = BRIG_ERROR_INIT;
	int r;

	if (!h || !h->v2 || !owned(cg, h))
		return -1;
	r = brig_cg_write(h, "cgroup.kill", "1", &ignored);
	brig_error_release(&ignored);
	return r;
}

/* A paused container thawed, once its processes have a SIGKILL pending:
 * a frozen v1 task dies only once thawed. */
static int thaw_killed(const struct brig_cgroup *cg, struct brig_error *err)
{
	return brig_cgroup_frozen(cg) ? brig_cgroup_freeze(cg, false, err) : 0;
}

/*
 * One round: every process listed in @h gets @sig, the cgroup frozen
 * meanwhile when @hold (frozen first, read after: a pid read before the
 * freeze may have exited and gone to someone else by then).  A paused
 * container stays frozen, unless @sig is SIGKILL.  A freeze that fails
 * leaves the processes to be signalled as they are (runc warns and goes
 * on the same way).
 */
static int signal_round(const struct brig_cgroup *cg, const struct brig_cg_hier *h, int sig,
                        bool hold, struct brig_error *err)
{
	struct brig_error e = BRIG_ERROR_INIT;
	_cleanup_free_ pid_t *pids = NULL;
	bool froze = false;
	size_t n;
	int r;

	if (hold && !brig_cgroup_frozen(cg)) {
		froze = brig_cgroup_freeze(cg, true, &e) == 0;
		if (!froze) {
			brig_debug("kill: %s: signalled unfrozen", e.msg);
			brig_error_release(&e);
			brig_cgroup_freeze(cg, false, &e); /* half frozen */
			brig_error_release(&e);
		}
	}
	r = brig_cg_read_pids(h, &pids, &n, err);
	if (r == 0 && n)
		brig_cg_signal_pids(h, pids, n, sig);
	if (froze && sig != SIGKILL && brig_cgroup_freeze(cg, false, r < 0 ? &e : err) < 0)
		r = -1;
	if (sig == SIGKILL && thaw_killed(cg, r < 0 ? &e : err) < 0)
		r = -1;
	brig_error_release(&e);
	return r;
}

int brig_cgroup_signal(const struct brig_cgroup *cg, int sig, struct brig_error *err)
{
	const struct brig_cg_hier *h = signal_hier(cg);
	bool use_kill = true, hold = can_freeze(cg);

	if (!h)
		return 1;
	/* 0 sends nothing: nothing to hold still */
	if (sig != SIGKILL)
		return signal_round(cg, h, sig, hold && sig != 0, err) < 0 ? -1 : 0;
	for (int tries = 0; tries < BRIG_CG_DRAIN_TRIES; tries++) {
		_cleanup_free_ pid_t *pids = NULL;
		size_t n;

		if (brig_cg_read_pids(h, &pids, &n, err) < 0)
			return -1;
		if (!n)
			return 0;
		if (use_kill && !(use_kill = kill_file(cg) == 0) && !hold)
			brig_debug(
			    "cgroup \"%s\": no cgroup.kill and no freezer: its processes are "
			    "killed pid by pid until none is left",
			    h->dir);
		if (use_kill ? thaw_killed(cg, err) < 0 : signal_round(cg, h, sig, hold, err) < 0)
			return -1;
		brig_cg_sleep_ms(tries < 10 ? 1 : BRIG_CG_DRAIN_SLEEP_MS);
	}
	return brig_error_set(err, "the processes of cgroup \"%s\" did not exit", h->dir);
}

int brig_cgroup_destroy(struct brig_cgroup *cg, struct brig_error *err)
{
	struct brig_error later = BRIG_ERROR_INIT;
	int r = 0;

	if (!cg->n)
		return 0;
	/* every process, as kill --all KILL ends them; a cgroup that is not
	 * brig's is left: the init's end is the container's */
	if (brig_cgroup_signal(cg, SIGKILL, err) < 0)
		return -1;
	/* what the manager made besides the directories (systemd: the unit) */
	if (cg->mgr->destroy(cg, err) < 0)
		return -1;
	/* every hierarchy is tried; the first failure is the one reported */
	for (size_t i = 0; i < cg->n; i++)
		if (brig_cg_remove_dir(&cg->h[i], r < 0 ? &later : err) < 0)
			r = -1;
	brig_error_release(&later);
	return r;
}

static void memdata_json(struct brig_jsonw *w, const char *key, const struct brig_cg_memdata *d)
{
	brig_jsonw_key(w, key);
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_uint(w, "usage", d->usage);
	brig_jsonw_kv_uint(w, "max_usage", d->max_usage);
	brig_jsonw_kv_uint(w, "failcnt", d->failcnt);
	brig_jsonw_kv_uint(w, "limit", d->limit);
	brig_jsonw_object_end(w);
}

/* "raw": every "key value" line of @h's memory.stat */
static void raw_json(struct brig_jsonw *w, const struct brig_cg_hier *h)
{
	_cleanup_free_ char *s = h ? brig_cg_read(h, "memory.stat") : NULL;

	brig_jsonw_key(w, "raw");
	brig_jsonw_object_begin(w);
	for (char *line = s; line && *line;) {
		char *end = strchrnul(line, '\n'), *sp = memchr(line, ' ', (size_t)(end - line));

		if (sp) {
			*sp = '\0';
			brig_jsonw_kv_uint(w, line, strtoull(sp + 1, NULL, 10));
		}
		line = *end ? end + 1 : end;
	}
	brig_jsonw_object_end(w);
}

static void percpu_json(struct brig_jsonw *w, const char *text)
{
	char *end;

	brig_jsonw_key(w, "percpu_usage");
	brig_jsonw_array_begin(w);
	for (const char *p = text; p && *p; p = end) {
		unsigned long long v = strtoull(p, &end, 10);

		if (end == p)
			break;
		brig_jsonw_uint(w, v);
	}
	brig_jsonw_array_end(w);
}

int brig_cgroup_stats(const struct brig_cgroup *cg, struct brig_jsonw *w, struct brig_error *err)
{
	struct brig_cg_stats st = { 0 };

	(void)err;
	brig_cg_ops_of(cg)->stats(cg, &st);
	brig_jsonw_object_begin(w);
	brig_jsonw_key(w, "cpu");
	brig_jsonw_object_begin(w);
	brig_jsonw_key(w, "usage");
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_uint(w, "total", st.cpu_total);
	if (st.has_percpu)
		percpu_json(w, st.percpu);
	brig_jsonw_kv_uint(w, "usage_in_kernelmode", st.cpu_kernel);
	brig_jsonw_kv_uint(w, "usage_in_usermode", st.cpu_user);
	brig_jsonw_object_end(w);
	brig_jsonw_key(w, "throttling");
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_uint(w, "periods", st.periods);
	brig_jsonw_kv_uint(w, "throttled_periods", st.throttled_periods);
	brig_jsonw_kv_uint(w, "throttled_time", st.throttled_time);
	brig_jsonw_object_end(w);
	brig_jsonw_object_end(w);

	brig_jsonw_key(w, "memory");
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_uint(w, "cache", st.cache);
	memdata_json(w, "usage", &st.usage);
	memdata_json(w, "swap", &st.swap);
	if (st.has_kmem) {
		memdata_json(w, "kernel", &st.kernel);
		memdata_json(w, "kernelTCP", &st.kernel_tcp);
	}
	raw_json(w, st.memory);
	brig_jsonw_object_end(w);

	brig_jsonw_key(w, "pids");
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_uint(w, "current", st.pids_current);
	brig_jsonw_kv_uint(w, "limit", st.pids_limit);
	brig_jsonw_object_end(w);
	brig_jsonw_object_end(w);
	free(st.percpu);
	return 0;
}

int brig_cgroup_oom_watch(const struct brig_cgroup *cg, struct brig_cg_oom_watch *w,
                          struct brig_error *err)
{
	if (!cg->n)
		return brig_error_set(err, "the container has no cgroup");
	return brig_cg_ops_of(cg)->oom_watch(cg, w, err);
}

int64_t brig_cgroup_oom_read(const struct brig_cgroup *cg, struct brig_cg_oom_watch *w)
{
	return w->fd >= 0 ? brig_cg_ops_of(cg)->oom_read(cg, w) : 0;
}

void brig_cgroup_oom_unwatch(struct brig_cg_oom_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->aux >= 0)
		close(w->aux);
	*w = (struct brig_cg_oom_watch)BRIG_CG_OOM_WATCH_INIT;
}
