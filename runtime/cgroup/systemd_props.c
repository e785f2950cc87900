/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The systemd cgroup driver's unit properties, from linux.resources (pure:
 * no D-Bus here; cgroup/systemd.c sends them).  The mapping follows runc's
 * libcontainer/cgroups/systemd (common.go, v1.go, v2.go,
 * devices/systemd.go) and crun's cgroup-systemd.c; where brig differs,
 * the comment says so.
 */
#include "config.h"
#include "cgroup/systemd.h"
#include "cgroup/systemd_internal.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cgroup/devices_bpf.h"
#include "cgroup/internal.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/strbuf.h"

/* The property list */

void brig_systemd_props_release(struct brig_systemd_props *props)
{
	for (size_t i = 0; i < props->n; i++) {
		struct brig_systemd_prop *p = &props->v[i];

		free(p->str);
		free(p->bytes);
		for (size_t j = 0; j < p->n_devices; j++)
			free(p->devices[j].path);
		free(p->devices);
	}
	free(props->v);
	*props = (struct brig_systemd_props)BRIG_SYSTEMD_PROPS_INIT;
}

static struct brig_systemd_prop *prop_add(struct brig_systemd_props *props, const char *name,
                                          enum brig_systemd_prop_type type)
{
	struct brig_systemd_prop *p;

	if (props->n == props->alloc) {
		props->alloc = props->alloc ? 2 * props->alloc : 16;
		props->v = brig_xrealloc(props->v, props->alloc * sizeof(*props->v));
	}
	p = &props->v[props->n++];
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->type = type;
	return p;
}

static void add_bool(struct brig_systemd_props *props, const char *name, bool b)
{
	prop_add(props, name, BRIG_SD_BOOL)->b = b;
}

static void add_u64(struct brig_systemd_props *props, const char *name, uint64_t v)
{
	prop_add(props, name, BRIG_SD_U64)->u64 = v;
}

static void add_str(struct brig_systemd_props *props, const char *name,
                    enum brig_systemd_prop_type type, const char *s)
{
	prop_add(props, name, type)->str = brig_xstrdup(s);
}

/* Values */

uint64_t brig_systemd_cpu_quota_per_sec(int64_t quota, uint64_t period, int64_t *cfs_quota)
{
	unsigned __int128 usec;

	if (cfs_quota)
		*cfs_quota = quota;
	if (quota <= 0)
		return UINT64_MAX;
	if (period == 0)
		period = DEFAULT_CPU_PERIOD;
	usec = (unsigned __int128)quota * USEC_PER_SEC / period;
	if (usec % CPU_QUOTA_STEP) {
		usec = (usec / CPU_QUOTA_STEP + 1) * CPU_QUOTA_STEP;
		if (cfs_quota) {
			unsigned __int128 q = usec * period / USEC_PER_SEC;

			*cfs_quota = q > INT64_MAX ? INT64_MAX : (int64_t)q;
		}
	}
	/* more than a CPU-year per second is no limit at all */
	return usec >= UINT64_MAX ? UINT64_MAX : (uint64_t)usec;
}

/* Leading and trailing blanks off, as the kernel's strstrip() does. */
static char *trimmed(const char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	return brig_xasprintf("%.*s", (int)n, s);
}

/* A decimal number that fits 64 bits, all of @s. */
static bool parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return *s == '\0';
}

