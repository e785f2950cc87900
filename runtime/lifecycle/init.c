/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The order of the steps below is runc's, and it matters: mounts before
 * pivot_root, masks after it, sysctl before the read-only remounts, the
 * uid switch after the bounding set and before the capability sets, and
 * nothing that could fail is left for after execve.
 */
#include "config.h"
#include "lifecycle/init.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "lifecycle/handoff.h"
#include "hooks/hooks.h"
#include "linux/apparmor.h"
#include "linux/idmap.h"
#include "linux/devices.h"
#include "linux/mounts.h"
#include "linux/namespaces.h"
#include "linux/process.h"
#include "linux/procfs.h"
#include "linux/resolve.h"
#include "linux/rootfs.h"
#include "linux/seccomp.h"
#include "linux/selinux.h"
#include "linux/syscalls.h"
#include "linux/terminal.h"
#include "linux/userns.h"
#include "spec/spec.h"
#include "lifecycle/sync.h"
#include "util/cleanup.h"
#include "util/error.h"

static int set_names(const struct brig_config *cfg, struct brig_error *err)
{
	if (cfg->hostname && cfg->hostname[0] &&
	    sethostname(cfg->hostname, strlen(cfg->hostname)) < 0)
		return brig_error_setp(err, errno, "sethostname \"%s\"", cfg->hostname);
	if (cfg->domainname && cfg->domainname[0] &&
	    setdomainname(cfg->domainname, strlen(cfg->domainname)) < 0)
		return brig_error_setp(err, errno, "setdomainname \"%s\"", cfg->domainname);
	return 0;
}

/* When the init loads the container's filter (linux/seccomp.h). */
static enum brig_seccomp_when seccomp_when(const struct brig_init_args *a)
{
	return brig_seccomp_when(a->seccomp, a->cfg->process->no_new_privileges);
}

/* The init's pid as brig sees it, from CREATE_RUNTIME_HOOKS_DONE (sync.h). */
static pid_t hooks_pid;

/* The hooks of @stage that the init runs, in its namespaces as they are. */
static int run_hooks(const struct brig_init_args *a, enum brig_hook_stage stage,
                     enum brig_status status, struct brig_error *err)
{
	struct brig_state s = {
		.id = a->id,
		.pid = hooks_pid,
		.bundle = a->bundle,
		.rootfs = a->rootfs.path,
		.annotations = a->cfg->annotations,
		.n_annotations = a->cfg->n_annotations,
	};

	return brig_hooks_run_stage(&a->cfg->hooks, stage, &s, status, err);
}

/*
 * The parent runs prestart and createRuntime now and tells the init its
 * pid; createContainer hooks run here, in the container's namespaces,
 * before pivot_root: their path resolves as on the host, and their working
 * directory is the rootfs (runc's: hooks written for it use paths
 * relative to it).
 */
static int create_hooks(const struct brig_init_args *a, int rootfd, struct brig_error *err)
{
	char pid[16];

	if (!brig_hooks_need_sync(&a->cfg->hooks))
		return 0;
	if (brig_sync_send(a->sync_fd, BRIG_SYNC_CREATE_RUNTIME_HOOKS, NULL, err) < 0 ||
	    brig_sync_expect_text(a->sync_fd, BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, "brig", pid,
	                          sizeof(pid), err) < 0)
		return -1;
	hooks_pid = (pid_t)atoi(pid);
	/* a hook without env of its own gets the process's (runc's init has
	 * set it by then), never the host's environment brig was given */
	{
		static const char *const none[] = { NULL };

		brig_hooks_inherit_env(
		    (char *const *)(a->cfg->process->env ? a->cfg->process->env : none));
	}
	if (a->cfg->hooks.n[BRIG_HOOK_CREATE_CONTAINER] && fchdir(rootfd) < 0)
		return brig_error_setp(err, errno,
		                       "enter the rootfs for the createContainer hooks");
	return run_hooks(a, BRIG_HOOK_CREATE_CONTAINER, BRIG_STATUS_CREATING, err);
}

