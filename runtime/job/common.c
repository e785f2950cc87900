/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the job runner and its sources share (source.h): the job's clock
 * and brig's signals, the checks of the options, the job's stdio, its
 * user namespace and the warning without one, and the end of a job's
 * pid 1 that brig made.
 */
#include "config.h"
#include "job/source.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "job/job.h"
#include "job/egress.h"
#include "lifecycle/bundle.h"
#include "lifecycle/container.h"
#include "lifecycle/context.h"
#include "lifecycle/control.h"
#include "linux/caps.h"
#include "linux/selfexe.h"
#include "spec/spec.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/log.h"
#include "util/fs.h"
#include "util/strbuf.h"

uint64_t brig_job_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* ---------------------------------------------------------- signals */

static int signal_pipe[2] = { -1, -1 };
static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	int e = errno;
	char c = (char)sig;

	got_signal = sig;
	(void)!write(signal_pipe[1], &c, 1);
	errno = e;
}

int brig_job_signalled(void)
{
	return got_signal;
}

int job_signal_fd(void)
{
	return signal_pipe[0];
}

int job_stopped(struct brig_error *err)
{
	if (!got_signal)
		return 0;
	return brig_error_set(err, "brig got SIG%s: the job was not started",
	                      sigabbrev_np(got_signal));
}

/* SIGINT, SIGTERM, SIGHUP end the job as a timeout does; handled, not
 * blocked, so the init (which resets handlers to their defaults) starts
 * the job with an empty mask.  SIGPIPE: a reader of brig's output that
 * went away must not kill brig before it has cleaned up. */
int job_catch_signals(struct brig_error *err)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

	if (signal_pipe[0] < 0 && pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return brig_error_setp(err, errno, "pipe");
	sigemptyset(&sa.sa_mask);
	for (const int *s = (const int[]){ SIGINT, SIGTERM, SIGHUP, 0 }; *s; s++)
		sigaction(*s, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* ---------------------------------------------------------- the plan */

char *job_new_id(void)
{
	unsigned char b[8] = { 0 };
	char hex[17];

	if (getrandom(b, sizeof(b), 0) != sizeof(b)) {
		struct timespec t;

		clock_gettime(CLOCK_MONOTONIC, &t);
		memcpy(b, &t.tv_nsec,
		       sizeof(t.tv_nsec) < sizeof(b) ? sizeof(t.tv_nsec) : sizeof(b));
		b[0] ^= (unsigned char)getpid();
	}
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i]);
	return brig_xasprintf("job-%s", hex);
}

static int check_dir(const char *flag, const char *path, struct brig_error *err)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return brig_error_setp(err, errno, "%s \"%s\"", flag, path);
	if (!S_ISDIR(st.st_mode))
		return brig_error_set(err, "%s \"%s\": not a directory", flag, path);
	return 0;
}

static int check_abs(const char *flag, const char *path, struct brig_error *err)
{
	if (!path || path[0] != '/')
		return brig_error_usage(err, "%s \"%s\": the path in the job must be absolute",
		                        flag, path ? path : "");
	return 0;
}

/* --export-path: absolute, with no "." or ".." component */
static int check_export_path(const char *path, struct brig_error *err)
{
	if (check_abs("--export-path", path, err) < 0)
		return -1;
	for (const char *s = path; *s;) {
		size_t n = strcspn(s, "/");

		if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return brig_error_usage(
			    err, "--export-path \"%s\": no \".\" or \"..\" in it", path);
		s += n + (s[n] == '/');
	}
	return 0;
}

/* Everything that can be checked before anything exists (source.h). */
/* --network egress and its --allow rules (egress.h) */
static int check_egress(const struct brig_job_opts *o, struct brig_error *err)
{
	struct brig_egress_rules rules = { 0 };

	if (o->network != BRIG_JOB_NET_EGRESS) {
		if (o->n_allow)
			return brig_error_usage(err, "--allow \"%s\": only with --network egress",
			                        o->allow[0]);
		return 0;
	}
	if (brig_egress_rules_parse(o->allow, o->n_allow, &rules, err) < 0)
		return -1;
	for (size_t i = 0; i < rules.n; i++)
		if (rules.v[i].kind == BRIG_EGRESS_NET6) {
			brig_egress_rules_release(&rules);
			return brig_error_usage(err,
			                        "--allow \"%s\": IPv6 is not routed in egress mode "
			                        "(IPv4 only)",
			                        o->allow[i]);
		}
	brig_egress_rules_release(&rules);
	return 0;
}

