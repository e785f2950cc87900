/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The systemd cgroup driver: unit names from linux.cgroupsPath (pure), and
 * the D-Bus calls that start, update and stop the transient unit (only
 * with libsystemd).  The unit's properties, from linux.resources, are
 * cgroup/systemd_props.c's.
 *
 * The mapping follows runc's libcontainer/cgroups/systemd (common.go,
 * v1.go, v2.go, devices/systemd.go) and crun's cgroup-systemd.c; where
 * brig differs, the comment says so.
 */
#include "config.h"
#include "cgroup/systemd.h"
#include "cgroup/systemd_internal.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_SYSTEMD
#include <systemd/sd-bus.h>
#endif

#include "cgroup/devices_bpf.h"
#include "cgroup/internal.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/dlib.h"
#include "util/error.h"
#include "util/strbuf.h"

/* systemd's VALID_CHARS for unit names, plus '@' where instances are allowed. */
static bool unit_chars_valid(const char *s, bool instance)
{
	for (const char *p = s; *p; p++) {
		if (isascii((unsigned char)*p) && isalnum((unsigned char)*p))
			continue;
		if (strchr(":-_.\\", *p) || (instance && *p == '@'))
			continue;
		return false;
	}
	return true;
}

char *brig_systemd_expand_slice(const char *slice, struct brig_error *err)
{
	struct brig_strbuf path = BRIG_STRBUF_INIT;
	_cleanup_free_ char *base = NULL;
	const char *why = NULL;
	size_t len = strlen(slice);

	if (!has_suffix(slice, SLICE_SUFFIX))
		why = "must end in \"" SLICE_SUFFIX "\"";
	else if (strchr(slice, '/'))
		why = "must not contain \"/\"";
	else if (len > UNIT_NAME_MAX)
		why = "longer than 255 characters";
	else if (!unit_chars_valid(slice, false))
		why = "contains a character not valid in a unit name";
	if (why) {
		brig_error_set(err, "invalid slice name \"%s\": %s", slice, why);
		return NULL;
	}

	base = brig_xstrdup(slice);
	base[len - strlen(SLICE_SUFFIX)] = '\0';
	if (strcmp(base, "-") == 0)
		return brig_xstrdup("/");

	/* "a-b-c" is /a.slice/a-b.slice/a-b-c.slice; every part non-empty */
	for (const char *p = base;; p++) {
		if (*p != '-' && *p != '\0')
			continue;
		if (p == base || p[-1] == '-') {
			brig_strbuf_release(&path);
			brig_error_set(
			    err, "invalid slice name \"%s\": \"-\" must separate non-empty parts",
			    slice);
			return NULL;
		}
		brig_strbuf_addch(&path, '/');
		brig_strbuf_add(&path, base, (size_t)(p - base));
		brig_strbuf_addstr(&path, SLICE_SUFFIX);
		if (*p == '\0')
			break;
	}
	return brig_strbuf_detach(&path);
}

void brig_systemd_unit_release(struct brig_systemd_unit *u)
{
	free(u->slice);
	free(u->unit);
	free(u->name);
	free(u->cgroup);
	*u = (struct brig_systemd_unit)BRIG_SYSTEMD_UNIT_INIT;
}

int brig_systemd_parse_path(const char *cgroups_path, const char *id, struct brig_systemd_unit *u,
                            struct brig_error *err)
{
	_cleanup_free_ char *slice = NULL, *prefix = NULL, *name = NULL, *unit = NULL;
	_cleanup_free_ char *parent = NULL, *cgroup = NULL;

