/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "util/phases.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "util/log.h"

#define PHASES_MAX 32

static struct {
	const char *name;
	struct timespec at;
} phases[PHASES_MAX];
static struct timespec start;
static unsigned int n_phases, n_start;
static bool reported;

static double ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

#define PHASES_ENV "_BRIG_PHASES_START"
#define PHASES_EXEC_ENV "_BRIG_PHASES_EXEC"

static bool parse_stamp(const char *text, struct timespec *ts)
{
	long long sec, nsec;

	if (!text || sscanf(text, "%lld.%lld", &sec, &nsec) != 2 || nsec < 0 || nsec >= 1000000000)
		return false;
	*ts = (struct timespec){ .tv_sec = (time_t)sec, .tv_nsec = (long)nsec };
	return true;
}

void brig_phases_start(void)
{
	struct timespec t0, at_exec;

	clock_gettime(CLOCK_MONOTONIC, &start);
	n_phases = n_start = 0;
	reported = false;
	if (parse_stamp(getenv(PHASES_ENV), &t0)) {
		start = t0;
		/* the first image's work, then the execution itself */
		if (parse_stamp(getenv(PHASES_EXEC_ENV), &at_exec)) {
			phases[n_phases].name = "first image";
			phases[n_phases++].at = at_exec;
		}
		brig_phase("re-exec");
	}
	unsetenv(PHASES_ENV);
	unsetenv(PHASES_EXEC_ENV);
}

/* parse_stamp's text of @ts in $@name. */
static void export_stamp(const char *name, const struct timespec *ts)
{
	char text[64];

	snprintf(text, sizeof(text), "%lld.%09ld", (long long)ts->tv_sec, ts->tv_nsec);
	setenv(name, text, 1);
}

void brig_phases_export(void)
{
	struct timespec now;

	export_stamp(PHASES_ENV, &start);
	clock_gettime(CLOCK_MONOTONIC, &now);
	export_stamp(PHASES_EXEC_ENV, &now);
}

void brig_phase(const char *name)
{
	if (n_phases >= PHASES_MAX)
		return;
	phases[n_phases].name = name;
	clock_gettime(CLOCK_MONOTONIC, &phases[n_phases].at);
	n_phases++;
}

void brig_phases_command(void)
{
	brig_phase("start");
	n_start = n_phases;
}

void brig_phases_report(const char *what)
{
	char line[2048];
	struct timespec now;
	const struct timespec *prev = &start;
	size_t len;

	if (reported || n_phases <= n_start)
		return;
	reported = true;
	clock_gettime(CLOCK_MONOTONIC, &now);
	len = (size_t)snprintf(line, sizeof(line), "phases: %s %.3f ms:", what,
	                       ms_between(&start, &now));
	for (unsigned int i = 0; i < n_phases && len < sizeof(line); i++) {
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s %s %.3f", i ? "," : "",
		                        phases[i].name, ms_between(prev, &phases[i].at));
		prev = &phases[i].at;
	}
	brig_debug("%s", line);
}
