/* SPDX-License-Identifier: Apache-2.0 */
/*
 * racer [-t SECONDS] [-r READY] [-s STOP] [-o SUMMARY] A1 B1 [A2 B2]...:
 * the attacker of tests/security/races.sh.  It swaps each pair of paths
 * Ai <-> Bi with renameat2(RENAME_EXCHANGE) (both must exist, on one
 * filesystem), pair after pair, as fast as it can, for at most SECONDS
 * (default 10) or until the file STOP exists.  A swap is atomic: at every
 * instant each name is either the one thing or the other (a directory, a
 * symlink), never missing, which is what a runtime resolving a path in
 * several steps is raced with.
 *
 * It is statically linked and takes plain paths, so that it runs as the
 * init of a container (racing inside a volume it shares with another
 * container) as well as on the host (racing inside a rootfs).
 *
 * READY is created once the first round of swaps is done.  At the end each
 * pair is swapped back if needed, so that every name is what it was at the
 * start, and a line "swaps=N failed=F seconds=S" goes to stdout and to
 * SUMMARY (created; written last, so it means the racer is done).  The
 * exit status is 0 when at least one swap happened, 1 otherwise, 2 on a
 * usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#define MAX_PAIRS 16

static int exchange(const char *a, const char *b)
{
	return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Create @path with @text in it (not through a symlink). */
static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	size_t len = strlen(text);

	if (fd < 0) {
		fprintf(stderr, "racer: %s: %s\n", path, strerror(errno));
		return;
	}
	if (write(fd, text, len) != (ssize_t)len)
		fprintf(stderr, "racer: write %s: %s\n", path, strerror(errno));
	close(fd);
}

static void usage(void)
{
	fputs("usage: racer [-t SECONDS] [-r READY] [-s STOP] [-o SUMMARY] A B [A B]...\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *ready = NULL, *stop = NULL, *summary = NULL;
	unsigned long long swaps = 0, failed = 0, done[MAX_PAIRS] = { 0 };
	double seconds = 10, start, elapsed;
	char line[128];
	int opt, npairs, first_errno = 0;

	while ((opt = getopt(argc, argv, "t:r:s:o:")) != -1) {
		switch (opt) {
		case 't':
			seconds = atof(optarg);
			break;
		case 'r':
			ready = optarg;
			break;
		case 's':
			stop = optarg;
			break;
		case 'o':
			summary = optarg;
			break;
		default:
			usage();
		}
	}
	argv += optind;
	argc -= optind;
	if (argc < 2 || argc % 2 || argc / 2 > MAX_PAIRS || seconds <= 0)
		usage();
	npairs = argc / 2;

	start = now();
	for (unsigned long round = 0;; round++) {
		for (int i = 0; i < npairs; i++) {
			if (exchange(argv[2 * i], argv[2 * i + 1]) == 0) {
				done[i]++;
				swaps++;
			} else {
				if (!first_errno)
					first_errno = errno;
				failed++;
			}
		}
		if (round == 0 && ready)
			write_file(ready, "racing\n");
		/* the clock and the stop file now and then: the swaps are
		 * what must be fast */
		if (round % 256 == 0) {
			if (now() - start >= seconds)
				break;
			if (round % 4096 == 0 && stop && access(stop, F_OK) == 0)
				break;
		}
	}
	elapsed = now() - start;
	/* back to the names of the start: an odd count is one swap short */
	for (int i = 0; i < npairs; i++)
		if (done[i] % 2 && exchange(argv[2 * i], argv[2 * i + 1]) < 0)
			fprintf(stderr, "racer: cannot swap %s and %s back: %s\n", argv[2 * i],
			        argv[2 * i + 1], strerror(errno));
	if (failed)
		fprintf(stderr, "racer: %llu swaps failed, the first with: %s\n", failed,
		        strerror(first_errno));
	snprintf(line, sizeof(line), "swaps=%llu failed=%llu seconds=%.1f\n", swaps, failed,
	         elapsed);
	fputs(line, stdout);
	fflush(stdout);
	if (summary)
		write_file(summary, line);
	return swaps ? 0 : 1;
}
