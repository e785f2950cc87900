/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/mempolicy.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "spec/spec.h"
#include "util/error.h"

/* The kernel's values (uapi linux/mempolicy.h; a 6.1 header lacks the
 * newest). */
enum {
	MODE_DEFAULT = 0,
	MODE_PREFERRED = 1,
	MODE_BIND = 2,
	MODE_INTERLEAVE = 3,
	MODE_LOCAL = 4,
	MODE_PREFERRED_MANY = 5,
	MODE_WEIGHTED_INTERLEAVE = 6,
};
#define F_NUMA_BALANCING (1 << 13)
#define F_RELATIVE_NODES (1 << 14)
#define F_STATIC_NODES (1 << 15)

/* Whether a mode takes nodes: never, it must have some, or either. */
enum nodes_rule { NODES_NONE, NODES_NEEDED, NODES_MAYBE };

static const struct {
	const char *name;
	int value;
	enum nodes_rule nodes;
	bool balancing; /* MPOL_F_NUMA_BALANCING goes with it */
} modes[] = {
	{ "MPOL_DEFAULT", MODE_DEFAULT, NODES_NONE, false },
	{ "MPOL_BIND", MODE_BIND, NODES_NEEDED, true },
	{ "MPOL_INTERLEAVE", MODE_INTERLEAVE, NODES_NEEDED, false },
	{ "MPOL_WEIGHTED_INTERLEAVE", MODE_WEIGHTED_INTERLEAVE, NODES_NEEDED, false },
	/* without nodes the kernel takes it as MPOL_LOCAL */
	{ "MPOL_PREFERRED", MODE_PREFERRED, NODES_MAYBE, false },
	{ "MPOL_PREFERRED_MANY", MODE_PREFERRED_MANY, NODES_NEEDED, true },
	{ "MPOL_LOCAL", MODE_LOCAL, NODES_NONE, false },
};

static const struct {
	const char *name;
	int value;
} flags[] = {
	{ "MPOL_F_NUMA_BALANCING", F_NUMA_BALANCING },
	{ "MPOL_F_RELATIVE_NODES", F_RELATIVE_NODES },
	{ "MPOL_F_STATIC_NODES", F_STATIC_NODES },
};

/* A decimal node number below BRIG_MPOL_NODES at *p, advancing it. */
static int parse_node(const char **p, unsigned long *out)
{
	unsigned long v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v >= BRIG_MPOL_NODES)
			return -2;
	}
	*p = s;
	*out = v;
	return 0;
}

/* "0-3,7" into @mask: 0, -1 on bad syntax (or a range backwards), -2 on a
 * node beyond BRIG_MPOL_NODES. */
static int parse_nodes(const char *s, unsigned long *mask)
{
	const size_t bits = 8 * sizeof(*mask);

	for (const char *p = s;;) {
		unsigned long a, b;
		int r = parse_node(&p, &a);

		if (r < 0)
			return r;
		b = a;
		if (*p == '-') {
			p++;
			r = parse_node(&p, &b);
			if (r < 0)
				return r;
			if (b < a)
				return -1;
		}
		for (unsigned long n = a; n <= b; n++)
			mask[n / bits] |= 1UL << (n % bits);
		if (*p == '\0')
			return 0;
		if (*p++ != ',')
			return -1;
	}
}

int brig_mempolicy_prepare(const struct brig_memory_policy *mp, struct brig_mempolicy_plan *out,
                           struct brig_error *err)
{
	bool has_nodes;
	size_t m;
	int fl = 0;

	memset(out, 0, sizeof(*out));
	if (!mp)
		return 0;
	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		if (strcmp(modes[m].name, mp->mode) == 0)
			break;
	if (m == sizeof(modes) / sizeof(modes[0]))
		return brig_error_set(
		    err, "config.json: linux.memoryPolicy.mode: unknown mode \"%s\"", mp->mode);
	for (size_t i = 0; i < mp->n_flags; i++)
		for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++)
			if (strcmp(flags[f].name, mp->flags[i]) == 0)
				fl |= flags[f].value;
	has_nodes = mp->nodes && mp->nodes[0];
	if (has_nodes) {
		int r = parse_nodes(mp->nodes, out->mask);

		if (r == -2)
			return brig_error_set(
			    err,
			    "config.json: linux.memoryPolicy.nodes: \"%s\" names a "
			    "node beyond the %d the kernel takes",
			    mp->nodes, BRIG_MPOL_NODES);
		if (r < 0)
			return brig_error_set(err,
			                      "config.json: linux.memoryPolicy.nodes: invalid node "
			                      "list \"%s\"",
			                      mp->nodes);
	}
	if (modes[m].nodes == NODES_NONE && has_nodes)
		return brig_error_set(
		    err, "config.json: linux.memoryPolicy.nodes: %s takes no nodes", mp->mode);
	if (modes[m].nodes == NODES_NEEDED && !has_nodes)
		return brig_error_set(err, "config.json: linux.memoryPolicy.nodes: %s needs nodes",
		                      mp->mode);
	if ((fl & F_NUMA_BALANCING) && !modes[m].balancing)
		return brig_error_set(err,
		                      "config.json: linux.memoryPolicy.flags: "
		                      "MPOL_F_NUMA_BALANCING goes only with MPOL_BIND or "
		                      "MPOL_PREFERRED_MANY, not %s",
		                      mp->mode);
	if ((fl & F_STATIC_NODES) && (fl & F_RELATIVE_NODES))
		return brig_error_set(
		    err, "config.json: linux.memoryPolicy.flags: MPOL_F_RELATIVE_NODES "
		         "and MPOL_F_STATIC_NODES are mutually exclusive");
	/* the kernel refuses them without nodes (MPOL_DEFAULT drops them) */
	if ((fl & (F_STATIC_NODES | F_RELATIVE_NODES)) && !has_nodes)
		return brig_error_set(err, "config.json: linux.memoryPolicy.flags: %s needs nodes",
		                      fl & F_STATIC_NODES ? "MPOL_F_STATIC_NODES"
		                                          : "MPOL_F_RELATIVE_NODES");
	out->set = true;
	out->mode = modes[m].value | fl;
	out->name = mp->mode;
	out->nodes = mp->nodes;
	out->has_mask = has_nodes;
	return 0;
}

int brig_mempolicy_apply(const struct brig_mempolicy_plan *plan, struct brig_error *err)
{
	if (!plan->set)
		return 0;
	/* maxnode: the number of bits the kernel reads (one more than the
	 * highest, set_mempolicy(2)) */
	if (syscall(SYS_set_mempolicy, plan->mode, plan->has_mask ? plan->mask : NULL,
	            plan->has_mask ? (unsigned long)BRIG_MPOL_NODES + 1 : 0UL) < 0)
		return brig_error_setp(err, errno,
		                       "config.json: linux.memoryPolicy: set_mempolicy %s \"%s\"",
		                       plan->name, plan->nodes ? plan->nodes : "");
	return 0;
}
