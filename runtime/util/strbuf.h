/* SPDX-License-Identifier: Apache-2.0 */
/* A growable NUL-terminated byte buffer (git's strbuf, trimmed down). */
#ifndef BRIG_UTIL_STRBUF_H
#define BRIG_UTIL_STRBUF_H

#include <stddef.h>

struct brig_strbuf {
	char *buf;
	size_t len, alloc;
};

#define BRIG_STRBUF_INIT   \
	{                  \
		NULL, 0, 0 \
	}

void brig_strbuf_add(struct brig_strbuf *sb, const void *data, size_t len);
void brig_strbuf_addstr(struct brig_strbuf *sb, const char *s);
void brig_strbuf_addch(struct brig_strbuf *sb, char c);
void brig_strbuf_addf(struct brig_strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void brig_strbuf_setlen(struct brig_strbuf *sb, size_t len);
/* Hand the buffer to the caller (never NULL) and reset @sb. */
char *brig_strbuf_detach(struct brig_strbuf *sb);
void brig_strbuf_release(struct brig_strbuf *sb);

/* qsort()'s and bsearch()'s comparison of two elements of an array of
 * strings (char *), by strcmp(). */
int brig_cmp_strp(const void *a, const void *b);

#endif
