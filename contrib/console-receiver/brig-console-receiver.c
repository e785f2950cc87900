/* SPDX-License-Identifier: Apache-2.0 */
/*
 * brig-console-receiver: the other end of `brig create --console-socket`.
 *
 *   brig-console-receiver [--in FILE] [--out FILE] [--keep-onlcr] SOCKET
 *
 * Listens on the AF_UNIX stream socket SOCKET, accepts one connection,
 * receives the master of the container's pty (SCM_RIGHTS) and relays it:
 * stdin (or FILE of --in) to the container, the container's output to
 * stdout (or FILE of --out), until the pty hangs up, i.e. every process of
 * the container that held it is gone.  SOCKET appears only once it is
 * listening (it is bound under a temporary name, then renamed), so a
 * caller may wait for it to exist before it runs `brig create`.
 *
 * As runc's recvtty does, the pty stops turning "\n" into "\r\n" (unless
 * --keep-onlcr); when stdin is a terminal it is put in raw mode while the
 * relay runs and the pty follows its size.  End of input stops the input,
 * not the relay.  Exit status: 0 when the pty hung up, 1 on any error.
 *
 * Stand-alone on purpose (no libbrig): copy it anywhere.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

static const char *prog = "brig-console-receiver";

static struct termios saved_tty;
static bool tty_raw;

static void restore_tty(void)
{
	if (tty_raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
	tty_raw = false;
}

__attribute__((noreturn, format(printf, 2, 3))) static void die(int errnum, const char *fmt, ...)
{
	va_list ap;

	restore_tty();
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	fputc('\n', stderr);
	exit(1);
}

static void usage(FILE *f, int status)
{
	fprintf(f,
	        "usage: %s [--in FILE] [--out FILE] [--keep-onlcr] SOCKET\n"
	        "\n"
	        "Listen on the unix socket SOCKET, receive the pty master a runtime sends\n"
	        "there (--console-socket) and relay it to stdin/stdout, or from FILE of\n"
	        "--in and to FILE of --out, until the container's pty hangs up.\n",
	        prog);
	exit(status);
}

/* Listen on @path; @path exists only once the socket listens. */
static int listen_on(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char tmp[sizeof(sa.sun_path)];
	int fd, n;

	n = snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(tmp))
		die(0, "socket path \"%s\" is too long", path);
	memcpy(sa.sun_path, tmp, (size_t)n);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die(errno, "socket");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die(errno, "bind \"%s\"", tmp);
	if (listen(fd, 1) < 0 || renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) < 0) {
		int e = errno;

		unlink(tmp);
		die(e, "listen on \"%s\"", path);
	}
	return fd;
}

/* The one fd the runtime sends, with its name (ignored). */
static int receive_master(int conn)
{
	char name[4096];
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * 4)];
	} ctl;
	struct iovec iov = { .iov_base = name, .iov_len = sizeof(name) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	int master = -1;
	ssize_t n;

	do
		n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		die(errno, "receive the pty master");
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		size_t nfds;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfds; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (master < 0)
				master = fd;
			else
				close(fd);
		}
	}
	if (master < 0)
		die(0, "the runtime sent no file descriptor%s", n == 0 ? " (it hung up)" : "");
	if (!isatty(master))
		die(0, "the file descriptor received is not a terminal");
	return master;
}

static void copy_size(int master)
{
	struct winsize ws;

	if (isatty(STDIN_FILENO) && ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0 &&
	    (ws.ws_row || ws.ws_col))
		ioctl(master, TIOCSWINSZ, &ws);
}

static void write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };

			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				die(errno, "write");
			poll(&p, 1, -1);
			continue;
		}
		buf += n;
		len -= (size_t)n;
	}
}

/* Relay until the pty hangs up. */
static void relay(int master, int in, int out)
{
	char inbuf[4096], buf[16384];
	size_t len = 0, off = 0;
	sigset_t winch;
	int sfd;

	sigemptyset(&winch);
	sigaddset(&winch, SIGWINCH);
	sigprocmask(SIG_BLOCK, &winch, NULL);
	sfd = signalfd(-1, &winch, SFD_CLOEXEC);
	if (sfd < 0)
		die(errno, "signalfd");
	if (fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK) < 0)
		die(errno, "make the pty non-blocking");
	for (;;) {
		struct pollfd p[3];
		int n = 0, i_master, i_in = -1;

		i_master = n;
		p[n++] = (struct pollfd){ .fd = master, .events = POLLIN | (len ? POLLOUT : 0) };
		p[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		if (in >= 0 && !len) {
			i_in = n;
			p[n++] = (struct pollfd){ .fd = in, .events = POLLIN };
		}
		if (poll(p, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			die(errno, "poll");
		}
		if (p[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si))
				copy_size(master);
		}
		if (i_in >= 0 && p[i_in].revents) {
			ssize_t r = read(in, inbuf, sizeof(inbuf));

			if (r > 0) {
				len = (size_t)r;
				off = 0;
			} else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
				in = -1; /* end of input: the relay goes on */
			}
		}
		while (off < len) {
			ssize_t w = write(master, inbuf + off, len - off);

			if (w < 0) {
				if (errno == EAGAIN || errno == EINTR)
					break;
				len = off = 0; /* the pty is gone; its output tells */
				in = -1;
				break;
			}
			off += (size_t)w;
		}
		if (off == len)
			len = off = 0;
		if (p[i_master].revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t r = read(master, buf, sizeof(buf));

			if (r > 0)
				write_all(out, buf, (size_t)r);
			else if (r == 0 || (errno != EAGAIN && errno != EINTR))
				return; /* EIO: hung up */
		}
	}
}

int main(int argc, char **argv)
{
	const char *in_path = NULL, *out_path = NULL, *path = NULL;
	bool keep_onlcr = false;
	int lfd, conn, master, in = STDIN_FILENO, out = STDOUT_FILENO;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--in") && i + 1 < argc)
			in_path = argv[++i];
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out_path = argv[++i];
		else if (!strcmp(argv[i], "--keep-onlcr"))
			keep_onlcr = true;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			usage(stdout, 0);
		else if (argv[i][0] == '-' || path)
			usage(stderr, 2);
		else
			path = argv[i];
	}
	if (!path)
		usage(stderr, 2);
	if (in_path && (in = open(in_path, O_RDONLY | O_CLOEXEC)) < 0)
		die(errno, "open \"%s\"", in_path);
	if (out_path && (out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		die(errno, "open \"%s\"", out_path);
	signal(SIGPIPE, SIG_IGN);

	lfd = listen_on(path);
	do
		conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (conn < 0 && errno == EINTR);
	if (conn < 0)
		die(errno, "accept on \"%s\"", path);
	/* one container per socket */
	close(lfd);
	unlink(path);
	master = receive_master(conn);
	close(conn);

	if (!keep_onlcr) {
		struct termios t;

		if (tcgetattr(master, &t) == 0) {
			t.c_oflag &= ~(tcflag_t)ONLCR;
			tcsetattr(master, TCSANOW, &t);
		}
	}
	copy_size(master);
	if (in == STDIN_FILENO && isatty(in) && tcgetattr(in, &saved_tty) == 0) {
		struct termios raw = saved_tty;

		cfmakeraw(&raw);
		raw.c_oflag = saved_tty.c_oflag; /* keep "\n" -> "\r\n" here */
		tty_raw = tcsetattr(in, TCSANOW, &raw) == 0;
	}
	relay(master, in, out);
	restore_tty();
	return 0;
}
