/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The hooks runner (hooks/hooks.c), without root: /bin/sh hooks run by this
 * process.  The namespaces of each stage are the integration test's
 * (tests/integration/85-hooks.sh).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hooks/hooks.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"

static char dir[256];

static char *path_in(const char *name)
{
	return brig_xasprintf("%s/%s", dir, name);
}

/* The contents of @name in the test directory ("" when missing). */
static char *slurp(const char *name)
{
	struct brig_error err = BRIG_ERROR_INIT;
	_cleanup_free_ char *path = path_in(name);
	char *text = NULL;
	size_t len = 0;

	if (brig_read_file(AT_FDCWD, path, 64u << 20, &text, &len, &err) < 0) {
		brig_error_release(&err);
		return brig_xstrdup("");
	}
	return text;
}

/* A /bin/sh hook running @script (with $D the test directory). */
static struct brig_hook sh_hook(const char *script)
{
	static const char *args[16][5];
	static int next;
	const char **a = args[next++ % 16];
	struct brig_hook h = { .path = "/bin/sh", .args = a, .n_args = 4 };

	a[0] = "sh";
	a[1] = "-c";
	a[2] = script;
	a[3] = dir; /* $0 */
	a[4] = NULL;
	return h;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run1(struct brig_hook h, enum brig_hook_stage stage, const char *state,
                struct brig_error *err)
{
	brig_error_release(err);
	return brig_hooks_run(&h, 1, state, stage, err);
}

static void test_status(void)
{
	struct brig_error err = BRIG_ERROR_INIT;

	diag("exit status, signals, output in the error");
	is_int(run1(sh_hook("exit 0"), BRIG_HOOK_CREATE_RUNTIME, "{}", &err), 0, "exit 0 succeeds");
	is_int(
	    run1(sh_hook("echo out; echo err >&2; exit 3"), BRIG_HOOK_CREATE_RUNTIME, "{}", &err),
	    -1, "exit 3 fails");
	is_str(err.msg,
	       "error running hook: createRuntime hook #0 \"/bin/sh\": exited with status 3, "
	       "stdout: out, stderr: err",
	       "the error names the stage, index, path, status and output");
	run1(sh_hook("printf 'a\\tb\\033[31m\\n\\n'; exit 1"), BRIG_HOOK_PRESTART, "{}", &err);
	is_str(err.msg,
	       "error running hook: prestart hook #0 \"/bin/sh\": exited with status 1, stdout: a "
	       "b [31m",
	       "output: trailing newlines trimmed, control characters made spaces");
	run1(sh_hook("kill -TERM $$"), BRIG_HOOK_POSTSTART, "{}", &err);
	is_str(err.msg, "error running hook: poststart hook #0 \"/bin/sh\": killed by signal 15",
	       "killed by a signal");
	{
		struct brig_hook h = { .path = "/nonexistent/hook" };

		run1(h, BRIG_HOOK_CREATE_CONTAINER, "{}", &err);
		is_str(err.msg,
		       "error running hook: createContainer hook #0 \"/nonexistent/hook\": No such "
		       "file or directory",
		       "a missing hook");
	}
	/* 100 KiB on stderr: only the tail is kept */
	run1(sh_hook("i=0; while [ $i -lt 2000 ]; do echo "
	             "0123456789012345678901234567890123456789012345678 >&2; i=$((i+1)); done; "
	             "echo the-end >&2; exit 1"),
	     BRIG_HOOK_CREATE_RUNTIME, "{}", &err);
	ok(err.msg && strlen(err.msg) < 100 + BRIG_HOOK_OUTPUT_MAX,
	   "long output is cut (%zu bytes)", err.msg ? strlen(err.msg) : 0);
	ok(err.msg && strstr(err.msg, ", stderr: ...") &&
	       strcmp(err.msg + strlen(err.msg) - 7, "the-end") == 0,
	   "...to its last bytes");
	brig_error_release(&err);
}

static void test_timeout(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_hook h = sh_hook("exec sleep 10");
	double t0 = now(), took;

	diag("timeout");
	h.timeout.set = true;
	h.timeout.value = 1;
	is_int(brig_hooks_run(&h, 1, "{}", BRIG_HOOK_POSTSTART, &err), -1,
	       "a hook past its timeout");
	took = now() - t0;
	is_str(err.msg, "error running hook: poststart hook #0 \"/bin/sh\": timed out after 1s",
	       "says so");
	ok(took >= 0.9 && took < 3, "is killed at its timeout (%.2f s)", took);
	/* a hook that exits leaving a child with its stdout: done at its exit */
	brig_error_release(&err);
	t0 = now();
	is_int(run1(sh_hook("sleep 2 & exit 0"), BRIG_HOOK_POSTSTART, "{}", &err), 0,
	       "a hook leaving a child behind succeeds");
	took = now() - t0;
	ok(took < 1.5, "...without waiting for the child (%.2f s)", took);
	brig_error_release(&err);
}

static void test_exact(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	static const char *args[] = { "argv-zero",
		                      "-c",
		                      "read -r me _ </proc/self/stat; "
		                      "tr '\\0' '\\n' </proc/$me/cmdline >$0/argv; "
		                      "tr '\\0' '\\n' </proc/$me/environ >$0/env; "
		                      "set -- /proc/$me/fd/*; echo $# >$0/nfds",
		                      NULL,
		                      NULL,
		                      NULL };
	static const char *env[] = { "A=1", "B=two words", NULL };
	struct brig_hook h = {
		.path = "/bin/sh", .args = args, .n_args = 5, .env = env, .n_env = 2
	};
	_cleanup_free_ char *argv = NULL, *envs = NULL, *nfds = NULL, *want = NULL;
	int leak = dup(1); /* no close-on-exec: brig's caller may leave such */
	sigset_t block, old;

	diag("args, env, fds and signals exactly");
	args[3] = dir;
	args[4] = dir;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGINT, SIG_IGN);
	is_int(brig_hooks_run(&h, 1, "{}", BRIG_HOOK_PRESTART, &err), 0, "the hook runs");
	argv = slurp("argv");
	want = brig_xasprintf("argv-zero\n-c\n%s\n%s\n%s\n", args[2], dir, dir);
	is_str(argv, want, "argv is args, args[0] included");
	envs = slurp("env");
	is_str(envs, "A=1\nB=two words\n", "the environment is env, nothing else");
	nfds = slurp("nfds");
	/* 0, 1, 2 and the directory being listed */
	is_str(nfds, "4\n", "no fd but stdio");
	close(leak);
	{
		struct brig_hook bare = { .path = "/bin/sh" };
		static const char *cargs[] = {
			"sh", "-c",
			/* builtins only: the shell blocks every signal while
			 * it forks, which a child reading its status may see */
			"while read -r k v; do case $k in SigBlk:|SigIgn:) echo \"$k $v\";; esac; "
			"done </proc/self/status >$0/sigs; read -r me _ </proc/self/stat; "
			"tr '\\0' '\\n' </proc/$me/environ >$0/env2",
			NULL, NULL
		};
		_cleanup_free_ char *sigs = NULL, *env2 = NULL;

		static char *const process_env[] = { "PROCESS=1", NULL };

		cargs[3] = dir;
		bare.args = cargs;
		bare.n_args = 4;
		/* without env: brig's own environment, as runc's hooks get */
		clearenv();
		setenv("HOOKTEST", "inherited", 1);
		is_int(brig_hooks_run(&bare, 1, "{}", BRIG_HOOK_PRESTART, &err), 0,
		       "a hook without env runs");
		sigs = slurp("sigs");
		is_str(sigs, "SigBlk: 0000000000000000\nSigIgn: 0000000000000000\n",
		       "signals: none blocked or ignored, whatever the caller had");
		env2 = slurp("env2");
		is_str(env2, "HOOKTEST=inherited\n", "no env: brig's environment");
		free(env2);
		/* in the container the init gives them the process's instead */
		brig_hooks_inherit_env(process_env);
		is_int(brig_hooks_run(&bare, 1, "{}", BRIG_HOOK_START_CONTAINER, &err), 0,
		       "a hook without env runs in the container");
		brig_hooks_inherit_env(NULL);
		env2 = slurp("env2");
		is_str(env2, "PROCESS=1\n", "no env in the container: the process's environment");
	}
	{
		/* no args: argv[0] is the path ("true" for busybox-like tools;
		 * here /bin/sh reads its script, the state, from stdin) */
		struct brig_hook noargs = { .path = "/bin/sh" };
		_cleanup_free_ char *state = brig_xasprintf("echo \"$0\" >%s/zero", dir);
		_cleanup_free_ char *zero = NULL;

		is_int(brig_hooks_run(&noargs, 1, state, BRIG_HOOK_PRESTART, &err), 0,
		       "a hook without args runs");
		zero = slurp("zero");
		is_str(zero, "/bin/sh\n", "without args, argv[0] is the path");
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGINT, SIG_DFL);
	brig_error_release(&err);
}

