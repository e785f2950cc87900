/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the process executes and with what environment: the PATH lookup
 * in Go's words (runc's), and process.env with HOME as runc completes it
 * (linux/process.h).
 */
#include "config.h"
#include "linux/process.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/keyctl.h>
#include <linux/magic.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "linux/caps.h"
#include "linux/procfs.h"
#include "linux/resolve.h"
#include "linux/selinux.h"
#include "linux/syscalls.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/strbuf.h"

/* ---------------------------------------------------------------- exec lookup */

/* Go's strconv.Quote, for the names in Go-worded errors. */
static void go_quote(struct brig_strbuf *sb, const char *s)
{
	brig_strbuf_addstr(sb, "\"");
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		switch (*c) {
		case '"':
			brig_strbuf_addstr(sb, "\\\"");
			break;
		case '\\':
			brig_strbuf_addstr(sb, "\\\\");
			break;
		case '\n':
			brig_strbuf_addstr(sb, "\\n");
			break;
		case '\t':
			brig_strbuf_addstr(sb, "\\t");
			break;
		case '\r':
			brig_strbuf_addstr(sb, "\\r");
			break;
		default:
			if (*c < 0x20 || *c == 0x7f)
				brig_strbuf_addf(sb, "\\x%02x", *c);
			else
				brig_strbuf_addf(sb, "%c", *c);
		}
	}
	brig_strbuf_addstr(sb, "\"");
}

/*
 * Go's os/exec findExecutable (Go >= 1.20, what runc is built with): 0, or
 * the errno; *from_stat when it was stat that failed.
 */
static int find_executable(const char *path, bool *from_stat)
{
	struct stat st;

	*from_stat = false;
	if (stat(path, &st) < 0) {
		*from_stat = true;
		return errno;
	}
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	if (faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) == 0)
		return 0;
	/* ENOSYS, or EPERM from a seccomp filter: fall back on the mode */
	if (errno != ENOSYS && errno != EPERM)
		return errno;
	return (st.st_mode & 0111) ? 0 : EACCES;
}

/* Set @err to `exec: "NAME": <what>` and return NULL. */
static char *lookup_fail(struct brig_error *err, int errnum, const char *name, const char *what)
{
	struct brig_strbuf sb = BRIG_STRBUF_INIT;

	brig_strbuf_addstr(&sb, "exec: ");
	go_quote(&sb, name);
	brig_error_sete(err, errnum, "%s: %s", sb.buf, what);
	brig_strbuf_release(&sb);
	return NULL;
}

static const char *env_path(const struct brig_process *p)
{
	const char *path = NULL;

	/* the last PATH= wins, as runc sets the variables in order; none is
	 * an empty one, where a name without a slash is not found: runc's
	 * and crun's rule (no default search path) */
	for (size_t i = 0; i < p->n_env; i++)
		if (strncmp(p->env[i], "PATH=", 5) == 0)
			path = p->env[i] + 5;
	return path ? path : "";
}

/* Go's filepath.Join(dir, name) for a $PATH element of @len bytes. */
static char *path_join(const char *dir, size_t len, const char *name)
{
	/* an empty element means ".", and Join(".", name) is name */
	if (len == 0)
		return brig_xstrdup(name);
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len == 1 && dir[0] == '/')
		return brig_xasprintf("/%s", name);
	return brig_xasprintf("%.*s/%s", (int)len, dir, name);
}

char *brig_exec_lookup(const struct brig_process *p, struct brig_error *err)
{
	const char *name = p->n_args ? p->args[0] : NULL;
	const char *path = env_path(p);
	char ebuf[128];
	bool from_stat;
	int e;

	if (!name || !name[0])
		return lookup_fail(err, ENOENT, name ? name : "",
		                   "executable file not found in $PATH");
	if (strchr(name, '/')) {
		e = find_executable(name, &from_stat);
		if (e == 0)
			return brig_xstrdup(name);
		if (from_stat) {
			_cleanup_free_ char *what = brig_xasprintf(
			    "stat %s: %s", name, brig_strerror_go(e, ebuf, sizeof(ebuf)));

			return lookup_fail(err, e, name, what);
		}
		return lookup_fail(err, e, name, brig_strerror_go(e, ebuf, sizeof(ebuf)));
	}
	/* Go's filepath.SplitList: an empty $PATH has no element at all, and
	 * "/bin:" has two, the second empty */
	for (const char *dir = path; *path;) {
		size_t len = strcspn(dir, ":");
		_cleanup_free_ char *cand = path_join(dir, len, name);

		if (find_executable(cand, &from_stat) == 0) {
			/* Go >= 1.19 refuses what a relative $PATH element finds */
			if (cand[0] != '/')
				return lookup_fail(err, EACCES, name,
				                   "cannot run executable found relative to "
				                   "current directory");
			return TAKE_PTR(cand);
		}
		if (dir[len] == '\0')
			break;
		dir += len + 1;
	}
	return lookup_fail(err, ENOENT, name, "executable file not found in $PATH");
}

/* ---------------------------------------------------------------- environment */

