/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The config of a job: what brig-job(8) promises, written as config.json
 * and then read back by the lifecycle like any bundle's, so a job is
 * checked and built by the same code as every container.  From a
 * --bundle only the process's args, env, cwd and user, the hostname and
 * the mounts that the job does not define itself are taken; everything
 * that confines is the job's.
 */
#include "config.h"
#include "job/internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/job.h"
#include "spec/default.h"
#include "spec/profile.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/jsonw.h"

#define JOB_PATH "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* What an untrusted job never needs, on top of the default profile's own
 * refusals (most of these are refused there already; keyctl is allowed). */
static const char *const job_denied[] = {
	"add_key",
	"bpf",
	"fanotify_init",
	"kexec_file_load",
	"kexec_load",
	"keyctl",
	"mount",
	"mount_setattr",
	"move_mount",
	"open_by_handle_at",
	"open_tree",
	"perf_event_open",
	"pivot_root",
	"process_vm_readv",
	"process_vm_writev",
	"ptrace",
	"request_key",
	"setns",
	"umount2",
	"unshare",
	"userfaultfd",
	"fsopen",
	"fsconfig",
	"fsmount",
	"fspick",
	/* io_uring's operations are not system calls: seccomp never sees
	 * them (moby#46762, containerd#9320) */
	"io_uring_enter",
	"io_uring_register",
	"io_uring_setup",
};

/* Beyond runc's: what tells a job about the host's hardware and power. */
static const char *const job_masked[] = {
	"/proc/interrupts",
	"/sys/devices/virtual/powercap",
	"/sys/fs/selinux",
	"/sys/dev/block",
};

/* The mounts a job always has; a bundle's mount on one of these
 * destinations is not taken. */
struct job_mount {
	const char *destination, *type, *source;
	const char *const *options;
};

#define OPTS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static const struct job_mount job_mounts[] = {
	{ "/proc", "proc", "proc", OPTS("nosuid", "noexec", "nodev") },
	{ "/dev", "tmpfs", "tmpfs", OPTS("nosuid", "strictatime", "mode=755", "size=65536k") },
	{ "/dev/pts", "devpts", "devpts",
	  OPTS("nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5") },
	{ "/dev/shm", "tmpfs", "shm",
	  OPTS("nosuid", "noexec", "nodev", "mode=1777", "size=65536k") },
	{ "/dev/mqueue", "mqueue", "mqueue", OPTS("nosuid", "noexec", "nodev") },
	{ "/sys", "sysfs", "sysfs", OPTS("nosuid", "noexec", "nodev", "ro") },
};

/* sysfs needs a network namespace of the job's own: with the host's, the
 * host's /sys is bound (runc's rootless rule). */
static const struct job_mount host_sys = {
	"/sys",
	"none",
	"/sys",
	OPTS("rbind", "nosuid", "noexec", "nodev", "ro"),
};

static size_t count(const char *const *list)
{
	size_t n = 0;

	while (list[n])
		n++;
	return n;
}

static void write_mount(struct brig_jsonw *w, const struct job_mount *m)
{
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_string(w, "destination", m->destination);
	brig_jsonw_kv_string(w, "type", m->type);
	brig_jsonw_kv_string(w, "source", m->source);
	brig_jsonw_kv_strings(w, "options", m->options, count(m->options));
	brig_jsonw_object_end(w);
}

static bool job_destination(const char *dest)
{
	for (size_t i = 0; i < ARRAY_SIZE(job_mounts); i++)
		if (!strcmp(job_mounts[i].destination, dest))
			return true;
	return false;
}

static bool has_option(const struct brig_mount *m, const char *opt)
{
	for (size_t i = 0; i < m->n_options; i++)
		if (!strcmp(m->options[i], opt))
			return true;
	return false;
}

static bool is_bind(const struct brig_mount *m)
{
	return (m->type && !strcmp(m->type, "bind")) || has_option(m, "bind") ||
	       has_option(m, "rbind");
}

/* The host's nobody and nogroup */
#define NOBODY 65534u

/*
 * How a bind's files are owned in the job.  With a user namespace, as on
 * the host: not idmapped, the job's ids are its own unprivileged range,
 * host-root's files are nobody's to it.  Without one the job's uid 0 is
 * the host's (owner of root's files, and with --keep-caps maybe
 * privileged over them): the bind is idmapped so that the job's uid k is
 * bind_id+k on the disk, and every disk id outside that range, root's
 * first, is unmapped in it, which no capability overrides
 * (privileged_wrt_inode_uidgid) and which the kernel lets nobody write
 * (HAS_UNMAPPED_ID).  But for the host's nobody (65534), which stays
 * itself: a directory of nobody's that others may write is where a
 * caller collects a job's files, with a user namespace or without.
 */
