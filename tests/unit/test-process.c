/* SPDX-License-Identifier: Apache-2.0 */
/*
 * process.* (runtime/linux/process.c, caps.c): name resolution, plan
 * building, sysctl keys, the exec lookup against a temporary tree, the fd
 * sweep, and the apply steps an unprivileged process may take (each in a
 * forked child, so this process keeps its own settings).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/caps.h"
#include "linux/process.h"
#include "spec/spec.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/error.h"

/* ---------------------------------------------------------------- helpers */

/* Run @fn in a child; its exit status (0 = all its checks held). */
static int in_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void write_file(const char *path, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd < 0 || write(fd, "#!/bin/sh\n", 10) != 10) {
		perror(path);
		exit(99);
	}
	close(fd);
	chmod(path, mode);
}

static char tmpdir[PATH_MAX];

static char *tpath(const char *rel)
{
	return brig_xasprintf("%s/%s", tmpdir, rel);
}

/* ---------------------------------------------------------------- names */

static void test_cap_names(void)
{
	char buf[64];

	if (!brig_caps_supported()) {
		ok(brig_cap_from_name("CAP_CHOWN") < 0, "without libcap no name resolves");
		return;
	}
	is_int(brig_cap_from_name("CAP_CHOWN"), 0, "CAP_CHOWN is 0");
	is_int(brig_cap_from_name("CAP_SYS_ADMIN"), 21, "CAP_SYS_ADMIN is 21");
	is_int(brig_cap_from_name("CAP_NET_BIND_SERVICE"), 10, "CAP_NET_BIND_SERVICE is 10");
	is_int(brig_cap_from_name("CAP_CHECKPOINT_RESTORE"), 40, "CAP_CHECKPOINT_RESTORE is 40");
	is_int(brig_cap_from_name("cap_chown"), -1, "lowercase is not a name (runc)");
	is_int(brig_cap_from_name("CHOWN"), -1, "the CAP_ prefix is required");
	is_int(brig_cap_from_name("12"), -1, "a number is not a name");
	is_int(brig_cap_from_name("CAP_CHOWN "), -1, "trailing blanks are not ignored");
	is_int(brig_cap_from_name("CAP_BOGUS"), -1, "an unknown name");
	is_int(brig_cap_from_name(""), -1, "the empty name");
	is_str(brig_cap_name(0, buf, sizeof(buf)), "CAP_CHOWN", "number -> name");
	is_str(brig_cap_name(21, buf, sizeof(buf)), "CAP_SYS_ADMIN", "number -> name, 21");
	is_str(brig_cap_name(63, buf, sizeof(buf)), "CAP_63", "an unnamed capability");
}

static void test_cap_last(void)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int want = -1;

	ok(brig_cap_last() >= 36, "the kernel knows at least CAP_AUDIT_READ (%d)", brig_cap_last());
	if (f && fscanf(f, "%d", &want) == 1)
		is_int(brig_cap_last(), want,
		       "the probe agrees with /proc/sys/kernel/cap_last_cap");
}

/* ---------------------------------------------------------------- plans */

static void test_plan_empty(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_process p = { 0 };
	struct brig_process_plan plan;

	ok(brig_process_prepare(&p, NULL, &plan, &err) == 0, "an empty process prepares");
	/* never "leave them as they are": that was every capability brig had */
	ok(!plan.caps.bounding && !plan.caps.effective && !plan.caps.permitted &&
	       !plan.caps.inheritable && !plan.caps.ambient,
	   "no capabilities: every set is empty");
	is_int(plan.sched_policy, -1, "no scheduler");
	is_int(plan.ioprio, -1, "no I/O priority");
	is_int(plan.personality, -1, "no personality");
	ok(!plan.cpus_initial && !plan.cpus_final, "no CPU affinity");
	brig_process_plan_release(&plan);
}

