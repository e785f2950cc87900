/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host's cgroup hierarchies, as every manager and the cgroup API see
 * them: the layout (v1, hybrid, v2), the mounts (/proc/self/mountinfo,
 * /proc/self/cgroup), where a container's cgroup goes in each hierarchy
 * and how its directories are made, entered and removed.  cgroup.c, the
 * cgroupfs manager and the systemd manager use it; it uses none of them.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>

#include "cgroup/internal.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/mountinfo.h"
#include "util/strbuf.h"

/* ------------------------------------------------------------ the layout */

int brig_cgroup_layout(enum brig_cg_layout *out, struct brig_error *err)
{
	static int cached = -1;
	struct statfs sfs;

	if (cached < 0) {
		if (statfs(BRIG_CG_ROOT, &sfs) < 0)
			return brig_error_setp(err, errno, "statfs \"%s\"", BRIG_CG_ROOT);
		if (sfs.f_type == CGROUP2_SUPER_MAGIC)
			cached = BRIG_CG_V2;
		else if (statfs(BRIG_CG_ROOT "/unified", &sfs) == 0 &&
		         sfs.f_type == CGROUP2_SUPER_MAGIC)
			cached = BRIG_CG_HYBRID;
		else
			cached = BRIG_CG_V1;
	}
	*out = (enum brig_cg_layout)cached;
	return 0;
}

const char *brig_cgroup_layout_name(enum brig_cg_layout layout)
{
	switch (layout) {
	case BRIG_CG_V1:
		return "v1";
	case BRIG_CG_HYBRID:
		return "hybrid";
	case BRIG_CG_V2:
		return "v2";
	}
	return "?";
}

/* ------------------------------------------------------------ the mounts */

void brig_cgroup_mounts_free(struct brig_cg_mount *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(m[i].mountpoint);
		free(m[i].root);
		free(m[i].controllers);
		free(m[i].path);
	}
	free(m);
}

/* Is every comma-separated item of @want among those of @have? */
bool brig_cg_list_includes(const char *have, const char *want)
{
	size_t wl = strlen(want);

	for (const char *w = want; w < want + wl;) {
		const char *we = strchrnul(w, ',');
		bool found = false;

		for (const char *h = have; *h;) {
			const char *he = strchrnul(h, ',');

			if (he - h == we - w && !strncmp(h, w, (size_t)(we - w))) {
				found = true;
				break;
			}
			h = *he ? he + 1 : he;
		}
		if (!found)
			return false;
		w = *we ? we + 1 : we;
	}
	return true;
}

/* The line of /proc/self/cgroup (@self) for the hierarchy with these
 * super options (v1), or the "0::" one (v2). */
static int self_find(const char *self, bool v2, const char *superopts, struct brig_cg_mount *m)
{
	for (const char *line = self; *line;) {
		const char *end = strchrnul(line, '\n');
		_cleanup_free_ char *copy = strndup(line, (size_t)(end - line));
		char *c1, *c2;

		if (!copy)
			brig_oom();
		line = *end ? end + 1 : end;
		c1 = strchr(copy, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c1 = *c2 = '\0';
		if (v2 ? (strcmp(copy, "0") || c1[1])
		       : (!c1[1] || !brig_cg_list_includes(superopts, c1 + 1)))
			continue;
		m->controllers = brig_xstrdup(v2 ? BRIG_CG_UNIFIED : c1 + 1);
		m->path = brig_xstrdup(c2 + 1);
		return 0;
	}
	return -1;
}

int brig_cgroup_mounts(struct brig_cg_mount **out, size_t *n, struct brig_error *err)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *line = NULL, *self = NULL;
	struct brig_cg_mount *m = NULL;
	size_t cap = 0, self_len, cnt = 0;

	if (brig_read_file(AT_FDCWD, "/proc/self/cgroup", 1 << 20, &self, &self_len, err) < 0)
		return -1;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return brig_error_setp(err, errno, "open \"/proc/self/mountinfo\"");
	while (getline(&line, &cap, f) > 0) {
		struct brig_cg_mount h = { 0 };
		struct brig_mountinfo e;
		const char *base;

		if (!brig_mountinfo_parse(line, &e) ||
		    (strcmp(e.fstype, "cgroup") && strcmp(e.fstype, "cgroup2")))
			continue;
		if (!strcmp(e.mountpoint, BRIG_CG_ROOT))
			base = "";
		else if (!strncmp(e.mountpoint, BRIG_CG_ROOT "/", sizeof(BRIG_CG_ROOT)))
			base = e.mountpoint + sizeof(BRIG_CG_ROOT);
		else
			continue;
		if (strchr(base, '/'))
			continue;
		h.v2 = !strcmp(e.fstype, "cgroup2");
		if (self_find(self, h.v2, e.superopts, &h) < 0)
			continue;
		h.mountpoint = brig_xstrdup(e.mountpoint);
		h.root = brig_xstrdup(e.root);
		m = brig_xrealloc(m, (cnt + 1) * sizeof(*m));
		m[cnt++] = h;
	}
	*out = m;
	*n = cnt;
	return 0;
}

