/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime/linux/resolve.c on a scratch tree under /tmp, no root needed:
 * openat2(RESOLVE_IN_ROOT) keeps every lookup inside the tree (".." above
 * it, absolute and climbing symlinks), refuses symlink loops and /proc magic
 * links; mkpath creates what is missing with the kind and mode asked for,
 * inside the tree even through a dangling symlink that points out, leaves an
 * existing component of the wrong kind alone; mkpath_on_mounts creates
 * nothing on a mount it is not given (a tmpfs mounted in a user namespace of
 * a child, when there are any); mount ids agree with /proc's fdinfo.
 *
 * The tree, under <tmp>/:
 *
 *   outside/                 what no lookup from root/ may reach
 *   root/                    the "rootfs"
 *     etc/passwd             a file
 *     abs -> /etc/passwd     absolute: root/etc/passwd, not the host's
 *     up -> ../../../etc     climbing: still root/etc
 *     loop1 -> loop2, loop2 -> loop1, self -> self
 *     magic -> /proc/self/fd/<n>, magicdir -> /proc/self/cwd
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/resolve.h"
#include "linux/syscalls.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/error.h"

static char tmpdir[256];
static int rootfd = -1;

/* ---------------------------------------------------------------- helpers */

/* <tmp>/@rel, heap. */
static char *tpath(const char *rel)
{
	return brig_xasprintf("%s/%s", tmpdir, rel);
}

static void bail(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(99);
}

static void make_dir(const char *rel)
{
	_cleanup_free_ char *p = tpath(rel);

	if (mkdir(p, 0755) < 0)
		bail(p);
}

static void make_file(const char *rel)
{
	_cleanup_free_ char *p = tpath(rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd < 0)
		bail(p);
	close(fd);
}

static void make_link(const char *target, const char *rel)
{
	_cleanup_free_ char *p = tpath(rel);

	if (symlink(target, p) < 0)
		bail(p);
}

/* Whether <tmp>/@rel exists (not following a last symlink). */
static bool exists(const char *rel)
{
	_cleanup_free_ char *p = tpath(rel);
	struct stat st;

	return lstat(p, &st) == 0;
}

/* The type and permission bits of <tmp>/@rel, 0 when missing. */
static mode_t mode_of(const char *rel)
{
	_cleanup_free_ char *p = tpath(rel);
	struct stat st;

	return lstat(p, &st) == 0 ? st.st_mode & (S_IFMT | 07777) : 0;
}

/* Whether @fd is <tmp>/@rel (device and inode, the last symlink followed). */
static bool is_at(int fd, const char *rel)
{
	_cleanup_free_ char *p = tpath(rel);
	struct stat a, b;

	return fd >= 0 && fstat(fd, &a) == 0 && stat(p, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* brig_open_in_root(@dirfd, @path, @flags): the errno it fails with, or 0
 * when it succeeds (*@fdp, if given, keeps the fd). */
static int open_errno(int dirfd, const char *path, int flags, int *fdp)
{
	int fd;

	errno = 0;
	fd = brig_open_in_root(dirfd, path, flags, 0);
	if (fd < 0)
		return errno;
	if (fdp)
		*fdp = fd;
	else
		close(fd);
	return 0;
}

/* brig_mkpath_in_root(): its fd, or -1 with *@errnum and @msg filled. */
static int mkpath(int dirfd, const char *path, enum brig_mkpath_kind kind, int *errnum, char *msg,
                  size_t size)
{
	struct brig_error err = BRIG_ERROR_INIT;
	int fd = brig_mkpath_in_root(dirfd, path, kind, &err);

	if (errnum)
		*errnum = fd < 0 ? err.errnum : 0;
	if (msg)
		snprintf(msg, size, "%s", err.msg ? err.msg : "");
	if (fd < 0 && !err.msg)
		printf("# mkpath \"%s\": -1 without an error set\n", path);
	brig_error_release(&err);
	return fd;
}

/* The mount id /proc/self/fdinfo gives for @fd, 0 if none. */
static uint64_t fdinfo_mnt_id(int fd)
{
	_cleanup_free_ char *p = brig_xasprintf("/proc/self/fdinfo/%d", fd);
	_cleanup_fclose_ FILE *f = fopen(p, "re");
	char line[256];
	unsigned long long id;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "mnt_id: %llu", &id) == 1)
			return id;
	return 0;
}

