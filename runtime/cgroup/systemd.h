/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The systemd cgroup driver (`brig --systemd-cgroup`), as runc and crun
 * have it: the container's cgroup is a transient unit that systemd creates
 * over D-Bus (a scope holding the init, or a slice), with the resources it
 * can express set as unit properties; the cgroupfs back end then writes
 * the rest into the unit's cgroup, as runc does after the unit starts.
 *
 * Three layers, the first two pure (unit-tested without root or systemd):
 *
 *   linux.cgroupsPath  -> struct brig_systemd_unit     brig_systemd_parse_path
 *   linux.resources    -> struct brig_systemd_props    brig_systemd_properties
 *   D-Bus              StartTransientUnit, StopUnit, SetUnitProperties
 *
 * The D-Bus layer is compiled only with libsystemd (HAVE_SYSTEMD); without
 * it, or on a host where systemd is not the init, it fails with a clear
 * error and the pure layers still work.
 *
 * What systemd is told, and what is left to the cgroupfs writes:
 *
 *   property               v1 (and hybrid)          v2
 *   MemoryLimit / Max      memory.limit             memory.limit
 *   MemoryLow              -                        memory.reservation
 *   MemorySwapMax          -                        memory.swap - memory.limit
 *   CPUShares / CPUWeight  cpu.shares (clamped)     cpu.shares converted; 0 for cpu.idle 1
 *   CPUQuotaPerSecUSec     cpu.quota / cpu.period, rounded up to 10ms
 *   CPUQuotaPeriodUSec     cpu.period (systemd >= 242)
 *   AllowedCPUs, ...Nodes  cpu.cpus, cpu.mems as byte masks (systemd >= 244)
 *   TasksMax               pids.limit (> 0, or -1: infinity)
 *   BlockIOWeight/IOWeight blockIO.weight           blockIO.weight converted
 *   DevicePolicy,          a subset of what the     a superset of what the
 *   DeviceAllow            device rules allow       device rules allow
 *   unified                -                        cpu.idle cpu.max cpu.weight cpuset.cpus
 *                                                   cpuset.mems memory.high memory.low
 *                                                   memory.min memory.max memory.swap.max
 *                                                   pids.max
 *
 * Everything else is for the cgroupfs writes alone: memory.reservation,
 * swap, kernel, kernelTCP, swappiness and disableOOMKiller on v1; cpu.burst,
 * realtimeRuntime/Period; blockIO leafWeight, weightDevice and the
 * throttles; hugepageLimits, network, rdma; the other unified keys.  The
 * conversions (shares to weight, blkio to io weight) are the cgroupfs back
 * end's (cgroup/resources.c), so that systemd and the files agree.
 *
 * Devices: brig's own filter stays the exact one (devices.allow/deny on v1,
 * the eBPF program on v2, as runc and crun keep theirs), so systemd's list
 * only has to err on the safe side of it.  On v2 both programs run and both
 * must allow: systemd gets the tightest superset it can say, a rule it
 * cannot say ("c *:5", a deny cut out of "c *:*", "c 5:*" before systemd
 * 240) widens it.  On v1 systemd rewrites the controller's files when it
 * reloads: it gets a subset, so such a rule narrows it (fail closed).
 */
#ifndef BRIG_CGROUP_SYSTEMD_H
#define BRIG_CGROUP_SYSTEMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct brig_dev_rule; /* cgroup/devices_bpf.h */
struct brig_error;
struct brig_resources;
struct brig_strbuf;

/* The defaults of an empty linux.cgroupsPath (runc's, with brig for runc). */
#define BRIG_SYSTEMD_DEFAULT_SLICE "system.slice"
#define BRIG_SYSTEMD_DEFAULT_PREFIX "brig"

/*
 * The unit of a container.  linux.cgroupsPath is "slice:prefix:name" (runc):
 *
 *   ""                       system.slice, unit "brig-<id>.scope"
 *   "machine.slice:libpod:x" machine.slice, unit "libpod-x.scope"
 *   ":brig:x"                an empty slice is system.slice
 *   "machine.slice::x"       unit "-x.scope" (runc and crun join with "-"
 *                            even when the prefix is empty)
 *   "a.slice:p:a-b.slice"    a name ending in ".slice" is the unit itself:
 *                            a slice that wants the parent (Wants=); the
 *                            prefix is ignored, and its cgroup is where
 *                            systemd puts it, by its own name
 *
 * The slice must be a valid slice name ("-.slice" is the root), the unit a
 * valid unit name (letters, digits, ":-_.\@", at most 255 characters): so
 * no part can contain "/" and the cgroup path stays under the hierarchy.
 */
