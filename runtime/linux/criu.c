/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/criu.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/error.h"
#include "util/log.h"
#include "util/pb.h"
#include "util/strbuf.h"

/* criu_resp fields */
enum {
	RESP_TYPE = 1,
	RESP_SUCCESS = 2,
	RESP_RESTORE = 4, /* criu_restore_resp: pid 1 */
	RESP_NOTIFY = 5,  /* criu_notify: script 1, pid 2 */
	RESP_CR_ERRNO = 7,
	RESP_CR_ERRMSG = 9,
	RESP_VERSION = 10, /* criu_version: major 1, minor 2, sublevel 4 */
};

/* criu_req fields */
enum { REQ_TYPE = 1, REQ_OPTS = 2, REQ_NOTIFY_SUCCESS = 3 };

/* CRIU's biggest answer is a few hundred bytes; runc reads 40 KiB */
#define RESP_MAX 65536
/* how much of the end of CRIU's log is searched for its errors */
#define LOG_TAIL 262144

static const char *const cg_modes[] = {
	[BRIG_CRIU_CG_IGNORE] = "ignore",
	[BRIG_CRIU_CG_SOFT] = "soft",
	[BRIG_CRIU_CG_FULL] = "full",
	[BRIG_CRIU_CG_STRICT] = "strict",
};

int brig_criu_cg_mode_parse(const char *s)
{
	for (size_t i = 0; i < sizeof(cg_modes) / sizeof(cg_modes[0]); i++)
		if (cg_modes[i] && strcmp(s, cg_modes[i]) == 0)
			return (int)i;
	return -1;
}

void brig_criu_put_pair(struct brig_strbuf *o, enum brig_criu_opt field, const char *key,
                        const char *val)
{
	struct brig_strbuf m = BRIG_STRBUF_INIT;

	if (key)
		brig_pb_put_string(&m, 1, key);
	brig_pb_put_string(&m, 2, val);
	brig_pb_put_bytes(o, field, m.buf, m.len);
	brig_strbuf_release(&m);
}

void brig_criu_put_inherit_fd(struct brig_strbuf *o, const char *key, int fd)
{
	struct brig_strbuf m = BRIG_STRBUF_INIT;

	brig_pb_put_string(&m, 1, key);
	brig_pb_put_int32(&m, 2, fd);
	brig_pb_put_bytes(o, BRIG_CRIU_O_INHERIT_FD, m.buf, m.len);
	brig_strbuf_release(&m);
}

static const char *req_name(int type)
{
	switch (type) {
	case BRIG_CRIU_DUMP:
		return "dump";
	case BRIG_CRIU_RESTORE:
		return "restore";
	case BRIG_CRIU_CHECK:
		return "check";
	case BRIG_CRIU_PRE_DUMP:
		return "pre-dump";
	case BRIG_CRIU_NOTIFY:
		return "notify";
	case BRIG_CRIU_FEATURE_CHECK:
		return "feature check";
	case BRIG_CRIU_VERSION:
		return "version";
	default:
		return "request";
	}
}

/* In the child: @want[i] becomes fd i; everything else brig has is
 * close-on-exec.  Two passes, so that a source that is another's target
 * is not overwritten before it is copied. */
static void child_exec(const char *criu, const int *want, int n)
{
	int high[64];
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	for (int i = 0; i < n; i++) {
		high[i] = want[i] >= 0 ? fcntl(want[i], F_DUPFD_CLOEXEC, 64)
		                       : open("/dev/null", O_RDWR | O_CLOEXEC);
		if (high[i] < 0)
			_exit(126);
	}
	for (int i = 0; i < n; i++)
		if (dup2(high[i], i) < 0)
			_exit(126);
	if (strchr(criu, '/'))
		execv(criu, (char *[]){ (char *)criu, "swrk", "3", NULL });
	else
		execvp(criu, (char *[]){ (char *)criu, "swrk", "3", NULL });
	_exit(127);
}

/* The first "Error (...)" line of the end of CRIU's log, timestamp cut. */
static char *log_error(int dirfd, const char *name)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	off_t from;
	ssize_t n;
	char *line, *end;

	if (dirfd < 0 || !name)
		return NULL;
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	from = st.st_size > LOG_TAIL ? st.st_size - LOG_TAIL : 0;
	buf = malloc(LOG_TAIL + 1);
	if (!buf)
		return NULL;
	n = pread(fd, buf, LOG_TAIL, from);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	line = strstr(buf, "Error (");
	if (!line)
		return NULL;
	end = strchrnul(line, '\n');
	return strndup(line, (size_t)(end - line));
}

