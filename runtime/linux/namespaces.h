/* SPDX-License-Identifier: Apache-2.0 */
/*
 * linux.namespaces turned into what the kernel takes: clone3 flags for new
 * namespaces and open fds for namespaces joined by path.  Pid and time
 * namespaces apply to children, so the parent joins (or, for time, creates)
 * them before the clone; the init joins the rest itself, user first.
 */
#ifndef BRIG_LINUX_NAMESPACES_H
#define BRIG_LINUX_NAMESPACES_H

#include <stdbool.h>
#include <stdint.h>

#include "spec/spec.h"

struct brig_error;

struct brig_ns_plan {
	uint64_t clone_flags;   /* CLONE_NEW* created by clone3 */
	uint64_t unshare_flags; /* created by the init after joining a user ns,
	                         * and the cgroup ns once the init is placed */
	bool is_new[BRIG_NS_N_TYPES];
	int join_fd[BRIG_NS_N_TYPES]; /* namespaces joined by path, else -1 */
};

/*
 * Check the namespace list and everything that depends on it, before
 * anything is created: each path is a namespace of its type, no type twice,
 * a new mount namespace (brig never pivots the host), hostname/domainname
 * only with a new uts namespace, each sysctl only in a namespace the
 * container owns, timeOffsets only with a new time namespace, id mappings
 * exactly when there is a new user namespace.  Errors name config.json and
 * the JSON path.  Opens the join fds.
 */
int brig_ns_plan_build(const struct brig_config *cfg, struct brig_ns_plan *plan,
                       struct brig_error *err);
void brig_ns_plan_release(struct brig_ns_plan *plan);

/*
 * In the parent, before clone3: join the pid namespace; create or join the
 * time namespace and set its offsets.  Both apply to the next child; what
 * brig had before is kept in @saved (two fds, -1 when untouched) for
 * brig_ns_leave_parent() to restore right after the clone, so that no
 * later child of brig (hooks, a sanitizer's helper) lands there too.
 */
int brig_ns_enter_parent(const struct brig_ns_plan *plan, const struct brig_linux *lx, int saved[2],
                         struct brig_error *err);
void brig_ns_leave_parent(int saved[2]);

/* In the init: join the namespaces given by path (user first), then create
 * those that had to wait for a joined user namespace. */
int brig_ns_enter_child(const struct brig_ns_plan *plan, struct brig_error *err);

/* CLONE_NEW* for a type. */
int brig_ns_clone_flag(enum brig_ns_type type);

/* Bring "lo" up in the current network namespace, a new one (runc and
 * crun do: a container without a network still talks to itself). */
int brig_loopback_up(struct brig_error *err);
/* Whether a new network namespace of @cfg gets lo up: unless its
 * annotation "run.brig.loopback" is "down" (a container with no network
 * at all, brig job --network none). */
struct brig_config;
bool brig_loopback_wanted(const struct brig_config *cfg);

#endif
