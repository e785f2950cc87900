/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "spec/profile.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "spec/json.h"
#include "util/arena.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/jsonw.h"

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

/*
 * The rules of a job with a rw bind (BRIG_PROFILE_NO_SETID): no call may
 * give a file S_ISUID or S_ISGID, or make a device.  Each call that takes
 * a mode is taken out of the profile's rules and comes back conditioned
 * on that mode: the profile's own action when none of those bits is set,
 * EPERM when one is.  openat2 carries its mode in a struct that seccomp
 * cannot read: ENOSYS, so that libc falls back to openat.  io_uring's
 * operations are not system calls seccomp sees: EPERM.
 */
struct setid_call {
	const char *name;
	unsigned int mode_arg;
	bool device; /* mknod(at): the mode's file type too */
};

static const struct setid_call setid_calls[] = {
	{ "chmod", 1, false },     { "fchmod", 1, false }, { "fchmodat", 2, false },
	{ "fchmodat2", 2, false }, { "open", 2, false },   { "openat", 3, false },
	{ "creat", 1, false },     { "mkdir", 1, false },  { "mkdirat", 2, false },
	{ "mknod", 1, true },      { "mknodat", 2, true },
};

static const char *const setid_eperm[] = { "io_uring_setup", "io_uring_enter",
	                                   "io_uring_register" };

#define SETID_ENOSYS "openat2"

static const char *const chown_calls[] = { "chown",   "fchown",   "lchown",  "fchownat",
	                                   "chown32", "fchown32", "lchown32" };

/* The names a profile's rules lose: @deny's, and with @setid the calls
 * that come back as rules of their own. */
struct drop {
	const char *const *deny;
	size_t n_deny;
	bool setid, chown;
	const char *listener; /* @deny notifies it */
};

static bool is_name(const struct brig_json *v, const char *name)
{
	return v->type == BRIG_JSON_STRING && strlen(name) == v->len &&
	       !memcmp(name, v->str, v->len);
}

static bool in_list(const struct brig_json *v, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (is_name(v, list[i]))
			return true;
	return false;
}

static bool str_in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

static bool is_setid_call(const struct brig_json *v)
{
	for (size_t i = 0; i < ARRAY_SIZE(setid_calls); i++)
		if (is_name(v, setid_calls[i].name))
			return true;
	return in_list(v, setid_eperm, ARRAY_SIZE(setid_eperm)) || is_name(v, SETID_ENOSYS);
}

static bool dropped(const struct brig_json *v, const struct drop *d)
{
	if (v->type != BRIG_JSON_STRING)
		return false;
	return in_list(v, d->deny, d->n_deny) || (d->setid && is_setid_call(v)) ||
	       (d->chown && in_list(v, chown_calls, ARRAY_SIZE(chown_calls)));
}

/* How many names of @rule remain once @d's are out. */
static size_t names_left(const struct brig_json *rule, const struct drop *d)
{
	const struct brig_json *names = brig_json_get(rule, "names");
	size_t left = 0;

	if (!names || names->type != BRIG_JSON_ARRAY)
		return 1; /* not ours to judge: the parser will */
	for (size_t i = 0; i < names->n; i++)
		left += !dropped(names->items[i], d);
	return left;
}

static void copy_rule(struct brig_jsonw *w, const struct brig_json *rule, const struct drop *d)
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
			if (!dropped(v->items[k], d))
				copy(w, v->items[k]);
		brig_jsonw_array_end(w);
	}
	brig_jsonw_object_end(w);
}

/* What the profile does with @name: the action (and errnoRet, or NULL) of
 * the last rule naming it, else the default action.  A rule that names it
 * with conditions (args, includes, excludes) cannot be combined with the
 * mode's: refused. */
struct action {
	const struct brig_json *action, *errno_ret;
	const char *def; /* the default action, when the profile's is not given */
};

