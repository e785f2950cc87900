/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "container.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bundle.h"
#include "cgroup/cgroup.h"
#include "console.h"
#include "context.h"
#include "hooks/hooks.h"
#include "init.h"
#include "linux/apparmor.h"
#include "linux/idmap.h"
#include "linux/mounts.h"
#include "linux/namespaces.h"
#include "linux/process.h"
#include "linux/rootfs.h"
#include "linux/seccomp.h"
#include "linux/selinux.h"
#include "linux/syscalls.h"
#include "linux/userns.h"
#include "spec/spec.h"
#include "state.h"
#include "sync.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/proc.h"

#define EXEC_FIFO "exec.fifo"
#define KILL_WAIT_MS 10000

/*
 * What the config asks for that this version of brig cannot honour yet,
 * or that this host cannot (an LSM label without the LSM).  Running
 * without a requested confinement would be worse than refusing.
 */
static int check_supported(const struct brig_config *cfg, struct brig_error *err)
{
	const struct brig_linux *lx = cfg->linux;
	const struct brig_process *p = cfg->process;

	/* an LSM label the host cannot apply is refused, an empty one ignored */
	if (brig_selinux_check(p->selinux_label, err) < 0)
		return brig_error_wrap(err, "config.json: process.selinuxLabel");
	if (brig_apparmor_check(p->apparmor_profile, err) < 0)
		return brig_error_wrap(err, "config.json: process.apparmorProfile");
	if (!lx)
		return 0;
	if (brig_selinux_check(lx->mount_label, err) < 0)
		return brig_error_wrap(err, "config.json: linux.mountLabel");
	if (lx->intel_rdt)
		return brig_error_set(err, "config.json: linux.intelRdt: not supported");
	if (lx->n_net_devices)
		return brig_error_set(err, "config.json: linux.netDevices: not implemented yet");
	return 0;
}

static char *rootfs_path(const struct brig_bundle *b, struct brig_error *err)
{
	const char *root = b->config->root->path;
	_cleanup_free_ char *joined = NULL;
	char *abs;
	struct stat st;

	joined = root[0] == '/' ? brig_xstrdup(root) : brig_xasprintf("%s/%s", b->path, root);
	abs = realpath(joined, NULL);
	if (!abs || stat(abs, &st) < 0) {
		brig_error_setp(err, errno, "rootfs \"%s\"", joined);
		free(abs);
		return NULL;
	}
	if (!S_ISDIR(st.st_mode)) {
		free(abs);
		brig_error_set(err, "rootfs \"%s\": not a directory", joined);
		return NULL;
	}
	return abs;
}

int brig_write_pid_file(const char *path, pid_t pid, struct brig_error *err)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d", (int)pid);

	if (brig_write_file_atomic(AT_FDCWD, path, buf, (size_t)n, 0644, err) < 0)
		return brig_error_wrap(err, "pid file");
	return 0;
}

/* Signals a foreground `run` passes on to the container. */
void brig_forwarded_signals(sigset_t *set)
{
	static const int sigs[] = { SIGHUP,  SIGINT,    SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2,
		                    SIGALRM, SIGCONT,   SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE,
		                    SIGPWR,  SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO };

	sigemptyset(set);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaddset(set, sigs[i]);
}

/* Wait for the init (our child) and forward signals; 128+N for signal N.
 * With a terminal (@master >= 0), relay it to and from brig's stdio. */
int brig_wait_foreground(int pidfd, const sigset_t *fwd, int master, int *status,
                         struct brig_error *err)
{
	_cleanup_(brig_relay_finish) struct brig_relay relay = BRIG_RELAY_INIT;
	_cleanup_close_ int sfd = -1;
	struct pollfd pfd[2 + BRIG_RELAY_NFDS];
	sigset_t sigs = *fwd;
	siginfo_t si;

	if (master >= 0) {
		/* SIGWINCH resizes the pty; like runc, brig does not forward it */
		sigaddset(&sigs, SIGWINCH);
		sigprocmask(SIG_BLOCK, &sigs, NULL);
		brig_relay_start(&relay, master);
	}
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sfd < 0)
		return brig_error_setp(err, errno, "signalfd");
	pfd[0] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	for (;;) {
		int n = 2 + brig_relay_poll(&relay, pfd + 2);

		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return brig_error_setp(err, errno, "poll");
		}
		if (pfd[1].revents & POLLIN) {
			struct signalfd_siginfo ssi;

			if (read(sfd, &ssi, sizeof(ssi)) != sizeof(ssi))
				ssi.ssi_signo = 0;
			if (ssi.ssi_signo == SIGWINCH)
				brig_relay_resize(&relay);
			else if (ssi.ssi_signo)
				pidfd_send_signal(pidfd, (int)ssi.ssi_signo, NULL, 0);
		}
		brig_relay_io(&relay, pfd + 2, n - 2);
		if (pfd[0].revents & POLLIN)
			break;
	}
	/* what the container printed last, then brig's terminal as it was */
	brig_relay_finish(&relay);
	memset(&si, 0, sizeof(si));
	if (waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED) < 0)
		return brig_error_setp(err, errno, "wait for the container");
	*status = si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status;
	/* as a subreaper we inherited the container's orphans (when it has
	 * no pid namespace of its own): reap what has exited */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	return 0;
}

