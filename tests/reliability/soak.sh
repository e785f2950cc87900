#!/bin/bash
# Soak: SOAK_RUNS `brig run` of `true` and SOAK_CYCLES create, start,
# exec, kill, delete cycles, from SOAK_CALLERS callers at once; at the end
# nothing is left (process, mount, cgroup directory, state directory,
# temporary file) and brig did not grow: the peak RSS of a `brig run`
# and the fds a container's init holds are the same at the end as at the
# start.  CI runs 500 runs and 100 cycles; the full soak of issue 17 is
#
#   SOAK_RUNS=10000 SOAK_CYCLES=2000 tests/reliability/soak.sh
#
# which prints its figures (runs/s, the peak RSS first and last) as TAP
# comments.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"
command -v python3 >/dev/null 2>&1 || skip_all "needs python3 (the peak RSS of a child)"
[ -n "${BRIG_TEST_CGROUPS:-}" ] ||
	skip_all "needs the cgroups of tests/helpers/subreaper (BRIG_TEST_CGROUPS)"

RUNS=${SOAK_RUNS:-500}
CYCLES=${SOAK_CYCLES:-100}
CALLERS=${SOAK_CALLERS:-8}
export TAP_TIMEOUT=${TAP_TIMEOUT:-3600}

brig_file_bundle

# peak_rss CMD...: the peak RSS (kB) of CMD, which must succeed.
peak_rss() {
	python3 -c '
import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_RDWR)
    for i in (0, 1, 2):
        os.dup2(fd, i)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
print(ru.ru_maxrss if status == 0 else "failed")
' "$@"
}

# median: of the numbers on stdin.
median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# init_fds: the fds the init of a fresh `run -d` container holds (then
# the container is deleted).
init_fds() {
	local pid
	"$BRIG" --root "$T/root" run -d -b "$T/b" fds >/dev/null 2>&1 || {
		echo failed
		return
	}
	pid=$("$BRIG" --root "$T/root" state fds | jq -r .pid)
	ls "/proc/$pid/fd" | wc -l
	"$BRIG" --root "$T/root" delete --force fds >/dev/null 2>&1
}

# caller I: its share of the runs and cycles; a failure goes to
# $T/fail.I (one line each).
caller() {
	local i=$1 k id
	for ((k = i; k <= RUNS; k += CALLERS)); do
		"$BRIG" --root "$T/root" run -b "$T/t" "r$i-$k" >/dev/null 2>>"$T/fail.$i" ||
			echo "run r$i-$k: status $?" >>"$T/fail.$i"
	done
	for ((k = i; k <= CYCLES; k += CALLERS)); do
		id=c$i-$k
		{
			"$BRIG" --root "$T/root" create -b "$T/b" "$id" &&
				"$BRIG" --root "$T/root" start "$id" &&
				"$BRIG" --root "$T/root" exec "$id" true &&
				"$BRIG" --root "$T/root" kill "$id" KILL &&
				"$BRIG" --root "$T/root" delete --force "$id"
		} </dev/null >/dev/null 2>>"$T/fail.$i" || echo "cycle $id: status $?" >>"$T/fail.$i"
	done
}

t_soak() {
	local i t0 t1 rss0 rss1 fds0 fds1 x
	cp -a "$BUNDLE_TPL" "$T/b"
	brig_bundle_edit "$T/b" '.process.args = ["sleep", "1000"]' || return
	cp -a "$BUNDLE_TPL" "$T/t"
	brig_bundle_edit "$T/t" '.process.args = ["true"]' || return
	mkdir -p "$T/tmp"
	export TMPDIR=$T/tmp

	fds0=$(init_fds)
	rss0=$(for i in 1 2 3 4 5; do peak_rss "$BRIG" --root "$T/root" run -b "$T/t" rss; done | median)
	t0=$(date +%s%N)
	for i in $(seq "$CALLERS"); do
		caller "$i" &
	done
	wait
	t1=$(date +%s%N)
	rss1=$(for i in 1 2 3 4 5; do peak_rss "$BRIG" --root "$T/root" run -b "$T/t" rss; done | median)
	fds1=$(init_fds)

	diag "$RUNS runs and $CYCLES cycles from $CALLERS callers in $(((t1 - t0) / 1000000)) ms" \
		"($((RUNS * 1000000000 / (t1 - t0 + 1))) runs/s over the whole)"
	diag "peak RSS of brig run: $rss0 kB first, $rss1 kB last; init fds: $fds0 first, $fds1 last"
	x=$(cat "$T"/fail.* 2>/dev/null)
	assert_eq "$(head -n 20 <<<"$x")" "" "failures"
	assert_match "$rss0" '^[0-9]+$' "peak RSS at the start"
	assert_match "$rss1" '^[0-9]+$' "peak RSS at the end"
	# flat: the same within 10% (the median of five, page rounding)
	if [[ "$rss0" =~ ^[0-9]+$ && "$rss1" =~ ^[0-9]+$ ]] && [ $((rss1 * 10)) -gt $((rss0 * 11)) ]; then
		fail "brig run grew: peak RSS $rss0 kB, then $rss1 kB"
	fi
	assert_eq "$fds1" "$fds0" "fds of a container's init, end against start"
	# nothing left
	assert_eq "$("$BRIG" --root "$T/root" list -q)" "" "brig list -q"
	x=$(find "$T/root" -mindepth 1 -name '.*' -prune -o -print)
	assert_eq "$x" "" "left under --root"
	x=$(find "$T/root" -name '*.tmp.*')
	assert_eq "$x" "" "temporary files under --root"
	assert_empty_dir "$T/tmp"
	x=$(_tap_cgroups_left)
	assert_eq "$x" "" "cgroup directories"
	x=$(_tap_leaked_procs)
	assert_eq "$x" "" "processes"
}

tap_test "soak: $RUNS runs, $CYCLES create/start/exec/kill/delete cycles, $CALLERS callers" t_soak
tap_done
