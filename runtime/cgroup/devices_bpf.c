/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The program decides each access bit on its own, as brig_devices_allowed()
 * does: the kernel asks once per open(2) with every bit the open needs
 * (READ|WRITE for O_RDWR), and a rule list may allow one bit of a device
 * and deny another.  Bits that the same rules decide (all of them, for a
 * list of "rwm" rules) share one section:
 *
 *         r2 = type, r3 = access, r4 = major, r5 = minor
 *         if r3 & ~(MKNOD|READ|WRITE) goto deny
 *   s1:   if !(r3 & bits of s1) goto s2
 *         for each rule of s1, last first:
 *             if r2 != type goto next_rule          (unless 'a')
 *             if r4 != major goto forget_type       (unless -1)
 *             if r5 != minor goto forget_major      (unless -1)
 *             goto allow ? s2 : deny
 *         forget_major: r4 = major                  (load it again)
 *         forget_type:  r2 = type
 *         next_rule: ...
 *         goto deny                                 (no rule decided)
 *   s2:   ... up to three sections, then
 *         return 1
 *   deny: return 0
 *
 * The rules of a section are those that can decide: not one that a later
 * rule covers (it is never reached), nothing before a rule without
 * conditions, no deny left at the end (it decides as no match does).  The
 * verifier refuses unreachable instructions, so none is emitted.
 *
 * The loads again after a partial match keep the verifier linear: else the
 * type or major it learnt there is a new state that it walks to the end
 * of the section, and a list of many "c M:m" rules takes it quadratic
 * time, past its limit of a million instructions at about a thousand rules.
 *
 * No helper is called, so the license string does not matter to the
 * kernel; it is runc's.
 */
#include "config.h"
#include "cgroup/devices_bpf.h"

#include <errno.h>
#include <linux/bpf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/error.h"

#define DEVCG_ACC_ALL (BPF_DEVCG_ACC_MKNOD | BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE)

/* the sections, in program order: the kernel's bit and brig's */
static const struct {
	unsigned int kernel, brig;
} access_bits[] = {
	{ BPF_DEVCG_ACC_MKNOD, BRIG_DEV_MKNOD },
	{ BPF_DEVCG_ACC_READ, BRIG_DEV_READ },
	{ BPF_DEVCG_ACC_WRITE, BRIG_DEV_WRITE },
};

#define BRIG_DEV_ALL (BRIG_DEV_READ | BRIG_DEV_WRITE | BRIG_DEV_MKNOD)

static bool number_matches(int64_t rule, int64_t n)
{
	return rule == -1 || rule == n;
}

static bool rule_matches(const struct brig_dev_rule *r, char type, int64_t major, int64_t minor)
{
	return (r->type == 'a' || r->type == type) && number_matches(r->major, major) &&
	       number_matches(r->minor, minor);
}

bool brig_devices_allowed(const struct brig_dev_rule *rules, size_t n, char type, int64_t major,
                          int64_t minor, unsigned int access)
{
	if (access & ~BRIG_DEV_ALL)
		return false;
	for (size_t b = 0; b < ARRAY_SIZE(access_bits); b++) {
		unsigned int bit = access_bits[b].brig;
		bool allowed = false;

		if (!(access & bit))
			continue;
		for (size_t i = n; i-- > 0;)
			if ((rules[i].access & bit) &&
			    rule_matches(&rules[i], type, major, minor)) {
				allowed = rules[i].allow;
				break;
			}
		if (!allowed)
			return false;
	}
	return true;
}

/* ------------------------------------------------------------ the program */

struct prog {
	struct bpf_insn *insn;
	size_t n, alloc;
	bool too_far; /* a jump does not fit its 16 bits */
};

/* The jumps that wait for the index of their target. */
struct fixups {
	size_t *at;
	size_t n, alloc;
};

static void prog_release(struct prog *p)
{
	free(p->insn);
}

static void fixups_release(struct fixups *f)
{
	free(f->at);
}

static size_t emit(struct prog *p, uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	if (p->n == p->alloc) {
		p->alloc = p->alloc ? 2 * p->alloc : 64;
		p->insn = brig_xrealloc(p->insn, p->alloc * sizeof(*p->insn));
	}
	p->insn[p->n] = (struct bpf_insn){
		.code = code,
		.dst_reg = dst,
		.src_reg = src,
		.off = off,
		.imm = imm,
	};
	return p->n++;
}

