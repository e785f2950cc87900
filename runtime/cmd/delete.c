/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

#include <errno.h>

#include "state.h"
#include "util/error.h"

enum { O_FORCE };

static const struct brig_option options[] = {
	[O_FORCE] = { "force", 'f', BRIG_OPT_BOOL, NULL,
		      "forcibly delete the container if it is still running (uses SIGKILL)",
		      NULL },
};

static int run(struct brig_context *ctx, struct brig_args *a, struct brig_error *err)
{
	bool force = a->vals[O_FORCE].b;
	struct brig_store st;
	struct brig_entry e = BRIG_ENTRY_INIT;
	struct brig_state *s = NULL;
	enum brig_status status;
	int r = -1;

	if (brig_store_open(&st, ctx->root, false, err) < 0)
		return -1;
	/* A create that died half-way leaves a directory without state: it
	 * is removed here, and with --force a missing container is no error
	 * (runc's behaviour, which engines rely on). */
	if (brig_store_lookup(&st, a->pos[0], BRIG_LOCK_EXCLUSIVE_ANY, &e, err) < 0) {
		if (force && err->errnum == ENOENT) {
			brig_error_release(err);
			r = 0;
		}
		goto out;
	}
	if (brig_entry_load(&e, &s, err) < 0) {
		if (err->errnum != ENOENT)
			goto out;
		brig_error_release(err);
		r = brig_entry_remove(&e, err);
		if (r == 0 && !force)
			r = brig_error_set(err, "container \"%s\" does not exist", a->pos[0]);
		goto out;
	}
	status = brig_state_status(s);
	if (status != BRIG_STATUS_STOPPED) {
		if (!force) {
			brig_error_set(err, "cannot delete container \"%s\" that is not stopped: %s",
				       s->id, brig_status_name(status));
			goto out;
		}
		/* killing a live container arrives with the lifecycle */
		brig_cmd_not_implemented("delete --force of a live container", err);
		goto out;
	}
	r = brig_entry_remove(&e, err);
out:
	brig_state_free(s);
	brig_entry_release(&e);
	brig_store_close(&st);
	return r;
}

const struct brig_command brig_cmd_delete = {
	.name = "delete",
	.args_usage = "<container-id>",
	.summary = "delete any resources held by the container",
	.description =
		"   Delete a stopped container and everything brig holds for it. With\n"
		"   --force, a running container is killed first, and a container that does\n"
		"   not exist is not an error.",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
