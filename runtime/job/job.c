/* SPDX-License-Identifier: Apache-2.0 */
/*
 * brig job (job.h): plan, build, run, watch, report, remove.
 *
 *   check the options       nothing exists yet: a bad one is one line, 125
 *   claim the job's root    <root>/jobs/<id> locked, an id range, the overlay
 *   write config.json       job/config.c, read back by the lifecycle
 *   create and start        run --detach, stdio on pipes, the init dies with brig
 *   watch                   the pipes (job/output.c), the deadline, SIGINT/SIGTERM
 *   report                  the cgroup's figures, the writable layer, --export
 *   remove                  delete --force, the mounts, the directory
 *
 * At the deadline or on a signal the init is SIGKILLed: it is the job's
 * pid 1, and the kernel kills everything else in its pid namespace with it.
 */
#include "config.h"
#include "job/job.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lifecycle/bundle.h"
#include "lifecycle/checkpoint.h"
#include "cgroup/cgroup.h"
#include "lifecycle/container.h"
#include "lifecycle/context.h"
#include "lifecycle/control.h"
#include "job/internal.h"
#include "job/output.h"
#include "lifecycle/handoff.h"
#include "lifecycle/sync.h"
#include "lifecycle/result.h"
#include "linux/caps.h"
#include "linux/selfexe.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/fs.h"
#include "util/id.h"
#include "util/jsonw.h"
#include "util/log.h"
#include "util/phases.h"
#include "util/strbuf.h"

/* After the init's end, how long the pipes may take to reach EOF (its
 * namespace's other processes are being killed) before brig stops
 * waiting for them. */
#define DRAIN_GRACE_MS 2000

struct job {
	const struct brig_context *ctx;
	const struct brig_job_opts *o;
	char *id;
	struct brig_bundle base;
	char *rootfs; /* the lower directory, absolute */
	struct brig_job_root root;
	int stdio[3];       /* the init's ends */
	int out_fd, err_fd; /* where the job's stdout and stderr go */
	bool own_out, own_err;
	struct brig_job_stream so, se;
	int pidfd;
	int result_fd; /* --result FILE, opened before the job runs */
	bool created;
	struct brig_result res;
	char *error;   /* res.error's storage */
	char *warning; /* res.warning's */
	/* a pool's: making a member (an init that waits for its job), or
	 * running in a claimed one (the job handed over to its init) */
	const char *pool;
	bool member, claimed;
	int handoff[2];               /* a member's hand-off socket (handoff.h) */
	struct brig_pool_claim claim; /* a claimed member (job/pool.c) */
	int reply;                    /* its init: how the job ended (handoff.h) */
	bool heard, alone;            /* what the init said, and whether it is alone */
	bool not_started;             /* it said the job could not be started */
	int mntns;                    /* its mount namespace, for the follower */
	int refill;                   /* the follower waits for it to close (job/pool.c) */
	const char *cgroup_parents;   /* a member's: its pool's (cgroup.h) */
	int keeper;                   /* a restored job's keeper (keep_restored) */
	uint64_t t0;                  /* when brig began the job: its deadline's start */
};

uint64_t brig_job_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* A job with nothing made yet: every fd -1. */
#define JOB_INIT(ctx_, o_)                            \
	((struct job){ .ctx = (ctx_),                 \
	               .o = (o_),                     \
	               .base = BRIG_BUNDLE_INIT,      \
	               .root = BRIG_JOB_ROOT_INIT,    \
	               .stdio = { -1, -1, -1 },       \
	               .out_fd = -1,                  \
	               .err_fd = -1,                  \
	               .so = { .in = -1 },            \
	               .se = { .in = -1 },            \
	               .pidfd = -1,                   \
	               .result_fd = -1,               \
	               .handoff = { -1, -1 },         \
	               .reply = -1,                   \
	               .claim = BRIG_POOL_CLAIM_INIT, \
	               .mntns = -1,                   \
	               .refill = -1,                  \
	               .keeper = -1 })

/* ---------------------------------------------------------- signals */

static int signal_pipe[2] = { -1, -1 };
static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	int e = errno;
	char c = (char)sig;

	got_signal = sig;
	(void)!write(signal_pipe[1], &c, 1);
	errno = e;
}

int brig_job_signalled(void)
{
	return got_signal;
}

/* Before the job runs: a signal ends brig, with what was made removed. */
static int stopped(struct brig_error *err)
{
	if (!got_signal)
		return 0;
	return brig_error_set(err, "brig got SIG%s: the job was not started",
	                      sigabbrev_np(got_signal));
}

/* SIGINT, SIGTERM, SIGHUP end the job as a timeout does; handled, not
 * blocked, so the init (which resets handlers to their defaults) starts
 * the job with an empty mask.  SIGPIPE: a reader of brig's output that
 * went away must not kill brig before it has cleaned up. */
