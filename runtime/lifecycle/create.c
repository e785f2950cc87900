/* SPDX-License-Identifier: Apache-2.0 */
/*
 * create and run (container.h): from the bundle to an init blocked before
 * execve, or, for run, released and waited for.  Every phase is its own
 * function, each step its own statement; a failure undoes everything
 * (job_abort).  The child side is init.c, and the two talk through sync.c.
 */
#include "config.h"
#include "lifecycle/container.h"

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

#include "lifecycle/bundle.h"
#include "cgroup/cgroup.h"
#include "lifecycle/console.h"
#include "lifecycle/context.h"
#include "hooks/hooks.h"
#include "lifecycle/init.h"
#include "lifecycle/netdevs.h"
#include "linux/apparmor.h"
#include "linux/idmap.h"
#include "linux/netdev.h"
#include "linux/mounts.h"
#include "linux/namespaces.h"
#include "linux/ns_premake.h"
#include "linux/process.h"
#include "linux/rootfs.h"
#include "linux/seccomp.h"
#include "linux/selfexe.h"
#include "linux/selinux.h"
#include "linux/syscalls.h"
#include "linux/userns.h"
#include "spec/spec.h"
#include "lifecycle/state.h"
#include "lifecycle/sync.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/phases.h"
#include "util/proc.h"
#include "lifecycle/watch.h"

#define EXEC_FIFO "exec.fifo"

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
	return 0;
}

struct create_job {
	struct brig_bundle bundle;
	struct brig_ns_plan ns;
	struct brig_ns_premake premake; /* its namespaces made ahead */
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
	brig_ns_premake_release(&j->premake);
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

	/* linux.netDevices back before the namespace dies with the init */
	if (j->claimed)
		brig_netdevs_return(j->entry.dirfd, j->pidfd, j->pid, &ignored);
	brig_error_release(&ignored);
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
static int seccomp_listener(struct create_job *j, const struct brig_create_opts *o,
                            struct brig_error *err)
{
	struct brig_state s;
	int fd;

