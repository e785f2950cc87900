/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "spec/json.h"

#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "spec/path.h"
#include "util/error.h"

/* A container under construction: its items grow in a heap vector and are
 * moved into the arena when it closes. */
struct frame {
	struct brig_json *node;
	struct brig_json **items;
	const char **keys;
	size_t n, alloc;
	const char *pending_key; /* OBJECT: key seen, value not yet */
};

struct builder {
	struct brig_arena *arena;
	struct brig_json *root;
	struct frame stack[BRIG_JSON_MAX_DEPTH + 1];
	int depth; /* frames in use */
	bool too_deep;
	bool nul_key;
};

static void frame_push_item(struct frame *f, struct brig_json *v)
{
	if (f->n == f->alloc) {
		f->alloc = f->alloc ? f->alloc * 2 : 8;
		f->items = brig_xrealloc(f->items, f->alloc * sizeof(*f->items));
		if (f->node->type == BRIG_JSON_OBJECT)
			f->keys = brig_xrealloc(f->keys, f->alloc * sizeof(*f->keys));
	}
	if (f->node->type == BRIG_JSON_OBJECT) {
		f->keys[f->n] = f->pending_key;
		f->pending_key = NULL;
	}
	f->items[f->n++] = v;
}

static int add_value(struct builder *b, struct brig_json *v)
{
	if (b->depth == 0)
		b->root = v;
	else
		frame_push_item(&b->stack[b->depth - 1], v);
	return 1;
}

static struct brig_json *new_node(struct builder *b, enum brig_json_type t)
{
	struct brig_json *v = brig_arena_alloc(b->arena, sizeof(*v));

	v->type = t;
	return v;
}

static int cb_null(void *ctx)
{
	struct builder *b = ctx;

	return add_value(b, new_node(b, BRIG_JSON_NULL));
}

static int cb_boolean(void *ctx, int value)
{
	struct builder *b = ctx;
	struct brig_json *v = new_node(b, BRIG_JSON_BOOL);

	v->boolean = value != 0;
	return add_value(b, v);
}

static int cb_number(void *ctx, const char *s, size_t len)
{
	struct builder *b = ctx;
	struct brig_json *v = new_node(b, BRIG_JSON_NUMBER);

	v->str = brig_arena_strndup(b->arena, s, len);
	v->len = len;
	return add_value(b, v);
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
	struct builder *b = ctx;
	struct brig_json *v = new_node(b, BRIG_JSON_STRING);

	v->str = brig_arena_strndup(b->arena, (const char *)s, len);
	v->len = len;
	return add_value(b, v);
}

static int open_container(struct builder *b, enum brig_json_type t)
{
	struct brig_json *v;

	if (b->depth >= BRIG_JSON_MAX_DEPTH) {
		b->too_deep = true;
		return 0;
	}
	v = new_node(b, t);
	add_value(b, v);
	b->stack[b->depth] = (struct frame){ .node = v };
	b->depth++;
	return 1;
}

static int close_container(struct builder *b)
{
	struct frame *f = &b->stack[b->depth - 1];
	struct brig_json *v = f->node;

	v->n = f->n;
	v->items = brig_arena_array(b->arena, f->n, sizeof(*v->items));
	if (f->n)
		memcpy(v->items, f->items, f->n * sizeof(*v->items));
	if (v->type == BRIG_JSON_OBJECT) {
		v->keys = brig_arena_array(b->arena, f->n, sizeof(*v->keys));
		if (f->n)
			memcpy(v->keys, f->keys, f->n * sizeof(*v->keys));
	}
	free(f->items);
	free(f->keys);
	b->depth--;
	return 1;
}

static int cb_start_map(void *ctx)
{
	return open_container(ctx, BRIG_JSON_OBJECT);
}

static int cb_map_key(void *ctx, const unsigned char *s, size_t len)
{
	struct builder *b = ctx;

	/* keys are compared as C strings: "linux\u0000" would silently
	 * stand in for "linux" and hide the real one */
	if (memchr(s, '\0', len)) {
		b->nul_key = true;
		return 0;
	}

	b->stack[b->depth - 1].pending_key = brig_arena_strndup(b->arena, (const char *)s, len);
	return 1;
}

static int cb_end(void *ctx)
{
	return close_container(ctx);
}

