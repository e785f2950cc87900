/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.json: the top level, root, mounts, process, hooks and annotations,
 * plus the two other documents brig reads (process.json, LinuxResources).
 * linux.* lives in parse_linux.c, parse_resources.c and parse_seccomp.c.
 */
#include "config.h"
#include "spec/parse.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "spec/names.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"

#define HOST_NAME_LIMIT 64

static const char *const sched_policy_names[] = {
	"SCHED_OTHER", "SCHED_FIFO", "SCHED_RR",       "SCHED_BATCH",
	"SCHED_ISO",   "SCHED_IDLE", "SCHED_DEADLINE", NULL,
};

static const char *const sched_flag_names[] = {
	"SCHED_FLAG_RESET_ON_FORK",  "SCHED_FLAG_RECLAIM",
	"SCHED_FLAG_DL_OVERRUN",     "SCHED_FLAG_KEEP_POLICY",
	"SCHED_FLAG_KEEP_PARAMS",    "SCHED_FLAG_UTIL_CLAMP_MIN",
	"SCHED_FLAG_UTIL_CLAMP_MAX", NULL,
};

static const char *const ioprio_class_names[] = {
	"IOPRIO_CLASS_RT",
	"IOPRIO_CLASS_BE",
	"IOPRIO_CLASS_IDLE",
	NULL,
};

static int parse_root(struct jp *c, const struct brig_json *v, struct brig_root **out)
{
	struct brig_root *root = brig_arena_alloc(c->arena, sizeof(*root));

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 || jp_string_req(c, v, "path", &root->path) < 0 ||
	    jp_bool(c, v, "readonly", &root->readonly) < 0)
		return -1;
	if (!root->path[0])
		return jp_fail(c, "path", "must not be empty");
	*out = root;
	return 0;
}

static int parse_mount(struct jp *c, const struct brig_json *v, struct brig_mount *m)
{
	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 ||
	    jp_string_req(c, v, "destination", &m->destination) < 0 ||
	    jp_check_absolute(c, "destination", m->destination) < 0 ||
	    jp_string(c, v, "type", &m->type) < 0 || jp_string(c, v, "source", &m->source) < 0 ||
	    jp_strings(c, v, "options", &m->options, &m->n_options) < 0 ||
	    jp_id_mappings(c, v, "uidMappings", &m->uid_mappings, &m->n_uid_mappings) < 0 ||
	    jp_id_mappings(c, v, "gidMappings", &m->gid_mappings, &m->n_gid_mappings) < 0)
		return -1;
	return 0;
}

static int parse_mounts(struct jp *c, const struct brig_json *top, struct brig_config *cfg)
{
	const struct brig_json *arr = NULL;
	size_t mark;
	int r = jp_array(c, top, "mounts", &arr);

	if (r <= 0)
		return r;
	cfg->mounts = brig_arena_array(c->arena, arr->n, sizeof(*cfg->mounts));
	cfg->n_mounts = arr->n;
	mark = jp_enter_key(c, "mounts");
	for (size_t i = 0; i < arr->n; i++) {
		size_t m = jp_enter_index(c, i);

		if (parse_mount(c, arr->items[i], &cfg->mounts[i]) < 0)
			return -1;
		jp_leave(c, m);
	}
	jp_leave(c, mark);
	return 0;
}

static int parse_hook(struct jp *c, const struct brig_json *v, struct brig_hook *h)
{
	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 || jp_string_req(c, v, "path", &h->path) < 0 ||
	    jp_check_absolute(c, "path", h->path) < 0 ||
	    jp_strings(c, v, "args", &h->args, &h->n_args) < 0 ||
	    jp_strings(c, v, "env", &h->env, &h->n_env) < 0 ||
	    jp_opt_i32(c, v, "timeout", 1, INT32_MAX, &h->timeout) < 0)
		return -1;
	return 0;
}

