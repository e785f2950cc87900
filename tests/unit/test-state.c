/* SPDX-License-Identifier: Apache-2.0 */
/* The state store (runtime/lifecycle/state.c), container ids and state documents. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lifecycle/state.h"
#include "tap.h"
#include "util/error.h"
#include "util/cleanup.h"
#include "util/id.h"
#include "util/proc.h"

static char root[256];

static void rm_rf(const char *path)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd) != 0)
		diag("rm -rf failed");
}

static struct brig_state *make_state(const char *id, pid_t pid, uint64_t start)
{
	struct brig_state *s = brig_state_new();

	s->oci_version = "1.3.0";
	s->id = brig_arena_strdup(&s->arena, id);
	s->status = BRIG_STATUS_RUNNING;
	s->pid = pid;
	s->pid_start = start;
	s->bundle = "/bundle";
	s->rootfs = "/bundle/rootfs";
	s->created = "2026-11-29T21:00:00.000000000Z";
	s->annotations = brig_arena_array(&s->arena, 1, sizeof(struct brig_kv));
	s->annotations[0].key = "org.example";
	s->annotations[0].value = "v\"1";
	s->n_annotations = 1;
	return s;
}

static void test_ids(void)
{
	static const char *const bad[] = { "",    ".", "..",   "...",       ".seccomp-cache", ".x",
		                           "a/b", "/", "a\nb", "tab\there", "del\x7f" };
	struct brig_error err = BRIG_ERROR_INIT;
	char *longid = malloc(BRIG_ID_MAX + 2);

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		ok(brig_id_validate(bad[i], &err) < 0 && err.status == 2,
		   "id %zu is refused as a usage error: %s", i, err.msg);
		brig_error_release(&err);
	}
	is_int(brig_id_validate("a.b-c_d+e", &err), 0, "a plain id is accepted");
	is_int(brig_id_validate("a..", &err), 0, "dots after the first byte are fine");
	brig_id_validate(".seccomp-cache", &err);
	is_str(err.msg, "invalid container id \".seccomp-cache\": must not start with '.'",
	       "brig's own names under --root are not ids");
	brig_error_release(&err);
	memset(longid, 'x', BRIG_ID_MAX);
	longid[BRIG_ID_MAX] = '\0';
	is_int(brig_id_validate(longid, &err), 0, "1024 bytes are accepted");
	longid[BRIG_ID_MAX] = 'x';
	longid[BRIG_ID_MAX + 1] = '\0';
	ok(brig_id_validate(longid, &err) < 0, "1025 bytes are refused");
	ok(strstr(err.msg, "longer than 1024 bytes") != NULL, "with a reason: %s", err.msg);
	brig_error_release(&err);
	brig_id_validate("a\x01", &err);
	is_str(err.msg, "invalid container id \"a\\x01\": must not contain control characters",
	       "control characters are shown escaped");
	brig_error_release(&err);
	free(longid);
}

static void test_roundtrip(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_store st;
	struct brig_entry e = BRIG_ENTRY_INIT, e2 = BRIG_ENTRY_INIT;
	struct brig_state *s = make_state("c1", 0, 0), *back = NULL;
	struct stat sb;
	char path[512];

	ok(brig_store_open(&st, root, true, &err) == 0, "the store root is created");
	ok(stat(root, &sb) == 0 && (sb.st_mode & 0777) == 0700, "with mode 0700");
	ok(brig_store_claim(&st, "c1", &e, &err) == 0, "a new id is claimed");
	ok(brig_store_claim(&st, "c1", &e2, &err) < 0, "a second claim fails");
	is_str(err.msg, "container \"c1\" already exists", "with runc's wording");
	brig_error_release(&err);
	ok(brig_entry_save(&e, s, &err) == 0, "state is saved");
	snprintf(path, sizeof(path), "%s/c1/state.json", root);
	ok(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600, "state.json is 0600");
	ok(brig_entry_load(&e, &back, &err) == 0, "and loaded back");
	is_str(back->id, "c1", "id");
	is_int(back->status, BRIG_STATUS_RUNNING, "status");
	is_str(back->created, s->created, "created");
	is_str(back->annotations[0].value, "v\"1", "annotations survive escaping");
	brig_state_free(back);
	brig_entry_release(&e);

	ok(brig_store_lookup(&st, "c1", BRIG_LOCK_SHARED, &e, &err) == 0, "lookup finds it");
	brig_entry_release(&e);
	ok(brig_store_lookup(&st, "c2", BRIG_LOCK_SHARED, &e, &err) < 0, "an unknown id fails");
	is_str(err.msg, "container \"c2\" does not exist", "with the wording engines match");
	brig_error_release(&err);

	ok(brig_store_lookup(&st, "c1", BRIG_LOCK_EXCLUSIVE, &e, &err) == 0 &&
	       brig_entry_remove(&e, &err) == 0,
	   "remove");
	brig_entry_release(&e);
	snprintf(path, sizeof(path), "%s/c1", root);
	ok(stat(path, &sb) < 0 && errno == ENOENT, "leaves no directory");
	ok(brig_store_lookup(&st, "c1", BRIG_LOCK_SHARED, &e, &err) < 0, "and is gone");
	brig_error_release(&err);

	/* a create that died after mkdir: invisible, except to delete */
	ok(brig_store_claim(&st, "half", &e, &err) == 0, "claim without saving state");
	brig_entry_release(&e);
	ok(brig_store_lookup(&st, "half", BRIG_LOCK_SHARED, &e, &err) < 0,
	   "a half-created container does not exist");
	brig_error_release(&err);
	ok(brig_store_lookup(&st, "half", BRIG_LOCK_EXCLUSIVE_ANY, &e, &err) == 0 &&
	       brig_entry_remove(&e, &err) == 0,
	   "but delete finds and removes it");
	brig_entry_release(&e);
	brig_state_free(s);
	brig_store_close(&st);
}