static int catch_signals(struct brig_error *err)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

	if (signal_pipe[0] < 0 && pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return brig_error_setp(err, errno, "pipe");
	sigemptyset(&sa.sa_mask);
	for (const int *s = (const int[]){ SIGINT, SIGTERM, SIGHUP, 0 }; *s; s++)
		sigaction(*s, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* ---------------------------------------------------------- the plan */

static char *new_id(void)
{
	unsigned char b[8] = { 0 };
	char hex[17];

	if (getrandom(b, sizeof(b), 0) != sizeof(b)) {
		struct timespec t;

		clock_gettime(CLOCK_MONOTONIC, &t);
		memcpy(b, &t.tv_nsec,
		       sizeof(t.tv_nsec) < sizeof(b) ? sizeof(t.tv_nsec) : sizeof(b));
		b[0] ^= (unsigned char)getpid();
	}
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i]);
	return brig_xasprintf("job-%s", hex);
}

static int check_dir(const char *flag, const char *path, struct brig_error *err)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return brig_error_setp(err, errno, "%s \"%s\"", flag, path);
	if (!S_ISDIR(st.st_mode))
		return brig_error_set(err, "%s \"%s\": not a directory", flag, path);
	return 0;
}

static int check_abs(const char *flag, const char *path, struct brig_error *err)
{
	if (!path || path[0] != '/')
		return brig_error_usage(err, "%s \"%s\": the path in the job must be absolute",
		                        flag, path ? path : "");
	return 0;
}

/* Everything that can be checked before anything exists. */
static int check_opts(const struct brig_job_opts *o, bool member, struct brig_error *err)
{
	if (o->from_checkpoint) {
		if (!o->bundle)
			return brig_error_usage(err, "--from-checkpoint needs --bundle: the bundle "
			                             "of the container checkpointed");
		if (o->argc)
			return brig_error_usage(err, "--from-checkpoint: the job is the "
			                             "checkpointed process, it takes no command");
		if (check_dir("--from-checkpoint", o->from_checkpoint, err) < 0)
			return -1;
	}
	if (!o->rootfs == !o->bundle)
		return brig_error_usage(err, "one of --rootfs and --bundle is needed");
	if (!member && !o->bundle && !o->argc)
		return brig_error_usage(err, "no command: brig job [OPTIONS] -- CMD [ARG...]");
	if (o->rootfs && check_dir("--rootfs", o->rootfs, err) < 0)
		return -1;
	if (o->has_user && (o->uid >= BRIG_JOB_IDS || o->gid >= BRIG_JOB_IDS))
		return brig_error_usage(err, "--user %u:%u: the job's ids are 0 to %u", o->uid,
		                        o->gid, BRIG_JOB_IDS - 1);
	if (o->cwd && check_abs("--cwd", o->cwd, err) < 0)
		return -1;
	for (size_t i = 0; i < o->n_tmpfs; i++)
		if (check_abs("--tmpfs", o->tmpfs[i].path, err) < 0)
			return -1;
	for (size_t i = 0; i < o->n_binds; i++) {
		struct stat st;

		if (check_abs("--mount", o->binds[i].destination, err) < 0)
			return -1;
		if (stat(o->binds[i].source, &st) < 0)
			return brig_error_setp(err, errno, "--mount \"%s\"", o->binds[i].source);
	}
	for (size_t i = 0; i < o->n_copy_in; i++) {
		if (check_abs("--copy-in", o->copy_in[i].path, err) < 0)
			return -1;
		if (access(o->copy_in[i].host, R_OK) < 0)
			return brig_error_setp(err, errno, "--copy-in \"%s\"", o->copy_in[i].host);
	}
	for (size_t i = 0; i < o->n_keep_caps; i++) {
		_cleanup_free_ char *name = brig_job_cap_name(o->keep_caps[i]);

		if (brig_cap_from_name(name) < 0)
			return brig_error_usage(err, "--keep-caps \"%s\": unknown capability",
			                        o->keep_caps[i]);
	}
	for (size_t i = 0; i < o->n_env; i++)
		if (!strchr(o->env[i], '=') || o->env[i][0] == '=')
			return brig_error_usage(err, "--env \"%s\": expected KEY=VALUE", o->env[i]);
	return 0;
}

/* --bundle: its config (checked as create checks it) and its rootfs. */
static int load_base(struct job *j, struct brig_error *err)
{
	if (!j->o->bundle) {
		j->rootfs = realpath(j->o->rootfs, NULL);
		return j->rootfs ? 0 : brig_error_setp(err, errno, "--rootfs \"%s\"", j->o->rootfs);
	}
	if (brig_bundle_load(&j->base, j->o->bundle, err) < 0)
		return brig_error_wrap(err, "--bundle");
	j->rootfs = brig_bundle_rootfs(&j->base, err);
	return j->rootfs ? 0 : brig_error_wrap(err, "--bundle");
}

static int open_output(const char *flag, const char *path, int *fd, struct brig_error *err)
{
	*fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644);
	return *fd < 0 ? brig_error_setp(err, errno, "%s \"%s\"", flag, path) : 0;
}

/* The job's stdio: pipes for stdout and stderr (brig's ends non-blocking),
 * and its stdin; where brig copies the output. */
