/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cgroup logic that needs no root: runc's conversions, the device rule
 * list a container gets, and the checks on what state.json records.
 */
#include "config.h"

#include <string.h>

#include "cgroup/cgroup.h"
#include "cgroup/devices_bpf.h"
#include "cgroup/internal.h"
#include "spec/spec.h"
#include "spec/state.h"
#include "tap.h"
#include "util/arena.h"
#include "util/cleanup.h"
#include "util/error.h"

static void test_conversions(void)
{
	/* runc 1.1's linear shares -> weight, and its bounds */
	is_int((long long)brig_cg_shares_to_weight(0), 0, "shares 0: unset");
	is_int((long long)brig_cg_shares_to_weight(2), 1, "shares 2: weight 1");
	is_int((long long)brig_cg_shares_to_weight(1024), 39, "shares 1024: weight 39");
	is_int((long long)brig_cg_shares_to_weight(262144), 10000, "shares 262144: weight 10000");
	is_int((long long)brig_cg_shares_to_weight(1u << 30), 10000, "shares above max: clamped");
	is_int((long long)brig_cg_blkio_to_io_weight(0), 0, "blkio weight 0: unset");
	is_int((long long)brig_cg_blkio_to_io_weight(10), 1, "blkio weight 10: io weight 1");
	is_int((long long)brig_cg_blkio_to_io_weight(500), 4950, "blkio weight 500: 4950");
	is_int((long long)brig_cg_blkio_to_io_weight(1000), 10000, "blkio weight 1000: 10000");
}

static const char *fmt(const struct brig_dev_rule *r)
{
	static char buf[80];

	brig_cg_dev_rule_format(r, buf, sizeof(buf));
	return buf;
}

static void test_device_rules(void)
{
	struct brig_device_cgroup cfg[] = {
		{ .allow = true,
		  .type = 'c',
		  .major = { 1, true },
		  .minor = { 1, true },
		  .access = "rw" },
	};
	struct brig_device dev = { .path = "/dev/fuse", .type = 'c', .major = 10, .minor = 229 };
	struct brig_resources res = { .devices = cfg, .n_devices = 1 };
	struct brig_linux lx = { .resources = &res, .devices = &dev, .n_devices = 1 };
	_cleanup_free_ struct brig_dev_rule *rules = NULL, *none = NULL;
	size_t n = brig_cg_device_rules(&lx, &rules);
	size_t n0 = brig_cg_device_rules(NULL, &none);

	/* deny all, the config's rules, runc's defaults; a linux.devices
	 * node gets no rule of its own (runc's rule) */
	is_int((long long)n, (long long)n0 + 1, "one config rule added, nothing for the device");
	is_str(fmt(&rules[0]), "a", "first: deny everything");
	ok(!rules[0].allow, "the first rule denies");
	is_str(fmt(&rules[1]), "c 1:1 rw", "then the config's rules, in order");
	is_str(fmt(&rules[2]), "c *:* m", "then the defaults: mknod of any char device");
	ok(!brig_devices_allowed(rules, n, 'c', 10, 229, BRIG_DEV_READ | BRIG_DEV_WRITE),
	   "the config's device /dev/fuse is not usable without a rule");
	ok(brig_devices_allowed(rules, n, 'c', 1, 3, BRIG_DEV_READ | BRIG_DEV_WRITE),
	   "/dev/null is allowed by default");
	ok(brig_devices_allowed(rules, n, 'c', 136, 7, BRIG_DEV_READ | BRIG_DEV_WRITE),
	   "every pty is allowed");
	ok(!brig_devices_allowed(none, n0, 'b', 8, 0, BRIG_DEV_READ),
	   "a disk is denied by default");
	ok(!brig_devices_allowed(none, n0, 'c', 10, 200, BRIG_DEV_READ),
	   "tun is not a default device");
	ok(brig_devices_allowed(none, n0, 'b', 8, 0, BRIG_DEV_MKNOD),
	   "mknod of any node is allowed (using it is not)");
	ok(brig_devices_allowed(rules, n, 'c', 1, 1, BRIG_DEV_READ), "the config's rule applies");
	ok(!brig_devices_allowed(rules, n, 'c', 1, 2, BRIG_DEV_READ), "only to its device");
}

/* A state naming @dir, with @created as what brig made. */
static int from_state(const char *name, const char *dir, const char *created, char **msg)
{
	struct brig_state *s = brig_state_new();
	struct brig_cgroup cg = BRIG_CGROUP_INIT;
	struct brig_error err = BRIG_ERROR_INIT;
	int r;

	s->cgroup_paths = brig_arena_array(&s->arena, 1, sizeof(struct brig_kv));
	s->cgroup_paths[0] = (struct brig_kv){ name, dir };
	s->n_cgroup_paths = 1;
	if (created) {
		s->cgroup_created = brig_arena_array(&s->arena, 1, sizeof(struct brig_kv));
		s->cgroup_created[0] = (struct brig_kv){ name, created };
		s->n_cgroup_created = 1;
	}
	r = brig_cgroup_from_state(s, &cg, &err);
	*msg = err.msg ? brig_xstrdup(err.msg) : NULL;
	brig_error_release(&err);
	brig_cgroup_release(&cg);
	brig_state_free(s);
	return r;
}

static void test_state_paths(void)
{
	char *msg = NULL;

	is_int(from_state("memory", "/sys/fs/cgroup/memory/a/b", "/sys/fs/cgroup/memory/a", &msg),
	       0, "a recorded cgroup and the parent brig created");
	free(msg);
	is_int(from_state("memory", "/tmp/x", NULL, &msg), -1, "a path outside /sys/fs/cgroup");
	is_str(msg, "state: cgroup path \"/tmp/x\" is not under \"/sys/fs/cgroup\"",
	       "is refused by name");
	free(msg);
	is_int(from_state("memory", "/sys/fs/cgroup/memory/../../etc", NULL, &msg), -1,
	       "a path with .. is refused");
	free(msg);
	is_int(from_state("memory", "/sys/fs/cgroup/memory/a/b", "/sys/fs/cgroup/memory/ab", &msg),
	       -1, "a created directory that is not a parent");
	is_str(msg,
	       "state: cgroup \"/sys/fs/cgroup/memory/a/b\" is not below "
	       "\"/sys/fs/cgroup/memory/ab\"",
	       "is refused: delete removes only below it");
	free(msg);
}

int main(void)
{
	test_conversions();
	test_device_rules();
	test_state_paths();
	return tap_done();
}