/* Run @fn in a child; its exit status (0 = all its checks held). */
static int in_child(int (*fn)(void), int fallback)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return fallback;
	if (pid == 0) {
		fflush(stdout);
		_exit(fn());
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return fallback;
	return WEXITSTATUS(st);
}

/* ---------------------------------------------------------------- the tree */

static void make_tree(void)
{
	_cleanup_free_ char *root = tpath("root");

	make_dir("outside");
	make_file("outside/passwd");
	make_dir("root");
	make_dir("root/etc");
	make_file("root/etc/passwd");
	make_dir("root/deep");
	make_dir("root/deep/dir");
	make_link("/etc/passwd", "root/abs");
	make_link("../../../etc", "root/up");
	make_link("loop2", "root/loop1");
	make_link("loop1", "root/loop2");
	make_link("self", "root/self");
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		bail("open the root");
}

/* ---------------------------------------------------------------- open_in_root */

static void test_open_in_root(void)
{
	_cleanup_free_ char *outside_abs = tpath("outside/passwd");
	int fd = -1;

	is_int(open_errno(rootfd, "etc/passwd", O_PATH, &fd), 0, "etc/passwd opens");
	ok(is_at(fd, "root/etc/passwd"), "... and is the tree's");
	ok(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC), "... close-on-exec, though not asked");
	if (fd >= 0)
		close(fd);

	fd = -1;
	is_int(open_errno(rootfd, "/etc/passwd", O_RDONLY, &fd), 0, "/etc/passwd opens");
	ok(is_at(fd, "root/etc/passwd"), "... the root's, not the host's");
	if (fd >= 0)
		close(fd);

	fd = -1;
	open_errno(rootfd, "../../../../etc/passwd", O_PATH, &fd);
	ok(is_at(fd, "root/etc/passwd"), "'..' above the root stops at it");
	if (fd >= 0)
		close(fd);

	is_int(open_errno(rootfd, "etc/../../outside/passwd", O_PATH, NULL), ENOENT,
	       "'../outside/passwd' from the root: ENOENT, not the file beside it");

	fd = -1;
	open_errno(rootfd, "abs", O_RDONLY, &fd);
	ok(is_at(fd, "root/etc/passwd"), "an absolute symlink resolves inside the root");
	if (fd >= 0)
		close(fd);

	fd = -1;
	open_errno(rootfd, "up/passwd", O_PATH, &fd);
	ok(is_at(fd, "root/etc/passwd"), "a symlink climbing with '..' stays inside");
	if (fd >= 0)
		close(fd);

	/* the absolute path of a file that exists, outside: not found inside */
	make_link(outside_abs, "root/escape");
	is_int(open_errno(rootfd, "escape", O_PATH, NULL), ENOENT,
	       "a symlink to <tmp>/outside/passwd: ENOENT inside the root");
	make_link("../outside/passwd", "root/escape2");
	is_int(open_errno(rootfd, "escape2", O_PATH, NULL), ENOENT,
	       "a relative one climbing out: ENOENT inside the root");

	is_int(open_errno(rootfd, "loop1", O_PATH, NULL), ELOOP, "loop1 -> loop2 -> loop1: ELOOP");
	is_int(open_errno(rootfd, "self", O_PATH, NULL), ELOOP, "self -> self: ELOOP");
	is_int(open_errno(rootfd, "loop1/x", O_PATH, NULL), ELOOP, "a loop on the way: ELOOP");
	is_int(open_errno(rootfd, "loop1", O_PATH | O_NOFOLLOW, NULL), 0,
	       "O_NOFOLLOW: the link itself opens (flags are passed on)");

	is_int(open_errno(rootfd, "etc/passwd/x", O_PATH, NULL), ENOTDIR,
	       "a path through a file: ENOTDIR");
	is_int(open_errno(rootfd, "missing/x", O_PATH, NULL), ENOENT,
	       "a path through a missing directory: ENOENT");

	/* flags and mode go through: O_CREAT creates, inside */
	fd = brig_open_in_root(rootfd, "../../created", O_WRONLY | O_CREAT | O_EXCL, 0600);
	ok(fd >= 0, "O_CREAT through '..': created");
	if (fd >= 0)
		close(fd);
	ok(exists("root/created") && !exists("created"), "... in the root, not above it");

	fd = brig_openat2_retry(rootfd, "../outside", O_PATH, 0, RESOLVE_BENEATH);
	is_int(fd < 0 ? errno : 0, EXDEV, "openat2_retry passes resolve on: BENEATH '..' is EXDEV");
	if (fd >= 0)
		close(fd);
	fd = brig_openat2_retry(rootfd, "etc/passwd", O_RDONLY, 0, 0);
	ok(is_at(fd, "root/etc/passwd") && (fcntl(fd, F_GETFD) & FD_CLOEXEC),
	   "openat2_retry, no resolve flags: opens, close-on-exec");
	if (fd >= 0)
		close(fd);
}

