/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/job/units.c: every accepted form of a duration, a size and a
 * decimal, every refused one, and the edges of uint64 overflow.
 *
 * runtime/job/output.c over real pipes, driven from this one process with
 * non-blocking fds (and, for the blocking finish, one child reading):
 * output under and at the limit passes byte for byte; over it, the first
 * ceil(L/2) and the last floor(L/2) bytes with one marker line between,
 * placed after a newline only when the head lacks one; a 10 MiB flood
 * through 4 KiB never makes the buffers pass their share of the limit and
 * counts every dropped byte; a reader that is full or gone never makes the
 * job's pipe fill up; limit 0 writes the marker alone.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job/output.h"
#include "util/units.h"
#include "tap.h"
#include "util/error.h"

#define KiB 1024
#define MiB (1024 * 1024)

/* ---------------------------------------------------------------- units */

static void duration_ok(const char *s, uint64_t want)
{
	uint64_t ms = 12345;
	int r = brig_parse_duration_ms(s, &ms);

	ok(r == 0 && ms == want, "duration \"%s\" is %" PRIu64 " ms", s, want);
	if (r != 0 || ms != want)
		printf("#   got: %d, %" PRIu64 "\n", r, ms);
}

static void duration_bad(const char *s)
{
	uint64_t ms = 12345;
	int r = brig_parse_duration_ms(s, &ms);

	ok(r == -1 && ms == 12345, "duration \"%s\" is refused", s);
}

static void size_ok(const char *s, uint64_t want)
{
	uint64_t b = 12345;
	int r = brig_parse_size(s, &b);

	ok(r == 0 && b == want, "size \"%s\" is %" PRIu64 " bytes", s, want);
	if (r != 0 || b != want)
		printf("#   got: %d, %" PRIu64 "\n", r, b);
}

static void size_bad(const char *s)
{
	uint64_t b = 12345;
	int r = brig_parse_size(s, &b);

	ok(r == -1 && b == 12345, "size \"%s\" is refused", s);
}

static void decimal_ok(const char *s, double want)
{
	double d = -1;
	int r = brig_parse_decimal(s, &d);

	ok(r == 0 && d == want, "decimal \"%s\" is %g", s, want);
	if (r != 0 || d != want)
		printf("#   got: %d, %.17g\n", r, d);
}

static void decimal_bad(const char *s)
{
	double d = -1;
	int r = brig_parse_decimal(s, &d);

	ok(r == -1 && d == -1, "decimal \"%s\" is refused", s);
}

static void test_durations(void)
{
	duration_ok("500ms", 500);
	duration_ok("2s", 2000);
	duration_ok("1.5s", 1500);
	duration_ok("1m", 60000);
	duration_ok("1h", 3600000);
	duration_ok("60", 60000);
	duration_ok("0", 0);
	duration_ok("0ms", 0);
	duration_ok("0.5", 500);
	duration_ok("007s", 7000);
	duration_ok("1.5m", 90000);
	duration_ok("0.25h", 900000);
	duration_ok("1.5ms", 2);             /* half up */
	duration_ok("1.4999ms", 1);          /* down */
	duration_ok("0.0005s", 1);           /* 0.5 ms: half up */
	duration_ok("0.00049999999999s", 0); /* many digits, exact */
	duration_ok("1.0000000000000000000000001s", 1000);
	duration_ok("18446744073709551615ms", UINT64_MAX);
	duration_ok("18446744073709551s", 18446744073709551000u);
	duration_ok("18446744073709551.615s", UINT64_MAX);
	duration_ok("18446744073709551.6154s", UINT64_MAX); /* rounds down to it */

	duration_bad("18446744073709551616ms");     /* digits overflow */
	duration_bad("18446744073709552s");         /* * 1000 overflows */
	duration_bad("18446744073709551.616s");     /* + fraction overflows */
	duration_bad("18446744073709551.6155s");    /* rounds up past it */
	duration_bad("5124095576030432h");          /* * 3600000 overflows */
	duration_bad("99999999999999999999999999"); /* seconds, digits overflow */
	duration_bad("");
	duration_bad("-1s");
	duration_bad("+1s");
	duration_bad(" 1s");
	duration_bad("1s ");
	duration_bad("1 s");
	duration_bad("s");
	duration_bad("ms");
	duration_bad("1x");
	duration_bad("1sec");
	duration_bad("1S");
	duration_bad("1ms5");
	duration_bad("1.");
	duration_bad(".5");
	duration_bad("1.5.5s");
	duration_bad("1,5s");
	duration_bad("1e3");
	duration_bad("nan");
	duration_bad("inf");
	duration_bad("0x10");
	duration_bad("1d");
}

