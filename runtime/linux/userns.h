/* SPDX-License-Identifier: Apache-2.0 */
/*
 * linux.uidMappings / gidMappings: the parent writes the maps of the init's
 * new user namespace between clone3 and MAPS_DONE; the init then becomes
 * the container's root, keeping the capabilities it has there.
 */
#ifndef BRIG_LINUX_USERNS_H
#define BRIG_LINUX_USERNS_H

#include <stdbool.h>
#include <sys/types.h>

struct brig_error;
struct brig_linux;

/* Write gid_map and uid_map of @pid (setgroups "deny" first when brig is
 * not root, as the kernel requires for an unprivileged gid map). */
int brig_userns_write_maps(pid_t pid, const struct brig_linux *lx, struct brig_error *err);

/* In the init, after MAPS_DONE: uid and gid 0 of the namespace. */
int brig_userns_become_root(struct brig_error *err);

/* Whether setgroups(2) may be called (self/setgroups under @procfd). */
bool brig_userns_setgroups_allowed(int procfd);

#endif
