/* SPDX-License-Identifier: Apache-2.0 */
/* What the systemd driver's two halves share: systemd's limits and the
 * versions that gate properties (runc's), and unit-name helpers. */
#ifndef BRIG_CGROUP_SYSTEMD_INTERNAL_H
#define BRIG_CGROUP_SYSTEMD_INTERNAL_H

#include <stdbool.h>
#include <string.h>

#define SLICE_SUFFIX ".slice"
#define SCOPE_SUFFIX ".scope"
/* systemd's UNIT_NAME_MAX counts the NUL */
#define UNIT_NAME_MAX 255
#define USEC_PER_SEC 1000000ULL
/* the kernel's default cpu.cfs_period_us, on v1 and v2 */
#define DEFAULT_CPU_PERIOD 100000ULL
/* systemd keeps CPUQuota= as whole percents: 10ms of every second */
#define CPU_QUOTA_STEP 10000ULL
/* the highest CPU or memory node a mask may name (an 8 KiB mask) */
#define MASK_MAX_BIT 65535
/* the kernel's MIN_SHARES / MAX_SHARES; systemd refuses CPUShares= outside */
#define CPU_SHARES_MIN 2
#define CPU_SHARES_MAX 262144
#define CPU_WEIGHT_MIN 1
#define CPU_WEIGHT_MAX 10000

/* The first systemd versions that know a property (runc's gates). */
#define SD_VERSION_DEVICE_MAJOR_GLOB 240 /* DeviceAllow=char-MAJOR */
#define SD_VERSION_CPU_QUOTA_PERIOD 242  /* CPUQuotaPeriodUSec= */
#define SD_VERSION_ALLOWED_CPUS 244      /* AllowedCPUs=, AllowedMemoryNodes= */
#define SD_VERSION_CPU_IDLE 252          /* CPUWeight=0 sets cpu.idle */

static inline bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

#endif