static void test_plan_caps(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	const char *bounding[] = { "CAP_CHOWN", "CAP_KILL", "CAP_BOGUS", "CAP_NET_RAW" };
	const char *effective[] = { "CAP_KILL", "cap_net_raw" };
	const char *ambient[] = { "CAP_NET_BIND_SERVICE", "CAP_BOGUS", "CAP_ALSO_BOGUS" };
	struct brig_capabilities caps = {
		.bounding = bounding,
		.n_bounding = 4,
		.effective = effective,
		.n_effective = 2,
		.permitted = bounding,
		.n_permitted = 4,
		.ambient = ambient,
		.n_ambient = 3,
	};
	struct brig_process p = { .capabilities = &caps };
	struct brig_process_plan plan;
	int r;

	r = brig_process_prepare(&p, NULL, &plan, &err);
	if (!brig_caps_supported()) {
		ok(r < 0, "without libcap, capabilities are refused");
		ok(err.msg && strstr(err.msg, "without libcap"), "and the error says why: %s",
		   err.msg);
		brig_error_release(&err);
		return;
	}
	ok(r == 0, "unknown capability names are not an error");
	is_int((long long)plan.caps.bounding, (1 << 0) | (1 << 5) | (1 << 13),
	       "bounding: CHOWN KILL NET_RAW, BOGUS skipped");
	is_int((long long)plan.caps.permitted, (long long)plan.caps.bounding, "permitted likewise");
	is_int((long long)plan.caps.effective, 1 << 5, "effective: KILL; lowercase skipped");
	is_int((long long)plan.caps.inheritable, 0, "inheritable: empty list");
	is_int((long long)plan.caps.ambient, 1 << 10, "ambient: NET_BIND_SERVICE");
	brig_process_plan_release(&plan);
}

static void test_plan_sched(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	const char *flags[] = { "SCHED_FLAG_RESET_ON_FORK", "SCHED_FLAG_KEEP_POLICY" };
	struct brig_scheduler s = {
		.policy = "SCHED_FIFO", .priority = 10, .flags = flags, .n_flags = 2
	};
	struct brig_process p = { .scheduler = &s };
	struct brig_process_plan plan;

	ok(brig_process_prepare(&p, NULL, &plan, &err) == 0, "SCHED_FIFO with a priority");
	is_int(plan.sched_policy, 1, "SCHED_FIFO is 1");
	is_int((long long)plan.sched_flags, 0x09, "RESET_ON_FORK | KEEP_POLICY");
	brig_process_plan_release(&plan);

	s = (struct brig_scheduler){ .policy = "SCHED_DEADLINE",
		                     .runtime = 10000000,
		                     .deadline = 20000000,
		                     .period = 30000000 };
	ok(brig_process_prepare(&p, NULL, &plan, &err) == 0, "SCHED_DEADLINE with its times");
	is_int(plan.sched_policy, 6, "SCHED_DEADLINE is 6");

	s = (struct brig_scheduler){ .policy = "SCHED_OTHER", .priority = 3 };
	ok(brig_process_prepare(&p, NULL, &plan, &err) < 0, "a priority with SCHED_OTHER");
	is_str(err.msg,
	       "scheduler.priority can only be specified for SCHED_FIFO or SCHED_RR policy",
	       "runc's wording");
	s = (struct brig_scheduler){ .policy = "SCHED_BATCH", .runtime = 1 };
	ok(brig_process_prepare(&p, NULL, &plan, &err) < 0, "a runtime without SCHED_DEADLINE");
	s = (struct brig_scheduler){ .policy = "SCHED_OTHER", .nice = 20 };
	ok(brig_process_prepare(&p, NULL, &plan, &err) < 0, "nice 20");
	is_str(err.msg, "invalid scheduler.nice: 20", "names the value");
	s = (struct brig_scheduler){ .policy = "SCHED_WHATEVER" };
	ok(brig_process_prepare(&p, NULL, &plan, &err) < 0, "an unknown policy");
	is_str(err.msg, "unknown scheduler policy \"SCHED_WHATEVER\"", "quotes it");
	flags[1] = "SCHED_FLAG_NOPE";
	s = (struct brig_scheduler){ .policy = "SCHED_OTHER", .flags = flags, .n_flags = 2 };
	ok(brig_process_prepare(&p, NULL, &plan, &err) < 0, "an unknown flag");
	is_str(err.msg, "unknown scheduler flag \"SCHED_FLAG_NOPE\"", "quotes it");
	brig_error_release(&err);
}

