/* SPDX-License-Identifier: Apache-2.0 */
/* The typed accessors of spec/parse.h. */
#include "config.h"
#include "spec/parse.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/strbuf.h"

int jp_fail(struct jp *c, const char *key, const char *fmt, ...)
{
	size_t mark = brig_path_len(&c->path);
	char *what = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&what, fmt, ap) < 0)
		brig_oom();
	va_end(ap);
	if (key)
		brig_path_key(&c->path, key);
	if (brig_path_len(&c->path))
		brig_error_set(c->err, "%s: %s: %s", c->file, brig_path_str(&c->path), what);
	else
		brig_error_set(c->err, "%s: %s", c->file, what);
	brig_path_truncate(&c->path, mark);
	free(what);
	return -1;
}

size_t jp_enter_key(struct jp *c, const char *key)
{
	size_t mark = brig_path_len(&c->path);

	brig_path_key(&c->path, key);
	return mark;
}

size_t jp_enter_index(struct jp *c, size_t index)
{
	size_t mark = brig_path_len(&c->path);

	brig_path_index(&c->path, index);
	return mark;
}

void jp_leave(struct jp *c, size_t mark)
{
	brig_path_truncate(&c->path, mark);
}

static const char *expected_name(enum brig_json_type t)
{
	switch (t) {
	case BRIG_JSON_BOOL:
		return "a boolean";
	case BRIG_JSON_NUMBER:
		return "an integer";
	case BRIG_JSON_STRING:
		return "a string";
	case BRIG_JSON_ARRAY:
		return "an array";
	case BRIG_JSON_OBJECT:
		return "an object";
	default:
		return "null";
	}
}

static int check_type(struct jp *c, const char *key, const struct brig_json *v,
                      enum brig_json_type type)
{
	if (v->type != type)
		return jp_fail(c, key, "expected %s, got %s", expected_name(type),
		               brig_json_type_name(v->type));
	if (type == BRIG_JSON_STRING && memchr(v->str, '\0', v->len))
		return jp_fail(c, key, "string contains a NUL byte");
	return 0;
}

int jp_expect(struct jp *c, const struct brig_json *v, enum brig_json_type type)
{
	return check_type(c, NULL, v, type);
}

/* The member, or NULL when absent or null. */
static const struct brig_json *member(const struct brig_json *obj, const char *key)
{
	const struct brig_json *v = brig_json_get(obj, key);

	return v && v->type != BRIG_JSON_NULL ? v : NULL;
}

int jp_object(struct jp *c, const struct brig_json *obj, const char *key,
              const struct brig_json **out)
{
	const struct brig_json *v = member(obj, key);

	if (!v)
		return 0;
	if (check_type(c, key, v, BRIG_JSON_OBJECT) < 0)
		return -1;
	*out = v;
	return 1;
}

int jp_array(struct jp *c, const struct brig_json *obj, const char *key,
             const struct brig_json **out)
{
	const struct brig_json *v = member(obj, key);

	if (!v)
		return 0;
	if (check_type(c, key, v, BRIG_JSON_ARRAY) < 0)
		return -1;
	*out = v;
	return 1;
}

int jp_string(struct jp *c, const struct brig_json *obj, const char *key, const char **out)
{
	const struct brig_json *v = member(obj, key);

	if (!v)
		return 0;
	if (check_type(c, key, v, BRIG_JSON_STRING) < 0)
		return -1;
	*out = brig_arena_strndup(c->arena, v->str, v->len);
	return 1;
}

int jp_string_req(struct jp *c, const struct brig_json *obj, const char *key, const char **out)
{
	int r = jp_string(c, obj, key, out);

	if (r == 0)
		return jp_fail(c, key, "is required");
	return r;
}

int jp_bool(struct jp *c, const struct brig_json *obj, const char *key, bool *out)
{
	const struct brig_json *v = member(obj, key);

	if (!v)
		return 0;
	if (check_type(c, key, v, BRIG_JSON_BOOL) < 0)
		return -1;
	*out = v->boolean;
	return 1;
}

int jp_bool_req(struct jp *c, const struct brig_json *obj, const char *key, bool *out)
{
	int r = jp_bool(c, obj, key, out);

	if (r == 0)
		return jp_fail(c, key, "is required");
	return r;
}

/* Is the number text a plain integer: -?[0-9]+ (JSON already checked the
 * rest of the grammar)? */