int job_check_opts(const struct brig_job_opts *o, bool member, struct brig_error *err)
{
	if (o->from_checkpoint) {
		if (!o->bundle)
			return brig_error_usage(err, "--from-checkpoint needs --bundle: the bundle "
			                             "of the container checkpointed");
		if (o->argc)
			return brig_error_usage(err, "--from-checkpoint: the job is the "
			                             "checkpointed process, it takes no command");
		if (check_dir("--from-checkpoint", o->from_checkpoint, err) < 0)
			return -1;
	}
	if (!o->rootfs == !o->bundle)
		return brig_error_usage(err, "one of --rootfs and --bundle is needed");
	if (!member && !o->bundle && !o->argc)
		return brig_error_usage(err, "no command: brig job [OPTIONS] -- CMD [ARG...]");
	if (o->rootfs && check_dir("--rootfs", o->rootfs, err) < 0)
		return -1;
	if (o->has_user && (o->uid >= BRIG_JOB_IDS || o->gid >= BRIG_JOB_IDS))
		return brig_error_usage(err, "--user %u:%u: the job's ids are 0 to %u", o->uid,
		                        o->gid, BRIG_JOB_IDS - 1);
	if (o->cwd && check_abs("--cwd", o->cwd, err) < 0)
		return -1;
	if (o->changes_path && !*o->changes_path)
		return brig_error_usage(err, "--changes: expected FILE or -");
	if (o->changes_path && !strcmp(o->changes_path, "-") && !o->result_path)
		return brig_error_usage(err, "--changes -: the change set goes in the result, "
		                             "and there is no --result");
	if (o->export_tar && !*o->export_tar)
		return brig_error_usage(err, "--export-tar: expected FILE");
	if (o->audit_path && !*o->audit_path)
		return brig_error_usage(err, "--audit: expected FILE");
	for (size_t i = 0; i < o->n_export_paths; i++)
		if (check_export_path(o->export_paths[i], err) < 0)
			return -1;
	if (o->n_export_paths && !o->export_dir && !o->export_tar && !o->changes_path)
		return brig_error_usage(err, "--export-path: for --export, --export-tar or "
		                             "--changes, and there is none");
	for (size_t i = 0; i < o->n_tmpfs; i++)
		if (check_abs("--tmpfs", o->tmpfs[i].path, err) < 0)
			return -1;
	for (size_t i = 0; i < o->n_binds; i++) {
		struct stat st;

		if (check_abs("--mount", o->binds[i].destination, err) < 0)
			return -1;
		if (stat(o->binds[i].source, &st) < 0)
			return brig_error_setp(err, errno, "--mount \"%s\"", o->binds[i].source);
	}
	for (size_t i = 0; i < o->n_copy_in; i++) {
		if (check_abs("--copy-in", o->copy_in[i].path, err) < 0)
			return -1;
		if (access(o->copy_in[i].host, R_OK) < 0)
			return brig_error_setp(err, errno, "--copy-in \"%s\"", o->copy_in[i].host);
	}
	for (size_t i = 0; i < o->n_keep_caps; i++) {
		_cleanup_free_ char *name = brig_job_cap_name(o->keep_caps[i]);

		if (brig_cap_from_name(name) < 0)
			return brig_error_usage(err, "--keep-caps \"%s\": unknown capability",
			                        o->keep_caps[i]);
	}
	for (size_t i = 0; i < o->n_env; i++)
		if (!strchr(o->env[i], '=') || o->env[i][0] == '=')
			return brig_error_usage(err, "--env \"%s\": expected KEY=VALUE", o->env[i]);
	return check_egress(o, err);
}

int job_load_base(const struct brig_job_opts *o, struct brig_bundle *base, char **rootfs,
                  struct brig_error *err)
{
	if (!o->bundle) {
		*rootfs = realpath(o->rootfs, NULL);
		return *rootfs ? 0 : brig_error_setp(err, errno, "--rootfs \"%s\"", o->rootfs);
	}
	if (brig_bundle_load(base, o->bundle, err) < 0)
		return brig_error_wrap(err, "--bundle");
	*rootfs = brig_bundle_rootfs(base, err);
	return *rootfs ? 0 : brig_error_wrap(err, "--bundle");
}