static void test_sizes(void)
{
	size_ok("512M", 512ull << 20);
	size_ok("64K", 64ull << 10);
	size_ok("1G", 1ull << 30);
	size_ok("65536", 65536);
	size_ok("4KiB", 4096);
	size_ok("4k", 4096);
	size_ok("4KB", 4096);
	size_ok("4Ki", 4096);
	size_ok("4kb", 4096);
	size_ok("2m", 2ull << 20);
	size_ok("1T", 1ull << 40);
	size_ok("10B", 10);
	size_ok("10b", 10);
	size_ok("0", 0);
	size_ok("0K", 0);
	size_ok("18446744073709551615", UINT64_MAX);
	size_ok("16777215T", 16777215ull << 40);
	size_ok("17179869183G", 17179869183ull << 30);

	size_bad("18446744073709551616");
	size_bad("16777216T"); /* 2^64 */
	size_bad("17179869184G");
	size_bad("");
	size_bad("-1");
	size_bad("+1");
	size_bad(" 1");
	size_bad("1 ");
	size_bad("1 K");
	size_bad("1.5G");
	size_bad("1e3");
	size_bad("1X");
	size_bad("1P");
	size_bad("1KK");
	size_bad("1KiBB");
	size_bad("1iB");
	size_bad("1BB");
	size_bad("B");
	size_bad("K");
	size_bad("nan");
	size_bad("inf");
	size_bad("0x10");
	size_bad("1,5K");
}

