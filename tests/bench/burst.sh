#!/bin/bash
# tests/bench/burst.sh: a warm pool the way agent platforms measure one.
#
#   sudo tests/bench/burst.sh          N=200 CALLERS=16 tests/bench/burst.sh
#
# 1. Fill and density: `pool create burst --size N` (1000), timed until
#    all N members are ready: members per second.  Then the N idle
#    members' memory: the PSS of each member's processes
#    (/proc/PID/smaps_rollup) and its memory cgroup's usage
#    (memory.usage_in_bytes on v1, memory.current on v2), summed over the
#    pool, in MiB (the goal: at most 600 MiB for 1000 members).  The
#    init's own pages are in both, so the sum is an upper bound.
# 2. A burst of N pooled jobs: CALLERS (64) callers start at once, each
#    running `brig job --pool burst -- true` back to back until N jobs
#    have run in all (N / CALLERS each), against the full pool of N.
#    Each job's wall time is taken in its caller ($EPOCHREALTIME, no
#    process around brig); it prints p50, p95 and p99 of them, the
#    whole burst's time (first start to last end), the hits and misses
#    (each job's --result) and the failures.  Every claim starts a
#    refill, as it would in use: those run beside the burst.
# 3. The same burst, cold: N `brig job --rootfs R -- true`.
# 4. Pooled jobs beside a busy machine: RUNS (100) pooled jobs one after
#    another on a pool of 16, each after the pool is full again
#    (untimed), first alone, then with BUSY (8) callers running cold jobs
#    beside them: the idle median, the busy p50 and p99, and busy p99
#    over the idle median (the goal: at most 2x).
#
# The goals (issue 35): pooled burst p99 at most 10x the idle pooled
# median with every claim a hit; 1000 idle members in at most 600 MiB;
# busy pooled p99 at most 2x the idle median.  It prints, never
# asserts; compare ratios from one run only.
#
# Everything runs in a private mount and pid namespace: the members'
# inits, which `pool create` leaves behind, are reaped by its init (bash)
# and go with it.  Environment: BRIG, N, CALLERS, RUNS, BUSY.
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
N=${N:-1000} CALLERS=${CALLERS:-64} RUNS=${RUNS:-100} BUSY=${BUSY:-8}
bench_start burst jq unshare awk
chmod 0755 "$W"
trap 'rm -rf "$W"' EXIT
BRIG=$BRIG brig_make_bundle "$W/bundle" >/dev/null || die "cannot make the bundle"
chmod -R go+rX "$W/bundle"
mkdir -p "$W/root" "$W/res" "$W/out"

note "$(uname -r), $(nproc) CPUs, load $(cut -d" " -f1-3 /proc/loadavg)"
note "brig: $("$BRIG" --version | head -n 1)"
note "N=$N CALLERS=$CALLERS RUNS=$RUNS BUSY=$BUSY"

# ready POOL SIZE [TENTHS]: until POOL has SIZE ready members (TENTHS
# tenths of a second at most, 100 by default); 1 if it never does
cat >"$W/ready.sh" <<EOS
n=\${3:-100}
while [ \$n -gt 0 ]; do
	[ "\$($BRIG --root $W/root pool list --format json |
		jq --arg p "\$1" '.[] | select(.name == \$p) | .ready')" = "\$2" ] && exit 0
	sleep 0.1
	n=\$((n - 1))
done
exit 1
EOS

# caller.sh KIND C: jobs C, C + CALLERS, ... below N, back to back; one
# line per job in $W/out/KIND.C: "START END STATUS" (seconds)
cat >"$W/caller.sh" <<'EOS'
kind=$1 c=$2
out=$W/out/$kind.$c
: >"$out"
for ((j = c; j < N; j += CALLERS)); do
	t0=$EPOCHREALTIME
	case $kind in
	pool) "$BRIG" --root "$W/root" job --pool burst --result "$W/res/$j" -- true >/dev/null 2>>"$W/err.$kind" ;;
	cold) "$BRIG" --root "$W/root" job --rootfs "$W/bundle/rootfs" -- true >/dev/null 2>>"$W/err.$kind" ;;
	busy) "$BRIG" --root "$W/root" job --rootfs "$W/bundle/rootfs" -- true >/dev/null 2>/dev/null ;;
	esac
	echo "$t0 $EPOCHREALTIME $?" >>"$out"
	[ "$kind" = busy ] && [ -e "$W/stop" ] && break
done
EOS