char *brig_cgroup_mount_dir(const struct brig_cg_mount *m, const char *path)
{
	size_t rl = strlen(m->root);
	const char *rel = path;

	if (strcmp(m->root, "/")) {
		if (!strncmp(path, m->root, rl) && (path[rl] == '/' || !path[rl]))
			rel = path + rl;
		else
			rel = ""; /* not below the mounted root: all we can see */
	}
	if (!strcmp(rel, "/"))
		rel = "";
	return brig_xasprintf("%s%s", m->mountpoint, rel);
}

/* ------------------------------------------------------------ placement */

void brig_cg_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* v1 cpuset: a new cgroup starts with empty cpus and mems, and no task
 * may join until they are set: copy them from the parent. */
static int cpuset_init(const char *dir, struct brig_error *err)
{
	static const char *const files[] = { "cpuset.cpus", "cpuset.mems" };

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		_cleanup_free_ char *parent = brig_xstrdup(dir);
		struct brig_cg_hier self = { .dir = (char *)dir }, up = { .dir = parent };
		_cleanup_free_ char *mine = NULL, *theirs = NULL;

		*strrchr(parent, '/') = '\0';
		mine = brig_cg_read(&self, files[i]);
		/* set, or not ours to read: left as it is */
		if (!mine || (mine[0] != '\n' && mine[0]))
			continue;
		theirs = brig_cg_read(&up, files[i]);
		if (!theirs)
			return brig_error_setp(err, errno, "read \"%s/%s\"", parent, files[i]);
		if (brig_cg_write(&self, files[i], theirs, err) < 0)
			return -1;
	}
	return 0;
}

/* v2: make the controllers of @parent available to its children.  Best
 * effort: a cgroup with processes of its own takes none (EBUSY), and a
 * resource whose controller is still missing fails by name when it is
 * written. */
static void v2_enable_controllers(const char *parent)
{
	struct brig_cg_hier up = { .dir = (char *)parent };
	_cleanup_free_ char *avail = NULL, *enabled = NULL;

	avail = brig_cg_read(&up, "cgroup.controllers");
	enabled = brig_cg_read(&up, "cgroup.subtree_control");
	if (!avail || !enabled)
		return;
	for (char *save = NULL, *c = strtok_r(avail, " \n", &save); c;
	     c = strtok_r(NULL, " \n", &save)) {
		struct brig_error ignored = BRIG_ERROR_INIT;
		_cleanup_free_ char *word = brig_xasprintf(" %s ", c);
		_cleanup_free_ char *have = brig_xasprintf(" %s ", enabled);

		for (char *p = have; *p; p++)
			if (*p == '\n')
				*p = ' ';
		if (strstr(have, word))
			continue;
		brig_cg_writef(&up, "cgroup.subtree_control", &ignored, "+%s", c);
		brig_error_release(&ignored);
	}
}

