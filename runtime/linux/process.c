/* SPDX-License-Identifier: Apache-2.0 */
/*
 * process.* of config.json: names resolved in the parent, numbers applied
 * by the init.  Error wording follows runc where engines parse it (the exec
 * lookup errors are Go's os/exec ones, which Podman maps to 126/127).
 */
#include "config.h"
#include "linux/process.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/keyctl.h>
#include <linux/magic.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "linux/caps.h"
#include "linux/procfs.h"
#include "linux/selinux.h"
#include "linux/syscalls.h"
#include "linux/userns.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/strbuf.h"

/* ---------------------------------------------------------------- names */

struct name_value {
	const char *name;
	uint64_t value;
};

/* The kernel's values (include/uapi/linux/sched.h), spelled as the spec does. */
static const struct name_value sched_policies[] = {
	{ "SCHED_OTHER", 0 }, { "SCHED_FIFO", 1 }, { "SCHED_RR", 2 },       { "SCHED_BATCH", 3 },
	{ "SCHED_ISO", 4 },   { "SCHED_IDLE", 5 }, { "SCHED_DEADLINE", 6 },
};

static const struct name_value sched_flags[] = {
	{ "SCHED_FLAG_RESET_ON_FORK", 0x01 },  { "SCHED_FLAG_RECLAIM", 0x02 },
	{ "SCHED_FLAG_DL_OVERRUN", 0x04 },     { "SCHED_FLAG_KEEP_POLICY", 0x08 },
	{ "SCHED_FLAG_KEEP_PARAMS", 0x10 },    { "SCHED_FLAG_UTIL_CLAMP_MIN", 0x20 },
	{ "SCHED_FLAG_UTIL_CLAMP_MAX", 0x40 },
};

/* include/uapi/linux/ioprio.h */
#define BRIG_IOPRIO_CLASS_SHIFT 13
#define BRIG_IOPRIO_WHO_PROCESS 1

static const struct name_value ioprio_classes[] = {
	{ "IOPRIO_CLASS_RT", 1 },
	{ "IOPRIO_CLASS_BE", 2 },
	{ "IOPRIO_CLASS_IDLE", 3 },
};

static const struct name_value personality_domains[] = {
	{ "LINUX", PER_LINUX },
	{ "LINUX32", PER_LINUX32 },
};

static int lookup(const struct name_value *t, size_t n, const char *name, uint64_t *out)
{
	for (size_t i = 0; name && i < n; i++)
		if (strcmp(t[i].name, name) == 0) {
			*out = t[i].value;
			return 0;
		}
	return -1;
}

/* The kernel's struct sched_attr (SCHED_ATTR_SIZE_VER1); glibc 2.36 has none. */
struct brig_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

/* ---------------------------------------------------------------- CPU lists */

static int parse_uint(const char **p, unsigned long *out)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -1;
	errno = 0;
	*out = strtoul(*p, &end, 10);
	if (errno)
		return -1;
	*p = end;
	return 0;
}

/* The highest CPU a list may name: well past any kernel's NR_CPUS. */
#define CPU_LIST_MAX 65535UL

/*
 * "0-3,7" -> a CPU_ALLOC'd set of *size bytes.  With @set NULL only checks
 * the list.  Blanks around numbers are allowed, as runc's parser does.
 */
static int cpu_list_parse(const char *s, cpu_set_t **set, size_t *size, struct brig_error *err)
{
	unsigned long max = 0;
	cpu_set_t *cs = NULL;

	for (int pass = 0; pass < 2; pass++) {
		const char *p = s;

		if (pass == 1) {
			if (!set)
				return 0;
			cs = CPU_ALLOC(max + 1);
			if (!cs)
				brig_oom();
			*size = CPU_ALLOC_SIZE(max + 1);
			CPU_ZERO_S(*size, cs);
		}
		for (;;) {
			unsigned long a, b;

			while (*p == ' ')
				p++;
			if (parse_uint(&p, &a) < 0)
				goto bad;
			b = a;
			while (*p == ' ')
				p++;
			if (*p == '-') {
				p++;
				while (*p == ' ')
					p++;
				if (parse_uint(&p, &b) < 0)
					goto bad;
				while (*p == ' ')
					p++;
			}
			if (a > b || b > CPU_LIST_MAX)
				goto bad;
			if (pass == 0 && b > max)
				max = b;
			for (unsigned long c = a; pass == 1 && c <= b; c++)
				CPU_SET_S(c, *size, cs);
			if (*p == '\0')
				break;
			if (*p++ != ',')
				goto bad;
		}
	}
	*set = cs;
	return 0;
bad:
	CPU_FREE(cs);
	return brig_error_set(err, "invalid CPU list \"%s\"", s);
}

