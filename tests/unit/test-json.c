/* SPDX-License-Identifier: Apache-2.0 */
/* The JSON tree (spec/json.c), the writer (util/jsonw.c) and paths. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "spec/json.h"
#include "spec/path.h"
#include "tap.h"
#include "util/error.h"
#include "util/jsonw.h"

static const char *parse_error(const char *text)
{
	static char msg[512];
	struct brig_arena a = BRIG_ARENA_INIT;
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_json *v = brig_json_parse(&a, "t.json", text, strlen(text), &err);

	snprintf(msg, sizeof(msg), "%s", v ? "(parsed)" : err.msg);
	brig_error_release(&err);
	brig_arena_release(&a);
	return msg;
}

static void test_tree(void)
{
	struct brig_arena a = BRIG_ARENA_INIT;
	struct brig_error err = BRIG_ERROR_INIT;
	const char *text = "{\"a\": [1, -2, 3.5, true, null, \"x\\u0000y\"], \"b\": {\"c\": 1},"
	                   " \"b\": {\"c\": 2}}";
	struct brig_json *v = brig_json_parse(&a, "t.json", text, strlen(text), &err);
	const struct brig_json *arr, *b;

	ok(v && v->type == BRIG_JSON_OBJECT, "an object parses");
	arr = brig_json_get(v, "a");
	ok(arr && arr->type == BRIG_JSON_ARRAY && arr->n == 6, "array with 6 items");
	is_str(arr->items[1]->str, "-2", "numbers keep their source text");
	is_str(arr->items[2]->str, "3.5", "fractions too");
	ok(arr->items[3]->type == BRIG_JSON_BOOL && arr->items[3]->boolean, "true");
	ok(arr->items[4]->type == BRIG_JSON_NULL, "null");
	ok(arr->items[5]->len == 3 && arr->items[5]->str[1] == '\0',
	   "a string keeps an embedded NUL and its length");
	b = brig_json_get(v, "b");
	is_str(brig_json_get(b, "c")->str, "2", "a duplicate key: the last one wins");
	ok(brig_json_get(v, "nope") == NULL, "a missing key is NULL");
	brig_arena_release(&a);
}

static void test_errors(void)
{
	char *deep;
	size_t n = 100;

	is_str(parse_error(""), "t.json: invalid JSON at byte 0: parse error: premature EOF",
	       "empty input");
	is_str(parse_error("{\"a\": {\"b\": [1, 2, }]}}"),
	       "t.json: a.b[2]: invalid JSON at byte 20: parse error: unallowed token at this "
	       "point in JSON text",
	       "a syntax error names the path where it happened");
	is_str(parse_error("{\"a\": 1} x"),
	       "t.json: invalid JSON at byte 10: parse error: trailing garbage",
	       "trailing garbage");
	is_str(parse_error("{\"a\": \"\xff\"}"),
	       "t.json: a: invalid JSON at byte 8: lexical error: invalid bytes in UTF8 string",
	       "invalid UTF-8 in a string");
	is_str(parse_error("/* c */ {}"),
	       "t.json: invalid JSON at byte 0: lexical error: probable comment found in input "
	       "text, comments are not enabled",
	       "comments are refused");
	deep = malloc(2 * n + 16);
	strcpy(deep, "{\"k\": ");
	for (size_t i = 0; i < n; i++)
		strcat(deep, "[");
	for (size_t i = 0; i < n; i++)
		strcat(deep, "]");
	strcat(deep, "}");
	ok(strstr(parse_error(deep), "nested deeper than 64 levels") != NULL,
	   "deep nesting is refused: %s", parse_error(deep));
	free(deep);
}