bool job_counts_denials(const struct brig_job_opts *o)
{
	return !o->seccomp || !strcmp(o->seccomp, "default");
}

int job_open_lower(const struct brig_job_opts *o, struct brig_job_root *r, struct brig_error *err)
{
	struct brig_bundle base = BRIG_BUNDLE_INIT;
	_cleanup_free_ char *rootfs = NULL;
	int ret = job_load_base(o, &base, &rootfs, err);

	if (ret == 0) {
		r->lowerfd = open(rootfs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		r->lower_raw = true;
		if (r->lowerfd < 0)
			ret = brig_error_setp(err, errno, "open the rootfs \"%s\"", rootfs);
	}
	brig_bundle_release(&base);
	return ret;
}

void job_paths_free(struct job_paths *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	*p = (struct job_paths){ 0 };
}

/* "/a//b/" as the walks say it: "a/b" (heap). */
static char *walk_path(const char *d)
{
	char *p = brig_xcalloc(strlen(d) + 1, 1), *q = p;

	for (; *d; d++)
		if (*d != '/' || (q > p && q[-1] != '/'))
			*q++ = *d;
	if (q > p && q[-1] == '/')
		q--;
	*q = '\0';
	return p;
}

void job_export_paths(const struct brig_job_opts *o, struct job_paths *out)
{
	size_t n = 0;

	*out = (struct job_paths){ .v = brig_xcalloc(o->n_export_paths + 1, sizeof(*out->v)) };
	for (size_t i = 0; i < o->n_export_paths; i++)
		out->v[out->n++] = walk_path(o->export_paths[i]);
	qsort(out->v, out->n, sizeof(*out->v), brig_cmp_strp);
	/* "/" is everything; a path that is another, or below one, adds
	 * nothing (sorted, it comes after it, maybe not right after: "a.x"
	 * sorts between "a" and "a/c") */
	for (size_t i = 0; i < out->n; i++) {
		bool covered = false;

		if (!*out->v[i]) {
			for (size_t j = i; j < out->n; j++)
				free(out->v[j]);
			out->n = n;
			job_paths_free(out);
			return;
		}
		for (size_t j = 0; j < n && !covered; j++) {
			size_t len = strlen(out->v[j]);

			covered = !strncmp(out->v[i], out->v[j], len) &&
			          (!out->v[i][len] || out->v[i][len] == '/');
		}
		if (covered)
			free(out->v[i]);
		else
			out->v[n++] = out->v[i];
	}
	out->n = n;
}

int job_mount_points(const struct job_run *run, struct job_paths *out, struct brig_error *err)
{
	_cleanup_free_ char *path = brig_xasprintf("%s/%s/config.json", run->ctx->root, run->id);
	struct brig_config *c = brig_config_load(AT_FDCWD, path, "config.json", err);

	if (!c)
		return brig_error_wrap(err, "the job's mounts");
	out->v = brig_xcalloc(c->n_mounts + 1, sizeof(*out->v));
	for (size_t i = 0; i < c->n_mounts; i++)
		out->v[out->n++] = walk_path(c->mounts[i].destination);
	brig_config_free(c);
	qsort(out->v, out->n, sizeof(*out->v), brig_cmp_strp);
	return 0;
}

int job_make_export_dir(const struct brig_job_opts *o, struct brig_error *err)
{
	if (o->export_dir && brig_mkdir_p(o->export_dir, 0755, err) < 0)
		return brig_error_wrap(err, "--export");
	return 0;
}

/* Whether this kernel gives brig user namespaces: built with them, and
 * not switched off (user.max_user_namespaces = 0); asked once a process. */
bool job_userns_available(void)
{
	static int ok = -1;
	_cleanup_free_ char *max = NULL;
	size_t len;
	struct brig_error ignored = BRIG_ERROR_INIT;

	if (ok >= 0)
		return ok;
	ok = access("/proc/self/ns/user", F_OK) == 0;
	if (ok && brig_read_file(AT_FDCWD, "/proc/sys/user/max_user_namespaces", 64, &max, &len,
	                         &ignored) == 0)
		ok = strtoul(max, NULL, 10) > 0;
	brig_error_release(&ignored);
	return ok;
}

/* What it really has, the capabilities it keeps (a pool's member was made
 * with the same options, its claimer's @run->o). */
void job_warn_no_userns(struct job_run *run)
{
	const struct brig_job_opts *o = run->o;
	struct brig_strbuf caps = BRIG_STRBUF_INIT;

	for (size_t i = 0; i < o->n_keep_caps; i++) {
		_cleanup_free_ char *c = brig_job_cap_name(o->keep_caps[i]);

		brig_strbuf_addf(&caps, "%s%s", i ? ", " : "", c);
	}
	free(run->warning);
	run->res.warning = run->warning = brig_xasprintf(
	    "%s: the job's root is the host's root, %s%s",
	    o->no_userns ? "no user namespace (--no-userns)" : "the host has no user namespaces",
	    caps.len ? "with " : "without capabilities", caps.len ? caps.buf : "");
	brig_strbuf_release(&caps);
}

int brig_job_protect_exe(const struct brig_context *ctx, const struct brig_job_opts *o,
                         struct brig_error *err)
{
	struct brig_id_mapping all;

	if (o->no_userns || !job_userns_available())
		return brig_selfexe_protect_ids(ctx->argv, NULL, 0, NULL, 0, err);
	brig_job_id_span(&all);
	return brig_selfexe_protect_ids(ctx->argv, &all, 1, &all, 1, err);
}

/* ---------------------------------------------------------- stdio */

int job_open_output(const char *flag, const char *path, int *fd, struct brig_error *err)
{
	*fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644);
	return *fd < 0 ? brig_error_setp(err, errno, "%s \"%s\"", flag, path) : 0;
}