static int cb_start_array(void *ctx)
{
	return open_container(ctx, BRIG_JSON_ARRAY);
}

static const yajl_callbacks callbacks = {
	.yajl_null = cb_null,
	.yajl_boolean = cb_boolean,
	.yajl_number = cb_number,
	.yajl_string = cb_string,
	.yajl_start_map = cb_start_map,
	.yajl_map_key = cb_map_key,
	.yajl_end_map = cb_end,
	.yajl_start_array = cb_start_array,
	.yajl_end_array = cb_end,
};

/*
 * The JSON path of the value being parsed when an error struck.  An open
 * container is already the last item of its parent; the innermost frame is
 * working on its next item (an array) or on its pending key (an object).
 */
static void builder_path(const struct builder *b, struct brig_path *p)
{
	for (int i = 0; i < b->depth; i++) {
		const struct frame *f = &b->stack[i];
		bool innermost = i + 1 == b->depth;

		if (f->node->type == BRIG_JSON_ARRAY)
			brig_path_index(p, innermost ? f->n : f->n - 1);
		else if (!innermost)
			brig_path_key(p, f->keys[f->n - 1]);
		else if (f->pending_key)
			brig_path_key(p, f->pending_key);
	}
}

/* Frames above the failure still own heap vectors. */
static void builder_release(struct builder *b)
{
	for (int i = 0; i < b->depth; i++) {
		free(b->stack[i].items);
		free(b->stack[i].keys);
	}
	b->depth = 0;
}

struct brig_json *brig_json_parse(struct brig_arena *arena, const char *name, const char *text,
                                  size_t len, struct brig_error *err)
{
	struct builder b = { .arena = arena };
	yajl_handle h = yajl_alloc(&callbacks, NULL, &b);
	yajl_status st;

	if (!h)
		brig_oom();
	bool at_end = false;

	st = yajl_parse(h, (const unsigned char *)text, len);
	if (st == yajl_status_ok) {
		st = yajl_complete_parse(h);
		at_end = true;
	}
	if (st != yajl_status_ok || !b.root) {
		struct brig_path path = BRIG_PATH_INIT;
		char *reason = NULL;

		builder_path(&b, &path);
		if (b.too_deep) {
			reason =
			    brig_xasprintf("nested deeper than %d levels", BRIG_JSON_MAX_DEPTH);
		} else if (b.nul_key) {
			reason = brig_xstrdup("a key contains a NUL byte");
		} else if (st != yajl_status_ok) {
			unsigned char *y = yajl_get_error(h, 0, NULL, 0);
			size_t off = at_end ? len : yajl_get_bytes_consumed(h);
			size_t n;

			reason = brig_xasprintf("invalid JSON at byte %zu: %s", off,
			                        y ? (const char *)y : "parse error");
			/* yajl ends its messages with a period and a newline */
			n = strcspn(reason, "\n");
			while (n > 0 && (reason[n - 1] == '.' || reason[n - 1] == ' '))
				n--;
			reason[n] = '\0';
			yajl_free_error(h, y);
		} else {
			reason = brig_xstrdup("empty document");
		}
		if (brig_path_len(&path))
			brig_error_set(err, "%s: %s: %s", name, brig_path_str(&path), reason);
		else
			brig_error_set(err, "%s: %s", name, reason);
		free(reason);
		brig_path_release(&path);
		builder_release(&b);
		yajl_free(h);
		return NULL;
	}
	yajl_free(h);
	return b.root;
}

const struct brig_json *brig_json_get(const struct brig_json *obj, const char *key)
{
	if (!obj || obj->type != BRIG_JSON_OBJECT)
		return NULL;
	for (size_t i = obj->n; i-- > 0;)
		if (strcmp(obj->keys[i], key) == 0)
			return obj->items[i];
	return NULL;
}

const char *brig_json_type_name(enum brig_json_type t)
{
	switch (t) {
	case BRIG_JSON_NULL:
		return "null";
	case BRIG_JSON_BOOL:
		return "a boolean";
	case BRIG_JSON_NUMBER:
		return "a number";
	case BRIG_JSON_STRING:
		return "a string";
	case BRIG_JSON_ARRAY:
		return "an array";
	case BRIG_JSON_OBJECT:
		return "an object";
	}
	return "unknown";
}
