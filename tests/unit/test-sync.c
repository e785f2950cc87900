/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/lifecycle/sync.c over a real SOCK_SEQPACKET socketpair: every step
 * round-trips (bare, with text, with an fd that is checked to be the same
 * file), an ERROR while another step is expected becomes the peer's text,
 * out-of-order, truncated and forged messages are errors naming the steps,
 * end-of-file is an error except where it is what is waited for, text is cut
 * at the message's limit, and no fd that came with a refused message stays
 * open in the receiver (counted in /proc/self/fd).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lifecycle/sync.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/error.h"

/* sync.c's wire format, mirrored here only to forge bad messages: magic,
 * step, then up to 4096 bytes of NUL-terminated text. */
#define WIRE_MAGIC 0x62726967u
#define WIRE_TEXT_MAX 4096

struct wire_msg {
	uint32_t magic;
	uint32_t step;
	char text[WIRE_TEXT_MAX];
};

#define WHO "container init"

/* ---------------------------------------------------------------- helpers */

/* The parent's and the init's ends, as brig makes them. */
static void pair(int sv[2])
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		printf("Bail out! socketpair: %s\n", strerror(errno));
		exit(99);
	}
}

static void close_pair(int sv[2])
{
	close(sv[0]);
	close(sv[1]);
}

/* Open fds of this process, the one reading the directory not counted. */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;
}

/* Send @len bytes of @buf as one message, with @nfds fds of @fds attached
 * (SCM_RIGHTS), bypassing sync.c. */
static ssize_t raw_send(int fd, const void *buf, size_t len, const int *fds, size_t nfds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(4 * sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfds) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		CMSG_FIRSTHDR(&msg)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&msg)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&msg)->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&msg)), fds, nfds * sizeof(int));
	}
	return sendmsg(fd, &msg, MSG_NOSIGNAL);
}

/* A message with @magic, @step and @text, @len bytes long on the wire (0:
 * as sync.c would size it: header, text, NUL). */
static ssize_t forge(int fd, uint32_t magic, uint32_t step, const char *text, size_t len,
                     const int *fds, size_t nfds)
{
	static struct wire_msg m;

	memset(&m, 0, sizeof(m));
	m.magic = magic;
	m.step = step;
	if (text)
		memcpy(m.text, text, strnlen(text, sizeof(m.text)));
	if (!len)
		len = offsetof(struct wire_msg, text) + (text ? strlen(text) : 0) + 1;
	return raw_send(fd, &m, len, fds, nfds);
}

/* The error @r came with: "" when none, "(none set)" for -1 without one. */
static const char *outcome(int r, struct brig_error *err)
{
	static char buf[8192];

	if (r < 0)
		snprintf(buf, sizeof(buf), "%s", err->msg ? err->msg : "(none set)");
	else
		snprintf(buf, sizeof(buf), "%s", err->msg ? err->msg : "");
	brig_error_release(err);
	return buf;
}

static const char *expect_msg(int fd, enum brig_sync_step step)
{
	struct brig_error err = BRIG_ERROR_INIT;

	return outcome(brig_sync_expect(fd, step, WHO, &err), &err);
}

/* Whether @a and @b are the same open file (device and inode). */
static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* A file of its own to pass: a fresh inode, so same_file() means it. */
static int scratch_file(void)
{
	char tmpl[] = "/tmp/brig-test-sync.XXXXXX";
	int fd = mkostemp(tmpl, O_CLOEXEC);

	if (fd < 0) {
		printf("Bail out! mkostemp: %s\n", strerror(errno));
		exit(99);
	}
	unlink(tmpl);
	return fd;
}

static const enum brig_sync_step all_steps[] = {
	BRIG_SYNC_MAPS_DONE,
	BRIG_SYNC_READY,
	BRIG_SYNC_GO,
	BRIG_SYNC_ERROR,
	BRIG_SYNC_SECCOMP_FD,
	BRIG_SYNC_CREATE_RUNTIME_HOOKS,
	BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE,
	BRIG_SYNC_PTY_MASTER,
	BRIG_SYNC_MOUNT_FD,
	BRIG_SYNC_PIDFD,
};
#define N_STEPS (sizeof(all_steps) / sizeof(all_steps[0]))

