/* SPDX-License-Identifier: Apache-2.0 */
/* The flags of runc's that checkpoint and restore share, first in both
 * option tables, in this order. */
#ifndef BRIG_CMD_CRIU_H
#define BRIG_CMD_CRIU_H

enum {
	OPT_CRIU_IMAGE_PATH,
	OPT_CRIU_WORK_PATH,
	OPT_CRIU_TCP_ESTABLISHED,
	OPT_CRIU_EXT_UNIX_SK,
	OPT_CRIU_SHELL_JOB,
	OPT_CRIU_FILE_LOCKS,
	OPT_CRIU_AUTO_DEDUP,
	OPT_CRIU_LAZY_PAGES,
	OPT_CRIU_MANAGE_CGROUPS_MODE,
	OPT_CRIU_EMPTY_NS,
	OPT_CRIU_N,
};

#define BRIG_CRIU_OPTIONS(image_help)                                                             \
	[OPT_CRIU_IMAGE_PATH] = { "image-path", 0,          BRIG_OPT_STRING,                      \
		                  "DIR",        image_help, "./checkpoint" },                     \
	[OPT_CRIU_WORK_PATH] = { "work-path",                                                     \
		                 0,                                                               \
		                 BRIG_OPT_STRING,                                                 \
		                 "DIR",                                                           \
		                 "path for saving work files and logs",                           \
		                 "the image path" },                                              \
	[OPT_CRIU_TCP_ESTABLISHED] = { "tcp-established",                                         \
		                       0,                                                         \
		                       BRIG_OPT_BOOL,                                             \
		                       NULL,                                                      \
		                       "allow open tcp connections",                              \
		                       NULL },                                                    \
	[OPT_CRIU_EXT_UNIX_SK] = { "ext-unix-sk",                                                 \
		                   0,                                                             \
		                   BRIG_OPT_BOOL,                                                 \
		                   NULL,                                                          \
		                   "allow external unix sockets",                                 \
		                   NULL },                                                        \
	[OPT_CRIU_SHELL_JOB] = { "shell-job", 0, BRIG_OPT_BOOL, NULL, "allow shell jobs", NULL }, \
	[OPT_CRIU_FILE_LOCKS] = { "file-locks",                                                   \
		                  0,                                                              \
		                  BRIG_OPT_BOOL,                                                  \
		                  NULL,                                                           \
		                  "handle file locks, for safety",                                \
		                  NULL },                                                         \
	[OPT_CRIU_AUTO_DEDUP] = { "auto-dedup",                                                   \
		                  0,                                                              \
		                  BRIG_OPT_BOOL,                                                  \
		                  NULL,                                                           \
		                  "enable auto deduplication of memory images",                   \
		                  NULL },                                                         \
	[OPT_CRIU_LAZY_PAGES] = { "lazy-pages",                                                   \
		                  0,                                                              \
		                  BRIG_OPT_BOOL,                                                  \
		                  NULL,                                                           \
		                  "use userfaultfd to lazily restore memory pages",               \
		                  NULL },                                                         \
	[OPT_CRIU_MANAGE_CGROUPS_MODE] = { "manage-cgroups-mode",                                 \
		                           0,                                                     \
		                           BRIG_OPT_STRING,                                       \
		                           "MODE",                                                \
		                           "cgroups mode: soft|full|strict|ignore",               \
		                           "soft" },                                              \
	[OPT_CRIU_EMPTY_NS] = { "empty-ns",                                                       \
		                0,                                                                \
		                BRIG_OPT_STRING,                                                  \
		                "NS",                                                             \
		                "create a namespace, but don't restore its properties "           \
		                "(network only, and always, as runc)",                            \
		                NULL }

#endif
