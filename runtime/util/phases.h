/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where one brig command spends its time: a monotonic stamp at each named
 * step, from main() on, reported as one --debug line when the command
 * ends:
 *
 *   phases: run 6.21 ms: plan 0.40, seccomp 0.05, store 0.11, cgroup 1.90, ...
 *
 * each phase the time since the stamp before it.  Stamping costs a
 * clock_gettime; a process that forks carries its own copy (the init's
 * stamps are never reported).  tests/bench/profile.sh reads the lines.
 */
#ifndef BRIG_UTIL_PHASES_H
#define BRIG_UTIL_PHASES_H

/* The start of the clock: brig's main(), or, in brig re-executed from
 * its read-only binary (linux/selfexe.h), the first main()'s, which
 * brig_phases_export() passed on; the re-execution is then a phase. */
void brig_phases_start(void);
void brig_phases_export(void);

/* The step @name (a string that outlives the command) ends now. */
void brig_phase(const char *name);

/* Brig's own start ends now; what follows is the command's: a command
 * that stamps no step of its own (list, state) reports nothing. */
void brig_phases_command(void);

/* The --debug line for command @what, once. */
void brig_phases_report(const char *what);

#endif
