/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "util/id.h"

#include <string.h>

#include "util/error.h"
#include "util/strbuf.h"

static int invalid(struct brig_error *err, const char *id, const char *why)
{
	struct brig_strbuf shown = BRIG_STRBUF_INIT;
	size_t i;

	/* the id is untrusted: show a bounded, printable form of it */
	for (i = 0; i < 64 && id[i]; i++) {
		unsigned char c = (unsigned char)id[i];

		if (c < 0x20 || c == 0x7f)
			brig_strbuf_addf(&shown, "\\x%02x", c);
		else
			brig_strbuf_addch(&shown, (char)c);
	}
	if (id[i])
		brig_strbuf_addstr(&shown, "...");
	brig_error_usage(err, "invalid container id \"%s\": %s", shown.buf ? shown.buf : "", why);
	brig_strbuf_release(&shown);
	return -1;
}

int brig_id_validate(const char *id, struct brig_error *err)
{
	size_t len = strlen(id);

	if (len == 0)
		return invalid(err, id, "must not be empty");
	if (len > BRIG_ID_MAX)
		return invalid(err, id, "longer than 1024 bytes");
	/* "." and "..", and the names brig keeps under --root for itself
	 * (".seccomp-cache"): no id starts with a dot */
	if (id[0] == '.')
		return invalid(err, id, "must not start with '.'");
	if (strchr(id, '/'))
		return invalid(err, id, "must not contain '/'");
	for (const char *p = id; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return invalid(err, id, "must not contain control characters");
	return 0;
}
