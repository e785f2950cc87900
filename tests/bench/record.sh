#!/bin/bash
# tests/bench/record.sh: what recording what a job tried and changed
# costs it (issue 34).
#
#   sudo tests/bench/record.sh            RUNS=50 FILES=1000 tests/bench/record.sh
#
# In one hyperfine run, a job of `true` and a job that writes FILES small
# files (and makes FILES/10 directories), each plain, with --changes FILE
# (every file hashed) and with --export-tar FILE; and a job that makes
# FILES refused mount calls (busybox mount, each a process of its own)
# under the default profile, where brig answers and counts each one,
# against --seccomp unconfined, where the kernel refuses them (the job
# has no capability).  Then the ratios to the plain job, and each one's
# cost in ms (the difference of the medians).  A `true` job's counting
# costs what ab.sh shows against the revision before it.  It prints,
# never asserts (tests/bench/README.md).
#
# Environment: BRIG (default: the build's brig), RUNS (50), WARMUP (3),
# FILES (1000).
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-50}
WARMUP=${WARMUP:-3}
FILES=${FILES:-1000}
bench_start record hyperfine jq
trap bench_finish EXIT

brig_make_rootfs "$W/rootfs" >/dev/null || die "cannot make the rootfs"
job="$BRIG --root $W/root job --rootfs $W/rootfs"
# shellcheck disable=SC2016
script='i=0; while [ $i -lt '"$FILES"' ]; do [ $((i % 10)) = 0 ] && mkdir /tmp/d$i && d=/tmp/d$i; echo $i >$d/f$i; i=$((i+1)); done'
write="sh -c '$script'"
# shellcheck disable=SC2016
deny="sh -c 'i=0; while [ \$i -lt $FILES ]; do mount -t tmpfs x /mnt 2>/dev/null; i=\$((i+1)); done'"

hf=(hyperfine -N --style basic --warmup "$WARMUP" --runs "$RUNS" --export-json "$W/bench.json")
hf+=(-n "true" "$job -- true")
hf+=(-n "true --changes" "$job --changes $W/c.jsonl -- true")
hf+=(-n "true --export-tar" "$job --export-tar $W/l.tar -- true")
hf+=(-n "write" "$job -- $write")
hf+=(-n "write --changes" "$job --changes $W/c.jsonl -- $write")
hf+=(-n "write --export-tar" "$job --export-tar $W/l.tar -- $write")
hf+=(-n "deny" "$job --seccomp unconfined -- $deny")
hf+=(-n "deny counted" "$job -- $deny")

note "$(uname -r), $(nproc) CPUs, load $(cut -d" " -f1-3 /proc/loadavg)"
note "brig: $("$BRIG" --version | head -1)"
"${hf[@]}" >"$W/hyperfine.out" 2>&1 || {
	cat "$W/hyperfine.out"
	die "hyperfine failed"
}
$job --changes "$W/c.jsonl" --export-tar "$W/l.tar" -- sh -c "$script" >/dev/null 2>&1 ||
	die "the writing job failed"
note "$FILES files: the change set has $(wc -l <"$W/c.jsonl") entries, the layer is $(stat -c %s "$W/l.tar") bytes"

med() { jq -r --arg n "$1" '.results[] | select(.command == $n) | .median * 1000' "$W/bench.json"; }
echo
printf '%-20s %10s %8s %10s\n' job "median ms" ratio "cost ms"
for base in true write deny; do
	b=$(med "$base")
	for n in "$base" "$base --changes" "$base --export-tar" "$base counted"; do
		[ -n "$(med "$n")" ] || continue
		m=$(med "$n")
		awk -v m="$m" -v b="$b" -v n="$n" \
			'BEGIN { printf "%-20s %10.2f %7.2fx %+10.2f\n", n, m, m / b, m - b }'
	done
done