/*
 * mkdir -p @dir below @mountpoint, remembering the topmost new directory.
 * v2: with @whole_path (a pure v2 host), every cgroup from the root down
 * to the container's parent gives its children its controllers, existing
 * ones included, as runc's fs2 does: a cgroupfs path below a systemd
 * unit, or systemd's own scope, then gets hugetlb, rdma and misc, which
 * systemd does not delegate.  Otherwise (the v2 hierarchy of a hybrid
 * host, whose cgroups above the caller's are the host's) only the
 * parents of the directories brig made, never the root.
 */
int brig_cg_make_dir(struct brig_cg_hier *h, const char *mountpoint, bool whole_path,
                     struct brig_error *err)
{
	size_t ml = strlen(mountpoint);
	_cleanup_free_ char *path = brig_xstrdup(h->dir);
	int restarts = 0;

	whole_path = whole_path && h->v2;
	if (whole_path)
		v2_enable_controllers(mountpoint);
	for (char *p = path + ml; p && *p;) {
		char *slash = strchr(p + 1, '/');

		if (slash)
			*slash = '\0';
		else
			brig_fault("cgroup.mkdir-leaf");
		if (mkdir(path, 0755) == 0) {
			/* the topmost: a restart may make one above the first */
			if (!h->created || strlen(path) < strlen(h->created)) {
				free(h->created);
				h->created = brig_xstrdup(path);
			}
			if (!h->v2) {
				if (brig_cg_list_includes(h->name, "cpuset") &&
				    cpuset_init(path, err) < 0)
					return -1;
			} else if (!whole_path) {
				_cleanup_free_ char *parent = brig_xstrdup(path);

				*strrchr(parent, '/') = '\0';
				if (strcmp(parent, mountpoint))
					v2_enable_controllers(parent);
			}
		} else if (errno == ENOENT && ++restarts < BRIG_CG_MKDIR_RESTARTS) {
			/* a parent found there a moment ago is gone: the delete
			 * of the container that made it removed it, empty, in
			 * between (brig_cg_remove_dir); the walk starts again */
			if (slash)
				*slash = '/';
			p = path + ml;
			continue;
		} else if (errno != EEXIST) {
			return brig_error_setp(err, errno, "mkdir \"%s\"", path);
		} else if (!h->v2 && brig_cg_list_includes(h->name, "cpuset") &&
		           cpuset_init(path, err) < 0) {
			/* an existing parent left with empty cpus or mems (a pod
			 * cgroup an engine made) takes no task, nor gives a child
			 * any: filled from its own parent, top down, as runc does */
			return -1;
		}
		if (whole_path && slash)
			v2_enable_controllers(path);
		if (slash)
			*slash = '/';
		p = slash;
	}
	return 0;
}

/* rmdir the container's cgroup; EBUSY (a process still leaving) is
 * retried a bounded number of times. */
static int rmdir_retry(const char *path, struct brig_error *err)
{
	for (int tries = 0; rmdir(path) < 0;) {
		if (errno == ENOENT)
			return 0;
		if (errno != EBUSY || ++tries >= BRIG_CG_DRAIN_TRIES)
			return brig_error_setp(err, errno, "remove cgroup \"%s\"", path);
		brig_cg_sleep_ms(BRIG_CG_DRAIN_SLEEP_MS);
	}
	return 0;
}

/* The cgroups below @dir (exec --cgroup's), deepest first. */
static int remove_below(const char *dir, int depth, struct brig_error *err)
{
	_cleanup_closedir_ DIR *d = opendir(dir);
	struct dirent *de;

	if (!d || depth >= 32)
		return 0;
	while ((de = readdir(d))) {
		_cleanup_free_ char *sub = NULL;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		sub = brig_xasprintf("%s/%s", dir, de->d_name);
		if (remove_below(sub, depth + 1, err) < 0 || rmdir_retry(sub, err) < 0)
			return -1;
	}
	return 0;
}

