#!/bin/bash
# tests/bench/pool.sh: what a warm pool buys.  `brig job --pool P -- true`
# next to a cold `brig job --rootfs R -- true`, `crun run` of an equally
# hardened bundle and the bare floor; then jobs per second with 8 callers
# for DURATION seconds (the pool's refills included); then what one idle
# member costs.
#
#   sudo tests/bench/pool.sh        RUNS=200 DURATION=60 tests/bench/pool.sh
#
# 1. One hyperfine invocation (-N: no shell around any command) of
#    - "brig pool": `brig job --pool P -- true`, P a pool of POOL_SIZE (16).
#      Its `--prepare` step (not timed) waits until P is full again (ready
#      == POOL_SIZE, 10 s at most), so every timed run is a hit and the
#      refill of the run before is never timed: this is the latency of a
#      claim, not of a claim racing refills (part 2 has those).  The hits
#      are counted afterwards over 20 more claims made the same way;
#    - "brig cold": `brig job --rootfs R -- true`;
#    - "crun run": crun running the hardened bundle of tests/bench/job.sh
#      (a user namespace, pid, ipc, uts, mount, cgroup and network
#      namespaces, no capabilities, no_new_privs, the default seccomp
#      profile, an overlay over a tmpfs mounted by --prepare, untimed);
#    - "floor": `unshare -m -u -i -n -p -C --fork true`, and "floor+user"
#      (with --user --map-root-user, the namespaces a job really has).
#    It prints the median and p99 (nearest rank) of each, the ratios of
#    the pooled median to the floor's, crun's and the cold job's, and the
#    pooled p99/median.
# 2. Steady state: CALLERS (8) callers each running jobs back to back for
#    DURATION (30) seconds: pooled brig on a pool of 16 (every claim starts
#    a refill; a claim that finds the pool empty runs cold, a "miss":
#    counted), cold brig job, crun run of the plain bundle (read-only
#    rootfs, no overlay, as job.sh does) and the floor, in jobs per second.
# 3. The idle cost of a waiting member, averaged over a pool of 10: the PSS
#    of its init (/proc/PID/smaps_rollup) and its memory cgroup's usage
#    (memory.usage_in_bytes on v1, memory.current on v2).
#
# Everything runs in a private mount namespace without the cgroup v2 mount
# of a hybrid host (crun refuses hybrid cgroups) and a private pid
# namespace whose init (bash) reaps the members' inits, which `pool create`
# leaves behind: nothing is ever left to the machine's PID 1, and when the
# bench ends every process of it goes with the namespace.  It prints,
# never asserts.  Environment: BRIG (default: the build's brig), RUNS
# (100), WARMUP (5), POOL_SIZE (16), DURATION (30), CALLERS (8), KEEP=1
# keeps the work directory.
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-100}
WARMUP=${WARMUP:-5}
POOL_SIZE=${POOL_SIZE:-16}
DURATION=${DURATION:-30}
CALLERS=${CALLERS:-8}
"$BRIG" pool --help >/dev/null 2>&1 || die "$BRIG has no pool command"
bench_start pool hyperfine jq unshare
command -v crun >/dev/null 2>&1 || note "no crun: its figures are skipped"
chmod 0755 "$W"
# (the pools, containers and mounts all live in the private namespaces
# below and die with them: only the directory is left to remove)
trap bench_finish EXIT

BRIG=$BRIG brig_make_bundle "$W/bundle" >/dev/null || die "cannot make the bundle"
chmod -R go+rX "$W/bundle"
mkdir -p "$W/ovl/w" "$W/ovl/merged" "$W/hardened" "$W/plain" "$W/root" "$W/root-crun" "$W/res"
# the hardened config of tests/bench/job.sh, over the overlay and over the
# plain rootfs
harden='.ociVersion = "1.1.0" | .process.terminal = false | .process.args = ["true"]
	| .process.capabilities = {} | .process.noNewPrivileges = true
	| .linux.namespaces = [{"type":"pid"},{"type":"ipc"},{"type":"uts"},{"type":"mount"},
		{"type":"cgroup"},{"type":"network"},{"type":"user"}]
	| .linux.uidMappings = [{"containerID":0,"hostID":1073741824,"size":65536}]
	| .linux.gidMappings = .linux.uidMappings
	| .linux.resources = {"memory":{"limit":536870912},"pids":{"limit":256}}
	| .mounts |= map(select(.destination != "/sys/fs/cgroup"))
	| .mounts |= map(if .destination == "/dev/pts" then .options -= ["gid=5"] else . end)
	| .linux.seccomp = $p[0]'
jq --arg root "$W/ovl/merged" --slurpfile p "$SRC/contrib/seccomp/default.json" \
	"$harden | .root.path = \$root" "$W/bundle/config.json" >"$W/hardened/config.json" ||
	die "cannot write the hardened bundle"
jq --arg root "$W/bundle/rootfs" --slurpfile p "$SRC/contrib/seccomp/default.json" \
	"$harden | .root.path = \$root | .root.readonly = true" "$W/bundle/config.json" \
	>"$W/plain/config.json" || die "cannot write the plain bundle"

