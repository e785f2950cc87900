/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lifecycle/exec.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "lifecycle/console.h"
#include "lifecycle/context.h"
#include "lifecycle/container.h"
#include "linux/apparmor.h"
#include "linux/clone_vm.h"
#include "linux/namespaces.h"
#include "linux/process.h"
#include "linux/procfs.h"
#include "linux/selfexe.h"
#include "linux/seccomp.h"
#include "linux/selinux.h"
#include "linux/syscalls.h"
#include "linux/terminal.h"
#include "linux/userns.h"
#include "spec/spec.h"
#include "spec/state.h"
#include "lifecycle/state.h"
#include "lifecycle/sync.h"
#include "util/arena.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/fs.h"
#include "util/id.h"
#include "util/log.h"
#include "util/phases.h"
#include "util/proc.h"
#include "util/strbuf.h"

/* The namespaces the process joins itself, through the init's pidfd;
 * pid and time apply to children, so brig joins those for the clone. */
#define CHILD_NS (CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET | CLONE_NEWCGROUP)
#define PARENT_NS (CLONE_NEWPID | CLONE_NEWTIME)

struct exec_job {
	struct brig_container_ref c;   /* the container, its state */
	struct brig_config *cfg;       /* the container's, as create saw it */
	struct brig_process_doc *pdoc; /* --process */
	struct brig_process proc;      /* what runs */
	struct brig_arena arena;       /* what the flags changed */
	struct brig_process_plan plan;
	struct brig_seccomp_prog seccomp;
	struct brig_cgroup cg;
	int initfd, pidfd, console, master;
	int rootfd;   /* no mount namespace of its own: the init's root */
	int jpidfd;   /* the joiner's, until it is reaped */
	char **subcg; /* --cgroup: per hierarchy, a path below the container's, or NULL */
	int sock[2];
	pid_t pid;
	bool own_userns; /* the container has a user namespace of its own */
	bool no_cgroup;  /* rootless, not allowed into the container's cgroup */
	int ns_child;    /* CLONE_NEW* the joiner joins: the init's that differ */
	int ns_parent;   /* the same for pid and time (for the process it forks) */
	bool shared;     /* the joiner shares brig's memory: brig waits for nothing */
	sigset_t saved_mask;
};

static void job_release(struct exec_job *j)
{
	brig_seccomp_prog_release(&j->seccomp);
	brig_process_plan_release(&j->plan);
	brig_cgroup_sub_paths_free(&j->cg, j->subcg);
	brig_cgroup_release(&j->cg);
	brig_process_doc_free(j->pdoc);
	brig_config_free(j->cfg);
	brig_arena_release(&j->arena);
	brig_container_ref_close(&j->c);
	for (int i = 0; i < 2; i++)
		if (j->sock[i] >= 0)
			close(j->sock[i]);
	if (j->initfd >= 0)
		close(j->initfd);
	if (j->rootfd >= 0)
		close(j->rootfd);
	if (j->pidfd >= 0)
		close(j->pidfd);
	if (j->jpidfd >= 0)
		close(j->jpidfd);
	if (j->console >= 0)
		close(j->console);
	if (j->master >= 0)
		close(j->master);
}

/* ------------------------------------------------------------ the process */