int brig_cg_remove_dir(const struct brig_cg_hier *h, struct brig_error *err)
{
	_cleanup_free_ char *path = NULL;
	size_t stop;

	if (!h->created)
		return 0;
	/* one rmdir, when nothing is left in it; EBUSY: a cgroup below it
	 * (exec --cgroup's) or a process still leaving */
	if (rmdir(h->dir) < 0 && errno != ENOENT) {
		if (errno != EBUSY)
			return brig_error_setp(err, errno, "remove cgroup \"%s\"", h->dir);
		if (remove_below(h->dir, 0, err) < 0 || rmdir_retry(h->dir, err) < 0)
			return -1;
	}
	/* The parents brig made for it, up to the topmost, each tried once:
	 * one that is busy (EBUSY: a cgroup or a process in it) holds a
	 * container or an engine's cgroup made there since, and stays, as
	 * runc leaves every parent.  Waiting on it would fail this delete
	 * for as long as the other lives. */
	path = brig_xstrdup(h->dir);
	stop = strlen(h->created);
	for (char *slash; (slash = strrchr(path, '/')) && (size_t)(slash - path) >= stop;) {
		*slash = '\0';
		if (rmdir(path) == 0 || errno == ENOENT)
			continue;
		if (errno == EBUSY || errno == ENOTEMPTY) {
			brig_debug("cgroup \"%s\": in use, left", path);
			return 0;
		}
		return brig_error_setp(err, errno, "remove cgroup \"%s\"", path);
	}
	return 0;
}

/*
 * The directory a relative linux.cgroupsPath (or the id) goes under in
 * hierarchy @m: the caller's own cgroup; on a pure v2 host, runc's rule,
 * its parent, since the caller's has processes and so cannot give
 * controllers to children of its own.
 */
static char *relative_base(const struct brig_cg_mount *m, enum brig_cg_layout layout)
{
	char *own = brig_cgroup_mount_dir(m, m->path), *slash;

	if (layout == BRIG_CG_V2 && strlen(own) > strlen(m->mountpoint) &&
	    (slash = strrchr(own, '/')))
		*slash = '\0';
	return own;
}

/* Whether @dir is @mountpoint or below it, without "." or ".." or empty
 * components. */
static bool dir_below(const char *dir, const char *mountpoint)
{
	size_t n = strlen(mountpoint);

	if (strncmp(dir, mountpoint, n) || (dir[n] && dir[n] != '/'))
		return false;
	for (const char *c = dir + n; *c;) {
		const char *end = strchrnul(++c, '/');
		size_t len = (size_t)(end - c);

		if (!len || (len == 1 && c[0] == '.') || (len == 2 && !strncmp(c, "..", 2)))
			return false;
		c = end;
	}
	return true;
}

/* The directory @parents (brig_cgroup_parents' lines) names for
 * hierarchy @m, or NULL: none, or not a directory below its mount. */
static char *parent_of(const char *parents, const struct brig_cg_mount *m)
{
	size_t n = strlen(m->controllers);

	for (const char *l = parents; *l;) {
		const char *end = strchrnul(l, '\n');

		if (!strncmp(l, m->controllers, n) && l[n] == '\t') {
			char *dir = brig_xasprintf("%.*s", (int)(end - l - n - 1), l + n + 1);

			if (dir_below(dir, m->mountpoint))
				return dir;
			free(dir);
			return NULL;
		}
		l = *end ? end + 1 : end;
	}
	return NULL;
}

/*
 * An absolute linux.cgroupsPath, or a relative one (the container's id
 * when there is none) under @base: the caller's cgroup in hierarchy @m
 * (relative_base), or the directory @cg->parents names for it.
 */
static char *cgroup_dir(const struct brig_cg_mount *m, const char *base, const char *cgpath,
                        const char *id)
{
	if (!cgpath || !*cgpath)
		cgpath = id;
	if (cgpath[0] == '/')
		return brig_xasprintf("%s%s", m->mountpoint, cgpath);
	return brig_xasprintf("%s/%s", base, cgpath);
}

