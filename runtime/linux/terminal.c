/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's terminal.  Everything is reached through an fd that was
 * checked: the ptmx is opened as O_PATH inside the root and reopened
 * through brig's own procfs only once it is known to be a ptmx on devpts;
 * the peer comes from the master (TIOCGPTPEER), never from a path; the
 * bind mount over /dev/console takes the peer's fd as its source and the
 * fd of the file it covers as its target (CVE-2025-52565: runc mounted
 * the path "/dev/pts/<n>" over "/dev/console", and either could be a
 * symlink the container put there).
 */
#include "config.h"
#include "linux/terminal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "linux/resolve.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"

#define PTMX_PATH "/dev/pts/ptmx"
#define PTY_SLAVE_MAJOR_FIRST 136 /* UNIX98_PTY_SLAVE_MAJOR, 8 majors */
#define PTY_SLAVE_MAJOR_LAST 143

static bool on_devpts(int fd)
{
	struct statfs sfs;

	return fstatfs(fd, &sfs) == 0 && sfs.f_type == DEVPTS_SUPER_MAGIC;
}

/* The master of a new pty of the root's devpts, unlocked. */
static int open_ptmx(int rootfd, int procfd, struct brig_error *err)
{
	_cleanup_close_ int path = -1, master = -1;
	struct stat st, mst;
	char proc_path[64];
	int unlock = 0;

	path = brig_open_in_root(rootfd, PTMX_PATH, O_PATH | O_NOFOLLOW, 0);
	if (path < 0)
		return brig_error_setp(err, errno, "open \"%s\" in the container", PTMX_PATH);
	if (fstat(path, &st) < 0)
		return brig_error_setp(err, errno, "stat \"%s\"", PTMX_PATH);
	if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(5, 2) || !on_devpts(path))
		return brig_error_set(err,
		                      "\"%s\" is not the ptmx (char 5:2) of a devpts: mount "
		                      "devpts on \"/dev/pts\"",
		                      PTMX_PATH);
	/* the open that allocates a pty, through the checked inode itself */
	snprintf(proc_path, sizeof(proc_path), "thread-self/fd/%d", path);
	master = openat(procfd, proc_path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0)
		return brig_error_setp(err, errno, "open \"%s\"", PTMX_PATH);
	if (fstat(master, &mst) < 0 || mst.st_ino != st.st_ino || mst.st_dev != st.st_dev)
		return brig_error_set(err, "\"%s\" changed while it was opened", PTMX_PATH);
	if (ioctl(master, TIOCSPTLCK, &unlock) < 0)
		return brig_error_setp(err, errno, "unlock the pty");
	return TAKE_FD(master);
}

/* The peer of @master, checked to be a pts of the same devpts. */
static int open_peer(int master, struct brig_error *err)
{
	_cleanup_close_ int peer = -1;
	struct stat st, mst;

	peer = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (peer < 0)
		return brig_error_setp(err, errno, "open the peer of the pty (TIOCGPTPEER)");
	if (fstat(peer, &st) < 0 || fstat(master, &mst) < 0)
		return brig_error_setp(err, errno, "stat the pty");
	if (!S_ISCHR(st.st_mode) || major(st.st_rdev) < PTY_SLAVE_MAJOR_FIRST ||
	    major(st.st_rdev) > PTY_SLAVE_MAJOR_LAST || st.st_dev != mst.st_dev || !on_devpts(peer))
		return brig_error_set(err, "the peer of the pty is not a pts of its devpts");
	return TAKE_FD(peer);
}