static bool is_integer_text(const struct brig_json *v)
{
	for (size_t i = 0; i < v->len; i++)
		if (v->str[i] == '.' || v->str[i] == 'e' || v->str[i] == 'E')
			return false;
	return true;
}

/* "expected an integer, got 1.5" (the number, bounded) or "..., got a string" */
static int not_an_integer(struct jp *c, const char *key, const struct brig_json *v)
{
	if (v->type == BRIG_JSON_NUMBER)
		return jp_fail(c, key, "expected an integer, got %.32s%s", v->str,
		               v->len > 32 ? "..." : "");
	return jp_fail(c, key, "expected an integer, got %s", brig_json_type_name(v->type));
}

static int value_int(struct jp *c, const char *key, const struct brig_json *v, int64_t min,
                     int64_t max, int64_t *out)
{
	long long n;
	char *end;

	if (v->type != BRIG_JSON_NUMBER || !is_integer_text(v))
		return not_an_integer(c, key, v);
	errno = 0;
	n = strtoll(v->str, &end, 10);
	if (errno == ERANGE || n < min || n > max)
		return jp_fail(c, key, "%.32s%s is out of range [%" PRId64 ", %" PRId64 "]", v->str,
		               v->len > 32 ? "..." : "", min, max);
	*out = n;
	return 1;
}

static int value_uint(struct jp *c, const char *key, const struct brig_json *v, uint64_t max,
                      uint64_t *out)
{
	unsigned long long n;
	char *end;

	if (v->type != BRIG_JSON_NUMBER || !is_integer_text(v))
		return not_an_integer(c, key, v);
	errno = 0;
	n = v->str[0] == '-' ? 0 : strtoull(v->str, &end, 10);
	/* "-0" is zero, whatever its sign */
	if ((v->str[0] == '-' && strspn(v->str + 1, "0") != v->len - 1) || errno == ERANGE ||
	    n > max)
		return jp_fail(c, key, "%.32s%s is out of range [0, %" PRIu64 "]", v->str,
		               v->len > 32 ? "..." : "", max);
	*out = n;
	return 1;
}

int jp_value_int(struct jp *c, const struct brig_json *v, int64_t min, int64_t max, int64_t *out)
{
	return value_int(c, NULL, v, min, max, out) < 0 ? -1 : 0;
}

int jp_value_uint(struct jp *c, const struct brig_json *v, uint64_t max, uint64_t *out)
{
	return value_uint(c, NULL, v, max, out) < 0 ? -1 : 0;
}

int jp_int(struct jp *c, const struct brig_json *obj, const char *key, int64_t min, int64_t max,
           int64_t *out)
{
	const struct brig_json *v = member(obj, key);

	return v ? value_int(c, key, v, min, max, out) : 0;
}

int jp_uint(struct jp *c, const struct brig_json *obj, const char *key, uint64_t max, uint64_t *out)
{
	const struct brig_json *v = member(obj, key);

	return v ? value_uint(c, key, v, max, out) : 0;
}

int jp_int_req(struct jp *c, const struct brig_json *obj, const char *key, int64_t min, int64_t max,
               int64_t *out)
{
	int r = jp_int(c, obj, key, min, max, out);

	if (r == 0)
		return jp_fail(c, key, "is required");
	return r;
}

int jp_uint_req(struct jp *c, const struct brig_json *obj, const char *key, uint64_t max,
                uint64_t *out)
{
	int r = jp_uint(c, obj, key, max, out);

	if (r == 0)
		return jp_fail(c, key, "is required");
	return r;
}

int jp_opt_i64(struct jp *c, const struct brig_json *obj, const char *key, int64_t min, int64_t max,
               struct brig_opt_i64 *out)
{
	int r = jp_int(c, obj, key, min, max, &out->value);

	out->set = r > 0;
	return r;
}

int jp_opt_u64(struct jp *c, const struct brig_json *obj, const char *key, uint64_t max,
               struct brig_opt_u64 *out)
{
	int r = jp_uint(c, obj, key, max, &out->value);

	out->set = r > 0;
	return r;
}

int jp_opt_u32(struct jp *c, const struct brig_json *obj, const char *key, uint64_t max,
               struct brig_opt_u32 *out)
{
	uint64_t v = 0;
	int r = jp_uint(c, obj, key, max > UINT32_MAX ? UINT32_MAX : max, &v);

	out->set = r > 0;
	out->value = (uint32_t)v;
	return r;
}

