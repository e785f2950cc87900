/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A seccomp agent for tests (linux.seccomp.listenerPath).
 *
 *   seccomp-listener SOCKET OUT errno N     answer every notification -N
 *   seccomp-listener SOCKET OUT continue    let every notified call run
 *
 * It listens on the unix socket SOCKET (the path appears once it accepts
 * connections), takes one connection, reads the container process state
 * the runtime sends until end-of-file and the fds that came with it, and
 * writes the state to OUT and "fds <n>" to OUT.log.  Then it answers the
 * notifications of the first fd, one "syscall <nr>" line in OUT.log for
 * each, until no process is left under the filter.  It gives up after 30 s
 * of silence (a test that went wrong must not leave it behind).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#define TIMEOUT_MS 30000

static void die(const char *what)
{
	fprintf(stderr, "seccomp-listener: %s: %s\n", what, strerror(errno));
	exit(1);
}

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
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(fd, 1) < 0)
		die("bind");
	/* renamed once it listens: a client that sees the path can connect */
	if (rename(tmp, path) < 0)
		die("rename");
	return fd;
}

/* Read the state until end-of-file; return the first fd received. */
static int receive(int conn, const char *out, int *n_fds)
{
	char data[65536], ctl[CMSG_SPACE(sizeof(int) * 8)];
	size_t used = 0;
	int first = -1;
	FILE *f;

	*n_fds = 0;
	for (;;) {
		struct iovec iov = { .iov_base = data + used, .iov_len = sizeof(data) - used };
		struct msghdr msg = { .msg_iov = &iov,
			              .msg_iovlen = 1,
			              .msg_control = ctl,
			              .msg_controllen = sizeof(ctl) };
		ssize_t n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("recvmsg");
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
				continue;
			for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
				if (first < 0)
					first = fd;
				(*n_fds)++;
			}
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used == sizeof(data))
			break;
	}
	f = fopen(out, "w");
	if (!f || fwrite(data, 1, used, f) != used || fclose(f) != 0)
		die(out);
	return first;
}

int main(int argc, char **argv)
{
	struct seccomp_notif_sizes sizes;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	char log_path[4096];
	int lfd, conn, notify, n_fds, error = 0;
	struct pollfd p;
	FILE *log;

	if (argc < 4 || (strcmp(argv[3], "errno") == 0 && argc < 5) ||
	    (strcmp(argv[3], "errno") != 0 && strcmp(argv[3], "continue") != 0)) {
		fprintf(stderr, "usage: seccomp-listener SOCKET OUT errno N|continue\n");
		return 2;
	}
	if (strcmp(argv[3], "errno") == 0)
		error = atoi(argv[4]);
	snprintf(log_path, sizeof(log_path), "%s.log", argv[2]);
	log = fopen(log_path, "w");
	if (!log)
		die(log_path);
	setvbuf(log, NULL, _IOLBF, 0);
	lfd = listen_on(argv[1]);
	p = (struct pollfd){ .fd = lfd, .events = POLLIN };
	if (poll(&p, 1, TIMEOUT_MS) <= 0)
		die("nobody connected");
	conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (conn < 0)
		die("accept");
	notify = receive(conn, argv[2], &n_fds);
	fprintf(log, "fds %d\n", n_fds);
	close(conn);
	close(lfd);
	unlink(argv[1]);
	if (notify < 0)
		return 0;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
		die("SECCOMP_GET_NOTIF_SIZES");
	req = calloc(1, sizes.seccomp_notif > sizeof(*req) ? sizes.seccomp_notif : sizeof(*req));
	resp = calloc(1, sizes.seccomp_notif_resp > sizeof(*resp) ? sizes.seccomp_notif_resp
	                                                          : sizeof(*resp));
	if (!req || !resp)
		die("calloc");
	for (;;) {
		p = (struct pollfd){ .fd = notify, .events = POLLIN };
		if (poll(&p, 1, TIMEOUT_MS) <= 0) {
			fprintf(log, "timeout\n");
			return 1;
		}
		if (!(p.revents & POLLIN))
			break; /* POLLHUP: the filter has no process left */
		memset(req, 0, sizes.seccomp_notif);
		if (ioctl(notify, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			die("SECCOMP_IOCTL_NOTIF_RECV");
		}
		fprintf(log, "syscall %d\n", req->data.nr);
		memset(resp, 0, sizes.seccomp_notif_resp);
		resp->id = req->id;
		if (error)
			resp->error = -error;
		else
			resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		/* ENOENT: the caller is gone (killed) meanwhile */
		if (ioctl(notify, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0 && errno != ENOENT)
			die("SECCOMP_IOCTL_NOTIF_SEND");
	}
	fprintf(log, "done\n");
	return 0;
}
