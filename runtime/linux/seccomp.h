/* SPDX-License-Identifier: Apache-2.0 */
/*
 * linux.seccomp, crun's way: the filter is compiled with libseccomp in the
 * parent, before the clone, into a classic BPF program; the container init
 * only hands that program to seccomp(2), with no libseccomp code and no
 * allocation between the load and execve.
 *
 *   parent:  brig_seccomp_prepare(cfg->linux->seccomp, &prog, err)
 *   init:    fd = brig_seccomp_load(&prog, err)    (the notify fd, or 0)
 *   parent:  brig_seccomp_send_listener(sc, fd, pid, state, err)   (notify only)
 *
 * The filter follows runc: SCMP_ACT_KILL is KILL_THREAD; ERRNO and TRACE
 * return EPERM unless errnoRet says otherwise; a syscall name unknown to
 * libseccomp is skipped (debug log); a rule whose action is the default
 * action is skipped; the args of a rule are ANDed into one rule, unless two
 * of them test the same argument, in which case each arg is a rule of its
 * own (ORed).  The flags are seccomp(2)'s own: TSYNC, LOG, SPEC_ALLOW, and
 * WAIT_KILLABLE_RECV (which the kernel takes only with a notify listener).
 * Unless the default action lets calls through, a call numbered above the
 * highest one the profile names (per architecture) gets ENOSYS, as from an
 * older kernel: runc's "patchbpf" stub, before libseccomp's program.
 */
#ifndef BRIG_LINUX_SECCOMP_H
#define BRIG_LINUX_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct brig_error;
struct brig_seccomp;
struct brig_state;

struct brig_seccomp_prog {
	void *insns;        /* struct sock_filter[len], heap */
	unsigned short len; /* instructions */
	unsigned int flags; /* SECCOMP_FILTER_FLAG_* for seccomp(SECCOMP_SET_MODE_FILTER) */
	bool notify;        /* SCMP_ACT_NOTIFY is used: flags hold NEW_LISTENER */
};

#define BRIG_SECCOMP_PROG_INIT    \
	{                         \
		NULL, 0, 0, false \
	}

/*
 * Compile @sc for the running kernel (runs in the parent), or take the
 * program from the cache under the state root @rootfd (-1: no cache; see
 * linux/seccomp_cache.h).  Errors name the config entry:
 * 'config.json: linux.seccomp.flags: "SECCOMP_FILTER_FLAG_LOG" is not
 * supported by the kernel'.  Fails when brig is built without libseccomp.
 */
int brig_seccomp_prepare(const struct brig_seccomp *sc, int rootfd, struct brig_seccomp_prog *out,
                         struct brig_error *err);
void brig_seccomp_prog_release(struct brig_seccomp_prog *prog);

/*
 * When a process's filter is loaded, the container's init and an exec'd
 * process alike: with noNewPrivileges false, before the capabilities drop
 * (loading takes CAP_SYS_ADMIN then; runc's order); a filter that
 * notifies, before READY (its fd goes to brig); any other, last, right
 * before execve (the init: before the startContainer hooks, programs of
 * the container that never run unfiltered), so that it sees as few of
 * brig's own system calls as possible.
 */
enum brig_seccomp_when {
	BRIG_SECCOMP_NONE,
	BRIG_SECCOMP_BEFORE_CAPS,
	BRIG_SECCOMP_BEFORE_READY,
	BRIG_SECCOMP_LAST,
};
enum brig_seccomp_when brig_seccomp_when(const struct brig_seccomp_prog *prog, bool no_new_privs);

/*
 * Install @prog on the calling thread: needs no_new_privs or CAP_SYS_ADMIN.
 * Returns the notify fd when @prog->notify, else 0; -1 with @err set.
 * Makes no system call but seccomp(2) on success.
 */
int brig_seccomp_load(const struct brig_seccomp_prog *prog, struct brig_error *err);

/*
 * Connect to listenerPath and send the container process state of the
 * runtime spec, as runc does -- {"ociVersion", "fds": ["seccompFd"], "pid"
 * (@pid, the filtered process), "metadata", "state": <@state as a hook
 * reads it>} -- with @notify_fd in SCM_RIGHTS.
 */
int brig_seccomp_send_listener(const struct brig_seccomp *sc, int notify_fd, pid_t pid,
                               const struct brig_state *state, struct brig_error *err);

/* For `brig features`: whether the kernel takes flag @name in a filter
 * ("SECCOMP_FILTER_FLAG_LOG"), and action @name ("SCMP_ACT_LOG"). */
bool brig_seccomp_flag_supported(const char *name);
bool brig_seccomp_action_supported(const char *name);
/* Whether libseccomp knows architecture @name ("SCMP_ARCH_X86_64"). */
bool brig_seccomp_arch_known(const char *name);

#endif
