/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/clone_vm.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif

#define STR_(x) #x
#define STR(x) STR_(x)

#if defined(__x86_64__) && !defined(__ILP32__) /* not x32 */
/*
 * long clone3_vm_raw(struct clone_args *ca, size_t size, int (*fn)(void *),
 *                    void *arg): the system call's value in brig (a pid, or
 * -errno); in the child, on the stack clone3 gave it, fn(arg) and exit.
 * syscall clobbers only rax, rcx and r11, so fn and arg wait in r8, r9.
 */
long clone3_vm_raw(struct clone_args *ca, size_t size, int (*fn)(void *), void *arg);
/* clang-format off */
__asm__(".pushsection .text\n"
	".p2align 4\n"
	".type clone3_vm_raw, @function\n"
	"clone3_vm_raw:\n"
	"	movq %rdx, %r8\n"
	"	movq %rcx, %r9\n"
	"	movl $" STR(__NR_clone3) ", %eax\n"
	"	syscall\n"
	"	testq %rax, %rax\n"
	"	jz 1f\n"
	"	ret\n"
	"1:	xorl %ebp, %ebp\n"	/* the outermost frame, for a debugger */
	"	movq %r9, %rdi\n"
	"	callq *%r8\n"
	"	movl %eax, %edi\n"
	"	movl $" STR(__NR_exit) ", %eax\n"
	"	syscall\n"
	"	hlt\n"
	".size clone3_vm_raw, .-clone3_vm_raw\n"
	".popsection\n");
/* clang-format on */
#define HAVE_CLONE3_VM 1
#endif

/* How far below the waiting frame the child's stack starts, and how much
 * of it clone3 is told of (the stack grows as brig's own would). */
#define GAP 4096
#define SIZE (64 * 1024)

/* not inlined: @here must be in a frame of its own, above the child's stack */
__attribute__((noinline)) pid_t brig_clone3_vm(struct clone_args *ca, int (*fn)(void *), void *arg)
{
#ifdef HAVE_CLONE3_VM
	char here;
	uintptr_t top = ((uintptr_t)&here - GAP) & ~(uintptr_t)15;
	long r;

	ca->flags |= CLONE_VM | CLONE_VFORK;
	ca->stack = top - SIZE;
	ca->stack_size = SIZE;
	r = clone3_vm_raw(ca, sizeof(*ca), fn, arg);
#ifdef __SANITIZE_ADDRESS__
	/* the child's frames, poisoned by its prologues, never returned:
	 * brig's own calls go there next */
	ASAN_UNPOISON_MEMORY_REGION((void *)(uintptr_t)ca->stack, SIZE);
#endif
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (pid_t)r;
#else
	(void)ca;
	(void)fn;
	(void)arg;
	errno = ENOSYS;
	return -1;
#endif
}