int jp_opt_i32(struct jp *c, const struct brig_json *obj, const char *key, int64_t min, int64_t max,
               struct brig_opt_i32 *out)
{
	int64_t v = 0;
	int r = jp_int(c, obj, key, min < INT32_MIN ? INT32_MIN : min,
	               max > INT32_MAX ? INT32_MAX : max, &v);

	out->set = r > 0;
	out->value = (int32_t)v;
	return r;
}

int jp_opt_u16(struct jp *c, const struct brig_json *obj, const char *key, uint64_t max,
               struct brig_opt_u16 *out)
{
	uint64_t v = 0;
	int r = jp_uint(c, obj, key, max > UINT16_MAX ? UINT16_MAX : max, &v);

	out->set = r > 0;
	out->value = (uint16_t)v;
	return r;
}

int jp_opt_bool(struct jp *c, const struct brig_json *obj, const char *key,
                struct brig_opt_bool *out)
{
	int r = jp_bool(c, obj, key, &out->value);

	out->set = r > 0;
	return r;
}

int jp_strings(struct jp *c, const struct brig_json *obj, const char *key, const char ***out,
               size_t *n)
{
	const struct brig_json *arr = NULL;
	const char **list;
	size_t mark;
	int r = jp_array(c, obj, key, &arr);

	if (r <= 0)
		return r;
	list = brig_arena_array(c->arena, arr->n + 1, sizeof(*list));
	mark = jp_enter_key(c, key);
	for (size_t i = 0; i < arr->n; i++) {
		const struct brig_json *v = arr->items[i];
		size_t m = jp_enter_index(c, i);

		if (check_type(c, NULL, v, BRIG_JSON_STRING) < 0)
			return -1;
		list[i] = brig_arena_strndup(c->arena, v->str, v->len);
		jp_leave(c, m);
	}
	jp_leave(c, mark);
	*out = list;
	*n = arr->n;
	return 1;
}

int jp_string_map(struct jp *c, const struct brig_json *obj, const char *key, struct brig_kv **out,
                  size_t *n)
{
	const struct brig_json *map = NULL;
	struct brig_kv *kv;
	size_t mark;
	int r = jp_object(c, obj, key, &map);

	if (r <= 0)
		return r;
	kv = brig_arena_array(c->arena, map->n, sizeof(*kv));
	mark = jp_enter_key(c, key);
	for (size_t i = 0; i < map->n; i++) {
		const struct brig_json *v = map->items[i];

		if (check_type(c, map->keys[i], v, BRIG_JSON_STRING) < 0)
			return -1;
		kv[i].key = brig_arena_strdup(c->arena, map->keys[i]);
		kv[i].value = brig_arena_strndup(c->arena, v->str, v->len);
	}
	jp_leave(c, mark);
	*out = kv;
	*n = map->n;
	return 1;
}

/* A hostile value for a message: at most 64 bytes, unprintable ones as '?'. */
static char *shown(const char *value)
{
	struct brig_strbuf sb = BRIG_STRBUF_INIT;
	size_t k;

	for (k = 0; k < 64 && value[k]; k++)
		brig_strbuf_addch(&sb, (value[k] >= 0x20 && value[k] < 0x7f) ? value[k] : '?');
	if (value[k])
		brig_strbuf_addstr(&sb, "...");
	return sb.buf ? brig_strbuf_detach(&sb) : brig_xstrdup("");
}

int jp_fail_value(struct jp *c, const char *key, const char *what, const char *value)
{
	char *s = shown(value);

	jp_fail(c, key, "%s \"%s\"", what, s);
	free(s);
	return -1;
}

int jp_fail_unknown(struct jp *c, const char *key, const char *what, const char *value)
{
	char *s = shown(value);

	jp_fail(c, key, "unknown %s \"%s\"", what, s);
	free(s);
	return -1;
}

int jp_lookup(const char *const *names, const char *s)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

int jp_enum(struct jp *c, const struct brig_json *obj, const char *key, const char *const *names,
            const char *what, int *out)
{
	const char *s = NULL;
	int r = jp_string(c, obj, key, &s);
	int i;

	if (r <= 0)
		return r;
	i = jp_lookup(names, s);
	if (i < 0)
		return jp_fail_unknown(c, key, what, s);
	*out = i;
	return 1;
}

int jp_enum_req(struct jp *c, const struct brig_json *obj, const char *key,
                const char *const *names, const char *what, int *out)
{
	int r = jp_enum(c, obj, key, names, what, out);

	if (r == 0)
		return jp_fail(c, key, "is required");
	return r;
}

