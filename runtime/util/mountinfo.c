/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "util/mountinfo.h"

#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

bool brig_mountinfo_parse(char *line, struct brig_mountinfo *e)
{
	char *field[6], *save = NULL, *dash, *end;
	size_t i;

	line[strcspn(line, "\n")] = '\0';
	dash = strstr(line, " - ");
	if (!dash)
		return false;
	*dash = '\0';
	e->fstype = strtok_r(dash + 3, " ", &save);
	(void)strtok_r(NULL, " ", &save); /* source */
	e->superopts = strtok_r(NULL, " ", &save);
	save = NULL;
	for (i = 0; i < ARRAY_SIZE(field); i++)
		if (!(field[i] = strtok_r(i ? NULL : line, " ", &save)))
			return false;
	if (!e->fstype || !e->superopts)
		return false;
	e->id = strtoull(field[0], &end, 10);
	if (*end)
		return false;
	e->root = field[3];
	e->mountpoint = field[4];
	/* what strtok_r left after the mount options, up to the " - " */
	e->optional = save ? save : dash;
	unescape(e->root);
	unescape(e->mountpoint);
	return true;
}