static int parse_id(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static const char **append(struct brig_arena *a, const char **list, size_t n,
                           const char *const *add, size_t n_add)
{
	const char **out = brig_arena_array(a, n + n_add + 1, sizeof(*out));

	if (n)
		memcpy(out, list, n * sizeof(*out));
	if (n_add)
		memcpy(out + n, add, n_add * sizeof(*out));
	out[n + n_add] = NULL;
	return out;
}

/* --cap: into the bounding, effective and permitted sets, and ambient when
 * the process has inheritable ones (runc's rule) */
static void add_caps(struct exec_job *j, const struct brig_exec_opts *o)
{
	struct brig_capabilities *c = brig_arena_alloc(&j->arena, sizeof(*c));

	if (j->proc.capabilities)
		*c = *j->proc.capabilities;
	else
		memset(c, 0, sizeof(*c));
	c->bounding = append(&j->arena, c->bounding, c->n_bounding, o->caps, o->n_caps);
	c->n_bounding += o->n_caps;
	c->effective = append(&j->arena, c->effective, c->n_effective, o->caps, o->n_caps);
	c->n_effective += o->n_caps;
	c->permitted = append(&j->arena, c->permitted, c->n_permitted, o->caps, o->n_caps);
	c->n_permitted += o->n_caps;
	if (c->n_inheritable) {
		c->ambient = append(&j->arena, c->ambient, c->n_ambient, o->caps, o->n_caps);
		c->n_ambient += o->n_caps;
	}
	j->proc.capabilities = c;
}

/*
 * The process: --process FILE as it is, or the container's process with
 * the command and the flags on top, as runc builds it.
 */
static int build_process(struct exec_job *j, const struct brig_exec_opts *o, struct brig_error *err)
{
	struct brig_process *p = &j->proc;

	if (o->process_file) {
		_cleanup_free_ char *text = NULL;
		size_t len;

		if (brig_read_file(AT_FDCWD, o->process_file, BRIG_CONFIG_MAX_BYTES, &text, &len,
		                   err) < 0)
			return brig_error_wrap(err, "--process");
		j->pdoc = brig_process_parse(o->process_file, text, len, err);
		if (!j->pdoc)
			return -1;
		*p = *j->pdoc->process;
		/* without capabilities, the container's own (runc's rule), never
		 * every capability brig has */
		if (!p->capabilities)
			p->capabilities = j->cfg->process->capabilities;
	} else {
		*p = *j->cfg->process;
		p->args = (const char **)o->args;
		p->n_args = (size_t)o->n_args;
		/* runc: a terminal only with -t, whatever the container has */
		p->terminal = false;
	}
	if (o->n_env) {
		p->env = append(&j->arena, p->env, p->n_env, o->env, o->n_env);
		p->n_env += o->n_env;
	}
	if (o->cwd)
		p->cwd = o->cwd;
	if (o->tty_set)
		p->terminal = o->tty;
	if (o->user) {
		char *copy = brig_arena_strdup(&j->arena, o->user), *colon = strchr(copy, ':');

		if (colon)
			*colon = '\0';
		if (parse_id(copy, &p->user.uid) < 0 ||
		    (colon && parse_id(colon + 1, &p->user.gid) < 0))
			return brig_error_usage(err, "invalid value \"%s\" for flag --user",
			                        o->user);
	}
	if (o->n_additional_gids) {
		/* added to the process's own, as runc does */
		size_t have = p->user.n_additional_gids;
		uint32_t *gids =
		    brig_arena_array(&j->arena, have + o->n_additional_gids, sizeof(*gids));

		if (have)
			memcpy(gids, p->user.additional_gids, have * sizeof(*gids));
		for (size_t i = 0; i < o->n_additional_gids; i++)
			if (parse_id(o->additional_gids[i], &gids[have + i]) < 0)
				return brig_error_usage(
				    err, "invalid value \"%s\" for flag --additional-gids",
				    o->additional_gids[i]);
		p->user.additional_gids = gids;
		p->user.n_additional_gids = have + o->n_additional_gids;
	}
	if (o->n_caps)
		add_caps(j, o);
	if (o->no_new_privs)
		p->no_new_privileges = true;
	if (o->process_label)
		p->selinux_label = o->process_label;
	if (o->apparmor)
		p->apparmor_profile = o->apparmor;
	if (!p->n_args || !p->args[0] || !*p->args[0])
		return brig_error_usage(err, "exec: no command given");
	if (!p->cwd || p->cwd[0] != '/')
		return brig_error_set(err, "exec: cwd \"%s\" is not an absolute path",
		                      p->cwd ? p->cwd : "");
	return 0;
}

/* ------------------------------------------------------------ the child */

/* cwd must exist in the container; entered and checked to be inside its
 * root (no fd of the host leads out: CVE-2024-21626). */
static int enter_cwd(const char *cwd, struct brig_error *err)
{
	char buf[4096];

	if (chdir(cwd) < 0)
		return brig_error_setp(err, errno, "chdir to cwd (\"%s\") set in config.json", cwd);
	if (!getcwd(buf, sizeof(buf)) || buf[0] != '/')
		return brig_error_set(err, "cwd \"%s\" is outside the container", cwd);
	return 0;
}

/* When the process loads the container's filter (linux/seccomp.h). */
static enum brig_seccomp_when seccomp_when(const struct exec_job *j)
{
	return brig_seccomp_when(&j->seccomp, j->proc.no_new_privileges);
}

static int child_setup(struct exec_job *j, const struct brig_exec_opts *o, char **path, char ***env,
                       struct brig_error *err)
{
	const struct brig_process *p = &j->proc;
	_cleanup_close_ int procfd = -1;

	/* a session of its own, terminal or not, as runc's nsexec makes it:
	 * otherwise its session and process group are brig's caller's, from
	 * outside the container's pid namespace (0 seen from inside) */
	if (setsid() < 0)
		return brig_error_setp(err, errno, "setsid");
	/* the container's root, as its init became (init.c) and as runc's
	 * nsexec makes every process that joins a user namespace: brig's
	 * host ids have no mapping there, so what it made (the pty of exec
	 * -t) could not be given to the process's user, and a file of the
	 * host's root must not be this process's own */
	if (j->own_userns && brig_userns_become_root(err) < 0)
		return -1;
	procfd = brig_procfs_open(err);
	if (procfd < 0)
		return -1;
	/* the container's keyring (runc joins it too), never brig's caller's */
	if (!j->c.s->no_new_keyring &&
	    brig_join_session_keyring(procfd, p->selinux_label, o->id, err) < 0)
		return -1;
	if (p->terminal) {
		_cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		_cleanup_close_ int master = -1;

		if (root < 0)
			return brig_error_setp(err, errno, "open the container's root");
		master = brig_terminal_setup_exec(root, procfd, p, err);
		if (master < 0 ||
		    brig_sync_send_fd(j->sock[1], BRIG_SYNC_PTY_MASTER, master, err) < 0)
			return -1;
	}
	if (brig_process_apply_resources(p, &j->plan, procfd, err) < 0)
		return -1;
	if (enter_cwd(p->cwd, err) < 0)
		return -1;
	if (brig_apparmor_set_exec(procfd, p->apparmor_profile, err) < 0)
		return -1;
	if (brig_selinux_set_exec(procfd, p->selinux_label, err) < 0)
		return -1;
	/* HOME from the container's /etc/passwd, read before a filter may
	 * deny what the reading takes (openat2); $LISTEN_FDS fds are kept
	 * but not announced: LISTEN_PID=1 would name the init, not this
	 * process (runc's exec announces nothing either) */
	*env = brig_exec_env(p, NULL);
	/* the container's filter: before the capabilities go when it needs
	 * CAP_SYS_ADMIN to load (no no_new_privs), else last of all (or
	 * before READY when its notify fd must reach brig) */
	if (seccomp_when(j) == BRIG_SECCOMP_BEFORE_CAPS &&
	    brig_sync_seccomp_load(j->sock[1], &j->seccomp, false, err) < 0)
		return -1;
	if (brig_process_apply_identity(p, &j->plan, procfd, err) < 0)
		return -1;
	*path = brig_exec_lookup(p, err);
	(void)o;
	return *path ? 0 : -1;
}

__attribute__((noreturn)) static void child_main(struct exec_job *j, const struct brig_exec_opts *o)
{
	struct brig_error err = BRIG_ERROR_INIT;
	const struct brig_process *p = &j->proc;
	char *path = NULL, **env = NULL;
	int self;

	/* the log's fd went with the joiner's (brig_fds_prepare) */
	brig_log_silence();
	/* first, brig learns who runs: its own pidfd (the joiner made it) */
	self = pidfd_open(getpid(), 0);
	if (self < 0) {
		brig_error_setp(&err, errno, "pidfd_open");
		brig_sync_send(j->sock[1], BRIG_SYNC_ERROR, err.msg, &err);
		_exit(1);
	}
	if (brig_sync_send_fd(j->sock[1], BRIG_SYNC_PIDFD, self, &err) < 0)
		_exit(1);
	close(self);
	if (child_setup(j, o, &path, &env, &err) < 0) {
		brig_sync_send(j->sock[1], BRIG_SYNC_ERROR, err.msg, &err);
		_exit(1);
	}
	if (seccomp_when(j) == BRIG_SECCOMP_BEFORE_READY &&
	    brig_sync_seccomp_load(j->sock[1], &j->seccomp, false, &err) < 0) {
		brig_sync_send(j->sock[1], BRIG_SYNC_ERROR, err.msg, &err);
		_exit(1);
	}
	if (brig_sync_send(j->sock[1], BRIG_SYNC_READY, NULL, &err) < 0)
		_exit(1);
	close(j->sock[1]);
	if (brig_apply_cpu_affinity(j->plan.cpus_final, &err) < 0 ||
	    brig_fds_prepare(o->preserve_fds, NULL, 0, &err) < 0)
		goto late_fail;
	brig_reset_signals();
	sigprocmask(SIG_SETMASK, &j->saved_mask, NULL);
	if (seccomp_when(j) == BRIG_SECCOMP_LAST && brig_seccomp_load(&j->seccomp, &err) < 0)
		goto late_fail;
	execve(path, (char *const *)p->args, env);
	brig_error_setp(&err, errno, "exec \"%s\"", p->args[0]);
late_fail:
	dprintf(STDERR_FILENO, "brig: %s\n", err.msg);
	_exit(err.errnum == ENOENT ? 127 : 126);
}

/*
 * The joiner, brig's child: born in the container's v2 cgroup but outside
 * its pid namespace, so out of the container's sight.  It enters the v1
 * cgroups, then every namespace of the init at once (the kernel takes the
 * user one first; pid and time for its children), which gives it the
 * container's root and cwd; it sheds every fd of brig's but the socket and
 * forks the process (brig's child too, CLONE_PARENT), and is done.  So the
 * process is first seen in the container already inside it: a process of
 * the container allowed to ptrace (CAP_SYS_PTRACE) finds no host root, cwd
 * or fd through /proc/<pid> (runc's nsexec stages do the same).
 *
 * Where it can, it shares brig's memory (linux/clone_vm.h), brig asleep
 * until it exits: @j is brig's own then, and only read.  It cannot where
 * brig still has work for it after the clone (MAPS_DONE: a cgroup to put
 * it in), nor join a time namespace so.  Shared or not, it is a member of
 * the container's cgroups for its few system calls: frozen there, brig
 * waits for the thaw (as for the process's PIDFD before); an OOM kill in
 * them that picks it ends brig's exec with it when they share memory
 * (status 137; a process already forked ends at its next message).
 */
struct joiner_args {
	struct exec_job *j;
	const struct brig_exec_opts *o;
};

static int joiner_main(void *arg)
{
	const struct joiner_args *a = arg;
	struct exec_job *j = a->j;
	struct clone_args ca = { .flags = CLONE_PARENT };
	struct brig_error err = BRIG_ERROR_INIT;
	pid_t pid;

	/* into the v1 cgroups, by itself and while it is still brig (see
	 * cgroup_open_tasks), once brig has done the rest */
	if (!j->shared && brig_sync_expect(j->sock[1], BRIG_SYNC_MAPS_DONE, "brig", &err) < 0)
		goto fail;
	if (brig_cgroup_enter_self(&j->cg, &err) < 0)
		goto fail;
	if (brig_fault("exec.joiner") < 0 ||
	    ((j->ns_child | j->ns_parent) && setns(j->initfd, j->ns_child | j->ns_parent) < 0)) {
		brig_error_setp(&err, errno, "join the container's namespaces");
		goto fail;
	}
	/* a container in its creator's mount namespace is chrooted in it:
	 * joining the namespaces gave no root, the init's is taken */
	if (j->rootfd >= 0 && (fchdir(j->rootfd) < 0 || chroot(".") < 0 || chdir("/") < 0)) {
		brig_error_setp(&err, errno, "chroot into the container's root");
		goto fail;
	}
	/* every fd of brig's but the socket: the init's pidfd, its root, the
	 * cgroups' files, the state directory, the log, the console socket */
	if (brig_fds_prepare(a->o->preserve_fds, &j->sock[1], 1, &err) < 0)
		goto fail;
	pid = brig_clone3(&ca);
	if (pid < 0) {
		brig_error_setp(&err, errno, "clone3");
		goto fail;
	}
	if (pid == 0)
		child_main(j, a->o);
	_exit(0);
fail:
	brig_sync_send(j->sock[1], BRIG_SYNC_ERROR, err.msg, &err);
	brig_error_release(&err); /* (brig's heap, when shared) */
	_exit(1);
}

/* ------------------------------------------------------------ the parent */

/* The namespaces of @flags in which the init is not where brig is: only
 * those are joined (joining one's own can need privileges over it). */
static int other_ns(pid_t pid, int flags)
{
	static const struct {
		int flag;
		const char *name;
	} ns[] = { { CLONE_NEWUSER, "user" }, { CLONE_NEWNS, "mnt" },
		   { CLONE_NEWIPC, "ipc" },   { CLONE_NEWUTS, "uts" },
		   { CLONE_NEWNET, "net" },   { CLONE_NEWCGROUP, "cgroup" },
		   { CLONE_NEWPID, "pid" },   { CLONE_NEWTIME, "time" } };
	int out = 0;

	for (size_t i = 0; i < ARRAY_SIZE(ns); i++) {
		char path[64], mine_path[64];
		struct stat mine, theirs;

		if (!(flags & ns[i].flag))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, ns[i].name);
		snprintf(mine_path, sizeof(mine_path), "/proc/self/ns/%s", ns[i].name);
		if (stat(path, &theirs) == 0 && stat(mine_path, &mine) == 0 &&
		    (theirs.st_ino != mine.st_ino || theirs.st_dev != mine.st_dev))
			out |= ns[i].flag;
	}
	return out;
}

