/* SPDX-License-Identifier: Apache-2.0 */
/* The default config.json that `brig spec` writes, as `runc spec` does. */
#ifndef BRIG_SPEC_DEFAULT_H
#define BRIG_SPEC_DEFAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * The config as pretty-printed JSON (tab-indented, trailing newline), heap
 * allocated.  With @rootless, the variant of `runc spec --rootless` that
 * maps the container's root to @uid/@gid in a new user namespace.
 */
char *brig_spec_default(bool rootless, uid_t uid, gid_t gid);

/* runc's linux.maskedPaths and linux.readonlyPaths of that config (brig
 * job starts from them too). */
extern const char *const brig_spec_masked_paths[];
extern const size_t brig_spec_n_masked_paths;
extern const char *const brig_spec_readonly_paths[];
extern const size_t brig_spec_n_readonly_paths;

#endif
