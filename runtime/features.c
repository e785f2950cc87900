/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "features.h"

#include <ctype.h>
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

static void write_linux(struct brig_jsonw *w)
{
	brig_jsonw_key(w, "linux");
	brig_jsonw_object_begin(w);
	/* user namespaces arrive with id mappings */
	brig_jsonw_key(w, "namespaces");
	brig_jsonw_array_begin(w);
	for (int t = 0; t < BRIG_NS_N_TYPES; t++)
		if (t != BRIG_NS_USER)
			brig_jsonw_string(w, brig_ns_type_name(t));
	brig_jsonw_array_end(w);
	write_capabilities(w);
	brig_jsonw_key(w, "cgroup");
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_bool(w, "v1", false);
	brig_jsonw_kv_bool(w, "v2", false);
	brig_jsonw_kv_bool(w, "systemd", false);
	brig_jsonw_kv_bool(w, "systemdUser", false);
	brig_jsonw_kv_bool(w, "rdma", false);
	brig_jsonw_object_end(w);
	/* the seccomp filter is not loaded yet, whether or not libseccomp is in */
	write_enabled(w, "seccomp", false);
	write_enabled(w, "apparmor", false);
	write_enabled(w, "selinux", false);
	write_enabled(w, "intelRdt", false);
	brig_jsonw_key(w, "mountExtensions");
	brig_jsonw_object_begin(w);
	write_enabled(w, "idmap", false);
	brig_jsonw_object_end(w);
	brig_jsonw_object_end(w);
}

static void write_annotations(struct brig_jsonw *w)
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
	brig_jsonw_kv_string(w, "run.brig.systemd", "compiled out (--without-systemd, or no libsystemd)");
#endif
	snprintf(buf, sizeof(buf), "%s", BRIG_COMMIT);
	brig_jsonw_kv_string(w, "run.brig.commit", buf);
	brig_jsonw_object_end(w);
}

char *brig_features_json(void)
{
	struct brig_jsonw w;

	brig_jsonw_init(&w, "    ");
	brig_jsonw_object_begin(&w);
	brig_jsonw_kv_string(&w, "ociVersionMin", BRIG_SPEC_VERSION_MIN);
	brig_jsonw_kv_string(&w, "ociVersionMax", BRIG_SPEC_VERSION);
	/* hooks are refused until they are implemented */
	brig_jsonw_kv_strings(&w, "hooks", NULL, 0);
	brig_jsonw_key(&w, "mountOptions");
	brig_jsonw_array_begin(&w);
	for (size_t i = 0; brig_mount_option_names[i]; i++)
		/* idmapped mounts arrive with user namespaces */
		if (strcmp(brig_mount_option_names[i], "idmap") &&
		    strcmp(brig_mount_option_names[i], "ridmap"))
			brig_jsonw_string(&w, brig_mount_option_names[i]);
	brig_jsonw_array_end(&w);
	write_linux(&w);
	write_annotations(&w);
	brig_jsonw_object_end(&w);
	return brig_jsonw_finish(&w);
}
