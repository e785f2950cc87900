/* SPDX-License-Identifier: Apache-2.0 */
/* An OCI bundle: a directory holding config.json and (usually) the rootfs. */
#ifndef BRIG_BUNDLE_H
#define BRIG_BUNDLE_H

struct brig_config;
struct brig_error;

#include <stddef.h>

struct brig_bundle {
	char *path; /* absolute */
	int dirfd;
	struct brig_config *config;
	char *text; /* config.json as read, which create keeps (exec reads it) */
	size_t len;
};

#define BRIG_BUNDLE_INIT                \
	{                               \
		NULL, -1, NULL, NULL, 0 \
	}

/*
 * Open @dir (NULL: the current directory) and load and validate its
 * config.json; errors name "config.json" and the JSON path.  A container
 * needs a process, so one is required here.
 */
int brig_bundle_load(struct brig_bundle *b, const char *dir, struct brig_error *err);
void brig_bundle_release(struct brig_bundle *b);

/* root.path of @b's config, absolute and resolved (relative to the
 * bundle), a directory; heap, or NULL with @err naming "rootfs". */
char *brig_bundle_rootfs(const struct brig_bundle *b, struct brig_error *err);

#endif
