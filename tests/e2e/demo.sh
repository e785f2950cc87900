#!/bin/bash
# The README's first command: contrib/demo.sh (with SKIP_APT=1; run-all
# installs the packages) builds brig, or reuses build-release/, and runs
# its containers with brig and through Podman.

# shellcheck source=../lib/tap.sh
. "${BRIG_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"

t_demo() {
	local left
	TAP_TIMEOUT=600 run_cmd env SKIP_APT=1 bash "$BRIG_SRCDIR/contrib/demo.sh"
	assert_rc 0
	assert_contains "$out" $'    | hello from brig\n' "the container's output"
	assert_match "$out" $'\n    \\| working\n    exit status: 3, wall time: [0-9]+ ms\n' \
		"the failing job's output and status"
	assert_match "$out" $'exit status: 0, wall time: [0-9]+ ms\n==> a job that fails' \
		"the first run's status and time"
	if command -v podman >/dev/null; then
		assert_match "$out" $'through Podman: podman --runtime [^ ]*/brig run.*\n    \\| hello from brig\n.*exit status: 0, wall time: [0-9]+ ms\n==> done$' \
			"the Podman part"
	fi
	assert_eq "$err" "" "stderr"
	left=$(ls -d /tmp/brig-demo.* 2>/dev/null)
	assert_eq "$left" "" "temporary directories left"
}

tap_test "contrib/demo.sh: brig run, an exit status, and Podman" t_demo
tap_done
