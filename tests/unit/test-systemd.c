/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The systemd cgroup driver (runtime/cgroup/systemd.c) without systemd:
 * linux.cgroupsPath to unit names, slice expansion, linux.resources and the
 * device rules to unit properties on v1 and v2 (compared as the text
 * brig_systemd_props_format() writes, one "Name=value" line each), and the
 * D-Bus entry points failing cleanly on a host where systemd is not the
 * init.
 *
 * Fixtures are written with ' for " to keep them readable; json() swaps.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/devices_bpf.h"
#include "cgroup/internal.h"
#include "cgroup/systemd.h"
#include "spec/spec.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/strbuf.h"

/* A systemd new enough for every property. */
#define SD_NEW 255

static char *json(const char *s)
{
	char *j = brig_xstrdup(s);

	for (char *p = j; *p; p++)
		if (*p == '\'')
			*p = '"';
	return j;
}

/* A config.json whose "linux" object is @linux. */
static struct brig_config *config(const char *linux)
{
	struct brig_error err = BRIG_ERROR_INIT;
	_cleanup_free_ char *fixture =
	    brig_xasprintf("{'ociVersion': '1.3.0', 'root': {'path': 'rootfs'},"
	                   " 'process': {'user': {'uid': 0, 'gid': 0}, 'args': ['sh'], 'cwd': '/'},"
	                   " 'linux': %s}",
	                   linux);
	_cleanup_free_ char *text = json(fixture);
	struct brig_config *cfg = brig_config_parse("config.json", text, strlen(text), &err);

	if (!cfg) {
		printf("# unexpected error: %s\n", err.msg);
		exit(99);
	}
	return cfg;
}

/* Which device rules go with the resources. */
enum rules {
	NO_RULES,     /* none: the device policy is left alone */
	CONFIG_RULES, /* linux.resources.devices alone */
	ALL_RULES,    /* what a new container gets: deny, config, defaults, linux.devices */
};

/* The properties of the "linux" object @linux, as text; NULL on error
 * (then *@msg is the error). */
static char *props_of(const char *linux, enum rules rules, bool v2, unsigned int version,
                      char **msg)
{
	struct brig_config *cfg = config(linux);
	struct brig_systemd_props props = BRIG_SYSTEMD_PROPS_INIT;
	struct brig_strbuf sb = BRIG_STRBUF_INIT;
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_dev_rule *devices = NULL;
	size_t n = 0;
	char *out = NULL;

	if (rules == CONFIG_RULES)
		n = brig_cg_config_device_rules(cfg->linux->resources, &devices);
	else if (rules == ALL_RULES)
		n = brig_cg_device_rules(cfg->linux, &devices);
	if (brig_systemd_properties(cfg->linux->resources, devices, n, v2, version, &props, &err) ==
	    0) {
		brig_systemd_props_format(&props, &sb);
		out = brig_strbuf_detach(&sb);
	} else if (msg) {
		*msg = TAKE_PTR(err.msg);
	}
	free(devices);
	brig_error_release(&err);
	brig_systemd_props_release(&props);
	brig_config_free(cfg);
	return out;
}

static void linux_props_are(const char *linux, enum rules rules, bool v2, unsigned int version,
                            const char *want, const char *what)
{
	_cleanup_free_ char *msg = NULL;
	_cleanup_free_ char *got = props_of(linux, rules, v2, version, &msg);

	if (!got)
		printf("# unexpected error: %s\n", msg);
	is_str(got, want, "%s (%s)", what, v2 ? "v2" : "v1");
}

/* linux.resources @resources, without device rules */
static void props_are(const char *resources, bool v2, unsigned int version, const char *want,
                      const char *what)
{
	_cleanup_free_ char *linux = brig_xasprintf("{'resources': %s}", resources);

	linux_props_are(linux, NO_RULES, v2, version, want, what);
}

/* linux.resources.devices @devices, as the rule list */
static void devices_are(const char *devices, bool v2, unsigned int version, const char *want,
                        const char *what)
{
	_cleanup_free_ char *linux = brig_xasprintf("{'resources': {'devices': %s}}", devices);

	linux_props_are(linux, CONFIG_RULES, v2, version, want, what);
}