static void write_bind_ids(struct brig_jsonw *w, const struct brig_job_plan *p)
{
	if (p->userns)
		return;
	for (size_t i = 0; i < 2; i++) {
		brig_jsonw_key(w, i ? "gidMappings" : "uidMappings");
		brig_jsonw_array_begin(w);
		brig_jsonw_object_begin(w);
		brig_jsonw_kv_uint(w, "containerID", p->bind_id);
		brig_jsonw_kv_uint(w, "hostID", 0);
		brig_jsonw_kv_uint(w, "size", NOBODY);
		brig_jsonw_object_end(w);
		brig_jsonw_object_begin(w);
		brig_jsonw_kv_uint(w, "containerID", NOBODY);
		brig_jsonw_kv_uint(w, "hostID", NOBODY);
		brig_jsonw_kv_uint(w, "size", 1);
		brig_jsonw_object_end(w);
		brig_jsonw_array_end(w);
	}
}

/* A bundle's own mount (not on one of the job's): as written, plus nosuid
 * and nodev; without a user namespace, a bind with no idmapping of its own
 * gets the binds' (write_bind_ids). */
static void write_base_mount(struct brig_jsonw *w, const struct brig_job_plan *p,
                             const struct brig_mount *m)
{
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_string(w, "destination", m->destination);
	if (m->type)
		brig_jsonw_kv_string(w, "type", m->type);
	if (m->source)
		brig_jsonw_kv_string(w, "source", m->source);
	brig_jsonw_key(w, "options");
	brig_jsonw_array_begin(w);
	for (size_t i = 0; i < m->n_options; i++)
		brig_jsonw_string(w, m->options[i]);
	brig_jsonw_string(w, "nosuid");
	brig_jsonw_string(w, "nodev");
	brig_jsonw_array_end(w);
	if (is_bind(m) && !m->n_uid_mappings && !m->n_gid_mappings && !has_option(m, "idmap") &&
	    !has_option(m, "ridmap"))
		write_bind_ids(w, p);
	for (size_t i = 0; i < 2; i++) {
		const struct brig_id_mapping *map = i ? m->gid_mappings : m->uid_mappings;
		size_t n = i ? m->n_gid_mappings : m->n_uid_mappings;

		if (!n)
			continue;
		brig_jsonw_key(w, i ? "gidMappings" : "uidMappings");
		brig_jsonw_array_begin(w);
		for (size_t k = 0; k < n; k++) {
			brig_jsonw_object_begin(w);
			brig_jsonw_kv_uint(w, "containerID", map[k].container_id);
			brig_jsonw_kv_uint(w, "hostID", map[k].host_id);
			brig_jsonw_kv_uint(w, "size", map[k].size);
			brig_jsonw_object_end(w);
		}
		brig_jsonw_array_end(w);
	}
	brig_jsonw_object_end(w);
}

static void write_bind(struct brig_jsonw *w, const struct brig_job_plan *p,
                       const struct brig_job_bind *b)
{
	const char *const *opts = OPTS("bind", b->rw ? "rw" : "ro", "nosuid", "nodev");

	brig_jsonw_object_begin(w);
	brig_jsonw_kv_string(w, "destination", b->destination);
	brig_jsonw_kv_string(w, "type", "bind");
	brig_jsonw_kv_string(w, "source", b->source);
	brig_jsonw_kv_strings(w, "options", opts, count(opts));
	write_bind_ids(w, p);
	brig_jsonw_object_end(w);
}