static int open_stdio(struct job *j, struct brig_error *err)
{
	const struct brig_job_opts *o = j->o;
	int out[2] = { -1, -1 }, errp[2] = { -1, -1 };
	const char *in = o->stdin_path ? o->stdin_path : "/dev/null";

	j->out_fd = o->result_path && !strcmp(o->result_path, "-") ? STDERR_FILENO : STDOUT_FILENO;
	j->err_fd = STDERR_FILENO;
	if (o->stdout_path && open_output("--stdout", o->stdout_path, &j->out_fd, err) < 0)
		return -1;
	j->own_out = o->stdout_path != NULL;
	if (o->stderr_path && open_output("--stderr", o->stderr_path, &j->err_fd, err) < 0)
		return -1;
	j->own_err = o->stderr_path != NULL;
	j->stdio[0] = strcmp(in, "-") ? open(in, O_RDONLY | O_CLOEXEC | O_NOCTTY)
	                              : fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
	if (j->stdio[0] < 0)
		return brig_error_setp(err, errno, "--stdin \"%s\"", in);
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		brig_error_setp(err, errno, "pipe");
		for (int i = 0; i < 2; i++)
			if (out[i] >= 0)
				close(out[i]);
		return -1;
	}
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(errp[0], F_SETFL, O_NONBLOCK);
	j->stdio[1] = out[1];
	j->stdio[2] = errp[1];
	brig_job_stream_init(&j->so, out[0], j->out_fd, o->output_limit);
	brig_job_stream_init(&j->se, errp[0], j->err_fd, o->output_limit);
	return 0;
}

static void close_init_stdio(struct job *j)
{
	for (int i = 0; i < 3; i++)
		if (j->stdio[i] >= 0)
			close(TAKE_FD(j->stdio[i]));
}

static int write_config(struct job *j, struct brig_error *err)
{
	struct brig_job_plan plan = {
		.member = j->member,
		.userns = j->root.userns,
		.o = j->o,
		.base = j->o->bundle ? j->base.config : NULL,
		.rootfs = j->root.merged,
		.host_id = j->root.host_id,
		.bind_id = j->root.bind_id,
	};
	_cleanup_free_ char *text = brig_job_config(&plan, err);

	if (!text)
		return -1;
	return brig_write_file_atomic(j->root.dirfd, "config.json", text, strlen(text), 0600, err);
}

/* Whether this kernel gives brig user namespaces: built with them, and
 * not switched off (user.max_user_namespaces = 0); asked once a process. */
static bool userns_available(void)
{
	static int ok = -1;
	_cleanup_free_ char *max = NULL;
	size_t len;
	struct brig_error ignored = BRIG_ERROR_INIT;

	if (ok >= 0)
		return ok;
	ok = access("/proc/self/ns/user", F_OK) == 0;
	if (ok && brig_read_file(AT_FDCWD, "/proc/sys/user/max_user_namespaces", 64, &max, &len,
	                         &ignored) == 0)
		ok = strtoul(max, NULL, 10) > 0;
	brig_error_release(&ignored);
	return ok;
}

/* A pool member's init waits with no stdio: the job's comes with the
 * exec that runs it. */
static int null_stdio(struct job *j, struct brig_error *err)
{
	for (int i = 0; i < 3; i++) {
		j->stdio[i] = open("/dev/null", O_RDWR | O_CLOEXEC | O_NOCTTY);
		if (j->stdio[i] < 0)
			return brig_error_setp(err, errno, "open /dev/null");
	}
	return 0;
}

/* The result's warning for a job without a user namespace of its own:
 * what it really has, the capabilities it keeps (a pool's member was made
 * with the same options, its claimer's @j->o). */
static void warn_no_userns(struct job *j)
{
	const struct brig_job_opts *o = j->o;
	struct brig_strbuf caps = BRIG_STRBUF_INIT;

	for (size_t i = 0; i < o->n_keep_caps; i++) {
		_cleanup_free_ char *c = brig_job_cap_name(o->keep_caps[i]);

		brig_strbuf_addf(&caps, "%s%s", i ? ", " : "", c);
	}
	free(j->warning);
	j->res.warning = j->warning = brig_xasprintf(
	    "%s: the job's root is the host's root, %s%s",
	    o->no_userns ? "no user namespace (--no-userns)" : "the host has no user namespaces",
	    caps.len ? "with " : "without capabilities", caps.len ? caps.buf : "");
	brig_strbuf_release(&caps);
}

/* Build everything up to the started job (or, for a pool's member, up to
 * its created container, whose init waits). */
