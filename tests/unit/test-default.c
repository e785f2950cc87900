/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The default config of `brig spec` parses, and matches what runc 1.1.5's
 * `runc spec` and `runc spec --rootless` (run as uid/gid 1000) write, saved
 * in tests/unit/fixtures/: only ociVersion and hostname differ.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/default.h"
#include "spec/spec.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/error.h"

static struct brig_config *parse_default(bool rootless, uid_t uid, gid_t gid)
{
	struct brig_error err = BRIG_ERROR_INIT;
	_cleanup_free_ char *text = brig_spec_default(rootless, uid, gid);
	struct brig_config *cfg;

	ok(text && text[0] && text[strlen(text) - 1] == '\n', "%s: the text ends with a newline",
	   rootless ? "rootless" : "default");
	ok(text && strchr(text, '\t'), "%s: the text is tab-indented",
	   rootless ? "rootless" : "default");
	cfg = brig_config_parse("config.json", text, strlen(text), &err);
	if (!ok(cfg != NULL, "%s: brig_config_parse accepts it", rootless ? "rootless" : "default"))
		printf("#   %s\n", err.msg);
	brig_error_release(&err);
	return cfg;
}

static struct brig_config *load_fixture(const char *name)
{
	struct brig_error err = BRIG_ERROR_INIT;
	const char *srcdir = getenv("BRIG_SRCDIR");
	_cleanup_free_ char *path = NULL;
	struct brig_config *cfg;

	if (!srcdir)
		srcdir = getenv("srcdir");
	path = brig_xasprintf("%s/tests/unit/fixtures/%s", srcdir ? srcdir : ".", name);
	cfg = brig_config_load(AT_FDCWD, path, name, &err);
	if (!ok(cfg != NULL, "fixture %s parses", name))
		printf("#   %s\n", err.msg);
	brig_error_release(&err);
	return cfg;
}

static bool same_strings(const char *const *a, size_t na, const char *const *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++) {
		if (strcmp(a[i], b[i]) != 0)
			return false;
	}
	return true;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_mappings(const struct brig_id_mapping *a, size_t na,
                          const struct brig_id_mapping *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++) {
		if (a[i].container_id != b[i].container_id || a[i].host_id != b[i].host_id ||
		    a[i].size != b[i].size)
			return false;
	}
	return true;
}

#define SAME_LIST(a, b, field) same_strings((a)->field, (a)->n_##field, (b)->field, (b)->n_##field)

static void compare_process(const char *what, const struct brig_process *p,
                            const struct brig_process *r)
{
	const struct brig_capabilities *pc = p->capabilities, *rc = r->capabilities;

	ok(p->terminal == r->terminal, "%s: process.terminal", what);
	ok(p->user.uid == r->user.uid && p->user.gid == r->user.gid, "%s: process.user", what);
	ok(SAME_LIST(p, r, args), "%s: process.args", what);
	ok(SAME_LIST(p, r, env), "%s: process.env", what);
	ok(same_str(p->cwd, r->cwd), "%s: process.cwd", what);
	ok(p->no_new_privileges == r->no_new_privileges, "%s: process.noNewPrivileges", what);

	if (ok(pc && rc, "%s: process.capabilities present in both", what)) {
		ok(SAME_LIST(pc, rc, bounding), "%s: capabilities.bounding", what);
		ok(SAME_LIST(pc, rc, effective), "%s: capabilities.effective", what);
		ok(SAME_LIST(pc, rc, inheritable), "%s: capabilities.inheritable", what);
		ok(SAME_LIST(pc, rc, permitted), "%s: capabilities.permitted", what);
		ok(SAME_LIST(pc, rc, ambient), "%s: capabilities.ambient", what);
	}

	if (ok(p->n_rlimits == r->n_rlimits, "%s: as many rlimits", what)) {
		bool same = true;

		for (size_t i = 0; i < p->n_rlimits; i++) {
			same = same && same_str(p->rlimits[i].type, r->rlimits[i].type) &&
			       p->rlimits[i].soft == r->rlimits[i].soft &&
			       p->rlimits[i].hard == r->rlimits[i].hard;
		}
		ok(same, "%s: process.rlimits", what);
	}
}