struct create_job {
	struct brig_bundle bundle;
	struct brig_ns_plan ns;
	struct brig_process_plan plan;
	struct brig_seccomp_prog seccomp; /* the compiled linux.seccomp */
	struct brig_store store;
	struct brig_entry entry;
	struct brig_cgroup cg;
	char *rootfs;
	uint64_t mntns;        /* no mount namespace: the caller's (an inode) */
	uint64_t rootfs_below; /* and the mount at rootfs before the init's bind */
	int fifo;
	int sock[2];
	int pidfd;
	int console; /* --console-socket, connected */
	int master;  /* the container's pty, for the relay of a foreground run */
	pid_t pid;
	bool claimed;
};

static void job_release(struct create_job *j)
{
	brig_bundle_release(&j->bundle);
	brig_ns_plan_release(&j->ns);
	brig_process_plan_release(&j->plan);
	brig_seccomp_prog_release(&j->seccomp);
	brig_entry_release(&j->entry);
	brig_cgroup_release(&j->cg);
	brig_store_close(&j->store);
	free(j->rootfs);
	for (int i = 0; i < 2; i++)
		if (j->sock[i] >= 0)
			close(j->sock[i]);
	if (j->fifo >= 0)
		close(j->fifo);
	if (j->pidfd >= 0)
		close(j->pidfd);
	if (j->console >= 0)
		close(j->console);
	if (j->master >= 0)
		close(j->master);
}

/* The state hooks see during create and run (nothing recorded yet). */
static void job_state(const struct create_job *j, const char *id, struct brig_state *s)
{
	const struct brig_config *cfg = j->bundle.config;

	memset(s, 0, sizeof(*s));
	s->oci_version = cfg->oci_version;
	s->id = id;
	s->pid = j->pid;
	s->bundle = j->bundle.path;
	s->rootfs = j->rootfs;
	s->annotations = cfg->annotations;
	s->n_annotations = cfg->n_annotations;
}

/* Undo a create that failed after the claim: no process, no state dir.
 * A container that existed is destroyed, so its poststop hooks run
 * (runtime-spec lifecycle, steps 12 and 13). */
/*
 * No mount namespace in config.json: the init binds the rootfs and mounts
 * in the caller's mount namespace, as runc does, and the mount that was at
 * the rootfs before is noted, for delete to go back to (and undo what a
 * failed create left).
 */
static int shared_mntns(struct create_job *j, struct brig_error *err)
{
	if (j->ns.is_new[BRIG_NS_MOUNT] || j->ns.join_fd[BRIG_NS_MOUNT] >= 0)
		return 0;
	j->rootfs_below = brig_rootfs_below(j->rootfs);
	if (!j->rootfs_below)
		return brig_error_setp(err, errno, "statx \"%s\"", j->rootfs);
	j->mntns = brig_mntns();
	if (!j->mntns)
		return brig_error_setp(err, errno, "stat /proc/self/ns/mnt");
	return 0;
}

static void job_abort(struct create_job *j)
{
	struct brig_error ignored = BRIG_ERROR_INIT;

	if (j->pid > 0) {
		struct brig_state s;

		pidfd_send_signal(j->pidfd, SIGKILL, NULL, 0);
		waitpid(j->pid, NULL, 0);
		job_state(j, j->entry.id, &s);
		brig_hooks_run_stage(&j->bundle.config->hooks, BRIG_HOOK_POSTSTOP, &s,
		                     BRIG_STATUS_STOPPED, &ignored);
	}
	brig_cgroup_destroy(&j->cg, &ignored);
	if (j->mntns)
		brig_rootfs_release(j->rootfs, j->mntns, j->rootfs_below, &ignored);
	if (j->claimed)
		brig_entry_remove(&j->entry, &ignored);
	brig_error_release(&ignored);
}

/*
 * prestart and createRuntime hooks, here in brig's own namespaces, when
 * the init has its own and asks (sync.h); the answer tells it its pid.
 */
static int create_runtime_hooks(struct create_job *j, const char *id, struct brig_error *err)
{
	const struct brig_hooks *h = &j->bundle.config->hooks;
	struct brig_state s;
	char pid[16];

	if (!brig_hooks_need_sync(h))
		return 0;
	job_state(j, id, &s);
	if (brig_sync_expect(j->sock[0], BRIG_SYNC_CREATE_RUNTIME_HOOKS, "container init", err) <
	        0 ||
	    brig_hooks_run_stage(h, BRIG_HOOK_PRESTART, &s, BRIG_STATUS_CREATING, err) < 0 ||
	    brig_hooks_run_stage(h, BRIG_HOOK_CREATE_RUNTIME, &s, BRIG_STATUS_CREATING, err) < 0)
		return -1;
	snprintf(pid, sizeof(pid), "%d", (int)j->pid);
	return brig_sync_send(j->sock[0], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, pid, err);
}

/* linux.seccomp: compiled here (or taken from the cache under the state
 * root), only loaded by the init */
static int prepare_seccomp(struct create_job *j, struct brig_error *err)
{
	const struct brig_linux *lx = j->bundle.config->linux;

	if (!lx || !lx->seccomp)
		return 0;
	return brig_seccomp_prepare(lx->seccomp, j->store.rootfd, &j->seccomp, err);
}

/*
 * A filter that notifies: the init sends its fd, which goes on to
 * linux.seccomp.listenerPath with the state (status creating, as runc).
 */
static int seccomp_listener(struct create_job *j, const char *id, struct brig_error *err)
{
	_cleanup_close_ int fd = -1;
	struct brig_state s;

	if (!j->seccomp.notify)
		return 0;
	fd = brig_sync_expect_fd(j->sock[0], BRIG_SYNC_SECCOMP_FD, "container init", err);
	if (fd < 0)
		return -1;
	job_state(j, id, &s);
	s.status = BRIG_STATUS_CREATING;
	return brig_seccomp_send_listener(j->bundle.config->linux->seccomp, fd, s.pid, &s, err);
}