/* ---------------------------------------------------------------- prepare */

static int by_strcmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const struct brig_capabilities no_capabilities;

/*
 * Resolve the five capability lists.  Names unknown to libcap or to the
 * running kernel are skipped and reported in one warning, in runc's words.
 */
static int caps_prepare(const struct brig_capabilities *c, struct brig_capsets *out,
                        struct brig_error *err)
{
	const char **const lists[] = { c->bounding, c->effective, c->inheritable, c->permitted,
		                       c->ambient };
	const size_t counts[] = { c->n_bounding, c->n_effective, c->n_inheritable, c->n_permitted,
		                  c->n_ambient };
	uint64_t *const masks[] = { &out->bounding, &out->effective, &out->inheritable,
		                    &out->permitted, &out->ambient };
	_cleanup_free_ const char **unknown = NULL;
	size_t n_unknown = 0, total = 0;
	int last = brig_cap_last();

	for (size_t k = 0; k < ARRAY_SIZE(lists); k++)
		total += counts[k];
	/* names need libcap; empty sets do not */
	if (total && !brig_caps_supported())
		return brig_error_set(err, "process.capabilities: brig was built without libcap "
		                           "(--disable-caps) and cannot set capabilities");
	unknown = brig_xcalloc(total ? total : 1, sizeof(*unknown));
	for (size_t k = 0; k < ARRAY_SIZE(lists); k++) {
		for (size_t i = 0; i < counts[k]; i++) {
			int cap = brig_cap_from_name(lists[k][i]);

			if (cap < 0 || cap > last)
				unknown[n_unknown++] = lists[k][i];
			else
				*masks[k] |= 1ULL << cap;
		}
	}
	if (n_unknown) {
		struct brig_strbuf sb = BRIG_STRBUF_INIT;

		qsort(unknown, n_unknown, sizeof(*unknown), by_strcmp);
		for (size_t i = 0; i < n_unknown; i++) {
			if (i > 0 && strcmp(unknown[i], unknown[i - 1]) == 0)
				continue;
			brig_strbuf_addstr(&sb, i ? " " : "");
			brig_strbuf_addstr(&sb, unknown[i]);
		}
		brig_warn("ignoring unknown or unavailable capabilities: [%s]", sb.buf);
		brig_strbuf_release(&sb);
	}
	return 0;
}

/* runc's checks of process.scheduler (libcontainer/configs/validate). */
static int sched_prepare(const struct brig_scheduler *s, struct brig_process_plan *out,
                         struct brig_error *err)
{
	uint64_t v;
	bool deadline;

	if (lookup(sched_policies, ARRAY_SIZE(sched_policies), s->policy, &v) < 0)
		return brig_error_set(err, "unknown scheduler policy \"%s\"",
		                      s->policy ? s->policy : "");
	out->sched_policy = (int)v;
	if (s->nice < -20 || s->nice > 19)
		return brig_error_set(err, "invalid scheduler.nice: %d", (int)s->nice);
	if (s->priority != 0 && strcmp(s->policy, "SCHED_FIFO") != 0 &&
	    strcmp(s->policy, "SCHED_RR") != 0)
		return brig_error_set(err, "scheduler.priority can only be specified for "
		                           "SCHED_FIFO or SCHED_RR policy");
	deadline = strcmp(s->policy, "SCHED_DEADLINE") == 0;
	if (!deadline && (s->runtime || s->deadline || s->period))
		return brig_error_set(err, "scheduler runtime/deadline/period can only be "
		                           "specified for SCHED_DEADLINE policy");
	out->sched_flags = 0;
	for (size_t i = 0; i < s->n_flags; i++) {
		if (lookup(sched_flags, ARRAY_SIZE(sched_flags), s->flags[i], &v) < 0)
			return brig_error_set(err, "unknown scheduler flag \"%s\"", s->flags[i]);
		out->sched_flags |= v;
	}
	return 0;
}