/* A jump whose target @f will name; its offset is filled by resolve(). */
static void emit_jump(struct prog *p, struct fixups *f, uint8_t code, uint8_t dst, uint8_t src,
                      int32_t imm)
{
	if (f->n == f->alloc) {
		f->alloc = f->alloc ? 2 * f->alloc : 16;
		f->at = brig_xrealloc(f->at, f->alloc * sizeof(*f->at));
	}
	f->at[f->n++] = emit(p, code, dst, src, 0, imm);
}

/* Point every jump of @f at the next instruction to be emitted. */
static void resolve(struct prog *p, struct fixups *f)
{
	for (size_t i = 0; i < f->n; i++) {
		size_t off = p->n - f->at[i] - 1;

		if (off > INT16_MAX)
			p->too_far = true;
		else
			p->insn[f->at[i]].off = (int16_t)off;
	}
	f->n = 0;
}

/* Jump to @f unless @reg (a zero-extended u32) equals @value (0..UINT32_MAX). */
static void emit_jne(struct prog *p, struct fixups *f, uint8_t reg, int64_t value)
{
	if (value <= INT32_MAX) {
		emit_jump(p, f, BPF_JMP | BPF_JNE | BPF_K, reg, 0, (int32_t)value);
		return;
	}
	/* an imm is sign-extended to 64 bits: compare with a register that
	 * a 32-bit mov zero-extends (r0, set only before exit) */
	emit(p, BPF_ALU | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, (int32_t)(uint32_t)value);
	emit_jump(p, f, BPF_JMP | BPF_JNE | BPF_X, reg, BPF_REG_0, 0);
}

static bool number_can_match(int64_t n)
{
	return n >= -1 && n <= (int64_t)UINT32_MAX;
}

/* Whether @r can match what the kernel asks about: a char or block device
 * with u32 numbers. */
static bool rule_can_match(const struct brig_dev_rule *r)
{
	return (r->type == 'a' || r->type == 'c' || r->type == 'b') && number_can_match(r->major) &&
	       number_can_match(r->minor);
}

static bool unconditional(const struct brig_dev_rule *r)
{
	return r->type == 'a' && r->major == -1 && r->minor == -1;
}

/* r2 = ctx->access_type & 0xffff: the type */
static void emit_type(struct prog *p)
{
	emit(p, BPF_LDX | BPF_W | BPF_MEM, BPF_REG_2, BPF_REG_1,
	     (int16_t)offsetof(struct bpf_cgroup_dev_ctx, access_type), 0);
	emit(p, BPF_ALU | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xffff);
}

/* Whether every device @b matches is matched by @a too. */
static bool covers(const struct brig_dev_rule *a, const struct brig_dev_rule *b)
{
	return (a->type == 'a' || a->type == b->type) && (a->major == -1 || a->major == b->major) &&
	       (a->minor == -1 || a->minor == b->minor);
}

/* Whether a rule has a say on the bits @bmask of a section. */
static bool in_section(const struct brig_dev_rule *r, unsigned int bmask)
{
	return (r->access & bmask) && rule_can_match(r);
}

/*
 * The rules that decide the bits @bmask (which every rule has all or none
 * of), last first, into @keep: those that can be reached and can change
 * the verdict.  A rule covered by a later one is never reached; nothing
 * before a rule without conditions is; the deny rules left at the end
 * decide as no match does.
 */
static size_t section_rules(const struct brig_dev_rule *rules, size_t n, unsigned int bmask,
                            const struct brig_dev_rule **keep)
{
	size_t k = 0;

	for (size_t i = n; i-- > 0;) {
		bool shadowed = false;

		if (!in_section(&rules[i], bmask))
			continue;
		for (size_t j = 0; j < k && !shadowed; j++)
			shadowed = covers(keep[j], &rules[i]);
		if (shadowed)
			continue;
		keep[k++] = &rules[i];
		if (unconditional(&rules[i]))
			break;
	}
	while (k > 0 && !keep[k - 1]->allow)
		k--;
	return k;
}

/*
 * The section of the kernel's access bits @kmask (brig's @bmask), which the
 * same rules decide; @deny collects the jumps to "return 0".
 */
