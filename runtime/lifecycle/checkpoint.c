/* SPDX-License-Identifier: Apache-2.0 */
/*
 * checkpoint (checkpoint.h): a running container's process tree dumped
 * by CRIU into an image directory, with what criu_request.c tells CRIU
 * of its mounts and namespaces, and the init's stdio beside the images.
 */
#include "config.h"
#include "lifecycle/checkpoint.h"
#include "lifecycle/criu_request.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "lifecycle/container.h"
#include "lifecycle/context.h"
#include "lifecycle/control.h"
#include "linux/criu.h"
#include "lifecycle/state.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/jsonw.h"
#include "util/pb.h"

/* "ADDRESS:PORT" as runc's --page-server takes it. */
static int put_page_server(struct brig_strbuf *o, const char *arg, struct brig_error *err)
{
	struct brig_strbuf ps = BRIG_STRBUF_INIT;
	const char *colon = strrchr(arg, ':');
	_cleanup_free_ char *addr = NULL;
	char *end;
	long port;

	if (!colon || colon == arg)
		return brig_error_usage(err,
		                        "Use --page-server ADDRESS:PORT to specify page server");
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || port <= 0 || port > 65535)
		return brig_error_usage(err, "--page-server: Invalid port number: \"%s\"",
		                        colon + 1);
	addr = strndup(arg, (size_t)(colon - arg));
	brig_pb_put_string(&ps, 1, addr);
	brig_pb_put_int32(&ps, 2, (int32_t)port);
	brig_pb_put_bytes(o, BRIG_CRIU_O_PS, ps.buf, ps.len);
	brig_strbuf_release(&ps);
	return 0;
}

/* Namespaces joined by path: CRIU records them as external. */
static int put_external_ns(struct brig_strbuf *o, const struct brig_config *cfg,
                           struct brig_error *err)
{
	static const struct {
		enum brig_ns_type type;
		const char *name, *key;
	} ext[] = { { BRIG_NS_NETWORK, "net", "extRootNetNS" },
		    { BRIG_NS_PID, "pid", "extRootPidNS" } };

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		const struct brig_namespace *ns = brig_config_namespace(cfg->linux, ext[i].type);
		_cleanup_free_ char *s = NULL;
		struct stat st;

		if (!ns || !ns->path)
			continue;
		if (stat(ns->path, &st) < 0)
			return brig_error_setp(err, errno, "%s namespace \"%s\"", ext[i].name,
			                       ns->path);
		s = brig_xasprintf("%s[%lu]:%s", ext[i].name, (unsigned long)st.st_ino, ext[i].key);
		brig_pb_put_string(o, BRIG_CRIU_O_EXTERNAL, s);
	}
	return 0;
}

/* descriptors.json: what the init's stdio is, for restore to hand over. */
static int write_descriptors(int images, pid_t pid, struct brig_error *err)
{
	struct brig_jsonw w;
	_cleanup_free_ char *text = NULL;

	brig_jsonw_init(&w, NULL);
	brig_jsonw_array_begin(&w);
	for (int fd = 0; fd < 3; fd++) {
		char link[64], target[PATH_MAX];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)pid, fd);
		n = readlink(link, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		brig_jsonw_string(&w, target);
	}
	brig_jsonw_array_end(&w);
	text = brig_jsonw_finish(&w);
	return brig_write_file_atomic(images, DESCRIPTORS, text, strlen(text), 0600, err);
}

/* The freezer CRIU freezes the container with: v1's, or the v2 cgroup. */
static const char *freezer_dir(const struct brig_cgroup *cg)
{
	for (size_t i = 0; i < cg->n; i++)
		if (strstr(cg->h[i].name, "freezer") || (cg->layout == BRIG_CG_V2 && cg->h[i].v2))
			return cg->h[i].dir;
	return NULL;
}

int brig_container_checkpoint(const struct brig_context *ctx, const struct brig_checkpoint_opts *o,
                              struct brig_error *err)
{
	struct brig_container_ref c = BRIG_CONTAINER_REF_INIT;
	struct brig_cgroup cg = BRIG_CGROUP_INIT;
	struct brig_strbuf opts = BRIG_STRBUF_INIT;
	struct brig_config *cfg = NULL;
	_cleanup_close_ int images = -1, work = -1, procroot = -1;
	const char *image_path = o->f.image_path ? o->f.image_path : "checkpoint";
	const char *freezer;
	char *yard = NULL;
	enum brig_status st;
	bool destroy;
	int r = -1;

