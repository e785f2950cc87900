/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lifecycle/container.h"

#include <ctype.h>
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
#include "linux/mounts.h"
#include "linux/namespaces.h"
#include "linux/process.h"
#include "linux/rootfs.h"
#include "linux/seccomp.h"
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
#define KILL_WAIT_MS 10000

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

void brig_foreground_signals(bool foreground, bool subreaper, sigset_t *fwd, sigset_t *saved)
{
	brig_forwarded_signals(fwd);
	if (!foreground) {
		sigprocmask(SIG_BLOCK, NULL, saved);
		return;
	}
	if (subreaper)
		prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	sigprocmask(SIG_BLOCK, fwd, saved);
	/* an ignored signal never reaches the signalfd: a `brig run &` of a
	 * script ignores SIGINT, and runc forwards it anyway */
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(fwd, sig))
			signal(sig, SIG_DFL);
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

/* The run.brig.job.* annotations' watcher (watch.h), once it runs. */
static int start_watch(const struct brig_context *ctx, const struct brig_state *s, int pidfd,
                       struct brig_error *err)
{
	if (!brig_watch_wanted(s->annotations, s->n_annotations))
		return 0;
	return brig_watch_spawn(ctx->root, s->id, s->annotations, s->n_annotations, pidfd, s->pid,
	                        err);
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
	bool pidfd_wanted;
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
	if (watch < 0 && errno == ENOENT) {
		/* a warm pool's member (handoff.h): a job claims it */
		brig_error_set(err, "container \"%s\" waits for a job: brig job --pool claims it",
		               id);
		goto out;
	}
	/* the init's pidfd before it may run: a process that ends at once
	 * may be reaped by its parent (an engine) before start is done */
	pidfd_wanted = brig_hooks_has(&s->hooks, BRIG_HOOK_POSTSTART) ||
	               brig_watch_wanted(s->annotations, s->n_annotations);
	if (watch < 0 || (pidfd_wanted && (pidfd = brig_open_init(s)) < 0)) {
		brig_error_setp(err, errno, "start container \"%s\"", id);
		goto out;
	}
	fifo = openat(c.e.dirfd, EXEC_FIFO, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fifo < 0 || write(fifo, "0", 1) != 1) {
		brig_error_setp(err, errno == ENXIO ? ESRCH : errno, "start container \"%s\"", id);
		goto out;
	}
	close(TAKE_FD(fifo));
	brig_fault("start.fifo");
	unlinkat(c.e.dirfd, EXEC_FIFO, 0);
	s->status = BRIG_STATUS_RUNNING;
	r = brig_entry_save(&c.e, s, err);
	brig_phase("release and state");
	if (r == 0) {
		/* hooks may ask brig about the container: unlocked */
		brig_entry_release(&c.e);
		r = start_wait(s, watch, err);
		brig_phase("execve");
		brig_fault("start.execve");
		if (r == 0 && brig_hooks_has(&s->hooks, BRIG_HOOK_POSTSTART))
			r = start_poststart(ctx, s, pidfd, err);
		if (r == 0)
			r = start_watch(ctx, s, pidfd, err);
	}
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

/* What a create that never saved its state recorded it was making
 * (state.h): its cgroups, and the processes in them, go. */
static int remove_recorded(struct brig_entry *e, struct brig_error *err)
{
	_cleanup_free_ char *text = brig_entry_recorded(e);
	struct brig_cgroup cg = BRIG_CGROUP_INIT;
	int r = 0;

	if (text && brig_cgroup_from_record(text, &cg, err) == 0)
		r = brig_cgroup_destroy(&cg, err);
	else if (text)
		r = -1;
	brig_cgroup_release(&cg);
	return r;
}

/*
 * linux.netDevices back to brig's network namespace (netdevs.h), before
 * the container's processes are killed: a device that cannot go back
 * keeps the container, but for --force, which warns and goes on.
 */
static int netdevs_back(struct brig_entry *e, const struct brig_state *s, bool force,
                        struct brig_error *err)
{
	_cleanup_close_ int pidfd = s ? brig_open_init(s) : -1;

