#!/bin/bash
# brig called concurrently on the same ids, 20 processes at once: create
# of one id (exactly one wins, the others say it exists), kill, delete,
# exec and state on a container while it exits, delete while start runs,
# pause and resume storms.  No call crashes or hangs (each is bounded), a
# failure is one `brig: ` line, and once the dust settles `delete
# --force` leaves nothing: no process, cgroup directory, mount or state.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"
[ -n "${BRIG_TEST_CGROUPS:-}" ] ||
	skip_all "needs the cgroups of tests/helpers/subreaper (BRIG_TEST_CGROUPS)"

brig_file_bundle

N=20

# ----------------------------------------------------------------- helpers

b() {
	run_cmd "$BRIG" --root "$T/root" "$@"
}

# bundle [JQ-FILTER]: the file's bundle in $T/b, its process `sleep 1000`
# (and the filter applied).
bundle() {
	[ -d "$T/b" ] || cp -a "$BUNDLE_TPL" "$T/b"
	brig_bundle_edit "$T/b" '.process.args = ["sleep", "1000"]'"${1:+ | $1}"
}

# storm NAME CMD...: run CMD (a brig command line after --root) from $N
# processes at once, each bounded to 30 s; their status, stdout and
# stderr in $T/NAME.I.{rc,out,err}.
storm() {
	local name=$1 i
	shift
	for i in $(seq "$N"); do
		(
			timeout -k 5 30 "$BRIG" --root "$T/root" "$@" </dev/null \
				>"$T/$name.$i.out" 2>"$T/$name.$i.err"
			echo $? >"$T/$name.$i.rc"
		) &
	done
	wait
}

# storm_mixed NAME ID: $N processes, each one of kill, delete --force,
# exec, state, pause or resume on ID in turn.
storm_mixed() {
	local name=$1 id=$2 i cmd
	_storm_start=$SECONDS
	for i in $(seq "$N"); do
		case $((i % 6)) in
		0) cmd=(kill "$id" KILL) ;;
		1) cmd=(delete --force "$id") ;;
		2) cmd=(exec "$id" true) ;;
		3) cmd=(state "$id") ;;
		4) cmd=(pause "$id") ;;
		5) cmd=(resume "$id") ;;
		esac
		echo "${cmd[0]}" >"$T/$name.$i.what"
		(
			timeout -k 5 30 "$BRIG" --root "$T/root" "${cmd[@]}" </dev/null \
				>"$T/$name.$i.out" 2>"$T/$name.$i.err"
			echo $? >"$T/$name.$i.rc"
			echo "$SECONDS" >"$T/$name.$i.end"
		) &
	done
	wait
}

# calm NAME: every call of storm NAME ended (no timeout: 124 or 137),
# and each one that failed said why in one `brig: ` line.  An exec
# answers with its process's status: 137, silent and well before the
# timeout, is a process that a racing kill or delete --force ended.
calm() {
	local i rc err
	for i in $(seq "$N"); do
		rc=$(cat "$T/$1.$i.rc" 2>/dev/null)
		err=$(cat "$T/$1.$i.err" 2>/dev/null)
		if [ "$rc" = 137 ] && [ -z "$err" ] &&
			[ "$(cat "$T/$1.$i.what" 2>/dev/null)" = exec ] &&
			[ "$(($(cat "$T/$1.$i.end") - ${_storm_start:-0}))" -lt 30 ]; then
			continue
		fi
		case $rc in
		0) ;;
		124 | 137 | "") fail "$1 $i: hung or killed (status $(_show "$rc"))" ;;
		*)
			[ "$(nlines "$err")" -eq 1 ] && [[ "$err" == "brig: "* ]] ||
				fail "$1 $i: status $rc, stderr not one brig: line: $(_show "$err")"
			;;
		esac
	done
}

# clean ID: delete --force ID, then nothing is left of any container.
clean() {
	local x
	b delete --force "$1"
	assert_eq "$rc" 0 "delete --force $1 (stderr: $(_show "$err"))"
	wait_until 5 eval '[ -z "$(_tap_leaked_procs)" ]'
	x=$(_tap_leaked_procs)
	[ -z "$x" ] || fail "processes left: $x"
	x=$(_tap_cgroups_left)
	[ -z "$x" ] || fail "cgroup directories left: $x"
	x=$(find "$T/root" -mindepth 1 -name '.*' -prune -o -print 2>/dev/null)
	[ -z "$x" ] || fail "left under --root: $x"
}

