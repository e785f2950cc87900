/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.json: the `linux` section, except linux.resources (parse_resources.c)
 * and linux.seccomp (parse_seccomp.c).
 */
#include "config.h"
#include "spec/parse.h"

#include <string.h>

#include "spec/names.h"

#define NANOSECS_PER_SEC 1000000000u
/* makedev() takes 32-bit major and minor numbers */
#define DEV_NUMBER_MAX UINT32_MAX

static const char *const time_clock_names[] = { "monotonic", "boottime", NULL };

static const char *const device_type_names[] = { "c", "b", "u", "p", NULL };

static const char *const propagation_names[] = {
	"private", "rprivate",   "slave",       "rslave", "shared",
	"rshared", "unbindable", "runbindable", NULL,
};

static const char *const personality_domain_names[] = { "LINUX", "LINUX32", NULL };

/* Each entry of the string list at member @key must be an absolute path. */
static int check_absolute_list(struct jp *c, const char *key, const char **list, size_t n)
{
	size_t mark = jp_enter_key(c, key);

	for (size_t i = 0; i < n; i++) {
		size_t im = jp_enter_index(c, i);

		if (jp_check_absolute(c, NULL, list[i]) < 0)
			return -1;
		jp_leave(c, im);
	}
	jp_leave(c, mark);
	return 0;
}

static int parse_namespace(struct jp *c, const struct brig_json *v, struct brig_linux *lx, size_t i)
{
	struct brig_namespace *ns = &lx->namespaces[i];
	int type;

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 ||
	    jp_enum_req(c, v, "type", brig_ns_type_names, "namespace type", &type) < 0)
		return -1;
	ns->type = (enum brig_ns_type)type;
	for (size_t k = 0; k < i; k++)
		if (lx->namespaces[k].type == ns->type)
			return jp_fail(c, "type", "duplicate namespace type \"%s\"",
			               brig_ns_type_name(ns->type));
	if (jp_string(c, v, "path", &ns->path) < 0)
		return -1;
	/* "path": "" is how Go encoders write "no path": a new namespace */
	if (ns->path && !ns->path[0])
		ns->path = NULL;
	if (ns->path && jp_check_absolute(c, "path", ns->path) < 0)
		return -1;
	return 0;
}

static int parse_namespaces(struct jp *c, const struct brig_json *top, struct brig_linux *lx)
{
	const struct brig_json *arr = NULL;
	size_t mark;
	int r = jp_array(c, top, "namespaces", &arr);

	if (r <= 0)
		return r;
	lx->namespaces = brig_arena_array(c->arena, arr->n, sizeof(*lx->namespaces));
	lx->n_namespaces = arr->n;
	mark = jp_enter_key(c, "namespaces");
	for (size_t i = 0; i < arr->n; i++) {
		size_t im = jp_enter_index(c, i);

		if (parse_namespace(c, arr->items[i], lx, i) < 0)
			return -1;
		jp_leave(c, im);
	}
	jp_leave(c, mark);
	return 0;
}

static int parse_time_offset(struct jp *c, const struct brig_json *v, struct brig_time_offset *t)
{
	uint64_t nsecs = 0;

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 ||
	    jp_int(c, v, "secs", INT64_MIN, INT64_MAX, &t->secs) < 0 ||
	    jp_uint(c, v, "nanosecs", NANOSECS_PER_SEC - 1, &nsecs) < 0)
		return -1;
	t->nanosecs = (uint32_t)nsecs;
	return 0;
}

static int parse_time_offsets(struct jp *c, const struct brig_json *top, struct brig_linux *lx)
{
	const struct brig_json *map = NULL;
	size_t mark;
	int r = jp_object(c, top, "timeOffsets", &map);

	if (r <= 0)
		return r;
	if (jp_check_unique_keys(c, "timeOffsets", map) < 0)
		return -1;
	lx->time_offsets = brig_arena_array(c->arena, map->n, sizeof(*lx->time_offsets));
	lx->n_time_offsets = map->n;
	mark = jp_enter_key(c, "timeOffsets");
	for (size_t i = 0; i < map->n; i++) {
		struct brig_time_offset *t = &lx->time_offsets[i];
		const char *key = map->keys[i];
		int clock = jp_lookup(time_clock_names, key);
		size_t im;

		if (clock < 0)
			return jp_fail_unknown(c, key, "clock", key);
		t->clock = time_clock_names[clock];
		im = jp_enter_key(c, key);
		if (parse_time_offset(c, map->items[i], t) < 0)
			return -1;
		jp_leave(c, im);
	}
	jp_leave(c, mark);
	return 0;
}

