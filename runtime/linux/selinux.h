/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SELinux labels, with libselinux (compiled out by --disable-selinux):
 * process.selinuxLabel is the label the container's process gets at its
 * execve and the label of the keys it creates (its session keyring);
 * linux.mountLabel is the context of the filesystems mounted for it.
 *
 * brig_selinux_check() runs in the parent, before anything exists.  The
 * setters run in the process that is about to execve (the init; later
 * `exec`) and write their attribute through a private procfs
 * (linux/procfs.h), never through a /proc the container could have
 * redirected (CVE-2025-52881).  A NULL or empty label asks for nothing
 * and every function then returns 0 without touching anything.
 */
#ifndef BRIG_LINUX_SELINUX_H
#define BRIG_LINUX_SELINUX_H

#include <stdbool.h>

struct brig_error;

/*
 * Can @label be applied on this host: brig has SELinux support, SELinux is
 * enabled, and @label is a valid context.  The messages name no config
 * field (the caller does): "SELinux is not enabled on this host",
 * "brig was built without SELinux support",
 * 'invalid context "x": Invalid argument'.
 */
int brig_selinux_check(const char *label, struct brig_error *err);

/*
 * The label the caller's next execve gives it (attr/exec of the calling
 * thread).  @procfd: a private procfs of the caller's pid namespace.
 */
int brig_selinux_set_exec(int procfd, const char *label, struct brig_error *err);

/* The label of the keys and keyrings the calling thread creates from now
 * on (attr/keycreate): set before joining a new session keyring. */
int brig_selinux_set_keycreate(int procfd, const char *label, struct brig_error *err);

/*
 * The label of the directory @dirfd (an O_PATH fd will do), as runc's
 * SetFileLabel: for the root of a filesystem that cannot take a context=
 * option because its superblock already exists (mqueue).
 */
int brig_selinux_set_file_label(int dirfd, const char *label, struct brig_error *err);

/*
 * runc's label.FormatMountLabel: the mount(2) data @data (NULL or "" for
 * none) with 'context="<label>"' appended after a comma; a copy of @data
 * (or "") when @label is NULL or empty.  The quotes keep the commas of an
 * MCS range ("s0:c1,c2") inside the option.  Heap.
 */
char *brig_selinux_format_mount_label(const char *data, const char *label);

/* Is @key one of the SELinux context mount options (context, fscontext,
 * defcontext, rootcontext)? */
bool brig_selinux_is_context_option(const char *key);

#endif
