/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "util/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

static void strbuf_grow(struct brig_strbuf *sb, size_t extra)
{
	size_t want = sb->len + extra + 1;

	if (want < sb->len)
		brig_oom();
	if (want <= sb->alloc)
		return;
	sb->alloc = sb->alloc ? sb->alloc : 64;
	while (sb->alloc < want)
		sb->alloc *= 2;
	sb->buf = brig_xrealloc(sb->buf, sb->alloc);
}

void brig_strbuf_add(struct brig_strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void brig_strbuf_addstr(struct brig_strbuf *sb, const char *s)
{
	brig_strbuf_add(sb, s, strlen(s));
}

void brig_strbuf_addch(struct brig_strbuf *sb, char c)
{
	brig_strbuf_add(sb, &c, 1);
}

void brig_strbuf_addf(struct brig_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	strbuf_grow(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void brig_strbuf_setlen(struct brig_strbuf *sb, size_t len)
{
	if (len > sb->len)
		return;
	sb->len = len;
	if (sb->buf)
		sb->buf[len] = '\0';
}

char *brig_strbuf_detach(struct brig_strbuf *sb)
{
	char *p;

	strbuf_grow(sb, 0);
	sb->buf[sb->len] = '\0';
	p = sb->buf;
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	return p;
}

void brig_strbuf_release(struct brig_strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

int brig_cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}
