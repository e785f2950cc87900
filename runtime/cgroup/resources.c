/* SPDX-License-Identifier: Apache-2.0 */
/* What the back ends share: runc's conversions, the device rule list, and
 * the writers of what v1 (hybrid) and v2 both take. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/devices_bpf.h"
#include "cgroup/internal.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/log.h"

/* cpu.shares (2..262144) to cpu.weight (1..10000), linearly, as runc 1.1
 * and crun convert it. */
uint64_t brig_cg_shares_to_weight(uint64_t shares)
{
	if (shares == 0)
		return 0;
	if (shares < 2)
		shares = 2;
	if (shares > 262144)
		shares = 262144;
	return 1 + ((shares - 2) * 9999) / 262142;
}

/* blkio.weight (10..1000) to io.weight (1..10000), as runc. */
uint64_t brig_cg_blkio_to_io_weight(uint64_t weight)
{
	if (weight == 0)
		return 0;
	if (weight < 10)
		weight = 10;
	return 1 + (weight - 10) * 9999 / 990;
}

#define ALL (BRIG_DEV_READ | BRIG_DEV_WRITE | BRIG_DEV_MKNOD)

/*
 * What every container may use whatever its config says, as runc allows
 * it: mknod of any node (using one still needs a rule), and the standard
 * character devices a process expects.  No tun/tap: an untrusted job does
 * not get to make network devices unless its config says so.
 */
static const struct brig_dev_rule default_rules[] = {
	{ true, 'c', -1, -1, BRIG_DEV_MKNOD },
	{ true, 'b', -1, -1, BRIG_DEV_MKNOD },
	{ true, 'c', 1, 3, ALL },    /* null */
	{ true, 'c', 1, 8, ALL },    /* random */
	{ true, 'c', 1, 7, ALL },    /* full */
	{ true, 'c', 5, 0, ALL },    /* tty */
	{ true, 'c', 1, 5, ALL },    /* zero */
	{ true, 'c', 1, 9, ALL },    /* urandom */
	{ true, 'c', 136, -1, ALL }, /* pts */
	{ true, 'c', 5, 2, ALL },    /* ptmx */
};

/* The bits of an access string: r, w and m; any other letter is
 * ignored, as runc ignores it (crun 1.8.1 passes it to the v1 kernel,
 * which refuses it); @ignored says whether there was one. */
static unsigned int access_bits(const char *access, bool *ignored)
{
	unsigned int bits = 0;

	*ignored = false;
	if (!access)
		return ALL;
	for (const char *p = access; *p; p++) {
		if (*p == 'r')
			bits |= BRIG_DEV_READ;
		else if (*p == 'w')
			bits |= BRIG_DEV_WRITE;
		else if (*p == 'm')
			bits |= BRIG_DEV_MKNOD;
		else
			*ignored = true;
	}
	return bits;
}

size_t brig_cg_config_device_rules(const struct brig_resources *r, struct brig_dev_rule **out)
{
	size_t n = r ? r->n_devices : 0, k = 0;
	struct brig_dev_rule *rules = brig_xcalloc(n ? n : 1, sizeof(*rules));

	for (size_t i = 0; i < n; i++) {
		const struct brig_device_cgroup *d = &r->devices[i];
		bool ignored;
		unsigned int bits = access_bits(d->access, &ignored);

		if (ignored)
			brig_debug("config.json: linux.resources.devices[%zu].access: \"%.16s\": "
			           "letters other than r, w and m ignored (as runc ignores them)",
			           i, d->access);
		/* no letter left: the rule allows or denies nothing */
		if (!bits) {
			brig_debug("config.json: linux.resources.devices[%zu]: no access: left out",
			           i);
			continue;
		}
		rules[k++] = (struct brig_dev_rule){
			.allow = d->allow,
			.type = d->type ? d->type : 'a',
			.major = d->major.set ? d->major.value : -1,
			.minor = d->minor.set ? d->minor.value : -1,
			.access = bits,
		};
	}
	*out = rules;
	return k;
}

size_t brig_cg_device_rules(const struct brig_linux *lx, struct brig_dev_rule **out)
{
	struct brig_dev_rule *cfg = NULL, *rules;
	size_t n_cfg = brig_cg_config_device_rules(lx ? lx->resources : NULL, &cfg);
	size_t n = 1 + n_cfg + ARRAY_SIZE(default_rules), k = 0;

	rules = brig_xcalloc(n, sizeof(*rules));
	/* default deny: a config without rules gets only the defaults */
	rules[k++] = (struct brig_dev_rule){ false, 'a', -1, -1, ALL };
	memcpy(rules + k, cfg, n_cfg * sizeof(*cfg));
	k += n_cfg;
	memcpy(rules + k, default_rules, sizeof(default_rules));
	k += ARRAY_SIZE(default_rules);
	/* a node of linux.devices gets no rule of its own: only the config's
	 * rules and the defaults decide (runc's rule; engines that pass a
	 * device write its allow rule too) */
	free(cfg);
	*out = rules;
	return k;
}

