/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a job tried that its seccomp filter refused (internal.h).  The
 * calls the job's profile refuses beyond the base profile (config.c's
 * job_denied: mount, ptrace, keyctl, bpf, unshare, setns, the new mount
 * API, io_uring, ...) notify brig (SCMP_ACT_NOTIFY) instead of failing in
 * the kernel; the runner, which polls the job's pipes anyway, answers
 * each one with EPERM, the errno the kernel gave before, and counts it by
 * name.  brig never answers CONTINUE: a refused call never runs.
 *
 * The listener reaches brig the OCI way: listenerPath is a socket in the
 * job's directory (the state root's, 0700), where the create sends the
 * notify fd with the container's state (linux/seccomp.h); the runner
 * takes one connection, from its own process (SO_PEERCRED), and the fd
 * with it; then the socket goes.  The job never holds the fd: the init
 * sends its copy and closes it before execve.
 *
 * Bounds.  The job waits in each refused call until brig has answered:
 * a job that loops on them slows only itself.  One answer costs brig
 * about 5 us (tests/bench/changes.sh; the kernel's synchronous wake-up,
 * Linux 6.6, where it has it), and past BRIG_JOB_DENIALS_FREE answers
 * brig gives one a millisecond at most (1000 a second, well under 1% of
 * a CPU), whatever the job's threads.  Past BRIG_JOB_DENIALS_MAX events
 * brig still answers but counts no more (truncated); --audit writes at
 * most --audit-limit lines.
 */
#include "config.h"
#include "job/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>
#ifdef HAVE_SECCOMP
#include <seccomp.h>
#endif

#include "lifecycle/result.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/jsonw.h"
#include "util/log.h"

/* Linux 6.6: the caller and brig hand the CPU to each other at once */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

#define SOCKET_NAME "seccomp.sock"
#define STRING_MAX 256 /* bytes of a path argument an audit line shows */

struct denied {
	uint32_t arch;
	int nr;
	char *name;
	uint64_t n;
};

struct brig_job_denials {
	int listen, conn, notify; /* one at a time: the socket, its peer, the fd */
	char *path;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	size_t req_size, resp_size;
	struct denied *calls;
	size_t n_calls;
	uint64_t events, answered;
	uint64_t next_ms; /* past BRIG_JOB_DENIALS_FREE: no answer before */
	bool hung_up;     /* the filter has no task left: nothing can come */
	bool truncated;
	struct brig_job_audit *audit; /* --audit's lines (audit.c) */
	const char **names;           /* for the result */
	uint64_t *counts;
};

/* The kernel's synchronous wake-up for what @d->notify hands over. */
static void sync_wake_up(struct brig_job_denials *d)
{
	/* an older kernel has no such flag: the same answers, slower */
	(void)!ioctl(d->notify, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
	             (__u64)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
}

static struct brig_job_denials *denials_new(struct brig_job_audit *audit)
{
	struct brig_job_denials *d = brig_xcalloc(1, sizeof(*d));
	struct seccomp_notif_sizes sizes = { 0 };

	*d = (struct brig_job_denials){ .listen = -1, .conn = -1, .notify = -1, .audit = audit };
	/* the kernel's sizes, or ours if larger: the buffers hold both */
	(void)!syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes);
	d->req_size = sizes.seccomp_notif > sizeof(*d->req) ? sizes.seccomp_notif : sizeof(*d->req);
	d->resp_size = sizes.seccomp_notif_resp > sizeof(*d->resp) ? sizes.seccomp_notif_resp
	                                                           : sizeof(*d->resp);
	d->req = brig_xcalloc(1, d->req_size);
	d->resp = brig_xcalloc(1, d->resp_size);
	return d;
}

int brig_job_denials_open(struct brig_job_denials **out, const char *dir,
                          struct brig_job_audit *audit, struct brig_error *err)
{
	struct brig_job_denials *d = denials_new(audit);
	struct sockaddr_un addr = { .sun_family = AF_UNIX };

	*out = d;
	d->path = brig_xasprintf("%s/" SOCKET_NAME, dir);
	if (strlen(d->path) >= sizeof(addr.sun_path))
		return brig_error_set(
		    err, "the seccomp listener \"%s\": a path too long for a socket", d->path);
	memcpy(addr.sun_path, d->path, strlen(d->path) + 1);
	d->listen = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (d->listen < 0 || bind(d->listen, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(d->listen, 1) < 0)
		return brig_error_setp(err, errno, "the seccomp listener \"%s\"", d->path);
	return 0;
}

struct brig_job_denials *brig_job_denials_adopt(int notify, struct brig_job_audit *audit)
{
	struct brig_job_denials *d = denials_new(audit);

