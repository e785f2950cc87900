/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the lifecycle (container.c, exec.c, control.c) takes of brig's
 * global flags.  The command line (runtime/cmd/) fills it from the flags
 * it parsed; nothing below cmd/ parses a flag or includes cmd/, and the
 * context carries no result back.
 */
#ifndef BRIG_CONTEXT_H
#define BRIG_CONTEXT_H

#include <stdbool.h>

/* --rootless: runc's values */
enum brig_rootless {
	BRIG_ROOTLESS_AUTO, /* not root, or root of a user namespace */
	BRIG_ROOTLESS_TRUE,
	BRIG_ROOTLESS_FALSE,
};

struct brig_context {
	const char *root;            /* the state root: --root, or the default */
	bool systemd_cgroup;         /* --systemd-cgroup, --cgroup-manager systemd */
	bool no_cgroup;              /* --cgroup-manager disabled */
	enum brig_rootless rootless; /* --rootless */
	char **argv;                 /* brig's own, to re-execute (linux/selfexe.h) */
	const char *criu;            /* --criu: CRIU's binary (NULL: "criu" from $PATH) */
};

#endif
