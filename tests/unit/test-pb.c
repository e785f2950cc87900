/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The protobuf wire format of util/pb.c, against bytes that Google's
 * protobuf (python3-protobuf with pycriu's rpc_pb2, CRIU 3.17) wrote for
 * the same criu_req and criu_resp messages.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "util/pb.h"
#include "util/strbuf.h"

static char *hex(const char *p, size_t n)
{
	char *s = malloc(2 * n + 1);

	for (size_t i = 0; i < n; i++)
		sprintf(s + 2 * i, "%02x", (unsigned char)p[i]);
	s[2 * n] = '\0';
	return s;
}

static size_t unhex(const char *h, char *out)
{
	size_t n = strlen(h) / 2;

	for (size_t i = 0; i < n; i++) {
		unsigned int b;

		sscanf(h + 2 * i, "%2x", &b);
		out[i] = (char)b;
	}
	return n;
}

static void test_encode(void)
{
	struct brig_strbuf opts = BRIG_STRBUF_INIT, mnt = BRIG_STRBUF_INIT, req = BRIG_STRBUF_INIT;
	char *h;

	/* criu_req{type RESTORE, opts{images_dir_fd -1, log_level 4, root "/x",
	 * ext_mnt{key "/a", val "/b"}, rst_sibling, manage_cgroups_mode SOFT}} */
	brig_pb_put_int32(&opts, 1, -1);
	brig_pb_put_int32(&opts, 9, 4);
	brig_pb_put_string(&opts, 13, "/x");
	brig_pb_put_string(&mnt, 1, "/a");
	brig_pb_put_string(&mnt, 2, "/b");
	brig_pb_put_bytes(&opts, 23, mnt.buf, mnt.len);
	brig_pb_put_bool(&opts, 26, true);
	brig_pb_put_varint(&opts, 34, 3);
	brig_pb_put_varint(&req, 1, 2);
	brig_pb_put_bytes(&req, 2, opts.buf, opts.len);
	h = hex(req.buf, req.len);
	is_str(h, "0802122208ffffffffffffffffff0148046a022f78ba01080a022f6112022f62d00101900203",
	       "a criu_req as protobuf writes it (negative int32, nested, field numbers past 15)");
	free(h);
	brig_strbuf_release(&opts);
	brig_strbuf_release(&mnt);
	brig_strbuf_release(&req);
}

static void test_decode(void)
{
	char buf[64], sub[32];
	size_t n = unhex("080610012a110a0c706f73742d726573746f7265109221", buf), m;
	const char *pos = buf, *end = buf + n, *spos;
	struct brig_pb_field f;

	ok(brig_pb_next(&pos, end, &f) == 1 && f.field == 1 && f.wire == BRIG_PB_VARINT && f.v == 6,
	   "criu_resp.type NOTIFY");
	ok(brig_pb_next(&pos, end, &f) == 1 && f.field == 2 && f.v == 1, "criu_resp.success");
	ok(brig_pb_next(&pos, end, &f) == 1 && f.field == 5 && f.wire == BRIG_PB_BYTES &&
	       f.len == 17,
	   "criu_resp.notify, a message");
	spos = f.p;
	ok(brig_pb_next(&spos, f.p + f.len, &f) == 1 && f.field == 1 && f.len == 12 &&
	       memcmp(f.p, "post-restore", 12) == 0,
	   "criu_notify.script");
	ok(brig_pb_next(&spos, buf + n, &f) == 1 && f.field == 2 && brig_pb_int32(&f) == 4242,
	   "criu_notify.pid");
	is_int(brig_pb_next(&pos, end, &f), 0, "then the end");

	n = unhex("0801100038feffffffffffffffff014a03626164", buf);
	pos = buf;
	end = buf + n;
	while (brig_pb_next(&pos, end, &f) == 1 && f.field != 7)
		;
	is_int(brig_pb_int32(&f), -2, "a negative int32 (cr_errno)");

	/* what is not a message */
	m = unhex("0a05616263", sub); /* a length past the end */
	pos = sub;
	is_int(brig_pb_next(&pos, sub + m, &f), -1, "a length past the end");
	m = unhex("08ffffffffffffffffff7f", sub); /* an 11-byte varint */
	pos = sub;
	is_int(brig_pb_next(&pos, sub + m, &f), -1, "a varint past 10 bytes");
	m = unhex("08ffffffffffffffffff02", sub); /* bit 64 */
	pos = sub;
	is_int(brig_pb_next(&pos, sub + m, &f), -1, "a varint past 64 bits");
	m = unhex("0001", sub);
	pos = sub;
	is_int(brig_pb_next(&pos, sub + m, &f), -1, "field 0");
	m = unhex("0b", sub);
	pos = sub;
	is_int(brig_pb_next(&pos, sub + m, &f), -1, "a group (wire type 3)");
	m = unhex("0980", sub);
	pos = sub;
	is_int(brig_pb_next(&pos, sub + m, &f), -1, "a fixed64 cut short");
	m = unhex("0d01020304", sub);
	pos = sub;
	ok(brig_pb_next(&pos, sub + m, &f) == 1 && f.v == 0x04030201, "a fixed32, little-endian");
	m = unhex("08", sub);
	pos = sub;
	is_int(brig_pb_next(&pos, sub + m, &f), -1, "a key with no value");
}

int main(void)
{
	test_encode();
	test_decode();
	return tap_done();
}
