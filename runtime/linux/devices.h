/* SPDX-License-Identifier: Apache-2.0 */
/*
 * /dev inside the container, and masking of paths.  Called by the init
 * after the mounts and before pivot_root, with an fd of the rootfs.
 */
#ifndef BRIG_LINUX_DEVICES_H
#define BRIG_LINUX_DEVICES_H

#include <stdbool.h>
#include <stddef.h>

struct brig_config;
struct brig_error;
struct brig_mounted;

/* Whether the /dev on top (the last mount whose destination cleans to
 * "/dev") is a bind: the host's (or the caller's) own, hands off. */
bool brig_dev_is_bind_mounted(const struct brig_config *cfg);

/*
 * The default devices (null, zero, full, random, urandom, tty), then every
 * linux.devices entry with its type, numbers, mode and owner: mknod where
 * allowed, else (in a user namespace) a bind mount of the host's node by fd;
 * then the links /dev/ptmx -> pts/ptmx, /dev/fd -> /proc/self/fd,
 * /dev/std{in,out,err} -> /proc/self/fd/{0,1,2}.  Existing entries of the
 * rootfs are replaced only when they are not what they should be.
 */
int brig_devices_setup(int rootfd, const struct brig_config *cfg, bool in_userns,
                       struct brig_error *err);

/*
 * linux.maskedPaths: over a file, the host's /dev/null given as @devnull
 * (opened by the caller and checked to be char 1:3) is bind-mounted by fd;
 * over a directory, an empty read-only tmpfs, with the SELinux context
 * @mount_label (linux.mountLabel) when it is not NULL or empty.  A missing
 * path is skipped; a path that turns out to be a symlink is never followed
 * (skipped).  A path under one of the mounts brig made (@m: /proc, /sys)
 * is found beneath that very mount (brig_mounted_open).
 */
int brig_paths_mask(int rootfd, const struct brig_mounted *m, int devnull, const char *const *paths,
                    size_t n, const char *mount_label, struct brig_error *err);

/* linux.readonlyPaths: each is bind-remounted read-only (recursively),
 * found as the masks are. */
int brig_paths_readonly(int rootfd, const struct brig_mounted *m, const char *const *paths,
                        size_t n, struct brig_error *err);

/* Open /dev/null of the host and check that it is the char device 1:3. */
int brig_devnull_open(struct brig_error *err);

#endif