int jp_id_mappings(struct jp *c, const struct brig_json *obj, const char *key,
                   struct brig_id_mapping **out, size_t *n)
{
	const struct brig_json *arr = NULL;
	struct brig_id_mapping *maps;
	size_t mark;
	int r = jp_array(c, obj, key, &arr);

	if (r <= 0)
		return r;
	maps = brig_arena_array(c->arena, arr->n, sizeof(*maps));
	mark = jp_enter_key(c, key);
	for (size_t i = 0; i < arr->n; i++) {
		const struct brig_json *m = arr->items[i];
		size_t im = jp_enter_index(c, i);
		uint64_t v;

		if (jp_expect(c, m, BRIG_JSON_OBJECT) < 0 ||
		    jp_uint_req(c, m, "containerID", UINT32_MAX, &v) < 0)
			return -1;
		maps[i].container_id = (uint32_t)v;
		if (jp_uint_req(c, m, "hostID", UINT32_MAX, &v) < 0)
			return -1;
		maps[i].host_id = (uint32_t)v;
		if (jp_uint_req(c, m, "size", UINT32_MAX, &v) < 0)
			return -1;
		if (v == 0)
			return jp_fail(c, "size", "must be greater than 0");
		maps[i].size = (uint32_t)v;
		if ((uint64_t)maps[i].container_id + v - 1 > UINT32_MAX ||
		    (uint64_t)maps[i].host_id + v - 1 > UINT32_MAX)
			return jp_fail(c, "size", "range overflows 32-bit ids");
		jp_leave(c, im);
	}
	jp_leave(c, mark);
	*out = maps;
	*n = arr->n;
	return 1;
}

int jp_check_absolute(struct jp *c, const char *key, const char *path)
{
	if (path[0] != '/')
		return jp_fail(c, key, "must be an absolute path");
	return 0;
}

/* "0-3,7": numbers or ranges, comma-separated; @what names the list. */
static int check_list(struct jp *c, const char *key, const char *s, const char *what)
{
	bool digit = false;

	for (const char *p = s; *p; p++) {
		if (*p >= '0' && *p <= '9')
			digit = true;
		else if ((*p == '-' || *p == ',') && digit)
			digit = false;
		else
			return jp_fail_value(c, key, what, s);
	}
	if (!digit)
		return jp_fail_value(c, key, what, s);
	return 0;
}

int jp_check_cpu_list(struct jp *c, const char *key, const char *s)
{
	return check_list(c, key, s, "invalid CPU list");
}

int jp_check_node_list(struct jp *c, const char *key, const char *s)
{
	return check_list(c, key, s, "invalid node list");
}

#define IFNAME_MAX 15 /* IFNAMSIZ - 1 */

int jp_check_ifname(struct jp *c, const char *key, const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len > IFNAME_MAX || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		goto bad;
	for (const char *p = name; *p; p++)
		if (*p == '/' || *p == ':' || (unsigned char)*p <= ' ' || *p == 0x7f)
			goto bad;
	return 0;
bad:
	return jp_fail_value(c, key, "invalid network interface name", name);
}

int jp_check_names(struct jp *c, const char *key, const char **list, size_t n,
                   const char *const *names, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		if (jp_lookup(names, list[i]) < 0) {
			size_t mark = jp_enter_key(c, key);

			jp_enter_index(c, i);
			jp_fail_unknown(c, NULL, what, list[i]);
			jp_leave(c, mark);
			return -1;
		}
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int jp_check_unique_keys(struct jp *c, const char *key, const struct brig_json *map)
{
	const char **keys;
	const char *dup = NULL;

	if (map->n < 2)
		return 0;
	/* sorted, so that a hostile object with many keys stays cheap */
	keys = brig_xcalloc(map->n, sizeof(*keys));
	memcpy(keys, map->keys, map->n * sizeof(*keys));
	qsort(keys, map->n, sizeof(*keys), cmp_str);
	for (size_t i = 1; i < map->n && !dup; i++)
		if (strcmp(keys[i - 1], keys[i]) == 0)
			dup = keys[i];
	if (dup) {
		size_t mark = jp_enter_key(c, key);

		jp_fail(c, dup, "duplicate key");
		jp_leave(c, mark);
	}
	free(keys);
	return dup ? -1 : 0;
}