# a fresh overlay for each crun run (untimed)
cat >"$W/overlay.sh" <<EOS
crun --root $W/root-crun delete --force b >/dev/null 2>&1
umount $W/ovl/merged $W/ovl/w 2>/dev/null
mount -t tmpfs -o size=64m tmpfs $W/ovl/w && mkdir $W/ovl/w/u $W/ovl/w/k &&
	chown 1073741824:1073741824 $W/ovl/w/u &&
	mount -t overlay -o lowerdir=$W/bundle/rootfs,upperdir=$W/ovl/w/u,workdir=$W/ovl/w/k overlay $W/ovl/merged
EOS

# fill.sh POOL SIZE: wait (10 s at most) until POOL has SIZE ready members
cat >"$W/fill.sh" <<EOS
i=0
while [ \$i -lt 1000 ]; do
	[ "\$($BRIG --root $W/root pool list --format json | jq --arg p "\$1" '.[] | select(.name == \$p) | .ready')" = "\$2" ] && exit 0
	sleep 0.01
	i=\$((i + 1))
done
echo "bench: pool \$1 not refilled to \$2 in 10 s" >&2
exit 0
EOS

# loop.sh KIND CALLER END: jobs of KIND back to back until the date END
# (seconds since the epoch); one line per job in $W/loop.KIND.CALLER:
# "ok" or "fail" (the stderr of failures in $W/errors.KIND); pooled brig's
# results in $W/res/CALLER.N.
cat >"$W/loop.sh" <<'EOS'
kind=$1 c=$2 end=$3 n=0
out=$W/loop.$kind.$c err=$W/stderr.$kind.$c
: >"$out"
while [ "$(date +%s)" -lt "$end" ]; do
	n=$((n + 1))
	case $kind in
	pool)
		# (the result to a file, read after the run: no jq in the loop)
		"$BRIG" --root "$W/root" job --pool steady --result "$W/res/$c.$n" -- true >/dev/null 2>"$err" &&
			echo ok >>"$out" || { echo fail >>"$out"; cat "$err" >>"$W/errors.$kind"; }
		;;
	cold)
		"$BRIG" --root "$W/root" job --rootfs "$W/bundle/rootfs" -- true >/dev/null 2>"$err" &&
			echo ok >>"$out" || { echo fail >>"$out"; cat "$err" >>"$W/errors.$kind"; }
		;;
	crun)
		crun --root "$W/root-crun" run --bundle "$W/plain" "s$c-$n" >/dev/null 2>"$err" &&
			echo ok >>"$out" || { echo fail >>"$out"; cat "$err" >>"$W/errors.$kind"; }
		;;
	floor)
		unshare -m -u -i -n -p -C --fork true 2>"$err" && echo ok >>"$out" ||
			{ echo fail >>"$out"; cat "$err" >>"$W/errors.$kind"; }
		;;
	esac
done
EOS

note "$(uname -r), $(nproc) CPUs, load $(cut -d" " -f1-3 /proc/loadavg)"
note "brig: $("$BRIG" --version | head -1)"
note "part 1: $RUNS runs after $WARMUP warm-up runs; the pooled runs on a pool of $POOL_SIZE," \
	"refilled (untimed) before each"
