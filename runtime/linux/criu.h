/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CRIU through its RPC interface, as runc talks to it: `criu swrk 3` is
 * started with one end of a SOCK_SEQPACKET socketpair as its fd 3, gets
 * one criu_req (a protobuf message, util/pb.h) and answers with criu_resp
 * messages: NOTIFY ones, each acknowledged once the caller's callback has
 * done its part (the pid of a restored init, a pty master in SCM_RIGHTS),
 * then the answer to the request.  Field numbers are those of CRIU's
 * rpc.proto (images/rpc.proto in CRIU's tree; criu 3.17 here).
 *
 * CRIU opens the fds named in criu_opts (images_dir_fd, work_dir_fd) as
 * /proc/<brig>/fd/N: they stay open in brig for the whole call.
 */
#ifndef BRIG_LINUX_CRIU_H
#define BRIG_LINUX_CRIU_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct brig_error;
struct brig_strbuf;

/* criu_req_type */
enum brig_criu_req {
	BRIG_CRIU_DUMP = 1,
	BRIG_CRIU_RESTORE = 2,
	BRIG_CRIU_CHECK = 3,
	BRIG_CRIU_PRE_DUMP = 4,
	BRIG_CRIU_NOTIFY = 6,
	BRIG_CRIU_FEATURE_CHECK = 9,
	BRIG_CRIU_VERSION = 10,
};

/* criu_opts fields */
enum brig_criu_opt {
	BRIG_CRIU_O_IMAGES_DIR_FD = 1,
	BRIG_CRIU_O_PID = 2,
	BRIG_CRIU_O_LEAVE_RUNNING = 3,
	BRIG_CRIU_O_EXT_UNIX_SK = 4,
	BRIG_CRIU_O_TCP_ESTABLISHED = 5,
	BRIG_CRIU_O_EVASIVE_DEVICES = 6,
	BRIG_CRIU_O_SHELL_JOB = 7,
	BRIG_CRIU_O_FILE_LOCKS = 8,
	BRIG_CRIU_O_LOG_LEVEL = 9,
	BRIG_CRIU_O_LOG_FILE = 10,
	BRIG_CRIU_O_PS = 11, /* criu_page_server_info: address 1, port 2 */
	BRIG_CRIU_O_NOTIFY_SCRIPTS = 12,
	BRIG_CRIU_O_ROOT = 13,
	BRIG_CRIU_O_PARENT_IMG = 14,
	BRIG_CRIU_O_TRACK_MEM = 15,
	BRIG_CRIU_O_AUTO_DEDUP = 16,
	BRIG_CRIU_O_WORK_DIR_FD = 17,
	BRIG_CRIU_O_EXT_MNT = 23, /* ext_mount_map: key 1, val 2 */
	BRIG_CRIU_O_MANAGE_CGROUPS = 24,
	BRIG_CRIU_O_CG_ROOT = 25, /* cgroup_root: ctrl 1, path 2 */
	BRIG_CRIU_O_RST_SIBLING = 26,
	BRIG_CRIU_O_INHERIT_FD = 27, /* inherit_fd: key 1, fd 2 */
	BRIG_CRIU_O_MANAGE_CGROUPS_MODE = 34,
	BRIG_CRIU_O_EXTERNAL = 37,
	BRIG_CRIU_O_EMPTY_NS = 38,
	BRIG_CRIU_O_JOIN_NS = 39, /* join_namespace: ns 1, ns_file 2 */
	BRIG_CRIU_O_FREEZE_CGROUP = 44,
	BRIG_CRIU_O_LAZY_PAGES = 48,
	BRIG_CRIU_O_ORPHAN_PTS_MASTER = 50,
	BRIG_CRIU_O_CONFIG_FILE = 51,
	BRIG_CRIU_O_CGROUP_YARD = 60,
};

/* criu_cg_mode */
enum brig_criu_cg_mode {
	BRIG_CRIU_CG_IGNORE = 0,
	BRIG_CRIU_CG_SOFT = 3,
	BRIG_CRIU_CG_FULL = 4,
	BRIG_CRIU_CG_STRICT = 5,
	BRIG_CRIU_CG_DEFAULT = 6,
};

/* "soft", "full", "strict", "ignore" -> the mode; -1 if unknown. */
int brig_criu_cg_mode_parse(const char *s);

/* A key/value pair message (ext_mount_map, cgroup_root, inherit_fd with
 * @fd >= 0 in place of the value), appended to criu_opts @o as @field. */
void brig_criu_put_pair(struct brig_strbuf *o, enum brig_criu_opt field, const char *key,
                        const char *val);
void brig_criu_put_inherit_fd(struct brig_strbuf *o, const char *key, int fd);

/*
 * A NOTIFY message: @script ("post-restore", "setup-namespaces",
 * "orphan-pts-master", ...), @pid where CRIU gives one (0 otherwise), @fd
 * an fd that came with it (-1 if none; the callee owns it).  Returning -1
 * aborts the request: CRIU is told nothing and undoes its work.
 */
typedef int (*brig_criu_notify_fn)(void *arg, const char *script, pid_t pid, int fd,
                                   struct brig_error *err);

struct brig_criu_call {
	const char *criu; /* the binary: --criu, "criu" from $PATH by default */
	enum brig_criu_req type;
	const struct brig_strbuf *opts; /* criu_opts, or NULL */
	/* CRIU's stdin, stdout and stderr (NULL: /dev/null), and fds it gets
	 * from 4 on (inherit_fd numbers are CRIU's) */
	const int *stdio;
	const int *extra;
	size_t n_extra;
	/* called with CRIU's pid before the request is sent (restore puts
	 * CRIU into the container's cgroup), or NULL */
	int (*started)(void *arg, pid_t criu, struct brig_error *err);
	brig_criu_notify_fn notify;
	void *notify_arg; /* for both */
	/* CRIU's log, read for its last errors when the request fails (a
	 * file in the work directory), or -1 */
	int log_dirfd;
	const char *log_name;
	/* out */
	pid_t restored; /* RESTORE: the init */
	int version;    /* VERSION: major*10000 + minor*100 + sublevel */
};

/*
 * Start CRIU, send the request, serve its notifications, and wait for
 * the answer and for CRIU's exit.  A failure says "criu failed: ..." with
 * CRIU's own message (criu_resp.cr_errmsg, else the last error lines of
 * its log) on one line.
 */
int brig_criu_run(struct brig_criu_call *c, struct brig_error *err);

/* CRIU's version, through a VERSION request (0 when CRIU cannot run). */
int brig_criu_version(const char *criu, struct brig_error *err);

/* Whether CRIU runs and its CHECK request passes on this kernel (what
 * `criu check` says). */
bool brig_criu_usable(const char *criu);

#endif
