/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.json: linux.seccomp.  Syscall names are kept as given: one the
 * running kernel or libseccomp does not know is skipped when the filter is
 * built (as runc does), so it is not an error here.
 */
#include "config.h"
#include "spec/parse.h"

#include "spec/names.h"

#define SECCOMP_ARGS_MAX 6  /* a syscall has arguments 0 to 5 */
#define ERRNO_RET_MAX 65535 /* the 16 data bits of a seccomp return value */

static int parse_arg(struct jp *c, const struct brig_json *v, struct brig_seccomp_arg *a)
{
	uint64_t index;
	int op;

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 ||
	    jp_uint_req(c, v, "index", SECCOMP_ARGS_MAX - 1, &index) < 0 ||
	    jp_uint_req(c, v, "value", UINT64_MAX, &a->value) < 0 ||
	    jp_uint(c, v, "valueTwo", UINT64_MAX, &a->value_two) < 0 ||
	    jp_enum_req(c, v, "op", brig_seccomp_op_names, "seccomp operator", &op) < 0)
		return -1;
	a->index = (uint32_t)index;
	a->op = (enum brig_seccomp_op)op;
	return 0;
}

/* The spec: an errno for an action that returns none is an error. */
static int check_errno_ret(struct jp *c, const char *key, enum brig_seccomp_action action,
                           const struct brig_opt_u32 *errno_ret)
{
	if (errno_ret->set && action != BRIG_SCMP_ACT_ERRNO && action != BRIG_SCMP_ACT_TRACE)
		return jp_fail(c, key,
		               "only SCMP_ACT_ERRNO and SCMP_ACT_TRACE take an errno, not %s",
		               brig_seccomp_action_name(action));
	return 0;
}

static int parse_syscall(struct jp *c, const struct brig_json *v, struct brig_seccomp_syscall *s)
{
	int action;
	int r;

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0)
		return -1;
	r = jp_strings(c, v, "names", &s->names, &s->n_names);
	if (r < 0)
		return -1;
	if (r == 0)
		return jp_fail(c, "names", "is required");
	if (s->n_names == 0)
		return jp_fail(c, "names", "must not be empty");
	if (jp_enum_req(c, v, "action", brig_seccomp_action_names, "seccomp action", &action) < 0)
		return -1;
	s->action = (enum brig_seccomp_action)action;
	if (jp_opt_u32(c, v, "errnoRet", ERRNO_RET_MAX, &s->errno_ret) < 0 ||
	    check_errno_ret(c, "errnoRet", s->action, &s->errno_ret) < 0 ||
	    JP_LIST(c, v, "args", parse_arg, &s->args, &s->n_args) < 0)
		return -1;
	return 0;
}

static bool uses_notify(const struct brig_seccomp *sc)
{
	if (sc->default_action == BRIG_SCMP_ACT_NOTIFY)
		return true;
	for (size_t i = 0; i < sc->n_syscalls; i++)
		if (sc->syscalls[i].action == BRIG_SCMP_ACT_NOTIFY)
			return true;
	return false;
}

int brig_parse_seccomp(struct jp *c, const struct brig_json *v, struct brig_seccomp **out)
{
	struct brig_seccomp *sc = brig_arena_alloc(c->arena, sizeof(*sc));
	int action;

	if (jp_expect(c, v, BRIG_JSON_OBJECT) < 0 ||
	    jp_enum_req(c, v, "defaultAction", brig_seccomp_action_names, "seccomp action",
	                &action) < 0)
		return -1;
	sc->default_action = (enum brig_seccomp_action)action;
	if (jp_opt_u32(c, v, "defaultErrnoRet", ERRNO_RET_MAX, &sc->default_errno_ret) < 0 ||
	    check_errno_ret(c, "defaultErrnoRet", sc->default_action, &sc->default_errno_ret) < 0 ||
	    jp_strings(c, v, "architectures", &sc->architectures, &sc->n_architectures) < 0 ||
	    jp_check_names(c, "architectures", sc->architectures, sc->n_architectures,
	                   brig_seccomp_arch_names, "seccomp architecture") < 0 ||
	    jp_strings(c, v, "flags", &sc->flags, &sc->n_flags) < 0 ||
	    jp_check_names(c, "flags", sc->flags, sc->n_flags, brig_seccomp_flag_names,
	                   "seccomp flag") < 0 ||
	    jp_string(c, v, "listenerPath", &sc->listener_path) < 0)
		return -1;
	/* "" is how Go encoders write "no listener" */
	if (sc->listener_path && !sc->listener_path[0])
		sc->listener_path = NULL;
	if ((sc->listener_path && jp_check_absolute(c, "listenerPath", sc->listener_path) < 0) ||
	    jp_string(c, v, "listenerMetadata", &sc->listener_metadata) < 0 ||
	    JP_LIST(c, v, "syscalls", parse_syscall, &sc->syscalls, &sc->n_syscalls) < 0)
		return -1;
	if (!sc->listener_path && uses_notify(sc))
		return jp_fail(c, "listenerPath", "is required with SCMP_ACT_NOTIFY");
	*out = sc;
	return 0;
}