/* ---------------------------------------------------------------- names */

static void test_names(void)
{
	static const char *const want[] = {
		"MAPS_DONE",
		"READY",
		"GO",
		"ERROR",
		"SECCOMP_FD",
		"CREATE_RUNTIME_HOOKS",
		"CREATE_RUNTIME_HOOKS_DONE",
		"PTY_MASTER",
		"MOUNT_FD",
		"PIDFD",
	};

	for (size_t i = 0; i < N_STEPS; i++)
		is_str(brig_sync_step_name(all_steps[i]), want[i], "step %d is named %s",
		       (int)all_steps[i], want[i]);
	is_str(brig_sync_step_name((enum brig_sync_step)0), "unknown", "step 0 is unknown");
	is_str(brig_sync_step_name((enum brig_sync_step)999), "unknown", "step 999 is unknown");
}

/* ---------------------------------------------------------------- round trips */

static void test_round_trips(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	char text[64];
	int sv[2];

	pair(sv);
	/* ERROR is left out: expecting it is not what a caller does, and a
	 * received ERROR is always an error (test_error) */
	for (size_t i = 0; i < N_STEPS; i++) {
		enum brig_sync_step s = all_steps[i];

		if (s == BRIG_SYNC_ERROR)
			continue;
		is_int(brig_sync_send(sv[0], s, NULL, &err), 0, "send %s", brig_sync_step_name(s));
		is_str(expect_msg(sv[1], s), "", "expect %s: received, no error",
		       brig_sync_step_name(s));
	}

	/* and the other way: the protocol is symmetric */
	brig_sync_send(sv[1], BRIG_SYNC_GO, NULL, &err);
	is_str(expect_msg(sv[0], BRIG_SYNC_GO), "", "GO from the other end");

	brig_sync_send(sv[0], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, "12345", &err);
	memset(text, 'z', sizeof(text));
	is_str(outcome(brig_sync_expect_text(sv[1], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, WHO, text,
	                                     sizeof(text), &err),
	               &err),
	       "", "expect_text CREATE_RUNTIME_HOOKS_DONE");
	is_str(text, "12345", "the pid arrives as sent, NUL-terminated");

	brig_sync_send(sv[0], BRIG_SYNC_READY, NULL, &err);
	memset(text, 'z', sizeof(text));
	brig_sync_expect_text(sv[1], BRIG_SYNC_READY, WHO, text, sizeof(text), &err);
	is_str(text, "", "expect_text of a step sent without text: empty");

	brig_sync_send(sv[0], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, "12345", &err);
	is_str(expect_msg(sv[1], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE), "",
	       "expect (no buffer) takes a step with text");

	brig_sync_send(sv[0], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, "12345", &err);
	memset(text, 'z', sizeof(text));
	brig_sync_expect_text(sv[1], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, WHO, text, 0, &err);
	ok(text[0] == 'z', "expect_text with size 0 writes nothing");

	/* several in a row keep their boundaries and order */
	brig_sync_send(sv[0], BRIG_SYNC_MAPS_DONE, NULL, &err);
	brig_sync_send(sv[0], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, "1", &err);
	brig_sync_send(sv[0], BRIG_SYNC_GO, NULL, &err);
	is_str(expect_msg(sv[1], BRIG_SYNC_MAPS_DONE), "", "queued: MAPS_DONE first");
	brig_sync_expect_text(sv[1], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, WHO, text, sizeof(text),
	                      &err);
	is_str(text, "1", "queued: then the text, whole");
	is_str(expect_msg(sv[1], BRIG_SYNC_GO), "", "queued: then GO");
	brig_error_release(&err);
	close_pair(sv);
}

