/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one JSON generator of brig: state, features, spec, ps and log lines
 * are all written through it, never assembled by hand.
 *
 *   struct brig_jsonw w;
 *   brig_jsonw_init(&w, "\t");
 *   brig_jsonw_object_begin(&w);
 *   brig_jsonw_kv_string(&w, "id", id);
 *   brig_jsonw_object_end(&w);
 *   char *text = brig_jsonw_finish(&w);   // caller frees
 *
 * Strings are escaped as RFC 8259 requires; bytes that are not valid UTF-8
 * are written as U+FFFD, so the output is always valid JSON.
 */
#ifndef BRIG_UTIL_JSONW_H
#define BRIG_UTIL_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

#define BRIG_JSONW_MAX_DEPTH 64

struct brig_jsonw {
	struct brig_strbuf out;
	const char *indent; /* NULL: compact, one line */
	int depth;
	bool first[BRIG_JSONW_MAX_DEPTH];
	bool after_key;
};

void brig_jsonw_init(struct brig_jsonw *w, const char *indent);
void brig_jsonw_object_begin(struct brig_jsonw *w);
void brig_jsonw_object_end(struct brig_jsonw *w);
void brig_jsonw_array_begin(struct brig_jsonw *w);
void brig_jsonw_array_end(struct brig_jsonw *w);
void brig_jsonw_key(struct brig_jsonw *w, const char *key);
void brig_jsonw_string(struct brig_jsonw *w, const char *s); /* NULL: null */
void brig_jsonw_stringn(struct brig_jsonw *w, const char *s, size_t len);
void brig_jsonw_int(struct brig_jsonw *w, int64_t v);
void brig_jsonw_uint(struct brig_jsonw *w, uint64_t v);
/* A number as the JSON parser kept it (spec/json.h): @text must be one. */
void brig_jsonw_number(struct brig_jsonw *w, const char *text, size_t len);
void brig_jsonw_bool(struct brig_jsonw *w, bool v);
void brig_jsonw_null(struct brig_jsonw *w);
/* A value another writer wrote, compact (its brig_jsonw_finish()): put in
 * as it is. */
void brig_jsonw_raw(struct brig_jsonw *w, const char *text, size_t len);

/* key + value in one call */
void brig_jsonw_kv_string(struct brig_jsonw *w, const char *key, const char *s);
void brig_jsonw_kv_int(struct brig_jsonw *w, const char *key, int64_t v);
void brig_jsonw_kv_uint(struct brig_jsonw *w, const char *key, uint64_t v);
void brig_jsonw_kv_bool(struct brig_jsonw *w, const char *key, bool v);
/* "key": ["a", "b", ...] from a NULL-terminated or counted list */
void brig_jsonw_kv_strings(struct brig_jsonw *w, const char *key, const char *const *list,
                           size_t n);

/* Return the document (with a trailing newline when indented); the writer
 * is reset.  The caller frees the result. */
char *brig_jsonw_finish(struct brig_jsonw *w);
void brig_jsonw_release(struct brig_jsonw *w);

/* Whether @s holds valid UTF-8 only: its JSON string says it exactly,
 * without a U+FFFD standing for a byte. */
bool brig_utf8_valid(const char *s, size_t len);

/* Append @s escaped as a JSON string (with quotes) to @sb. */
void brig_json_escape(struct brig_strbuf *sb, const char *s, size_t len);

#endif
