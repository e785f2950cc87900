/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Linked into brig only by --enable-sanitizers (the test suite's ASan
 * build); nothing here is in a release build.
 *
 * LeakSanitizer's check at exit reads every writable page of every loaded
 * module, looking for pointers into the heap: among them the 11 MB of
 * .bss of ASan's and UBSan's runtimes (shared libraries, or linked into
 * brig: configure.ac) that nothing else ever touched.  Each first read of
 * such a page is a page fault that maps the zero page.  Where a page
 * fault is dear (a PVM guest, as CI's machines are: some 15 us each),
 * those 3000 faults made half of every brig's run under ASan: `brig
 * --version` took 78 ms (elapsed, medians of 20 on a quiet machine)
 * where it takes 48 with this handler.
 *
 * An exit handler registered here runs before LeakSanitizer's (registered
 * at ASan's start, earlier, so run later) and maps those pages in, one
 * madvise(MADV_POPULATE_READ) per segment: a single system call where
 * there were thousands of faults.  The check itself then reads what it
 * always read; nothing is checked less.  A kernel without the advice
 * (before 5.14) says EINVAL and the check faults its pages in as before.
 */
#include "config.h"

#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

static int populate_writable(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	(void)size;
	(void)data;
	for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t begin, end;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
			continue;
		begin = (info->dlpi_addr + ph->p_vaddr) & ~(page - 1);
		end = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + page - 1) & ~(page - 1);
		(void)madvise((void *)begin, end - begin, MADV_POPULATE_READ);
	}
	return 0;
}

static void populate_before_leak_check(void)
{
	dl_iterate_phdr(populate_writable, NULL);
}

__attribute__((constructor)) static void brig_sanitizer_init(void)
{
	(void)atexit(populate_before_leak_check);
}