/*
 * process.terminal: the init sends the master of the container's pty
 * (sync.h).  It goes on to --console-socket, or stays for the relay of a
 * foreground run, sized like brig's own terminal before the container runs.
 */
static int receive_pty_master(struct create_job *j, struct brig_error *err)
{
	if (!j->bundle.config->process->terminal)
		return 0;
	j->master = brig_sync_expect_fd(j->sock[0], BRIG_SYNC_PTY_MASTER, "container init", err);
	if (j->master < 0)
		return -1;
	if (j->console < 0) {
		brig_console_prepare(j->master);
		return 0;
	}
	if (brig_console_send(j->console, j->master, err) < 0)
		return -1;
	close(TAKE_FD(j->master));
	close(TAKE_FD(j->console));
	return 0;
}

/* Whether brig makes every bind mount of a container with a user namespace
 * of its own (linux/idmap.h): when it is privileged to. */
static bool parent_binds(const struct create_job *j)
{
	return j->ns.is_new[BRIG_NS_USER] && geteuid() == 0;
}

/* Idmapped mounts (and with a user namespace, every bind) are made here,
 * privileged over their sources, and sent to the init in the order of
 * config.json (linux/idmap.h). */
static int send_idmapped_mounts(struct create_job *j, struct brig_error *err)
{
	const struct brig_config *cfg = j->bundle.config;
	int *fds = NULL;
	int r = 0;

	if (brig_idmap_prepare(cfg, j->bundle.path, j->pid, parent_binds(j), &fds, err) < 0)
		return -1;
	for (size_t i = 0; fds && i < cfg->n_mounts && r == 0; i++)
		if (fds[i] >= 0)
			r = brig_sync_send_fd(j->sock[0], BRIG_SYNC_MOUNT_FD, fds[i], err);
	brig_idmap_release(fds, cfg->n_mounts);
	return r;
}

static int spawn_init(struct create_job *j, const struct brig_create_opts *o,
                      const sigset_t *saved_mask, struct brig_error *err)
{
	struct brig_init_args args = {
		.cfg = j->bundle.config,
		.ns = &j->ns,
		.plan = &j->plan,
		.id = o->id,
		.bundle = j->bundle.path,
		.rootfs = {
			.path = j->rootfs,
			.propagation = j->bundle.config->linux ? j->bundle.config->linux->rootfs_propagation
			                                       : NULL,
			.no_pivot = o->no_pivot,
			.shared_mntns = j->mntns != 0,
		},
		.seccomp = j->seccomp.insns ? &j->seccomp : NULL,
		.fifo_fd = j->fifo,
		.preserve_fds = o->preserve_fds,
		.no_new_keyring = o->no_new_keyring,
		.saved_mask = *saved_mask,
	};
	int saved_ns[2] = { -1, -1 };
	struct clone_args ca = {
		.flags = j->ns.clone_flags | CLONE_PIDFD,
		.pidfd = (uint64_t)(uintptr_t)&j->pidfd,
		.exit_signal = SIGCHLD,
	};
	int cgfd = brig_cgroup_clone_fd(&j->cg);

	/* born in its cgroup v2: nothing to move, no window outside it */
	if (cgfd >= 0) {
		ca.flags |= CLONE_INTO_CGROUP;
		ca.cgroup = (uint64_t)cgfd;
	}

	/* the v1 hierarchies: the init enters them itself, first thing,
	 * when it has brig's credentials (cgroup/cgroup.h says why) */
	if (!j->ns.is_new[BRIG_NS_USER] && j->ns.join_fd[BRIG_NS_USER] < 0 &&
	    brig_cgroup_open_tasks(&j->cg, NULL, err) < 0)
		return -1;
	args.cg = &j->cg;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, j->sock) < 0)
		return brig_error_setp(err, errno, "socketpair");
	/* born non-dumpable: no process in the container can open
	 * /proc/<init>/exe, brig's own binary, before execve replaces it
	 * (CVE-2019-5736); execve makes the container's process dumpable.
	 * An unprivileged brig must write the maps of the init's user
	 * namespace, which the kernel allows only on a dumpable process: the
	 * init turns non-dumpable itself once they are written, before any
	 * other process can be in the container. */
	args.late_nondumpable = geteuid() != 0 && j->ns.is_new[BRIG_NS_USER];
	args.parent_binds = parent_binds(j);
	if (!args.late_nondumpable && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return brig_error_setp(err, errno, "prctl(PR_SET_DUMPABLE)");
	if (brig_ns_enter_parent(&j->ns, j->bundle.config->linux, saved_ns, err) < 0) {
		brig_ns_leave_parent(saved_ns);
		return -1;
	}
	j->pid = brig_clone3(&ca);
	if (j->pid != 0)
		brig_ns_leave_parent(saved_ns);
	if (j->pid < 0)
		return brig_error_setp(err, errno, "clone3");
	if (j->pid == 0) {
		/* the init must not keep the state directory's lock (flock
		 * belongs to the open file, which it shares until execve) */
		close(j->entry.dirfd);
		close(j->store.rootfd);
		for (int i = 0; i < 2; i++)
			if (saved_ns[i] >= 0)
				close(saved_ns[i]);
		close(j->sock[0]);
		if (j->console >= 0)
			close(j->console);
		if (cgfd >= 0)
			close(cgfd);
		args.sync_fd = j->sock[1];
		brig_init_main(&args);
	}
	close(j->sock[1]);
	j->sock[1] = -1;
	if (j->fifo >= 0) {
		close(j->fifo);
		j->fifo = -1;
	}
	/* the v1 hierarchies the init does not enter itself, before it does
	 * anything; the id maps of its user namespace */
	if (brig_cgroup_enter(&j->cg, NULL, j->pid, err) < 0)
		return -1;
	brig_cgroup_close_tasks(&j->cg);
	if (j->ns.is_new[BRIG_NS_USER] &&
	    brig_userns_write_maps(j->pid, j->bundle.config->linux, err) < 0)
		return -1;
	/* then the init's steps, in the order of sync.h */
	if (brig_sync_send(j->sock[0], BRIG_SYNC_MAPS_DONE, NULL, err) < 0)
		return -1;
	if (send_idmapped_mounts(j, err) < 0)
		return -1;
	if (create_runtime_hooks(j, o->id, err) < 0)
		return -1;
	if (receive_pty_master(j, err) < 0)
		return -1;
	if (seccomp_listener(j, o->id, err) < 0)
		return -1;
	return brig_sync_expect(j->sock[0], BRIG_SYNC_READY, "container init", err);
}

