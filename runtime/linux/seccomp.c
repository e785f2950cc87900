/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The filter is built by libseccomp and exported as BPF into a memfd: the
 * program is read back into memory, so the init needs nothing but the
 * bytes and one seccomp(2).  libseccomp's own filter attributes (TSYNC,
 * LOG, SSB) only steer seccomp_load(), which brig does not use: the flags
 * go straight to seccomp(2), each checked against the kernel first.
 */
#include "config.h"
#include "linux/seccomp.h"

#include <ctype.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifdef HAVE_SECCOMP
#include <seccomp.h>
#endif

#include "linux/seccomp_cache.h"
#include "spec/spec.h"
#include "spec/state.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/jsonw.h"
#include "util/log.h"
#include "util/strbuf.h"

#ifndef SECCOMP_FILTER_FLAG_TSYNC_ESRCH
#define SECCOMP_FILTER_FLAG_TSYNC_ESRCH (1UL << 4)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

/* config.json's flag names and seccomp(2)'s bits */
static const struct {
	const char *name;
	unsigned int flag;
} flag_table[] = {
	{ "SECCOMP_FILTER_FLAG_TSYNC", SECCOMP_FILTER_FLAG_TSYNC },
	{ "SECCOMP_FILTER_FLAG_LOG", SECCOMP_FILTER_FLAG_LOG },
	{ "SECCOMP_FILTER_FLAG_SPEC_ALLOW", SECCOMP_FILTER_FLAG_SPEC_ALLOW },
	{ "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV },
};

static unsigned int flag_bit(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(flag_table); i++)
		if (strcmp(flag_table[i].name, name) == 0)
			return flag_table[i].flag;
	return 0;
}

/* The kernel checks the flags before it reads the program: a known flag
 * with a NULL program is EFAULT, an unknown one EINVAL. */
static bool kernel_takes_flag(unsigned int flag)
{
	/* WAIT_KILLABLE_RECV is only valid with a listener */
	if (flag == SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
		flag |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flag, NULL) < 0 && errno == EFAULT;
}

bool brig_seccomp_flag_supported(const char *name)
{
	unsigned int flag = flag_bit(name);

	return flag && kernel_takes_flag(flag);
}

bool brig_seccomp_action_supported(const char *name)
{
	static const struct {
		const char *name;
		uint32_t ret;
	} table[] = {
		{ "SCMP_ACT_KILL", SECCOMP_RET_KILL_THREAD },
		{ "SCMP_ACT_KILL_THREAD", SECCOMP_RET_KILL_THREAD },
		{ "SCMP_ACT_KILL_PROCESS", SECCOMP_RET_KILL_PROCESS },
		{ "SCMP_ACT_TRAP", SECCOMP_RET_TRAP },
		{ "SCMP_ACT_ERRNO", SECCOMP_RET_ERRNO },
		{ "SCMP_ACT_TRACE", SECCOMP_RET_TRACE },
		{ "SCMP_ACT_ALLOW", SECCOMP_RET_ALLOW },
		{ "SCMP_ACT_LOG", SECCOMP_RET_LOG },
		{ "SCMP_ACT_NOTIFY", SECCOMP_RET_USER_NOTIF },
	};

	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (strcmp(table[i].name, name) == 0) {
			uint32_t ret = table[i].ret;

			return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &ret) == 0;
		}
	return false;
}

#ifdef HAVE_SECCOMP

/* "SCMP_ARCH_X86_64" -> libseccomp's token, 0 when unknown */
static uint32_t arch_token(const char *name)
{
	char lower[32];
	size_t i;

	if (strncmp(name, "SCMP_ARCH_", 10) != 0)
		return 0;
	name += 10;
	for (i = 0; i < sizeof(lower) - 1 && name[i]; i++)
		lower[i] = (char)tolower((unsigned char)name[i]);
	lower[i] = '\0';
	return seccomp_arch_resolve_name(lower);
}

bool brig_seccomp_arch_known(const char *name)
{
	return arch_token(name) != 0;
}