struct brig_systemd_unit {
	char *slice;  /* the parent slice: "system.slice", "machine-foo.slice" */
	char *unit;   /* "brig-<id>.scope", or a ".slice" */
	char *name;   /* the name part: the container id by default */
	char *cgroup; /* the unit's cgroup below the hierarchy root:
	               * "/machine.slice/machine-foo.slice/brig-id.scope" */
};

#define BRIG_SYSTEMD_UNIT_INIT         \
	{                              \
		NULL, NULL, NULL, NULL \
	}

/*
 * Parse @cgroups_path (NULL or "": the defaults, named after @id) into @u.
 * Errors name "linux.cgroupsPath".  @u is left empty on failure.
 */
int brig_systemd_parse_path(const char *cgroups_path, const char *id, struct brig_systemd_unit *u,
                            struct brig_error *err);
void brig_systemd_unit_release(struct brig_systemd_unit *u);

/*
 * The cgroup path of a slice: "a-b-c.slice" -> "/a.slice/a-b.slice/a-b-c.slice",
 * "-.slice" -> "/".  Refused as systemd and runc refuse it: no ".slice"
 * suffix, a "/", an empty dash-separated part ("a--b", "-a", "a-"), a
 * character not valid in a unit name.  The error is
 * `invalid slice name "<slice>": <why>`.
 */
char *brig_systemd_expand_slice(const char *slice, struct brig_error *err);

/* The D-Bus type of a property value. */
enum brig_systemd_prop_type {
	BRIG_SD_BOOL,         /* "b": .b */
	BRIG_SD_U64,          /* "t": .u64; UINT64_MAX is systemd's "infinity" */
	BRIG_SD_STR,          /* "s": .str */
	BRIG_SD_STRS,         /* "as" of one element: .str (Wants=) */
	BRIG_SD_PIDS,         /* "au" of one element: .u64 (PIDs=) */
	BRIG_SD_BYTES,        /* "ay": .bytes, .n_bytes (AllowedCPUs=) */
	BRIG_SD_DEVICE_ALLOW, /* "a(ss)": .devices, .n_devices (DeviceAllow=) */
};

/* One DeviceAllow= entry: "/dev/char/1:3", "char-5", "block-*"; "rwm". */
struct brig_systemd_device_allow {
	char *path;
	char perms[4];
};

/* One property of a transient unit. */
struct brig_systemd_prop {
	const char *name; /* a static string: "MemoryMax" */
	enum brig_systemd_prop_type type;
	bool b;
	uint64_t u64;
	char *str;
	uint8_t *bytes; /* little-endian bitmask: bytes[0] bit 0 is CPU 0 */
	size_t n_bytes;
	struct brig_systemd_device_allow *devices;
	size_t n_devices;
};

/* A list of properties, in the order they are sent (a later one wins). */
struct brig_systemd_props {
	struct brig_systemd_prop *v;
	size_t n, alloc;
};

#define BRIG_SYSTEMD_PROPS_INIT \
	{                       \
		NULL, 0, 0      \
	}

void brig_systemd_props_release(struct brig_systemd_props *props);

/*
 * Append the properties that express @r (NULL: none) and the device rules
 * @devices on cgroup v1 (@v2 false; hybrid too) or v2, as the table above
 * maps them.  @devices is the complete rule list the container gets, as
 * brig_cg_device_rules() builds it (NULL: leave the unit's device policy
 * alone, as an update that does not change them); r->devices is not read.
 * @sd_version is systemd's version (the Manager's Version property):
 * properties newer than it are left out, and 0 (unknown) leaves out every
 * version-gated one, as runc does.
 *
 * Invalid values fail with an error naming their JSON path, e.g.
 * `linux.resources.cpu.cpus: reversed range "3-1"`.  On failure @props
 * may hold part of the list; release it.
 */
int brig_systemd_properties(const struct brig_resources *r, const struct brig_dev_rule *devices,
                            size_t n_devices, bool v2, unsigned int sd_version,
                            struct brig_systemd_props *props, struct brig_error *err);

