/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fault injection, for tests only: compiled in by `configure
 * --enable-fault-injection` (BRIG_FAULTS), and otherwise nothing at all.
 * Each named step that brig reaches is a point where a test can make it
 * die or fail, to prove that what a killed or failing brig leaves is
 * cleaned up by the next one:
 *
 *   BRIG_FAULT=STEP:ACTION       at STEP, in every process of brig's that
 *                                reaches it (brigs it executes inherit it):
 *       kill                     SIGKILL itself
 *       stop                     SIGSTOP itself (the test continues it)
 *       sleep=MS                 sleep MS milliseconds, then go on
 *       errno=N                  fail with errno N, where the step can fail
 *                                (brig_fault() returns -1; elsewhere as if
 *                                nothing happened)
 *       leak=N                   allocate N bytes and drop the pointer (the
 *                                sanitizer build's leak check must see it)
 *   BRIG_FAULT_LOG=FILE          append "STEP\n" to FILE at each step
 *                                reached (a test learns the steps from it)
 *
 * Step names are lowercase, dotted, without spaces: "create.state-dir",
 * "sync.send.READY", "pool.follow".  Safe in the init after clone (no
 * allocation).
 */
#ifndef BRIG_UTIL_FAULT_H
#define BRIG_UTIL_FAULT_H

#ifdef BRIG_FAULTS
/* BRIG_FAULT and BRIG_FAULT_LOG from the environment, once, in main() */
void brig_fault_init(void);
int brig_fault(const char *step);
#else
static inline void brig_fault_init(void)
{
}
static inline int brig_fault(const char *step)
{
	(void)step;
	return 0;
}
#endif

#endif