/* runc's mapping: KILL is KILL_THREAD, ERRNO and TRACE default to EPERM */
static uint32_t scmp_action(enum brig_seccomp_action a, const struct brig_opt_u32 *errno_ret)
{
	uint16_t e = errno_ret->set ? (uint16_t)errno_ret->value : EPERM;

	switch (a) {
	case BRIG_SCMP_ACT_KILL:
	case BRIG_SCMP_ACT_KILL_THREAD:
		return SCMP_ACT_KILL_THREAD;
	case BRIG_SCMP_ACT_KILL_PROCESS:
		return SCMP_ACT_KILL_PROCESS;
	case BRIG_SCMP_ACT_TRAP:
		return SCMP_ACT_TRAP;
	case BRIG_SCMP_ACT_ERRNO:
		return SCMP_ACT_ERRNO(e);
	case BRIG_SCMP_ACT_TRACE:
		return SCMP_ACT_TRACE(e);
	case BRIG_SCMP_ACT_LOG:
		return SCMP_ACT_LOG;
	case BRIG_SCMP_ACT_NOTIFY:
		return SCMP_ACT_NOTIFY;
	case BRIG_SCMP_ACT_ALLOW:
	default:
		return SCMP_ACT_ALLOW;
	}
}

static enum scmp_compare scmp_op(enum brig_seccomp_op op)
{
	switch (op) {
	case BRIG_SCMP_CMP_NE:
		return SCMP_CMP_NE;
	case BRIG_SCMP_CMP_LT:
		return SCMP_CMP_LT;
	case BRIG_SCMP_CMP_LE:
		return SCMP_CMP_LE;
	case BRIG_SCMP_CMP_GE:
		return SCMP_CMP_GE;
	case BRIG_SCMP_CMP_GT:
		return SCMP_CMP_GT;
	case BRIG_SCMP_CMP_MASKED_EQ:
		return SCMP_CMP_MASKED_EQ;
	case BRIG_SCMP_CMP_EQ:
	default:
		return SCMP_CMP_EQ;
	}
}

static void ctx_releasep(scmp_filter_ctx *ctx)
{
	if (*ctx)
		seccomp_release(*ctx);
}

/*
 * The rules of one syscalls[] entry for syscall @nr.  As runc: all args in
 * one rule (ANDed) unless two of them test the same argument; then one
 * rule per arg (ORed), which is what such profiles were written for.
 */
static int add_rules(scmp_filter_ctx ctx, uint32_t act, int nr,
                     const struct brig_seccomp_syscall *s)
{
	struct scmp_arg_cmp cmp[6];
	unsigned int count[6] = { 0 };
	bool repeated = false;
	int r;

	if (s->n_args == 0)
		return seccomp_rule_add_array(ctx, act, nr, 0, NULL);
	for (size_t i = 0; i < s->n_args; i++)
		if (++count[s->args[i].index % 6] > 1)
			repeated = true;
	for (size_t i = 0; i < s->n_args; i++) {
		const struct brig_seccomp_arg *a = &s->args[i];
		struct scmp_arg_cmp c = {
			.arg = a->index,
			.op = scmp_op(a->op),
			/* MASKED_EQ: value is the mask, valueTwo the datum */
			.datum_a = a->value,
			.datum_b = a->value_two,
		};

		if (repeated) {
			r = seccomp_rule_add_array(ctx, act, nr, 1, &c);
			if (r < 0)
				return r;
		} else {
			cmp[i] = c; /* distinct indexes: at most 6 */
		}
	}
	return repeated ? 0 : seccomp_rule_add_array(ctx, act, nr, (unsigned int)s->n_args, cmp);
}

static int check_notify(const struct brig_seccomp *sc, bool *notify, struct brig_error *err)
{
	*notify = false;
	if (sc->default_action == BRIG_SCMP_ACT_NOTIFY)
		return brig_error_set(err, "config.json: linux.seccomp.defaultAction: "
		                           "SCMP_ACT_NOTIFY cannot be the default action");
	for (size_t i = 0; i < sc->n_syscalls; i++) {
		const struct brig_seccomp_syscall *s = &sc->syscalls[i];

		if (s->action != BRIG_SCMP_ACT_NOTIFY)
			continue;
		*notify = true;
		/* the init hands the notify fd over with sendmsg: notified,
		 * it would wait for an agent that never gets the fd (runc
		 * refuses "write" for the same reason) */
		for (size_t k = 0; k < s->n_names; k++)
			if (strcmp(s->names[k], "sendmsg") == 0)
				return brig_error_set(
				    err,
				    "config.json: linux.seccomp.syscalls[%zu]: "
				    "SCMP_ACT_NOTIFY cannot be used for \"sendmsg\"",
				    i);
	}
	return 0;
}

static int prepare_flags(const struct brig_seccomp *sc, bool notify, unsigned int *out,
                         struct brig_error *err)
{
	unsigned int flags = 0;

