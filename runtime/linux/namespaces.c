/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/namespaces.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "linux/process.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"

/* The order the init joins namespaces in: user first (it grants the
 * rights for the rest), mount last (it changes what paths mean). */
static const enum brig_ns_type join_order[] = {
	BRIG_NS_USER, BRIG_NS_IPC, BRIG_NS_UTS, BRIG_NS_NETWORK, BRIG_NS_CGROUP, BRIG_NS_MOUNT,
};

int brig_ns_clone_flag(enum brig_ns_type type)
{
	switch (type) {
	case BRIG_NS_PID:
		return CLONE_NEWPID;
	case BRIG_NS_NETWORK:
		return CLONE_NEWNET;
	case BRIG_NS_MOUNT:
		return CLONE_NEWNS;
	case BRIG_NS_IPC:
		return CLONE_NEWIPC;
	case BRIG_NS_UTS:
		return CLONE_NEWUTS;
	case BRIG_NS_USER:
		return CLONE_NEWUSER;
	case BRIG_NS_CGROUP:
		return CLONE_NEWCGROUP;
	case BRIG_NS_TIME:
		return CLONE_NEWTIME;
	default:
		return 0;
	}
}

static int open_ns(const struct brig_namespace *ns, size_t index, struct brig_error *err)
{
	int fd = open(ns->path, O_RDONLY | O_CLOEXEC);
	int type;

	if (fd < 0)
		return brig_error_setp(err, errno,
		                       "config.json: linux.namespaces[%zu].path: open \"%s\"",
		                       index, ns->path);
	type = ioctl(fd, NS_GET_NSTYPE);
	if (type < 0 || type != brig_ns_clone_flag(ns->type)) {
		close(fd);
		return brig_error_set(
		    err, "config.json: linux.namespaces[%zu].path: \"%s\" is not a %s namespace",
		    index, ns->path, brig_ns_type_name(ns->type));
	}
	return fd;
}

/* Which namespace a sysctl belongs to, as runc decides it; -1: none (a
 * host-wide setting the container may not change). */
static int sysctl_namespace(const char *key)
{
	static const char *const ipc[] = {
		"kernel.msgmax", "kernel.msgmnb",          "kernel.msgmni",
		"kernel.sem",    "kernel.shmall",          "kernel.shmmax",
		"kernel.shmmni", "kernel.shm_rmid_forced", NULL
	};

	for (int i = 0; ipc[i]; i++)
		if (strcmp(key, ipc[i]) == 0)
			return BRIG_NS_IPC;
	if (strncmp(key, "fs.mqueue.", 10) == 0)
		return BRIG_NS_IPC;
	if (strncmp(key, "net.", 4) == 0)
		return BRIG_NS_NETWORK;
	if (strcmp(key, "kernel.hostname") == 0 || strcmp(key, "kernel.domainname") == 0)
		return BRIG_NS_UTS;
	return -1;
}

static int check_dependents(const struct brig_config *cfg, const struct brig_ns_plan *plan,
                            struct brig_error *err)
{
	const struct brig_linux *lx = cfg->linux;

	/* without a mount namespace the container's mounts are made in its
	 * caller's (runc's behaviour), where nothing is masked */
	if (!plan->is_new[BRIG_NS_MOUNT] && plan->join_fd[BRIG_NS_MOUNT] < 0 && lx &&
	    (lx->n_masked_paths || lx->n_readonly_paths))
		return brig_error_set(err,
		                      "config.json: linux.%s: unable to restrict sys entries "
		                      "without a private mount namespace",
		                      lx->n_masked_paths ? "maskedPaths" : "readonlyPaths");
	/* a uts namespace of its own, new or joined (runc sets the name in a
	 * joined one too); never the host's */
	bool own_uts = plan->is_new[BRIG_NS_UTS] || plan->join_fd[BRIG_NS_UTS] >= 0;

