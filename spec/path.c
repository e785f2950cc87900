/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "spec/path.h"

#include <stdbool.h>
#include <string.h>

#define KEY_SHOWN_MAX 64

static struct brig_strbuf *sb(struct brig_path *p)
{
	return &p->sb;
}

static bool is_identifier(const char *key)
{
	if (!*key)
		return false;
	for (const char *c = key; *c; c++) {
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	}
	return true;
}

void brig_path_key(struct brig_path *p, const char *key)
{
	size_t i;

	if (is_identifier(key) && strlen(key) <= KEY_SHOWN_MAX) {
		if (p->sb.len)
			brig_strbuf_addch(sb(p), '.');
		brig_strbuf_addstr(sb(p), key);
		return;
	}
	brig_strbuf_addstr(sb(p), "[\"");
	for (i = 0; i < KEY_SHOWN_MAX && key[i]; i++) {
		unsigned char c = (unsigned char)key[i];

		if (c == '"' || c == '\\')
			brig_strbuf_addf(sb(p), "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			brig_strbuf_addf(sb(p), "\\x%02x", c);
		else
			brig_strbuf_addch(sb(p), (char)c);
	}
	if (key[i])
		brig_strbuf_addstr(sb(p), "...");
	brig_strbuf_addstr(sb(p), "\"]");
}

void brig_path_index(struct brig_path *p, size_t index)
{
	brig_strbuf_addf(sb(p), "[%zu]", index);
}

void brig_path_truncate(struct brig_path *p, size_t len)
{
	brig_strbuf_setlen(sb(p), len);
}

const char *brig_path_str(const struct brig_path *p)
{
	return p->sb.buf ? p->sb.buf : "";
}

void brig_path_release(struct brig_path *p)
{
	brig_strbuf_release(sb(p));
}