/* The config's hooks live in state.json; hooks read the spec's state. */
static void test_hooks(void)
{
	static const char *args[] = { "h", "-x", NULL };
	static const char *env[] = { "A=1", NULL };
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_state *s = make_state("c1", 42, 7), *back;
	struct brig_hook hooks[2] = {
		{ .path = "/bin/a",
		  .args = args,
		  .n_args = 2,
		  .env = env,
		  .n_env = 1,
		  .timeout = { true, 5 } },
		{ .path = "/bin/b" },
	};
	_cleanup_free_ char *text = NULL, *hook_json = NULL, *stopped = NULL;

	s->hooks.stage[BRIG_HOOK_POSTSTOP] = hooks;
	s->hooks.n[BRIG_HOOK_POSTSTOP] = 2;
	s->hooks.stage[BRIG_HOOK_POSTSTART] = &hooks[1];
	s->hooks.n[BRIG_HOOK_POSTSTART] = 1;
	text = brig_state_to_json(s);
	back = brig_state_parse("state.json", text, strlen(text), &err);
	if (!ok(back != NULL, "state with hooks parses back"))
		return;
	is_int(back->hooks.n[BRIG_HOOK_POSTSTOP], 2, "two poststop hooks");
	is_int(back->hooks.n[BRIG_HOOK_POSTSTART], 1, "one poststart hook");
	is_int(back->hooks.n[BRIG_HOOK_PRESTART], 0, "no prestart hook");
	is_str(back->hooks.stage[BRIG_HOOK_POSTSTOP][0].args[1], "-x", "args");
	is_str(back->hooks.stage[BRIG_HOOK_POSTSTOP][0].env[0], "A=1", "env");
	is_int(back->hooks.stage[BRIG_HOOK_POSTSTOP][0].timeout.value, 5, "timeout");
	ok(!back->hooks.stage[BRIG_HOOK_POSTSTOP][1].timeout.set, "no timeout");
	is_str(back->hooks.stage[BRIG_HOOK_POSTSTART][0].path, "/bin/b", "path");
	hook_json = brig_state_to_hook_json(back, BRIG_STATUS_RUNNING);
	is_str(hook_json,
	       "{\"ociVersion\":\"1.3.0\",\"id\":\"c1\",\"status\":\"running\",\"pid\":42,"
	       "\"bundle\":\"/bundle\",\"annotations\":{\"org.example\":\"v\\\"1\"}}",
	       "the state a hook reads: the spec's fields, compact");
	stopped = brig_state_to_hook_json(back, BRIG_STATUS_STOPPED);
	ok(strstr(stopped, "\"pid\"") == NULL, "no pid once stopped");
	brig_state_free(back);
	s->hooks = (struct brig_hooks){ 0 };
	brig_state_free(s);
}

