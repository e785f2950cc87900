/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Capability names and numbers.  Names are resolved with libcap, strictly
 * as runc does: only the exact spelling "CAP_CHOWN" is a name; "cap_chown",
 * "chown" or "0" are not.  Without libcap (configure --disable-caps) no name
 * resolves.  The running kernel's highest capability is probed with
 * prctl(PR_CAPBSET_READ), so it works after pivot_root without /proc.
 */
#ifndef BRIG_LINUX_CAPS_H
#define BRIG_LINUX_CAPS_H

#include <stdbool.h>
#include <stddef.h>

/* True when brig was built with libcap and can resolve capability names. */
bool brig_caps_supported(void);

/* "CAP_CHOWN" -> 0; -1 when the name is unknown to libcap. */
int brig_cap_from_name(const char *name);

/* The name of @cap ("CAP_CHOWN") in @buf; "CAP_<n>" when libcap has none. */
const char *brig_cap_name(int cap, char *buf, size_t size);

/* The highest capability the running kernel knows (CAP_LAST_CAP), or -1. */
int brig_cap_last(void);

#endif
