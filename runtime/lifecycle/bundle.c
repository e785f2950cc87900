/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lifecycle/bundle.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "lifecycle/watch.h"

int brig_bundle_load(struct brig_bundle *b, const char *dir, struct brig_error *err)
{
	char *abs;

	if (!dir || !*dir)
		dir = ".";
	abs = realpath(dir, NULL);
	if (!abs)
		return brig_error_setp(err, errno, "bundle \"%s\"", dir);
	b->path = abs;
	b->dirfd = open(abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b->dirfd < 0)
		return brig_error_setp(err, errno, "bundle \"%s\"", dir);
	if (brig_read_file(b->dirfd, "config.json", BRIG_CONFIG_MAX_BYTES, &b->text, &b->len, err) <
	    0) {
		if (err->errnum == ENOENT)
			brig_error_set(err, "bundle \"%s\": config.json: no such file", dir);
		return -1;
	}
	b->config = brig_config_parse("config.json", b->text, b->len, err);
	if (!b->config)
		return -1;
	if (!b->config->process)
		return brig_error_set(err, "config.json: process: is required");
	return brig_watch_check(b->config->annotations, b->config->n_annotations, err);
}

void brig_bundle_release(struct brig_bundle *b)
{
	brig_config_free(b->config);
	b->config = NULL;
	free(b->text);
	b->text = NULL;
	b->len = 0;
	if (b->dirfd >= 0)
		close(b->dirfd);
	b->dirfd = -1;
	free(b->path);
	b->path = NULL;
}

char *brig_bundle_rootfs(const struct brig_bundle *b, struct brig_error *err)
{
	const char *root = b->config->root->path;
	_cleanup_free_ char *joined = NULL;
	char *abs;
	struct stat st;

	joined = root[0] == '/' ? brig_xstrdup(root) : brig_xasprintf("%s/%s", b->path, root);
	abs = realpath(joined, NULL);
	if (!abs || stat(abs, &st) < 0) {
		brig_error_setp(err, errno, "rootfs \"%s\"", joined);
		free(abs);
		return NULL;
	}
	if (!S_ISDIR(st.st_mode)) {
		free(abs);
		brig_error_set(err, "rootfs \"%s\": not a directory", joined);
		return NULL;
	}
	return abs;
}
