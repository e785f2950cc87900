/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: brig's state.json as it is read back (a file a crash
 * may have cut short, or anyone with access to --root may have edited).
 * What parses is written out again and must parse to the same text (the
 * round trip of every save), then freed (LeakSanitizer checks that).
 * Built and run by tests/fuzz/run.sh.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spec/state.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_state *s = brig_state_parse("state.json", (const char *)data, size, &err);
	char *once, *twice;
	struct brig_state *again;

	brig_error_release(&err);
	if (!s)
		return 0;
	once = brig_state_to_json(s);
	again = brig_state_parse("state.json", once, strlen(once), &err);
	if (!again)
		abort(); /* brig cannot read what it wrote */
	twice = brig_state_to_json(again);
	if (strcmp(once, twice) != 0)
		abort(); /* the round trip changed the state */
	free(once);
	free(twice);
	brig_state_free(again);
	brig_state_free(s);
	return 0;
}
