/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What engines do to a container that exists, through its cgroup: pause,
 * resume, update, ps and events.  The lifecycle itself is container.c.
 */
#ifndef BRIG_CONTROL_H
#define BRIG_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct brig_context;
struct brig_error;
struct brig_resources;
struct brig_state;

/*
 * The status of the container of @s, as state, list, pause and resume see
 * it: brig_state_status(), except that a running or created container
 * whose cgroup is frozen is paused, as runc reads it from the freezer (a
 * pause killed after it froze the cgroup, before it saved the state).
 */
enum brig_status brig_container_status(const struct brig_state *s);

/* Freeze every process (running or created containers), and thaw. */
int brig_container_pause(const struct brig_context *ctx, const char *id, struct brig_error *err);
int brig_container_resume(const struct brig_context *ctx, const char *id, struct brig_error *err);

/* Apply what @r sets to the container's cgroup; the rest stays. */
int brig_container_update(const struct brig_context *ctx, const char *id,
                          const struct brig_resources *r, struct brig_error *err);

/* What the container used so far, from its cgroup (brig job's result);
 * zeros without a cgroup. */
struct brig_cgroup_usage;
int brig_container_usage(const struct brig_context *ctx, const char *id,
                         struct brig_cgroup_usage *u, struct brig_error *err);

/* The pids of the container's processes, sorted (none once stopped). */
int brig_container_pids(const struct brig_context *ctx, const char *id, pid_t **pids, size_t *n,
                        struct brig_error *err);

/*
 * events: print runc's JSON events to stdout, one per line.  With @once,
 * one "stats" event; else a "stats" event every @interval_ms and an "oom"
 * event for each OOM kill, until the container stops.
 */
int brig_container_events(const struct brig_context *ctx, const char *id, bool once,
                          unsigned long interval_ms, struct brig_error *err);

#endif