static void write_mounts(struct brig_jsonw *w, const struct brig_job_plan *p)
{
	const struct brig_job_opts *o = p->o;

	brig_jsonw_key(w, "mounts");
	brig_jsonw_array_begin(w);
	for (size_t i = 0; i < ARRAY_SIZE(job_mounts); i++)
		write_mount(w, o->network == BRIG_JOB_NET_HOST &&
		                       !strcmp(job_mounts[i].destination, "/sys")
		                   ? &host_sys
		                   : &job_mounts[i]);
	for (size_t i = 0; p->base && i < p->base->n_mounts; i++)
		if (!job_destination(p->base->mounts[i].destination))
			write_base_mount(w, p, &p->base->mounts[i]);
	for (size_t i = 0; i < o->n_tmpfs; i++) {
		_cleanup_free_ char *size =
		    brig_xasprintf("size=%llu", (unsigned long long)o->tmpfs[i].size);

		write_mount(w, &(struct job_mount){ o->tmpfs[i].path, "tmpfs", "tmpfs",
		                                    OPTS("nosuid", "nodev", "mode=1777", size) });
	}
	for (size_t i = 0; i < o->n_binds; i++)
		write_bind(w, p, &o->binds[i]);
	/* last: over any the rootfs or a bind brings */
	if (p->resolv_conf)
		write_bind(w, p,
		           &(struct brig_job_bind){ p->resolv_conf, "/etc/resolv.conf", false });
	brig_jsonw_array_end(w);
}

/* Whether the job can write to a host directory: a rw --mount, or a bind
 * of --bundle's that is not read-only. */
static bool has_rw_bind(const struct brig_job_plan *p)
{
	for (size_t i = 0; i < p->o->n_binds; i++)
		if (p->o->binds[i].rw)
			return true;
	for (size_t i = 0; p->base && i < p->base->n_mounts; i++)
		if (!job_destination(p->base->mounts[i].destination) &&
		    is_bind(&p->base->mounts[i]) && !has_option(&p->base->mounts[i], "ro"))
			return true;
	return false;
}

char *brig_job_cap_name(const char *name)
{
	char *s =
	    strncasecmp(name, "CAP_", 4) ? brig_xasprintf("CAP_%s", name) : brig_xstrdup(name);

	for (char *c = s; *c; c++)
		if (*c >= 'a' && *c <= 'z')
			*c = (char)(*c - 'a' + 'A');
	return s;
}

static bool keeps_cap(const struct brig_job_opts *o, const char *cap)
{
	for (size_t i = 0; i < o->n_keep_caps; i++) {
		_cleanup_free_ char *c = brig_job_cap_name(o->keep_caps[i]);

		if (!strcmp(c, cap))
			return true;
	}
	return false;
}

static void write_caps(struct brig_jsonw *w, const struct brig_job_opts *o)
{
	static const char *const sets[] = { "bounding", "effective", "permitted", "inheritable",
		                            "ambient" };

	brig_jsonw_key(w, "capabilities");
	brig_jsonw_object_begin(w);
	for (size_t s = 0; s < ARRAY_SIZE(sets); s++) {
		brig_jsonw_key(w, sets[s]);
		brig_jsonw_array_begin(w);
		for (size_t i = 0; i < o->n_keep_caps; i++) {
			_cleanup_free_ char *c = brig_job_cap_name(o->keep_caps[i]);

			brig_jsonw_string(w, c);
		}
		brig_jsonw_array_end(w);
	}
	brig_jsonw_object_end(w);
}

static void write_rlimit(struct brig_jsonw *w, const char *type, uint64_t soft, uint64_t hard)
{
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_string(w, "type", type);
	brig_jsonw_kv_uint(w, "soft", soft);
	brig_jsonw_kv_uint(w, "hard", hard);
	brig_jsonw_object_end(w);
}

/* The environment: PATH, a bundle's (without TERM), then --env; HOME is
 * left to brig, which sets the user's from the rootfs's /etc/passwd. */
static void write_env(struct brig_jsonw *w, const struct brig_job_plan *p)
{
	const struct brig_process *bp = p->base ? p->base->process : NULL;
	bool has_path = false;

	for (size_t i = 0; bp && i < bp->n_env; i++)
		has_path |= !strncmp(bp->env[i], "PATH=", 5);
	brig_jsonw_key(w, "env");
	brig_jsonw_array_begin(w);
	if (!has_path)
		brig_jsonw_string(w, JOB_PATH);
	for (size_t i = 0; bp && i < bp->n_env; i++)
		if (strncmp(bp->env[i], "TERM=", 5))
			brig_jsonw_string(w, bp->env[i]);
	for (size_t i = 0; i < p->o->n_env; i++)
		brig_jsonw_string(w, p->o->env[i]);
	brig_jsonw_array_end(w);
}