static void test_fd_passing(void)
{
	static const enum brig_sync_step carriers[] = {
		BRIG_SYNC_SECCOMP_FD,
		BRIG_SYNC_PTY_MASTER,
		BRIG_SYNC_MOUNT_FD,
		BRIG_SYNC_PIDFD,
	};
	struct brig_error err = BRIG_ERROR_INIT;
	int sv[2], before, got;

	pair(sv);
	for (size_t i = 0; i < sizeof(carriers) / sizeof(carriers[0]); i++) {
		enum brig_sync_step s = carriers[i];
		_cleanup_close_ int file = scratch_file();

		is_int(brig_sync_send_fd(sv[0], s, file, &err), 0, "send_fd %s",
		       brig_sync_step_name(s));
		got = brig_sync_expect_fd(sv[1], s, WHO, &err);
		ok(got >= 0 && got != file, "expect_fd %s: a new fd (%d)", brig_sync_step_name(s),
		   got);
		ok(same_file(got, file), "%s: the same file as the one sent",
		   brig_sync_step_name(s));
		ok(got >= 0 && (fcntl(got, F_GETFD) & FD_CLOEXEC), "%s: received close-on-exec",
		   brig_sync_step_name(s));
		if (got >= 0)
			close(got);
	}

	/* the sender keeps its own copy: the fd is duplicated, not moved */
	{
		_cleanup_close_ int file = scratch_file();

		brig_sync_send_fd(sv[0], BRIG_SYNC_MOUNT_FD, file, &err);
		got = brig_sync_expect_fd(sv[1], BRIG_SYNC_MOUNT_FD, WHO, &err);
		ok(fcntl(file, F_GETFD) >= 0, "the sender's fd stays open");
		if (got >= 0 && write(got, "x", 1) == 1)
			ok(lseek(file, 0, SEEK_CUR) == 1,
			   "one open file description: offsets shared");
		else
			ok(false, "write through the received fd");
		if (got >= 0)
			close(got);
	}

	/* the step without its fd is an error, not -1 taken for an fd */
	brig_sync_send(sv[0], BRIG_SYNC_PTY_MASTER, NULL, &err);
	got = brig_sync_expect_fd(sv[1], BRIG_SYNC_PTY_MASTER, WHO, &err);
	is_int(got, -1, "expect_fd: PTY_MASTER without an fd gives -1");
	is_str(outcome(got, &err), WHO ": PTY_MASTER came without its file descriptor",
	       "... naming the step");

	/* an fd with the expected step, to a caller that wants none: closed */
	before = count_fds();
	{
		_cleanup_close_ int file = scratch_file();

		brig_sync_send_fd(sv[0], BRIG_SYNC_READY, file, &err);
	}
	is_str(expect_msg(sv[1], BRIG_SYNC_READY), "", "expect READY that came with an fd: fine");
	is_int(count_fds(), before, "... and the fd nobody asked for is closed");
	close_pair(sv);
}

/* ---------------------------------------------------------------- errors */

