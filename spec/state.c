/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "spec/state.h"

#include <stdlib.h>
#include <string.h>

#include "spec/parse.h"
#include "util/error.h"
#include "util/jsonw.h"

static const char *const status_names[] = {
	[BRIG_STATUS_CREATING] = "creating", [BRIG_STATUS_CREATED] = "created",
	[BRIG_STATUS_RUNNING] = "running",   [BRIG_STATUS_PAUSED] = "paused",
	[BRIG_STATUS_STOPPED] = "stopped",   NULL,
};

const char *brig_status_name(enum brig_status status)
{
	return status < BRIG_STATUS_N ? status_names[status] : "unknown";
}

struct brig_state *brig_state_new(void)
{
	return brig_xcalloc(1, sizeof(struct brig_state));
}

void brig_state_free(struct brig_state *state)
{
	if (!state)
		return;
	brig_arena_release(&state->arena);
	free(state);
}

static int parse_state(struct jp *c, const struct brig_json *top, struct brig_state *s)
{
	int64_t pid = 0;
	uint64_t n = 0;
	int status;

	if (jp_expect(c, top, BRIG_JSON_OBJECT) < 0 ||
	    jp_string_req(c, top, "ociVersion", &s->oci_version) < 0 ||
	    jp_string_req(c, top, "id", &s->id) < 0 ||
	    jp_enum_req(c, top, "status", status_names, "status", &status) < 0 ||
	    jp_int(c, top, "pid", 0, INT32_MAX, &pid) < 0 ||
	    jp_uint(c, top, "pidStart", UINT64_MAX, &s->pid_start) < 0 ||
	    jp_string_req(c, top, "bundle", &s->bundle) < 0 ||
	    jp_string(c, top, "rootfs", &s->rootfs) < 0 ||
	    jp_string_req(c, top, "created", &s->created) < 0 ||
	    jp_uint(c, top, "owner", UINT32_MAX, &n) < 0 ||
	    jp_bool(c, top, "ownPidns", &s->own_pidns) < 0 ||
	    jp_bool(c, top, "noNewKeyring", &s->no_new_keyring) < 0 ||
	    jp_uint(c, top, "mntns", UINT64_MAX, &s->mntns) < 0 ||
	    jp_uint(c, top, "rootfsBelow", UINT64_MAX, &s->rootfs_below) < 0 ||
	    jp_string_map(c, top, "annotations", &s->annotations, &s->n_annotations) < 0 ||
	    brig_parse_hooks(c, top, &s->hooks) < 0 ||
	    jp_string_map(c, top, "cgroupPaths", &s->cgroup_paths, &s->n_cgroup_paths) < 0 ||
	    jp_string_map(c, top, "cgroupCreated", &s->cgroup_created, &s->n_cgroup_created) < 0 ||
	    jp_string(c, top, "cgroupUnit", &s->cgroup_unit) < 0)
		return -1;
	s->status = (enum brig_status)status;
	s->pid = (pid_t)pid;
	s->owner = (uid_t)n;
	return 0;
}

struct brig_state *brig_state_parse(const char *name, const char *text, size_t len,
                                    struct brig_error *err)
{
	struct brig_arena scratch = BRIG_ARENA_INIT;
	struct brig_state *s = brig_state_new();
	struct jp c = { .arena = &s->arena, .file = name, .err = err };
	const struct brig_json *top = brig_json_parse(&scratch, name, text, len, err);
	int r = top ? parse_state(&c, top, s) : -1;

	brig_path_release(&c.path);
	brig_arena_release(&scratch);
	if (r < 0) {
		brig_state_free(s);
		return NULL;
	}
	return s;
}

static void write_annotations(struct brig_jsonw *w, const struct brig_state *s)
{
	brig_jsonw_key(w, "annotations");
	brig_jsonw_object_begin(w);
	for (size_t i = 0; i < s->n_annotations; i++)
		brig_jsonw_kv_string(w, s->annotations[i].key, s->annotations[i].value);
	brig_jsonw_object_end(w);
}

static void write_map(struct brig_jsonw *w, const char *key, const struct brig_kv *kv, size_t n)
{
	if (!n)
		return;
	brig_jsonw_key(w, key);
	brig_jsonw_object_begin(w);
	for (size_t i = 0; i < n; i++)
		brig_jsonw_kv_string(w, kv[i].key, kv[i].value);
	brig_jsonw_object_end(w);
}

static void write_hooks(struct brig_jsonw *w, const struct brig_hooks *h)
{
	bool any = false;

	for (int st = 0; st < BRIG_HOOK_N_STAGES; st++)
		any = any || h->n[st];
	if (!any)
		return;
	brig_jsonw_key(w, "hooks");
	brig_jsonw_object_begin(w);
	for (int st = 0; st < BRIG_HOOK_N_STAGES; st++) {
		if (!h->n[st])
			continue;
		brig_jsonw_key(w, brig_hook_stage_name(st));
		brig_jsonw_array_begin(w);
		for (size_t i = 0; i < h->n[st]; i++) {
			const struct brig_hook *k = &h->stage[st][i];

			brig_jsonw_object_begin(w);
			brig_jsonw_kv_string(w, "path", k->path);
			if (k->n_args)
				brig_jsonw_kv_strings(w, "args", k->args, k->n_args);
			if (k->env) /* an empty one too: it is not brig's */
				brig_jsonw_kv_strings(w, "env", k->env, k->n_env);
			if (k->timeout.set)
				brig_jsonw_kv_int(w, "timeout", k->timeout.value);
			brig_jsonw_object_end(w);
		}
		brig_jsonw_array_end(w);
	}
	brig_jsonw_object_end(w);
}