	*u = (struct brig_systemd_unit)BRIG_SYSTEMD_UNIT_INIT;
	if (!cgroups_path || !cgroups_path[0]) {
		slice = brig_xstrdup(BRIG_SYSTEMD_DEFAULT_SLICE);
		prefix = brig_xstrdup(BRIG_SYSTEMD_DEFAULT_PREFIX);
		name = brig_xstrdup(id ? id : "");
	} else {
		const char *c1 = strchr(cgroups_path, ':');
		const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2 || strchr(c2 + 1, ':'))
			return brig_error_set(
			    err,
			    "linux.cgroupsPath: expected \"slice:prefix:name\" for the "
			    "systemd cgroup driver, got \"%s\"",
			    cgroups_path);
		slice = c1 == cgroups_path
		            ? brig_xstrdup(BRIG_SYSTEMD_DEFAULT_SLICE)
		            : brig_xasprintf("%.*s", (int)(c1 - cgroups_path), cgroups_path);
		prefix = brig_xasprintf("%.*s", (int)(c2 - c1 - 1), c1 + 1);
		name = brig_xstrdup(c2 + 1);
	}
	if (!name[0])
		return brig_error_set(err, "linux.cgroupsPath: the name in \"%s\" is empty",
		                      cgroups_path ? cgroups_path : "");

	/* A scope unless the name asks for a slice.  runc and crun join prefix
	 * and name with "-" even when the prefix is empty ("-name.scope"). */
	if (has_suffix(name, SLICE_SUFFIX))
		unit = brig_xstrdup(name);
	else
		unit = brig_xasprintf("%s-%s" SCOPE_SUFFIX, prefix, name);
	if (strlen(unit) > UNIT_NAME_MAX)
		return brig_error_set(
		    err,
		    "linux.cgroupsPath: invalid unit name \"%s\": longer than 255 "
		    "characters",
		    unit);
	if (!unit_chars_valid(unit, true))
		return brig_error_set(err,
		                      "linux.cgroupsPath: invalid unit name \"%s\": contains a "
		                      "character not valid in a unit name",
		                      unit);
	if (strcmp(unit, "-" SLICE_SUFFIX) == 0)
		return brig_error_set(err, "linux.cgroupsPath: the root slice \"-.slice\" cannot "
		                           "be a container's unit");

	parent = brig_systemd_expand_slice(slice, err);
	if (!parent)
		return brig_error_wrap(err, "linux.cgroupsPath");
	if (has_suffix(unit, SLICE_SUFFIX)) {
		/* systemd places a slice by its own name, whatever wants it
		 * (runc joins the parent and the name, which agrees when the
		 * parent is the name's prefix) */
		cgroup = brig_systemd_expand_slice(unit, err);
		if (!cgroup)
			return brig_error_wrap(err, "linux.cgroupsPath");
	} else {
		cgroup = brig_xasprintf("%s/%s", strcmp(parent, "/") == 0 ? "" : parent, unit);
	}

	u->slice = TAKE_PTR(slice);
	u->unit = TAKE_PTR(unit);
	u->name = TAKE_PTR(name);
	u->cgroup = TAKE_PTR(cgroup);
	return 0;
}

unsigned int brig_systemd_parse_version(const char *s)
{
	unsigned int v = 0;

	while (*s == '"' || *s == 'v')
		s++;
	for (; isdigit((unsigned char)*s); s++) {
		if (v > 100000000)
			return 0;
		v = v * 10 + (unsigned)(*s - '0');
	}
	return v;
}

bool brig_systemd_running(void)
{
	struct stat st;

	return lstat("/run/systemd/system", &st) == 0 && S_ISDIR(st.st_mode);
}

#ifdef HAVE_SYSTEMD

/*
 * libsystemd is loaded with dlopen() the first time the driver talks to
 * systemd, not linked: it pulls in five more libraries (libgcrypt among
 * them, with constructors of its own) that every brig start would pay
 * for, and brig starts twice per container (linux/selfexe.h).
 */
#define SD_FUNCS(X)                       \
	X(sd_bus_open_system)             \
	X(sd_bus_open_user)               \
	X(sd_bus_call)                    \
	X(sd_bus_call_method)             \
	X(sd_bus_wait)                    \
	X(sd_bus_process)                 \
	X(sd_bus_message_append)          \
	X(sd_bus_message_append_array)    \
	X(sd_bus_message_open_container)  \
	X(sd_bus_message_close_container) \
	X(sd_bus_message_new_method_call) \
	X(sd_bus_message_read)            \
	X(sd_bus_match_signal)            \
	X(sd_bus_error_has_name)          \
	X(sd_bus_get_property_string)     \
	X(sd_bus_error_is_set)            \
	X(sd_bus_error_get_errno)         \
	X(sd_bus_message_unref)           \
	X(sd_bus_error_free)              \
	X(sd_bus_flush_close_unref)       \
	X(sd_bus_slot_unref)

#define X(f) static __typeof__(f) *dl_##f;
SD_FUNCS(X)
#undef X