/* The container's state and saved config: what tells whether brig is
 * re-executed (linux/selfexe.h), before anything else is looked at. */
static int load_config(struct exec_job *j, const struct brig_context *ctx,
                       const struct brig_exec_opts *o, struct brig_error *err)
{
	if (brig_container_ref_open(&j->c, ctx->root, o->id, BRIG_LOCK_SHARED, err) < 0)
		return -1;
	j->cfg = brig_config_load(j->c.e.dirfd, "config.json", "config.json", err);
	if (!j->cfg)
		return brig_error_wrap(err, "the container's saved config");
	return 0;
}

/* The container, if it can take a process (runc's wording otherwise). */
static int load_container(struct exec_job *j, const struct brig_exec_opts *o,
                          struct brig_error *err)
{
	enum brig_status status;

	status = brig_state_status(j->c.s);
	if (status == BRIG_STATUS_STOPPED)
		return brig_error_set(err, "cannot exec in a stopped container");
	if (status == BRIG_STATUS_PAUSED && !o->ignore_paused)
		return brig_error_set(err, "cannot exec in a paused container (use --ignore-paused "
		                           "to override)");
	j->initfd = brig_open_init(j->c.s);
	if (j->initfd < 0)
		return brig_error_set(err, "cannot exec in a stopped container");
	if (j->c.s->mntns) {
		char path[64];

		/* opened while the pidfd pins the init, checked alive after */
		snprintf(path, sizeof(path), "/proc/%d/root", (int)j->c.s->pid);
		j->rootfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (j->rootfd < 0 || pidfd_send_signal(j->initfd, 0, NULL, 0) < 0)
			return brig_error_set(err, "cannot exec in a stopped container");
	}
	j->ns_child = other_ns(j->c.s->pid, CHILD_NS | CLONE_NEWUSER);
	j->ns_parent = other_ns(j->c.s->pid, PARENT_NS);
	j->own_userns = j->ns_child & CLONE_NEWUSER;
	return brig_cgroup_from_state(j->c.s, &j->cg, err);
}

