/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lifecycle/console.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "lifecycle/sync.h"
#include "util/cleanup.h"
#include "util/error.h"

/* What is left in the pty when the container is gone is copied up to this
 * much: a process that outlived the init may go on writing. */
#define DRAIN_MAX (1024 * 1024)

int brig_console_check(bool terminal, bool detach, const char *socket_path, struct brig_error *err)
{
	bool socket = socket_path && *socket_path;

	if (detach && terminal && !socket)
		return brig_error_set(err,
		                      "cannot allocate tty if brig will detach without setting "
		                      "console socket");
	if ((!detach || !terminal) && socket)
		return brig_error_set(err, "cannot use console socket if brig will not detach or "
		                           "allocate tty");
	return 0;
}

int brig_console_connect(const char *path, struct brig_error *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = -1, dir = -1;
	_cleanup_free_ char *via = NULL;
	const char *p = path;
	int r;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		/* too long for sun_path: reach it through its directory */
		const char *slash = strrchr(path, '/');
		_cleanup_free_ char *d = NULL;

		if (!slash || !slash[1])
			return brig_error_set(err, "console socket \"%s\": path too long", path);
		d = brig_xstrdup(path);
		d[slash - path] = '\0';
		dir = open(slash == path ? "/" : d, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dir < 0)
			return brig_error_setp(err, errno, "console socket \"%s\"", path);
		via = brig_xasprintf("/proc/self/fd/%d/%s", dir, slash + 1);
		if (strlen(via) >= sizeof(sa.sun_path))
			return brig_error_set(err, "console socket \"%s\": name too long", path);
		p = via;
	}
	memcpy(sa.sun_path, p, strlen(p));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return brig_error_setp(err, errno, "console socket: socket");
	do
		r = connect(fd, (const struct sockaddr *)&sa, sizeof(sa));
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return brig_error_setp(err, errno, "connect to the console socket \"%s\"", path);
	return TAKE_FD(fd);
}

int brig_console_send(int sock, int master, struct brig_error *err)
{
	/* runc sends the name of the master's file along; receivers such as
	 * containerd's read it (and a stream socket needs one byte anyway) */
	static const char name[] = "/dev/ptmx";
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = (void *)name, .iov_len = sizeof(name) - 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *c;
	ssize_t n;

	memset(&ctl, 0, sizeof(ctl));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &master, sizeof(int));
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return brig_error_setp(err, errno, "send the pty master to the console socket");
	if ((size_t)n != iov.iov_len)
		return brig_error_set(err,
		                      "send the pty master to the console socket: short write");
	return 0;
}

/* brig's own terminal: the first of stdin, stdout, stderr that is one. */
static int host_tty(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (isatty(fd))
			return fd;
	return -1;
}

/* The pty takes the size of @tty, unless @tty has none (0x0, as under
 * `script` without a terminal): then consoleSize stays. */
static void copy_size(int tty, int master)
{
	struct winsize ws;

	if (tty >= 0 && ioctl(tty, TIOCGWINSZ, &ws) == 0 && (ws.ws_row || ws.ws_col))
		ioctl(master, TIOCSWINSZ, &ws);
}

void brig_console_prepare(int master)
{
	struct termios t;

	copy_size(host_tty(), master);
	if (tcgetattr(master, &t) == 0) {
		t.c_oflag &= ~(tcflag_t)ONLCR;
		tcsetattr(master, TCSANOW, &t);
	}
}

int brig_console_receive(int sync_fd, const char *who, int console, int *master,
                         struct brig_error *err)
{
	*master = brig_sync_expect_fd(sync_fd, BRIG_SYNC_PTY_MASTER, who, err);
	if (*master < 0)
		return -1;
	if (console < 0) {
		brig_console_prepare(*master);
		return 0;
	}
	if (brig_console_send(console, *master, err) < 0)
		return -1;
	close(TAKE_FD(*master));
	return 0;
}