static int start(struct job *j, struct brig_error *err)
{
	const struct brig_job_opts *o = j->o;
	const struct brig_process *bp;
	uint32_t uid, gid;
	struct brig_create_opts co = {
		.id = j->id,
		.run = !j->member,
		.detach = true,
		.stdio = j->stdio,
		.parent_death = !j->member,
		.pidfd = &j->pidfd,
		.cgroup_parents = j->cgroup_parents,
	};

	if (load_base(j, err) < 0)
		return -1;
	bp = o->bundle ? j->base.config->process : NULL;
	uid = o->has_user ? o->uid : bp ? bp->user.uid : 0;
	gid = o->has_user ? o->gid : bp ? bp->user.gid : 0;
	if (o->export_dir && brig_mkdir_p(o->export_dir, 0755, err) < 0)
		return brig_error_wrap(err, "--export");
	j->root.userns = !o->no_userns && userns_available();
	/* its binds get an id range of their own all the same (config.c) */
	j->root.bind_ids = !j->root.userns;
	if (!j->root.userns)
		warn_no_userns(j);
	if (brig_job_private_mounts(err) < 0)
		return -1;
	if ((j->member ? null_stdio(j, err) : open_stdio(j, err)) < 0)
		return -1;
	if (j->member) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, j->handoff) < 0)
			return brig_error_setp(err, errno, "socketpair");
		co.handoff = j->handoff;
		/* brig's own profile allows what the init does after the claim:
		 * it waits under it; another is loaded last, as a cold job's */
		co.handoff_filtered = !o->seccomp || !strcmp(o->seccomp, "default");
	}
	if (stopped(err) < 0 || brig_job_root_claim(&j->root, j->ctx->root, j->id, err) < 0)
		return -1;
	if (brig_job_root_mount(&j->root, j->rootfs, o->writable, err) < 0)
		return -1;
	if (write_config(j, err) < 0)
		return -1;
	for (size_t i = 0; i < o->n_copy_in; i++)
		if (stopped(err) < 0 || brig_job_copy_in(&j->root, o->copy_in[i].host,
		                                         o->copy_in[i].path, uid, gid, err) < 0)
			return brig_error_wrap(err, "--copy-in");
	if (stopped(err) < 0)
		return -1;
	co.bundle = j->root.dir;
	if (brig_container_create(j->ctx, &co, NULL, err) < 0)
		return -1;
	j->created = true;
	close_init_stdio(j);
	/* a signal during the create: the watch ends the job at once */
	return 0;
}

/*
 * A claimed member of a pool (job/pool.c has the claim): brig copies in
 * through its init's root and hands the job over to its init
 * (handoff.h), which runs it as the container's process.  brig enters
 * none of the member's namespaces.
 */
static int start_claimed(struct job *j, struct brig_error *err)
{
	const struct brig_job_opts *o = j->o;
	struct brig_handoff_job hj = {
		.args = (const char *const *)o->argv,
		.n_args = o->argc,
		.env = (const char *const *)o->env,
		.n_env = o->n_env,
		.cwd = o->cwd,
	};
	_cleanup_close_ int sock = -1;

	if (o->export_dir && brig_mkdir_p(o->export_dir, 0755, err) < 0)
		return brig_error_wrap(err, "--export");
	/* the member was made with these options: a hit warns as a cold job */
	if (o->no_userns || !userns_available())
		warn_no_userns(j);
	j->created = true;
	if (brig_pool_adopt(j->ctx, &j->claim, &j->root, &sock, &j->mntns, err) < 0)
		return -1;
	j->pidfd = TAKE_FD(j->claim.pidfd);
	if (open_stdio(j, err) < 0)
		return -1;
	for (size_t i = 0; i < o->n_copy_in; i++)
		if (brig_job_copy_in(&j->root, o->copy_in[i].host, o->copy_in[i].path,
		                     o->has_user ? o->uid : 0, o->has_user ? o->gid : 0, err) < 0)
			return brig_error_wrap(err, "--copy-in");
	if (brig_fault("job.handoff") < 0)
		return brig_error_setp(err, errno, "hand the job over");
	if (brig_handoff_send(sock, &hj, j->stdio, &j->reply, err) < 0)
		return -1;
	close_init_stdio(j);
	/* while the job runs: what follows it, in a brig of its own
	 * (job/pool.c), and what its figures need */
	j->refill = brig_pool_follow(j->ctx, j->pool, j->claim.id, j->claim.lock, j->mntns);
	if (j->mntns >= 0)
		close(TAKE_FD(j->mntns));
	{
		struct brig_error e = BRIG_ERROR_INIT;

		if (brig_pool_claim_state(j->ctx, &j->claim, &e) < 0)
			brig_debug("job %s: no state: %s", j->id, e.msg);
		brig_error_release(&e);
	}
	return 0;
}

/*
 * A restored job's keeper: a child of brig's in a session of its own,
 * deaf to the signals that end a job, holding nothing of the job's but
 * the read end of a pipe that only brig writes to: 'r' once the container
 * is restored (before, the id may be another's), 'k' once brig has removed
 * it.  An end of file after an 'r' means that brig died, and the keeper
 * removes the container.  (A cold job's init dies with brig by
 * PR_SET_PDEATHSIG; a restored init has what the image gives it, and
 * CRIU, not brig, is its maker.  A brig killed during the restore leaves
 * CRIU to end the tree, and the rest to gc.)
 */