static void test_error(void)
{
	static const char *peer_msg = "mount \"/proc\": Operation not permitted";
	struct brig_error err = BRIG_ERROR_INIT;
	char text[64] = "untouched";
	int sv[2], r, before;

	pair(sv);
	brig_sync_send(sv[0], BRIG_SYNC_ERROR, peer_msg, &err);
	r = brig_sync_expect(sv[1], BRIG_SYNC_READY, WHO, &err);
	is_int(r, -1, "ERROR while expecting READY fails");
	is_int(err.errnum, 0, "... with no errno of its own");
	is_str(outcome(r, &err), peer_msg, "... and the peer's text as the error, as it is");

	brig_sync_send(sv[0], BRIG_SYNC_ERROR, peer_msg, &err);
	r = brig_sync_expect_text(sv[1], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, WHO, text,
	                          sizeof(text), &err);
	is_str(outcome(r, &err), peer_msg, "ERROR while expecting text: the peer's text");
	is_str(text, "untouched", "... and the caller's buffer is left alone");

	brig_sync_send(sv[0], BRIG_SYNC_ERROR, peer_msg, &err);
	r = brig_sync_expect_fd(sv[1], BRIG_SYNC_SECCOMP_FD, WHO, &err);
	is_int(r, -1, "ERROR while expecting an fd: -1");
	is_str(outcome(r, &err), peer_msg, "... with the peer's text");

	brig_sync_send(sv[0], BRIG_SYNC_ERROR, NULL, &err);
	r = brig_sync_expect(sv[1], BRIG_SYNC_GO, WHO, &err);
	is_int(r, -1, "an ERROR without text is still an error");
	is_str(outcome(r, &err), "", "... with the (empty) text it had");

	/* an ERROR that carried an fd: the error, and the fd closed */
	before = count_fds();
	{
		_cleanup_close_ int file = scratch_file();

		forge(sv[0], WIRE_MAGIC, BRIG_SYNC_ERROR, "with an fd", 0, &file, 1);
	}
	r = brig_sync_expect_fd(sv[1], BRIG_SYNC_SECCOMP_FD, WHO, &err);
	is_str(outcome(r, &err), "with an fd", "ERROR carrying an fd: its text");
	is_int(count_fds(), before, "... and the fd it carried is closed");
	close_pair(sv);
}

static void test_out_of_order(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	int sv[2], r, before;

	pair(sv);
	brig_sync_send(sv[0], BRIG_SYNC_GO, NULL, &err);
	is_str(expect_msg(sv[1], BRIG_SYNC_READY), WHO ": expected READY, got GO",
	       "GO while READY is expected: both steps named");

	brig_sync_send(sv[0], BRIG_SYNC_READY, NULL, &err);
	r = brig_sync_expect(sv[1], BRIG_SYNC_MAPS_DONE, "parent", &err);
	is_str(outcome(r, &err), "parent: expected MAPS_DONE, got READY", "@who names the peer");

	forge(sv[0], WIRE_MAGIC, 999, NULL, 0, NULL, 0);
	is_str(expect_msg(sv[1], BRIG_SYNC_READY), WHO ": expected READY, got unknown",
	       "a step that does not exist: 'unknown'");

	forge(sv[0], WIRE_MAGIC, 0, NULL, 0, NULL, 0);
	is_str(expect_msg(sv[1], BRIG_SYNC_READY), WHO ": expected READY, got unknown",
	       "step 0: 'unknown'");

	/* a refused message is consumed: the next one is read normally */
	brig_sync_send(sv[0], BRIG_SYNC_READY, NULL, &err);
	is_str(expect_msg(sv[1], BRIG_SYNC_READY), "", "the stream goes on after a refused step");

	/* an fd that came with the wrong step is closed, and not returned */
	before = count_fds();
	{
		_cleanup_close_ int file = scratch_file();

		brig_sync_send_fd(sv[0], BRIG_SYNC_MOUNT_FD, file, &err);
	}
	r = brig_sync_expect_fd(sv[1], BRIG_SYNC_PTY_MASTER, WHO, &err);
	is_int(r, -1, "MOUNT_FD + fd while PTY_MASTER is expected: -1");
	is_str(outcome(r, &err), WHO ": expected PTY_MASTER, got MOUNT_FD", "... both named");
	is_int(count_fds(), before, "... and the fd is closed");

	before = count_fds();
	{
		_cleanup_close_ int file = scratch_file();

		brig_sync_send_fd(sv[0], BRIG_SYNC_SECCOMP_FD, file, &err);
	}
	is_str(expect_msg(sv[1], BRIG_SYNC_READY), WHO ": expected READY, got SECCOMP_FD",
	       "SECCOMP_FD + fd while READY is expected: an error");
	is_int(count_fds(), before, "... and the fd is closed");
	close_pair(sv);
}

