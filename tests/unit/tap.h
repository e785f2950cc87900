/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A minimal TAP producer for brig's unit tests (run by automake's
 * tap-driver.sh).  Usage:
 *
 *     int main(void) {
 *         ok(1 + 1 == 2, "addition works");
 *         is_str(got, "want", "the message names the path");
 *         return tap_done();
 *     }
 */
#ifndef BRIG_TESTS_TAP_H
#define BRIG_TESTS_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline bool tap_vok(bool cond, const char *fmt, va_list ap)
{
	tap_n++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_n);
	vprintf(fmt, ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

static inline __attribute__((format(printf, 2, 3))) bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vok(cond, fmt, ap);
	va_end(ap);
	return r;
}

static inline __attribute__((format(printf, 3, 4))) bool is_str(const char *got, const char *want,
                                                                const char *fmt, ...)
{
	bool cond = got && want && strcmp(got, want) == 0;
	va_list ap;

	va_start(ap, fmt);
	tap_vok(cond, fmt, ap);
	va_end(ap);
	if (!cond) {
		printf("#   got:  %s\n", got ? got : "(null)");
		printf("#   want: %s\n", want ? want : "(null)");
	}
	return cond;
}

static inline __attribute__((format(printf, 3, 4))) bool is_int(long long got, long long want,
                                                                const char *fmt, ...)
{
	bool cond = got == want;
	va_list ap;

	va_start(ap, fmt);
	tap_vok(cond, fmt, ap);
	va_end(ap);
	if (!cond)
		printf("#   got: %lld, want: %lld\n", got, want);
	return cond;
}

static inline void diag(const char *msg)
{
	printf("# %s\n", msg);
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