char *brig_state_to_json(const struct brig_state *s)
{
	struct brig_jsonw w;

	brig_jsonw_init(&w, NULL);
	brig_jsonw_object_begin(&w);
	brig_jsonw_kv_string(&w, "ociVersion", s->oci_version);
	brig_jsonw_kv_string(&w, "id", s->id);
	brig_jsonw_kv_string(&w, "status", brig_status_name(s->status));
	brig_jsonw_kv_int(&w, "pid", s->pid);
	brig_jsonw_kv_uint(&w, "pidStart", s->pid_start);
	brig_jsonw_kv_string(&w, "bundle", s->bundle);
	brig_jsonw_kv_string(&w, "rootfs", s->rootfs);
	brig_jsonw_kv_string(&w, "created", s->created);
	brig_jsonw_kv_uint(&w, "owner", s->owner);
	brig_jsonw_kv_bool(&w, "ownPidns", s->own_pidns);
	if (s->no_new_keyring)
		brig_jsonw_kv_bool(&w, "noNewKeyring", true);
	if (s->mntns) {
		brig_jsonw_kv_uint(&w, "mntns", s->mntns);
		brig_jsonw_kv_uint(&w, "rootfsBelow", s->rootfs_below);
	}
	write_annotations(&w, s);
	write_hooks(&w, &s->hooks);
	write_map(&w, "cgroupPaths", s->cgroup_paths, s->n_cgroup_paths);
	write_map(&w, "cgroupCreated", s->cgroup_created, s->n_cgroup_created);
	if (s->cgroup_unit)
		brig_jsonw_kv_string(&w, "cgroupUnit", s->cgroup_unit);
	brig_jsonw_object_end(&w);
	return brig_jsonw_finish(&w);
}

void brig_state_write_oci(struct brig_jsonw *w, const struct brig_state *s, enum brig_status status)
{
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_string(w, "ociVersion", s->oci_version);
	brig_jsonw_kv_string(w, "id", s->id);
	brig_jsonw_kv_int(w, "pid", status == BRIG_STATUS_STOPPED ? 0 : s->pid);
	brig_jsonw_kv_string(w, "status", brig_status_name(status));
	brig_jsonw_kv_string(w, "bundle", s->bundle);
	brig_jsonw_kv_string(w, "rootfs", s->rootfs ? s->rootfs : "");
	brig_jsonw_kv_string(w, "created", s->created);
	brig_jsonw_kv_string(w, "owner", "");
	if (s->n_annotations)
		write_annotations(w, s);
	brig_jsonw_object_end(w);
}

char *brig_state_to_oci_json(const struct brig_state *s, enum brig_status status)
{
	struct brig_jsonw w;

	brig_jsonw_init(&w, "  ");
	brig_state_write_oci(&w, s, status);
	return brig_jsonw_finish(&w);
}

void brig_state_write_hook(struct brig_jsonw *w, const struct brig_state *s,
                           enum brig_status status)
{
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_string(w, "ociVersion", BRIG_SPEC_VERSION);
	brig_jsonw_kv_string(w, "id", s->id);
	brig_jsonw_kv_string(w, "status", brig_status_name(status));
	if (status != BRIG_STATUS_STOPPED && s->pid > 0)
		brig_jsonw_kv_int(w, "pid", s->pid);
	brig_jsonw_kv_string(w, "bundle", s->bundle);
	if (s->n_annotations)
		write_annotations(w, s);
	brig_jsonw_object_end(w);
}

char *brig_state_to_hook_json(const struct brig_state *s, enum brig_status status)
{
	struct brig_jsonw w;

	brig_jsonw_init(&w, NULL);
	brig_state_write_hook(&w, s, status);
	return brig_jsonw_finish(&w);
}

char **brig_descriptors_parse(struct brig_arena *arena, const char *name, const char *text,
                              size_t len, size_t *n, struct brig_error *err)
{
	struct brig_arena scratch = BRIG_ARENA_INIT;
	const struct brig_json *top = brig_json_parse(&scratch, name, text, len, err);
	char **out = NULL;

	if (!top)
		goto done;
	if (top->type != BRIG_JSON_ARRAY) {
		brig_error_set(err, "%s: expected an array of strings", name);
		goto done;
	}
	out = brig_arena_array(arena, top->n + 1, sizeof(*out));
	for (size_t i = 0; i < top->n; i++) {
		const struct brig_json *v = top->items[i];

		if (v->type != BRIG_JSON_STRING || memchr(v->str, '\0', v->len)) {
			brig_error_set(err, "%s: [%zu]: expected a string", name, i);
			out = NULL;
			goto done;
		}
		out[i] = brig_arena_strndup(arena, v->str, v->len);
	}
	*n = top->n;
done:
	brig_arena_release(&scratch);
	return out;
}
