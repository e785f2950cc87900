/* SPDX-License-Identifier: Apache-2.0 */
/*
 * restore (checkpoint.h): a new container from a bundle and an image, in
 * a cgroup of its own under any id.  The rootfs is bound for CRIU at
 * <state dir>/criu-root, in a mount namespace of brig's own (unshared
 * first), so that no mount outlives brig, whatever happens to it; CRIU
 * is put into the new cgroup first, named the root of every controller
 * (cg_root), so that the restored tree lands there.
 */
#include "config.h"
#include "lifecycle/checkpoint.h"
#include "lifecycle/criu_request.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lifecycle/bundle.h"
#include "cgroup/cgroup.h"
#include "lifecycle/console.h"
#include "lifecycle/container.h"
#include "lifecycle/context.h"
#include "hooks/hooks.h"
#include "linux/criu.h"
#include "linux/namespaces.h"
#include "linux/resolve.h"
#include "lifecycle/state.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/fs.h"
#include "util/jsonw.h"
#include "util/log.h"
#include "util/pb.h"
#include "util/proc.h"
#include "lifecycle/watch.h"

struct restore_job {
	const struct brig_context *ctx;
	const struct brig_restore_opts *o;
	struct brig_bundle bundle;
	struct brig_store store;
	struct brig_entry entry;
	struct brig_cgroup cg;
	struct brig_strbuf opts;
	struct brig_arena arena;
	char *rootfs;
	char *criu_root; /* mounted, in brig's own mount namespace */
	char *yard;      /* make_yard's */
	int console;
	int master;
	int pidfd;
	pid_t pid;
	bool claimed;
	bool saved;
};

static int record_cgroups(void *arg, const char *text, struct brig_error *err)
{
	return brig_entry_record(arg, text, err);
}

static void hook_state(const struct restore_job *j, pid_t pid, struct brig_state *s)
{
	const struct brig_config *cfg = j->bundle.config;

	memset(s, 0, sizeof(*s));
	s->oci_version = cfg->oci_version;
	s->id = j->o->id;
	s->pid = pid;
	s->bundle = j->bundle.path;
	s->rootfs = j->rootfs;
	s->annotations = cfg->annotations;
	s->n_annotations = cfg->n_annotations;
}

static int save_state(struct restore_job *j, struct brig_error *err)
{
	const struct brig_config *cfg = j->bundle.config;
	const struct brig_namespace *pidns = brig_config_namespace(cfg->linux, BRIG_NS_PID);
	struct brig_state *s = brig_state_new();
	char now[64];
	int r;

	brig_log_time_rfc3339(now, sizeof(now));
	s->oci_version = cfg->oci_version;
	s->id = j->o->id;
	s->status = BRIG_STATUS_RUNNING;
	s->pid = j->pid;
	if (brig_proc_stat(j->pid, NULL, &s->pid_start) < 0) {
		brig_state_free(s);
		return brig_error_setp(err, errno, "read the start time of the restored init");
	}
	s->bundle = j->bundle.path;
	s->rootfs = j->rootfs;
	s->created = now;
	s->owner = geteuid();
	s->own_pidns = pidns && !pidns->path;
	s->annotations = cfg->annotations;
	s->n_annotations = cfg->n_annotations;
	s->hooks = cfg->hooks;
	brig_cgroup_to_state(&j->cg, s);
	r = brig_entry_save(&j->entry, s, err);
	brig_state_free(s);
	if (r == 0)
		j->saved = true;
	return r;
}

/*
 * --manage-cgroups-mode strict: CRIU makes the container's cgroup itself,
 * with the image's properties, and refuses one that exists.  brig's
 * directories are removed again (their parents stay, and the record:
 * delete removes what CRIU makes there) and named as the root of each
 * hierarchy; CRIU stays where it is.
 */
