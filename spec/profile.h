/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A seccomp profile (a linux.seccomp object, as contrib/seccomp/default.json
 * or a user's file) copied into a config being written, with extra
 * denials: brig job's hardened profile is the Podman-like default with the
 * calls an untrusted job never needs taken out of every rule and refused
 * by one rule of their own.
 */
#ifndef BRIG_SPEC_PROFILE_H
#define BRIG_SPEC_PROFILE_H

#include <stddef.h>

struct brig_error;
struct brig_jsonw;

/*
 * Write the object of @text (@len bytes; errors name @name) as the next
 * value of @w.  Each name of @deny is dropped from every rule's "names"
 * (a rule left with none is dropped), and one rule at the end returns
 * EPERM for all of them.  The profile must be a JSON object.
 */
int brig_seccomp_profile_write(struct brig_jsonw *w, const char *name, const char *text, size_t len,
                               const char *const *deny, size_t n_deny, struct brig_error *err);

#endif