static void test_plan_misc(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_io_priority io = { .class_ = "IOPRIO_CLASS_BE", .priority = 4 };
	struct brig_cpu_affinity aff = { .initial = "0-3,7", .final = "1" };
	struct brig_process p = { .io_priority = &io, .exec_cpu_affinity = &aff };
	struct brig_process_plan plan;

	ok(brig_process_prepare(&p, "LINUX32", &plan, &err) == 0, "ioprio, personality, cpus");
	is_int(plan.ioprio, (2 << 13) | 4, "IOPRIO_CLASS_BE/4");
	is_int(plan.personality, PER_LINUX32, "LINUX32");
	is_str(plan.cpus_initial, "0-3,7", "initial CPUs copied");
	is_str(plan.cpus_final, "1", "final CPUs copied");
	ok(plan.cpus_initial != aff.initial, "as a copy of its own");
	brig_process_plan_release(&plan);

	io.class_ = "IOPRIO_CLASS_IDLE";
	io.priority = 0;
	p.exec_cpu_affinity = NULL;
	ok(brig_process_prepare(&p, "LINUX", &plan, &err) == 0, "idle class, LINUX");
	is_int(plan.ioprio, 3 << 13, "IOPRIO_CLASS_IDLE/0");
	is_int(plan.personality, PER_LINUX, "LINUX");

	ok(brig_process_prepare(&p, "PDP11", &plan, &err) < 0, "an unknown personality");
	is_str(err.msg, "unknown personality domain \"PDP11\"", "quotes it");
	io.class_ = "IOPRIO_CLASS_NONE";
	ok(brig_process_prepare(&p, NULL, &plan, &err) < 0, "an unknown I/O class");
	io.class_ = "IOPRIO_CLASS_RT";
	io.priority = 8;
	ok(brig_process_prepare(&p, NULL, &plan, &err) < 0, "I/O priority 8");

	p.io_priority = NULL;
	p.exec_cpu_affinity = &aff;
	{
		const char *bad[] = { "0-", "3-1", "a", "", ",1", "1,,2", "1-2-3", "99999999" };

		for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
			aff.initial = bad[i];
			ok(brig_process_prepare(&p, NULL, &plan, &err) < 0,
			   "CPU list \"%s\" refused", bad[i]);
		}
		aff.initial = "0-";
		brig_process_prepare(&p, NULL, &plan, &err);
		is_str(err.msg, "execCPUAffinity: invalid CPU list \"0-\"", "the error");
		aff.initial = " 0 - 1 , 3";
		ok(brig_process_prepare(&p, NULL, &plan, &err) == 0, "blanks around numbers");
		brig_process_plan_release(&plan);
	}
	brig_error_release(&err);
}

/* ---------------------------------------------------------------- sysctl */

static void test_sysctl_keys(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	const char *bad[] = { "",
		              ".",
		              "..",
		              ".net",
		              "net.",
		              "net..ipv4",
		              "net/ipv4/ip_forward",
		              "net.ipv4/../../x",
		              "../etc" };
	char *s;

	s = brig_sysctl_path("net.ipv4.ip_forward", &err);
	is_str(s, "sys/net/ipv4/ip_forward", "dots become slashes");
	free(s);
	s = brig_sysctl_path("kernel.shm_rmid_forced", &err);
	is_str(s, "sys/kernel/shm_rmid_forced", "underscores stay");
	free(s);
	s = brig_sysctl_path("fs.mqueue.msg_max", &err);
	is_str(s, "sys/fs/mqueue/msg_max", "three components");
	free(s);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		s = brig_sysctl_path(bad[i], &err);
		ok(!s, "key \"%s\" refused", bad[i]);
		free(s);
	}
	brig_sysctl_path("net..x", &err);
	is_str(err.msg, "invalid sysctl key \"net..x\"", "the error quotes the key");
	brig_error_release(&err);
}

/* ---------------------------------------------------------------- exec lookup */

static char *lookup(const char *arg0, const char *path_env, struct brig_error *err)
{
	const char *args[] = { arg0, NULL };
	const char *env[] = { "A=1", path_env, NULL };
	struct brig_process p = {
		.args = args, .n_args = 1, .env = env, .n_env = path_env ? 2 : 1
	};

	return brig_exec_lookup(&p, err);
}