static void compare_mounts(const char *what, const struct brig_config *b,
                           const struct brig_config *r)
{
	if (!is_int(b->n_mounts, r->n_mounts, "%s: as many mounts", what))
		return;
	for (size_t i = 0; i < b->n_mounts; i++) {
		const struct brig_mount *bm = &b->mounts[i], *rm = &r->mounts[i];

		ok(same_str(bm->destination, rm->destination) && same_str(bm->type, rm->type) &&
		       same_str(bm->source, rm->source) && SAME_LIST(bm, rm, options),
		   "%s: mount %zu (%s)", what, i, rm->destination);
	}
}

static void compare_linux(const char *what, const struct brig_linux *b, const struct brig_linux *r)
{
	bool same;

	if (!ok(b && r, "%s: linux present in both", what))
		return;
	same = b->n_namespaces == r->n_namespaces;
	for (size_t i = 0; same && i < b->n_namespaces; i++) {
		same = b->namespaces[i].type == r->namespaces[i].type &&
		       same_str(b->namespaces[i].path, r->namespaces[i].path);
	}
	ok(same, "%s: linux.namespaces", what);
	ok(same_mappings(b->uid_mappings, b->n_uid_mappings, r->uid_mappings, r->n_uid_mappings),
	   "%s: linux.uidMappings", what);
	ok(same_mappings(b->gid_mappings, b->n_gid_mappings, r->gid_mappings, r->n_gid_mappings),
	   "%s: linux.gidMappings", what);
	ok(SAME_LIST(b, r, masked_paths), "%s: linux.maskedPaths", what);
	ok(SAME_LIST(b, r, readonly_paths), "%s: linux.readonlyPaths", what);

	same = !b->resources == !r->resources;
	if (same && b->resources) {
		const struct brig_resources *br = b->resources, *rr = r->resources;

		same = br->n_devices == rr->n_devices;
		for (size_t i = 0; same && i < br->n_devices; i++) {
			const struct brig_device_cgroup *bd = &br->devices[i],
			                                *rd = &rr->devices[i];

			same = bd->allow == rd->allow && bd->type == rd->type &&
			       same_str(bd->access, rd->access);
		}
	}
	ok(same, "%s: linux.resources", what);
}

/* Everything but ociVersion and hostname is runc's. */
static void compare(const char *what, const struct brig_config *b, const struct brig_config *r)
{
	if (!b || !r)
		return;
	is_str(b->oci_version, BRIG_SPEC_VERSION, "%s: ociVersion is brig's", what);
	is_str(b->hostname, "brig", "%s: hostname is brig", what);
	ok(b->root && r->root && same_str(b->root->path, r->root->path) &&
	       b->root->readonly == r->root->readonly,
	   "%s: root", what);
	if (ok(b->process && r->process, "%s: process present in both", what))
		compare_process(what, b->process, r->process);
	compare_mounts(what, b, r);
	compare_linux(what, b->linux, r->linux);
}

static bool has_ns(const struct brig_config *cfg, enum brig_ns_type type)
{
	return cfg->linux && brig_config_namespace(cfg->linux, type) != NULL;
}