static bool parse_i64(const char *s, int64_t *out)
{
	uint64_t v;
	bool neg = *s == '-';

	if (!parse_u64(s + neg, &v) || v > (uint64_t)INT64_MAX + neg)
		return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

/* "max", or a number with the kernel's memparse suffixes (k, m, g, t, p, e,
 * powers of 1024) as memory.max and friends take them. */
static bool parse_bytes(const char *s, bool allow_suffix, uint64_t *out)
{
	static const char suffixes[] = "kmgtpe";
	_cleanup_free_ char *num = NULL;
	size_t n = strlen(s);
	const char *sfx;
	uint64_t v;

	if (strcmp(s, "max") == 0) {
		*out = UINT64_MAX;
		return true;
	}
	if (n > 1 && allow_suffix && (sfx = strchr(suffixes, tolower((unsigned char)s[n - 1])))) {
		unsigned shift = 10 * (unsigned)(sfx - suffixes + 1);

		num = brig_xasprintf("%.*s", (int)(n - 1), s);
		if (!parse_u64(num, &v) || v > (UINT64_MAX >> shift))
			return false;
		*out = v << shift;
		return true;
	}
	return parse_u64(s, out);
}

/*
 * A CPU or node list ("0-3,5") as systemd's AllowedCPUs= takes it: a
 * little-endian byte mask, byte i holding bits 8i..8i+7, no trailing zero
 * bytes.  Blanks around elements and empty elements are allowed, as runc
 * allows them; an empty list is not.  (Early runc sent the bytes
 * big-endian, which systemd reads as other CPUs past the first eight.)
 */
static int parse_mask(const char *list, const char *path, const char *what, uint8_t **out,
                      size_t *out_n, struct brig_error *err)
{
	uint8_t *mask = NULL;
	size_t n = 0;
	const char *s = list;

	for (;;) {
		uint64_t lo, hi;
		const char *start;
		char *end;

		while (isspace((unsigned char)*s) || *s == ',')
			s++;
		if (!*s)
			break;
		start = s;
		if (!isdigit((unsigned char)*s))
			goto bad;
		errno = 0;
		lo = hi = strtoull(s, &end, 10);
		s = end;
		if (*s == '-') {
			s++;
			if (!isdigit((unsigned char)*s))
				goto bad;
			hi = strtoull(s, &end, 10);
			s = end;
		}
		if (errno == ERANGE)
			lo = hi = UINT64_MAX;
		while (isspace((unsigned char)*s))
			s++;
		if (*s && *s != ',')
			goto bad;
		if (lo > hi) {
			free(mask);
			return brig_error_set(err, "%s: reversed range \"%.*s\"", path,
			                      (int)(strcspn(start, ",")), start);
		}
		if (hi > MASK_MAX_BIT) {
			free(mask);
			return brig_error_set(err, "%s: %s %" PRIu64 " is above the limit %d", path,
			                      what, hi, MASK_MAX_BIT);
		}
		if (hi / 8 + 1 > n) {
			mask = brig_xrealloc(mask, hi / 8 + 1);
			memset(mask + n, 0, hi / 8 + 1 - n);
			n = hi / 8 + 1;
		}
		for (uint64_t i = lo; i <= hi; i++)
			mask[i / 8] |= (uint8_t)(1u << (i % 8));
	}
	if (n == 0) {
		free(mask);
		return brig_error_set(err, "%s: empty %s list", path, what);
	}
	*out = mask;
	*out_n = n;
	return 0;
bad:
	free(mask);
	return brig_error_set(err, "%s: invalid %s list \"%s\"", path, what, list);
}

static int add_mask(struct brig_systemd_props *props, const char *name, const char *list,
                    const char *path, const char *what, unsigned int sd_version,
                    struct brig_error *err)
{
	struct brig_systemd_prop *p;
	uint8_t *mask = NULL;
	size_t n = 0;

	/* checked whatever the version: the cgroupfs write would fail too */
	if (parse_mask(list, path, what, &mask, &n, err) < 0)
		return -1;
	if (sd_version < SD_VERSION_ALLOWED_CPUS) {
		free(mask);
		return 0;
	}
	p = prop_add(props, name, BRIG_SD_BYTES);
	p->bytes = mask;
	p->n_bytes = n;
	return 0;
}

/* CPUQuotaPeriodUSec= and CPUQuotaPerSecUSec=, as runc's addCpuQuota. */
static void add_cpu_quota(struct brig_systemd_props *props, int64_t quota, uint64_t period,
                          unsigned int sd_version)
{
	if (period != 0 && sd_version >= SD_VERSION_CPU_QUOTA_PERIOD)
		add_u64(props, "CPUQuotaPeriodUSec", period);
	if (quota != 0 || period != 0)
		add_u64(props, "CPUQuotaPerSecUSec",
		        brig_systemd_cpu_quota_per_sec(quota, period, NULL));
}

/*
 * Device rules.  systemd has only an allow list (DevicePolicy=strict plus
 * DeviceAllow= entries), brig's rules are an ordered list where, bit by
 * bit, the last matching rule decides (cgroup/devices_bpf.h).  The rules
 * are run into one allow entry list per access bit; what systemd cannot
 * say is then resolved towards the side that cannot hurt:
 *
 *   v2  systemd's program and brig's own both run and both must allow, so
 *       systemd gets a superset: a deny cutting into a wider entry leaves
 *       it, an entry systemd cannot name widens to "char-*" / "block-*";
 *   v1  systemd rewrites devices.allow/deny when it reloads, after brig's
 *       exact rules, so it gets a subset: such entries are dropped.
 *
 * runc instead refuses a deny cut out of a wildcard, turns a deny list
 * into deny-all and drops what systemd cannot name, on v2 as well (where
 * that breaks devices its own filter allows).
 */

struct dev_entry {
	char type;            /* 'c' or 'b' */
	int64_t major, minor; /* -1: any */
	unsigned perms;       /* BRIG_DEV_* bits in which the entry is allowed */
};

struct dev_list {
	struct dev_entry *v;
	size_t n, alloc;
};

#define DEV_ALL (BRIG_DEV_READ | BRIG_DEV_WRITE | BRIG_DEV_MKNOD)

static struct dev_entry *dev_find(struct dev_list *l, char type, int64_t major, int64_t minor)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].type == type && l->v[i].major == major && l->v[i].minor == minor)
			return &l->v[i];
	return NULL;
}