static void test_exec_lookup(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	_cleanup_free_ char *bin1 = tpath("bin1"), *bin2 = tpath("bin2");
	_cleanup_free_ char *p12 = brig_xasprintf("PATH=%s:%s", bin1, bin2);
	_cleanup_free_ char *p21 = brig_xasprintf("PATH=%s/:%s", bin2, bin1);
	_cleanup_free_ char *plain = tpath("bin2/plain"), *dir = tpath("bin1/both");
	_cleanup_free_ char *missing = tpath("bin1/missing");
	_cleanup_free_ char *notdir = tpath("bin2/plain/x");
	char *want = NULL, *got = NULL;

	mkdir(bin1, 0755);
	mkdir(bin2, 0755);
	mkdir(dir, 0755); /* bin1/both: a directory */
	{
		_cleanup_free_ char *a = tpath("bin1/prog"), *b = tpath("bin2/prog"),
		                    *c = tpath("bin2/both"), *q = tpath("bin2/q\"uote");

		write_file(a, 0755);
		write_file(b, 0755);
		write_file(c, 0755);
		write_file(q, 0755);
		write_file(plain, 0644);
	}

	got = lookup("prog", p12, &err);
	want = brig_xasprintf("%s/prog", bin1);
	is_str(got, want, "the first PATH element wins");
	free(got);
	free(want);
	got = lookup("prog", p21, &err);
	want = brig_xasprintf("%s/prog", bin2);
	is_str(got, want, "in PATH order; a trailing slash is dropped");
	free(got);
	free(want);
	got = lookup("both", p12, &err);
	want = brig_xasprintf("%s/both", bin2);
	is_str(got, want, "a directory on the way is skipped");
	free(got);
	free(want);

	got = lookup("plain", p12, &err);
	ok(!got, "a file without x bits is not found");
	is_str(err.msg, "exec: \"plain\": executable file not found in $PATH", "Go's wording");
	is_int(err.errnum, ENOENT, "errnum ENOENT");
	got = lookup("nosuch", p12, &err);
	is_str(err.msg, "exec: \"nosuch\": executable file not found in $PATH", "a missing name");
	got = lookup("prog", "PATH=", &err);
	ok(!got, "an empty PATH finds nothing");

	got = lookup(plain, p12, &err);
	want = brig_xasprintf("exec: \"%s\": permission denied", plain);
	is_str(err.msg, want, "a path without x bits: permission denied");
	is_int(err.errnum, EACCES, "errnum EACCES");
	free(want);
	got = lookup(dir, p12, &err);
	want = brig_xasprintf("exec: \"%s\": is a directory", dir);
	is_str(err.msg, want, "a directory: is a directory");
	free(want);
	got = lookup(missing, p12, &err);
	want = brig_xasprintf("exec: \"%s\": stat %s: no such file or directory", missing, missing);
	is_str(err.msg, want, "a missing path: stat's error");
	is_int(err.errnum, ENOENT, "errnum ENOENT");
	free(want);
	got = lookup(notdir, p12, &err);
	want = brig_xasprintf("exec: \"%s\": stat %s: not a directory", notdir, notdir);
	is_str(err.msg, want, "through a file: not a directory");
	free(want);
	want = brig_xasprintf("%s/prog", bin1);
	got = lookup(want, NULL, &err);
	is_str(got, want, "an absolute path is taken as is");
	free(got);
	free(want);

	got = lookup("q\"uote", p21, &err);
	ok(got != NULL, "a name with a quote is found");
	free(got);
	got = lookup("no\"such", p21, &err);
	is_str(err.msg, "exec: \"no\\\"such\": executable file not found in $PATH",
	       "and quoted as Go does");

	/* relative PATH elements: Go refuses what they find */
	{
		_cleanup_free_ char *rel = brig_xasprintf("PATH=/nonexistent:");
		char cwd[PATH_MAX];

		if (!getcwd(cwd, sizeof(cwd)) || chdir(bin1) < 0)
			exit(99);
		got = lookup("prog", rel, &err);
		ok(!got, "found through an empty PATH element");
		is_str(err.msg,
		       "exec: \"prog\": cannot run executable found relative to current directory",
		       "is refused as Go >= 1.19 does");
		got = lookup("./prog", p12, &err);
		is_str(got, "./prog", "a relative name with a slash is taken as is");
		free(got);
		if (chdir(cwd) < 0)
			exit(99);
	}

	/* no PATH: nothing is searched, as runc and crun search nothing */
	got = lookup("sh", NULL, &err);
	ok(!got, "no PATH in env: sh is not found");
	is_str(err.msg, "exec: \"sh\": executable file not found in $PATH", "in runc's words");
	free(got);
	got = NULL;
	brig_error_release(&err);
}

/* ---------------------------------------------------------------- env */