/*
 * The LSM labels the process gets at execve.  Written while the private
 * procfs is open and before a seccomp filter can be loaded (it might not
 * allow the writes), which is runc's order too.
 */
static int set_exec_labels(int procfd, const struct brig_process *p, struct brig_error *err)
{
	if (brig_apparmor_set_exec(procfd, p->apparmor_profile, err) < 0 ||
	    brig_selinux_set_exec(procfd, p->selinux_label, err) < 0)
		return -1;
	return 0;
}

/*
 * process.terminal, after pivot_root (nothing of the host is in reach): the
 * pty of the container's devpts becomes the ctty and stdio, and its master
 * goes to brig (linux/terminal.h, sync.h).  In a bind-mounted /dev, which
 * is not brig's, a wrong /dev/console is refused rather than replaced.
 */
static int terminal_setup(const struct brig_init_args *a, int rootfd, int procfd,
                          struct brig_error *err)
{
	_cleanup_close_ int master = -1;

	if (!a->cfg->process->terminal)
		return 0;
	master = brig_terminal_setup(rootfd, procfd, a->cfg->process,
	                             !brig_dev_is_bind_mounted(a->cfg), err);
	if (master < 0)
		return -1;
	return brig_sync_send_fd(a->sync_fd, BRIG_SYNC_PTY_MASTER, master, err);
}

/*
 * The init fails after READY, before execve: whoever waits for the end of
 * its fds (`brig start` on exec.fifo, `brig run` on the socket) learns that
 * this end is an exit, not an execve, and why: it fails in turn, and says
 * so on its stderr and in its --log.  The container's stderr hears it too
 * after a start (an engine's log of the container), not after a run, whose
 * stderr is brig's own.  One write into the fifo: a message under
 * PIPE_BUF arrives whole.
 */
static void late_failure(const struct brig_init_args *a, const struct brig_error *err)
{
	struct brig_error ignored = BRIG_ERROR_INIT;

	if (a->fifo_fd >= 0) {
		char buf[PIPE_BUF];
		int n = snprintf(buf, sizeof(buf), "!%s", err->msg);
		ssize_t w =
		    write(a->fifo_fd, buf, n < (int)sizeof(buf) ? (size_t)n : sizeof(buf) - 1);

		(void)w; /* (without it, the poststart hooks run on a dead init) */
	} else if (brig_sync_send(a->sync_fd, BRIG_SYNC_ERROR, err->msg, &ignored) == 0) {
		return;
	}
	brig_error_release(&ignored);
	dprintf(STDERR_FILENO, "brig: %s\n", err->msg);
}

static int set_nondumpable(struct brig_error *err)
{
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return brig_error_setp(err, errno, "prctl(PR_SET_DUMPABLE)");
	return 0;
}

/* The idmapped mounts brig made (linux/idmap.h), one per such entry of
 * config.json, in order: @fds[i] for mounts[i], else -1. */
static int receive_idmapped(const struct brig_init_args *a, int **fds, struct brig_error *err)
{
	const struct brig_config *cfg = a->cfg;

	*fds = NULL;
	if (!brig_idmap_count(cfg, a->parent_binds))
		return 0;
	*fds = brig_xcalloc(cfg->n_mounts, sizeof(**fds));
	for (size_t i = 0; i < cfg->n_mounts; i++) {
		(*fds)[i] = -1;
		if (brig_idmap_premade(&cfg->mounts[i], a->parent_binds)) {
			(*fds)[i] =
			    brig_sync_expect_fd(a->sync_fd, BRIG_SYNC_MOUNT_FD, "brig", err);
			if ((*fds)[i] < 0)
				return -1;
		}
	}
	return 0;
}

/* "LISTEN_FDS=<n>" when brig passes socket-activation fds on (brig kept
 * $LISTEN_FDS only if it was meant for brig), else NULL. */
static const char *listen_env(char *buf, size_t size)
{
	const char *n = getenv("LISTEN_FDS");

	if (!n || !*n)
		return NULL;
	snprintf(buf, size, "LISTEN_FDS=%.16s", n);
	return buf;
}