static void test_decimals(void)
{
	char big[400];

	decimal_ok("1.5", 1.5);
	decimal_ok("0", 0);
	decimal_ok("2", 2);
	decimal_ok("0.25", 0.25);
	decimal_ok("0.1", 0.1);
	decimal_ok("10.125", 10.125);
	decimal_ok("2.675", 2.675);
	decimal_ok("000.5", 0.5);
	{
		/* past 19 digits, a double's precision, not exactness */
		double d = 0, want = 123456789012345678901234567890.0;

		ok(brig_parse_decimal("123456789012345678901234567890", &d) == 0 &&
		       d > want * (1 - 1e-15) && d < want * (1 + 1e-15),
		   "decimal of 30 digits is about 1.2345678901234568e29");
	}
	decimal_ok("0.1000000000000000000000000001", 0.1);

	memset(big, '9', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	decimal_bad(big); /* 10^399: not finite */
	decimal_bad("");
	decimal_bad("-1");
	decimal_bad("+1");
	decimal_bad(" 1");
	decimal_bad("1 ");
	decimal_bad("1,5");
	decimal_bad("1.");
	decimal_bad(".5");
	decimal_bad("1.5.");
	decimal_bad("1e3");
	decimal_bad("nan");
	decimal_bad("inf");
	decimal_bad("infinity");
	decimal_bad("0x1");
	decimal_bad("1.5s");
}

/* --------------------------------------------------------------- streams */

static void bail(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(99);
}

static void mkpipe(int p[2])
{
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		bail("pipe2");
}

static int mkmemfd(void)
{
	int fd = memfd_create("out", MFD_CLOEXEC);

	if (fd < 0)
		bail("memfd_create");
	return fd;
}

/* All of @fd (a memfd) from its start, in a heap buffer. */
static char *slurp(int fd, size_t *len)
{
	off_t end = lseek(fd, 0, SEEK_END);
	char *buf = malloc((size_t)end + 1);

	if (end < 0 || !buf || pread(fd, buf, (size_t)end, 0) != end)
		bail("read back");
	*len = (size_t)end;
	return buf;
}

/* What the stream must write for @data: all of it within @limit, else
 * head, marker line, tail. */
static char *expected(const char *data, size_t n, size_t limit, size_t *len)
{
	size_t head = limit - limit / 2, tail = limit / 2;
	char *buf = malloc(n + 64), *p = buf;

	if (!buf)
		bail("malloc");
	if (n <= limit) {
		memcpy(buf, data, n);
		*len = n;
		return buf;
	}
	memcpy(p, data, head);
	p += head;
	p += sprintf(p, "%s[brig: %zu bytes dropped]\n",
	             head > 0 && data[head - 1] != '\n' ? "\n" : "", n - limit);
	memcpy(p, data + n - tail, tail);
	*len = (size_t)(p - buf) + tail;
	return buf;
}

/* The largest the stream's buffers have been, against their shares. */
struct bounds {
	size_t head_len, ring_cap, ring_len;
	bool ok;
};

static void check_bounds(const struct brig_job_stream *s, struct bounds *b)
{
	if (s->head_len > b->head_len)
		b->head_len = s->head_len;
	if (s->ring_cap > b->ring_cap)
		b->ring_cap = s->ring_cap;
	if (s->ring_len > b->ring_len)
		b->ring_len = s->ring_len;
	if (s->head_len > s->limit - s->limit / 2 || s->ring_cap > s->limit / 2 ||
	    s->ring_len > s->ring_cap || s->head_off > s->head_len)
		b->ok = false;
}

/* What a poll loop does with s->out: write while poll() says it can take
 * some (or that its reader is gone). */
static void pump(struct brig_job_stream *s)
{
	for (;;) {
		struct pollfd p = { .fd = s->out, .events = brig_job_stream_out_events(s) };

		if (p.events == 0 || poll(&p, 1, 0) <= 0 || !(p.revents & (POLLOUT | POLLERR)))
			return;
		brig_job_stream_write(s);
	}
}

/*
 * The job writes @n bytes of @data into @jw, non-blocking; brig reads after
 * each write and, if @live, writes out what poll() allows.  Returns how
 * many times the job's write found its pipe full (EAGAIN).
 */
static int feed(struct brig_job_stream *s, int jw, const char *data, size_t n, bool live,
                struct bounds *b)
{
	struct brig_error err = BRIG_ERROR_INIT;
	int full = 0;

	while (n > 0) {
		ssize_t w = write(jw, data, n < 64 * KiB ? n : 64 * KiB);

		if (w < 0 && errno != EAGAIN)
			bail("write job pipe");
		if (w < 0)
			full++;
		if (w > 0) {
			data += w;
			n -= (size_t)w;
		}
		if (brig_job_stream_read(s, &err) < 0)
			bail("brig_job_stream_read");
		if (b)
			check_bounds(s, b);
		if (live)
			pump(s);
	}
	return full;
}

/* The job closes its end; brig reads to EOF and finishes. */
static int end_job(struct brig_job_stream *s, int jw)
{
	struct brig_error err = BRIG_ERROR_INIT;
	int r;

	close(jw);
	while ((r = brig_job_stream_read(s, &err)) == 0)
		pump(s);
	brig_error_release(&err);
	brig_job_stream_finish(s);
	return r;
}

struct run {
	char *out;
	size_t len;
	uint64_t total, dropped;
	struct bounds b;
};

/* @data through a stream of @limit into a memfd, as a poll loop would. */
static void run(const char *data, size_t n, uint64_t limit, bool live, struct run *r)
{
	struct brig_job_stream s;
	int jp[2], out = mkmemfd();

	mkpipe(jp);
	memset(r, 0, sizeof(*r));
	r->b.ok = true;
	brig_job_stream_init(&s, jp[0], out, limit);
	feed(&s, jp[1], data, n, live, &r->b);
	end_job(&s, jp[1]);
	r->out = slurp(out, &r->len);
	r->total = s.total;
	r->dropped = s.dropped;
	brig_job_stream_release(&s);
	close(out);
}

/* @data through @limit gives exactly expected(). */
static void check_run(const char *what, const char *data, size_t n, uint64_t limit, bool live)
{
	struct run r;
	size_t want_len;
	char *want = expected(data, n, limit, &want_len);

	run(data, n, limit, live, &r);
	ok(r.len == want_len && memcmp(r.out, want, want_len) == 0, "%s: output is right", what);
	if (r.len != want_len || memcmp(r.out, want, want_len) != 0)
		printf("#   got %zu bytes, want %zu\n", r.len, want_len);
	is_int((long long)r.total, (long long)n, "%s: total counted", what);
	is_int((long long)r.dropped, n > limit ? (long long)(n - limit) : 0, "%s: dropped counted",
	       what);
	ok(r.b.ok, "%s: buffers within their shares of the limit", what);
	free(r.out);
	free(want);
}

/* @n letters, no newline. */
static char *text(size_t n)
{
	char *buf = malloc(n + 1);

	if (!buf)
		bail("malloc");
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)('a' + i % 26);
	buf[n] = '\0';
	return buf;
}

