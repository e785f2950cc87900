/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lifecycle/state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/fs.h"
#include "util/id.h"
#include "util/proc.h"
#include "util/strbuf.h"

#define STATE_FILE "state.json"
#define STATE_MAX_BYTES (4u << 20)

int brig_store_open(struct brig_store *st, const char *root, bool create, struct brig_error *err)
{
	st->root = brig_xstrdup(root);
	st->rootfd = -1;
	if (create && brig_mkdir_p(root, 0700, err) < 0)
		goto fail;
	st->rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (st->rootfd < 0 && (create || errno != ENOENT)) {
		brig_error_setp(err, errno, "open state directory \"%s\"", root);
		goto fail;
	}
	return 0;
fail:
	brig_store_close(st);
	return -1;
}

int brig_container_ref_open(struct brig_container_ref *c, const char *root, const char *id,
                            enum brig_lock lock, struct brig_error *err)
{
	*c = (struct brig_container_ref)BRIG_CONTAINER_REF_INIT;
	if (brig_store_open(&c->st, root, false, err) < 0 ||
	    brig_store_lookup(&c->st, id, lock, &c->e, err) < 0 ||
	    brig_entry_load(&c->e, &c->s, err) < 0)
		return -1;
	return 0;
}

void brig_container_ref_close(struct brig_container_ref *c)
{
	brig_state_free(c->s);
	c->s = NULL;
	brig_entry_release(&c->e);
	brig_store_close(&c->st);
}

void brig_store_close(struct brig_store *st)
{
	if (st->rootfd >= 0)
		close(st->rootfd);
	st->rootfd = -1;
	free(st->root);
	st->root = NULL;
}

static int lock_dir(int fd, bool exclusive)
{
	int r;

	do
		r = flock(fd, exclusive ? LOCK_EX : LOCK_SH);
	while (r < 0 && errno == EINTR);
	return r;
}

static int not_exist(struct brig_error *err, const char *id)
{
	return brig_error_sete(err, ENOENT, "container \"%s\" does not exist", id);
}

int brig_store_claim(struct brig_store *st, const char *id, struct brig_entry *out,
                     struct brig_error *err)
{
	_cleanup_close_ int fd = -1;

	if (brig_id_validate(id, err) < 0)
		return -1;
	if (mkdirat(st->rootfd, id, 0700) < 0) {
		if (errno == EEXIST) {
			return brig_error_sete(err, EEXIST, "container \"%s\" already exists", id);
		}
		return brig_error_setp(err, errno, "create state directory for \"%s\"", id);
	}
	fd = openat(st->rootfd, id, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || lock_dir(fd, true) < 0) {
		int saved = errno;

		unlinkat(st->rootfd, id, AT_REMOVEDIR);
		return brig_error_setp(err, saved, "lock state directory for \"%s\"", id);
	}
	out->id = brig_xstrdup(id);
	out->dirfd = TAKE_FD(fd);
	out->rootfd = st->rootfd;
	return 0;
}

int brig_store_lookup(struct brig_store *st, const char *id, enum brig_lock lock,
                      struct brig_entry *out, struct brig_error *err)
{
	_cleanup_close_ int fd = -1;
	struct stat sb;

