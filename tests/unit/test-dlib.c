/* SPDX-License-Identifier: Apache-2.0 */
/*
 * util/dlib.c: a library loaded once with the functions asked of it, and
 * nothing kept when one is missing or the library is not there.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "util/cleanup.h"
#include "util/dlib.h"
#include "util/error.h"

static struct {
	__typeof__(&strlen) len;
	__typeof__(&strcmp) cmp;
} libc;

int main(void)
{
	const struct brig_dlsym good[] = {
		{ "strlen", (void **)&libc.len },
		{ "strcmp", (void **)&libc.cmp },
	};
	const struct brig_dlsym bad[] = {
		{ "strlen", (void **)&libc.len },
		{ "brig_no_such_function", (void **)&libc.cmp },
	};
	struct brig_error err = BRIG_ERROR_INIT;
	void *handle = NULL, *first;
	int r;

	r = brig_dlib_load(&handle, "libbrig-no-such-library.so.9", "some-package", good,
	                   ARRAY_SIZE(good), &err);
	ok(r < 0 && !handle && !libc.len && !libc.cmp,
	   "a library not there: an error, nothing kept");
	ok(err.msg && strstr(err.msg, "libbrig-no-such-library.so.9: ") == err.msg &&
	       strstr(err.msg, "(apt-get install some-package)"),
	   "it names the library and the package: %s", err.msg ? err.msg : "(none)");
	brig_error_release(&err);

	r = brig_dlib_load(&handle, "libc.so.6", "libc6", bad, ARRAY_SIZE(bad), &err);
	ok(r < 0 && !handle && !libc.len && !libc.cmp,
	   "a function missing: an error, every pointer NULL again, no handle");
	is_str(err.msg, "libc.so.6 has no brig_no_such_function (apt-get install libc6)",
	       "it names the function");
	brig_error_release(&err);

	r = brig_dlib_load(&handle, "libc.so.6", "libc6", good, ARRAY_SIZE(good), &err);
	ok(r == 0 && handle && libc.len && libc.cmp, "every function found");
	ok(libc.len && libc.len("brig") == 4 && libc.cmp && libc.cmp("a", "a") == 0,
	   "and callable");
	first = handle;
	libc.len = NULL;
	r = brig_dlib_load(&handle, "libc.so.6", "libc6", good, ARRAY_SIZE(good), &err);
	ok(r == 0 && handle == first && !libc.len, "loaded once: a second call does nothing");
	brig_error_release(&err);
	return tap_done();
}
