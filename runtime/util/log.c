/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "util/jsonw.h"
#include "util/strbuf.h"

static struct {
	int fd; /* -1: stderr, no file */
	enum brig_log_format format;
	bool debug;
	bool silent; /* brig_log_silence(): nothing more is written */
} log_state = { .fd = -1, .format = BRIG_LOG_TEXT };

static const char *const level_names[] = {
	[BRIG_LOG_ERROR] = "error",
	[BRIG_LOG_WARN] = "warning",
	[BRIG_LOG_INFO] = "info",
	[BRIG_LOG_DEBUG] = "debug",
};

int brig_log_format_parse(const char *s, enum brig_log_format *out)
{
	if (strcmp(s, "text") == 0)
		*out = BRIG_LOG_TEXT;
	else if (strcmp(s, "json") == 0)
		*out = BRIG_LOG_JSON;
	else
		return -1;
	return 0;
}

int brig_log_open(const char *path, enum brig_log_format format, bool debug, struct brig_error *err)
{
	log_state.format = format;
	log_state.debug = debug;
	if (!path || !*path)
		return 0;
	log_state.fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
	if (log_state.fd < 0)
		return brig_error_setp(err, errno, "open log file \"%s\"", path);
	return 0;
}

void brig_log_close(void)
{
	if (log_state.fd >= 0)
		close(log_state.fd);
	log_state.fd = -1;
}

void brig_log_silence(void)
{
	log_state.fd = -1;
	log_state.silent = true;
}

bool brig_log_debug_enabled(void)
{
	return log_state.debug;
}

void brig_log_time_rfc3339(char *buf, unsigned long size)
{
	struct timespec ts;
	struct tm tm;
	char base[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, size, "%s.%09ldZ", base, ts.tv_nsec);
}

static void write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		buf += n;
		len -= (size_t)n;
	}
}

static void emit(int fd, enum brig_log_level level, const char *msg)
{
	char now[64];

	brig_log_time_rfc3339(now, sizeof(now));
	if (log_state.format == BRIG_LOG_JSON) {
		struct brig_jsonw w;
		char *line;

		brig_jsonw_init(&w, NULL);
		brig_jsonw_object_begin(&w);
		brig_jsonw_kv_string(&w, "level", level_names[level]);
		brig_jsonw_kv_string(&w, "msg", msg);
		brig_jsonw_kv_string(&w, "time", now);
		brig_jsonw_object_end(&w);
		brig_strbuf_addch(&w.out, '\n');
		line = brig_jsonw_finish(&w);
		write_all(fd, line, strlen(line));
		free(line);
	} else {
		struct brig_strbuf sb = BRIG_STRBUF_INIT;

		brig_strbuf_addf(&sb, "time=\"%s\" level=%s msg=", now, level_names[level]);
		brig_json_escape(&sb, msg, strlen(msg));
		brig_strbuf_addch(&sb, '\n');
		write_all(fd, sb.buf, sb.len);
		brig_strbuf_release(&sb);
	}
}

void brig_log(enum brig_log_level level, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	if (log_state.silent || (level == BRIG_LOG_DEBUG && !log_state.debug))
		return;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg)
		return;
	emit(log_state.fd >= 0 ? log_state.fd : STDERR_FILENO, level, msg);
	free(msg);
}

void brig_log_report(const char *msg)
{
	struct brig_strbuf sb = BRIG_STRBUF_INIT;

	if (log_state.fd >= 0)
		emit(log_state.fd, BRIG_LOG_ERROR, msg);
	brig_strbuf_addf(&sb, "brig: %s\n", msg);
	write_all(STDERR_FILENO, sb.buf, sb.len);
	brig_strbuf_release(&sb);
}
