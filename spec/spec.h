/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The OCI runtime-spec 1.3.0 config.json as typed C structs.
 *
 * Everything of one config lives in its arena and is freed at once by
 * brig_config_free().  Strings are NUL-terminated and never contain a NUL
 * (the parser refuses one).  Arrays are a pointer plus a count `n_<name>`.
 * An optional scalar is a brig_opt_* whose .set says whether the config
 * gave it; an optional object is a pointer, NULL when absent.
 *
 * Nothing here knows how containers are built: this is the boundary where
 * JSON becomes data (runc's specconv).  Only spec/ sees yajl.
 */
#ifndef BRIG_SPEC_SPEC_H
#define BRIG_SPEC_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"

/* GNU C predefines `linux` as 1; the spec's name for the section wins. */
#undef linux

struct brig_error;

struct brig_opt_i64 {
	bool set;
	int64_t value;
};
struct brig_opt_u64 {
	bool set;
	uint64_t value;
};
struct brig_opt_u32 {
	bool set;
	uint32_t value;
};
struct brig_opt_i32 {
	bool set;
	int32_t value;
};
struct brig_opt_u16 {
	bool set;
	uint16_t value;
};
struct brig_opt_bool {
	bool set;
	bool value;
};

/* A string-to-string map (annotations, sysctl, unified), in file order. */
struct brig_kv {
	const char *key;
	const char *value;
};

struct brig_id_mapping {
	uint32_t container_id;
	uint32_t host_id;
	uint32_t size;
};

struct brig_mount {
	const char *destination; /* required */
	const char *type;        /* NULL: none given */
	const char *source;
	const char **options;
	size_t n_options;
	struct brig_id_mapping *uid_mappings;
	size_t n_uid_mappings;
	struct brig_id_mapping *gid_mappings;
	size_t n_gid_mappings;
};

struct brig_root {
	const char *path; /* required */
	bool readonly;
};

struct brig_rlimit {
	const char *type; /* RLIMIT_* */
	int resource;     /* the RLIMIT_ constant for type */
	uint64_t soft, hard;
};

struct brig_capabilities {
	const char **bounding, **effective, **inheritable, **permitted, **ambient;
	size_t n_bounding, n_effective, n_inheritable, n_permitted, n_ambient;
};

struct brig_user {
	uint32_t uid, gid;
	struct brig_opt_u32 umask;
	uint32_t *additional_gids;
	size_t n_additional_gids;
	const char *username;
};

struct brig_console_size {
	uint32_t height, width;
};

struct brig_scheduler {
	const char *policy; /* SCHED_*; required */
	int32_t nice;
	int32_t priority;
	const char **flags; /* SCHED_FLAG_* */
	size_t n_flags;
	uint64_t runtime, deadline, period;
};

struct brig_io_priority {
	const char *class_; /* IOPRIO_CLASS_{RT,BE,IDLE} */
	int32_t priority;   /* 0..7 */
};

struct brig_cpu_affinity {
	const char *initial; /* cpu list, e.g. "0-3,7" */
	const char *final;
};

struct brig_process {
	bool terminal;
	struct brig_console_size *console_size;
	struct brig_user user;
	const char **args;
	size_t n_args;
	const char *command_line; /* Windows only; kept for completeness */
	const char **env;
	size_t n_env;
	const char *cwd; /* required, absolute */
	struct brig_capabilities *capabilities;
	struct brig_rlimit *rlimits;
	size_t n_rlimits;
	bool no_new_privileges;
	const char *apparmor_profile;
	struct brig_opt_i32 oom_score_adj;
	struct brig_scheduler *scheduler;
	const char *selinux_label;
	struct brig_io_priority *io_priority;
	struct brig_cpu_affinity *exec_cpu_affinity;
};

struct brig_hook {
	const char *path; /* required, absolute */
	const char **args;
	size_t n_args;
	const char **env;
	size_t n_env;
	struct brig_opt_i32 timeout; /* seconds, > 0 */
};

enum brig_hook_stage {
	BRIG_HOOK_PRESTART,
	BRIG_HOOK_CREATE_RUNTIME,
	BRIG_HOOK_CREATE_CONTAINER,
	BRIG_HOOK_START_CONTAINER,
	BRIG_HOOK_POSTSTART,
	BRIG_HOOK_POSTSTOP,
	BRIG_HOOK_N_STAGES,
};

/* The config.json name of a hook stage ("createRuntime", ...). */
const char *brig_hook_stage_name(enum brig_hook_stage stage);

struct brig_hooks {
	struct brig_hook *stage[BRIG_HOOK_N_STAGES];
	size_t n[BRIG_HOOK_N_STAGES];
};

enum brig_ns_type {
	BRIG_NS_PID,
	BRIG_NS_NETWORK,
	BRIG_NS_MOUNT,
	BRIG_NS_IPC,
	BRIG_NS_UTS,
	BRIG_NS_USER,
	BRIG_NS_CGROUP,
	BRIG_NS_TIME,
	BRIG_NS_N_TYPES,
};

/* The config.json name of a namespace type ("network", ...). */
const char *brig_ns_type_name(enum brig_ns_type type);

struct brig_namespace {
	enum brig_ns_type type;
	const char *path; /* NULL: a new namespace */
};

struct brig_time_offset {
	const char *clock; /* "monotonic" or "boottime" */
	int64_t secs;
	uint32_t nanosecs;
};

struct brig_device {
	const char *path; /* required, absolute */
	char type;        /* 'c', 'b', 'u' or 'p' */
	int64_t major, minor;
	struct brig_opt_u32 file_mode;
	struct brig_opt_u32 uid, gid;
};

struct brig_net_device {
	const char *host_name; /* the key of linux.netDevices */
	const char *name;      /* name in the container; NULL: same */
};

struct brig_device_cgroup {
	bool allow;
	char type;                        /* 'a', 'c' or 'b'; 'a' when absent */
	struct brig_opt_i64 major, minor; /* absent: any (-1 in cgroup terms) */
	const char *access;               /* its r, w, m count; NULL: all */
};

struct brig_memory {
	struct brig_opt_i64 limit, reservation, swap, kernel, kernel_tcp;
	struct brig_opt_u64 swappiness;
	struct brig_opt_bool disable_oom_killer, use_hierarchy, check_before_update;
};

struct brig_cpu {
	struct brig_opt_u64 shares;
	struct brig_opt_i64 quota;
	struct brig_opt_u64 burst;
	struct brig_opt_u64 period;
	struct brig_opt_i64 realtime_runtime;
	struct brig_opt_u64 realtime_period;
	const char *cpus, *mems;
	struct brig_opt_i64 idle;
};

struct brig_weight_device {
	int64_t major, minor;
	struct brig_opt_u16 weight, leaf_weight;
};

struct brig_throttle_device {
	int64_t major, minor;
	uint64_t rate;
};

struct brig_blkio {
	struct brig_opt_u16 weight, leaf_weight;
	struct brig_weight_device *weight_device;
	size_t n_weight_device;
	struct brig_throttle_device *throttle_read_bps, *throttle_write_bps, *throttle_read_iops,
	    *throttle_write_iops;
	size_t n_throttle_read_bps, n_throttle_write_bps, n_throttle_read_iops,
	    n_throttle_write_iops;
};

struct brig_hugepage_limit {
	const char *page_size; /* "2MB", "1GB", ... */
	uint64_t limit;
};

struct brig_net_priority {
	const char *name;
	uint32_t priority;
};

struct brig_network {
	struct brig_opt_u32 class_id;
	struct brig_net_priority *priorities;
	size_t n_priorities;
};

struct brig_rdma {
	const char *device; /* the key of resources.rdma */
	struct brig_opt_u32 hca_handles, hca_objects;
};

struct brig_resources {
	struct brig_device_cgroup *devices;
	size_t n_devices;
	struct brig_memory *memory;
	struct brig_cpu *cpu;
	struct brig_opt_i64 pids_limit; /* resources.pids.limit */
	bool has_pids;
	struct brig_blkio *block_io;
	struct brig_hugepage_limit *hugepage_limits;
	size_t n_hugepage_limits;
	struct brig_network *network;
	struct brig_rdma *rdma;
	size_t n_rdma;
	struct brig_kv *unified;
	size_t n_unified;
};

struct brig_intel_rdt {
	const char *clos_id;
	const char *l3_cache_schema;
	const char *mem_bw_schema;
	const char **schemata;
	size_t n_schemata;
	bool enable_monitoring;
};

struct brig_memory_policy {
	const char *mode; /* MPOL_* */
	const char *nodes;
	const char **flags; /* MPOL_F_* */
	size_t n_flags;
};

enum brig_seccomp_action {
	BRIG_SCMP_ACT_KILL, /* = KILL_THREAD */
	BRIG_SCMP_ACT_KILL_PROCESS,
	BRIG_SCMP_ACT_KILL_THREAD,
	BRIG_SCMP_ACT_TRAP,
	BRIG_SCMP_ACT_ERRNO,
	BRIG_SCMP_ACT_TRACE,
	BRIG_SCMP_ACT_ALLOW,
	BRIG_SCMP_ACT_LOG,
	BRIG_SCMP_ACT_NOTIFY,
	BRIG_SCMP_ACT_N,
};

enum brig_seccomp_op {
	BRIG_SCMP_CMP_NE,
	BRIG_SCMP_CMP_LT,
	BRIG_SCMP_CMP_LE,
	BRIG_SCMP_CMP_EQ,
	BRIG_SCMP_CMP_GE,
	BRIG_SCMP_CMP_GT,
	BRIG_SCMP_CMP_MASKED_EQ,
	BRIG_SCMP_CMP_N,
};

/* Names as config.json spells them ("SCMP_ACT_ERRNO", "SCMP_CMP_EQ"). */
const char *brig_seccomp_action_name(enum brig_seccomp_action a);
const char *brig_seccomp_op_name(enum brig_seccomp_op op);
/* Every architecture and flag name the model accepts, NULL-terminated. */
extern const char *const brig_seccomp_arch_names[];
extern const char *const brig_seccomp_flag_names[];

struct brig_seccomp_arg {
	uint32_t index; /* 0..5 */
	uint64_t value, value_two;
	enum brig_seccomp_op op;
};

struct brig_seccomp_syscall {
	const char **names;
	size_t n_names;
	enum brig_seccomp_action action;
	struct brig_opt_u32 errno_ret;
	struct brig_seccomp_arg *args;
	size_t n_args;
};

struct brig_seccomp {
	enum brig_seccomp_action default_action;
	struct brig_opt_u32 default_errno_ret;
	const char **architectures;
	size_t n_architectures;
	const char **flags;
	size_t n_flags;
	const char *listener_path;
	const char *listener_metadata;
	struct brig_seccomp_syscall *syscalls;
	size_t n_syscalls;
};

struct brig_personality {
	const char *domain; /* "LINUX" or "LINUX32" */
	const char **flags;
	size_t n_flags;
};

struct brig_linux {
	struct brig_namespace *namespaces;
	size_t n_namespaces;
	struct brig_id_mapping *uid_mappings, *gid_mappings;
	size_t n_uid_mappings, n_gid_mappings;
	struct brig_time_offset *time_offsets;
	size_t n_time_offsets;
	struct brig_device *devices;
	size_t n_devices;
	struct brig_net_device *net_devices;
	size_t n_net_devices;
	const char *cgroups_path;
	struct brig_resources *resources;
	struct brig_intel_rdt *intel_rdt;
	struct brig_memory_policy *memory_policy;
	const char *rootfs_propagation;
	struct brig_seccomp *seccomp;
	struct brig_personality *personality;
	struct brig_kv *sysctl;
	size_t n_sysctl;
	const char **masked_paths, **readonly_paths;
	size_t n_masked_paths, n_readonly_paths;
	const char *mount_label;
};

struct brig_config {
	struct brig_arena arena;
	const char *oci_version; /* required */
	struct brig_root *root;
	struct brig_mount *mounts;
	size_t n_mounts;
	struct brig_process *process;
	const char *hostname;
	const char *domainname;
	struct brig_hooks hooks;
	struct brig_kv *annotations;
	size_t n_annotations;
	struct brig_linux *linux;
};

/* The largest config file brig reads; bigger ones fail before parsing. */
#define BRIG_CONFIG_MAX_BYTES (16u << 20)

/*
 * Parse and validate config.json text.  @name is how errors name the file
 * ("config.json").  Every error is one line: "<name>: <json path>: <what>".
 */
struct brig_config *brig_config_parse(const char *name, const char *text, size_t len,
                                      struct brig_error *err);
/* Read @path relative to @dirfd (bounded) and parse it; errors name @name. */
struct brig_config *brig_config_load(int dirfd, const char *path, const char *name,
                                     struct brig_error *err);
void brig_config_free(struct brig_config *config);

/* The process.json of `exec --process FILE`: a bare process object. */
struct brig_process_doc {
	struct brig_arena arena;
	struct brig_process *process;
};
struct brig_process_doc *brig_process_parse(const char *name, const char *text, size_t len,
                                            struct brig_error *err);
void brig_process_doc_free(struct brig_process_doc *doc);

/* The LinuxResources JSON of `update --resources FILE`. */
struct brig_resources_doc {
	struct brig_arena arena;
	struct brig_resources *resources;
};
struct brig_resources_doc *brig_resources_parse(const char *name, const char *text, size_t len,
                                                struct brig_error *err);
void brig_resources_doc_free(struct brig_resources_doc *doc);

/* The namespace entry of @type in @linux, or NULL. */
const struct brig_namespace *brig_config_namespace(const struct brig_linux *linux,
                                                   enum brig_ns_type type);

#endif
