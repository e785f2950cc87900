/* SPDX-License-Identifier: Apache-2.0 */
/* The default config.json that `brig spec` writes, as `runc spec` does. */
#ifndef BRIG_SPEC_DEFAULT_H
#define BRIG_SPEC_DEFAULT_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * The config as pretty-printed JSON (tab-indented, trailing newline), heap
 * allocated.  With @rootless, the variant of `runc spec --rootless` that
 * maps the container's root to @uid/@gid in a new user namespace.
 */
char *brig_spec_default(bool rootless, uid_t uid, gid_t gid);

#endif