int job_staged_open(struct job_staged *s, const char *flag, const char *path,
                    struct brig_error *err)
{
	_cleanup_free_ char *dir = brig_xstrdup(path);
	char *slash = strrchr(dir, '/');

	s->name = brig_xstrdup(slash ? slash + 1 : path);
	if (!*s->name || !strcmp(s->name, ".") || !strcmp(s->name, ".."))
		return brig_error_usage(err, "%s \"%s\": expected a file's path", flag, path);
	if (slash)
		slash[slash == dir] = '\0';
	/* both by fd: once brig has its own mount namespace, a path would
	 * reach another mount of the same directory, which a link cannot
	 * cross */
	s->dir = open(slash ? dir : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (s->dir >= 0)
		s->fd = openat(s->dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	return s->fd < 0 ? brig_error_setp(err, errno, "%s \"%s\"", flag, path) : 0;
}

int job_staged_publish(struct job_staged *s, const char *flag, const char *path,
                       struct brig_error *err)
{
	_cleanup_free_ char *tmp = brig_xasprintf(".%s.brig-%d", s->name, (int)getpid());

	/* nothing there: the name, at once */
	if (linkat(s->fd, "", s->dir, s->name, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != EEXIST)
		return brig_error_setp(err, errno, "%s \"%s\"", flag, path);
	/* something there: replaced whole (a kill between the two steps
	 * leaves the new one under its temporary name) */
	if (linkat(s->fd, "", s->dir, tmp, AT_EMPTY_PATH) < 0)
		return brig_error_setp(err, errno, "%s \"%s\"", flag, path);
	if (renameat(s->dir, tmp, s->dir, s->name) < 0) {
		int saved = errno;

		unlinkat(s->dir, tmp, 0);
		return brig_error_setp(err, saved, "%s \"%s\"", flag, path);
	}
	return 0;
}

void job_staged_release(struct job_staged *s)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->dir >= 0)
		close(s->dir);
	free(s->name);
	*s = (struct job_staged)JOB_STAGED_INIT;
}

/* Pipes for stdout and stderr (brig's ends non-blocking), and its stdin. */
int job_stdio_open(struct job_stdio *io, const struct brig_job_opts *o, struct brig_error *err)
{
	int out[2] = { -1, -1 }, errp[2] = { -1, -1 };
	const char *in = o->stdin_path ? o->stdin_path : "/dev/null";

	io->out_fd = o->result_path && !strcmp(o->result_path, "-") ? STDERR_FILENO : STDOUT_FILENO;
	io->err_fd = STDERR_FILENO;
	if (o->stdout_path && job_open_output("--stdout", o->stdout_path, &io->out_fd, err) < 0)
		return -1;
	io->own_out = o->stdout_path != NULL;
	if (o->stderr_path && job_open_output("--stderr", o->stderr_path, &io->err_fd, err) < 0)
		return -1;
	io->own_err = o->stderr_path != NULL;
	io->init[0] = strcmp(in, "-") ? open(in, O_RDONLY | O_CLOEXEC | O_NOCTTY)
	                              : fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
	if (io->init[0] < 0)
		return brig_error_setp(err, errno, "--stdin \"%s\"", in);
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		brig_error_setp(err, errno, "pipe");
		for (int i = 0; i < 2; i++)
			if (out[i] >= 0)
				close(out[i]);
		return -1;
	}
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(errp[0], F_SETFL, O_NONBLOCK);
	io->init[1] = out[1];
	io->init[2] = errp[1];
	brig_job_stream_init(&io->so, out[0], io->out_fd, o->output_limit);
	brig_job_stream_init(&io->se, errp[0], io->err_fd, o->output_limit);
	return 0;
}

