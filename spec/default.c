/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The default config.json of `brig spec`: runc 1.1.5's `runc spec` template
 * (libcontainer/specconv.Example) and its `--rootless` rewrite
 * (specconv.ToRootless), with brig's ociVersion and hostname.
 *
 * The tables hold the rootful template; the writers apply runc's rootless
 * rewrite as they go: the /sys mount becomes an rbind, mount options drop
 * "uid=" and "gid=", linux.resources goes, "network" leaves the namespaces
 * and "user" is appended, with a one-id mapping of root to @uid/@gid.
 */
#include "config.h"
#include "spec/default.h"

#include <string.h>

#include "util/cleanup.h"
#include "util/jsonw.h"

struct mount_tmpl {
	const char *destination;
	const char *type;
	const char *source;
	const char *const *options; /* NULL-terminated; NULL: no "options" */
};

#define OPTS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static const struct mount_tmpl mounts[] = {
	{ "/proc", "proc", "proc", NULL },
	{ "/dev", "tmpfs", "tmpfs", OPTS("nosuid", "strictatime", "mode=755", "size=65536k") },
	{ "/dev/pts", "devpts", "devpts",
	  OPTS("nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5") },
	{ "/dev/shm", "tmpfs", "shm",
	  OPTS("nosuid", "noexec", "nodev", "mode=1777", "size=65536k") },
	{ "/dev/mqueue", "mqueue", "mqueue", OPTS("nosuid", "noexec", "nodev") },
	{ "/sys", "sysfs", "sysfs", OPTS("nosuid", "noexec", "nodev", "ro") },
	{ "/sys/fs/cgroup", "cgroup", "cgroup",
	  OPTS("nosuid", "noexec", "nodev", "relatime", "ro") },
};

/* Rootless: sysfs cannot be mounted without owning the network namespace. */
static const struct mount_tmpl rootless_sys = {
	.destination = "/sys",
	.type = "none",
	.source = "/sys",
	.options = OPTS("rbind", "nosuid", "noexec", "nodev", "ro"),
};

/* The same three capabilities in every set runc fills (not "inheritable"). */
static const char *const caps[] = { "CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE" };
static const char *const cap_sets[] = { "bounding", "effective", "permitted", "ambient" };

static const char *const env[] = {
	"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	"TERM=xterm",
};

/* Rootless drops "network"; a "user" namespace is appended after these. */
static const char *const namespaces[] = { "pid", "network", "ipc", "uts", "mount" };

/* clang-format off */
const char *const brig_spec_masked_paths[] = {
	"/proc/acpi",
	"/proc/asound",
	"/proc/kcore",
	"/proc/keys",
	"/proc/latency_stats",
	"/proc/timer_list",
	"/proc/timer_stats",
	"/proc/sched_debug",
	"/sys/firmware",
	"/proc/scsi",
};
/* clang-format on */

const char *const brig_spec_readonly_paths[] = {
	"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger",
};

const size_t brig_spec_n_masked_paths = ARRAY_SIZE(brig_spec_masked_paths);
const size_t brig_spec_n_readonly_paths = ARRAY_SIZE(brig_spec_readonly_paths);

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void write_process(struct brig_jsonw *w)
{
	brig_jsonw_key(w, "process");
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_bool(w, "terminal", true);

	brig_jsonw_key(w, "user");
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_uint(w, "uid", 0);
	brig_jsonw_kv_uint(w, "gid", 0);
	brig_jsonw_object_end(w);

	brig_jsonw_kv_strings(w, "args", (const char *const[]){ "sh" }, 1);
	brig_jsonw_kv_strings(w, "env", env, ARRAY_SIZE(env));
	brig_jsonw_kv_string(w, "cwd", "/");

	brig_jsonw_key(w, "capabilities");
	brig_jsonw_object_begin(w);
	for (size_t i = 0; i < ARRAY_SIZE(cap_sets); i++)
		brig_jsonw_kv_strings(w, cap_sets[i], caps, ARRAY_SIZE(caps));
	brig_jsonw_object_end(w);

	brig_jsonw_key(w, "rlimits");
	brig_jsonw_array_begin(w);
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_string(w, "type", "RLIMIT_NOFILE");
	brig_jsonw_kv_uint(w, "hard", 1024);
	brig_jsonw_kv_uint(w, "soft", 1024);
	brig_jsonw_object_end(w);
	brig_jsonw_array_end(w);

	brig_jsonw_kv_bool(w, "noNewPrivileges", true);
	brig_jsonw_object_end(w);
}