	for (size_t i = 0; i < sc->n_flags; i++) {
		unsigned int bit = flag_bit(sc->flags[i]);

		if (!bit)
			return brig_error_set(err,
			                      "config.json: linux.seccomp.flags: \"%s\" is not "
			                      "known to brig",
			                      sc->flags[i]);
		if (!kernel_takes_flag(bit))
			return brig_error_set(err,
			                      "config.json: linux.seccomp.flags: \"%s\" is not "
			                      "supported by the kernel",
			                      sc->flags[i]);
		if (bit == SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV && !notify) {
			brig_debug("seccomp: %s ignored: no SCMP_ACT_NOTIFY rule", sc->flags[i]);
			continue;
		}
		flags |= bit;
	}
	if (notify) {
		flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
		/* the kernel takes TSYNC with a listener only this way */
		if (flags & SECCOMP_FILTER_FLAG_TSYNC)
			flags |= SECCOMP_FILTER_FLAG_TSYNC_ESRCH;
	}
	*out = flags;
	return 0;
}

static int build(const struct brig_seccomp *sc, scmp_filter_ctx ctx, uint32_t def,
                 struct brig_error *err)
{
	size_t n_rules = 0;
	int r;

	for (size_t i = 0; i < sc->n_architectures; i++) {
		uint32_t arch = arch_token(sc->architectures[i]);
		const struct scmp_version *v = seccomp_version();

		if (!arch)
			return brig_error_set(err,
			                      "config.json: linux.seccomp.architectures: \"%s\" is "
			                      "not known to libseccomp %u.%u.%u",
			                      sc->architectures[i], v->major, v->minor, v->micro);
		r = seccomp_arch_add(ctx, arch);
		if (r < 0 && r != -EEXIST)
			return brig_error_setp(err, -r, "seccomp: add architecture \"%s\"",
			                       sc->architectures[i]);
	}
	for (size_t i = 0; i < sc->n_syscalls; i++)
		n_rules += sc->syscalls[i].n_names;
	/* runc's choice: a binary tree of syscalls for long lists (and not
	 * for short ones, which libseccomp <= 2.5.4 gets wrong when empty) */
	if (n_rules > 32 && seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2) < 0)
		brig_debug("seccomp: binary tree optimization not available");
	for (size_t i = 0; i < sc->n_syscalls; i++) {
		const struct brig_seccomp_syscall *s = &sc->syscalls[i];
		uint32_t act = scmp_action(s->action, &s->errno_ret);

		/* libseccomp refuses a rule that does what the default does */
		if (act == def)
			continue;
		for (size_t k = 0; k < s->n_names; k++) {
			int nr = seccomp_syscall_resolve_name(s->names[k]);

			if (nr == __NR_SCMP_ERROR) {
				brig_debug("seccomp: unknown syscall \"%s\" skipped", s->names[k]);
				continue;
			}
			r = add_rules(ctx, act, nr, s);
			if (r < 0)
				return brig_error_setp(err, -r,
				                       "config.json: linux.seccomp.syscalls[%zu]: "
				                       "rule for \"%s\"",
				                       i, s->names[k]);
		}
	}
	return 0;
}

/* ------------------------------------------------------------ ENOSYS stub */

/*
 * A profile written before clone3, openat2, faccessat2 or close_range
 * existed denies them with its default action, EPERM, where glibc, Go and
 * busybox fall back to the older calls only on ENOSYS.  runc's rule (its
 * "patchbpf" stub): for each architecture of the filter (the native one
 * always), a system call numbered above the highest one the profile names
 * gets ENOSYS, as from a kernel that does not have it; below that, the
 * profile decides as it is.  Not when the default action lets calls
 * through (allow, log, trace).  The stub goes before libseccomp's program,
 * which starts over from the architecture.
 */

#define X32_BIT 0x40000000u

struct stub_arch {
	uint32_t audit;  /* AUDIT_ARCH_* (x32 is x86_64's, with X32_BIT) */
	uint32_t native; /* the highest number named, 0: none */
	uint32_t x32;    /* x86_64 only: the same for x32 (X32_BIT included) */
	bool s390;       /* unknown calls come as number 0 (the multiplexer) */
};

struct stub {
	struct sock_filter *ins;
	size_t n, cap;
};

static size_t emit(struct stub *s, uint16_t code, uint32_t k)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 32;
		s->ins = brig_xrealloc(s->ins, s->cap * sizeof(*s->ins));
	}
	s->ins[s->n] = (struct sock_filter){ .code = code, .k = k };
	return s->n++;
}

