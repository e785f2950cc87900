/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Logging, as runc does it: records go to the --log file (stderr when none
 * is given) either as text (logrus style: time="…" level=… msg="…") or, with
 * --log-format json, as one JSON object per line:
 *
 *     {"level":"error","msg":"container \"x\" does not exist","time":"2026-…Z"}
 *
 * Podman parses the file as JSON objects and containerd's shim takes the
 * last "level":"error" line, so one record is always exactly one line and
 * one write(2).  Library code does not log errors; it returns them, and
 * main() reports the final error once with brig_log_report().
 */
#ifndef BRIG_UTIL_LOG_H
#define BRIG_UTIL_LOG_H

#include <stdbool.h>

struct brig_error;

enum brig_log_level {
	BRIG_LOG_ERROR,
	BRIG_LOG_WARN,
	BRIG_LOG_INFO,
	BRIG_LOG_DEBUG,
};

enum brig_log_format {
	BRIG_LOG_TEXT,
	BRIG_LOG_JSON,
};

/* Parse "text" / "json"; -1 on anything else. */
int brig_log_format_parse(const char *s, enum brig_log_format *out);

/* Start logging to @path (NULL: stderr).  Debug records only with @debug. */
int brig_log_open(const char *path, enum brig_log_format format, bool debug,
                  struct brig_error *err);
void brig_log_close(void);
/* Write nothing more, not even to stderr, and forget the log's fd without
 * closing it: for a process of brig's seen in the container (it reports
 * its errors to brig instead), whose fds were all closed before it was
 * born but the ones it keeps (brig_fds_prepare). */
void brig_log_silence(void);
bool brig_log_debug_enabled(void);

void brig_log(enum brig_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define brig_debug(...) brig_log(BRIG_LOG_DEBUG, __VA_ARGS__)
#define brig_warn(...) brig_log(BRIG_LOG_WARN, __VA_ARGS__)
#define brig_info(...) brig_log(BRIG_LOG_INFO, __VA_ARGS__)

/*
 * Report the final error of a command: one record in the log file (when one
 * is open) and exactly one "brig: <msg>" line on stderr.
 */
void brig_log_report(const char *msg);

/* Format the current time as RFC 3339 with nanoseconds, UTC ("…Z"). */
void brig_log_time_rfc3339(char *buf, unsigned long size);

#endif