/* HOME from this machine's /etc/passwd: the unit test runs unchrooted. */
static void test_exec_env(void)
{
	const char *env[] = { "PATH=/bin", "HOME=/mine", "X=1" };
	struct brig_process p = { .env = env, .n_env = 3 };
	char **e;

	e = brig_exec_env(&p, NULL);
	ok(e[0] == env[0] && e[1] == env[1] && e[2] == env[2] && !e[3],
	   "HOME given: process.env as is");
	free(e);
	p.n_env = 1;
	p.user.uid = 0;
	e = brig_exec_env(&p, NULL);
	is_str(e[0], "PATH=/bin", "process.env first");
	is_str(e[1], "HOME=/root", "then HOME of uid 0 from /etc/passwd");
	ok(!e[2], "NULL-terminated");
	free(e);
	p.user.uid = 3999999999u;
	e = brig_exec_env(&p, NULL);
	is_str(e[1], "HOME=/", "a uid without an entry: HOME=/");
	free(e);
	p.n_env = 0;
	e = brig_exec_env(&p, NULL);
	is_str(e[0], "HOME=/", "an empty process.env");
	ok(!e[1], "NULL-terminated");
	free(e);
	{
		const char *dup[] = { "A=1", "PATH=/bin", "A=2", "HOME=/h", "B=", "A=3" };
		struct brig_process q = { .env = dup, .n_env = 6 };

		e = brig_exec_env(&q, NULL);
		is_str(e[0], "A=3", "a repeated name keeps its first place and its last value");
		is_str(e[1], "PATH=/bin", "the others keep their order");
		is_str(e[2], "HOME=/h", "HOME as given");
		is_str(e[3], "B=", "an empty value is a value");
		ok(!e[4], "each name once");
		free(e);
		e = brig_exec_env(&q, "LISTEN_FDS=2");
		is_str(e[4], "LISTEN_FDS=2", "socket activation is announced");
		is_str(e[5], "LISTEN_PID=1", "to the container's pid 1");
		ok(!e[6], "NULL-terminated");
		free(e);
	}
}

/* A container's /etc/passwd, read after a chroot into a user namespace. */
static int child_exec_env_chroot(void *arg)
{
	const char *root = arg;
	struct brig_process p = { .user = { .uid = 1000 } };
	int fail = 0;
	char **e;

	if (unshare(CLONE_NEWUSER) < 0)
		return 77;
	if (chroot(root) < 0 || chdir("/etc") < 0)
		return 90;
	e = brig_exec_env(&p, NULL);
	fail |= strcmp(e[0], "HOME=/home/alice") != 0;
	free(e);
	p.user.uid = 1001;
	e = brig_exec_env(&p, NULL);
	fail |= (strcmp(e[0], "HOME=") != 0) << 1;
	free(e);
	p.user.uid = 1002;
	e = brig_exec_env(&p, NULL);
	fail |= (strcmp(e[0], "HOME=/") != 0) << 2;
	free(e);
	return fail;
}

static void test_exec_env_container(void)
{
	_cleanup_free_ char *root = tpath("root"), *etc = tpath("root/etc");
	_cleanup_free_ char *passwd = tpath("root/etc/passwd");
	static const char text[] = "# comment\n"
	                           "\n"
	                           "short:x:1000\n"
	                           "alice:x:1000:1000::/home/alice:/bin/sh\n"
	                           "bob:x:1000:1000::/home/bob:/bin/sh\n"
	                           "nohome:x:1001:1001:::/bin/sh";
	int fd, r;

	mkdir(root, 0755);
	mkdir(etc, 0755);
	fd = open(passwd, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, sizeof(text) - 1) != (ssize_t)sizeof(text) - 1)
		exit(99);
	close(fd);
	r = in_child(child_exec_env_chroot, root);
	if (r == 77)
		diag("skip: no unprivileged user namespaces");
	else
		is_int(r, 0, "the container's passwd: first entry of the uid, empty home, none");
}

/* ---------------------------------------------------------------- fds */

static int child_fds(void *arg)
{
	struct brig_error err = BRIG_ERROR_INIT;
	int fail = 0;

	(void)arg;
	for (int fd = 3; fd < 64; fd++)
		close(fd);
	/* 3: a listen fd, 4: a --preserve-fds one, 5 and 9: brig's own */
	for (int fd = 3; fd <= 5; fd++)
		if (open("/dev/null", O_RDONLY | O_CLOEXEC) != fd)
			return 90;
	if (dup3(5, 9, O_CLOEXEC) != 9)
		return 91;
	fcntl(5, F_SETFD, 0); /* not close-on-exec: closed all the same */
	setenv("LISTEN_FDS", "1", 1);
	setenv("LISTEN_PID", "12345", 1);
	if (brig_fds_prepare(1, NULL, 0, &err) < 0)
		return 92;
	fail |= (fcntl(3, F_GETFD) != 0) << 0;
	fail |= (fcntl(4, F_GETFD) != 0) << 1;
	fail |= (fcntl(5, F_GETFD) != -1) << 2;
	fail |= (fcntl(9, F_GETFD) != -1) << 3;
	fail |= (fcntl(0, F_GETFD) < 0) << 4;
	return fail;
}