/* Whether brig runs in a user namespace other than the initial one
 * (whose uid_map maps all of 0..2^32-1 onto itself). */
static bool in_userns(void)
{
	unsigned long a, b, c;
	FILE *f = fopen("/proc/self/uid_map", "re");
	bool init_ns;

	if (!f)
		return false;
	init_ns =
	    fscanf(f, "%lu %lu %lu", &a, &b, &c) == 3 && a == 0 && b == 0 && c == 4294967295UL;
	fclose(f);
	return !init_ns;
}

/* Whether brig runs rootless: --rootless true, or auto (runc's rule: not
 * root, or root of a user namespace). */
static bool rootless(const struct brig_context *ctx)
{
	if (ctx->rootless == BRIG_ROOTLESS_AUTO)
		return geteuid() != 0 || in_userns();
	return ctx->rootless == BRIG_ROOTLESS_TRUE;
}

/* Any limit beyond the device rules (which a rootless /dev enforces by
 * what it holds). */
static bool has_limits(const struct brig_resources *r)
{
	return r && (r->memory || r->cpu || r->has_pids || r->block_io || r->n_hugepage_limits ||
	             r->network || r->n_rdma || r->n_unified);
}

/*
 * The container's cgroup.  With --cgroup-manager disabled there is none,
 * and linux.resources is not applied (crun's rule).  Rootless, a cgroup
 * tree that is not delegated to the user is no error as long as the
 * config asks for no limits: the container then shares brig's cgroup
 * (runc's rule).
 */
static int make_cgroup(const struct brig_context *ctx, struct create_job *j, const char *id,
                       struct brig_error *err)
{
	const struct brig_linux *lx = j->bundle.config->linux;
	int e;

	if (ctx->no_cgroup) {
		brig_debug("--cgroup-manager disabled: no cgroup, no limits");
		return 0;
	}
	if (brig_cgroup_create(lx, id, ctx->systemd_cgroup, &j->cg, err) == 0)
		return 0;
	e = err->errnum;
	if (!rootless(ctx) || ctx->systemd_cgroup || (e != EACCES && e != EPERM && e != EROFS) ||
	    has_limits(lx ? lx->resources : NULL))
		return -1;
	brig_debug("rootless: no cgroup (%s)", err->msg);
	brig_error_release(err);
	return 0;
}

/* Whether the comma-separated controller list @list names @ctrl. */
static bool names_controller(const char *list, const char *ctrl)
{
	size_t n = strlen(ctrl);

	for (const char *c = list; c; c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL)
		if (strncmp(c, ctrl, n) == 0 && (c[n] == ',' || c[n] == '\0'))
			return true;
	return false;
}

/*
 * A real-time policy (SCHED_FIFO, SCHED_RR) in a v1 cpu cgroup whose
 * cpu.rt_runtime_us is 0 (RT_GROUP_SCHED: the default of a new group)
 * is refused by the kernel with a bare EPERM at sched_setattr; it is
 * refused here, saying why and what gives the budget.
 */
static int check_rt_budget(const struct create_job *j, struct brig_error *err)
{
	const struct brig_scheduler *sc = j->bundle.config->process->scheduler;

	if (!sc || !sc->policy ||
	    (strcmp(sc->policy, "SCHED_FIFO") != 0 && strcmp(sc->policy, "SCHED_RR") != 0))
		return 0;
	for (size_t i = 0; i < j->cg.n; i++) {
		const struct brig_cg_hier *h = &j->cg.h[i];
		_cleanup_free_ char *path = NULL;
		char buf[32] = "";
		_cleanup_close_ int fd = -1;

		if (h->v2 || !names_controller(h->name, "cpu"))
			continue;
		path = brig_xasprintf("%s/cpu.rt_runtime_us", h->dir);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0)
			continue; /* no RT_GROUP_SCHED: no budget to give */
		if (strtoll(buf, NULL, 10) == 0)
			return brig_error_set(err,
			                      "config.json: process.scheduler.policy: %s needs a "
			                      "real-time budget in the container's cpu cgroup "
			                      "(%s is 0): set linux.resources.cpu.realtimeRuntime",
			                      sc->policy, path);
	}
	return 0;
}