/* The highest number among the syscalls @sc names, on @arch. */
static uint32_t highest_nr(const struct brig_seccomp *sc, uint32_t arch)
{
	uint32_t max = 0;

	for (size_t i = 0; i < sc->n_syscalls; i++)
		for (size_t k = 0; k < sc->syscalls[i].n_names; k++) {
			int nr = seccomp_syscall_resolve_name_arch(arch, sc->syscalls[i].names[k]);

			/* negative: unknown, or a pseudo number (not on this arch) */
			if (nr >= 0 && (uint32_t)nr > max)
				max = (uint32_t)nr;
		}
	return max;
}

/* The architectures of the stub: @sc's and the native one. */
static size_t stub_arches(const struct brig_seccomp *sc, struct stub_arch *out, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i <= sc->n_architectures; i++) {
		uint32_t tok = i < sc->n_architectures ? arch_token(sc->architectures[i])
		                                       : seccomp_arch_native();
		uint32_t audit = tok == SCMP_ARCH_X32 ? SCMP_ARCH_X86_64 : tok;
		uint32_t max = tok ? highest_nr(sc, tok) : 0;
		size_t k;

		if (!tok)
			continue;
		for (k = 0; k < n && out[k].audit != audit; k++)
			;
		if (k == n) {
			if (n == cap)
				continue;
			out[n++] = (struct stub_arch){ .audit = audit };
		}
		if (tok == SCMP_ARCH_X32)
			out[k].x32 = max;
		else
			out[k].native = max;
		out[k].s390 = tok == SCMP_ARCH_S390 || tok == SCMP_ARCH_S390X;
	}
	return n;
}

/* One architecture's section: with the number in A, ENOSYS above its
 * highest, else on to the filter (each "ja" is fixed up by the caller). */
