/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's root, in the init: the rootfs bound as a mount of its
 * own (brig_rootfs_prepare), entered by pivot_root, by a move and chroot
 * (--no-pivot) or by a chroot alone (no mount namespace of its own:
 * brig_rootfs_enter), then given rootfsPropagation and made read-only
 * (brig_rootfs_propagate, brig_rootfs_readonly), in that order.
 */
#ifndef BRIG_LINUX_ROOTFS_H
#define BRIG_LINUX_ROOTFS_H

#include <stdbool.h>
#include <stdint.h>

struct brig_error;

struct brig_rootfs {
	const char *path;        /* absolute */
	const char *propagation; /* linux.rootfsPropagation, or NULL */
	bool no_pivot;           /* --no-pivot */
	bool shared_mntns;       /* no mount namespace of its own: its caller's */
};

/* MS_* of a rootfsPropagation value ("rslave": MS_SLAVE | MS_REC), 0
 * for none or an unknown one. */
unsigned long brig_rootfs_propagation_flag(const char *name);

/* Stop the host's mounts propagating in, bind the rootfs onto itself,
 * private, and return an O_PATH fd of it (or -1). */
int brig_rootfs_prepare(const struct brig_rootfs *r, struct brig_error *err);

/* Make @rootfd, the prepared rootfs, the process's root and cwd. */
int brig_rootfs_enter(const struct brig_rootfs *r, int rootfd, struct brig_error *err);

/* Once in the root: "shared" makes it a peer group of its own,
 * "unbindable" and "runbindable" apply to it (and its mounts) only now. */
int brig_rootfs_propagate(const char *propagation, struct brig_error *err);

/* The root, read-only (root.readonly). */
int brig_rootfs_readonly(struct brig_error *err);

/*
 * A container without a mount namespace of its own has its rootfs bound
 * in its creator's: brig_rootfs_below() is the mount at @rootfs before
 * that (0 with errno on failure) and brig_mntns() the namespace (its
 * inode, 0 on failure); brig_rootfs_release() unmounts what stands on
 * @below at @rootfs since, the bind and every mount beneath it, when
 * called in the namespace @mntns (a warning otherwise).
 */
uint64_t brig_rootfs_below(const char *rootfs);
uint64_t brig_mntns(void);
int brig_rootfs_release(const char *rootfs, uint64_t mntns, uint64_t below, struct brig_error *err);

#endif