/* The config as it was at create, in the state directory: exec takes the
 * container's process, seccomp filter and labels from it, whatever has
 * happened to the bundle since. */
static int keep_config(struct create_job *j, struct brig_error *err)
{
	return brig_write_file_atomic(j->entry.dirfd, "config.json", j->bundle.text, j->bundle.len,
	                              0600, err);
}

static int record_state(struct create_job *j, const struct brig_create_opts *o,
                        enum brig_status status, struct brig_error *err)
{
	const struct brig_config *cfg = j->bundle.config;
	struct brig_state *s = brig_state_new();
	char now[64];
	int r;

	brig_log_time_rfc3339(now, sizeof(now));
	s->oci_version = cfg->oci_version;
	s->id = o->id;
	s->status = status;
	s->pid = j->pid;
	if (brig_proc_stat(j->pid, NULL, &s->pid_start) < 0) {
		brig_state_free(s);
		return brig_error_setp(err, errno, "read the start time of the container init");
	}
	s->bundle = j->bundle.path;
	s->rootfs = j->rootfs;
	s->created = now;
	s->owner = geteuid();
	s->own_pidns = j->ns.is_new[BRIG_NS_PID];
	s->no_new_keyring = o->no_new_keyring;
	s->mntns = j->mntns;
	s->rootfs_below = j->rootfs_below;
	s->annotations = cfg->annotations;
	s->n_annotations = cfg->n_annotations;
	s->hooks = cfg->hooks;
	brig_cgroup_to_state(&j->cg, s);
	r = brig_entry_save(&j->entry, s, err);
	brig_state_free(s);
	return r;
}

/*
 * run: the init failed after READY, before execve, and said why on the
 * socket (init.c: late_failure); it exits by itself right after, and is
 * killed if it has not within a second.  run fails with its reason and
 * status 1, in the foreground too (runc's status for an execve that fails).
 */
static void run_late_failure(struct create_job *j)
{
	struct pollfd p = { .fd = j->pidfd, .events = POLLIN };

	if (poll(&p, 1, 1000) <= 0)
		pidfd_send_signal(j->pidfd, SIGKILL, NULL, 0);
	waitpid(j->pid, NULL, 0);
}

/* run: the poststart hooks, once the container's process runs. */
static int run_poststart(struct create_job *j, const char *id, struct brig_error *err)
{
	const struct brig_hooks *h = &j->bundle.config->hooks;
	struct brig_state s;

	if (!brig_hooks_has(h, BRIG_HOOK_POSTSTART))
		return 0;
	job_state(j, id, &s);
	return brig_hooks_run_stage(h, BRIG_HOOK_POSTSTART, &s, BRIG_STATUS_RUNNING, err);
}

/*
 * What create makes of the bundle before anything exists: the config,
 * checked; the rootfs; the plans of the namespaces and of the process
 * (names resolved, the memory policy's node mask).
 */
static int plan_job(struct create_job *j, const struct brig_create_opts *o, bool foreground,
                    struct brig_error *err)
{
	const struct brig_linux *lx;

	if (brig_bundle_load(&j->bundle, o->bundle, err) < 0)
		return -1;
	if (check_supported(j->bundle.config, err) < 0)
		return -1;
	if (brig_console_check(j->bundle.config->process->terminal, !foreground, o->console_socket,
	                       err) < 0)
		return -1;
	j->rootfs = rootfs_path(&j->bundle, err);
	if (!j->rootfs)
		return -1;
	if (brig_ns_plan_build(j->bundle.config, &j->ns, err) < 0)
		return -1;
	lx = j->bundle.config->linux;
	if (brig_process_prepare(j->bundle.config->process,
	                         lx && lx->personality ? lx->personality->domain : NULL, &j->plan,
	                         err) < 0)
		return -1;
	return brig_mempolicy_prepare(lx ? lx->memory_policy : NULL, &j->plan.mempolicy, err);
}

