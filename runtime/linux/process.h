/* SPDX-License-Identifier: Apache-2.0 */
/*
 * process.* of config.json, applied by the container init just before it
 * execs.  Names are resolved in the parent, before the clone
 * (brig_process_prepare); the init only applies numbers.  Nothing that can
 * fail after execve is left for later.
 */
#ifndef BRIG_LINUX_PROCESS_H
#define BRIG_LINUX_PROCESS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "linux/mempolicy.h"

struct brig_error;
struct brig_process;
struct brig_kv;

/* The five capability sets as bitmasks (bit N = capability N). */
struct brig_capsets {
	uint64_t bounding, effective, inheritable, permitted, ambient;
};

/* A process spec resolved into what the kernel takes. */
struct brig_process_plan {
	struct brig_capsets caps;
	int sched_policy; /* -1: leave as is */
	uint64_t sched_flags;
	int ioprio;         /* -1: leave as is; else IOPRIO_PRIO_VALUE(class, data) */
	int personality;    /* -1: leave as is */
	char *cpus_initial; /* execCPUAffinity, verbatim ("0-3,7") or NULL */
	char *cpus_final;
	struct brig_mempolicy_plan mempolicy; /* linux.memoryPolicy (the init only) */
};

/*
 * Resolve names (capabilities, scheduler policy and flags, I/O priority
 * class, personality domain) of @p.  Unknown capability names are skipped
 * with a warning, as runc does.  Runs in the parent.
 */
int brig_process_prepare(const struct brig_process *p, const char *personality_domain,
                         struct brig_process_plan *out, struct brig_error *err);
void brig_process_plan_release(struct brig_process_plan *plan);

/*
 * The init and an exec'd process apply their settings alike, in runc's
 * order, in two runs: brig_process_apply_resources (rlimits,
 * oom_score_adj, personality, scheduler, I/O priority, the initial CPU
 * affinity, the NUMA memory policy: what @plan has none of is left
 * alone), then, after the cwd, the LSM labels, the environment and a
 * filter that must load before the capabilities drop,
 * brig_process_apply_identity (bounding set, user and groups,
 * capabilities, no_new_privs).  @procfd is the private procfs.
 */
int brig_process_apply_resources(const struct brig_process *p, const struct brig_process_plan *plan,
                                 int procfd, struct brig_error *err);
int brig_process_apply_identity(const struct brig_process *p, const struct brig_process_plan *plan,
                                int procfd, struct brig_error *err);

/* Each step below returns 0 or -1 with @err set, in the order above. */
int brig_apply_rlimits(const struct brig_process *p, struct brig_error *err);
int brig_apply_oom_score_adj(int procfd, const struct brig_process *p, struct brig_error *err);
int brig_apply_sysctl(int procfd, const struct brig_kv *kv, size_t n, struct brig_error *err);
/*
 * The procfs path of sysctl @key ("net.ipv4.ip_forward" ->
 * "sys/net/ipv4/ip_forward"), heap; NULL for a key with a '/' or an empty
 * component ("a..b", ".a", "a.").  brig_apply_sysctl checks each key with
 * it; call it in the parent to refuse a bad key before anything is created.
 */
char *brig_sysctl_path(const char *key, struct brig_error *err);
int brig_apply_personality(const struct brig_process_plan *plan, struct brig_error *err);
int brig_apply_scheduler(const struct brig_process *p, const struct brig_process_plan *plan,
                         struct brig_error *err);
int brig_apply_ioprio(const struct brig_process_plan *plan, struct brig_error *err);
int brig_apply_cpu_affinity(const char *cpus, struct brig_error *err);
/* Drop from the bounding set what it does not hold (needs CAP_SETPCAP). */
int brig_apply_bounding(const struct brig_capsets *caps, struct brig_error *err);
/* setgroups(additionalGids), setgid, setuid, keeping capabilities. */
int brig_apply_user(const struct brig_process *p, bool setgroups_allowed, struct brig_error *err);
/* effective/permitted/inheritable, then ambient, after the uid switch. */
int brig_apply_capabilities(const struct brig_capsets *caps, struct brig_error *err);
int brig_apply_no_new_privs(const struct brig_process *p, struct brig_error *err);

/*
 * Find process.args[0] as execve will: a name with a '/' is taken as is,
 * else it is looked up in the PATH of process.env (or the default PATH).
 * Errors use runc's wording, which engines map to exit codes:
 *   exec: "foo": executable file not found in $PATH
 *   exec: "/bin/x": permission denied
 * Returns a heap path.
 */
