#!/bin/bash
# tests/e2e/baseline.sh BUILD_DIR [host] [vm-systemd]
#
# Records runc's results of the engines' scenarios anew, in
# tests/e2e/baselines/ (one file per script and context: see
# tests/e2e/lib.sh), for the e2e layer on this host ("host": the scripts
# tests/run-all.sh runs there) and in the systemd guest ("vm-systemd": the
# e2e lines of tests/vm/TESTS-systemd that run runc); both when neither is
# named.  Each scenario runs with runc alone, live.  Run it as root when a
# version that the files list changes (runc, Podman, conmon, containerd,
# catatonit, the kernel: the e2e output then says "stale"), or when a
# scenario is added or changed (the output says "runc live" for it); then
# commit the files.  BUILD_DIR is a release build (for the guest's and
# the scripts' helpers; brig itself does not run).
#
# Exit status: 0 when every script recorded its results, 1 otherwise.

set -uo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:?usage: baseline.sh BUILD_DIR [host] [vm-systemd]}" && pwd) || exit 1
shift
[ $# -gt 0 ] || set -- host vm-systemd
OUT=$SRC/tests/e2e/baselines
mkdir -p "$OUT" || exit 1
status=0

for where in "$@"; do
	case $where in
	host)
		E2E_BASELINE_OUT=$OUT BRIG_E2E_RESULTS=$BUILD/tests/e2e-baseline \
			bash "$SRC/tests/e2e/run.sh" "$BUILD" "$SRC/tests/e2e/podman.sh" \
			"$SRC/tests/e2e/containerd.sh" || status=1
		;;
	vm-systemd)
		# the guest writes into its results (the share), run.sh copies
		# them out; the first variable of an entry names its results, so
		# E2E_BASELINE_OUT goes second
		entries=()
		while read -r line; do
			read -ra w <<<"$line"
			entries+=("${w[0]} E2E_BASELINE_OUT=/run/brig-vm/results/baselines ${w[*]:1}")
		done < <(grep -E '^[A-Z].*tests/e2e/' "$SRC/tests/vm/TESTS-systemd" | grep -v 'RUNC=/nonexistent')
		res=$BUILD/tests/vm-systemd-baseline
		(cd "$SRC" && BRIG_VM_RESULTS=$res BRIG_VM_INIT=systemd \
			BRIG_VM_TIMEOUT=${BRIG_VM_TIMEOUT:-3000} bash tests/vm/run.sh "$BUILD" "${entries[@]}") ||
			status=1
		cp "$res"/baselines/* "$OUT/" || status=1
		;;
	*)
		echo "baseline.sh: $where: expected host or vm-systemd" >&2
		exit 2
		;;
	esac
done
ls -l "$OUT"
exit "$status"