int brig_container_create(const struct brig_context *ctx, const struct brig_create_opts *o,
                          int *status, struct brig_error *err)
{
	struct create_job j = { .bundle = BRIG_BUNDLE_INIT,
		                .entry = BRIG_ENTRY_INIT,
		                .cg = BRIG_CGROUP_INIT,
		                .fifo = -1,
		                .sock = { -1, -1 },
		                .pidfd = -1,
		                .console = -1,
		                .master = -1 };
	bool foreground = o->run && !o->detach;
	sigset_t fwd, saved;
	int r = -1;

	j.store.rootfd = -1;
	sigemptyset(&saved);
	/* $LISTEN_FDS counts only when meant for brig itself (systemd's rule),
	 * and every fd the init keeps must be one the caller passed */
	brig_listen_fds();
	if (brig_fds_check(o->preserve_fds, err) < 0)
		goto out;
	if (plan_job(&j, o, foreground, err) < 0)
		goto out;
	/* connected first, as runc does: a wrong path fails before anything exists */
	if (o->console_socket && *o->console_socket &&
	    (j.console = brig_console_connect(o->console_socket, err)) < 0)
		goto out;
	if (brig_store_open(&j.store, ctx->root, true, err) < 0)
		goto out;
	if (prepare_seccomp(&j, err) < 0)
		goto out;
	if (brig_store_claim(&j.store, o->id, &j.entry, err) < 0)
		goto out;
	j.claimed = true;
	if (keep_config(&j, err) < 0)
		goto fail;
	if (make_cgroup(ctx, &j, o->id, err) < 0)
		goto fail;
	if (check_rt_budget(&j, err) < 0)
		goto fail;
	if (shared_mntns(&j, err) < 0)
		goto fail;
	if (!o->run) {
		if (mkfifoat(j.entry.dirfd, EXEC_FIFO, 0600) < 0) {
			brig_error_setp(err, errno, "mkfifo \"%s\"", EXEC_FIFO);
			goto fail;
		}
		j.fifo = openat(j.entry.dirfd, EXEC_FIFO, O_RDWR | O_CLOEXEC);
		if (j.fifo < 0) {
			brig_error_setp(err, errno, "open \"%s\"", EXEC_FIFO);
			goto fail;
		}
	}
	brig_forwarded_signals(&fwd);
	if (foreground) {
		if (!o->no_subreaper)
			prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
		sigprocmask(SIG_BLOCK, &fwd, &saved);
		/* an ignored signal never reaches the signalfd: a `brig run &`
		 * of a script ignores SIGINT, and runc forwards it anyway */
		for (int sig = 1; sig < NSIG; sig++)
			if (sigismember(&fwd, sig))
				signal(sig, SIG_DFL);
	} else {
		sigprocmask(SIG_BLOCK, NULL, &saved);
	}
	if (spawn_init(&j, o, &saved, err) < 0)
		goto fail;
	if (record_state(&j, o, o->run ? BRIG_STATUS_RUNNING : BRIG_STATUS_CREATED, err) < 0)
		goto fail;
	if (o->pid_file && brig_write_pid_file(o->pid_file, j.pid, err) < 0)
		goto fail;
	if (o->run && brig_sync_send(j.sock[0], BRIG_SYNC_GO, NULL, err) < 0)
		goto fail;
	/* from here on the container lives on its own: let others at it */
	brig_entry_release(&j.entry);
	/* the init's end of the socket closes at execve */
	if (o->run && brig_sync_expect_eof(j.sock[0], "container init", err) < 0) {
		struct brig_error ignored = BRIG_ERROR_INIT;

		run_late_failure(&j);
		if (!o->keep)
			brig_container_delete(ctx, o->id, true, &ignored);
		brig_error_release(&ignored);
		goto out;
	}
	if (o->run && run_poststart(&j, o->id, err) < 0) {
		struct brig_error ignored = BRIG_ERROR_INIT;

		/* spec 1.3: the container fails with its poststart hook */
		pidfd_send_signal(j.pidfd, SIGKILL, NULL, 0);
		waitpid(j.pid, NULL, 0);
		if (!o->keep)
			brig_container_delete(ctx, o->id, true, &ignored);
		brig_error_release(&ignored);
		goto out;
	}
	if (!foreground) {
		r = 0;
		goto out;
	}
	if (brig_wait_foreground(j.pidfd, &fwd, j.master, status, err) < 0)
		goto out;
	r = o->keep ? 0 : brig_container_delete(ctx, o->id, true, err);
	goto out;
fail:
	job_abort(&j);
out:
	job_release(&j);
	return r;
}

/* A pidfd for the recorded init, or -1 with ESRCH when it is gone (or the
 * pid now names another process). */
int brig_open_init(const struct brig_state *s)
{
	uint64_t start = 0;
	int fd;

	if (s->pid <= 0) {
		errno = ESRCH;
		return -1;
	}
	fd = pidfd_open(s->pid, 0);
	if (fd < 0)
		return -1;
	/* checked after opening: the pidfd now pins this very process */
	if (brig_proc_stat(s->pid, NULL, &start) < 0 || start != s->pid_start) {
		close(fd);
		errno = ESRCH;
		return -1;
	}
	return fd;
}

static int kill_and_wait(int pidfd, struct brig_error *err);

/*
 * start: wait for the container's process.  @watch reads exec.fifo: it hangs up when the last
 * writer is gone, the init's own fd, closed right before execve or at its death.  An init that
 * failed before execve wrote "!" and why first (init.c: late_failure); the
 * byte `brig start` wrote is still there when it died before reading it.
 * runc's start waits for the execve the same way; brig also fails when the
 * process never ran, so that its caller knows (and its --log says why).
 */
static int start_wait(const struct brig_state *s, int watch, struct brig_error *err)
{
	struct pollfd p = { .fd = watch }; /* POLLHUP only */
	char buf[PIPE_BUF + 1];
	ssize_t n;

	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			return brig_error_setp(err, errno, "poll");
	n = read(watch, buf, sizeof(buf) - 1);
	if (n > 1 && buf[0] == '!') {
		buf[n] = '\0';
		return brig_error_set(err, "%s", buf + 1);
	}
	if (n > 0)
		return brig_error_set(err,
		                      "container \"%s\": its init died before it started the "
		                      "process",
		                      s->id);
	return 0;
}

/*
 * start: the poststart hooks, once the process runs.  One that fails fails
 * the container (spec 1.3), which is killed and deleted, as runc and crun
 * do (its poststop hooks run): `state` then says it does not exist.
 */
static int start_poststart(const struct brig_context *ctx, const struct brig_state *s, int pidfd,
                           struct brig_error *err)
{
	struct brig_error ignored = BRIG_ERROR_INIT;

	if (brig_hooks_run_stage(&s->hooks, BRIG_HOOK_POSTSTART, s, BRIG_STATUS_RUNNING, err) == 0)
		return 0;
	kill_and_wait(pidfd, &ignored);
	brig_error_release(&ignored);
	brig_container_delete(ctx, s->id, true, &ignored);
	brig_error_release(&ignored);
	return -1;
}

