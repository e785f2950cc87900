/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lifecycle/result.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "linux/syscalls.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/jsonw.h"

const char *brig_result_reason(const struct brig_result *r)
{
	if (r->error || r->interrupted)
		return "error";
	if (r->timed_out)
		return "timeout";
	if (r->oom_killed)
		return "oom";
	return r->signaled ? "signaled" : "exited";
}

static void kv_uint_or_null(struct brig_jsonw *w, const char *key, bool known, uint64_t v)
{
	brig_jsonw_key(w, key);
	if (known)
		brig_jsonw_uint(w, v);
	else
		brig_jsonw_null(w);
}

static void write_egress(struct brig_jsonw *w, const struct brig_result_egress *e)
{
	brig_jsonw_key(w, "egress");
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_uint(w, "allowed", e->allowed);
	brig_jsonw_kv_uint(w, "denied", e->denied);
	brig_jsonw_kv_strings(w, "denied_names", e->denied_names, e->n_denied_names);
	brig_jsonw_kv_strings(w, "denied_addresses", e->denied_addresses, e->n_denied_addresses);
	brig_jsonw_kv_uint(w, "bytes_out", e->bytes_out);
	brig_jsonw_kv_uint(w, "bytes_in", e->bytes_in);
	brig_jsonw_object_end(w);
}

char *brig_result_json(const struct brig_result *r)
{
	const char *abbrev = r->signaled ? sigabbrev_np(r->signal) : NULL;
	_cleanup_free_ char *sig = abbrev ? brig_xasprintf("SIG%s", abbrev) : NULL;
	struct brig_jsonw w;
	char *text;

	brig_jsonw_init(&w, NULL);
	brig_jsonw_object_begin(&w);
	brig_jsonw_kv_string(&w, "id", r->id);
	brig_jsonw_key(&w, "exit_code");
	if (r->exited)
		brig_jsonw_int(&w, r->exit_code);
	else
		brig_jsonw_null(&w);
	brig_jsonw_kv_string(&w, "signal", sig);
	brig_jsonw_kv_string(&w, "reason", brig_result_reason(r));
	brig_jsonw_kv_string(&w, "error", r->error);
	brig_jsonw_kv_uint(&w, "wall_ms", r->wall_ms);
	brig_jsonw_kv_uint(&w, "cpu_user_ms", r->usage.cpu_user_ns / 1000000);
	brig_jsonw_kv_uint(&w, "cpu_system_ms", r->usage.cpu_system_ns / 1000000);
	brig_jsonw_kv_uint(&w, "memory_peak_bytes", r->usage.memory_peak);
	kv_uint_or_null(&w, "pids_peak", r->usage.has_pids_peak, r->usage.pids_peak);
	kv_uint_or_null(&w, "stdout_bytes", r->has_streams, r->stdout_bytes);
	kv_uint_or_null(&w, "stderr_bytes", r->has_streams, r->stderr_bytes);
	kv_uint_or_null(&w, "stdout_dropped_bytes", r->has_streams, r->stdout_dropped);
	kv_uint_or_null(&w, "stderr_dropped_bytes", r->has_streams, r->stderr_dropped);
	kv_uint_or_null(&w, "writable_used_bytes", r->has_writable, r->writable_used);
	brig_jsonw_kv_bool(&w, "timed_out", r->timed_out);
	brig_jsonw_kv_bool(&w, "oom_killed", r->oom_killed);
	if (r->pool)
		brig_jsonw_kv_string(&w, "pool", r->pool);
	if (r->warning)
		brig_jsonw_kv_string(&w, "warning", r->warning);
	if (r->egress)
		write_egress(&w, r->egress);
	if (r->denials) {
		brig_jsonw_key(&w, "denied_syscalls");
		brig_jsonw_object_begin(&w);
		for (size_t i = 0; i < r->denials->n; i++)
			brig_jsonw_kv_uint(&w, r->denials->names[i], r->denials->counts[i]);
		brig_jsonw_object_end(&w);
		brig_jsonw_kv_bool(&w, "denied_syscalls_truncated", r->denials->truncated);
	}
	if (r->audit_truncated)
		brig_jsonw_kv_bool(&w, "audit_truncated", true);
	if (r->changes) {
		brig_jsonw_key(&w, "changes");
		brig_jsonw_raw(&w, r->changes, strlen(r->changes));
	}
	brig_jsonw_object_end(&w);
	text = brig_jsonw_finish(&w);
	/* one line, newline-terminated */
	text = realloc(text, strlen(text) + 2);
	if (!text)
		brig_oom();
	strcat(text, "\n");
	return text;
}

