/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/idmap.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/mountinfo.h"
#include "linux/mounts.h"
#include "linux/syscalls.h"
#include "linux/userns.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"

bool brig_idmap_premade(const struct brig_mount *m, bool binds)
{
	struct brig_mount_flags fl;
	struct brig_error ignored = BRIG_ERROR_INIT;
	bool bind, premade;

	if (brig_mount_flags_parse(m->options, m->n_options, &fl, &ignored) < 0) {
		brig_error_release(&ignored);
		return false;
	}
	bind = fl.bind || fl.rbind || (m->type && !strcmp(m->type, "bind"));
	premade =
	    bind && (binds || fl.idmap || fl.ridmap || m->n_uid_mappings || m->n_gid_mappings);
	brig_mount_flags_release(&fl);
	return premade;
}

bool brig_idmap_wanted(const struct brig_mount *m)
{
	return brig_idmap_premade(m, false);
}

size_t brig_idmap_count(const struct brig_config *cfg, bool binds)
{
	size_t n = 0;

	for (size_t i = 0; i < cfg->n_mounts; i++)
		n += brig_idmap_premade(&cfg->mounts[i], binds);
	return n;
}

/* The child of brig_idmap_userns(): it waits until the parent has done
 * (closed its end of the pipe, or died), in its user namespace.  It
 * shares the parent's memory: only raw system calls, which touch nothing
 * of the parent's unless they fail. */
static int userns_child(void *arg)
{
	const int *pipefd = arg;
	char c;

	syscall(SYS_close, pipefd[1]);
	syscall(SYS_read, pipefd[0], &c, 1);
	return 0;
}

/*
 * A user namespace with the mappings of @maps: a child that makes one and
 * waits, its maps written from here, its namespace kept by fd.  The child
 * shares brig's memory (CLONE_VM): a fork would copy brig's page tables,
 * 0.3 to 0.7 ms of a cold job here, for a child that only waits.
 */
int brig_idmap_userns(const struct brig_linux *maps, struct brig_error *err)
{
	/* the child's stack, in this frame, which outlives the child */
	char stack[16384] __attribute__((aligned(16)));
	int pipefd[2], fd = -1;
	char path[64];
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return brig_error_setp(err, errno, "pipe");
	pid =
	    clone(userns_child, stack + sizeof(stack), CLONE_NEWUSER | CLONE_VM | SIGCHLD, pipefd);
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return brig_error_setp(err, errno, "clone(CLONE_NEWUSER)");
	}
	close(pipefd[0]);
	if (brig_userns_write_maps(pid, maps, err) == 0) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			brig_error_setp(err, errno, "open \"%s\"", path);
	}
	close(pipefd[1]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return fd;
}

/* One idmapped mount: a detached clone of the source, idmapped. */
static void flags_releasep(struct brig_mount_flags *f)
{
	brig_mount_flags_release(f);
}

/* Whether a mount of brig's namespace sits below @path (not on it). */
static bool has_mounts_below(const char *path)
{
	_cleanup_free_ char *real = realpath(path, NULL), *line = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	size_t cap = 0, len;
	bool found = false;

	if (!real)
		return false; /* open_tree says why */
	f = fopen("/proc/self/mountinfo", "re");
	len = strcmp(real, "/") ? strlen(real) : 0;
	while (f && !found && getline(&line, &cap, f) > 0) {
		struct brig_mountinfo e;

		found = brig_mountinfo_parse(line, &e) && !strncmp(e.mountpoint, real, len) &&
		        e.mountpoint[len] == '/' && e.mountpoint[len + 1];
	}
	return found;
}

static int idmapped_tree(const struct brig_mount *m, const char *bundle, pid_t init,
                         struct brig_error *err)
{
	_cleanup_(flags_releasep) struct brig_mount_flags fl = { 0 };
	_cleanup_free_ char *abs = NULL;
	_cleanup_close_ int userns = -1, tree = -1;
	const char *source = m->source;
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP };

	if (brig_mount_flags_parse(m->options, m->n_options, &fl, err) < 0)
		return -1;
	if (!source || !*source)
		return brig_error_set(err, "a bind mount needs a source");
	if (source[0] != '/')
		source = abs = brig_xasprintf("%s/%s", bundle, source);
	if (!brig_idmap_wanted(m)) {
		/* a plain bind, opened here, as the host's root; but what the
		 * kernel refuses a user namespace, a bind without the mounts
		 * below its source (they would uncover what they hide), is
		 * refused here too, as the init would have had it refused */
		if (!fl.rbind && has_mounts_below(source))
			return brig_error_setp(
			    err, EINVAL,
			    "bind \"%s\": it has mounts below it, which a "
			    "bind without rbind would uncover in a user namespace",
			    source);
		tree =
		    open_tree(AT_FDCWD, source,
		              OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (fl.rbind ? AT_RECURSIVE : 0));
		if (tree < 0)
			return brig_error_setp(err, errno, "open \"%s\"", source);
		return TAKE_FD(tree);
	}
	if (m->n_uid_mappings || m->n_gid_mappings) {
		if (!m->n_uid_mappings || !m->n_gid_mappings)
			return brig_error_set(err, "an idmapped mount needs uidMappings and "
			                           "gidMappings");
		userns = brig_idmap_userns(
		    &(struct brig_linux){
		        .uid_mappings = m->uid_mappings,
		        .n_uid_mappings = m->n_uid_mappings,
		        .gid_mappings = m->gid_mappings,
		        .n_gid_mappings = m->n_gid_mappings,
		    },
		    err);
	} else {
		char path[64];

		/* "idmap" alone: the container's own mappings */
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)init);
		userns = open(path, O_RDONLY | O_CLOEXEC);
		if (userns < 0)
			return brig_error_setp(err, errno, "open \"%s\"", path);
	}
	if (userns < 0)
		return -1;
	tree = open_tree(AT_FDCWD, source,
	                 OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (fl.rbind ? AT_RECURSIVE : 0));
	if (tree < 0)
		return brig_error_setp(err, errno, "open \"%s\"", source);
	attr.userns_fd = (uint64_t)userns;
	if (mount_setattr(tree, "", AT_EMPTY_PATH | (fl.ridmap ? AT_RECURSIVE : 0), &attr,
	                  sizeof(attr)) < 0)
		return brig_error_setp(err, errno, "idmap \"%s\"", source);
	return TAKE_FD(tree);
}

int brig_idmap_prepare(const struct brig_config *cfg, const char *bundle, pid_t init, bool binds,
                       int **out, struct brig_error *err)
{
	int *fds;

	*out = NULL;
	if (!brig_idmap_count(cfg, binds))
		return 0;
	fds = brig_xcalloc(cfg->n_mounts, sizeof(*fds));
	for (size_t i = 0; i < cfg->n_mounts; i++)
		fds[i] = -1;
	for (size_t i = 0; i < cfg->n_mounts; i++) {
		if (!brig_idmap_premade(&cfg->mounts[i], binds))
			continue;
		fds[i] = idmapped_tree(&cfg->mounts[i], bundle, init, err);
		if (fds[i] < 0) {
			brig_error_wrap(err, "config.json: mounts[%zu]", i);
			brig_idmap_release(fds, cfg->n_mounts);
			return -1;
		}
	}
	*out = fds;
	return 0;
}

void brig_idmap_release(int *fds, size_t n)
{
	for (size_t i = 0; fds && i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
}
