/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The protobuf wire format (proto2), as little of it as CRIU's RPC
 * (linux/criu.c) needs: fields appended to a buffer, and fields read one
 * at a time.  No schema: the caller knows its field numbers.  A nested
 * message is written into a buffer of its own and added as bytes.
 */
#ifndef BRIG_UTIL_PB_H
#define BRIG_UTIL_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct brig_strbuf;

enum brig_pb_wire {
	BRIG_PB_VARINT = 0,
	BRIG_PB_FIXED64 = 1,
	BRIG_PB_BYTES = 2,
	BRIG_PB_FIXED32 = 5,
};

/* uint32, uint64, bool and enum fields */
void brig_pb_put_varint(struct brig_strbuf *b, uint32_t field, uint64_t v);
/* int32: a negative value takes ten bytes, sign-extended (protobuf's rule) */
void brig_pb_put_int32(struct brig_strbuf *b, uint32_t field, int32_t v);
void brig_pb_put_bool(struct brig_strbuf *b, uint32_t field, bool v);
/* bytes, string and message fields */
void brig_pb_put_bytes(struct brig_strbuf *b, uint32_t field, const void *p, size_t len);
void brig_pb_put_string(struct brig_strbuf *b, uint32_t field, const char *s);

struct brig_pb_field {
	uint32_t field;
	enum brig_pb_wire wire;
	uint64_t v;    /* VARINT, FIXED64, FIXED32 */
	const char *p; /* BYTES: not NUL-terminated */
	size_t len;
};

/*
 * The next field of the message in [*@pos, @end): 1 with *@f filled and
 * *@pos moved past it, 0 at the end, -1 when the bytes are not a message
 * (a varint past 10 bytes or 64 bits, a length past the end, field 0,
 * groups, unknown wire types).
 */
int brig_pb_next(const char **pos, const char *end, struct brig_pb_field *f);

/* A VARINT field as int32 (a negative one was sign-extended). */
static inline int32_t brig_pb_int32(const struct brig_pb_field *f)
{
	return (int32_t)(uint32_t)f->v;
}

#endif
