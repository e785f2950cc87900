/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "util/pb.h"

#include <string.h>

#include "util/strbuf.h"

static void put_raw_varint(struct brig_strbuf *b, uint64_t v)
{
	char tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	brig_strbuf_add(b, tmp, n);
}

static void put_key(struct brig_strbuf *b, uint32_t field, enum brig_pb_wire wire)
{
	put_raw_varint(b, ((uint64_t)field << 3) | wire);
}

void brig_pb_put_varint(struct brig_strbuf *b, uint32_t field, uint64_t v)
{
	put_key(b, field, BRIG_PB_VARINT);
	put_raw_varint(b, v);
}

void brig_pb_put_int32(struct brig_strbuf *b, uint32_t field, int32_t v)
{
	brig_pb_put_varint(b, field, (uint64_t)(int64_t)v);
}

void brig_pb_put_bool(struct brig_strbuf *b, uint32_t field, bool v)
{
	brig_pb_put_varint(b, field, v ? 1 : 0);
}

void brig_pb_put_bytes(struct brig_strbuf *b, uint32_t field, const void *p, size_t len)
{
	put_key(b, field, BRIG_PB_BYTES);
	put_raw_varint(b, len);
	brig_strbuf_add(b, p, len);
}

void brig_pb_put_string(struct brig_strbuf *b, uint32_t field, const char *s)
{
	brig_pb_put_bytes(b, field, s, strlen(s));
}

static int get_raw_varint(const char **pos, const char *end, uint64_t *v)
{
	const unsigned char *p = (const unsigned char *)*pos;
	uint64_t r = 0;

	for (unsigned int shift = 0; shift < 64; shift += 7) {
		if (p == (const unsigned char *)end)
			return -1;
		/* the tenth byte holds bit 63 only */
		if (shift == 63 && *p > 1)
			return -1;
		r |= (uint64_t)(*p & 0x7f) << shift;
		if (!(*p++ & 0x80)) {
			*pos = (const char *)p;
			*v = r;
			return 0;
		}
	}
	return -1;
}

int brig_pb_next(const char **pos, const char *end, struct brig_pb_field *f)
{
	uint64_t key;
	size_t width;

	if (*pos == end)
		return 0;
	if (get_raw_varint(pos, end, &key) < 0 || (key >> 3) == 0 || (key >> 3) > UINT32_MAX)
		return -1;
	memset(f, 0, sizeof(*f));
	f->field = (uint32_t)(key >> 3);
	f->wire = (enum brig_pb_wire)(key & 7);
	switch (f->wire) {
	case BRIG_PB_VARINT:
		return get_raw_varint(pos, end, &f->v) < 0 ? -1 : 1;
	case BRIG_PB_BYTES:
		if (get_raw_varint(pos, end, &f->v) < 0 || f->v > (uint64_t)(end - *pos))
			return -1;
		f->p = *pos;
		f->len = (size_t)f->v;
		f->v = 0;
		*pos += f->len;
		return 1;
	case BRIG_PB_FIXED64:
	case BRIG_PB_FIXED32:
		width = f->wire == BRIG_PB_FIXED64 ? 8 : 4;
		if ((size_t)(end - *pos) < width)
			return -1;
		for (size_t i = 0; i < width; i++)
			f->v |= (uint64_t)(unsigned char)(*pos)[i] << (8 * i);
		*pos += width;
		return 1;
	default:
		return -1;
	}
}
