/* SPDX-License-Identifier: Apache-2.0 */
/* linux.netDevices' names and the state dir's record of what create moved
 * (linux/netdev.h): written from the config, read back taking only what
 * could have been written (the record may have been tampered with). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "linux/netdev.h"
#include "spec/spec.h"
#include "tap.h"

static void names(void)
{
	ok(brig_netdev_name_ok("eth0"), "eth0");
	ok(brig_netdev_name_ok("a234567890abcde"), "15 characters");
	ok(!brig_netdev_name_ok("a234567890abcdef"), "16 characters");
	ok(!brig_netdev_name_ok(""), "empty");
	ok(!brig_netdev_name_ok(NULL), "none");
	ok(!brig_netdev_name_ok("."), ".");
	ok(!brig_netdev_name_ok(".."), "..");
	ok(!brig_netdev_name_ok("a/b"), "a slash");
	ok(!brig_netdev_name_ok("a:b"), "a colon (an alias)");
	ok(!brig_netdev_name_ok("a b"), "a space");
	ok(!brig_netdev_name_ok("a\nb"), "a newline");
}

static void record(void)
{
	struct brig_net_device nd[] = { { .host_name = "d0", .name = "eth0" },
		                        { .host_name = "va", .name = NULL } };
	struct brig_linux lx = { .net_devices = nd, .n_net_devices = 2 };
	struct brig_netdev *devs = NULL;
	char *text = brig_netdev_record(&lx);
	ssize_t n;

	is_str(text, "d0 eth0\nva va\n", "the record: host name, name inside");
	n = brig_netdev_record_parse(text, &devs);
	is_int(n, 2, "read back: two devices");
	if (n == 2) {
		is_str(devs[0].host, "d0", "first host name");
		is_str(devs[0].inside, "eth0", "first name inside");
		is_str(devs[1].host, "va", "a device not renamed");
		is_str(devs[1].inside, "va", "keeps its name");
	}
	free(devs);
	free(text);
}

static void tampered(void)
{
	struct brig_netdev *devs = NULL;
	ssize_t n;

	n = brig_netdev_record_parse("ok0 ok1\n"
	                             "a/b c\n"
	                             "toolongtoolongtoolong x\n"
	                             "three words here\n"
	                             "one\n"
	                             "\n"
	                             "x ..\n"
	                             "last0 last1",
	                             &devs);
	is_int(n, 2, "only lines of two valid names count");
	if (n == 2) {
		is_str(devs[0].inside, "ok1", "the first");
		is_str(devs[1].host, "last0", "the last, without a newline");
	}
	free(devs);
	is_int(brig_netdev_record_parse("", &devs), 0, "an empty record");
	ok(devs == NULL, "nothing allocated");
	is_int(brig_netdev_record_parse(NULL, &devs), 0, "no record");
}

int main(void)
{
	names();
	record();
	tampered();
	return tap_done();
}
