/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What checkpoint and restore tell CRIU (criu_request.h) follows
 * runc's libcontainer:
 *
 *  - mounts from outside the container (binds of host paths, the
 *    /dev/null binds of masked files, bind-mounted devices) are
 *    "external": CRIU records their mount point as a name at dump
 *    (ext_mnt key = val = the destination; "/dev/null" for masked files)
 *    and restore maps each name to a host path (the bind's source);
 *  - namespaces the config joins by path (net, pid) are external too
 *    ("net[INODE]:extRootNetNS"), and restore hands over the namespace
 *    the new config names;
 *  - the init's stdio pipes (descriptors.json, beside the images) become
 *    the restoring brig's own stdio (inherit_fd);
 *  - restore makes the container's cgroup and puts CRIU into it first,
 *    naming it as the root of every controller (cg_root), so that the
 *    restored tree lands in the new container's cgroup, not in the one
 *    that was checkpointed: one image restores into many containers.
 *
 * The rootfs is bound for CRIU at <state dir>/criu-root, in a mount
 * namespace of brig's own (unshared first), so that no mount outlives
 * brig, whatever happens to it.
 */
#include "config.h"
#include "lifecycle/criu_request.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lifecycle/checkpoint.h"
#include "cgroup/cgroup.h"
#include "linux/criu.h"
#include "linux/mounts.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/pb.h"

int brig_criu_req_open_dir(const char *path, bool create, const char *flag, struct brig_error *err)
{
	int fd;

	if (create && brig_mkdir_p(path, 0700, err) < 0)
		return brig_error_wrap(err, "%s", flag);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return brig_error_setp(err, errno, "%s \"%s\"", flag, path);
	return fd;
}

bool brig_criu_req_mount_is_bind(const struct brig_mount *m)
{
	struct brig_mount_flags fl;
	struct brig_error ignored = BRIG_ERROR_INIT;
	bool bind = m->type && strcmp(m->type, "bind") == 0;

	if (!bind && brig_mount_flags_parse(m->options, m->n_options, &fl, &ignored) == 0) {
		bind = fl.bind || fl.rbind;
		brig_mount_flags_release(&fl);
	}
	brig_error_release(&ignored);
	return bind;
}

int brig_criu_req_need_mntns(const struct brig_config *cfg, const char *what,
                             struct brig_error *err)
{
	const struct brig_namespace *ns = brig_config_namespace(cfg->linux, BRIG_NS_MOUNT);

	if (!ns || ns->path)
		return brig_error_set(err, "%s needs a container with a new mount namespace", what);
	return 0;
}

/* The options both requests take from runc's flags. */
void brig_criu_req_put_common(struct brig_strbuf *o, const struct brig_criu_flags *f, int images,
                              int work, const char *log)
{
	brig_pb_put_int32(o, BRIG_CRIU_O_IMAGES_DIR_FD, images);
	brig_pb_put_int32(o, BRIG_CRIU_O_WORK_DIR_FD, work);
	brig_pb_put_int32(o, BRIG_CRIU_O_LOG_LEVEL, 4);
	brig_pb_put_string(o, BRIG_CRIU_O_LOG_FILE, log);
	brig_pb_put_bool(o, BRIG_CRIU_O_NOTIFY_SCRIPTS, true);
	brig_pb_put_bool(o, BRIG_CRIU_O_MANAGE_CGROUPS, true);
	if (f->manage_cgroups_mode >= 0)
		brig_pb_put_varint(o, BRIG_CRIU_O_MANAGE_CGROUPS_MODE,
		                   (uint64_t)f->manage_cgroups_mode);
	if (f->tcp_established)
		brig_pb_put_bool(o, BRIG_CRIU_O_TCP_ESTABLISHED, true);
	if (f->ext_unix_sk)
		brig_pb_put_bool(o, BRIG_CRIU_O_EXT_UNIX_SK, true);
	if (f->shell_job)
		brig_pb_put_bool(o, BRIG_CRIU_O_SHELL_JOB, true);
	if (f->file_locks)
		brig_pb_put_bool(o, BRIG_CRIU_O_FILE_LOCKS, true);
	if (f->auto_dedup)
		brig_pb_put_bool(o, BRIG_CRIU_O_AUTO_DEDUP, true);
	if (f->lazy_pages)
		brig_pb_put_bool(o, BRIG_CRIU_O_LAZY_PAGES, true);
	/* runc's rule, whatever --empty-ns says: the runtime does not
	 * manage network devices, so CRIU neither dumps nor restores a
	 * network namespace's links, addresses, routes and firewall (a new
	 * one is restored empty; restore brings lo up in it): --empty-ns
	 * network asks for nothing more */
	brig_pb_put_varint(o, BRIG_CRIU_O_EMPTY_NS, CLONE_NEWNET);
}

/* The external mounts of @cfg: the name CRIU records for each (@dump),
 * or the name and the host path it now stands for (restore). */
void brig_criu_req_put_ext_mounts(struct brig_strbuf *o, const struct brig_config *cfg,
                                  const char *bundle, int procroot, bool dump)
{
	const struct brig_linux *lx = cfg->linux;
	bool masked_file = false;

	for (size_t i = 0; i < cfg->n_mounts; i++) {
		const struct brig_mount *m = &cfg->mounts[i];
		_cleanup_free_ char *src = NULL;

		if (!brig_criu_req_mount_is_bind(m) || !m->source)
			continue;
		if (dump) {
			src = brig_xstrdup(m->destination);
		} else {
			/* resolved, as the bind at create followed it: CRIU's
			 * move_mount of a symlink (Debian's /lib) is EINVAL */
			_cleanup_free_ char *given =
			    m->source[0] == '/' ? brig_xstrdup(m->source)
			                        : brig_xasprintf("%s/%s", bundle, m->source);

			src = realpath(given, NULL);
			if (!src)
				src = TAKE_PTR(given);
		}
		brig_criu_put_pair(o, BRIG_CRIU_O_EXT_MNT, m->destination, src);
	}
	/* a masked file is /dev/null bound over it; a masked directory is a
	 * tmpfs of the container's own, which CRIU dumps */
	for (size_t i = 0; lx && i < lx->n_masked_paths; i++) {
		const char *p = lx->masked_paths[i];
		struct stat st;

		if (dump) {
			if (procroot < 0 ||
			    fstatat(procroot, p[0] == '/' ? p + 1 : p, &st, 0) < 0 ||
			    S_ISDIR(st.st_mode))
				continue;
			brig_criu_put_pair(o, BRIG_CRIU_O_EXT_MNT, p, "/dev/null");
		}
		masked_file = true;
	}
	if (!dump && masked_file)
		brig_criu_put_pair(o, BRIG_CRIU_O_EXT_MNT, "/dev/null", "/dev/null");
	/* devices bound from the host (a user namespace cannot mknod) */
	for (size_t i = 0; lx && i < lx->n_devices; i++)
		brig_criu_put_pair(o, BRIG_CRIU_O_EXT_MNT, lx->devices[i].path,
		                   lx->devices[i].path);
}

/*
 * A mount namespace of brig's own, first thing: what restore mounts goes
 * with brig.  Every directory CRIU is given is opened after it: CRIU
 * works in the one it opens through /proc/<brig>/fd (its cgroup yard,
 * a tmpfs, is mounted in the work directory), and a mount is refused
 * (EINVAL) on a directory of another mount namespace.
 */
int brig_criu_req_private_mntns(struct brig_error *err)
{
	if (unshare(CLONE_NEWNS) < 0)
		return brig_error_setp(err, errno, "unshare(CLONE_NEWNS)");
	if (mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL) < 0)
		return brig_error_setp(err, errno, "make / a slave mount");
	return 0;
}

