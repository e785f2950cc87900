/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/lifecycle/console.c without root: runc's two rules and their wording, the
 * connection to a console socket (a path longer than sun_path too), the
 * master sent as runc sends it, ONLCR cleared, and the relay moving bytes
 * both ways between pipes standing in for brig's stdio and a pty.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "lifecycle/console.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/error.h"

static const char *check_msg(bool terminal, bool detach, const char *sock)
{
	static char buf[256];
	struct brig_error err = BRIG_ERROR_INIT;

	buf[0] = '\0';
	if (brig_console_check(terminal, detach, sock, &err) < 0)
		snprintf(buf, sizeof(buf), "%s", err.msg);
	brig_error_release(&err);
	return buf;
}

static void test_check(void)
{
	const char *no_sock = "cannot allocate tty if brig will detach without setting console "
	                      "socket";
	const char *unwanted = "cannot use console socket if brig will not detach or allocate tty";

	is_str(check_msg(true, true, NULL), no_sock, "terminal, detached, no socket");
	is_str(check_msg(true, true, ""), no_sock, "an empty --console-socket is none (runc)");
	is_str(check_msg(true, true, "/s"), "", "terminal, detached, a socket");
	is_str(check_msg(true, false, NULL), "", "terminal in the foreground: brig relays");
	is_str(check_msg(true, false, "/s"), unwanted, "terminal in the foreground, a socket");
	is_str(check_msg(false, true, "/s"), unwanted, "no terminal, detached, a socket");
	is_str(check_msg(false, false, "/s"), unwanted, "no terminal, foreground, a socket");
	is_str(check_msg(false, true, NULL), "", "no terminal, detached, no socket");
}

/* A listening socket at @path. */
static int listen_at(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || strlen(path) >= sizeof(sa.sun_path))
		return -1;
	memcpy(sa.sun_path, path, strlen(path));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void test_connect(const char *tmp)
{
	struct brig_error err = BRIG_ERROR_INIT;
	_cleanup_free_ char *path = brig_xasprintf("%s/sock", tmp);
	_cleanup_free_ char *missing = brig_xasprintf("%s/missing", tmp);
	_cleanup_free_ char *want = NULL, *deep = NULL, *cwd = NULL;
	_cleanup_close_ int lfd = listen_at(path);
	int fd;

	ok(lfd >= 0, "listen on a socket in %s", tmp);
	fd = brig_console_connect(path, &err);
	ok(fd >= 0, "connect to it");
	if (fd >= 0)
		close(fd);
	fd = brig_console_connect(missing, &err);
	want = brig_xasprintf("connect to the console socket \"%s\": No such file or directory",
	                      missing);
	ok(fd < 0, "a missing socket fails");
	is_str(err.msg, want, "the error names the path");
	brig_error_release(&err);

	/* longer than sun_path: reached through the fd of its directory */
	deep = brig_xasprintf("%s/%0120d", tmp, 0);
	cwd = getcwd(NULL, 0);
	if (mkdir(deep, 0700) < 0 || chdir(deep) < 0) {
		ok(false, "make %s", deep);
		return;
	}
	close(lfd);
	lfd = listen_at("sock");
	if (cwd && chdir(cwd) < 0)
		ok(false, "chdir back");
	free(path);
	path = brig_xasprintf("%s/sock", deep);
	ok(lfd >= 0 && strlen(path) > sizeof(((struct sockaddr_un *)0)->sun_path),
	   "a socket whose path is %zu bytes long", strlen(path));
	fd = brig_console_connect(path, &err);
	ok(fd >= 0, "connect to it: %s", err.msg ? err.msg : "ok");
	if (fd >= 0)
		close(fd);
	brig_error_release(&err);
	unlink(path);
	rmdir(deep);
}

static int new_pty(int *peer)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0)
		return -1;
	*peer = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	return *peer < 0 ? -1 : master;
}