int brig_parse_hooks(struct jp *c, const struct brig_json *top, struct brig_hooks *hooks)
{
	const struct brig_json *obj = NULL;
	size_t mark;
	int r = jp_object(c, top, "hooks", &obj);

	if (r <= 0)
		return r;
	mark = jp_enter_key(c, "hooks");
	for (int s = 0; s < BRIG_HOOK_N_STAGES; s++) {
		const struct brig_json *arr = NULL;
		size_t sm;

		r = jp_array(c, obj, brig_hook_stage_names[s], &arr);
		if (r < 0)
			return -1;
		if (r == 0)
			continue;
		hooks->stage[s] = brig_arena_array(c->arena, arr->n, sizeof(struct brig_hook));
		hooks->n[s] = arr->n;
		sm = jp_enter_key(c, brig_hook_stage_names[s]);
		for (size_t i = 0; i < arr->n; i++) {
			size_t im = jp_enter_index(c, i);

			if (parse_hook(c, arr->items[i], &hooks->stage[s][i]) < 0)
				return -1;
			jp_leave(c, im);
		}
		jp_leave(c, sm);
	}
	jp_leave(c, mark);
	return 0;
}

static int parse_user(struct jp *c, const struct brig_json *v, struct brig_user *u)
{
	const struct brig_json *gids = NULL;
	uint64_t n;
	int r;

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 || jp_uint_req(c, v, "uid", UINT32_MAX, &n) < 0)
		return -1;
	u->uid = (uint32_t)n;
	if (jp_uint_req(c, v, "gid", UINT32_MAX, &n) < 0)
		return -1;
	u->gid = (uint32_t)n;
	if (jp_opt_u32(c, v, "umask", 0777, &u->umask) < 0 ||
	    jp_string(c, v, "username", &u->username) < 0)
		return -1;
	r = jp_array(c, v, "additionalGids", &gids);
	if (r < 0)
		return -1;
	if (r > 0) {
		size_t mark = jp_enter_key(c, "additionalGids");

		u->additional_gids = brig_arena_array(c->arena, gids->n, sizeof(uint32_t));
		u->n_additional_gids = gids->n;
		for (size_t i = 0; i < gids->n; i++) {
			size_t im = jp_enter_index(c, i);

			if (jp_value_uint(c, gids->items[i], UINT32_MAX, &n) < 0)
				return -1;
			u->additional_gids[i] = (uint32_t)n;
			jp_leave(c, im);
		}
		jp_leave(c, mark);
	}
	return 0;
}

static int parse_capabilities(struct jp *c, const struct brig_json *v,
                              struct brig_capabilities **out)
{
	struct brig_capabilities *caps = brig_arena_alloc(c->arena, sizeof(*caps));

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 ||
	    jp_strings(c, v, "bounding", &caps->bounding, &caps->n_bounding) < 0 ||
	    jp_strings(c, v, "effective", &caps->effective, &caps->n_effective) < 0 ||
	    jp_strings(c, v, "inheritable", &caps->inheritable, &caps->n_inheritable) < 0 ||
	    jp_strings(c, v, "permitted", &caps->permitted, &caps->n_permitted) < 0 ||
	    jp_strings(c, v, "ambient", &caps->ambient, &caps->n_ambient) < 0)
		return -1;
	*out = caps;
	return 0;
}

static int find_rlimit(const char *name)
{
	for (int i = 0; brig_rlimit_names[i].name; i++)
		if (strcmp(brig_rlimit_names[i].name, name) == 0)
			return i;
	return -1;
}

static int parse_rlimits(struct jp *c, const struct brig_json *arr, struct brig_process *p)
{
	p->rlimits = brig_arena_array(c->arena, arr->n, sizeof(*p->rlimits));
	p->n_rlimits = arr->n;
	for (size_t i = 0; i < arr->n; i++) {
		const struct brig_json *v = arr->items[i];
		struct brig_rlimit *rl = &p->rlimits[i];
		size_t im = jp_enter_index(c, i);
		int idx;

		if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 ||
		    jp_string_req(c, v, "type", &rl->type) < 0)
			return -1;
		idx = find_rlimit(rl->type);
		if (idx < 0)
			return jp_fail_unknown(c, "type", "rlimit", rl->type);
		rl->resource = brig_rlimit_names[idx].resource;
		for (size_t k = 0; k < i; k++)
			if (p->rlimits[k].resource == rl->resource)
				return jp_fail(c, "type", "duplicate rlimit \"%s\"", rl->type);
		if (jp_uint_req(c, v, "soft", UINT64_MAX, &rl->soft) < 0 ||
		    jp_uint_req(c, v, "hard", UINT64_MAX, &rl->hard) < 0)
			return -1;
		if (rl->soft > rl->hard)
			return jp_fail(c, "soft", "is greater than hard");
		jp_leave(c, im);
	}
	return 0;
}

