/* SPDX-License-Identifier: Apache-2.0 */
/* The names config.json uses for enumerations, in enum order. */
#include "config.h"
#include "spec/spec.h"
#include "spec/names.h"

#include <stddef.h>
#include <sys/resource.h>

const char *const brig_hook_stage_names[] = {
	[BRIG_HOOK_PRESTART] = "prestart",
	[BRIG_HOOK_CREATE_RUNTIME] = "createRuntime",
	[BRIG_HOOK_CREATE_CONTAINER] = "createContainer",
	[BRIG_HOOK_START_CONTAINER] = "startContainer",
	[BRIG_HOOK_POSTSTART] = "poststart",
	[BRIG_HOOK_POSTSTOP] = "poststop",
	NULL,
};

const char *const brig_ns_type_names[] = {
	[BRIG_NS_PID] = "pid",       [BRIG_NS_NETWORK] = "network", [BRIG_NS_MOUNT] = "mount",
	[BRIG_NS_IPC] = "ipc",       [BRIG_NS_UTS] = "uts",         [BRIG_NS_USER] = "user",
	[BRIG_NS_CGROUP] = "cgroup", [BRIG_NS_TIME] = "time",       NULL,
};

const char *const brig_seccomp_action_names[] = {
	[BRIG_SCMP_ACT_KILL] = "SCMP_ACT_KILL",
	[BRIG_SCMP_ACT_KILL_PROCESS] = "SCMP_ACT_KILL_PROCESS",
	[BRIG_SCMP_ACT_KILL_THREAD] = "SCMP_ACT_KILL_THREAD",
	[BRIG_SCMP_ACT_TRAP] = "SCMP_ACT_TRAP",
	[BRIG_SCMP_ACT_ERRNO] = "SCMP_ACT_ERRNO",
	[BRIG_SCMP_ACT_TRACE] = "SCMP_ACT_TRACE",
	[BRIG_SCMP_ACT_ALLOW] = "SCMP_ACT_ALLOW",
	[BRIG_SCMP_ACT_LOG] = "SCMP_ACT_LOG",
	[BRIG_SCMP_ACT_NOTIFY] = "SCMP_ACT_NOTIFY",
	NULL,
};

const char *const brig_seccomp_op_names[] = {
	[BRIG_SCMP_CMP_NE] = "SCMP_CMP_NE",
	[BRIG_SCMP_CMP_LT] = "SCMP_CMP_LT",
	[BRIG_SCMP_CMP_LE] = "SCMP_CMP_LE",
	[BRIG_SCMP_CMP_EQ] = "SCMP_CMP_EQ",
	[BRIG_SCMP_CMP_GE] = "SCMP_CMP_GE",
	[BRIG_SCMP_CMP_GT] = "SCMP_CMP_GT",
	[BRIG_SCMP_CMP_MASKED_EQ] = "SCMP_CMP_MASKED_EQ",
	NULL,
};

const char *const brig_seccomp_arch_names[] = {
	"SCMP_ARCH_X86",     "SCMP_ARCH_X86_64",   "SCMP_ARCH_X32",         "SCMP_ARCH_ARM",
	"SCMP_ARCH_AARCH64", "SCMP_ARCH_MIPS",     "SCMP_ARCH_MIPS64",      "SCMP_ARCH_MIPS64N32",
	"SCMP_ARCH_MIPSEL",  "SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC",
	"SCMP_ARCH_PPC64",   "SCMP_ARCH_PPC64LE",  "SCMP_ARCH_S390",        "SCMP_ARCH_S390X",
	"SCMP_ARCH_PARISC",  "SCMP_ARCH_PARISC64", "SCMP_ARCH_RISCV64",     "SCMP_ARCH_LOONGARCH64",
	"SCMP_ARCH_M68K",    "SCMP_ARCH_SH",       "SCMP_ARCH_SHEB",        NULL,
};

const char *const brig_seccomp_flag_names[] = {
	"SECCOMP_FILTER_FLAG_TSYNC",
	"SECCOMP_FILTER_FLAG_LOG",
	"SECCOMP_FILTER_FLAG_SPEC_ALLOW",
	"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV",
	NULL,
};

const struct brig_rlimit_name brig_rlimit_names[] = {
	{ "RLIMIT_AS", RLIMIT_AS },
	{ "RLIMIT_CORE", RLIMIT_CORE },
	{ "RLIMIT_CPU", RLIMIT_CPU },
	{ "RLIMIT_DATA", RLIMIT_DATA },
	{ "RLIMIT_FSIZE", RLIMIT_FSIZE },
	{ "RLIMIT_LOCKS", RLIMIT_LOCKS },
	{ "RLIMIT_MEMLOCK", RLIMIT_MEMLOCK },
	{ "RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE },
	{ "RLIMIT_NICE", RLIMIT_NICE },
	{ "RLIMIT_NOFILE", RLIMIT_NOFILE },
	{ "RLIMIT_NPROC", RLIMIT_NPROC },
	{ "RLIMIT_RSS", RLIMIT_RSS },
	{ "RLIMIT_RTPRIO", RLIMIT_RTPRIO },
	{ "RLIMIT_RTTIME", RLIMIT_RTTIME },
	{ "RLIMIT_SIGPENDING", RLIMIT_SIGPENDING },
	{ "RLIMIT_STACK", RLIMIT_STACK },
	{ NULL, 0 },
};

const char *brig_hook_stage_name(enum brig_hook_stage stage)
{
	return stage < BRIG_HOOK_N_STAGES ? brig_hook_stage_names[stage] : "unknown";
}

const char *brig_ns_type_name(enum brig_ns_type type)
{
	return type < BRIG_NS_N_TYPES ? brig_ns_type_names[type] : "unknown";
}

const char *brig_seccomp_action_name(enum brig_seccomp_action a)
{
	return a < BRIG_SCMP_ACT_N ? brig_seccomp_action_names[a] : "unknown";
}

const char *brig_seccomp_op_name(enum brig_seccomp_op op)
{
	return op < BRIG_SCMP_CMP_N ? brig_seccomp_op_names[op] : "unknown";
}

const char *const brig_mpol_mode_names[] = {
	"MPOL_DEFAULT",   "MPOL_BIND",           "MPOL_INTERLEAVE", "MPOL_WEIGHTED_INTERLEAVE",
	"MPOL_PREFERRED", "MPOL_PREFERRED_MANY", "MPOL_LOCAL",      NULL,
};

const char *const brig_mpol_flag_names[] = {
	"MPOL_F_NUMA_BALANCING",
	"MPOL_F_RELATIVE_NODES",
	"MPOL_F_STATIC_NODES",
	NULL,
};