/* 3 kept; 5, 6, 8 and 9 brig's, 6 and 9 spared (close-on-exec) */
static int child_fds_spare(void *arg)
{
	struct brig_error err = BRIG_ERROR_INIT;
	int fail = 0;

	(void)arg;
	for (int fd = 3; fd < 64; fd++)
		close(fd);
	unsetenv("LISTEN_FDS");
	if (open("/dev/null", O_RDONLY | O_CLOEXEC) != 3)
		return 90;
	for (int fd = 5; fd <= 9; fd++)
		if (fd != 7 && dup3(3, fd, 0) != fd)
			return 91;
	if (brig_fds_prepare(1, (const int[]){ 9, 6 }, 2, &err) < 0)
		return 92;
	fail |= (fcntl(3, F_GETFD) != 0) << 0;
	fail |= (fcntl(5, F_GETFD) != -1) << 1;
	fail |= (fcntl(6, F_GETFD) != FD_CLOEXEC) << 2;
	fail |= (fcntl(8, F_GETFD) != -1) << 3;
	fail |= (fcntl(9, F_GETFD) != FD_CLOEXEC) << 4;
	fail |= (brig_fds_prepare(1, (const int[]){ 3 }, 1, &err) != -1) << 5;
	brig_error_release(&err);
	return fail;
}

/* 3 and 4 passed by the caller, 5 a hole that brig's own fd fills later */
static int child_fds_check(void *arg)
{
	struct brig_error err = BRIG_ERROR_INIT;
	char pid[16];
	int fail = 0;

	(void)arg;
	for (int fd = 3; fd < 64; fd++)
		close(fd);
	for (int fd = 3; fd <= 4; fd++)
		if (open("/dev/null", O_RDONLY) != fd)
			return 90;
	unsetenv("LISTEN_FDS");
	brig_fds_note_caller();
	if (open("/dev/null", O_RDONLY | O_CLOEXEC) != 5)
		return 91;
	fail |= (brig_fds_check(2, &err) != 0) << 0;
	fail |= (brig_fds_check(3, &err) != -1) << 1;
	fail |= (!err.msg || strcmp(err.msg, "unable to stat preserved-fd 2 (of 3): "
	                                     "Bad file descriptor") != 0)
	        << 2;
	brig_error_release(&err);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("LISTEN_FDS", "1", 1);
	setenv("LISTEN_PID", pid, 1);
	fail |= (brig_listen_fds() != 1) << 3;
	fail |= (brig_fds_check(1, &err) != 0) << 4;
	fail |= (brig_fds_check(2, &err) != -1) << 5;
	brig_error_release(&err);
	setenv("LISTEN_FDS", "3", 1);
	fail |= (brig_fds_check(0, &err) != -1) << 6;
	fail |= (!err.msg || strcmp(err.msg, "unable to stat LISTEN_FDS fd 2 (of 3): "
	                                     "Bad file descriptor") != 0)
	        << 7;
	brig_error_release(&err);
	return fail;
}

static int child_fds_none(void *arg)
{
	struct brig_error err = BRIG_ERROR_INIT;

	(void)arg;
	if (open("/dev/null", O_RDONLY) < 3)
		return 90;
	unsetenv("LISTEN_FDS");
	if (brig_fds_prepare(0, NULL, 0, &err) < 0)
		return 92;
	return fcntl(3, F_GETFD) != -1;
}

/* a netfilter and a route netlink socket, a pipe: only the first stays */
static int child_fds_netlink(void *arg)
{
	int nf = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	int rt = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	int p[2], fail = 0;

	(void)arg;
	if (nf < 3 || rt < 3 || pipe(p) < 0)
		return 90;
	if (brig_fds_keep_netlink(3, NETLINK_NETFILTER) < 0)
		return 91;
	fail |= (fcntl(nf, F_GETFD) == -1) << 0;
	fail |= (fcntl(rt, F_GETFD) != -1) << 1;
	fail |= (fcntl(p[0], F_GETFD) != -1 || fcntl(p[1], F_GETFD) != -1) << 2;
	fail |= (fcntl(0, F_GETFD) == -1) << 3;
	return fail;
}