/*
 * Magic links: a symlink whose target is a /proc/<pid>/fd entry.  Inside
 * a scratch root there is no /proc, so resolving it from the host's "/"
 * (as a rootfs with /proc mounted would) is what reaches the magic link.
 */
static void test_magic_links(void)
{
	_cleanup_free_ char *outside = tpath("outside");
	_cleanup_free_ char *target_path = tpath("outside/passwd");
	_cleanup_free_ char *via_slash = NULL, *dir_via_slash = NULL;
	_cleanup_close_ int slash = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int target = open(target_path, O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *fdlink = brig_xasprintf("/proc/self/fd/%d", target);
	_cleanup_close_ int proc_self = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
	_cleanup_free_ char *fdrel = brig_xasprintf("fd/%d", target);
	_cleanup_close_ int oldcwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char msg[512];
	int fd, e;

	if (slash < 0 || target < 0 || proc_self < 0)
		bail("open / or /proc/self");
	make_link(fdlink, "root/magic");
	make_link("/proc/self/cwd", "root/magicdir");
	via_slash = brig_xasprintf("%s/root/magic", tmpdir + 1);
	dir_via_slash = brig_xasprintf("%s/root/magicdir/made", tmpdir + 1);

	/* the control: without the resolve flags, the link leads to the file */
	fd = openat(slash, via_slash, O_RDONLY | O_CLOEXEC);
	ok(fd >= 0 && is_at(fd, "outside/passwd"), "control: plain openat follows the magic link");
	if (fd >= 0)
		close(fd);

	is_int(open_errno(proc_self, fdrel, O_RDONLY, NULL), ELOOP,
	       "/proc/self as the root: fd/<n> itself is refused (ELOOP)");
	is_int(open_errno(slash, via_slash, O_RDONLY, NULL), ELOOP,
	       "a symlink to /proc/self/fd/<n>: refused (ELOOP)");
	is_int(open_errno(rootfd, "magic", O_RDONLY, NULL), ENOENT,
	       "the same symlink from the scratch root: its /proc, which does not exist");

	fd = mkpath(slash, via_slash, BRIG_MKPATH_FILE, &e, msg, sizeof(msg));
	ok(fd < 0 && e == ELOOP, "mkpath through a magic link: refused (ELOOP)");
	if (fd >= 0)
		close(fd);

	/* /proc/self/cwd is a magic link to a directory: with the cwd in
	 * outside/, following it would create outside/made */
	if (chdir(outside) < 0)
		bail("chdir outside");
	fd = mkpath(slash, dir_via_slash, BRIG_MKPATH_DIR, &e, msg, sizeof(msg));
	ok(fd < 0 && e == ELOOP, "mkpath through /proc/self/cwd: refused (ELOOP)");
	ok(!exists("outside/made"), "... and nothing made where the cwd is");
	if (fd >= 0)
		close(fd);
	if (fchdir(oldcwd) < 0)
		bail("fchdir back");
}

/* ---------------------------------------------------------------- mkpath */

static void test_mkpath_create(void)
{
	char msg[512];
	int fd, e;

	fd = mkpath(rootfd, "a/b/c", BRIG_MKPATH_DIR, &e, msg, sizeof(msg));
	ok(fd >= 0, "mkpath a/b/c DIR: %s", fd >= 0 ? "an fd" : msg);
	ok(is_at(fd, "root/a/b/c"), "... of root/a/b/c");
	is_int(mode_of("root/a"), S_IFDIR | 0755, "... a is a directory 0755");
	is_int(mode_of("root/a/b/c"), S_IFDIR | 0755, "... c too");
	ok(fd >= 0 && (fcntl(fd, F_GETFL) & O_PATH), "... the fd is O_PATH");
	ok(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC), "... and close-on-exec");
	if (fd >= 0)
		close(fd);

	fd = mkpath(rootfd, "/x/y/file", BRIG_MKPATH_FILE, &e, msg, sizeof(msg));
	ok(is_at(fd, "root/x/y/file"), "mkpath /x/y/file FILE: %s", fd >= 0 ? "an fd" : msg);
	is_int(mode_of("root/x/y"), S_IFDIR | 0755, "... the directories on the way 0755");
	is_int(mode_of("root/x/y/file"), S_IFREG | 0644, "... the file a regular file 0644");
	ok(fd >= 0 && (fcntl(fd, F_GETFL) & O_PATH), "... the fd is O_PATH");
	if (fd >= 0)
		close(fd);

	fd = mkpath(rootfd, "a/b/c", BRIG_MKPATH_DIR, &e, msg, sizeof(msg));
	ok(is_at(fd, "root/a/b/c"), "mkpath of what exists: its fd");
	if (fd >= 0)
		close(fd);

	fd = mkpath(rootfd, "etc/passwd", BRIG_MKPATH_DIR, &e, msg, sizeof(msg));
	ok(is_at(fd, "root/etc/passwd"), "an existing file asked for as DIR: its fd, no error");
	is_int(mode_of("root/etc/passwd"), S_IFREG | 0644, "... and it is left a file");
	if (fd >= 0)
		close(fd);
	fd = mkpath(rootfd, "a/b", BRIG_MKPATH_FILE, &e, msg, sizeof(msg));
	ok(is_at(fd, "root/a/b"), "an existing directory asked for as FILE: its fd");
	is_int(mode_of("root/a/b"), S_IFDIR | 0755, "... and it is left a directory");
	if (fd >= 0)
		close(fd);

	fd = mkpath(rootfd, "/", BRIG_MKPATH_DIR, &e, msg, sizeof(msg));
	ok(is_at(fd, "root"), "mkpath /: the root itself");
	if (fd >= 0)
		close(fd);

	fd = mkpath(rootfd, "//dots/./more//./end/", BRIG_MKPATH_DIR, &e, msg, sizeof(msg));
	ok(is_at(fd, "root/dots/more/end"), "'//', '/./' and a trailing '/': %s",
	   fd >= 0 ? "dots/more/end" : msg);
	if (fd >= 0)
		close(fd);

	fd = mkpath(rootfd, "dd/../../../ee", BRIG_MKPATH_DIR, &e, msg, sizeof(msg));
	ok(is_at(fd, "root/ee"), "'..' above the root while creating: root/ee (%s)",
	   fd >= 0 ? "an fd" : msg);
	ok(exists("root/dd") && !exists("ee"), "... made inside, nothing beside the root");
	if (fd >= 0)
		close(fd);

	/* through an existing symlink to a directory: created where it leads */
	make_link("/deep/dir", "root/todeep");
	fd = mkpath(rootfd, "todeep/new", BRIG_MKPATH_DIR, &e, msg, sizeof(msg));
	ok(is_at(fd, "root/deep/dir/new"),
	   "through a symlink to a directory: created at its target");
	if (fd >= 0)
		close(fd);
}