static void dev_allow(struct dev_list *l, char type, int64_t major, int64_t minor, unsigned perms)
{
	struct dev_entry *e = dev_find(l, type, major, minor);

	if (e) {
		e->perms |= perms;
		return;
	}
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 16;
		l->v = brig_xrealloc(l->v, l->alloc * sizeof(*l->v));
	}
	l->v[l->n++] = (struct dev_entry){ type, major, minor, perms };
}

static bool num_within(int64_t n, int64_t pattern)
{
	return pattern < 0 || pattern == n;
}

static bool num_meets(int64_t a, int64_t b)
{
	return a < 0 || b < 0 || a == b;
}

/* A deny: entries it covers lose the bits; entries it only cuts into lose
 * them too on v1 (subset), keep them on v2 (superset). */
static void dev_deny(struct dev_list *l, char type, int64_t major, int64_t minor, unsigned perms,
                     bool superset)
{
	for (size_t i = 0; i < l->n;) {
		struct dev_entry *e = &l->v[i];
		bool covered =
		    e->type == type && num_within(e->major, major) && num_within(e->minor, minor);
		bool meets =
		    e->type == type && num_meets(e->major, major) && num_meets(e->minor, minor);

		if (covered || (meets && !superset))
			e->perms &= ~perms;
		if (!e->perms)
			*e = l->v[--l->n];
		else
			i++;
	}
}

static int dev_cmp(const void *a, const void *b)
{
	const struct dev_entry *x = a, *y = b;

	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return (x->type > y->type) - (x->type < y->type);
}

static void perms_str(unsigned perms, char out[4])
{
	char *p = out;

	if (perms & BRIG_DEV_READ)
		*p++ = 'r';
	if (perms & BRIG_DEV_WRITE)
		*p++ = 'w';
	if (perms & BRIG_DEV_MKNOD)
		*p++ = 'm';
	*p = '\0';
}

static void add_devices(struct brig_systemd_props *props, const struct brig_dev_rule *rules,
                        size_t n_rules, bool v2, unsigned int sd_version)
{
	struct dev_list l = { NULL, 0, 0 }, out = { NULL, 0, 0 };
	struct brig_systemd_prop *p;
	bool superset = v2;
	const struct dev_entry *cs, *bs;

	for (size_t i = 0; i < n_rules; i++) {
		const struct brig_dev_rule *r = &rules[i];
		unsigned perms = r->access & DEV_ALL;

		/* "a" is both kinds of node, with these numbers */
		for (const char *t = r->type == 'a' ? "cb" : (r->type == 'b' ? "b" : "c"); *t;
		     t++) {
			if (r->allow)
				dev_allow(&l, *t, r->major, r->minor, perms);
			else
				dev_deny(&l, *t, r->major, r->minor, perms, superset);
		}
	}

	/* what systemd can name: "char-*", "char-5" (240), "/dev/char/5:1" */
	for (size_t i = 0; i < l.n; i++) {
		struct dev_entry e = l.v[i];

		if ((e.major < 0 && e.minor >= 0) ||
		    (e.major >= 0 && e.minor < 0 && sd_version < SD_VERSION_DEVICE_MAJOR_GLOB)) {
			if (!superset)
				continue;
			e.major = e.minor = -1;
		}
		dev_allow(&out, e.type, e.major, e.minor, e.perms);
	}
	free(l.v);

	cs = dev_find(&out, 'c', -1, -1);
	bs = dev_find(&out, 'b', -1, -1);
	if (cs && bs && cs->perms == DEV_ALL && bs->perms == DEV_ALL) {
		/* everything: no device filter from systemd at all */
		add_str(props, "DevicePolicy", BRIG_SD_STR, "auto");
		prop_add(props, "DeviceAllow", BRIG_SD_DEVICE_ALLOW);
		free(out.v);
		return;
	}

	add_str(props, "DevicePolicy", BRIG_SD_STR, "strict");
	/* an empty list first: DeviceAllow= appends, this resets */
	prop_add(props, "DeviceAllow", BRIG_SD_DEVICE_ALLOW);
	p = prop_add(props, "DeviceAllow", BRIG_SD_DEVICE_ALLOW);
	if (out.n)
		qsort(out.v, out.n, sizeof(*out.v), dev_cmp);
	p->devices = brig_xcalloc(out.n ? out.n : 1, sizeof(*p->devices));
	p->n_devices = out.n;
	for (size_t i = 0; i < out.n; i++) {
		const struct dev_entry *e = &out.v[i];
		const char *group = e->type == 'b' ? "block" : "char";
		struct brig_systemd_device_allow *a = &p->devices[i];

		if (e->major < 0)
			a->path = brig_xasprintf("%s-*", group);
		else if (e->minor < 0)
			a->path = brig_xasprintf("%s-%" PRId64, group, e->major);
		else
			a->path = brig_xasprintf("/dev/%s/%" PRId64 ":%" PRId64, group, e->major,
			                         e->minor);
		perms_str(e->perms, a->perms);
	}
	free(out.v);
}