static int strict_cg_roots(struct restore_job *j, struct brig_error *err)
{
	struct brig_cg_mount *m = NULL;
	size_t n = 0;
	int r = 0;

	if (brig_cgroup_mounts(&m, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < j->cg.n && r == 0; i++) {
		const struct brig_cg_hier *h = &j->cg.h[i];
		const struct brig_cg_mount *mm = NULL;
		_cleanup_free_ char *path = NULL;
		size_t len;

		for (size_t k = 0; k < n && !mm; k++)
			if (!strcmp(m[k].controllers, h->name))
				mm = &m[k];
		len = mm ? strlen(mm->mountpoint) : 0;
		if (!mm || strncmp(h->dir, mm->mountpoint, len) ||
		    (h->dir[len] && h->dir[len] != '/')) {
			r = brig_error_set(err, "cgroup %s: no mount holds \"%s\"", h->name,
			                   h->dir);
			break;
		}
		path = brig_xasprintf("%s%s", strcmp(mm->root, "/") ? mm->root : "", h->dir + len);
		/* only what brig made: a cgroup that was there is another's */
		if (!h->created)
			r = brig_error_set(err,
			                   "--manage-cgroups-mode strict: the cgroup \"%s\" exists "
			                   "already, and CRIU makes it in strict mode",
			                   h->dir);
		else if (rmdir(h->dir) < 0 && errno != ENOENT)
			r = brig_error_setp(err, errno,
			                    "--manage-cgroups-mode strict: remove \"%s\" for CRIU",
			                    h->dir);
		else
			brig_criu_put_pair(&j->opts, BRIG_CRIU_O_CG_ROOT, h->v2 ? "" : h->name,
			                   *path ? path : "/");
	}
	brig_cgroup_mounts_free(m, n);
	return r;
}

/* CRIU is running: into the container's cgroup with it, which becomes the
 * root of every controller for the restored tree. */
static int criu_started(void *arg, pid_t criu, struct brig_error *err)
{
	struct restore_job *j = arg;
	_cleanup_free_ char *text = NULL;
	char path[64];
	size_t len;

	if (!brig_cgroup_present(&j->cg))
		return 0;
	/* CRIU was not born in the v2 cgroup (CLONE_INTO_CGROUP, the
	 * init's way): without the clone fd, enter writes its pid there */
	if (j->cg.v2fd >= 0) {
		close(j->cg.v2fd);
		j->cg.v2fd = -1;
	}
	if (j->o->f.manage_cgroups_mode == BRIG_CRIU_CG_STRICT)
		return strict_cg_roots(j, err);
	if (brig_cgroup_enter(&j->cg, NULL, criu, err) < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)criu);
	if (brig_read_file(AT_FDCWD, path, 1 << 20, &text, &len, err) < 0)
		return -1;
	for (char *line = text, *next; line && *line; line = next) {
		char *ctrl, *dir;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		/* "ID:CONTROLLERS:PATH", CONTROLLERS empty on cgroup2 */
		ctrl = strchr(line, ':');
		dir = ctrl ? strchr(ctrl + 1, ':') : NULL;
		if (!dir)
			continue;
		*dir++ = '\0';
		ctrl++;
		brig_criu_put_pair(&j->opts, BRIG_CRIU_O_CG_ROOT, ctrl, dir);
	}
	return 0;
}

/* lo up in the network namespace of @pid, from a child that joins it. */
static int loopback_up_in(pid_t pid, struct brig_error *err)
{
	char path[64];
	_cleanup_close_ int ns = -1;
	int status;
	pid_t child;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	ns = open(path, O_RDONLY | O_CLOEXEC);
	if (ns < 0)
		return brig_error_setp(err, errno, "open %s", path);
	child = fork();
	if (child < 0)
		return brig_error_setp(err, errno, "fork");
	if (child == 0) {
		struct brig_error e = BRIG_ERROR_INIT;

		_exit(setns(ns, CLONE_NEWNET) == 0 && brig_loopback_up(&e) == 0 ? 0 : 1);
	}
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			return brig_error_setp(err, errno, "waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return brig_error_set(err, "restore: cannot bring lo up in the restored network "
		                           "namespace");
	return 0;
}

