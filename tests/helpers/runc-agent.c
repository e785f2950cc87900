/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A seccomp agent written for runc (linux.seccomp.listenerPath), for
 * 81-seccomp-agent.sh: it takes what a runtime sends the way runc's own
 * example agent (contrib/cmd/seccompagent) does, and rejects what that
 * agent would reject.
 *
 *   runc-agent SOCKET OUT             serve every container that connects
 *   runc-agent SOCKET OUT drop        take a connection, wait for the
 *                                     message, close without reading it
 *   runc-agent SOCKET OUT hold FILE   a slow agent: take a connection, read
 *                                     its message only once FILE exists
 *
 * runc's protocol (runc 1.1, sendContainerProcessState): the runtime
 * connects to SOCKET and sends one message, the container process state
 * (runtime-spec's ContainerProcessState) as JSON with one SCM_RIGHTS
 * control message that carries one fd, the notify fd; then it hangs up.
 * The agent reads it with a single recvmsg into 4096 bytes: more than that,
 * a state split over several messages, no fd or more than one, is an
 * error.  The state's "fds" names the fds of SCM_RIGHTS by index: the one
 * named "seccompFd", exactly once, is the notify fd.  The state also has
 * "ociVersion", "pid", "metadata" (linux.seccomp.listenerMetadata, or
 * absent) and "state" (the runtime's state of the container: ociVersion,
 * id, status, pid, bundle, annotations).
 *
 * For connection N it writes the bytes received to OUT.N and lines to
 * OUT.log ("conn N ok pid P", "conn N error: WHY", "conn N done" once no
 * process is left under the filter, "conn N dropped", "conn N held"), one
 * "notif N pid P NAME ANSWER" per notification.  The answers are those
 * of runc's example agent, plus one for write:
 *
 *   write(fd, buf, n), buf starting with "deny"   EPERM
 *   chmod, fchmod, fchmodat                       ENOMEDIUM
 *   mkdir(PATH), mkdirat(FD, PATH)                the agent makes
 *                                                 "PATH-METADATA" in the
 *                                                 container itself: 0
 *   anything else                                 the call goes on
 *
 * It gives up after 30 s without anything happening (a test that went
 * wrong must not leave it behind).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#define TIMEOUT_MS 30000
#define MAX_NAME_LEN 4096 /* runc's utils.MaxNameLen: the state must be shorter */
#define MAX_CONNS 16

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

static FILE *log_file;

static void die(const char *what)
{
	fprintf(stderr, "runc-agent: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void logln(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(log_file, fmt, ap);
	va_end(ap);
	fputc('\n', log_file);
}

/* ------------------------------------------------------------------ JSON */

/*
 * Just enough JSON for the state: the whole document is checked (as Go's
 * json.Unmarshal does, trailing white space allowed), strings decoded.
 */
enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jtype type;
	char *str; /* J_STR: the decoded string; J_NUM: the literal */
	size_t n;  /* J_ARR, J_OBJ: the items */
	struct jval *items;
	char **keys; /* J_OBJ */
};

struct jparser {
	const char *s, *end;
	int depth;
	const char *err;
};

static bool jvalue(struct jparser *p, struct jval *v);

static void jfree(struct jval *v)
{
	for (size_t i = 0; i < v->n; i++) {
		jfree(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

static bool jfail(struct jparser *p, const char *why)
{
	if (!p->err)
		p->err = why;
	return false;
}

static void jspace(struct jparser *p)
{
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
		p->s++;
}

static void put_utf8(char **o, unsigned int c)
{
	if (c < 0x80) {
		*(*o)++ = (char)c;
	} else if (c < 0x800) {
		*(*o)++ = (char)(0xc0 | c >> 6);
		*(*o)++ = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		*(*o)++ = (char)(0xe0 | c >> 12);
		*(*o)++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*(*o)++ = (char)(0x80 | (c & 0x3f));
	} else {
		*(*o)++ = (char)(0xf0 | c >> 18);
		*(*o)++ = (char)(0x80 | ((c >> 12) & 0x3f));
		*(*o)++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*(*o)++ = (char)(0x80 | (c & 0x3f));
	}
}

static bool hex4(struct jparser *p, unsigned int *c)
{
	*c = 0;
	if (p->end - p->s < 4)
		return jfail(p, "short \\u escape");
	for (int i = 0; i < 4; i++) {
		char h = *p->s++;

		*c <<= 4;
		if (h >= '0' && h <= '9')
			*c |= (unsigned int)(h - '0');
		else if (h >= 'a' && h <= 'f')
			*c |= (unsigned int)(h - 'a' + 10);
		else if (h >= 'A' && h <= 'F')
			*c |= (unsigned int)(h - 'A' + 10);
		else
			return jfail(p, "bad \\u escape");
	}
	return true;
}

/* A string; *p->s is the opening quote.  The result is NUL-terminated. */
static bool jstring(struct jparser *p, char **out)
{
	static const char escapes[] = "\"\\/bfnrt", escaped[] = "\"\\/\b\f\n\r\t";
	/* decoded, a string is never longer than its JSON form */
	char *buf = malloc((size_t)(p->end - p->s) + 1), *o = buf;

	if (!buf)
		die("malloc");
	p->s++;
	for (;;) {
		const char *esc;
		unsigned int c, lo;
		unsigned char ch;

		if (p->s >= p->end) {
			free(buf);
			return jfail(p, "unterminated string");
		}
		ch = (unsigned char)*p->s++;
		if (ch == '"')
			break;
		if (ch < 0x20) {
			free(buf);
			return jfail(p, "control character in a string");
		}
		if (ch != '\\') {
			*o++ = (char)ch;
			continue;
		}
		if (p->s >= p->end) {
			free(buf);
			return jfail(p, "unterminated string");
		}
		esc = strchr(escapes, *p->s);
		if (*p->s && esc) {
			*o++ = escaped[esc - escapes];
			p->s++;
			continue;
		}
		if (*p->s++ != 'u') {
			free(buf);
			return jfail(p, "bad escape in a string");
		}
		if (!hex4(p, &c)) {
			free(buf);
			return false;
		}
		/* a surrogate pair is one character; a lone half is U+FFFD, as in Go */
		if (c >= 0xd800 && c < 0xdc00 && p->end - p->s >= 6 && p->s[0] == '\\' &&
		    p->s[1] == 'u') {
			const char *back = p->s;

			p->s += 2;
			if (!hex4(p, &lo)) {
				free(buf);
				return false;
			}
			if (lo >= 0xdc00 && lo < 0xe000)
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
			else
				p->s = back;
		}
		if (c >= 0xd800 && c < 0xe000)
			c = 0xfffd;
		/* \u0000 would cut the C string: no state needs it */
		if (c == 0) {
			free(buf);
			return jfail(p, "\\u0000 in a string");
		}
		put_utf8(&o, c);
	}
	*o = '\0';
	*out = buf;
	return true;
}

static bool jnumber(struct jparser *p, struct jval *v)
{
	const char *start = p->s;
	bool digits = false;

	if (p->s < p->end && *p->s == '-')
		p->s++;
	if (p->s < p->end && *p->s == '0') {
		p->s++;
		digits = true;
	} else {
		while (p->s < p->end && *p->s >= '0' && *p->s <= '9') {
			p->s++;
			digits = true;
		}
	}
	if (!digits)
		return jfail(p, "bad number");
	if (p->s < p->end && *p->s == '.') {
		p->s++;
		digits = false;
		while (p->s < p->end && *p->s >= '0' && *p->s <= '9') {
			p->s++;
			digits = true;
		}
		if (!digits)
			return jfail(p, "bad number");
	}
	if (p->s < p->end && (*p->s == 'e' || *p->s == 'E')) {
		p->s++;
		if (p->s < p->end && (*p->s == '+' || *p->s == '-'))
			p->s++;
		digits = false;
		while (p->s < p->end && *p->s >= '0' && *p->s <= '9') {
			p->s++;
			digits = true;
		}
		if (!digits)
			return jfail(p, "bad number");
	}
	v->type = J_NUM;
	v->str = strndup(start, (size_t)(p->s - start));
	if (!v->str)
		die("strndup");
	return true;
}

static void jpush(struct jval *v, struct jval *item, char *key)
{
	v->items = realloc(v->items, (v->n + 1) * sizeof(*v->items));
	if (!v->items)
		die("realloc");
	if (v->type == J_OBJ) {
		v->keys = realloc(v->keys, (v->n + 1) * sizeof(*v->keys));
		if (!v->keys)
			die("realloc");
		v->keys[v->n] = key;
	}
	v->items[v->n++] = *item;
}

/* An array or an object; *p->s is its opening bracket. */
static bool jcontainer(struct jparser *p, struct jval *v)
{
	bool obj = *p->s == '{';
	char close = obj ? '}' : ']';

	if (++p->depth > 64)
		return jfail(p, "nested too deep");
	v->type = obj ? J_OBJ : J_ARR;
	p->s++;
	jspace(p);
	if (p->s < p->end && *p->s == close) {
		p->s++;
		p->depth--;
		return true;
	}
	for (;;) {
		struct jval item = { 0 };
		char *key = NULL;

		jspace(p);
		if (obj) {
			if (p->s >= p->end || *p->s != '"')
				return jfail(p, "expected a key");
			if (!jstring(p, &key))
				return false;
			jspace(p);
			if (p->s >= p->end || *p->s != ':') {
				free(key);
				return jfail(p, "expected ':'");
			}
			p->s++;
		}
		if (!jvalue(p, &item)) {
			free(key);
			jfree(&item);
			return false;
		}
		jpush(v, &item, key);
		jspace(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == close) {
			p->s++;
			p->depth--;
			return true;
		}
		return jfail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static bool jliteral(struct jparser *p, const char *word, enum jtype type, struct jval *v)
{
	size_t n = strlen(word);

	if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n) != 0)
		return jfail(p, "unexpected character");
	p->s += n;
	v->type = type;
	return true;
}

static bool jvalue(struct jparser *p, struct jval *v)
{
	jspace(p);
	if (p->s >= p->end)
		return jfail(p, "unexpected end of the JSON");
	switch (*p->s) {
	case '{':
	case '[':
		return jcontainer(p, v);
	case '"':
		v->type = J_STR;
		return jstring(p, &v->str);
	case 't':
		return jliteral(p, "true", J_BOOL, v);
	case 'f':
		return jliteral(p, "false", J_BOOL, v);
	case 'n':
		return jliteral(p, "null", J_NULL, v);
	default:
		return jnumber(p, v);
	}
}

/* The member KEY of the object V (the last one, as Go), or NULL. */
static const struct jval *jget(const struct jval *v, const char *key)
{
	const struct jval *found = NULL;

	for (size_t i = 0; v->type == J_OBJ && i < v->n; i++)
		if (strcmp(v->keys[i], key) == 0)
			found = &v->items[i];
	return found;
}

/* V is an integer (Go's int takes no fraction, no exponent). */
static bool jint(const struct jval *v, long *out)
{
	char *endp;

	if (!v || v->type != J_NUM || strpbrk(v->str, ".eE"))
		return false;
	errno = 0;
	*out = strtol(v->str, &endp, 10);
	return errno == 0 && *endp == '\0';
}

/* ---------------------------------------------------------- the message */

/*
 * What runc's agent checks of the state (handleNewMessage and
 * parseStateFds), and what a state written by a runtime that follows the
 * runtime-spec has: the types of every field and the state's own fields.
 * Returns NULL when it is good, else why not; *idx is the index of
 * "seccompFd" in "fds".
 */
static const char *check_state(const struct jval *st, size_t n_fds, size_t *idx, long *pid,
                               const char **metadata)
{
	const struct jval *v, *fds, *s;
	static char why[256];
	bool found = false;
	long spid;

	if (st->type != J_OBJ)
		return "the state is not a JSON object";
	v = jget(st, "ociVersion");
	if (!v || v->type != J_STR || !*v->str)
		return "\"ociVersion\" is not a non-empty string";
	fds = jget(st, "fds");
	if (!fds || fds->type != J_ARR)
		return "\"fds\" is not an array";
	for (size_t i = 0; i < fds->n; i++) {
		if (fds->items[i].type != J_STR)
			return "\"fds\" holds something else than strings";
		if (strcmp(fds->items[i].str, "seccompFd") != 0)
			continue;
		/* runc's words: seccomp fd not found or malformed containerProcessState.Fds */
		if (found)
			return "\"seccompFd\" is twice in \"fds\"";
		found = true;
		*idx = i;
	}
	if (!found)
		return "\"fds\" does not name \"seccompFd\"";
	if (*idx >= n_fds) {
		snprintf(why, sizeof(why), "\"seccompFd\" is fds[%zu], %zu fd(s) came", *idx,
		         n_fds);
		return why;
	}
	if (!jint(jget(st, "pid"), pid) || *pid <= 0)
		return "\"pid\" is not a positive integer";
	v = jget(st, "metadata");
	*metadata = "";
	if (v && v->type != J_STR)
		return "\"metadata\" is not a string";
	if (v)
		*metadata = v->str;
	s = jget(st, "state");
	if (!s || s->type != J_OBJ)
		return "\"state\" is not an object";
	v = jget(s, "ociVersion");
	if (!v || v->type != J_STR || !*v->str)
		return "\"state.ociVersion\" is not a non-empty string";
	v = jget(s, "id");
	if (!v || v->type != J_STR || !*v->str)
		return "\"state.id\" is not a non-empty string";
	v = jget(s, "status");
	if (!v || v->type != J_STR)
		return "\"state.status\" is not a string";
	v = jget(s, "bundle");
	if (!v || v->type != J_STR || v->str[0] != '/')
		return "\"state.bundle\" is not an absolute path";
	v = jget(s, "pid");
	if (v && (!jint(v, &spid) || spid <= 0))
		return "\"state.pid\" is not a positive integer";
	v = jget(s, "annotations");
	if (v && v->type != J_OBJ)
		return "\"state.annotations\" is not an object";
	for (size_t i = 0; v && i < v->n; i++)
		if (v->items[i].type != J_STR)
			return "\"state.annotations\" holds something else than strings";
	return NULL;
}

/* runc's agent uses filepath.Base(metadata) as a file name suffix, and a
 * fixed one when that still has a '/' in it. */
static char *suffix_of(const char *metadata)
{
	size_t len = strlen(metadata), start;

	while (len > 1 && metadata[len - 1] == '/')
		len--;
	if (len == 0)
		return strdup(".");
	if (len == 1 && metadata[0] == '/')
		return strdup("agent-generated-suffix");
	for (start = len; start > 0 && metadata[start - 1] != '/'; start--)
		;
	return strndup(metadata + start, len - start);
}

struct conn {
	int n;        /* connection number, from 1 */
	int notify;   /* the notify fd, -1 once done */
	char *suffix; /* for mkdir */
};

/*
 * One message, as runc's agent reads it: one recvmsg; under 4096 bytes;
 * one control message, SCM_RIGHTS, one fd.  Returns the notify fd or -1
 * (logged).
 */
static int receive(int sock, int n, const char *out, char **suffix)
{
	char data[MAX_NAME_LEN], path[4096];
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * 8)];
	} ctl;
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr msg = { .msg_iov = &iov,
		              .msg_iovlen = 1,
		              .msg_control = ctl.buf,
		              .msg_controllen = sizeof(ctl.buf) };
	int fds[8], n_fds = 0, n_cmsgs = 0, notify = -1;
	struct jparser p;
	struct jval st = { 0 };
	const char *why, *metadata = "";
	size_t idx = 0;
	long pid = 0;
	ssize_t len;
	FILE *f;

	do
		len = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (len < 0 && errno == EINTR);
	if (len < 0) {
		logln("conn %d error: recvmsg: %s", n, strerror(errno));
		return -1;
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		n_cmsgs++;
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int) && n_fds < 8; i++)
			memcpy(&fds[n_fds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
	}
	snprintf(path, sizeof(path), "%s.%d", out, n);
	f = fopen(path, "w");
	if (!f || fwrite(data, 1, (size_t)len, f) != (size_t)len || fclose(f) != 0)
		die(path);
	/* runc's "recvfd: incorrect number of bytes read (n=.. oobn=..)" and
	 * "number of SCMs is not 1" */
	if (len >= MAX_NAME_LEN) {
		logln("conn %d error: the state is %zd bytes or more, runc's agent takes < %d", n,
		      len, MAX_NAME_LEN);
		goto out;
	}
	if (msg.msg_flags & MSG_CTRUNC) {
		logln("conn %d error: control data truncated", n);
		goto out;
	}
	if (n_cmsgs != 1 || n_fds != 1) {
		logln("conn %d error: %d control message(s) with %d fd(s) came with the state, "
		      "runc's agent takes one SCM_RIGHTS with one fd",
		      n, n_cmsgs, n_fds);
		goto out;
	}
	p = (struct jparser){ .s = data, .end = data + len };
	if (!jvalue(&p, &st) || (jspace(&p), p.s != p.end)) {
		logln("conn %d error: cannot parse OCI state: %s at byte %td", n,
		      p.err ? p.err : "data after the JSON value", p.s - data);
		goto out;
	}
	why = check_state(&st, (size_t)n_fds, &idx, &pid, &metadata);
	if (why) {
		logln("conn %d error: %s", n, why);
		goto out;
	}
	/* what runc's agent would find out at its first NotifReceive */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[idx]);
	len = readlink(path, data, sizeof(data) - 1);
	data[len < 0 ? 0 : len] = '\0';
	if (strcmp(data, "anon_inode:seccomp notify") != 0) {
		logln("conn %d error: \"seccompFd\" is %s, not a notify fd", n, data);
		goto out;
	}
	notify = fds[idx];
	*suffix = suffix_of(metadata);
	logln("conn %d ok pid %ld", n, pid);
out:
	for (int i = 0; i < n_fds; i++)
		if (fds[i] != notify)
			close(fds[i]);
	jfree(&st);
	return notify;
}

