#!/bin/bash
# tests/bench/all.sh: every figure of the start-up goals, in one command:
#
#   run.sh               brig, brig+seccomp (Podman-like profile, cached),
#                        crun, runc and the floor, back to back, and the
#                        peak RSS of a run
#   run.sh IDLE=0.05     the same, each run after 50 ms idle
#   conc.sh              runs/s from 1, 8 and 32 callers at once
#   exec.sh              exec into a running container
#   podman.sh            podman run --rm IMAGE true, with each runtime
#   pool.sh              a pooled job against a cold one and the floor,
#                        8 callers, an idle member's cost
#   burst.sh             a pool of 1000: fill, density, bursts of pooled
#                        and cold jobs, pooled jobs beside a busy machine
#   syscalls.sh          the kernel's time and page faults of a run, call
#                        by call, brig and crun (bpftrace); WHAT=exec: of
#                        an exec
#   ab.sh $AB            with AB=REV...: the work tree against them
#   and whether a `true` container runs under a 1 MiB memory limit
#
# then the ratio lines of all of them together, against the goals.  It
# prints, never asserts; compare ratios from one run only (the machine's
# load moves every absolute figure).
#
#   sudo tests/bench/all.sh           RUNS=200 tests/bench/all.sh
#
# Environment: BRIG, RUNS (100; conc.sh 160, podman.sh 30), passed on;
# POOL_DURATION (pool.sh's DURATION, 30), N and CALLERS (burst.sh's), AB.
set -u
export LC_ALL=C

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BRIG=${BRIG:-$SRC/brig}
export BRIG
D=$(mktemp -d "${TMPDIR:-/tmp}/brig-bench-all.XXXXXX") || exit 1
trap 'rm -rf "$D"' EXIT

section() {
	local name=$1
	shift
	echo "==== $name"
	"$@" 2>&1 | tee "$D/$name.out"
	echo
}

section run bash "$SRC/tests/bench/run.sh"
section run-idle env IDLE=0.05 bash "$SRC/tests/bench/run.sh"
section conc env RUNS="${CONC_RUNS:-160}" bash "$SRC/tests/bench/conc.sh"
section exec bash "$SRC/tests/bench/exec.sh"
section podman env RUNS="${PODMAN_RUNS:-30}" bash "$SRC/tests/bench/podman.sh"
section pool env DURATION="${POOL_DURATION:-30}" bash "$SRC/tests/bench/pool.sh"
section burst bash "$SRC/tests/bench/burst.sh"
section syscalls bash "$SRC/tests/bench/syscalls.sh"
section syscalls-exec env WHAT=exec bash "$SRC/tests/bench/syscalls.sh"
if [ -n "${AB:-}" ]; then
	# shellcheck disable=SC2086 # (AB: one or more revisions)
	section ab bash "$SRC/tests/bench/ab.sh" $AB
fi

# A `true` container under a 1 MiB memory limit (memory.limit_in_bytes),
# in the private namespace run.sh uses.
echo "==== 1 MiB"
W=$(mktemp -d "$D/mem.XXXXXX")
# shellcheck source=../lib/rootfs.sh
. "$SRC/tests/lib/rootfs.sh"
if brig_make_bundle "$W/b" >/dev/null && brig_bundle_edit "$W/b" '.process.terminal = false
	| .process.args = ["true"] | .linux.resources.memory.limit = 1048576'; then
	if "$BRIG" --root "$W/root" run --bundle "$W/b" mem1m >"$W/out" 2>&1; then
		echo "a true container under a 1 MiB memory limit: runs" | tee "$D/mem.out"
	else
		echo "a true container under a 1 MiB memory limit: FAILS: $(tail -1 "$W/out")" | tee "$D/mem.out"
	fi
	"$BRIG" --root "$W/root" delete --force mem1m >/dev/null 2>&1
fi
echo

echo "==== the ratios, against the goals"
# ratios TITLE FILE PATTERN: the lines of FILE that match PATTERN, under
# TITLE (with its goal)
ratios() {
	echo "$1"
	grep -h "$3" "$D/$2" 2>/dev/null | sed 's/^ */    /'
}
ratios "back to back (goal: <= 0.5x crun, <= 2x floor)" run.out '^brig/crun\|^brig/floor'
ratios "with seccomp (goal: <= 0.5x crun)" run.out '^brig+seccomp/crun'
ratios "after 50 ms idle (goal: <= 0.3x crun)" run-idle.out '^brig/crun'
ratios "concurrent (goal: >= 2x crun, >= 0.6x floor at 8 and 32 callers)" conc.out 'callers: brig'
ratios "exec (goal: <= 0.5x crun)" exec.out '^exec brig/crun'
ratios "peak RSS (goal: <= 0.5x crun)" run.out '^peak RSS brig/crun'
ratios "1 MiB (goal: runs)" mem.out .
ratios "through Podman" podman.out '^podman run'
ratios "pooled job (goal: <= 1.0x floor)" pool.out '^brig pool/floor '
ratios "pool fill and density (goal: 1000 idle members in <= 600 MiB)" burst.out '^fill:\|^density'
ratios "bursts of pooled and cold jobs" burst.out '^burst, \|^hits'
ratios "pooled p99 against the idle median (goals: burst <= 10x, busy <= 2x)" burst.out 'idle pooled median'
[ -n "${AB:-}" ] && ratios "against earlier revisions (goal: <= 1.0x 18285a8)" ab.out ' work/'
exit 0
