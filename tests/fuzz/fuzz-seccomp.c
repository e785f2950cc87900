/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the seccomp profile's translation.  An input is a
 * config.json; when it parses and has linux.seccomp, brig turns the
 * profile into its BPF program as create does before the clone (the
 * cache aside: no state root), and frees it.  Nothing is loaded.  Built
 * and run by tests/fuzz/run.sh.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "linux/seccomp.h"
#include "spec/spec.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct brig_error err = BRIG_ERROR_INIT;
	struct brig_config *cfg = brig_config_parse("config.json", (const char *)data, size, &err);
	struct brig_seccomp_prog prog;

	brig_error_release(&err);
	if (!cfg)
		return 0;
	if (cfg->linux && cfg->linux->seccomp) {
		if (brig_seccomp_prepare(cfg->linux->seccomp, -1, &prog, &err) == 0)
			sink += prog.len;
		brig_error_release(&err);
		brig_seccomp_prog_release(&prog);
	}
	brig_config_free(cfg);
	return 0;
}