static void test_stdin(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	size_t big = 4u << 20;
	_cleanup_free_ char *state = brig_xmalloc(big + 1);
	_cleanup_free_ char *got = NULL, *small = NULL;
	sigset_t pending;

	diag("the state on stdin");
	is_int(run1(sh_hook("cat >$0/state"), BRIG_HOOK_CREATE_RUNTIME, "{\"id\":\"x\"}", &err), 0,
	       "a hook reading its stdin");
	small = slurp("state");
	is_str(small, "{\"id\":\"x\"}", "gets the state, exactly");
	memset(state, 'x', big);
	state[big] = '\0';
	is_int(run1(sh_hook("cat >$0/big"), BRIG_HOOK_CREATE_RUNTIME, state, &err), 0,
	       "a 4 MiB state is written in full");
	got = slurp("big");
	ok(strlen(got) == big, "...and read in full (%zu bytes)", strlen(got));
	is_int(run1(sh_hook("exit 0"), BRIG_HOOK_CREATE_RUNTIME, state, &err), 0,
	       "a hook that does not read a 4 MiB state does not hang");
	/* SIGPIPE is at its default action here: it would kill the test */
	signal(SIGPIPE, SIG_DFL);
	is_int(run1(sh_hook("exec 0<&-; sleep 0.2"), BRIG_HOOK_CREATE_RUNTIME, state, &err), 0,
	       "a hook that closes its stdin early: no SIGPIPE");
	sigpending(&pending);
	ok(!sigismember(&pending, SIGPIPE), "...and none left pending");
	brig_error_release(&err);
}