/* two netfilter sockets among a route one and a pipe: both listed, in
 * fd order, and no more than asked for; nothing closed */
static int child_fds_list_netlink(void *arg)
{
	int rt = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	int nf1 = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	int p[2], nf2, fds[4] = { -1, -1, -1, -1 }, fail = 0;

	(void)arg;
	if (rt < 3 || nf1 < 3 || pipe(p) < 0)
		return 90;
	nf2 = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	if (nf2 < 3)
		return 90;
	fail |= (brig_fds_netlink(NETLINK_NETFILTER, fds, 4) != 2) << 0;
	fail |= (fds[0] != nf1 || fds[1] != nf2) << 1;
	fail |= (brig_fds_netlink(NETLINK_NETFILTER, fds, 1) != 1) << 2;
	fail |= (fcntl(rt, F_GETFD) == -1 || fcntl(p[0], F_GETFD) == -1) << 3;
	return fail;
}

static void test_fds(void)
{
	is_int(in_child(child_fds_list_netlink, NULL), 0,
	       "fds_netlink lists the netlink sockets of one protocol, as many as asked, "
	       "and closes nothing");
	is_int(in_child(child_fds_netlink, NULL), 0,
	       "fds_keep_netlink keeps 0-2 and the netlink sockets of one protocol, closes the "
	       "rest");
	is_int(in_child(child_fds, NULL), 0,
	       "fds_prepare keeps LISTEN_FDS and preserved fds, without close-on-exec, "
	       "closes the rest");
	is_int(in_child(child_fds_none, NULL), 0, "with nothing to keep, 3 and up are closed");
	is_int(in_child(child_fds_spare, NULL), 0,
	       "spared fds stay, close-on-exec; a caller's fd is not brig's to spare");
	is_int(in_child(child_fds_check, NULL), 0,
	       "fds_check refuses a kept fd past the caller's first hole, in runc's words");

	{
		char pid[16];

		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		setenv("LISTEN_FDS", "2", 1);
		setenv("LISTEN_PID", pid, 1);
		is_int(brig_listen_fds(), 2, "LISTEN_FDS for this pid counts");
		ok(getenv("LISTEN_FDS") != NULL, "and stays for the init");
		setenv("LISTEN_PID", "1", 1);
		is_int(brig_listen_fds(), 0, "LISTEN_FDS for another pid does not");
		ok(!getenv("LISTEN_FDS") && !getenv("LISTEN_PID"), "and is unset");
		setenv("LISTEN_FDS", "x", 1);
		setenv("LISTEN_PID", pid, 1);
		is_int(brig_listen_fds(), 0, "a malformed LISTEN_FDS does not");
		unsetenv("LISTEN_FDS");
		unsetenv("LISTEN_PID");
	}
}

/* ---------------------------------------------------------------- apply */

static int child_rlimits(void *arg)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_rlimit rl = { .type = "RLIMIT_NOFILE", .resource = RLIMIT_NOFILE };
	struct brig_process p = { .rlimits = &rl, .n_rlimits = 1 };
	struct rlimit cur;

	(void)arg;
	getrlimit(RLIMIT_NOFILE, &cur);
	rl.soft = 64;
	rl.hard = cur.rlim_max;
	if (brig_apply_rlimits(&p, &err) < 0)
		return 1;
	getrlimit(RLIMIT_NOFILE, &cur);
	if (cur.rlim_cur != 64)
		return 2;
	/* past fs.nr_open is refused even with CAP_SYS_RESOURCE */
	rl.soft = rl.hard = (uint64_t)INT_MAX + 1;
	if (brig_apply_rlimits(&p, &err) == 0)
		return 3;
	if (strcmp(err.msg, "setrlimit \"RLIMIT_NOFILE\": Operation not permitted") != 0) {
		fprintf(stderr, "# %s\n", err.msg);
		return 4;
	}
	brig_error_release(&err);
	return 0;
}

static int child_sched(void *arg)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_scheduler s = { .policy = "SCHED_BATCH", .nice = 7 };
	struct brig_io_priority io = { .class_ = "IOPRIO_CLASS_BE", .priority = 6 };
	struct brig_process p = { .scheduler = &s, .io_priority = &io };
	struct brig_process_plan plan;
	int fail = 0;

	(void)arg;
	if (brig_process_prepare(&p, "LINUX", &plan, &err) < 0)
		return 100;
	if (brig_apply_scheduler(&p, &plan, &err) < 0 || brig_apply_ioprio(&plan, &err) < 0 ||
	    brig_apply_personality(&plan, &err) < 0) {
		fprintf(stderr, "# %s\n", err.msg);
		return 101;
	}
	fail |= (sched_getscheduler(0) != SCHED_BATCH) << 0;
	errno = 0;
	fail |= (getpriority(PRIO_PROCESS, 0) != 7) << 1;
	fail |= (syscall(SYS_ioprio_get, 1, 0) != ((2 << 13) | 6)) << 2;
	fail |= (personality(0xffffffff) != PER_LINUX) << 3;
	return fail;
}

