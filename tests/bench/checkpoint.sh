#!/bin/bash
# tests/bench/checkpoint.sh: how long do checkpoint and restore take with
# brig, next to runc, and how much sooner does a job restored from a
# prepared checkpoint answer than the same job started cold?
#
#   sudo tests/bench/checkpoint.sh        RUNS=5 tests/bench/checkpoint.sh
#
# Needs a kernel Debian's criu 3.17 knows: run it in the vm guest,
#   BRIG_VM_RESULTS=/tmp/r tests/vm/run.sh build-release tests/bench/checkpoint.sh
# (under TCG every figure is 15-30 times what the host would take; the
# ratios are what to read).  Three containers, each checkpointed and
# restored under a new id RUNS times per runtime:
#   shell    a busybox shell loop
#   mem100   a static program holding 100 MiB it has touched
#   python   python3 (the host's, bound read-only) that has imported a few
#            modules and waits for a line on stdin: restored with a new
#            stdin pipe, it answers that line.  Next to it, the same work
#            started cold: from `run` to the answer.  Then the same with
#            brig job: `brig job --from-checkpoint` of brig's image
#            against a cold `brig job` of the bundle.
# It prints medians (ms) and the ratios brig/runc; it never asserts.
# Environment: BRIG (default: the build's brig), RUNS (3), KEEP=1.
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-3}
bench_need criu
criu check >/dev/null 2>&1 || die "criu check fails on this kernel ($(uname -r)): run it in the vm guest"
bench_start cp criu jq gcc python3
RUNC=$(command -v runc) || RUNC=
# whatever ends the run: no container of its left running (a guest
# waits for every process), then its files
cleanup() {
	local rt root id
	for rt in "$BRIG" "$RUNC"; do
		[ -n "$rt" ] || continue
		for root in "$W"/root-*; do
			[ -d "$root" ] || continue
			for id in $("$rt" --root "$root" list -q 2>/dev/null); do
				"$rt" --root "$root" delete --force "$id" >/dev/null 2>&1
			done
		done
	done
	pkill -P $$ 2>/dev/null
	bench_finish
}
trap cleanup EXIT

brig_make_rootfs "$W/rootfs" || die "cannot make the rootfs"
cat >"$W/mem.c" <<'EOF'
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(void)
{
	char *p = malloc(100 << 20);
	memset(p, 1, 100 << 20);
	for (;;)
		pause();
}
EOF
gcc -O2 -static -o "$W/rootfs/bin/mem100" "$W/mem.c" || die "cannot build mem100"

PY='import json, decimal, fractions, email.parser, asyncio, http.client, xml.dom.minidom, sqlite3
import sys
print("ready", flush=True)
line = sys.stdin.readline()
print("answer", sum(int(x) for x in line.split()), flush=True)'

# bundle NAME JQ-FILTER: $W/NAME with its own copy of the rootfs
bundle() {
	local b=$W/$1
	mkdir -p "$b"
	cp -a "$W/rootfs" "$b/rootfs"
	"$BRIG" spec --bundle "$b"
	jq --arg cg "bench-$1" '.process.terminal = false | .linux.cgroupsPath = $cg | '"$2" \
		"$b/config.json" >"$b/c.json" && mv "$b/c.json" "$b/config.json"
}
bundle shell '.process.args = ["sh", "-c", "exec </dev/null >/dev/null 2>&1; while :; do sleep 0.1; done"]'
bundle mem100 '.process.args = ["sh", "-c", "exec </dev/null >/dev/null 2>&1; exec mem100"]'
# python: the host's /usr and /lib bound read-only over the busybox rootfs
bundle python '.process.args = ["python3", "-c", "PY"] | .process.env += ["PYTHONDONTWRITEBYTECODE=1"]
	| .mounts += [{destination: "/usr", type: "bind", source: "/usr", options: ["rbind", "ro"]},
		      {destination: "/lib", type: "bind", source: "/lib", options: ["rbind", "ro"]},
		      {destination: "/lib64", type: "bind", source: "/lib64", options: ["rbind", "ro"]}]
	| .process.env = [.process.env[] | if startswith("PATH=") then "PATH=/usr/bin:/bin" else . end]'
