/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lifecycle/handoff.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lifecycle/init.h"
#include "linux/process.h"
#include "linux/seccomp.h"
#include "spec/spec.h"
#include "lifecycle/sync.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/strbuf.h"

#define HANDOFF_MAGIC 0x6a6f6221u /* "job!" */
/* The payload's bound: a command line and environment as large as
 * execve takes, with room to spare. */
#define PAYLOAD_MAX (16u << 20)

enum { FD_STDIN, FD_STDOUT, FD_STDERR, FD_REPLY, FD_PAYLOAD, N_FDS };

struct handoff_msg {
	uint32_t magic;
	uint32_t n_args;
	uint32_t n_env;
	uint32_t has_cwd;
	uint64_t payload_len;
};

/* ------------------------------------------------------------ claimer */

static void add_strings(struct brig_strbuf *b, const char *const *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		brig_strbuf_add(b, s[i], strlen(s[i]) + 1);
}

int brig_handoff_send(int sock, const struct brig_handoff_job *job, const int stdio[3], int *reply,
                      struct brig_error *err)
{
	struct handoff_msg m = {
		.magic = HANDOFF_MAGIC,
		.n_args = (uint32_t)job->n_args,
		.n_env = (uint32_t)job->n_env,
		.has_cwd = job->cwd != NULL,
	};
	struct brig_strbuf b = BRIG_STRBUF_INIT;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(N_FDS * sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	_cleanup_close_ int payload = -1;
	int r[2] = { -1, -1 }, fds[N_FDS];
	ssize_t n;

	add_strings(&b, job->args, job->n_args);
	add_strings(&b, job->env, job->n_env);
	if (job->cwd)
		add_strings(&b, &job->cwd, 1);
	m.payload_len = b.len;
	payload = memfd_create("brig-job", MFD_CLOEXEC);
	if (payload < 0 || (b.len && brig_write_all(payload, b.buf, b.len) < 0)) {
		brig_strbuf_release(&b);
		return brig_error_setp(err, errno, "hand the job over: its command");
	}
	brig_strbuf_release(&b);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, r) < 0)
		return brig_error_setp(err, errno, "hand the job over: socketpair");
	memcpy(fds, stdio, 3 * sizeof(int));
	fds[FD_REPLY] = r[1];
	fds[FD_PAYLOAD] = payload;
	memset(&ctl, 0, sizeof(ctl));
	CMSG_FIRSTHDR(&msg)->cmsg_level = SOL_SOCKET;
	CMSG_FIRSTHDR(&msg)->cmsg_type = SCM_RIGHTS;
	CMSG_FIRSTHDR(&msg)->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(CMSG_FIRSTHDR(&msg)), fds, sizeof(fds));
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	close(r[1]);
	if (n != (ssize_t)sizeof(m)) {
		close(r[0]);
		return brig_error_setp(err, n < 0 ? errno : EPIPE, "hand the job over");
	}
	*reply = r[0];
	return 0;
}

int brig_handoff_outcome(int reply, int *wstatus, bool *alone, struct brig_error *err)
{
	char text[32], c;
	char *end;
	long v;

	/* nothing said (end-of-file): the init was killed before the job's
	 * end; an ERROR comes back as @err: the job could not be started */
	if (recv(reply, &c, 1, MSG_PEEK | MSG_DONTWAIT) <= 0)
		return 0;
	if (brig_sync_expect_text(reply, BRIG_SYNC_JOB_EXIT, "the job's init", text, sizeof(text),
	                          err) < 0)
		return -1;
	v = strtol(text, &end, 10);
	if (end == text || v < 0 || v > 0xffff || (strcmp(end, " alone") && *end))
		return brig_error_set(err, "the job's init: a bad JOB_EXIT \"%s\"", text);
	*wstatus = (int)v;
	*alone = *end != '\0';
	return 1;
}

/* ------------------------------------------------------------ the init */

/* The job as received: fds (-1 when missing) and the payload's strings. */
struct received {
	int fds[N_FDS];
	struct handoff_msg m;
	char *payload;
};

static int receive(int sock, struct received *r, struct brig_error *err)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(N_FDS * sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = &r->m, .iov_len = sizeof(r->m) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *c;
	ssize_t n;

	for (int i = 0; i < N_FDS; i++)
		r->fds[i] = -1;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return brig_error_setp(err, errno, "wait for the job");
	c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
		size_t got = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		memcpy(r->fds, CMSG_DATA(c), (got < N_FDS ? got : N_FDS) * sizeof(int));
		for (size_t i = N_FDS; i < got; i++)
			close(((int *)CMSG_DATA(c))[i]);
	}
	for (int i = 0; i < N_FDS; i++)
		if (r->fds[i] < 0)
			return brig_error_set(err, "the job came without its fds");
	if (n != sizeof(r->m) || r->m.magic != HANDOFF_MAGIC || (msg.msg_flags & MSG_CTRUNC))
		return brig_error_set(err, "the job came in a bad message");
	return 0;
}

