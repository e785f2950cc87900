/* SPDX-License-Identifier: Apache-2.0 */
/*
 * OCI hooks (runtime-spec 1.3, config.md "POSIX-platform Hooks").
 *
 * Each hook is spawned with exactly its `args` (argv[0] is args[0], or
 * `path` when there are none) and exactly its `env` (empty when none), the
 * container state on stdin, its stdout and stderr captured (the tail of
 * each goes into the error of a failing hook, as runc does) and no other
 * fd.  It runs in whatever namespaces the caller is in: the caller picks
 * the process (brig itself, or the container init) that matches the stage.
 *
 * The hooks of a stage run one after the other, in order.  The first
 * failure ends the stage with an error naming it:
 *
 *     createRuntime hook #1 "/usr/bin/x": exited with status 3, stderr: no net
 *     poststart hook #0 "/bin/y": timed out after 2s
 *
 * except for poststop, where a failure is a warning in the log and the
 * remaining hooks still run (the stage always succeeds).
 */
#ifndef BRIG_HOOKS_HOOKS_H
#define BRIG_HOOKS_HOOKS_H

#include <stdbool.h>
#include <stddef.h>

#include "spec/spec.h"
#include "spec/state.h"

struct brig_error;

/* The most of a hook's stdout, and of its stderr, kept for its error. */
#define BRIG_HOOK_OUTPUT_MAX 1024

/*
 * The environment of a hook without "env" of its own: brig's, unless the
 * container init set the container process's for the hooks it runs
 * (NULL: brig's again).  runc's init runs its hooks in the process's.
 */
void brig_hooks_inherit_env(char *const *env);

/*
 * Run @n hooks of @stage, each with @state_json on its stdin (written in
 * full, whether or not the hook reads it).  A hook with a timeout is
 * SIGKILLed when it runs longer; its children are left alone, and the
 * hook's end is its own exit, not the end of its output.
 */
int brig_hooks_run(const struct brig_hook *hooks, size_t n, const char *state_json,
                   enum brig_hook_stage stage, struct brig_error *err);

/*
 * Run the hooks that @hooks has for @stage (none: nothing to do) with the
 * OCI state of @state, as of @status, on their stdin.
 */
int brig_hooks_run_stage(const struct brig_hooks *hooks, enum brig_hook_stage stage,
                         const struct brig_state *state, enum brig_status status,
                         struct brig_error *err);

static inline bool brig_hooks_has(const struct brig_hooks *hooks, enum brig_hook_stage stage)
{
	return hooks->n[stage] > 0;
}

/*
 * Whether create needs the parent <-> init hooks step (sync.h): prestart
 * and createRuntime run in the parent at that point, and createContainer
 * and startContainer, run by the init, need the init's pid as the runtime
 * sees it, which only the parent knows.
 */
static inline bool brig_hooks_need_sync(const struct brig_hooks *hooks)
{
	return brig_hooks_has(hooks, BRIG_HOOK_PRESTART) ||
	       brig_hooks_has(hooks, BRIG_HOOK_CREATE_RUNTIME) ||
	       brig_hooks_has(hooks, BRIG_HOOK_CREATE_CONTAINER) ||
	       brig_hooks_has(hooks, BRIG_HOOK_START_CONTAINER);
}

#endif