static void check_default(const struct brig_config *cfg)
{
	static const enum brig_ns_type ns[] = { BRIG_NS_PID, BRIG_NS_NETWORK, BRIG_NS_IPC,
		                                BRIG_NS_UTS, BRIG_NS_MOUNT };
	const struct brig_process *p = cfg->process;
	const struct brig_linux *l = cfg->linux;

	if (!ok(p && l, "default: has process and linux"))
		return;
	ok(p->terminal, "default: process.terminal is true");
	ok(p->n_args == 1 && strcmp(p->args[0], "sh") == 0, "default: process.args is [\"sh\"]");
	is_str(p->cwd, "/", "default: process.cwd");
	ok(p->no_new_privileges, "default: noNewPrivileges");
	ok(p->capabilities && p->capabilities->n_bounding == 3 &&
	       p->capabilities->n_inheritable == 0,
	   "default: three capabilities, no inheritable set (as runc)");
	ok(p->n_rlimits == 1 && strcmp(p->rlimits[0].type, "RLIMIT_NOFILE") == 0 &&
	       p->rlimits[0].soft == 1024 && p->rlimits[0].hard == 1024,
	   "default: RLIMIT_NOFILE 1024/1024");
	ok(cfg->root && strcmp(cfg->root->path, "rootfs") == 0 && cfg->root->readonly,
	   "default: root is a read-only rootfs");
	is_int(cfg->n_mounts, 7, "default: seven mounts");
	if (is_int(l->n_namespaces, ARRAY_SIZE(ns), "default: five namespaces")) {
		bool same = true;

		for (size_t i = 0; i < ARRAY_SIZE(ns); i++)
			same = same && l->namespaces[i].type == ns[i] && !l->namespaces[i].path;
		ok(same, "default: pid, network, ipc, uts, mount, in that order");
	}
	ok(!has_ns(cfg, BRIG_NS_USER), "default: no user namespace");
	ok(l->n_uid_mappings == 0 && l->n_gid_mappings == 0, "default: no id mappings");
	is_int(l->n_masked_paths, 10, "default: ten masked paths");
	is_int(l->n_readonly_paths, 5, "default: five read-only paths");
	ok(l->resources && l->resources->n_devices == 1 && !l->resources->devices[0].allow &&
	       same_str(l->resources->devices[0].access, "rwm"),
	   "default: the device cgroup denies everything");
}

static void check_rootless(const struct brig_config *cfg, uid_t uid, gid_t gid)
{
	const struct brig_linux *l = cfg->linux;
	const struct brig_mount *sys = NULL;
	bool gid_opt = false;
	char what[64];

	snprintf(what, sizeof(what), "rootless %u/%u", (unsigned)uid, (unsigned)gid);
	if (!ok(l != NULL, "%s: has linux", what))
		return;
	ok(has_ns(cfg, BRIG_NS_USER), "%s: a user namespace", what);
	ok(!has_ns(cfg, BRIG_NS_NETWORK), "%s: no network namespace", what);
	is_int(l->n_namespaces, 5, "%s: five namespaces", what);
	ok(l->n_uid_mappings == 1 && l->uid_mappings[0].container_id == 0 &&
	       l->uid_mappings[0].host_id == uid && l->uid_mappings[0].size == 1,
	   "%s: uid 0 maps to %u", what, (unsigned)uid);
	ok(l->n_gid_mappings == 1 && l->gid_mappings[0].container_id == 0 &&
	       l->gid_mappings[0].host_id == gid && l->gid_mappings[0].size == 1,
	   "%s: gid 0 maps to %u", what, (unsigned)gid);
	ok(l->resources == NULL, "%s: no resources", what);
	is_int(cfg->n_mounts, 7, "%s: seven mounts", what);
	is_int(l->n_masked_paths, 10, "%s: ten masked paths", what);
	for (size_t i = 0; i < cfg->n_mounts; i++) {
		const struct brig_mount *m = &cfg->mounts[i];

		if (strcmp(m->destination, "/sys") == 0)
			sys = m;
		for (size_t j = 0; j < m->n_options; j++)
			gid_opt = gid_opt || strncmp(m->options[j], "gid=", 4) == 0;
	}
	ok(sys && same_str(sys->type, "none") && same_str(sys->source, "/sys") &&
	       sys->n_options > 0 && strcmp(sys->options[0], "rbind") == 0,
	   "%s: /sys is an rbind of the host's", what);
	ok(!gid_opt, "%s: no gid= mount option", what);
}

int main(void)
{
	struct brig_config *def = parse_default(false, 0, 0);
	struct brig_config *rl = parse_default(true, 1000, 1000);
	struct brig_config *other = parse_default(true, 1234, 5678);
	struct brig_config *runc = load_fixture("runc-spec.json");
	struct brig_config *runc_rl = load_fixture("runc-spec-rootless.json");

	if (def)
		check_default(def);
	if (rl)
		check_rootless(rl, 1000, 1000);
	if (other)
		check_rootless(other, 1234, 5678);
	compare("default vs runc spec", def, runc);
	compare("rootless vs runc spec --rootless", rl, runc_rl);

	brig_config_free(def);
	brig_config_free(rl);
	brig_config_free(other);
	brig_config_free(runc);
	brig_config_free(runc_rl);
	return tap_done();
}
