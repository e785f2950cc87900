/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Malformed and hostile documents from tests/unit/fixtures/bad/, each with
 * the exact one-line error it must produce:
 *
 *   NAME.json   the document: process-*.json is a process.json (exec
 *               --process), resources-*.json a LinuxResources document
 *               (update --resources), anything else a config.json;
 *   NAME.err    the expected error (one trailing newline is ignored);
 *   NAME.todo   a known parser problem and why: the line becomes a TAP TODO,
 *               and without a NAME.err it only checks that the parse fails.
 *
 * Then what a file in the tree cannot hold: a 100 MB document, the edge of
 * the size limit, and duplicate keys (JSON allows them; the last one wins).
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "tap.h"

#define HUGE_BYTES (100u << 20)
#define FIXTURE_MAX (1u << 20)

enum doc_kind { DOC_CONFIG, DOC_PROCESS, DOC_RESOURCES };

static enum doc_kind kind_of(const char *file)
{
	if (strncmp(file, "process-", strlen("process-")) == 0)
		return DOC_PROCESS;
	if (strncmp(file, "resources-", strlen("resources-")) == 0)
		return DOC_RESOURCES;
	return DOC_CONFIG;
}

/*
 * Parse @text as a document of @kind with the API brig uses for it.  Returns
 * true when it parsed; otherwise *@msg holds the error (the caller frees it).
 */
static bool parse_doc(enum doc_kind kind, const char *text, size_t len, char **msg)
{
	struct brig_error err = BRIG_ERROR_INIT;
	bool parsed = false;

	switch (kind) {
	case DOC_CONFIG: {
		struct brig_config *cfg = brig_config_parse("config.json", text, len, &err);

		parsed = cfg != NULL;
		brig_config_free(cfg);
		break;
	}
	case DOC_PROCESS: {
		struct brig_process_doc *doc = brig_process_parse("process.json", text, len, &err);

		parsed = doc != NULL;
		brig_process_doc_free(doc);
		break;
	}
	case DOC_RESOURCES: {
		struct brig_resources_doc *doc =
		    brig_resources_parse("resources.json", text, len, &err);

		parsed = doc != NULL;
		brig_resources_doc_free(doc);
		break;
	}
	}
	*msg = TAKE_PTR(err.msg);
	brig_error_release(&err);
	return parsed;
}

/* File @name of @dirfd without one trailing newline, or NULL when absent. */
static char *read_text(int dirfd, const char *name)
{
	struct brig_error err = BRIG_ERROR_INIT;
	char *text = NULL;
	size_t len = 0;

	if (faccessat(dirfd, name, F_OK, 0) < 0)
		return NULL;
	if (brig_read_file(dirfd, name, FIXTURE_MAX, &text, &len, &err) < 0) {
		printf("# %s\n", err.msg);
		brig_error_release(&err);
		return brig_xstrdup("(unreadable)");
	}
	if (len && text[len - 1] == '\n')
		text[len - 1] = '\0';
	return text;
}

/* A failed TODO line is expected: it must not fail the program (tap.h counts it). */
static void todo_result(bool passed)
{
	if (!passed)
		tap_failed--;
}

static void check_fixture(int dirfd, const char *file)
{
	size_t stem = strlen(file) - strlen(".json");
	_cleanup_free_ char *err_name = brig_xasprintf("%.*s.err", (int)stem, file);
	_cleanup_free_ char *todo_name = brig_xasprintf("%.*s.todo", (int)stem, file);
	_cleanup_free_ char *want = read_text(dirfd, err_name);
	_cleanup_free_ char *todo = read_text(dirfd, todo_name);
	_cleanup_free_ char *desc = NULL;
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ char *got = NULL;
	struct brig_error err = BRIG_ERROR_INIT;
	size_t len = 0;
	bool parsed;

	/* a TODO line's description ends with the directive */
	desc = todo ? brig_xasprintf("%s # TODO %s", file, todo) : brig_xstrdup(file);
	if (brig_read_file(dirfd, file, FIXTURE_MAX, &text, &len, &err) < 0) {
		ok(false, "%s", file);
		printf("#   %s\n", err.msg);
		brig_error_release(&err);
		return;
	}
	parsed = parse_doc(kind_of(file), text, len, &got);
	if (!want && todo) {
		todo_result(ok(!parsed, "%s", desc));
		return;
	}
	if (!want) {
		ok(false, "%s", desc);
		printf("#   %s is missing\n", err_name);
		return;
	}
	if (parsed)
		got = brig_xstrdup("(parsed without an error)");
	if (todo)
		todo_result(is_str(got, want, "%s", desc));
	else
		is_str(got, want, "%s", desc);
}

static int is_fixture(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > strlen(".json") && strcmp(d->d_name + n - strlen(".json"), ".json") == 0;
}

static void test_bad_dir(void)
{
	const char *srcdir = getenv("BRIG_SRCDIR");
	_cleanup_free_ char *dir = NULL;
	_cleanup_close_ int dirfd = -1;
	struct dirent **list = NULL;
	int n;

	if (!srcdir)
		srcdir = ".";
	dir = brig_xasprintf("%s/tests/unit/fixtures/bad", srcdir);
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	n = dirfd < 0 ? -1 : scandir(dir, &list, is_fixture, alphasort);
	if (!ok(n > 0, "fixtures found in tests/unit/fixtures/bad")) {
		printf("#   none in %s (set BRIG_SRCDIR)\n", dir);
		return;
	}
	for (int i = 0; i < n; i++) {
		check_fixture(dirfd, list[i]->d_name);
		free(list[i]);
	}
	free(list);
}

