#!/bin/bash
# tests/bench/run.sh: how fast is `brig run` next to crun, runc and the bare
# floor (the same namespaces created by unshare(1), no runtime)?
#
#   sudo tests/bench/run.sh            RUNS=200 tests/bench/run.sh
#
# One hyperfine invocation times all four on the same busybox bundle (args
# ["true"], no terminal), plus brig with the Podman-like seccomp profile of
# contrib/seccomp/default.json ("brig+seccomp": after the first run the
# compiled filter comes from brig's cache, as it does for an engine), inside a private mount namespace without the
# cgroup v2 mount of this hybrid host (crun refuses hybrid cgroups; the host
# is left untouched).  It prints medians, p99, the ratios brig/crun,
# brig/runc and brig/floor, and the peak RSS of one run of each runtime.
# It is not a test: it prints, never asserts.  See tests/bench/README.md.
#
# Environment: BRIG (default: the build's brig), RUNS (100), WARMUP (5),
# RSS_RUNS (5), KEEP=1 keeps the work directory and the JSON export,
# IDLE=SECONDS sleeps that long before each run (a start after an idle
# spell, as a lone job sees it: the kernel's RCU-synchronised paths, such
# as the first write of a pid into a v1 cgroup.procs, then pay a full
# grace period; back to back they mostly do not).
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-100}
WARMUP=${WARMUP:-5}
RSS_RUNS=${RSS_RUNS:-5}
bench_start run hyperfine jq
# the runtimes compared, each skipped (with a note) when not installed
bench_want runc crun /usr/bin/time=time || true

cleanup() {
	local r
	for r in brig crun runc; do
		[ -d "$W/root-$r" ] || continue
		command -v "$r" >/dev/null 2>&1 || [ "$r" = brig ] || continue
		# anything a failed run left behind
		bench_delete_all "${RT[$r]:-$r}" "$W/root-$r"
	done
	bench_finish
}
declare -A RT=([brig]=$BRIG [crun]=crun [runc]=runc)
trap cleanup EXIT

# The bundle: busybox, `true`, what `brig spec` writes otherwise (runc's
# default config; lib.sh).
bench_bundle "$W/bundle"
# The same container under the default seccomp profile (same rootfs).
bench_bundle_beside "$W/bundle" "$W/bundle-seccomp" '.linux.seccomp = $profile'

# The commands, one per runtime found.  No shell and no wrapper around
# them (-N): a wrapper's own startup would be timed too, and the floor runs
# without one.  Each runtime has its own --root; a fixed id per runtime is
# safe because `run` deletes the container when it ends, and a --prepare
# step deletes whatever a failed run could have left.
names=() cmds=() preps=()
for r in brig crun runc; do
	if [ "$r" != brig ] && ! command -v "$r" >/dev/null 2>&1; then
		note "$r is not installed: skipped"
		continue
	fi
	mkdir -p "$W/root-$r"
	names+=("$r")
	cmds+=("${RT[$r]} --root $W/root-$r run --bundle $W/bundle bench-$r")
	preps+=("sh -c '${RT[$r]} --root $W/root-$r delete --force bench-$r >/dev/null 2>&1; true'")
	if [ "$r" = brig ]; then
		names+=(brig+seccomp)
		cmds+=("$BRIG --root $W/root-brig run --bundle $W/bundle-seccomp bench-brig-seccomp")
		preps+=("sh -c '$BRIG --root $W/root-brig delete --force bench-brig-seccomp >/dev/null 2>&1; true'")
	fi
done
names+=(floor)
cmds+=("unshare -m -u -i -n -p -C --fork true")
preps+=("true")

hf=(hyperfine -N --style basic --warmup "$WARMUP" --runs "$RUNS" --export-json "$W/bench.json")
for i in "${!cmds[@]}"; do
	if [ -n "${IDLE:-}" ]; then
		hf+=(--prepare "sh -c \"${preps[i]//\"/\\\"}; sleep $IDLE\"")
	else
		hf+=(--prepare "${preps[i]}")
	fi
done
for i in "${!cmds[@]}"; do
	hf+=(-n "${names[i]}" "${cmds[i]}")
done