static void write_mount(struct brig_jsonw *w, const struct mount_tmpl *m, bool rootless)
{
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_string(w, "destination", m->destination);
	brig_jsonw_kv_string(w, "type", m->type);
	brig_jsonw_kv_string(w, "source", m->source);
	if (m->options) {
		brig_jsonw_key(w, "options");
		brig_jsonw_array_begin(w);
		for (const char *const *o = m->options; *o; o++) {
			/* rootless: no ids that exist only outside the user namespace */
			if (rootless && (has_prefix(*o, "gid=") || has_prefix(*o, "uid=")))
				continue;
			brig_jsonw_string(w, *o);
		}
		brig_jsonw_array_end(w);
	}
	brig_jsonw_object_end(w);
}

static void write_mounts(struct brig_jsonw *w, bool rootless)
{
	brig_jsonw_key(w, "mounts");
	brig_jsonw_array_begin(w);
	for (size_t i = 0; i < ARRAY_SIZE(mounts); i++) {
		const struct mount_tmpl *m = &mounts[i];

		if (rootless && strcmp(m->destination, "/sys") == 0)
			m = &rootless_sys;
		write_mount(w, m, rootless);
	}
	brig_jsonw_array_end(w);
}

static void write_id_mapping(struct brig_jsonw *w, const char *key, uint64_t host_id)
{
	brig_jsonw_key(w, key);
	brig_jsonw_array_begin(w);
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_uint(w, "containerID", 0);
	brig_jsonw_kv_uint(w, "hostID", host_id);
	brig_jsonw_kv_uint(w, "size", 1);
	brig_jsonw_object_end(w);
	brig_jsonw_array_end(w);
}

static void write_namespace(struct brig_jsonw *w, const char *type)
{
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_string(w, "type", type);
	brig_jsonw_object_end(w);
}

static void write_linux(struct brig_jsonw *w, bool rootless, uid_t uid, gid_t gid)
{
	brig_jsonw_key(w, "linux");
	brig_jsonw_object_begin(w);

	if (rootless) {
		write_id_mapping(w, "uidMappings", uid);
		write_id_mapping(w, "gidMappings", gid);
	} else {
		/* rootless drops resources: it may not own a cgroup */
		brig_jsonw_key(w, "resources");
		brig_jsonw_object_begin(w);
		brig_jsonw_key(w, "devices");
		brig_jsonw_array_begin(w);
		brig_jsonw_object_begin(w);
		brig_jsonw_kv_bool(w, "allow", false);
		brig_jsonw_kv_string(w, "access", "rwm");
		brig_jsonw_object_end(w);
		brig_jsonw_array_end(w);
		brig_jsonw_object_end(w);
	}

	brig_jsonw_key(w, "namespaces");
	brig_jsonw_array_begin(w);
	for (size_t i = 0; i < ARRAY_SIZE(namespaces); i++) {
		/* rootless: the host's network, it cannot configure a new one */
		if (rootless && strcmp(namespaces[i], "network") == 0)
			continue;
		write_namespace(w, namespaces[i]);
	}
	if (rootless)
		write_namespace(w, "user");
	brig_jsonw_array_end(w);

	brig_jsonw_kv_strings(w, "maskedPaths", brig_spec_masked_paths,
	                      ARRAY_SIZE(brig_spec_masked_paths));
	brig_jsonw_kv_strings(w, "readonlyPaths", brig_spec_readonly_paths,
	                      ARRAY_SIZE(brig_spec_readonly_paths));
	brig_jsonw_object_end(w);
}

char *brig_spec_default(bool rootless, uid_t uid, gid_t gid)
{
	struct brig_jsonw w;

	brig_jsonw_init(&w, "\t");
	brig_jsonw_object_begin(&w);
	brig_jsonw_kv_string(&w, "ociVersion", BRIG_SPEC_VERSION);
	write_process(&w);

	brig_jsonw_key(&w, "root");
	brig_jsonw_object_begin(&w);
	brig_jsonw_kv_string(&w, "path", "rootfs");
	brig_jsonw_kv_bool(&w, "readonly", true);
	brig_jsonw_object_end(&w);

	brig_jsonw_kv_string(&w, "hostname", "brig");
	write_mounts(&w, rootless);
	write_linux(&w, rootless, uid, gid);
	brig_jsonw_object_end(&w);
	return brig_jsonw_finish(&w);
}