# ------------------------------------------------------------------ tests

t_create_same_id() {
	local i wins=0 exists=0 err
	bundle || return
	storm c create -b "$T/b" c
	for i in $(seq "$N"); do
		err=$(cat "$T/c.$i.err")
		if [ "$(cat "$T/c.$i.rc")" = 0 ]; then
			wins=$((wins + 1))
		elif [ "$err" = 'brig: container "c" already exists' ]; then
			exists=$((exists + 1))
		else
			fail "create $i: status $(cat "$T/c.$i.rc"): $(_show "$err")"
		fi
	done
	assert_eq "$wins:$exists" "1:$((N - 1))" "winners:already-exists of $N creates"
	b state c
	assert_eq "$(jq -r .status <<<"$out")" created "status of the winner's container"
	clean c
}

# The same, with run -d: one container runs, once.
t_run_same_id() {
	local i wins=0
	bundle || return
	storm r run -d -b "$T/b" c
	for i in $(seq "$N"); do
		[ "$(cat "$T/r.$i.rc")" = 0 ] && wins=$((wins + 1))
	done
	assert_eq "$wins" 1 "run -d winners"
	calm r
	b exec c true
	assert_rc 0
	clean c
}

# kill, delete, exec, state, pause, resume on a container whose process
# exits meanwhile (sleep 0.2), three rounds.
t_ops_while_exiting() {
	local round
	bundle '.process.args = ["sleep", "0.2"]' || return
	for round in 1 2 3; do
		b run -d -b "$T/b" c
		assert_eq "$rc" 0 "run -d, round $round (stderr: $(_show "$err"))" || return
		storm_mixed m$round c
		calm m$round
		clean c
	done
}

# delete --force while start runs (and the container then runs, or not).
t_delete_during_start() {
	local round
	bundle || return
	for round in 1 2 3 4 5; do
		b create -b "$T/b" c
		assert_eq "$rc" 0 "create, round $round" || return
		"$BRIG" --root "$T/root" start c >"$T/s.out" 2>"$T/s.err" &
		"$BRIG" --root "$T/root" delete --force c >"$T/d.out" 2>"$T/d.err" &
		wait
		assert_eq "$(cat "$T/d.err")" "" "stderr of delete --force during start, round $round"
		clean c
	done
}

# pause and resume from $N processes at once, five rounds; then resumed,
# the container runs and takes an exec.
t_pause_resume_storm() {
	local round i
	bundle || return
	b run -d -b "$T/b" c
	assert_rc 0 || return
	for round in 1 2 3 4 5; do
		for i in $(seq "$N"); do
			if [ $((i % 2)) = 0 ]; then
				timeout -k 5 30 "$BRIG" --root "$T/root" pause c >/dev/null 2>"$T/p.$i.err" &
			else
				timeout -k 5 30 "$BRIG" --root "$T/root" resume c >/dev/null 2>"$T/p.$i.err" &
			fi
		done
		wait
		for i in $(seq "$N"); do
			case $(cat "$T/p.$i.err") in
			# runc's words for a pause of a paused container and a
			# resume of a running one
			"" | "brig: container not paused" | "brig: container not running") ;;
			*) fail "round $round, call $i: $(cat "$T/p.$i.err")" ;;
			esac
		done
	done
	b state c
	[ "$(jq -r .status <<<"$out")" = paused ] && b resume c
	b exec c echo alive
	assert_eq "$rc:$out" "0:alive" "exec after the storms (stderr: $(_show "$err"))"
	clean c
}

tap_test "create of one id from $N processes: one wins, $((N - 1)) say it exists" t_create_same_id
tap_test "run -d of one id from $N processes: one container runs" t_run_same_id
tap_test "kill, delete, exec, state, pause, resume while the container exits" t_ops_while_exiting
tap_test "delete --force while start runs: nothing left" t_delete_during_start
tap_test "pause and resume storms: the container runs on" t_pause_resume_storm
tap_done