/* cgroup v2 swap: memory.swap.max is swap alone, the OCI value is
 * memory+swap (runc's ConvertMemorySwapToCgroupV2Value).  0: no property. */
static int v2_swap(const struct brig_memory *m, int64_t *out, struct brig_error *err)
{
	int64_t limit = m->limit.set ? m->limit.value : 0;
	int64_t swap = m->swap.set ? m->swap.value : 0;

	if (limit == -1 && swap == 0)
		*out = -1; /* unlimited memory: unlimited swap too, as v1 has it */
	else if (swap == -1 || swap == 0 || limit == -1)
		*out = swap;
	else if (limit == 0)
		return brig_error_set(
		    err, "linux.resources.memory.swap: a swap limit needs a memory limit");
	else if (swap < limit)
		return brig_error_set(err,
		                      "linux.resources.memory.swap: %" PRId64
		                      " is below the memory "
		                      "limit %" PRId64 " (swap is memory+swap)",
		                      swap, limit);
	else
		*out = swap - limit;
	return 0;
}

static const char *unified_value(const struct brig_resources *r, const char *key)
{
	for (size_t i = 0; i < r->n_unified; i++)
		if (strcmp(r->unified[i].key, key) == 0)
			return r->unified[i].value;
	return NULL;
}

/* cpu.idle "1" becomes CPUWeight=0, which systemd knows since 252. */
static bool unified_idle(const struct brig_resources *r, unsigned int sd_version)
{
	const char *v = unified_value(r, "cpu.idle");
	_cleanup_free_ char *t = v ? trimmed(v) : NULL;

	return t && strcmp(t, "1") == 0 && sd_version >= SD_VERSION_CPU_IDLE;
}

static int unified_fail(struct brig_error *err, const char *key, const char *value, const char *why)
{
	return brig_error_set(err, "linux.resources.unified[\"%s\"]: %s \"%s\"", key, why, value);
}

/* The unified keys systemd has a property for (runc's unifiedResToSystemdProps);
 * the others are left to the cgroupfs writes. */
