/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Libraries loaded with dlopen() on first use rather than linked: those
 * only some commands need (libsystemd, libselinux, libnftables, libnftnl,
 * c-ares), whose loading and constructors every brig start would pay for
 * otherwise (brig starts twice per container: linux/selfexe.h).
 */
#ifndef BRIG_UTIL_DLIB_H
#define BRIG_UTIL_DLIB_H

#include <stddef.h>

struct brig_error;

/* A function of the library, and the pointer its address goes into
 * (`(void **)&table.f`: dlsym's own idiom for a function pointer). */
struct brig_dlsym {
	const char *name;
	void **fn;
};

/*
 * @soname loaded once and every one of @syms (@n) found in it: 0, and
 * *@handle set (then a call returns 0 at once); the library stays loaded,
 * brig being short-lived.  On failure nothing is kept (every pointer of
 * @syms NULL again, the library closed), and the error names the library,
 * why it could not be loaded (dlerror()'s words) or the function it lacks,
 * and the Debian @package to install.
 */
int brig_dlib_load(void **handle, const char *soname, const char *package,
                   const struct brig_dlsym *syms, size_t n, struct brig_error *err);

#endif
