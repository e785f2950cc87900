/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cgroup/cgroup.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>

#include "cgroup/devices_bpf.h"
#include "cgroup/internal.h"
#include "cgroup/systemd.h"
#include "util/mountinfo.h"
#include "spec/spec.h"
#include "spec/state.h"
#include "util/arena.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/jsonw.h"

#define CGROUP_ROOT "/sys/fs/cgroup"
/* how long teardown waits for a cgroup to empty, and how often it looks */
#define DRAIN_TRIES 200
#define DRAIN_SLEEP_MS 10

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
	if (cg->sd) {
		brig_systemd_unit_release(cg->sd);
		free(cg->sd);
	}
	*cg = (struct brig_cgroup)BRIG_CGROUP_INIT;
}

static const struct brig_cg_ops *ops_of(const struct brig_cgroup *cg)
{
	return cg->layout == BRIG_CG_V2 ? &brig_cg_v2_ops : &brig_cg_v1_ops;
}

int brig_cgroup_layout(enum brig_cg_layout *out, struct brig_error *err)
{
	static int cached = -1;
	struct statfs sfs;

	if (cached < 0) {
		if (statfs(CGROUP_ROOT, &sfs) < 0)
			return brig_error_setp(err, errno, "statfs \"%s\"", CGROUP_ROOT);
		if (sfs.f_type == CGROUP2_SUPER_MAGIC)
			cached = BRIG_CG_V2;
		else if (statfs(CGROUP_ROOT "/unified", &sfs) == 0 &&
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
static bool list_includes(const char *have, const char *want)
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
		       : (!c1[1] || !list_includes(superopts, c1 + 1)))
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
		if (!strcmp(e.mountpoint, CGROUP_ROOT))
			base = "";
		else if (!strncmp(e.mountpoint, CGROUP_ROOT "/", sizeof(CGROUP_ROOT)))
			base = e.mountpoint + sizeof(CGROUP_ROOT);
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

/* ------------------------------------------------------------ file access */

const struct brig_cg_hier *brig_cg_find(const struct brig_cgroup *cg, const char *controller)
{
	for (size_t i = 0; i < cg->n; i++) {
		const struct brig_cg_hier *h = &cg->h[i];

		if (h->v2 ? (cg->layout == BRIG_CG_V2 || !strcmp(controller, BRIG_CG_UNIFIED))
		          : list_includes(h->name, controller))
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

static int open_file(const struct brig_cg_hier *h, const char *file, int flags)
{
	_cleanup_free_ char *path = brig_xasprintf("%s/%s", h->dir, file);

	return open(path, flags | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
}

int brig_cg_write(const struct brig_cg_hier *h, const char *file, const char *value,
                  struct brig_error *err)
{
	_cleanup_close_ int fd = open_file(h, file, O_WRONLY);
	size_t len = strlen(value);
	ssize_t n;

	if (fd < 0)
		return brig_error_setp(err, errno, "open \"%s/%s\"", h->dir, file);
	n = write(fd, value, len);
	if (n < 0 || (size_t)n != len)
		return brig_error_setp(err, n < 0 ? errno : EIO, "write \"%s\" to \"%s/%s\"", value,
		                       h->dir, file);
	return 0;
}

static int vwrite(const struct brig_cg_hier *h, const char *file, struct brig_error *err,
                  const char *fmt, va_list ap)
{
	_cleanup_free_ char *value = NULL;

	if (vasprintf(&value, fmt, ap) < 0)
		brig_oom();
	return brig_cg_write(h, file, value, err);
}

int brig_cg_writef(const struct brig_cg_hier *h, const char *file, struct brig_error *err,
                   const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vwrite(h, file, err, fmt, ap);
	va_end(ap);
	return r;
}

int brig_cg_put(const struct brig_cg_hier *h, const char *file, const char *path,
                struct brig_error *err, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vwrite(h, file, err, fmt, ap);
	va_end(ap);
	if (r < 0)
		return brig_error_wrap(err, "%s%s", BRIG_CG_R, path);
	return 0;
}

char *brig_cg_read(const struct brig_cg_hier *h, const char *file)
{
	_cleanup_close_ int fd = open_file(h, file, O_RDONLY);
	struct brig_error err = BRIG_ERROR_INIT;
	char *buf = NULL;
	size_t len;

	if (fd < 0)
		return NULL;
	if (brig_read_fd(fd, file, 4 << 20, &buf, &len, &err) < 0) {
		errno = err.errnum ? err.errnum : EIO;
		brig_error_release(&err);
		return NULL;
	}
	return buf;
}

int brig_cg_read_u64(const struct brig_cg_hier *h, const char *file, uint64_t *out)
{
	_cleanup_free_ char *s = brig_cg_read(h, file);
	char *end;

	if (!s)
		return -1;
	if (!strncmp(s, "max", 3)) {
		*out = UINT64_MAX;
		return 0;
	}
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	return 0;
}

int brig_cg_read_keyed(const struct brig_cg_hier *h, const char *file, const char *key,
                       uint64_t *out)
{
	_cleanup_free_ char *s = brig_cg_read(h, file);
	size_t kl = strlen(key);

	if (!s)
		return -1;
	for (char *line = s; *line;) {
		char *end = strchrnul(line, '\n');

		if (!strncmp(line, key, kl) && line[kl] == ' ') {
			*out = strtoull(line + kl + 1, NULL, 10);
			return 0;
		}
		line = *end ? end + 1 : end;
	}
	return -1;
}

uint64_t brig_cg_value(const struct brig_cg_hier *h, const char *file)
{
	uint64_t v = 0;

	if (h)
		brig_cg_read_u64(h, file, &v);
	return v;
}

uint64_t brig_cg_keyed(const struct brig_cg_hier *h, const char *file, const char *key)
{
	uint64_t v = 0;

	if (h)
		brig_cg_read_keyed(h, file, key, &v);
	return v;
}

bool brig_cg_has(const struct brig_cg_hier *h, const char *file)
{
	_cleanup_free_ char *path = brig_xasprintf("%s/%s", h->dir, file);

	return access(path, F_OK) == 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The pids of @dir's cgroup.procs and of every cgroup below it (exec
 * --cgroup makes sub-cgroups), appended to @list. */
static int read_tree_pids(const char *dir, int depth, pid_t **list, size_t *cnt,
                          struct brig_error *err)
{
	struct brig_cg_hier h = { .dir = (char *)dir };
	_cleanup_free_ char *s = brig_cg_read(&h, "cgroup.procs");
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;

	if (!s) {
		if (errno == ENOENT)
			return 0; /* gone: nothing in it */
		return brig_error_setp(err, errno, "read \"%s/cgroup.procs\"", dir);
	}
	for (char *p = s; *p;) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		*list = brig_xrealloc(*list, (*cnt + 1) * sizeof(**list));
		(*list)[(*cnt)++] = (pid_t)v;
		p = end;
		while (*p == '\n')
			p++;
	}
	if (depth >= 32 || !(d = opendir(dir)))
		return 0;
	while ((de = readdir(d))) {
		_cleanup_free_ char *sub = NULL;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		sub = brig_xasprintf("%s/%s", dir, de->d_name);
		if (read_tree_pids(sub, depth + 1, list, cnt, err) < 0)
			return -1;
	}
	return 0;
}

int brig_cg_read_pids(const struct brig_cg_hier *h, pid_t **pids, size_t *n, struct brig_error *err)
{
	pid_t *list = NULL;
	size_t cnt = 0;

	*pids = NULL;
	*n = 0;
	if (read_tree_pids(h->dir, 0, &list, &cnt, err) < 0) {
		free(list);
		return -1;
	}
	if (cnt)
		qsort(list, cnt, sizeof(*list), cmp_pid);
	*pids = list;
	*n = cnt;
	return 0;
}

/*
 * A pid read from cgroup.procs may have been reused by another process by
 * the time it is opened.  So: a pidfd for each, then the tree read again.
 * A signal that reaches a pidfd's process proves it alive now, so alive
 * when the tree was reread, so the pid found there was that very process.
 */
void brig_cg_signal_pids(const struct brig_cg_hier *h, const pid_t *pids, size_t n, int sig)
{
	struct brig_error ignored = BRIG_ERROR_INIT;
	_cleanup_free_ int *fds = brig_xcalloc(n ? n : 1, sizeof(*fds));
	_cleanup_free_ pid_t *now = NULL;
	size_t n_now = 0;

	for (size_t i = 0; i < n; i++)
		fds[i] = pidfd_open(pids[i], 0);
	if (brig_cg_read_pids(h, &now, &n_now, &ignored) == 0)
		for (size_t i = 0; i < n; i++)
			if (fds[i] >= 0 && bsearch(&pids[i], now, n_now, sizeof(*now), cmp_pid))
				pidfd_send_signal(fds[i], sig, NULL, 0);
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	brig_error_release(&ignored);
}

/* ------------------------------------------------------------ placement */

static void sleep_ms(long ms)
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

/* v2: make the controllers of @parent available to its children (only in
 * directories brig created, and their parent: never the hierarchy's root,
 * which belongs to the host).  Best effort: a resource whose controller
 * is still missing fails by name when it is written. */
static void v2_enable_controllers(const char *parent, const char *mountpoint)
{
	struct brig_cg_hier up = { .dir = (char *)parent };
	_cleanup_free_ char *avail = NULL, *enabled = NULL;

	if (!strcmp(parent, mountpoint))
		return;
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

/* mkdir -p @dir below @mountpoint, remembering the topmost new directory. */
static int make_dir(struct brig_cg_hier *h, const char *mountpoint, struct brig_error *err)
{
	size_t ml = strlen(mountpoint);
	_cleanup_free_ char *path = brig_xstrdup(h->dir);

	for (char *p = path + ml; p && *p;) {
		char *slash = strchr(p + 1, '/');

		if (slash)
			*slash = '\0';
		if (mkdir(path, 0755) == 0) {
			if (!h->created)
				h->created = brig_xstrdup(path);
			if (h->v2) {
				_cleanup_free_ char *parent = brig_xstrdup(path);

				*strrchr(parent, '/') = '\0';
				v2_enable_controllers(parent, mountpoint);
			} else if (list_includes(h->name, "cpuset") && cpuset_init(path, err) < 0) {
				return -1;
			}
		} else if (errno != EEXIST) {
			return brig_error_setp(err, errno, "mkdir \"%s\"", path);
		} else if (!h->v2 && list_includes(h->name, "cpuset") &&
		           cpuset_init(path, err) < 0) {
			/* an existing parent left with empty cpus or mems (a pod
			 * cgroup an engine made) takes no task, nor gives a child
			 * any: filled from its own parent, top down, as runc does */
			return -1;
		}
		if (slash)
			*slash = '/';
		p = slash;
	}
	return 0;
}

/* rmdir the container's cgroup and every parent brig created; EBUSY (a
 * process still leaving) is retried a bounded number of times. */
static int rmdir_retry(const char *path, struct brig_error *err)
{
	for (int tries = 0; rmdir(path) < 0;) {
		if (errno == ENOENT)
			return 0;
		if (errno != EBUSY || ++tries >= DRAIN_TRIES)
			return brig_error_setp(err, errno, "remove cgroup \"%s\"", path);
		sleep_ms(DRAIN_SLEEP_MS);
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

static int remove_dir(const struct brig_cg_hier *h, struct brig_error *err)
{
	_cleanup_free_ char *path = NULL;
	size_t stop;

	if (!h->created)
		return 0;
	if (remove_below(h->dir, 0, err) < 0)
		return -1;
	path = brig_xstrdup(h->dir);
	stop = strlen(h->created);
	while (strlen(path) >= stop) {
		if (rmdir_retry(path, err) < 0)
			return -1;
		*strrchr(path, '/') = '\0';
	}
	return 0;
}

/*
 * An absolute linux.cgroupsPath, or a relative one (the container's id
 * when there is none) under the caller's cgroup in hierarchy @m.  On a
 * pure v2 host, runc's rule: under the parent of the caller's cgroup,
 * which has processes and so cannot give controllers to children of its
 * own.
 */
static char *cgroup_dir(const struct brig_cg_mount *m, enum brig_cg_layout layout,
                        const char *cgpath, const char *id)
{
	_cleanup_free_ char *own = NULL;
	char *slash;

	if (!cgpath || !*cgpath)
		cgpath = id;
	if (cgpath[0] == '/')
		return brig_xasprintf("%s%s", m->mountpoint, cgpath);
	own = brig_cgroup_mount_dir(m, m->path);
	if (layout == BRIG_CG_V2 && strlen(own) > strlen(m->mountpoint) &&
	    (slash = strrchr(own, '/')))
		*slash = '\0';
	return brig_xasprintf("%s/%s", own, cgpath);
}

/* The hierarchies a container joins: every v1 one the caller is in, and
 * the v2 one (which on a hybrid host holds the few controllers it has). */
static int plan_dirs(struct brig_cgroup *cg, const char *cgpath, const char *id,
                     struct brig_cg_mount **mounts, size_t *n_mounts, struct brig_error *err)
{
	const char *sd_cgroup = cg->sd ? cg->sd->cgroup : NULL;

	if (brig_cgroup_layout(&cg->layout, err) < 0 ||
	    brig_cgroup_mounts(mounts, n_mounts, err) < 0)
		return -1;
	cg->h = brig_xcalloc(*n_mounts ? *n_mounts : 1, sizeof(*cg->h));
	for (size_t i = 0; i < *n_mounts; i++) {
		const struct brig_cg_mount *m = &(*mounts)[i];
		struct brig_cg_hier *h = &cg->h[cg->n];

		if (m->v2 && cg->layout == BRIG_CG_V1)
			continue;
		h->name = brig_xstrdup(m->controllers);
		h->v2 = m->v2;
		/* systemd's unit is where systemd puts it, from the root */
		h->dir = sd_cgroup ? brig_xasprintf("%s%s", m->mountpoint, sd_cgroup)
		                   : cgroup_dir(m, cg->layout, cgpath, id);
		cg->n++;
	}
	if (!cg->n)
		return brig_error_set(err, "no cgroup hierarchy is mounted under \"%s\"",
		                      CGROUP_ROOT);
	return 0;
}

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
	if (!list_includes(h->name, "freezer"))
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
			return brig_error_set(err, "cgroup \"%s\" is frozen", cg->h[i].dir);
	return 0;
}

/*
 * --systemd-cgroup: systemd creates the cgroup, as a transient unit
 * started with the init's pid (brig_cgroup_enter).  Here only what can
 * fail before anything exists: the path, systemd itself, the resources.
 */
static int systemd_create(const struct brig_linux *lx, const char *id, struct brig_cgroup *cg,
                          struct brig_error *err)
{
	const struct brig_resources *r = lx ? lx->resources : NULL;
	struct brig_resources none = { 0 };
	struct brig_cg_mount *mounts = NULL;
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
	if (plan_dirs(cg, NULL, id, &mounts, &n_mounts, err) < 0)
		goto out;
	if (ops_of(cg)->check(cg, r ? r : &none, err) < 0) {
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

/* The unit, with the init in it; then the hierarchies systemd does not
 * manage, and what its properties cannot say, through cgroupfs (runc). */
static int systemd_enter(struct brig_cgroup *cg, pid_t pid, struct brig_error *err)
{
	const struct brig_resources *r = cg->lx ? cg->lx->resources : NULL;
	_cleanup_free_ struct brig_dev_rule *rules = NULL;
	size_t n_rules = brig_cg_device_rules(cg->lx, &rules);
	struct brig_resources none = { 0 };

	if (brig_systemd_start(cg->sd, pid, r, rules, n_rules, cg->layout == BRIG_CG_V2, err) < 0)
		return -1;
	for (size_t i = 0; i < cg->n; i++) {
		size_t ml = strlen(cg->h[i].dir) - strlen(cg->sd->cgroup);
		_cleanup_free_ char *mp = strndup(cg->h[i].dir, ml);

		if (!mp)
			brig_oom();
		if (make_dir(&cg->h[i], mp, err) < 0 ||
		    brig_cg_writef(&cg->h[i], "cgroup.procs", err, "%d", (int)pid) < 0)
			return -1;
	}
	cg->lx = NULL;
	if (ops_of(cg)->apply(cg, r ? r : &none, rules, n_rules, err) < 0)
		return brig_error_wrap(err, "config.json");
	return 0;
}

int brig_cgroup_create(const struct brig_linux *lx, const char *id, bool systemd,
                       struct brig_cgroup *cg, struct brig_error *err)
{
	struct brig_cg_mount *mounts = NULL;
	_cleanup_free_ struct brig_dev_rule *rules = NULL;
	const struct brig_resources *r = lx ? lx->resources : NULL;
	size_t n_mounts = 0, n_rules;
	struct brig_resources none = { 0 };
	struct brig_error ignored = BRIG_ERROR_INIT;
	int ret = -1;

	if (systemd)
		return systemd_create(lx, id, cg, err);
	if (plan_dirs(cg, lx ? lx->cgroups_path : NULL, id, &mounts, &n_mounts, err) < 0)
		goto out;
	if (ops_of(cg)->check(cg, r ? r : &none, err) < 0) {
		brig_error_wrap(err, "config.json");
		goto out;
	}
	for (size_t i = 0; i < cg->n; i++) {
		const char *mp = NULL;

		for (size_t k = 0; k < n_mounts && !mp; k++)
			if (!strncmp(cg->h[i].dir, mounts[k].mountpoint,
			             strlen(mounts[k].mountpoint)) &&
			    cg->h[i].dir[strlen(mounts[k].mountpoint)] == '/' &&
			    mounts[k].v2 == cg->h[i].v2)
				mp = mounts[k].mountpoint;
		if (make_dir(&cg->h[i], mp, err) < 0)
			goto fail;
	}
	if (check_empty(cg, err) < 0 || check_not_frozen(cg, err) < 0)
		goto fail;
	n_rules = brig_cg_device_rules(lx, &rules);
	if (ops_of(cg)->apply(cg, r ? r : &none, rules, n_rules, err) < 0) {
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
		remove_dir(&cg->h[i], &ignored);
	brig_error_release(&ignored);
out:
	brig_cgroup_mounts_free(mounts, n_mounts);
	if (ret < 0)
		brig_cgroup_release(cg);
	return ret;
}

int brig_cgroup_open_tasks(struct brig_cgroup *cg, const char *sub, struct brig_error *err)
{
	_cleanup_free_ char *file = sub ? brig_xasprintf("%s/tasks", sub) : brig_xstrdup("tasks");

	if (cg->sd || !cg->n)
		return 0;
	cg->tasks = brig_xcalloc(cg->n, sizeof(*cg->tasks));
	for (size_t i = 0; i < cg->n; i++)
		cg->tasks[i] = -1;
	for (size_t i = 0; i < cg->n; i++) {
		if (cg->h[i].v2)
			continue; /* born there, or entered by brig */
		cg->tasks[i] = open_file(&cg->h[i], file, O_WRONLY);
		if (cg->tasks[i] < 0)
			return brig_error_setp(err, errno, "open \"%s/%s\"", cg->h[i].dir, file);
	}
	return 0;
}

int brig_cgroup_enter_self(const struct brig_cgroup *cg, struct brig_error *err)
{
	/* the freezer last: a frozen cgroup (exec --ignore-paused) stops the
	 * writer right there */
	for (int last = 0; last < 2; last++)
		for (size_t i = 0; cg->tasks && i < cg->n; i++)
			if (cg->tasks[i] >= 0 && list_includes(cg->h[i].name, "freezer") == last &&
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

int brig_cgroup_enter(struct brig_cgroup *cg, const char *sub, pid_t pid, struct brig_error *err)
{
	_cleanup_free_ char *file =
	    sub ? brig_xasprintf("%s/cgroup.procs", sub) : brig_xstrdup("cgroup.procs");

	if (cg->sd && cg->unit)
		return systemd_enter(cg, pid, err);
	for (size_t i = 0; i < cg->n; i++) {
		if (cg->h[i].v2 && cg->v2fd >= 0)
			continue; /* born there */
		if (cg->tasks && cg->tasks[i] >= 0)
			continue; /* the process entered it itself */
		if (brig_cg_writef(&cg->h[i], file, err, "%d", (int)pid) < 0)
			return -1;
	}
	return 0;
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
	return !strncmp(p, CGROUP_ROOT "/", sizeof(CGROUP_ROOT)) && !strstr(p, "/../") &&
	       !strstr(p, "/./");
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
			                      h->dir, CGROUP_ROOT);
		for (size_t k = 0; k < s->n_cgroup_created; k++) {
			const char *c = s->cgroup_created[k].value;

			if (strcmp(s->cgroup_created[k].key, h->name))
				continue;
			/* the created dir is the path itself or one of its parents */
			if (!state_path_ok(c) || strncmp(h->dir, c, strlen(c)) ||
			    (h->dir[strlen(c)] && h->dir[strlen(c)] != '/'))
				return brig_error_set(
				    err, "state: cgroup \"%s\" is not below \"%s\"", h->dir, c);
			h->created = brig_xstrdup(c);
		}
	}
	if (s->cgroup_unit)
		cg->unit = brig_xstrdup(s->cgroup_unit);
	return 0;
}

/* ------------------------------------------------------------ operations */

int brig_cgroup_check(const struct brig_resources *r, const char *prefix, struct brig_error *err)
{
	struct brig_cgroup cg = BRIG_CGROUP_INIT;
	struct brig_cg_mount *mounts = NULL;
	size_t n = 0;
	int ret;

	ret = plan_dirs(&cg, "", "x", &mounts, &n, err);
	if (ret == 0 && (ret = ops_of(&cg)->check(&cg, r, err)) < 0 && prefix)
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
	if (ops_of(cg)->check(cg, r, err) < 0)
		return -1;
	if (cg->unit &&
	    brig_systemd_update(cg->unit, r, NULL, 0, cg->layout == BRIG_CG_V2, err) < 0)
		return -1;
	return ops_of(cg)->apply(cg, r, NULL, 0, err);
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
	return h && (h->created || cg->unit);
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

int brig_cgroup_signal(const struct brig_cgroup *cg, int sig, struct brig_error *err)
{
	const struct brig_cg_hier *h = signal_hier(cg);
	_cleanup_free_ pid_t *pids = NULL;
	/* nothing to freeze for SIGKILL (nothing outruns it) or 0 (nothing
	 * is sent) */
	bool freeze = sig != SIGKILL && sig != 0 && !brig_cgroup_frozen(cg);
	size_t n;
	int r;

	if (!h)
		return 1;
	if (freeze && brig_cgroup_freeze(cg, true, err) < 0)
		return -1;
	r = brig_cg_read_pids(h, &pids, &n, err);
	if (r == 0 && n)
		brig_cg_signal_pids(h, pids, n, sig);
	if (freeze) {
		struct brig_error e2 = BRIG_ERROR_INIT;

		if (brig_cgroup_freeze(cg, false, r < 0 ? &e2 : err) < 0 && r == 0)
			r = -1;
		brig_error_release(&e2);
	}
	return r;
}

int brig_cgroup_freeze(const struct brig_cgroup *cg, bool frozen, struct brig_error *err)
{
	return ops_of(cg)->freeze(cg, frozen, err);
}

bool brig_cgroup_frozen(const struct brig_cgroup *cg)
{
	return cg->n && ops_of(cg)->frozen(cg);
}

/* v2's cgroup.kill (hybrid hosts have it too): every process, at once,
 * with no race against fork.  0 when done, -1 when not available. */
static int kill_v2(const struct brig_cgroup *cg)
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

/* v1: freeze, SIGKILL everything listed, thaw, until the list is empty. */
static int drain(const struct brig_cgroup *cg, struct brig_error *err)
{
	const struct brig_cg_hier *h = signal_hier(cg);
	bool use_kill;

	if (!h)
		return 0; /* not brig's: the init's end is the container's */
	use_kill = kill_v2(cg) == 0;
	for (int tries = 0; tries < DRAIN_TRIES; tries++) {
		_cleanup_free_ pid_t *pids = NULL;
		size_t n;

		if (brig_cg_read_pids(h, &pids, &n, err) < 0)
			return -1;
		if (!n)
			return 0;
		if (!use_kill) {
			struct brig_error ignored = BRIG_ERROR_INIT;
			bool frozen = brig_cg_find(cg, "freezer") || cg->layout == BRIG_CG_V2;

			if (frozen)
				frozen = brig_cgroup_freeze(cg, true, &ignored) == 0;
			brig_cg_signal_pids(h, pids, n, SIGKILL);
			if (frozen)
				brig_cgroup_freeze(cg, false, &ignored);
			brig_error_release(&ignored);
		}
		sleep_ms(tries < 10 ? 1 : DRAIN_SLEEP_MS);
	}
	return brig_error_set(err, "the processes of cgroup \"%s\" did not exit", h->dir);
}

int brig_cgroup_destroy(struct brig_cgroup *cg, struct brig_error *err)
{
	struct brig_error later = BRIG_ERROR_INIT;
	int r = 0;

	if (!cg->n)
		return 0;
	if (drain(cg, err) < 0)
		return -1;
	/* a unit brig started (a path naming one of the host's own units never
	 * gets this far: its cgroup is not empty, and create refuses that) */
	if (cg->unit && brig_systemd_stop(cg->unit, err) < 0)
		return -1;
	/* every hierarchy is tried; the first failure is the one reported */
	for (size_t i = 0; i < cg->n; i++)
		if (remove_dir(&cg->h[i], r < 0 ? &later : err) < 0)
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
	ops_of(cg)->stats(cg, &st);
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
	return ops_of(cg)->oom_watch(cg, w, err);
}

int64_t brig_cgroup_oom_read(const struct brig_cgroup *cg, struct brig_cg_oom_watch *w)
{
	return w->fd >= 0 ? ops_of(cg)->oom_read(cg, w) : 0;
}

void brig_cgroup_oom_unwatch(struct brig_cg_oom_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->aux >= 0)
		close(w->aux);
	*w = (struct brig_cg_oom_watch)BRIG_CG_OOM_WATCH_INIT;
}