/* The payload's n strings from *@p (up to @end), or -1: fewer than @n. */
static int take_strings(char **p, const char *end, uint32_t n, const char ***out)
{
	*out = brig_xcalloc((size_t)n + 1, sizeof(**out));
	for (uint32_t i = 0; i < n; i++) {
		char *nul = memchr(*p, '\0', (size_t)(end - *p));

		if (!nul)
			return -1;
		(*out)[i] = *p;
		*p = nul + 1;
	}
	return 0;
}

/*
 * The job's process: the config's, with the job's command, environment
 * (@base, the config's as the init would have exec'd with, then the
 * job's: a later name wins) and cwd.
 */
static int job_process(const struct brig_process *cfg, char **base, struct received *r,
                       struct brig_process *p, struct brig_error *err)
{
	const struct handoff_msg *m = &r->m;
	const char **args = NULL, **env = NULL, **cwd = NULL;
	size_t n_base = 0;
	struct stat st;
	char *cur, *end;

	if (fstat(r->fds[FD_PAYLOAD], &st) < 0 || (uint64_t)st.st_size != m->payload_len ||
	    m->payload_len > PAYLOAD_MAX)
		return brig_error_set(err, "the job's command: a bad payload");
	r->payload = brig_xmalloc(m->payload_len + 1);
	if (pread(r->fds[FD_PAYLOAD], r->payload, m->payload_len, 0) != (ssize_t)m->payload_len)
		return brig_error_setp(err, errno, "the job's command: read");
	cur = r->payload;
	end = r->payload + m->payload_len;
	if (take_strings(&cur, end, m->n_args, &args) < 0 ||
	    take_strings(&cur, end, m->n_env, &env) < 0 ||
	    take_strings(&cur, end, m->has_cwd ? 1 : 0, &cwd) < 0 || cur != end)
		return brig_error_set(err, "the job's command: a bad payload");
	*p = *cfg;
	if (m->n_args) {
		p->args = args;
		p->n_args = m->n_args;
	} else {
		free(args);
	}
	if (!p->n_args)
		return brig_error_set(err, "the job has no command");
	while (base[n_base])
		n_base++;
	p->env = brig_xcalloc(n_base + m->n_env + 1, sizeof(*p->env));
	memcpy(p->env, base, n_base * sizeof(*p->env));
	memcpy(p->env + n_base, env, m->n_env * sizeof(*p->env));
	p->n_env = n_base + m->n_env;
	free(env);
	if (m->has_cwd) {
		if (cwd[0][0] != '/')
			return brig_error_set(err, "the job's cwd \"%s\" is not absolute", cwd[0]);
		p->cwd = cwd[0];
	}
	free(cwd);
	return 0;
}

/*
 * The job's process, forked, when it must load its filter itself (a
 * profile of the user's, loaded last as a cold container's is): its
 * stdio, every other fd closed, the filter, execve.  It tells the init's
 * reader, on @reply, why it could not start.
 */
static __attribute__((noreturn)) void run_job(const struct brig_init_args *a,
                                              const struct brig_process *p, const char *path,
                                              char **env, const int *fds)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_error ignored = BRIG_ERROR_INIT;
	int reply;

	if (brig_fds_place_stdio(fds, &err) < 0)
		goto fail_early;
	reply = fcntl(fds[FD_REPLY], F_DUPFD_CLOEXEC, 3);
	if (reply < 0 || (reply != 3 && dup3(reply, 3, O_CLOEXEC) < 0)) {
		brig_error_setp(&err, errno, "the job's fds");
		goto fail_early;
	}
	close_range(4, ~0U, 0);
	sigprocmask(SIG_SETMASK, &a->saved_mask, NULL);
	if (brig_seccomp_load(a->seccomp, &err) < 0)
		goto fail;
	execve(path, (char *const *)p->args, env);
	brig_error_setp(&err, errno, "exec \"%s\"", p->args[0]);
fail:
	brig_sync_send(3, BRIG_SYNC_ERROR, err.msg, &ignored);
	_exit(err.errnum == ENOENT ? 127 : 126);
