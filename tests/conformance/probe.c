/* SPDX-License-Identifier: Apache-2.0 */
/*
 * probe [sysctl:KEY]...: what a container's process sees, for the
 * differential layer of tests/conformance (run.sh runs it as the process
 * of the same config with brig and with runc, and compares the two).
 * A static program: it runs in a busybox rootfs, without libc.
 *
 * One "key: value" line each, in a fixed order, nothing that differs
 * between two runs of the same container (pids, mount ids, inode numbers,
 * times, fd numbers) in them:
 *
 *   status.X        the Cap*, NoNewPrivs, Seccomp, Seccomp_filters,
 *                   Speculation_*, Cpus/Mems_allowed_list lines of
 *                   /proc/self/status (tabs squeezed)
 *   id.*            uids, gids (real, effective, saved, fs), groups
 *   uid_map ...     /proc/self/{uid_map,gid_map,setgroups}
 *   rlimit.NAME     soft hard, for every resource
 *   hostname, domainname, cwd, umask, env (one line per variable, sorted)
 *   prctl.*         dumpable, securebits, keepcaps, pdeathsig, ...
 *   sched.*         nice, policy, ioprio, personality
 *   syscall.NAME    the result of a harmless call: "ok", "ret=N" or
 *                   "errno=ENAME", "signal=SIGNAME" when it killed the
 *                   child it ran in: clone3 (a zero-size argument:
 *                   nothing is created), faccessat2, openat2, close_range,
 *                   syscall 1000 (none) and a few more of the calls that
 *                   seccomp profiles treat apart (io_uring_setup, ...)
 *   ns.*            what tells the namespaces from the host's: pid 1,
 *                   the network interfaces, ...
 *   net.lo.*        lo's flags (SIOCGIFFLAGS, and /sys/class/net/lo/flags)
 *                   and what a TCP connect() to 127.0.0.1 and ::1 on a
 *                   closed port meets: ECONNREFUSED when lo is up,
 *                   ENETUNREACH (EADDRNOTAVAIL for ::1) when it is down
 *   fd.N            the open file descriptors, by type (pipe, /dev/null)
 *   keyring         the session keyring's description, serial dropped
 *   oom_score_adj
 *   mount: ...      /proc/self/mountinfo sorted, without the mount and
 *                   parent ids and the device numbers; the source and
 *                   super options of a filesystem on a host device (ext4,
 *                   overlay, ...) are "<host>"
 *   mountpoint: ... the mount points alone (sorted like the mounts)
 *   cgroup: ...     /proc/self/cgroup (run.sh replaces the caller's
 *                   cgroup, which the probe cannot know, by <caller>)
 *   cg.FILE         the cgroup limits readable under /sys/fs/cgroup
 *   dev: ...        /dev, recursively but for pts, shm and mqueue: type,
 *                   mode, owner, device number or link target
 *   sysctl.KEY      /proc/sys/KEY, for each sysctl:KEY argument (the
 *                   config's linux.sysctl)
 *
 * Exit status 0.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <linux/keyctl.h>
#include <linux/openat2.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The numbers of calls newer than the headers of some hosts (x86_64). */
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_close_range
#define __NR_close_range 436
#endif
#ifndef __NR_openat2
#define __NR_openat2 437
#endif
#ifndef __NR_faccessat2
#define __NR_faccessat2 439
#endif
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_futex_waitv
#define __NR_futex_waitv 449
#endif
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0) {
		perror("probe: vasprintf");
		exit(1);
	}
	va_end(ap);
	return s;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;
	ssize_t n;

	if (!f)
		return NULL;
	n = getdelim(&buf, &len, '\0', f);
	fclose(f);
	if (n < 0) {
		free(buf);
		return strdup("");
	}
	return buf;
}

/* squeeze: runs of blanks to one space, no blank at either end. */
static void squeeze(char *s)
{
	char *w = s;
	int blank = 1;

	for (char *r = s; *r; r++) {
		if (*r == ' ' || *r == '\t') {
			if (!blank)
				*w++ = ' ';
			blank = 1;
		} else {
			*w++ = *r;
			blank = 0;
		}
	}
	if (w > s && w[-1] == ' ')
		w--;
	*w = 0;
}

