/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Scope-bound ownership, systemd style.
 *
 *   _cleanup_free_ char *buf = NULL;
 *   _cleanup_close_ int fd = -1;
 *   return TAKE_FD(fd);      // hand the fd to the caller, nothing is closed
 *
 * Every destructor accepts NULL / -1.  Grep for TAKE_PTR and TAKE_FD to find
 * every hand-off of ownership.
 */
#ifndef BRIG_UTIL_CLEANUP_H
#define BRIG_UTIL_CLEANUP_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void brig_freep(void *p)
{
	free(*(void **)p);
}

static inline void brig_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

static inline void brig_fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

static inline void brig_closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(brig_freep)
#define _cleanup_close_ _cleanup_(brig_closep)
#define _cleanup_fclose_ _cleanup_(brig_fclosep)
#define _cleanup_closedir_ _cleanup_(brig_closedirp)

#define TAKE_PTR(p)                        \
	({                                 \
		__typeof__(p) _ptr_ = (p); \
		(p) = NULL;                \
		_ptr_;                     \
	})

#define TAKE_FD(fd)              \
	({                       \
		int _fd_ = (fd); \
		(fd) = -1;       \
		_fd_;            \
	})

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