# Peak RSS (kB) of one `run`, the median of RSS_RUNS runs: the runtime and
# every helper process it waited for (runc's `runc init`, the container).
rss_script='
for r in '"${names[*]}"'; do
	[ "$r" = floor ] && continue
	case $r in brig*) bin=$BRIG root=$W/root-brig ;; *) bin=$r root=$W/root-$r ;; esac
	bundle=$W/bundle
	[ "$r" = brig+seccomp ] && bundle=$W/bundle-seccomp
	for i in $(seq "$RSS_RUNS"); do
		/usr/bin/time -f %M -o "$W/rss.$r.$i" \
			"$bin" --root "$root" run --bundle "$bundle" "rss-${r/+/-}-$i" >/dev/null 2>&1
	done
done'

note "$(uname -r), $(nproc) CPUs, load $(cut -d" " -f1-3 /proc/loadavg)"
note "brig: $("$BRIG" --version | head -1)"
for r in crun runc; do
	command -v "$r" >/dev/null 2>&1 && note "$r: $("$r" --version | head -1)"
done
note "$(hyperfine --version), $RUNS runs each after $WARMUP warmup runs${IDLE:+, each after $IDLE s idle}"

# One private mount namespace for everything: crun cannot run with the v2
# mount of a hybrid layout; unmounting it here leaves the host as it is.
export W BRIG RSS_RUNS
# shellcheck disable=SC2016
RSS=$rss_script unshare -m --propagation private -- bash -c '
	if mountpoint -q /sys/fs/cgroup/unified; then umount /sys/fs/cgroup/unified || exit 1; fi
	"$@" || exit 1
	[ -x /usr/bin/time ] && eval "$RSS"
	exit 0' bench "${hf[@]}" ||
	die "hyperfine failed (a runtime could not run the bundle?)"
[ -s "$W/bench.json" ] || die "no results"

# ------------------------------------------------------------------ report
# Medians and p99 (nearest rank) in ms, from the raw times.
stats=$(jq -r '.results[] | (.times | sort) as $t | ($t | length) as $n
	| [.command, .median * 1000, $t[(($n * 0.99) | ceil) - 1] * 1000,
	   .mean * 1000, .stddev * 1000, $t[0] * 1000] | @tsv' "$W/bench.json")
med() { awk -v n="$1" -F'\t' '$1 == n { print $2 }' <<<"$stats"; }

rss_of() {
	local f
	for f in "$W"/rss."$1".*; do
		[ -s "$f" ] && tail -1 "$f"
	done | sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }'
}

echo
printf '%-12s %10s %10s %10s %10s %10s %12s\n' runtime "median ms" "p99 ms" "mean ms" "sd ms" "min ms" "peak RSS kB"
while IFS=$'\t' read -r name median p99 mean sd min; do
	rss=-
	[ "$name" != floor ] && rss=$(rss_of "$name")
	printf '%-12s %10.2f %10.2f %10.2f %10.2f %10.2f %12s\n' "$name" "$median" "$p99" "$mean" "$sd" "$min" "${rss:--}"
done <<<"$stats"
echo
b=$(med brig)
for other in crun runc floor; do
	o=$(med "$other")
	[ -n "$o" ] || {
		printf 'brig/%-5s   n/a (%s not run)\n' "$other" "$other"
		continue
	}
	awk -v b="$b" -v o="$o" -v n="$other" 'BEGIN { printf "brig/%-5s %6.2fx  (median %.2f ms vs %.2f ms)\n", n, b / o, b, o }'
done
# the seccomp profile's cost, and brig under it against the others without
s=$(med brig+seccomp)
for other in brig crun runc; do
	o=$(med "$other")
	[ -n "$s" ] && [ -n "$o" ] &&
		awk -v b="$s" -v o="$o" -v n="$other" 'BEGIN { printf "brig+seccomp/%-5s %6.2fx  (median %.2f ms vs %.2f ms)\n", n, b / o, b, o }'
done
for other in crun runc; do
	o=$(rss_of "$other")
	ob=$(rss_of brig)
	[ -n "$o" ] && [ -n "$ob" ] &&
		awk -v b="$ob" -v o="$o" -v n="$other" 'BEGIN { printf "peak RSS brig/%-5s %6.2fx  (%d kB vs %d kB)\n", n, b / o, b, o }'
done
echo "goal: brig/crun <= 0.5x, brig/floor <= 2x"
exit 0
