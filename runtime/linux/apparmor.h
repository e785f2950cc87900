/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AppArmor profiles, through the kernel's attribute interface (nothing to
 * link): process.apparmorProfile confines the container's process from its
 * execve on, as runc's apparmor.ApplyProfile does.
 *
 * brig_apparmor_check() runs in the parent, before anything exists;
 * brig_apparmor_set_exec() in the process that is about to execve (the
 * init; later `exec`), through a private procfs (linux/procfs.h), never
 * through a /proc the container could have redirected (CVE-2025-52881).
 * A NULL or empty profile asks for nothing: both return 0 at once.
 */
#ifndef BRIG_LINUX_APPARMOR_H
#define BRIG_LINUX_APPARMOR_H

#include <stdbool.h>

struct brig_error;

/* AppArmor is enabled on this host (/sys/module/apparmor/parameters/enabled
 * says "Y") and the process attribute interface is there. */
bool brig_apparmor_enabled(void);

/* Can @profile be applied on this host?  The message names no config
 * field (the caller does): "AppArmor is not enabled on this host". */
int brig_apparmor_check(const char *profile, struct brig_error *err);

/*
 * Confine the caller by @profile from its next execve on: "exec <profile>"
 * written to attr/apparmor/exec of the calling thread (attr/exec before
 * Linux 5.8).  @procfd: a private procfs of the caller's pid namespace.
 * An unknown profile fails here, not at execve.
 */
int brig_apparmor_set_exec(int procfd, const char *profile, struct brig_error *err);

#endif