int brig_container_start(const struct brig_context *ctx, const char *id, struct brig_error *err)
{
	struct brig_container_ref c;
	struct brig_state *s;
	_cleanup_close_ int fifo = -1;
	_cleanup_close_ int watch = -1;
	_cleanup_close_ int pidfd = -1;
	enum brig_status status;
	int r = -1;

	if (brig_container_ref_open(&c, ctx->root, id, BRIG_LOCK_EXCLUSIVE, err) < 0)
		goto out;
	s = c.s;
	status = brig_state_status(s);
	switch (status) {
	case BRIG_STATUS_CREATED:
		break;
	case BRIG_STATUS_STOPPED:
		brig_error_set(err, "cannot start a container that has stopped");
		goto out;
	case BRIG_STATUS_RUNNING:
		brig_error_set(err, "cannot start an already running container");
		goto out;
	default:
		brig_error_set(err, "cannot start a container in the %s state",
		               brig_status_name(status));
		goto out;
	}
	/* opened first: a reader of its own sees the writers go */
	watch = openat(c.e.dirfd, EXEC_FIFO, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (watch < 0 ||
	    (brig_hooks_has(&s->hooks, BRIG_HOOK_POSTSTART) && (pidfd = brig_open_init(s)) < 0)) {
		brig_error_setp(err, errno, "start container \"%s\"", id);
		goto out;
	}
	fifo = openat(c.e.dirfd, EXEC_FIFO, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fifo < 0 || write(fifo, "0", 1) != 1) {
		brig_error_setp(err, errno == ENXIO ? ESRCH : errno, "start container \"%s\"", id);
		goto out;
	}
	close(TAKE_FD(fifo));
	unlinkat(c.e.dirfd, EXEC_FIFO, 0);
	s->status = BRIG_STATUS_RUNNING;
	r = brig_entry_save(&c.e, s, err);
	if (r == 0) {
		/* hooks may ask brig about the container: unlocked */
		brig_entry_release(&c.e);
		r = start_wait(s, watch, err);
		if (r == 0 && pidfd >= 0)
			r = start_poststart(ctx, s, pidfd, err);
	}
out:
	brig_container_ref_close(&c);
	return r;
}

/*
 * Every process in the pid namespace of the init (itself included).  Each
 * pid is opened first and its namespace checked after: a signal that
 * reaches the pidfd's process proves it alive, so it was the one /proc
 * showed, never a process that took the pid over meanwhile.
 */
static int signal_pidns(const struct brig_state *s, int sig, struct brig_error *err)
{
	_cleanup_closedir_ DIR *d = opendir("/proc");
	char path[300];
	struct stat ns, other;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)s->pid);
	if (!d || stat(path, &ns) < 0)
		return brig_error_setp(err, errno, "list the container's processes");
	while ((de = readdir(d))) {
		_cleanup_close_ int fd = -1;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		fd = pidfd_open(atoi(de->d_name), 0);
		if (fd < 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/pid", de->d_name);
		if (stat(path, &other) < 0 || other.st_ino != ns.st_ino ||
		    other.st_dev != ns.st_dev)
			continue;
		pidfd_send_signal(fd, sig, NULL, 0);
	}
	return 0;
}

/* Every process of the container's cgroup, frozen meanwhile (runc's way),
 * when brig made that cgroup for it (cgroup.h); else *@done stays false. */
static int signal_cgroup(const struct brig_state *s, int sig, bool *done, struct brig_error *err)
{
	struct brig_cgroup cg = BRIG_CGROUP_INIT;
	int r = brig_cgroup_from_state(s, &cg, err);

	if (r == 0)
		r = brig_cgroup_signal(&cg, sig, err);
	*done = r == 0;
	brig_cgroup_release(&cg);
	return r < 0 ? -1 : 0;
}

int brig_container_kill(const struct brig_context *ctx, const char *id, int sig, bool all,
                        struct brig_error *err)
{
	struct brig_container_ref c;
	struct brig_state *s;
	_cleanup_close_ int pidfd = -1;
	bool by_cgroup = false;
	int r = -1;

	if (brig_container_ref_open(&c, ctx->root, id, BRIG_LOCK_SHARED, err) < 0)
		goto out;
	s = c.s;
	if (brig_state_status(s) == BRIG_STATUS_STOPPED || (pidfd = brig_open_init(s)) < 0) {
		/* containerd's shim matches this text */
		brig_error_set(err, "container not running");
		goto out;
	}
	if (all && s->n_cgroup_paths && signal_cgroup(s, sig, &by_cgroup, err) < 0)
		goto out;
	if (by_cgroup)
		r = 0;
	else if (all && s->own_pidns)
		r = signal_pidns(s, sig, err);
	else if (pidfd_send_signal(pidfd, sig, NULL, 0) < 0)
		r = brig_error_setp(err, errno, "kill container \"%s\"", id);
	else
		r = 0;
	if (all && !by_cgroup && !s->own_pidns)
		brig_warn("kill --all: the container shares a pid namespace and has no cgroup of "
		          "its own; only its init was signalled");
out:
	brig_container_ref_close(&c);
	return r;
}

/* SIGKILL the init and wait (bounded) until it is gone. */
static int kill_and_wait(int pidfd, struct brig_error *err)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
	int n;

	if (pidfd_send_signal(pidfd, SIGKILL, NULL, 0) < 0 && errno != ESRCH)
		return brig_error_setp(err, errno, "kill the container");
	do
		n = poll(&pfd, 1, KILL_WAIT_MS);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return brig_error_set(err, "the container did not die within %d s of SIGKILL",
		                      KILL_WAIT_MS / 1000);
	return 0;
}