static void props_fail(const char *resources, bool v2, const char *want)
{
	_cleanup_free_ char *linux = brig_xasprintf("{'resources': %s}", resources);
	_cleanup_free_ char *msg = NULL;
	_cleanup_free_ char *got = props_of(linux, NO_RULES, v2, SD_NEW, &msg);

	ok(got == NULL, "refused (%s): %s", v2 ? "v2" : "v1", want);
	is_str(msg, want, "  error message");
}

static void path_is(const char *cgroups_path, const char *slice, const char *unit,
                    const char *cgroup)
{
	struct brig_systemd_unit u = BRIG_SYSTEMD_UNIT_INIT;
	struct brig_error err = BRIG_ERROR_INIT;
	const char *shown = cgroups_path ? cgroups_path : "(null)";

	if (!ok(brig_systemd_parse_path(cgroups_path, "abc", &u, &err) == 0, "\"%s\" parses",
	        shown)) {
		printf("# %s\n", err.msg);
		brig_error_release(&err);
		return;
	}
	is_str(u.slice, slice, "  slice");
	is_str(u.unit, unit, "  unit");
	is_str(u.cgroup, cgroup, "  cgroup");
	brig_systemd_unit_release(&u);
}

static void path_fails(const char *cgroups_path, const char *want)
{
	struct brig_systemd_unit u = BRIG_SYSTEMD_UNIT_INIT;
	struct brig_error err = BRIG_ERROR_INIT;

	ok(brig_systemd_parse_path(cgroups_path, "abc", &u, &err) < 0 && !u.unit,
	   "\"%.40s\" is refused", cgroups_path);
	is_str(err.msg, want, "  error message");
	brig_error_release(&err);
}

static void test_parse_path(void)
{
	_cleanup_free_ char *long_name = NULL;
	_cleanup_free_ char *long_path = NULL;
	_cleanup_free_ char *long_err = NULL;
	struct brig_config *cfg;
	struct brig_systemd_unit u = BRIG_SYSTEMD_UNIT_INIT;
	struct brig_error err = BRIG_ERROR_INIT;

	diag("linux.cgroupsPath: slice:prefix:name");
	path_is(NULL, "system.slice", "brig-abc.scope", "/system.slice/brig-abc.scope");
	path_is("", "system.slice", "brig-abc.scope", "/system.slice/brig-abc.scope");
	path_is("system.slice:brig:abc", "system.slice", "brig-abc.scope",
	        "/system.slice/brig-abc.scope");
	path_is(":brig:abc", "system.slice", "brig-abc.scope", "/system.slice/brig-abc.scope");
	path_is("machine.slice:libpod:0123abcd", "machine.slice", "libpod-0123abcd.scope",
	        "/machine.slice/libpod-0123abcd.scope");
	/* runc and crun join with "-" even when the prefix is empty */
	path_is("machine.slice::x", "machine.slice", "-x.scope", "/machine.slice/-x.scope");
	path_is("machine-foo.slice:podman:abc", "machine-foo.slice", "podman-abc.scope",
	        "/machine.slice/machine-foo.slice/podman-abc.scope");
	path_is("-.slice:brig:abc", "-.slice", "brig-abc.scope", "/brig-abc.scope");
	path_is("kubepods-burstable.slice:cri-containerd:f00d", "kubepods-burstable.slice",
	        "cri-containerd-f00d.scope",
	        "/kubepods.slice/kubepods-burstable.slice/cri-containerd-f00d.scope");
	/* a name that is a slice: the unit itself, placed by its own name */
	path_is("a.slice:ignored:a-b.slice", "a.slice", "a-b.slice", "/a.slice/a-b.slice");
	path_is(":brig:a-b.slice", "system.slice", "a-b.slice", "/a.slice/a-b.slice");
	path_is("system.slice:brig:x@1", "system.slice", "brig-x@1.scope",
	        "/system.slice/brig-x@1.scope");

	cfg = config("{'cgroupsPath': 'user.slice:brig:job-7'}");
	ok(brig_systemd_parse_path(cfg->linux->cgroups_path, "id", &u, &err) == 0 &&
	       strcmp(u.cgroup, "/user.slice/brig-job-7.scope") == 0 &&
	       strcmp(u.name, "job-7") == 0,
	   "a config's cgroupsPath: /user.slice/brig-job-7.scope, name job-7");
	brig_systemd_unit_release(&u);
	brig_config_free(cfg);

	diag("linux.cgroupsPath: refused");
#define FORMAT_ERR(p)                                                                           \
	"linux.cgroupsPath: expected \"slice:prefix:name\" for the systemd cgroup driver, got " \
	"\"" p "\""
	path_fails("/foo", FORMAT_ERR("/foo"));
	path_fails("system.slice/brig-abc.scope", FORMAT_ERR("system.slice/brig-abc.scope"));
	path_fails("a:b", FORMAT_ERR("a:b"));
	path_fails("a.slice:b:c:d", FORMAT_ERR("a.slice:b:c:d"));
	path_fails("system.slice:brig:",
	           "linux.cgroupsPath: the name in \"system.slice:brig:\" is empty");
	path_fails("foo:brig:x",
	           "linux.cgroupsPath: invalid slice name \"foo\": must end in \".slice\"");
	path_fails("a--b.slice:brig:x", "linux.cgroupsPath: invalid slice name \"a--b.slice\": "
	                                "\"-\" must separate non-empty parts");
	path_fails("system.slice:brig:a/../../b",
	           "linux.cgroupsPath: invalid unit name \"brig-a/../../b.scope\": contains a "
	           "character not valid in a unit name");
	path_fails("system.slice:br ig:x",
	           "linux.cgroupsPath: invalid unit name \"br ig-x.scope\": "
	           "contains a character not valid in a unit name");
	path_fails("system.slice:brig:-.slice",
	           "linux.cgroupsPath: the root slice \"-.slice\" cannot be a container's unit");
	path_fails("system.slice:brig:a-.slice",
	           "linux.cgroupsPath: invalid slice name "
	           "\"a-.slice\": \"-\" must separate non-empty parts");

	long_name = malloc(301);
	memset(long_name, 'x', 300);
	long_name[300] = '\0';
	long_path = brig_xasprintf("system.slice:brig:%s", long_name);
	long_err = brig_xasprintf("linux.cgroupsPath: invalid unit name \"brig-%s.scope\": longer "
	                          "than 255 characters",
	                          long_name);
	path_fails(long_path, long_err);
}