/* One line per line of @path, "KEY: line" (squeezed), or "KEY: absent". */
static void print_lines(const char *key, const char *path)
{
	char *text = read_file(path), *save = NULL;

	if (!text) {
		printf("%s: absent (%s)\n", key, strerrorname_np(errno) ?: "?");
		return;
	}
	if (!*text)
		printf("%s: (empty)\n", key);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		squeeze(l);
		printf("%s: %s\n", key, l);
	}
	free(text);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* print_lines, sorted: the rules of devices.list are in the order they
 * were written, which says nothing. */
static void print_sorted(const char *key, const char *path)
{
	char *text = read_file(path), *save = NULL, *lines[512];
	int n = 0;

	if (!text) {
		printf("%s: absent (%s)\n", key, strerrorname_np(errno) ?: "?");
		return;
	}
	for (char *l = strtok_r(text, "\n", &save); l && n < 512; l = strtok_r(NULL, "\n", &save)) {
		squeeze(l);
		lines[n++] = l;
	}
	qsort(lines, n, sizeof(lines[0]), cmp_str);
	for (int i = 0; i < n; i++)
		printf("%s: %s\n", key, lines[i]);
	free(text);
}

static void status(void)
{
	static const char *const keys[] = {
		"CapInh",
		"CapPrm",
		"CapEff",
		"CapBnd",
		"CapAmb",
		"NoNewPrivs",
		"Seccomp",
		"Seccomp_filters",
		"Speculation_Store_Bypass",
		"SpeculationIndirectBranch",
		"Cpus_allowed_list",
		"Mems_allowed_list",
		NULL,
	};
	char *text = read_file("/proc/self/status");

	if (!text) {
		printf("status: absent\n");
		return;
	}
	for (const char *const *k = keys; *k; k++) {
		size_t n = strlen(*k);
		int found = 0;

		for (char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
			if (strncmp(p, *k, n) == 0 && p[n] == ':') {
				char line[512], *e = strchr(p, '\n');
				size_t len = e ? (size_t)(e - p) : strlen(p);

				snprintf(line, sizeof(line), "%.*s", (int)(len - n - 1), p + n + 1);
				squeeze(line);
				printf("status.%s: %s\n", *k, line);
				found = 1;
				break;
			}
		}
		if (!found)
			printf("status.%s: absent\n", *k);
	}
	free(text);
}

static int cmp_gid(const void *a, const void *b)
{
	gid_t x = *(const gid_t *)a, y = *(const gid_t *)b;

	return x < y ? -1 : x > y;
}

static void ids(void)
{
	uid_t r, e, s;
	gid_t gr, ge, gs, groups[256];
	int n;

	getresuid(&r, &e, &s);
	printf("id.uid: %u %u %u fs=%d\n", r, e, s, setfsuid(-1));
	getresgid(&gr, &ge, &gs);
	printf("id.gid: %u %u %u fs=%d\n", gr, ge, gs, setfsgid(-1));
	n = getgroups(256, groups);
	if (n < 0) {
		printf("id.groups: errno=%s\n", strerrorname_np(errno) ?: "?");
	} else {
		qsort(groups, n, sizeof(groups[0]), cmp_gid);
		printf("id.groups:");
		for (int i = 0; i < n; i++)
			printf(" %u", groups[i]);
		printf("\n");
	}
	print_lines("uid_map", "/proc/self/uid_map");
	print_lines("gid_map", "/proc/self/gid_map");
	print_lines("setgroups", "/proc/self/setgroups");
}