export W BRIG N CALLERS RUNS BUSY
inner='
	P="$BRIG --root $W/root"
	# ---- 1: fill, then what the idle members hold
	t0=$EPOCHREALTIME
	$P pool create burst --size "$N" --rootfs "$W/bundle/rootfs" >/dev/null 2>"$W/err.fill" ||
		{ cat "$W/err.fill" >&2; exit 1; }
	t1=$EPOCHREALTIME
	bash "$W/ready.sh" burst "$N" 6000 || echo "bench: the pool did not fill in 600 s" >&2
	echo "$t0 $t1 $EPOCHREALTIME" >"$W/fill.out"
	sleep 1
	$P list --format json | jq -r ".[] | select(.id | startswith(\"burst-\")) | .pid" >"$W/pids"
	while read -r pid; do
		pss=0
		for p in $pid $(cat "/proc/$pid/task/$pid/children" 2>/dev/null); do
			v=$(awk "/^Pss:/ { print \$2 }" "/proc/$p/smaps_rollup" 2>/dev/null)
			pss=$((pss + ${v:-0}))
		done
		mem=$(bench_memcg_usage "$pid")
		echo "$pid $pss ${mem:-0}"
	done <"$W/pids" >"$W/density.out"

	# ---- 2 and 3: the bursts
	for kind in pool cold; do
		for ((c = 0; c < CALLERS; c++)); do
			bash "$W/caller.sh" $kind $c &
		done
		wait
		cat "$W"/out/$kind.* >"$W/burst.$kind"
		[ $kind = pool ] && $P pool destroy burst
	done
	cat "$W"/res/* 2>/dev/null | grep -o "\"pool\": *\"[a-z]*\"" | sed "s/.*\"\\([a-z]*\\)\"$/\\1/" |
		sort | uniq -c >"$W/hits.out"

	# ---- 4: pooled jobs alone, then beside BUSY callers of cold jobs
	$P pool create busy --size 16 --rootfs "$W/bundle/rootfs" >/dev/null || exit 1
	for phase in idle busy; do
		if [ $phase = busy ]; then
			rm -f "$W/stop"
			for ((c = 0; c < BUSY; c++)); do
				N=1000000 CALLERS=1 bash "$W/caller.sh" busy $c &
			done
		fi
		for ((i = 0; i < RUNS; i++)); do
			bash "$W/ready.sh" busy 16 || echo "bench: pool busy not refilled in 10 s" >&2
			t0=$EPOCHREALTIME
			$P job --pool busy --result "$W/res/$phase.$i" -- true >/dev/null 2>>"$W/err.$phase"
			echo "$t0 $EPOCHREALTIME $?"
		done >"$W/$phase.out"
		touch "$W/stop"
		wait
	done
	$P pool destroy busy
	exit 0'
unshare -m -p --fork --mount-proc --propagation private -- bash -c "$inner" ||
	die "the bench failed"

# ------------------------------------------------------------------ report

# stats FILE: "n p50 p95 p99 fails first last" of the "START END STATUS"
# lines of FILE, in ms (nearest rank)
stats() {
	local span
	span=$(awk '{ if ($3 != 0) f++; if (NR == 1 || $1 < s) s = $1; if ($2 > e) e = $2 }
		END { printf "%d %.3f", f, e - s }' "$1")
	awk '{ printf "%.3f\n", ($2 - $1) * 1000 }' "$1" | sort -n | awk -v tail="$span" '
		{ d[NR] = $1 }
		function at(q) { return d[int(NR * q + 0.999)] }
		END { printf "%d %.2f %.2f %.2f %s\n", NR, at(0.50), at(0.95), at(0.99), tail }'
}

read -r t0 t1 t2 <"$W/fill.out"
echo
awk -v n="$N" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
	printf "fill: pool create --size %d returned in %.1f s, full in %.1f s: %.1f members/s\n",
		n, b - a, c - a, n / (c - a) }'
awk -v n="$N" '{ p += $2; m += $3; k++ } END {
	printf "density over %d idle members: PSS %.1f MiB, memory cgroups %.1f MiB, sum %.1f MiB", k, p / 1024, m / 1048576, p / 1024 + m / 1048576
	if (k) printf " (%.0f kB a member; %.0f MiB for 1000)", (p + m / 1024) / k, (p + m / 1024) / k * 1000 / 1024
	printf "; goal: 600 MiB for 1000\n" }' "$W/density.out"

echo
declare -A p50s p99s
printf '%-22s %6s %9s %9s %9s %8s %9s\n' "" jobs "p50 ms" "p95 ms" "p99 ms" failures "burst s"
for kind in pool cold; do
	read -r n p50 p95 p99 f span < <(stats "$W/burst.$kind")
	printf '%-22s %6d %9.2f %9.2f %9.2f %8d %9.2f\n' "burst, $kind ($CALLERS callers)" \
		"$n" "$p50" "$p95" "$p99" "$f" "$span"
	p99s[$kind]=$p99
done
for phase in idle busy; do
	read -r n p50 p95 p99 f _ < <(stats "$W/$phase.out")
	printf '%-22s %6d %9.2f %9.2f %9.2f %8d %9s\n' "pooled, $phase" "$n" "$p50" "$p95" "$p99" "$f" -
	p50s[$phase]=$p50 p99s[$phase]=$p99
done
echo "hits and misses: $(awk '{ printf "%s %s  ", $1, $2 }' "$W/hits.out")"
for f in "$W"/err.*; do
	[ -s "$f" ] || continue
	echo "the most frequent errors of ${f##*.}:"
	sed 's/[0-9a-f]\{12\}/X/g' "$f" | sort | uniq -c | sort -rn | head -n 3
done
awk -v bp="${p99s[pool]}" -v im="${p50s[idle]}" -v bu="${p99s[busy]}" 'BEGIN {
	printf "burst pooled p99 / idle pooled median  %6.2fx  (goal <= 10x)\n", bp / im
	printf "busy pooled p99 / idle pooled median   %6.2fx  (goal <= 2x)\n", bu / im }'
exit 0
