#!/bin/bash
# tests/bench/exec.sh: how fast is `brig exec` into a running container, next
# to crun and runc?  (Engines exec health probes into containers many times
# a second: this is their latency.)
#
#   sudo tests/bench/exec.sh            RUNS=200 tests/bench/exec.sh
#
# Each runtime runs the same busybox container (`sleep`) detached, then one
# hyperfine invocation times `<runtime> exec <id> true` for all of them, in
# a private mount namespace without the cgroup v2 mount of a hybrid host
# (crun refuses hybrid cgroups) and a private pid namespace whose init reaps
# the detached containers (so nothing is ever left to the machine's PID 1).
# It prints medians, p99 and the ratios brig/crun and brig/runc; it never
# asserts.  Environment: BRIG (default: the build's brig), RUNS (100),
# WARMUP (5), KEEP=1 keeps the work directory.
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-100}
WARMUP=${WARMUP:-5}
bench_start exec hyperfine jq unshare
trap bench_finish EXIT

bench_bundle "$W/bundle" '.process.args = ["sleep", "100000"]'

runtimes="brig"
for r in crun runc; do
	command -v "$r" >/dev/null 2>&1 && runtimes="$runtimes $r"
done
printf 'bench: %s, %s CPUs, load %s\n' "$(uname -r)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf 'bench: exec into a running container, %s runs each after %s warmup runs\n' "$RUNS" "$WARMUP"

export W BRIG RUNS WARMUP runtimes
unshare -m -p --fork --mount-proc --propagation private -- bash -c '
	mountpoint -q /sys/fs/cgroup/unified && { umount /sys/fs/cgroup/unified || exit 1; }
	bin() { [ "$1" = brig ] && echo "$BRIG" || echo "$1"; }
	hf=(hyperfine -N --style basic --warmup "$WARMUP" --runs "$RUNS" --export-json "$W/exec.json")
	for r in $runtimes; do
		mkdir -p "$W/root-$r"
		"$(bin $r)" --root "$W/root-$r" run --detach --bundle "$W/bundle" "exec-$r" </dev/null \
			>/dev/null 2>"$W/$r.err" || { cat "$W/$r.err" >&2; exit 1; }
		hf+=(-n "$r" "$(bin $r) --root $W/root-$r exec exec-$r true")
	done
	"${hf[@]}"
	rc=$?
	for r in $runtimes; do
		"$(bin $r)" --root "$W/root-$r" delete --force "exec-$r" >/dev/null 2>&1
	done
	exit $rc' || die "hyperfine failed"

stats=$(jq -r '.results[] | (.times | sort) as $t | ($t | length) as $n
	| [.command, .median * 1000, $t[(($n * 0.99) | ceil) - 1] * 1000, .mean * 1000,
	   $t[0] * 1000] | @tsv' "$W/exec.json")
echo
printf '%-8s %10s %10s %10s %10s\n' exec "median ms" "p99 ms" "mean ms" "min ms"
while IFS=$'\t' read -r name median p99 mean min; do
	printf '%-8s %10.2f %10.2f %10.2f %10.2f\n' "$name" "$median" "$p99" "$mean" "$min"
done <<<"$stats"
b=$(awk -F'\t' '$1 == "brig" { print $2 }' <<<"$stats")
for other in crun runc; do
	o=$(awk -F'\t' -v n="$other" '$1 == n { print $2 }' <<<"$stats")
	[ -n "$o" ] && awk -v b="$b" -v o="$o" -v n="$other" \
		'BEGIN { printf "exec brig/%-5s %6.2fx  (median %.2f ms vs %.2f ms)\n", n, b / o, b, o }'
done
exit 0
