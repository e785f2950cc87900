/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "result.h"

#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/error.h"
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
	brig_jsonw_object_end(&w);
	text = brig_jsonw_finish(&w);
	/* one line, newline-terminated */
	text = realloc(text, strlen(text) + 2);
	if (!text)
		brig_oom();
	strcat(text, "\n");
	return text;
}
