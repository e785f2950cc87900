/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: every input is parsed as a config.json, a process.json
 * and a LinuxResources document.  What parses is walked end to end, so that
 * a count that does not match its array, or a string that is not one, shows
 * up under AddressSanitizer; then it is freed (LeakSanitizer checks that).
 * Built and run by tests/fuzz/run.sh.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "spec/spec.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Where the walk's reads go, so the compiler keeps them. */
static volatile size_t sink;

static void walk_str(const char *s)
{
	if (s)
		sink += strlen(s);
}

static void walk_strs(const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		walk_str(list[i]);
}

static void walk_kv(const struct brig_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		walk_str(kv[i].key);
		walk_str(kv[i].value);
	}
}

static void walk_mappings(const struct brig_id_mapping *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sink += m[i].container_id + m[i].host_id + m[i].size;
}

static void walk_process(const struct brig_process *p)
{
	if (!p)
		return;
	if (p->console_size)
		sink += p->console_size->height + p->console_size->width;
	sink += p->user.uid + p->user.gid + p->user.umask.value;
	for (size_t i = 0; i < p->user.n_additional_gids; i++)
		sink += p->user.additional_gids[i];
	walk_str(p->user.username);
	walk_strs(p->args, p->n_args);
	walk_str(p->command_line);
	walk_strs(p->env, p->n_env);
	walk_str(p->cwd);
	if (p->capabilities) {
		const struct brig_capabilities *c = p->capabilities;

		walk_strs(c->bounding, c->n_bounding);
		walk_strs(c->effective, c->n_effective);
		walk_strs(c->inheritable, c->n_inheritable);
		walk_strs(c->permitted, c->n_permitted);
		walk_strs(c->ambient, c->n_ambient);
	}
	for (size_t i = 0; i < p->n_rlimits; i++) {
		walk_str(p->rlimits[i].type);
		sink += p->rlimits[i].soft + p->rlimits[i].hard;
	}
	walk_str(p->apparmor_profile);
	walk_str(p->selinux_label);
	if (p->scheduler) {
		walk_str(p->scheduler->policy);
		walk_strs(p->scheduler->flags, p->scheduler->n_flags);
	}
	if (p->io_priority)
		walk_str(p->io_priority->class_);
	if (p->exec_cpu_affinity) {
		walk_str(p->exec_cpu_affinity->initial);
		walk_str(p->exec_cpu_affinity->final);
	}
}

static void walk_throttle(const struct brig_throttle_device *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sink += (size_t)t[i].major + (size_t)t[i].minor + t[i].rate;
}

static void walk_resources(const struct brig_resources *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_devices; i++) {
		sink += (size_t)r->devices[i].type;
		walk_str(r->devices[i].access);
	}
	if (r->memory)
		sink += (size_t)r->memory->limit.value;
	if (r->cpu) {
		walk_str(r->cpu->cpus);
		walk_str(r->cpu->mems);
	}
	if (r->block_io) {
		const struct brig_blkio *b = r->block_io;

		for (size_t i = 0; i < b->n_weight_device; i++)
			sink += b->weight_device[i].weight.value;
		walk_throttle(b->throttle_read_bps, b->n_throttle_read_bps);
		walk_throttle(b->throttle_write_bps, b->n_throttle_write_bps);
		walk_throttle(b->throttle_read_iops, b->n_throttle_read_iops);
		walk_throttle(b->throttle_write_iops, b->n_throttle_write_iops);
	}
	for (size_t i = 0; i < r->n_hugepage_limits; i++)
		walk_str(r->hugepage_limits[i].page_size);
	if (r->network) {
		for (size_t i = 0; i < r->network->n_priorities; i++)
			walk_str(r->network->priorities[i].name);
	}
	for (size_t i = 0; i < r->n_rdma; i++)
		walk_str(r->rdma[i].device);
	walk_kv(r->unified, r->n_unified);
}

static void walk_seccomp(const struct brig_seccomp *s)
{
	if (!s)
		return;
	walk_str(brig_seccomp_action_name(s->default_action));
	walk_strs(s->architectures, s->n_architectures);
	walk_strs(s->flags, s->n_flags);
	walk_str(s->listener_path);
	walk_str(s->listener_metadata);
	for (size_t i = 0; i < s->n_syscalls; i++) {
		const struct brig_seccomp_syscall *sc = &s->syscalls[i];

		walk_strs(sc->names, sc->n_names);
		walk_str(brig_seccomp_action_name(sc->action));
		for (size_t k = 0; k < sc->n_args; k++)
			walk_str(brig_seccomp_op_name(sc->args[k].op));
	}
}

