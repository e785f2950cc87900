/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/userns.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/strbuf.h"

static void format_map(const struct brig_id_mapping *m, size_t n, struct brig_strbuf *sb)
{
	for (size_t i = 0; i < n; i++)
		brig_strbuf_addf(sb, "%u %u %u\n", m[i].container_id, m[i].host_id, m[i].size);
}

static int write_proc(pid_t pid, const char *file, const char *text, const char *what,
                      struct brig_error *err)
{
	char path[64];
	_cleanup_close_ int fd = -1;
	size_t len = strlen(text);

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		return brig_error_setp(err, errno, "write %s of the container's user namespace",
		                       what);
	return 0;
}

int brig_userns_write_maps(pid_t pid, const struct brig_linux *lx, struct brig_error *err)
{
	struct brig_strbuf uid = BRIG_STRBUF_INIT, gid = BRIG_STRBUF_INIT;
	int r = -1;

	format_map(lx->uid_mappings, lx->n_uid_mappings, &uid);
	format_map(lx->gid_mappings, lx->n_gid_mappings, &gid);
	/* gid first: with CAP_SETGID over the parent namespace brig may keep
	 * setgroups allowed; an unprivileged caller (rootless) can map only
	 * its own gid, and only once setgroups is denied (user_namespaces(7)) */
	if (geteuid() != 0 && write_proc(pid, "setgroups", "deny", "setgroups", err) < 0)
		goto out;
	if (gid.len && write_proc(pid, "gid_map", gid.buf, "gid_map", err) < 0)
		goto out;
	if (uid.len && write_proc(pid, "uid_map", uid.buf, "uid_map", err) < 0)
		goto out;
	r = 0;
out:
	brig_strbuf_release(&uid);
	brig_strbuf_release(&gid);
	return r;
}

int brig_userns_become_root(struct brig_error *err)
{
	/* the container's root, with the capabilities its creation gave:
	 * none are lost, since brig's old ids were not that root's */
	if (setresgid(0, 0, 0) < 0)
		return brig_error_setp(err, errno,
		                       "linux.gidMappings: the container's gid 0 must be mapped");
	if (setresuid(0, 0, 0) < 0)
		return brig_error_setp(err, errno,
		                       "linux.uidMappings: the container's uid 0 must be mapped");
	return 0;
}

bool brig_userns_setgroups_allowed(int procfd)
{
	char buf[16] = "";
	_cleanup_close_ int fd = openat(procfd, "self/setgroups", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return true; /* no user namespace of its own: always allowed */
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		return true;
	return strncmp(buf, "deny", 4) != 0;
}
