/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pure parts of the LSM labels (runtime/linux/selinux.c, apparmor.c,
 * mounts.c): the mount label as mount data, as fsconfig gets it, and empty
 * labels asking for nothing.  No kernel, no root.
 */
#include "config.h"

#include <stdlib.h>

#include "linux/apparmor.h"
#include "linux/mounts.h"
#include "linux/selinux.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/error.h"

#define MCS "system_u:object_r:container_file_t:s0:c1,c2"

static void test_format_mount_label(void)
{
	static const struct {
		const char *data, *label, *want;
	} cases[] = {
		/* runc's label.FormatMountLabel */
		{ NULL, "system_u:object_r:container_file_t:s0",
		  "context=\"system_u:object_r:container_file_t:s0\"" },
		{ "", MCS, "context=\"" MCS "\"" },
		{ "mode=755", MCS, "mode=755,context=\"" MCS "\"" },
		{ "mode=755,size=64k", "l", "mode=755,size=64k,context=\"l\"" },
		/* no label: the data as it is */
		{ "mode=755", NULL, "mode=755" },
		{ "mode=755", "", "mode=755" },
		{ NULL, NULL, "" },
		{ NULL, "", "" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *got =
		    brig_selinux_format_mount_label(cases[i].data, cases[i].label);

		is_str(got, cases[i].want, "format_mount_label(%s, %s)",
		       cases[i].data ? cases[i].data : "NULL",
		       cases[i].label ? cases[i].label : "NULL");
	}
}

static void test_data_split(void)
{
	static const struct {
		const char *opt, *key, *value; /* value NULL: a flag */
	} cases[] = {
		{ "mode=755", "mode", "755" },
		{ "size", "size", NULL },
		{ "lowerdir=/a:/b,upperdir=/c", "lowerdir", "/a:/b,upperdir=/c" },
		{ "a=b=c", "a", "b=c" },
		{ "key=", "key", "" },
		/* SELinux contexts lose the quotes of mount(2) data... */
		{ "context=\"" MCS "\"", "context", MCS },
		{ "fscontext=\"u:r:t:s0\"", "fscontext", "u:r:t:s0" },
		{ "defcontext=\"u:r:t:s0\"", "defcontext", "u:r:t:s0" },
		{ "rootcontext=\"u:r:t:s0\"", "rootcontext", "u:r:t:s0" },
		{ "context=u:r:t:s0", "context", "u:r:t:s0" },
		/* ...and every quote, as the kernel drops them */
		{ "context=\"u:r:t\":\"s0\"", "context", "u:r:t:s0" },
		/* other values keep theirs */
		{ "label=\"x\"", "label", "\"x\"" },
		{ "xcontext=\"x\"", "xcontext", "\"x\"" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *key = NULL, *value = NULL;

		brig_mount_data_split(cases[i].opt, &key, &value);
		is_str(key, cases[i].key, "split %s: key", cases[i].opt);
		if (cases[i].value)
			is_str(value, cases[i].value, "split %s: value", cases[i].opt);
		else
			ok(value == NULL, "split %s: a flag", cases[i].opt);
	}
}

/* The mount label brig adds reaches fsconfig as the label itself. */
static void test_label_round_trip(void)
{
	_cleanup_free_ char *opt = brig_selinux_format_mount_label(NULL, MCS);
	_cleanup_free_ char *key = NULL, *value = NULL;

	brig_mount_data_split(opt, &key, &value);
	is_str(key, "context", "the label's option is context");
	is_str(value, MCS, "fsconfig gets the label unquoted, commas and all");
}

static void test_context_options(void)
{
	ok(brig_selinux_is_context_option("context"), "context");
	ok(brig_selinux_is_context_option("fscontext"), "fscontext");
	ok(brig_selinux_is_context_option("defcontext"), "defcontext");
	ok(brig_selinux_is_context_option("rootcontext"), "rootcontext");
	ok(!brig_selinux_is_context_option("seclabel"), "seclabel is a flag, no context");
	ok(!brig_selinux_is_context_option("Context"), "names are case-sensitive");
	ok(!brig_selinux_is_context_option(""), "the empty name");
}

/* Empty labels ask for nothing: no check, no write (the procfs fd -1 is
 * never used). */
static void test_empty_labels(void)
{
	struct brig_error err = BRIG_ERROR_INIT;

	is_int(brig_selinux_check(NULL, &err), 0, "selinux check: NULL");
	is_int(brig_selinux_check("", &err), 0, "selinux check: empty");
	is_int(brig_apparmor_check(NULL, &err), 0, "apparmor check: NULL");
	is_int(brig_apparmor_check("", &err), 0, "apparmor check: empty");
	is_int(brig_selinux_set_exec(-1, "", &err), 0, "selinux exec label: empty");
	is_int(brig_selinux_set_exec(-1, NULL, &err), 0, "selinux exec label: NULL");
	is_int(brig_selinux_set_keycreate(-1, "", &err), 0, "selinux key label: empty");
	is_int(brig_selinux_set_file_label(-1, "", &err), 0, "selinux file label: empty");
	is_int(brig_apparmor_set_exec(-1, "", &err), 0, "apparmor profile: empty");
	is_int(brig_apparmor_set_exec(-1, NULL, &err), 0, "apparmor profile: NULL");
	ok(!brig_error_is_set(&err), "no error was set");
	brig_error_release(&err);
}

int main(void)
{
	test_format_mount_label();
	test_data_split();
	test_label_round_trip();
	test_context_options();
	test_empty_labels();
	return tap_done();
}
