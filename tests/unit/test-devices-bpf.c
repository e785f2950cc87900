/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cgroup v2 device filter (runtime/cgroup/devices_bpf.c): the reference
 * semantics on a table of rule lists, then, as root with a cgroup2
 * hierarchy, the program in the kernel: one program stays attached to a
 * temporary cgroup across updates, a program attached without
 * BPF_F_ALLOW_MULTI is reported, and a forked child moved into the cgroup
 * gets EPERM from open(2) and mknod(2) exactly where brig_devices_allowed()
 * says no, for fixed and for generated rule lists.
 *
 * The test cgroup is a child of this process's own v2 cgroup; only the
 * forked children are moved into it, and it is removed at exit, also on
 * failure and on SIGINT/SIGTERM.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup/devices_bpf.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/error.h"

#define R BRIG_DEV_READ
#define W BRIG_DEV_WRITE
#define M BRIG_DEV_MKNOD
#define RW (R | W)
#define RWM (R | W | M)

/* runc's default list: deny all, the usual nodes, pts, mknod of anything */
static const struct brig_dev_rule runc_default[] = {
	{ false, 'a', -1, -1, RWM }, { true, 'c', 1, 3, RWM }, { true, 'c', 1, 5, RWM },
	{ true, 'c', 1, 7, RWM },    { true, 'c', 1, 8, RWM }, { true, 'c', 1, 9, RWM },
	{ true, 'c', 5, 0, RWM },    { true, 'c', 5, 1, RWM }, { true, 'c', 5, 2, RWM },
	{ true, 'c', 136, -1, RWM }, { true, 'c', -1, -1, M }, { true, 'b', -1, -1, M },
};

/* ------------------------------------------------------------ reference */

struct list {
	const char *name;
	const struct brig_dev_rule *rules;
	size_t n;
};

