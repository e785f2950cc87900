/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "util/jsonw.h"

#include <inttypes.h>
#include <string.h>

#include "util/error.h"

void brig_jsonw_init(struct brig_jsonw *w, const char *indent)
{
	memset(w, 0, sizeof(*w));
	w->indent = indent;
	w->first[0] = true;
}

static void newline(struct brig_jsonw *w)
{
	if (!w->indent)
		return;
	brig_strbuf_addch(&w->out, '\n');
	for (int i = 0; i < w->depth; i++)
		brig_strbuf_addstr(&w->out, w->indent);
}

/* Separator and indentation before a value or a key. */
static void before_item(struct brig_jsonw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth == 0)
		return;
	if (!w->first[w->depth])
		brig_strbuf_addch(&w->out, ',');
	w->first[w->depth] = false;
	newline(w);
}

static void open_container(struct brig_jsonw *w, char c)
{
	before_item(w);
	brig_strbuf_addch(&w->out, c);
	if (w->depth + 1 >= BRIG_JSONW_MAX_DEPTH)
		brig_oom(); /* a programming error, never input-driven */
	w->depth++;
	w->first[w->depth] = true;
}

static void close_container(struct brig_jsonw *w, char c)
{
	bool empty = w->first[w->depth];

	w->depth--;
	if (!empty)
		newline(w);
	brig_strbuf_addch(&w->out, c);
}

void brig_jsonw_object_begin(struct brig_jsonw *w)
{
	open_container(w, '{');
}

void brig_jsonw_object_end(struct brig_jsonw *w)
{
	close_container(w, '}');
}

void brig_jsonw_array_begin(struct brig_jsonw *w)
{
	open_container(w, '[');
}

void brig_jsonw_array_end(struct brig_jsonw *w)
{
	close_container(w, ']');
}

/* Length of the valid UTF-8 sequence at @s (at most @len bytes), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
	uint32_t cp;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* reject overlong forms, surrogates and values past U+10FFFF */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

bool brig_utf8_valid(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0, n; i < len; i += n)
		if (!(n = utf8_seq(s + i, len - i)))
			return false;
	return true;
}

void brig_json_escape(struct brig_strbuf *sb, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	brig_strbuf_addch(sb, '"');
	while (i < len) {
		unsigned char c = s[i];
		size_t n;

		switch (c) {
		case '"':
			brig_strbuf_addstr(sb, "\\\"");
			i++;
			continue;
		case '\\':
			brig_strbuf_addstr(sb, "\\\\");
			i++;
			continue;
		case '\n':
			brig_strbuf_addstr(sb, "\\n");
			i++;
			continue;
		case '\t':
			brig_strbuf_addstr(sb, "\\t");
			i++;
			continue;
		case '\r':
			brig_strbuf_addstr(sb, "\\r");
			i++;
			continue;
		default:
			break;
		}
		if (c < 0x20 || c == 0x7f) {
			brig_strbuf_addf(sb, "\\u%04x", c);
			i++;
			continue;
		}
		n = utf8_seq(s + i, len - i);
		if (n == 0) {
			brig_strbuf_addstr(sb, "\xef\xbf\xbd"); /* U+FFFD */
			i++;
			continue;
		}
		brig_strbuf_add(sb, s + i, n);
		i += n;
	}
	brig_strbuf_addch(sb, '"');
}

void brig_jsonw_key(struct brig_jsonw *w, const char *key)
{
	before_item(w);
	brig_json_escape(&w->out, key, strlen(key));
	brig_strbuf_addstr(&w->out, w->indent ? ": " : ":");
	w->after_key = true;
}

void brig_jsonw_stringn(struct brig_jsonw *w, const char *s, size_t len)
{
	before_item(w);
	brig_json_escape(&w->out, s, len);
}

void brig_jsonw_string(struct brig_jsonw *w, const char *s)
{
	if (!s) {
		brig_jsonw_null(w);
		return;
	}
	brig_jsonw_stringn(w, s, strlen(s));
}

void brig_jsonw_int(struct brig_jsonw *w, int64_t v)
{
	before_item(w);
	brig_strbuf_addf(&w->out, "%" PRId64, v);
}

void brig_jsonw_uint(struct brig_jsonw *w, uint64_t v)
{
	before_item(w);
	brig_strbuf_addf(&w->out, "%" PRIu64, v);
}

void brig_jsonw_number(struct brig_jsonw *w, const char *text, size_t len)
{
	before_item(w);
	brig_strbuf_addf(&w->out, "%.*s", (int)len, text);
}

void brig_jsonw_bool(struct brig_jsonw *w, bool v)
{
	before_item(w);
	brig_strbuf_addstr(&w->out, v ? "true" : "false");
}

void brig_jsonw_null(struct brig_jsonw *w)
{
	before_item(w);
	brig_strbuf_addstr(&w->out, "null");
}

void brig_jsonw_raw(struct brig_jsonw *w, const char *text, size_t len)
{
	before_item(w);
	brig_strbuf_add(&w->out, text, len);
}

void brig_jsonw_kv_string(struct brig_jsonw *w, const char *key, const char *s)
{
	brig_jsonw_key(w, key);
	brig_jsonw_string(w, s);
}

void brig_jsonw_kv_int(struct brig_jsonw *w, const char *key, int64_t v)
{
	brig_jsonw_key(w, key);
	brig_jsonw_int(w, v);
}

void brig_jsonw_kv_uint(struct brig_jsonw *w, const char *key, uint64_t v)
{
	brig_jsonw_key(w, key);
	brig_jsonw_uint(w, v);
}

void brig_jsonw_kv_bool(struct brig_jsonw *w, const char *key, bool v)
{
	brig_jsonw_key(w, key);
	brig_jsonw_bool(w, v);
}

void brig_jsonw_kv_strings(struct brig_jsonw *w, const char *key, const char *const *list, size_t n)
{
	brig_jsonw_key(w, key);
	brig_jsonw_array_begin(w);
	for (size_t i = 0; i < n && list[i]; i++)
		brig_jsonw_string(w, list[i]);
	brig_jsonw_array_end(w);
}

char *brig_jsonw_finish(struct brig_jsonw *w)
{
	if (w->indent)
		brig_strbuf_addch(&w->out, '\n');
	return brig_strbuf_detach(&w->out);
}

void brig_jsonw_release(struct brig_jsonw *w)
{
	brig_strbuf_release(&w->out);
}
