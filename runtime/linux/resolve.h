/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Paths inside the container's rootfs, which the container controls.
 * Every lookup goes through openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS)
 * from an fd of the rootfs, so no symlink, "..", or /proc magic link can
 * lead out of it; what is found is returned as an fd to mount on or open,
 * never as a path string to hand to the kernel again.
 */
#ifndef BRIG_LINUX_RESOLVE_H
#define BRIG_LINUX_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct brig_error;

#define BRIG_RESOLVE_IN_ROOT_FLAGS (RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS)

/* openat2 with O_CLOEXEC added, tried again (a bounded number of times)
 * while a rename races it (EAGAIN); -1 with errno. */
int brig_openat2_retry(int dirfd, const char *path, int flags, mode_t mode,
                       unsigned long long resolve);

/* openat2(rootfd, path, flags, RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS), with
 * O_CLOEXEC added; -1 with errno. */
int brig_open_in_root(int rootfd, const char *path, int flags, mode_t mode);

enum brig_mkpath_kind {
	BRIG_MKPATH_DIR,  /* the last component is (or becomes) a directory */
	BRIG_MKPATH_FILE, /* ... a regular file (a mount point for a file) */
};

/*
 * Resolve @path inside @rootfd, creating missing components (directories
 * 0755, a final file 0644) as it goes, and return an O_PATH fd of the last
 * one.  An existing last component of the wrong kind is left as it is; the
 * mount on it will fail with a clear error.
 */
int brig_mkpath_in_root(int rootfd, const char *path, enum brig_mkpath_kind kind,
                        struct brig_error *err);

/*
 * brig_mkpath_in_root() that creates nothing outside the mounts whose ids
 * are @mnt_ids: a missing component whose parent is on another mount (a
 * volume of the host that a symlink of the image leads into) is an error
 * (EXDEV).  What exists already is resolved as before.
 */
int brig_mkpath_on_mounts(int rootfd, const char *path, enum brig_mkpath_kind kind,
                          const uint64_t *mnt_ids, size_t n, struct brig_error *err);

/* @path cleaned as an absolute path, lexically, as runc's filepath.Clean
 * does ("//dev/./x/.." is "/dev"; ".." stops at "/"); heap. */
char *brig_path_clean(const char *path);

/* The id of the mount @fd is on (statx STATX_MNT_ID), 0 if unknown. */
uint64_t brig_mnt_id(int fd);
/* Whether @fd is on one of the mounts @ids (never when unknown). */
bool brig_mnt_id_in(int fd, const uint64_t *ids, size_t n);

#endif
