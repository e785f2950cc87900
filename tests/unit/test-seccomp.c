/* SPDX-License-Identifier: Apache-2.0 */
/*
 * linux.seccomp (runtime/linux/seccomp.c, seccomp_cache.c): the cache key,
 * what brig_seccomp_prepare() refuses and the flags it passes, the cache
 * round trip in a temporary state root (hits, a damaged entry, the bound),
 * and the program itself, loaded unprivileged (no_new_privs) in a child.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/seccomp.h"
#include "linux/seccomp_cache.h"
#include "spec/spec.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/strbuf.h"

/* A config.json around a linux.seccomp object. */
static struct brig_config *config(const char *seccomp)
{
	struct brig_error err = BRIG_ERROR_INIT;
	_cleanup_free_ char *text =
	    brig_xasprintf("{\"ociVersion\": \"1.2.0\", \"root\": {\"path\": \"rootfs\"},"
	                   " \"process\": {\"user\": {\"uid\": 0, \"gid\": 0}, \"args\": [\"sh\"], "
	                   "\"cwd\": \"/\"},"
	                   " \"linux\": {\"seccomp\": %s}}",
	                   seccomp);
	struct brig_config *c = brig_config_parse("config.json", text, strlen(text), &err);

	if (!c) {
		printf("# %s\n", err.msg);
		exit(99);
	}
	return c;
}

static char *key_of(const char *seccomp)
{
	struct brig_config *c = config(seccomp);
	struct brig_strbuf sb = BRIG_STRBUF_INIT;

	brig_seccomp_cache_key(c->linux->seccomp, "env", &sb);
	brig_config_free(c);
	return brig_strbuf_detach(&sb);
}

#define MKDIR_ERRNO(e)                                                                    \
	"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"mkdir\", " \
	"\"mkdirat\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": " #e "}]}"

static void test_key(void)
{
	_cleanup_free_ char *base = key_of(MKDIR_ERRNO(28));
	static const struct {
		const char *json;
		bool same;
		const char *what;
	} cases[] = {
		{ MKDIR_ERRNO(28), true, "the same profile" },
		{ "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"flags\": "
		  "[\"SECCOMP_FILTER_FLAG_LOG\"],"
		  " \"listenerPath\": \"/l\", \"listenerMetadata\": \"m\", \"syscalls\": "
		  "[{\"names\":"
		  " [\"mkdir\", \"mkdirat\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 28}]}",
		  true, "flags and the listener do not change the program" },
		{ MKDIR_ERRNO(1), false, "another errnoRet" },
		{ "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"mkdir\","
		  " \"mkdirat\"], \"action\": \"SCMP_ACT_ERRNO\"}]}",
		  false, "no errnoRet" },
		{ "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"mkdi\","
		  " \"rmkdirat\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 28}]}",
		  false, "names cut elsewhere" },
		{ "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"SCMP_ARCH_X86\"],"
		  " \"syscalls\": [{\"names\": [\"mkdir\", \"mkdirat\"], \"action\":"
		  " \"SCMP_ACT_ERRNO\", \"errnoRet\": 28}]}",
		  false, "an architecture" },
		{ "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"mkdir\","
		  " \"mkdirat\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 28, \"args\":"
		  " [{\"index\": 1, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"}]}]}",
		  false, "an argument" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *k = key_of(cases[i].json);

		ok((strcmp(k, base) == 0) == cases[i].same, "key: %s", cases[i].what);
	}
}

#ifdef HAVE_SECCOMP
#include <seccomp.h>

static int prepare(const char *seccomp, int rootfd, struct brig_seccomp_prog *prog,
                   struct brig_error *err)
{
	struct brig_config *c = config(seccomp);
	int r = brig_seccomp_prepare(c->linux->seccomp, rootfd, prog, err);

	brig_config_free(c);
	return r;
}

static void refused(const char *seccomp, const char *want)
{
	struct brig_seccomp_prog prog;
	struct brig_error err = BRIG_ERROR_INIT;

	ok(prepare(seccomp, -1, &prog, &err) < 0, "refused: %s", want);
	is_str(err.msg, want, "the error names the entry");
	brig_seccomp_prog_release(&prog);
	brig_error_release(&err);
}