static void rlimits(void)
{
	static const struct {
		int res;
		const char *name;
	} r[] = {
		{ RLIMIT_AS, "AS" },
		{ RLIMIT_CORE, "CORE" },
		{ RLIMIT_CPU, "CPU" },
		{ RLIMIT_DATA, "DATA" },
		{ RLIMIT_FSIZE, "FSIZE" },
		{ RLIMIT_LOCKS, "LOCKS" },
		{ RLIMIT_MEMLOCK, "MEMLOCK" },
		{ RLIMIT_MSGQUEUE, "MSGQUEUE" },
		{ RLIMIT_NICE, "NICE" },
		{ RLIMIT_NOFILE, "NOFILE" },
		{ RLIMIT_NPROC, "NPROC" },
		{ RLIMIT_RSS, "RSS" },
		{ RLIMIT_RTPRIO, "RTPRIO" },
		{ RLIMIT_RTTIME, "RTTIME" },
		{ RLIMIT_SIGPENDING, "SIGPENDING" },
		{ RLIMIT_STACK, "STACK" },
	};

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		struct rlimit l;
		char soft[32], hard[32];

		if (getrlimit(r[i].res, &l) < 0) {
			printf("rlimit.%s: errno=%s\n", r[i].name, strerrorname_np(errno) ?: "?");
			continue;
		}
		if (l.rlim_cur == RLIM_INFINITY)
			snprintf(soft, sizeof(soft), "unlimited");
		else
			snprintf(soft, sizeof(soft), "%llu", (unsigned long long)l.rlim_cur);
		if (l.rlim_max == RLIM_INFINITY)
			snprintf(hard, sizeof(hard), "unlimited");
		else
			snprintf(hard, sizeof(hard), "%llu", (unsigned long long)l.rlim_max);
		printf("rlimit.%s: %s %s\n", r[i].name, soft, hard);
	}
}

static void process(void)
{
	struct utsname u;
	char cwd[4096];
	mode_t m;
	size_t n = 0;
	char **env;
	int v;

	if (uname(&u) == 0) {
		printf("hostname: %s\n", u.nodename);
		printf("domainname: %s\n", u.domainname);
	}
	printf("cwd: %s\n", getcwd(cwd, sizeof(cwd)) ? cwd : "(unreachable)");
	m = umask(0);
	umask(m);
	printf("umask: %04o\n", (unsigned)m);
	for (char **e = environ; *e; e++)
		n++;
	env = calloc(n + 1, sizeof(*env));
	memcpy(env, environ, n * sizeof(*env));
	qsort(env, n, sizeof(*env), cmp_str);
	for (size_t i = 0; i < n; i++)
		printf("env: %s\n", env[i]);
	if (n == 0)
		printf("env: (none)\n");
	free(env);

	printf("prctl.dumpable: %d\n", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
	printf("prctl.securebits: %#x\n", prctl(PR_GET_SECUREBITS, 0, 0, 0, 0));
	printf("prctl.keepcaps: %d\n", prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0));
	v = -1;
	prctl(PR_GET_PDEATHSIG, &v, 0, 0, 0);
	printf("prctl.pdeathsig: %d\n", v);
	v = -1;
	prctl(PR_GET_CHILD_SUBREAPER, &v, 0, 0, 0);
	printf("prctl.child_subreaper: %d\n", v);
	printf("prctl.thp_disable: %d\n", prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0));
	printf("prctl.timerslack: %d\n", prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0) > 0);

	errno = 0;
	v = getpriority(PRIO_PROCESS, 0);
	printf("sched.nice: %d\n", errno ? -100 : v);
	printf("sched.policy: %d\n", sched_getscheduler(0));
	printf("sched.ioprio: %ld\n", syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, 0));
	printf("sched.personality: %#x\n", personality(0xffffffff));
	print_lines("oom_score_adj", "/proc/self/oom_score_adj");
}

/* ------------------------------------------------------------ syscalls */

static long call_clone3(void)
{
	/* size 0 is below CLONE_ARGS_SIZE_VER0: EINVAL, nothing created */
	return syscall(__NR_clone3, NULL, 0);
}

static long call_faccessat2(void)
{
	return syscall(__NR_faccessat2, AT_FDCWD, "/", F_OK, AT_EACCESS);
}

static long call_openat2(void)
{
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		                .resolve = RESOLVE_NO_MAGICLINKS };
	long fd = syscall(__NR_openat2, AT_FDCWD, "/", &how, sizeof(how));

	if (fd >= 0) {
		close((int)fd);
		return 0; /* a fd: its number says nothing */
	}
	return fd;
}

