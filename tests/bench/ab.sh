#!/bin/bash
# tests/bench/ab.sh REV...: the same benches for brig at each git revision
# REV and for the work tree's brig, side by side in ONE hyperfine run, and
# the ratios work tree / REV.  What a change cost (or saved) on the paths
# every caller pays, measured so that the machine's load moves both sides
# alike: nothing gets slower unseen.
#
#   sudo tests/bench/ab.sh 18285a8              the work tree against 18285a8
#   sudo tests/bench/ab.sh 18285a8 HEAD~3       against both
#
# Each REV is built once, from a clean `git worktree` of it (./autogen.sh,
# ./configure with no options, make brig), and kept in $AB_CACHE (default
# /var/tmp/brig-ab/<commit>): a later run reuses the binary.  The work
# tree's brig is $BRIG (default: the build's brig, ./brig).
#
# The benches, each for every binary (names "NAME@REV" and "NAME@work"):
#   run       `brig run` of `true` on a busybox bundle (brig spec's config,
#             no terminal), as tests/bench/run.sh times it
#   seccomp   the same under contrib/seccomp/default.json (the compiled
#             filter from brig's cache after the first run)
#   job       `brig job --rootfs R -- true` (a cold job: overlay, user
#             namespace, its cgroup)
#   exec      `brig exec` of `true` in a running container (one per binary)
# BENCHES="run job" picks some.  Everything runs in one private mount
# namespace without the cgroup v2 mount of a hybrid host, as run.sh does.
#
# The runs of each command are split into ROUNDS hyperfine runs, one after
# the other, their times merged: a spell of load on a shared machine then
# falls on every command alike, not on the one timed while it lasted.
#
# It prints, never asserts.  Environment: BRIG, RUNS (120: per command, in
# all), ROUNDS (6), WARMUP (3, each round), BENCHES, AB_CACHE, KEEP=1
# (keeps the work directory and the JSON).
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-120}
WARMUP=${WARMUP:-3}
ROUNDS=${ROUNDS:-6}
BENCHES=${BENCHES:-run seccomp job exec}
AB_CACHE=${AB_CACHE:-/var/tmp/brig-ab}

[ $# -ge 1 ] || die "usage: $0 REV... (git revisions to compare the work tree's brig with)"
bench_start ab hyperfine jq git

# build REV: the path of REV's brig, built once into $AB_CACHE/<commit>.
build() {
	local rev=$1 sha dir wt log
	sha=$(git -C "$SRC" rev-parse --verify --quiet "$rev^{commit}") || die "no revision $rev"
	dir=$AB_CACHE/$sha
	if [ -x "$dir/brig" ]; then
		echo "$dir/brig"
		return 0
	fi
	mkdir -p "$AB_CACHE" || die "cannot create $AB_CACHE"
	wt=$(mktemp -d "$AB_CACHE/build.XXXXXX") || die "mktemp"
	log=$wt.log
	note "building $rev (${sha:0:12}) in $wt (log: $log)" >&2
	if git -C "$SRC" worktree add --detach --quiet "$wt" "$sha" >"$log" 2>&1 &&
		(cd "$wt" && ./autogen.sh && ./configure --quiet && make -j"$(nproc)" brig) >>"$log" 2>&1; then
		mkdir -p "$dir" && cp "$wt/brig" "$dir/brig"
	fi
	git -C "$SRC" worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"
	git -C "$SRC" worktree prune >/dev/null 2>&1
	[ -x "$dir/brig" ] || die "could not build $rev: see $log"
	rm -f "$log"
	echo "$dir/brig"
}

cleanup() {
	local i
	for i in "${!bins[@]}"; do
		bench_delete_all "${bins[i]}" "$W/root-$i"
	done
	bench_finish
}
labels=(work) bins=("$BRIG")
trap cleanup EXIT
for rev in "$@"; do
	bin=$(build "$rev") || exit 1
	labels+=("$rev") bins+=("$bin")
done

bench_bundle "$W/bundle"
bench_bundle_beside "$W/bundle" "$W/bundle-seccomp" '.linux.seccomp = $profile'
bench_bundle_beside "$W/bundle" "$W/bundle-sleep" '.process.args = ["sleep", "1000"]'

# The commands: no shell around them (-N); a --prepare step (untimed)
# deletes what a failed run left.
names=() cmds=() preps=() starts=()
add() { # NAME COMMAND PREPARE
	names+=("$1") cmds+=("$2") preps+=("$3")
}
# bench by bench, each binary's turn next to the others' (hyperfine runs
# its commands one after the other: the load of a minute is shared alike)
for i in "${!bins[@]}"; do
	mkdir -p "$W/root-$i"
done
for bench in $BENCHES; do
	for i in "${!bins[@]}"; do
		b=${bins[i]} r=$W/root-$i l=${labels[i]}
		case $bench in
		run) add "run@$l" "$b --root $r run --bundle $W/bundle ab-run-$i" \
			"sh -c '$b --root $r delete --force ab-run-$i >/dev/null 2>&1; true'" ;;
		seccomp) add "seccomp@$l" "$b --root $r run --bundle $W/bundle-seccomp ab-sc-$i" \
			"sh -c '$b --root $r delete --force ab-sc-$i >/dev/null 2>&1; true'" ;;
		job)
			if ! "$b" job --help >/dev/null 2>&1; then
				note "$l has no \`brig job\`: no job@$l"
				continue
			fi
			add "job@$l" "$b --root $r job --rootfs $W/bundle/rootfs -- true" true
			;;
		exec)
			# started in the namespace hyperfine runs in (below)
			starts+=("$b --root $r run --detach --bundle $W/bundle-sleep ab-exec-$i")
			add "exec@$l" "$b --root $r exec ab-exec-$i true" true
			;;
		*) die "unknown bench $bench (BENCHES: run seccomp job exec)" ;;
		esac
	done
