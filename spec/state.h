/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The state of one container: what brig keeps in <root>/<id>/state.json,
 * and the OCI state document that `brig state` prints from it.
 */
#ifndef BRIG_SPEC_STATE_H
#define BRIG_SPEC_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "spec/spec.h"

struct brig_error;
struct brig_jsonw;

enum brig_status {
	BRIG_STATUS_CREATING,
	BRIG_STATUS_CREATED,
	BRIG_STATUS_RUNNING,
	BRIG_STATUS_PAUSED,
	BRIG_STATUS_STOPPED,
	BRIG_STATUS_N,
};

/* "creating", "created", "running", "paused", "stopped" */
const char *brig_status_name(enum brig_status status);

struct brig_state {
	struct brig_arena arena; /* owns every string below */
	const char *oci_version;
	const char *id;
	enum brig_status status; /* as last recorded; see runtime/lifecycle/state.h */
	pid_t pid;               /* the container init, 0 when none */
	uint64_t pid_start;      /* its start time (/proc/PID/stat field 22) */
	const char *bundle;      /* absolute */
	const char *rootfs;      /* absolute */
	const char *created;     /* RFC 3339 */
	uid_t owner;
	bool own_pidns;      /* the init has a pid namespace of its own */
	bool no_new_keyring; /* create --no-new-keyring: exec joins none either */
	/* no mount namespace of its own: its rootfs is a bind in its
	 * creator's mount namespace @mntns (an inode), on top of the mount
	 * @rootfs_below, which delete goes back to; 0 and 0 otherwise */
	uint64_t mntns;
	uint64_t rootfs_below;
	struct brig_kv *annotations;
	size_t n_annotations;
	/* the config's hooks: start and delete run poststart and poststop
	 * after config.json may have changed or gone */
	struct brig_hooks hooks;
	/* the container's cgroup (runtime/cgroup/cgroup.h): per hierarchy
	 * ("memory", "cpu,cpuacct", "" for the v2 one) its directory, and
	 * the topmost directory brig created there, which delete removes */
	struct brig_kv *cgroup_paths, *cgroup_created;
	size_t n_cgroup_paths, n_cgroup_created;
	const char *cgroup_unit; /* the systemd unit, or NULL */
};

/* A zeroed state, or a state parsed from brig's own state.json. */
struct brig_state *brig_state_new(void);
struct brig_state *brig_state_parse(const char *name, const char *text, size_t len,
                                    struct brig_error *err);
void brig_state_free(struct brig_state *state);

/* brig's state.json (compact). */
char *brig_state_to_json(const struct brig_state *state);

/*
 * The OCI state document, as `runc state` prints it: ociVersion, id, pid,
 * status, bundle, rootfs, created, owner, annotations.  @status is the
 * live status (the caller checked the process); pid is 0 once stopped.
 */
char *brig_state_to_oci_json(const struct brig_state *state, enum brig_status status);

/*
 * The state a hook reads on its stdin, as runc gives it: compact, the
 * spec's fields only (ociVersion of this runtime, id, status, pid unless
 * stopped, bundle, annotations).
 */
char *brig_state_to_hook_json(const struct brig_state *state, enum brig_status status);
/* The same object written as a value into @w (the "state" member of the
 * container process state a seccomp listener gets, as runc sends it). */
void brig_state_write_hook(struct brig_jsonw *w, const struct brig_state *state,
                           enum brig_status status);
/* The document of brig_state_to_oci_json() written as a value into @w. */
void brig_state_write_oci(struct brig_jsonw *w, const struct brig_state *state,
                          enum brig_status status);

/*
 * descriptors.json, which checkpoint writes beside CRIU's images as runc
 * does: what the init's fds 0, 1 and 2 were ("pipe:[123]", "/dev/null"),
 * a JSON array of strings.  The strings are allocated from @arena.
 */
char **brig_descriptors_parse(struct brig_arena *arena, const char *name, const char *text,
                              size_t len, size_t *n, struct brig_error *err);

#endif