	if (cfg->hostname && cfg->hostname[0] && !own_uts)
		return brig_error_set(err, "config.json: hostname: requires a uts namespace");
	if (cfg->domainname && cfg->domainname[0] && !own_uts)
		return brig_error_set(err, "config.json: domainname: requires a uts namespace");
	if (!lx)
		return 0;
	for (size_t i = 0; i < lx->n_sysctl; i++) {
		int ns = sysctl_namespace(lx->sysctl[i].key);
		char *path = brig_sysctl_path(lx->sysctl[i].key, err);

		if (!path)
			return brig_error_wrap(err, "config.json: linux.sysctl");
		free(path);

		if (ns < 0)
			return brig_error_set(err,
			                      "config.json: linux.sysctl[\"%.64s\"]: not "
			                      "namespaced: the container may not set it",
			                      lx->sysctl[i].key);
		if (!plan->is_new[ns])
			return brig_error_set(err,
			                      "config.json: linux.sysctl[\"%.64s\"]: requires a "
			                      "new %s namespace",
			                      lx->sysctl[i].key, brig_ns_type_name(ns));
		/* the name is the hostname field's to set, as runc and crun
		 * rule (kernel.domainname has no rival: Docker sets the NIS
		 * domain through it) */
		if (strcmp(lx->sysctl[i].key, "kernel.hostname") == 0)
			return brig_error_set(
			    err, "config.json: linux.sysctl: sysctl \"kernel.hostname\" "
			         "is not allowed as it conflicts with the OCI "
			         "\"hostname\" field");
	}
	if (lx->n_time_offsets && !plan->is_new[BRIG_NS_TIME])
		return brig_error_set(err, "config.json: linux.timeOffsets: requires a new time "
		                           "namespace");
	/* with a joined user namespace the mappings are that namespace's
	 * (runc 1.1 even requires them there): not written again */
	if ((lx->n_uid_mappings || lx->n_gid_mappings) && !plan->is_new[BRIG_NS_USER] &&
	    plan->join_fd[BRIG_NS_USER] < 0)
		return brig_error_set(err, "config.json: linux.uidMappings: requires a new user "
		                           "namespace");
	if (plan->is_new[BRIG_NS_USER] && (!lx->n_uid_mappings || !lx->n_gid_mappings))
		return brig_error_set(err, "config.json: linux.uidMappings: a new user namespace "
		                           "needs uidMappings and gidMappings");
	if (plan->join_fd[BRIG_NS_USER] >= 0 && plan->is_new[BRIG_NS_PID])
		return brig_error_set(err, "config.json: linux.namespaces: a new pid namespace "
		                           "inside a joined user namespace is not supported");
	return 0;
}

int brig_ns_plan_build(const struct brig_config *cfg, struct brig_ns_plan *plan,
                       struct brig_error *err)
{
	const struct brig_linux *lx = cfg->linux;

	memset(plan, 0, sizeof(*plan));
	for (int t = 0; t < BRIG_NS_N_TYPES; t++)
		plan->join_fd[t] = -1;
	for (size_t i = 0; lx && i < lx->n_namespaces; i++) {
		const struct brig_namespace *ns = &lx->namespaces[i];

		if (ns->path) {
			plan->join_fd[ns->type] = open_ns(ns, i, err);
			if (plan->join_fd[ns->type] < 0)
				goto fail;
		} else {
			plan->is_new[ns->type] = true;
		}
	}
	if (check_dependents(cfg, plan, err) < 0)
		goto fail;
	for (int t = 0; t < BRIG_NS_N_TYPES; t++) {
		if (!plan->is_new[t] || t == BRIG_NS_TIME)
			continue;
		/* the cgroup namespace, once the parent has put the init in its
		 * cgroups (v1 hierarchies cannot be entered at clone time): its
		 * root is the container's cgroup, not the caller's */
		/* the ipc namespace, once the init is the new user namespace's
		 * root: its mqueue filesystem then belongs to that root (runc) */
		if (plan->join_fd[BRIG_NS_USER] >= 0 || t == BRIG_NS_CGROUP ||
		    (t == BRIG_NS_IPC && plan->is_new[BRIG_NS_USER]))
			plan->unshare_flags |= (uint64_t)brig_ns_clone_flag(t);
		else
			plan->clone_flags |= (uint64_t)brig_ns_clone_flag(t);
	}
	return 0;
fail:
	brig_ns_plan_release(plan);
	return -1;
}