done

# ROUNDS hyperfine runs of RUNS/ROUNDS each, one after the other, their
# times merged: a spell of load lands on every command alike.
per=$(((RUNS + ROUNDS - 1) / ROUNDS))
hf=(hyperfine -N --style basic --warmup "$WARMUP" --runs "$per")
for i in "${!cmds[@]}"; do
	hf+=(--prepare "${preps[i]}" -n "${names[i]}" "${cmds[i]}")
done

note "$(uname -r), $(nproc) CPUs, load $(cut -d" " -f1-3 /proc/loadavg)"
for i in "${!bins[@]}"; do
	note "${labels[i]}: $("${bins[i]}" --version | head -1) (${bins[i]})"
done
note "$(hyperfine --version), $((per * ROUNDS)) runs each in $ROUNDS rounds (each after $WARMUP warm-up runs), bench by bench"

printf '%s\n' "${starts[@]}" >"$W/starts"
export W ROUNDS
# shellcheck disable=SC2016
unshare -m --propagation private -- bash -c '
	if mountpoint -q /sys/fs/cgroup/unified; then umount /sys/fs/cgroup/unified || exit 1; fi
	while read -r line; do
		[ -z "$line" ] || $line </dev/null >/dev/null || { echo "cannot start: $line"; exit 1; }
	done <"$W/starts"
	for k in $(seq 1 "$ROUNDS"); do
		"$@" --export-json "$W/ab.$k.json" || exit 1
	done' ab "${hf[@]}" >"$W/hyperfine.out" 2>&1 ||
	die "hyperfine failed: $(tail -5 "$W/hyperfine.out")"
[ -s "$W/ab.$ROUNDS.json" ] || die "no results"

# ------------------------------------------------------------------ report
# every round's times of a command together, then median, p99 (nearest
# rank), mean and standard deviation over them
stats=$(jq -rs '[.[].results[]] | group_by(.command)[]
	| ([.[].times[]] | sort) as $t | ($t | length) as $n
	| ($t | add / $n) as $m
	| [.[0].command, ($t[($n / 2 | floor)] + $t[(($n - 1) / 2 | floor)]) / 2 * 1000,
	   $t[(($n * 0.99) | ceil) - 1] * 1000, $m * 1000,
	   (($t | map((. - $m) * (. - $m)) | add) / $n | sqrt) * 1000] | @tsv' "$W"/ab.*.json)
med() { awk -v n="$1" -F'\t' '$1 == n { print $2 }' <<<"$stats"; }

echo
printf '%-24s %10s %10s %10s %10s\n' bench "median ms" "p99 ms" "mean ms" "sd ms"
while IFS=$'\t' read -r name median p99 mean sd; do
	printf '%-24s %10.2f %10.2f %10.2f %10.2f\n' "$name" "$median" "$p99" "$mean" "$sd"
done <<<"$stats"
echo
for bench in $BENCHES; do
	w=$(med "$bench@work")
	for l in "${labels[@]:1}"; do
		o=$(med "$bench@$l")
		[ -n "$w" ] && [ -n "$o" ] &&
			awk -v w="$w" -v o="$o" -v n="$bench" -v l="$l" \
				'BEGIN { printf "%-8s work/%-12s %6.2fx  (median %.2f ms vs %.2f ms)\n", n, l, w / o, w, o }'
	done
done
exit 0
