/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lifecycle/features.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBCAP
#include <sys/capability.h>
#endif
#ifdef HAVE_SECCOMP
#include <seccomp.h>
#endif

#include "linux/mounts.h"
#include "linux/seccomp.h"
#include "spec/names.h"
#include "spec/spec.h"
#include "util/jsonw.h"

static void write_capabilities(struct brig_jsonw *w)
{
	brig_jsonw_key(w, "capabilities");
	brig_jsonw_array_begin(w);
#ifdef HAVE_LIBCAP
	for (cap_value_t cap = 0; cap < (cap_value_t)cap_max_bits(); cap++) {
		char *name = cap_to_name(cap);

		if (name && strncmp(name, "cap_", 4) == 0) {
			for (char *p = name; *p; p++)
				*p = (char)toupper((unsigned char)*p);
			brig_jsonw_string(w, name);
		}
		cap_free(name);
	}
#endif
	brig_jsonw_array_end(w);
}

static void write_enabled(struct brig_jsonw *w, const char *key, bool enabled)
{
	brig_jsonw_key(w, key);
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_bool(w, "enabled", enabled);
	brig_jsonw_object_end(w);
}

/* What brig can build (names from spec/names.c) and what this kernel and
 * this libseccomp take: actions and flags are probed with seccomp(2). */
static void write_seccomp(struct brig_jsonw *w)
{
	brig_jsonw_key(w, "seccomp");
	brig_jsonw_object_begin(w);
#ifdef HAVE_SECCOMP
	brig_jsonw_kv_bool(w, "enabled", true);
	brig_jsonw_key(w, "actions");
	brig_jsonw_array_begin(w);
	for (size_t i = 0; brig_seccomp_action_names[i]; i++)
		if (brig_seccomp_action_supported(brig_seccomp_action_names[i]))
			brig_jsonw_string(w, brig_seccomp_action_names[i]);
	brig_jsonw_array_end(w);
	brig_jsonw_kv_strings(w, "operators", brig_seccomp_op_names, SIZE_MAX);
	brig_jsonw_key(w, "archs");
	brig_jsonw_array_begin(w);
	for (size_t i = 0; brig_seccomp_arch_names[i]; i++)
		if (brig_seccomp_arch_known(brig_seccomp_arch_names[i]))
			brig_jsonw_string(w, brig_seccomp_arch_names[i]);
	brig_jsonw_array_end(w);
	brig_jsonw_kv_strings(w, "knownFlags", brig_seccomp_flag_names, SIZE_MAX);
	brig_jsonw_key(w, "supportedFlags");
	brig_jsonw_array_begin(w);
	for (size_t i = 0; brig_seccomp_flag_names[i]; i++)
		if (brig_seccomp_flag_supported(brig_seccomp_flag_names[i]))
			brig_jsonw_string(w, brig_seccomp_flag_names[i]);
	brig_jsonw_array_end(w);
#else
	brig_jsonw_kv_bool(w, "enabled", false);
#endif
	brig_jsonw_object_end(w);
}