static void expand_is(const char *slice, const char *want)
{
	struct brig_error err = BRIG_ERROR_INIT;
	_cleanup_free_ char *got = brig_systemd_expand_slice(slice, &err);

	if (!got)
		printf("# %s\n", err.msg);
	is_str(got, want, "\"%s\" -> \"%s\"", slice, want);
	brig_error_release(&err);
}

static void expand_fails(const char *slice, const char *why)
{
	struct brig_error err = BRIG_ERROR_INIT;
	_cleanup_free_ char *got = brig_systemd_expand_slice(slice, &err);
	_cleanup_free_ char *want = brig_xasprintf("invalid slice name \"%s\": %s", slice, why);

	ok(got == NULL, "\"%s\" is refused", slice);
	is_str(err.msg, want, "  error message");
	brig_error_release(&err);
}

static void test_expand_slice(void)
{
	diag("slice names expand into cgroup paths");
	expand_is("system.slice", "/system.slice");
	expand_is("a-b.slice", "/a.slice/a-b.slice");
	expand_is("a-b-c.slice", "/a.slice/a-b.slice/a-b-c.slice");
	expand_is("user-1000.slice", "/user.slice/user-1000.slice");
	expand_is("-.slice", "/");
	expand_is("a_b:c\\x2d.slice", "/a_b:c\\x2d.slice");

	expand_fails("", "must end in \".slice\"");
	expand_fails("system", "must end in \".slice\"");
	expand_fails("system.scope", "must end in \".slice\"");
	expand_fails(".slice", "\"-\" must separate non-empty parts");
	expand_fails("a--b.slice", "\"-\" must separate non-empty parts");
	expand_fails("-a.slice", "\"-\" must separate non-empty parts");
	expand_fails("a-.slice", "\"-\" must separate non-empty parts");
	expand_fails("--.slice", "\"-\" must separate non-empty parts");
	expand_fails("a/b.slice", "must not contain \"/\"");
	expand_fails("../x.slice", "must not contain \"/\"");
	expand_fails("a b.slice", "contains a character not valid in a unit name");
	expand_fails("a@b.slice", "contains a character not valid in a unit name");
}

