/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lifecycle/control.h"
#include "lifecycle/state.h"
#include "util/error.h"
#include "util/jsonw.h"

enum { OPT_FORMAT, OPT_QUIET };

static const struct brig_option options[] = {
	[OPT_FORMAT] = { "format", 'f', BRIG_OPT_STRING, "table|json",
	                 "select one of: table or json", "table" },
	[OPT_QUIET] = { "quiet", 'q', BRIG_OPT_BOOL, NULL, "display only container IDs", NULL },
};

struct row {
	struct brig_state *state;
	enum brig_status status;
};

/* runc prints its table through Go's tabwriter (minwidth 12, padding 3). */
#define COLUMNS 6
static void print_table(struct row *rows, size_t n)
{
	static const char *const head[COLUMNS] = { "ID",     "PID",     "STATUS",
		                                   "BUNDLE", "CREATED", "OWNER" };
	char ***cells = brig_xcalloc(n + 1, sizeof(*cells));
	size_t width[COLUMNS] = { 0 };

	for (size_t i = 0; i <= n; i++) {
		cells[i] = brig_xcalloc(COLUMNS, sizeof(char *));
		if (i == 0) {
			for (int c = 0; c < COLUMNS; c++)
				cells[0][c] = brig_xstrdup(head[c]);
		} else {
			const struct brig_state *s = rows[i - 1].state;
			struct passwd *pw = getpwuid(s->owner);
			bool stopped = rows[i - 1].status == BRIG_STATUS_STOPPED;

			cells[i][0] = brig_xstrdup(s->id);
			cells[i][1] = brig_xasprintf("%d", stopped ? 0 : (int)s->pid);
			cells[i][2] = brig_xstrdup(brig_status_name(rows[i - 1].status));
			cells[i][3] = brig_xstrdup(s->bundle);
			cells[i][4] = brig_xstrdup(s->created);
			cells[i][5] = pw ? brig_xstrdup(pw->pw_name)
			                 : brig_xasprintf("#%u", (unsigned)s->owner);
		}
		for (int c = 0; c < COLUMNS; c++) {
			size_t w = strlen(cells[i][c]) + 3;

			if (w < 12)
				w = 12;
			if (w > width[c])
				width[c] = w;
		}
	}
	for (size_t i = 0; i <= n; i++) {
		for (int c = 0; c < COLUMNS; c++) {
			if (c == COLUMNS - 1)
				printf("%s\n", cells[i][c]);
			else
				printf("%-*s", (int)width[c], cells[i][c]);
			free(cells[i][c]);
		}
		free(cells[i]);
	}
	free(cells);
}

static void print_json(struct row *rows, size_t n)
{
	struct brig_jsonw w;
	char *text;

	brig_jsonw_init(&w, NULL);
	brig_jsonw_array_begin(&w);
	for (size_t i = 0; i < n; i++) {
		const struct brig_state *s = rows[i].state;
		struct passwd *pw = getpwuid(s->owner);

		brig_jsonw_object_begin(&w);
		brig_jsonw_kv_string(&w, "ociVersion", s->oci_version);
		brig_jsonw_kv_string(&w, "id", s->id);
		brig_jsonw_kv_int(&w, "pid", rows[i].status == BRIG_STATUS_STOPPED ? 0 : s->pid);
		brig_jsonw_kv_string(&w, "status", brig_status_name(rows[i].status));
		brig_jsonw_kv_string(&w, "bundle", s->bundle);
		brig_jsonw_kv_string(&w, "rootfs", s->rootfs ? s->rootfs : "");
		brig_jsonw_kv_string(&w, "created", s->created);
		brig_jsonw_key(&w, "annotations");
		brig_jsonw_object_begin(&w);
		for (size_t k = 0; k < s->n_annotations; k++)
			brig_jsonw_kv_string(&w, s->annotations[k].key, s->annotations[k].value);
		brig_jsonw_object_end(&w);
		brig_jsonw_kv_string(&w, "owner", pw ? pw->pw_name : "");
		brig_jsonw_object_end(&w);
	}
	brig_jsonw_array_end(&w);
	text = brig_jsonw_finish(&w);
	printf("%s\n", text);
	free(text);
}

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	const char *format = a->vals[OPT_FORMAT].set ? a->vals[OPT_FORMAT].str : "table";
	struct brig_store st;
	struct row *rows = NULL;
	char **ids = NULL;
	size_t n = 0, n_rows = 0;
	int r = -1;

	if (strcmp(format, "table") != 0 && strcmp(format, "json") != 0)
		return brig_error_usage(err, "invalid --format \"%s\": expected table or json",
		                        format);
	if (brig_store_open(&st, cli->ctx.root, false, err) < 0)
		return -1;
	if (brig_store_list(&st, &ids, &n, err) < 0)
		goto out;
	rows = brig_xcalloc(n, sizeof(*rows));
	for (size_t i = 0; i < n; i++) {
		struct brig_entry e = BRIG_ENTRY_INIT;
		struct brig_error ignored = BRIG_ERROR_INIT;

		/* a container that vanishes or is half-created is skipped */
		if (brig_store_lookup(&st, ids[i], BRIG_LOCK_SHARED, &e, &ignored) == 0 &&
		    brig_entry_load(&e, &rows[n_rows].state, &ignored) == 0) {
			rows[n_rows].status = brig_container_status(rows[n_rows].state);
			n_rows++;
		}
		brig_entry_release(&e);
		brig_error_release(&ignored);
	}
	if (a->vals[OPT_QUIET].b) {
		for (size_t i = 0; i < n_rows; i++)
			printf("%s\n", rows[i].state->id);
	} else if (strcmp(format, "json") == 0) {
		print_json(rows, n_rows);
	} else {
		print_table(rows, n_rows);
	}
	r = 0;
out:
	for (size_t i = 0; i < n_rows; i++)
		brig_state_free(rows[i].state);
	free(rows);
	brig_store_free_list(ids, n);
	brig_store_close(&st);
	return r;
}

const struct brig_command brig_cmd_list = {
	.name = "list",
	.args_usage = NULL,
	.summary = "lists containers started by brig with the given root",
	.description = "   List the containers under --root, as a table, as JSON, or ids only.",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 0,
	.max_args = 0,
	.run = run,
};