static long call_close_range(void)
{
	/* fds that are not open: 0 */
	return syscall(__NR_close_range, 100000U, 100001U, 0);
}

static long call_1000(void)
{
	return syscall(1000);
}

static long call_io_uring_setup(void)
{
	/* entries 0: EINVAL */
	return syscall(__NR_io_uring_setup, 0, NULL);
}

static long call_landlock(void)
{
	/* LANDLOCK_CREATE_RULESET_VERSION: the ABI version, or EOPNOTSUPP */
	return syscall(__NR_landlock_create_ruleset, NULL, 0, 1U);
}

static long call_futex_waitv(void)
{
	/* no waiters: EINVAL */
	return syscall(__NR_futex_waitv, NULL, 0, 0, NULL, 0);
}

static long call_cachestat(void)
{
	/* bad fd: EBADF */
	return syscall(__NR_cachestat, -1, NULL, NULL, 0);
}

static long call_unshare_user(void)
{
	/* in a child of its own: the probe's namespaces do not change */
	return syscall(SYS_unshare, CLONE_NEWUSER);
}

static long call_keyctl(void)
{
	/* the session keyring's serial: the number differs, its presence not */
	long r = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);

	return r > 0 ? 0 : r;
}

static long call_personality(void)
{
	/* READ_IMPLIES_EXEC | PER_LINUX: what Docker's profile allows apart */
	long r = syscall(SYS_personality, 0xffffffffUL);

	return r >= 0 ? 0 : r;
}

static long call_ptrace(void)
{
	/* PTRACE_TRACEME then nothing: 0 or a seccomp errno */
	return syscall(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0);
}

/* A call in a child of its own, so that a seccomp kill ends only it. */
static void sys_result(const char *name, long (*fn)(void))
{
	int p[2], st;
	long ret = 0;
	int err = 0;
	pid_t pid;

	fflush(stdout);
	if (pipe(p) < 0) {
		printf("syscall.%s: pipe failed\n", name);
		return;
	}
	pid = fork();
	if (pid == 0) {
		long buf[2];

		/* killed by SIGSYS: no core file */
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		close(p[0]);
		errno = 0;
		buf[0] = fn();
		buf[1] = errno;
		_exit(write(p[1], buf, sizeof(buf)) == sizeof(buf) ? 0 : 3);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		printf("syscall.%s: fork failed\n", name);
		return;
	}
	{
		long buf[2];

		if (read(p[0], buf, sizeof(buf)) == sizeof(buf)) {
			ret = buf[0];
			err = (int)buf[1];
		} else {
			ret = -2; /* nothing: it died */
		}
	}
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st))
		printf("syscall.%s: signal=SIG%s\n", name, sigabbrev_np(WTERMSIG(st)) ?: "?");
	else if (ret == -1)
		printf("syscall.%s: errno=%s\n", name, strerrorname_np(err) ?: "?");
	else if (ret == 0)
		printf("syscall.%s: ok\n", name);
	else
		printf("syscall.%s: ret=%ld\n", name, ret);
}

static void syscalls(void)
{
	sys_result("clone3", call_clone3);
	sys_result("faccessat2", call_faccessat2);
	sys_result("openat2", call_openat2);
	sys_result("close_range", call_close_range);
	sys_result("1000", call_1000);
	sys_result("io_uring_setup", call_io_uring_setup);
	sys_result("landlock_create_ruleset", call_landlock);
	sys_result("futex_waitv", call_futex_waitv);
	sys_result("cachestat", call_cachestat);
	sys_result("unshare_user", call_unshare_user);
	sys_result("keyctl_session", call_keyctl);
	sys_result("personality", call_personality);
	sys_result("ptrace_traceme", call_ptrace);
}

/* ------------------------------------------------------------ namespaces */