char *brig_cgroup_parents(const char *path, struct brig_error *err)
{
	struct brig_cg_mount *mounts = NULL;
	struct brig_strbuf b = BRIG_STRBUF_INIT;
	enum brig_cg_layout layout;
	size_t n = 0;

	if (brig_cgroup_layout(&layout, err) < 0 || brig_cgroup_mounts(&mounts, &n, err) < 0)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *dir = NULL;

		if (mounts[i].v2 && layout == BRIG_CG_V1)
			continue;
		if (path && path[0] == '/') {
			dir = brig_xasprintf("%s%s", mounts[i].mountpoint,
			                     strcmp(path, "/") ? path : "");
		} else {
			dir = relative_base(&mounts[i], layout);
			if (path) {
				char *sub = brig_xasprintf("%s/%s", dir, path);

				free(dir);
				dir = sub;
			}
		}
		brig_strbuf_addf(&b, "%s\t%s\n", mounts[i].controllers, dir);
	}
	brig_cgroup_mounts_free(mounts, n);
	return b.buf ? b.buf : brig_xstrdup("");
}

/* The hierarchies a container joins: every v1 one the caller is in, and
 * the v2 one (which on a hybrid host holds the few controllers it has). */
int brig_cg_plan_dirs(struct brig_cgroup *cg, const char *cgpath, const char *id,
                      const char *unit_cgroup, struct brig_cg_mount **mounts, size_t *n_mounts,
                      struct brig_error *err)
{
	if (brig_cgroup_layout(&cg->layout, err) < 0 ||
	    brig_cgroup_mounts(mounts, n_mounts, err) < 0)
		return -1;
	cg->h = brig_xcalloc(*n_mounts ? *n_mounts : 1, sizeof(*cg->h));
	for (size_t i = 0; i < *n_mounts; i++) {
		const struct brig_cg_mount *m = &(*mounts)[i];
		struct brig_cg_hier *h = &cg->h[cg->n];
		_cleanup_free_ char *base = NULL;

		if (m->v2 && cg->layout == BRIG_CG_V1)
			continue;
		base = cg->parents && !unit_cgroup ? parent_of(cg->parents, m)
		                                   : relative_base(m, cg->layout);
		if (!base)
			return brig_error_set(err, "cgroup parent: none for hierarchy \"%s\"",
			                      m->controllers);
		h->name = brig_xstrdup(m->controllers);
		h->v2 = m->v2;
		/* systemd's unit is where systemd puts it, from the root */
		h->dir = unit_cgroup ? brig_xasprintf("%s%s", m->mountpoint, unit_cgroup)
		                     : cgroup_dir(m, base, cgpath, id);
		cg->n++;
	}
	if (!cg->n)
		return brig_error_set(err, "no cgroup hierarchy is mounted under \"%s\"",
		                      BRIG_CG_ROOT);
	return 0;
}

/* ------------------------------------------------------------ entering */

int brig_cgroup_enter_self(const struct brig_cgroup *cg, struct brig_error *err)
{
	/* the freezer last: a frozen cgroup (exec --ignore-paused) stops the
	 * writer right there */
	for (int last = 0; last < 2; last++)
		for (size_t i = 0; cg->tasks && i < cg->n; i++)
			if (cg->tasks[i] >= 0 &&
			    brig_cg_list_includes(cg->h[i].name, "freezer") == last &&
			    write(cg->tasks[i], "0", 1) != 1)
				return brig_error_setp(err, errno, "enter cgroup \"%s\"",
				                       cg->h[i].dir);
	return 0;
}

void brig_cgroup_close_tasks(struct brig_cgroup *cg)
{
	for (size_t i = 0; cg->tasks && i < cg->n; i++)
		if (cg->tasks[i] >= 0)
			close(cg->tasks[i]);
	free(cg->tasks);
	cg->tasks = NULL;
}