/* "/dev/console" of the root, as an fd to mount on (see the header). */
static int console_target(int rootfd, bool replace, struct brig_error *err)
{
	_cleanup_close_ int dev = -1, target = -1;
	struct stat st;

	dev = brig_mkpath_in_root(rootfd, "/dev", BRIG_MKPATH_DIR, err);
	if (dev < 0)
		return brig_error_wrap(err, "\"/dev/console\"");
	/* O_PATH: a symlink is the link itself, a device is not opened */
	target = openat(dev, "console", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (target >= 0) {
		if (fstat(target, &st) < 0)
			return brig_error_setp(err, errno, "stat \"/dev/console\"");
		if (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode))
			return TAKE_FD(target);
		if (!replace)
			return brig_error_set(err,
			                      "\"/dev/console\" is neither a file nor a character "
			                      "device: not replaced in a bind-mounted /dev");
		close(TAKE_FD(target));
		if (unlinkat(dev, "console", S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) < 0)
			return brig_error_setp(err, errno, "remove \"/dev/console\"");
	} else if (errno != ENOENT) {
		return brig_error_setp(err, errno, "open \"/dev/console\"");
	}
	target = openat(dev, "console", O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (target < 0)
		return brig_error_setp(err, errno, "create \"/dev/console\"");
	return TAKE_FD(target);
}

static int mount_console(int rootfd, int peer, bool replace, struct brig_error *err)
{
	_cleanup_close_ int target = -1, tree = -1;
	struct stat st, pst;

	target = console_target(rootfd, replace, err);
	if (target < 0)
		return -1;
	tree = open_tree(peer, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (tree < 0)
		return brig_error_setp(err, errno, "bind the pty over \"/dev/console\": clone it");
	if (fstat(tree, &st) < 0 || fstat(peer, &pst) < 0 || st.st_rdev != pst.st_rdev ||
	    st.st_ino != pst.st_ino || st.st_dev != pst.st_dev)
		return brig_error_set(err, "bind the pty over \"/dev/console\": the clone is not "
		                           "the pty");
	if (move_mount(tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return brig_error_setp(err, errno, "bind the pty over \"/dev/console\"");
	return 0;
}

/* The peer as the controlling terminal (the init leads a session of its
 * own since it started) and as stdio. */
static int attach(int peer, uid_t uid, struct brig_error *err)
{
	_cleanup_close_ int high = -1;
	struct stat st;

	if (ioctl(peer, TIOCSCTTY, 0) < 0)
		return brig_error_setp(err, errno, "make the pty the controlling terminal");
	if (fstat(peer, &st) < 0)
		return brig_error_setp(err, errno, "stat the pty");
	if (st.st_uid != uid && fchown(peer, uid, (gid_t)-1) < 0)
		return brig_error_setp(err, errno, "chown the pty to %u", (unsigned)uid);
	/* dup2 onto itself would keep close-on-exec: start from above 2 */
	high = fcntl(peer, F_DUPFD_CLOEXEC, 3);
	if (high < 0)
		return brig_error_setp(err, errno, "dup the pty");
	for (int fd = 0; fd < 3; fd++)
		if (dup2(high, fd) < 0)
			return brig_error_setp(err, errno, "make the pty fd %d", fd);
	return 0;
}

static int setup(int rootfd, int procfd, const struct brig_process *p, bool console,
                 bool replace_console, struct brig_error *err)
{
	_cleanup_close_ int master = -1, peer = -1;

	master = open_ptmx(rootfd, procfd, err);
	if (master < 0)
		return -1;
	peer = open_peer(master, err);
	if (peer < 0)
		return -1;
	/* runc sets the size only when both are given */
	if (p->console_size && p->console_size->height && p->console_size->width) {
		struct winsize ws = { .ws_row = (unsigned short)p->console_size->height,
			              .ws_col = (unsigned short)p->console_size->width };

		if (p->console_size->height > 0xffff || p->console_size->width > 0xffff)
			return brig_error_set(err, "process.consoleSize: %ux%u is too large",
			                      p->console_size->width, p->console_size->height);
		if (ioctl(master, TIOCSWINSZ, &ws) < 0)
			return brig_error_setp(err, errno, "set the size of the pty");
	}
	if ((console && mount_console(rootfd, peer, replace_console, err) < 0) ||
	    attach(peer, p->user.uid, err) < 0)
		return -1;
	return TAKE_FD(master);
}

int brig_terminal_setup(int rootfd, int procfd, const struct brig_process *p, bool replace_console,
                        struct brig_error *err)
{
	return setup(rootfd, procfd, p, true, replace_console, err);
}

int brig_terminal_setup_exec(int rootfd, int procfd, const struct brig_process *p,
                             struct brig_error *err)
{
	return setup(rootfd, procfd, p, false, false, err);
}
