/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A private procfs for brig's own writes (sysctl, oom_score_adj, id maps,
 * timens offsets).  It is a fresh proc instance mounted nowhere (fsmount
 * without move_mount), so the container cannot have bind-mounted over,
 * symlinked or otherwise redirected any file in it (CVE-2025-52881); each
 * file opened is also checked to live on procfs.
 */
#ifndef BRIG_LINUX_PROCFS_H
#define BRIG_LINUX_PROCFS_H

#include <stddef.h>

struct brig_error;

/* A detached procfs of the caller's pid namespace; an fd of its root. */
int brig_procfs_open(struct brig_error *err);

/* Write @data to @path (relative, no symlinks followed) under @procfd. */
int brig_procfs_write(int procfd, const char *path, const char *data, size_t len,
                      struct brig_error *err);

#endif