/* The cgroup the process is born in: the container's v2 one, or with
 * --cgroup a sub-cgroup of it. */
static int cgroup_fd(struct exec_job *j, const struct brig_exec_opts *o, struct brig_error *err)
{
	if (brig_cgroup_sub_paths(&j->cg, o->cgroups, o->n_cgroups, &j->subcg, err) < 0)
		return -1;
	for (size_t i = 0; i < j->cg.n; i++) {
		_cleanup_free_ char *dir = NULL;

		if (!j->cg.h[i].v2)
			continue;
		dir = j->subcg && j->subcg[i] ? brig_xasprintf("%s/%s", j->cg.h[i].dir, j->subcg[i])
		                              : brig_xstrdup(j->cg.h[i].dir);
		j->cg.v2fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (j->cg.v2fd < 0)
			return brig_error_setp(err, errno, "open cgroup \"%s\"", dir);
		return 0;
	}
	return 0;
}

/*
 * v1 hierarchies: their "tasks" files, opened before the clone, for the
 * child to enter by writing "0" itself, which spares the kernel's global
 * threadgroup lock (cgroup/cgroup.h: brig_cgroup_open_tasks).  Not when
 * brig has joined the container's user namespace (rootless): the child's
 * credentials are not brig's there.
 */
static int cgroup_open_tasks(struct exec_job *j, struct brig_error *err)
{
	if (j->ns_parent & CLONE_NEWUSER)
		return 0;
	return brig_cgroup_open_tasks(&j->cg, j->subcg, err);
}