static void test_corrupt(void)
{
	static const char *corrupt = WHO ": truncated or corrupt message while waiting for READY";
	struct brig_error err = BRIG_ERROR_INIT;
	uint32_t word = WIRE_MAGIC;
	int sv[2], r, before;

	pair(sv);
	forge(sv[0], 0x12345678u, BRIG_SYNC_READY, NULL, 0, NULL, 0);
	is_str(expect_msg(sv[1], BRIG_SYNC_READY), corrupt, "wrong magic: corrupt");

	forge(sv[0], __builtin_bswap32(WIRE_MAGIC), BRIG_SYNC_READY, NULL, 0, NULL, 0);
	is_str(expect_msg(sv[1], BRIG_SYNC_READY), corrupt,
	       "magic in the other byte order: corrupt");

	raw_send(sv[0], &word, sizeof(word), NULL, 0);
	is_str(expect_msg(sv[1], BRIG_SYNC_READY), corrupt, "4 bytes (the magic only): truncated");

	/* the header without the text's NUL: one byte short of the least */
	forge(sv[0], WIRE_MAGIC, BRIG_SYNC_READY, NULL, offsetof(struct wire_msg, text), NULL, 0);
	is_str(expect_msg(sv[1], BRIG_SYNC_READY), corrupt, "8 bytes (no text byte): truncated");

	raw_send(sv[0], "b", 1, NULL, 0);
	is_str(expect_msg(sv[1], BRIG_SYNC_READY), corrupt, "1 byte: truncated");

	/* the least message is accepted: header and the NUL */
	forge(sv[0], WIRE_MAGIC, BRIG_SYNC_READY, NULL, offsetof(struct wire_msg, text) + 1, NULL,
	      0);
	is_str(expect_msg(sv[1], BRIG_SYNC_READY), "", "9 bytes (header, NUL): accepted");

	/* a forged ERROR is corrupt too, not taken for the peer's message */
	forge(sv[0], 0, BRIG_SYNC_ERROR, "forged", 0, NULL, 0);
	is_str(expect_msg(sv[1], BRIG_SYNC_READY), corrupt, "ERROR with a wrong magic: corrupt");

	forge(sv[0], WIRE_MAGIC, BRIG_SYNC_ERROR, NULL, 6, NULL, 0);
	is_str(expect_msg(sv[1], BRIG_SYNC_READY), corrupt, "ERROR cut short: corrupt");

	/* an fd on a corrupt message is closed */
	before = count_fds();
	{
		_cleanup_close_ int file = scratch_file();

		forge(sv[0], 0x12345678u, BRIG_SYNC_SECCOMP_FD, NULL, 0, &file, 1);
	}
	r = brig_sync_expect_fd(sv[1], BRIG_SYNC_SECCOMP_FD, WHO, &err);
	is_int(r, -1, "the expected step with its fd but a wrong magic: -1");
	is_str(outcome(r, &err), WHO ": truncated or corrupt message while waiting for SECCOMP_FD",
	       "... corrupt");
	is_int(count_fds(), before, "... and the fd is closed");

	before = count_fds();
	{
		_cleanup_close_ int file = scratch_file();

		raw_send(sv[0], &word, sizeof(word), &file, 1);
	}
	r = brig_sync_expect_fd(sv[1], BRIG_SYNC_SECCOMP_FD, WHO, &err);
	is_int(r, -1, "an fd on a 4-byte message: -1");
	brig_error_release(&err);
	is_int(count_fds(), before, "... and the fd is closed");

	/*
	 * Two fds on one message: no step carries more than one, so the
	 * message is corrupt, and both fds are closed.  (Before the fix the
	 * control buffer, CMSG_SPACE(one int), 24 bytes on 64-bit, also held
	 * CMSG_LEN(two ints): the kernel installed both, and neither was
	 * closed.)
	 */
	before = count_fds();
	{
		int files[2] = { scratch_file(), scratch_file() };

		forge(sv[0], WIRE_MAGIC, BRIG_SYNC_GO, NULL, 0, files, 2);
		close(files[0]);
		close(files[1]);
	}
	is_str(expect_msg(sv[1], BRIG_SYNC_READY),
	       WHO ": truncated or corrupt message while waiting for READY",
	       "GO with two fds while READY is expected: a corrupt message");
	is_int(count_fds(), before, "... and neither fd stays open in the receiver");

	before = count_fds();
	{
		int files[2] = { scratch_file(), scratch_file() };

		forge(sv[0], WIRE_MAGIC, BRIG_SYNC_SECCOMP_FD, NULL, 0, files, 2);
		close(files[0]);
		close(files[1]);
	}
	r = brig_sync_expect_fd(sv[1], BRIG_SYNC_SECCOMP_FD, WHO, &err);
	is_int(r, -1, "SECCOMP_FD with two fds: refused");
	brig_error_release(&err);
	is_int(count_fds(), before, "... and neither fd stays open in the receiver");

	/*
	 * A zero-length message is legal on SOCK_SEQPACKET and can carry an
	 * fd; recvmsg() returns 0 for it as for end-of-file, and recv_msg()
	 * returned "exited before" without closing the fd it received.
	 */
	before = count_fds();
	{
		_cleanup_close_ int file = scratch_file();

		raw_send(sv[0], "", 0, &file, 1);
	}
	r = brig_sync_expect_fd(sv[1], BRIG_SYNC_SECCOMP_FD, WHO, &err);
	is_int(r, -1, "an empty message with an fd: refused");
	brig_error_release(&err);
	is_int(count_fds(), before, "... and the fd is closed");

	/* after all that, the stream still works */
	brig_sync_send(sv[0], BRIG_SYNC_READY, NULL, &err);
	is_str(expect_msg(sv[1], BRIG_SYNC_READY), "", "READY still reads after corrupt messages");
	close_pair(sv);
}

