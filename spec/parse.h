/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to spec/: typed accessors over a brig_json tree that keep the
 * current JSON path, so every error names the value it is about:
 *
 *     config.json: linux.resources.memory.limit: expected an integer
 *
 * Conventions of every jp_* accessor that takes (@obj, @key):
 *   - @obj is an object (the caller checked), @key a member name;
 *   - a member that is absent or JSON null leaves *out untouched and
 *     returns 0 (the _req variants fail with "is required" instead);
 *   - a member of the right type and range is stored and returns 1;
 *   - anything else fails: the error is set and -1 returned.
 * Strings are copied into the output arena; a string holding a NUL byte is
 * refused, since every consumer treats it as a C string.
 */
#ifndef BRIG_SPEC_PARSE_H
#define BRIG_SPEC_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spec/spec.h"
#include "spec/json.h"
#include "spec/path.h"

struct jp {
	struct brig_arena *arena; /* where parsed values are allocated */
	const char *file;         /* "config.json" */
	struct brig_path path;    /* path of the object being read */
	struct brig_error *err;
};

/* Fail with "<file>: <path>[.<key>]: <fmt...>".  @key may be NULL. */
int jp_fail(struct jp *c, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Descend into member @key / element @index; jp_leave() restores. */
size_t jp_enter_key(struct jp *c, const char *key);
size_t jp_enter_index(struct jp *c, size_t index);
void jp_leave(struct jp *c, size_t mark);

/* Member @key as an object / array.  Returns 1 and sets *out, 0, or -1. */
int jp_object(struct jp *c, const struct brig_json *obj, const char *key,
              const struct brig_json **out);
int jp_array(struct jp *c, const struct brig_json *obj, const char *key,
             const struct brig_json **out);

int jp_string(struct jp *c, const struct brig_json *obj, const char *key, const char **out);
int jp_string_req(struct jp *c, const struct brig_json *obj, const char *key, const char **out);
int jp_bool(struct jp *c, const struct brig_json *obj, const char *key, bool *out);
/* Integers within [min, max]; "1e3", "1.0" and friends are not integers. */
int jp_int(struct jp *c, const struct brig_json *obj, const char *key, int64_t min, int64_t max,
           int64_t *out);
int jp_uint(struct jp *c, const struct brig_json *obj, const char *key, uint64_t max,
            uint64_t *out);
int jp_int_req(struct jp *c, const struct brig_json *obj, const char *key, int64_t min, int64_t max,
               int64_t *out);
int jp_uint_req(struct jp *c, const struct brig_json *obj, const char *key, uint64_t max,
                uint64_t *out);

/* Optional scalars straight into the model's brig_opt_* types. */
int jp_opt_i64(struct jp *c, const struct brig_json *obj, const char *key, int64_t min, int64_t max,
               struct brig_opt_i64 *out);
int jp_opt_u64(struct jp *c, const struct brig_json *obj, const char *key, uint64_t max,
               struct brig_opt_u64 *out);
int jp_opt_u32(struct jp *c, const struct brig_json *obj, const char *key, uint64_t max,
               struct brig_opt_u32 *out);
int jp_opt_i32(struct jp *c, const struct brig_json *obj, const char *key, int64_t min, int64_t max,
               struct brig_opt_i32 *out);
int jp_opt_u16(struct jp *c, const struct brig_json *obj, const char *key, uint64_t max,
               struct brig_opt_u16 *out);
int jp_opt_bool(struct jp *c, const struct brig_json *obj, const char *key,
                struct brig_opt_bool *out);

/* An array of strings. */
int jp_strings(struct jp *c, const struct brig_json *obj, const char *key, const char ***out,
               size_t *n);
/* An object whose values are all strings, kept in file order. */
int jp_string_map(struct jp *c, const struct brig_json *obj, const char *key, struct brig_kv **out,
                  size_t *n);

/*
 * Index of @s in the NULL-terminated @names, or -1.  jp_enum() reads member
 * @key and fails with 'unknown <what> "<value>"' when it is not listed.
 */
int jp_lookup(const char *const *names, const char *s);
int jp_enum(struct jp *c, const struct brig_json *obj, const char *key, const char *const *names,
            const char *what, int *out);

int jp_enum_req(struct jp *c, const struct brig_json *obj, const char *key,
                const char *const *names, const char *what, int *out);

/* Check a value reached some other way (an array element); 0 or -1. */
int jp_value_int(struct jp *c, const struct brig_json *v, int64_t min, int64_t max, int64_t *out);
int jp_value_uint(struct jp *c, const struct brig_json *v, uint64_t max, uint64_t *out);
int jp_expect(struct jp *c, const struct brig_json *v, enum brig_json_type type);

int jp_bool_req(struct jp *c, const struct brig_json *obj, const char *key, bool *out);

/*
 * Fail with 'unknown <what> "<value>"', showing at most 64 bytes of the
 * (hostile) @value with anything unprintable replaced by '?'.
 */
int jp_fail_unknown(struct jp *c, const char *key, const char *what, const char *value);
/* The same with the message '<what> "<value>"' ("invalid page size \"2M\""). */
int jp_fail_value(struct jp *c, const char *key, const char *what, const char *value);

/*
 * Checks of a value already read from member @key; 0, or -1 with the error
 * naming @key:
 *   jp_check_absolute   an absolute path ("must be an absolute path");
 *   jp_check_cpu_list   a CPU list as cpuset files take it: "0-3,7";
 *   jp_check_node_list  the same syntax for NUMA nodes;
 *   jp_check_ifname     a network interface name the kernel accepts (1 to 15
 *                       bytes, not "." or "..", no '/', ':' or whitespace);
 *   jp_check_names      each entry of a string list is one of @names (the
 *                       error names the entry: "<key>[i]").
 */
int jp_check_absolute(struct jp *c, const char *key, const char *path);
int jp_check_cpu_list(struct jp *c, const char *key, const char *s);
int jp_check_node_list(struct jp *c, const char *key, const char *s);
int jp_check_ifname(struct jp *c, const char *key, const char *name);
int jp_check_names(struct jp *c, const char *key, const char **list, size_t n,
                   const char *const *names, const char *what);

/*
 * Fail with "<key>.<dup>: duplicate key" when object @map, member @key of the
 * current object, holds a key twice (JSON allows it; a map must not).
 */
int jp_check_unique_keys(struct jp *c, const char *key, const struct brig_json *map);

/* An array of id mappings (uidMappings/gidMappings) at member @key. */
int jp_id_mappings(struct jp *c, const struct brig_json *obj, const char *key,
                   struct brig_id_mapping **out, size_t *n);

/* Run @fn on member @key of @obj when present, with the path pointing at it. */
#define JP_SECTION(c, obj, key, fn, out)                              \
	({                                                            \
		const struct brig_json *_v = brig_json_get(obj, key); \
		int _r = 0;                                           \
		if (_v && _v->type != BRIG_JSON_NULL) {               \
			size_t _m = jp_enter_key(c, key);             \
			_r = fn(c, _v, out);                          \
			jp_leave(c, _m);                              \
		}                                                     \
		_r;                                                   \
	})

/*
 * Array member @key of @obj into a new arena array *@out of *@cnt elements:
 * @fn(c, item, &(*out)[i]) parses each one with the path at "<key>[i]".
 * Evaluates to 1, 0 when the member is absent or null, or -1.
 */
#define JP_LIST(c, obj, key, fn, out, cnt)                                             \
	({                                                                             \
		const struct brig_json *_a = NULL;                                     \
		int _lr = jp_array(c, obj, key, &_a);                                  \
		if (_lr > 0) {                                                         \
			size_t _lm = jp_enter_key(c, key);                             \
			*(out) = brig_arena_array((c)->arena, _a->n, sizeof(**(out))); \
			*(cnt) = _a->n;                                                \
			for (size_t _i = 0; _i < _a->n && _lr > 0; _i++) {             \
				size_t _im = jp_enter_index(c, _i);                    \
				if (fn(c, _a->items[_i], &(*(out))[_i]) < 0)           \
					_lr = -1;                                      \
				jp_leave(c, _im);                                      \
			}                                                              \
			jp_leave(c, _lm);                                              \
		}                                                                      \
		_lr;                                                                   \
	})

/*
 * Sections, one per file.  @v is the section's JSON value (its type is
 * checked by the callee) and c->path already names it.
 */
int brig_parse_process(struct jp *c, const struct brig_json *v, struct brig_process **out);
int brig_parse_linux(struct jp *c, const struct brig_json *v, struct brig_linux **out);
int brig_parse_resources(struct jp *c, const struct brig_json *v, struct brig_resources **out);
int brig_parse_seccomp(struct jp *c, const struct brig_json *v, struct brig_seccomp **out);
/* Member "hooks" of @top (config.json, and brig's state.json keeps a copy). */
int brig_parse_hooks(struct jp *c, const struct brig_json *top, struct brig_hooks *hooks);

#endif
