/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The numbers of brig job's flags, parsed by hand: strtoull() takes a sign,
 * leading blanks and "0x", strtod() takes "1e3", "inf", "nan" and reads the
 * decimal point of the locale.  Here only ASCII digits count, every product
 * and sum is checked against UINT64_MAX, and the whole string must match.
 */
#include "config.h"
#include "util/units.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* *@v = *@v * @m + @a, false when that overflows. */
static bool mul_add(uint64_t *v, uint64_t m, uint64_t a)
{
	if (m != 0 && *v > UINT64_MAX / m)
		return false;
	if (*v * m > UINT64_MAX - a)
		return false;
	*v = *v * m + a;
	return true;
}

/* The digits at *@p, at least one, into *@v; *@p moves past them. */
static bool parse_digits(const char **p, uint64_t *v)
{
	const char *s = *p;

	*v = 0;
	if (!is_digit(*s))
		return false;
	for (; is_digit(*s); s++)
		if (!mul_add(v, 10, (uint64_t)(*s - '0')))
			return false;
	*p = s;
	return true;
}

/* The fraction 0.<digits> (the @n digits at @d) times @mult, rounded half
 * up: the digit string times @mult, from the last digit to the first as on
 * paper, so that any number of digits is exact and nothing overflows (the
 * carry stays below @mult). */
static uint64_t fraction_times(const char *d, size_t n, uint64_t mult)
{
	uint64_t carry = 0, first = 0;

	for (size_t i = n; i-- > 0;) {
		uint64_t t = (uint64_t)(d[i] - '0') * mult + carry;

		first = t % 10;
		carry = t / 10;
	}
	return carry + (first >= 5);
}

static const struct {
	const char *name;
	uint64_t ms;
} duration_units[] = {
	{ "", 1000 }, { "ms", 1 }, { "s", 1000 }, { "m", 60 * 1000 }, { "h", 3600 * 1000 },
};

static bool duration_unit(const char *s, uint64_t *ms)
{
	for (size_t i = 0; i < sizeof(duration_units) / sizeof(duration_units[0]); i++)
		if (strcmp(s, duration_units[i].name) == 0) {
			*ms = duration_units[i].ms;
			return true;
		}
	return false;
}

int brig_parse_duration_ms(const char *s, uint64_t *ms)
{
	const char *frac = NULL;
	size_t frac_len = 0;
	uint64_t whole, mult;

	if (!parse_digits(&s, &whole))
		return -1;
	if (*s == '.') {
		frac = ++s;
		while (is_digit(*s))
			s++;
		frac_len = (size_t)(s - frac);
		if (frac_len == 0)
			return -1;
	}
	if (!duration_unit(s, &mult))
		return -1;
	if (!mul_add(&whole, mult, frac ? fraction_times(frac, frac_len, mult) : 0))
		return -1;
	*ms = whole;
	return 0;
}

/* The power of 1024 a unit letter stands for, 0 when it is not one. */
static unsigned size_prefix_shift(char c)
{
	switch (c) {
	case 'K':
	case 'k':
		return 10;
	case 'M':
	case 'm':
		return 20;
	case 'G':
	case 'g':
		return 30;
	case 'T':
	case 't':
		return 40;
	default:
		return 0;
	}
}

/* "", "B", or K/M/G/T then nothing, "B", "i" or "iB"; case does not
 * matter, as in docker's -m.  The shift of the unit into *@shift. */
static bool size_unit(const char *s, unsigned *shift)
{
	*shift = 0;
	if (*s == '\0' || strcasecmp(s, "B") == 0)
		return true;
	*shift = size_prefix_shift(*s++);
	if (*shift == 0)
		return false;
	return *s == '\0' || strcasecmp(s, "B") == 0 || strcasecmp(s, "i") == 0 ||
	       strcasecmp(s, "iB") == 0;
}

int brig_parse_size(const char *s, uint64_t *bytes)
{
	uint64_t v;
	unsigned shift;

	if (!parse_digits(&s, &v) || !size_unit(s, &shift))
		return -1;
	if (shift && v > UINT64_MAX >> shift)
		return -1;
	*bytes = v << shift;
	return 0;
}

/*
 * The digits go into one integer mantissa while it holds them; a whole
 * digit that does not fit scales the result by ten instead, a fraction
 * digit that does not fit is too small to matter and is skipped.  Then one
 * division by the (exact) power of ten of the fraction digits kept, so
 * "1.5" is 15 / 10.0 and "0.1" the double nearest 0.1.
 */
int brig_parse_decimal(const char *s, double *out)
{
	uint64_t mant = 0;
	unsigned frac_kept = 0, whole_lost = 0;
	double v, scale = 1;

	if (!is_digit(*s))
		return -1;
	for (; is_digit(*s); s++)
		if (whole_lost || !mul_add(&mant, 10, (uint64_t)(*s - '0')))
			whole_lost++;
	if (*s == '.') {
		if (!is_digit(*++s))
			return -1;
		for (; is_digit(*s); s++)
			if (!whole_lost && mul_add(&mant, 10, (uint64_t)(*s - '0')))
				frac_kept++;
	}
	if (*s != '\0')
		return -1;
	for (unsigned i = 0; i < whole_lost + frac_kept && isfinite(scale); i++)
		scale *= 10; /* exact up to 10^22; frac_kept is at most 20 */
	v = whole_lost ? (double)mant * scale : (double)mant / scale;
	if (!isfinite(v))
		return -1;
	*out = v;
	return 0;
}