static int parse_scheduler(struct jp *c, const struct brig_json *v, struct brig_scheduler **out)
{
	struct brig_scheduler *s = brig_arena_alloc(c->arena, sizeof(*s));
	int64_t n = 0;
	int policy;

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0)
		return -1;
	if (jp_enum_req(c, v, "policy", sched_policy_names, "scheduler policy", &policy) < 0)
		return -1;
	s->policy = sched_policy_names[policy];
	if (jp_int(c, v, "nice", -20, 19, &n) < 0)
		return -1;
	s->nice = (int32_t)n;
	n = 0;
	if (jp_int(c, v, "priority", INT32_MIN, INT32_MAX, &n) < 0)
		return -1;
	s->priority = (int32_t)n;
	if (jp_strings(c, v, "flags", &s->flags, &s->n_flags) < 0 ||
	    jp_check_names(c, "flags", s->flags, s->n_flags, sched_flag_names, "scheduler flag") <
	        0 ||
	    jp_uint(c, v, "runtime", UINT64_MAX, &s->runtime) < 0 ||
	    jp_uint(c, v, "deadline", UINT64_MAX, &s->deadline) < 0 ||
	    jp_uint(c, v, "period", UINT64_MAX, &s->period) < 0)
		return -1;
	*out = s;
	return 0;
}

static int parse_io_priority(struct jp *c, const struct brig_json *v, struct brig_io_priority **out)
{
	struct brig_io_priority *io = brig_arena_alloc(c->arena, sizeof(*io));
	int64_t prio = 0;
	int cls;

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0)
		return -1;
	if (jp_enum_req(c, v, "class", ioprio_class_names, "I/O priority class", &cls) < 0)
		return -1;
	io->class_ = ioprio_class_names[cls];
	if (jp_int(c, v, "priority", 0, 7, &prio) < 0)
		return -1;
	io->priority = (int32_t)prio;
	*out = io;
	return 0;
}

static int parse_cpu_affinity(struct jp *c, const struct brig_json *v,
                              struct brig_cpu_affinity **out)
{
	struct brig_cpu_affinity *a = brig_arena_alloc(c->arena, sizeof(*a));

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 || jp_string(c, v, "initial", &a->initial) < 0 ||
	    jp_string(c, v, "final", &a->final) < 0)
		return -1;
	if ((a->initial && jp_check_cpu_list(c, "initial", a->initial) < 0) ||
	    (a->final && jp_check_cpu_list(c, "final", a->final) < 0))
		return -1;
	*out = a;
	return 0;
}