/* The home of the first entry of @uid in the passwd text @buf, or NULL. */
static const char *passwd_home(char *buf, uint32_t uid)
{
	char *next;

	for (char *line = buf; line; line = next) {
		char *f[7] = { NULL };
		size_t n = 0;
		unsigned long v;
		char *end;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		/* name:password:uid:gid:gecos:home:shell */
		for (char *c = line; c && n < 7; n++) {
			f[n] = c;
			c = strchr(c, ':');
			if (c)
				*c++ = '\0';
		}
		if (n < 6 || !isdigit((unsigned char)f[2][0]))
			continue;
		errno = 0;
		v = strtoul(f[2], &end, 10);
		if (!errno && !*end && v == uid)
			return f[5];
	}
	return NULL;
}

/*
 * The home directory of @uid in the container's /etc/passwd, into @buf
 * (heap, owned by the caller); "/" when there is no such file or entry,
 * as runc's default.  The file is the container's: it is resolved inside
 * the root without magic links, and only a bounded regular file is read.
 */
static const char *container_home(uint32_t uid, char **buf)
{
	struct brig_error ignored = BRIG_ERROR_INIT;
	_cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int fd = -1;
	const char *home = NULL;
	struct stat st;

	if (root >= 0)
		fd = brig_openat2(root, "etc/passwd", O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
		                  0, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    brig_read_fd(fd, "/etc/passwd", 4u << 20, buf, NULL, &ignored) == 0)
		home = passwd_home(*buf, uid);
	brig_error_release(&ignored);
	return home ? home : "/";
}

static size_t env_name_len(const char *kv)
{
	const char *eq = strchr(kv, '=');

	return eq ? (size_t)(eq - kv) : strlen(kv);
}

static uint64_t env_name_hash(const char *kv, size_t len)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)kv[i]) * 1099511628211ull;
	return h;
}

/*
 * process.env with each name once, as runc passes it: a later "A=2"
 * replaces an earlier "A=1" where A first appeared.  Names are found
 * through a small open-addressing table, so a hostile list of 100k
 * entries costs no more than a benign one per entry.
 */
static size_t env_dedup(const char *const *env, size_t n, char **out)
{
	size_t cap = 16, count = 0;
	size_t *slots;

	while (cap < 2 * n)
		cap *= 2;
	slots = brig_xcalloc(cap, sizeof(*slots)); /* 0: empty, else index + 1 */
	for (size_t i = 0; i < n; i++) {
		size_t len = env_name_len(env[i]);
		size_t h = (size_t)env_name_hash(env[i], len) & (cap - 1);

		for (;; h = (h + 1) & (cap - 1)) {
			const char *other;

			if (!slots[h]) {
				slots[h] = count + 1;
				out[count++] = (char *)env[i];
				break;
			}
			other = out[slots[h] - 1];
			if (env_name_len(other) == len && memcmp(other, env[i], len) == 0) {
				out[slots[h] - 1] = (char *)env[i];
				break;
			}
		}
	}
	free(slots);
	return count;
}

char **brig_exec_env(const struct brig_process *p, const char *listen_fds)
{
	_cleanup_free_ const char **all = NULL;
	_cleanup_free_ char *passwd = NULL;
	size_t n_all = p->n_env, n;
	const char *home;
	char **envp;

	all = brig_xcalloc(p->n_env + 2, sizeof(*all));
	if (p->n_env)
		memcpy(all, p->env, p->n_env * sizeof(*all));
	if (listen_fds) {
		all[n_all++] = listen_fds;
		all[n_all++] = "LISTEN_PID=1";
	}
	/* one block: the pointers, then room for "HOME=<home>" when needed */
	envp = brig_xmalloc((n_all + 2) * sizeof(char *));
	n = env_dedup(all, n_all, envp);
	envp[n] = NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(envp[i], "HOME=", 5) == 0)
			return envp;
	home = container_home(p->user.uid, &passwd);
	envp = brig_xrealloc(envp, (n_all + 2) * sizeof(char *) + 5 + strlen(home) + 1);
	envp[n] = (char *)(envp + n_all + 2);
	sprintf(envp[n], "HOME=%s", home);
	envp[n + 1] = NULL;
	return envp;
}

/* cwd: created if missing, entered, and checked to be inside the root: a
 * cwd reached through a leaked host fd (CVE-2024-21626) is outside it. */
int brig_enter_cwd(const char *cwd, struct brig_error *err)
{
	char buf[4096];

	if (chdir(cwd) < 0) {
		_cleanup_close_ int fd = -1;

		if (errno != ENOENT)
			return brig_error_setp(err, errno, "chdir to cwd (\"%s\")", cwd);
		{
			_cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

			fd = root < 0 ? -1 : brig_mkpath_in_root(root, cwd, BRIG_MKPATH_DIR, err);
		}
		if (fd < 0 || fchdir(fd) < 0)
			return brig_error_setp(err, errno, "chdir to cwd (\"%s\")", cwd);
	}
	if (!getcwd(buf, sizeof(buf)) || buf[0] != '/')
		return brig_error_set(err, "cwd \"%s\" is outside the container", cwd);
	return 0;
}
