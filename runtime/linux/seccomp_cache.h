/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Compiled seccomp filters, kept under the state root so that the same
 * profile is compiled once: <root>/.seccomp-cache/<fnv64 of the key>.
 * Building Podman's default profile for x86_64, x86 and x32 costs
 * libseccomp 15-25 ms, three times a whole `brig run` without it.
 *
 * The key is everything the program depends on, written out in full: the
 * config's default action, architectures and syscalls (not its flags or
 * listener, which do not change the program), and the versions of brig,
 * libseccomp and the kernel.  An entry holds its whole key and a checksum;
 * a lookup compares both, so a hash collision or a torn file is a miss,
 * never another container's filter.  Entries are written atomically
 * (0600, in a 0700 directory owned by the caller, and never one that
 * holds a state.json: a container may be called ".seccomp-cache"); at
 * most BRIG_SECCOMP_CACHE_MAX are kept, the least recently written go
 * first.  Every failure is a miss: the cache never fails a container.
 */
#ifndef BRIG_LINUX_SECCOMP_CACHE_H
#define BRIG_LINUX_SECCOMP_CACHE_H

#include <stddef.h>

struct brig_seccomp;
struct brig_strbuf;

#define BRIG_SECCOMP_CACHE_DIR ".seccomp-cache"
#define BRIG_SECCOMP_CACHE_MAX 64

/* Append the key of @sc to @out; @env names the versions (one line). */
void brig_seccomp_cache_key(const struct brig_seccomp *sc, const char *env,
                            struct brig_strbuf *out);

/* The program stored under @key in the state root @rootfd: a heap array
 * of *@len instructions, or NULL on a miss. */
void *brig_seccomp_cache_get(int rootfd, const char *key, size_t keylen, unsigned short *len);

/* Store @insns (@len instructions) under @key; failures are only logged. */
void brig_seccomp_cache_put(int rootfd, const char *key, size_t keylen, const void *insns,
                            unsigned short len);

#endif
