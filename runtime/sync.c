/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "sync.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "util/error.h"

#define SYNC_MSG_MAX 4096

struct sync_msg {
	uint32_t magic;
	uint32_t step;
	char text[SYNC_MSG_MAX]; /* NUL-terminated for ERROR, else empty */
};

#define SYNC_MAGIC 0x62726967u /* "brig" */

const char *brig_sync_step_name(enum brig_sync_step step)
{
	switch (step) {
	case BRIG_SYNC_MAPS_DONE:
		return "MAPS_DONE";
	case BRIG_SYNC_READY:
		return "READY";
	case BRIG_SYNC_GO:
		return "GO";
	case BRIG_SYNC_ERROR:
		return "ERROR";
	}
	return "unknown";
}

int brig_sync_send(int fd, enum brig_sync_step step, const char *text, struct brig_error *err)
{
	struct sync_msg m = { .magic = SYNC_MAGIC, .step = step };
	size_t len = offsetof(struct sync_msg, text) + 1;
	ssize_t n;

	if (text) {
		size_t tl = strnlen(text, SYNC_MSG_MAX - 1);

		memcpy(m.text, text, tl);
		len += tl;
	}
	do
		n = send(fd, &m, len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return brig_error_setp(err, errno, "sync: send %s", brig_sync_step_name(step));
	return 0;
}

int brig_sync_expect(int fd, enum brig_sync_step expected, const char *who, struct brig_error *err)
{
	struct sync_msg m;
	ssize_t n;

	do
		n = recv(fd, &m, sizeof(m), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return brig_error_setp(err, errno, "%s: waiting for %s", who,
		                       brig_sync_step_name(expected));
	if (n == 0)
		return brig_error_set(err, "%s exited before %s", who,
		                      brig_sync_step_name(expected));
	if ((size_t)n < offsetof(struct sync_msg, text) + 1 || m.magic != SYNC_MAGIC)
		return brig_error_set(err, "%s: truncated or corrupt message while waiting for %s",
		                      who, brig_sync_step_name(expected));
	if (m.step == BRIG_SYNC_ERROR) {
		m.text[sizeof(m.text) - 1] = '\0';
		((char *)&m)[n < (ssize_t)sizeof(m) ? n : (ssize_t)sizeof(m) - 1] = '\0';
		return brig_error_set(err, "%s", m.text);
	}
	if (m.step != (uint32_t)expected)
		return brig_error_set(err, "%s: expected %s, got %s", who,
		                      brig_sync_step_name(expected),
		                      brig_sync_step_name((enum brig_sync_step)m.step));
	return 0;
}