int brig_parse_process(struct jp *c, const struct brig_json *v, struct brig_process **out)
{
	struct brig_process *p = brig_arena_alloc(c->arena, sizeof(*p));
	const struct brig_json *sub = NULL;
	int r;

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 || jp_bool(c, v, "terminal", &p->terminal) < 0)
		return -1;
	r = jp_object(c, v, "consoleSize", &sub);
	if (r < 0)
		return -1;
	if (r > 0) {
		size_t m = jp_enter_key(c, "consoleSize");
		uint64_t n;

		p->console_size = brig_arena_alloc(c->arena, sizeof(*p->console_size));
		if (jp_uint_req(c, sub, "height", UINT16_MAX, &n) < 0)
			return -1;
		p->console_size->height = (uint32_t)n;
		if (jp_uint_req(c, sub, "width", UINT16_MAX, &n) < 0)
			return -1;
		p->console_size->width = (uint32_t)n;
		jp_leave(c, m);
	}
	if (JP_SECTION(c, v, "user", parse_user, &p->user) < 0 ||
	    jp_strings(c, v, "args", &p->args, &p->n_args) < 0 ||
	    jp_string(c, v, "commandLine", &p->command_line) < 0 ||
	    jp_strings(c, v, "env", &p->env, &p->n_env) < 0 ||
	    jp_string_req(c, v, "cwd", &p->cwd) < 0 || jp_check_absolute(c, "cwd", p->cwd) < 0)
		return -1;
	for (size_t i = 0; i < p->n_env; i++) {
		if (!strchr(p->env[i], '=')) {
			size_t mark = jp_enter_key(c, "env");

			brig_path_index(&c->path, i);
			jp_fail_value(c, NULL, "invalid environment variable", p->env[i]);
			jp_leave(c, mark);
			return -1;
		}
	}
	if (p->n_args == 0)
		return jp_fail(c, "args", "must not be empty");
	if (!p->args[0][0])
		return jp_fail(c, "args", "the command must not be empty");
	if (JP_SECTION(c, v, "capabilities", parse_capabilities, &p->capabilities) < 0)
		return -1;
	r = jp_array(c, v, "rlimits", &sub);
	if (r < 0)
		return -1;
	if (r > 0) {
		size_t m = jp_enter_key(c, "rlimits");

		if (parse_rlimits(c, sub, p) < 0)
			return -1;
		jp_leave(c, m);
	}
	if (jp_bool(c, v, "noNewPrivileges", &p->no_new_privileges) < 0 ||
	    jp_string(c, v, "apparmorProfile", &p->apparmor_profile) < 0 ||
	    jp_opt_i32(c, v, "oomScoreAdj", -1000, 1000, &p->oom_score_adj) < 0 ||
	    JP_SECTION(c, v, "scheduler", parse_scheduler, &p->scheduler) < 0 ||
	    jp_string(c, v, "selinuxLabel", &p->selinux_label) < 0 ||
	    JP_SECTION(c, v, "ioPriority", parse_io_priority, &p->io_priority) < 0 ||
	    JP_SECTION(c, v, "execCPUAffinity", parse_cpu_affinity, &p->exec_cpu_affinity) < 0)
		return -1;
	*out = p;
	return 0;
}

/*
 * "1.x.y" with numeric parts and an optional semver suffix ("1.0.2-dev",
 * "1.2.0+build.1"); brig reads every 1.x config.  The suffix is checked to
 * be semver's characters, so the version is safe to print.
 */
