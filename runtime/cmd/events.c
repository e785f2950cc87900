/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lifecycle/control.h"
#include "util/error.h"

enum { OPT_INTERVAL, OPT_STATS };

static const struct brig_option options[] = {
	[OPT_INTERVAL] = { "interval", 0, BRIG_OPT_STRING, "DURATION",
	                   "set the stats collection interval", "5s" },
	[OPT_STATS] = { "stats", 0, BRIG_OPT_BOOL, NULL, "display the container's stats then exit",
	                NULL },
};

/* A Go duration ("5s", "1.5s", "250ms", "1m30s") in milliseconds; -1 if
 * it is not one, or not positive. */
static long parse_duration(const char *s)
{
	static const struct {
		const char *unit;
		double ms;
	} units[] = { { "ns", 1e-6 }, { "us", 1e-3 }, { "\u00b5s", 1e-3 }, { "ms", 1 },
		      { "s", 1e3 },   { "m", 60e3 },  { "h", 3600e3 } };
	double total = 0;

	if (!*s)
		return -1;
	while (*s) {
		char *end;
		double v = strtod(s, &end);
		size_t best = 0, i, found = ARRAY_SIZE(units);

		if (end == s || v < 0 || *s == '-' || *s == '+' || isspace((unsigned char)*s))
			return -1;
		for (i = 0; i < ARRAY_SIZE(units); i++) {
			size_t l = strlen(units[i].unit);

			if (!strncmp(end, units[i].unit, l) && l > best) {
				best = l;
				found = i;
			}
		}
		if (found == ARRAY_SIZE(units))
			return -1;
		total += v * units[found].ms;
		s = end + best;
	}
	if (total < 1 || total > 1e12)
		return -1;
	return (long)total;
}

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	const char *iv = a->vals[OPT_INTERVAL].set ? a->vals[OPT_INTERVAL].str : "5s";
	long ms = parse_duration(iv);

	if (ms <= 0)
		return brig_error_usage(err,
		                        "invalid value \"%s\" for flag -interval: duration must "
		                        "be positive",
		                        iv);
	return brig_container_events(&cli->ctx, a->pos[0], a->vals[OPT_STATS].b, (unsigned long)ms,
	                             err);
}

const struct brig_command brig_cmd_events = {
	.name = "events",
	.args_usage = "<container-id>",
	.summary = "display container events such as OOM notifications, cpu, memory, and IO usage "
	           "statistics",
	.description =
	    "   Print the container's events (OOM) and resource statistics as JSON lines.",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