int brig_process_prepare(const struct brig_process *p, const char *personality_domain,
                         struct brig_process_plan *out, struct brig_error *err)
{
	uint64_t v;

	memset(out, 0, sizeof(*out));
	out->sched_policy = -1;
	out->ioprio = -1;
	out->personality = -1;

	/* no process.capabilities is no capability at all (runc's reading),
	 * never whatever brig itself has */
	if (caps_prepare(p->capabilities ? p->capabilities : &no_capabilities, &out->caps, err) < 0)
		goto fail;
	if (p->scheduler && sched_prepare(p->scheduler, out, err) < 0)
		goto fail;
	if (p->io_priority) {
		const struct brig_io_priority *io = p->io_priority;

		if (lookup(ioprio_classes, ARRAY_SIZE(ioprio_classes), io->class_, &v) < 0) {
			brig_error_set(err, "unknown I/O priority class \"%s\"",
			               io->class_ ? io->class_ : "");
			goto fail;
		}
		if (io->priority < 0 || io->priority > 7) {
			brig_error_set(err, "invalid ioPriority.priority: %d", (int)io->priority);
			goto fail;
		}
		out->ioprio = (int)(v << BRIG_IOPRIO_CLASS_SHIFT) | io->priority;
	}
	if (personality_domain) {
		if (lookup(personality_domains, ARRAY_SIZE(personality_domains), personality_domain,
		           &v) < 0) {
			brig_error_set(err, "unknown personality domain \"%s\"",
			               personality_domain);
			goto fail;
		}
		out->personality = (int)v;
	}
	if (p->exec_cpu_affinity) {
		const struct brig_cpu_affinity *a = p->exec_cpu_affinity;

		if ((a->initial && cpu_list_parse(a->initial, NULL, NULL, err) < 0) ||
		    (a->final && cpu_list_parse(a->final, NULL, NULL, err) < 0)) {
			brig_error_wrap(err, "execCPUAffinity");
			goto fail;
		}
		out->cpus_initial = a->initial ? brig_xstrdup(a->initial) : NULL;
		out->cpus_final = a->final ? brig_xstrdup(a->final) : NULL;
	}
	return 0;
fail:
	brig_process_plan_release(out);
	return -1;
}

void brig_process_plan_release(struct brig_process_plan *plan)
{
	if (!plan)
		return;
	free(plan->cpus_initial);
	free(plan->cpus_final);
	plan->cpus_initial = NULL;
	plan->cpus_final = NULL;
}

/* ---------------------------------------------------------------- apply */

int brig_apply_rlimits(const struct brig_process *p, struct brig_error *err)
{
	for (size_t i = 0; i < p->n_rlimits; i++) {
		const struct brig_rlimit *rl = &p->rlimits[i];
		struct rlimit r = { .rlim_cur = rl->soft, .rlim_max = rl->hard };

		if (setrlimit(rl->resource, &r) < 0)
			return brig_error_setp(err, errno, "setrlimit \"%s\"", rl->type);
	}
	return 0;
}

int brig_apply_oom_score_adj(int procfd, const struct brig_process *p, struct brig_error *err)
{
	char path[64], val[16];
	int len;

	if (!p->oom_score_adj.set)
		return 0;
	snprintf(path, sizeof(path), "%d/oom_score_adj", (int)getpid());
	len = snprintf(val, sizeof(val), "%d", (int)p->oom_score_adj.value);
	if (brig_procfs_write(procfd, path, val, (size_t)len, err) < 0)
		return brig_error_wrap(err, "set oom_score_adj to %d", (int)p->oom_score_adj.value);
	return 0;
}

char *brig_sysctl_path(const char *key, struct brig_error *err)
{
	size_t len = strlen(key);
	char *path;

	/* dots separate components: an empty component ("a..b", ".a", "a.")
	 * could only mean "." or ".." once mapped, and '/' is refused so that
	 * the key cannot name its own path */
	if (len == 0 || key[0] == '.' || key[len - 1] == '.' || strstr(key, "..") ||
	    strchr(key, '/')) {
		brig_error_set(err, "invalid sysctl key \"%s\"", key);
		return NULL;
	}
	path = brig_xasprintf("sys/%s", key);
	for (char *c = path + 4; *c; c++)
		if (*c == '.')
			*c = '/';
	return path;
}

