/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Spawning a hook.  posix_spawn (glibc: clone(CLONE_VM|CLONE_VFORK), no copy
 * of the page tables) with the file actions and signal attributes below;
 * then one poll loop over a pidfd of the hook, the write end of its stdin
 * and the read ends of its stdout and stderr, bounded by its timeout.  The
 * loop ends when the hook exits, not at the end of its output: a hook that
 * leaves a daemon behind holding the pipes does not hang brig.
 */
#include "config.h"
#include "hooks/hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/error.h"
#include "util/log.h"
#include "util/strbuf.h"

/* Reads of what a hook's pipes still hold once it has exited: a child it
 * left behind may go on writing, and brig does not wait for it. */
#define FINAL_READS 16

/* The last BRIG_HOOK_OUTPUT_MAX bytes of one output stream of a hook. */
struct tail {
	char buf[BRIG_HOOK_OUTPUT_MAX];
	size_t len;
	bool cut; /* older bytes were dropped */
};

struct hook_run {
	int pidfd;
	int in;  /* the write end of the hook's stdin, -1 once all is written */
	int out; /* the read ends of its stdout and stderr, -1 at end-of-file */
	int err;
	pid_t pid;
	const char *data; /* the state, still to be written from @off */
	size_t len, off;
	struct tail tail_out, tail_err;
};

static void tail_add(struct tail *t, const char *data, size_t n)
{
	if (n >= sizeof(t->buf)) {
		t->cut = t->cut || t->len > 0 || n > sizeof(t->buf);
		memcpy(t->buf, data + n - sizeof(t->buf), sizeof(t->buf));
		t->len = sizeof(t->buf);
		return;
	}
	if (t->len + n > sizeof(t->buf)) {
		size_t drop = t->len + n - sizeof(t->buf);

		memmove(t->buf, t->buf + drop, t->len - drop);
		t->len -= drop;
		t->cut = true;
	}
	memcpy(t->buf + t->len, data, n);
	t->len += n;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* One read from a non-blocking pipe; end-of-file or an error closes it.
 * Returns whether there may be more to read now. */
static bool read_some(int *fd, struct tail *t)
{
	char chunk[4096];
	ssize_t n;

	if (*fd < 0)
		return false;
	do
		n = read(*fd, chunk, sizeof(chunk));
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		tail_add(t, chunk, (size_t)n);
		return true;
	}
	if (n == 0 || errno != EAGAIN)
		close_fd(fd);
	return false;
}

/*
 * write(2) into a pipe whose reader may be gone, without dying of SIGPIPE
 * and without leaving one pending: SIGPIPE for a pipe write goes to the
 * writing thread, is held while blocked and taken back here, unless one
 * was already pending (someone else's, left alone).
 */
static ssize_t write_nosigpipe(int fd, const char *buf, size_t len)
{
	static const struct timespec zero;
	sigset_t pipe_set, old, pending;
	bool was_pending;
	ssize_t n;
	int saved;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	n = write(fd, buf, len);
	saved = errno;
	if (n < 0 && saved == EPIPE && !was_pending)
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return n;
}

/* Write what the pipe takes now; done (or the hook closed its stdin, which
 * it may: reading the state is its choice) closes our end. */
static void write_some(struct hook_run *r)
{
	while (r->off < r->len) {
		ssize_t n = write_nosigpipe(r->in, r->data + r->off, r->len - r->off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0)
			break; /* EPIPE: the hook does not want it */
		r->off += (size_t)n;
	}
	close_fd(&r->in);
}

/* @fd moved to 3 or above (close-on-exec), so that the dup2s onto 0, 1
 * and 2 in the child cannot overwrite one another. */
static int above_stdio(int fd)
{
	int moved, saved;

	if (fd < 0 || fd > 2)
		return fd;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	saved = errno;
	close(fd);
	errno = saved;
	return moved;
}

static int make_pipe(int p[2], bool child_reads)
{
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	/* the child's end blocks as usual; ours never does */
	p[child_reads ? 0 : 1] = above_stdio(p[child_reads ? 0 : 1]);
	if (p[child_reads ? 0 : 1] < 0 || fcntl(p[child_reads ? 1 : 0], F_SETFL, O_NONBLOCK) < 0)
		return -1;
	return 0;
}

static char *const *inherited_env;

void brig_hooks_inherit_env(char *const *env)
{
	inherited_env = env;
}

/*
 * Spawn @h with @child[0..2] as its stdio and nothing else: 0 or an errno.
 * Its environment is its "env", exactly, even an empty one; without one,
 * brig's own (runc's, through Go's exec.Cmd with a nil Env; crun's too):
 * hooks written for them find their helpers on brig's PATH.  In the
 * container, the process's (brig_hooks_inherit_env): never the host's.
 */