/* A config whose annotation "big" is as long as it takes to make @size bytes. */
static const char big_head[] = "{\"ociVersion\": \"1.2.0\", \"root\": {\"path\": \"rootfs\"}, "
                               "\"annotations\": {\"big\": \"";
static const char big_tail[] = "\"}}";

static size_t big_value_len(size_t size)
{
	return size - strlen(big_head) - strlen(big_tail);
}

static char *doc_of_size(size_t size)
{
	const char *head = big_head, *tail = big_tail;
	char *text = brig_xmalloc(size + 1);

	memcpy(text, head, strlen(head));
	memset(text + strlen(head), 'a', big_value_len(size));
	memcpy(text + size - strlen(tail), tail, strlen(tail) + 1);
	return text;
}

static void check_refused(enum doc_kind kind, const char *text, size_t len, const char *want,
                          const char *what)
{
	_cleanup_free_ char *got = NULL;

	if (parse_doc(kind, text, len, &got))
		got = brig_xstrdup("(parsed without an error)");
	is_str(got, want, "%s", what);
}

/* Written to a temporary directory, so brig_config_load()'s bounded read is tested too. */
static void load_huge(const char *text, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	_cleanup_free_ char *dir = brig_xasprintf("%s/brig-fixtures-XXXXXX", tmp ? tmp : "/tmp");
	struct brig_error err = BRIG_ERROR_INIT;
	_cleanup_close_ int dirfd = -1;
	_cleanup_close_ int fd = -1;
	struct brig_config *cfg;
	size_t done = 0;

	if (!mkdtemp(dir)) {
		ok(false, "100 MB config.json: temporary directory");
		return;
	}
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd = openat(dirfd, "config.json", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	while (fd >= 0 && done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n <= 0)
			break;
		done += (size_t)n;
	}
	if (ok(done == len, "100 MB config.json: written to a temporary file")) {
		cfg = brig_config_load(dirfd, "config.json", "config.json", &err);
		is_str(cfg ? "(parsed without an error)" : err.msg,
		       "config.json: larger than the 16 MiB limit",
		       "100 MB config.json: brig_config_load refuses it before reading it");
		brig_config_free(cfg);
		brig_error_release(&err);
	}
	if (dirfd >= 0)
		unlinkat(dirfd, "config.json", 0);
	rmdir(dir);
}

static void test_size_limit(void)
{
	char *text = doc_of_size(HUGE_BYTES);

	check_refused(DOC_CONFIG, text, HUGE_BYTES, "config.json: larger than the 16 MiB limit",
	              "100 MB config.json: refused");
	check_refused(DOC_PROCESS, text, HUGE_BYTES, "process.json: larger than the 16 MiB limit",
	              "100 MB process.json: refused");
	check_refused(DOC_RESOURCES, text, HUGE_BYTES,
	              "resources.json: larger than the 16 MiB limit",
	              "100 MB resources.json: refused");
	load_huge(text, HUGE_BYTES);
	free(text);

	/* one byte over the limit is refused, the limit itself is read */
	text = doc_of_size(BRIG_CONFIG_MAX_BYTES + 1);
	check_refused(DOC_CONFIG, text, BRIG_CONFIG_MAX_BYTES + 1,
	              "config.json: larger than the 16 MiB limit",
	              "config.json of 16 MiB + 1 byte: refused");
	free(text);
	text = doc_of_size(BRIG_CONFIG_MAX_BYTES);
	{
		struct brig_error err = BRIG_ERROR_INIT;
		struct brig_config *cfg =
		    brig_config_parse("config.json", text, BRIG_CONFIG_MAX_BYTES, &err);

		if (!ok(cfg && cfg->n_annotations == 1 &&
		            strlen(cfg->annotations[0].value) ==
		                big_value_len(BRIG_CONFIG_MAX_BYTES),
		        "config.json of exactly 16 MiB: parsed"))
			printf("#   %s\n", err.msg ? err.msg : "(wrong annotation)");
		brig_config_free(cfg);
		brig_error_release(&err);
	}
	free(text);
}

/* JSON allows a key twice in an object; like Go's encoding/json, the last wins. */
static void test_duplicate_keys(void)
{
	static const char text[] =
	    "{\"ociVersion\": \"1.2.0\", \"root\": {\"path\": \"rootfs\"},\n"
	    " \"hostname\": \"first\", \"hostname\": \"second\",\n"
	    " \"process\": {\"cwd\": \"relative\"},\n"
	    " \"process\": {\"cwd\": \"/\", \"args\": [\"sh\"], \"user\": {\"uid\": 1, \"uid\": 2,"
	    " \"gid\": 3}},\n"
	    " \"root\": {\"path\": \"rootfs2\", \"readonly\": true}}\n";
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_config *cfg = brig_config_parse("config.json", text, strlen(text), &err);

	if (!ok(cfg != NULL, "duplicate keys: parsed"))
		printf("#   %s\n", err.msg);
	if (cfg) {
		is_str(cfg->hostname, "second", "duplicate keys: the last hostname wins");
		is_str(cfg->root->path, "rootfs2", "duplicate keys: the last root wins");
		ok(cfg->process && strcmp(cfg->process->cwd, "/") == 0 &&
		       cfg->process->user.uid == 2 && cfg->process->user.gid == 3,
		   "duplicate keys: the last process and uid win");
	}
	brig_config_free(cfg);
	brig_error_release(&err);
}

int main(void)
{
	test_bad_dir();
	test_size_limit();
	test_duplicate_keys();
	return tap_done();
}