static void test_mkpath_errors(void)
{
	char msg[512];
	int fd, e;

	fd = mkpath(rootfd, "etc/passwd/sub", BRIG_MKPATH_DIR, &e, msg, sizeof(msg));
	is_int(fd, -1, "mkpath through a file fails");
	is_int(e, ENOTDIR, "... ENOTDIR");
	is_str(msg, "resolve \"etc/passwd/sub\" in the rootfs: Not a directory",
	       "... naming the path as asked");

	fd = mkpath(rootfd, "loop1/sub", BRIG_MKPATH_DIR, &e, msg, sizeof(msg));
	ok(fd < 0 && e == ELOOP, "mkpath through a symlink loop: ELOOP");
	fd = mkpath(rootfd, "self", BRIG_MKPATH_FILE, &e, msg, sizeof(msg));
	ok(fd < 0 && e == ELOOP, "mkpath of a self-link: ELOOP");
	is_int(mode_of("root/self"), S_IFLNK | 0777, "... the link left as it was");

	/* a link to a file on the way, then a missing name */
	make_link("/etc/passwd", "root/tofile");
	fd = mkpath(rootfd, "tofile/sub", BRIG_MKPATH_DIR, &e, msg, sizeof(msg));
	ok(fd < 0 && e == ENOTDIR, "through a symlink to a file: ENOTDIR");
}