static int criu_notify(void *arg, const char *script, pid_t pid, int fd, struct brig_error *err)
{
	struct restore_job *j = arg;
	const struct brig_hooks *h = &j->bundle.config->hooks;
	struct brig_state s;

	if (strcmp(script, "setup-namespaces") == 0) {
		const struct brig_namespace *net =
		    brig_config_namespace(j->bundle.config->linux, BRIG_NS_NETWORK);

		/* the new network namespace, restored empty: lo up, as at
		 * create, before CRIU restores sockets bound to it */
		if (net && !net->path && brig_loopback_wanted(j->bundle.config) &&
		    loopback_up_in(pid, err) < 0)
			return -1;
		/* runc runs prestart and createRuntime here, in its namespaces */
		hook_state(j, pid, &s);
		if (brig_hooks_run_stage(h, BRIG_HOOK_PRESTART, &s, BRIG_STATUS_CREATED, err) < 0 ||
		    brig_hooks_run_stage(h, BRIG_HOOK_CREATE_RUNTIME, &s, BRIG_STATUS_CREATED,
		                         err) < 0)
			return -1;
	} else if (strcmp(script, "post-restore") == 0) {
		const struct brig_linux *lx = j->bundle.config->linux;

		/* strict: CRIU gave the cgroup the image's properties; the
		 * config's limits are the container's, as at create */
		if (j->o->f.manage_cgroups_mode == BRIG_CRIU_CG_STRICT && lx && lx->resources &&
		    brig_cgroup_update(&j->cg, lx->resources, err) < 0)
			return -1;
		j->pid = pid;
		j->pidfd = pidfd_open(pid, 0);
		if (j->pidfd < 0)
			return brig_error_setp(err, errno, "pidfd_open of the restored init");
		if (save_state(j, err) < 0)
			return -1;
	} else if (strcmp(script, "orphan-pts-master") == 0 && fd >= 0) {
		if (j->console >= 0) {
			int r = brig_console_send(j->console, fd, err);

			close(fd);
			return r;
		}
		if (j->master >= 0)
			close(j->master);
		j->master = fd;
		return 0;
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

/* The rootfs bound where CRIU wants it: a mount point whose parent is not
 * overmounted. */
static int bind_criu_root(struct restore_job *j, struct brig_error *err)
{
	if (mkdirat(j->entry.dirfd, CRIU_ROOT, 0755) < 0)
		return brig_error_setp(err, errno, "mkdir %s", CRIU_ROOT);
	j->criu_root = brig_criu_req_path_in(j->entry.dirfd, CRIU_ROOT, err);
	if (!j->criu_root)
		return -1;
	if (mount(j->rootfs, j->criu_root, NULL, MS_BIND | MS_REC, NULL) < 0) {
		int e = errno;

		free(j->criu_root);
		j->criu_root = NULL;
		return brig_error_setp(err, e, "bind the rootfs at %s", CRIU_ROOT);
	}
	return 0;
}

static void unbind_criu_root(struct restore_job *j)
{
	if (j->entry.dirfd >= 0)
		brig_criu_req_drop_yard(j->entry.dirfd, &j->yard);
	if (!j->criu_root)
		return;
	umount2(j->criu_root, MNT_DETACH);
	unlinkat(j->entry.dirfd, CRIU_ROOT, AT_REMOVEDIR);
	free(j->criu_root);
	j->criu_root = NULL;
}

/*
 * The mount points CRIU mounts on, made in the rootfs as create would
 * have made them (a rootfs copied from the one checkpointed has them
 * already), resolved inside it: none is made under a tmpfs of the
 * container's, whose contents CRIU restores.
 */
static int make_mountpoints(struct restore_job *j, struct brig_error *err)
{
	const struct brig_config *cfg = j->bundle.config;
	_cleanup_close_ int rootfd = open(j->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (rootfd < 0)
		return brig_error_setp(err, errno, "rootfs \"%s\"", j->rootfs);
	for (size_t i = 0; i < cfg->n_mounts; i++) {
		const struct brig_mount *m = &cfg->mounts[i];
		enum brig_mkpath_kind kind = BRIG_MKPATH_DIR;
		bool under_tmpfs = false;
		int fd;

		if (m->type && (!strcmp(m->type, "cgroup") || !strcmp(m->type, "cgroup2")))
			continue;
		for (size_t k = 0; k < cfg->n_mounts; k++) {
			const struct brig_mount *t = &cfg->mounts[k];
			size_t n = strlen(t->destination);

			if (k != i && t->type && !strcmp(t->type, "tmpfs") &&
			    !strncmp(m->destination, t->destination, n) &&
			    (m->destination[n] == '/' || t->destination[n - 1] == '/'))
				under_tmpfs = true;
		}
		if (under_tmpfs)
			continue;
		if (brig_criu_req_mount_is_bind(m) && m->source) {
			_cleanup_free_ char *src =
			    m->source[0] == '/'
			        ? brig_xstrdup(m->source)
			        : brig_xasprintf("%s/%s", j->bundle.path, m->source);
			struct stat st;

			if (stat(src, &st) == 0 && !S_ISDIR(st.st_mode))
				kind = BRIG_MKPATH_FILE;
		}
		fd = brig_mkpath_in_root(rootfd, m->destination, kind, err);
		if (fd < 0)
			return brig_error_wrap(err, "config.json: mounts[%zu]: destination", i);
		close(fd);
	}
	return 0;
}

static void restore_abort(struct restore_job *j)
{
	struct brig_error ignored = BRIG_ERROR_INIT;

	if (j->pid > 0) {
		struct brig_state s;

		if (j->pidfd >= 0)
			pidfd_send_signal(j->pidfd, SIGKILL, NULL, 0);
		waitpid(j->pid, NULL, 0);
		hook_state(j, j->pid, &s);
		brig_hooks_run_stage(&j->bundle.config->hooks, BRIG_HOOK_POSTSTOP, &s,
		                     BRIG_STATUS_STOPPED, &ignored);
	}
	unbind_criu_root(j);
	brig_cgroup_destroy(&j->cg, &ignored);
	if (j->claimed)
		brig_entry_remove(&j->entry, &ignored);
	brig_error_release(&ignored);
}

static void restore_release(struct restore_job *j)
{
	unbind_criu_root(j);
	brig_bundle_release(&j->bundle);
	brig_entry_release(&j->entry);
	brig_cgroup_release(&j->cg);
	brig_store_close(&j->store);
	brig_strbuf_release(&j->opts);
	brig_arena_release(&j->arena);
	free(j->rootfs);
	if (j->console >= 0)
		close(j->console);
	if (j->master >= 0)
		close(j->master);
	if (j->pidfd >= 0)
		close(j->pidfd);
}

/* The stdio pipes of the checkpointed init become CRIU's (brig's) own. */
static int inherit_stdio(struct restore_job *j, int images, struct brig_error *err)
{
	_cleanup_free_ char *text = NULL;
	char **d;
	size_t len, n = 0;

	if (brig_read_file(images, DESCRIPTORS, 1 << 20, &text, &len, err) < 0) {
		if (err->errnum != ENOENT)
			return -1;
		brig_error_release(err);
		return 0;
	}
	d = brig_descriptors_parse(&j->arena, DESCRIPTORS, text, len, &n, err);
	if (!d)
		return -1;
	for (size_t i = 0; i < n && i < 3; i++)
		if (strncmp(d[i], "pipe:", 5) == 0)
			brig_criu_put_inherit_fd(&j->opts, d[i], (int)i);
	return 0;
}

/* Namespaces the new config joins by path, handed to CRIU from fd 4 on. */
static int external_ns(struct restore_job *j, int extra[], size_t *n_extra, struct brig_error *err)
{
	static const struct {
		enum brig_ns_type type;
		const char *key;
	} ext[] = { { BRIG_NS_NETWORK, "extRootNetNS" }, { BRIG_NS_PID, "extRootPidNS" } };
	const struct brig_linux *lx = j->bundle.config->linux;

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		const struct brig_namespace *ns =
		    brig_config_namespace(j->bundle.config->linux, ext[i].type);
		int fd;

		if (!ns || !ns->path)
			continue;
		fd = open(ns->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return brig_error_setp(err, errno, "namespace \"%s\"", ns->path);
		extra[*n_extra] = fd;
		brig_criu_put_inherit_fd(&j->opts, ext[i].key, 4 + (int)*n_extra);
		(*n_extra)++;
	}
	for (size_t i = 0; lx && i < lx->n_namespaces; i++) {
		const struct brig_namespace *ns = &lx->namespaces[i];
		struct brig_strbuf m = BRIG_STRBUF_INIT;

		if (!ns->path || ns->type == BRIG_NS_NETWORK || ns->type == BRIG_NS_PID)
			continue;
		if (ns->type == BRIG_NS_CGROUP || ns->type == BRIG_NS_MOUNT)
			return brig_error_set(err, "restore cannot join the %s namespace \"%s\"",
			                      brig_ns_type_name(ns->type), ns->path);
		brig_pb_put_string(&m, 1, brig_ns_type_name(ns->type));
		brig_pb_put_string(&m, 2, ns->path);
		brig_pb_put_bytes(&j->opts, BRIG_CRIU_O_JOIN_NS, m.buf, m.len);
		brig_strbuf_release(&m);
	}
	return 0;
}

int brig_container_restore(const struct brig_context *ctx, const struct brig_restore_opts *o,
                           int *status, struct brig_error *err)
{
	struct restore_job j = { .ctx = ctx,
		                 .o = o,
		                 .bundle = BRIG_BUNDLE_INIT,
		                 .store = BRIG_STORE_INIT,
		                 .entry = BRIG_ENTRY_INIT,
		                 .cg = BRIG_CGROUP_INIT,
		                 .opts = BRIG_STRBUF_INIT,
		                 .arena = BRIG_ARENA_INIT,
		                 .console = -1,
		                 .master = -1,
		                 .pidfd = -1 };
	const char *image_path = o->f.image_path ? o->f.image_path : "checkpoint";
	_cleanup_close_ int images = -1, work = -1;
	const struct brig_config *cfg;
	bool foreground = !o->detach;
	enum brig_cg_driver driver = ctx->no_cgroup        ? BRIG_CG_DRIVER_DISABLED
	                             : ctx->systemd_cgroup ? BRIG_CG_DRIVER_SYSTEMD
	                                                   : BRIG_CG_DRIVER_CGROUPFS;
	int extra[4] = { -1, -1, -1, -1 };
	size_t n_extra = 0;
	sigset_t fwd, saved;
	int r = -1;

	if (brig_bundle_load(&j.bundle, o->bundle, err) < 0)
		goto out;
	cfg = j.bundle.config;
	/* create moves them in (lifecycle/netdevs.h); CRIU restores none, and
	 * a container without the devices it asked for is refused instead */
	if (cfg->linux && cfg->linux->n_net_devices) {
		brig_error_set(err, "config.json: linux.netDevices: not supported by restore");
		goto out;
	}
	if (o->own_cgroup && j.bundle.config->linux)
		j.bundle.config->linux->cgroups_path = NULL;
	if (brig_criu_req_need_mntns(cfg, "restore", err) < 0 ||
	    brig_criu_req_private_mntns(err) < 0)
		goto out;
	if (brig_console_check(cfg->process->terminal, o->detach, o->console_socket, err) < 0)
		goto out;
	j.rootfs = o->rootfs ? brig_xstrdup(o->rootfs) : brig_bundle_rootfs(&j.bundle, err);
	if (!j.rootfs)
		goto out;
	images = brig_criu_req_open_dir(image_path, false, "--image-path", err);
	if (images < 0)
		goto out;
	work = o->f.work_path ? brig_criu_req_open_dir(o->f.work_path, true, "--work-path", err)
	                      : fcntl(images, F_DUPFD_CLOEXEC, 3);
	if (work < 0)
		goto out;
	if (o->console_socket && *o->console_socket &&
	    (j.console = brig_console_connect(o->console_socket, err)) < 0)
		goto out;

	brig_criu_req_put_common(&j.opts, &o->f, images, work, "restore.log");
	brig_pb_put_bool(&j.opts, BRIG_CRIU_O_EVASIVE_DEVICES, true);
	brig_pb_put_bool(&j.opts, BRIG_CRIU_O_RST_SIBLING, true);
	if (cfg->process->terminal)
		brig_pb_put_bool(&j.opts, BRIG_CRIU_O_ORPHAN_PTS_MASTER, true);
	brig_criu_req_put_ext_mounts(&j.opts, cfg, j.bundle.path, -1, false);
	if (inherit_stdio(&j, images, err) < 0 || external_ns(&j, extra, &n_extra, err) < 0)
		goto out;

	if (o->f.manage_cgroups_mode == BRIG_CRIU_CG_STRICT && driver == BRIG_CG_DRIVER_SYSTEMD) {
		brig_error_set(err, "--manage-cgroups-mode strict: not with the systemd cgroup "
		                    "driver, whose unit makes the cgroup");
		goto out;
	}
	if (brig_store_open(&j.store, ctx->root, true, err) < 0)
		goto out;
	if (brig_store_claim(&j.store, o->id, &j.entry, err) < 0)
		goto out;
	j.claimed = true;
	if (brig_write_file_atomic(j.entry.dirfd, "config.json", j.bundle.text, j.bundle.len, 0600,
	                           err) < 0)
		goto fail;
	j.cg.record = record_cgroups;
	j.cg.record_arg = &j.entry;
	if (brig_cgroup_create(cfg->linux, o->id, driver, &j.cg, err) < 0)
		goto fail;
	if (make_mountpoints(&j, err) < 0 || bind_criu_root(&j, err) < 0)
		goto fail;
	brig_pb_put_string(&j.opts, BRIG_CRIU_O_ROOT, j.criu_root);
	j.yard = brig_criu_req_make_yard(j.entry.dirfd, err);
	if (!j.yard)
		goto fail;
	brig_pb_put_string(&j.opts, BRIG_CRIU_O_CGROUP_YARD, j.yard);

	brig_foreground_signals(foreground, !o->no_subreaper, &fwd, &saved);
	{
		/* inherit_fd maps the image's stdio pipes to CRIU's 0-2: brig's */
		static const int stdio[3] = { 0, 1, 2 };
		struct brig_criu_call call = {
			.criu = ctx->criu,
			.type = BRIG_CRIU_RESTORE,
			.opts = &j.opts,
			.stdio = o->stdio ? o->stdio : stdio,
			.extra = extra,
			.n_extra = n_extra,
			.started = criu_started,
			.notify = criu_notify,
			.notify_arg = &j,
			.log_dirfd = work,
			.log_name = "restore.log",
		};

		if (brig_fault("restore.criu") < 0) {
			brig_error_setp(err, errno, "criu");
			goto fail;
		}
		if (brig_criu_run(&call, err) < 0)
			goto fail;
		if (!j.saved || call.restored != j.pid) {
			brig_error_set(err, "criu: restored pid %d, but said %d after the restore",
			               (int)call.restored, (int)j.pid);
			goto fail;
		}
	}
	unbind_criu_root(&j);
	if (o->pid_file && brig_write_pid_file(o->pid_file, j.pid, err) < 0)
		goto fail;
	brig_entry_release(&j.entry);
	if (brig_watch_spawn(ctx->root, o->id, cfg->annotations, cfg->n_annotations, j.pidfd, j.pid,
	                     err) < 0)
		goto out;
	if (o->pidfd)
		*o->pidfd = TAKE_FD(j.pidfd);
	if (!foreground) {
		r = 0;
		goto out;
	}
	if (brig_wait_foreground(j.pidfd, &fwd, j.master, status, err) < 0)
		goto out;
	r = brig_container_delete(ctx, o->id, true, err);
	goto out;
fail:
	restore_abort(&j);
out:
	for (size_t i = 0; i < n_extra; i++)
		close(extra[i]);
	restore_release(&j);
	return r;
}