jq --arg py "$PY" '.process.args[2] = $py' "$W/python/config.json" >"$W/p.json" && mv "$W/p.json" "$W/python/config.json"
for d in usr lib lib64; do rm -rf "${W:?}/python/rootfs/$d"; mkdir -p "$W/python/rootfs/$d"; done

now_ms() { echo $(($(date +%s%N) / 1000000)); }

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

# cycle RT NAME: run, checkpoint, restore under a new id; "CKPT RESTORE" ms
cycle() {
	local rt=$1 name=$2 n=${1##*/} t0 t1 t2
	local root=$W/root-$n img=$W/img-$n-$2 id=$n-$2-$RANDOM
	rm -rf "$img"
	"$rt" --root "$root" run -d --bundle "$W/$name" "$id" </dev/null >"$W/err" 2>&1 ||
		die "$rt run $name: $(cat "$W/err")"
	sleep 2
	t0=$(now_ms)
	"$rt" --root "$root" checkpoint --image-path "$img" "$id" >"$W/err" 2>&1 ||
		die "$rt checkpoint $name: $(cat "$W/err")"
	t1=$(now_ms)
	"$rt" --root "$root" restore -d --image-path "$img" --bundle "$W/$name" "$id-r" \
		</dev/null >"$W/err" 2>&1 || die "$rt restore $name: $(cat "$W/err")"
	t2=$(now_ms)
	"$rt" --root "$root" delete --force "$id-r" >/dev/null 2>&1
	echo "$((t1 - t0)) $((t2 - t1))"
}

# python_cold RT: ms from `run` to the answer
python_cold() {
	local rt=$1 n=${1##*/} t0 t1 out
	t0=$(now_ms)
	out=$(echo "1 2 3" | "$rt" --root "$W/root-$n" run --bundle "$W/python" "py-cold-$RANDOM" 2>&1 | grep answer)
	t1=$(now_ms)
	[ "$out" = "answer 6" ] || die "$rt: cold python said: $out"
	echo $((t1 - t0))
}

# python_warm RT: checkpoint a python that is ready once, then: ms from
# `restore` to the answer, a new line on a new stdin pipe
python_prepare() {
	local rt=$1 n=${1##*/}
	local img=$W/img-$n-python id=py-prep-$n
	rm -rf "$img"
	# stdin and stdout are anonymous pipes (what CRIU hands over); the
	# stdin's writer, a sleep, stays until the checkpoint is taken
	"$rt" --root "$W/root-$n" run -d --bundle "$W/python" "$id" \
		< <(exec sleep 600) > >(exec cat >"$W/prep-$n") 2>&1
	for _ in $(seq 600); do grep -q ready "$W/prep-$n" && break; sleep 0.1; done
	grep -q ready "$W/prep-$n" || die "$rt: python never got ready: $(cat "$W/prep-$n")"
	"$rt" --root "$W/root-$n" checkpoint --image-path "$img" "$id" >"$W/err" 2>&1 ||
		die "$rt checkpoint python: $(cat "$W/err")"
	pkill -P $$ -x sleep
	wait
}
python_warm() {
	local rt=$1 n=${1##*/} t0 t1 out
	t0=$(now_ms)
	out=$(echo "1 2 3" | "$rt" --root "$W/root-$n" restore -d --image-path "$W/img-$n-python" \
		--bundle "$W/python" "py-warm-$RANDOM" 2>"$W/err" | grep answer)
	t1=$(now_ms)
	if [ "$out" != "answer 6" ]; then
		# recorded, not fatal: runc 1.1.5 cannot restore this one
		# (CRIU's NOTIFY fails it); its line shows why
		echo "# $n: the restored python said \"$out\": $(tr '\n' ' ' <"$W/err" | cut -c1-200)" >&2
		return 1
	fi
	echo $((t1 - t0))
}

# python_job cold|warm: ms from `brig job` to the answer, started cold
# (the bundle's rootfs and the host's /usr, /lib bound) or restored from
# brig's image of the prepared python (--from-checkpoint)
python_job() {
	local t0 t1 out args
	if [ "$1" = warm ]; then
		args=(--from-checkpoint "$W/img-brig-python" --bundle "$W/python")
	else
		# --no-userns: the restored one has no user namespace of the
		# job's either, and the guest's 6.1 tmpfs cannot be idmapped
		args=(--bundle "$W/python" --mount /usr:/usr --mount /lib:/lib --mount /lib64:/lib64
			--env PYTHONDONTWRITEBYTECODE=1 --no-userns)
	fi
	t0=$(now_ms)
	out=$(echo "1 2 3" | "$BRIG" --root "$W/root-job" job "${args[@]}" --stdin - 2>"$W/err" | grep answer)
	t1=$(now_ms)
	[ "$out" = "answer 6" ] || die "brig job ($1): python said: $out $(cat "$W/err")"
	echo $((t1 - t0))
}

RTS=("$BRIG")
[ -n "$RUNC" ] && RTS+=("$RUNC")
declare -A RES
for rt in "${RTS[@]}"; do
	n=$(basename "$rt")
	for name in ${BENCH_ONLY-shell mem100}; do
		: >"$W/c" && : >"$W/r"
		for ((i = 0; i < RUNS; i++)); do
			read -r c r < <(cycle "$rt" "$name") || exit 1
			echo "$c" >>"$W/c"
			echo "$r" >>"$W/r"
		done
		RES[$n-$name-ckpt]=$(median <"$W/c")
		RES[$n-$name-restore]=$(median <"$W/r")
	done
	: >"$W/c"
	for ((i = 0; i < RUNS; i++)); do python_cold "$rt" >>"$W/c" || exit 1; done
	RES[$n-py-cold]=$(median <"$W/c")
	python_prepare "$rt"
	: >"$W/c"
	for ((i = 0; i < RUNS; i++)); do python_warm "$rt" >>"$W/c" || break; done
	[ "$i" -eq "$RUNS" ] && RES[$n-py-warm]=$(median <"$W/c")
done
for how in cold warm; do
	: >"$W/c"
	for ((i = 0; i < RUNS; i++)); do python_job "$how" >>"$W/c" || exit 1; done
	RES[job-$how]=$(median <"$W/c")
done

ratio() { # A B: A/B to two places, or "-"
	[ -n "${1:-}" ] && [ -n "${2:-}" ] && [ "$2" -gt 0 ] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }' || echo -
}
printf '# %-26s %10s %10s %10s\n' "median ms over $RUNS runs" brig runc brig/runc
for k in shell-ckpt shell-restore mem100-ckpt mem100-restore py-cold py-warm; do
	printf '# %-26s %10s %10s %10s\n' "$k" "${RES[brig-$k]:--}" "${RES[runc-$k]:--}" \
		"$(ratio "${RES[brig-$k]:-}" "${RES[runc-$k]:-}")"
done
printf '# python, brig: restored container answers in %s ms, cold (run) in %s ms: %s of the cold time\n' \
	"${RES[brig-py-warm]:--}" "${RES[brig-py-cold]}" "$(ratio "${RES[brig-py-warm]:-}" "${RES[brig-py-cold]}")"
printf '# python, brig job: --from-checkpoint answers in %s ms, a cold job in %s ms: %s of the cold time\n' \
	"${RES[job-warm]}" "${RES[job-cold]}" "$(ratio "${RES[job-warm]}" "${RES[job-cold]}")"
echo "1..0 # SKIP a benchmark: figures above, nothing asserted"