static void namespaces(void)
{
	char *text, *save = NULL, *names[64];
	int n = 0, line = 0;

	printf("ns.pid1: %s\n", getpid() == 1 ? "yes" : "no");
	printf("ns.ppid0: %s\n", getppid() == 0 ? "yes" : "no");
	/* the interfaces: "lo" alone in a network namespace of its own */
	text = read_file("/proc/net/dev");
	if (!text) {
		printf("ns.net: absent\n");
		return;
	}
	for (char *l = strtok_r(text, "\n", &save); l && n < 64; l = strtok_r(NULL, "\n", &save)) {
		char *c = strchr(l, ':');

		if (++line <= 2 || !c)
			continue;
		*c = 0;
		while (*l == ' ')
			l++;
		names[n++] = l;
	}
	qsort(names, n, sizeof(names[0]), cmp_str);
	printf("ns.net:");
	for (int i = 0; i < n; i++)
		printf(" %s", names[i]);
	printf("\n");
	free(text);
}

/* A TCP connect() to @addr (of @len bytes) on a port where nothing
 * listens: "errno=ECONNREFUSED" through an interface that is up. */
static void connect_result(const char *key, const struct sockaddr *addr, socklen_t len)
{
	int fd = socket(addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		printf("%s: socket errno=%s\n", key, strerrorname_np(errno) ?: "?");
		return;
	}
	if (connect(fd, addr, len) == 0)
		printf("%s: ok\n", key);
	else
		printf("%s: errno=%s\n", key, strerrorname_np(errno) ?: "?");
	close(fd);
}

/*
 * lo: runc and crun bring it up in a network namespace of the
 * container's own (it is up already in the host's).  Its flags, through
 * an ioctl on a unix socket (no protocol of the namespace needed) and in
 * sysfs, and what a connection to the loopback addresses meets.
 */
static void loopback(void)
{
	struct ifreq ifr = { 0 };
	struct sockaddr_in in4 = { .sin_family = AF_INET, .sin_port = htons(1) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(1) };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		printf("net.lo.flags: errno=%s\n", strerrorname_np(errno) ?: "?");
	} else {
		unsigned int f = (unsigned short)ifr.ifr_flags;

		printf("net.lo.flags: %#x%s%s%s\n", f, f & IFF_UP ? " UP" : "",
		       f & IFF_LOOPBACK ? " LOOPBACK" : "", f & IFF_RUNNING ? " RUNNING" : "");
	}
	if (fd >= 0)
		close(fd);
	print_lines("net.lo.sysfs_flags", "/sys/class/net/lo/flags");
	in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	connect_result("net.lo.connect4", (const struct sockaddr *)&in4, sizeof(in4));
	in6.sin6_addr = in6addr_loopback;
	connect_result("net.lo.connect6", (const struct sockaddr *)&in6, sizeof(in6));
}

static void fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int dfd, list[64], n = 0;

	if (!d) {
		printf("fd: absent\n");
		return;
	}
	dfd = dirfd(d);
	while ((e = readdir(d)) && n < 64) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] == '.' || fd == dfd)
			continue;
		list[n++] = fd;
	}
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && list[j - 1] > list[j]; j--) {
			int t = list[j];

			list[j] = list[j - 1];
			list[j - 1] = t;
		}
	for (int i = 0; i < n; i++) {
		char path[64], target[4096];
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", list[i]);
		len = readlink(path, target, sizeof(target) - 1);
		if (len < 0) {
			printf("fd.%d: ?\n", list[i]);
			continue;
		}
		target[len] = 0;
		/* pipe:[1234], socket:[...], anon_inode:[...]: the type */
		if (strchr(target, ':') && target[0] != '/')
			*strchr(target, ':') = 0;
		printf("fd.%d: %s\n", list[i], target);
	}
	closedir(d);
}

static void keyring(void)
{
	char desc[512];
	long n = syscall(SYS_keyctl, KEYCTL_DESCRIBE, KEY_SPEC_SESSION_KEYRING, desc,
	                 sizeof(desc) - 1, 0);

	if (n < 0) {
		printf("keyring: errno=%s\n", strerrorname_np(errno) ?: "?");
		return;
	}
	desc[n < (long)sizeof(desc) ? n : (long)sizeof(desc) - 1] = 0;
	/* type;uid;gid;perm;description */
	printf("keyring: %s\n", desc);
}

