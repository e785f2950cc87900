/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lifecycle/control.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "lifecycle/context.h"
#include "spec/state.h"
#include "lifecycle/state.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/jsonw.h"

/* One container, looked up, its state and cgroup loaded. */
struct handle {
	struct brig_container_ref c;
	struct brig_cgroup cg;
	enum brig_status status;
};

static void handle_release(struct handle *h)
{
	brig_cgroup_release(&h->cg);
	brig_container_ref_close(&h->c);
}

static enum brig_status status_of(const struct brig_state *s, const struct brig_cgroup *cg)
{
	enum brig_status status = brig_state_status(s);

	if ((status == BRIG_STATUS_RUNNING || status == BRIG_STATUS_CREATED) &&
	    brig_cgroup_frozen(cg))
		return BRIG_STATUS_PAUSED;
	return status;
}

enum brig_status brig_container_status(const struct brig_state *s)
{
	struct brig_cgroup cg = BRIG_CGROUP_INIT;
	struct brig_error ignored = BRIG_ERROR_INIT;
	enum brig_status status;

	/* (a cgroup that cannot be read back is not frozen by brig) */
	if (brig_cgroup_from_state(s, &cg, &ignored) < 0)
		status = brig_state_status(s);
	else
		status = status_of(s, &cg);
	brig_cgroup_release(&cg);
	brig_error_release(&ignored);
	return status;
}

static int handle_open(struct handle *h, const struct brig_context *ctx, const char *id,
                       enum brig_lock lock, struct brig_error *err)
{
	h->cg = (struct brig_cgroup)BRIG_CGROUP_INIT;
	if (brig_container_ref_open(&h->c, ctx->root, id, lock, err) < 0 ||
	    brig_cgroup_from_state(h->c.s, &h->cg, err) < 0)
		return -1;
	/* frozen by a pause that died before it saved the state: paused,
	 * so that resume thaws it */
	h->status = status_of(h->c.s, &h->cg);
	return 0;
}

static int set_status(struct handle *h, enum brig_status status, struct brig_error *err)
{
	h->c.s->status = status;
	return brig_entry_save(&h->c.e, h->c.s, err);
}

static int no_cgroup(const char *id, struct brig_error *err)
{
	return brig_error_set(err, "container \"%s\" has no cgroup", id);
}

int brig_container_pause(const struct brig_context *ctx, const char *id, struct brig_error *err)
{
	struct handle h;
	int r = -1;

	if (handle_open(&h, ctx, id, BRIG_LOCK_EXCLUSIVE, err) < 0)
		goto out;
	/* runc pauses running and created containers, and says this else */
	if (h.status != BRIG_STATUS_RUNNING && h.status != BRIG_STATUS_CREATED) {
		brig_error_set(err, "container not running");
		goto out;
	}
	if (!brig_cgroup_present(&h.cg)) {
		no_cgroup(id, err);
		goto out;
	}
	if (brig_cgroup_freeze(&h.cg, true, err) < 0)
		goto out;
	brig_fault("pause.frozen");
	r = set_status(&h, BRIG_STATUS_PAUSED, err);
out:
	handle_release(&h);
	return r;
}

int brig_container_resume(const struct brig_context *ctx, const char *id, struct brig_error *err)
{
	struct handle h;
	int r = -1;

	if (handle_open(&h, ctx, id, BRIG_LOCK_EXCLUSIVE, err) < 0)
		goto out;
	if (h.status != BRIG_STATUS_PAUSED) {
		brig_error_set(err, "container not paused");
		goto out;
	}
	if (brig_cgroup_freeze(&h.cg, false, err) < 0)
		goto out;
	brig_fault("resume.thawed");
	/* a created container that was paused is still waiting for start */
	r = set_status(&h,
	               faccessat(h.c.e.dirfd, "exec.fifo", F_OK, 0) == 0 ? BRIG_STATUS_CREATED
	                                                                 : BRIG_STATUS_RUNNING,
	               err);
out:
	handle_release(&h);
	return r;
}