/* How many new names the record's temporary file is tried under before
 * brig gives up (another process took each one first). */
#define TMP_TRIES 8

/*
 * The directory of @path (absolute), opened from "/" with no symlink in
 * any component (RESOLVE_NO_SYMLINKS: a directory that a container can
 * write may be swapped for a symlink to anywhere), and in *@name the last
 * component, a file's name (heap).
 */
static int open_parent(const char *path, char **name, struct brig_error *err)
{
	_cleanup_free_ char *dir = brig_xstrdup(path);
	char *slash = strrchr(dir, '/');
	int fd;

	if (path[0] != '/' || !slash[1] || !strcmp(slash + 1, ".") || !strcmp(slash + 1, ".."))
		return brig_error_set(err, "\"%s\" is not the path of a file", path);
	*name = brig_xstrdup(slash + 1);
	slash[slash == dir ? 1 : 0] = '\0';
	fd = brig_openat2(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0,
	                  RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (fd < 0) {
		int e = errno;

		free(TAKE_PTR(*name));
		if (e == ELOOP)
			return brig_error_sete(err, e,
			                       "\"%s\": a component of \"%s\" is a symlink, and "
			                       "brig follows none",
			                       path, dir);
		return brig_error_setp(err, e, "open \"%s\"", dir);
	}
	return fd;
}

/* Whether @name in @dir is a record of brig's: a regular file that
 * carries BRIG_RESULT_XATTR, which only root of the host's user namespace
 * can set (trusted.*: never a container, whatever its ids). */
static bool brig_record(int dir, const char *name)
{
	_cleanup_close_ int fd =
	    openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	return fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	       fgetxattr(fd, BRIG_RESULT_XATTR, NULL, 0) >= 0;
}

int brig_result_check_path(const char *path, struct brig_error *err)
{
	_cleanup_free_ char *name = NULL;
	_cleanup_close_ int dir = open_parent(path, &name, err);
	struct stat st;

	/* a directory that is not there yet may be by the end */
	if (dir < 0 && err->errnum != ELOOP && err->errnum != 0) {
		brig_error_release(err);
		return 0;
	}
	if (dir < 0)
		return -1;
	/* the record replaces what is at the name at the end (a container
	 * may put a forgery there), so nothing may be there now but an
	 * earlier record of brig's: never a file of the host's */
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : brig_error_setp(err, errno, "stat \"%s\"", path);
	if (!brig_record(dir, name))
		return brig_error_set(err,
		                      "\"%s\" exists and is no result of brig's: brig replaces "
		                      "only its own",
		                      path);
	return 0;
}

int brig_result_write_file(const char *path, const char *text, struct brig_error *err)
{
	_cleanup_free_ char *name = NULL;
	_cleanup_close_ int dir = open_parent(path, &name, err);
	_cleanup_close_ int fd = -1;
	char tmp[40];
	int e;

	if (dir < 0)
		return -1;
	/* a name of brig's own, made here (O_EXCL): never a file that was
	 * there, nor one a symlink at that name leads to */
	for (int tries = 0; fd < 0; tries++) {
		unsigned long long r = 0;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r ^= (unsigned long long)getpid() << 32 | (unsigned long long)tries;
		snprintf(tmp, sizeof(tmp), ".brig-result-%016llx", r);
		fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && (errno != EEXIST || tries + 1 >= TMP_TRIES))
			return brig_error_setp(err, errno, "create \"%s\" next to \"%s\"", tmp,
			                       path);
	}
	/* marked as brig's (a filesystem without trusted xattrs: unmarked,
	 * and a later container's create refuses the name), then renamed
	 * over the name: what was there (a forged record, a FIFO, a hard
	 * link, a symlink) is replaced, never opened */
	(void)fsetxattr(fd, BRIG_RESULT_XATTR, "1", 1, 0);
	if (brig_write_all(fd, text, strlen(text)) < 0) {
		e = errno;
		unlinkat(dir, tmp, 0);
		return brig_error_setp(err, e, "write \"%s\"", path);
	}
	if (renameat(dir, tmp, dir, name) < 0) {
		e = errno;
		unlinkat(dir, tmp, 0);
		return brig_error_setp(err, e, "replace \"%s\"", path);
	}
	return 0;
}