/* ------------------------------------------------------- notifications */

static bool read_mem(pid_t pid, uint64_t addr, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = pread(fd, buf, len, (off_t)addr);
	close(fd);
	return n > 0;
}

/*
 * mkdir as runc's agent does it: "PATH-SUFFIX" made by the agent, resolved
 * in the container's root (absolute PATH) or working directory, never
 * outside it.  0 or an errno.
 */
static int mkdir_for(pid_t pid, int dirfd, const char *name, mode_t mode, const char *suffix)
{
	char base[64], *file, *slash;
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		                .resolve = RESOLVE_IN_ROOT };
	int root, dir, r = 0;

	if (name[0] == '/')
		snprintf(base, sizeof(base), "/proc/%d/root", pid);
	else if (dirfd == AT_FDCWD)
		snprintf(base, sizeof(base), "/proc/%d/cwd", pid);
	else
		snprintf(base, sizeof(base), "/proc/%d/fd/%d", pid, dirfd);
	if (asprintf(&file, "%s-%s", name, suffix) < 0)
		die("asprintf");
	root = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0) {
		r = errno;
		goto out;
	}
	slash = strrchr(file, '/');
	if (slash) {
		*slash = '\0';
		dir = (int)syscall(SYS_openat2, root, *file ? file : "/", &how, sizeof(how));
		if (dir < 0)
			r = errno;
		else if (mkdirat(dir, slash + 1, mode) < 0)
			r = errno;
		if (dir >= 0)
			close(dir);
	} else if (mkdirat(root, file, mode) < 0) {
		r = errno;
	}
	close(root);