static int keep_restored(struct job *j, struct brig_error *err)
{
	int p[2];
	pid_t child;

	if (pipe2(p, O_CLOEXEC) < 0)
		return brig_error_setp(err, errno, "pipe");
	child = fork();
	if (child < 0) {
		close(p[0]);
		close(p[1]);
		return brig_error_setp(err, errno, "fork the keeper");
	}
	if (child == 0) {
		struct brig_error e = BRIG_ERROR_INIT;
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		char c, last = 0;
		ssize_t n;

		setsid();
		for (const int *sig = (const int[]){ SIGINT, SIGTERM, SIGHUP, SIGPIPE, 0 }; *sig;
		     sig++)
			signal(*sig, SIG_IGN);
		if (null >= 0)
			for (int fd = 0; fd < 3; fd++)
				dup2(null, fd);
		if (dup2(p[0], 3) != 3)
			_exit(1);
		/* nothing else of brig's: not the job's pipes, not the lock of
		 * its directory (gc must see it free once brig is gone) */
		close_range(4, ~0U, 0);
		while ((n = read(3, &c, 1)) != 0)
			if (n == 1)
				last = c;
			else if (errno != EINTR)
				break;
		if (last == 'r')
			if (brig_container_delete(j->ctx, j->id, true, &e) < 0)
				brig_debug("job %s: keeper: %s", j->id, e.msg);
		_exit(0);
	}
	close(p[0]);
	j->keeper = p[1];
	return 0;
}

/*
 * A job restored from a checkpoint image (brig checkpoint) of a container
 * of --bundle: the image's process tree, in a container of its own (the
 * job's id and cgroup) whose root is the job's overlay over the bundle's
 * rootfs, its stdio pipes the job's.  It is as confined as the container
 * that was checkpointed: the image has its namespaces, user mapping,
 * capabilities and seccomp filter.
 */
static int start_restored(struct job *j, struct brig_error *err)
{
	const struct brig_job_opts *o = j->o;
	struct brig_restore_opts ro = {
		.id = j->id,
		.bundle = o->bundle,
		.f = { .image_path = o->from_checkpoint, .manage_cgroups_mode = -1 },
		.detach = true,
		.stdio = j->stdio,
		.own_cgroup = true,
		.pidfd = &j->pidfd,
	};
	const struct brig_namespace *pidns;

	if (load_base(j, err) < 0)
		return -1;
	pidns = brig_config_namespace(j->base.config->linux, BRIG_NS_PID);
	if (!pidns || pidns->path)
		return brig_error_set(err, "--from-checkpoint: the bundle's config.json needs a "
		                           "pid namespace of its own (linux.namespaces): the job's "
		                           "processes end with its pid 1");
	if (o->export_dir && brig_mkdir_p(o->export_dir, 0755, err) < 0)
		return brig_error_wrap(err, "--export");
	j->root.userns = false; /* the image has the container's user mapping */
	/* the keeper first, in the caller's mount namespace: it holds none
	 * of the job's mounts */
	if (keep_restored(j, err) < 0)
		return -1;
	if (brig_job_private_mounts(err) < 0 || open_stdio(j, err) < 0)
		return -1;
	if (brig_job_root_claim(&j->root, j->ctx->root, j->id, err) < 0 ||
	    brig_job_root_mount(&j->root, j->rootfs, o->writable, err) < 0)
		return -1;
	ro.rootfs = j->root.merged;
	j->created = true;
	if (brig_container_restore(j->ctx, &ro, NULL, err) < 0) {
		j->created = false;
		return -1;
	}
	(void)!write(j->keeper, "r", 1);
	close_init_stdio(j);
	return 0;
}

/* ---------------------------------------------------------- the watch */

/* Every process of the job at once: its pid 1 (in a claimed member, the
 * init that runs the job) takes the rest of its pid namespace with it. */
static void kill_job(struct job *j)
{
	pidfd_send_signal(j->pidfd, SIGKILL, NULL, 0);
}

/* What a claimed member's init said (handoff.h), once @j->reply is
 * readable or the init gone: how the job ended; nothing said: it was
 * killed, which the deadline or a signal already says, or it died. */
static void claimed_outcome(struct job *j)
{
	struct brig_error e = BRIG_ERROR_INIT;
	int status;

	j->heard = true;
	switch (brig_handoff_outcome(j->reply, &status, &j->alone, &e)) {
	case 1:
		if (WIFEXITED(status)) {
			j->res.exited = true;
			j->res.exit_code = WEXITSTATUS(status);
		} else {
			j->res.signaled = true;
			j->res.signal = WTERMSIG(status);
		}
		break;
	case 0:
		if (!j->res.timed_out && !j->res.interrupted) {
			j->res.signaled = true;
			j->res.signal = SIGKILL;
		}
		break;
	default:
		free(j->error);
		j->error = brig_xstrdup(e.msg);
		j->not_started = true;
		break;
	}
	brig_error_release(&e);
}

static void reap(struct job *j)
{
	siginfo_t si = { 0 };

	if (j->claimed) {
		if (!j->heard)
			claimed_outcome(j);
		return;
	}
	if (waitid(P_PIDFD, (id_t)j->pidfd, &si, WEXITED) < 0)
		return;
	if (si.si_code == CLD_EXITED) {
		j->res.exited = true;
		j->res.exit_code = si.si_status;
	} else {
		j->res.signaled = true;
		j->res.signal = si.si_status;
	}
}

/* Until the init has ended and its pipes are at EOF (or the grace after
 * its end is over): copy the output, enforce the deadline, end the job on
 * a signal.  A claimed member's job has ended when its init says so and
 * that nothing else of it is left, or when its init is gone. */
