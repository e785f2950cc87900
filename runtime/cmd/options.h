/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Command-line flags as runc (Go's flag package under urfave/cli) takes
 * them: "--name value", "--name=value", "-name value" and "-n value" all
 * mean the same; a boolean takes no value unless written "--name=false".
 * Flags end at "--" and, for commands that pass the rest on (exec, ps), at
 * the first positional argument.  The tables double as the source of
 * `--help` and the man pages.
 */
#ifndef BRIG_OPTIONS_H
#define BRIG_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

struct brig_error;

enum brig_opt_type {
	BRIG_OPT_BOOL,
	BRIG_OPT_STRING,
	BRIG_OPT_LIST, /* a string flag that may be repeated */
};

struct brig_option {
	const char *name; /* long name, no dashes: "bundle" */
	char short_name;  /* 'b', or 0 */
	enum brig_opt_type type;
	const char *arg;  /* placeholder shown in help: "DIR" */
	const char *help; /* one line, lowercase, as runc words it */
	const char *def;  /* default shown in help, or NULL */
};

struct brig_optval {
	bool set;
	bool b;            /* BOOL */
	const char *str;   /* STRING: the last value given */
	const char **list; /* LIST: every value, in order */
	size_t n;
};

struct brig_args {
	struct brig_optval *vals; /* one per table entry, same order */
	size_t n_vals;
	char **pos; /* positional arguments */
	int n_pos;
	bool help; /* --help or -h was given */
};

enum brig_parse_mode {
	BRIG_PARSE_PERMUTE, /* flags may follow positionals */
	BRIG_PARSE_STOP,    /* the first positional ends the flags */
};

/*
 * Parse argv[0..argc) against @table.  Values point into argv.  Unknown
 * flags and missing values are usage errors naming the flag.
 */
int brig_options_parse(const struct brig_option *table, size_t n_table, int argc, char **argv,
                       enum brig_parse_mode mode, struct brig_args *out, struct brig_error *err);
void brig_args_release(struct brig_args *args);

/* Print the flags of @table as help text to stdout. */
void brig_options_print(const struct brig_option *table, size_t n_table);

#endif
