/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BRIG_FEATURES_H
#define BRIG_FEATURES_H

#include <stdbool.h>

/*
 * The runtime-spec features document (features.md) of this build, pretty
 * printed, heap allocated.  It lists only what is implemented: each part of
 * brig that lands turns its entry on here.
 */
/* @checkpoint: CRIU runs here and passes its check (linux/criu.h), which
 * the annotation "org.opencontainers.runc.checkpoint.enabled" says, as
 * runc's does. */
char *brig_features_json(bool checkpoint);

#endif
