/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/userns.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/wait.h>
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

/* Only the caller's own id, once: what an unprivileged process may map
 * itself (user_namespaces(7)). */
static bool own_id_only(const struct brig_id_mapping *m, size_t n, uint32_t id)
{
	return n == 1 && m[0].host_id == id && m[0].size == 1;
}

/* newuidmap/newgidmap (shadow's setuid helpers, package uidmap): what
 * /etc/subuid and /etc/subgid grant an unprivileged user. */
static int run_helper(const char *helper, pid_t pid, const struct brig_id_mapping *m, size_t n,
                      struct brig_error *err)
{
	_cleanup_free_ char **argv = brig_xcalloc(3 * n + 3, sizeof(char *));
	char pidstr[16], msg[512] = "";
	size_t k = 0;
	ssize_t len;
	pid_t child;
	int status, errpipe[2];

	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	argv[k++] = (char *)helper;
	argv[k++] = pidstr;
	for (size_t i = 0; i < n; i++) {
		argv[k++] = brig_xasprintf("%u", m[i].container_id);
		argv[k++] = brig_xasprintf("%u", m[i].host_id);
		argv[k++] = brig_xasprintf("%u", m[i].size);
	}
	if (pipe2(errpipe, O_CLOEXEC) < 0)
		return brig_error_setp(err, errno, "pipe");
	child = fork();
	if (child == 0) {
		/* its complaint becomes brig's one line */
		dup2(errpipe[1], STDERR_FILENO);
		execvp(helper, argv);
		_exit(127);
	}
	close(errpipe[1]);
	for (size_t i = 2; i < k; i++)
		free(argv[i]);
	len = child < 0 ? 0 : read(errpipe[0], msg, sizeof(msg) - 1);
	close(errpipe[0]);
	msg[len > 0 ? len : 0] = '\0';
	msg[strcspn(msg, "\n")] = '\0';
	if (child < 0)
		return brig_error_setp(err, errno, "fork");
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			return brig_error_setp(err, errno, "wait for %s", helper);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return brig_error_set(err,
		                      "%s is needed to map ids other than your own (Debian's "
		                      "package uidmap)",
		                      helper);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		if (*msg)
			return brig_error_set(err, "%s", msg);
		return brig_error_set(err, "%s failed: are the ids in /etc/sub%cid?", helper,
		                      helper[3] == 'u' ? 'u' : 'g');
	}
	return 0;
}

int brig_userns_write_maps(pid_t pid, const struct brig_linux *lx, struct brig_error *err)
{
	struct brig_strbuf uid = BRIG_STRBUF_INIT, gid = BRIG_STRBUF_INIT;
	int r = -1;

	/* unprivileged, anything beyond one's own id goes through shadow's
	 * helpers, which keep setgroups allowed */
	if (geteuid() != 0 && (!own_id_only(lx->uid_mappings, lx->n_uid_mappings, geteuid()) ||
	                       !own_id_only(lx->gid_mappings, lx->n_gid_mappings, getegid()))) {
		if (run_helper("newgidmap", pid, lx->gid_mappings, lx->n_gid_mappings, err) < 0 ||
		    run_helper("newuidmap", pid, lx->uid_mappings, lx->n_uid_mappings, err) < 0)
			return brig_error_wrap(err, "linux.uidMappings");
		return 0;
	}

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
