/* SPDX-License-Identifier: Apache-2.0 */
/* Libraries loaded on first use (dlib.h). */
#include "config.h"
#include "util/dlib.h"

#include <dlfcn.h>

#include "util/error.h"

int brig_dlib_load(void **handle, const char *soname, const char *package,
                   const struct brig_dlsym *syms, size_t n, struct brig_error *err)
{
	void *h;
	size_t i;

	if (*handle)
		return 0;
	h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		/* dlerror() names the library: "libX.so.1: cannot open ..." */
		return brig_error_set(err, "%s (apt-get install %s)", dlerror(), package);
	for (i = 0; i < n; i++) {
		*syms[i].fn = dlsym(h, syms[i].name);
		if (!*syms[i].fn)
			break;
	}
	if (i < n) {
		brig_error_set(err, "%s has no %s (apt-get install %s)", soname, syms[i].name,
		               package);
		while (i > 0)
			*syms[--i].fn = NULL;
		dlclose(h);
		return -1;
	}
	*handle = h;
	return 0;
}