static void write_process(struct brig_jsonw *w, const struct brig_job_plan *p)
{
	const struct brig_job_opts *o = p->o;
	const struct brig_process *bp = p->base ? p->base->process : NULL;

	brig_jsonw_key(w, "process");
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_bool(w, "terminal", false);
	brig_jsonw_key(w, "user");
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_uint(w, "uid", o->has_user ? o->uid : bp ? bp->user.uid : 0);
	brig_jsonw_kv_uint(w, "gid", o->has_user ? o->gid : bp ? bp->user.gid : 0);
	brig_jsonw_object_end(w);
	if (o->argc)
		brig_jsonw_kv_strings(w, "args", (const char *const *)o->argv, o->argc);
	else if (bp)
		brig_jsonw_kv_strings(w, "args", bp->args, bp->n_args);
	else /* a pool member's init waits and never runs it, but it must be
	      * found: its own executable is in every rootfs */
		brig_jsonw_kv_strings(w, "args", (const char *const[]){ "/proc/self/exe" }, 1);
	write_env(w, p);
	brig_jsonw_kv_string(w, "cwd", o->cwd ? o->cwd : bp ? bp->cwd : "/");
	write_caps(w, o);
	brig_jsonw_key(w, "rlimits");
	brig_jsonw_array_begin(w);
	write_rlimit(w, "RLIMIT_CORE", 0, 0);
	write_rlimit(w, "RLIMIT_NOFILE", 1024, 1024);
	/* soft: SIGXCPU, a second later SIGKILL (setrlimit(2)) */
	if (o->cpu_time_ms) {
		uint64_t s = (o->cpu_time_ms + 999) / 1000;

		write_rlimit(w, "RLIMIT_CPU", s, s + 1);
	}
	brig_jsonw_array_end(w);
	brig_jsonw_kv_bool(w, "noNewPrivileges", true);
	brig_jsonw_object_end(w);
}

static void write_mapping(struct brig_jsonw *w, const char *key, uint32_t host)
{
	brig_jsonw_key(w, key);
	brig_jsonw_array_begin(w);
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_uint(w, "containerID", 0);
	brig_jsonw_kv_uint(w, "hostID", host);
	brig_jsonw_kv_uint(w, "size", BRIG_JOB_IDS);
	brig_jsonw_object_end(w);
	brig_jsonw_array_end(w);
}

static void write_resources(struct brig_jsonw *w, const struct brig_job_opts *o)
{
	brig_jsonw_key(w, "resources");
	brig_jsonw_object_begin(w);
	if (o->memory) {
		brig_jsonw_key(w, "memory");
		brig_jsonw_object_begin(w);
		brig_jsonw_kv_uint(w, "limit", o->memory);
		brig_jsonw_kv_uint(w, "swap", o->memory); /* no swap */
		brig_jsonw_object_end(w);
	}
	if (o->pids) {
		brig_jsonw_key(w, "pids");
		brig_jsonw_object_begin(w);
		brig_jsonw_kv_uint(w, "limit", o->pids);
		brig_jsonw_object_end(w);
	}
	/* --cpus 0: no bound (the parser keeps a default of 1) */
	if (o->cpus > 0) {
		brig_jsonw_key(w, "cpu");
		brig_jsonw_object_begin(w);
		brig_jsonw_kv_uint(w, "quota", (uint64_t)(o->cpus * 100000.0 + 0.5));
		brig_jsonw_kv_uint(w, "period", 100000);
		brig_jsonw_object_end(w);
	}
	brig_jsonw_object_end(w);
}

/* The job's profile: --seccomp's, with the job's denials for brig's own;
 * with a rw bind, whatever --seccomp says, no setuid, setgid or device
 * file (spec/profile.h), alone when it says unconfined. */
static int write_seccomp(struct brig_jsonw *w, const struct brig_job_plan *p,
                         struct brig_error *err)
{
	const struct brig_job_opts *o = p->o;
	unsigned int flags = has_rw_bind(p) ? BRIG_PROFILE_NO_SETID : 0;
	_cleanup_free_ char *text = NULL;
	size_t len;

	if (flags && !p->userns && keeps_cap(o, "CAP_CHOWN"))
		flags |= BRIG_PROFILE_NO_CHOWN;