static void watch(struct job *j, uint64_t t0)
{
	uint64_t deadline = j->o->timeout_ms ? t0 + j->o->timeout_ms : 0, ended_at = 0;
	bool ended = false, killed = false;

	for (;;) {
		struct pollfd p[7] = {
			{ .fd = ended ? -1 : j->pidfd, .events = POLLIN },
			{ .fd = signal_pipe[0], .events = POLLIN },
			{ .fd = j->so.in, .events = brig_job_stream_in_events(&j->so) },
			{ .fd = j->se.in, .events = brig_job_stream_in_events(&j->se) },
			{ .fd = j->so.out, .events = brig_job_stream_out_events(&j->so) },
			{ .fd = j->se.out, .events = brig_job_stream_out_events(&j->se) },
			{ .fd = ended || !j->claimed || j->heard ? -1 : j->reply,
			  .events = POLLIN },
		};
		uint64_t now = brig_job_now_ms(), until = 0;
		int wait = -1;

		if (ended && ((j->so.in < 0 && j->se.in < 0) || now >= ended_at + DRAIN_GRACE_MS))
			break;
		if (!ended && !killed && deadline && now >= deadline) {
			j->res.timed_out = true;
			killed = true;
			kill_job(j);
		}
		if (!ended && !killed && deadline)
			until = deadline;
		if (ended)
			until = ended_at + DRAIN_GRACE_MS;
		if (until)
			wait = (int)(until - now);
		for (int i = 4; i < 6; i++)
			if (!p[i].events)
				p[i].fd = -1;
		if (poll(p, 7, wait) < 0 && errno != EINTR)
			break;
		if (p[1].revents & POLLIN) {
			char c;

			while (read(signal_pipe[0], &c, 1) == 1)
				;
			if (!ended && !killed) {
				j->res.interrupted = got_signal;
				free(j->error);
				j->error = brig_xasprintf("brig got SIG%s: the job was killed",
				                          sigabbrev_np(got_signal));
				killed = true;
				kill_job(j);
			}
		}
		if (p[2].revents)
			brig_job_stream_read(&j->so, NULL);
		if (p[3].revents)
			brig_job_stream_read(&j->se, NULL);
		if (p[4].revents)
			brig_job_stream_write(&j->so);
		if (p[5].revents)
			brig_job_stream_write(&j->se);
		if (p[6].revents)
			claimed_outcome(j);
		if (!ended && ((p[0].revents & POLLIN) || (j->heard && j->alone))) {
			reap(j);
			ended = true;
			ended_at = brig_job_now_ms();
			j->res.wall_ms = ended_at - t0;
		}
	}
	brig_job_stream_finish(&j->so);
	brig_job_stream_finish(&j->se);
}

/* ---------------------------------------------------------- the result */

static int exit_status(const struct brig_result *r)
{
	if (r->interrupted)
		return 128 + r->interrupted;
	if (r->timed_out)
		return 124;
	if (r->signaled)
		return 128 + r->signal;
	return r->exit_code;
}

static void write_result(struct job *j, struct brig_error *err)
{
	_cleanup_free_ char *text = NULL;
	int fd;

	if (!j->o->result_path)
		return;
	j->res.id = j->id;
	j->res.error = j->error;
	j->res.has_streams = true;
	j->res.stdout_bytes = j->so.total;
	j->res.stderr_bytes = j->se.total;
	j->res.stdout_dropped = j->so.dropped;
	j->res.stderr_dropped = j->se.dropped;
	j->res.has_writable = true;
	text = brig_result_json(&j->res);
	fd = strcmp(j->o->result_path, "-") ? j->result_fd : STDOUT_FILENO;
	if (fd < 0)
		return; /* it could not be opened: brig said so */
	if (brig_write_all(fd, text, strlen(text)) < 0)
		brig_error_setp(err, errno, "--result \"%s\"", j->o->result_path);
}

/* After the job: its figures, its files, then nothing left of it. */
static int finish(struct job *j, struct brig_error *err)
{
	struct brig_error e = BRIG_ERROR_INIT;
	struct brig_cgroup cg = BRIG_CGROUP_INIT;
	int r = 0;

	/* a claimed member's cgroup: as its state, read while the job ran, says */
	if (j->claimed && j->claim.s ? brig_cgroup_from_state(j->claim.s, &cg, &e) < 0
	                             : brig_container_usage(j->ctx, j->id, &j->res.usage, &e) < 0)
		brig_debug("job %s: no figures: %s", j->id, e.msg);
	else if (j->claimed && j->claim.s)
		brig_cgroup_usage(&cg, &j->res.usage);
	brig_cgroup_release(&cg);
	brig_error_release(&e);
	j->res.oom_killed = j->res.usage.oom_kills > 0;
	j->res.writable_used = brig_job_writable_used(&j->root);
	brig_phase("figures");
	/* bounded by --export-limit, the job's deadline and a grace, brig's
	 * signals (brig-job(8)) */
	if (j->o->export_dir) {
		const struct brig_job_copy_bounds b = {
			.limit = j->o->export_limit,
			.deadline_ms = j->o->timeout_ms
			                   ? j->t0 + j->o->timeout_ms + BRIG_JOB_EXPORT_GRACE_MS
			                   : 0,
			.uid = (uid_t)-1,
			.gid = (gid_t)-1,
		};

		if (brig_job_export(&j->root, j->o->export_dir, &b, err) < 0)
			r = -1;
	}
	/* a claimed member's container is its follower's to remove (job/pool.c),
	 * once brig has gone */
	if (j->claimed)
		return r;
	if (brig_container_delete(j->ctx, j->id, true, r < 0 ? &e : err) < 0)
		r = -1;
	brig_error_release(&e);
	j->created = false;
	return r;
}

