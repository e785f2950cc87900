/* SPDX-License-Identifier: Apache-2.0 */
/*
 * JSON paths for error messages: linux.resources.memory.limit, mounts[2],
 * linux.sysctl["net.ipv4.ip_forward"].  Keys that are not plain identifiers
 * are quoted, escaped and truncated, since they come from hostile input.
 */
#ifndef BRIG_SPEC_PATH_H
#define BRIG_SPEC_PATH_H

#include <stddef.h>

#include "util/strbuf.h"

struct brig_path {
	struct brig_strbuf sb;
};

#define BRIG_PATH_INIT           \
	{                        \
		BRIG_STRBUF_INIT \
	}

void brig_path_key(struct brig_path *p, const char *key);
void brig_path_index(struct brig_path *p, size_t index);
static inline size_t brig_path_len(const struct brig_path *p)
{
	return p->sb.len;
}

/* Cut the path back to a length returned by an earlier brig_path_len(). */
void brig_path_truncate(struct brig_path *p, size_t len);
/* The path as a string ("" when empty). */
const char *brig_path_str(const struct brig_path *p);
void brig_path_release(struct brig_path *p);

#endif