static void test_writer(void)
{
	struct brig_jsonw w;
	char *s;
	const char *list[] = { "a", "b" };

	brig_jsonw_init(&w, NULL);
	brig_jsonw_object_begin(&w);
	brig_jsonw_kv_string(&w, "s", "q\"\\\n\x01\xff");
	brig_jsonw_kv_int(&w, "i", -5);
	brig_jsonw_kv_uint(&w, "u", 18446744073709551615ull);
	brig_jsonw_kv_bool(&w, "b", true);
	brig_jsonw_key(&w, "n");
	brig_jsonw_null(&w);
	brig_jsonw_kv_strings(&w, "l", list, 2);
	brig_jsonw_key(&w, "e");
	brig_jsonw_array_begin(&w);
	brig_jsonw_array_end(&w);
	brig_jsonw_object_end(&w);
	s = brig_jsonw_finish(&w);
	is_str(s,
	       "{\"s\":\"q\\\"\\\\\\n\\u0001\xef\xbf\xbd\",\"i\":-5,\"u\":18446744073709551615,"
	       "\"b\":true,\"n\":null,\"l\":[\"a\",\"b\"],\"e\":[]}",
	       "compact output escapes and replaces invalid UTF-8");
	free(s);

	brig_jsonw_init(&w, "\t");
	brig_jsonw_object_begin(&w);
	brig_jsonw_kv_strings(&w, "l", list, 2);
	brig_jsonw_key(&w, "o");
	brig_jsonw_object_begin(&w);
	brig_jsonw_object_end(&w);
	brig_jsonw_object_end(&w);
	s = brig_jsonw_finish(&w);
	is_str(s, "{\n\t\"l\": [\n\t\t\"a\",\n\t\t\"b\"\n\t],\n\t\"o\": {}\n}\n",
	       "indented output");
	free(s);
}

/* What the change set (job/changes.c) builds on: a value another
 * writer made goes in as it is, and a name that is not valid UTF-8 is
 * told from one that is. */
static void test_raw_utf8(void)
{
	struct brig_jsonw w;
	char *s;

	brig_jsonw_init(&w, NULL);
	brig_jsonw_object_begin(&w);
	brig_jsonw_kv_int(&w, "a", 1);
	brig_jsonw_key(&w, "changes");
	brig_jsonw_raw(&w, "[{\"p\":1}]", 9);
	brig_jsonw_kv_int(&w, "b", 2);
	brig_jsonw_object_end(&w);
	s = brig_jsonw_finish(&w);
	is_str(s, "{\"a\":1,\"changes\":[{\"p\":1}],\"b\":2}", "a raw value between others");
	free(s);

	ok(brig_utf8_valid("", 0), "the empty string is UTF-8");
	ok(brig_utf8_valid("a/\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 11), "1 to 4 byte sequences");
	ok(!brig_utf8_valid("a\xff", 2), "0xff is not");
	ok(!brig_utf8_valid("\xc3", 1), "a cut sequence is not");
	ok(!brig_utf8_valid("\xc0\xaf", 2), "an overlong '/' is not");
	ok(!brig_utf8_valid("\xed\xa0\x80", 3), "a surrogate is not");
	ok(!brig_utf8_valid("\xf4\x90\x80\x80", 4), "past U+10FFFF is not");
}

static void test_paths(void)
{
	struct brig_path p = BRIG_PATH_INIT;

	is_str(brig_path_str(&p), "", "an empty path");
	brig_path_key(&p, "linux");
	brig_path_key(&p, "sysctl");
	brig_path_key(&p, "net.ipv4.ip_forward");
	is_str(brig_path_str(&p), "linux.sysctl[\"net.ipv4.ip_forward\"]",
	       "keys that are not identifiers are quoted");
	brig_path_truncate(&p, 5);
	brig_path_key(&p, "namespaces");
	brig_path_index(&p, 3);
	brig_path_key(&p, "bad\"\n");
	is_str(brig_path_str(&p), "linux.namespaces[3][\"bad\\\"\\x0a\"]",
	       "hostile keys are escaped");
	brig_path_release(&p);
}

int main(void)
{
	test_tree();
	test_errors();
	test_writer();
	test_raw_utf8();
	test_paths();
	return tap_done();
}