int brig_apply_sysctl(int procfd, const struct brig_kv *kv, size_t n, struct brig_error *err)
{
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *path = brig_sysctl_path(kv[i].key, err);

		if (!path)
			return -1;
		if (brig_procfs_write(procfd, path, kv[i].value, strlen(kv[i].value), err) < 0)
			return brig_error_wrap(err, "sysctl \"%s\"", kv[i].key);
	}
	return 0;
}

int brig_apply_personality(const struct brig_process_plan *plan, struct brig_error *err)
{
	if (plan->personality < 0)
		return 0;
	if (personality((unsigned long)plan->personality) < 0)
		return brig_error_setp(err, errno, "personality \"%s\"",
		                       plan->personality == PER_LINUX32 ? "LINUX32" : "LINUX");
	return 0;
}

int brig_apply_scheduler(const struct brig_process *p, const struct brig_process_plan *plan,
                         struct brig_error *err)
{
	const struct brig_scheduler *s = p->scheduler;
	struct brig_sched_attr attr;

	if (plan->sched_policy < 0 || !s)
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.sched_policy = (uint32_t)plan->sched_policy;
	attr.sched_flags = plan->sched_flags;
	attr.sched_nice = s->nice;
	attr.sched_priority = (uint32_t)s->priority;
	attr.sched_runtime = s->runtime;
	attr.sched_deadline = s->deadline;
	attr.sched_period = s->period;
	if (syscall(SYS_sched_setattr, 0, &attr, 0) < 0)
		return brig_error_setp(err, errno, "sched_setattr \"%s\"", s->policy);
	return 0;
}

int brig_apply_ioprio(const struct brig_process_plan *plan, struct brig_error *err)
{
	if (plan->ioprio < 0)
		return 0;
	if (syscall(SYS_ioprio_set, BRIG_IOPRIO_WHO_PROCESS, 0, plan->ioprio) < 0)
		return brig_error_setp(err, errno, "ioprio_set \"%d\"", plan->ioprio);
	return 0;
}

int brig_apply_cpu_affinity(const char *cpus, struct brig_error *err)
{
	cpu_set_t *set = NULL;
	size_t size = 0;
	int r;

	if (!cpus)
		return 0;
	if (cpu_list_parse(cpus, &set, &size, err) < 0)
		return -1;
	r = sched_setaffinity(0, size, set);
	CPU_FREE(set);
	if (r < 0)
		return brig_error_setp(err, errno, "sched_setaffinity \"%s\"", cpus);
	return 0;
}

int brig_apply_bounding(const struct brig_capsets *caps, struct brig_error *err)
{
	int last;

	last = brig_cap_last();
	for (int cap = 0; cap <= last; cap++) {
		char name[64];

		if (caps->bounding & (1ULL << cap))
			continue;
		if (prctl(PR_CAPBSET_DROP, (unsigned long)cap, 0, 0, 0) == 0)
			continue;
		/* without CAP_SETPCAP the kernel refuses even to drop what is
		 * already gone, which needs no dropping: asked only then */
		if (errno == EPERM && prctl(PR_CAPBSET_READ, (unsigned long)cap, 0, 0, 0) == 0)
			continue;
		return brig_error_setp(err, errno, "drop \"%s\" from the bounding set",
		                       brig_cap_name(cap, name, sizeof(name)));
	}
	return 0;
}

/* EINVAL from setresuid/setresgid: the id has no mapping in the user ns. */
static int id_error(struct brig_error *err, const char *what, uint32_t id)
{
	if (errno == EINVAL)
		return brig_error_set(err, "set%s \"%u\": %s is not mapped in the user namespace",
		                      what, id, what);
	return brig_error_setp(err, errno, "set%s \"%u\"", what, id);
}

