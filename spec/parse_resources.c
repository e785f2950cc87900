/* SPDX-License-Identifier: Apache-2.0 */
/*
 * LinuxResources: linux.resources of config.json, and on its own the document
 * of `update --resources FILE` (then the path starts at its members).
 */
#include "config.h"
#include "spec/parse.h"

#include <inttypes.h>
#include <string.h>

/* Device numbers as the cgroup device controller takes them: -1 is "any". */
#define DEV_NUMBER_MAX UINT32_MAX
#define BLKIO_WEIGHT_MIN 10
#define BLKIO_WEIGHT_MAX 1000
#define SWAPPINESS_MAX 100
/* Docker writes an unset swappiness as (uint64)-1 */
#define SWAPPINESS_UNSET UINT64_MAX

static const char *const device_cgroup_type_names[] = { "a", "c", "b", NULL };

static int parse_device_cgroup(struct jp *c, const struct brig_json *v,
                               struct brig_device_cgroup *d)
{
	int type = 0;

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 || jp_bool_req(c, v, "allow", &d->allow) < 0 ||
	    jp_enum(c, v, "type", device_cgroup_type_names, "device type", &type) < 0)
		return -1;
	d->type = device_cgroup_type_names[type][0];
	if (jp_opt_i64(c, v, "major", -1, DEV_NUMBER_MAX, &d->major) < 0 ||
	    jp_opt_i64(c, v, "minor", -1, DEV_NUMBER_MAX, &d->minor) < 0 ||
	    jp_string(c, v, "access", &d->access) < 0)
		return -1;
	/* any letters: r, w and m count, the others are ignored, as runc
	 * ignores them (cgroup/resources.c) */
	return 0;
}

static int parse_memory(struct jp *c, const struct brig_json *v, struct brig_memory **out)
{
	struct brig_memory *m = brig_arena_alloc(c->arena, sizeof(*m));
	uint64_t swappiness;
	int r;

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 ||
	    jp_opt_i64(c, v, "limit", -1, INT64_MAX, &m->limit) < 0 ||
	    jp_opt_i64(c, v, "reservation", -1, INT64_MAX, &m->reservation) < 0 ||
	    jp_opt_i64(c, v, "swap", -1, INT64_MAX, &m->swap) < 0 ||
	    jp_opt_i64(c, v, "kernel", -1, INT64_MAX, &m->kernel) < 0 ||
	    jp_opt_i64(c, v, "kernelTCP", -1, INT64_MAX, &m->kernel_tcp) < 0)
		return -1;
	r = jp_uint(c, v, "swappiness", UINT64_MAX, &swappiness);
	if (r < 0)
		return -1;
	if (r > 0 && swappiness != SWAPPINESS_UNSET) {
		if (swappiness > SWAPPINESS_MAX)
			return jp_fail(c, "swappiness", "%" PRIu64 " is out of range [0, %d]",
			               swappiness, SWAPPINESS_MAX);
		m->swappiness.set = true;
		m->swappiness.value = swappiness;
	}
	if (jp_opt_bool(c, v, "disableOOMKiller", &m->disable_oom_killer) < 0 ||
	    jp_opt_bool(c, v, "useHierarchy", &m->use_hierarchy) < 0 ||
	    jp_opt_bool(c, v, "checkBeforeUpdate", &m->check_before_update) < 0)
		return -1;
	*out = m;
	return 0;
}

/* cpus and mems: "" means unset, as in runc; anything else is a CPU list. */
static int cpu_list(struct jp *c, const struct brig_json *v, const char *key, const char **out)
{
	int r = jp_string(c, v, key, out);

	if (r <= 0)
		return r;
	if (!(*out)[0]) {
		*out = NULL;
		return 0;
	}
	return jp_check_cpu_list(c, key, *out) < 0 ? -1 : 1;
}

static int parse_cpu(struct jp *c, const struct brig_json *v, struct brig_cpu **out)
{
	struct brig_cpu *cpu = brig_arena_alloc(c->arena, sizeof(*cpu));

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 ||
	    jp_opt_u64(c, v, "shares", UINT64_MAX, &cpu->shares) < 0 ||
	    jp_opt_i64(c, v, "quota", -1, INT64_MAX, &cpu->quota) < 0 ||
	    jp_opt_u64(c, v, "burst", UINT64_MAX, &cpu->burst) < 0 ||
	    jp_opt_u64(c, v, "period", UINT64_MAX, &cpu->period) < 0 ||
	    jp_opt_i64(c, v, "realtimeRuntime", -1, INT64_MAX, &cpu->realtime_runtime) < 0 ||
	    jp_opt_u64(c, v, "realtimePeriod", UINT64_MAX, &cpu->realtime_period) < 0 ||
	    cpu_list(c, v, "cpus", &cpu->cpus) < 0 || cpu_list(c, v, "mems", &cpu->mems) < 0 ||
	    jp_opt_i64(c, v, "idle", 0, 1, &cpu->idle) < 0)
		return -1;
	*out = cpu;
	return 0;
}