/* A pool member's init waits with no stdio: the job's comes with the
 * exec that runs it. */
int job_stdio_null(struct job_stdio *io, struct brig_error *err)
{
	for (int i = 0; i < 3; i++) {
		io->init[i] = open("/dev/null", O_RDWR | O_CLOEXEC | O_NOCTTY);
		if (io->init[i] < 0)
			return brig_error_setp(err, errno, "open /dev/null");
	}
	return 0;
}

void job_stdio_close_init(struct job_stdio *io)
{
	for (int i = 0; i < 3; i++)
		if (io->init[i] >= 0)
			close(TAKE_FD(io->init[i]));
}

static void stdio_release(struct job_stdio *io)
{
	job_stdio_close_init(io);
	brig_job_stream_release(&io->so);
	brig_job_stream_release(&io->se);
	if (io->own_out)
		close(io->out_fd);
	if (io->own_err)
		close(io->err_fd);
}

/* ---------------------------------------------------------- the end */

void job_reap_child(struct job_run *run)
{
	siginfo_t si = { 0 };

	if (waitid(P_PIDFD, (id_t)run->pidfd, &si, WEXITED) < 0)
		return;
	if (si.si_code == CLD_EXITED) {
		run->res.exited = true;
		run->res.exit_code = si.si_status;
	} else {
		run->res.signaled = true;
		run->res.signal = si.si_status;
	}
}

void job_run_release(struct job_run *run)
{
	struct brig_error ignored = BRIG_ERROR_INIT;

	brig_job_root_release(&run->root);
	stdio_release(&run->io);
	if (run->pidfd >= 0)
		close(TAKE_FD(run->pidfd));
	job_staged_release(&run->audit_file);
	job_staged_release(&run->changes_file);
	job_staged_release(&run->tar);
	/* last: its child must not take a copy of the above; what cannot be
	 * removed is the slot's next owner's, or gc's */
	if (brig_egress_close(TAKE_PTR(run->egress), &ignored) < 0)
		brig_debug("job %s: egress: %s", run->id, ignored.msg);
	brig_error_release(&ignored);
	free(run->changes);
	run->changes = NULL;
	free(run->error);
	free(run->warning);
	free(run->id);
	run->error = run->warning = run->id = NULL;
}

/* ---------------------------------------------------------- its container */

int job_container_figures(struct job_run *run, struct brig_error *err)
{
	return brig_container_usage(run->ctx, run->id, &run->res.usage, err);
}

int job_container_remove(struct job_run *run, struct brig_error *err)
{
	int r = brig_container_delete(run->ctx, run->id, true, err);

	run->created = false;
	return r;
}

void job_container_drop(struct job_run *run)
{
	struct brig_error ignored = BRIG_ERROR_INIT;

	if (run->created)
		brig_container_delete(run->ctx, run->id, true, &ignored);
	brig_error_release(&ignored);
}
