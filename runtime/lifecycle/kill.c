/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kill (container.h: brig_container_kill): a signal to the container's
 * init, or with --all to every process of it: its cgroup's (cgroup.kill,
 * or frozen meanwhile) where brig made that cgroup, else its pid
 * namespace's.  The watcher (watch.c) ends a container at its deadline
 * with it.
 */
#include "config.h"
#include "lifecycle/container.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "lifecycle/context.h"
#include "lifecycle/state.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/log.h"

/*
 * Every process in the pid namespace of the init (itself included).  Each
 * pid is opened first and its namespace checked after: a signal that
 * reaches the pidfd's process proves it alive, so it was the one /proc
 * showed, never a process that took the pid over meanwhile.
 */
static int signal_pidns(const struct brig_state *s, int sig, struct brig_error *err)
{
	_cleanup_closedir_ DIR *d = opendir("/proc");
	char path[300];
	struct stat ns, other;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)s->pid);
	if (!d || stat(path, &ns) < 0)
		return brig_error_setp(err, errno, "list the container's processes");
	while ((de = readdir(d))) {
		_cleanup_close_ int fd = -1;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		fd = pidfd_open(atoi(de->d_name), 0);
		if (fd < 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/pid", de->d_name);
		if (stat(path, &other) < 0 || other.st_ino != ns.st_ino ||
		    other.st_dev != ns.st_dev)
			continue;
		pidfd_send_signal(fd, sig, NULL, 0);
	}
	return 0;
}

/* Every process of the container's cgroup, none forking past the signal
 * (cgroup.h: cgroup.kill, or frozen meanwhile, runc's way; SIGKILL until
 * none is left), when brig made that cgroup for it; else *@done stays
 * false. */
static int signal_cgroup(const struct brig_state *s, int sig, bool *done, struct brig_error *err)
{
	struct brig_cgroup cg = BRIG_CGROUP_INIT;
	int r = brig_cgroup_from_state(s, &cg, err);

	if (r == 0)
		r = brig_cgroup_signal(&cg, sig, err);
	*done = r == 0;
	brig_cgroup_release(&cg);
	return r < 0 ? -1 : 0;
}

int brig_container_kill(const struct brig_context *ctx, const char *id, int sig, bool all,
                        struct brig_error *err)
{
	struct brig_container_ref c;
	struct brig_state *s;
	_cleanup_close_ int pidfd = -1;
	bool by_cgroup = false;
	int r = -1;

	if (brig_container_ref_open(&c, ctx->root, id, BRIG_LOCK_SHARED, err) < 0)
		goto out;
	s = c.s;
	if (brig_state_status(s) == BRIG_STATUS_STOPPED || (pidfd = brig_open_init(s)) < 0) {
		/* with --all, what is left in its cgroup (a child of the init
		 * in a pid namespace it shares outlives it) is signalled, and
		 * none is no error: runc 1.1.5's rule */
		if (all) {
			r = s->n_cgroup_paths ? signal_cgroup(s, sig, &by_cgroup, err) : 0;
			goto out;
		}
		/* containerd's shim matches this text */
		brig_error_set(err, "container not running");
		goto out;
	}
	if (all && s->n_cgroup_paths && signal_cgroup(s, sig, &by_cgroup, err) < 0)
		goto out;
	if (by_cgroup)
		r = 0;
	else if (all && s->own_pidns)
		r = signal_pidns(s, sig, err);
	else if (pidfd_send_signal(pidfd, sig, NULL, 0) < 0)
		r = brig_error_setp(err, errno, "kill container \"%s\"", id);
	else
		r = 0;
	if (all && !by_cgroup && !s->own_pidns)
		brig_warn("kill --all: the container shares a pid namespace and has no cgroup of "
		          "its own; only its init was signalled");
out:
	brig_container_ref_close(&c);
	return r;
}