	if (brig_netdevs_return(e->dirfd, pidfd, s ? s->pid : 0, err) == 0)
		return 0;
	if (!force)
		return -1;
	brig_warn("container \"%s\": %s", e->id, err->msg);
	brig_error_release(err);
	brig_netdevs_forget(e->dirfd);
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
	 * is removed here, with what the create recorded it was making, and
	 * with --force a missing container is no error (runc's behaviour,
	 * which engines rely on).  So is, with --force, a state that cannot
	 * be read (cut short by a crash). */
	if (brig_container_ref_open(&c, ctx->root, id, BRIG_LOCK_EXCLUSIVE_ANY, err) < 0) {
		if (c.e.dirfd < 0) { /* not found */
			if (force && err->errnum == ENOENT) {
				brig_error_release(err);
				r = 0;
			}
			goto out;
		}
		if (err->errnum != ENOENT && !force)
			goto out;
		if (err->errnum != ENOENT)
			brig_warn("container \"%s\": %s: removed with what it recorded", id,
			          err->msg);
		brig_error_release(err);
		r = netdevs_back(&c.e, NULL, force, err);
		if (r == 0)
			r = remove_recorded(&c.e, err);
		if (r == 0)
			r = brig_entry_remove(&c.e, err);
		if (r == 0 && !force)
			r = brig_error_set(err, "container \"%s\" does not exist", id);
		goto out;
	}
	s = c.s;
	if (brig_cgroup_from_state(s, &cg, err) < 0)
		goto out;
	status = brig_state_status(s);
	brig_phase("delete: state read");
	brig_fault("delete.state-read");
	if ((status == BRIG_STATUS_STOPPED || status == BRIG_STATUS_CREATED || force) &&
	    netdevs_back(&c.e, s, force, err) < 0)
		goto out;
	if (status != BRIG_STATUS_STOPPED) {
		_cleanup_close_ int pidfd = -1;
		int killed;

		/* a created container is deleted as runc does: killed, no --force */
		if (status != BRIG_STATUS_CREATED && !force) {
			brig_error_set(err,
			               "cannot delete container \"%s\" that is not stopped: %s", id,
			               brig_status_name(status));
			goto out;
		}
		pidfd = brig_open_init(s);
		/* the whole cgroup first, frozen or paused, as kill --all KILL
		 * ends it (cgroup.h); then the init, whose cgroup may not be
		 * brig's: a frozen v1 task dies only once thawed */
		killed = brig_cgroup_signal(&cg, SIGKILL, err);
		if (killed < 0)
			goto out;
		if (killed > 0 && pidfd >= 0 && brig_cgroup_frozen(&cg)) {
			pidfd_send_signal(pidfd, SIGKILL, NULL, 0);
			if (brig_cgroup_freeze(&cg, false, err) < 0)
				goto out;
		}
		if (pidfd >= 0 && kill_and_wait(pidfd, err) < 0)
			goto out;
		brig_phase("delete: kill");
		brig_fault("delete.killed");
	}
	/* whatever else is left in its cgroup goes with it, and the cgroup;
	 * a rootfs bound in the caller's mount namespace is unmounted */
	if (brig_cgroup_destroy(&cg, err) < 0 ||
	    (s->mntns && brig_rootfs_release(s->rootfs, s->mntns, s->rootfs_below, err) < 0))
		goto out;
	brig_phase("delete: cgroup");
	brig_fault("delete.cgroup");
	r = brig_entry_remove(&c.e, err);
	brig_phase("delete: state dir");
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
		/* bounded before the sum: RTMAX+<huge> must not overflow */
		if ((s[5] != '+' && s[5] != '-') || end == s + 6 || *end || n < 0 ||
		    n > SIGRTMAX - SIGRTMIN)
			return -1;
		n = s[5] == '+' ? base + n : base - n;
		return (n < SIGRTMIN || n > SIGRTMAX) ? -1 : (int)n;
	}
	return -1;
}