/* ------------------------------------------------------------ mounts */

/* A filesystem of a host device or of the host's paths (ext4, overlay,
 * ...): its source and super options say where the test ran. */
static int host_fs(const char *fstype)
{
	static const char *const virt[] = { "proc",        "sysfs",    "tmpfs",     "devpts",
		                            "mqueue",      "cgroup",   "cgroup2",   "devtmpfs",
		                            "securityfs",  "debugfs",  "tracefs",   "bpf",
		                            "fusectl",     "configfs", "hugetlbfs", "pstore",
		                            "binfmt_misc", "nsfs",     NULL };

	for (const char *const *v = virt; *v; v++)
		if (strcmp(fstype, *v) == 0)
			return 0;
	return 1;
}

/* The propagation fields without their peer group numbers. */
static void propagation(char *opt, char *out, size_t size)
{
	char *save = NULL;

	out[0] = 0;
	for (char *t = strtok_r(opt, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char *colon = strchr(t, ':');

		if (colon)
			*colon = 0;
		snprintf(out + strlen(out), size - strlen(out), "%s%s", out[0] ? "," : "", t);
	}
	if (!out[0])
		snprintf(out, size, "private");
}

/*
 * The mount table, sorted: since Linux 6.8 /proc/self/mountinfo lists
 * mounts by creation (their unique id), not by where they were attached,
 * so two runtimes that make the same mounts in another order list them
 * in another order.  Two mounts stacked on one mount point both show.
 */
static void mounts(void)
{
	char *text = read_file("/proc/self/mountinfo"), *save = NULL, *out[1024];
	int n = 0;

	if (!text) {
		printf("mount: absent\n");
		return;
	}
	for (char *l = strtok_r(text, "\n", &save); l && n < 1024;
	     l = strtok_r(NULL, "\n", &save)) {
		/* ID PARENT MAJ:MIN ROOT POINT OPTS [OPTIONAL...] - TYPE SOURCE SUPER */
		char *sep = strstr(l, " - "), *f[6], *s2 = NULL, *type, *source, *super;
		char prop[256];

		if (!sep)
			continue;
		*sep = 0;
		for (int i = 0; i < 6; i++)
			f[i] = strtok_r(i ? NULL : l, " ", &s2);
		if (!f[5])
			continue;
		propagation(f[5] + strlen(f[5]) + 1 < sep ? f[5] + strlen(f[5]) + 1 : sep, prop,
		            sizeof(prop));
		s2 = NULL;
		type = strtok_r(sep + 3, " ", &s2);
		source = strtok_r(NULL, " ", &s2);
		super = strtok_r(NULL, " ", &s2);
		if (!type || !source)
			continue;
		if (host_fs(type))
			out[n] = xasprintf("mount: %s %s %s %s root=%s <host> <host>", f[4], f[5],
			                   prop, type, f[3]);
		else
			out[n] = xasprintf("mount: %s %s %s %s root=%s %s %s", f[4], f[5], prop,
			                   type, f[3], source, super ?: "");
		n++;
	}
	qsort(out, n, sizeof(out[0]), cmp_str);
	for (int i = 0; i < n; i++)
		printf("%s\n", out[i]);
	/* The mount points alone, again: a difference of options may be
	 * allowed (tests/conformance/allow-list), a mount missing never is
	 * by the same entry. */
	for (int i = 0; i < n; i++) {
		printf("mountpoint: %.*s\n", (int)strcspn(out[i] + 7, " "), out[i] + 7);
		free(out[i]);
	}
	free(text);
}

/* ------------------------------------------------------------ cgroups */

static void cgroups(void)
{
	static const char *const files[] = {
		/* v1 */
		"memory/memory.limit_in_bytes",
		"memory/memory.soft_limit_in_bytes",
		"memory/memory.memsw.limit_in_bytes",
		"memory/memory.swappiness",
		"memory/memory.kmem.limit_in_bytes",
		"memory/memory.oom_control",
		"pids/pids.max",
		"cpu/cpu.shares",
		"cpu/cpu.cfs_quota_us",
		"cpu/cpu.cfs_period_us",
		"cpu,cpuacct/cpu.shares",
		"cpuset/cpuset.cpus",
		"cpuset/cpuset.mems",
		"blkio/blkio.weight",
		"devices/devices.list",
		"freezer/freezer.state",
		"hugetlb/hugetlb.2MB.limit_in_bytes",
		/* v2 (at the top, or in the unified hierarchy of a hybrid host) */
		"cgroup.controllers",
		"cgroup.subtree_control",
		"memory.max",
		"memory.high",
		"memory.low",
		"memory.min",
		"memory.swap.max",
		"pids.max",
		"cpu.max",
		"cpu.weight",
		"cpuset.cpus",
		"cpuset.mems",
		"io.weight",
		"unified/cgroup.controllers",
		"unified/memory.max",
		"unified/pids.max",
		NULL,
	};
	char path[512], key[256];

	print_lines("cgroup", "/proc/self/cgroup");
	for (const char *const *f = files; *f; f++) {
		char *text;

		snprintf(path, sizeof(path), "/sys/fs/cgroup/%s", *f);
		text = read_file(path);
		if (!text)
			continue; /* absent here: the mount table says why */
		free(text);
		snprintf(key, sizeof(key), "cg.%s", *f);
		if (strstr(*f, "devices.list"))
			print_sorted(key, path);
		else
			print_lines(key, path);
	}
}

/* ------------------------------------------------------------ /dev */

static void dev_entry(const char *path, int depth);

static void dev_dir(const char *dir, int depth)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort);

	if (n < 0) {
		printf("dev: %s unreadable (%s)\n", dir, strerrorname_np(errno) ?: "?");
		return;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];

		if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
			dev_entry(path, depth + 1);
		}
		free(list[i]);
	}
	free(list);
}

