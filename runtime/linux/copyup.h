/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tmpcopyup: what the rootfs has at a tmpfs's mount point, copied into
 * the new tmpfs before it covers it.
 */
#ifndef BRIG_LINUX_COPYUP_H
#define BRIG_LINUX_COPYUP_H

struct brig_error;

/* Copy the tree under the directory @src into the directory @dst:
 * directories, regular files and symlinks with owner, mode and times,
 * nothing else; no symlink of the source is followed; 128 levels at
 * most. */
int brig_copy_tree(int src, int dst, struct brig_error *err);

#endif