static void test_send(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	_cleanup_close_ int master = -1, peer = -1, got = -1;
	int sv[2];
	char name[64] = "";
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = name, .iov_len = sizeof(name) - 1 };
	struct msghdr msg = { .msg_iov = &iov,
		              .msg_iovlen = 1,
		              .msg_control = ctl.buf,
		              .msg_controllen = sizeof(ctl.buf) };
	struct stat a, b;
	struct termios t;
	ssize_t n;

	master = new_pty(&peer);
	if (!ok(master >= 0, "a pty") || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return;
	ok(brig_console_send(sv[0], master, &err) == 0, "send the master");
	n = recvmsg(sv[1], &msg, MSG_CMSG_CLOEXEC);
	if (n > 0 && CMSG_FIRSTHDR(&msg) && CMSG_FIRSTHDR(&msg)->cmsg_type == SCM_RIGHTS)
		memcpy(&got, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof(int));
	is_str(n > 0 ? name : NULL, "/dev/ptmx", "the message is the name runc sends");
	ok(got >= 0 && fstat(got, &a) == 0 && fstat(master, &b) == 0 && a.st_ino == b.st_ino &&
	       a.st_rdev == b.st_rdev,
	   "the fd received is the master");
	close(sv[0]);
	close(sv[1]);

	brig_console_prepare(master);
	ok(tcgetattr(peer, &t) == 0 && !(t.c_oflag & ONLCR), "prepare clears ONLCR");
	brig_error_release(&err);
}

/*
 * In a child, with pipes as stdin and stdout: "input" typed on brig's
 * stdin reaches the container's side of the pty; what the container
 * writes reaches brig's stdout; the relay ends when the pty hangs up.
 */
static int relay_child(void)
{
	struct brig_relay r = BRIG_RELAY_INIT;
	int master, peer, in[2], out[2], rounds = 0;
	struct termios t;
	char buf[64];
	ssize_t n;

	master = new_pty(&peer);
	if (master < 0 || pipe(in) < 0 || pipe(out) < 0 || dup2(in[0], 0) < 0 ||
	    dup2(out[1], 1) < 0)
		return 10;
	/* the container's side: bytes as they are */
	tcgetattr(peer, &t);
	cfmakeraw(&t);
	tcsetattr(peer, TCSANOW, &t);
	if (write(in[1], "input", 5) != 5 || write(peer, "output", 6) != 6)
		return 11;
	close(in[1]);
	brig_relay_start(&r, master);
	while (rounds++ < 100) {
		struct pollfd pfd[BRIG_RELAY_NFDS];
		int k = brig_relay_poll(&r, pfd);

		if (k == 0)
			break;
		if (poll(pfd, (nfds_t)k, 100) < 0)
			return 12;
		brig_relay_io(&r, pfd, k);
		if (r.in < 0 && peer >= 0) {
			/* input is over (end-of-file): the container reads it
			 * and goes away */
			n = read(peer, buf, sizeof(buf));
			if (n != 5 || memcmp(buf, "input", 5) != 0)
				return 13;
			close(peer);
			peer = -1;
		}
	}
	if (peer >= 0 || r.master >= 0)
		return 14; /* the hang-up was not seen */
	brig_relay_finish(&r);
	close(out[1]);
	close(1);
	n = read(out[0], buf, sizeof(buf));
	if (n != 6 || memcmp(buf, "output", 6) != 0)
		return 15;
	return 0;
}

static void test_relay(void)
{
	pid_t pid = fork();
	int st = -1;

	if (pid == 0)
		_exit(relay_child());
	if (pid > 0)
		waitpid(pid, &st, 0);
	is_int(WIFEXITED(st) ? WEXITSTATUS(st) : 100, 0,
	       "relay: input to the pty, output to stdout, the hang-up ends it");
}

int main(void)
{
	char tmp[] = "/tmp/brig-test-console.XXXXXX";

	test_check();
	if (mkdtemp(tmp)) {
		char sock[sizeof(tmp) + 8];

		test_connect(tmp);
		snprintf(sock, sizeof(sock), "%s/sock", tmp);
		unlink(sock);
		rmdir(tmp);
	} else {
		ok(false, "mkdtemp");
	}
	test_send();
	test_relay();
	return tap_done();
}
