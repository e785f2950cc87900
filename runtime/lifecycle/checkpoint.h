/* SPDX-License-Identifier: Apache-2.0 */
/*
 * checkpoint and restore through CRIU (linux/criu.h), as runc does them:
 * checkpoint dumps a running container's process tree into an image
 * directory (and, unless told to leave it running, deletes the
 * container); restore makes a new container from a bundle and an image,
 * in a cgroup of its own, under any id, as often as asked.
 */
#ifndef BRIG_CHECKPOINT_H
#define BRIG_CHECKPOINT_H

#include <stdbool.h>

struct brig_context;
struct brig_error;

/* What checkpoint and restore share (runc's flags of both). */
struct brig_criu_flags {
	const char *image_path; /* NULL: "checkpoint" in the current directory */
	const char *work_path;  /* NULL: the image directory */
	bool tcp_established;
	bool ext_unix_sk;
	bool shell_job;
	bool file_locks;
	bool auto_dedup;
	bool lazy_pages;
	int manage_cgroups_mode; /* enum brig_criu_cg_mode; -1: CRIU's default */
};

struct brig_checkpoint_opts {
	const char *id;
	struct brig_criu_flags f;
	const char *parent_path; /* relative to the image directory */
	const char *page_server; /* ADDRESS:PORT */
	bool leave_running;
	bool pre_dump;
};

int brig_container_checkpoint(const struct brig_context *ctx, const struct brig_checkpoint_opts *o,
                              struct brig_error *err);

struct brig_restore_opts {
	const char *id;
	const char *bundle; /* NULL: the current directory */
	struct brig_criu_flags f;
	const char *pid_file;
	const char *console_socket;
	bool detach;
	bool no_subreaper;
	bool no_pivot; /* accepted: CRIU makes the mount namespace */
	/* brig job --from-checkpoint (job/job.c): the root is @rootfs (the
	 * job's overlay) instead of the bundle's root.path, the image's stdio
	 * pipes become @stdio, the cgroup is named by the id whatever
	 * linux.cgroupsPath says, and *@pidfd gets a pidfd of the init */
	const char *rootfs;
	const int *stdio;
	bool own_cgroup;
	int *pidfd;
};

/* In the foreground, *@status is the restored container's exit status
 * (128+N when killed by signal N), and the container is deleted. */
int brig_container_restore(const struct brig_context *ctx, const struct brig_restore_opts *o,
                           int *status, struct brig_error *err);

#endif