int brig_container_delete(const struct brig_context *ctx, const char *id, bool force,
                          struct brig_error *err)
{
	struct brig_container_ref c;
	struct brig_cgroup cg = BRIG_CGROUP_INIT;
	struct brig_state *s;
	enum brig_status status;
	int r = -1;

	/* A create that died half-way leaves a directory without state: it
	 * is removed here, and with --force a missing container is no error
	 * (runc's behaviour, which engines rely on). */
	if (brig_container_ref_open(&c, ctx->root, id, BRIG_LOCK_EXCLUSIVE_ANY, err) < 0) {
		if (c.e.dirfd < 0) { /* not found */
			if (force && err->errnum == ENOENT) {
				brig_error_release(err);
				r = 0;
			}
			goto out;
		}
		if (err->errnum != ENOENT)
			goto out;
		brig_error_release(err);
		r = brig_entry_remove(&c.e, err);
		if (r == 0 && !force)
			r = brig_error_set(err, "container \"%s\" does not exist", id);
		goto out;
	}
	s = c.s;
	if (brig_cgroup_from_state(s, &cg, err) < 0)
		goto out;
	status = brig_state_status(s);
	if (status != BRIG_STATUS_STOPPED) {
		_cleanup_close_ int pidfd = -1;

		/* a created container is deleted as runc does: killed, no --force */
		if (status != BRIG_STATUS_CREATED && !force) {
			brig_error_set(err,
			               "cannot delete container \"%s\" that is not stopped: %s", id,
			               brig_status_name(status));
			goto out;
		}
		pidfd = brig_open_init(s);
		/* a frozen v1 task dies only once thawed */
		if (pidfd >= 0 && brig_cgroup_frozen(&cg)) {
			pidfd_send_signal(pidfd, SIGKILL, NULL, 0);
			if (brig_cgroup_freeze(&cg, false, err) < 0)
				goto out;
		}
		if (pidfd >= 0 && kill_and_wait(pidfd, err) < 0)
			goto out;
	}
	/* whatever else is left in its cgroup goes with it, and the cgroup;
	 * a rootfs bound in the caller's mount namespace is unmounted */
	if (brig_cgroup_destroy(&cg, err) < 0 ||
	    (s->mntns && brig_rootfs_release(s->rootfs, s->mntns, s->rootfs_below, err) < 0))
		goto out;
	r = brig_entry_remove(&c.e, err);
	if (r == 0) {
		/* after the container is gone; a failure is only a warning */
		brig_entry_release(&c.e);
		brig_hooks_run_stage(&s->hooks, BRIG_HOOK_POSTSTOP, s, BRIG_STATUS_STOPPED, err);
	}
out:
	brig_cgroup_release(&cg);
	brig_container_ref_close(&c);
	return r;
}

int brig_signal_parse(const char *s)
{
	static const struct {
		const char *name;
		int sig;
	} names[] = {
		{ "HUP", SIGHUP },   { "INT", SIGINT },       { "QUIT", SIGQUIT },
		{ "ILL", SIGILL },   { "TRAP", SIGTRAP },     { "ABRT", SIGABRT },
		{ "IOT", SIGIOT },   { "BUS", SIGBUS },       { "FPE", SIGFPE },
		{ "KILL", SIGKILL }, { "USR1", SIGUSR1 },     { "SEGV", SIGSEGV },
		{ "USR2", SIGUSR2 }, { "PIPE", SIGPIPE },     { "ALRM", SIGALRM },
		{ "TERM", SIGTERM }, { "STKFLT", SIGSTKFLT }, { "CHLD", SIGCHLD },
		{ "CONT", SIGCONT }, { "STOP", SIGSTOP },     { "TSTP", SIGTSTP },
		{ "TTIN", SIGTTIN }, { "TTOU", SIGTTOU },     { "URG", SIGURG },
		{ "XCPU", SIGXCPU }, { "XFSZ", SIGXFSZ },     { "VTALRM", SIGVTALRM },
		{ "PROF", SIGPROF }, { "WINCH", SIGWINCH },   { "IO", SIGIO },
		{ "POLL", SIGPOLL }, { "PWR", SIGPWR },       { "SYS", SIGSYS },
	};
	char upper[32], *end;
	long n;
	size_t i;

	/* runc takes names in any case: "usr1", "sigusr1", "SIGUSR1" */
	for (i = 0; i < sizeof(upper) - 1 && s[i]; i++)
		upper[i] = (char)toupper((unsigned char)s[i]);
	if (s[i] || !i)
		return -1;
	upper[i] = '\0';
	s = upper;
	if (isdigit((unsigned char)*s)) {
		n = strtol(s, &end, 10);
		return (*end || n < 0 || n > SIGRTMAX) ? -1 : (int)n;
	}
	if (strncmp(s, "SIG", 3) == 0)
		s += 3;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(s, names[i].name) == 0)
			return names[i].sig;
	if (strncmp(s, "RTMIN", 5) == 0 || strncmp(s, "RTMAX", 5) == 0) {
		int base = s[4] == 'N' ? SIGRTMIN : SIGRTMAX;

		if (!s[5])
			return base;
		n = strtol(s + 6, &end, 10);
		if ((s[5] != '+' && s[5] != '-') || *end || n < 0)
			return -1;
		n = s[5] == '+' ? base + n : base - n;
		return (n < SIGRTMIN || n > SIGRTMAX) ? -1 : (int)n;
	}
	return -1;
}
