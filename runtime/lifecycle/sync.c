/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lifecycle/sync.h"

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "linux/seccomp.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"

#define SYNC_MSG_MAX 4096

struct sync_msg {
	uint32_t magic;
	uint32_t step;
	char text[SYNC_MSG_MAX]; /* NUL-terminated: ERROR, CREATE_RUNTIME_HOOKS_DONE */
};

#define SYNC_MAGIC 0x62726967u /* "brig" */

const char *brig_sync_step_name(enum brig_sync_step step)
{
	switch (step) {
	case BRIG_SYNC_MAPS_DONE:
		return "MAPS_DONE";
	case BRIG_SYNC_READY:
		return "READY";
	case BRIG_SYNC_GO:
		return "GO";
	case BRIG_SYNC_SECCOMP_FD:
		return "SECCOMP_FD";
	case BRIG_SYNC_CREATE_RUNTIME_HOOKS:
		return "CREATE_RUNTIME_HOOKS";
	case BRIG_SYNC_CREATE_RUNTIME_HOOKS_DONE:
		return "CREATE_RUNTIME_HOOKS_DONE";
	case BRIG_SYNC_PTY_MASTER:
		return "PTY_MASTER";
	case BRIG_SYNC_MOUNT_FD:
		return "MOUNT_FD";
	case BRIG_SYNC_PIDFD:
		return "PIDFD";
	case BRIG_SYNC_JOB_EXIT:
		return "JOB_EXIT";
	case BRIG_SYNC_ERROR:
		return "ERROR";
	}
	return "unknown";
}

/* A fault point at each step (util/fault.h): "sync.send.GO" in the
 * sender before it sends, "sync.recv.GO" in the receiver once it has the
 * message. */
#ifdef BRIG_FAULTS
static int sync_fault(const char *dir, enum brig_sync_step step)
{
	char name[64];

	snprintf(name, sizeof(name), "sync.%s.%s", dir, brig_sync_step_name(step));
	return brig_fault(name);
}
#else
#define sync_fault(dir, step) 0
#endif

/* One message, with @passfd in SCM_RIGHTS when it is >= 0. */
static int send_msg(int fd, enum brig_sync_step step, const char *text, int passfd,
                    struct brig_error *err)
{
	struct sync_msg m = { .magic = SYNC_MAGIC, .step = step };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = &m, .iov_len = offsetof(struct sync_msg, text) + 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (step != BRIG_SYNC_ERROR && sync_fault("send", step) < 0)
		return brig_error_setp(err, errno, "sync: send %s", brig_sync_step_name(step));
	if (text) {
		size_t tl = strnlen(text, SYNC_MSG_MAX - 1);

		memcpy(m.text, text, tl);
		iov.iov_len += tl;
	}
	if (passfd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		CMSG_FIRSTHDR(&msg)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&msg)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&msg)->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&msg)), &passfd, sizeof(int));
	}
	do
		n = sendmsg(fd, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return brig_error_setp(err, errno, "sync: send %s", brig_sync_step_name(step));
	return 0;
}

int brig_sync_send(int fd, enum brig_sync_step step, const char *text, struct brig_error *err)
{
	return send_msg(fd, step, text, -1, err);
}

int brig_sync_send_fd(int fd, enum brig_sync_step step, int passfd, struct brig_error *err)
{
	return send_msg(fd, step, NULL, passfd, err);
}

/* Room for more fds than a message may carry: those that come anyway
 * are seen, and closed, rather than left in the receiver. */
#define SYNC_FDS_SEEN 8

/*
 * The one fd that came with @msg, or -1; every other fd it brought is
 * closed.  *@bad when it brought more than one, or more than fit.
 */
static int take_fd(struct msghdr *msg, bool *bad)
{
	int got = -1, count = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (count++ == 0)
				got = fd;
			else
				close(fd);
		}
	}
	*bad = count > 1 || (msg->msg_flags & MSG_CTRUNC);
	if (*bad && got >= 0) {
		close(got);
		got = -1;
	}
	return got;
}

/* Wait for @expected; an fd that came with it goes to *@passfd (when
 * not NULL, else it is closed), an fd that came with anything else is
 * closed. */
