#!/bin/bash
# tests/bench/conc.sh: `run` of `true` from N callers at once: runs per
# second of brig, crun and runc next to the floor (unshare(1) creating
# the same namespaces), RUNS runs spread over N callers, for each N of
# CONC.  Same bundle and private mount namespace as run.sh (crun refuses
# the cgroup v2 mount of a hybrid host; the host is left untouched).  It
# prints, never asserts.
#
#   sudo tests/bench/conc.sh          CONC="1 8 32" RUNS=160 tests/bench/conc.sh
#
# Environment: BRIG (default: the build's brig), RUNS (160), CONC ("1 8
# 32"), KEEP=1 keeps the work directory.
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-160}
CONC=${CONC:-1 8 32}
bench_start conc jq
trap bench_finish EXIT

bench_bundle "$W/bundle"

runtimes="brig"
for r in crun runc; do
	if command -v "$r" >/dev/null 2>&1; then
		runtimes="$runtimes $r"
	else
		note "$r is not installed: skipped"
	fi
done

note "$(uname -r), $(nproc) CPUs, load $(cut -d" " -f1-3 /proc/loadavg)"
note "$RUNS runs of true spread over each of $CONC callers"

# One runtime at one concurrency, inside the private namespace: runs/s,
# and whether every run succeeded, on one line ("RUNTIME CALLERS RUNS/S
# ok|FAILED").
cat >"$W/one.sh" <<'EOS'
r=$1 c=$2
mkdir -p "$W/root-$r"
t0=$(date +%s%N)
# no shell around each run: its startup would be counted too
case $r in
brig) seq "$RUNS" | xargs -P "$c" -I{} "$BRIG" --root "$W/root-brig" run --bundle "$W/bundle" "c-$c-{}" ;;
floor) seq "$RUNS" | xargs -P "$c" -I{} unshare -m -u -i -n -p -C --fork true ;;
*) seq "$RUNS" | xargs -P "$c" -I{} "$r" --root "$W/root-$r" run --bundle "$W/bundle" "c-$c-{}" ;;
esac >/dev/null 2>&1 </dev/null
st=$?
t1=$(date +%s%N)
awk -v r="$r" -v c="$c" -v n="$RUNS" -v ns=$((t1 - t0)) -v f="$([ $st = 0 ] && echo ok || echo FAILED)" \
	'BEGIN { printf "%s %s %.1f %s\n", r, c, n * 1e9 / ns, f }'
EOS
export W BRIG RUNS
for c in $CONC; do
	for r in $runtimes floor; do
		unshare -m --propagation private -- bash -c '
			if mountpoint -q /sys/fs/cgroup/unified; then umount /sys/fs/cgroup/unified || exit 1; fi
			bash "$W/one.sh" "$@"' conc "$r" "$c"
	done
done >"$W/conc.out" 2>&1 </dev/null

echo
printf '%-8s %8s %10s %9s\n' callers runtime "runs/s" runs
awk '{ printf "%-8s %8s %10s %9s\n", $2, $1, $3, $4 }' "$W/conc.out"
echo
for c in $CONC; do
	awk -v c="$c" '$2 == c { r[$1] = $3 }
		END {
			if (r["crun"] > 0) printf "%s callers: brig/crun %.2fx", c, r["brig"] / r["crun"]
			if (r["floor"] > 0) printf ", brig/floor %.2fx", r["brig"] / r["floor"]
			print ""
		}' "$W/conc.out"
done
echo "goal: at 8 and 32 callers, brig at least 2x crun's runs/s and 0.6x the floor's"
exit 0
