/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Idmapped bind mounts (the "idmap"/"ridmap" options, a mount's own
 * uidMappings/gidMappings).  The kernel lets only a process privileged over
 * the source's filesystem idmap it, so the parent makes them, on the host,
 * once the init exists: a detached clone of the source with
 * mount_setattr(MOUNT_ATTR_IDMAP) and a user namespace holding the
 * mappings (the mount's own, or the container's for "idmap" alone).  The
 * fds go to the init (MOUNT_FD, sync.h), which attaches them in place.
 */
#ifndef BRIG_LINUX_IDMAP_H
#define BRIG_LINUX_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct brig_config;
struct brig_error;
struct brig_mount;

/* Whether @m is an idmapped bind mount. */
bool brig_idmap_wanted(const struct brig_mount *m);
/*
 * Whether the parent makes @m: an idmapped bind mount, or with @binds
 * (a container with a user namespace of its own, made by a privileged
 * brig) any bind mount.  The parent opens the source as the host's root,
 * as runc does: the init, root of its user namespace, may not reach a
 * source that its mapped root cannot (a 0700 directory of the host's).
 */
bool brig_idmap_premade(const struct brig_mount *m, bool binds);
/* How many mounts of @cfg are. */
size_t brig_idmap_count(const struct brig_config *cfg, bool binds);

/* In the parent, after the maps of @init's user namespace are written:
 * one fd per mount of @cfg (-1 for those it does not make), or *@out NULL
 * when there are none. */
int brig_idmap_prepare(const struct brig_config *cfg, const char *bundle, pid_t init, bool binds,
                       int **out, struct brig_error *err);
void brig_idmap_release(int *fds, size_t n);

/* A user namespace holding the uid and gid mappings of @maps, by fd (for
 * MOUNT_ATTR_IDMAP); brig job idmaps its lower layer with it. */
struct brig_linux;
int brig_idmap_userns(const struct brig_linux *maps, struct brig_error *err);

#endif
