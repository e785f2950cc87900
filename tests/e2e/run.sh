#!/bin/bash
# tests/e2e/run.sh BUILD_DIR [SCRIPT...]
#
# The engines' layer: runs the scenario scripts of tests/e2e (default:
# podman.sh, containerd.sh and demo.sh) with BUILD_DIR/brig, each as `make check`
# runs a test (under BUILD_DIR/tests/helpers/subreaper, in a cgroup of its
# own), and each scenario with runc 1.1 too (tests/e2e/lib.sh).
#
# Output: per script, a "# e2e: SCRIPT" line then its TAP output on stdout.
# Results, in $BRIG_E2E_RESULTS (default BUILD_DIR/tests/e2e-results,
# emptied first): NAME.log (the TAP output) and NAME.rc (its exit status).
# Exit status: 0 when every script exited 0 (TAP "not ok" lines do not
# change it: count them in the logs).
#
# Environment: RUNC (default /usr/sbin/runc), E2E_TIMEOUT (seconds one
# command may take, default 60), BRIG_E2E_SCRIPT_TIMEOUT (seconds a
# script may take, default 900).

set -uo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:?usage: run.sh BUILD_DIR [SCRIPT...]}" && pwd) || exit 1
shift
RESULTS=${BRIG_E2E_RESULTS:-$BUILD/tests/e2e-results}
[ $# -gt 0 ] || set -- "$SRC/tests/e2e/podman.sh" "$SRC/tests/e2e/containerd.sh" "$SRC/tests/e2e/demo.sh"

rm -rf "$RESULTS"
mkdir -p "$RESULTS" || exit 1
status=0
for script in "$@"; do
	name=$(basename "$script" .sh)
	echo "# e2e: $script"
	(cd "$BUILD" && BRIG=$BUILD/brig BRIG_SRCDIR=$SRC BRIG_BUILDDIR=$BUILD \
		timeout -k 10 "${BRIG_E2E_SCRIPT_TIMEOUT:-900}" \
		"$BUILD/tests/helpers/subreaper" bash "$script") >"$RESULTS/$name.log" 2>&1
	rc=$?
	echo "$rc" >"$RESULTS/$name.rc"
	cat "$RESULTS/$name.log"
	[ "$rc" -eq 0 ] || status=1
done
exit "$status"