char *brig_exec_lookup(const struct brig_process *p, struct brig_error *err);

/*
 * The environment to execve with: process.env with each name once (the
 * last value wins), then @listen_fds ("LISTEN_FDS=<n>", or NULL) with
 * LISTEN_PID=1, plus HOME when there is none, taken as runc does from the
 * container's /etc/passwd entry of user.uid ("/" without one).  Call it
 * after pivot_root.  One heap block: free() it; the strings of
 * process.env are shared, not copied.
 */
char **brig_exec_env(const struct brig_process *p, const char *listen_fds);

/* chdir to @cwd, made first (inside the root) when it is missing, and
 * checked to be inside the root: a cwd reached through a leaked host fd
 * (CVE-2024-21626) is outside it. */
int brig_enter_cwd(const char *cwd, struct brig_error *err);

/*
 * In brig's own process, before the clone: the number of socket-activation
 * fds passed to it.  $LISTEN_FDS counts only when $LISTEN_PID is this
 * process (systemd's rule, which runc follows); otherwise LISTEN_FDS,
 * LISTEN_PID and LISTEN_FDNAMES are unset, so that brig_fds_prepare() in the
 * init, which cannot check the pid from its own pid namespace, keeps none.
 * runc then gives the container LISTEN_FDS=<n> and LISTEN_PID=1.
 */
unsigned int brig_listen_fds(void);

/*
 * A session keyring of the container's: "_ses.<id>", joined if it exists
 * and may be searched (the container made it so), else made new; with
 * @label (SELinux) for it and its keys.  Whatever keyring brig's caller
 * had is never the container's (the init, and every exec'd process).
 */
int brig_join_session_keyring(int procfd, const char *label, const char *id,
                              struct brig_error *err);

/*
 * First thing in main(), before brig opens anything: note which fds the
 * caller passed (those from 3 up to the first one that is not open).
 * Any fd above that hole may later be one of brig's own.  A closed stdio
 * fd is opened on /dev/null first, so that no fd of brig's becomes the
 * container's stdio.
 */
void brig_fds_note_caller(void);

/* Where the caller's fds end, for brig's own re-execution to pass on in
 * $BRIG_CALLER_FDS_ENV (brig_fds_note_caller() takes the lower one). */
int brig_fds_caller_end(void);
#define BRIG_CALLER_FDS_ENV "_BRIG_CALLER_FDS_END"

/*
 * In a child of brig's that outlives it: every fd from @from on closed
 * but the netlink sockets of @protocol (the kernel's fd table, read from
 * /proc/self/fd).  -1 when /proc cannot tell: every fd from @from on is
 * closed then.
 */
int brig_fds_keep_netlink(unsigned int from, int protocol);
/* The fds of brig's netlink sockets of @protocol, @max at most, into
 * @fds: how many. */
size_t brig_fds_netlink(int protocol, int *fds, size_t max);

/*
 * In brig's own process, after brig_listen_fds() and before anything is
 * made: the fds the init or the exec'd process will keep ($LISTEN_FDS,
 * then @preserve more) must all have been passed by the caller.  A hole
 * is refused in runc's words ("unable to stat preserved-fd 1 (of 4)"),
 * where keeping it would hand one of brig's own fds to the container.
 */
int brig_fds_check(unsigned int preserve, struct brig_error *err);

/*
 * Before execve: keep 0-2, the caller's socket-activation fds ($LISTEN_FDS,
 * from 3 on) and the @preserve fds after them, clearing close-on-exec on
 * those (brig_fds_check() made sure that they are the caller's); close
 * every other fd (close_range), whatever its flags, but the @n_spare (at
 * most 4) of @spare: brig's own, which stay until execve closes them (the
 * init's sync socket and exec fifo report a failing startContainer hook;
 * exec's joiner keeps its socket for the process it forks).
 */
/*
 * @stdio become fds 0, 1 and 2 (brig job's pipes, for an init or an exec
 * process), first thing: every later step (a terminal, the fd clean-up)
 * sees them as the caller's stdio.  Each is first copied above 2, so that
 * one which is itself 0, 1 or 2 survives.
 */
int brig_fds_place_stdio(const int *stdio, struct brig_error *err);

int brig_fds_prepare(unsigned int preserve, const int *spare, size_t n_spare,
                     struct brig_error *err);

/* Every signal back to its default action (the raw system call: glibc
 * refuses the two it keeps for itself, which a caller may have ignored). */
void brig_reset_signals(void);

#endif