static void walk_linux(const struct brig_linux *lx)
{
	if (!lx)
		return;
	for (size_t i = 0; i < lx->n_namespaces; i++) {
		walk_str(brig_ns_type_name(lx->namespaces[i].type));
		walk_str(lx->namespaces[i].path);
	}
	walk_mappings(lx->uid_mappings, lx->n_uid_mappings);
	walk_mappings(lx->gid_mappings, lx->n_gid_mappings);
	for (size_t i = 0; i < lx->n_time_offsets; i++)
		walk_str(lx->time_offsets[i].clock);
	for (size_t i = 0; i < lx->n_devices; i++)
		walk_str(lx->devices[i].path);
	for (size_t i = 0; i < lx->n_net_devices; i++) {
		walk_str(lx->net_devices[i].host_name);
		walk_str(lx->net_devices[i].name);
	}
	walk_str(lx->cgroups_path);
	walk_resources(lx->resources);
	if (lx->intel_rdt) {
		walk_str(lx->intel_rdt->clos_id);
		walk_strs(lx->intel_rdt->schemata, lx->intel_rdt->n_schemata);
	}
	if (lx->memory_policy) {
		walk_str(lx->memory_policy->mode);
		walk_str(lx->memory_policy->nodes);
		walk_strs(lx->memory_policy->flags, lx->memory_policy->n_flags);
	}
	walk_str(lx->rootfs_propagation);
	walk_seccomp(lx->seccomp);
	if (lx->personality) {
		walk_str(lx->personality->domain);
		walk_strs(lx->personality->flags, lx->personality->n_flags);
	}
	walk_kv(lx->sysctl, lx->n_sysctl);
	walk_strs(lx->masked_paths, lx->n_masked_paths);
	walk_strs(lx->readonly_paths, lx->n_readonly_paths);
	walk_str(lx->mount_label);
}

static void walk_config(const struct brig_config *cfg)
{
	walk_str(cfg->oci_version);
	walk_str(cfg->root->path);
	for (size_t i = 0; i < cfg->n_mounts; i++) {
		const struct brig_mount *m = &cfg->mounts[i];

		walk_str(m->destination);
		walk_str(m->type);
		walk_str(m->source);
		walk_strs(m->options, m->n_options);
		walk_mappings(m->uid_mappings, m->n_uid_mappings);
		walk_mappings(m->gid_mappings, m->n_gid_mappings);
	}
	walk_process(cfg->process);
	walk_str(cfg->hostname);
	walk_str(cfg->domainname);
	for (int s = 0; s < BRIG_HOOK_N_STAGES; s++) {
		for (size_t i = 0; i < cfg->hooks.n[s]; i++) {
			const struct brig_hook *h = &cfg->hooks.stage[s][i];

			walk_str(h->path);
			walk_strs(h->args, h->n_args);
			walk_strs(h->env, h->n_env);
		}
	}
	walk_kv(cfg->annotations, cfg->n_annotations);
	walk_linux(cfg->linux);
}

/*
 * An error names its file and is one line of printable ASCII: hostile bytes
 * are escaped or replaced, so a message can neither fake a second line nor
 * drive the terminal it is printed on.
 */
static void check_error(const struct brig_error *err, const char *name)
{
	if (!err->msg || strncmp(err->msg, name, strlen(name)) != 0)
		__builtin_trap();
	for (const char *p = err->msg; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_config *cfg;
	struct brig_process_doc *proc;
	struct brig_resources_doc *res;

	cfg = brig_config_parse("config.json", text, size, &err);
	if (cfg)
		walk_config(cfg);
	else
		check_error(&err, "config.json: ");
	brig_config_free(cfg);
	brig_error_release(&err);

	proc = brig_process_parse("process.json", text, size, &err);
	if (proc)
		walk_process(proc->process);
	else
		check_error(&err, "process.json: ");
	brig_process_doc_free(proc);
	brig_error_release(&err);

	res = brig_resources_parse("resources.json", text, size, &err);
	if (res)
		walk_resources(res->resources);
	else
		check_error(&err, "resources.json: ");
	brig_resources_doc_free(res);
	brig_error_release(&err);
	return 0;
}