static void job_release(struct job *j)
{
	struct brig_error ignored = BRIG_ERROR_INIT;

	if (j->created)
		kill_job(j);
	/* a claim that failed before its follower was started: one now, to
	 * remove the member at once and replace it */
	if (j->claimed && j->refill < 0)
		j->refill = brig_pool_follow(j->ctx, j->pool, j->claim.id, j->claim.lock, -1);
	if (j->created && !j->claimed)
		brig_container_delete(j->ctx, j->id, true, &ignored);
	if (j->claimed)
		brig_job_root_forget(&j->root);
	brig_job_root_release(&j->root);
	close_init_stdio(j);
	brig_job_stream_release(&j->so);
	brig_job_stream_release(&j->se);
	if (j->own_out)
		close(j->out_fd);
	if (j->own_err)
		close(j->err_fd);
	if (j->pidfd >= 0)
		close(j->pidfd);
	for (int i = 0; i < 2; i++)
		if (j->handoff[i] >= 0)
			close(j->handoff[i]);
	if (j->reply >= 0)
		close(j->reply);
	if (j->result_fd >= 0)
		close(j->result_fd);
	brig_pool_claim_release(&j->claim);
	if (j->mntns >= 0)
		close(j->mntns);
	if (j->refill >= 0)
		close(j->refill);
	if (j->keeper >= 0) {
		/* the container is gone, or brig could not remove it: the
		 * keeper may leave it (gc removes what is left) */
		(void)!write(j->keeper, "k", 1);
		close(j->keeper);
	}
	brig_bundle_release(&j->base);
	brig_error_release(&ignored);
	free(j->rootfs);
	free(j->error);
	free(j->warning);
	free(j->id);
}

/*
 * A pool's member (job/pool.c): made by a child, which builds the job's
 * mounts in a mount namespace of its own and creates the container, whose
 * init waits and keeps the upper directory's fd; the child tells brig the
 * fd's number and exits, and brig makes the member ready.
 */
static __attribute__((noreturn)) void member_child(const struct brig_context *ctx,
                                                   const struct brig_job_opts *o, const char *pool,
                                                   const char *parents, char *id, int sock)
{
	struct job j = JOB_INIT(ctx, o);
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_pool_member m;
	char entry[64];

	j.id = id;
	j.member = true;
	j.pool = pool;
	j.cgroup_parents = parents;
	if (start(&j, &err) < 0) {
		brig_sync_send(sock, BRIG_SYNC_ERROR, err.msg, &err);
		j.id = NULL; /* the caller's */
		job_release(&j);
		_exit(1);
	}
	/* the init, cloned with them open, keeps the upper directory's fd
	 * and both ends of its hand-off socket; what they are is recorded
	 * where only brig writes, for the claims to check (job/pool.c) */
	m = (struct brig_pool_member){ .upper_fd = j.root.upperfd,
		                       .handoff_fd = j.handoff[1],
		                       .host_id = j.root.host_id };
	if (brig_job_member_record(j.root.dirfd, &m, j.root.upperfd, &err) < 0) {
		struct brig_error ignored = BRIG_ERROR_INIT;

		brig_container_delete(ctx, id, true, &ignored);
		brig_sync_send(sock, BRIG_SYNC_ERROR, err.msg, &err);
		_exit(1);
	}
	snprintf(entry, sizeof(entry), "%d %d %u\n", j.root.upperfd, j.handoff[1], j.root.host_id);
	brig_sync_send(sock, BRIG_SYNC_READY, entry, &err);
	_exit(0); /* the container stays, with its mounts: it is the member */
}

