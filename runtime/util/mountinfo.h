/* SPDX-License-Identifier: Apache-2.0 */
/* One line of /proc/PID/mountinfo (proc(5)), split in place. */
#ifndef BRIG_UTIL_MOUNTINFO_H
#define BRIG_UTIL_MOUNTINFO_H

#include <stdbool.h>

struct brig_mountinfo {
	unsigned long long id;
	char *root, *mountpoint; /* unescaped (\040 and friends) */
	char *optional;          /* the optional fields ("shared:3 master:1"), may be "" */
	char *fstype, *superopts;
};

/* Split @line (modified) into @e; false when it is not a mountinfo line. */
bool brig_mountinfo_parse(char *line, struct brig_mountinfo *e);

#endif
