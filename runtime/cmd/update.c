/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lifecycle/control.h"
#include "spec/spec.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/log.h"

#define RES(name, help)                                       \
	{                                                     \
		name, 0, BRIG_OPT_STRING, "VALUE", help, NULL \
	}

static const struct brig_option options[] = {
	{ "resources", 'r', BRIG_OPT_STRING, "FILE",
	  "path to a file containing the resources to update, or \"-\" to read from stdin", NULL },
	RES("blkio-weight", "specifies per cgroup weight, range is from 10 to 1000"),
	RES("cpu-period", "CPU CFS period to be used for hardcapping (in usecs). 0 to use "
	                  "system default"),
	RES("cpu-quota", "CPU CFS hardcap limit (in usecs). Allowed cpu time in a given period"),
	RES("cpu-burst", "CPU CFS hardcap burst limit (in usecs). Allowed accumulated cpu time "
	                 "additionally for burst a given period"),
	RES("cpu-share", "CPU shares (relative weight vs. other containers)"),
	RES("cpu-rt-period", "CPU realtime period to be used for hardcapping (in usecs). 0 to "
	                     "use system default"),
	RES("cpu-rt-runtime", "CPU realtime hardcap limit (in usecs). Allowed cpu time in a "
	                      "given period"),
	RES("cpuset-cpus", "CPU(s) to use"),
	RES("cpuset-mems", "memory node(s) to use"),
	RES("kernel-memory", "(obsoleted; do not use)"),
	RES("kernel-memory-tcp", "(obsoleted; do not use)"),
	RES("memory", "memory limit (in bytes)"),
	RES("cpu-idle", "set cgroup SCHED_IDLE or not, 0: default behavior, 1: SCHED_IDLE"),
	RES("memory-reservation", "memory reservation or soft_limit (in bytes)"),
	RES("memory-swap", "total memory usage (memory + swap); set '-1' to enable unlimited "
	                   "swap"),
	RES("pids-limit", "maximum number of pids allowed in the container"),
	RES("l3-cache-schema", "the string of Intel RDT/CAT L3 cache schema"),
	RES("mem-bw-schema", "the string of Intel RDT/MBA memory bandwidth schema"),
};

enum {
	OPT_RESOURCES,
	OPT_BLKIO_WEIGHT,
	OPT_CPU_PERIOD,
	OPT_CPU_QUOTA,
	OPT_CPU_BURST,
	OPT_CPU_SHARE,
	OPT_CPU_RT_PERIOD,
	OPT_CPU_RT_RUNTIME,
	OPT_CPUSET_CPUS,
	OPT_CPUSET_MEMS,
	OPT_KERNEL_MEMORY,
	OPT_KERNEL_MEMORY_TCP,
	OPT_MEMORY,
	OPT_CPU_IDLE,
	OPT_MEMORY_RESERVATION,
	OPT_MEMORY_SWAP,
	OPT_PIDS_LIMIT,
	OPT_L3_CACHE_SCHEMA,
	OPT_MEM_BW_SCHEMA,
};

static void *zalloc(struct brig_arena *a, size_t size)
{
	void *p = brig_arena_alloc(a, size);

	memset(p, 0, size);
	return p;
}

/* A size as runc takes it (docker's RAMInBytes): "-1", "1024", "64m",
 * "1.5g", "64MiB"; binary multiples. */
static int parse_bytes(const char *s, int64_t *out)
{
	static const char units[] = "kmgtp";
	char *end;
	double v;
	const char *u;
	int shift = 0;

	if (!strcmp(s, "-1")) {
		*out = -1;
		return 0;
	}
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return -1;
	if (*end == ' ')
		end++;
	if (*end && (u = strchr(units, tolower((unsigned char)*end)))) {
		shift = 10 * (int)(u - units + 1);
		end++;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end)
		return -1;
	v *= (double)(1ULL << shift);
	if (v >= 9.2e18)
		return -1;
	*out = (int64_t)v;
	return 0;
}

static int parse_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int bad(const struct brig_args *a, int o, struct brig_error *err)
{
	return brig_error_usage(err, "invalid value \"%s\" for flag --%s", a->vals[o].str,
	                        options[o].name);
}

/* --resources FILE (or - for stdin), a LinuxResources document */
static struct brig_resources_doc *load_resources(const char *path, struct brig_error *err)
{
	_cleanup_free_ char *text = NULL;
	size_t len;

	if (brig_read_file(AT_FDCWD, !strcmp(path, "-") ? "/dev/stdin" : path, 16 << 20, &text,
	                   &len, err) < 0)
		return NULL;
	return brig_resources_parse(!strcmp(path, "-") ? "<stdin>" : path, text, len, err);
}

