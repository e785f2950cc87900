/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The network, IPC and UTS namespaces of a container, made ahead by a
 * thread of brig's while brig claims the state directory and makes the
 * cgroup, rather than by the init's clone3.  A new network namespace is
 * the dearest part of that clone (its devices, its sysctls, "lo": some
 * 0.4 ms of kernel time here, an IPC namespace's mqueue mount about 0.1
 * ms more); with a CPU free, none of it is on the way to the container's
 * start any more.  The init joins them first thing, as it joins
 * namespaces given by path (brig_ns_enter_child), and is then in the
 * same namespaces it would have made itself: new ones, owned by the
 * initial user namespace, as clone3 in brig would have made them.
 *
 * Only for a container without a user namespace (new or joined): the
 * namespaces its clone or its init makes belong to that user namespace,
 * and must (its root administers its own network), so they stay the
 * init's to make.
 */
#ifndef BRIG_LINUX_NS_PREMAKE_H
#define BRIG_LINUX_NS_PREMAKE_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

struct brig_error;
struct brig_ns_plan;

struct brig_ns_premake {
	pthread_t thread;
	bool running;
	bool moved;       /* started on the CPUs other than brig's */
	bool done;        /* the thread's last store (atomic) */
	cpu_set_t cpus;   /* brig's own, for the thread once brig waits */
	bool lo_up;       /* and brings "lo" up in the new network namespace */
	uint64_t flags;   /* CLONE_NEW* the thread makes */
	int fd[3];        /* network, IPC, UTS: the new namespaces, or -1 */
	int errnum;       /* the thread's failure (0: none) */
	const char *what; /* and what failed */
};

#define BRIG_NS_PREMAKE_INIT         \
	{                            \
		.fd = { -1, -1, -1 } \
	}

/* Start the thread for what of @plan it can make (nothing when the plan
 * has a user namespace, or none of the three new); with @lo_up, it brings
 * "lo" up in the new network namespace too (brig_loopback_wanted). */
int brig_ns_premake_start(const struct brig_ns_plan *plan, bool lo_up, struct brig_ns_premake *p,
                          struct brig_error *err);

/* Wait for the thread; its namespaces become @plan's joined ones, and
 * the clone's flags lose them.  Before the clone. */
int brig_ns_premake_finish(struct brig_ns_premake *p, struct brig_ns_plan *plan,
                           struct brig_error *err);

/* Wait for a thread still running; close what the plan did not take. */
void brig_ns_premake_release(struct brig_ns_premake *p);

#endif
