/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container init, from clone3 to execve.  It runs brig's code in the
 * container's namespaces: it builds the rootfs, pivots into it, applies the
 * process settings and then becomes the container's process.  It reports
 * progress and errors to the parent through sync.c and never returns.
 */
#ifndef BRIG_INIT_H
#define BRIG_INIT_H

#include <signal.h>
#include <stdbool.h>

#include "linux/rootfs.h"

struct brig_cgroup;
struct brig_config;
struct brig_ns_plan;
struct brig_process_plan;
struct brig_seccomp_prog;

struct brig_init_args {
	const struct brig_config *cfg;
	const struct brig_ns_plan *ns;
	const struct brig_process_plan *plan;
	const struct brig_seccomp_prog *seccomp; /* NULL: no filter */
	struct brig_cgroup *cg;                  /* the init enters its tasks fds */
	const char *id;
	const char *bundle;        /* absolute */
	struct brig_rootfs rootfs; /* where, and how it is entered */
	int sync_fd;               /* the init's end of the socketpair */
	int fifo_fd;               /* create: exec.fifo (O_RDWR); run: -1 */
	unsigned int preserve_fds;
	bool no_new_keyring;
	bool late_nondumpable; /* turn non-dumpable after MAPS_DONE (rootless) */
	bool parent_binds;     /* brig makes every bind mount (linux/idmap.h) */
	sigset_t saved_mask;   /* the signal mask to exec with */
	const int *stdio;      /* the process's fds 0, 1, 2, or NULL: brig's */
	bool parent_death;     /* SIGKILL when brig dies (PR_SET_PDEATHSIG) */
	const int *handoff;    /* a pool member's: both ends of the socket it
	                        * waits on for its job (handoff.h); NULL: none */
	bool handoff_filtered; /* it loads its filter before it waits */
};

__attribute__((noreturn)) void brig_init_main(const struct brig_init_args *a);

#endif