export W BRIG RUNS WARMUP POOL_SIZE DURATION CALLERS
inner='
	if mountpoint -q /sys/fs/cgroup/unified; then umount /sys/fs/cgroup/unified || exit 1; fi
	P="$BRIG --root $W/root"
	mkpool() { # NAME SIZE
		$P pool create "$1" --size "$2" --rootfs "$W/bundle/rootfs"
	}

	# ---- 1: latency
	mkpool bench "$POOL_SIZE" || exit 1
	hf=(hyperfine -N --style basic --warmup "$WARMUP" --runs "$RUNS" --export-json "$W/bench.json")
	hf+=(--prepare "sh $W/fill.sh bench $POOL_SIZE" -n "brig pool" "$P job --pool bench -- true")
	hf+=(--prepare true -n "brig cold" "$P job --rootfs $W/bundle/rootfs -- true")
	if command -v crun >/dev/null; then
		hf+=(--prepare "sh $W/overlay.sh" -n "crun run" "crun --root $W/root-crun run --bundle $W/hardened b")
	fi
	hf+=(--prepare true -n floor "unshare -m -u -i -n -p -C --fork true")
	hf+=(--prepare true -n floor+user "unshare --user --map-root-user -m -u -i -n -p -C --fork true")
	"${hf[@]}" >"$W/hyperfine.out" 2>&1 || { cat "$W/hyperfine.out"; exit 1; }
	# the hits of claims made as the timed ones were
	for i in $(seq 20); do
		sh "$W/fill.sh" bench "$POOL_SIZE"
		$P job --pool bench --result - -- true 2>/dev/null | jq -r .pool
	done | sort | uniq -c | tr -s " " >"$W/hits.out"
	$P pool destroy bench

	# ---- 2: steady state, CALLERS at once for DURATION s
	mkpool steady 16 || exit 1
	for kind in pool cold crun floor; do
		[ $kind = crun ] && ! command -v crun >/dev/null && continue
		end=$(($(date +%s) + DURATION))
		s=$(date +%s.%N)
		for c in $(seq "$CALLERS"); do
			bash "$W/loop.sh" $kind "$c" "$end" &
		done
		wait
		e=$(date +%s.%N)
		cat "$W"/loop.$kind.* >"$W/all.$kind"
		hits=$(cat "$W"/res/* 2>/dev/null | grep -o "\"pool\": *\"hit\"" | wc -l)
		misses=$(cat "$W"/res/* 2>/dev/null | grep -o "\"pool\": *\"miss\"" | wc -l)
		rm -f "$W"/res/*
		echo "$kind $(grep -c ^ok "$W/all.$kind") $(grep -c ^fail "$W/all.$kind") $hits $misses $s $e"
	done >"$W/steady.out"
	$P pool destroy steady

	# ---- 3: the idle cost of a member, over a pool of 10
	mkpool idle 10 || exit 1
	sleep 1
	for id in $($P list -q | grep "^idle-"); do
		pid=$($P state "$id" | jq -r .pid)
		pss=$(awk "/^Pss:/ { print \$2 }" "/proc/$pid/smaps_rollup" 2>/dev/null)
		mem=$(bench_memcg_usage "$pid")
		echo "$id ${pss:-?} ${mem:-?}"
	done >"$W/idle.out"
	$P pool destroy idle
	exit 0'
unshare -m -p --fork --mount-proc --propagation private -- bash -c "$inner" ||
	die "the bench failed"

# ------------------------------------------------------------------ report

stats=$(jq -r '.results[] | (.times | sort) as $t | ($t | length) as $n
	| [.command, .median * 1000, $t[(($n * 0.99) | ceil) - 1] * 1000] | @tsv' "$W/bench.json")
echo
printf '%-11s %10s %10s\n' "" "median ms" "p99 ms"
while IFS=$'\t' read -r name median p99; do
	printf '%-11s %10.2f %10.2f\n' "$name" "$median" "$p99"
done <<<"$stats"
col() { awk -F'\t' -v n="$1" -v c="$2" '$1 == n { print $c }' <<<"$stats"; }
pm=$(col "brig pool" 2)
pp=$(col "brig pool" 3)
for other in floor floor+user "crun run" "brig cold"; do
	o=$(col "$other" 2)
	[ -n "$o" ] && awk -v b="$pm" -v o="$o" -v n="$other" \
		'BEGIN { printf "brig pool/%-10s %6.2fx\n", n, b / o }'
done
awk -v m="$pm" -v p="$pp" 'BEGIN { printf "brig pool p99/median %6.2fx\n", p / m }'
echo "claims made as the timed ones (20): $(tr '\n' ' ' <"$W/hits.out")"

echo
printf 'steady state: %s callers for %s s (pooled: a pool of 16, refills included)\n' "$CALLERS" "$DURATION"
printf '%-8s %10s %8s %8s %8s\n' runtime "jobs/s" failures hits misses
while read -r kind ok fails hits misses s e; do
	rate=$(awk -v n="$ok" -v s="$s" -v e="$e" 'BEGIN { printf "%.1f", n / (e - s) }')
	if [ "$kind" = pool ]; then
		printf '%-8s %10s %8s %8s %8s\n' "$kind" "$rate" "$fails" "$hits" "$misses"
	else
		printf '%-8s %10s %8s %8s %8s\n' "$kind" "$rate" "$fails" - -
	fi
	echo "$kind $rate" >>"$W/rates"
done <"$W/steady.out"
for f in "$W"/errors.*; do
	[ -e "$f" ] || continue
	echo "the most frequent errors of ${f##*.}:"
	sed 's/[0-9a-f]\{12\}/X/g' "$f" | sort | uniq -c | sort -rn | head -n 3
done
awk '{ r[$1] = $2 } END {
	if (r["cold"] > 0) printf "brig pool/brig cold jobs/s: %.2fx\n", r["pool"] / r["cold"]
	if (r["crun"] > 0) printf "brig pool/crun jobs/s: %.2fx\n", r["pool"] / r["crun"]
	if (r["floor"] > 0) printf "brig pool/floor jobs/s: %.2fx\n", r["pool"] / r["floor"] }' "$W/rates"

echo
# (the init's own pages are in its cgroup's usage too: the sum counts
# them twice, an upper bound)
echo "an idle member (over $(grep -c . "$W/idle.out") members):"
awk '$2 ~ /^[0-9]+$/ { p += $2; np++ } $3 ~ /^[0-9]+$/ { m += $3; nm++ }
	END {
		if (np) printf "  init PSS          %8.0f kB\n", p / np
		if (nm) printf "  memory cgroup     %8.0f kB\n", m / nm / 1024
		if (np && nm) printf "  sum (upper bound) %8.0f kB\n", p / np + m / nm / 1024
	}' "$W/idle.out"
exit 0
