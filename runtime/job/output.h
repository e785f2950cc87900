/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One output stream of a job (stdout or stderr), capped at a limit: brig
 * drains the job's pipe as fast as the job writes, so the job never blocks
 * on it, and keeps at most @limit bytes of what it wrote: the first half
 * (rounded up) passes through live, the last half waits in a ring until
 * the job has closed the stream.  When the job wrote more than @limit, the
 * middle is dropped and one line, "[brig: N bytes dropped]", stands where
 * it was cut (on a line of its own: a newline goes before it when the head
 * does not end with one).  Memory is bounded by @limit whatever the job
 * writes; nothing is written to @out except while poll() said it can take
 * it, so a slow reader of brig's own stdout stalls only brig's copy, never
 * the job.
 *
 * The marker is exactly "[brig: N bytes dropped]" and a newline, N in
 * decimal, "bytes" even for 1, so that a script can match one pattern.
 * Limit 0 keeps nothing: the output is the marker alone when the job wrote
 * anything (the caller asked for none of it, and is told how much there
 * was), nothing at all when it wrote nothing.  The stream owns @in (closed
 * at EOF, by _finish() and by _release()), not @out.  A write to a reader
 * that is gone fails with EPIPE only if the caller ignores SIGPIPE (brig
 * job does), otherwise the signal kills brig first: that is the caller's
 * choice, not made here.
 *
 *	brig_job_stream_init(&s, pipe_read_end, STDOUT_FILENO, limit);
 *	loop: poll() s.in for brig_job_stream_in_events(&s),
 *	      s.out for brig_job_stream_out_events(&s);
 *	      brig_job_stream_read() on POLLIN/POLLHUP, _write() on POLLOUT
 *	      or POLLERR (a reader gone: the write fails, out_failed is set
 *	      and s.out is no longer asked for; polling on would spin);
 *	at the end: brig_job_stream_finish(&s) (blocking: writes what is left).
 */
#ifndef BRIG_JOB_OUTPUT_H
#define BRIG_JOB_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct brig_error;

struct brig_job_stream {
	int in;           /* the job's pipe, O_NONBLOCK; -1 once at EOF (closed) */
	int out;          /* where kept bytes go; not owned */
	uint64_t limit;   /* 0: nothing kept, everything counted as dropped */
	uint64_t total;   /* bytes the job wrote */
	uint64_t dropped; /* bytes not kept: max(0, total - limit) at the end */
	/* implementation: the head bytes read but not yet written, and the
	 * tail ring */
	char *head;
	size_t head_len, head_off; /* pending: head[head_off..head_len) */
	uint64_t head_seen;        /* head bytes taken so far (<= head cap) */
	bool head_ends_nl;         /* the last head byte written was '\n' */
	char *ring;
	size_t ring_cap, ring_start, ring_len;
	bool out_failed; /* a write to out failed (EPIPE...): keep draining, stop writing */
};

/* Sets O_NONBLOCK on @in (reads must never wait); allocates nothing: the
 * buffers grow with what the job writes, up to their share of @limit. */
void brig_job_stream_init(struct brig_job_stream *s, int in, int out, uint64_t limit);
/* poll() events to ask for on s->in (0 once at EOF) and on s->out (0 when
 * nothing is pending). */
short brig_job_stream_in_events(const struct brig_job_stream *s);
short brig_job_stream_out_events(const struct brig_job_stream *s);
/* Read what the pipe holds now (never blocks), at most 1 MiB per call so
 * that a fast job cannot starve brig's other fds (poll() reports the rest).
 * 1 at EOF (s->in is closed and set to -1), 0 otherwise, -1 with @err on a
 * read error. */
int brig_job_stream_read(struct brig_job_stream *s, struct brig_error *err);
/* Write pending head bytes, at most what one write to a pipe takes without
 * blocking after POLLOUT (PIPE_BUF). */
void brig_job_stream_write(struct brig_job_stream *s);
/* After EOF (or when brig gives up on the job): drain what the pipe still
 * holds if it is open (until it is empty, not until EOF: a process that
 * outlived the job may hold its write end; and 16 MiB at most), close it,
 * then write the rest of the head, the marker when bytes were dropped, and
 * the tail, blocking (a non-blocking @out is waited for with poll()).
 * s->dropped and s->total are final. */
void brig_job_stream_finish(struct brig_job_stream *s);
/* Closes s->in if still open and frees the buffers; @s may be released
 * without having been finished. */
void brig_job_stream_release(struct brig_job_stream *s);

#endif
