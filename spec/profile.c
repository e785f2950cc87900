/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "spec/profile.h"

#include <string.h>

#include "spec/json.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/jsonw.h"

static bool denied(const struct brig_json *v, const char *const *deny, size_t n)
{
	for (size_t i = 0; v->type == BRIG_JSON_STRING && i < n; i++)
		if (strlen(deny[i]) == v->len && !memcmp(deny[i], v->str, v->len))
			return true;
	return false;
}

static void copy(struct brig_jsonw *w, const struct brig_json *v)
{
	switch (v->type) {
	case BRIG_JSON_NULL:
		brig_jsonw_null(w);
		break;
	case BRIG_JSON_BOOL:
		brig_jsonw_bool(w, v->boolean);
		break;
	case BRIG_JSON_NUMBER:
		brig_jsonw_number(w, v->str, v->len);
		break;
	case BRIG_JSON_STRING:
		brig_jsonw_stringn(w, v->str, v->len);
		break;
	case BRIG_JSON_ARRAY:
		brig_jsonw_array_begin(w);
		for (size_t i = 0; i < v->n; i++)
			copy(w, v->items[i]);
		brig_jsonw_array_end(w);
		break;
	case BRIG_JSON_OBJECT:
		brig_jsonw_object_begin(w);
		for (size_t i = 0; i < v->n; i++) {
			brig_jsonw_key(w, v->keys[i]);
			copy(w, v->items[i]);
		}
		brig_jsonw_object_end(w);
		break;
	}
}

/* How many names of @rule remain once @deny's are out. */
static size_t names_left(const struct brig_json *rule, const char *const *deny, size_t n_deny)
{
	const struct brig_json *names = brig_json_get(rule, "names");
	size_t left = 0;

	if (!names || names->type != BRIG_JSON_ARRAY)
		return 1; /* not ours to judge: the parser will */
	for (size_t i = 0; i < names->n; i++)
		left += !denied(names->items[i], deny, n_deny);
	return left;
}

static void copy_rule(struct brig_jsonw *w, const struct brig_json *rule, const char *const *deny,
                      size_t n_deny)
{
	brig_jsonw_object_begin(w);
	for (size_t i = 0; i < rule->n; i++) {
		const struct brig_json *v = rule->items[i];

		brig_jsonw_key(w, rule->keys[i]);
		if (strcmp(rule->keys[i], "names") || v->type != BRIG_JSON_ARRAY) {
			copy(w, v);
			continue;
		}
		brig_jsonw_array_begin(w);
		for (size_t k = 0; k < v->n; k++)
			if (!denied(v->items[k], deny, n_deny))
				copy(w, v->items[k]);
		brig_jsonw_array_end(w);
	}
	brig_jsonw_object_end(w);
}

static void copy_syscalls(struct brig_jsonw *w, const struct brig_json *rules,
                          const char *const *deny, size_t n_deny)
{
	brig_jsonw_array_begin(w);
	for (size_t i = 0; rules && rules->type == BRIG_JSON_ARRAY && i < rules->n; i++) {
		const struct brig_json *rule = rules->items[i];

		if (rule->type != BRIG_JSON_OBJECT) {
			copy(w, rule);
			continue;
		}
		if (names_left(rule, deny, n_deny))
			copy_rule(w, rule, deny, n_deny);
	}
	if (n_deny) {
		brig_jsonw_object_begin(w);
		brig_jsonw_kv_strings(w, "names", deny, n_deny);
		brig_jsonw_kv_string(w, "action", "SCMP_ACT_ERRNO");
		brig_jsonw_kv_uint(w, "errnoRet", 1); /* EPERM */
		brig_jsonw_object_end(w);
	}
	brig_jsonw_array_end(w);
}

int brig_seccomp_profile_write(struct brig_jsonw *w, const char *name, const char *text, size_t len,
                               const char *const *deny, size_t n_deny, struct brig_error *err)
{
	struct brig_arena arena = BRIG_ARENA_INIT;
	const struct brig_json *root = brig_json_parse(&arena, name, text, len, err);
	const struct brig_json *rules;
	int r = -1;

	if (!root)
		goto out;
	if (root->type != BRIG_JSON_OBJECT) {
		brig_error_set(err, "%s: expected an object, got %s", name,
		               brig_json_type_name(root->type));
		goto out;
	}
	rules = brig_json_get(root, "syscalls");
	brig_jsonw_object_begin(w);
	for (size_t i = 0; i < root->n; i++) {
		if (!strcmp(root->keys[i], "syscalls"))
			continue;
		brig_jsonw_key(w, root->keys[i]);
		copy(w, root->items[i]);
	}
	brig_jsonw_key(w, "syscalls");
	copy_syscalls(w, rules, deny, n_deny);
	brig_jsonw_object_end(w);
	r = 0;
out:
	brig_arena_release(&arena);
	return r;
}
