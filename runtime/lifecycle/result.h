/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How a job ended, as one JSON object with stable field names (brig-job(8)
 * documents them): written by `brig job --result`, and for a container an
 * engine made, by the watcher of the run.brig.job.* annotations (watch.h).
 */
#ifndef BRIG_RESULT_H
#define BRIG_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "cgroup/cgroup.h"

/* brig job --network egress: what the job reached and what it was refused. */
struct brig_result_egress {
	uint64_t allowed;   /* new flows let through, and names resolved */
	uint64_t denied;    /* packets dropped, and names refused */
	uint64_t bytes_out; /* what the job sent over its link */
	uint64_t bytes_in;  /* what it received */
	const char *const *denied_names;
	size_t n_denied_names;
	const char *const *denied_addresses;
	size_t n_denied_addresses;
};

/* brig job: the calls its seccomp filter refused, counted by name */
struct brig_result_denials {
	const char *const *names;
	const uint64_t *counts;
	size_t n;
	bool truncated; /* past the most counted: answered, not counted */
};

struct brig_result {
	const char *id;
	bool exited, signaled; /* neither: not known (an engine reaped it) */
	int exit_code, signal;
	bool timed_out, oom_killed;
	int interrupted;   /* the signal that ended brig's wait, or 0 */
	const char *error; /* or NULL */
	uint64_t wall_ms;
	struct brig_cgroup_usage usage;
	bool has_streams; /* brig copied stdout and stderr */
	uint64_t stdout_bytes, stderr_bytes, stdout_dropped, stderr_dropped;
	bool has_writable; /* brig made the writable layer */
	uint64_t writable_used;
	const char *pool;    /* brig job --pool: "hit" or "miss"; NULL: no field */
	const char *warning; /* what the job ran without; NULL: no field */
	const struct brig_result_egress *egress; /* NULL: no field */
	const char *changes; /* brig job --changes -: a JSON array; NULL: no field */
	const struct brig_result_denials *denials; /* NULL: no field */
	bool audit_truncated; /* brig job --audit stopped at --audit-limit lines */
};

/* "exited", "signaled", "timeout", "oom" or "error" */
const char *brig_result_reason(const struct brig_result *r);
/* The JSON object, one line with a trailing newline; heap. */
char *brig_result_json(const struct brig_result *r);

/*
 * @text as the file @path (absolute), for a reader who must be able to
 * trust it whatever a container could write: @path's directory is opened
 * from "/" with no symlink followed in any component, the record is
 * written whole under a new name of brig's there and renamed over @path.
 * Whatever was at @path (a file, a FIFO, a hard link, a symlink) is
 * replaced, never opened, read or written through; nothing is made when
 * the directory cannot be reached so (a symlink on the way: ELOOP).
 */
int brig_result_write_file(const char *path, const char *text, struct brig_error *err);
/* The extended attribute that marks a record brig_result_write_file()
 * wrote (trusted.*: only the host's root sets it, never a container). */
#define BRIG_RESULT_XATTR "trusted.brig.result"
/* What brig_result_write_file() refuses whatever happens later: @path is
 * no file's path, or a component of its directory is a symlink now; and,
 * since the record replaces what is at @path in the end, something there
 * now that is not an earlier record of brig's (BRIG_RESULT_XATTR): no
 * annotation's author makes brig replace a file of the host's.  A
 * directory that is missing passes (it may be made before the end). */
int brig_result_check_path(const char *path, struct brig_error *err);

#endif