static void test_mkpath_dangling(void)
{
	_cleanup_free_ char *abs_out = tpath("outside/made-abs");
	_cleanup_free_ char *in_root = NULL;
	char msg[512];
	int fd, e;

	/* a dangling absolute symlink to a path outside: made inside */
	make_link(abs_out, "root/dangle-abs");
	fd = mkpath(rootfd, "dangle-abs/sub", BRIG_MKPATH_DIR, &e, msg, sizeof(msg));
	in_root = brig_xasprintf("root%s/sub", abs_out);
	ok(is_at(fd, in_root), "a dangling absolute link out: made at root/<its target> (%s)",
	   fd >= 0 ? "an fd" : msg);
	ok(!exists("outside/made-abs"), "... nothing made outside the root");
	if (fd >= 0)
		close(fd);

	/* relative, climbing out through '..', as the last component */
	make_dir("root/sub");
	make_link("../../outside/made-rel", "root/sub/dangle-rel");
	fd = mkpath(rootfd, "sub/dangle-rel", BRIG_MKPATH_FILE, &e, msg, sizeof(msg));
	ok(is_at(fd, "root/outside/made-rel"),
	   "a dangling relative link climbing out: root/outside/made-rel (%s)",
	   fd >= 0 ? "an fd" : msg);
	is_int(mode_of("root/outside/made-rel"), S_IFREG | 0644, "... a file, as asked");
	ok(!exists("outside/made-rel"), "... nothing made outside the root");
	is_int(mode_of("root/sub/dangle-rel"), S_IFLNK | 0777, "... the link itself left alone");
	if (fd >= 0)
		close(fd);

	/* a relative target is read from the link's own directory, reached
	 * through a symlink: '..' there is the real parent (deep/), as the
	 * kernel would take it */
	make_link("../made-deep", "root/deep/dir/rel");
	fd = mkpath(rootfd, "todeep/rel/x", BRIG_MKPATH_DIR, &e, msg, sizeof(msg));
	ok(is_at(fd, "root/deep/made-deep/x"),
	   "a relative dangling link in a directory reached by a link: from its own directory (%s)",
	   fd >= 0 ? "an fd" : msg);
	if (fd >= 0)
		close(fd);

	/* a chain of dangling links, the last absolute */
	make_link("chain2", "root/chain1");
	make_link("/chain/end", "root/chain2");
	fd = mkpath(rootfd, "chain1", BRIG_MKPATH_DIR, &e, msg, sizeof(msg));
	ok(is_at(fd, "root/chain/end"), "a chain of dangling links: its end made (%s)",
	   fd >= 0 ? "an fd" : msg);
	is_int(mode_of("root/chain/end"), S_IFDIR | 0755, "... a directory, as asked");
	if (fd >= 0)
		close(fd);
}

static void test_mkpath_long(void)
{
	char *deep = brig_xmalloc(4200), *name = brig_xmalloc(300);
	char msg[512];
	size_t n = 0;
	int fd, e;

	/* 150 levels, 450 bytes: every prefix resolved afresh */
	for (int i = 0; i < 150; i++)
		n += (size_t)snprintf(deep + n, 4200 - n, "%sd%d", i ? "/" : "", i % 10);
	fd = mkpath(rootfd, deep, BRIG_MKPATH_FILE, &e, msg, sizeof(msg));
	ok(fd >= 0, "150 levels deep: made (%s)", fd >= 0 ? "an fd" : msg);
	if (fd >= 0) {
		struct stat st;

		ok(fstat(fd, &st) == 0 && S_ISREG(st.st_mode), "... the last a file");
		close(fd);
	}

	/* past PATH_MAX: the kernel's ENAMETOOLONG, no partial tree */
	n = 0;
	while (n < 4150)
		n += (size_t)snprintf(deep + n, 4200 - n, "long/");
	fd = mkpath(rootfd, deep, BRIG_MKPATH_DIR, &e, msg, sizeof(msg));
	ok(fd < 0 && e == ENAMETOOLONG, "a path past PATH_MAX: ENAMETOOLONG");
	ok(!exists("root/long"), "... nothing made");

	memset(name, 'n', 256);
	name[256] = '\0';
	fd = mkpath(rootfd, name, BRIG_MKPATH_DIR, &e, msg, sizeof(msg));
	ok(fd < 0 && e == ENAMETOOLONG, "a name of 256 bytes: ENAMETOOLONG");
	name[255] = '\0';
	fd = mkpath(rootfd, name, BRIG_MKPATH_DIR, &e, msg, sizeof(msg));
	ok(fd >= 0, "a name of 255 bytes: made");
	if (fd >= 0)
		close(fd);
	free(deep);
	free(name);
}