static void emit_section(struct prog *p, const struct brig_dev_rule *rules, size_t n,
                         unsigned int kmask, unsigned int bmask, struct fixups *deny)
{
	_cleanup_(fixups_release) struct fixups next = { 0 };
	_cleanup_(fixups_release) struct fixups next_rule = { 0 };
	_cleanup_(fixups_release) struct fixups forget_major = { 0 };
	_cleanup_(fixups_release) struct fixups forget_type = { 0 };
	_cleanup_free_ const struct brig_dev_rule **keep = NULL;
	size_t k;

	keep = brig_xcalloc(n, sizeof(*keep));
	k = section_rules(rules, n, bmask, keep);
	if (k == 0) {
		/* nothing allows these bits */
		emit_jump(p, deny, BPF_JMP | BPF_JSET | BPF_K, BPF_REG_3, 0, (int32_t)kmask);
		return;
	}
	if (k == 1 && unconditional(keep[0]))
		return; /* the last word allows these bits of anything */

	emit(p, BPF_JMP | BPF_JSET | BPF_K, BPF_REG_3, 0, 1, (int32_t)kmask);
	emit_jump(p, &next, BPF_JMP | BPF_JA, 0, 0, 0);
	for (size_t i = 0; i < k; i++) {
		const struct brig_dev_rule *r = keep[i];

		if (unconditional(r)) {
			/* the last one kept, and an allow (the denies at the
			 * end are dropped): fall through to the next section */
			resolve(p, &next);
			return;
		}
		if (r->type != 'a') {
			int32_t t = r->type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR;

			emit_jump(p, &next_rule, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 0, t);
		}
		if (r->major != -1)
			emit_jne(p, r->type != 'a' ? &forget_type : &next_rule, BPF_REG_4,
			         r->major);
		if (r->minor != -1)
			emit_jne(p,
			         r->major != -1   ? &forget_major
			         : r->type != 'a' ? &forget_type
			                          : &next_rule,
			         BPF_REG_5, r->minor);
		emit_jump(p, r->allow ? &next : deny, BPF_JMP | BPF_JA, 0, 0, 0);
		/*
		 * A rule that matched in part leaves the verifier knowing the
		 * type or the major, and each such value would be one more
		 * path for it to walk to the end of the program: load them
		 * again before the next rule, which makes every path there
		 * the same.
		 */
		if (forget_major.n) {
			resolve(p, &forget_major);
			emit(p, BPF_LDX | BPF_W | BPF_MEM, BPF_REG_4, BPF_REG_1,
			     (int16_t)offsetof(struct bpf_cgroup_dev_ctx, major), 0);
		}
		if (forget_type.n) {
			resolve(p, &forget_type);
			emit_type(p);
		}
		resolve(p, &next_rule);
	}
	emit_jump(p, deny, BPF_JMP | BPF_JA, 0, 0, 0);
	resolve(p, &next);
}

/* Whether the same rules decide the brig bits @a and @b. */
static bool same_rules(const struct brig_dev_rule *rules, size_t n, unsigned int a, unsigned int b)
{
	for (size_t i = 0; i < n; i++)
		if (rule_can_match(&rules[i]) && !(rules[i].access & a) != !(rules[i].access & b))
			return false;
	return true;
}

