/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BRIG_FEATURES_H
#define BRIG_FEATURES_H

/*
 * The runtime-spec features document (features.md) of this build, pretty
 * printed, heap allocated.  It lists only what is implemented: each part of
 * brig that lands turns its entry on here.
 */
char *brig_features_json(void);

#endif
