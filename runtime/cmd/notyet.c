/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"

#include "util/error.h"

int brig_cmd_not_implemented(const char *name, struct brig_error *err)
{
	return brig_error_set(err, "\"%s\" is not implemented yet", name);
}