/* The program for @rules into @p; -1 with E2BIG when a jump is too long. */
static int generate(struct prog *p, const struct brig_dev_rule *rules, size_t n)
{
	_cleanup_(fixups_release) struct fixups deny = { 0 };
	unsigned int done = 0;

	/* r2 = type, r3 = ctx->access_type >> 16, r4 = major, r5 = minor */
	emit_type(p);
	emit(p, BPF_LDX | BPF_W | BPF_MEM, BPF_REG_3, BPF_REG_1,
	     (int16_t)offsetof(struct bpf_cgroup_dev_ctx, access_type), 0);
	emit(p, BPF_ALU | BPF_RSH | BPF_K, BPF_REG_3, 0, 0, 16);
	emit(p, BPF_LDX | BPF_W | BPF_MEM, BPF_REG_4, BPF_REG_1,
	     (int16_t)offsetof(struct bpf_cgroup_dev_ctx, major), 0);
	emit(p, BPF_LDX | BPF_W | BPF_MEM, BPF_REG_5, BPF_REG_1,
	     (int16_t)offsetof(struct bpf_cgroup_dev_ctx, minor), 0);
	/* a bit no rule can name is never allowed */
	emit_jump(p, &deny, BPF_JMP | BPF_JSET | BPF_K, BPF_REG_3, 0, ~(int32_t)DEVCG_ACC_ALL);

	/* one section per set of bits the same rules decide ("rwm" rules
	 * only: one section for all three) */
	for (size_t b = 0; b < ARRAY_SIZE(access_bits); b++) {
		unsigned int kmask = access_bits[b].kernel, bmask = access_bits[b].brig;

		if (done & bmask)
			continue;
		for (size_t c = b + 1; c < ARRAY_SIZE(access_bits); c++)
			if (same_rules(rules, n, access_bits[b].brig, access_bits[c].brig)) {
				kmask |= access_bits[c].kernel;
				bmask |= access_bits[c].brig;
			}
		done |= bmask;
		emit_section(p, rules, n, kmask, bmask, &deny);
	}

	emit(p, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1);
	emit(p, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	resolve(p, &deny);
	emit(p, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	emit(p, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	if (p->too_far) {
		errno = E2BIG;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------- the kernel */

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static uint64_t ptr_u64(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/*
 * The verifier's reason: the last line of its log but the statistics
 * ("processed N insns ...", "verification time ..."), in place.  A log too
 * long for the buffer (ENOSPC, @cut) keeps its end since Linux 6.4, where
 * the statistics and the reason are, and its start before: without the
 * statistics, there is no reason in it.
 */
static const char *log_reason(char *log, bool cut)
{
	char *line = NULL, *save = NULL;
	bool stats = false;

	for (char *p = strtok_r(log, "\n", &save); p; p = strtok_r(NULL, "\n", &save))
		if (strncmp(p, "processed ", 10) == 0)
			stats = true;
		else if (strncmp(p, "verification time", 17) != 0)
			line = p;
	return cut && !stats ? NULL : line;
}

/*
 * Before Linux 5.11 a program is charged to RLIMIT_MEMLOCK, whose default
 * of 64 KiB is soon spent: EPERM.  Retry once with the limit raised, and
 * put it back, so that no process forked later inherits the raised one.
 */
static int load_with_memlock(union bpf_attr *attr)
{
	struct rlimit old, inf = { RLIM_INFINITY, RLIM_INFINITY };
	int fd, e;

	fd = sys_bpf(BPF_PROG_LOAD, attr);
	if (fd >= 0 || errno != EPERM || getrlimit(RLIMIT_MEMLOCK, &old) < 0)
		return fd;
	if (setrlimit(RLIMIT_MEMLOCK, &inf) < 0) {
		errno = EPERM;
		return -1;
	}
	fd = sys_bpf(BPF_PROG_LOAD, attr);
	e = errno;
	setrlimit(RLIMIT_MEMLOCK, &old);
	errno = e;
	return fd;
}

static int prog_load(const struct prog *p, struct brig_error *err)
{
	union bpf_attr attr;
	_cleanup_free_ char *log = NULL;
	const size_t log_size = 1 << 18;
	const char *reason;
	int fd, e;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	attr.insns = ptr_u64(p->insn);
	attr.insn_cnt = (uint32_t)p->n;
	attr.license = ptr_u64("Apache");
	memcpy(attr.prog_name, "brig_devices", sizeof("brig_devices"));

	fd = load_with_memlock(&attr);
	if (fd >= 0)
		return fd;
	e = errno;
	if (e != EACCES && e != EINVAL && e != E2BIG && e != EFAULT)
		return brig_error_setp(err, e, "load the device filter");

	/* again, for the verifier's reason: EACCES and EINVAL are its
	 * refusals, E2BIG and EFAULT its limits ("BPF program is too large",
	 * "The sequence of 8193 jumps is too complex": about 4000 rules) */
	log = brig_xcalloc(1, log_size);
	attr.log_level = 1;
	attr.log_buf = ptr_u64(log);
	attr.log_size = (uint32_t)log_size;
	fd = load_with_memlock(&attr);
	if (fd >= 0)
		return fd;
	reason = log_reason(log, errno == ENOSPC);
	if (!reason)
		return brig_error_setp(err, e, "load the device filter");
	return brig_error_sete(err, e, "load the device filter: %s: %s", strerror(e), reason);
}

/* The ids of the device programs attached to @cgroup_fd itself, and their
 * attach flags.  -1 with errno. */
static int prog_query(int cgroup_fd, uint32_t **ids, size_t *n, uint32_t *flags)
{
	uint32_t cnt = 64;

	*ids = NULL;
	for (int attempt = 0; attempt < 16; attempt++) {
		union bpf_attr attr;

		*ids = brig_xrealloc(*ids, cnt * sizeof(**ids));
		memset(&attr, 0, sizeof(attr));
		attr.query.target_fd = (uint32_t)cgroup_fd;
		attr.query.attach_type = BPF_CGROUP_DEVICE;
		attr.query.prog_ids = ptr_u64(*ids);
		attr.query.prog_cnt = cnt;
		if (sys_bpf(BPF_PROG_QUERY, &attr) == 0) {
			*n = attr.query.prog_cnt;
			*flags = attr.query.attach_flags;
			return 0;
		}
		if (errno != ENOSPC)
			break;
		/* more were attached meanwhile: prog_cnt is their number */
		cnt = attr.query.prog_cnt > cnt ? attr.query.prog_cnt + 8 : 2 * cnt;
	}
	free(*ids);
	*ids = NULL;
	return -1;
}

static int prog_attach(int cgroup_fd, int prog_fd, struct brig_error *err)
{
	union bpf_attr attr;
	_cleanup_free_ uint32_t *ids = NULL;
	uint32_t flags = 0;
	size_t n = 0;
	int e;

	memset(&attr, 0, sizeof(attr));
	attr.target_fd = (uint32_t)cgroup_fd;
	attr.attach_bpf_fd = (uint32_t)prog_fd;
	attr.attach_type = BPF_CGROUP_DEVICE;
	attr.attach_flags = BPF_F_ALLOW_MULTI;
	if (sys_bpf(BPF_PROG_ATTACH, &attr) == 0)
		return 0;
	e = errno;
	if (e != EPERM && e != EINVAL)
		return brig_error_setp(err, e, "attach the device filter to the cgroup");

	/* the kernel refuses (EPERM) to mix BPF_F_ALLOW_MULTI with a program
	 * attached without it, to this cgroup or to one above it; EINVAL is
	 * checked too, in case a kernel says so */
	if (prog_query(cgroup_fd, &ids, &n, &flags) == 0 && n > 0 && !(flags & BPF_F_ALLOW_MULTI))
		return brig_error_sete(err, e,
		                       "attach the device filter to the cgroup: %s: a device "
		                       "program is attached to it without BPF_F_ALLOW_MULTI",
		                       strerror(e));
	if (e == EPERM)
		return brig_error_sete(err, e,
		                       "attach the device filter to the cgroup: %s: is a device "
		                       "program attached to a parent cgroup without "
		                       "BPF_F_ALLOW_MULTI?",
		                       strerror(e));
	return brig_error_setp(err, e, "attach the device filter to the cgroup");
}

/* Detach the programs @ids (attached before ours) from @cgroup_fd. */
static int detach_old(int cgroup_fd, const uint32_t *ids, size_t n, struct brig_error *err)
{
	for (size_t i = 0; i < n; i++) {
		_cleanup_close_ int fd = -1;
		union bpf_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.prog_id = ids[i];
		fd = sys_bpf(BPF_PROG_GET_FD_BY_ID, &attr);
		if (fd < 0 && errno == ENOENT)
			continue; /* gone already */
		if (fd < 0)
			return brig_error_setp(err, errno,
			                       "detach the old device filter from the cgroup: "
			                       "open program %u",
			                       ids[i]);

		memset(&attr, 0, sizeof(attr));
		attr.target_fd = (uint32_t)cgroup_fd;
		attr.attach_bpf_fd = (uint32_t)fd;
		attr.attach_type = BPF_CGROUP_DEVICE;
		if (sys_bpf(BPF_PROG_DETACH, &attr) < 0 && errno != ENOENT)
			return brig_error_setp(err, errno,
			                       "detach the old device filter from the cgroup: "
			                       "program %u",
			                       ids[i]);
	}
	return 0;
}

int brig_devices_bpf_apply(int cgroup_fd, const struct brig_dev_rule *rules, size_t n,
                           struct brig_error *err)
{
	_cleanup_(prog_release) struct prog p = { 0 };
	_cleanup_free_ uint32_t *old = NULL;
	_cleanup_close_ int fd = -1;
	uint32_t flags = 0;
	size_t n_old = 0;

	if (generate(&p, rules, n) < 0)
		return brig_error_setp(err, errno,
		                       "load the device filter: %zu device rules are too many", n);
	fd = prog_load(&p, err);
	if (fd < 0)
		return -1;

	/* the programs to replace: those attached before ours */
	if (prog_query(cgroup_fd, &old, &n_old, &flags) < 0)
		return brig_error_setp(err, errno,
		                       "attach the device filter to the cgroup: "
		                       "query the attached programs");
	if (prog_attach(cgroup_fd, fd, err) < 0)
		return -1;
	/* the cgroup holds the program now; our fd goes */
	return detach_old(cgroup_fd, old, n_old, err);
}