static int profile_action(const struct brig_json *root, const char *name, struct action *a,
                          const char *profile, struct brig_error *err)
{
	const struct brig_json *rules = root ? brig_json_get(root, "syscalls") : NULL;

	/* no profile (only the rules): allowed */
	a->action = root ? brig_json_get(root, "defaultAction") : NULL;
	a->errno_ret = root ? brig_json_get(root, "defaultErrnoRet") : NULL;
	for (size_t i = 0; rules && rules->type == BRIG_JSON_ARRAY && i < rules->n; i++) {
		const struct brig_json *rule = rules->items[i], *names, *args;
		bool named = false;

		if (rule->type != BRIG_JSON_OBJECT)
			continue;
		names = brig_json_get(rule, "names");
		for (size_t k = 0; names && names->type == BRIG_JSON_ARRAY && k < names->n; k++)
			named |= is_name(names->items[k], name);
		if (!named)
			continue;
		args = brig_json_get(rule, "args");
		if ((args && args->type == BRIG_JSON_ARRAY && args->n) ||
		    brig_json_get(rule, "includes") || brig_json_get(rule, "excludes"))
			return brig_error_set(err,
			                      "%s: syscalls[%zu]: \"%s\" has a conditional rule, "
			                      "which brig cannot combine with the mode rules of a "
			                      "rw bind",
			                      profile, i, name);
		a->action = brig_json_get(rule, "action");
		a->errno_ret = brig_json_get(rule, "errnoRet");
	}
	return 0;
}

/* One rule: @name, @act (NULL: errno @e), args[index @arg] & @mask == @value. */
static void masked_rule(struct brig_jsonw *w, const char *name, const struct action *act, int e,
                        unsigned int arg, uint64_t mask, uint64_t value)
{
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_strings(w, "names", &name, 1);
	brig_jsonw_key(w, "action");
	if (act && act->action)
		copy(w, act->action);
	else
		brig_jsonw_string(w, act ? act->def : "SCMP_ACT_ERRNO");
	if (act && act->errno_ret) {
		brig_jsonw_key(w, "errnoRet");
		copy(w, act->errno_ret);
	} else if (!act) {
		brig_jsonw_kv_uint(w, "errnoRet", (uint64_t)e);
	}
	brig_jsonw_key(w, "args");
	brig_jsonw_array_begin(w);
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_uint(w, "index", arg);
	brig_jsonw_kv_uint(w, "value", mask);
	brig_jsonw_kv_uint(w, "valueTwo", value);
	brig_jsonw_kv_string(w, "op", "SCMP_CMP_MASKED_EQ");
	brig_jsonw_object_end(w);
	brig_jsonw_array_end(w);
	brig_jsonw_object_end(w);
}

static void errno_rule(struct brig_jsonw *w, const char *const *names, size_t n, int e)
{
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_strings(w, "names", names, n);
	brig_jsonw_kv_string(w, "action", "SCMP_ACT_ERRNO");
	brig_jsonw_kv_uint(w, "errnoRet", (uint64_t)e);
	brig_jsonw_object_end(w);
}

static void notify_rule(struct brig_jsonw *w, const char *const *names, size_t n)
{
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_strings(w, "names", names, n);
	brig_jsonw_kv_string(w, "action", "SCMP_ACT_NOTIFY");
	brig_jsonw_object_end(w);
}

#define S_ISUID_ 04000u
#define S_ISGID_ 02000u
#define S_IFMT_ 0170000u