static int add_unified(struct brig_systemd_props *props, const struct brig_resources *r,
                       unsigned int sd_version, struct brig_error *err)
{
	static const struct {
		const char *key, *prop;
	} memory[] = {
		{ "memory.high", "MemoryHigh" },        { "memory.low", "MemoryLow" },
		{ "memory.min", "MemoryMin" },          { "memory.max", "MemoryMax" },
		{ "memory.swap.max", "MemorySwapMax" },
	};

	for (size_t i = 0; i < r->n_unified; i++) {
		const char *key = r->unified[i].key;
		_cleanup_free_ char *v = trimmed(r->unified[i].value);
		_cleanup_free_ char *path = brig_xasprintf("linux.resources.unified[\"%s\"]", key);
		uint64_t u;
		bool done = false;

		for (size_t j = 0; j < ARRAY_SIZE(memory); j++) {
			if (strcmp(key, memory[j].key) != 0)
				continue;
			if (!parse_bytes(v, true, &u))
				return unified_fail(err, key, v, "invalid value");
			add_u64(props, memory[j].prop, u);
			done = true;
		}
		if (done)
			continue;

		if (strcmp(key, "cpu.idle") == 0) {
			if (unified_idle(r, sd_version))
				add_u64(props, "CPUWeight", 0);
		} else if (strcmp(key, "cpu.weight") == 0) {
			if (unified_idle(r, sd_version))
				continue; /* runc: cpu.idle wins */
			if (!parse_u64(v, &u))
				return unified_fail(err, key, v, "invalid value");
			if (u < CPU_WEIGHT_MIN || u > CPU_WEIGHT_MAX)
				return brig_error_set(err,
				                      "%s: %" PRIu64 " is out of range [%d, %d]",
				                      path, u, CPU_WEIGHT_MIN, CPU_WEIGHT_MAX);
			add_u64(props, "CPUWeight", u);
		} else if (strcmp(key, "cpu.max") == 0) {
			/* "quota [period]"; "max" is no quota */
			char quota[32], period[32], extra[2];
			int64_t q = 0;
			uint64_t per = DEFAULT_CPU_PERIOD;
			int n = sscanf(v, "%31s %31s %1s", quota, period, extra);

			if (n < 1 || n > 2 ||
			    (strcmp(quota, "max") != 0 && !parse_i64(quota, &q)) ||
			    (n == 2 && !parse_u64(period, &per)))
				return unified_fail(err, key, v, "invalid value");
			add_cpu_quota(props, q, per, sd_version);
		} else if (strcmp(key, "cpuset.cpus") == 0) {
			if (add_mask(props, "AllowedCPUs", v, path, "CPU", sd_version, err) < 0)
				return -1;
		} else if (strcmp(key, "cpuset.mems") == 0) {
			if (add_mask(props, "AllowedMemoryNodes", v, path, "node", sd_version,
			             err) < 0)
				return -1;
		} else if (strcmp(key, "pids.max") == 0) {
			if (!parse_bytes(v, false, &u))
				return unified_fail(err, key, v, "invalid value");
			add_u64(props, "TasksMax", u);
		}
		/* memory.oom.group is OOMPolicy=, set when the unit starts */
	}
	return 0;
}

int brig_systemd_properties(const struct brig_resources *r, const struct brig_dev_rule *devices,
                            size_t n_devices, bool v2, unsigned int sd_version,
                            struct brig_systemd_props *props, struct brig_error *err)
{
	const struct brig_memory *m;
	const struct brig_cpu *cpu;

	if (devices)
		add_devices(props, devices, n_devices, v2, sd_version);
	if (!r)
		return 0;
	m = r->memory;
	cpu = r->cpu;

	if (m) {
		int64_t limit = m->limit.set ? m->limit.value : 0;
		int64_t low = m->reservation.set ? m->reservation.value : 0;
		int64_t swap = 0;

		/* -1 is unlimited: UINT64_MAX is systemd's infinity */
		if (limit != 0)
			add_u64(props, v2 ? "MemoryMax" : "MemoryLimit", (uint64_t)limit);
		if (v2 && low != 0)
			add_u64(props, "MemoryLow", (uint64_t)low);
		if (v2) {
			if (v2_swap(m, &swap, err) < 0)
				return -1;
			if (swap != 0)
				add_u64(props, "MemorySwapMax", (uint64_t)swap);
		}
	}

	if (cpu) {
		uint64_t shares = cpu->shares.set ? cpu->shares.value : 0;
		bool idle = false;

		if (v2 && cpu->idle.set && cpu->idle.value == 1 &&
		    sd_version >= SD_VERSION_CPU_IDLE) {
			add_u64(props, "CPUWeight", 0);
			idle = true;
		}
		if (shares != 0 && !v2) {
			/* clamped as the kernel clamps cpu.shares */
			if (shares < CPU_SHARES_MIN)
				shares = CPU_SHARES_MIN;
			if (shares > CPU_SHARES_MAX)
				shares = CPU_SHARES_MAX;
			add_u64(props, "CPUShares", shares);
		} else if (shares != 0 && !idle) {
			/* the conversion the cgroupfs back end writes */
			add_u64(props, "CPUWeight", brig_cg_shares_to_weight(shares));
		}
		add_cpu_quota(props, cpu->quota.set ? cpu->quota.value : 0,
		              cpu->period.set ? cpu->period.value : 0, sd_version);
	}

