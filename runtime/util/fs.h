/* SPDX-License-Identifier: Apache-2.0 */
/* File helpers for brig's own files (state, logs, pid files). */
#ifndef BRIG_UTIL_FS_H
#define BRIG_UTIL_FS_H

#include <stddef.h>
#include <sys/types.h>

struct brig_error;

/*
 * Read all of @fd (a regular file or a pipe) into a NUL-terminated heap
 * buffer.  Anything longer than @max bytes fails fast with EFBIG without
 * reading the rest.  @name names the file in the error.
 */
int brig_read_fd(int fd, const char *name, size_t max, char **out, size_t *len,
                 struct brig_error *err);
/* Same for the file @path relative to @dirfd (AT_FDCWD allowed). */
int brig_read_file(int dirfd, const char *path, size_t max, char **out, size_t *len,
                   struct brig_error *err);

/*
 * Replace @path (relative to @dirfd) with @data atomically: write a
 * temporary file beside it, fsync nothing (state lives in tmpfs), rename.
 * The temporary file is always a new one (O_EXCL, O_NOFOLLOW): whatever
 * was at its name (a symlink, a hard link, a FIFO) is removed first, never
 * written through or opened.  A symlink at @path is replaced, not followed.
 */
int brig_write_file_atomic(int dirfd, const char *path, const void *data, size_t len, mode_t mode,
                           struct brig_error *err);

/* write(2) all of @buf, again after EINTR and short writes; -1 with
 * errno. */
int brig_write_all(int fd, const void *buf, size_t len);

/* mkdir -p, each created component with @mode. */
int brig_mkdir_p(const char *path, mode_t mode, struct brig_error *err);

#endif