/*
 * Unprivileged (rootless), the pid namespace is not ours to join from
 * outside its user namespace: brig joins that, and pid and time, for good
 * (it only waits and relays from here on).
 */
static int join_rootless(struct exec_job *j, struct brig_error *err)
{
	if (!j->own_userns || geteuid() == 0)
		return 0;
	if (setns(j->initfd, CLONE_NEWUSER | j->ns_parent) < 0)
		return brig_error_setp(err, errno, "join the container's namespaces");
	j->ns_child &= ~CLONE_NEWUSER;
	j->ns_parent = 0;
	return 0;
}

/* The joiner: sharing brig's memory where it may (0 in brig: it is gone
 * then), else a fork; in the child, 0 (a fork's) or never back. */
static pid_t clone_joiner(struct clone_args *ca, struct joiner_args *args)
{
	pid_t pid;

	if (args->j->shared) {
		struct clone_args vm = *ca;

		pid = brig_clone3_vm(&vm, joiner_main, args);
		if (pid >= 0 || errno != ENOSYS)
			return pid;
		args->j->shared = false;
	}
	return brig_clone3(ca);
}

static int spawn(struct exec_job *j, const struct brig_exec_opts *o, struct brig_error *err)
{
	struct clone_args ca = {
		.flags = CLONE_PIDFD,
		.pidfd = (uint64_t)(uintptr_t)&j->jpidfd,
		.exit_signal = SIGCHLD,
	};
	struct joiner_args args = { .j = j, .o = o };
	pid_t joiner;
	int dumpable;
	bool rootless = geteuid() != 0; /* (before join_rootless makes it 0) */

	if (j->cg.v2fd >= 0) {
		ca.flags |= CLONE_INTO_CGROUP;
		ca.cgroup = (uint64_t)j->cg.v2fd;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, j->sock) < 0)
		return brig_error_setp(err, errno, "socketpair");
	/* born non-dumpable: nothing in the container opens /proc/<pid>/exe,
	 * brig's own binary, before execve replaces it (CVE-2019-5736) */
	dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return brig_error_setp(err, errno, "prctl(PR_SET_DUMPABLE)");
	if (join_rootless(j, err) < 0)
		return -1;
	j->shared = !(j->ns_parent & CLONE_NEWTIME) && brig_cgroup_entered_at_birth(&j->cg);
	joiner = clone_joiner(&ca, &args);
	if (joiner < 0 && (errno == EACCES || errno == EPERM) && (ca.flags & CLONE_INTO_CGROUP) &&
	    rootless) {
		/* Rootless, moving a process into the container's cgroup takes
		 * write access to the cgroup.procs of the two cgroups' common
		 * ancestor, which is not the user's when the scope is its
		 * systemd's and brig runs in a login session: the process
		 * then stays in brig's cgroup, as runc lets it. */
		brig_debug("rootless: exec outside the container's cgroup (clone3: %s)",
		           strerror(errno));
		ca.flags &= ~(uint64_t)CLONE_INTO_CGROUP;
		j->no_cgroup = true;
		joiner = clone_joiner(&ca, &args);
	}
	/* brig itself is out of the container's sight (and its binary
	 * read-only): as it was, so that a rootless brig stays traceable by
	 * its own user (LeakSanitizer, a debugger) */
	if (joiner != 0 && dumpable > 0)
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	if (joiner < 0)
		return brig_error_setp(err, errno, "clone3");
	if (joiner == 0) {
		/* a fork: brig's end goes at once, so that it waits for no
		 * MAPS_DONE from a brig that is gone */
		close(j->sock[0]);
		joiner_main(&args);
	}
	j->pid = joiner; /* until the process itself is known */
	close(TAKE_FD(j->sock[1]));
	return 0;
}