static int fail(struct brig_criu_call *c, struct brig_error *err, const char *msg, int cr_errno)
{
	_cleanup_free_ char *logged = log_error(c->log_dirfd, c->log_name);
	const char *why = msg && *msg ? msg : logged;

	if (why)
		return brig_error_sete(err, cr_errno, "criu failed: %s: %s", req_name(c->type),
		                       why);
	if (cr_errno)
		return brig_error_setp(err, cr_errno, "criu failed: %s", req_name(c->type));
	return brig_error_set(err, "criu failed: %s (no reason given%s%s)", req_name(c->type),
	                      c->log_name ? "; see " : "", c->log_name ? c->log_name : "");
}

struct resp {
	int type;
	bool success;
	int cr_errno;
	char *errmsg;
	char *script;
	pid_t pid; /* notify's, or restore's */
	int version;
};

static char *dup_bytes(const struct brig_pb_field *f)
{
	return strndup(f->p, f->len);
}

/* The fields of criu_resp brig reads; the rest are skipped. */
static int parse_resp(const char *p, size_t len, struct resp *r)
{
	const char *pos = p, *end = p + len;
	struct brig_pb_field f, g;
	int n, version[3] = { 0, 0, 0 };

	memset(r, 0, sizeof(*r));
	r->type = -1;
	while ((n = brig_pb_next(&pos, end, &f)) > 0) {
		const char *sub = f.p, *subend = f.p + f.len;

		switch (f.field) {
		case RESP_TYPE:
			r->type = (int)f.v;
			break;
		case RESP_SUCCESS:
			r->success = f.v != 0;
			break;
		case RESP_CR_ERRNO:
			r->cr_errno = brig_pb_int32(&f);
			break;
		case RESP_CR_ERRMSG:
			if (f.wire == BRIG_PB_BYTES && !r->errmsg)
				r->errmsg = dup_bytes(&f);
			break;
		case RESP_RESTORE:
		case RESP_NOTIFY:
		case RESP_VERSION:
			if (f.wire != BRIG_PB_BYTES)
				return -1;
			while ((n = brig_pb_next(&sub, subend, &g)) > 0) {
				if (f.field == RESP_VERSION && g.wire == BRIG_PB_VARINT &&
				    (g.field == 1 || g.field == 2 || g.field == 4))
					version[g.field == 4 ? 2 : g.field - 1] = brig_pb_int32(&g);
				else if (f.field == RESP_NOTIFY && g.field == 1 &&
				         g.wire == BRIG_PB_BYTES && !r->script)
					r->script = dup_bytes(&g);
				else if (g.wire == BRIG_PB_VARINT &&
				         ((f.field == RESP_NOTIFY && g.field == 2) ||
				          (f.field == RESP_RESTORE && g.field == 1)))
					r->pid = brig_pb_int32(&g);
			}
			if (n < 0)
				return -1;
			break;
		}
	}
	r->version = version[0] * 10000 + version[1] * 100 + version[2];
	return n < 0 || r->type < 0 ? -1 : 0;
}

static void resp_release(struct resp *r)
{
	free(r->errmsg);
	free(r->script);
}

/* One message of CRIU's, with at most one fd (closed unless taken). */
static ssize_t receive(int sock, char *buf, size_t len, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov,
		              .msg_iovlen = 1,
		              .msg_control = u.buf,
		              .msg_controllen = sizeof(u.buf) };
	ssize_t n;

	*fd = -1;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		size_t nfd;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfd; i++) {
			int got;

			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*fd < 0)
				*fd = got;
			else
				close(got);
		}
	}
	if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		errno = EMSGSIZE;
		return -1;
	}
	return n;
}

