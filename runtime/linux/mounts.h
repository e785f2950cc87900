/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The `mounts` of config.json, made inside the container's rootfs by the
 * container init (in its new mount namespace, before pivot_root).  Every
 * destination is resolved inside the rootfs (linux/resolve.h) and every
 * mount is made by fd with the new mount API: open_tree + mount_setattr +
 * move_mount for binds, fsopen + fsconfig + fsmount + move_mount for
 * filesystems.
 */
#ifndef BRIG_LINUX_MOUNTS_H
#define BRIG_LINUX_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct brig_config;
struct brig_error;
struct brig_mount;

/* What the option list of one mount means, split as the kernel wants it. */
struct brig_mount_flags {
	uint64_t attr_set, attr_clr;         /* MOUNT_ATTR_* on the top mount */
	uint64_t rec_attr_set, rec_attr_clr; /* MOUNT_ATTR_* on the whole tree (r*) */
	uint64_t propagation;                /* MS_PRIVATE, MS_SHARED, ... or 0 */
	bool rec_propagation;                /* the r* form of the above */
	bool bind, rbind;
	bool remount; /* change the mount already at the destination */
	bool sb_ro;   /* "ro" on a new filesystem */
	bool tmpcopyup;
	bool idmap, ridmap; /* idmapped mounts (user namespaces) */
	char *data;         /* what goes to fsconfig, comma-joined; heap; may be NULL */
};

/*
 * Split @opts as runc reads them: the flags of mount(8) (ro, nosuid, nodev,
 * noexec, the atime family, bind, rbind, ...), the propagation flags, the
 * recursive r* variants of spec 1.1, tmpcopyup, idmap/ridmap; anything else
 * is filesystem data ("mode=755", "size=64k").  Fails on an empty option.
 */
int brig_mount_flags_parse(const char *const *opts, size_t n, struct brig_mount_flags *out,
                           struct brig_error *err);
void brig_mount_flags_release(struct brig_mount_flags *f);

/*
 * One data option as fsconfig takes it: "key=value" split at the first '='
 * (*value unchanged, except that the quotes mount(8) syntax puts around an
 * SELinux context, context="u:r:t:s0:c1,c2", are dropped, as the kernel
 * drops them from mount(2) data); a bare "key" gives *value = NULL.  Both
 * are heap strings.
 */
void brig_mount_data_split(const char *opt, char **key, char **value);

/* Whether @opt is filesystem data (for fsconfig), not a flag brig takes. */
bool brig_mount_option_is_data(const char *opt);

/* Every option name brig_mount_flags_parse() understands, NULL-terminated
 * (for `brig features`). */
extern const char *const brig_mount_option_names[];

struct brig_mount_env {
	int rootfd;              /* O_PATH|O_DIRECTORY fd of the rootfs */
	const char *bundle;      /* absolute; relative bind sources are under it */
	bool new_netns;          /* sysfs is read-only when the netns is the host's */
	bool new_cgroupns;       /* cgroup: a namespaced mount, else binds */
	bool new_ipcns;          /* mqueue: the container's own, to be labelled */
	const char *mount_label; /* linux.mountLabel (SELinux), or NULL */
	const int *premade;      /* per mount: an idmapped tree made by brig
	                          * (linux/idmap.h), else -1; NULL: none */
};

/*
 * The mounts brig attached for cfg->mounts, kept open so that what is done
 * beneath them afterwards (masks, read-only paths) reaches the filesystem
 * brig put there, even if a rename in the rootfs (which whoever shares it
 * may make) moved its mount point or put a symlink in its place.
 */
struct brig_mounted {
	char **dest;    /* each entry's destination, cleaned */
	int *fd;        /* its attached mount, -1 when none */
	bool *ro_later; /* made read-only by brig_mounts_finish() */
	size_t n;
};
void brig_mounted_release(struct brig_mounted *m);

/* Whether a mount's @destination is /dev, cleaned as runc cleans it. */
bool brig_mounted_is_dev(const char *destination);

/* The last step of the mounts, once the devices, links, masks and the
 * mounts under it are made: a read-only /dev of its own becomes so. */
int brig_mounts_finish(const struct brig_mounted *m, struct brig_error *err);

/* Make every entry of cfg->mounts, in order, into @out (released by the
 * caller, even on failure).  Errors name the mount:
 * 'mount "/proc" (proc): Operation not permitted'. */
int brig_mounts_setup(const struct brig_config *cfg, const struct brig_mount_env *env,
                      struct brig_mounted *out, struct brig_error *err);

/*
 * An O_PATH fd of @path of the container, its last component not followed:
 * beneath the mount of @m whose destination holds @path most closely (of
 * equal ones, the last: it is on top), with no symlink or ".." leading out
 * of it; a path under none of them is resolved in @rootfd.  -1 with errno.
 */
int brig_mounted_open(const struct brig_mounted *m, int rootfd, const char *path);

#endif