	d->notify = notify;
	sync_wake_up(d);
	return d;
}

const char *brig_job_denials_path(const struct brig_job_denials *d)
{
	return d->path;
}

int brig_job_denials_fd(const struct brig_job_denials *d, int *wait)
{
	uint64_t now;

	*wait = -1;
	if (!d || d->hung_up)
		return -1;
	if (d->notify < 0)
		return d->conn >= 0 ? d->conn : d->listen;
	if (!d->next_ms || (now = brig_job_now_ms()) >= d->next_ms)
		return d->notify;
	/* the fd is polled again once the wait is over (one clock reading
	 * for both: a wait that ends between two would poll nothing) */
	*wait = (int)(d->next_ms - now);
	return -1;
}

static void close_listen(struct brig_job_denials *d)
{
	if (d->listen < 0)
		return;
	close(d->listen);
	d->listen = -1;
	unlink(d->path);
}

/* The create's connection: brig's own, or none. */
static void take_conn(struct brig_job_denials *d)
{
	struct ucred cred = { 0 };
	socklen_t len = sizeof(cred);
	int fd = accept4(d->listen, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.pid != getpid()) {
		brig_debug("seccomp listener: a connection not of brig's (pid %d) refused",
		           (int)cred.pid);
		close(fd);
		return;
	}
	d->conn = fd;
	close_listen(d);
}

/* The notify fd, with the first bytes of the state (the rest is not
 * needed): 0, or -1 when it did not come with them. */
static int take_fd(struct brig_job_denials *d)
{
	char buf[4096];
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = { .msg_iov = &iov,
		              .msg_iovlen = 1,
		              .msg_control = ctl.buf,
		              .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *c;
	ssize_t n = recvmsg(d->conn, &msg, MSG_CMSG_CLOEXEC);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	c = n > 0 && !(msg.msg_flags & MSG_CTRUNC) ? CMSG_FIRSTHDR(&msg) : NULL;
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int))) {
		memcpy(&d->notify, CMSG_DATA(c), sizeof(int));
		sync_wake_up(d);
	}
	close(d->conn);
	d->conn = -1;
	return d->notify >= 0 ? 0 : -1;
}

static struct denied *lookup(struct brig_job_denials *d, uint32_t arch, int nr)
{
	char *name = NULL;

	for (size_t i = 0; i < d->n_calls; i++)
		if (d->calls[i].arch == arch && d->calls[i].nr == nr)
			return &d->calls[i];
#ifdef HAVE_SECCOMP
	name = seccomp_syscall_resolve_num_arch(arch, nr);
#endif
	d->calls = realloc(d->calls, (d->n_calls + 1) * sizeof(*d->calls));
	if (!d->calls)
		brig_oom();
	d->calls[d->n_calls] = (struct denied){
		.arch = arch, .nr = nr, .name = name ? name : brig_xasprintf("syscall %d", nr)
	};
	return &d->calls[d->n_calls++];
}

/* The string at @addr in process @pid, at most STRING_MAX bytes (what it
 * could read of it). */
static size_t read_string(pid_t pid, uint64_t addr, char *out)
{
	size_t got = 0;

	while (addr && got < STRING_MAX) {
		/* to the end of its page at most: the next may not be mapped */
		size_t want = 4096 - ((addr + got) & 4095);
		struct iovec local, remote;
		ssize_t n;

		if (want > STRING_MAX - got)
			want = STRING_MAX - got;
		local = (struct iovec){ .iov_base = out + got, .iov_len = want };
		remote =
		    (struct iovec){ .iov_base = (void *)(uintptr_t)(addr + got), .iov_len = want };
		n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (n <= 0)
			break;
		if (memchr(out + got, '\0', (size_t)n))
			return strnlen(out, STRING_MAX);
		got += (size_t)n;
	}
	return got;
}

/* The path arguments worth an audit line's words, by call. */
static const struct {
	const char *call;
	unsigned int arg;
	const char *key;
} path_args[] = {
	{ "mount", 0, "source" },        { "mount", 1, "target" },
	{ "mount", 2, "fstype" },        { "umount2", 0, "target" },
	{ "pivot_root", 0, "new_root" }, { "pivot_root", 1, "put_old" },
	{ "open_tree", 1, "path" },      { "fsopen", 0, "fstype" },
	{ "move_mount", 3, "to_path" },  { "mount_setattr", 1, "path" },
};

/* The job's pid of host pid @pid (the last NSpid), or 0. */
static long job_pid(pid_t pid)
{
	char path[64], line[256];
	_cleanup_fclose_ FILE *f = NULL;
	long last = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "NSpid:", 6)) {
			for (char *s = line + 6, *end; *s; s = end) {
				long v = strtol(s, &end, 10);

				if (end == s)
					break;
				last = v;
			}
			break;
		}
	return last;
}