static void test_order(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_hook hooks[3];
	_cleanup_free_ char *order = NULL, *order_path = path_in("order");

	diag("order and failure semantics");
	hooks[0] = sh_hook("echo one >>$0/order");
	hooks[1] = sh_hook("echo two >>$0/order; exit 1");
	hooks[2] = sh_hook("echo three >>$0/order");
	is_int(brig_hooks_run(hooks, 3, "{}", BRIG_HOOK_CREATE_CONTAINER, &err), -1,
	       "the second of three fails");
	is_str(err.msg,
	       "error running hook: createContainer hook #1 \"/bin/sh\": exited with status 1",
	       "the error names hook #1");
	order = slurp("order");
	is_str(order, "one\ntwo\n", "hooks run in order; the first failure ends the stage");
	unlink(order_path);
	brig_error_release(&err);
	is_int(brig_hooks_run(hooks, 3, "{}", BRIG_HOOK_POSTSTOP, &err), 0,
	       "poststop: a failing hook is not an error");
	free(order);
	order = slurp("order");
	is_str(order, "one\ntwo\nthree\n", "poststop: the remaining hooks run");
	ok(!brig_error_is_set(&err), "poststop: no error set");
}

int main(void)
{
	char cmd[300];

	snprintf(dir, sizeof(dir), "%s/brig-hooks.XXXXXX", getenv("TMPDIR") ?: "/tmp");
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_status();
	test_timeout();
	test_exact();
	test_stdin();
	test_order();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("rm -rf failed");
	return tap_done();
}
