/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lifecycle/watch.h"

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

#include "lifecycle/container.h"
#include "lifecycle/context.h"
#include "lifecycle/control.h"
#include "lifecycle/result.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/proc.h"
#include "util/units.h"

static const char *annotation(const struct brig_kv *ann, size_t n, const char *key)
{
	const char *v = NULL;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(ann[i].key, key))
			v = ann[i].value;
	return v;
}

bool brig_watch_wanted(const struct brig_kv *ann, size_t n)
{
	return annotation(ann, n, BRIG_ANN_JOB_TIMEOUT) || annotation(ann, n, BRIG_ANN_JOB_RESULT);
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
	if (result && brig_result_check_path(result, err) < 0)
		return brig_error_wrap(err, "config.json: annotations." BRIG_ANN_JOB_RESULT);
	return 0;
}

/* How soon a kill at the deadline that failed is tried again. */
#define KILL_RETRY_MS 100

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* The watcher itself: it never returns. */
static __attribute__((noreturn)) void watch(const char *root, const char *id, int pidfd, pid_t pid,
                                            uint64_t timeout_ms, const char *result)
{
	struct brig_context ctx = { .root = root };
	struct brig_result r = { .id = id };
	struct brig_error e = BRIG_ERROR_INIT;
	uint64_t t0 = now_ms();
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	int status;

	for (bool killed = false;;) {
		uint64_t now = now_ms();
		int wait = -1, n;

		if (timeout_ms && !killed) {
			if (now >= t0 + timeout_ms) {
				/* again a little later when it failed (the
				 * state locked by a delete that then fails,
				 * say): the deadline holds until the end */
				r.timed_out = true;
				killed = brig_container_kill(&ctx, id, SIGKILL, true, &e) == 0;
				brig_error_release(&e);
				wait = killed ? -1 : KILL_RETRY_MS;
			} else {
				wait = (int)(t0 + timeout_ms - now);
			}
		}
		n = poll(&p, 1, wait);
		if (n > 0 || (n < 0 && errno != EINTR))
			break;
	}
	r.wall_ms = now_ms() - t0;
	if (brig_pidfd_exit_status(p.fd, pid, &status) == 0) {
		r.exited = WIFEXITED(status);
		r.exit_code = WEXITSTATUS(status);
		r.signaled = WIFSIGNALED(status);
		r.signal = WTERMSIG(status);
	}
	if (brig_container_usage(&ctx, id, &r.usage, &e) == 0)
		r.oom_killed = r.usage.oom_kills > 0;
	brig_error_release(&e);
	/* once, at the end, renamed over whatever is at the path
	 * (result.h): never a file the container could have made there */
	if (result) {
		_cleanup_free_ char *text = brig_result_json(&r);

		brig_result_write_file(result, text, &e);
		brig_error_release(&e);
	}
	_exit(0);
}

int brig_watch_spawn(const char *root, const char *id, const struct brig_kv *ann, size_t n,
                     int pidfd, pid_t pid, struct brig_error *err)
{
	const char *timeout = annotation(ann, n, BRIG_ANN_JOB_TIMEOUT);
	const char *result = annotation(ann, n, BRIG_ANN_JOB_RESULT);
	uint64_t ms = 0;
	pid_t child;
	int status;

	if (!timeout && !result)
		return 0;
	if (timeout && brig_parse_duration_ms(timeout, &ms) < 0)
		return brig_error_set(err, "annotation " BRIG_ANN_JOB_TIMEOUT ": \"%s\"", timeout);
	/* twice: the watcher is nobody's child but its reaper's, and the
	 * caller (an engine) waits for no extra process */
	child = fork();
	if (child < 0)
		return brig_error_setp(err, errno, "fork the watcher");
	if (child == 0) {
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
		/* none of brig's fds but the init's pidfd, the state lock
		 * above all */
		if (dup2(pidfd, 3) != 3)
			_exit(1);
		close_range(4, ~0U, 0);
		if (chdir("/") < 0)
			_exit(1);
		watch(root, id, 3, pid, ms, result);
	}
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	return 0;
}
