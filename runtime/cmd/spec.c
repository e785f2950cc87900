/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "spec/default.h"
#include "util/error.h"

enum { OPT_BUNDLE, OPT_ROOTLESS };

static const struct brig_option options[] = {
	[OPT_BUNDLE] = { "bundle", 'b', BRIG_OPT_STRING, "DIR",
	                 "path to the root of the bundle directory", "the current directory" },
	[OPT_ROOTLESS] = { "rootless", 0, BRIG_OPT_BOOL, NULL,
	                   "generate a configuration for a rootless container", NULL },
};

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	const char *dir = a->vals[OPT_BUNDLE].set ? a->vals[OPT_BUNDLE].str : ".";
	_cleanup_free_ char *text =
	    brig_spec_default(a->vals[OPT_ROOTLESS].b, geteuid(), getegid());
	_cleanup_close_ int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int fd = -1;
	size_t len = strlen(text), off = 0;

	if (dirfd < 0)
		return brig_error_setp(err, errno, "bundle \"%s\"", dir);
	fd = openat(dirfd, "config.json", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
	            0666);
	if (fd < 0) {
		if (errno == EEXIST)
			return brig_error_set(
			    err, "file \"%s/config.json\" exists: remove it first", dir);
		return brig_error_setp(err, errno, "create \"%s/config.json\"", dir);
	}
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return brig_error_setp(err, errno, "write \"%s/config.json\"", dir);
		}
		off += (size_t)n;
	}
	return 0;
}

const struct brig_command brig_cmd_spec = {
	.name = "spec",
	.args_usage = NULL,
	.summary = "create a new specification file",
	.description =
	    "   Write a default config.json (the same defaults as `runc spec`) into the\n"
	    "   bundle directory. It runs `sh` in a busybox-style rootfs at ./rootfs.",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_PERMUTE,
	.min_args = 0,
	.max_args = 0,
	.run = run,
};
