/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A bump allocator for data that lives and dies together, such as a parsed
 * config: everything is freed by one brig_arena_release().  Allocations are
 * zeroed; running out of memory aborts.
 */
#ifndef BRIG_UTIL_ARENA_H
#define BRIG_UTIL_ARENA_H

#include <stddef.h>

struct brig_arena_chunk;

struct brig_arena {
	struct brig_arena_chunk *head;
};

#define BRIG_ARENA_INIT \
	{               \
		NULL    \
	}

void *brig_arena_alloc(struct brig_arena *a, size_t size);
void *brig_arena_array(struct brig_arena *a, size_t n, size_t size);
/* Copy @len bytes of @s and NUL-terminate them. */
char *brig_arena_strndup(struct brig_arena *a, const char *s, size_t len);
char *brig_arena_strdup(struct brig_arena *a, const char *s);
void brig_arena_release(struct brig_arena *a);

#endif