/* @n bytes of noise (xorshift), newlines included. */
static char *noise(size_t n)
{
	char *buf = malloc(n);
	uint64_t x = 0x9e3779b97f4a7c15u;

	if (!buf)
		bail("malloc");
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (char)(x >> 56);
	}
	return buf;
}

static void test_within_limit(void)
{
	char *d = noise(4 * KiB + 1);
	struct run r;

	check_run("under the limit", d, 1000, 4 * KiB, true);
	check_run("exactly at the limit", d, 4 * KiB, 4 * KiB, true);
	check_run("at the limit, nothing written live", d, 4 * KiB, 4 * KiB, false);
	check_run("odd limit, at it", d, 4095, 4095, true);

	run(d, 4 * KiB, 4 * KiB, true, &r);
	ok(r.len == 4 * KiB && memcmp(r.out, d, 4 * KiB) == 0 && !memmem(r.out, r.len, "[brig:", 6),
	   "at the limit: byte for byte, no marker");
	free(r.out);

	run("", 0, 4 * KiB, true, &r);
	ok(r.len == 0 && r.total == 0 && r.dropped == 0, "no output: nothing written");
	free(r.out);
	free(d);
}

static void test_one_over(void)
{
	char *d = text(4 * KiB + 1), *want;
	struct run r;

	/* 4097 letters: head 2048 letters, "\n" (the head lacks one), marker */
	run(d, 4 * KiB + 1, 4 * KiB, true, &r);
	want = malloc(4 * KiB + 64);
	memcpy(want, d, 2048);
	strcpy(want + 2048, "\n[brig: 1 bytes dropped]\n");
	memcpy(want + 2048 + 25, d + 4 * KiB + 1 - 2048, 2048);
	ok(r.len == 4096 + 25 && memcmp(r.out, want, r.len) == 0,
	   "one byte over: head 2048, marker, tail 2048");
	is_int((long long)r.dropped, 1, "one byte over: dropped = 1");
	free(r.out);
	free(want);

	check_run("one byte over, even limit", d, 4 * KiB + 1, 4 * KiB, true);
	check_run("one byte over, odd limit (head 2048, tail 2047)", d, 4 * KiB, 4095, true);
	check_run("one byte over, nothing written live", d, 4 * KiB + 1, 4 * KiB, false);
	free(d);
}

static void check_text(const char *what, const char *data, uint64_t limit, bool live,
                       const char *want)
{
	struct run r;

	run(data, strlen(data), limit, live, &r);
	r.out[r.len] = '\0';
	is_str(r.out, want, "%s", what);
	free(r.out);
}

static void test_marker(void)
{
	check_text("head ends with a newline: marker right after it", "abc\nXXXXXXXXwxyz", 8, true,
	           "abc\n[brig: 8 bytes dropped]\nwxyz");
	check_text("head without a newline: one goes before the marker", "abcdXXXXXXXXwxyz", 8,
	           true, "abcd\n[brig: 8 bytes dropped]\nwxyz");
	check_text("head ends with a newline, written only at the end", "abc\nXXXXXXXXwxyz", 8,
	           false, "abc\n[brig: 8 bytes dropped]\nwxyz");
	check_text("head without a newline, written only at the end", "abcdXXXXXXXXwxyz", 8, false,
	           "abcd\n[brig: 8 bytes dropped]\nwxyz");
	check_text("odd limit: head ceil(5/2), tail floor(5/2)", "0123456789", 5, true,
	           "012\n[brig: 5 bytes dropped]\n89");
	check_text("limit 1: head only", "ab", 1, true, "a\n[brig: 1 bytes dropped]\n");
	check_text("limit 2", "abc", 2, true, "a\n[brig: 1 bytes dropped]\nc");
	check_text("lines: the tail may start mid-line", "line1\nline2\nline3\nline4\n", 12, true,
	           "line1\n[brig: 12 bytes dropped]\nline4\n");
	check_text("limit 0: the marker alone", "hello\n", 0, true, "[brig: 6 bytes dropped]\n");
	check_text("limit 0, no output: nothing", "", 0, true, "");
}

static void test_limit_zero(void)
{
	struct run r;
	char *d = noise(100 * KiB);

	run(d, 100 * KiB, 0, true, &r);
	r.out[r.len] = '\0';
	is_str(r.out, "[brig: 102400 bytes dropped]\n", "limit 0: 100 KiB, the marker alone");
	ok(r.b.head_len == 0 && r.b.ring_cap == 0, "limit 0: no buffer ever allocated");
	free(r.out);
	free(d);
}

