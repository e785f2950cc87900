/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The new mount API, in the few steps brig's mounts are made of: a
 * filesystem context (fsopen, fsconfig, fsmount), a bind (open_tree), the
 * attributes and propagation of a mount (mount_setattr) and its place
 * (move_mount onto an fd).  Every error names what failed, with what the
 * kernel logged on the filesystem context.
 */
#ifndef BRIG_LINUX_MOUNTAPI_H
#define BRIG_LINUX_MOUNTAPI_H

#include <stdbool.h>
#include <stdint.h>

struct brig_error;

/* Fail with @errnum, adding what the kernel logged on @fsfd. */
int brig_fs_fail(int fsfd, int errnum, const char *what, struct brig_error *err);

/* fsopen(@fstype) with "source" set when @source is given. */
int brig_fs_open(const char *fstype, const char *source, struct brig_error *err);

/* One data option: "key=value" is a string, a bare "key" a flag
 * (brig_mount_data_split). */
int brig_fs_param(int fsfd, const char *opt, struct brig_error *err);

/* Create the superblock and return a detached mount of it with @attrs. */
int brig_fs_mount(int fsfd, uint64_t attrs, struct brig_error *err);

/* A detached copy of the host path @source (the whole tree if @recursive). */
int brig_bind_open(const char *source, bool recursive, struct brig_error *err);

int brig_mnt_set_attrs(int mntfd, uint64_t set, uint64_t clr, bool recursive,
                       struct brig_error *err);

int brig_mnt_set_propagation(int mntfd, uint64_t propagation, bool recursive,
                             struct brig_error *err);

/* Put the detached mount @mntfd on top of @targetfd.  Afterwards @mntfd
 * refers to the attached mount. */
int brig_mnt_attach(int mntfd, int targetfd, struct brig_error *err);

#endif