	if (!j->seccomp.notify)
		return 0;
	/* a pool's member: its init keeps the fd for its claimer (handoff.h) */
	if (o->handoff) {
		fd = brig_sync_expect_fd(j->sock[0], BRIG_SYNC_SECCOMP_FD, "container init", err);
		if (fd < 0)
			return -1;
		close(fd);
		return 0;
	}
	job_state(j, o->id, &s);
	s.status = BRIG_STATUS_CREATING;
	return brig_sync_seccomp_listener(j->sock[0], "container init",
	                                  j->bundle.config->linux->seccomp, s.pid, &s, err);
}

/*
 * process.terminal: the init sends the master of the container's pty
 * (console.h); once it has gone on to --console-socket, that is done with.
 */
static int receive_pty_master(struct create_job *j, struct brig_error *err)
{
	if (!j->bundle.config->process->terminal)
		return 0;
	if (brig_console_receive(j->sock[0], "container init", j->console, &j->master, err) < 0)
		return -1;
	if (j->console >= 0)
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

/* Whether the init's clone makes its network namespace (o->netns_ready
 * is then called as soon as the clone is, else once the init is READY). */
static bool clone_makes_netns(const struct create_job *j)
{
	return j->ns.clone_flags & CLONE_NEWNET;
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
		.stdio = o->stdio,
		.parent_death = o->parent_death,
		.handoff = o->handoff,
		.handoff_filtered = o->handoff_filtered,
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

	/* the v1 hierarchies: the init enters them itself, first thing
	 * (cgroup/cgroup.h says why), in a user namespace too */
	if (brig_cgroup_open_tasks(&j->cg, NULL, err) < 0)
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
	brig_phase("before clone");
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
	brig_phase("clone and id maps");
	/* then the init's steps, in the order of sync.h */
	if (brig_sync_send(j->sock[0], BRIG_SYNC_MAPS_DONE, NULL, err) < 0)
		return -1;
	if (send_idmapped_mounts(j, err) < 0)
		return -1;
	/* a network namespace that the clone made is there now: what goes
	 * into it is made while the init sets itself up */
	if (o->netns_ready && clone_makes_netns(j) &&
	    o->netns_ready(o->netns_data, j->pidfd, j->pid, err) < 0)
		return -1;
	if (create_runtime_hooks(j, o->id, err) < 0)
		return -1;
	if (receive_pty_master(j, err) < 0)
		return -1;
	if (seccomp_listener(j, o, err) < 0)
		return -1;
	if (brig_sync_expect(j->sock[0], BRIG_SYNC_READY, "container init", err) < 0)
		return -1;
	brig_phase("init setup");
	return 0;
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
/* cg.record: into the state directory, before any cgroup is made */
static int record_cgroups(void *arg, const char *text, struct brig_error *err)
{
	return brig_entry_record(arg, text, err);
}

static int make_cgroup(const struct brig_context *ctx, struct create_job *j, const char *id,
                       struct brig_error *err)
{
	const struct brig_linux *lx = j->bundle.config->linux;
	enum brig_cg_driver driver = ctx->no_cgroup        ? BRIG_CG_DRIVER_DISABLED
	                             : ctx->systemd_cgroup ? BRIG_CG_DRIVER_SYSTEMD
	                                                   : BRIG_CG_DRIVER_CGROUPFS;
	int e;

	j->cg.record = record_cgroups;
	j->cg.record_arg = &j->entry;
	if (brig_cgroup_create(lx, id, driver, &j->cg, err) == 0)
		return 0;
	e = err->errnum;
	if (!rootless(ctx) || ctx->systemd_cgroup || (e != EACCES && e != EPERM && e != EROFS) ||
	    has_limits(lx ? lx->resources : NULL))
		return -1;
	brig_debug("rootless: no cgroup (%s)", err->msg);
	brig_error_release(err);
	return 0;
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
	_cleanup_free_ char *path = NULL;

	if (!sc || !sc->policy ||
	    (strcmp(sc->policy, "SCHED_FIFO") != 0 && strcmp(sc->policy, "SCHED_RR") != 0))
		return 0;
	path = brig_cgroup_rt_budget_empty(&j->cg);
	if (path)
		return brig_error_set(err,
		                      "config.json: process.scheduler.policy: %s needs a real-time "
		                      "budget in the container's cpu cgroup (%s is 0): set "
		                      "linux.resources.cpu.realtimeRuntime",
		                      sc->policy, path);
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
 * What create makes of the bundle (its config loaded) before anything
 * exists: the config, checked; the rootfs; the plans of the namespaces
 * and of the process (names resolved, the memory policy's node mask).
 */
static int plan_job(struct create_job *j, const struct brig_create_opts *o, bool foreground,
                    struct brig_error *err)
{
	const struct brig_linux *lx;

	if (check_supported(j->bundle.config, err) < 0)
		return -1;
	if (brig_console_check(j->bundle.config->process->terminal, !foreground, o->console_socket,
	                       err) < 0)
		return -1;
	j->rootfs = brig_bundle_rootfs(&j->bundle, err);
	if (!j->rootfs)
		return -1;
	if (brig_ns_plan_build(j->bundle.config, &j->ns, err) < 0)
		return -1;
	lx = j->bundle.config->linux;
	if (brig_netdev_check(lx, j->ns.is_new[BRIG_NS_NETWORK],
	                      j->ns.join_fd[BRIG_NS_NETWORK] >= 0, err) < 0)
		return -1;
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
		                .premake = BRIG_NS_PREMAKE_INIT,
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
	/* linux/selfexe.h, before anything is made: at once for a config that
	 * names no uidMappings, else as soon as it is parsed (the first image
	 * plans nothing either way) */
	if (o->protect_exe) {
		_cleanup_free_ char *config =
		    brig_xasprintf("%s/config.json", o->bundle && *o->bundle ? o->bundle : ".");

		if (brig_selfexe_protect_early(ctx->argv, AT_FDCWD, config, err) < 0)
			goto out;
	}
	if (brig_bundle_load(&j.bundle, o->bundle, err) < 0)
		goto out;
	if (o->protect_exe && brig_selfexe_protect_for(ctx->argv, j.bundle.config->linux, err) < 0)
		goto out;
	if (plan_job(&j, o, foreground, err) < 0)
		goto out;
	/* linux/ns_premake.h: made while the state and the cgroup are */
	if (brig_ns_premake_start(&j.ns, brig_loopback_wanted(j.bundle.config), &j.premake, err) <
	    0)
		goto out;
	brig_phase("plan");
	/* connected first, as runc does: a wrong path fails before anything exists */
	if (o->console_socket && *o->console_socket &&
	    (j.console = brig_console_connect(o->console_socket, err)) < 0)
		goto out;
	if (brig_store_open(&j.store, ctx->root, true, err) < 0)
		goto out;
	if (prepare_seccomp(&j, err) < 0)
		goto out;
	brig_phase("seccomp");
	if (brig_store_claim(&j.store, o->id, &j.entry, err) < 0)
		goto out;
	j.claimed = true;
	if (keep_config(&j, err) < 0)
		goto fail;
	brig_phase("state dir");
	if (brig_fault("create.state-dir") < 0) {
		brig_error_setp(err, errno, "container \"%s\"", o->id);
		goto fail;
	}
	j.cg.parents = o->cgroup_parents;
	if (make_cgroup(ctx, &j, o->id, err) < 0)
		goto fail;
	brig_phase("cgroup");
	if (brig_fault("create.cgroup") < 0) {
		brig_error_setp(err, errno, "cgroup of \"%s\"", o->id);
		goto fail;
	}
	if (check_rt_budget(&j, err) < 0)
		goto fail;
	if (shared_mntns(&j, err) < 0)
		goto fail;
	/* a pool member is never started: its job is handed over */
	if (!o->run && !o->handoff) {
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
	if (brig_ns_premake_finish(&j.premake, &j.ns, err) < 0)
		goto fail;
	brig_foreground_signals(foreground, !o->no_subreaper, &fwd, &saved);
	if (spawn_init(&j, o, &saved, err) < 0)
		goto fail;
	/* once the init has made every namespace of its own (READY) */
	if (brig_netdevs_give(j.entry.dirfd, j.bundle.config->linux, j.pidfd, j.pid, err) < 0)
		goto fail;
	if (o->netns_ready && !clone_makes_netns(&j) &&
	    o->netns_ready(o->netns_data, j.pidfd, j.pid, err) < 0)
		goto fail;
	if (brig_fault("create.spawned") < 0) {
		brig_error_setp(err, errno, "container \"%s\"", o->id);
		goto fail;
	}
	if (record_state(&j, o, o->run ? BRIG_STATUS_RUNNING : BRIG_STATUS_CREATED, err) < 0)
		goto fail;
	brig_phase("state");
	if (o->pid_file && brig_write_pid_file(o->pid_file, j.pid, err) < 0)
		goto fail;
	brig_fault("create.done");
	/* the state is saved: the init may go on (a create's, to wait for
	 * `brig start`; a pool member's, for its job); one whose brig died
	 * before this ends instead of waiting for ever */
	if (brig_sync_send(j.sock[0], BRIG_SYNC_GO, NULL, err) < 0)
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
	if (o->run) {
		brig_phase("execve");
		brig_fault("run.execve");
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
	if (o->run && brig_watch_spawn(ctx->root, o->id, j.bundle.config->annotations,
	                               j.bundle.config->n_annotations, j.pidfd, j.pid, err) < 0)
		goto out;
	if (!foreground) {
		if (o->pidfd)
			*o->pidfd = TAKE_FD(j.pidfd);
		r = 0;
		goto out;
	}
	brig_phase("poststart and watcher");
	brig_fault("run.wait");
	if (brig_wait_foreground(j.pidfd, &fwd, j.master, status, err) < 0)
		goto out;
	brig_phase("the process");
	r = o->keep ? 0 : brig_container_delete(ctx, o->id, true, err);
	goto out;
fail:
	job_abort(&j);
out:
	job_release(&j);
	return r;
}