static void test_memory(void)
{
	const char *mem = "{'memory': {'limit': 1073741824, 'reservation': 536870912,"
	                  " 'swap': 2147483648, 'swappiness': 10}}";

	diag("memory: limit, reservation, swap");
	props_are(mem, false, SD_NEW, "MemoryLimit=1073741824\n",
	          "v1: the limit alone; reservation, swap and swappiness are cgroupfs writes");
	props_are(mem, true, SD_NEW,
	          "MemoryMax=1073741824\nMemoryLow=536870912\nMemorySwapMax=1073741824\n",
	          "v2: swap is memory+swap minus memory");
	props_are("{'memory': {'limit': -1}}", true, SD_NEW,
	          "MemoryMax=infinity\nMemorySwapMax=infinity\n",
	          "unlimited memory and no swap: both unlimited");
	props_are("{'memory': {'limit': 104857600, 'swap': -1}}", true, SD_NEW,
	          "MemoryMax=104857600\nMemorySwapMax=infinity\n", "swap -1 is unlimited");
	props_are("{'memory': {'limit': 104857600, 'swap': 104857600}}", true, SD_NEW,
	          "MemoryMax=104857600\n", "swap equal to the limit: no swap (0 is unset)");
	props_are("{'memory': {'limit': 0, 'kernel': 1000}}", true, SD_NEW, "",
	          "limit 0 is unset; kernel memory is ignored");
	props_fail("{'memory': {'swap': 1000}}", true,
	           "linux.resources.memory.swap: a swap limit needs a memory limit");
	props_fail("{'memory': {'limit': 200, 'swap': 100}}", true,
	           "linux.resources.memory.swap: 100 is below the memory limit 200 "
	           "(swap is memory+swap)");
}

static void test_cpu(void)
{
	int64_t q;

	diag("cpu: shares and weight");
	props_are("{'cpu': {'shares': 1024}}", false, SD_NEW, "CPUShares=1024\n", "shares 1024");
	props_are("{'cpu': {'shares': 1024}}", true, SD_NEW, "CPUWeight=39\n",
	          "shares 1024 is weight 39, as brig_cg_shares_to_weight() writes it");
	props_are("{'cpu': {'shares': 2}}", true, SD_NEW, "CPUWeight=1\n", "shares 2 is weight 1");
	props_are("{'cpu': {'shares': 262144}}", true, SD_NEW, "CPUWeight=10000\n",
	          "shares 262144 is weight 10000");
	props_are("{'cpu': {'shares': 0}}", true, SD_NEW, "", "shares 0 is unset");
	props_are("{'cpu': {'shares': 1}}", false, SD_NEW, "CPUShares=2\n",
	          "shares 1 is clamped as the kernel clamps it");
	props_are("{'cpu': {'shares': 1000000}}", false, SD_NEW, "CPUShares=262144\n",
	          "shares 1000000 is clamped as the kernel clamps it");
	props_are("{'cpu': {'shares': 1024, 'idle': 1}}", true, 252, "CPUWeight=0\n",
	          "cpu.idle 1 is CPUWeight=0 and wins over shares (systemd 252)");
	props_are("{'cpu': {'shares': 1024, 'idle': 1}}", true, 251, "CPUWeight=39\n",
	          "cpu.idle before systemd 252 is a cgroupfs write");

	diag("cpu: quota and period -> CPUQuotaPerSecUSec, rounded up to 10ms");
	props_are("{'cpu': {'quota': 50000, 'period': 100000}}", false, SD_NEW,
	          "CPUQuotaPeriodUSec=100000\nCPUQuotaPerSecUSec=500000\n", "half a CPU");
	props_are("{'cpu': {'quota': 50000}}", true, SD_NEW, "CPUQuotaPerSecUSec=500000\n",
	          "no period: the kernel's 100ms");
	props_are("{'cpu': {'quota': 12345, 'period': 100000}}", true, SD_NEW,
	          "CPUQuotaPeriodUSec=100000\nCPUQuotaPerSecUSec=130000\n",
	          "123.45ms/s rounds up to 130ms/s");
	props_are("{'cpu': {'quota': -1, 'period': 100000}}", true, SD_NEW,
	          "CPUQuotaPeriodUSec=100000\nCPUQuotaPerSecUSec=infinity\n", "quota -1");
	props_are("{'cpu': {'quota': 200000, 'period': 50000}}", true, 241,
	          "CPUQuotaPerSecUSec=4000000\n", "no CPUQuotaPeriodUSec before systemd 242");

	is_int((long long)brig_systemd_cpu_quota_per_sec(12345, 100000, &q), 130000,
	       "quota_per_sec(12345, 100000)");
	is_int(q, 13000, "  the cfs quota that matches it");
	is_int((long long)brig_systemd_cpu_quota_per_sec(50000, 100000, &q), 500000,
	       "quota_per_sec(50000, 100000)");
	is_int(q, 50000, "  nothing rounded: the quota itself");
	is_int((long long)brig_systemd_cpu_quota_per_sec(1, 1000000, &q), 10000,
	       "quota_per_sec(1, 1s): one step of 10ms");
	is_int(q, 10000, "  the cfs quota that matches it");
	ok(brig_systemd_cpu_quota_per_sec(0, 0, NULL) == UINT64_MAX, "quota 0 is infinity");
	ok(brig_systemd_cpu_quota_per_sec(INT64_MAX, 1, &q) == UINT64_MAX && q == INT64_MAX,
	   "an overflowing quota is infinity");

	diag("cpu: cpus and mems -> AllowedCPUs / AllowedMemoryNodes byte masks");
	props_are("{'cpu': {'cpus': '0-3,5', 'mems': '0'}}", true, SD_NEW,
	          "AllowedCPUs=2f\nAllowedMemoryNodes=01\n", "0-3,5 is 0x2f");
	props_are("{'cpu': {'cpus': '8,17-18'}}", false, SD_NEW, "AllowedCPUs=00 01 06\n",
	          "little-endian: byte 0 holds CPUs 0-7");
	props_are("{'cpu': {'cpus': '0-3,5'}}", true, 243, "", "no AllowedCPUs before systemd 244");
	props_are("{'cpu': {'cpus': ''}}", true, SD_NEW, "", "an empty cpus is unset");
	props_fail("{'cpu': {'cpus': '3-1'}}", true,
	           "linux.resources.cpu.cpus: reversed range \"3-1\"");
	props_fail("{'cpu': {'cpus': '0,7-2'}}", true,
	           "linux.resources.cpu.cpus: reversed range \"7-2\"");
	props_fail("{'cpu': {'cpus': '1-2-3'}}", true,
	           "linux.resources.cpu.cpus: invalid CPU list \"1-2-3\"");
	props_fail("{'cpu': {'mems': '70000'}}", true,
	           "linux.resources.cpu.mems: node 70000 is above the limit 65535");
}

