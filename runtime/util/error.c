/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "util/error.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int error_vset(struct brig_error *err, int errnum, bool append, int status, const char *fmt,
                      va_list ap)
{
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0)
		brig_oom();
	if (errnum && append) {
		char *full = brig_xasprintf("%s: %s", msg, strerror(errnum));

		free(msg);
		msg = full;
	}
	free(err->msg);
	err->msg = msg;
	err->errnum = errnum;
	err->status = status;
	return -1;
}

int brig_error_set(struct brig_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_vset(err, 0, false, 1, fmt, ap);
	va_end(ap);
	return -1;
}

int brig_error_setp(struct brig_error *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_vset(err, errnum, true, 1, fmt, ap);
	va_end(ap);
	return -1;
}

int brig_error_sete(struct brig_error *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_vset(err, errnum, false, 1, fmt, ap);
	va_end(ap);
	return -1;
}

int brig_error_usage(struct brig_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_vset(err, 0, false, 2, fmt, ap);
	va_end(ap);
	return -1;
}

int brig_error_wrap(struct brig_error *err, const char *fmt, ...)
{
	char *prefix = NULL, *full;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&prefix, fmt, ap) < 0)
		brig_oom();
	va_end(ap);
	full = brig_xasprintf("%s: %s", prefix, err->msg ? err->msg : "unknown error");
	free(prefix);
	free(err->msg);
	err->msg = full;
	if (!err->status)
		err->status = 1;
	return -1;
}

void brig_error_release(struct brig_error *err)
{
	free(err->msg);
	err->msg = NULL;
	err->errnum = 0;
	err->status = 0;
}

void brig_oom(void)
{
	static const char msg[] = "brig: out of memory\n";

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
		/* nothing more we can do */
	}
	abort();
}

void *brig_xmalloc(unsigned long size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		brig_oom();
	return p;
}

void *brig_xcalloc(unsigned long n, unsigned long size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		brig_oom();
	return p;
}

void *brig_xrealloc(void *p, unsigned long size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		brig_oom();
	return p;
}

char *brig_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		brig_oom();
	return p;
}

char *brig_xasprintf(const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		brig_oom();
	va_end(ap);
	return s;
}

const char *brig_strerror_go(int errnum, char *buf, size_t size)
{
	snprintf(buf, size, "%s", strerror(errnum));
	if (buf[0])
		buf[0] = (char)tolower((unsigned char)buf[0]);
	return buf;
}