static int recv_msg(int fd, enum brig_sync_step expected, const char *who, int *passfd, char *text,
                    size_t size, struct brig_error *err)
{
	struct sync_msg m;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(SYNC_FDS_SEEN * sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	bool bad;
	int got;
	ssize_t n;

	do
		n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return brig_error_setp(err, errno, "%s: waiting for %s", who,
		                       brig_sync_step_name(expected));
	got = take_fd(&msg, &bad);
	/* (an empty message may carry an fd: it is no end of file to keep) */
	if (n == 0) {
		if (got >= 0)
			close(got);
		return brig_error_set(err, "%s exited before %s", who,
		                      brig_sync_step_name(expected));
	}
	if (bad || (size_t)n < offsetof(struct sync_msg, text) + 1 || m.magic != SYNC_MAGIC) {
		if (got >= 0)
			close(got);
		return brig_error_set(err, "%s: truncated or corrupt message while waiting for %s",
		                      who, brig_sync_step_name(expected));
	}
	if (m.step != (uint32_t)expected && got >= 0) {
		close(got);
		got = -1;
	}
	if (m.step == BRIG_SYNC_ERROR) {
		m.text[sizeof(m.text) - 1] = '\0';
		((char *)&m)[n < (ssize_t)sizeof(m) ? n : (ssize_t)sizeof(m) - 1] = '\0';
		return brig_error_set(err, "%s", m.text);
	}
	if (m.step != (uint32_t)expected)
		return brig_error_set(err, "%s: expected %s, got %s", who,
		                      brig_sync_step_name(expected),
		                      brig_sync_step_name((enum brig_sync_step)m.step));
	if (sync_fault("recv", expected) < 0) {
		if (got >= 0)
			close(got);
		return brig_error_setp(err, errno, "%s: waiting for %s", who,
		                       brig_sync_step_name(expected));
	}
	if (passfd)
		*passfd = got;
	else if (got >= 0)
		close(got);
	if (text && size) {
		size_t tl = (size_t)n - offsetof(struct sync_msg, text);

		tl = strnlen(m.text, tl < size - 1 ? tl : size - 1);
		memcpy(text, m.text, tl);
		text[tl] = '\0';
	}
	return 0;
}

int brig_sync_expect(int fd, enum brig_sync_step expected, const char *who, struct brig_error *err)
{
	return recv_msg(fd, expected, who, NULL, NULL, 0, err);
}

int brig_sync_expect_text(int fd, enum brig_sync_step expected, const char *who, char *text,
                          size_t size, struct brig_error *err)
{
	return recv_msg(fd, expected, who, NULL, text, size, err);
}

int brig_sync_expect_eof(int fd, const char *who, struct brig_error *err)
{
	struct sync_msg m;
	ssize_t n;

	do
		n = recv(fd, &m, sizeof(m), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return brig_error_setp(err, errno, "%s: waiting for end-of-file", who);
	if (n > (ssize_t)offsetof(struct sync_msg, text) && m.magic == SYNC_MAGIC &&
	    m.step == BRIG_SYNC_ERROR) {
		((char *)&m)[n < (ssize_t)sizeof(m) ? n : (ssize_t)sizeof(m) - 1] = '\0';
		return brig_error_set(err, "%s", m.text);
	}
	if (n > 0)
		return brig_error_set(err, "%s: expected end-of-file, got a message", who);
	return 0;
}

int brig_sync_expect_fd(int fd, enum brig_sync_step expected, const char *who,
                        struct brig_error *err)
{
	int got = -1;

	if (recv_msg(fd, expected, who, &got, NULL, 0, err) < 0)
		return -1;
	if (got < 0)
		return brig_error_set(err, "%s: %s came without its file descriptor", who,
		                      brig_sync_step_name(expected));
	return got;
}

int brig_sync_seccomp_load(int fd, const struct brig_seccomp_prog *prog, bool keep,
                           struct brig_error *err)
{
	_cleanup_close_ int notify_fd = -1;
	int r = brig_seccomp_load(prog, err);

	if (r < 0)
		return -1;
	/* without a notify fd, r is 0, not an fd of ours: stdin stays open */
	if (!prog->notify)
		return 0;
	notify_fd = r;
	r = brig_sync_send_fd(fd, BRIG_SYNC_SECCOMP_FD, notify_fd, err);
	if (keep)
		TAKE_FD(notify_fd);
	return r;
}

int brig_sync_seccomp_listener(int fd, const char *who, const struct brig_seccomp *sc, pid_t pid,
                               const struct brig_state *state, struct brig_error *err)
{
	_cleanup_close_ int notify_fd = -1;

	notify_fd = brig_sync_expect_fd(fd, BRIG_SYNC_SECCOMP_FD, who, err);
	if (notify_fd < 0)
		return -1;
	return brig_seccomp_send_listener(sc, notify_fd, pid, state, err);
}