/* ---------------------------------------------------------------- end-of-file */

static void test_eof(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	char text[16] = "untouched";
	int sv[2], r, before;

	pair(sv);
	close(sv[0]);
	r = brig_sync_expect(sv[1], BRIG_SYNC_READY, WHO, &err);
	is_int(r, -1, "end-of-file while expecting READY fails");
	is_str(outcome(r, &err), WHO " exited before READY", "... 'exited before READY'");
	r = brig_sync_expect_text(sv[1], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, WHO, text,
	                          sizeof(text), &err);
	is_str(outcome(r, &err), WHO " exited before CREATE_RUNTIME_HOOKS_DONE",
	       "expect_text at end-of-file");
	is_str(text, "untouched", "... leaves the buffer alone");
	r = brig_sync_expect_fd(sv[1], BRIG_SYNC_PTY_MASTER, WHO, &err);
	is_int(r, -1, "expect_fd at end-of-file: -1");
	is_str(outcome(r, &err), WHO " exited before PTY_MASTER", "... 'exited before PTY_MASTER'");
	r = brig_sync_expect_eof(sv[1], WHO, &err);
	is_int(r, 0, "expect_eof at end-of-file: fine");
	is_str(outcome(r, &err), "", "... and no error set");
	close(sv[1]);

	/* messages still queued are read before the end-of-file */
	pair(sv);
	brig_sync_send(sv[0], BRIG_SYNC_READY, NULL, &err);
	close(sv[0]);
	is_str(expect_msg(sv[1], BRIG_SYNC_READY), "", "a message sent before close is read");
	is_str(expect_msg(sv[1], BRIG_SYNC_GO), WHO " exited before GO", "then end-of-file");
	close(sv[1]);

	/* expect_eof: a message instead of end-of-file */
	pair(sv);
	brig_sync_send(sv[0], BRIG_SYNC_ERROR, "startContainer hook: exit status 1", &err);
	r = brig_sync_expect_eof(sv[1], WHO, &err);
	is_int(r, -1, "expect_eof: an ERROR instead fails");
	is_str(outcome(r, &err), "startContainer hook: exit status 1", "... with the ERROR's text");

	brig_sync_send(sv[0], BRIG_SYNC_READY, NULL, &err);
	r = brig_sync_expect_eof(sv[1], WHO, &err);
	is_str(outcome(r, &err), WHO ": expected end-of-file, got a message",
	       "expect_eof: READY instead is a protocol error");

	forge(sv[0], 0x12345678u, BRIG_SYNC_ERROR, "forged", 0, NULL, 0);
	r = brig_sync_expect_eof(sv[1], WHO, &err);
	is_str(outcome(r, &err), WHO ": expected end-of-file, got a message",
	       "expect_eof: an ERROR with a wrong magic is not taken for one");

	forge(sv[0], WIRE_MAGIC, BRIG_SYNC_ERROR, NULL, offsetof(struct wire_msg, text), NULL, 0);
	r = brig_sync_expect_eof(sv[1], WHO, &err);
	is_str(outcome(r, &err), WHO ": expected end-of-file, got a message",
	       "expect_eof: an ERROR header without text is a protocol error");

	raw_send(sv[0], "x", 1, NULL, 0);
	r = brig_sync_expect_eof(sv[1], WHO, &err);
	is_str(outcome(r, &err), WHO ": expected end-of-file, got a message",
	       "expect_eof: a 1-byte message is a protocol error");

	before = count_fds();
	{
		_cleanup_close_ int file = scratch_file();

		brig_sync_send_fd(sv[0], BRIG_SYNC_SECCOMP_FD, file, &err);
	}
	r = brig_sync_expect_eof(sv[1], WHO, &err);
	is_str(outcome(r, &err), WHO ": expected end-of-file, got a message",
	       "expect_eof: a message with an fd is a protocol error");
	is_int(count_fds(), before, "... and the fd is not kept");

	/* a dead peer after the ERROR: the error is what is reported */
	brig_sync_send(sv[0], BRIG_SYNC_ERROR, "last words", &err);
	close(sv[0]);
	r = brig_sync_expect_eof(sv[1], WHO, &err);
	is_str(outcome(r, &err), "last words", "ERROR then close: expect_eof gives the ERROR");
	close(sv[1]);

	/* errors of the socket itself carry errno */
	r = brig_sync_expect(-1, BRIG_SYNC_READY, WHO, &err);
	is_int(err.errnum, EBADF, "expect on a bad fd: EBADF");
	is_str(outcome(r, &err), WHO ": waiting for READY: Bad file descriptor",
	       "... 'waiting for READY'");
	r = brig_sync_expect_eof(-1, WHO, &err);
	is_str(outcome(r, &err), WHO ": waiting for end-of-file: Bad file descriptor",
	       "expect_eof on a bad fd");
	r = brig_sync_send(-1, BRIG_SYNC_GO, NULL, &err);
	is_str(outcome(r, &err), "sync: send GO: Bad file descriptor", "send on a bad fd");

	/* sending to a closed peer: EPIPE, and no SIGPIPE kills the sender */
	pair(sv);
	close(sv[1]);
	r = brig_sync_send(sv[0], BRIG_SYNC_GO, NULL, &err);
	is_int(r, -1, "send to a closed peer fails (and this process is still alive)");
	is_int(err.errnum, EPIPE, "... with EPIPE");
	brig_error_release(&err);
	close(sv[0]);
}