#define LIST(name, ...)                                                     \
	static const struct brig_dev_rule name##_rules[] = { __VA_ARGS__ }; \
	static const struct list name = { #name, name##_rules, ARRAY_SIZE(name##_rules) }

LIST(allow_then_deny_w, { true, 'c', 1, 3, RWM }, { false, 'c', 1, 3, W });
LIST(deny_w_then_allow, { false, 'c', 1, 3, W }, { true, 'c', 1, 3, RWM });
LIST(split_r_w, { true, 'c', 1, 3, R }, { true, 'c', 1, 3, W });
LIST(all_but_r, { true, 'a', -1, -1, RWM }, { false, 'a', -1, -1, R });
LIST(later_wins, { true, 'c', 1, 3, RW }, { false, 'c', -1, -1, RW }, { true, 'c', 1, -1, R });
LIST(any_major, { true, 'c', -1, 3, R }, { true, 'b', 8, -1, RWM });
LIST(deny_all, { false, 'a', -1, -1, RWM });

static const struct list runc = { "runc_default", runc_default, ARRAY_SIZE(runc_default) };

static void test_allowed(void)
{
	static const struct {
		const struct list *l;
		char type;
		int64_t major, minor;
		unsigned int access;
		bool want;
	} cases[] = {
		{ &runc, 'c', 1, 3, R, true },
		{ &runc, 'c', 1, 3, W, true },
		{ &runc, 'c', 1, 3, RW, true },
		{ &runc, 'c', 1, 3, RWM, true },
		{ &runc, 'c', 1, 9, RW, true },
		{ &runc, 'c', 5, 2, RW, true },
		{ &runc, 'c', 136, 0, RW, true },
		{ &runc, 'c', 136, 4095, RW, true },
		{ &runc, 'c', 1, 4, R, false },
		{ &runc, 'c', 1, 1, RW, false },
		{ &runc, 'c', 1, 4, M, true },
		{ &runc, 'c', 1, 4, R | M, false },
		{ &runc, 'c', 10, 200, RW, false },
		{ &runc, 'c', 5, 3, R, false },
		{ &runc, 'b', 1, 3, R, false },
		{ &runc, 'b', 8, 0, R, false },
		{ &runc, 'b', 8, 0, M, true },
		{ &runc, 'b', 136, 0, W, false },
		{ &allow_then_deny_w, 'c', 1, 3, R, true },
		{ &allow_then_deny_w, 'c', 1, 3, W, false },
		{ &allow_then_deny_w, 'c', 1, 3, RW, false },
		{ &allow_then_deny_w, 'c', 1, 3, M, true },
		{ &allow_then_deny_w, 'c', 1, 3, R | M, true },
		{ &deny_w_then_allow, 'c', 1, 3, RW, true },
		{ &deny_w_then_allow, 'c', 1, 3, RWM, true },
		{ &split_r_w, 'c', 1, 3, RW, true },
		{ &split_r_w, 'c', 1, 3, RWM, false },
		{ &split_r_w, 'c', 1, 5, R, false },
		{ &all_but_r, 'b', 8, 0, W, true },
		{ &all_but_r, 'c', 4, 1, M, true },
		{ &all_but_r, 'c', 4, 1, R, false },
		{ &all_but_r, 'b', 8, 0, RW, false },
		{ &later_wins, 'c', 1, 3, R, true },
		{ &later_wins, 'c', 1, 3, W, false },
		{ &later_wins, 'c', 1, 7, R, true },
		{ &later_wins, 'c', 2, 3, R, false },
		{ &later_wins, 'b', 1, 3, R, false },
		{ &any_major, 'c', 7, 3, R, true },
		{ &any_major, 'c', 7, 4, R, false },
		{ &any_major, 'c', 7, 3, W, false },
		{ &any_major, 'b', 7, 3, R, false },
		{ &any_major, 'b', 8, 17, RWM, true },
		{ &deny_all, 'c', 1, 3, R, false },
		{ &deny_all, 'c', 1, 3, M, false },
	};
	static const char *const names[] = { "", "r", "w", "rw", "m", "rm", "wm", "rwm" };

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct list *l = cases[i].l;
		bool got = brig_devices_allowed(l->rules, l->n, cases[i].type, cases[i].major,
		                                cases[i].minor, cases[i].access);

		ok(got == cases[i].want, "%s: %c %lld:%lld %s %s", l->name, cases[i].type,
		   (long long)cases[i].major, (long long)cases[i].minor, names[cases[i].access],
		   cases[i].want ? "allowed" : "denied");
	}
	ok(!brig_devices_allowed(NULL, 0, 'c', 1, 3, R), "no rules: denied");
	ok(brig_devices_allowed(runc_default, ARRAY_SIZE(runc_default), 'c', 10, 200, 0),
	   "an access of 0 asks for nothing: allowed");
	ok(!brig_devices_allowed(all_but_r.rules, all_but_r.n, 'c', 1, 3, W | 8),
	   "a bit that is not BRIG_DEV_*: denied");
}

/* Too many rules for the jumps of one program: refused before the kernel
 * is asked (so without root). */
static void test_too_many(void)
{
	static struct brig_dev_rule many[8000];
	struct brig_error err = BRIG_ERROR_INIT;
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(many); i++)
		many[i] = (struct brig_dev_rule){ true, 'c', (int64_t)i, (int64_t)i, RWM };
	r = brig_devices_bpf_apply(-1, many, ARRAY_SIZE(many), &err);
	ok(r < 0 && err.errnum == E2BIG, "8000 rules: E2BIG");
	is_str(err.msg,
	       "load the device filter: 8000 device rules are too many: "
	       "Argument list too long",
	       "8000 rules: the message says so");
	brig_error_release(&err);
}

/* ------------------------------------------------------------- the kernel */

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* What this test created, for cleanup(): the cgroups, the device nodes'
 * directory and its nodes, the child. */
static struct {
	char *cg;  /* the test cgroup */
	char *sub; /* a child of it, for the non-multi case */
	char *tmp;
	pid_t child;
} made = { NULL, NULL, NULL, -1 };

static const char *const node_names[] = { "null", "zero", "cfree0", "cfree1", "bfree0", "bfree1" };