static void write_linux(struct brig_jsonw *w)
{
	brig_jsonw_key(w, "linux");
	brig_jsonw_object_begin(w);
	brig_jsonw_key(w, "namespaces");
	brig_jsonw_array_begin(w);
	for (int t = 0; t < BRIG_NS_N_TYPES; t++)
		brig_jsonw_string(w, brig_ns_type_name(t));
	brig_jsonw_array_end(w);
	write_capabilities(w);
	brig_jsonw_key(w, "cgroup");
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_bool(w, "v1", true);
	brig_jsonw_kv_bool(w, "v2", true);
#ifdef HAVE_SYSTEMD
	brig_jsonw_kv_bool(w, "systemd", true);
#else
	brig_jsonw_kv_bool(w, "systemd", false);
#endif
	brig_jsonw_kv_bool(w, "systemdUser", false);
	brig_jsonw_kv_bool(w, "rdma", true);
	brig_jsonw_object_end(w);
	write_seccomp(w);
	/* whether brig supports the LSM, not whether this host has it
	 * (features-linux.md); create refuses a label the host cannot apply */
	write_enabled(w, "apparmor", true);
#ifdef HAVE_SELINUX
	write_enabled(w, "selinux", true);
#else
	write_enabled(w, "selinux", false);
#endif
	write_enabled(w, "intelRdt", false);
	write_enabled(w, "netDevices", true);
	brig_jsonw_key(w, "memoryPolicy");
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_strings(w, "modes", brig_mpol_mode_names, SIZE_MAX);
	brig_jsonw_kv_strings(w, "flags", brig_mpol_flag_names, SIZE_MAX);
	brig_jsonw_object_end(w);
	brig_jsonw_key(w, "mountExtensions");
	brig_jsonw_object_begin(w);
	write_enabled(w, "idmap", true);
	brig_jsonw_object_end(w);
	brig_jsonw_object_end(w);
}

static void write_annotations(struct brig_jsonw *w, bool checkpoint)
{
	char buf[64];

	brig_jsonw_key(w, "annotations");
	brig_jsonw_object_begin(w);
#ifdef HAVE_SECCOMP
	const struct scmp_version *v = seccomp_version();

	snprintf(buf, sizeof(buf), "%u.%u.%u", v->major, v->minor, v->micro);
	brig_jsonw_kv_string(w, "io.github.seccomp.libseccomp.version", buf);
#else
	brig_jsonw_kv_string(w, "run.brig.seccomp", "compiled out (--disable-seccomp)");
#endif
#ifndef HAVE_LIBCAP
	brig_jsonw_kv_string(w, "run.brig.capabilities", "compiled out (--disable-caps)");
#endif
#ifndef HAVE_SELINUX
	brig_jsonw_kv_string(w, "run.brig.selinux", "compiled out (--disable-selinux)");
#endif
#ifndef HAVE_SYSTEMD
	brig_jsonw_kv_string(w, "run.brig.systemd",
	                     "compiled out (--without-systemd, or no libsystemd)");
#endif
	if (checkpoint)
		brig_jsonw_kv_string(w, "org.opencontainers.runc.checkpoint.enabled", "true");
	snprintf(buf, sizeof(buf), "%s", BRIG_COMMIT);
	brig_jsonw_kv_string(w, "run.brig.commit", buf);
	brig_jsonw_object_end(w);
}

char *brig_features_json(bool checkpoint)
{
	struct brig_jsonw w;

	brig_jsonw_init(&w, "    ");
	brig_jsonw_object_begin(&w);
	brig_jsonw_kv_string(&w, "ociVersionMin", BRIG_SPEC_VERSION_MIN);
	brig_jsonw_kv_string(&w, "ociVersionMax", BRIG_SPEC_VERSION);
	brig_jsonw_kv_strings(&w, "hooks", brig_hook_stage_names, BRIG_HOOK_N_STAGES);
	brig_jsonw_key(&w, "mountOptions");
	brig_jsonw_array_begin(&w);
	for (size_t i = 0; brig_mount_option_names[i]; i++)
		brig_jsonw_string(&w, brig_mount_option_names[i]);
	brig_jsonw_array_end(&w);
	write_linux(&w);
	write_annotations(&w, checkpoint);
	/* runtime-spec 1.2: the annotations that change what brig does (a
	 * "." ends a prefix), for engines to filter what pod authors pass:
	 * run.brig.loopback, run.brig.job.timeout, run.brig.job.result */
	brig_jsonw_key(&w, "potentiallyUnsafeConfigAnnotations");
	brig_jsonw_array_begin(&w);
	brig_jsonw_string(&w, "run.brig.");
	brig_jsonw_array_end(&w);
	brig_jsonw_object_end(&w);
	return brig_jsonw_finish(&w);
}