static int parse_device(struct jp *c, const struct brig_json *v, struct brig_device *d)
{
	int type;

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 || jp_string_req(c, v, "path", &d->path) < 0 ||
	    jp_check_absolute(c, "path", d->path) < 0 ||
	    jp_enum_req(c, v, "type", device_type_names, "device type", &type) < 0)
		return -1;
	d->type = device_type_names[type][0];
	if (d->type == 'p') {
		/* a FIFO has no device number; take one if given, unused */
		if (jp_int(c, v, "major", 0, DEV_NUMBER_MAX, &d->major) < 0 ||
		    jp_int(c, v, "minor", 0, DEV_NUMBER_MAX, &d->minor) < 0)
			return -1;
	} else {
		if (jp_int_req(c, v, "major", 0, DEV_NUMBER_MAX, &d->major) < 0 ||
		    jp_int_req(c, v, "minor", 0, DEV_NUMBER_MAX, &d->minor) < 0)
			return -1;
	}
	if (jp_opt_u32(c, v, "fileMode", 07777, &d->file_mode) < 0 ||
	    jp_opt_u32(c, v, "uid", UINT32_MAX, &d->uid) < 0 ||
	    jp_opt_u32(c, v, "gid", UINT32_MAX, &d->gid) < 0)
		return -1;
	return 0;
}

static int parse_net_devices(struct jp *c, const struct brig_json *top, struct brig_linux *lx)
{
	const struct brig_json *map = NULL;
	size_t mark;
	int r = jp_object(c, top, "netDevices", &map);

	if (r <= 0)
		return r;
	if (jp_check_unique_keys(c, "netDevices", map) < 0)
		return -1;
	lx->net_devices = brig_arena_array(c->arena, map->n, sizeof(*lx->net_devices));
	lx->n_net_devices = map->n;
	mark = jp_enter_key(c, "netDevices");
	for (size_t i = 0; i < map->n; i++) {
		struct brig_net_device *nd = &lx->net_devices[i];
		const struct brig_json *v = map->items[i];
		const char *key = map->keys[i];
		size_t im;

		if (jp_check_ifname(c, key, key) < 0)
			return -1;
		nd->host_name = brig_arena_strdup(c->arena, key);
		im = jp_enter_key(c, key);
		if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 || jp_string(c, v, "name", &nd->name) < 0)
			return -1;
		if (nd->name && jp_check_ifname(c, "name", nd->name) < 0)
			return -1;
		jp_leave(c, im);
	}
	jp_leave(c, mark);
	return 0;
}

static int parse_intel_rdt(struct jp *c, const struct brig_json *v, struct brig_intel_rdt **out)
{
	struct brig_intel_rdt *rdt = brig_arena_alloc(c->arena, sizeof(*rdt));

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 || jp_string(c, v, "closID", &rdt->clos_id) < 0)
		return -1;
	/* the CLOS becomes a directory under /sys/fs/resctrl */
	if (rdt->clos_id && (!rdt->clos_id[0] || strchr(rdt->clos_id, '/') ||
	                     strcmp(rdt->clos_id, ".") == 0 || strcmp(rdt->clos_id, "..") == 0))
		return jp_fail(c, "closID", "must be a single non-empty path component");
	if (jp_string(c, v, "l3CacheSchema", &rdt->l3_cache_schema) < 0 ||
	    jp_string(c, v, "memBwSchema", &rdt->mem_bw_schema) < 0 ||
	    jp_strings(c, v, "schemata", &rdt->schemata, &rdt->n_schemata) < 0 ||
	    jp_bool(c, v, "enableMonitoring", &rdt->enable_monitoring) < 0)
		return -1;
	*out = rdt;
	return 0;
}