/* Into the container: its v1 cgroups, its namespaces, its names. */
static int join_container(const struct brig_init_args *a, int **idmapped, struct brig_error *err)
{
	/* first, into the v1 cgroups brig opened for it (after MAPS_DONE, so
	 * that brig hears of a failure where it waits for READY) */
	if (brig_sync_expect(a->sync_fd, BRIG_SYNC_MAPS_DONE, "brig", err) < 0)
		return -1;
	if (a->cg) {
		if (brig_cgroup_enter_self(a->cg, err) < 0)
			return -1;
		brig_cgroup_close_tasks(a->cg); /* root's: never the container's */
	}
	if (a->late_nondumpable && set_nondumpable(err) < 0)
		return -1;
	if (receive_idmapped(a, idmapped, err) < 0)
		return -1;
	if (a->ns->is_new[BRIG_NS_USER] && brig_userns_become_root(err) < 0)
		return -1;
	if (brig_ns_enter_child(a->ns, err) < 0)
		return -1;
	if (a->ns->join_fd[BRIG_NS_USER] >= 0 && brig_userns_become_root(err) < 0)
		return -1;
	if (a->ns->is_new[BRIG_NS_NETWORK] && brig_loopback_wanted(a->cfg) &&
	    brig_loopback_up(err) < 0)
		return -1;
	return set_names(a->cfg, err);
}

/*
 * In the root: stdio that is the caller's /dev/null (an engine's, for a
 * detached container) becomes the container's own, as runc does it
 * (reOpenDevNull): a file of a mount outside the container is one CRIU
 * cannot checkpoint.  Only a character device 1:3 on either side.
 */