static void test_flood(void)
{
	size_t n = 10 * MiB, limit = 4 * KiB;
	char *d = noise(n);
	struct run r;
	size_t want_len;
	char *want = expected(d, n, limit, &want_len);

	run(d, n, limit, true, &r);
	ok(r.len == want_len && memcmp(r.out, want, want_len) == 0,
	   "10 MiB through 4 KiB: head, marker and tail exact");
	is_int((long long)r.dropped, (long long)(n - limit), "10 MiB through 4 KiB: dropped exact");
	is_int((long long)r.total, (long long)n, "10 MiB through 4 KiB: total exact");
	ok(r.b.ok && r.b.head_len <= 2 * KiB && r.b.ring_cap == 2 * KiB,
	   "10 MiB through 4 KiB: head at most 2 KiB, ring exactly 2 KiB");
	free(r.out);
	free(want);

	/* the same through a large limit, nothing written live: the head
	 * waits in memory, but never more than its share */
	check_run("10 MiB through 1 MiB, nothing written live", d, n, MiB, false);
	free(d);
}

static void test_write_pipe_buf(void)
{
	struct brig_job_stream s;
	int jp[2], out = mkmemfd();
	char *d = noise(100 * KiB);
	struct run r = { .b.ok = true };

	mkpipe(jp);
	brig_job_stream_init(&s, jp[0], out, MiB);
	feed(&s, jp[1], d, 100 * KiB, false, &r.b);
	is_int((long long)s.head_len - (long long)s.head_off, 100 * KiB,
	       "nothing written until asked: 100 KiB pending");
	ok(brig_job_stream_out_events(&s) == POLLOUT, "pending head: POLLOUT asked for");
	brig_job_stream_write(&s);
	is_int((long long)s.head_off, PIPE_BUF, "one write: PIPE_BUF bytes");
	is_int(lseek(out, 0, SEEK_CUR), PIPE_BUF, "PIPE_BUF bytes in out");
	pump(&s);
	ok(brig_job_stream_out_events(&s) == 0 && s.head_len == 0,
	   "all written: nothing pending, POLLOUT no longer asked for");
	ok(brig_job_stream_in_events(&s) == POLLIN, "the job's pipe still open: POLLIN");
	end_job(&s, jp[1]);
	ok(s.in == -1 && brig_job_stream_in_events(&s) == 0, "at EOF: in is -1, no POLLIN");
	r.out = slurp(out, &r.len);
	ok(r.len == 100 * KiB && memcmp(r.out, d, r.len) == 0, "100 KiB through 1 MiB unchanged");
	free(r.out);
	brig_job_stream_release(&s);
	close(out);
	free(d);
}

/* The reader of brig's output stalls, then leaves: the job goes on. */
static void test_slow_then_gone_reader(void)
{
	struct brig_job_stream s;
	int jp[2], op[2], full;
	char *d = noise(4 * MiB);
	struct pollfd p;
	struct bounds b = { .ok = true };

	mkpipe(jp);
	mkpipe(op); /* nobody reads op[0] */
	brig_job_stream_init(&s, jp[0], op[1], MiB);
	full = feed(&s, jp[1], d, MiB, true, &b);
	is_int(full, 0, "reader stalled: 1 MiB, the job's pipe never full");
	p = (struct pollfd){ .fd = op[1], .events = POLLOUT };
	ok(poll(&p, 1, 0) == 0, "brig's own output pipe is full");
	ok(s.head_len - s.head_off > 64 * KiB, "the head waits in memory (%zu bytes)",
	   s.head_len - s.head_off);
	ok(!s.out_failed, "a full reader is no failure");
	is_int((long long)s.total, MiB, "all counted");

	close(op[0]); /* the reader is gone */
	pump(&s);
	ok(s.out_failed, "reader gone: EPIPE sets out_failed");
	ok(s.head == NULL && brig_job_stream_out_events(&s) == 0,
	   "reader gone: head freed, POLLOUT no longer asked for");
	full = feed(&s, jp[1], d + MiB, 3 * MiB, true, &b);
	is_int(full, 0, "reader gone: 3 MiB more, the job's pipe never full");
	ok(s.head == NULL, "reader gone: no head kept");
	is_int(end_job(&s, jp[1]), 1, "reader gone: read to EOF");
	is_int((long long)s.total, 4 * MiB, "reader gone: total 4 MiB");
	is_int((long long)s.dropped, 3 * MiB, "reader gone: dropped = total - limit");
	ok(b.ok, "reader gone: buffers within their shares");
	brig_job_stream_release(&s);
	close(op[1]);
	free(d);
}

