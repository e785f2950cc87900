/* SPDX-License-Identifier: Apache-2.0 */
/* `brig features` round-trips through brig's own JSON parser. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lifecycle/features.h"
#include "spec/json.h"
#include "tap.h"
#include "util/error.h"

static const struct brig_json *at(const struct brig_json *obj, const char *key,
                                  enum brig_json_type type)
{
	const struct brig_json *v = brig_json_get(obj, key);

	ok(v && v->type == type, "\"%s\" is %s", key, brig_json_type_name(type));
	return v && v->type == type ? v : NULL;
}

static void all_strings(const struct brig_json *arr, const char *what)
{
	bool strings = true;

	for (size_t i = 0; arr && i < arr->n; i++)
		strings &= arr->items[i]->type == BRIG_JSON_STRING;
	ok(arr && strings, "%s: a list of names", what);
}

int main(void)
{
	struct brig_arena a = BRIG_ARENA_INIT;
	struct brig_error err = BRIG_ERROR_INIT;
	char *text = brig_features_json(false);
	const struct brig_json *top, *lx, *v;

	top = brig_json_parse(&a, "features", text, strlen(text), &err);
	if (!ok(top && top->type == BRIG_JSON_OBJECT, "features parses as an object"))
		diag(err.msg ? err.msg : "not an object");
	v = at(top, "ociVersionMin", BRIG_JSON_STRING);
	is_str(v ? v->str : NULL, BRIG_SPEC_VERSION_MIN, "ociVersionMin");
	v = at(top, "ociVersionMax", BRIG_JSON_STRING);
	is_str(v ? v->str : NULL, BRIG_SPEC_VERSION, "ociVersionMax");
	all_strings(at(top, "hooks", BRIG_JSON_ARRAY), "hooks");
	v = at(top, "mountOptions", BRIG_JSON_ARRAY);
	all_strings(v, "mountOptions");
	ok(v && v->n > 20, "mountOptions lists what the mount code understands");
	lx = at(top, "linux", BRIG_JSON_OBJECT);
	v = at(lx, "namespaces", BRIG_JSON_ARRAY);
	all_strings(v, "linux.namespaces");
	ok(v && v->n >= 7, "the namespaces containers get");
	all_strings(at(lx, "capabilities", BRIG_JSON_ARRAY), "linux.capabilities");
	v = at(lx, "cgroup", BRIG_JSON_OBJECT);
	{
		const struct brig_json *v1 = brig_json_get(v, "v1"), *v2 = brig_json_get(v, "v2");
		const struct brig_json *rdma = brig_json_get(v, "rdma");

		ok(v1 && v1->type == BRIG_JSON_BOOL && v1->boolean && v2 &&
		       v2->type == BRIG_JSON_BOOL && v2->boolean && rdma &&
		       rdma->type == BRIG_JSON_BOOL && rdma->boolean,
		   "cgroup v1, v2 and rdma are supported");
	}
	v = at(lx, "seccomp", BRIG_JSON_OBJECT);
	at(v, "enabled", BRIG_JSON_BOOL);
#ifdef HAVE_SECCOMP
	/* what the kernel and libseccomp take: every name a list of strings */
	all_strings(at(v, "actions", BRIG_JSON_ARRAY), "linux.seccomp.actions");
	all_strings(at(v, "operators", BRIG_JSON_ARRAY), "linux.seccomp.operators");
	all_strings(at(v, "archs", BRIG_JSON_ARRAY), "linux.seccomp.archs");
	all_strings(at(v, "knownFlags", BRIG_JSON_ARRAY), "linux.seccomp.knownFlags");
	all_strings(at(v, "supportedFlags", BRIG_JSON_ARRAY), "linux.seccomp.supportedFlags");
	{
		const struct brig_json *ops = brig_json_get(v, "operators");

		ok(ops && ops->n == 7, "the seven operators");
	}
#endif
	at(at(lx, "apparmor", BRIG_JSON_OBJECT), "enabled", BRIG_JSON_BOOL);
	at(at(lx, "selinux", BRIG_JSON_OBJECT), "enabled", BRIG_JSON_BOOL);
	at(at(at(lx, "mountExtensions", BRIG_JSON_OBJECT), "idmap", BRIG_JSON_OBJECT), "enabled",
	   BRIG_JSON_BOOL);
	at(top, "annotations", BRIG_JSON_OBJECT);
	free(text);
	brig_error_release(&err);
	brig_arena_release(&a);
	return tap_done();
}