static bool has_name(const char **list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

static int parse_memory_policy(struct jp *c, const struct brig_json *v,
                               struct brig_memory_policy **out)
{
	struct brig_memory_policy *mp = brig_arena_alloc(c->arena, sizeof(*mp));
	int mode;

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 ||
	    jp_enum_req(c, v, "mode", brig_mpol_mode_names, "memory policy mode", &mode) < 0)
		return -1;
	mp->mode = brig_mpol_mode_names[mode];
	if (jp_string(c, v, "nodes", &mp->nodes) < 0 ||
	    (mp->nodes && mp->nodes[0] && jp_check_node_list(c, "nodes", mp->nodes) < 0) ||
	    jp_strings(c, v, "flags", &mp->flags, &mp->n_flags) < 0 ||
	    jp_check_names(c, "flags", mp->flags, mp->n_flags, brig_mpol_flag_names,
	                   "memory policy flag") < 0)
		return -1;
	if (has_name(mp->flags, mp->n_flags, "MPOL_F_RELATIVE_NODES") &&
	    has_name(mp->flags, mp->n_flags, "MPOL_F_STATIC_NODES"))
		return jp_fail(c, "flags",
		               "MPOL_F_RELATIVE_NODES and MPOL_F_STATIC_NODES "
		               "are mutually exclusive");
	*out = mp;
	return 0;
}

static int parse_personality(struct jp *c, const struct brig_json *v, struct brig_personality **out)
{
	struct brig_personality *p = brig_arena_alloc(c->arena, sizeof(*p));
	int domain;

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 ||
	    jp_enum_req(c, v, "domain", personality_domain_names, "personality domain", &domain) <
	        0)
		return -1;
	p->domain = personality_domain_names[domain];
	if (jp_strings(c, v, "flags", &p->flags, &p->n_flags) < 0)
		return -1;
	*out = p;
	return 0;
}

/* No "." or ".." component: a relative path must stay under the caller's
 * cgroup, an absolute one mean what it says. */
static int check_cgroups_path(struct jp *c, const char *path)
{
	for (const char *p = path; p && *p;) {
		size_t len = strcspn(p, "/");

		if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			return jp_fail(c, "cgroupsPath", "\".\" and \"..\" are not allowed");
		p += len;
		p += strspn(p, "/");
	}
	return 0;
}

int brig_parse_linux(struct jp *c, const struct brig_json *v, struct brig_linux **out)
{
	struct brig_linux *lx = brig_arena_alloc(c->arena, sizeof(*lx));
	int prop;
	int r;

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 || parse_namespaces(c, v, lx) < 0 ||
	    jp_id_mappings(c, v, "uidMappings", &lx->uid_mappings, &lx->n_uid_mappings) < 0 ||
	    jp_id_mappings(c, v, "gidMappings", &lx->gid_mappings, &lx->n_gid_mappings) < 0 ||
	    parse_time_offsets(c, v, lx) < 0 ||
	    JP_LIST(c, v, "devices", parse_device, &lx->devices, &lx->n_devices) < 0 ||
	    parse_net_devices(c, v, lx) < 0 ||
	    jp_string(c, v, "cgroupsPath", &lx->cgroups_path) < 0 ||
	    check_cgroups_path(c, lx->cgroups_path) < 0 ||
	    JP_SECTION(c, v, "resources", brig_parse_resources, &lx->resources) < 0 ||
	    JP_SECTION(c, v, "intelRdt", parse_intel_rdt, &lx->intel_rdt) < 0 ||
	    JP_SECTION(c, v, "memoryPolicy", parse_memory_policy, &lx->memory_policy) < 0)
		return -1;
	r = jp_enum(c, v, "rootfsPropagation", propagation_names, "rootfs propagation", &prop);
	if (r < 0)
		return -1;
	if (r > 0)
		lx->rootfs_propagation = propagation_names[prop];
	if (JP_SECTION(c, v, "seccomp", brig_parse_seccomp, &lx->seccomp) < 0 ||
	    JP_SECTION(c, v, "personality", parse_personality, &lx->personality) < 0 ||
	    jp_string_map(c, v, "sysctl", &lx->sysctl, &lx->n_sysctl) < 0)
		return -1;
	for (size_t i = 0; i < lx->n_sysctl; i++)
		if (!lx->sysctl[i].key[0])
			return jp_fail(c, "sysctl", "keys must not be empty");
	if (jp_strings(c, v, "maskedPaths", &lx->masked_paths, &lx->n_masked_paths) < 0 ||
	    check_absolute_list(c, "maskedPaths", lx->masked_paths, lx->n_masked_paths) < 0 ||
	    jp_strings(c, v, "readonlyPaths", &lx->readonly_paths, &lx->n_readonly_paths) < 0 ||
	    check_absolute_list(c, "readonlyPaths", lx->readonly_paths, lx->n_readonly_paths) < 0 ||
	    jp_string(c, v, "mountLabel", &lx->mount_label) < 0)
		return -1;
	*out = lx;
	return 0;
}