static void audit_line(struct brig_job_denials *d, const struct denied *c)
{
	const struct seccomp_data *sd = &d->req->data;
	struct brig_jsonw w;
	char s[STRING_MAX];
	long pid;

	if (!brig_job_audit_begin(d->audit, &w))
		return;
	pid = job_pid((pid_t)d->req->pid);
	/* the pid's, if that is still the caller's (a pid is reused) */
	if (ioctl(d->notify, SECCOMP_IOCTL_NOTIF_ID_VALID, &d->req->id) < 0)
		pid = 0;
	brig_jsonw_kv_int(&w, "pid", pid);
	brig_jsonw_kv_string(&w, "call", c->name);
	brig_jsonw_key(&w, "args");
	brig_jsonw_array_begin(&w);
	for (size_t i = 0; i < 6; i++)
		brig_jsonw_uint(&w, sd->args[i]);
	brig_jsonw_array_end(&w);
	for (size_t i = 0; i < ARRAY_SIZE(path_args); i++) {
		size_t n;

		if (strcmp(path_args[i].call, c->name))
			continue;
		n = read_string((pid_t)d->req->pid, sd->args[path_args[i].arg], s);
		/* what was read is the caller's only if the call still waits */
		if (ioctl(d->notify, SECCOMP_IOCTL_NOTIF_ID_VALID, &d->req->id) < 0)
			break;
		brig_jsonw_key(&w, path_args[i].key);
		brig_jsonw_stringn(&w, s, n);
	}
	brig_job_audit_end(d->audit, &w);
}

/* One notification: counted, refused with EPERM. */
static void answer(struct brig_job_denials *d)
{
	memset(d->req, 0, d->req_size);
	if (ioctl(d->notify, SECCOMP_IOCTL_NOTIF_RECV, d->req) < 0)
		return; /* ENOENT: the caller died meanwhile; EINTR: poll says again */
	if (d->events < BRIG_JOB_DENIALS_MAX) {
		struct denied *c = lookup(d, d->req->data.arch, d->req->data.nr);

		d->events++;
		c->n++;
		audit_line(d, c);
	} else {
		d->truncated = true;
	}
	memset(d->resp, 0, d->resp_size);
	d->resp->id = d->req->id;
	d->resp->error = -EPERM;
	if (ioctl(d->notify, SECCOMP_IOCTL_NOTIF_SEND, d->resp) < 0 && errno != ENOENT)
		brig_debug("seccomp listener: answer: %s", strerror(errno));
	/* a job that goes on past the free ones gets one a millisecond */
	if (++d->answered >= BRIG_JOB_DENIALS_FREE)
		d->next_ms = brig_job_now_ms() + 1;
}

int brig_job_denials_service(struct brig_job_denials *d, short revents)
{
	if (!d)
		return 0;
	/* the filter's last task is gone (it is exiting, or went): the fd
	 * says so at every poll from then on, and nothing more can come, so
	 * it is polled no more (brig would spin until the job's end) */
	if (d->notify >= 0 && !(revents & POLLIN) && (revents & (POLLHUP | POLLERR)))
		d->hung_up = true;
	else if (d->notify >= 0)
		answer(d);
	else if (d->conn >= 0)
		return take_fd(d);
	else if (d->listen >= 0)
		take_conn(d);
	return 0;
}

bool brig_job_denials_result(struct brig_job_denials *d, struct brig_result_denials *r)
{
	size_t n = 0;

	/* the job's profile counts them: the result says how many, none
	 * when the job ended before brig took the listener's fd (a call
	 * waits for brig's answer: none was made) */
	if (!d)
		return false;
	free(d->names);
	free(d->counts);
	d->names = brig_xcalloc(d->n_calls + 1, sizeof(*d->names));
	d->counts = brig_xcalloc(d->n_calls + 1, sizeof(*d->counts));
	/* one count a name: a call made through another architecture's entry
	 * (int 0x80, x32) is the same call */
	for (size_t i = 0; i < d->n_calls; i++) {
		size_t k = 0;

		while (k < n && strcmp(d->names[k], d->calls[i].name))
			k++;
		if (k == n)
			d->names[n++] = d->calls[i].name;
		d->counts[k] += d->calls[i].n;
	}
	*r = (struct brig_result_denials){
		.names = d->names,
		.counts = d->counts,
		.n = n,
		.truncated = d->truncated,
	};
	return true;
}

void brig_job_denials_close(struct brig_job_denials *d)
{
	if (!d)
		return;
	close_listen(d);
	if (d->conn >= 0)
		close(d->conn);
	if (d->notify >= 0)
		close(d->notify);
	for (size_t i = 0; i < d->n_calls; i++)
		free(d->calls[i].name);
	free(d->calls);
	free(d->names);
	free(d->counts);
	free(d->req);
	free(d->resp);
	free(d->path);
	free(d);
}