	if (r->block_io && r->block_io->weight.set && r->block_io->weight.value != 0) {
		uint64_t w = r->block_io->weight.value;

		if (v2)
			add_u64(props, "IOWeight", brig_cg_blkio_to_io_weight(w));
		else
			add_u64(props, "BlockIOWeight", w);
	}

	if (r->has_pids && r->pids_limit.set &&
	    (r->pids_limit.value > 0 || r->pids_limit.value == -1))
		add_u64(props, "TasksMax", (uint64_t)r->pids_limit.value);

	if (cpu && cpu->cpus &&
	    add_mask(props, "AllowedCPUs", cpu->cpus, "linux.resources.cpu.cpus", "CPU", sd_version,
	             err) < 0)
		return -1;
	if (cpu && cpu->mems &&
	    add_mask(props, "AllowedMemoryNodes", cpu->mems, "linux.resources.cpu.mems", "node",
	             sd_version, err) < 0)
		return -1;

	/* unified is v2's alone: on v1 it is for the cgroupfs back end to refuse */
	if (v2 && add_unified(props, r, sd_version, err) < 0)
		return -1;
	return 0;
}

int brig_systemd_unit_properties(const struct brig_systemd_unit *u, pid_t pid,
                                 const struct brig_resources *r,
                                 const struct brig_dev_rule *devices, size_t n_devices, bool v2,
                                 unsigned int sd_version, struct brig_systemd_props *props,
                                 struct brig_error *err)
{
	_cleanup_free_ char *desc = brig_xasprintf("brig container %s", u->name);
	const char *oom_group = v2 && r ? unified_value(r, "memory.oom.group") : NULL;

	add_str(props, "Description", BRIG_SD_STR, desc);
	if (has_suffix(u->unit, SLICE_SUFFIX)) {
		/* a slice is placed by its name; it only wants its parent */
		add_str(props, "Wants", BRIG_SD_STRS, u->slice);
	} else {
		add_str(props, "Slice", BRIG_SD_STR, u->slice);
		add_bool(props, "Delegate", true);
	}
	if (pid > 0)
		prop_add(props, "PIDs", BRIG_SD_PIDS)->u64 = (uint64_t)pid;
	/* accounting on, as the cgroupfs driver has every controller */
	add_bool(props, "MemoryAccounting", true);
	add_bool(props, "CPUAccounting", true);
	add_bool(props, v2 ? "IOAccounting" : "BlockIOAccounting", true);
	add_bool(props, "TasksAccounting", true);
	add_bool(props, "DefaultDependencies", false);

	if (oom_group) {
		_cleanup_free_ char *v = trimmed(oom_group);
		uint64_t g;

		if (!parse_u64(v, &g))
			return unified_fail(err, "memory.oom.group", v, "invalid value");
		if (g <= 1)
			add_str(props, "OOMPolicy", BRIG_SD_STR, g ? "kill" : "continue");
	}
	return brig_systemd_properties(r, devices, n_devices, v2, sd_version, props, err);
}

void brig_systemd_props_format(const struct brig_systemd_props *props, struct brig_strbuf *sb)
{
	for (size_t i = 0; i < props->n; i++) {
		const struct brig_systemd_prop *p = &props->v[i];

		brig_strbuf_addf(sb, "%s=", p->name);
		switch (p->type) {
		case BRIG_SD_BOOL:
			brig_strbuf_addstr(sb, p->b ? "yes" : "no");
			break;
		case BRIG_SD_U64:
		case BRIG_SD_PIDS:
			if (p->u64 == UINT64_MAX && p->type == BRIG_SD_U64)
				brig_strbuf_addstr(sb, "infinity");
			else
				brig_strbuf_addf(sb, "%" PRIu64, p->u64);
			break;
		case BRIG_SD_STR:
		case BRIG_SD_STRS:
			brig_strbuf_addstr(sb, p->str);
			break;
		case BRIG_SD_BYTES:
			for (size_t j = 0; j < p->n_bytes; j++)
				brig_strbuf_addf(sb, "%s%02x", j ? " " : "", p->bytes[j]);
			break;
		case BRIG_SD_DEVICE_ALLOW:
			for (size_t j = 0; j < p->n_devices; j++)
				brig_strbuf_addf(sb, "%s%s %s", j ? ", " : "", p->devices[j].path,
				                 p->devices[j].perms);
			break;
		}
		brig_strbuf_addch(sb, '\n');
	}
}