/* Remove what was made; only async-signal-safe calls, for on_signal().
 * What is removed is forgotten (@release: and freed). */
static void remove_made(bool release)
{
	char **paths[] = { &made.sub, &made.cg, &made.tmp }; /* children first */

	if (made.child > 0) {
		kill(made.child, SIGKILL);
		waitpid(made.child, NULL, 0);
		made.child = -1;
	}
	if (made.tmp) {
		int dfd = open(made.tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (dfd >= 0) {
			for (size_t i = 0; i < ARRAY_SIZE(node_names); i++)
				unlinkat(dfd, node_names[i], 0);
			unlinkat(dfd, "mknod-probe", 0);
			close(dfd);
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		if (*paths[i] && rmdir(*paths[i]) == 0) {
			if (release)
				free(*paths[i]);
			*paths[i] = NULL;
		}
}

static void cleanup(void)
{
	remove_made(true);
}

static void on_signal(int sig)
{
	remove_made(false);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The cgroup2 mount: /sys/fs/cgroup (unified) or its "unified" (hybrid). */
static const char *cgroup2_mount(void)
{
	static const char *const paths[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	struct statfs st;

	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		if (statfs(paths[i], &st) == 0 && st.f_type == CGROUP2_SUPER_MAGIC)
			return paths[i];
	return NULL;
}

/* This process's v2 cgroup, from the "0::" line of /proc/self/cgroup. */
static char *own_cgroup(void)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096];

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			return brig_xstrdup(line + 3);
		}
	return NULL;
}

/* The ids of the device programs attached to @fd (@flags: query flags). */
static size_t query(int fd, uint32_t qflags, uint32_t *ids, size_t max, uint32_t *attach_flags)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.query.target_fd = (uint32_t)fd;
	attr.query.attach_type = BPF_CGROUP_DEVICE;
	attr.query.query_flags = qflags;
	attr.query.prog_ids = (uint64_t)(uintptr_t)ids;
	attr.query.prog_cnt = (uint32_t)max;
	if (sys_bpf(BPF_PROG_QUERY, &attr) < 0)
		return (size_t)-1;
	if (attach_flags)
		*attach_flags = attr.query.attach_flags;
	return attr.query.prog_cnt;
}

/* The number of instructions of program @id as the kernel holds it. */
static long prog_insns(uint32_t id)
{
	_cleanup_close_ int fd = -1;
	struct bpf_prog_info info;
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_id = id;
	fd = sys_bpf(BPF_PROG_GET_FD_BY_ID, &attr);
	if (fd < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (uint32_t)fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (uint64_t)(uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) < 0)
		return -1;
	return (long)(info.xlated_prog_len / sizeof(struct bpf_insn));
}

/* A device program that allows all, attached to @cgfd without BPF_F_ALLOW_MULTI. */
static int attach_single(int cgfd)
{
	struct bpf_insn insn[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 1 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	_cleanup_close_ int fd = -1;
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	attr.insns = (uint64_t)(uintptr_t)insn;
	attr.insn_cnt = ARRAY_SIZE(insn);
	attr.license = (uint64_t)(uintptr_t) "Apache";
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.target_fd = (uint32_t)cgfd;
	attr.attach_bpf_fd = (uint32_t)fd;
	attr.attach_type = BPF_CGROUP_DEVICE;
	return sys_bpf(BPF_PROG_ATTACH, &attr);
}

/* ---------------------------------------------------------------- probes */

/* What a child in the cgroup tries, and what brig_devices_allowed() is
 * asked about it. */
struct probe {
	char type;
	int64_t major, minor;
	unsigned int access;
	const char *node; /* open this node of made.tmp (or this path, if absolute) */
	int flags;        /* ... with these flags; mknod when node is NULL */
};

static struct probe probes[64];
static size_t n_probes;

/* A major of @type ('c' or 'b') that no driver registered. */
static int64_t free_major(char type)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/devices", "re");
	bool used[4096] = { false };
	bool in = false;
	char line[256];

	while (f && fgets(line, sizeof(line), f)) {
		int maj;

		if (strncmp(line, "Character", 9) == 0)
			in = type == 'c';
		else if (strncmp(line, "Block", 5) == 0)
			in = type == 'b';
		else if (in && sscanf(line, "%d", &maj) == 1 && maj >= 0 && maj < 4096)
			used[maj] = true;
	}
	for (int64_t m = 3000; m < 4096; m++)
		if (!used[m])
			return m;
	return -1;
}

/* Nodes in a temporary directory, and the probes on them. */
static int make_probes(int64_t cfree, int64_t bfree)
{
	static const struct {
		char type;
		int64_t major, minor;
	} dev[] = {
		{ 'c', 1, 3 },  { 'c', 1, 5 },  { 'c', -2, 0 },
		{ 'c', -2, 1 }, { 'b', -3, 0 }, { 'b', -3, 1 },
	};
	static const struct {
		int flags;
		unsigned int access;
	} opens[] = { { O_RDONLY, R }, { O_WRONLY, W }, { O_RDWR, RW } };
	char tmpl[] = "/tmp/brig-devices-bpf-XXXXXX";
	_cleanup_close_ int dfd = -1;

	if (!mkdtemp(tmpl))
		return -1;
	made.tmp = brig_xstrdup(tmpl);
	dfd = open(made.tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(dev); i++) {
		int64_t major = dev[i].major == -2   ? cfree
		                : dev[i].major == -3 ? bfree
		                                     : dev[i].major;
		mode_t mode = dev[i].type == 'b' ? S_IFBLK : S_IFCHR;

		if (mknodat(dfd, node_names[i], mode | 0666,
		            makedev((unsigned int)major, (unsigned int)dev[i].minor)) < 0)
			return -1;
		for (size_t k = 0; k < ARRAY_SIZE(opens); k++)
			probes[n_probes++] =
			    (struct probe){ dev[i].type,     major,         dev[i].minor,
				            opens[k].access, node_names[i], opens[k].flags };
		probes[n_probes++] = (struct probe){ dev[i].type, major, dev[i].minor, M, NULL, 0 };
	}
	probes[n_probes++] = (struct probe){ 'c', 1, 3, RW, "/dev/null", O_RDWR };
	return 0;
}

static const char *probe_name(const struct probe *p, char *buf, size_t size)
{
	snprintf(buf, size, "%s %c %lld:%lld",
	         !p->node               ? "mknod"
	         : p->flags == O_RDONLY ? "open r"
	         : p->flags == O_WRONLY ? "open w"
	                                : "open rw",
	         p->type, (long long)p->major, (long long)p->minor);
	return buf;
}

/* In the child, once in the cgroup: each probe's errno (0: it worked). */
static __attribute__((noreturn)) void child_probe(int go, int out, int dfd)
{
	char c;

	if (read(go, &c, 1) != 1)
		_exit(99);
	for (size_t i = 0; i < n_probes; i++) {
		const struct probe *p = &probes[i];
		int e = 0;

		if (p->node) {
			int fd = openat(dfd, p->node, p->flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

			if (fd < 0)
				e = errno;
			else
				close(fd);
		} else {
			mode_t mode = p->type == 'b' ? S_IFBLK : S_IFCHR;

			if (mknodat(dfd, "mknod-probe", mode | 0600,
			            makedev((unsigned int)p->major, (unsigned int)p->minor)) < 0)
				e = errno;
			else
				unlinkat(dfd, "mknod-probe", 0);
		}
		if (write(out, &e, sizeof(e)) != sizeof(e))
			_exit(99);
	}
	_exit(0);
}

/*
 * Fork a child, move it (only it) into the test cgroup, let it probe, and
 * collect the errno of each probe into @got.  -1 on a failure of the test.
 */
static int run_probes(int dfd, int got[])
{
	_cleanup_free_ char *procs = brig_xasprintf("%s/cgroup.procs", made.cg);
	int go[2], res[2], status;
	_cleanup_close_ int pfd = -1;
	char pid[32];
	size_t have = 0;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(res, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	fflush(stdout);
	made.child = fork();
	if (made.child == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		close(go[1]);
		close(res[0]);
		child_probe(go[0], res[1], dfd);
	}
	close(go[0]);
	close(res[1]);
	if (made.child < 0)
		goto fail;
	pfd = open(procs, O_WRONLY | O_CLOEXEC);
	snprintf(pid, sizeof(pid), "%d", (int)made.child);
	if (pfd < 0 || write(pfd, pid, strlen(pid)) != (ssize_t)strlen(pid)) {
		printf("# move the child into \"%s\": %s\n", made.cg, strerror(errno));
		goto fail;
	}
	if (write(go[1], "g", 1) != 1)
		goto fail;
	close(go[1]);
	go[1] = -1;
	while (have < n_probes * sizeof(int)) {
		ssize_t r = read(res[0], (char *)got + have, n_probes * sizeof(int) - have);

		if (r <= 0)
			break;
		have += (size_t)r;
	}
	close(res[0]);
	waitpid(made.child, &status, 0);
	made.child = -1;
	if (have != n_probes * sizeof(int) || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return 0;
fail:
	if (go[1] >= 0)
		close(go[1]);
	close(res[0]);
	if (made.child > 0) {
		kill(made.child, SIGKILL);
		waitpid(made.child, NULL, 0);
		made.child = -1;
	}
	return -1;
}

/* Apply @rules to the test cgroup and check each probe against the
 * reference.  Returns the number of mismatches, -1 if it could not run. */
static int check_list(int cgfd, int dfd, const char *name, const struct brig_dev_rule *rules,
                      size_t n)
{
	struct brig_error err = BRIG_ERROR_INIT;
	int got[ARRAY_SIZE(probes)];
	int bad = 0;

	if (brig_devices_bpf_apply(cgfd, rules, n, &err) < 0) {
		printf("# %s: %s\n", name, err.msg);
		brig_error_release(&err);
		return -1;
	}
	if (run_probes(dfd, got) < 0) {
		printf("# %s: the child did not report\n", name);
		return -1;
	}
	for (size_t i = 0; i < n_probes; i++) {
		const struct probe *p = &probes[i];
		bool want = brig_devices_allowed(rules, n, p->type, p->major, p->minor, p->access);
		char buf[64];

		if ((got[i] != EPERM) != want) {
			printf("# %s: %s: %s, want %s\n", name, probe_name(p, buf, sizeof(buf)),
			       got[i] ? strerror(got[i]) : "allowed", want ? "allowed" : "EPERM");
			bad++;
		}
	}
	return bad;
}

static uint32_t rnd_state = 2463534242u;

static uint32_t rnd(uint32_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state % n;
}

/* A rule about the probed devices, or near them. */
static struct brig_dev_rule random_rule(int64_t cfree, int64_t bfree)
{
	const char types[] = { 'a', 'c', 'b', 'c' };
	const int64_t majors[] = { -1, 1, cfree, bfree, 136, 1 };
	const int64_t minors[] = { -1, 0, 1, 3, 5, -1 };

	return (struct brig_dev_rule){
		.allow = rnd(2) == 0,
		.type = types[rnd(ARRAY_SIZE(types))],
		.major = majors[rnd(ARRAY_SIZE(majors))],
		.minor = minors[rnd(ARRAY_SIZE(minors))],
		.access = 1 + rnd(7),
	};
}

static void test_behaviour(int cgfd, int64_t cfree, int64_t bfree)
{
	static const struct brig_dev_rule allow_null[] = { { true, 'c', 1, 3, RW } };
	static const struct brig_dev_rule deny_null[] = { { true, 'c', 1, 3, RW },
		                                          { false, 'c', 1, 3, RWM } };
	static const struct list *const fixed[] = {
		&runc,      &allow_then_deny_w, &deny_w_then_allow, &split_r_w,
		&all_but_r, &later_wins,        &any_major,         &deny_all
	};
	struct brig_dev_rule big[300];
	_cleanup_close_ int dfd = -1;
	int got[ARRAY_SIZE(probes)];
	struct brig_error err = BRIG_ERROR_INIT;
	int bad;

	if (make_probes(cfree, bfree) < 0) {
		if (errno == EPERM) {
			diag("skip: no mknod(2) here");
			return;
		}
		printf("# make the device nodes: %s\n", strerror(errno));
		ok(false, "device nodes to probe");
		return;
	}
	dfd = open(made.tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	{
		/* nothing filters this process: a refusal is the mount's */
		int fd = openat(dfd, node_names[0], O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			printf("# skip: open a device node in \"%s\": %s\n", made.tmp,
			       strerror(errno));
			return;
		}
		close(fd);
	}

	/* the host's /dev/null, allowed then denied */
	if (brig_devices_bpf_apply(cgfd, allow_null, 1, &err) == 0 && run_probes(dfd, got) == 0)
		is_int(got[n_probes - 1], 0, "c 1:3 rw allowed: open(\"/dev/null\", O_RDWR) works");
	else
		ok(false, "c 1:3 rw allowed: the child ran (%s)", err.msg ? err.msg : "no report");
	brig_error_release(&err);
	if (brig_devices_bpf_apply(cgfd, deny_null, 2, &err) == 0 && run_probes(dfd, got) == 0)
		is_int(got[n_probes - 1], EPERM,
		       "c 1:3 denied: open(\"/dev/null\", O_RDWR) fails with EPERM");
	else
		ok(false, "c 1:3 denied: the child ran (%s)", err.msg ? err.msg : "no report");
	brig_error_release(&err);

	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		is_int(check_list(cgfd, dfd, fixed[i]->name, fixed[i]->rules, fixed[i]->n), 0,
		       "in the kernel, %s: open and mknod as brig_devices_allowed() says",
		       fixed[i]->name);
	is_int(check_list(cgfd, dfd, "no rules", NULL, 0), 0,
	       "in the kernel, no rules: everything denied");

	bad = 0;
	for (int k = 0; k < 40 && bad == 0; k++) {
		struct brig_dev_rule rules[12];
		size_t n = rnd(ARRAY_SIZE(rules) + 1);
		char name[32];

		for (size_t i = 0; i < n; i++)
			rules[i] = random_rule(cfree, bfree);
		snprintf(name, sizeof(name), "generated list %d", k);
		bad = check_list(cgfd, dfd, name, rules, n);
	}
	is_int(bad, 0, "in the kernel, 40 generated lists of up to 12 rules: as the reference");

	for (size_t i = 0; i < ARRAY_SIZE(big); i++)
		big[i] = random_rule(cfree, bfree);
	is_int(check_list(cgfd, dfd, "300 rules", big, ARRAY_SIZE(big)), 0,
	       "in the kernel, 300 generated rules: as the reference");
	{
		uint32_t ids[8];

		if (query(cgfd, 0, ids, ARRAY_SIZE(ids), NULL) == 1)
			printf("# 300 rules: %ld instructions\n", prog_insns(ids[0]));
	}
}

static void test_kernel(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	const char *mnt = cgroup2_mount();
	_cleanup_free_ char *own = NULL;
	_cleanup_close_ int cgfd = -1;
	_cleanup_close_ int subfd = -1;
	uint32_t ids[8], first = 0, flags = 0;
	size_t n;
	int64_t cfree, bfree;

	if (geteuid() != 0) {
		diag("skip: the program in the kernel needs root");
		return;
	}
	if (!mnt) {
		diag("skip: no cgroup2 hierarchy at /sys/fs/cgroup or /sys/fs/cgroup/unified");
		return;
	}
	own = own_cgroup();
	if (!own) {
		diag("skip: no \"0::\" line in /proc/self/cgroup");
		return;
	}
	atexit(cleanup);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	made.cg = brig_xasprintf("%s%s%sbrig-test-devices-%d", mnt, own,
	                         own[strlen(own) - 1] == '/' ? "" : "/", (int)getpid());
	if (mkdir(made.cg, 0755) < 0) {
		printf("# skip: mkdir \"%s\": %s\n", made.cg, strerror(errno));
		free(made.cg);
		made.cg = NULL;
		return;
	}
	cgfd = open(made.cg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!ok(cgfd >= 0, "open the test cgroup \"%s\"", made.cg))
		return;

	if (brig_devices_bpf_apply(cgfd, runc_default, ARRAY_SIZE(runc_default), &err) < 0 &&
	    err.errnum == EPERM && strncmp(err.msg, "load ", 5) == 0) {
		/* root without CAP_BPF/CAP_SYS_ADMIN, as in a container */
		printf("# skip: %s\n", err.msg);
		brig_error_release(&err);
		return;
	}
	if (!ok(!err.msg, "apply runc's default list")) {
		printf("# %s\n", err.msg);
		brig_error_release(&err);
		return;
	}
	n = query(cgfd, 0, ids, ARRAY_SIZE(ids), &flags);
	is_int((long long)n, 1, "one device program is attached");
	ok(flags == BPF_F_ALLOW_MULTI, "it is attached with BPF_F_ALLOW_MULTI");
	if (n == 1) {
		first = ids[0];
		printf("# runc's default list: %ld instructions\n", prog_insns(first));
	}

	ok(brig_devices_bpf_apply(cgfd, runc_default, ARRAY_SIZE(runc_default), &err) == 0,
	   "apply again, as an update does");
	brig_error_release(&err);
	n = query(cgfd, 0, ids, ARRAY_SIZE(ids), NULL);
	is_int((long long)n, 1, "still one device program is attached");
	ok(n == 1 && ids[0] != first, "it is the new one: the old one was detached");

	{
		/* many "c M:m" rules: the verifier's time must stay linear */
		static struct brig_dev_rule many[1000];

		for (size_t i = 0; i < ARRAY_SIZE(many); i++)
			many[i] = (struct brig_dev_rule){ true, 'c', (int64_t)i, (int64_t)i, RWM };
		if (!ok(brig_devices_bpf_apply(cgfd, many, ARRAY_SIZE(many), &err) == 0,
		        "1000 rules \"c i:i rwm\" load and attach"))
			printf("# %s\n", err.msg);
		brig_error_release(&err);
		if (query(cgfd, 0, ids, ARRAY_SIZE(ids), NULL) == 1)
			printf("# 1000 rules: %ld instructions\n", prog_insns(ids[0]));
	}

	/* a program attached without BPF_F_ALLOW_MULTI, in a child cgroup */
	made.sub = brig_xasprintf("%s/single", made.cg);
	if (mkdir(made.sub, 0755) == 0 &&
	    (subfd = open(made.sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0 &&
	    attach_single(subfd) == 0) {
		int r = brig_devices_bpf_apply(subfd, runc_default, ARRAY_SIZE(runc_default), &err);

		ok(r < 0 && err.msg && strstr(err.msg, "without BPF_F_ALLOW_MULTI"),
		   "a program attached without BPF_F_ALLOW_MULTI is named: %s",
		   err.msg ? err.msg : "(no error)");
		brig_error_release(&err);
	} else {
		printf("# attach a single program: %s\n", strerror(errno));
		ok(false, "a program attached without BPF_F_ALLOW_MULTI is named");
	}
	close(subfd);
	subfd = -1;
	if (ok(rmdir(made.sub) == 0, "remove the child cgroup")) {
		free(made.sub);
		made.sub = NULL;
	}

	/* programs attached above the test cgroup would deny on their own */
	if (query(cgfd, BPF_F_QUERY_EFFECTIVE, ids, ARRAY_SIZE(ids), NULL) != 1) {
		diag("skip: device programs are attached above the test cgroup");
	} else {
		cfree = free_major('c');
		bfree = free_major('b');
		if (cfree < 0 || bfree < 0)
			diag("skip: no free device major");
		else
			test_behaviour(cgfd, cfree, bfree);
	}

	close(cgfd);
	cgfd = -1;
	cleanup();
	ok(!made.cg && !made.tmp, "the test cgroup and the device nodes are removed");
}

int main(void)
{
	test_allowed();
	test_too_many();
	test_kernel();
	return tap_done();
}