static int sd_load(struct brig_error *err)
{
	static void *handle;
#define X(f) { #f, (void **)&dl_##f },
	static const struct brig_dlsym syms[] = { SD_FUNCS(X) };
#undef X
	size_t n = ARRAY_SIZE(syms);

	if (brig_dlib_load(&handle, "libsystemd.so.0", "libsystemd0", syms, n, err) < 0)
		return brig_error_wrap(err, "systemd cgroup driver");
	return 0;
}

#define sd_bus_open_system (*dl_sd_bus_open_system)
#define sd_bus_open_user (*dl_sd_bus_open_user)
#define sd_bus_call (*dl_sd_bus_call)
#define sd_bus_call_method (*dl_sd_bus_call_method)
#define sd_bus_wait (*dl_sd_bus_wait)
#define sd_bus_process (*dl_sd_bus_process)
#define sd_bus_message_append (*dl_sd_bus_message_append)
#define sd_bus_message_append_array (*dl_sd_bus_message_append_array)
#define sd_bus_message_open_container (*dl_sd_bus_message_open_container)
#define sd_bus_message_close_container (*dl_sd_bus_message_close_container)
#define sd_bus_message_new_method_call (*dl_sd_bus_message_new_method_call)
#define sd_bus_message_read (*dl_sd_bus_message_read)
#define sd_bus_match_signal (*dl_sd_bus_match_signal)
#define sd_bus_error_has_name (*dl_sd_bus_error_has_name)
#define sd_bus_get_property_string (*dl_sd_bus_get_property_string)
#define sd_bus_error_is_set (*dl_sd_bus_error_is_set)
#define sd_bus_error_get_errno (*dl_sd_bus_error_get_errno)
#define sd_bus_message_unref (*dl_sd_bus_message_unref)
#define sd_bus_error_free (*dl_sd_bus_error_free)
#define sd_bus_flush_close_unref (*dl_sd_bus_flush_close_unref)
#define sd_bus_slot_unref (*dl_sd_bus_slot_unref)

static void bus_unrefp(sd_bus **b)
{
	if (*b)
		sd_bus_flush_close_unref(*b);
}

static void slot_unrefp(sd_bus_slot **s)
{
	if (*s)
		sd_bus_slot_unref(*s);
}

static void message_unrefp(sd_bus_message **m)
{
	if (*m)
		sd_bus_message_unref(*m);
}

/* also at the end of calls that failed before libsystemd was loaded */
static void error_freep(sd_bus_error *e)
{
	if (dl_sd_bus_error_free)
		sd_bus_error_free(e);
}

#define SD_DESTINATION "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define SD_JOB_TIMEOUT_SEC 30

static void props_releasep(struct brig_systemd_props *props)
{
	brig_systemd_props_release(props);
}

/* "<what>: <D-Bus error message>", or the errno when there is none. */
static int bus_fail(struct brig_error *err, int r, const sd_bus_error *e, const char *what)
{
	if (e && sd_bus_error_is_set(e) && e->message) {
		size_t n = strlen(e->message);

		/* systemd's messages are sentences; brig's have no period */
		if (n > 0 && e->message[n - 1] == '.')
			n--;
		return brig_error_sete(err, sd_bus_error_get_errno(e), "%s: %.*s", what, (int)n,
		                       e->message);
	}
	return brig_error_setp(err, r < 0 ? -r : EIO, "%s", what);
}

/* The system manager's bus; rootless (not root), the user's own manager
 * (user@UID.service), found as libsystemd finds it: $DBUS_SESSION_BUS_ADDRESS,
 * or $XDG_RUNTIME_DIR/bus.  runc and crun choose the same way. */
static int bus_open(sd_bus **bus, struct brig_error *err)
{
	int r;

	if (!brig_systemd_running())
		return brig_error_set(err, "systemd cgroup driver: systemd is not running");
	if (sd_load(err) < 0)
		return -1;
	if (geteuid() == 0) {
		r = sd_bus_open_system(bus);
		if (r < 0)
			return brig_error_setp(err, -r,
			                       "systemd cgroup driver: connect to the system bus");
		return 0;
	}
	r = sd_bus_open_user(bus);
	if (r < 0)
		return brig_error_setp(err, -r,
		                       "systemd cgroup driver: rootless, connect to the user's "
		                       "systemd (DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR/bus)");
	return 0;
}