static int reopen_devnull(struct brig_error *err)
{
	_cleanup_close_ int fd = open("/dev/null", O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	struct stat own, st;

	if (fd < 0 || fstat(fd, &own) < 0 || !S_ISCHR(own.st_mode) || own.st_rdev != makedev(1, 3))
		return 0; /* no /dev/null of its own: leave stdio alone */
	for (int i = 0; i < 3; i++) {
		if (fstat(i, &st) < 0 || !S_ISCHR(st.st_mode) || st.st_rdev != own.st_rdev ||
		    (st.st_dev == own.st_dev && st.st_ino == own.st_ino))
			continue;
		if (dup3(fd, i, 0) < 0)
			return brig_error_setp(err, errno, "reopen /dev/null as fd %d", i);
	}
	return 0;
}

/*
 * The container's filesystem, from the bound rootfs @rootfd to the root
 * the process sees: mounts, devices, createContainer hooks, masks and
 * read-only paths (before pivot_root, from the rootfs fd: the host's
 * /dev/null must still be in this mount namespace to be cloned over the
 * masked files), the move into the root, the terminal, and what must be
 * made read-only last.
 */
static int build_root(const struct brig_init_args *a, int rootfd, int procfd, int *idmapped,
                      struct brig_error *err)
{
	const struct brig_config *cfg = a->cfg;
	const struct brig_linux *lx = cfg->linux;
	struct brig_mount_env env = {
		.bundle = a->bundle,
		.rootfd = rootfd,
		.new_netns = a->ns->is_new[BRIG_NS_NETWORK],
		.new_cgroupns = a->ns->is_new[BRIG_NS_CGROUP],
		.new_ipcns = a->ns->is_new[BRIG_NS_IPC],
		.mount_label = lx ? lx->mount_label : NULL,
		.premade = idmapped,
	};
	_cleanup_(brig_mounted_release) struct brig_mounted mounted = { 0 };
	_cleanup_close_ int devnull = -1;

	/* opened here, in the container's mount namespace: a mount cloned
	 * from it can be attached there (open_tree refuses one from another
	 * namespace), and nothing of the container's rootfs is involved */
	devnull = brig_devnull_open(err);
	if (devnull < 0)
		return -1;
	if (brig_mounts_setup(cfg, &env, &mounted, err) < 0)
		return -1;
	if (!brig_dev_is_bind_mounted(cfg) &&
	    brig_devices_setup(rootfd, cfg, a->ns->is_new[BRIG_NS_USER], err) < 0)
		return -1;
	if (create_hooks(a, rootfd, err) < 0)
		return -1;
	if (lx && brig_paths_mask(rootfd, &mounted, devnull, lx->masked_paths, lx->n_masked_paths,
	                          lx->mount_label, err) < 0)
		return -1;
	if (lx && brig_paths_readonly(rootfd, &mounted, lx->readonly_paths, lx->n_readonly_paths,
	                              err) < 0)
		return -1;
	if (brig_rootfs_enter(&a->rootfs, rootfd, err) < 0)
		return -1;
	if (reopen_devnull(err) < 0)
		return -1;
	if (terminal_setup(a, rootfd, procfd, err) < 0)
		return -1;
	return brig_mounts_finish(&mounted, err);
}

/* In the root: what is left of it to set, while it may still be written. */
static int finish_root(const struct brig_init_args *a, int rootfd, int procfd,
                       struct brig_error *err)
{
	const struct brig_config *cfg = a->cfg;
	const struct brig_linux *lx = cfg->linux;
	int cwd;

	/* sysctl goes through the private procfs, which no read-only bind of
	 * the container's /proc/sys covers */
	if (lx && brig_apply_sysctl(procfd, lx->sysctl, lx->n_sysctl, err) < 0)
		return -1;
	if (brig_rootfs_propagate(lx ? lx->rootfs_propagation : NULL, err) < 0)
		return -1;
	/* a missing cwd is created now, while the root may still be written */
	cwd = brig_mkpath_in_root(rootfd, cfg->process->cwd, BRIG_MKPATH_DIR, err);
	if (cwd < 0)
		return brig_error_wrap(err, "cwd");
	close(cwd);
	if (cfg->root->readonly && brig_rootfs_readonly(err) < 0)
		return -1;
	return 0;
}

/*
 * The process's settings, in runc's order, up to the lookup of what it
 * executes.  Nothing here may depend on what a seccomp filter loaded on
 * the way allows: what reads files (HOME) comes before it.
 */
static int apply_process(const struct brig_init_args *a, int procfd, char **exec_path,
                         char ***exec_env, struct brig_error *err)
{
	const struct brig_process *p = a->cfg->process;
	static char listen[32]; /* in *exec_env */

	if (!a->no_new_keyring &&
	    brig_join_session_keyring(procfd, p->selinux_label, a->id, err) < 0)
		return -1;
	if (brig_process_apply_resources(p, a->plan, procfd, err) < 0)
		return -1;
	if (brig_enter_cwd(p->cwd, err) < 0)
		return -1;
	if (set_exec_labels(procfd, p, err) < 0)
		return -1;
	/* HOME from the container's /etc/passwd when the config has none;
	 * socket-activation fds are announced as runc does.  Read before the
	 * filter, which may deny what the reading takes (openat2) */
	*exec_env = brig_exec_env(p, listen_env(listen, sizeof(listen)));
	if (seccomp_when(a) == BRIG_SECCOMP_BEFORE_CAPS &&
	    brig_sync_seccomp_load(a->sync_fd, a->seccomp, a->handoff, err) < 0)
		return -1;
	if (brig_process_apply_identity(p, a->plan, procfd, err) < 0)
		return -1;
	*exec_path = brig_exec_lookup(p, err);
	return *exec_path ? 0 : -1;
}

/* Everything before READY: into the container, its root, its process. */
static int setup(const struct brig_init_args *a, char **exec_path, char ***exec_env,
                 struct brig_error *err)
{
	_cleanup_close_ int rootfd = -1;
	_cleanup_close_ int procfd = -1;
	int *idmapped = NULL; /* kept open until execve closes them */

	if (join_container(a, &idmapped, err) < 0)
		return -1;
	rootfd = brig_rootfs_prepare(&a->rootfs, err);
	if (rootfd < 0)
		return -1;
	procfd = brig_procfs_open(err);
	if (procfd < 0)
		return -1;
	if (build_root(a, rootfd, procfd, idmapped, err) < 0)
		return -1;
	if (finish_root(a, rootfd, procfd, err) < 0)
		return -1;
	return apply_process(a, procfd, exec_path, exec_env, err);
}

/*
 * brig job: the process dies with brig.  Set last, just before execve:
 * the kernel clears the parent-death signal on every change of
 * credentials.  brig may already be gone, which its end of the sync
 * socket (closed, POLLHUP) tells.
 */
static int die_with_parent(int sync_fd, struct brig_error *err)
{
	struct pollfd p = { .fd = sync_fd, .events = POLLIN };

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return brig_error_setp(err, errno, "prctl(PR_SET_PDEATHSIG)");
	if (poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR)))
		return brig_error_set(err, "brig is gone");
	return 0;
}