static int spawn(const struct brig_hook *h, const int child[3], pid_t *pid)
{
	const char *argv0[] = { h->path, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, all;
	int r;

	if ((r = posix_spawn_file_actions_init(&fa)) != 0)
		return r;
	if ((r = posix_spawnattr_init(&attr)) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return r;
	}
	sigemptyset(&none);
	sigfillset(&all);
#ifdef __GLIBC__
	/* glibc keeps 32 and 33 for itself: sigfillset leaves them out, and
	 * its posix_spawn then sets them to SIG_IGN in the child, ignored
	 * for good after execve.  The raw bits ask for SIG_DFL (brig has one
	 * thread: neither is ever sent to it). */
	all.__val[0] |= 3UL << 31;
#endif
	for (int i = 0; i < 3 && r == 0; i++)
		r = posix_spawn_file_actions_adddup2(&fa, child[i], i);
	/* the caller's own fds (--preserve-fds, $LISTEN_FDS) are not the
	 * hook's either */
	if (r == 0)
		r = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	/* whatever brig blocks or ignores (a foreground run blocks the
	 * signals it forwards), the hook starts with the defaults */
	if (r == 0)
		r = posix_spawnattr_setsigmask(&attr, &none);
	if (r == 0)
		r = posix_spawnattr_setsigdefault(&attr, &all);
	if (r == 0)
		r = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	if (r == 0)
		r = posix_spawn(pid, h->path, &fa, &attr,
		                (char *const *)(h->n_args ? h->args : argv0),
		                h->env          ? (char *const *)h->env
		                : inherited_env ? inherited_env
		                                : environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return r;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Without a pidfd, how often the hook is checked for its exit (ms). */
#define EXIT_CHECK_MS 10

/* Whether the hook (brig's child, not reaped: its pid is its own) exited. */
static bool exited(const struct hook_run *r)
{
	siginfo_t si = { 0 };

	return waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid;
}

/*
 * Feed and drain the hook until it exits or @timeout_s (0: none) passes.
 * Returns 1 when it exited, 0 when it timed out, -1 with errno.  Without
 * a pidfd (r->pidfd -1: the container's seccomp filter may deny
 * pidfd_open to its startContainer hooks) the exit is checked every
 * EXIT_CHECK_MS.
 */
static int supervise(struct hook_run *r, int timeout_s)
{
	int64_t deadline = timeout_s > 0 ? now_ms() + (int64_t)timeout_s * 1000 : 0;

	for (;;) {
		struct pollfd p[4] = {
			{ .fd = r->pidfd, .events = POLLIN },
			{ .fd = r->in, .events = POLLOUT },
			{ .fd = r->out, .events = POLLIN },
			{ .fd = r->err, .events = POLLIN },
		};
		int wait_ms = -1;

		if (deadline) {
			int64_t left = deadline - now_ms();

			if (left <= 0)
				return 0;
			wait_ms = left > INT_MAX ? INT_MAX : (int)left;
		}
		if (r->pidfd < 0) {
			if (exited(r))
				return 1;
			if (wait_ms < 0 || wait_ms > EXIT_CHECK_MS)
				wait_ms = EXIT_CHECK_MS;
		}
		if (poll(p, ARRAY_SIZE(p), wait_ms) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (p[1].revents)
			write_some(r);
		if (p[2].revents)
			read_some(&r->out, &r->tail_out);
		if (p[3].revents)
			read_some(&r->err, &r->tail_err);
		if (p[0].revents)
			return 1;
	}
}

/* ", <name>: <text>" with the text trimmed, on one line and printable. */
static void add_output(struct brig_strbuf *sb, const char *name, const struct tail *t)
{
	size_t len = t->len;

	while (len && (t->buf[len - 1] == '\n' || t->buf[len - 1] == ' ' ||
	               t->buf[len - 1] == '\t' || t->buf[len - 1] == '\r'))
		len--;
	if (!len)
		return;
	brig_strbuf_addf(sb, ", %s: %s", name, t->cut ? "..." : "");
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)t->buf[i];

		brig_strbuf_addch(sb, c < 0x20 || c == 0x7f ? ' ' : (char)c);
	}
}

static void run_release(struct hook_run *r, int pipes[3][2])
{
	for (int i = 0; i < 3; i++) {
		close_fd(&pipes[i][0]);
		close_fd(&pipes[i][1]);
	}
	close_fd(&r->in);
	close_fd(&r->out);
	close_fd(&r->err);
	close_fd(&r->pidfd);
}

static int run_one(const struct brig_hook *h, size_t index, const char *state,
                   enum brig_hook_stage stage, struct brig_error *err)
{
	struct hook_run r = { .pidfd = -1, .in = -1, .out = -1, .err = -1, .data = state };
	/* stdin, stdout, stderr: [0] is the read end */
	int pipes[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } };
	struct brig_strbuf msg = BRIG_STRBUF_INIT;
	int ended, e, ret = -1;
	siginfo_t si;

	brig_strbuf_addf(&msg, "%s hook #%zu \"%s\"", brig_hook_stage_name(stage), index, h->path);
	r.len = strlen(state);
	if (make_pipe(pipes[0], true) < 0 || make_pipe(pipes[1], false) < 0 ||
	    make_pipe(pipes[2], false) < 0) {
		brig_error_setp(err, errno, "%s: pipe", msg.buf);
		goto out;
	}
	r.in = TAKE_FD(pipes[0][1]);
	r.out = TAKE_FD(pipes[1][0]);
	r.err = TAKE_FD(pipes[2][0]);
	/* what fits in the pipe is written before the hook exists: in the
	 * usual case of a state smaller than the pipe there is nothing left
	 * to feed, and no reader can be gone yet */
	write_some(&r);
	e = spawn(h, (const int[3]){ pipes[0][0], pipes[1][1], pipes[2][1] }, &r.pid);
	for (int i = 0; i < 3; i++)
		close_fd(&pipes[i][i == 0 ? 0 : 1]);
	if (e) {
		brig_error_setp(err, e, "%s", msg.buf);
		goto out;
	}
	brig_debug("%s: pid %d", msg.buf, (int)r.pid);
	/* the hook is brig's child, unreaped: its pid cannot name another
	 * process, and a filter that denies pidfd_open (a startContainer
	 * hook runs under the container's) leaves the pid to go by */
	r.pidfd = pidfd_open(r.pid, 0);
	if (r.pidfd < 0 && errno != ENOSYS && errno != EPERM) {
		e = errno;
		kill(r.pid, SIGKILL);
		waitpid(r.pid, NULL, 0);
		brig_error_setp(err, e, "%s: pidfd_open", msg.buf);
		goto out;
	}
	ended = supervise(&r, h->timeout.set ? h->timeout.value : 0);
	e = errno;
	if (ended <= 0)
		kill(r.pid, SIGKILL);
	memset(&si, 0, sizeof(si));
	while (waitid(P_PID, (id_t)r.pid, &si, WEXITED) < 0 && errno == EINTR)
		;
	close_fd(&r.in);
	for (int i = 0; i < FINAL_READS && read_some(&r.out, &r.tail_out); i++)
		;
	for (int i = 0; i < FINAL_READS && read_some(&r.err, &r.tail_err); i++)
		;
	if (ended < 0) {
		brig_error_setp(err, e, "%s: poll", msg.buf);
		goto out;
	}
	if (ended == 0) {
		brig_strbuf_addf(&msg, ": timed out after %ds", (int)h->timeout.value);
	} else if (si.si_code == CLD_EXITED && si.si_status == 0) {
		ret = 0;
		goto out;
	} else if (si.si_code == CLD_EXITED) {
		brig_strbuf_addf(&msg, ": exited with status %d", si.si_status);
	} else {
		brig_strbuf_addf(&msg, ": killed by signal %d", si.si_status);
	}
	add_output(&msg, "stdout", &r.tail_out);
	add_output(&msg, "stderr", &r.tail_err);
	brig_error_set(err, "%s", msg.buf);
out:
	brig_strbuf_release(&msg);
	run_release(&r, pipes);
	return ret;
}

int brig_hooks_run(const struct brig_hook *hooks, size_t n, const char *state_json,
                   enum brig_hook_stage stage, struct brig_error *err)
{
	for (size_t i = 0; i < n; i++) {
		struct brig_error e = BRIG_ERROR_INIT;

		if (run_one(&hooks[i], i, state_json, stage, &e) == 0)
			continue;
		/* runc's words first: its tests and engines' logs match them */
		brig_error_wrap(&e, "error running hook");
		if (stage != BRIG_HOOK_POSTSTOP) {
			brig_error_release(err);
			*err = e;
			return -1;
		}
		/* the container is gone already: say so, and go on */
		brig_warn("%s", e.msg);
		brig_error_release(&e);
	}
	return 0;
}

int brig_hooks_run_stage(const struct brig_hooks *hooks, enum brig_hook_stage stage,
                         const struct brig_state *state, enum brig_status status,
                         struct brig_error *err)
{
	_cleanup_free_ char *json = NULL;

	if (!brig_hooks_has(hooks, stage))
		return 0;
	json = brig_state_to_hook_json(state, status);
	return brig_hooks_run(hooks->stage[stage], hooks->n[stage], json, stage, err);
}
