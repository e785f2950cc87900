/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runs inside a busybox container (static: no libc there) for
 * 80-seccomp.sh: a second thread calls mkdir("/tmp/threaded"), which the
 * test's filter kills.  SCMP_ACT_KILL_THREAD ends that thread alone and
 * the main thread prints "main thread survived"; SCMP_ACT_KILL_PROCESS
 * ends the whole process with SIGSYS before it can.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>

static void *worker(void *arg)
{
	(void)arg;
	mkdir("/tmp/threaded", 0700);
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 2;
	/* the kernel clears the thread's tid when it dies, killed or not */
	pthread_join(t, NULL);
	printf("main thread survived\n");
	return 0;
}