static int send_req(int sock, int type, const struct brig_strbuf *opts, bool notify_success)
{
	struct brig_strbuf req = BRIG_STRBUF_INIT;
	ssize_t n;

	brig_pb_put_varint(&req, REQ_TYPE, (uint64_t)type);
	if (opts)
		brig_pb_put_bytes(&req, REQ_OPTS, opts->buf, opts->len);
	if (notify_success)
		brig_pb_put_bool(&req, REQ_NOTIFY_SUCCESS, true);
	do
		n = send(sock, req.buf, req.len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	brig_strbuf_release(&req);
	return n < 0 ? -1 : 0;
}

/* Serve CRIU until the answer to the request comes. */
static int converse(struct brig_criu_call *c, int sock, char *buf, struct brig_error *err)
{
	if (send_req(sock, c->type, c->opts, false) < 0)
		return brig_error_setp(err, errno, "criu: send the %s request", req_name(c->type));
	for (;;) {
		struct resp r;
		int fd, rc;
		ssize_t n = receive(sock, buf, RESP_MAX, &fd);

		if (n < 0)
			return brig_error_setp(err, errno, "criu: read its answer");
		if (n == 0)
			return fail(c, err, "it exited without an answer", 0);
		if (parse_resp(buf, (size_t)n, &r) < 0) {
			if (fd >= 0)
				close(fd);
			return brig_error_set(err, "criu: its answer is not a criu_resp message");
		}
		if (!r.success) {
			if (fd >= 0)
				close(fd);
			rc = fail(c, err, r.errmsg, r.cr_errno);
			resp_release(&r);
			return rc;
		}
		if (r.type != BRIG_CRIU_NOTIFY) {
			if (fd >= 0)
				close(fd);
			rc = 0;
			if (r.type != (int)c->type)
				rc = brig_error_set(err, "criu: a %s answer to a %s request",
				                    req_name(r.type), req_name(c->type));
			else if (c->type == BRIG_CRIU_RESTORE)
				c->restored = r.pid;
			else if (c->type == BRIG_CRIU_VERSION)
				c->version = r.version;
			resp_release(&r);
			return rc;
		}
		brig_debug("criu: notify %s (pid %d%s)", r.script ? r.script : "?", (int)r.pid,
		           fd >= 0 ? ", with an fd" : "");
		rc = 0;
		if (c->notify)
			rc = c->notify(c->notify_arg, r.script ? r.script : "", r.pid, fd, err);
		else if (fd >= 0)
			close(fd);
		resp_release(&r);
		if (rc < 0)
			return -1;
		if (send_req(sock, BRIG_CRIU_NOTIFY, NULL, true) < 0)
			return brig_error_setp(err, errno, "criu: answer its notification");
	}
}

int brig_criu_run(struct brig_criu_call *c, struct brig_error *err)
{
	int sv[2], want[64], status, r;
	size_t n = 4 + c->n_extra;
	pid_t pid;

	if (n > sizeof(want) / sizeof(want[0]))
		return brig_error_set(err, "criu: too many fds to pass");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return brig_error_setp(err, errno, "socketpair");
	for (int i = 0; i < 3; i++)
		want[i] = c->stdio ? c->stdio[i] : -1;
	want[3] = sv[1];
	for (size_t i = 0; i < c->n_extra; i++)
		want[4 + i] = c->extra[i];
	pid = fork();
	if (pid < 0) {
		r = brig_error_setp(err, errno, "fork");
		close(sv[0]);
		close(sv[1]);
		return r;
	}
	if (pid == 0)
		child_exec(c->criu ? c->criu : "criu", want, (int)n);
	close(sv[1]);
	r = c->started ? c->started(c->notify_arg, pid, err) : 0;
	if (r == 0) {
		char *buf = malloc(RESP_MAX);

		r = buf ? converse(c, sv[0], buf, err) : brig_error_setp(err, ENOMEM, "criu");
		free(buf);
	}
	/* CRIU exits once its socket closes (a pre-dump's keeps waiting) */
	close(sv[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return r < 0 ? r : brig_error_setp(err, errno, "waitpid criu");
	if (r < 0)
		return r;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && c->type == BRIG_CRIU_VERSION)
		return brig_error_set(err, "criu: cannot run \"%s\"", c->criu ? c->criu : "criu");
	if (c->type != BRIG_CRIU_PRE_DUMP && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		return fail(c, err, "it exited with an error after its answer", 0);
	return 0;
}

int brig_criu_version(const char *criu, struct brig_error *err)
{
	struct brig_criu_call c = { .criu = criu, .type = BRIG_CRIU_VERSION, .log_dirfd = -1 };

	if (brig_criu_run(&c, err) < 0)
		return 0;
	return c.version;
}

bool brig_criu_usable(const char *criu)
{
	struct brig_criu_call c = { .criu = criu, .type = BRIG_CRIU_CHECK, .log_dirfd = -1 };
	struct brig_error err = BRIG_ERROR_INIT;
	bool ok = brig_criu_run(&c, &err) == 0;

	if (!ok)
		brig_debug("criu: %s", err.msg);
	brig_error_release(&err);
	return ok;
}