static void test_pids_blkio(void)
{
	diag("pids and blockIO");
	props_are("{'pids': {'limit': 100}}", false, SD_NEW, "TasksMax=100\n", "pids 100");
	props_are("{'pids': {'limit': -1}}", true, SD_NEW, "TasksMax=infinity\n", "pids -1");
	props_are("{'pids': {'limit': 0}}", true, SD_NEW, "", "pids 0 is unset, as in runc");
	props_are("{'blockIO': {'weight': 500, 'leafWeight': 300}}", false, SD_NEW,
	          "BlockIOWeight=500\n", "blkio weight; leafWeight is a cgroupfs write");
	props_are("{'blockIO': {'weight': 500}}", true, SD_NEW, "IOWeight=4950\n",
	          "blkio 500 is io.weight 4950");
	props_are("{'blockIO': {'weight': 10}}", true, SD_NEW, "IOWeight=1\n",
	          "blkio 10 is io.weight 1");
	props_are("{'blockIO': {'weight': 1000}}", true, SD_NEW, "IOWeight=10000\n",
	          "blkio 1000 is io.weight 10000");
	props_are("{'blockIO': {'throttleReadBpsDevice': [{'major': 8, 'minor': 0, 'rate': 1}]},"
	          " 'hugepageLimits': [{'pageSize': '2MB', 'limit': 0}]}",
	          true, SD_NEW, "", "throttles and hugetlb are cgroupfs writes");
}

