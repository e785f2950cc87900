/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keyring-probe: the session keyring as a process sees it, for the keyring
 * tests of confinement-defaults.sh (busybox has no keyctl).  Raw system
 * calls, no libkeyutils; statically linked: it runs in a busybox rootfs.
 *
 *   keyring-probe add DESC DATA
 *       add the "user" key DESC (payload DATA) to the session keyring
 *   keyring-probe find DESC
 *       look DESC up the way a thief would: KEYCTL_SEARCH of the session
 *       keyring (and the keyrings linked in it), then request_key(), which
 *       walks the thread, process and session keyrings; print
 *       "FOUND <payload>" (exit 0) or "NOTFOUND" (exit 1)
 *   keyring-probe session
 *       print the session keyring: "<serial> <description>"
 *   keyring-probe share
 *       let every process of the same uid search the session keyring (add
 *       KEY_USR_SEARCH to its permissions, what runc does to each
 *       container's keyring so that `runc exec` can join it by name; the
 *       session keyring's possessor may do it)
 *   keyring-probe new-session DESC DATA CMD [ARGS...]
 *       (on the host) join a new anonymous session keyring, add DESC to
 *       it, and exec CMD there: the key goes when the last process that
 *       holds the keyring ends, nothing of the caller's keyrings changes
 *
 * Exit status 2: a system call that must work failed (errno on stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/keyctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* the "user" search permission (keyutils.h, not in linux/keyctl.h) */
#define KEY_USR_SEARCH 0x00080000

static long add_key(const char *desc, const char *data)
{
	return syscall(SYS_add_key, "user", desc, data, strlen(data), KEY_SPEC_SESSION_KEYRING);
}

static int print_payload(long key)
{
	char buf[512];
	long n = syscall(SYS_keyctl, KEYCTL_READ, key, buf, sizeof(buf) - 1);

	if (n < 0) {
		/* found but not readable is found all the same */
		printf("FOUND (unreadable: %s)\n", strerror(errno));
		return 0;
	}
	if (n > (long)sizeof(buf) - 1)
		n = (long)sizeof(buf) - 1;
	buf[n] = 0;
	printf("FOUND %s\n", buf);
	return 0;
}

static int find(const char *desc)
{
	long key = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, "user", desc, 0);

	if (key >= 0)
		return print_payload(key);
	key = syscall(SYS_request_key, "user", desc, NULL, 0);
	if (key >= 0)
		return print_payload(key);
	printf("NOTFOUND\n");
	return 1;
}

static int session(void)
{
	char buf[512];
	long serial = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
	long n;

	if (serial < 0) {
		fprintf(stderr, "keyring-probe: no session keyring: %s\n", strerror(errno));
		return 2;
	}
	n = syscall(SYS_keyctl, KEYCTL_DESCRIBE, serial, buf, sizeof(buf));
	if (n < 0) {
		fprintf(stderr, "keyring-probe: describe %ld: %s\n", serial, strerror(errno));
		return 2;
	}
	buf[sizeof(buf) - 1] = 0;
	printf("%ld %s\n", serial, buf);
	return 0;
}

static int share(void)
{
	char buf[512];
	unsigned int perm;

	if (syscall(SYS_keyctl, KEYCTL_DESCRIBE, KEY_SPEC_SESSION_KEYRING, buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%*[^;];%*[^;];%*[^;];%x;", &perm) != 1) {
		fprintf(stderr, "keyring-probe: describe the session keyring: %s\n",
		        strerror(errno));
		return 2;
	}
	if (syscall(SYS_keyctl, KEYCTL_SETPERM, KEY_SPEC_SESSION_KEYRING, perm | KEY_USR_SEARCH) <
	    0) {
		fprintf(stderr, "keyring-probe: setperm: %s\n", strerror(errno));
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "add")) {
		long key = add_key(argv[2], argv[3]);

		if (key < 0) {
			fprintf(stderr, "keyring-probe: add_key %s: %s\n", argv[2],
			        strerror(errno));
			return 2;
		}
		printf("added %ld\n", key);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "find"))
		return find(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "session"))
		return session();
	if (argc == 2 && !strcmp(argv[1], "share"))
		return share();
	if (argc >= 5 && !strcmp(argv[1], "new-session")) {
		if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0) {
			fprintf(stderr, "keyring-probe: join a session keyring: %s\n",
			        strerror(errno));
			return 2;
		}
		if (add_key(argv[2], argv[3]) < 0) {
			fprintf(stderr, "keyring-probe: add_key %s: %s\n", argv[2],
			        strerror(errno));
			return 2;
		}
		fflush(stdout);
		execvp(argv[4], argv + 4);
		fprintf(stderr, "keyring-probe: exec %s: %s\n", argv[4], strerror(errno));
		return 2;
	}
	fprintf(stderr, "usage: keyring-probe add DESC DATA | find DESC | session"
	                " | new-session DESC DATA CMD [ARGS...]\n");
	return 2;
}