static int setid_rules(struct brig_jsonw *w, const struct brig_json *root, const struct drop *d,
                       const char *profile, struct brig_error *err)
{
	/* file types mknod may make: regular (0 is one too), fifo, socket */
	static const unsigned int types[] = { 0, 0100000, 0010000, 0140000 };
	static const unsigned int devices[] = { 0020000, 0060000 }; /* chr, blk */
	const char *enosys = SETID_ENOSYS;
	const char *eperm[ARRAY_SIZE(setid_eperm)];
	size_t n_eperm = 0;

	/* what --seccomp's profile already denies is denied once */
	for (size_t i = 0; i < ARRAY_SIZE(setid_eperm); i++)
		if (!str_in_list(setid_eperm[i], d->deny, d->n_deny))
			eperm[n_eperm++] = setid_eperm[i];
	if (n_eperm)
		errno_rule(w, eperm, n_eperm, 1 /* EPERM */);
	errno_rule(w, &enosys, 1, 38 /* ENOSYS */);
	for (size_t i = 0; i < ARRAY_SIZE(setid_calls); i++) {
		const struct setid_call *c = &setid_calls[i];
		struct action a = { .def = "SCMP_ACT_ALLOW" };

		if (profile_action(root, c->name, &a, profile, err) < 0)
			return -1;
		if (c->device)
			for (size_t t = 0; t < ARRAY_SIZE(types); t++)
				masked_rule(w, c->name, &a, 0, c->mode_arg,
				            S_IFMT_ | S_ISUID_ | S_ISGID_, types[t]);
		else
			masked_rule(w, c->name, &a, 0, c->mode_arg, S_ISUID_ | S_ISGID_, 0);
		masked_rule(w, c->name, NULL, 1, c->mode_arg, S_ISUID_, S_ISUID_);
		masked_rule(w, c->name, NULL, 1, c->mode_arg, S_ISGID_, S_ISGID_);
		for (size_t t = 0; c->device && t < ARRAY_SIZE(devices); t++)
			masked_rule(w, c->name, NULL, 1, c->mode_arg, S_IFMT_, devices[t]);
	}
	return 0;
}

static int copy_syscalls(struct brig_jsonw *w, const struct brig_json *root,
                         const struct brig_json *rules, const struct drop *d, const char *profile,
                         struct brig_error *err)
{
	brig_jsonw_array_begin(w);
	for (size_t i = 0; rules && rules->type == BRIG_JSON_ARRAY && i < rules->n; i++) {
		const struct brig_json *rule = rules->items[i];

		if (rule->type != BRIG_JSON_OBJECT) {
			copy(w, rule);
			continue;
		}
		if (names_left(rule, d))
			copy_rule(w, rule, d);
	}
	if (d->n_deny && d->listener)
		notify_rule(w, d->deny, d->n_deny);
	else if (d->n_deny)
		errno_rule(w, d->deny, d->n_deny, 1 /* EPERM */);
	if (d->setid && setid_rules(w, root, d, profile, err) < 0)
		return -1;
	if (d->chown)
		errno_rule(w, chown_calls, ARRAY_SIZE(chown_calls), 1 /* EPERM */);
	brig_jsonw_array_end(w);
	return 0;
}

int brig_seccomp_profile_write(struct brig_jsonw *w, const char *name, const char *text, size_t len,
                               const char *const *deny, size_t n_deny, const char *listener,
                               unsigned int flags, struct brig_error *err)
{
	struct brig_arena arena = BRIG_ARENA_INIT;
	const struct brig_json *root = brig_json_parse(&arena, name, text, len, err);
	const struct brig_json *rules;
	struct drop d = { deny, n_deny, flags & BRIG_PROFILE_NO_SETID,
		          flags & BRIG_PROFILE_NO_CHOWN, listener };
	bool only = flags & BRIG_PROFILE_RULES_ONLY;
	int r = -1;

	if (!root)
		goto out;
	if (root->type != BRIG_JSON_OBJECT) {
		brig_error_set(err, "%s: expected an object, got %s", name,
		               brig_json_type_name(root->type));
		goto out;
	}
	rules = only ? NULL : brig_json_get(root, "syscalls");
	brig_jsonw_object_begin(w);
	if (only)
		brig_jsonw_kv_string(w, "defaultAction", "SCMP_ACT_ALLOW");
	for (size_t i = 0; i < root->n; i++) {
		if (!strcmp(root->keys[i], "syscalls") ||
		    (only && strcmp(root->keys[i], "architectures")) ||
		    (listener && !strncmp(root->keys[i], "listener", 8)))
			continue;
		brig_jsonw_key(w, root->keys[i]);
		copy(w, root->items[i]);
	}
	if (listener)
		brig_jsonw_kv_string(w, "listenerPath", listener);
	brig_jsonw_key(w, "syscalls");
	/* only the rules: what no rule names is allowed */
	if (copy_syscalls(w, only ? NULL : root, rules, &d, name, err) < 0)
		goto out;
	brig_jsonw_object_end(w);
	r = 0;
out:
	brig_arena_release(&arena);
	return r;
}
