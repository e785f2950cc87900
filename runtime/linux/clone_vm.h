/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A helper child that shares brig's memory: clone3 with CLONE_VM and
 * CLONE_VFORK, as posix_spawn's.  The kernel copies no page table for it
 * and tears none down after, and neither side takes a copy-on-write fault
 * for the other: exec's joiner so made costs 37 page faults fewer of an
 * exec's 325 (tests/bench/README.md), where each is dear on a nested
 * guest.  brig sleeps in the call until the child exits or execs.
 *
 * The child runs @fn(@arg) on brig's own stack, a page below the frame
 * that waits in clone3 (nothing of brig's is live there), and exits with
 * what @fn returns (or by _exit).  It shares everything brig will read
 * after: @fn makes system calls and formats into its own locals, changes
 * no global and no field brig reads later (errno aside), and leaves the
 * heap as it found it (what it allocates, an error's message, it frees:
 * brig must be single-threaded, so that no thread of its holds the heap
 * while the child uses it).  It may fork (its child gets a copy, as any
 * fork's).  The kernel refuses such a child setns(2) into a time
 * namespace (EUSERS).
 *
 * glibc 2.36 has no clone3 of its own, and a child of syscall(2) would
 * return through a frame of brig's: the child's first steps are a few
 * instructions for each architecture.  Where there are none, -1 with
 * errno ENOSYS: the caller forks instead.
 */
#ifndef BRIG_LINUX_CLONE_VM_H
#define BRIG_LINUX_CLONE_VM_H

#include <linux/sched.h>
#include <sys/types.h>

/* @ca as for clone3, without stack or CLONE_VM/CLONE_VFORK (added here);
 * the child's pid, or -1 with errno. */
pid_t brig_clone3_vm(struct clone_args *ca, int (*fn)(void *), void *arg);

#endif
