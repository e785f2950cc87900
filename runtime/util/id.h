/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BRIG_UTIL_ID_H
#define BRIG_UTIL_ID_H

struct brig_error;

#define BRIG_ID_MAX 1024

/*
 * A container id names a directory under --root, so it must be a single
 * safe path component: non-empty, at most 1024 bytes, no '/', not "." or
 * "..", no control characters.  Returns 0, or -1 with a usage error.
 */
int brig_id_validate(const char *id, struct brig_error *err);

#endif