/* ---------------------------------------------------------------- mount ids */

static void test_mnt_id(void)
{
	_cleanup_close_ int proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	uint64_t id = brig_mnt_id(rootfd), pid = brig_mnt_id(proc);
	uint64_t ids[3] = { 1, id, 2 };

	ok(id != 0, "the scratch tree's mount id is known");
	is_int((long long)id, (long long)fdinfo_mnt_id(rootfd), "... the one fdinfo gives");
	ok(pid != 0 && pid != id, "/proc is another mount, another id");
	is_int((long long)brig_mnt_id(-1), 0, "a bad fd: 0 (unknown)");

	ok(brig_mnt_id_in(rootfd, ids, 3), "in a list that has it");
	ok(!brig_mnt_id_in(rootfd, ids, 1), "not in one that does not (n counts)");
	ok(!brig_mnt_id_in(rootfd, ids, 0), "never in an empty list");
	ids[0] = 0;
	ok(!brig_mnt_id_in(-1, ids, 3), "unknown (0) is never in a list, even one holding 0");
}

static void test_mkpath_on_mounts_same(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	uint64_t own = brig_mnt_id(rootfd);
	int fd;

	fd = brig_mkpath_on_mounts(rootfd, "om/new", BRIG_MKPATH_DIR, &own, 1, &err);
	ok(is_at(fd, "root/om/new"), "on_mounts, the root's mount allowed: made");
	if (fd >= 0)
		close(fd);

	fd = brig_mkpath_on_mounts(rootfd, "om/other", BRIG_MKPATH_DIR, NULL, 0, &err);
	is_int(fd, -1, "no mount allowed: a missing name is refused");
	is_int(err.errnum, EXDEV, "... EXDEV");
	is_str(err.msg,
	       "create \"om/other\" in the rootfs: a part of it is on a mount it may not be "
	       "created on: Invalid cross-device link",
	       "... naming the path");
	ok(!exists("root/om/other"), "... and not made");
	brig_error_release(&err);

	fd = brig_mkpath_on_mounts(rootfd, "om/new", BRIG_MKPATH_DIR, NULL, 0, &err);
	ok(is_at(fd, "root/om/new"), "no mount allowed: what exists still resolves");
	if (fd >= 0)
		close(fd);
	brig_error_release(&err);
}

/*
 * A volume: a tmpfs on root/vol, mounted in a child's own user and mount
 * namespaces (nothing shows outside it).  The child returns a bit per
 * failed check, 77 when it cannot get the namespaces.
 */
