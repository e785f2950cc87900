/* SPDX-License-Identifier: Apache-2.0 */
/*
 * linux.memoryPolicy (runtime-spec 1.3): the NUMA memory policy of the
 * container's process, as set_mempolicy(2) takes it.  The parent checks
 * the config and builds the node mask; the init sets the policy before
 * execve (and before the seccomp filter), so that the process and all it
 * forks inherit it, as under crun.
 */
#ifndef BRIG_LINUX_MEMPOLICY_H
#define BRIG_LINUX_MEMPOLICY_H

#include <stdbool.h>
#include <stddef.h>

struct brig_error;
struct brig_memory_policy;

/* The highest node number + 1 a node list may name (crun's limit). */
#define BRIG_MPOL_NODES 4096

struct brig_mempolicy_plan {
	bool set;          /* false: the policy is left as inherited */
	int mode;          /* MPOL_* | MPOL_F_* */
	const char *name;  /* the mode's name, for errors */
	const char *nodes; /* the list as written, for errors */
	bool has_mask;     /* false: no mask (NULL, maxnode 0) */
	unsigned long mask[BRIG_MPOL_NODES / (8 * sizeof(unsigned long))];
};

/* Check @mp and build @out (@mp NULL: nothing to set).  Errors name the
 * JSON path: "config.json: linux.memoryPolicy.nodes: ...". */
int brig_mempolicy_prepare(const struct brig_memory_policy *mp, struct brig_mempolicy_plan *out,
                           struct brig_error *err);

/* Set the policy of the calling thread (the init), if any. */
int brig_mempolicy_apply(const struct brig_mempolicy_plan *plan, struct brig_error *err);

#endif
