/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"
#include "cmd/criu.h"

#include <string.h>

#include "lifecycle/checkpoint.h"
#include "linux/criu.h"
#include "util/error.h"

int brig_cmd_criu_flags(const struct brig_optval *v, struct brig_criu_flags *f,
                        struct brig_error *err)
{
	const char *mode = v[OPT_CRIU_MANAGE_CGROUPS_MODE].str;
	const char *ns = v[OPT_CRIU_EMPTY_NS].str;

	memset(f, 0, sizeof(*f));
	f->image_path = v[OPT_CRIU_IMAGE_PATH].str;
	f->work_path = v[OPT_CRIU_WORK_PATH].str;
	f->tcp_established = v[OPT_CRIU_TCP_ESTABLISHED].b;
	f->ext_unix_sk = v[OPT_CRIU_EXT_UNIX_SK].b;
	f->shell_job = v[OPT_CRIU_SHELL_JOB].b;
	f->file_locks = v[OPT_CRIU_FILE_LOCKS].b;
	f->auto_dedup = v[OPT_CRIU_AUTO_DEDUP].b;
	f->lazy_pages = v[OPT_CRIU_LAZY_PAGES].b;
	f->manage_cgroups_mode = -1;
	if (f->image_path && !*f->image_path)
		return brig_error_usage(err, "--image-path must not be empty");
	if (f->work_path && !*f->work_path)
		return brig_error_usage(err, "--work-path must not be empty");
	if (mode && (f->manage_cgroups_mode = brig_criu_cg_mode_parse(mode)) < 0)
		return brig_error_usage(err,
		                        "invalid --manage-cgroups-mode \"%s\": expected soft, "
		                        "full, strict or ignore",
		                        mode);
	/* "network" is what brig always asks of CRIU (checkpoint.c), as runc */
	if (ns && strcmp(ns, "network") != 0)
		return brig_error_usage(
		    err, "invalid --empty-ns \"%s\": only \"network\" is supported", ns);
	return 0;
}
