/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container lifecycle, parent side, as runc's commands see it:
 * create and run (create.c), start, kill and delete (container.c).  The
 * child side, from clone3 to execve, is init.c; they talk through sync.c.
 */
#ifndef BRIG_CONTAINER_H
#define BRIG_CONTAINER_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct brig_context;
struct brig_error;

struct brig_create_opts {
	const char *id;
	const char *bundle; /* NULL: the current directory */
	const char *pid_file;
	const char *console_socket;
	unsigned int preserve_fds;
	bool no_pivot;
	bool no_new_keyring;
	/* re-execute brig from a read-only mount of its binary once the
	 * config is read, unless its user namespace keeps the container
	 * from the binary (linux/selfexe.h) */
	bool protect_exe;
	/* run only */
	bool run; /* create and start in one go */
	bool detach;
	bool keep; /* do not delete after the container exits */
	bool no_subreaper;
	/* for brig job (job/job.c): the init's stdin, stdout and stderr
	 * (NULL: brig's own); it dies when brig does (PR_SET_PDEATHSIG, set
	 * last before execve); run --detach hands over the init's pidfd here
	 * instead of closing it */
	const int *stdio;
	bool parent_death;
	int *pidfd;
	/* a warm pool's member (job/pool.c): no exec.fifo, the init waits
	 * for its job on this socketpair (both ends stay in the init) and
	 * runs it (handoff.h); with @handoff_filtered it waits under its
	 * seccomp filter already (the profile allows what the hand-off does) */
	const int *handoff;
	bool handoff_filtered;
	/* where the cgroup goes instead of under the caller's (cgroup.h:
	 * struct brig_cgroup's @parents): a warm pool's member's */
	const char *cgroup_parents;
	/* called once the init's network namespace is there, before the
	 * state is recorded and the init goes on (brig job's egress link:
	 * its other end into the init's network namespace): while the init
	 * sets itself up when the clone made that namespace, else once the
	 * init has made every namespace of its own */
	int (*netns_ready)(void *data, int pidfd, pid_t pid, struct brig_error *err);
	void *netns_data;
};

/*
 * create: the init is left blocked before execve, a child of the caller's
 * subreaper.  run: as create, then start; in the foreground, wait for the
 * container (forwarding signals), delete it, and store its exit status in
 * *@status (128+N when killed by signal N).
 */
int brig_container_create(const struct brig_context *ctx, const struct brig_create_opts *o,
                          int *status, struct brig_error *err);

int brig_container_start(const struct brig_context *ctx, const char *id, struct brig_error *err);

/* Signal the init, or with @all every process of the container. */
int brig_container_kill(const struct brig_context *ctx, const char *id, int sig, bool all,
                        struct brig_error *err);

/* Delete a stopped or created container; with @force, kill a live one
 * first.  A missing container is an error unless @force. */
int brig_container_delete(const struct brig_context *ctx, const char *id, bool force,
                          struct brig_error *err);

/* Shared with exec (exec.c). */
struct brig_state;
/* A pidfd for the recorded init, or -1 (ESRCH) when it is gone or the pid
 * names another process now. */
int brig_open_init(const struct brig_state *s);
int brig_write_pid_file(const char *path, pid_t pid, struct brig_error *err);
/* The signals a foreground run or exec passes on to its process. */
void brig_forwarded_signals(sigset_t *set);
/*
 * Before a run or exec clones its process: *@fwd is the forwarded signals;
 * in the @foreground they are blocked (and set to their default action,
 * ignored ones too) for brig_wait_foreground to take from a signalfd, and
 * with @subreaper brig becomes a child subreaper (run, unless
 * --no-subreaper: orphans below it come back to brig).  *@saved is brig's
 * mask as it was, for the process to take back before execve.
 */
void brig_foreground_signals(bool foreground, bool subreaper, sigset_t *fwd, sigset_t *saved);
/* Wait for the process of @pidfd (a child), forwarding the signals of
 * @fwd (blocked by the caller) and relaying the pty @master (or -1);
 * *@status is its exit status, 128+N for signal N. */
int brig_wait_foreground(int pidfd, const sigset_t *fwd, int master, int *status,
                         struct brig_error *err);

/* "KILL", "SIGKILL", "9", "RTMIN+3", "0" -> the number; -1 if unknown. */
int brig_signal_parse(const char *s);

#endif
