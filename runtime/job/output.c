/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A job's output stream, capped (the contract is in output.h).  Bytes read
 * from the job go, in order, to three places: the head (the first
 * ceil(limit / 2) bytes), pending in s->head until @out takes them; the
 * tail ring (the last floor(limit / 2)); and, pushed out of the full ring,
 * nowhere, only counted in s->dropped.  Both buffers grow on demand up to
 * their share of the limit, so a job that writes little costs little
 * whatever the limit.
 */
#include "config.h"
#include "job/output.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"

/* One read(2) of the job's pipe: the default capacity of a pipe. */
#define READ_CHUNK 16384
/* What one brig_job_stream_read() takes at most before it returns, so that
 * a job that writes as fast as brig reads cannot keep brig from its other
 * fds: the largest pipe an unprivileged process may have
 * (/proc/sys/fs/pipe-max-size by default). */
#define READ_ROUND (1024 * 1024)
/* What brig_job_stream_finish() reads at most: a process that outlived the
 * job and keeps writing into its pipe cannot hold brig forever. */
#define FINISH_ROUNDS 16
/* The first allocation of a buffer; it then doubles up to its cap. */
#define BUF_MIN 4096

static uint64_t head_cap(const struct brig_job_stream *s)
{
	return s->limit - s->limit / 2;
}

static uint64_t tail_cap(const struct brig_job_stream *s)
{
	return s->limit / 2;
}

/* The size of a buffer holding @len bytes of at most @cap: the power of
 * two above @len, at least BUF_MIN, at most @cap.  Monotonic in @len, so
 * that the head buffer needs no field for its size: it is at least
 * grow_size(head_len) whatever head_len has shrunk to since. */
static size_t grow_size(uint64_t len, uint64_t cap)
{
	uint64_t n = BUF_MIN;

	while (n < len && n < cap)
		n *= 2;
	return (size_t)(n < cap ? n : cap);
}

void brig_job_stream_init(struct brig_job_stream *s, int in, int out, uint64_t limit)
{
	memset(s, 0, sizeof(*s));
	s->in = in;
	s->out = out;
	s->limit = limit;
	/* "Never blocks" must not depend on the caller having remembered. */
	if (in >= 0)
		fcntl(in, F_SETFL, fcntl(in, F_GETFL) | O_NONBLOCK);
}

short brig_job_stream_in_events(const struct brig_job_stream *s)
{
	return s->in >= 0 ? POLLIN : 0;
}

short brig_job_stream_out_events(const struct brig_job_stream *s)
{
	return !s->out_failed && s->head_off < s->head_len ? POLLOUT : 0;
}

/* Give up on @out: nothing more is written, nothing more kept for it. */
static void out_fail(struct brig_job_stream *s)
{
	s->out_failed = true;
	free(s->head);
	s->head = NULL;
	s->head_len = s->head_off = 0;
}

/* Append to the pending head.  The buffer is never compacted, only reset
 * once all is written: over the whole stream at most head_cap() bytes ever
 * enter it, so head_len cannot pass that. */
static void head_add(struct brig_job_stream *s, const char *data, size_t n)
{
	size_t have = s->head ? grow_size(s->head_len, head_cap(s)) : 0;
	size_t need = grow_size(s->head_len + n, head_cap(s));

	if (need > have)
		s->head = brig_xrealloc(s->head, need);
	memcpy(s->head + s->head_len, data, n);
	s->head_len += n;
}

/* Room for ring_len + @n bytes, up to the tail cap.  The ring only wraps
 * once it has its full size; until then its bytes start at 0 and realloc()
 * keeps them in order. */
static void ring_grow(struct brig_job_stream *s, size_t n)
{
	uint64_t cap = tail_cap(s);

	if (s->ring_cap >= cap || s->ring_len + n <= s->ring_cap)
		return;
	s->ring_cap = grow_size(s->ring_len + n, cap);
	s->ring = brig_xrealloc(s->ring, s->ring_cap);
}

/* Keep the last tail_cap() bytes of the ring followed by @data. */
static void ring_add(struct brig_job_stream *s, const char *data, size_t n)
{
	size_t over, at, first;

	if (n == 0)
		return;
	if (tail_cap(s) == 0) {
		s->dropped += n;
		return;
	}
	if (n >= tail_cap(s)) {
		s->dropped += s->ring_len + (n - tail_cap(s));
		ring_grow(s, n);
		memcpy(s->ring, data + n - s->ring_cap, s->ring_cap);
		s->ring_start = 0;
		s->ring_len = s->ring_cap;
		return;
	}
	ring_grow(s, n);
	over = s->ring_len + n > s->ring_cap ? s->ring_len + n - s->ring_cap : 0;
	s->dropped += over;
	s->ring_start = (s->ring_start + over) % s->ring_cap;
	s->ring_len -= over;
	at = (s->ring_start + s->ring_len) % s->ring_cap;
	first = n < s->ring_cap - at ? n : s->ring_cap - at;
	memcpy(s->ring + at, data, first);
	memcpy(s->ring, data + first, n - first);
	s->ring_len += n;
}