enum {
	VOL_DIRECT = 1 << 0,
	VOL_VIA_LINK = 1 << 1,
	VOL_DANGLING = 1 << 2,
	VOL_EXISTING = 1 << 3,
	VOL_OWN = 1 << 4,
	VOL_ALLOWED = 1 << 5,
	VOL_IDS = 1 << 6,
};

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int child_volume(void)
{
	_cleanup_free_ char *root = tpath("root"), *vol = tpath("root/vol");
	_cleanup_free_ char *map_uid = brig_xasprintf("0 %d 1", (int)getuid());
	_cleanup_free_ char *map_gid = brig_xasprintf("0 %d 1", (int)getgid());
	struct brig_error err = BRIG_ERROR_INIT;
	uint64_t ids[2];
	int fd, volfd, fail = 0;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0 ||
	    write_file("/proc/self/setgroups", "deny") < 0 ||
	    write_file("/proc/self/uid_map", map_uid) < 0 ||
	    write_file("/proc/self/gid_map", map_gid) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", vol, "tmpfs", 0, "mode=0755") < 0)
		return 77;
	/* the root opened again: an fd opened before unshare() is on the old
	 * namespace's mounts, and lookups from it never cross the tmpfs */
	close(rootfd);
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	volfd = open(vol, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || volfd < 0 || mkdirat(volfd, "exists", 0755) < 0)
		return 99;
	ids[0] = brig_mnt_id(rootfd);
	ids[1] = brig_mnt_id(volfd);
	if (!ids[0] || !ids[1] || ids[0] == ids[1])
		fail |= VOL_IDS;

	fd = brig_mkpath_on_mounts(rootfd, "vol/new", BRIG_MKPATH_DIR, ids, 1, &err);
	if (fd >= 0 || err.errnum != EXDEV || faccessat(volfd, "new", F_OK, 0) == 0)
		fail |= VOL_DIRECT;
	brig_error_release(&err);

	fd = brig_mkpath_on_mounts(rootfd, "tovol/new", BRIG_MKPATH_DIR, ids, 1, &err);
	if (fd >= 0 || err.errnum != EXDEV || faccessat(volfd, "new", F_OK, 0) == 0)
		fail |= VOL_VIA_LINK;
	brig_error_release(&err);

	fd = brig_mkpath_on_mounts(rootfd, "tovol-dangling", BRIG_MKPATH_FILE, ids, 1, &err);
	if (fd >= 0 || err.errnum != EXDEV || faccessat(volfd, "deep", F_OK, 0) == 0)
		fail |= VOL_DANGLING;
	brig_error_release(&err);

	fd = brig_mkpath_on_mounts(rootfd, "tovol/exists", BRIG_MKPATH_DIR, ids, 1, &err);
	if (fd < 0 || brig_mnt_id(fd) != ids[1] || brig_mnt_id_in(fd, ids, 1))
		fail |= VOL_EXISTING;
	if (fd >= 0)
		close(fd);
	brig_error_release(&err);

	fd = brig_mkpath_on_mounts(rootfd, "vol-side/new", BRIG_MKPATH_DIR, ids, 1, &err);
	if (fd < 0 || brig_mnt_id(fd) != ids[0])
		fail |= VOL_OWN;
	if (fd >= 0)
		close(fd);
	brig_error_release(&err);

	fd = brig_mkpath_on_mounts(rootfd, "tovol/new/er", BRIG_MKPATH_DIR, ids, 2, &err);
	if (fd < 0 || brig_mnt_id(fd) != ids[1] || faccessat(volfd, "new/er", F_OK, 0) < 0)
		fail |= VOL_ALLOWED;
	if (fd >= 0)
		close(fd);
	brig_error_release(&err);
	return fail;
}

static void test_mkpath_on_mounts_volume(void)
{
	int r;

	make_dir("root/vol");
	make_link("/vol", "root/tovol");
	make_link("/vol/deep/file", "root/tovol-dangling");
	r = in_child(child_volume, 100);
	if (r == 77) {
		diag("skip: no user and mount namespaces for a tmpfs volume here");
		return;
	}
	ok(r != 99 && r != 100, "the child ran (%d)", r);
	if (r == 99 || r == 100)
		return;
	ok(!(r & VOL_IDS), "the volume is another mount, with its own id");
	ok(!(r & VOL_DIRECT), "vol/new, the volume not allowed: EXDEV, not made");
	ok(!(r & VOL_VIA_LINK), "tovol/new (an image's link into the volume): EXDEV, not made");
	ok(!(r & VOL_DANGLING), "a dangling link into the volume: EXDEV, not made");
	ok(!(r & VOL_EXISTING), "what exists on the volume resolves, on the volume's mount");
	ok(!(r & VOL_OWN), "beside the volume, on the root's mount: made");
	ok(!(r & VOL_ALLOWED), "the volume allowed too: made on it");
	ok(!exists("root/vol/new"), "the tmpfs stayed in the child's mount namespace");
}

int main(void)
{
	char tmpl[] = "/tmp/brig-test-resolve.XXXXXX";

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* the modes asked for, unmasked */
	umask(0);
	if (!mkdtemp(tmpl))
		bail("mkdtemp");
	snprintf(tmpdir, sizeof(tmpdir), "%s", tmpl);
	make_tree();

	test_open_in_root();
	test_magic_links();
	test_mkpath_create();
	test_mkpath_errors();
	test_mkpath_dangling();
	test_mkpath_long();
	test_mnt_id();
	test_mkpath_on_mounts_same();
	test_mkpath_on_mounts_volume();

	close(rootfd);
	{
		_cleanup_free_ char *cmd = brig_xasprintf("rm -rf '%s'", tmpdir);

		if (system(cmd) != 0)
			diag("could not remove the temporary tree");
	}
	return tap_done();
}