static void test_refused(void)
{
	refused("{\"defaultAction\": \"SCMP_ACT_NOTIFY\", \"listenerPath\": \"/l\"}",
	        "config.json: linux.seccomp.defaultAction: SCMP_ACT_NOTIFY cannot be the default "
	        "action");
	refused("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"/l\", \"syscalls\":"
	        " [{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_LOG\"}, {\"names\": [\"read\","
	        " \"sendmsg\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}",
	        "config.json: linux.seccomp.syscalls[1]: SCMP_ACT_NOTIFY cannot be used for "
	        "\"sendmsg\"");
	if (!brig_seccomp_arch_known("SCMP_ARCH_SH")) {
		const struct scmp_version *v = seccomp_version();
		_cleanup_free_ char *want = brig_xasprintf(
		    "config.json: linux.seccomp.architectures: \"SCMP_ARCH_SH\" is not known to "
		    "libseccomp %u.%u.%u",
		    v->major, v->minor, v->micro);

		refused("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": "
		        "[\"SCMP_ARCH_SH\"]}",
		        want);
	}
}

static void test_flags(void)
{
	struct brig_seccomp_prog p;
	struct brig_error err = BRIG_ERROR_INIT;

	ok(prepare("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"flags\":"
	           " [\"SECCOMP_FILTER_FLAG_TSYNC\", \"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV\"]}",
	           -1, &p, &err) == 0 &&
	       p.len > 0,
	   "a filter without rules");
	is_int(p.flags, SECCOMP_FILTER_FLAG_TSYNC, "WAIT_KILLABLE_RECV dropped without notify");
	ok(!p.notify, "no listener");
	brig_seccomp_prog_release(&p);
	ok(prepare("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"/l\", \"flags\":"
	           " [\"SECCOMP_FILTER_FLAG_TSYNC\", \"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV\"],"
	           " \"syscalls\": [{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}",
	           -1, &p, &err) == 0,
	   "a filter that notifies");
	is_int(p.flags,
	       SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_NEW_LISTENER |
	           SECCOMP_FILTER_FLAG_TSYNC_ESRCH | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
	       "a listener, TSYNC_ESRCH with TSYNC, WAIT_KILLABLE_RECV kept");
	ok(p.notify, "notify");
	brig_seccomp_prog_release(&p);
	brig_error_release(&err);
}

/* In a child: no_new_privs, the filter, then mkdir must fail with ENOSPC. */
static int load_and_mkdir(void *arg)
{
	const struct brig_seccomp_prog *p = arg;
	struct brig_error err = BRIG_ERROR_INIT;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || brig_seccomp_load(p, &err) != 0)
		return 2;
	if (mkdir("/nonexistent-brig/x", 0700) == 0 || errno != ENOSPC)
		return 3;
	return 0;
}

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

static unsigned int count_entries(int rootfd)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	unsigned int n = 0;
	int fd = openat(rootfd, BRIG_SECCOMP_CACHE_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	d = fd < 0 ? NULL : fdopendir(fd);
	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	return n;
}

static void test_cache(void)
{
	char root[] = "/tmp/brig-test-seccomp-XXXXXX";
	struct brig_seccomp_prog built, cached, again;
	struct brig_error err = BRIG_ERROR_INIT;
	_cleanup_close_ int rootfd = -1;
	struct stat st;
	int fd;

	if (!mkdtemp(root)) {
		ok(false, "mkdtemp");
		return;
	}
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ok(prepare(MKDIR_ERRNO(28), rootfd, &built, &err) == 0, "compiled");
	is_int(count_entries(rootfd), 1, "and cached");
	ok(fstatat(rootfd, BRIG_SECCOMP_CACHE_DIR, &st, 0) == 0 && (st.st_mode & 0777) == 0700,
	   "the cache directory is the caller's alone");
	is_int(in_child(load_and_mkdir, &built), 0, "the program works (mkdir: ENOSPC)");
	ok(prepare(MKDIR_ERRNO(28), rootfd, &cached, &err) == 0 && cached.len == built.len &&
	       memcmp(cached.insns, built.insns, built.len * sizeof(struct sock_filter)) == 0,
	   "the cached program is the compiled one");
	is_int(in_child(load_and_mkdir, &cached), 0, "the cached program works");
	/* damage every entry: a miss, rebuilt */
	{
		_cleanup_closedir_ DIR *d = NULL;
		struct dirent *de;

		fd = openat(rootfd, BRIG_SECCOMP_CACHE_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		d = fdopendir(fd);
		while (d && (de = readdir(d))) {
			int e = de->d_name[0] == '.' ? -1
			                             : openat(fd, de->d_name, O_WRONLY | O_CLOEXEC);

			struct stat est;

			/* a byte of the program: only the checksum can tell */
			if (e >= 0 && fstat(e, &est) == 0)
				ok(pwrite(e, "\xff", 1, est.st_size - 3) == 1, "damage an entry");
			if (e >= 0)
				close(e);
		}
	}
	ok(prepare(MKDIR_ERRNO(28), rootfd, &again, &err) == 0 && again.len == built.len &&
	       memcmp(again.insns, built.insns, built.len * sizeof(struct sock_filter)) == 0,
	   "a damaged entry is rebuilt, not loaded");
	/* many profiles: the directory stays bounded */
	for (int i = 0; i < BRIG_SECCOMP_CACHE_MAX + 6; i++) {
		_cleanup_free_ char *json =
		    brig_xasprintf("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": "
		                   "[{\"names\": [\"mkdir\"],"
		                   " \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": %d}]}",
		                   100 + i);
		struct brig_seccomp_prog p;

		prepare(json, rootfd, &p, &err);
		brig_seccomp_prog_release(&p);
	}
	ok(count_entries(rootfd) <= BRIG_SECCOMP_CACHE_MAX, "at most %d entries",
	   BRIG_SECCOMP_CACHE_MAX);
	brig_seccomp_prog_release(&built);
	brig_seccomp_prog_release(&cached);
	brig_seccomp_prog_release(&again);
	brig_error_release(&err);
	{
		_cleanup_free_ char *cmd = brig_xasprintf("rm -rf '%s'", root);

		if (system(cmd) != 0)
			diag("could not remove the temporary root");
	}
}

