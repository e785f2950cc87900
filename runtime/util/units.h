/* SPDX-License-Identifier: Apache-2.0 */
/* Durations and sizes as users write them (brig job's flags, the
 * run.brig.job.timeout annotation). */
#ifndef BRIG_UTIL_UNITS_H
#define BRIG_UTIL_UNITS_H

#include <stdint.h>

/*
 * A duration: a decimal number (a fraction allowed: "1.5s") with a unit,
 * "ms", "s", "m" or "h"; a bare number is seconds ("60").  "0" is zero.
 * 0 with *@ms set (rounded to the millisecond, half up), -1 when @s is not
 * one or overflows.  Only ASCII digits, at least one before a point and
 * one after it ("1.", ".5" are refused), lowercase units, no sign, blank,
 * exponent or locale's decimal comma.
 */
int brig_parse_duration_ms(const char *s, uint64_t *ms);

/*
 * A size in bytes: a whole number with an optional unit, "K", "M", "G" or
 * "T" (powers of 1024; "k", "KB", "KiB", "Ki" the same), or "B"; a bare
 * number is bytes ("65536").  Case does not matter ("4kb", "1g"), as with
 * docker's -m.  No fraction, sign or blank.  -1 when @s is not one or
 * overflows.
 */
int brig_parse_size(const char *s, uint64_t *bytes);

/* "1.5" -> 1.5: a decimal, non-negative, finite, with the same digits and
 * point as a duration (no "1e3", "inf", "1,5" whatever the locale); -1
 * when not one.  *@out is left alone on failure, as by the others. */
int brig_parse_decimal(const char *s, double *out);

#endif