void brig_ns_plan_release(struct brig_ns_plan *plan)
{
	for (int t = 0; t < BRIG_NS_N_TYPES; t++) {
		if (plan->join_fd[t] >= 0)
			close(plan->join_fd[t]);
		plan->join_fd[t] = -1;
	}
}

int brig_ns_enter_parent(const struct brig_ns_plan *plan, const struct brig_linux *lx, int saved[2],
                         struct brig_error *err)
{
	bool pid = plan->join_fd[BRIG_NS_PID] >= 0;
	bool time = plan->join_fd[BRIG_NS_TIME] >= 0 || plan->is_new[BRIG_NS_TIME];

	saved[0] = pid ? open("/proc/self/ns/pid_for_children", O_RDONLY | O_CLOEXEC) : -1;
	saved[1] = time ? open("/proc/self/ns/time", O_RDONLY | O_CLOEXEC) : -1;
	if ((pid && saved[0] < 0) || (time && saved[1] < 0))
		return brig_error_setp(err, errno, "open brig's own namespaces");
	if (pid && setns(plan->join_fd[BRIG_NS_PID], CLONE_NEWPID) < 0)
		return brig_error_setp(err, errno, "join the pid namespace");
	if (plan->join_fd[BRIG_NS_TIME] >= 0 &&
	    setns(plan->join_fd[BRIG_NS_TIME], CLONE_NEWTIME) < 0)
		return brig_error_setp(err, errno, "join the time namespace");
	if (plan->is_new[BRIG_NS_TIME]) {
		/* offsets can be set only before a process lives in the new
		 * namespace: unshare here, the init is born into it */
		if (unshare(CLONE_NEWTIME) < 0)
			return brig_error_setp(err, errno, "create a time namespace");
		for (size_t i = 0; lx && i < lx->n_time_offsets; i++) {
			const struct brig_time_offset *o = &lx->time_offsets[i];
			_cleanup_close_ int fd =
			    open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
			char line[96];
			int n = snprintf(line, sizeof(line), "%s %lld %u\n", o->clock,
			                 (long long)o->secs, o->nanosecs);

			if (fd < 0 || write(fd, line, (size_t)n) != n)
				return brig_error_setp(err, errno,
				                       "set the %s offset of the time namespace",
				                       o->clock);
		}
	}
	return 0;
}

void brig_ns_leave_parent(int saved[2])
{
	if (saved[0] >= 0) {
		setns(saved[0], CLONE_NEWPID);
		close(saved[0]);
	}
	if (saved[1] >= 0) {
		setns(saved[1], CLONE_NEWTIME);
		close(saved[1]);
	}
	saved[0] = saved[1] = -1;
}

int brig_ns_enter_child(const struct brig_ns_plan *plan, struct brig_error *err)
{
	for (size_t i = 0; i < ARRAY_SIZE(join_order); i++) {
		enum brig_ns_type t = join_order[i];

		if (plan->join_fd[t] >= 0 && setns(plan->join_fd[t], brig_ns_clone_flag(t)) < 0)
			return brig_error_setp(err, errno, "join the %s namespace",
			                       brig_ns_type_name(t));
	}
	if (plan->unshare_flags && unshare((int)plan->unshare_flags) < 0)
		return brig_error_setp(err, errno, "create namespaces");
	return 0;
}

bool brig_loopback_wanted(const struct brig_config *cfg)
{
	for (size_t i = 0; i < cfg->n_annotations; i++)
		if (!strcmp(cfg->annotations[i].key, "run.brig.loopback"))
			return strcmp(cfg->annotations[i].value, "down") != 0;
	return true;
}

int brig_loopback_up(struct brig_error *err)
{
	/* any socket reaches the device ioctls: a unix one needs no protocol
	 * the namespace may lack */
	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr = { .ifr_name = "lo" };

	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		return brig_error_setp(err, errno, "loopback: get the flags of \"lo\"");
	if (ifr.ifr_flags & IFF_UP)
		return 0;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		return brig_error_setp(err, errno, "loopback: bring \"lo\" up");
	return 0;
}
