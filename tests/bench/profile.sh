#!/bin/bash
# tests/bench/profile.sh: where brig's time goes, phase by phase.  Runs
# `brig --debug run` of `true` (without and with a user namespace) and
# `brig --debug job --rootfs R -- true` RUNS times each (and a pooled `job --pool P -- true` on a pool of 8,
# refilled between runs) and prints, for each command, the median of the
# total and of every phase of the "phases:" line brig logs with --debug
# (runtime/util/phases.h): each phase's own time, in the order brig
# stamps them.  It prints, never asserts.
#
#   sudo tests/bench/profile.sh        RUNS=200 tests/bench/profile.sh
#
# Everything runs in a private mount and pid namespace (the pool's
# members' inits are reaped by its init and go with it).  Environment:
# BRIG (default: the build's brig), RUNS (50).
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-50}
bench_start profile jq unshare awk
chmod 0755 "$W"
trap 'rm -rf "$W"' EXIT
bench_bundle "$W/bundle"
chmod -R go+rX "$W/bundle"
# the same with a user namespace of its own (ids 100000..)
mkdir -p "$W/userns" && jq --arg r "$W/bundle/rootfs" '.root.path = $r
	| .linux.namespaces += [{"type": "user"}]
	| .linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]
	| .linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]' \
	"$W/bundle/config.json" >"$W/userns/config.json" || die "cannot write the userns bundle"

printf 'profile: %s, %s CPUs, brig %s, %s runs each\n' "$(uname -r)" "$(nproc)" \
	"$("$BRIG" --version | head -1 | sed 's/^brig version //')" "$RUNS"
export W BRIG RUNS
unshare -m -p --fork --mount-proc bash -c '
	P="$BRIG --root $W/root"
	ready() { # N: until pool P has N ready members (10 s at most)
		local i
		for i in $(seq 1000); do
			[ "$($P pool list --format json | jq ".[0].ready")" = "$1" ] && return 0
			sleep 0.01
		done
	}
	for i in $(seq "$RUNS"); do
		$P --debug run --bundle "$W/bundle" "p$i" 2>&1 >/dev/null | grep -o "phases: .*\"" >>"$W/run"
	done
	for i in $(seq "$RUNS"); do
		$P --debug run --bundle "$W/userns" "u$i" 2>&1 >/dev/null | grep -o "phases: .*\"" >>"$W/userns.phases"
	done
	for i in $(seq "$RUNS"); do
		$P --debug job --rootfs "$W/bundle/rootfs" -- true 2>&1 >/dev/null | grep -o "phases: .*\"" >>"$W/job"
	done
	$P pool create P --size 8 --rootfs "$W/bundle/rootfs" || exit 1
	for i in $(seq "$RUNS"); do
		ready 8
		$P --debug job --pool P -- true 2>&1 >/dev/null | grep -o "phases: .*\"" >>"$W/pooled"
	done
	$P pool destroy P
' || die "the runs failed"

for f in run userns.phases job pooled; do
	case $f in
	run) echo "brig run (true), median of each phase:" ;;
	userns.phases) echo "brig run (true) with a user namespace of its own (ids 100000..):" ;;
	job) echo "brig job --rootfs R -- true:" ;;
	pooled) echo "brig job --pool P -- true (a pool of 8, full before each run):" ;;
	esac
	[ -s "$W/$f" ] && bench_phase_medians "$W/$f" || echo "  (no phases line: is brig built with runtime/util/phases.c?)"
done
