/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The device controller of cgroup v2: an eBPF program of type
 * BPF_PROG_TYPE_CGROUP_DEVICE, generated from linux.resources.devices and
 * attached to the container's cgroup2 directory.  The kernel runs it on
 * every open(2) and mknod(2) of a device node by a task of the cgroup (and
 * of its descendants), before the driver sees the call; 0 is EPERM.
 */
#ifndef BRIG_CGROUP_DEVICES_BPF_H
#define BRIG_CGROUP_DEVICES_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct brig_error;

#define BRIG_DEV_READ 1u
#define BRIG_DEV_WRITE 2u
#define BRIG_DEV_MKNOD 4u

/* One device cgroup rule, as runtime-spec linux.resources.devices. */
struct brig_dev_rule {
	bool allow;
	char type;            /* 'a' (any), 'c' or 'b' */
	int64_t major, minor; /* -1: any */
	unsigned int
	    access; /* BRIG_DEV_* bits; 0 is never passed (callers give all bits for "rwm") */
};

/*
 * The reference semantics, which the program implements exactly: each bit of
 * @access is decided on its own, by the last rule that matches the device
 * and whose access has that bit (a rule matches when its type is 'a' or
 * @type, and its major and minor are -1 or equal); a bit no rule decides is
 * denied.  The request is allowed when every bit of it is: an "rwm" allow
 * then a "w" deny of the same device still let it be read, not written.
 * An @access of 0 asks for nothing and is allowed; a bit other than
 * BRIG_DEV_* is never allowed.
 */
bool brig_devices_allowed(const struct brig_dev_rule *rules, size_t n, char type, int64_t major,
                          int64_t minor, unsigned int access);

/*
 * Load a program implementing brig_devices_allowed() for @rules and attach it
 * to the cgroup2 directory @cgroup_fd with BPF_F_ALLOW_MULTI.  The device
 * programs that were attached to @cgroup_fd before (by an earlier call, on
 * update) are detached afterwards: in between both run and both must allow,
 * so there is no moment without a filter.  Errors: "load the device filter",
 * "attach the device filter to the cgroup", "detach the old device filter
 * from the cgroup", each with the errno; a load the verifier refused also
 * carries the reason from its log.  Lists of up to about 4000 rules load
 * (the verifier's limits; E2BIG or EFAULT past them).
 *
 * The kernel asks about 'c' and 'b' devices with u32 numbers: a rule with
 * another type, or a number below -1 or above UINT32_MAX, matches nothing.
 */
int brig_devices_bpf_apply(int cgroup_fd, const struct brig_dev_rule *rules, size_t n,
                           struct brig_error *err);

#endif