void brig_relay_start(struct brig_relay *r, int master)
{
	int flags = fcntl(master, F_GETFL);

	r->master = master;
	r->in = STDIN_FILENO;
	r->out = STDOUT_FILENO;
	r->tty = host_tty();
	r->len = r->off = 0;
	/* only the master is made non-blocking: brig's stdio may be shared */
	if (flags >= 0)
		fcntl(master, F_SETFL, flags | O_NONBLOCK);
	if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &r->saved) == 0) {
		struct termios raw = r->saved;

		cfmakeraw(&raw);
		/* keys go to the container untouched; what it prints still
		 * gets this terminal's output processing ("\n" -> "\r\n") */
		raw.c_oflag = r->saved.c_oflag;
		r->raw = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
	}
}

int brig_relay_poll(const struct brig_relay *r, struct pollfd *pfd)
{
	int n = 0;

	if (r->master < 0)
		return 0;
	if (r->in >= 0 && r->len == 0)
		pfd[n++] = (struct pollfd){ .fd = r->in, .events = POLLIN };
	pfd[n++] = (struct pollfd){ .fd = r->master, .events = POLLIN | (r->len ? POLLOUT : 0) };
	return n;
}

static void write_out(struct brig_relay *r, const char *buf, size_t len)
{
	while (len > 0 && r->out >= 0) {
		ssize_t n = write(r->out, buf, len);

		if (n < 0) {
			struct pollfd p = { .fd = r->out, .events = POLLOUT };

			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				poll(&p, 1, -1);
				continue;
			}
			/* nobody reads brig's output: the pty is still drained,
			 * so that the container never blocks on it */
			r->out = -1;
			return;
		}
		buf += n;
		len -= (size_t)n;
	}
}

/* Copy the pty's output, once or (@drain) until it is empty; end-of-file
 * or EIO mean every holder of the peer is gone. */
static void copy_output(struct brig_relay *r, bool drain)
{
	char buf[16384];
	size_t total = 0;

	while (r->master >= 0) {
		ssize_t n = read(r->master, buf, sizeof(buf));

		if (n > 0) {
			write_out(r, buf, (size_t)n);
			total += (size_t)n;
			if (!drain || total >= DRAIN_MAX)
				return;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		r->master = -1;
	}
}

static void write_input(struct brig_relay *r)
{
	while (r->off < r->len) {
		ssize_t n = write(r->master, r->buf + r->off, r->len - r->off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			/* the pty is gone: input has nowhere to go */
			r->in = -1;
			break;
		}
		r->off += (size_t)n;
	}
	r->len = r->off = 0;
}

static void read_input(struct brig_relay *r)
{
	ssize_t n;

	do
		n = read(r->in, r->buf, sizeof(r->buf));
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		r->len = (size_t)n;
		r->off = 0;
		write_input(r);
	} else if (n == 0 || errno != EAGAIN) {
		/* end of input: stop reading, as runc does; the container
		 * goes on (on a terminal, end-of-file is a key: ^D) */
		r->in = -1;
	}
}

void brig_relay_io(struct brig_relay *r, const struct pollfd *pfd, int n)
{
	for (int i = 0; i < n; i++) {
		if (!pfd[i].revents || r->master < 0)
			continue;
		if (pfd[i].fd == r->master) {
			if (pfd[i].revents & POLLOUT)
				write_input(r);
			if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
				copy_output(r, false);
		} else if (pfd[i].fd == r->in) {
			read_input(r);
		}
	}
}

void brig_relay_resize(struct brig_relay *r)
{
	if (r->master >= 0)
		copy_size(r->tty, r->master);
}

void brig_relay_finish(struct brig_relay *r)
{
	copy_output(r, true);
	r->master = -1;
	if (r->raw) {
		tcsetattr(STDIN_FILENO, TCSANOW, &r->saved);
		r->raw = false;
	}
}