int brig_job_member_create(const struct brig_context *ctx, const struct brig_job_opts *o,
                           const char *pool, const char *parents, struct brig_error *err)
{
	_cleanup_free_ char *id = NULL;
	char entry[64] = "";
	struct brig_pool_member m;
	int lock = -1, sock[2], r;
	pid_t child;

	if (check_opts(o, true, err) < 0)
		return -1;
	if (brig_pool_member_begin(ctx->root, pool, &id, &lock, err) < 0)
		return -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) < 0) {
		brig_error_setp(err, errno, "socketpair");
		goto fail;
	}
	child = fork();
	if (child == 0) {
		/* the member's init, cloned by this child, keeps what it holds:
		 * nothing of brig's but the socket (not the creating/ entry's
		 * lock, which claimers take once it is ready/, nor the pool's
		 * fill lock) */
		if (dup2(sock[1], 3) != 3)
			_exit(1);
		close_range(4, ~0U, 0);
		member_child(ctx, o, pool, parents, id, 3);
	}
	close(sock[1]);
	r = child < 0 ? brig_error_setp(err, errno, "fork")
	              : brig_sync_expect_text(sock[0], BRIG_SYNC_READY, "pool member", entry,
	                                      sizeof(entry), err);
	close(sock[0]);
	if (child > 0)
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
	if (r < 0)
		goto fail;
	if (!brig_pool_member_parse(entry, &m))
		r = brig_error_set(err, "pool member: a bad READY \"%s\"", entry);
	if (r < 0 || brig_pool_member_ready(ctx->root, pool, id, &m, err) < 0) {
		struct brig_error ignored = BRIG_ERROR_INIT;

		brig_container_delete(ctx, id, true, &ignored);
		brig_error_release(&ignored);
		if (r == 0)
			brig_job_ids_release(m.host_id);
		goto fail;
	}
	close(lock); /* the entry is ready/<id> now: unlocked, for claimers */
	return 0;
fail:
	brig_pool_member_abort(ctx->root, pool, id, lock);
	return -1;
}

/* gc: a dead brig's container, if it got that far */
static void reap_dead(const char *id, void *data)
{
	struct brig_error ignored = BRIG_ERROR_INIT;

	if (brig_container_delete(data, id, true, &ignored) < 0)
		brig_debug("job gc: %s: %s", id, ignored.msg);
	brig_error_release(&ignored);
}

int brig_job_gc(const struct brig_context *ctx, struct brig_error *err)
{
	return brig_job_root_gc(ctx->root, reap_dead, (void *)ctx, err);
}

int brig_job_protect_exe(const struct brig_context *ctx, const struct brig_job_opts *o,
                         struct brig_error *err)
{
	struct brig_id_mapping all;

	if (o->no_userns || !userns_available())
		return brig_selfexe_protect_ids(ctx->argv, NULL, 0, NULL, 0, err);
	brig_job_id_span(&all);
	return brig_selfexe_protect_ids(ctx->argv, &all, 1, &all, 1, err);
}

int brig_job_run(const struct brig_context *ctx, const struct brig_job_opts *o, int *status,
                 struct brig_error *err)
{
	struct job j = JOB_INIT(ctx, o);
	struct brig_error ignored = BRIG_ERROR_INIT;
	uint64_t t0;
	int r = -1;

	if (check_opts(o, false, err) < 0)
		return -1;
	if (o->id && brig_id_validate(o->id, err) < 0)
		return brig_error_wrap(err, "--id");
	/* a restored job's processes are CRIU's making: none comes from
	 * brig's binary (as with restore) */
	if (!o->pool && !o->from_checkpoint && brig_job_protect_exe(ctx, o, err) < 0)
		return -1;
	j.id = o->id ? brig_xstrdup(o->id) : new_id();
	if (o->result_path && strcmp(o->result_path, "-") &&
	    open_output("--result", o->result_path, &j.result_fd, err) < 0) {
		free(j.id);
		return -1;
	}
	if (catch_signals(err) < 0)
		goto out;
	/* a job's fds are its stdio: none of brig's caller's go in */
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_PID");
	if (o->pool) {
		int hit;

		hit = brig_pool_claim(ctx, o->pool, &j.claim, err);
		brig_phase("claim");

		if (hit < 0)
			goto out;
		/* a cold start makes the container's processes (a claim makes
		 * none) */
		if (!hit && brig_job_protect_exe(ctx, o, err) < 0)
			goto out;
		j.pool = o->pool;
		j.claimed = hit;
		j.res.pool = hit ? "hit" : "miss";
		/* the member's id is the job's */
		if (hit) {
			free(j.id);
			j.id = brig_xstrdup(j.claim.id);
		}
		/* a replacement, in the background (a claim's follower, which
		 * ends its member too, once the job is handed over) */
		if (!hit)
			j.refill = brig_pool_follow(ctx, o->pool, NULL, -1, -1);
	}
	/* what dead brigs left, before this job adds its own */
	if (!j.claimed && brig_job_gc(ctx, &ignored) < 0)
		brig_debug("job gc: %s", ignored.msg);
	t0 = brig_job_now_ms();
	j.t0 = t0;
	if ((j.claimed            ? start_claimed(&j, err)
	     : o->from_checkpoint ? start_restored(&j, err)
	                          : start(&j, err)) < 0) {
		j.error = brig_xstrdup(err->msg);
		goto out;
	}
	brig_phase("job start");
	watch(&j, t0);
	brig_phase("job run");
	if (finish(&j, err) < 0) {
		free(j.error);
		j.error = brig_xstrdup(err->msg);
		goto out;
	}
	/* as a cold job whose process could not be started */
	if (j.not_started) {
		brig_error_set(err, "%s", j.error);
		goto out;
	}
	*status = exit_status(&j.res);
	r = 0;
out:
	/* the result last but for the directory: it says what is left */
	write_result(&j, r < 0 ? &ignored : err);
	if (r == 0 && err->msg)
		r = -1;
	job_release(&j);
	brig_error_release(&ignored);
	return r;
}