/* Wait for the child behind @pidfd (one of brig's) to end, and close it. */
static void reap(int *pidfd)
{
	siginfo_t si;

	while (waitid(P_PIDFD, (id_t)*pidfd, &si, WEXITED) < 0 && errno == EINTR)
		;
	close(TAKE_FD(*pidfd));
}

/* The process the joiner forked: its pidfd and pid; the joiner reaped. */
static int receive_process(struct exec_job *j, struct brig_error *err)
{
	j->pidfd = brig_sync_expect_fd(j->sock[0], BRIG_SYNC_PIDFD, "exec process", err);
	if (j->pidfd < 0)
		return -1;
	j->pid = brig_pidfd_pid(j->pidfd);
	reap(&j->jpidfd);
	if (j->pid <= 0)
		return brig_error_setp(err, errno, "the exec process's pid");
	return 0;
}

/* A failed exec: the process, if it is known, and the joiner, if it is
 * still there, killed and reaped. */
static void abort_spawn(struct exec_job *j)
{
	if (j->pidfd >= 0) {
		pidfd_send_signal(j->pidfd, SIGKILL, NULL, 0);
		reap(&j->pidfd);
	}
	if (j->jpidfd >= 0) {
		pidfd_send_signal(j->jpidfd, SIGKILL, NULL, 0);
		reap(&j->jpidfd);
	}
}