out:
	free(file);
	return r;
}

/* Answer one notification of C; false once the filter has no process left. */
static bool serve(struct conn *c, struct seccomp_notif *req, struct seccomp_notif_resp *resp,
                  size_t req_size, size_t resp_size)
{
	const char *name = "other", *answer = "continue";
	char buf[4096];
	int error = 0;
	bool act = false; /* the agent answers, the call does not go on */

	memset(req, 0, req_size);
	if (ioctl(c->notify, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
		/* ENOENT: the caller went away meanwhile */
		if (errno == EINTR || errno == ENOENT)
			return true;
		logln("conn %d error: SECCOMP_IOCTL_NOTIF_RECV: %s", c->n, strerror(errno));
		return false;
	}
	memset(resp, 0, resp_size);
	resp->id = req->id;
#ifdef NATIVE_ARCH
	if (req->data.arch != NATIVE_ARCH)
		goto send;
#endif
	if (req->data.nr == SYS_write) {
		name = "write";
		if (req->data.args[2] >= 4 && read_mem(req->pid, req->data.args[1], buf, 4) &&
		    memcmp(buf, "deny", 4) == 0) {
			act = true;
			error = EPERM;
		}
	} else if (
#ifdef SYS_chmod
	    req->data.nr == SYS_chmod ||
#endif
	    req->data.nr == SYS_fchmod || req->data.nr == SYS_fchmodat) {
		name = "chmod";
		act = true;
		error = ENOMEDIUM;
	} else if (
#ifdef SYS_mkdir
	    req->data.nr == SYS_mkdir ||
#endif
	    req->data.nr == SYS_mkdirat) {
		bool at = req->data.nr == SYS_mkdirat;
		uint64_t path = req->data.args[at ? 1 : 0];

		name = "mkdir";
		act = true;
		if (!read_mem(req->pid, path, buf, sizeof(buf))) {
			error = ENOSYS;
		} else {
			buf[sizeof(buf) - 1] = '\0';
			/* the memory read was of the caller still waiting on this
			 * notification (not of a process that reused its pid) */
			if (ioctl(c->notify, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) < 0)
				return true;
			error = mkdir_for((pid_t)req->pid, at ? (int)req->data.args[0] : AT_FDCWD,
			                  buf, (mode_t)req->data.args[at ? 2 : 1], c->suffix);
			/* runc's agent: ENOSYS when it could not */
			if (error)
				error = ENOSYS;
		}
	}
	if (act && ioctl(c->notify, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) < 0)
		return true;
#ifdef NATIVE_ARCH
send:
#endif
	if (act) {
		resp->error = -error;
		resp->val = error ? (uint64_t)-1 : 0;
		answer = error ? strerrorname_np(error) : "0";
	} else {
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	}
	logln("notif %d pid %u %s %s", c->n, req->pid, name, answer);
	if (ioctl(c->notify, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0 && errno != ENOENT) {
		logln("conn %d error: SECCOMP_IOCTL_NOTIF_SEND: %s", c->n, strerror(errno));
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------- main */

static int listen_on(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char tmp[sizeof(addr.sun_path)];
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		die("socket");
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		die(path);
	}
	strcpy(addr.sun_path, tmp);
	unlink(tmp);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(fd, MAX_CONNS) < 0)
		die("bind");
	/* renamed once it listens: a runtime that sees the path can connect
	 * (runc's agent removes a stale SOCKET first; rename replaces it) */
	if (rename(tmp, path) < 0)
		die("rename");
	return fd;
}

int main(int argc, char **argv)
{
	struct seccomp_notif_sizes sizes;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	struct conn conns[MAX_CONNS];
	struct pollfd pfd[MAX_CONNS + 1];
	char log_path[4096];
	const char *hold = NULL;
	int lfd, n_conns = 0;
	bool drop = false;

	if (argc == 4 && strcmp(argv[3], "drop") == 0)
		drop = true;
	else if (argc == 5 && strcmp(argv[3], "hold") == 0)
		hold = argv[4];
	else if (argc != 3) {
		fprintf(stderr, "usage: runc-agent SOCKET OUT [drop|hold FILE]\n");
		return 2;
	}
	snprintf(log_path, sizeof(log_path), "%s.log", argv[2]);
	log_file = fopen(log_path, "w");
	if (!log_file)
		die(log_path);
	setvbuf(log_file, NULL, _IOLBF, 0);
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
		die("SECCOMP_GET_NOTIF_SIZES");
	if (sizes.seccomp_notif < sizeof(*req))
		sizes.seccomp_notif = sizeof(*req);
	if (sizes.seccomp_notif_resp < sizeof(*resp))
		sizes.seccomp_notif_resp = sizeof(*resp);
	req = calloc(1, sizes.seccomp_notif);
	resp = calloc(1, sizes.seccomp_notif_resp);
	if (!req || !resp)
		die("calloc");
	lfd = listen_on(argv[1]);
	for (;;) {
		int n = 0, r;

		pfd[n++] =
		    (struct pollfd){ .fd = n_conns < MAX_CONNS ? lfd : -1, .events = POLLIN };
		for (int i = 0; i < n_conns; i++)
			pfd[n++] = (struct pollfd){ .fd = conns[i].notify, .events = POLLIN };
		r = poll(pfd, (nfds_t)n, TIMEOUT_MS);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("poll");
		if (r == 0) {
			logln("timeout");
			break;
		}
		for (int i = 0; i < n_conns; i++) {
			struct conn *c = &conns[i];
			short ev = pfd[i + 1].revents;

			if (c->notify < 0 || !ev)
				continue;
			/* POLLHUP: no process is left under the filter */
			if (!(ev & POLLIN) ||
			    !serve(c, req, resp, sizes.seccomp_notif, sizes.seccomp_notif_resp)) {
				logln("conn %d done", c->n);
				close(c->notify);
				c->notify = -1;
			}
		}
		if (pfd[0].revents & POLLIN) {
			struct conn *c = &conns[n_conns];
			int sock = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

			if (sock < 0)
				die("accept");
			*c = (struct conn){ .n = n_conns + 1, .notify = -1 };
			n_conns++;
			if (drop) {
				/* the message is there, fd and all: dropped unread */
				struct pollfd sp = { .fd = sock, .events = POLLIN };

				poll(&sp, 1, TIMEOUT_MS);
				logln("conn %d dropped", c->n);
			} else {
				if (hold) {
					logln("conn %d held", c->n);
					for (int t = 0;
					     t < TIMEOUT_MS / 10 && access(hold, F_OK) < 0; t++)
						usleep(10000);
				}
				c->notify = receive(sock, c->n, argv[2], &c->suffix);
			}
			close(sock);
		}
	}
	unlink(argv[1]);
	return 0;
}
