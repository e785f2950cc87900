/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --audit FILE (internal.h): one JSON line per event of what the job
 * tried and was refused (denials.c: a system call; egress.c: a name, an
 * address), each begun with "ms", the time since the job's start, and
 * written whole with its newline; past --audit-limit lines none is
 * written and the result says audit_truncated.
 */
#include "config.h"
#include "job/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/fs.h"
#include "util/jsonw.h"
#include "util/log.h"

bool brig_job_audit_begin(struct brig_job_audit *a, struct brig_jsonw *w)
{
	if (!a || a->fd < 0)
		return false;
	if (a->lines >= a->limit) {
		a->truncated = true;
		return false;
	}
	brig_jsonw_init(w, NULL);
	brig_jsonw_object_begin(w);
	brig_jsonw_kv_uint(w, "ms", brig_job_now_ms() - a->t0);
	return true;
}

void brig_job_audit_end(struct brig_job_audit *a, struct brig_jsonw *w)
{
	char *line;
	size_t len;

	brig_jsonw_object_end(w);
	line = brig_jsonw_finish(w);
	len = strlen(line);
	line = realloc(line, len + 2);
	if (!line)
		brig_oom();
	line[len++] = '\n';
	line[len] = '\0';
	if (brig_write_all(a->fd, line, len) < 0 && !a->failed) {
		a->failed = errno;
		brig_debug("--audit: write: %s", strerror(errno));
	}
	a->lines++;
	free(line);
}