static int parse_pids(struct jp *c, const struct brig_json *v, struct brig_resources *res)
{
	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 ||
	    jp_opt_i64(c, v, "limit", -1, INT64_MAX, &res->pids_limit) < 0)
		return -1;
	res->has_pids = true;
	return 0;
}

/* A blkio weight: 0 (unset, as runc takes it) or 10..1000. */
static int blkio_weight(struct jp *c, const struct brig_json *v, const char *key,
                        struct brig_opt_u16 *out)
{
	int r = jp_opt_u16(c, v, key, BLKIO_WEIGHT_MAX, out);

	if (r > 0 && out->value != 0 && out->value < BLKIO_WEIGHT_MIN)
		return jp_fail(c, key, "%u is out of range [%d, %d] (or 0)", (unsigned)out->value,
		               BLKIO_WEIGHT_MIN, BLKIO_WEIGHT_MAX);
	return r;
}

static int parse_weight_device(struct jp *c, const struct brig_json *v,
                               struct brig_weight_device *w)
{
	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 ||
	    jp_int_req(c, v, "major", 0, DEV_NUMBER_MAX, &w->major) < 0 ||
	    jp_int_req(c, v, "minor", 0, DEV_NUMBER_MAX, &w->minor) < 0 ||
	    blkio_weight(c, v, "weight", &w->weight) < 0 ||
	    blkio_weight(c, v, "leafWeight", &w->leaf_weight) < 0)
		return -1;
	return 0;
}

static int parse_throttle_device(struct jp *c, const struct brig_json *v,
                                 struct brig_throttle_device *t)
{
	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 ||
	    jp_int_req(c, v, "major", 0, DEV_NUMBER_MAX, &t->major) < 0 ||
	    jp_int_req(c, v, "minor", 0, DEV_NUMBER_MAX, &t->minor) < 0 ||
	    jp_uint_req(c, v, "rate", UINT64_MAX, &t->rate) < 0)
		return -1;
	return 0;
}

static int parse_block_io(struct jp *c, const struct brig_json *v, struct brig_blkio **out)
{
	struct brig_blkio *b = brig_arena_alloc(c->arena, sizeof(*b));

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 || blkio_weight(c, v, "weight", &b->weight) < 0 ||
	    blkio_weight(c, v, "leafWeight", &b->leaf_weight) < 0 ||
	    JP_LIST(c, v, "weightDevice", parse_weight_device, &b->weight_device,
	            &b->n_weight_device) < 0 ||
	    JP_LIST(c, v, "throttleReadBpsDevice", parse_throttle_device, &b->throttle_read_bps,
	            &b->n_throttle_read_bps) < 0 ||
	    JP_LIST(c, v, "throttleWriteBpsDevice", parse_throttle_device, &b->throttle_write_bps,
	            &b->n_throttle_write_bps) < 0 ||
	    JP_LIST(c, v, "throttleReadIOPSDevice", parse_throttle_device, &b->throttle_read_iops,
	            &b->n_throttle_read_iops) < 0 ||
	    JP_LIST(c, v, "throttleWriteIOPSDevice", parse_throttle_device, &b->throttle_write_iops,
	            &b->n_throttle_write_iops) < 0)
		return -1;
	*out = b;
	return 0;
}

/* A huge page size as hugetlb file names spell it: "64KB", "2MB", "1GB". */
static bool is_page_size(const char *s)
{
	size_t digits = strspn(s, "0123456789");

	if (digits == 0 || digits > 10 || s[0] == '0')
		return false;
	return strcmp(s + digits, "KB") == 0 || strcmp(s + digits, "MB") == 0 ||
	       strcmp(s + digits, "GB") == 0;
}

static int parse_hugepage_limit(struct jp *c, const struct brig_json *v,
                                struct brig_hugepage_limit *h)
{
	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 ||
	    jp_string_req(c, v, "pageSize", &h->page_size) < 0)
		return -1;
	if (!is_page_size(h->page_size))
		return jp_fail_value(c, "pageSize", "invalid page size", h->page_size);
	if (jp_uint_req(c, v, "limit", UINT64_MAX, &h->limit) < 0)
		return -1;
	return 0;
}

