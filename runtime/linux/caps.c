/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/caps.h"

#include <ctype.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#ifdef HAVE_LIBCAP
#include <sys/capability.h>
#endif

bool brig_caps_supported(void)
{
#ifdef HAVE_LIBCAP
	return true;
#else
	return false;
#endif
}

#ifdef HAVE_LIBCAP
/* libcap's lowercase name of @cap, uppercased into @buf; false if none. */
static bool libcap_name(int cap, char *buf, size_t size)
{
	char *s = cap_to_name((cap_value_t)cap);
	size_t i;

	if (!s)
		return false;
	/* an unnamed capability comes back as its number */
	if (isdigit((unsigned char)s[0]) || strlen(s) >= size) {
		cap_free(s);
		return false;
	}
	for (i = 0; s[i]; i++)
		buf[i] = (char)toupper((unsigned char)s[i]);
	buf[i] = '\0';
	cap_free(s);
	return true;
}
#endif

int brig_cap_from_name(const char *name)
{
#ifdef HAVE_LIBCAP
	cap_value_t v;
	char back[64];

	/* libcap also takes "cap_chown", "12" and trailing blanks; runc only
	 * knows the canonical spelling, so check the round trip */
	if (strncmp(name, "CAP_", 4) != 0 || cap_from_name(name, &v) < 0 || v < 0 || v > 63)
		return -1;
	if (!libcap_name((int)v, back, sizeof(back)) || strcmp(back, name) != 0)
		return -1;
	return (int)v;
#else
	(void)name;
	return -1;
#endif
}

const char *brig_cap_name(int cap, char *buf, size_t size)
{
#ifdef HAVE_LIBCAP
	if (libcap_name(cap, buf, size))
		return buf;
#endif
	snprintf(buf, size, "CAP_%d", cap);
	return buf;
}

int brig_cap_last(void)
{
	static int last = -1;
	int n;

	if (last >= 0)
		return last;
	/* PR_CAPBSET_READ fails with EINVAL past the kernel's last capability;
	 * start from the one the headers know and walk to the edge */
	n = CAP_LAST_CAP;
	if (prctl(PR_CAPBSET_READ, (unsigned long)n, 0, 0, 0) >= 0) {
		while (n < 63 && prctl(PR_CAPBSET_READ, (unsigned long)n + 1, 0, 0, 0) >= 0)
			n++;
	} else {
		while (n > 0 && prctl(PR_CAPBSET_READ, (unsigned long)n, 0, 0, 0) < 0)
			n--;
	}
	last = n;
	return last;
}