/* ---------------------------------------------------------------- text limit */

static void test_text_limit(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	char *longtext = brig_xmalloc(6000), *buf = brig_xmalloc(8192);
	size_t n;
	int sv[2], r;

	memset(longtext, 'x', 5999);
	longtext[5999] = '\0';
	pair(sv);

	/* sent text stops one short of the message's 4096 bytes: the NUL */
	is_int(brig_sync_send(sv[0], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, longtext, &err), 0,
	       "send 5999 bytes of text: fine, it is cut");
	memset(buf, 'z', 8192);
	r = brig_sync_expect_text(sv[1], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, WHO, buf, 8192, &err);
	n = strnlen(buf, 8192);
	is_int(r, 0, "received");
	is_int((long long)n, WIRE_TEXT_MAX - 1, "cut to 4095 bytes, NUL-terminated");
	ok(n == WIRE_TEXT_MAX - 1 && strspn(buf, "x") == n, "... all of them the text's");

	brig_sync_send(sv[0], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, "123456789", &err);
	memset(buf, 'z', 8192);
	brig_sync_expect_text(sv[1], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, WHO, buf, 5, &err);
	is_str(buf, "1234", "a buffer of 5: 4 bytes and the NUL");
	ok(buf[5] == 'z', "... nothing written past it");

	brig_sync_send(sv[0], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, "123456789", &err);
	memset(buf, 'z', 8192);
	brig_sync_expect_text(sv[1], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, WHO, buf, 1, &err);
	is_str(buf, "", "a buffer of 1: the NUL only");
	ok(buf[1] == 'z', "... nothing written past it");

	brig_sync_send(sv[0], BRIG_SYNC_ERROR, longtext, &err);
	r = brig_sync_expect(sv[1], BRIG_SYNC_READY, WHO, &err);
	is_int((long long)strlen(outcome(r, &err)), WIRE_TEXT_MAX - 1,
	       "an ERROR of 5999 bytes: its text cut to 4095");

	/* forged: a message longer than the format, no NUL anywhere; the
	 * socket cuts it at the receiver's buffer, the text stays bounded */
	{
		char *big = brig_xmalloc(sizeof(struct wire_msg) + 1000);
		struct wire_msg *m = (struct wire_msg *)big;

		memset(big, 'y', sizeof(struct wire_msg) + 1000);
		m->magic = WIRE_MAGIC;
		m->step = BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE;
		raw_send(sv[0], big, sizeof(struct wire_msg) + 1000, NULL, 0);
		memset(buf, 'z', 8192);
		r = brig_sync_expect_text(sv[1], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, WHO, buf,
		                          8192, &err);
		n = strnlen(buf, 8192);
		ok(r == 0 && n <= WIRE_TEXT_MAX && strspn(buf, "y") == n,
		   "oversized, unterminated text: at most 4096 bytes, NUL-terminated (%zu)", n);

		m->step = BRIG_SYNC_ERROR;
		raw_send(sv[0], big, sizeof(struct wire_msg) + 1000, NULL, 0);
		r = brig_sync_expect(sv[1], BRIG_SYNC_READY, WHO, &err);
		n = strlen(outcome(r, &err));
		ok(r == -1 && n == WIRE_TEXT_MAX - 1,
		   "oversized, unterminated ERROR: its text cut to 4095 (%zu)", n);

		raw_send(sv[0], big, sizeof(struct wire_msg) + 1000, NULL, 0);
		r = brig_sync_expect_eof(sv[1], WHO, &err);
		n = strlen(outcome(r, &err));
		ok(r == -1 && n == WIRE_TEXT_MAX - 1,
		   "oversized ERROR at expect_eof: its text cut to 4095 (%zu)", n);

		/* unterminated but short: the text ends where the message does */
		m->step = BRIG_SYNC_ERROR;
		raw_send(sv[0], big, offsetof(struct wire_msg, text) + 7, NULL, 0);
		r = brig_sync_expect(sv[1], BRIG_SYNC_READY, WHO, &err);
		is_str(outcome(r, &err), "yyyyyyy", "an unterminated ERROR ends with its message");
		raw_send(sv[0], big, offsetof(struct wire_msg, text) + 7, NULL, 0);
		r = brig_sync_expect_eof(sv[1], WHO, &err);
		is_str(outcome(r, &err), "yyyyyyy", "... at expect_eof too");
		m->step = BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE;
		raw_send(sv[0], big, offsetof(struct wire_msg, text) + 7, NULL, 0);
		memset(buf, 'z', 8192);
		brig_sync_expect_text(sv[1], BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE, WHO, buf, 8192,
		                      &err);
		is_str(buf, "yyyyyyy", "unterminated text ends with its message");
		free(big);
	}
	brig_error_release(&err);
	close_pair(sv);
	free(longtext);
	free(buf);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_names();
	test_round_trips();
	test_fd_passing();
	test_error();
	test_out_of_order();
	test_corrupt();
	test_eof();
	test_text_limit();
	return tap_done();
}
