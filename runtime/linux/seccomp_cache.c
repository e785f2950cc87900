/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "linux/seccomp_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/strbuf.h"

#define ENTRY_MAGIC "brigscmp"

/* An entry: this header, the key, the program. */
struct entry_header {
	char magic[8];
	uint32_t keylen;
	uint32_t len; /* instructions */
	uint64_t sum; /* fnv64 of the key, then the program */
};

#define FNV64_INIT 0xcbf29ce484222325ULL

static uint64_t fnv64(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* a string that cannot run into the next one: " <length>:<bytes>" */
static void add_str(struct brig_strbuf *sb, const char *s)
{
	brig_strbuf_addf(sb, " %zu:", strlen(s));
	brig_strbuf_addstr(sb, s);
}

void brig_seccomp_cache_key(const struct brig_seccomp *sc, const char *env, struct brig_strbuf *out)
{
	brig_strbuf_addstr(out, "brig seccomp cache 1\n");
	brig_strbuf_addstr(out, env);
	brig_strbuf_addf(out, "\ndefault %d %d %u\narchitectures", (int)sc->default_action,
	                 (int)sc->default_errno_ret.set, sc->default_errno_ret.value);
	for (size_t i = 0; i < sc->n_architectures; i++)
		add_str(out, sc->architectures[i]);
	for (size_t i = 0; i < sc->n_syscalls; i++) {
		const struct brig_seccomp_syscall *s = &sc->syscalls[i];

		brig_strbuf_addf(out, "\nrule %d %d %u names %zu", (int)s->action,
		                 (int)s->errno_ret.set, s->errno_ret.value, s->n_names);
		for (size_t k = 0; k < s->n_names; k++)
			add_str(out, s->names[k]);
		for (size_t k = 0; k < s->n_args; k++)
			brig_strbuf_addf(out, " arg %u %d %llu %llu", s->args[k].index,
			                 (int)s->args[k].op, (unsigned long long)s->args[k].value,
			                 (unsigned long long)s->args[k].value_two);
	}
	brig_strbuf_addch(out, '\n');
}

/* An entry's name: 16 hex digits */
static bool is_entry_name(const char *name)
{
	return strlen(name) == 16 && strspn(name, "0123456789abcdef") == 16;
}

static void entry_name(const char *key, size_t keylen, char name[17])
{
	snprintf(name, 17, "%016llx", (unsigned long long)fnv64(FNV64_INIT, key, keylen));
}

/* The cache directory, if it is ours alone; -1 otherwise. */
static int open_dir(int rootfd, bool create)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	if (create && mkdirat(rootfd, BRIG_SECCOMP_CACHE_DIR, 0700) < 0 && errno != EEXIST)
		return -1;
	fd =
	    openat(rootfd, BRIG_SECCOMP_CACHE_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	/* a container may have this id (ids may start with a dot): its
	 * state directory is left alone */
	if (st.st_uid != geteuid() || (st.st_mode & 077) ||
	    faccessat(fd, "state.json", F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		brig_debug("seccomp cache \"%s\" is not the cache's alone: not used",
		           BRIG_SECCOMP_CACHE_DIR);
		return -1;
	}
	return TAKE_FD(fd);
}

void *brig_seccomp_cache_get(int rootfd, const char *key, size_t keylen, unsigned short *len)
{
	struct brig_error ignored = BRIG_ERROR_INIT;
	_cleanup_close_ int dir = -1;
	_cleanup_free_ char *data = NULL;
	struct entry_header h;
	size_t size = 0, prog;
	char name[17];
	void *insns;

	if (rootfd < 0)
		return NULL;
	dir = open_dir(rootfd, false);
	entry_name(key, keylen, name);
	if (dir < 0 ||
	    brig_read_file(dir, name,
	                   sizeof(h) + keylen + BPF_MAXINSNS * sizeof(struct sock_filter), &data,
	                   &size, &ignored) < 0) {
		brig_error_release(&ignored);
		return NULL;
	}
	if (size < sizeof(h))
		return NULL;
	memcpy(&h, data, sizeof(h));
	prog = (size_t)h.len * sizeof(struct sock_filter);
	if (memcmp(h.magic, ENTRY_MAGIC, sizeof(h.magic)) != 0 || h.keylen != keylen ||
	    h.len == 0 || h.len > BPF_MAXINSNS || size != sizeof(h) + keylen + prog ||
	    memcmp(data + sizeof(h), key, keylen) != 0 ||
	    fnv64(fnv64(FNV64_INIT, key, keylen), data + sizeof(h) + keylen, prog) != h.sum)
		return NULL;
	insns = brig_xmalloc(prog);
	memcpy(insns, data + sizeof(h) + keylen, prog);
	*len = (unsigned short)h.len;
	return insns;
}

/* "<entry>.tmp.<pid>" (brig_write_file_atomic's) of a brig that died
 * while it wrote: its pid is gone, or it is older than any write takes. */
static bool is_stale_temp(const char *name, const struct stat *st)
{
	const char *dot = strstr(name, ".tmp.");
	char *end;
	long pid;

	if (!dot || dot - name != 16 || !S_ISREG(st->st_mode))
		return false;
	pid = strtol(dot + 5, &end, 10);
	if (*end || pid <= 0)
		return false;
	return (kill((pid_t)pid, 0) < 0 && errno == ESRCH) || st->st_mtim.tv_sec + 60 < time(NULL);
}

/* Keep the directory bounded: drop the oldest entries past the limit, and
 * what writers that died left. */
static void prune(int dir)
{
	_cleanup_closedir_ DIR *d = NULL;
	int fd = dup(dir);
	struct dirent *de;
	char oldest[256];
	struct timespec old_time = { 0 };
	unsigned int n = 0;

	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	oldest[0] = '\0';
	while ((de = readdir(d))) {
		struct stat st;

		if (fstatat(dir, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    is_stale_temp(de->d_name, &st)) {
			unlinkat(dir, de->d_name, 0);
			continue;
		}
		if (!is_entry_name(de->d_name) ||
		    fstatat(dir, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		n++;
		if (!oldest[0] || st.st_mtim.tv_sec < old_time.tv_sec ||
		    (st.st_mtim.tv_sec == old_time.tv_sec &&
		     st.st_mtim.tv_nsec < old_time.tv_nsec)) {
			snprintf(oldest, sizeof(oldest), "%s", de->d_name);
			old_time = st.st_mtim;
		}
	}
	/* one out per entry written: the count never grows past the limit */
	if (n >= BRIG_SECCOMP_CACHE_MAX && oldest[0])
		unlinkat(dir, oldest, 0);
}

void brig_seccomp_cache_put(int rootfd, const char *key, size_t keylen, const void *insns,
                            unsigned short len)
{
	struct brig_error err = BRIG_ERROR_INIT;
	_cleanup_close_ int dir = -1;
	_cleanup_free_ char *data = NULL;
	size_t prog = (size_t)len * sizeof(struct sock_filter);
	struct entry_header h = { .keylen = (uint32_t)keylen, .len = len };
	char name[17];

	if (rootfd < 0)
		return;
	dir = open_dir(rootfd, true);
	if (dir < 0)
		return;
	memcpy(h.magic, ENTRY_MAGIC, sizeof(h.magic));
	h.sum = fnv64(fnv64(FNV64_INIT, key, keylen), insns, prog);
	data = brig_xmalloc(sizeof(h) + keylen + prog);
	memcpy(data, &h, sizeof(h));
	memcpy(data + sizeof(h), key, keylen);
	memcpy(data + sizeof(h) + keylen, insns, prog);
	entry_name(key, keylen, name);
	prune(dir);
	if (brig_write_file_atomic(dir, name, data, sizeof(h) + keylen + prog, 0600, &err) < 0)
		brig_debug("seccomp cache: %s", err.msg);
	brig_error_release(&err);
}