static unsigned int bus_version(sd_bus *bus)
{
	_cleanup_(error_freep) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_free_ char *version = NULL;

	if (sd_bus_get_property_string(bus, SD_DESTINATION, SD_PATH, SD_MANAGER, "Version", &e,
	                               &version) < 0)
		return 0;
	return brig_systemd_parse_version(version);
}

static int append_prop(sd_bus_message *m, const struct brig_systemd_prop *p)
{
	int r;

	switch (p->type) {
	case BRIG_SD_BOOL:
		return sd_bus_message_append(m, "(sv)", p->name, "b", (int)p->b);
	case BRIG_SD_U64:
		return sd_bus_message_append(m, "(sv)", p->name, "t", p->u64);
	case BRIG_SD_STR:
		return sd_bus_message_append(m, "(sv)", p->name, "s", p->str);
	case BRIG_SD_STRS:
		return sd_bus_message_append(m, "(sv)", p->name, "as", 1, p->str);
	case BRIG_SD_PIDS:
		return sd_bus_message_append(m, "(sv)", p->name, "au", 1, (uint32_t)p->u64);
	case BRIG_SD_BYTES:
	case BRIG_SD_DEVICE_ALLOW:
		break;
	}
	r = sd_bus_message_open_container(m, 'r', "sv");
	if (r >= 0)
		r = sd_bus_message_append(m, "s", p->name);
	if (p->type == BRIG_SD_BYTES) {
		if (r >= 0)
			r = sd_bus_message_open_container(m, 'v', "ay");
		if (r >= 0)
			r = sd_bus_message_append_array(m, 'y', p->bytes, p->n_bytes);
	} else {
		if (r >= 0)
			r = sd_bus_message_open_container(m, 'v', "a(ss)");
		if (r >= 0)
			r = sd_bus_message_open_container(m, 'a', "(ss)");
		for (size_t i = 0; r >= 0 && i < p->n_devices; i++)
			r = sd_bus_message_append(m, "(ss)", p->devices[i].path,
			                          p->devices[i].perms);
		if (r >= 0)
			r = sd_bus_message_close_container(m);
	}
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	return r;
}

static int append_props(sd_bus_message *m, const struct brig_systemd_props *props)
{
	int r = sd_bus_message_open_container(m, 'a', "(sv)");

	for (size_t i = 0; r >= 0 && i < props->n; i++)
		r = append_prop(m, &props->v[i]);
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	return r;
}

/* The result of the job we wait for, from its JobRemoved signal. */
struct job_wait {
	char *job; /* its object path; NULL until the method returned */
	char *result;
};

static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	struct job_wait *w = userdata;
	const char *path, *unit, *result;
	uint32_t id;

	(void)ret_error;
	if (sd_bus_message_read(m, "uoss", &id, &path, &unit, &result) < 0)
		return 0;
	/* signals that came during the method call are dispatched only
	 * afterwards, when the path is known */
	if (w->job && !w->result && strcmp(path, w->job) == 0)
		w->result = brig_xstrdup(result);
	return 0;
}

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / 1000;
}

static int job_wait(sd_bus *bus, struct job_wait *w, const char *what, struct brig_error *err)
{
	uint64_t deadline = now_usec() + SD_JOB_TIMEOUT_SEC * USEC_PER_SEC;

	while (!w->result) {
		uint64_t now;
		int r = sd_bus_process(bus, NULL);

		if (r < 0)
			return brig_error_setp(err, -r, "%s: wait for the job", what);
		if (r > 0)
			continue;
		now = now_usec();
		if (now >= deadline)
			return brig_error_set(err, "%s: timed out after %ds waiting for systemd",
			                      what, SD_JOB_TIMEOUT_SEC);
		r = sd_bus_wait(bus, deadline - now);
		if (r < 0 && r != -EINTR)
			return brig_error_setp(err, -r, "%s: wait for the job", what);
	}
	return 0;
}

/* Call a Manager method that returns a job ("o"), and keep its path. */
static int call_job(sd_bus *bus, sd_bus_message *m, sd_bus_error *e, struct job_wait *w)
{
	_cleanup_(message_unrefp) sd_bus_message *reply = NULL;
	const char *job;
	int r = sd_bus_call(bus, m, 0, e, &reply);

	if (r < 0)
		return r;
	r = sd_bus_message_read(reply, "o", &job);
	if (r < 0)
		return r;
	w->job = brig_xstrdup(job);
	return 0;
}