static void stub_section(struct stub *s, const struct stub_arch *a, size_t *jas, size_t *n_jas)
{
	size_t arch, gts[3], n_gts = 0, ret;

	arch = emit(s, BPF_JMP | BPF_JEQ | BPF_K, a->audit);
	emit(s, BPF_LD | BPF_W | BPF_ABS, (uint32_t)offsetof(struct seccomp_data, nr));
	if (a->audit == SCMP_ARCH_X86_64) {
		size_t jset = emit(s, BPF_JMP | BPF_JSET | BPF_K, X32_BIT);

		if (a->native)
			gts[n_gts++] = emit(s, BPF_JMP | BPF_JGT | BPF_K, a->native);
		jas[(*n_jas)++] = emit(s, BPF_JMP | BPF_JA, 0);
		s->ins[jset].jt = (uint8_t)(s->n - (jset + 1));
		/* an x32 call, when x32 is not in the filter, is the filter's
		 * to refuse (its bad-architecture action) */
		if (a->x32)
			gts[n_gts++] = emit(s, BPF_JMP | BPF_JGT | BPF_K, a->x32);
	} else {
		if (a->s390)
			gts[n_gts++] = emit(s, BPF_JMP | BPF_JEQ | BPF_K, 0);
		if (a->native)
			gts[n_gts++] = emit(s, BPF_JMP | BPF_JGT | BPF_K, a->native);
	}
	jas[(*n_jas)++] = emit(s, BPF_JMP | BPF_JA, 0);
	ret = emit(s, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
	for (size_t i = 0; i < n_gts; i++)
		s->ins[gts[i]].jt = (uint8_t)(ret - (gts[i] + 1));
	/* another architecture: the next section */
	s->ins[arch].jf = (uint8_t)(s->n - (arch + 1));
}

/* Put the stub before @out's program, when the default action wants one. */
static int enosys_stub(const struct brig_seccomp *sc, struct brig_seccomp_prog *out,
                       struct brig_error *err)
{
	struct stub_arch arches[16];
	size_t n_arches, jas[2 * ARRAY_SIZE(arches)], n_jas = 0;
	struct stub s = { 0 };
	void *all;

	switch (sc->default_action) {
	case BRIG_SCMP_ACT_ALLOW:
	case BRIG_SCMP_ACT_LOG:
	case BRIG_SCMP_ACT_TRACE:
		return 0;
	default:
		break;
	}
	n_arches = stub_arches(sc, arches, ARRAY_SIZE(arches));
	emit(&s, BPF_LD | BPF_W | BPF_ABS, (uint32_t)offsetof(struct seccomp_data, arch));
	for (size_t i = 0; i < n_arches; i++)
		if (arches[i].native || arches[i].x32)
			stub_section(&s, &arches[i], jas, &n_jas);
	/* every "ja" leads to the filter, right after the stub */
	for (size_t i = 0; i < n_jas; i++)
		s.ins[jas[i]].k = (uint32_t)(s.n - (jas[i] + 1));
	if (s.n + out->len > BPF_MAXINSNS) {
		free(s.ins);
		return brig_error_set(err,
		                      "seccomp: the filter has %zu instructions with its ENOSYS "
		                      "stub, the kernel takes at most %d",
		                      s.n + out->len, BPF_MAXINSNS);
	}
	all = brig_xmalloc((s.n + out->len) * sizeof(struct sock_filter));
	memcpy(all, s.ins, s.n * sizeof(struct sock_filter));
	memcpy((struct sock_filter *)all + s.n, out->insns, out->len * sizeof(struct sock_filter));
	free(out->insns);
	out->insns = all;
	out->len = (unsigned short)(s.n + out->len);
	free(s.ins);
	return 0;
}

/* seccomp_export_bpf into a memfd (a pipe would block past its size) */
static int export_bpf(scmp_filter_ctx ctx, struct brig_seccomp_prog *out, struct brig_error *err)
{
	_cleanup_close_ int fd = memfd_create("brig-seccomp", MFD_CLOEXEC);
	_cleanup_free_ void *buf = NULL;
	off_t size;
	int r;

	if (fd < 0)
		return brig_error_setp(err, errno, "seccomp: memfd_create");
	r = seccomp_export_bpf(ctx, fd);
	if (r < 0)
		return brig_error_setp(err, -r, "seccomp: export the filter");
	size = lseek(fd, 0, SEEK_END);
	if (size < 0)
		return brig_error_setp(err, errno, "seccomp: export the filter");
	if (size == 0 || size % (off_t)sizeof(struct sock_filter) ||
	    size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS)
		return brig_error_set(err,
		                      "seccomp: the filter has %lld instructions, the kernel "
		                      "takes 1 to %d",
		                      (long long)(size / (off_t)sizeof(struct sock_filter)),
		                      BPF_MAXINSNS);
	buf = brig_xmalloc((unsigned long)size);
	if (pread(fd, buf, (size_t)size, 0) != size)
		return brig_error_setp(err, errno ? errno : EIO, "seccomp: read the filter back");
	out->insns = TAKE_PTR(buf);
	out->len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
	return 0;
}

/* What else the program depends on, for the cache key */
static void cache_env(struct brig_strbuf *sb)
{
	const struct scmp_version *v = seccomp_version();
	struct utsname u;

	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	brig_strbuf_addf(sb, "brig %s %s; libseccomp %u.%u.%u; kernel %s %s; native %u",
	                 PACKAGE_VERSION, BRIG_COMMIT, v->major, v->minor, v->micro, u.release,
	                 u.version, seccomp_arch_native());
}

int brig_seccomp_prepare(const struct brig_seccomp *sc, int rootfd, struct brig_seccomp_prog *out,
                         struct brig_error *err)
{
	_cleanup_(ctx_releasep) scmp_filter_ctx ctx = NULL;
	struct brig_strbuf env = BRIG_STRBUF_INIT, key = BRIG_STRBUF_INIT;
	uint32_t def;
	bool notify;
	int r = -1;

	*out = (struct brig_seccomp_prog)BRIG_SECCOMP_PROG_INIT;
	if (check_notify(sc, &notify, err) < 0 || prepare_flags(sc, notify, &out->flags, err) < 0)
		return -1;
	out->notify = notify;
	cache_env(&env);
	brig_seccomp_cache_key(sc, env.buf, &key);
	out->insns = brig_seccomp_cache_get(rootfd, key.buf, key.len, &out->len);
	if (out->insns) {
		brig_debug("seccomp: filter from the cache (%u instructions)", out->len);
		r = 0;
		goto done;
	}
	def = scmp_action(sc->default_action, &sc->default_errno_ret);
	ctx = seccomp_init(def);
	if (!ctx) {
		brig_error_set(err, "seccomp: cannot create a filter with default action %s",
		               brig_seccomp_action_name(sc->default_action));
		goto done;
	}
	if (build(sc, ctx, def, err) < 0 || export_bpf(ctx, out, err) < 0 ||
	    enosys_stub(sc, out, err) < 0)
		goto done;
	brig_debug("seccomp: filter compiled (%u instructions)", out->len);
	brig_seccomp_cache_put(rootfd, key.buf, key.len, out->insns, out->len);
	r = 0;
done:
	brig_strbuf_release(&env);
	brig_strbuf_release(&key);
	return r;
}

#else /* !HAVE_SECCOMP */

bool brig_seccomp_arch_known(const char *name)
{
	return false;
}

int brig_seccomp_prepare(const struct brig_seccomp *sc, int rootfd, struct brig_seccomp_prog *out,
                         struct brig_error *err)
{
	*out = (struct brig_seccomp_prog)BRIG_SECCOMP_PROG_INIT;
	return brig_error_set(err, "config.json: linux.seccomp: brig was built without seccomp "
	                           "support (--disable-seccomp)");
}

#endif

void brig_seccomp_prog_release(struct brig_seccomp_prog *prog)
{
	free(prog->insns);
	*prog = (struct brig_seccomp_prog)BRIG_SECCOMP_PROG_INIT;
}

enum brig_seccomp_when brig_seccomp_when(const struct brig_seccomp_prog *prog, bool no_new_privs)
{
	if (!prog || !prog->insns)
		return BRIG_SECCOMP_NONE;
	if (!no_new_privs)
		return BRIG_SECCOMP_BEFORE_CAPS;
	return prog->notify ? BRIG_SECCOMP_BEFORE_READY : BRIG_SECCOMP_LAST;
}

int brig_seccomp_load(const struct brig_seccomp_prog *prog, struct brig_error *err)
{
	struct sock_fprog fprog = { .len = prog->len, .filter = prog->insns };
	long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, prog->flags, &fprog);

	if (r < 0)
		return brig_error_setp(err, errno, "load the seccomp filter");
	return prog->notify ? (int)r : 0;
}