/* Wait for `brig start`: it writes one byte into exec.fifo. */
static int wait_for_start(int fifo, struct brig_error *err)
{
	char c;
	ssize_t n;

	do
		n = read(fifo, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		return brig_error_setp(err, n < 0 ? errno : EPIPE, "wait for start");
	return 0;
}

/*
 * A pool member's init waits for its job as the container's pid 1, whose
 * /proc/1/cmdline and /proc/1/environ the job may read: they would be
 * brig's own (its state root, the rootfs, --mount sources; the caller's
 * environment).  As `runc init` shows its name and nothing of the
 * caller's, the init shows "brig\0init\0": the kernel's get_mm_cmdline
 * reads the whole argv area [arg_start, arg_end) and, when its last byte
 * is not a NUL, on into the environment; so the name is written at its
 * start and every other byte of both areas becomes a NUL (the areas keep
 * their length: changing their bounds, PR_SET_MM, takes CAP_SYS_RESOURCE,
 * which brig may not have).  Their bounds are read from the host's procfs
 * before the init enters anything of the container's.
 */
struct cmdline_area {
	unsigned long arg_start, arg_end, env_start, env_end;
};

static int cmdline_area_read(struct cmdline_area *c, struct brig_error *err)
{
	char buf[2048], *p;
	ssize_t n;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return brig_error_setp(err, errno, "open \"/proc/self/stat\"");
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return brig_error_setp(err, n < 0 ? errno : EIO, "read \"/proc/self/stat\"");
	buf[n] = '\0';
	/* fields 48 to 51; the name (field 2) may hold spaces and parentheses */
	p = strrchr(buf, ')');
	for (int field = 2; p && field < 48; field++)
		p = strchr(p + 1, ' ');
	if (!p ||
	    sscanf(p, " %lu %lu %lu %lu", &c->arg_start, &c->arg_end, &c->env_start, &c->env_end) !=
	        4 ||
	    c->arg_end <= c->arg_start || c->env_end < c->env_start)
		return brig_error_set(err, "\"/proc/self/stat\": no argv and environ bounds");
	return 0;
}

static void neutral_name(const struct cmdline_area *c)
{
	static const char name[] = "brig\0init";
	char *arg = (char *)c->arg_start, *env = (char *)c->env_start;
	size_t len = c->arg_end - c->arg_start;

	memset(arg, 0, len);
	memcpy(arg, name, sizeof(name) < len ? sizeof(name) : len - 1);
	memset(env, 0, c->env_end - c->env_start);
	/* nothing of brig's environment is read from here on */
	clearenv();
	prctl(PR_SET_NAME, "brig:init", 0, 0, 0);
}

/*
 * The hand-off socket the init waits on is one it makes itself, on the
 * fd numbers its maker cloned it with: the kernel then names the init
 * as either end's peer (SO_PEERCRED, set by socketpair to its caller),
 * which a claimer checks before it sends a job's secrets (job/pool.c).
 */
static int own_handoff_socket(const int *handoff, struct brig_error *err)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return brig_error_setp(err, errno, "the hand-off socket");
	for (int i = 0; i < 2; i++)
		if (dup3(sv[i], handoff[i], O_CLOEXEC) < 0) {
			brig_error_setp(err, errno, "the hand-off socket");
			close(sv[0]);
			close(sv[1]);
			return -1;
		}
	close(sv[0]);
	close(sv[1]);
	return 0;
}