static int child_affinity(void *arg)
{
	struct brig_error err = BRIG_ERROR_INIT;
	cpu_set_t set;

	(void)arg;
	if (brig_apply_cpu_affinity("0", &err) < 0)
		return 1;
	if (sched_getaffinity(0, sizeof(set), &set) < 0 || CPU_COUNT(&set) != 1 ||
	    !CPU_ISSET(0, &set))
		return 2;
	/* a CPU far past any machine's: nothing left to run on */
	if (brig_apply_cpu_affinity("60000", &err) == 0)
		return 3;
	if (strcmp(err.msg, "sched_setaffinity \"60000\": Invalid argument") != 0) {
		fprintf(stderr, "# %s\n", err.msg);
		return 4;
	}
	brig_error_release(&err);
	return brig_apply_cpu_affinity(NULL, &err) == 0 ? 0 : 5;
}

static int child_nnp(void *arg)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_process p = { .no_new_privileges = false };

	(void)arg;
	if (brig_apply_no_new_privs(&p, &err) < 0 || prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 0)
		return 1;
	p.no_new_privileges = true;
	if (brig_apply_no_new_privs(&p, &err) < 0 || prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return 2;
	return 0;
}

static int child_user_denied(void *arg)
{
	struct brig_error err = BRIG_ERROR_INIT;
	uint32_t gids[] = { 10 };
	struct brig_process p = { .user = { .uid = getuid(),
		                            .gid = getgid(),
		                            .additional_gids = gids,
		                            .n_additional_gids = 1 } };
	int r;

	(void)arg;
	if (brig_apply_user(&p, false, &err) == 0)
		return 1;
	r = strstr(err.msg, "setgroups is denied") ? 0 : 2;
	brig_error_release(&err);
	return r;
}

/* In a user namespace without id maps, every id is unmapped. */
static int child_user_unmapped(void *arg)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_process p = { .user = { .uid = 1000, .gid = 1000 } };
	int r;

	(void)arg;
	if (unshare(CLONE_NEWUSER) < 0)
		return 77;
	if (brig_apply_user(&p, false, &err) == 0)
		return 1;
	r = strcmp(err.msg, "setgid \"1000\": gid is not mapped in the user namespace") ? 2 : 0;
	if (r)
		fprintf(stderr, "# %s\n", err.msg);
	brig_error_release(&err);
	return r;
}

static void test_apply(void)
{
	int r;

	is_int(in_child(child_rlimits, NULL), 0, "rlimits set; a refused one is a clear error");
	is_int(in_child(child_sched, NULL), 0, "SCHED_BATCH nice 7, ioprio BE/6, personality");
	is_int(in_child(child_affinity, NULL), 0, "CPU affinity set; an impossible one fails");
	is_int(in_child(child_nnp, NULL), 0, "no_new_privs only when asked");
	is_int(in_child(child_user_denied, NULL), 0, "additionalGids without setgroups: an error");
	r = in_child(child_user_unmapped, NULL);
	if (r == 77)
		diag("skip: no unprivileged user namespaces");
	else
		is_int(r, 0, "an unmapped gid: a clear error");
}

int main(void)
{
	char tmpl[] = "/tmp/brig-test-process.XXXXXX";

	if (!mkdtemp(tmpl))
		return 99;
	snprintf(tmpdir, sizeof(tmpdir), "%s", tmpl);
	setvbuf(stdout, NULL, _IOLBF, 0);

	test_cap_names();
	test_cap_last();
	test_plan_empty();
	test_plan_caps();
	test_plan_sched();
	test_plan_misc();
	test_sysctl_keys();
	test_exec_lookup();
	test_exec_env();
	test_exec_env_container();
	test_fds();
	test_apply();

	{
		_cleanup_free_ char *cmd = brig_xasprintf("rm -rf '%s'", tmpdir);

		if (system(cmd) != 0)
			diag("could not remove the temporary tree");
	}
	return tap_done();
}