	if (brig_id_validate(id, err) < 0)
		return -1;
	if (st->rootfd < 0)
		return not_exist(err, id);
	fd = openat(st->rootfd, id, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
			return not_exist(err, id);
		return brig_error_setp(err, errno, "open state directory of \"%s\"", id);
	}
	if (lock_dir(fd, lock != BRIG_LOCK_SHARED) < 0)
		return brig_error_setp(err, errno, "lock state directory of \"%s\"", id);
	/* after the wait, the container may have been deleted under us (the
	 * directory is gone) or never finished being created */
	if (fstatat(fd, STATE_FILE, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
		bool gone = fstat(fd, &sb) < 0 || sb.st_nlink == 0;

		if (gone || lock != BRIG_LOCK_EXCLUSIVE_ANY)
			return not_exist(err, id);
	}
	out->id = brig_xstrdup(id);
	out->dirfd = TAKE_FD(fd);
	out->rootfd = st->rootfd;
	return 0;
}

int brig_store_list(struct brig_store *st, char ***ids, size_t *n, struct brig_error *err)
{
	_cleanup_closedir_ DIR *d = NULL;
	char **list = NULL;
	size_t count = 0, alloc = 0;
	struct dirent *de;
	int fd;

	*ids = NULL;
	*n = 0;
	if (st->rootfd < 0)
		return 0;
	fd = openat(st->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return brig_error_setp(err, errno, "read state directory \"%s\"", st->root);
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (count == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			list = brig_xrealloc(list, alloc * sizeof(*list));
		}
		list[count++] = brig_xstrdup(de->d_name);
	}
	if (count)
		qsort(list, count, sizeof(*list), brig_cmp_strp);
	*ids = list;
	*n = count;
	return 0;
}

void brig_store_free_list(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

int brig_entry_load(struct brig_entry *e, struct brig_state **out, struct brig_error *err)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;

	if (brig_read_file(e->dirfd, STATE_FILE, STATE_MAX_BYTES, &text, &len, err) < 0) {
		if (err->errnum == ENOENT) {
			brig_error_release(err);
			return not_exist(err, e->id);
		}
		return -1;
	}
	*out = brig_state_parse(STATE_FILE, text, len, err);
	if (!*out)
		return brig_error_wrap(err, "container \"%s\"", e->id);
	return 0;
}

int brig_entry_save(struct brig_entry *e, const struct brig_state *state, struct brig_error *err)
{
	_cleanup_free_ char *text = brig_state_to_json(state);

	if (brig_fault("state.save") < 0)
		return brig_error_setp(err, errno, "write \"%s\"", STATE_FILE);
	if (brig_write_file_atomic(e->dirfd, STATE_FILE, text, strlen(text), 0600, err) < 0)
		return -1;
	brig_fault("state.saved");
	return 0;
}

#define RECORD_FILE "cgroups"
#define RECORD_MAX_BYTES (64 * 1024)

int brig_entry_record(struct brig_entry *e, const char *text, struct brig_error *err)
{
	_cleanup_close_ int fd = openat(
	    e->dirfd, RECORD_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	size_t len = strlen(text);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		return brig_error_setp(err, errno ? errno : EIO, "write \"%s\"", RECORD_FILE);
	return 0;
}

char *brig_entry_recorded(struct brig_entry *e)
{
	struct brig_error ignored = BRIG_ERROR_INIT;
	char *text = NULL;
	size_t len;

	if (brig_read_file(e->dirfd, RECORD_FILE, RECORD_MAX_BYTES, &text, &len, &ignored) < 0)
		text = NULL;
	brig_error_release(&ignored);
	return text;
}

/*
 * A directory of the entry: what restore made there (checkpoint.c's
 * criu-root, and criu-yard with one mount point per hierarchy) was
 * mounted only in a mount namespace of its maker's, so a restore killed
 * half-way leaves empty directories, one level deep.  Only empty ones
 * are removed: rmdir() removes nothing else, and refuses a mount point.
 */
static int remove_dir(int parent, const char *name)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) < 0)
			return -1;
	return unlinkat(parent, name, AT_REMOVEDIR);
}

int brig_entry_remove(struct brig_entry *e, struct brig_error *err)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	int fd = openat(e->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return brig_error_setp(err, errno, "read state directory of \"%s\"", e->id);
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (unlinkat(e->dirfd, de->d_name, 0) == 0 || errno == ENOENT)
			continue;
		if (errno != EISDIR || remove_dir(e->dirfd, de->d_name) < 0)
			return brig_error_setp(err, errno, "remove \"%s/%s\"", e->id, de->d_name);
	}
	if (unlinkat(e->rootfd, e->id, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return brig_error_setp(err, errno, "remove state directory of \"%s\"", e->id);
	return 0;
}

void brig_entry_release(struct brig_entry *e)
{
	if (e->dirfd >= 0)
		close(e->dirfd);
	e->dirfd = -1;
	free(e->id);
	e->id = NULL;
}

enum brig_status brig_state_status(const struct brig_state *state)
{
	uint64_t start = 0;
	char pstate = 0;

	if (state->status == BRIG_STATUS_STOPPED || state->pid <= 0)
		return state->status == BRIG_STATUS_CREATING ? BRIG_STATUS_CREATING
		                                             : BRIG_STATUS_STOPPED;
	if (brig_proc_stat(state->pid, &pstate, &start) < 0 || pstate == 'Z' || pstate == 'X' ||
	    start != state->pid_start)
		return BRIG_STATUS_STOPPED;
	return state->status;
}
