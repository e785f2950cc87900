/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/ns_premake.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "linux/namespaces.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/log.h"

static const struct {
	enum brig_ns_type type;
	const char *file; /* in /proc/thread-self/ns */
} made[3] = {
	{ BRIG_NS_NETWORK, "net" },
	{ BRIG_NS_IPC, "ipc" },
	{ BRIG_NS_UTS, "uts" },
};

/* The thread: unshare, then hold each new namespace by an fd of its own
 * (the thread's namespaces go with it); "lo" up when asked (a socket's
 * network namespace is its maker's). */
static void *premake(void *arg)
{
	struct brig_ns_premake *p = arg;
	struct brig_error err = BRIG_ERROR_INIT;

	if (brig_fault("create.premake") < 0 || unshare((int)p->flags) < 0) {
		p->errnum = errno;
		p->what = "create the container's namespaces";
		return NULL;
	}
	for (size_t i = 0; i < 3; i++) {
		char path[64];

		if (!(p->flags & (uint64_t)brig_ns_clone_flag(made[i].type)))
			continue;
		snprintf(path, sizeof(path), "/proc/thread-self/ns/%s", made[i].file);
		p->fd[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (p->fd[i] < 0) {
			p->errnum = errno;
			p->what = "open the container's new namespaces";
			return NULL;
		}
	}
	if (p->lo_up && brig_loopback_up(&err) < 0) {
		p->errnum = err.errnum ? err.errnum : EIO;
		p->what = "bring \"lo\" up";
	}
	brig_error_release(&err);
	__atomic_store_n(&p->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * The thread is started on the other CPUs brig may use, not on its own:
 * left to the scheduler, a new thread waited here on the CPU of the
 * thread that made it (0.65-1.0 ms, until that one blocked), and made its
 * namespaces after brig's work instead of beside it.  Nothing when brig
 * may use one CPU only.
 */
static void elsewhere(pthread_attr_t *attr, struct brig_ns_premake *p)
{
	cpu_set_t others;
	int cpu = sched_getcpu();

	if (cpu < 0 || sched_getaffinity(0, sizeof(p->cpus), &p->cpus) < 0 ||
	    CPU_COUNT(&p->cpus) < 2 || !CPU_ISSET(cpu, &p->cpus))
		return;
	others = p->cpus;
	CPU_CLR(cpu, &others);
	if (pthread_attr_setaffinity_np(attr, sizeof(others), &others) == 0)
		p->moved = true;
}

int brig_ns_premake_start(const struct brig_ns_plan *plan, bool lo_up, struct brig_ns_premake *p,
                          struct brig_error *err)
{
	pthread_attr_t attr;
	sigset_t all, saved;
	int r;

	if (plan->is_new[BRIG_NS_USER] || plan->join_fd[BRIG_NS_USER] >= 0)
		return 0;
	for (size_t i = 0; i < 3; i++)
		p->flags |= plan->clone_flags & (uint64_t)brig_ns_clone_flag(made[i].type);
	if (!p->flags)
		return 0;
	p->lo_up = lo_up && (p->flags & CLONE_NEWNET);
	/* no signal for the thread: one meant for brig (a foreground run
	 * forwards them) must never end it by its default action */
	sigfillset(&all);
	pthread_attr_init(&attr);
	/* room for a sanitizer's frames too; only what it touches is memory */
	pthread_attr_setstacksize(&attr, 256 * 1024);
	elsewhere(&attr, p);
	pthread_sigmask(SIG_SETMASK, &all, &saved);
	r = pthread_create(&p->thread, &attr, premake, p);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	pthread_attr_destroy(&attr);
	if (r != 0) {
		/* no thread (a caller's pids.max, its address space): the
		 * clone makes them, as it always could */
		brig_debug("namespaces not made ahead: %s", strerror(r));
		p->flags = 0;
		return 0;
	}
	p->running = true;
	return 0;
}

static void wait_thread(struct brig_ns_premake *p)
{
	if (!p->running)
		return;
	/* the other CPUs busy: this one too, now that brig waits */
	if (p->moved && !__atomic_load_n(&p->done, __ATOMIC_ACQUIRE))
		pthread_setaffinity_np(p->thread, sizeof(p->cpus), &p->cpus);
	pthread_join(p->thread, NULL);
	p->running = false;
}

int brig_ns_premake_finish(struct brig_ns_premake *p, struct brig_ns_plan *plan,
                           struct brig_error *err)
{
	wait_thread(p);
	if (p->errnum)
		return brig_error_setp(err, p->errnum, "%s", p->what);
	for (size_t i = 0; i < 3; i++) {
		enum brig_ns_type t = made[i].type;

		if (p->fd[i] < 0)
			continue;
		/* new for the container as before: only who makes it moved */
		plan->join_fd[t] = p->fd[i];
		p->fd[i] = -1;
		plan->clone_flags &= ~(uint64_t)brig_ns_clone_flag(t);
	}
	return 0;
}

void brig_ns_premake_release(struct brig_ns_premake *p)
{
	wait_thread(p);
	for (size_t i = 0; i < 3; i++) {
		if (p->fd[i] >= 0)
			close(p->fd[i]);
		p->fd[i] = -1;
	}
}
