#!/bin/bash
# tests/vm/guest.sh: the test driver inside brig's test guest.  run.sh copies
# it into the run's shared directory; the guest's init (tests/vm/init) runs it
# as root once the guest is set up, stdout and stderr going to the
# virtio-serial ports that run.sh streams to its own.
#
# $SHARE/config (written by run.sh) sets the environment of the tests (BRIG,
# BRIG_SRCDIR, BRIG_BUILDDIR, ...) and three arrays: SCRIPTS (absolute
# paths), LABELS (as given to run.sh), NAMES (results/NAME.log) and ENVS
# (the variables each script runs with, "VAR=VALUE ..." or empty).
#
# Each script runs in turn as `make check` runs it: from the build tree,
# under the subreaper helper, with stdin /dev/null.  Its TAP output goes to
# stdout after a "# vm: LABEL" line and to results/NAME.log, its exit status
# to results/NAME.rc.  A "done" file at the end tells run.sh the guest got
# through the list.

set -u
SHARE=/run/brig-vm
# shellcheck source=/dev/null
. "$SHARE/config" || exit 1
export BRIG_VM=1 # tests can tell they run in the guest

read -r up _ </proc/uptime
echo "vm: guest ready ${up}s after boot (kernel $(uname -r))" >&2
[ -b /dev/nullb0 ] || echo "vm: no /dev/nullb0 (null_blk did not load): no io.max tests" >&2

for i in "${!SCRIPTS[@]}"; do
	log=$SHARE/results/${NAMES[i]}.log
	mkdir -p "$(dirname "$log")"
	echo "# vm: ${LABELS[i]}"
	t0=$EPOCHREALTIME
	# shellcheck disable=SC2086 # ENVS[i]: VAR=VALUE words, none with spaces
	(cd "$BRIG_BUILDDIR" &&
		exec env ${ENVS[i]:-} "$BRIG_BUILDDIR/tests/helpers/subreaper" /bin/bash "${SCRIPTS[i]}") </dev/null |
		tee "$log"
	rc=${PIPESTATUS[0]}
	echo "$rc" >"${log%.log}.rc"
	t1=$EPOCHREALTIME
	# EPOCHREALTIME is seconds.microseconds: whole milliseconds suffice
	ms=$(((${t1/./} - ${t0/./}) / 1000))
	printf 'vm: %s: exit %d in %d.%03ds\n' "${LABELS[i]}" "$rc" $((ms / 1000)) $((ms % 1000)) >&2
done

# the guest's clock at the end, and its source: run.sh compares it with
# the host's (a guest clock that ran fast made every timeout in it short)
echo "${EPOCHREALTIME%.*} $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)" \
	>"$SHARE/results/.clock"
: >"$SHARE/done"
