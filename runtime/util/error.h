/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one error contract of brig.
 *
 * A function that can fail returns a negative value (or NULL) and fills a
 * struct brig_error created exactly where the failure happened: the errno
 * (0 when none applies) and a short lowercase message with its subject in
 * quotes and no trailing period, e.g.
 *
 *     mount "/proc": Operation not permitted
 *
 * Callers may add context in front with brig_error_wrap().  Only main()
 * prints an error, once, to the log and to stderr.
 */
#ifndef BRIG_UTIL_ERROR_H
#define BRIG_UTIL_ERROR_H

#include <stdbool.h>
#include <stddef.h>

struct brig_error {
	int errnum; /* errno of the failure, or 0 */
	int status; /* exit status main() should use: 1, or 2 for usage */
	char *msg;  /* heap string; NULL while no error is set */
};

#define BRIG_ERROR_INIT    \
	{                  \
		0, 0, NULL \
	}

/*
 * Set @err to "<fmt...>" and return -1.  Any previous message is replaced.
 * brig_error_setp() also appends ": <strerror(errnum)>" when errnum != 0.
 */
int brig_error_set(struct brig_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int brig_error_setp(struct brig_error *err, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Like brig_error_set() with @errnum recorded but not spelled out: for a
 * message that words the failure itself (a caller tells ENOENT apart). */
int brig_error_sete(struct brig_error *err, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Like brig_error_set() but marks a usage error (exit status 2). */
int brig_error_usage(struct brig_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* strerror(@errnum) as Go spells it, lower-case first ("no such file or
 * directory"), into @buf: for messages that match runc's. */
const char *brig_strerror_go(int errnum, char *buf, size_t size);

/* Prefix the existing message with "<fmt...>: ".  Returns -1. */
int brig_error_wrap(struct brig_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static inline bool brig_error_is_set(const struct brig_error *err)
{
	return err->msg != NULL;
}

void brig_error_release(struct brig_error *err);

/* Abort with a message: for allocation failure only. */
__attribute__((noreturn)) void brig_oom(void);

void *brig_xmalloc(unsigned long size);
void *brig_xcalloc(unsigned long n, unsigned long size);
void *brig_xrealloc(void *p, unsigned long size);
char *brig_xstrdup(const char *s);
char *brig_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