static void dev_entry(const char *path, int depth)
{
	struct stat st;
	char target[4096];
	ssize_t n;

	if (lstat(path, &st) < 0) {
		printf("dev: %s ? (%s)\n", path, strerrorname_np(errno) ?: "?");
		return;
	}
	switch (st.st_mode & S_IFMT) {
	case S_IFLNK:
		n = readlink(path, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = 0;
		printf("dev: %s l -> %s\n", path, target);
		break;
	case S_IFCHR:
	case S_IFBLK:
		printf("dev: %s %c %04o %u:%u %u:%u\n", path, S_ISCHR(st.st_mode) ? 'c' : 'b',
		       st.st_mode & 07777, st.st_uid, st.st_gid, major(st.st_rdev),
		       minor(st.st_rdev));
		break;
	case S_IFDIR:
		printf("dev: %s d %04o %u:%u\n", path, st.st_mode & 07777, st.st_uid, st.st_gid);
		/* what is in pts, shm and mqueue comes and goes */
		if (depth < 3 && strcmp(path, "/dev/pts") && strcmp(path, "/dev/shm") &&
		    strcmp(path, "/dev/mqueue"))
			dev_dir(path, depth);
		break;
	default:
		printf("dev: %s %c %04o %u:%u size=%lld\n", path, S_ISREG(st.st_mode) ? 'f' : 'o',
		       st.st_mode & 07777, st.st_uid, st.st_gid, (long long)st.st_size);
	}
}

static void sysctls(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char path[4096], key[4096];

		if (strncmp(argv[i], "sysctl:", 7) != 0)
			continue;
		snprintf(key, sizeof(key), "sysctl.%s", argv[i] + 7);
		snprintf(path, sizeof(path), "/proc/sys/%s", argv[i] + 7);
		for (char *p = path + 10; *p; p++)
			if (*p == '.')
				*p = '/';
		print_lines(key, path);
	}
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	status();
	ids();
	rlimits();
	process();
	syscalls();
	namespaces();
	loopback();
	fds();
	keyring();
	mounts();
	cgroups();
	dev_entry("/dev", 0);
	sysctls(argc, argv);
	fflush(stdout);
	return 0;
}