static int parse_net_priority(struct jp *c, const struct brig_json *v, struct brig_net_priority *p)
{
	uint64_t prio;

	/* written as "<name> <priority>" lines to net_prio.ifpriomap */
	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 || jp_string_req(c, v, "name", &p->name) < 0 ||
	    jp_check_ifname(c, "name", p->name) < 0 ||
	    jp_uint_req(c, v, "priority", UINT32_MAX, &prio) < 0)
		return -1;
	p->priority = (uint32_t)prio;
	return 0;
}

static int parse_network(struct jp *c, const struct brig_json *v, struct brig_network **out)
{
	struct brig_network *net = brig_arena_alloc(c->arena, sizeof(*net));

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 ||
	    jp_opt_u32(c, v, "classID", UINT32_MAX, &net->class_id) < 0 ||
	    JP_LIST(c, v, "priorities", parse_net_priority, &net->priorities, &net->n_priorities) <
	        0)
		return -1;
	*out = net;
	return 0;
}

/* An RDMA device name goes into "<name> hca_handle=N" lines of rdma.max. */
static bool is_rdma_device(const char *s)
{
	if (!s[0])
		return false;
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '/')
			return false;
	return true;
}

static int parse_rdma(struct jp *c, const struct brig_json *top, struct brig_resources *res)
{
	const struct brig_json *map = NULL;
	size_t mark;
	int r = jp_object(c, top, "rdma", &map);

	if (r <= 0)
		return r;
	if (jp_check_unique_keys(c, "rdma", map) < 0)
		return -1;
	res->rdma = brig_arena_array(c->arena, map->n, sizeof(*res->rdma));
	res->n_rdma = map->n;
	mark = jp_enter_key(c, "rdma");
	for (size_t i = 0; i < map->n; i++) {
		struct brig_rdma *rd = &res->rdma[i];
		const struct brig_json *v = map->items[i];
		const char *key = map->keys[i];
		size_t im;

		if (!is_rdma_device(key))
			return jp_fail(c, key, "invalid RDMA device name");
		rd->device = brig_arena_strdup(c->arena, key);
		im = jp_enter_key(c, key);
		if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 ||
		    jp_opt_u32(c, v, "hcaHandles", UINT32_MAX, &rd->hca_handles) < 0 ||
		    jp_opt_u32(c, v, "hcaObjects", UINT32_MAX, &rd->hca_objects) < 0)
			return -1;
		jp_leave(c, im);
	}
	jp_leave(c, mark);
	return 0;
}

/* A cgroup v2 file name: "<controller>.<file>", inside the cgroup directory. */
static bool is_unified_key(const char *key)
{
	const char *dot = strchr(key, '.');

	return dot && dot != key && dot[1] && !strchr(key, '/') && !strstr(key, "..");
}

static int parse_unified(struct jp *c, const struct brig_json *top, struct brig_resources *res)
{
	if (jp_string_map(c, top, "unified", &res->unified, &res->n_unified) < 0)
		return -1;
	for (size_t i = 0; i < res->n_unified; i++) {
		if (!is_unified_key(res->unified[i].key)) {
			size_t mark = jp_enter_key(c, "unified");

			jp_fail(c, res->unified[i].key,
			        "invalid cgroup file name (expected \"<controller>.<file>\")");
			jp_leave(c, mark);
			return -1;
		}
	}
	return 0;
}

int brig_parse_resources(struct jp *c, const struct brig_json *v, struct brig_resources **out)
{
	struct brig_resources *res = brig_arena_alloc(c->arena, sizeof(*res));

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 ||
	    JP_LIST(c, v, "devices", parse_device_cgroup, &res->devices, &res->n_devices) < 0 ||
	    JP_SECTION(c, v, "memory", parse_memory, &res->memory) < 0 ||
	    JP_SECTION(c, v, "cpu", parse_cpu, &res->cpu) < 0 ||
	    JP_SECTION(c, v, "pids", parse_pids, res) < 0 ||
	    JP_SECTION(c, v, "blockIO", parse_block_io, &res->block_io) < 0 ||
	    JP_LIST(c, v, "hugepageLimits", parse_hugepage_limit, &res->hugepage_limits,
	            &res->n_hugepage_limits) < 0 ||
	    JP_SECTION(c, v, "network", parse_network, &res->network) < 0 ||
	    parse_rdma(c, v, res) < 0 || parse_unified(c, v, res) < 0)
		return -1;
	*out = res;
	return 0;
}