/* Sort @n bytes the job wrote into head, ring and dropped. */
static void take(struct brig_job_stream *s, const char *data, size_t n)
{
	uint64_t room = head_cap(s) - s->head_seen;
	size_t h = n < room ? n : (size_t)room;

	s->total += n;
	if (h > 0 && !s->out_failed)
		head_add(s, data, h);
	s->head_seen += h;
	ring_add(s, data + h, n - h);
}

/* Read up to @max bytes.  1 at end-of-file (s->in closed), 0 when the pipe
 * is empty (EAGAIN), 2 when @max was read, -1 on an error. */
static int drain(struct brig_job_stream *s, size_t max, struct brig_error *err)
{
	char chunk[READ_CHUNK];

	if (s->in < 0)
		return 1;
	for (size_t got = 0; got < max;) {
		ssize_t n = read(s->in, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return brig_error_setp(err, errno, "read job output");
		if (n == 0) {
			close(s->in);
			s->in = -1;
			return 1;
		}
		take(s, chunk, (size_t)n);
		got += (size_t)n;
	}
	return 2;
}

int brig_job_stream_read(struct brig_job_stream *s, struct brig_error *err)
{
	int r = drain(s, READ_ROUND, err);

	return r == 2 ? 0 : r;
}

/* After a successful write of @n head bytes. */
static void head_written(struct brig_job_stream *s, size_t n)
{
	s->head_off += n;
	s->head_ends_nl = s->head[s->head_off - 1] == '\n';
	if (s->head_off < s->head_len)
		return;
	s->head_len = s->head_off = 0;
	if (s->head_seen == head_cap(s)) {
		/* the head is complete: its buffer will not be needed again */
		free(s->head);
		s->head = NULL;
	}
}

void brig_job_stream_write(struct brig_job_stream *s)
{
	size_t n = s->head_len - s->head_off;
	ssize_t w;

	if (s->out_failed || n == 0)
		return;
	if (n > PIPE_BUF)
		n = PIPE_BUF;
	w = write(s->out, s->head + s->head_off, n);
	if (w > 0)
		head_written(s, (size_t)w);
	else if (w == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
		out_fail(s);
}

/* All of @buf to @out, waiting in poll() when @out is non-blocking and
 * full; false (and out_failed) when @out fails. */
static bool write_all(struct brig_job_stream *s, const char *buf, size_t len)
{
	while (len > 0 && !s->out_failed) {
		ssize_t w = write(s->out, buf, len);
		struct pollfd p = { .fd = s->out, .events = POLLOUT };

		if (w > 0) {
			buf += w;
			len -= (size_t)w;
		} else if (w < 0 && errno == EINTR) {
			continue;
		} else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (poll(&p, 1, -1) < 0 && errno != EINTR)
				out_fail(s);
		} else {
			out_fail(s);
		}
	}
	return !s->out_failed;
}

/* The marker on a line of its own: after a newline unless the head ended
 * with one (or there is no head: limit 0). */
static bool write_marker(struct brig_job_stream *s)
{
	char line[64];
	bool nl = s->head_seen > 0 && !s->head_ends_nl;
	int n = snprintf(line, sizeof(line), "%s[brig: %" PRIu64 " bytes dropped]\n",
	                 nl ? "\n" : "", s->dropped);

	return write_all(s, line, (size_t)n);
}

void brig_job_stream_finish(struct brig_job_stream *s)
{
	struct brig_error err = BRIG_ERROR_INIT;
	size_t first;

	for (int i = 0; i < FINISH_ROUNDS && drain(s, READ_ROUND, &err) == 2; i++)
		;
	brig_error_release(&err); /* what could be read is counted; no more */
	if (s->in >= 0) {
		close(s->in);
		s->in = -1;
	}
	while (!s->out_failed && s->head_off < s->head_len)
		if (write_all(s, s->head + s->head_off, s->head_len - s->head_off))
			head_written(s, s->head_len - s->head_off);
	if (s->dropped > 0 && !write_marker(s))
		return;
	if (s->ring_len == 0)
		return;
	first =
	    s->ring_len < s->ring_cap - s->ring_start ? s->ring_len : s->ring_cap - s->ring_start;
	if (write_all(s, s->ring + s->ring_start, first))
		write_all(s, s->ring, s->ring_len - first);
}

void brig_job_stream_release(struct brig_job_stream *s)
{
	if (s->in >= 0)
		close(s->in);
	s->in = -1;
	free(s->head);
	free(s->ring);
	s->head = s->ring = NULL;
	s->head_len = s->head_off = s->ring_cap = s->ring_start = s->ring_len = 0;
}