static void test_reader_gone_first(void)
{
	struct brig_job_stream s;
	int jp[2], op[2];
	char *d = noise(100 * KiB);

	mkpipe(jp);
	mkpipe(op);
	close(op[0]);
	brig_job_stream_init(&s, jp[0], op[1], 4 * KiB);
	is_int(feed(&s, jp[1], d, 100 * KiB, true, NULL), 0, "no reader: the job never blocks");
	ok(s.out_failed, "no reader: out_failed");
	end_job(&s, jp[1]);
	is_int((long long)s.dropped, 100 * KiB - 4 * KiB, "no reader: dropped still counted");
	brig_job_stream_release(&s);
	close(op[1]);
	free(d);
}

/* finish() on a pipe whose writer is still open: reads what it holds,
 * stops at EAGAIN instead of waiting for an EOF that may never come. */
static void test_finish_open_pipe(void)
{
	struct brig_job_stream s;
	int jp[2], out = mkmemfd();
	char *d = noise(3000), *got;
	size_t len;

	mkpipe(jp);
	brig_job_stream_init(&s, jp[0], out, 4 * KiB);
	if (write(jp[1], d, 3000) != 3000)
		bail("write");
	brig_job_stream_finish(&s);
	got = slurp(out, &len);
	ok(len == 3000 && memcmp(got, d, len) == 0, "finish drains a pipe still open");
	ok(s.in == -1, "finish closes the job's pipe");
	is_int((long long)s.total, 3000, "finish counts what it drained");
	brig_job_stream_release(&s);
	close(jp[1]);
	close(out);
	free(got);
	free(d);
}

/* finish() into a non-blocking pipe smaller than what is left: it waits
 * in poll() for the reader (a child copying into a memfd). */
static void test_finish_nonblocking_out(void)
{
	struct brig_job_stream s;
	int jp[2], op[2], copy = mkmemfd(), status;
	size_t n = 2 * MiB, limit = 512 * KiB, want_len, len;
	char *d = noise(n), *want = expected(d, n, limit, &want_len), *got;
	pid_t pid;

	mkpipe(op);
	pid = fork();
	if (pid < 0)
		bail("fork");
	if (pid == 0) {
		char buf[4096];
		ssize_t r;

		close(op[1]);
		fcntl(op[0], F_SETFL, 0);
		while ((r = read(op[0], buf, sizeof(buf))) > 0)
			if (write(copy, buf, (size_t)r) != r)
				_exit(1);
		_exit(r == 0 ? 0 : 1);
	}
	close(op[0]);
	mkpipe(jp); /* after the fork: the child must not hold the job's pipe */
	brig_job_stream_init(&s, jp[0], op[1], limit);
	feed(&s, jp[1], d, n, false, NULL);
	ok(s.head_len - s.head_off == 256 * KiB, "256 KiB head pending for a 64 KiB pipe");
	end_job(&s, jp[1]);
	ok(!s.out_failed, "finish waited for the reader, no failure");
	close(op[1]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		bail("reader child");
	got = slurp(copy, &len);
	ok(len == want_len && memcmp(got, want, len) == 0,
	   "finish into a non-blocking pipe: head, marker, tail exact");
	brig_job_stream_release(&s);
	close(copy);
	free(got);
	free(want);
	free(d);
}

static void test_read_error(void)
{
	struct brig_job_stream s;
	struct brig_error err = BRIG_ERROR_INIT;
	int jp[2], out = mkmemfd();

	mkpipe(jp);
	brig_job_stream_init(&s, jp[1], out, 4 * KiB); /* the write end: EBADF */
	is_int(brig_job_stream_read(&s, &err), -1, "a read error is -1");
	ok(err.errnum == EBADF && err.msg && strncmp(err.msg, "read job output", 15) == 0,
	   "with the errno and a message (%s)", err.msg ? err.msg : "(null)");
	brig_error_release(&err);
	brig_job_stream_release(&s);
	close(jp[0]);
	close(out);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN); /* as brig job does */
	test_durations();
	test_sizes();
	test_decimals();
	test_within_limit();
	test_one_over();
	test_marker();
	test_limit_zero();
	test_flood();
	test_write_pipe_buf();
	test_slow_then_gone_reader();
	test_reader_gone_first();
	test_finish_open_pipe();
	test_finish_nonblocking_out();
	test_read_error();
	return tap_done();
}
