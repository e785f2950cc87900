/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "util/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define CHUNK_DEFAULT 4096

struct brig_arena_chunk {
	struct brig_arena_chunk *next;
	size_t used, size;
	max_align_t data[];
};

void *brig_arena_alloc(struct brig_arena *a, size_t size)
{
	struct brig_arena_chunk *c = a->head;
	size_t need = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	void *p;

	if (need < size)
		brig_oom();
	if (!c || c->size - c->used < need) {
		size_t csize = need > CHUNK_DEFAULT ? need : CHUNK_DEFAULT;

		c = malloc(sizeof(*c) + csize);
		if (!c)
			brig_oom();
		c->used = 0;
		c->size = csize;
		/* An oversized chunk goes behind the head so the head keeps its room. */
		if (a->head && need > CHUNK_DEFAULT) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	p = (char *)c->data + c->used;
	c->used += need;
	memset(p, 0, size);
	return p;
}

void *brig_arena_array(struct brig_arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		brig_oom();
	return brig_arena_alloc(a, n * size);
}

char *brig_arena_strndup(struct brig_arena *a, const char *s, size_t len)
{
	char *p = brig_arena_alloc(a, len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *brig_arena_strdup(struct brig_arena *a, const char *s)
{
	return brig_arena_strndup(a, s, strlen(s));
}

void brig_arena_release(struct brig_arena *a)
{
	struct brig_arena_chunk *c = a->head;

	while (c) {
		struct brig_arena_chunk *next = c->next;

		free(c);
		c = next;
	}
	a->head = NULL;
}