#endif

/* In a child, under @arg's filter: each call's errno, in a bitmask of
 * failures (bit i: call i did not fail as expected). */
static int enosys_calls(void *arg)
{
	const struct brig_seccomp_prog *p = arg;
	struct brig_error err = BRIG_ERROR_INIT;
	static const struct {
		long nr;
		int want; /* errno */
	} calls[] = {
		{ 1000, ENOSYS },            /* no such call, past every number named */
		{ SYS_close_range, ENOSYS }, /* 436, past seccomp's 317, the highest named */
		{ SYS_clone3, ENOSYS },      /* 435 */
		{ SYS_acct, EPERM },         /* 163, below the highest named: the profile's */
	};
	int fail = 0;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || brig_seccomp_load(p, &err) != 0)
		return 0x80;
	if (syscall(SYS_getpid) <= 0)
		fail |= 0x40; /* named and allowed */
	for (size_t i = 0; i < ARRAY_SIZE(calls); i++) {
		long r = syscall(calls[i].nr, -1L, 0L, 0L, 0L, 0L, 0L);

		fail |= !(r == -1 && errno == calls[i].want) << i;
	}
	/* straight out: a sanitizer's exit handler (LeakSanitizer) would
	 * fail under a filter that denies what it needs */
	syscall(SYS_exit_group, fail);
	return fail;
}

/* Under an allowing filter, clone3 with a bad size is the kernel's EINVAL. */
static int clone3_reaches_kernel(void *arg)
{
	const struct brig_seccomp_prog *p = arg;
	struct brig_error err = BRIG_ERROR_INIT;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || brig_seccomp_load(p, &err) != 0)
		return 2;
	return !(syscall(SYS_clone3, NULL, 0L) == -1 && errno == EINVAL);
}

static void test_enosys(void)
{
	struct brig_seccomp_prog p, plain;
	struct brig_error err = BRIG_ERROR_INIT;
	const char *profile = "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\":"
	                      " [\"SCMP_ARCH_X86_64\"], \"syscalls\": [{\"names\": [\"getpid\","
	                      " \"exit\", \"exit_group\", \"prctl\", \"seccomp\"],"
	                      " \"action\": \"SCMP_ACT_ALLOW\"}]}";

#ifndef __x86_64__
	ok(1, "# SKIP the calls are x86_64's");
	return;
#endif
	ok(prepare(profile, -1, &p, &err) == 0, "a profile that denies by default compiles");
	is_int(in_child(enosys_calls, &p), 0,
	       "past its highest call ENOSYS, below it the profile's own EPERM");
	ok(prepare("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\":"
	           " [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\"}]}",
	           -1, &plain, &err) == 0,
	   "an allowing profile compiles");
	is_int(in_child(clone3_reaches_kernel, &plain), 0,
	       "it gets no stub: a call past its highest one reaches the kernel");
	brig_seccomp_prog_release(&p);
	brig_seccomp_prog_release(&plain);
	brig_error_release(&err);
}

int main(void)
{
	test_key();
#ifdef HAVE_SECCOMP
	test_refused();
	test_flags();
	test_cache();
	test_enosys();
#endif
	return tap_done();
}