static int check_oci_version(struct jp *c, const char *v)
{
	const char *p = v;
	int parts = 0;

	while (*p >= '0' && *p <= '9') {
		while (*p >= '0' && *p <= '9')
			p++;
		parts++;
		if (*p != '.')
			break;
		p++;
	}
	if (parts < 2 || (*p && *p != '-' && *p != '+') ||
	    (*p && (!p[1] || strspn(p + 1, "0123456789abcdefghijklmnopqrstuvwxyz"
	                                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ-.+") != strlen(p + 1))))
		return jp_fail_value(c, "ociVersion", "invalid version", v);
	if (strncmp(v, "1.", 2) != 0)
		return jp_fail(c, "ociVersion",
		               "unsupported version \"%.64s\" (brig supports %s to %s)", v,
		               BRIG_SPEC_VERSION_MIN, BRIG_SPEC_VERSION);
	return 0;
}

static int check_name_length(struct jp *c, const char *key, const char *s)
{
	if (s && strlen(s) > HOST_NAME_LIMIT)
		return jp_fail(c, key, "longer than %d bytes", HOST_NAME_LIMIT);
	return 0;
}

static int parse_config(struct jp *c, const struct brig_json *top, struct brig_config *cfg)
{
	if (jp_expect(c, top, BRIG_JSON_OBJECT) < 0 ||
	    jp_string_req(c, top, "ociVersion", &cfg->oci_version) < 0 ||
	    check_oci_version(c, cfg->oci_version) < 0)
		return -1;
	if (!brig_json_get(top, "root") || brig_json_get(top, "root")->type == BRIG_JSON_NULL)
		return jp_fail(c, "root", "is required");
	if (JP_SECTION(c, top, "root", parse_root, &cfg->root) < 0 ||
	    parse_mounts(c, top, cfg) < 0 ||
	    JP_SECTION(c, top, "process", brig_parse_process, &cfg->process) < 0 ||
	    jp_string(c, top, "hostname", &cfg->hostname) < 0 ||
	    check_name_length(c, "hostname", cfg->hostname) < 0 ||
	    jp_string(c, top, "domainname", &cfg->domainname) < 0 ||
	    check_name_length(c, "domainname", cfg->domainname) < 0 ||
	    brig_parse_hooks(c, top, &cfg->hooks) < 0 ||
	    jp_string_map(c, top, "annotations", &cfg->annotations, &cfg->n_annotations) < 0)
		return -1;
	for (size_t i = 0; i < cfg->n_annotations; i++)
		if (!cfg->annotations[i].key[0])
			return jp_fail(c, "annotations", "keys must not be empty");
	if (JP_SECTION(c, top, "linux", brig_parse_linux, &cfg->linux) < 0)
		return -1;
	return 0;
}

/*
 * Parse @text into a tree (in a scratch arena) and hand it to @fn along with
 * a context whose values land in @out_arena.
 */
static int parse_document(const char *name, const char *text, size_t len,
                          struct brig_arena *out_arena,
                          int (*fn)(struct jp *, const struct brig_json *, void *), void *out,
                          struct brig_error *err)
{
	struct brig_arena scratch = BRIG_ARENA_INIT;
	struct jp c = { .arena = out_arena, .file = name, .err = err };
	const struct brig_json *top;
	int r = -1;

	if (len > BRIG_CONFIG_MAX_BYTES)
		return brig_error_set(err, "%s: larger than the %u MiB limit", name,
		                      BRIG_CONFIG_MAX_BYTES >> 20);
	top = brig_json_parse(&scratch, name, text, len, err);
	if (top)
		r = fn(&c, top, out);
	brig_path_release(&c.path);
	brig_arena_release(&scratch);
	return r;
}

static int config_fn(struct jp *c, const struct brig_json *top, void *out)
{
	return parse_config(c, top, out);
}

struct brig_config *brig_config_parse(const char *name, const char *text, size_t len,
                                      struct brig_error *err)
{
	struct brig_config *cfg = brig_xcalloc(1, sizeof(*cfg));

	if (parse_document(name, text, len, &cfg->arena, config_fn, cfg, err) < 0) {
		brig_config_free(cfg);
		return NULL;
	}
	return cfg;
}

struct brig_config *brig_config_load(int dirfd, const char *path, const char *name,
                                     struct brig_error *err)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;

	if (brig_read_file(dirfd, path, BRIG_CONFIG_MAX_BYTES, &text, &len, err) < 0)
		return NULL;
	return brig_config_parse(name, text, len, err);
}

void brig_config_free(struct brig_config *cfg)
{
	if (!cfg)
		return;
	brig_arena_release(&cfg->arena);
	free(cfg);
}

static int process_fn(struct jp *c, const struct brig_json *top, void *out)
{
	return brig_parse_process(c, top, &((struct brig_process_doc *)out)->process);
}

struct brig_process_doc *brig_process_parse(const char *name, const char *text, size_t len,
                                            struct brig_error *err)
{
	struct brig_process_doc *doc = brig_xcalloc(1, sizeof(*doc));

	if (parse_document(name, text, len, &doc->arena, process_fn, doc, err) < 0) {
		brig_process_doc_free(doc);
		return NULL;
	}
	return doc;
}

void brig_process_doc_free(struct brig_process_doc *doc)
{
	if (!doc)
		return;
	brig_arena_release(&doc->arena);
	free(doc);
}

static int resources_fn(struct jp *c, const struct brig_json *top, void *out)
{
	return brig_parse_resources(c, top, &((struct brig_resources_doc *)out)->resources);
}

struct brig_resources_doc *brig_resources_parse(const char *name, const char *text, size_t len,
                                                struct brig_error *err)
{
	struct brig_resources_doc *doc = brig_xcalloc(1, sizeof(*doc));

	if (parse_document(name, text, len, &doc->arena, resources_fn, doc, err) < 0) {
		brig_resources_doc_free(doc);
		return NULL;
	}
	return doc;
}

void brig_resources_doc_free(struct brig_resources_doc *doc)
{
	if (!doc)
		return;
	brig_arena_release(&doc->arena);
	free(doc);
}

const struct brig_namespace *brig_config_namespace(const struct brig_linux *lx,
                                                   enum brig_ns_type type)
{
	if (!lx)
		return NULL;
	for (size_t i = 0; i < lx->n_namespaces; i++)
		if (lx->namespaces[i].type == type)
			return &lx->namespaces[i];
	return NULL;
}
