/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The command table.  Each subcommand lives in runtime/cmd/<name>.c: a flag
 * table, a description, and a run function that turns flags into one
 * library call.  The same data produces `brig <cmd> --help` and the man
 * pages, so they cannot drift apart.
 */
#ifndef BRIG_CMD_H
#define BRIG_CMD_H

#include <stdbool.h>

#include "cmd/options.h"
#include "lifecycle/context.h"
#include "util/cleanup.h"
#include "util/log.h"

struct brig_error;

/* The global flags, given before the subcommand: what the lifecycle
 * takes of them (context.h), and the command line's own. */
struct brig_cli {
	struct brig_context ctx;
	const char *log_path; /* --log */
	enum brig_log_format log_format;
	bool debug;
	int exit_status; /* what brig exits with on success (run, exec) */
};

struct brig_command {
	const char *name;
	const char *args_usage;  /* "<container-id>" */
	const char *summary;     /* one line for the command list */
	const char *description; /* paragraphs for --help and the man page */
	const struct brig_option *options;
	size_t n_options;
	enum brig_parse_mode mode;
	int min_args, max_args; /* max_args < 0: no limit */
	int (*run)(struct brig_cli *cli, struct brig_args *args, struct brig_error *err);
	/* the exit status of any failure of the command, its flags' included
	 * (brig job: 125, as timeout(1) and env(1) say "could not run");
	 * 0: the error's own */
	int error_status;
};

/* The subcommands, in the order --help lists them. */
extern const struct brig_command *const brig_commands[];
extern const size_t brig_n_commands;

/* The global flags: brig_global_options[BRIG_G_*]. */
enum brig_global_option {
	BRIG_G_DEBUG,
	BRIG_G_LOG,
	BRIG_G_LOG_FORMAT,
	BRIG_G_ROOT,
	BRIG_G_CRIU,
	BRIG_G_SYSTEMD_CGROUP,
	BRIG_G_CGROUP_MANAGER,
	BRIG_G_ROOTLESS,
	BRIG_G_VERSION,
};
extern const struct brig_option brig_global_options[];
extern const size_t brig_n_global_options;

#define BRIG_OPTIONS(table) .options = (table), .n_options = ARRAY_SIZE(table)

/* --preserve-fds N (create, run, exec). */
int brig_cmd_parse_preserve_fds(const char *s, unsigned int *out, struct brig_error *err);

/* The flags checkpoint and restore share (runc's), into @f; @v is the
 * command's values from the index of "image-path" on, in the order of
 * BRIG_CRIU_OPTIONS. */
struct brig_criu_flags;
int brig_cmd_criu_flags(const struct brig_optval *v, struct brig_criu_flags *f,
                        struct brig_error *err);

extern const struct brig_command brig_cmd_checkpoint, brig_cmd_create, brig_cmd_delete,
    brig_cmd_events, brig_cmd_exec, brig_cmd_features, brig_cmd_job, brig_cmd_kill, brig_cmd_list,
    brig_cmd_pause, brig_cmd_pool, brig_cmd_ps, brig_cmd_restore, brig_cmd_resume, brig_cmd_run,
    brig_cmd_spec, brig_cmd_start, brig_cmd_state, brig_cmd_update;

#endif