static char *process_state_json(const struct brig_seccomp *sc, pid_t pid,
                                const struct brig_state *state)
{
	struct brig_jsonw w;

	brig_jsonw_init(&w, NULL);
	brig_jsonw_object_begin(&w);
	brig_jsonw_kv_string(&w, "ociVersion", BRIG_SPEC_VERSION);
	brig_jsonw_key(&w, "fds");
	brig_jsonw_array_begin(&w);
	brig_jsonw_string(&w, "seccompFd");
	brig_jsonw_array_end(&w);
	brig_jsonw_kv_int(&w, "pid", pid);
	if (sc->listener_metadata && *sc->listener_metadata)
		brig_jsonw_kv_string(&w, "metadata", sc->listener_metadata);
	brig_jsonw_key(&w, "state");
	brig_state_write_hook(&w, state, state->status);
	brig_jsonw_object_end(&w);
	return brig_jsonw_finish(&w);
}

int brig_seccomp_send_listener(const struct brig_seccomp *sc, int notify_fd, pid_t pid,
                               const struct brig_state *state, struct brig_error *err)
{
	const char *path = sc->listener_path;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	_cleanup_close_ int sock = -1;
	_cleanup_free_ char *json = NULL;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	size_t len, done = 0;

	if (strlen(path) >= sizeof(addr.sun_path))
		return brig_error_set(err, "seccomp listener \"%s\": path too long for a socket",
		                      path);
	memcpy(addr.sun_path, path, strlen(path) + 1);
	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		char ebuf[128];
		int e = errno;

		/* runc's words, which callers match */
		return brig_error_sete(err, e,
		                       "failed to connect with seccomp agent specified in the "
		                       "seccomp profile: dial unix %s: connect: %s",
		                       path, brig_strerror_go(e, ebuf, sizeof(ebuf)));
	}
	json = process_state_json(sc, pid, state);
	len = strlen(json);
	/* the fd goes with the first sendmsg, the rest of a long state after */
	memset(&ctl, 0, sizeof(ctl));
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof(ctl.buf);
	CMSG_FIRSTHDR(&msg)->cmsg_level = SOL_SOCKET;
	CMSG_FIRSTHDR(&msg)->cmsg_type = SCM_RIGHTS;
	CMSG_FIRSTHDR(&msg)->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(CMSG_FIRSTHDR(&msg)), &notify_fd, sizeof(int));
	while (done < len) {
		ssize_t n;

		iov.iov_base = json + done;
		iov.iov_len = len - done;
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return brig_error_setp(err, errno, "send to the seccomp listener \"%s\"",
			                       path);
		done += (size_t)n;
		msg.msg_control = NULL;
		msg.msg_controllen = 0;
	}
	return 0;
}