/* @name in the directory @dirfd as a path: CRIU takes paths. */
char *brig_criu_req_path_in(int dirfd, const char *name, struct brig_error *err)
{
	char self[64], dir[PATH_MAX];
	ssize_t n;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", dirfd);
	n = readlink(self, dir, sizeof(dir) - 1);
	if (n < 0) {
		brig_error_setp(err, errno, "readlink %s", self);
		return NULL;
	}
	dir[n] = '\0';
	return brig_xasprintf("%s/%s", dir, name);
}

/*
 * The cgroup hierarchies, bound where CRIU looks for them (its cgroup
 * yard, in the state directory @dirfd and brig's own mount namespace).
 * Left to itself, CRIU mounts each hierarchy anew, and a cgroup2 mount
 * made in the initial cgroup namespace resets the options of the host's
 * one hierarchy (nsdelegate and memory_recursiveprot were gone after a
 * checkpoint, runc's too); a bind changes nothing.  CRIU's names: v2's
 * is "unified", a named v1 one's its name without "name=".
 */
char *brig_criu_req_make_yard(int dirfd, struct brig_error *err)
{
	struct brig_cg_mount *m = NULL;
	size_t n = 0;
	char *yard;

	if (brig_cgroup_mounts(&m, &n, err) < 0)
		return NULL;
	yard = brig_criu_req_path_in(dirfd, CRIU_YARD, err);
	if (!yard || (mkdirat(dirfd, CRIU_YARD, 0700) < 0 && errno != EEXIST)) {
		if (yard)
			brig_error_setp(err, errno, "mkdir %s", CRIU_YARD);
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = m[i].v2 ? "unified" : m[i].controllers;
		_cleanup_free_ char *dir = NULL;

		if (!strncmp(name, "name=", 5))
			name += 5;
		dir = brig_xasprintf("%s/%s", yard, name);
		if (mkdir(dir, 0700) < 0 || mount(m[i].mountpoint, dir, NULL, MS_BIND, NULL) < 0) {
			brig_error_setp(err, errno, "the cgroup yard: %s", dir);
			goto fail;
		}
	}
	brig_cgroup_mounts_free(m, n);
	return yard;
fail:
	brig_cgroup_mounts_free(m, n);
	free(yard);
	return NULL;
}

void brig_criu_req_drop_yard(int dirfd, char **yard)
{
	_cleanup_close_ int fd = -1;
	DIR *d;

	if (!*yard)
		return;
	fd = openat(dirfd, CRIU_YARD, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	d = fd >= 0 ? fdopendir(dup(fd)) : NULL;
	for (struct dirent *e; d && (e = readdir(d));) {
		_cleanup_free_ char *dir = NULL;

		if (e->d_name[0] == '.')
			continue;
		dir = brig_xasprintf("%s/%s", *yard, e->d_name);
		umount2(dir, MNT_DETACH);
		unlinkat(fd, e->d_name, AT_REMOVEDIR);
	}
	if (d)
		closedir(d);
	unlinkat(dirfd, CRIU_YARD, AT_REMOVEDIR);
	free(*yard);
	*yard = NULL;
}