/* The pty master (console.h): to --console-socket, or kept for the relay. */
static int receive_master(struct exec_job *j, struct brig_error *err)
{
	if (!j->proc.terminal)
		return 0;
	return brig_console_receive(j->sock[0], "exec process", j->console, &j->master, err);
}

/* A notifying filter: its fd goes on to listenerPath with the container's
 * state (status running) and the process's pid. */
static int seccomp_listener(struct exec_job *j, struct brig_error *err)
{
	if (!j->seccomp.notify)
		return 0;
	j->c.s->status = BRIG_STATUS_RUNNING;
	return brig_sync_seccomp_listener(j->sock[0], "exec process", j->cfg->linux->seccomp,
	                                  j->pid, j->c.s, err);
}

int brig_container_exec(const struct brig_context *ctx, const struct brig_exec_opts *o, int *status,
                        struct brig_error *err)
{
	struct exec_job j = { .c = BRIG_CONTAINER_REF_INIT,
		              .cg = BRIG_CGROUP_INIT,
		              .arena = BRIG_ARENA_INIT,
		              .initfd = -1,
		              .rootfd = -1,
		              .pidfd = -1,
		              .jpidfd = -1,
		              .console = -1,
		              .master = -1,
		              .sock = { -1, -1 } };
	const struct brig_linux *lx;
	sigset_t fwd;
	int r = -1, entered;