static int start_transient(sd_bus *bus, const char *unit, const struct brig_systemd_props *props,
                           sd_bus_error *e, struct job_wait *w)
{
	_cleanup_(message_unrefp) sd_bus_message *m = NULL;
	int r = sd_bus_message_new_method_call(bus, &m, SD_DESTINATION, SD_PATH, SD_MANAGER,
	                                       "StartTransientUnit");

	if (r >= 0)
		r = sd_bus_message_append(m, "ss", unit, "replace");
	if (r >= 0)
		r = append_props(m, props);
	if (r >= 0)
		r = sd_bus_message_append(m, "a(sa(sv))", 0);
	if (r < 0)
		return r;
	return call_job(bus, m, e, w);
}

/* Let systemd drop a failed unit; errors do not matter. */
static void reset_failed(sd_bus *bus, const char *unit)
{
	_cleanup_(error_freep) sd_bus_error e = SD_BUS_ERROR_NULL;

	sd_bus_call_method(bus, SD_DESTINATION, SD_PATH, SD_MANAGER, "ResetFailedUnit", &e, NULL,
	                   "s", unit);
}

static void job_wait_release(struct job_wait *w)
{
	free(w->job);
	free(w->result);
}

#endif /* HAVE_SYSTEMD */

#define NO_LIBSYSTEMD "systemd cgroup driver: brig was built without libsystemd"

int brig_systemd_start(const struct brig_systemd_unit *u, pid_t pid, const struct brig_resources *r,
                       const struct brig_dev_rule *devices, size_t n_devices, bool v2,
                       bool *created, struct brig_error *err)
{
#ifdef HAVE_SYSTEMD
	_cleanup_(bus_unrefp) sd_bus *bus = NULL;
	_cleanup_(slot_unrefp) sd_bus_slot *slot = NULL;
	_cleanup_(props_releasep) struct brig_systemd_props props = BRIG_SYSTEMD_PROPS_INIT;
	_cleanup_(job_wait_release) struct job_wait w = { NULL, NULL };
	_cleanup_free_ char *what = brig_xasprintf("start systemd unit \"%s\"", u->unit);
	int ret;

	if (bus_open(&bus, err) < 0)
		return -1;
	if (brig_systemd_unit_properties(u, pid, r, devices, n_devices, v2, bus_version(bus),
	                                 &props, err) < 0)
		return -1;
	/* subscribed before the call, so that the signal cannot be missed */
	ret = sd_bus_match_signal(bus, &slot, SD_DESTINATION, SD_PATH, SD_MANAGER, "JobRemoved",
	                          on_job_removed, &w);
	if (ret < 0)
		return brig_error_setp(err, -ret, "%s: subscribe to JobRemoved", what);

	for (int attempt = 0;; attempt++) {
		_cleanup_(error_freep) sd_bus_error e = SD_BUS_ERROR_NULL;

		ret = start_transient(bus, u->unit, &props, &e, &w);
		if (ret >= 0) {
			/* systemd made the unit for brig: it is brig's to stop */
			if (created)
				*created = true;
			break;
		}
		if (!sd_bus_error_has_name(&e, "org.freedesktop.systemd1.UnitExists") ||
		    attempt > 0)
			return bus_fail(err, ret, &e, what);
		/* no process to place: the unit (a slice) being there is enough */
		if (pid == -1)
			return 0;
		/* perhaps a failed leftover: let systemd drop it, then once more */
		reset_failed(bus, u->unit);
	}

	if (job_wait(bus, &w, what, err) < 0) {
		reset_failed(bus, u->unit);
		return -1;
	}
	if (strcmp(w.result, "done") != 0) {
		reset_failed(bus, u->unit);
		return brig_error_set(err, "%s: the job ended \"%s\"", what, w.result);
	}
	return 0;
#else
	(void)u, (void)pid, (void)r, (void)devices, (void)n_devices, (void)v2, (void)created;
	return brig_error_set(err, NO_LIBSYSTEMD);
#endif
}