	if (o->parent_path && o->parent_path[0] == '/')
		return brig_error_usage(err, "--parent-path must be relative");
	if (brig_criu_req_private_mntns(err) < 0)
		return -1;
	if (o->page_server && put_page_server(&opts, o->page_server, err) < 0)
		goto out;
	if (brig_container_ref_open(&c, ctx->root, o->id, BRIG_LOCK_EXCLUSIVE, err) < 0)
		goto out;
	st = brig_container_status(c.s);
	if (st != BRIG_STATUS_RUNNING && st != BRIG_STATUS_PAUSED) {
		brig_error_set(err, "container \"%s\" cannot be checkpointed in %s state", o->id,
		               brig_status_name(st));
		goto out;
	}
	cfg = brig_config_load(c.e.dirfd, "config.json", "config.json", err);
	if (!cfg || brig_criu_req_need_mntns(cfg, "checkpoint", err) < 0)
		goto out;
	if (brig_cgroup_from_state(c.s, &cg, err) < 0)
		goto out;
	images = brig_criu_req_open_dir(image_path, true, "--image-path", err);
	if (images < 0)
		goto out;
	work = o->f.work_path ? brig_criu_req_open_dir(o->f.work_path, true, "--work-path", err)
	                      : fcntl(images, F_DUPFD_CLOEXEC, 3);
	if (work < 0)
		goto out;
	if (o->parent_path) {
		struct stat pst;

		if (fstatat(images, o->parent_path, &pst, 0) < 0 || !S_ISDIR(pst.st_mode)) {
			brig_error_setp(err, errno ? errno : ENOTDIR, "--parent-path \"%s\"",
			                o->parent_path);
			goto out;
		}
	}

	brig_criu_req_put_common(&opts, &o->f, images, work, "dump.log");
	brig_pb_put_int32(&opts, BRIG_CRIU_O_PID, c.s->pid);
	brig_pb_put_string(&opts, BRIG_CRIU_O_ROOT, c.s->rootfs);
	if (o->leave_running)
		brig_pb_put_bool(&opts, BRIG_CRIU_O_LEAVE_RUNNING, true);
	if (cfg->process && cfg->process->terminal)
		brig_pb_put_bool(&opts, BRIG_CRIU_O_ORPHAN_PTS_MASTER, true);
	yard = brig_criu_req_make_yard(c.e.dirfd, err);
	if (!yard)
		goto out;
	brig_pb_put_string(&opts, BRIG_CRIU_O_CGROUP_YARD, yard);
	freezer = freezer_dir(&cg);
	if (freezer)
		brig_pb_put_string(&opts, BRIG_CRIU_O_FREEZE_CGROUP, freezer);
	if (o->parent_path) {
		brig_pb_put_string(&opts, BRIG_CRIU_O_PARENT_IMG, o->parent_path);
		brig_pb_put_bool(&opts, BRIG_CRIU_O_TRACK_MEM, true);
	}
	if (o->pre_dump)
		brig_pb_put_bool(&opts, BRIG_CRIU_O_TRACK_MEM, true);
	if (put_external_ns(&opts, cfg, err) < 0)
		goto out;
	if (!o->pre_dump) {
		char root[64];

		snprintf(root, sizeof(root), "/proc/%d/root", (int)c.s->pid);
		procroot = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		brig_criu_req_put_ext_mounts(&opts, cfg, c.s->bundle, procroot, true);
		if (write_descriptors(images, c.s->pid, err) < 0)
			goto out;
	}

	{
		struct brig_criu_call call = {
			.criu = ctx->criu,
			.type = o->pre_dump ? BRIG_CRIU_PRE_DUMP : BRIG_CRIU_DUMP,
			.opts = &opts,
			.log_dirfd = work,
			.log_name = "dump.log",
		};

		if (brig_criu_run(&call, err) < 0)
			goto out;
	}
	brig_criu_req_drop_yard(c.e.dirfd, &yard);
	destroy = !o->leave_running && !o->pre_dump;
	brig_container_ref_close(&c);
	/* runc's rule: a container dumped without --leave-running is gone */
	r = destroy ? brig_container_delete(ctx, o->id, true, err) : 0;
out:
	if (c.e.dirfd >= 0)
		brig_criu_req_drop_yard(c.e.dirfd, &yard);
	brig_strbuf_release(&opts);
	brig_cgroup_release(&cg);
	brig_config_free(cfg);
	brig_container_ref_close(&c);
	return r;
}