static void test_devices(void)
{
	const char *rules =
	    "["
	    " {'allow': false, 'access': 'rwm'},"
	    " {'allow': true, 'type': 'c', 'major': 1, 'minor': 3, 'access': 'rwm'},"
	    " {'allow': true, 'type': 'c', 'major': 5, 'access': 'rw'},"
	    " {'allow': true, 'type': 'b', 'access': 'm'},"
	    " {'allow': true, 'type': 'c', 'minor': 7, 'access': 'r'}]";
	const char *hole = "[{'allow': false, 'access': 'rwm'},"
	                   " {'allow': true, 'type': 'c', 'access': 'rwm'},"
	                   " {'allow': false, 'type': 'c', 'major': 1, 'minor': 3, 'access': 'w'}]";
	const char *deny_list = "[{'allow': true, 'access': 'rwm'},"
	                        " {'allow': false, 'type': 'c', 'major': 1, 'minor': 3}]";

	diag("devices: DevicePolicy and DeviceAllow, sorted by major, minor, type");
	devices_are(rules, true, SD_NEW,
	            "DevicePolicy=strict\nDeviceAllow=\n"
	            "DeviceAllow=block-* m, char-* r, /dev/char/1:3 rwm, char-5 rw\n",
	            "\"c *:7\" cannot be said: widened to char-*");
	devices_are(rules, false, SD_NEW,
	            "DevicePolicy=strict\nDeviceAllow=\n"
	            "DeviceAllow=block-* m, /dev/char/1:3 rwm, char-5 rw\n",
	            "\"c *:7\" cannot be said: left out");
	devices_are(rules, false, 239,
	            "DevicePolicy=strict\nDeviceAllow=\nDeviceAllow=block-* m, /dev/char/1:3 rwm\n",
	            "char-MAJOR needs systemd 240: left out");
	devices_are(rules, true, 239,
	            "DevicePolicy=strict\nDeviceAllow=\n"
	            "DeviceAllow=block-* m, char-* rw, /dev/char/1:3 rwm\n",
	            "char-MAJOR needs systemd 240: widened to char-*");
	devices_are("[{'allow': true, 'type': 'c', 'major': 1, 'minor': 3, 'access': 'r'},"
	            " {'allow': true, 'type': 'c', 'major': 1, 'minor': 3, 'access': 'w'},"
	            " {'allow': true, 'type': 'c', 'major': 1, 'minor': 5},"
	            " {'allow': false, 'type': 'c', 'major': 1, 'minor': 5, 'access': 'm'},"
	            " {'allow': true, 'type': 'c', 'major': 1, 'minor': 7, 'access': 'r'},"
	            " {'allow': false, 'type': 'c', 'major': 1, 'minor': 7, 'access': 'r'}]",
	            false, SD_NEW,
	            "DevicePolicy=strict\nDeviceAllow=\n"
	            "DeviceAllow=/dev/char/1:3 rw, /dev/char/1:5 rw\n",
	            "rules merge and are taken back");
	devices_are("[{'allow': true, 'type': 'c', 'major': 1, 'minor': 3, 'access': 'rwm'},"
	            " {'allow': false, 'access': 'w'}]",
	            true, SD_NEW,
	            "DevicePolicy=strict\nDeviceAllow=\nDeviceAllow=/dev/char/1:3 rm\n",
	            "an \"a\" deny takes its bits only");
	devices_are("[{'allow': true, 'major': 1, 'minor': 3, 'access': 'r'}]", false, SD_NEW,
	            "DevicePolicy=strict\nDeviceAllow=\n"
	            "DeviceAllow=/dev/block/1:3 r, /dev/char/1:3 r\n",
	            "an \"a\" rule with numbers is both kinds");
	devices_are("[{'allow': true, 'access': 'rwm'}]", true, SD_NEW,
	            "DevicePolicy=auto\nDeviceAllow=\n", "allow all");
	devices_are("[{'allow': false, 'access': 'rwm'}]", false, SD_NEW,
	            "DevicePolicy=strict\nDeviceAllow=\nDeviceAllow=\n", "deny all");
	devices_are(deny_list, true, SD_NEW, "DevicePolicy=auto\nDeviceAllow=\n",
	            "all but c 1:3: systemd allows all, brig's filter denies it");
	devices_are(deny_list, false, SD_NEW,
	            "DevicePolicy=strict\nDeviceAllow=\nDeviceAllow=block-* rwm\n",
	            "all but c 1:3: no char device from systemd");
	devices_are(hole, true, SD_NEW,
	            "DevicePolicy=strict\nDeviceAllow=\nDeviceAllow=char-* rwm\n",
	            "a deny cut out of char-*: char-* stays");
	devices_are(hole, false, SD_NEW,
	            "DevicePolicy=strict\nDeviceAllow=\nDeviceAllow=char-* rm\n",
	            "a deny cut out of char-*: char-* loses the bit");

	linux_props_are(
	    "{'devices': [{'path': '/dev/fuse', 'type': 'c', 'major': 10, 'minor': 229}],"
	    " 'resources': {'devices': [{'allow': false, 'access': 'rwm'},"
	    " {'allow': true, 'type': 'c', 'major': 10, 'minor': 200, 'access': 'rwm'}],"
	    " 'memory': {'limit': 1048576}}}",
	    ALL_RULES, true, SD_NEW,
	    "DevicePolicy=strict\nDeviceAllow=\n"
	    "DeviceAllow=block-* m, char-* m, /dev/char/1:3 rwm, /dev/char/1:5 rwm,"
	    " /dev/char/1:7 rwm, /dev/char/1:8 rwm, /dev/char/1:9 rwm, /dev/char/5:0 rwm,"
	    " /dev/char/5:2 rwm, /dev/char/10:200 rwm,"
	    " char-136 rwm\nMemoryMax=1048576\n",
	    "a container's whole list: the defaults, the config's (a node of linux.devices "
	    "adds no rule)");
	props_are("{'devices': [{'allow': false, 'access': 'rwm'}]}", true, SD_NEW, "",
	          "no rule list given (an update): the device policy stays");
}

