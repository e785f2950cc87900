/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Labels are used raw, as runc does: what the config says is what the
 * kernel gets, without mcstrans translation.  Only the parent's check needs
 * libselinux; the attributes are written directly (libselinux's setexeccon
 * and setkeycreatecon would write them through /proc/thread-self, which
 * after pivot_root is the container's /proc).
 *
 * libselinux is loaded with dlopen() when a config asks for a label: linked
 * in, it (and libpcre2) cost every brig invocation ~0.35 ms of loading and
 * constructors, for the few containers that carry a label.
 */
#include "config.h"
#include "linux/selinux.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifdef HAVE_SELINUX
#include <selinux/selinux.h>
#endif

#include "linux/procfs.h"
#include "util/cleanup.h"
#include "util/dlib.h"
#include "util/error.h"

#define NO_SUPPORT "brig was built without SELinux support"

static bool is_set(const char *label)
{
	return label && label[0];
}

int brig_selinux_check(const char *label, struct brig_error *err)
{
	if (!is_set(label))
		return 0;
#ifdef HAVE_SELINUX
	static void *handle;
	static __typeof__(is_selinux_enabled) *enabled;
	static __typeof__(security_check_context_raw) *check;
	static const struct brig_dlsym syms[] = {
		{ "is_selinux_enabled", (void **)&enabled },
		{ "security_check_context_raw", (void **)&check },
	};
	size_t n = ARRAY_SIZE(syms);

	if (brig_dlib_load(&handle, "libselinux.so.1", "libselinux1", syms, n, err) < 0)
		return -1;
	if (enabled() != 1)
		return brig_error_set(err, "SELinux is not enabled on this host");
	if (check(label) < 0)
		return brig_error_setp(err, errno ? errno : EINVAL, "invalid context \"%s\"",
		                       label);
	return 0;
#else
	return brig_error_set(err, NO_SUPPORT);
#endif
}

/* Write @label to the attribute @attr of the calling thread. */
static int write_attr(int procfd, const char *attr, const char *label, struct brig_error *err)
{
#ifdef HAVE_SELINUX
	char path[64];

	snprintf(path, sizeof(path), "%d/task/%d/attr/%s", (int)getpid(), (int)gettid(), attr);
	return brig_procfs_write(procfd, path, label, strlen(label), err);
#else
	return brig_error_set(err, NO_SUPPORT);
#endif
}

int brig_selinux_set_exec(int procfd, const char *label, struct brig_error *err)
{
	if (is_set(label) && write_attr(procfd, "exec", label, err) < 0)
		return brig_error_wrap(err, "set the SELinux exec label \"%s\"", label);
	return 0;
}

int brig_selinux_set_keycreate(int procfd, const char *label, struct brig_error *err)
{
	if (is_set(label) && write_attr(procfd, "keycreate", label, err) < 0)
		return brig_error_wrap(err, "set the SELinux key label \"%s\"", label);
	return 0;
}

int brig_selinux_set_file_label(int dirfd, const char *label, struct brig_error *err)
{
	_cleanup_close_ int fd = -1;

	if (!is_set(label))
		return 0;
#ifdef HAVE_SELINUX
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* the attribute holds the terminating NUL, as libselinux writes it */
	if (fd < 0 || fsetxattr(fd, "security.selinux", label, strlen(label) + 1, 0) < 0)
		return brig_error_setp(err, errno, "set the SELinux label \"%s\"", label);
	return 0;
#else
	return brig_error_set(err, NO_SUPPORT);
#endif
}

char *brig_selinux_format_mount_label(const char *data, const char *label)
{
	if (!data)
		data = "";
	if (!is_set(label))
		return brig_xstrdup(data);
	return brig_xasprintf("%s%scontext=\"%s\"", data, data[0] ? "," : "", label);
}

bool brig_selinux_is_context_option(const char *key)
{
	static const char *const keys[] = { "context", "fscontext", "defcontext", "rootcontext" };

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (strcmp(key, keys[i]) == 0)
			return true;
	return false;
}