fail_early:
	brig_sync_send(fds[FD_REPLY], BRIG_SYNC_ERROR, err.msg, &ignored);
	_exit(126);
}

/*
 * The job's process, else: spawned (a vfork, cheaper than copying the
 * init), with its stdio, nothing else of the init's fds, the mask the
 * container's process starts with.  The init's filter, when it loaded
 * one, is the job's.
 */
static pid_t spawn_job(const struct brig_init_args *a, const struct brig_process *p,
                       const char *path, char **env, const int *fds, struct brig_error *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	pid_t pid = -1;
	int r;

	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	for (int i = 0; i < 3; i++)
		posix_spawn_file_actions_adddup2(&fa, fds[i], i);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawnattr_setsigmask(&attr, &a->saved_mask);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	r = posix_spawn(&pid, path, &fa, &attr, (char *const *)p->args, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (r != 0) {
		brig_error_setp(err, r, "exec \"%s\"", p->args[0]);
		return -1;
	}
	return pid;
}

/* Reap every child (the container's orphans come to its pid 1) until
 * @job has ended; its wait status, or -1 when the claimer went first.
 * *@alone: no other process is left then (none of the init's children is
 * alive, and every process of the container is one of its descendants). */
static int reap_until(pid_t job, int reply, int sigfd, bool *alone)
{
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = reply, .events = 0 },
			{ .fd = sigfd, .events = POLLIN },
		};
		struct signalfd_siginfo si;
		int status;
		pid_t w;

		while ((w = waitpid(-1, &status, WNOHANG)) > 0)
			if (w == job) {
				int other;

				while ((w = waitpid(-1, &other, WNOHANG)) > 0)
					;
				*alone = w < 0 && errno == ECHILD;
				return status;
			}
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return -1;
		if (p[0].revents & (POLLHUP | POLLERR))
			return -1;
		if (p[1].revents & POLLIN)
			(void)!read(sigfd, &si, sizeof(si));
	}
}

void brig_handoff_serve(const struct brig_init_args *a, bool filtered, char **env)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_error ignored = BRIG_ERROR_INIT;
	struct received r = { 0 };
	struct brig_process p;
	char *path, **envp, status[32];
	bool alone = false;
	sigset_t chld;
	int sigfd, st;
	pid_t job;

	/* before the claim, what no job changes.  The init outlives the
	 * change of credentials that made it the job's user, which may have
	 * made it dumpable again (fs.suid_dumpable): it is not, so that the
	 * job, under the same uid, can neither ptrace it nor open its fds.
	 * The container's process starts with every signal at its default
	 * action; SIGCHLD, the init's, comes through a signalfd */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		_exit(1);
	brig_reset_signals();
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	sigfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0)
		_exit(1);
	if (receive(a->handoff[0], &r, &err) < 0)
		goto fail;
	/* one job: nobody else ever sends on it */
	close(a->handoff[0]);
	close(a->handoff[1]);
	if (job_process(a->cfg->process, env, &r, &p, &err) < 0)
		goto fail;
	close(r.fds[FD_PAYLOAD]);
	/* as the container's process would, in its identity: its cwd (the
	 * config's was entered before READY), environment, PATH lookup */
	if (r.m.has_cwd && brig_enter_cwd(p.cwd, &err) < 0)
		goto fail;
	envp = brig_exec_env(&p, NULL);
	path = brig_exec_lookup(&p, &err);
	if (!path)
		goto fail;
	if (!filtered && brig_seccomp_when(a->seccomp, p.no_new_privileges) == BRIG_SECCOMP_LAST) {
		job = fork();
		if (job == 0)
			run_job(a, &p, path, envp, r.fds);
		if (job < 0)
			brig_error_setp(&err, errno, "fork the job");
	} else {
		job = spawn_job(a, &p, path, envp, r.fds, &err);
	}
	if (job < 0)
		goto fail;
	/* the job's stdio is the job's alone: its end is the pipes' end */
	for (int i = FD_STDIN; i <= FD_STDERR; i++)
		close(r.fds[i]);
	st = reap_until(job, r.fds[FD_REPLY], sigfd, &alone);
	if (st < 0)
		_exit(1); /* the claimer is gone: the container goes with the init */
	snprintf(status, sizeof(status), "%d%s", st, alone ? " alone" : "");
	brig_sync_send(r.fds[FD_REPLY], BRIG_SYNC_JOB_EXIT, status, &ignored);
	_exit(0);
fail:
	if (r.fds[FD_REPLY] >= 0)
		brig_sync_send(r.fds[FD_REPLY], BRIG_SYNC_ERROR, err.msg, &ignored);
	_exit(1);
}