/* The flags, on top of --resources: what is given replaces the file's. */
static int apply_flags(const struct brig_args *a, struct brig_resources_doc *doc,
                       struct brig_error *err)
{
	struct brig_resources *r = doc->resources;
	int64_t v;

#define SET(o) (a->vals[o].set)
#define ENSURE(field)                                                      \
	do {                                                               \
		if (!r->field)                                             \
			r->field = zalloc(&doc->arena, sizeof(*r->field)); \
	} while (0)
#define BYTES(o, field, dst)                                     \
	do {                                                     \
		if (SET(o)) {                                    \
			if (parse_bytes(a->vals[o].str, &v) < 0) \
				return bad(a, o, err);           \
			ENSURE(field);                           \
			dst.set = true;                          \
			dst.value = v;                           \
		}                                                \
	} while (0)
#define INT(o, field, dst, min, max)                                     \
	do {                                                             \
		if (SET(o)) {                                            \
			if (parse_int(a->vals[o].str, min, max, &v) < 0) \
				return bad(a, o, err);                   \
			ENSURE(field);                                   \
			dst.set = true;                                  \
			dst.value = (__typeof__(dst.value))v;            \
		}                                                        \
	} while (0)

	if (SET(OPT_L3_CACHE_SCHEMA) || SET(OPT_MEM_BW_SCHEMA))
		return brig_error_set(err, "Intel RDT is not supported");
	if (SET(OPT_KERNEL_MEMORY) || SET(OPT_KERNEL_MEMORY_TCP))
		brig_warn("kernel memory settings are ignored and will be removed");
	BYTES(OPT_MEMORY, memory, r->memory->limit);
	BYTES(OPT_MEMORY_RESERVATION, memory, r->memory->reservation);
	BYTES(OPT_MEMORY_SWAP, memory, r->memory->swap);
	INT(OPT_CPU_PERIOD, cpu, r->cpu->period, 0, INT64_MAX);
	INT(OPT_CPU_QUOTA, cpu, r->cpu->quota, INT64_MIN, INT64_MAX);
	INT(OPT_CPU_BURST, cpu, r->cpu->burst, 0, INT64_MAX);
	INT(OPT_CPU_SHARE, cpu, r->cpu->shares, 0, INT64_MAX);
	INT(OPT_CPU_RT_PERIOD, cpu, r->cpu->realtime_period, 0, INT64_MAX);
	INT(OPT_CPU_RT_RUNTIME, cpu, r->cpu->realtime_runtime, INT64_MIN, INT64_MAX);
	INT(OPT_CPU_IDLE, cpu, r->cpu->idle, 0, 1);
	INT(OPT_BLKIO_WEIGHT, block_io, r->block_io->weight, 10, 1000);
	if (SET(OPT_CPUSET_CPUS)) {
		ENSURE(cpu);
		r->cpu->cpus = a->vals[OPT_CPUSET_CPUS].str;
	}
	if (SET(OPT_CPUSET_MEMS)) {
		ENSURE(cpu);
		r->cpu->mems = a->vals[OPT_CPUSET_MEMS].str;
	}
	if (SET(OPT_PIDS_LIMIT)) {
		if (parse_int(a->vals[OPT_PIDS_LIMIT].str, INT64_MIN, INT64_MAX, &v) < 0)
			return bad(a, OPT_PIDS_LIMIT, err);
		r->has_pids = true;
		r->pids_limit.set = true;
		r->pids_limit.value = v;
	}
#undef SET
#undef ENSURE
#undef BYTES
#undef INT
	return 0;
}

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	struct brig_resources_doc *doc = NULL;
	int r = -1;

	if (a->vals[OPT_RESOURCES].set) {
		doc = load_resources(a->vals[OPT_RESOURCES].str, err);
		if (!doc)
			return -1;
	} else {
		doc = brig_xcalloc(1, sizeof(*doc));
	}
	if (!doc->resources)
		doc->resources = zalloc(&doc->arena, sizeof(*doc->resources));
	if (apply_flags(a, doc, err) == 0)
		r = brig_container_update(&cli->ctx, a->pos[0], doc->resources, err);
	brig_resources_doc_free(doc);
	return r;
}

const struct brig_command brig_cmd_update = {
	.name = "update",
	.args_usage = "<container-id>",
	.summary = "update container resource constraints",
	.description = "   Change the cgroup limits of a running container, from flags or from a\n"
	               "   LinuxResources JSON document (--resources FILE, or - for stdin).",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