	if (o->seccomp && !strcmp(o->seccomp, "unconfined")) {
		if (!flags)
			return 0;
		brig_jsonw_key(w, "seccomp");
		return brig_seccomp_profile_write(w, "the default seccomp profile",
		                                  brig_job_default_profile,
		                                  brig_job_default_profile_len, NULL, 0, NULL,
		                                  flags | BRIG_PROFILE_RULES_ONLY, err);
	}
	brig_jsonw_key(w, "seccomp");
	if (!o->seccomp || !strcmp(o->seccomp, "default"))
		return brig_seccomp_profile_write(w, "the default seccomp profile",
		                                  brig_job_default_profile,
		                                  brig_job_default_profile_len, job_denied,
		                                  ARRAY_SIZE(job_denied), p->listener, flags, err);
	if (brig_read_file(AT_FDCWD, o->seccomp, BRIG_CONFIG_MAX_BYTES, &text, &len, err) < 0)
		return brig_error_wrap(err, "--seccomp");
	if (brig_seccomp_profile_write(w, o->seccomp, text, len, NULL, 0, NULL, flags, err) < 0)
		return brig_error_wrap(err, "--seccomp");
	return 0;
}

static void write_paths(struct brig_jsonw *w)
{
	brig_jsonw_key(w, "maskedPaths");
	brig_jsonw_array_begin(w);
	for (size_t i = 0; i < brig_spec_n_masked_paths; i++)
		brig_jsonw_string(w, brig_spec_masked_paths[i]);
	for (size_t i = 0; i < ARRAY_SIZE(job_masked); i++)
		brig_jsonw_string(w, job_masked[i]);
	brig_jsonw_array_end(w);
	brig_jsonw_kv_strings(w, "readonlyPaths", brig_spec_readonly_paths,
	                      brig_spec_n_readonly_paths);
}

static int write_linux(struct brig_jsonw *w, const struct brig_job_plan *p, struct brig_error *err)
{
	static const char *const ns[] = { "pid", "ipc", "uts", "mount", "cgroup" };

	brig_jsonw_key(w, "linux");
	brig_jsonw_object_begin(w);
	if (p->userns) {
		write_mapping(w, "uidMappings", p->host_id);
		write_mapping(w, "gidMappings", p->host_id);
	}
	brig_jsonw_key(w, "namespaces");
	brig_jsonw_array_begin(w);
	for (size_t i = 0; i < ARRAY_SIZE(ns); i++) {
		brig_jsonw_object_begin(w);
		brig_jsonw_kv_string(w, "type", ns[i]);
		brig_jsonw_object_end(w);
	}
	for (size_t i = 0; i < 2; i++) {
		const char *type = i ? "user" : "network";

		if (i ? !p->userns : p->o->network == BRIG_JOB_NET_HOST)
			continue;
		brig_jsonw_object_begin(w);
		brig_jsonw_kv_string(w, "type", type);
		brig_jsonw_object_end(w);
	}
	brig_jsonw_array_end(w);
	write_resources(w, p->o);
	if (write_seccomp(w, p, err) < 0)
		return -1;
	write_paths(w);
	brig_jsonw_object_end(w);
	return 0;
}

/* A bundle's annotations, and with --network none lo stays down (init.c) */
static void write_annotations(struct brig_jsonw *w, const struct brig_job_plan *p)
{
	brig_jsonw_key(w, "annotations");
	brig_jsonw_object_begin(w);
	for (size_t i = 0; p->base && i < p->base->n_annotations; i++)
		if (strcmp(p->base->annotations[i].key, "run.brig.loopback"))
			brig_jsonw_kv_string(w, p->base->annotations[i].key,
			                     p->base->annotations[i].value);
	if (p->o->network == BRIG_JOB_NET_NONE)
		brig_jsonw_kv_string(w, "run.brig.loopback", "down");
	brig_jsonw_object_end(w);
}

char *brig_job_config(const struct brig_job_plan *p, struct brig_error *err)
{
	struct brig_jsonw w;
	const char *hostname = p->base && p->base->hostname ? p->base->hostname : "job";

	brig_jsonw_init(&w, NULL);
	brig_jsonw_object_begin(&w);
	brig_jsonw_kv_string(&w, "ociVersion", BRIG_SPEC_VERSION);
	brig_jsonw_key(&w, "root");
	brig_jsonw_object_begin(&w);
	brig_jsonw_kv_string(&w, "path", p->rootfs);
	brig_jsonw_object_end(&w);
	write_process(&w, p);
	brig_jsonw_kv_string(&w, "hostname", hostname);
	write_mounts(&w, p);
	write_annotations(&w, p);
	if (write_linux(&w, p, err) < 0) {
		brig_jsonw_release(&w);
		return NULL;
	}
	brig_jsonw_object_end(&w);
	return brig_jsonw_finish(&w);
}