static void test_unified(void)
{
	diag("unified (v2): the keys systemd has properties for");
	props_are("{'unified': {'memory.high': '1G', 'memory.max': 'max', 'memory.min': ' 4096\\n',"
	          " 'pids.max': '50', 'cpu.max': '25000 50000', 'cpu.weight': '200',"
	          " 'cpuset.cpus': '1,3', 'cpuset.mems': '0-1', 'io.max': '8:0 rbps=1048576',"
	          " 'memory.oom.group': '1'}}",
	          true, SD_NEW,
	          "MemoryHigh=1073741824\nMemoryMax=infinity\nMemoryMin=4096\nTasksMax=50\n"
	          "CPUQuotaPeriodUSec=50000\nCPUQuotaPerSecUSec=500000\nCPUWeight=200\n"
	          "AllowedCPUs=0a\nAllowedMemoryNodes=03\n",
	          "in file order; io.max and memory.oom.group are not resource properties");
	props_are("{'unified': {'cpu.max': 'max'}}", true, SD_NEW,
	          "CPUQuotaPeriodUSec=100000\nCPUQuotaPerSecUSec=infinity\n", "cpu.max max");
	props_are("{'unified': {'cpu.idle': '1', 'cpu.weight': '200'}}", true, 252, "CPUWeight=0\n",
	          "cpu.idle 1 wins over cpu.weight");
	props_are("{'unified': {'cpu.idle': '1', 'cpu.weight': '200'}}", true, 251,
	          "CPUWeight=200\n", "cpu.idle before systemd 252 is a cgroupfs write");
	props_are("{'unified': {'memory.max': '1G'}}", false, SD_NEW, "",
	          "v1: unified is left to the cgroupfs back end");
	props_fail("{'unified': {'memory.max': 'lots'}}", true,
	           "linux.resources.unified[\"memory.max\"]: invalid value \"lots\"");
	props_fail("{'unified': {'memory.max': '99999999999999999999'}}", true,
	           "linux.resources.unified[\"memory.max\"]: invalid value "
	           "\"99999999999999999999\"");
	props_fail("{'unified': {'pids.max': '1k'}}", true,
	           "linux.resources.unified[\"pids.max\"]: invalid value \"1k\"");
	props_fail("{'unified': {'cpu.max': '1 2 3'}}", true,
	           "linux.resources.unified[\"cpu.max\"]: invalid value \"1 2 3\"");
	props_fail("{'unified': {'cpu.weight': '0'}}", true,
	           "linux.resources.unified[\"cpu.weight\"]: 0 is out of range [1, 10000]");
	props_fail("{'unified': {'cpuset.cpus': ' '}}", true,
	           "linux.resources.unified[\"cpuset.cpus\"]: empty CPU list");
}

