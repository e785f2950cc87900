/* SPDX-License-Identifier: Apache-2.0 */
/* The runc-style flag parser (runtime/options.c). */
#include "config.h"

#include <string.h>

#include "cmd/options.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/error.h"

enum { O_BUNDLE, O_DETACH, O_ENV, O_PID_FILE };

static const struct brig_option table[] = {
	[O_BUNDLE] = { "bundle", 'b', BRIG_OPT_STRING, "DIR", "bundle", NULL },
	[O_DETACH] = { "detach", 'd', BRIG_OPT_BOOL, NULL, "detach", NULL },
	[O_ENV] = { "env", 'e', BRIG_OPT_LIST, "K=V", "env", NULL },
	[O_PID_FILE] = { "pid-file", 0, BRIG_OPT_STRING, "PATH", "pid file", NULL },
};

static int parse(int argc, char **argv, enum brig_parse_mode mode, struct brig_args *a,
                 struct brig_error *err)
{
	return brig_options_parse(table, ARRAY_SIZE(table), argc, argv, mode, a, err);
}

int main(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_args a;

	{
		char *argv[] = { "--bundle", "/b", "--pid-file=/p", "-d", "id" };

		ok(parse(5, argv, BRIG_PARSE_PERMUTE, &a, &err) == 0,
		   "--flag value and --flag=value");
		is_str(a.vals[O_BUNDLE].str, "/b", "space form");
		is_str(a.vals[O_PID_FILE].str, "/p", "= form");
		ok(a.vals[O_DETACH].set && a.vals[O_DETACH].b, "short bool");
		ok(a.n_pos == 1 && !strcmp(a.pos[0], "id"), "one positional");
		brig_args_release(&a);
	}
	{
		char *argv[] = { "-bundle", "/b",    "-b=/c", "--detach=false", "id", "-e",
			         "A=1",     "--env", "B=2" };

		ok(parse(9, argv, BRIG_PARSE_PERMUTE, &a, &err) == 0,
		   "Go-style single dash long flag");
		is_str(a.vals[O_BUNDLE].str, "/c", "the last value wins");
		ok(a.vals[O_DETACH].set && !a.vals[O_DETACH].b, "--detach=false");
		is_int((long long)a.vals[O_ENV].n, 2, "a list flag collects every value");
		is_str(a.vals[O_ENV].list[1], "B=2", "in order");
		ok(a.n_pos == 1, "flags after a positional are flags when permuting");
		brig_args_release(&a);
	}
	{
		char *argv[] = { "-d", "id", "sh", "-c", "--bundle", "x" };

		ok(parse(6, argv, BRIG_PARSE_STOP, &a, &err) == 0, "stop mode");
		is_int(a.n_pos, 5, "everything after the first positional is passed on");
		is_str(a.pos[2], "-c", "including things that look like flags");
		ok(!a.vals[O_BUNDLE].set, "which are not parsed");
		brig_args_release(&a);
	}
	{
		char *argv[] = { "--", "--bundle" };

		ok(parse(2, argv, BRIG_PARSE_PERMUTE, &a, &err) == 0 && a.n_pos == 1,
		   "-- ends the flags");
		brig_args_release(&a);
	}
	{
		char *argv[] = { "-", "--help" };

		ok(parse(2, argv, BRIG_PARSE_PERMUTE, &a, &err) == 0 && a.help && a.n_pos == 1,
		   "a lone - is positional and --help is seen");
		brig_args_release(&a);
	}
	{
		char *argv[] = { "--nope" };

		ok(parse(1, argv, BRIG_PARSE_PERMUTE, &a, &err) < 0, "unknown flag");
		is_str(err.msg, "unknown flag \"--nope\"", "named in the error");
		is_int(err.status, 2, "as a usage error");
		brig_error_release(&err);
	}
	{
		char *argv[] = { "--bundle" };

		ok(parse(1, argv, BRIG_PARSE_PERMUTE, &a, &err) < 0, "missing value");
		is_str(err.msg, "flag \"--bundle\" needs an argument", "named in the error");
		brig_error_release(&err);
	}
	{
		char *argv[] = { "--detach=maybe" };

		ok(parse(1, argv, BRIG_PARSE_PERMUTE, &a, &err) < 0, "bad boolean");
		is_str(err.msg, "invalid boolean value \"maybe\" for flag \"--detach\"",
		       "named in the error");
		brig_error_release(&err);
	}
	{
		char *argv[] = { "--pid-file=" };

		ok(parse(1, argv, BRIG_PARSE_PERMUTE, &a, &err) == 0 && a.vals[O_PID_FILE].set &&
		       !a.vals[O_PID_FILE].str[0],
		   "an empty value with = is a value");
		brig_args_release(&a);
	}
	return tap_done();
}