void brig_init_main(const struct brig_init_args *a)
{
	struct cmdline_area area = { 0 };
	struct brig_error err = BRIG_ERROR_INIT;
	const struct brig_process *p = a->cfg->process;
	char *path = NULL, **env = NULL;

	/* a session of its own, as runc's init: a terminal's ^C reaches brig,
	 * which forwards it once, never the container directly as well */
	if (setsid() < 0) {
		brig_error_setp(&err, errno, "setsid");
		goto fail;
	}
	if (a->stdio && brig_fds_place_stdio(a->stdio, &err) < 0)
		goto fail;
	if (a->handoff && cmdline_area_read(&area, &err) < 0)
		goto fail;
	if (setup(a, &path, &env, &err) < 0)
		goto fail;
	if (a->handoff && own_handoff_socket(a->handoff, &err) < 0)
		goto fail;
	/* a pool member's init keeps its notify fd for its claimer */
	if (seccomp_when(a) == BRIG_SECCOMP_BEFORE_READY &&
	    brig_sync_seccomp_load(a->sync_fd, a->seccomp, a->handoff, &err) < 0)
		goto fail;
	if (brig_sync_send(a->sync_fd, BRIG_SYNC_READY, NULL, &err) < 0)
		goto fail;
	/* brig has saved the state; without it (brig died: end-of-file),
	 * nobody would ever start, claim or delete this container, nor hear
	 * why it ends: it ends */
	if (brig_sync_expect(a->sync_fd, BRIG_SYNC_GO, "brig", &err) < 0)
		_exit(1);
	/* a pool member: its job comes later, on a socket of its own; it may
	 * wait under its filter already, so that the claim does not pay for
	 * loading it */
	if (a->handoff) {
		bool load = a->handoff_filtered && seccomp_when(a) == BRIG_SECCOMP_LAST;
		/* a notifying filter is loaded already (before READY) */
		bool filtered = load || seccomp_when(a) == BRIG_SECCOMP_BEFORE_READY ||
		                seccomp_when(a) == BRIG_SECCOMP_BEFORE_CAPS;

		close(a->sync_fd);
		neutral_name(&area);
		if (load && brig_seccomp_load(a->seccomp, &err) < 0)
			_exit(1);
		brig_handoff_serve(a, filtered, env);
	}
	if (a->fifo_fd >= 0 && wait_for_start(a->fifo_fd, &err) < 0)
		goto late_fail;
	/* the caller's fds (stdio, $LISTEN_FDS, --preserve-fds) are kept and
	 * every other one is closed but the sync socket and the exec fifo,
	 * which report a failing startContainer hook until execve closes them */
	if (brig_apply_cpu_affinity(a->plan->cpus_final, &err) < 0 ||
	    brig_fds_prepare(a->preserve_fds, (const int[]){ a->sync_fd, a->fifo_fd },
	                     a->fifo_fd >= 0 ? 2 : 1, &err) < 0)
		goto late_fail;
	/* the container starts with every signal at its default action, as
	 * under runc, whatever brig's caller ignored */
	brig_reset_signals();
	sigprocmask(SIG_SETMASK, &a->saved_mask, NULL);
	/* the startContainer hooks are programs of the container: they, and
	 * whatever they leave running, are under its filter (runc's order) */
	if (seccomp_when(a) == BRIG_SECCOMP_LAST && brig_seccomp_load(a->seccomp, &err) < 0)
		goto late_fail;
	/* in the container, its user and mount namespace, before its process,
	 * with its environment (HOME included) when they have none */
	brig_hooks_inherit_env(env);
	if (run_hooks(a, BRIG_HOOK_START_CONTAINER, BRIG_STATUS_CREATED, &err) < 0)
		goto late_fail;
	if (a->parent_death && die_with_parent(a->sync_fd, &err) < 0)
		goto late_fail;
	execve(path, (char *const *)p->args, env);
	brig_error_setp(&err, errno, "exec \"%s\"", p->args[0]);
	goto late_fail;
fail:
	/* the parent is listening: it reports the error */
	brig_sync_send(a->sync_fd, BRIG_SYNC_ERROR, err.msg, &err);
	_exit(1);
late_fail:
	late_failure(a, &err);
	_exit(err.errnum == ENOENT ? 127 : 126);
}
