/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NULL-terminated name tables, indexed by the enums of spec/spec.h, for
 * the parser (jp_enum) and for `brig features`.
 */
#ifndef BRIG_SPEC_NAMES_H
#define BRIG_SPEC_NAMES_H

extern const char *const brig_hook_stage_names[];
extern const char *const brig_ns_type_names[];
extern const char *const brig_seccomp_action_names[];
extern const char *const brig_seccomp_op_names[];
/* brig_seccomp_arch_names and brig_seccomp_flag_names: spec/spec.h */
/* linux.memoryPolicy's modes and flags (runtime/linux/mempolicy.c has
 * their values) */
extern const char *const brig_mpol_mode_names[];
extern const char *const brig_mpol_flag_names[];

struct brig_rlimit_name {
	const char *name; /* "RLIMIT_NOFILE" */
	int resource;     /* RLIMIT_NOFILE */
};
extern const struct brig_rlimit_name brig_rlimit_names[];

#endif
