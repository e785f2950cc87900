/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exec --cgroup: the sub-cgroups of the container's that an exec'd
 * process starts in, read as runc reads the flag.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroup/internal.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/strbuf.h"

/*
 * @arg cleaned to a path below the container's cgroup ("/a" and "a" are
 * the same, "a/.." is the container's own: NULL); one that climbs out of
 * it is refused in runc's words.
 */
static int clean(const char *arg, char **out, struct brig_error *err)
{
	struct brig_strbuf sb = BRIG_STRBUF_INIT;
	const char *p = arg;

	*out = NULL;
	while (*p) {
		size_t len;

		p += strspn(p, "/");
		len = strcspn(p, "/");
		if (len == 2 && !strncmp(p, "..", 2)) {
			char *slash = sb.buf ? strrchr(sb.buf, '/') : NULL;

			if (!sb.len) {
				brig_strbuf_release(&sb);
				return brig_error_set(err, "%s is not a sub cgroup path", arg);
			}
			sb.len = slash ? (size_t)(slash - sb.buf) : 0;
			sb.buf[sb.len] = '\0';
		} else if (len && !(len == 1 && p[0] == '.')) {
			brig_strbuf_addf(&sb, "%s%.*s", sb.len ? "/" : "", (int)len, p);
		}
		p += len;
	}
	if (sb.len)
		*out = brig_xstrdup(sb.buf);
	brig_strbuf_release(&sb);
	return 0;
}

/* @path for hierarchy @i, replacing what an earlier flag gave it (runc
 * 1.1.5: the last one wins). */
static int assign(char **subs, size_t i, const char *path, struct brig_error *err)
{
	char *c;

	if (clean(path, &c, err) < 0)
		return -1;
	free(subs[i]);
	subs[i] = c;
	return 0;
}

/* "CTRL[,CTRL...]:PATH": each controller's v1 hierarchy gets PATH. */
static int by_controller(const struct brig_cgroup *cg, const char *arg, const char *colon,
                         char **subs, struct brig_error *err)
{
	for (const char *c = arg; c < colon;) {
		size_t len = strcspn(c, ",:");
		char ctrl[64];
		size_t i;

		snprintf(ctrl, sizeof(ctrl), "%.*s", (int)(len < 63 ? len : 63), c);
		for (i = 0; i < cg->n; i++)
			if (!cg->h[i].v2 && len && brig_cg_list_includes(cg->h[i].name, ctrl))
				break;
		/* runc's words (its tests match "unknown controller ") */
		if (i == cg->n)
			return brig_error_set(err, "--cgroup %s: unknown controller %s", arg, ctrl);
		if (assign(subs, i, colon + 1, err) < 0)
			return -1;
		c += len + (c[len] == ',');
	}
	return 0;
}

/* Every sub-cgroup named must be there: runc's words for one that is
 * not, as its tests match them (" adding pid ", ".../cgroup.procs: no
 * such file "). */
static int check_there(const struct brig_cgroup *cg, char *const *subs, struct brig_error *err)
{
	for (size_t i = 0; i < cg->n; i++) {
		_cleanup_free_ char *procs = NULL;
		struct stat st;
		char buf[64];

		if (!subs[i])
			continue;
		procs = brig_xasprintf("%s/%s/cgroup.procs", cg->h[i].dir, subs[i]);
		if (stat(procs, &st) < 0)
			return brig_error_sete(err, errno, "adding pid to cgroups: open %s: %s",
			                       procs, brig_strerror_go(errno, buf, sizeof(buf)));
	}
	return 0;
}

int brig_cgroup_sub_paths(const struct brig_cgroup *cg, const char *const *args, size_t n,
                          char ***out, struct brig_error *err)
{
	char **subs;

	*out = NULL;
	if (!n)
		return 0;
	subs = brig_xcalloc(cg->n ? cg->n : 1, sizeof(*subs));
	for (size_t k = 0; k < n; k++) {
		const char *arg = args[k], *colon = strchr(arg, ':');
		int r = 0;

		if (colon && strchr(colon + 1, ':'))
			r = brig_error_set(err, "invalid --cgroup argument: %s", arg);
		else if (colon)
			r = by_controller(cg, arg, colon, subs, err);
		else if (n > 1)
			r = brig_error_set(
			    err, "invalid --cgroup argument: %s (missing <controller>: prefix)",
			    arg);
		else
			for (size_t i = 0; i < cg->n && (r = assign(subs, i, arg, err)) == 0; i++)
				;
		if (r < 0)
			goto fail;
	}
	if (check_there(cg, subs, err) < 0)
		goto fail;
	*out = subs;
	return 0;
fail:
	brig_cgroup_sub_paths_free(cg, subs);
	return -1;
}

void brig_cgroup_sub_paths_free(const struct brig_cgroup *cg, char **subs)
{
	for (size_t i = 0; subs && i < cg->n; i++)
		free(subs[i]);
	free(subs);
}