	/* $LISTEN_FDS only when meant for brig itself (systemd's rule, as
	 * create), and every fd kept must be one the caller passed */
	brig_listen_fds();
	if (brig_fds_check(o->preserve_fds, err) < 0)
		goto out;
	/* linux/selfexe.h, before anything is made: at once when the saved
	 * config names no uidMappings (an id that is none: later, after the
	 * refusal), else as soon as it is parsed (the lock goes with the
	 * re-execution, which takes it again), before the init and its
	 * namespaces are looked at: the first image does no more */
	if (o->protect_exe) {
		struct brig_error bad_id = BRIG_ERROR_INIT;
		_cleanup_free_ char *config = brig_xasprintf("%s/%s/config.json", ctx->root, o->id);

		if (brig_id_validate(o->id, &bad_id) == 0 &&
		    brig_selfexe_protect_early(ctx->argv, AT_FDCWD, config, err) < 0)
			goto out;
		brig_error_release(&bad_id);
	}
	if (load_config(&j, ctx, o, err) < 0)
		goto out;
	if (o->protect_exe && brig_selfexe_protect_for(ctx->argv, j.cfg->linux, err) < 0)
		goto out;
	if (load_container(&j, o, err) < 0)
		goto out;
	if (build_process(&j, o, err) < 0)
		goto out;
	brig_phase("plan");
	lx = j.cfg->linux;
	if (brig_console_check(j.proc.terminal, o->detach, o->console_socket, err) < 0 ||
	    brig_selinux_check(j.proc.selinux_label, err) < 0 ||
	    brig_apparmor_check(j.proc.apparmor_profile, err) < 0 ||
	    brig_process_prepare(&j.proc, NULL, &j.plan, err) < 0)
		goto out;
	if (lx && lx->seccomp) {
		if (brig_seccomp_prepare(lx->seccomp, j.c.st.rootfd, &j.seccomp, err) < 0)
			goto out;
	}
	brig_phase("seccomp");
	if (o->console_socket && *o->console_socket &&
	    (j.console = brig_console_connect(o->console_socket, err)) < 0)
		goto out;
	if (cgroup_fd(&j, o, err) < 0 || cgroup_open_tasks(&j, err) < 0)
		goto out;
	brig_phase("cgroup");
	brig_fault("exec.cgroup");
	/* unlocked before the clone: in a paused container (--ignore-paused)
	 * the child is frozen at birth with a copy of every fd, and resume
	 * must still get the lock */
	brig_entry_release(&j.c.e);
	/* the state may change under us from here on: no lock is held while
	 * the process runs (delete kills it with the rest of the cgroup) */
	brig_foreground_signals(!o->detach, false, &fwd, &j.saved_mask);
	if (spawn(&j, o, err) < 0)
		goto out;
	brig_phase("clone");
	brig_fault("exec.clone");
	/* the joiner, where it does not enter itself; the process it forks
	 * is born where it is */
	entered = j.no_cgroup ? 0 : brig_cgroup_enter(&j.cg, j.subcg, j.pid, err);
	brig_cgroup_close_tasks(&j.cg); /* the joiner's now */
	if (entered < 0 ||
	    (!j.shared && brig_sync_send(j.sock[0], BRIG_SYNC_MAPS_DONE, NULL, err) < 0) ||
	    receive_process(&j, err) < 0 || receive_master(&j, err) < 0 ||
	    seccomp_listener(&j, err) < 0 ||
	    brig_sync_expect(j.sock[0], BRIG_SYNC_READY, "exec process", err) < 0 ||
	    (o->pid_file && brig_write_pid_file(o->pid_file, j.pid, err) < 0)) {
		abort_spawn(&j);
		goto out;
	}
	brig_phase("process setup");
	brig_fault("exec.ready");
	if (o->detach) {
		r = 0;
		goto out;
	}
	r = brig_wait_foreground(j.pidfd, &fwd, j.master, status, err);
	brig_phase("the process");
out:
	job_release(&j);
	return r;
}