int brig_container_update(const struct brig_context *ctx, const char *id,
                          const struct brig_resources *r, struct brig_error *err)
{
	struct handle h;
	int ret = -1;

	if (handle_open(&h, ctx, id, BRIG_LOCK_EXCLUSIVE, err) < 0)
		goto out;
	if (h.status == BRIG_STATUS_STOPPED) {
		brig_error_set(err, "container not running");
		goto out;
	}
	if (!brig_cgroup_present(&h.cg)) {
		no_cgroup(id, err);
		goto out;
	}
	ret = brig_cgroup_update(&h.cg, r, err);
	brig_fault("update.applied");
out:
	handle_release(&h);
	return ret;
}

int brig_container_usage(const struct brig_context *ctx, const char *id,
                         struct brig_cgroup_usage *u, struct brig_error *err)
{
	struct handle h;
	int r = -1;

	if (handle_open(&h, ctx, id, BRIG_LOCK_SHARED, err) == 0) {
		brig_cgroup_usage(&h.cg, u);
		r = 0;
	}
	handle_release(&h);
	return r;
}

int brig_container_pids(const struct brig_context *ctx, const char *id, pid_t **pids, size_t *n,
                        struct brig_error *err)
{
	struct handle h;
	int r = -1;

	*pids = NULL;
	*n = 0;
	if (handle_open(&h, ctx, id, BRIG_LOCK_SHARED, err) < 0)
		goto out;
	r = 0;
	if (h.status != BRIG_STATUS_STOPPED)
		r = brig_cgroup_pids(&h.cg, pids, n, err);
out:
	handle_release(&h);
	return r;
}

static void print_event(const char *type, const char *id, const struct brig_cgroup *cg)
{
	struct brig_jsonw w;
	struct brig_error ignored = BRIG_ERROR_INIT;
	_cleanup_free_ char *out = NULL;

	brig_jsonw_init(&w, NULL);
	brig_jsonw_object_begin(&w);
	brig_jsonw_kv_string(&w, "type", type);
	brig_jsonw_kv_string(&w, "id", id);
	if (cg) {
		brig_jsonw_key(&w, "data");
		brig_cgroup_stats(cg, &w, &ignored);
	}
	brig_jsonw_object_end(&w);
	out = brig_jsonw_finish(&w);
	brig_error_release(&ignored);
	printf("%s\n", out);
	fflush(stdout);
}

int brig_container_events(const struct brig_context *ctx, const char *id, bool once,
                          unsigned long interval_ms, struct brig_error *err)
{
	struct handle h;
	struct brig_cg_oom_watch oom = BRIG_CG_OOM_WATCH_INIT;
	unsigned long since = interval_ms; /* a stats event right away */
	int r = -1;

	/* the lock is dropped at once: events runs for as long as the container */
	if (handle_open(&h, ctx, id, BRIG_LOCK_SHARED, err) < 0)
		goto out;
	brig_entry_release(&h.c.e);
	if (h.status == BRIG_STATUS_STOPPED) {
		brig_error_set(err, "container with id %s is not running", id);
		goto out;
	}
	if (once) {
		print_event("stats", id, &h.cg);
		r = 0;
		goto out;
	}
	if (brig_cgroup_oom_watch(&h.cg, &oom, err) < 0)
		goto out;
	/* woken by an OOM kill at once, else every 100 ms to see whether the
	 * container is still there and whether stats are due */
	for (;;) {
		struct pollfd p = { .fd = oom.fd, .events = POLLIN };
		bool stopped = brig_state_status(h.c.s) == BRIG_STATUS_STOPPED;

		for (int64_t n = brig_cgroup_oom_read(&h.cg, &oom); n > 0; n--)
			print_event("oom", id, NULL);
		if (stopped)
			break;
		if (since >= interval_ms) {
			print_event("stats", id, &h.cg);
			since = 0;
		}
		if (poll(&p, 1, 100) == 0)
			since += 100;
	}
	r = 0;
out:
	brig_cgroup_oom_unwatch(&oom);
	handle_release(&h);
	return r;
}