/*
 * Everything StartTransientUnit sends for @u: Description, Slice= (a
 * scope) or Wants= (a slice), Delegate=yes (a scope), PIDs=[@pid] when
 * @pid > 0, Memory/CPU/(BlockIO|IO)/Tasks accounting, DefaultDependencies=no,
 * OOMPolicy from unified memory.oom.group (v2), then the properties of @r
 * and @devices.
 */
int brig_systemd_unit_properties(const struct brig_systemd_unit *u, pid_t pid,
                                 const struct brig_resources *r,
                                 const struct brig_dev_rule *devices, size_t n_devices, bool v2,
                                 unsigned int sd_version, struct brig_systemd_props *props,
                                 struct brig_error *err);

/*
 * Append @props to @sb, one "Name=value" line each, values as systemctl
 * shows them where it can ("yes", "infinity"); masks as hex bytes
 * ("AllowedCPUs=2f"), DeviceAllow as "path perms" entries joined by ", ".
 * For the debug log and the tests.
 */
void brig_systemd_props_format(const struct brig_systemd_props *props, struct brig_strbuf *sb);

/*
 * CPUQuotaPerSecUSec for cpu.quota @quota and cpu.period @period (0: the
 * kernel's default 100000), as runc computes it: quota <= 0 is infinity
 * (UINT64_MAX); otherwise quota * 1s / period, rounded up to a multiple of
 * 10ms, since systemd keeps whole percents.  When @cfs_quota is not NULL it
 * gets the quota that matches the rounded value (@quota when nothing was
 * rounded), which the cgroupfs writes should use so that both agree.
 */
uint64_t brig_systemd_cpu_quota_per_sec(int64_t quota, uint64_t period, int64_t *cfs_quota);

/* The number in systemd's Version string: "v245.4-1.fc32", "\"252\"" -> 245,
 * 252; 0 when there is none. */
unsigned int brig_systemd_parse_version(const char *s);

/* Whether systemd is the init system (sd_booted(3): /run/systemd/system is a
 * directory). */
bool brig_systemd_running(void);

/*
 * Start the transient unit @u holding @pid (-1: none, e.g. a slice) with
 * the properties of brig_systemd_unit_properties(), and wait (30s at most)
 * for its job's JobRemoved signal, as runc's startUnit does.  A unit that
 * already exists is reset (ResetFailedUnit) and started once more; with
 * @pid -1 an existing unit is fine.  A job that ends other than "done"
 * fails (and the unit is reset).  Without libsystemd, or when systemd is
 * not running, fails with "systemd cgroup driver: brig was built without
 * libsystemd" / "systemd cgroup driver: systemd is not running".
 * *@created (if not NULL) is set true once systemd has made the unit for
 * this call, so it is brig's to stop even if the start then fails; left
 * as it is when the unit was another's (a name clash) or never made.
 */
int brig_systemd_start(const struct brig_systemd_unit *u, pid_t pid, const struct brig_resources *r,
                       const struct brig_dev_rule *devices, size_t n_devices, bool v2,
                       bool *created, struct brig_error *err);

/*
 * The cgroup of the manager brig talks to, below the hierarchy's root: ""
 * for the system manager (its units' cgroups are their slices' paths);
 * rootless, the user's manager's own ("/user.slice/user-1000.slice/
 * user@1000.service"), under which its units' cgroups are.  NULL with @err
 * set when the manager cannot be asked.
 */
char *brig_systemd_manager_cgroup(struct brig_error *err);

/* StopUnit(@unit, "replace"), wait for its job (30s at most), then
 * ResetFailedUnit.  A unit systemd does not know is not an error, nor is a
 * job that ends other than "done" (runc only warns).  Stop only a unit that
 * brig_systemd_start() created: a slice name such as "system.slice" in
 * linux.cgroupsPath names a unit that holds the host's services. */
int brig_systemd_stop(const char *unit, struct brig_error *err);

/* update: SetUnitProperties(@unit, runtime=true) with the properties of @r
 * and @devices (NULL: the device policy stays); nothing to set, no call. */
int brig_systemd_update(const char *unit, const struct brig_resources *r,
                        const struct brig_dev_rule *devices, size_t n_devices, bool v2,
                        struct brig_error *err);

#endif