int brig_apply_user(const struct brig_process *p, bool setgroups_allowed, struct brig_error *err)
{
	const struct brig_user *u = &p->user;
	int r = 0;

	umask(u->umask.set ? (mode_t)u->umask.value : 0022);
	if (!setgroups_allowed && u->n_additional_gids > 0)
		return brig_error_set(err, "cannot set additionalGids: setgroups is denied in the "
		                           "container's user namespace");
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		return brig_error_setp(err, errno, "prctl(PR_SET_KEEPCAPS)");
	if (setgroups_allowed) {
		/* an empty list too: the host's groups must not leak in */
		_cleanup_free_ gid_t *gids =
		    brig_xcalloc(u->n_additional_gids ? u->n_additional_gids : 1, sizeof(gid_t));

		for (size_t i = 0; i < u->n_additional_gids; i++)
			gids[i] = (gid_t)u->additional_gids[i];
		if (setgroups(u->n_additional_gids, gids) < 0) {
			r = brig_error_setp(err, errno, "setgroups");
			goto out;
		}
	}
	if (setresgid(u->gid, u->gid, u->gid) < 0) {
		r = id_error(err, "gid", u->gid);
		goto out;
	}
	if (setresuid(u->uid, u->uid, u->uid) < 0) {
		r = id_error(err, "uid", u->uid);
		goto out;
	}
out:
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0 && r == 0)
		r = brig_error_setp(err, errno, "prctl(PR_SET_KEEPCAPS)");
	return r;
}

int brig_apply_capabilities(const struct brig_capsets *caps, struct brig_error *err)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[2];
	int last;

	for (int i = 0; i < 2; i++) {
		data[i].effective = (uint32_t)(caps->effective >> (32 * i));
		data[i].permitted = (uint32_t)(caps->permitted >> (32 * i));
		data[i].inheritable = (uint32_t)(caps->inheritable >> (32 * i));
	}
	if (syscall(SYS_capset, &hdr, data) < 0)
		return brig_error_setp(err, errno, "capset");

	/* ambient: as runc, a capability that cannot be raised (it must be
	 * permitted and inheritable) is a warning, not an error */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0) {
		if (errno != EINVAL)
			return brig_error_setp(err, errno, "clear the ambient capabilities");
		if (caps->ambient)
			brig_warn("ambient capabilities are not supported by the kernel");
		return 0;
	}
	last = brig_cap_last();
	for (int cap = 0; cap <= last; cap++) {
		char name[64];

		if (!(caps->ambient & (1ULL << cap)))
			continue;
		/* the kernel raises only what is both permitted and inheritable;
		 * runc's default config asks for more and runc says nothing */
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, (unsigned long)cap, 0, 0) < 0)
			brig_debug("can't raise ambient capability %s: %s",
			           brig_cap_name(cap, name, sizeof(name)), strerror(errno));
	}
	return 0;
}

int brig_apply_no_new_privs(const struct brig_process *p, struct brig_error *err)
{
	if (p->no_new_privileges && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return brig_error_setp(err, errno, "prctl(PR_SET_NO_NEW_PRIVS)");
	return 0;
}

/* ------------------------------------------------------------ keyring */

int brig_join_session_keyring(int procfd, const char *label, const char *id, struct brig_error *err)
{
	_cleanup_free_ char *name = NULL;

	/* the keyring gets the process's SELinux label, as the keys made in it */
	if (brig_selinux_set_keycreate(procfd, label, err) < 0)
		return -1;
	/* the whole id, as runc names it: a keyring is joined by name, and two
	 * containers whose names were cut to a common prefix shared one */
	name = brig_xasprintf("_ses.%s", id);
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, name) < 0 && errno != ENOSYS)
		return brig_error_setp(err, errno, "join a new session keyring");
	return 0;
}

/* ---------------------------------------------------------------- in order */

int brig_process_apply_resources(const struct brig_process *p, const struct brig_process_plan *plan,
                                 int procfd, struct brig_error *err)
{
	if (brig_apply_rlimits(p, err) < 0)
		return -1;
	if (brig_apply_oom_score_adj(procfd, p, err) < 0)
		return -1;
	if (brig_apply_personality(plan, err) < 0)
		return -1;
	if (brig_apply_scheduler(p, plan, err) < 0)
		return -1;
	if (brig_apply_ioprio(plan, err) < 0)
		return -1;
	if (brig_apply_cpu_affinity(plan->cpus_initial, err) < 0)
		return -1;
	return brig_mempolicy_apply(&plan->mempolicy, err);
}

int brig_process_apply_identity(const struct brig_process *p, const struct brig_process_plan *plan,
                                int procfd, struct brig_error *err)
{
	if (brig_apply_bounding(&plan->caps, err) < 0)
		return -1;
	if (brig_apply_user(p, brig_userns_setgroups_allowed(procfd), err) < 0)
		return -1;
	if (brig_apply_capabilities(&plan->caps, err) < 0)
		return -1;
	return brig_apply_no_new_privs(p, err);
}
