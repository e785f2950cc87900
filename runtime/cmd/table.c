/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The command table and the global flags: what main() dispatches on, and
 * what brig-docgen turns into the man pages and shell completions.
 */
#include "config.h"
#include "cmd/cmd.h"

const struct brig_command *const brig_commands[] = {
	&brig_cmd_checkpoint, &brig_cmd_create,   &brig_cmd_delete, &brig_cmd_events,
	&brig_cmd_exec,       &brig_cmd_features, &brig_cmd_job,    &brig_cmd_kill,
	&brig_cmd_list,       &brig_cmd_pause,    &brig_cmd_pool,   &brig_cmd_ps,
	&brig_cmd_restore,    &brig_cmd_resume,   &brig_cmd_run,    &brig_cmd_spec,
	&brig_cmd_start,      &brig_cmd_state,    &brig_cmd_update,
};
const size_t brig_n_commands = ARRAY_SIZE(brig_commands);

const struct brig_option brig_global_options[] = {
	[BRIG_G_DEBUG] = { "debug", 0, BRIG_OPT_BOOL, NULL, "enable debug logging", NULL },
	[BRIG_G_LOG] = { "log", 0, BRIG_OPT_STRING, "FILE",
	                 "set the log file to write brig logs to (default is stderr)", NULL },
	[BRIG_G_LOG_FORMAT] = { "log-format", 0, BRIG_OPT_STRING, "text|json", "set the log format",
	                        "text" },
	[BRIG_G_ROOT] = { "root", 0, BRIG_OPT_STRING, "DIR",
	                  "root directory for storage of container state (this should be "
	                  "located in tmpfs)",
	                  "/run/brig" },
	[BRIG_G_CRIU] = { "criu", 0, BRIG_OPT_STRING, "PATH",
	                  "path to the criu binary used for checkpoint and restore", "criu" },
	[BRIG_G_SYSTEMD_CGROUP] = { "systemd-cgroup", 0, BRIG_OPT_BOOL, NULL,
	                            "enable systemd cgroup support, expects cgroupsPath to be of "
	                            "form \"slice:prefix:name\"",
	                            NULL },
	[BRIG_G_CGROUP_MANAGER] = { "cgroup-manager", 0, BRIG_OPT_STRING, "MANAGER",
	                            "cgroupfs, systemd (as --systemd-cgroup) or disabled (no "
	                            "cgroup, no limits), as crun's",
	                            "cgroupfs" },
	[BRIG_G_ROOTLESS] = { "rootless", 0, BRIG_OPT_STRING, "auto|true|false",
	                      "ignore cgroup permission errors", "auto" },
	[BRIG_G_VERSION] = { "version", 'v', BRIG_OPT_BOOL, NULL, "print the version", NULL },
};
const size_t brig_n_global_options = ARRAY_SIZE(brig_global_options);
