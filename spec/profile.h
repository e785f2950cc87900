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

/* @flags of brig_seccomp_profile_write */
enum {
	/*
	 * A job with a rw bind: no call gives a file S_ISUID or S_ISGID or
	 * makes a device node.  chmod, fchmod, fchmodat, fchmodat2, open,
	 * openat, creat, mkdir, mkdirat, mknod and mknodat are taken out of
	 * the profile's rules and come back conditioned on their mode: the
	 * profile's action for them (its rule's, or its default) when none
	 * of those bits is set (and, for mknod(at), the file is no device),
	 * EPERM otherwise.  openat2 (its mode in a struct seccomp cannot
	 * read) gets ENOSYS, so that libc falls back to openat; io_uring's
	 * calls EPERM (its operations pass seccomp by).  A profile with a
	 * conditional rule for one of these calls is refused.
	 */
	BRIG_PROFILE_NO_SETID = 1 << 0,
	/* Of @text only the architectures: a profile that allows every call
	 * but what @deny and the flags refuse (--seccomp unconfined). */
	BRIG_PROFILE_RULES_ONLY = 1 << 1,
	/* chown, fchown, lchown, fchownat (and their 32-bit forms) get EPERM:
	 * a job without a user namespace that keeps CAP_CHOWN may otherwise
	 * take a file of its rw bind's that is unmapped there (the kernel's
	 * chown_ok lets CAP_CHOWN chown an inode whose owner is unmapped) */
	BRIG_PROFILE_NO_CHOWN = 1 << 2,
};

/*
 * Write the object of @text (@len bytes; errors name @name) as the next
 * value of @w.  Each name of @deny is dropped from every rule's "names"
 * (a rule left with none is dropped), and one rule at the end returns
 * EPERM for all of them, or with @listener notifies it instead
 * (SCMP_ACT_NOTIFY, listenerPath @listener: its answer is the call's);
 * then what @flags add.  The profile must be a JSON object.
 */
int brig_seccomp_profile_write(struct brig_jsonw *w, const char *name, const char *text, size_t len,
                               const char *const *deny, size_t n_deny, const char *listener,
                               unsigned int flags, struct brig_error *err);

#endif
