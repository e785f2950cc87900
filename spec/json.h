/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A JSON document tree built with yajl's event parser, with the limits a
 * hostile config needs: bounded nesting, numbers kept as their source text
 * (so integer range checks are exact), strings with their length (so a NUL
 * byte inside one is visible).  A syntax error is reported with the JSON path
 * at which it happened.  Internal to spec/.
 */
#ifndef BRIG_SPEC_JSON_H
#define BRIG_SPEC_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"

struct brig_error;

#define BRIG_JSON_MAX_DEPTH 64

enum brig_json_type {
	BRIG_JSON_NULL,
	BRIG_JSON_BOOL,
	BRIG_JSON_NUMBER,
	BRIG_JSON_STRING,
	BRIG_JSON_ARRAY,
	BRIG_JSON_OBJECT,
};

struct brig_json {
	enum brig_json_type type;
	bool boolean;
	/* STRING: the bytes; NUMBER: the number's source text */
	const char *str;
	size_t len;
	/* ARRAY and OBJECT: n items; OBJECT also has keys[i] */
	size_t n;
	struct brig_json **items;
	const char **keys;
};

/*
 * Parse @len bytes of @text into a tree allocated from @arena.  Errors read
 * "<name>: <path>: invalid JSON: <reason>" (no path at the top level).
 */
struct brig_json *brig_json_parse(struct brig_arena *arena, const char *name, const char *text,
                                  size_t len, struct brig_error *err);

/* The last member named @key of object @obj, or NULL. */
const struct brig_json *brig_json_get(const struct brig_json *obj, const char *key);

const char *brig_json_type_name(enum brig_json_type t);

#endif