void brig_cg_dev_rule_format(const struct brig_dev_rule *rule, char *buf, size_t size)
{
	char maj[24] = "*", min[24] = "*", acc[4];
	size_t a = 0;

	if (rule->type == 'a') {
		snprintf(buf, size, "a");
		return;
	}
	if (rule->major >= 0)
		snprintf(maj, sizeof(maj), "%lld", (long long)rule->major);
	if (rule->minor >= 0)
		snprintf(min, sizeof(min), "%lld", (long long)rule->minor);
	if (rule->access & BRIG_DEV_READ)
		acc[a++] = 'r';
	if (rule->access & BRIG_DEV_WRITE)
		acc[a++] = 'w';
	if (rule->access & BRIG_DEV_MKNOD)
		acc[a++] = 'm';
	acc[a] = '\0';
	snprintf(buf, size, "%c %s:%s %s", rule->type, maj, min, acc);
}

/* ------------------------------------------------------------ both layouts */

/* Is @ctrl enabled in the v2 cgroup @h ("cgroup.*" keys always are)? */
bool brig_cg_v2_has_controller(const struct brig_cg_hier *h, const char *ctrl)
{
	_cleanup_free_ char *list = NULL;
	size_t cl = strlen(ctrl);

	if (!strcmp(ctrl, "cgroup"))
		return true;
	list = brig_cg_read(h, "cgroup.controllers");
	for (char *p = list; p && *p;) {
		size_t len = strcspn(p, " \n");

		if (len == cl && !strncmp(p, ctrl, cl))
			return true;
		p += len;
		p += strspn(p, " \n");
	}
	return false;
}

/* The hugetlb limits, in whichever hierarchy holds the controller. */
int brig_cg_apply_hugetlb(const struct brig_cg_hier *h, bool v2,
                          const struct brig_hugepage_limit *l, size_t n, struct brig_error *err)
{
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *file = NULL, *rsvd = NULL;

		if (v2 && !brig_cg_v2_has_controller(h, "hugetlb"))
			return brig_error_set(err,
			                      "%shugepageLimits: the hugetlb controller is not "
			                      "enabled in cgroup \"%s\"",
			                      BRIG_CG_R, h->dir);
		file = brig_xasprintf(v2 ? "hugetlb.%s.max" : "hugetlb.%s.limit_in_bytes",
		                      l[i].page_size);
		rsvd = brig_xasprintf(v2 ? "hugetlb.%s.rsvd.max" : "hugetlb.%s.rsvd.limit_in_bytes",
		                      l[i].page_size);
		if (brig_cg_put(h, file, "hugepageLimits", err, "%llu",
		                (unsigned long long)l[i].limit) < 0)
			return -1;
		/* the reservation limit, where the kernel has it, follows */
		if (brig_cg_has(h, rsvd) && brig_cg_put(h, rsvd, "hugepageLimits", err, "%llu",
		                                        (unsigned long long)l[i].limit) < 0)
			return -1;
	}
	return 0;
}

int brig_cg_apply_unified(const struct brig_cg_hier *h, const struct brig_kv *kv, size_t n,
                          struct brig_error *err)
{
	for (size_t i = 0; i < n; i++) {
		char ctrl[64];
		size_t len = strcspn(kv[i].key, ".");

		snprintf(ctrl, sizeof(ctrl), "%.*s", (int)(len < 63 ? len : 63), kv[i].key);
		/* ENOTSUP: a v1 host's caller says so in runc's words */
		if (!brig_cg_v2_has_controller(h, ctrl))
			return brig_error_sete(err, ENOTSUP,
			                       "%sunified[\"%s\"]: the %s controller is not "
			                       "enabled in cgroup \"%s\"",
			                       BRIG_CG_R, kv[i].key, ctrl, h->dir);
		if (brig_cg_write(h, kv[i].key, kv[i].value, err) < 0)
			return brig_error_wrap(err, "%sunified[\"%s\"]", BRIG_CG_R, kv[i].key);
	}
	return 0;
}

int brig_cg_apply_rdma(const struct brig_cg_hier *h, const struct brig_rdma *rd, size_t n,
                       struct brig_error *err)
{
	for (size_t i = 0; i < n; i++) {
		char handles[24] = "max", objects[24] = "max";

		if (rd[i].hca_handles.set)
			snprintf(handles, sizeof(handles), "%u", (unsigned)rd[i].hca_handles.value);
		if (rd[i].hca_objects.set)
			snprintf(objects, sizeof(objects), "%u", (unsigned)rd[i].hca_objects.value);
		if (brig_cg_put(h, "rdma.max", "rdma", err, "%s hca_handle=%s hca_object=%s",
		                rd[i].device, handles, objects) < 0)
			return -1;
	}
	return 0;
}
