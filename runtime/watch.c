/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "watch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "container.h"
#include "context.h"
#include "control.h"
#include "result.h"
#include "spec/spec.h"
#include "spec/state.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/units.h"

static const char *annotation(const struct brig_kv *ann, size_t n, const char *key)
{
	const char *v = NULL;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(ann[i].key, key))
			v = ann[i].value;
	return v;
}

int brig_watch_check(const struct brig_kv *ann, size_t n, struct brig_error *err)
{
	const char *timeout = annotation(ann, n, BRIG_ANN_JOB_TIMEOUT);
	const char *result = annotation(ann, n, BRIG_ANN_JOB_RESULT);
	uint64_t ms;

	if (timeout && brig_parse_duration_ms(timeout, &ms) < 0)
		return brig_error_set(err,
		                      "config.json: annotations." BRIG_ANN_JOB_TIMEOUT
		                      ": \"%s\" is not a duration (500ms, 2s, 1m)",
		                      timeout);
	if (result && result[0] != '/')
		return brig_error_set(err,
		                      "config.json: annotations." BRIG_ANN_JOB_RESULT
		                      ": \"%s\" is not an absolute path",
		                      result);
	return 0;
}

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* How a process that has exited but is not reaped yet ended: the
 * exit_code field (52) of /proc/<pid>/stat.  false when it is gone. */
static bool zombie_status(pid_t pid, int *status)
{
	char path[64], buf[1024];
	_cleanup_close_ int fd = -1;
	ssize_t n;
	char *p;
	int field = 2;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || (n = read(fd, buf, sizeof(buf) - 1)) <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] != 'Z')
		return false;
	for (; *p && field < 52; p++)
		field += *p == ' ';
	return sscanf(p, "%d", status) == 1;
}

/* The watcher itself: it never returns. */
static __attribute__((noreturn)) void watch(const char *root, const struct brig_state *s,
                                            uint64_t timeout_ms, const char *result)
{
	struct brig_context ctx = { .root = root };
	struct brig_result r = { .id = s->id };
	struct brig_error e = BRIG_ERROR_INIT;
	uint64_t t0 = now_ms();
	struct pollfd p = { .fd = brig_open_init(s), .events = POLLIN };
	int status;

	while (p.fd >= 0) {
		uint64_t now = now_ms();
		int wait = -1;

		if (timeout_ms && !r.timed_out) {
			if (now >= t0 + timeout_ms) {
				r.timed_out = true;
				brig_container_kill(&ctx, s->id, SIGKILL, true, &e);
				brig_error_release(&e);
				continue;
			}
			wait = (int)(t0 + timeout_ms - now);
		}
		if (poll(&p, 1, wait) > 0)
			break;
	}
	r.wall_ms = now_ms() - t0;
	if (zombie_status(s->pid, &status)) {
		r.exited = WIFEXITED(status);
		r.exit_code = WEXITSTATUS(status);
		r.signaled = WIFSIGNALED(status);
		r.signal = WTERMSIG(status);
	}
	if (brig_container_usage(&ctx, s->id, &r.usage, &e) == 0)
		r.oom_killed = r.usage.oom_kills > 0;
	brig_error_release(&e);
	if (result) {
		_cleanup_free_ char *text = brig_result_json(&r);

		brig_write_file_atomic(AT_FDCWD, result, text, strlen(text), 0644, &e);
		brig_error_release(&e);
	}
	_exit(0);
}

int brig_watch_spawn(const char *root, const struct brig_state *s, struct brig_error *err)
{
	const char *timeout = annotation(s->annotations, s->n_annotations, BRIG_ANN_JOB_TIMEOUT);
	const char *result = annotation(s->annotations, s->n_annotations, BRIG_ANN_JOB_RESULT);
	uint64_t ms = 0;
	pid_t pid;
	int status;

	if (!timeout && !result)
		return 0;
	if (timeout && brig_parse_duration_ms(timeout, &ms) < 0)
		return brig_error_set(err, "annotation " BRIG_ANN_JOB_TIMEOUT ": \"%s\"", timeout);
	/* twice: the watcher is nobody's child but its reaper's, and the
	 * caller (an engine) waits for no extra process */
	pid = fork();
	if (pid < 0)
		return brig_error_setp(err, errno, "fork the watcher");
	if (pid == 0) {
		sigset_t none;
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		setsid();
		if (fork() != 0)
			_exit(0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		for (int sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		prctl(PR_SET_NAME, "brig-watch", 0, 0, 0);
		for (int fd = 0; fd < 3 && null >= 0; fd++)
			dup2(null, fd);
		/* none of brig's fds, the state lock above all */
		close_range(3, ~0U, 0);
		if (chdir("/") < 0)
			_exit(1);
		watch(root, s, ms, result);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return 0;
}
