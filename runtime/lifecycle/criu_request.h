/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What checkpoint.c and restore.c both tell CRIU, and the places in a
 * container's state directory where they meet it: the options of runc's
 * flags, the external mounts, brig's own mount namespace, the cgroup
 * yard.  Internal to the lifecycle: restore.c and checkpoint.c use it,
 * it uses neither.
 */
#ifndef BRIG_CRIU_REQUEST_H
#define BRIG_CRIU_REQUEST_H

#include <stdbool.h>

struct brig_config;
struct brig_criu_flags;
struct brig_error;
struct brig_strbuf;

/* beside the images: the init's stdio as it was dumped */
#define DESCRIPTORS "descriptors.json"
/* in the state directory: the rootfs bound for CRIU, and its cgroup yard */
#define CRIU_ROOT "criu-root"
#define CRIU_YARD "criu-yard"

/* @path opened as a directory (made 0700 first with @create); @flag
 * names it in errors. */
int brig_criu_req_open_dir(const char *path, bool create, const char *flag, struct brig_error *err);
/* Whether @m is a bind (its type, or a bind/rbind option). */
struct brig_mount;
bool brig_criu_req_mount_is_bind(const struct brig_mount *m);
/* Refused, saying @what, unless @cfg has a new mount namespace. */
int brig_criu_req_need_mntns(const struct brig_config *cfg, const char *what,
                             struct brig_error *err);
/* The options both requests take from runc's flags. */
void brig_criu_req_put_common(struct brig_strbuf *o, const struct brig_criu_flags *f, int images,
                              int work, const char *log);
/* The external mounts of @cfg: the name CRIU records for each (@dump),
 * or the name and the host path it now stands for (restore). */
void brig_criu_req_put_ext_mounts(struct brig_strbuf *o, const struct brig_config *cfg,
                                  const char *bundle, int procroot, bool dump);
/* A mount namespace of brig's own, first thing (criu_request.c says why). */
int brig_criu_req_private_mntns(struct brig_error *err);
/* @name in the directory @dirfd as a path: CRIU takes paths (heap). */
char *brig_criu_req_path_in(int dirfd, const char *name, struct brig_error *err);
/* The cgroup hierarchies bound in CRIU_YARD of the state directory
 * @dirfd, where CRIU looks for them; its path (heap), or NULL. */
char *brig_criu_req_make_yard(int dirfd, struct brig_error *err);
/* The yard unmounted and removed; *@yard freed and NULL. */
void brig_criu_req_drop_yard(int dirfd, char **yard);

#endif