/* Every property StartTransientUnit would get. */
static char *unit_props(const char *linux, pid_t pid, bool v2, char **msg)
{
	struct brig_config *cfg = config(linux);
	struct brig_systemd_unit u = BRIG_SYSTEMD_UNIT_INIT;
	struct brig_systemd_props props = BRIG_SYSTEMD_PROPS_INIT;
	struct brig_strbuf sb = BRIG_STRBUF_INIT;
	struct brig_error err = BRIG_ERROR_INIT;
	char *out = NULL;

	if (brig_systemd_parse_path(cfg->linux->cgroups_path, "abc", &u, &err) == 0 &&
	    brig_systemd_unit_properties(&u, pid, cfg->linux->resources, NULL, 0, v2, SD_NEW,
	                                 &props, &err) == 0) {
		brig_systemd_props_format(&props, &sb);
		out = brig_strbuf_detach(&sb);
	} else {
		*msg = TAKE_PTR(err.msg);
	}
	brig_error_release(&err);
	brig_systemd_props_release(&props);
	brig_systemd_unit_release(&u);
	brig_config_free(cfg);
	return out;
}

static void test_unit_properties(void)
{
	char *msg = NULL;
	char *got;

	diag("the whole StartTransientUnit property list");
	got = unit_props("{'cgroupsPath': 'machine.slice:libpod:abc',"
	                 " 'resources': {'pids': {'limit': 10},"
	                 " 'unified': {'memory.oom.group': '1'}}}",
	                 4242, true, &msg);
	is_str(got,
	       "Description=brig container abc\nSlice=machine.slice\nDelegate=yes\nPIDs=4242\n"
	       "MemoryAccounting=yes\nCPUAccounting=yes\nIOAccounting=yes\nTasksAccounting=yes\n"
	       "DefaultDependencies=no\nOOMPolicy=kill\nTasksMax=10\n",
	       "a scope on v2: Slice=, Delegate=, PIDs=, accounting, OOMPolicy");
	free(got);

	got = unit_props("{'cgroupsPath': 'a.slice:x:a-b.slice'}", -1, false, &msg);
	is_str(got,
	       "Description=brig container a-b.slice\nWants=a.slice\nMemoryAccounting=yes\n"
	       "CPUAccounting=yes\nBlockIOAccounting=yes\nTasksAccounting=yes\n"
	       "DefaultDependencies=no\n",
	       "a slice on v1: Wants=, no Delegate=, no PIDs=");
	free(got);

	got = unit_props("{'resources': {'unified': {'memory.oom.group': 'yes'}}}", 1, true, &msg);
	ok(got == NULL, "memory.oom.group must be a number");
	is_str(msg, "linux.resources.unified[\"memory.oom.group\"]: invalid value \"yes\"",
	       "  error message");
	free(got);
	free(msg);
}

static void test_version(void)
{
	diag("systemd's Version property");
	is_int(brig_systemd_parse_version("v245.4-1.fc32"), 245, "v245.4-1.fc32");
	is_int(brig_systemd_parse_version("\"252\""), 252, "\"252\"");
	is_int(brig_systemd_parse_version("255.5-1"), 255, "255.5-1");
	is_int(brig_systemd_parse_version(""), 0, "empty");
	is_int(brig_systemd_parse_version("unknown"), 0, "no number");
}

static void test_dbus_without_systemd(void)
{
	struct brig_systemd_unit u = BRIG_SYSTEMD_UNIT_INIT;
	struct brig_error err = BRIG_ERROR_INIT;
	const char *want;

#ifdef HAVE_SYSTEMD
	want = "systemd cgroup driver: systemd is not running";
	diag("D-Bus, built with libsystemd, on a host without systemd");
#else
	want = "systemd cgroup driver: brig was built without libsystemd";
	diag("D-Bus, built without libsystemd");
#endif
	if (brig_systemd_running()) {
		diag("skipped: systemd runs here");
		return;
	}
	brig_systemd_parse_path("", "abc", &u, &err);
	ok(brig_systemd_start(&u, 1, NULL, NULL, 0, true, NULL, &err) < 0, "start fails");
	is_str(err.msg, want, "  error message");
	brig_error_release(&err);
	ok(brig_systemd_update(u.unit, NULL, NULL, 0, true, &err) < 0, "update fails");
	is_str(err.msg, want, "  error message");
	brig_error_release(&err);
	ok(brig_systemd_stop(u.unit, &err) < 0, "stop fails");
	is_str(err.msg, want, "  error message");
	brig_error_release(&err);
	brig_systemd_unit_release(&u);
}

int main(void)
{
	test_parse_path();
	test_expand_slice();
	test_memory();
	test_cpu();
	test_pids_blkio();
	test_devices();
	test_unified();
	test_unit_properties();
	test_version();
	test_dbus_without_systemd();
	return tap_done();
}
