/* SPDX-License-Identifier: Apache-2.0 */
/*
 * process.terminal, brig's side: the master of the container's pty comes
 * from the init, or an exec'd process's from that process (sync.h), and
 * goes either to --console-socket (create, run --detach, exec --detach)
 * or, for a foreground `run` or `exec`, is relayed to and from brig's own
 * stdio as runc does.  The container's side is linux/terminal.h.
 */
#ifndef BRIG_CONSOLE_H
#define BRIG_CONSOLE_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <termios.h>

struct brig_error;

/*
 * runc's rules, with its wording: a detached container (create, run
 * --detach) with a terminal needs a console socket; a console socket needs
 * both a terminal and a detached container.
 */
int brig_console_check(bool terminal, bool detach, const char *socket_path, struct brig_error *err);

/* Connect to the AF_UNIX stream socket at @path (close-on-exec fd). */
int brig_console_connect(const char *path, struct brig_error *err);

/* Send @master over @sock (SCM_RIGHTS, with the name runc sends). */
int brig_console_send(int sock, int master, struct brig_error *err);

/*
 * The master of a process's pty (the init's, or an exec'd process's) as it
 * comes over the sync socket @sync_fd, PTY_MASTER (sync.h; @who names the
 * sender in errors): it goes on to --console-socket (@console, connected),
 * *@master then -1, or stays in *@master for the relay of a foreground run
 * or exec, sized like brig's terminal (brig_console_prepare).  *@master is
 * the caller's to close, after a failure too.
 */
int brig_console_receive(int sync_fd, const char *who, int console, int *master,
                         struct brig_error *err);

/*
 * The foreground relay: brig's stdin to the master, the master to brig's
 * stdout.  While it runs, brig's stdin, when it is a terminal, is in raw
 * mode (output processing kept, as runc's console library does) and the
 * pty follows the size of brig's terminal.
 */
struct brig_relay {
	int master; /* borrowed; -1 once the pty has hung up */
	int in;     /* brig's stdin, -1 after end-of-file */
	int out;    /* brig's stdout, -1 after a write error */
	int tty;    /* brig's terminal (size), or -1 */
	bool raw;   /* @saved is to be restored on tty */
	struct termios saved;
	size_t len, off; /* bytes of @buf not yet written to the master */
	char buf[4096];
};

#define BRIG_RELAY_INIT                                                              \
	{                                                                            \
		.master = -1, .in = -1, .out = -1, .tty = -1, .raw = false, .len = 0 \
	}

/* Most pollfds brig_relay_poll() fills. */
#define BRIG_RELAY_NFDS 2

/*
 * Before the container starts: the pty takes the size of brig's terminal
 * (if brig has one with a size) and stops turning "\n" into "\r\n" (runc
 * clears ONLCR: brig's own terminal does that).
 */
void brig_console_prepare(int master);

/* Start relaying @master (made non-blocking): raw mode on brig's stdin
 * when it is a terminal.  Best effort: a terminal that refuses raw mode
 * is relayed as it is. */
void brig_relay_start(struct brig_relay *r, int master);

/* Fill @pfd with what the relay waits for; returns how many (<= NFDS). */
int brig_relay_poll(const struct brig_relay *r, struct pollfd *pfd);

/* Move the data that poll() said is ready (@pfd as filled above). */
void brig_relay_io(struct brig_relay *r, const struct pollfd *pfd, int n);

/* SIGWINCH: the pty takes the size of brig's terminal. */
void brig_relay_resize(struct brig_relay *r);

/* The container is gone: copy what is left in the pty, restore the
 * terminal.  Safe to call on a relay that never started. */
void brig_relay_finish(struct brig_relay *r);

#endif
