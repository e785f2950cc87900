/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

static const struct brig_option *find(const struct brig_option *table, size_t n, const char *name,
                                      size_t len)
{
	for (size_t i = 0; i < n; i++) {
		if (strlen(table[i].name) == len && strncmp(table[i].name, name, len) == 0)
			return &table[i];
		if (len == 1 && table[i].short_name == name[0])
			return &table[i];
	}
	return NULL;
}

static int parse_bool(const char *s, bool *out)
{
	if (!strcmp(s, "true") || !strcmp(s, "1") || !strcmp(s, "t") || !strcmp(s, "TRUE"))
		*out = true;
	else if (!strcmp(s, "false") || !strcmp(s, "0") || !strcmp(s, "f") || !strcmp(s, "FALSE"))
		*out = false;
	else
		return -1;
	return 0;
}

int brig_options_parse(const struct brig_option *table, size_t n_table, int argc, char **argv,
                       enum brig_parse_mode mode, struct brig_args *out, struct brig_error *err)
{
	bool flags_done = false;

	memset(out, 0, sizeof(*out));
	out->vals = brig_xcalloc(n_table, sizeof(*out->vals));
	out->n_vals = n_table;
	out->pos = brig_xcalloc((size_t)argc + 1, sizeof(*out->pos));

	for (int i = 0; i < argc; i++) {
		char *a = argv[i];
		const struct brig_option *opt;
		struct brig_optval *val;
		const char *name, *eq, *value = NULL;
		size_t len;

		if (flags_done || a[0] != '-' || a[1] == '\0') {
			out->pos[out->n_pos++] = a;
			if (mode == BRIG_PARSE_STOP)
				flags_done = true;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			flags_done = true;
			continue;
		}
		name = a + (a[1] == '-' ? 2 : 1);
		eq = strchr(name, '=');
		len = eq ? (size_t)(eq - name) : strlen(name);
		if (eq)
			value = eq + 1;
		if ((len == 4 && !strncmp(name, "help", 4)) || (len == 1 && name[0] == 'h')) {
			out->help = true;
			continue;
		}
		opt = len ? find(table, n_table, name, len) : NULL;
		if (!opt) {
			brig_error_usage(err, "unknown flag \"%s\"", a);
			goto fail;
		}
		val = &out->vals[opt - table];
		if (opt->type == BRIG_OPT_BOOL) {
			bool b = true;

			if (value && parse_bool(value, &b) < 0) {
				brig_error_usage(err,
				                 "invalid boolean value \"%s\" for flag \"--%s\"",
				                 value, opt->name);
				goto fail;
			}
			val->set = true;
			val->b = b;
			continue;
		}
		if (!value) {
			if (i + 1 >= argc) {
				brig_error_usage(err, "flag \"--%s\" needs an argument", opt->name);
				goto fail;
			}
			value = argv[++i];
		}
		val->set = true;
		val->str = value;
		if (opt->type == BRIG_OPT_LIST) {
			val->list = brig_xrealloc(val->list, (val->n + 2) * sizeof(*val->list));
			val->list[val->n++] = value;
			val->list[val->n] = NULL;
		}
	}
	return 0;
fail:
	brig_args_release(out);
	return -1;
}

void brig_args_release(struct brig_args *args)
{
	for (size_t i = 0; i < args->n_vals; i++)
		free(args->vals[i].list);
	free(args->vals);
	free(args->pos);
	memset(args, 0, sizeof(*args));
}

void brig_options_print(const struct brig_option *table, size_t n_table)
{
	for (size_t i = 0; i < n_table; i++) {
		const struct brig_option *o = &table[i];
		char left[64];

		if (o->short_name)
			snprintf(left, sizeof(left), "--%s%s%s, -%c", o->name, o->arg ? " " : "",
			         o->arg ? o->arg : "", o->short_name);
		else
			snprintf(left, sizeof(left), "--%s%s%s", o->name, o->arg ? " " : "",
			         o->arg ? o->arg : "");
		printf("   %-30s %s", left, o->help);
		if (o->def)
			printf(" (default: %s)", o->def);
		printf("\n");
	}
	printf("   %-30s %s\n", "--help, -h", "show help");
}