/* Many processes race to claim one id: exactly one wins. */
static void test_concurrent_claims(void)
{
	enum { RACERS = 16 };
	pid_t pids[RACERS];
	int wins = 0, exists = 0;

	for (int i = 0; i < RACERS; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			struct brig_error err = BRIG_ERROR_INIT;
			struct brig_store st;
			struct brig_entry e = BRIG_ENTRY_INIT;
			struct brig_state *s = make_state("race", 0, 0);
			int rc = 2;

			if (brig_store_open(&st, root, true, &err) == 0) {
				if (brig_store_claim(&st, "race", &e, &err) == 0)
					rc = brig_entry_save(&e, s, &err) == 0 ? 0 : 3;
				else if (err.errnum == EEXIST)
					rc = 1;
			}
			_exit(rc);
		}
	}
	for (int i = 0; i < RACERS; i++) {
		int status;

		waitpid(pids[i], &status, 0);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			wins++;
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
			exists++;
	}
	is_int(wins, 1, "exactly one of %d concurrent creates wins", RACERS);
	is_int(exists, RACERS - 1, "the others fail with \"already exists\"");
}

/* A shared lookup waits while another process holds the lock. */
static void test_lock_serializes(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_store st;
	struct brig_entry e = BRIG_ENTRY_INIT;
	struct timespec t0, t1;
	int pipefd[2];
	pid_t pid;
	char c;

	brig_store_open(&st, root, true, &err);
	if (pipe(pipefd) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		struct brig_entry held = BRIG_ENTRY_INIT;

		if (brig_store_lookup(&st, "race", BRIG_LOCK_EXCLUSIVE, &held, &err) < 0)
			_exit(1);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(1);
		usleep(300 * 1000);
		/* the holder deletes the container before letting go */
		brig_entry_remove(&held, &err);
		_exit(0);
	}
	if (read(pipefd[0], &c, 1) != 1)
		diag("child failed");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ok(brig_store_lookup(&st, "race", BRIG_LOCK_SHARED, &e, &err) < 0,
	   "a lookup waiting on the lock sees the container deleted meanwhile");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ok((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 >= 200,
	   "the lookup waited for the holder");
	is_str(err.msg, "container \"race\" does not exist", "and reports it missing");
	brig_error_release(&err);
	waitpid(pid, NULL, 0);
	close(pipefd[0]);
	close(pipefd[1]);
	brig_store_close(&st);
}

static void test_list(void)
{
	enum { N = 1000 };
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_store st;
	char **ids = NULL, id[32];
	size_t n = 0;
	bool sorted = true;

	brig_store_open(&st, root, true, &err);
	for (int i = 0; i < N; i++) {
		struct brig_entry e = BRIG_ENTRY_INIT;
		struct brig_state *s;

		snprintf(id, sizeof(id), "c%04d", N - 1 - i);
		s = make_state(id, 0, 0);
		if (brig_store_claim(&st, id, &e, &err) == 0)
			brig_entry_save(&e, s, &err);
		brig_entry_release(&e);
		brig_state_free(s);
	}
	ok(brig_store_list(&st, &ids, &n, &err) == 0, "list");
	is_int((long long)n, N, "finds all %d containers", N);
	for (size_t i = 1; i < n; i++)
		if (strcmp(ids[i - 1], ids[i]) >= 0)
			sorted = false;
	ok(sorted, "in sorted order");
	brig_store_free_list(ids, n);
	brig_store_close(&st);

	brig_store_open(&st, "/nonexistent/brig-root", false, &err);
	ok(brig_store_list(&st, &ids, &n, &err) == 0 && n == 0, "a missing root lists nothing");
	brig_store_close(&st);
}

static void test_status(void)
{
	uint64_t start = 0;
	struct brig_state *s;
	pid_t child;

	ok(brig_proc_stat(getpid(), NULL, &start) == 0 && start > 0, "own start time read");
	s = make_state("x", getpid(), start);
	is_int(brig_state_status(s), BRIG_STATUS_RUNNING, "a live init keeps its status");
	s->pid_start = start + 1;
	is_int(brig_state_status(s), BRIG_STATUS_STOPPED,
	       "a reused pid (other start time) is stopped");
	brig_state_free(s);

	child = fork();
	if (child == 0)
		_exit(0);
	brig_proc_stat(child, NULL, &start);
	s = make_state("x", child, start);
	usleep(100 * 1000);
	is_int(brig_state_status(s), BRIG_STATUS_STOPPED, "a zombie init is stopped");
	waitpid(child, NULL, 0);
	is_int(brig_state_status(s), BRIG_STATUS_STOPPED, "a reaped init is stopped");
	brig_state_free(s);
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/brig-test-state.%d/root", (int)getpid());
	test_ids();
	test_roundtrip();
	test_hooks();
	test_concurrent_claims();
	test_lock_serializes();
	test_list();
	test_status();
	*strrchr(root, '/') = '\0';
	rm_rf(root);
	return tap_done();
}
