/* SPDX-License-Identifier: Apache-2.0 */
/* brig kill's signal names and numbers (brig_signal_parse, container.c). */
#include "config.h"

#include <signal.h>

#include "lifecycle/container.h"
#include "tap.h"

int main(void)
{
	is_int(brig_signal_parse("KILL"), SIGKILL, "a name");
	is_int(brig_signal_parse("sigterm"), SIGTERM, "any case, with SIG");
	is_int(brig_signal_parse("9"), 9, "a number");
	is_int(brig_signal_parse("0"), 0, "0 (is it alive?)");
	is_int(brig_signal_parse(""), -1, "empty");
	is_int(brig_signal_parse("SIG"), -1, "SIG alone");
	is_int(brig_signal_parse("NOPE"), -1, "an unknown name");
	is_int(brig_signal_parse("-1"), -1, "a negative number");
	is_int(brig_signal_parse("99999999999999999999"), -1, "a number past long");
	is_int(brig_signal_parse("RTMIN"), SIGRTMIN, "RTMIN");
	is_int(brig_signal_parse("RTMIN+1"), SIGRTMIN + 1, "RTMIN+1");
	is_int(brig_signal_parse("SIGRTMAX-1"), SIGRTMAX - 1, "SIGRTMAX-1");
	is_int(brig_signal_parse("RTMAX+1"), -1, "past RTMAX");
	is_int(brig_signal_parse("RTMIN-1"), -1, "below RTMIN");
	is_int(brig_signal_parse("RTMIN+"), -1, "RTMIN+ without a number");
	/* the fuzzer's find: the sum overflowed (undefined behaviour) */
	is_int(brig_signal_parse("RTMAX+99999999989999999996"), -1,
	       "RTMAX plus a number past long");
	is_int(brig_signal_parse("RTMIN+9223372036854775807"), -1, "RTMIN plus LONG_MAX");
	is_int(brig_signal_parse("RTMAX-9223372036854775807"), -1, "RTMAX minus LONG_MAX");
	return tap_done();
}