char *brig_systemd_manager_cgroup(struct brig_error *err)
{
#ifdef HAVE_SYSTEMD
	_cleanup_(bus_unrefp) sd_bus *bus = NULL;
	_cleanup_(error_freep) sd_bus_error e = SD_BUS_ERROR_NULL;
	char *cgroup = NULL;
	int r;
	size_t n;

	if (geteuid() == 0)
		return brig_xstrdup("");
	if (bus_open(&bus, err) < 0)
		return NULL;
	r = sd_bus_get_property_string(bus, SD_DESTINATION, SD_PATH, SD_MANAGER, "ControlGroup", &e,
	                               &cgroup);
	if (r < 0) {
		bus_fail(err, r, &e, "systemd cgroup driver: the user manager's ControlGroup");
		return NULL;
	}
	n = strlen(cgroup);
	while (n > 0 && cgroup[n - 1] == '/')
		cgroup[--n] = '\0';
	if (cgroup[0] != '/' && n > 0) {
		brig_error_set(err,
		               "systemd cgroup driver: the user manager's ControlGroup \"%s\" "
		               "is not a path",
		               cgroup);
		free(cgroup);
		return NULL;
	}
	return cgroup;
#else
	return brig_xstrdup("");
#endif
}

int brig_systemd_stop(const char *unit, struct brig_error *err)
{
#ifdef HAVE_SYSTEMD
	_cleanup_(bus_unrefp) sd_bus *bus = NULL;
	_cleanup_(slot_unrefp) sd_bus_slot *slot = NULL;
	_cleanup_(message_unrefp) sd_bus_message *m = NULL;
	_cleanup_(error_freep) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(job_wait_release) struct job_wait w = { NULL, NULL };
	_cleanup_free_ char *what = brig_xasprintf("stop systemd unit \"%s\"", unit);
	int ret;

	if (bus_open(&bus, err) < 0)
		return -1;
	ret = sd_bus_match_signal(bus, &slot, SD_DESTINATION, SD_PATH, SD_MANAGER, "JobRemoved",
	                          on_job_removed, &w);
	if (ret < 0)
		return brig_error_setp(err, -ret, "%s: subscribe to JobRemoved", what);
	ret = sd_bus_message_new_method_call(bus, &m, SD_DESTINATION, SD_PATH, SD_MANAGER,
	                                     "StopUnit");
	if (ret >= 0)
		ret = sd_bus_message_append(m, "ss", unit, "replace");
	if (ret >= 0)
		ret = call_job(bus, m, &e, &w);
	if (ret < 0) {
		if (sd_bus_error_has_name(&e, "org.freedesktop.systemd1.NoSuchUnit"))
			return 0;
		return bus_fail(err, ret, &e, what);
	}
	/* a job that ends other than "done" is no error: runc goes on too */
	if (job_wait(bus, &w, what, err) < 0)
		return -1;
	reset_failed(bus, unit);
	return 0;
#else
	(void)unit;
	return brig_error_set(err, NO_LIBSYSTEMD);
#endif
}

int brig_systemd_update(const char *unit, const struct brig_resources *r,
                        const struct brig_dev_rule *devices, size_t n_devices, bool v2,
                        struct brig_error *err)
{
#ifdef HAVE_SYSTEMD
	_cleanup_(bus_unrefp) sd_bus *bus = NULL;
	_cleanup_(message_unrefp) sd_bus_message *m = NULL;
	_cleanup_(error_freep) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(props_releasep) struct brig_systemd_props props = BRIG_SYSTEMD_PROPS_INIT;
	_cleanup_free_ char *what = brig_xasprintf("update systemd unit \"%s\"", unit);
	int ret;

	if (bus_open(&bus, err) < 0)
		return -1;
	if (brig_systemd_properties(r, devices, n_devices, v2, bus_version(bus), &props, err) < 0)
		return -1;
	if (props.n == 0)
		return 0;
	ret = sd_bus_message_new_method_call(bus, &m, SD_DESTINATION, SD_PATH, SD_MANAGER,
	                                     "SetUnitProperties");
	if (ret >= 0)
		ret = sd_bus_message_append(m, "sb", unit, 1);
	if (ret >= 0)
		ret = append_props(m, &props);
	if (ret >= 0)
		ret = sd_bus_call(bus, m, 0, &e, NULL);
	if (ret < 0)
		return bus_fail(err, ret, &e, what);
	return 0;
#else
	(void)unit, (void)r, (void)devices, (void)n_devices, (void)v2;
	return brig_error_set(err, NO_LIBSYSTEMD);
#endif
}
