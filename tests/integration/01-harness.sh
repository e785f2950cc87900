#!/bin/bash
# The test harness itself (tests/lib/tap.sh): every test file trusts it to
# fail a test that leaves something behind, so its checks get tests of
# their own.  A file of leaking tests runs under a subreaper of its own,
# and each leak must be named, fail its test, and be cleared; and the
# helpers that read what the shell reads without a process (run_cmd's
# output, a process's state) must read what cat and sed read.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

SUBREAPER=$BRIG_BUILDDIR/tests/helpers/subreaper
[ -x "$SUBREAPER" ] || skip_all "no $SUBREAPER: make check builds it"

# The inner file: its tests leak one thing each, or clean up.
INNER='
. "$BRIG_SRCDIR/tests/lib/tap.sh"
t_process() { setsid sleep 1000 </dev/null >/dev/null 2>&1 & wait_until 5 comm_is $! sleep; }
t_host_mount() { mkdir "$_tap_state/m" && mount -t tmpfs harness "$_tap_state/m"; }
t_host_umount() { umount "$_tap_state/m"; }
t_mount_under() { mkdir "$T/m" && mount -t tmpfs harness "$T/m"; }
t_cgroup() { local IFS=:; set -- $BRIG_TEST_CGROUPS; mkdir "$1/left-$$"; }
t_clean() { mkdir "$T/m" && mount -t tmpfs harness "$T/m" && umount "$T/m"; }
tap_test "leaks a process" t_process
tap_test "leaks a host mount" t_host_mount
tap_test "removes that mount" t_host_umount
tap_test "leaks a mount under its directory" t_mount_under
tap_test "leaks a cgroup" t_cgroup
tap_test "leaves nothing" t_clean
tap_done
'

# --------------------------------------------------------------- tests

t_leaks() {
	require_root
	printf '%s\n' "$INNER" >"$T/inner.sh"
	run_cmd "$SUBREAPER" bash "$T/inner.sh"
	assert_rc 0
	# (a diagnostic comes before its test's line, on one line; the leak
	# is a sleep by then: read during an execve, its cmdline was empty)
	assert_match "$out" '^# leaked processes \(killed now\): [0-9]+ [^'$'\n'']+'$'\n''not ok 1 - leaks a process'$'\n' "a process"
	assert_match "$out" $'\n''# new host mounts: [^'$'\n'']* [^ ]*/brig-tap\.[^ /]*/m [^'$'\n'']* tmpfs harness [^'$'\n'']*'$'\n''not ok 2 - leaks a host mount'$'\n' "a host mount"
	assert_match "$out" $'\n''ok 3 - removes that mount'$'\n' "a mount removed"
	assert_match "$out" $'\n''# leaked mounts under [^'$'\n'']*/brig-test\.[^/]*: /[^'$'\n'']*/brig-test\.[^/]*/m'$'\n''not ok 4 - leaks a mount under its directory'$'\n' "a mount under \$T"
	assert_match "$out" $'\n''# leaked cgroup directories \(removed now\): /sys/fs/cgroup/[^'$'\n'']*/left-[0-9]+'$'\n''not ok 5 - leaks a cgroup'$'\n' "a cgroup"
	assert_match "$out" $'\n''ok 6 - leaves nothing'$'\n' "a clean test"
	assert_match "$out" $'\n''1\.\.6$' "the plan"
	# each was cleared: the sleep killed, the cgroup gone (its test said
	# so; the subreaper's own cgroups went with it, or its run would fail)
	local pid
	pid=$(sed -n 's/^# leaked processes (killed now): \([0-9]*\) .*/\1/p' <<<"$out")
	[ -n "$pid" ] && wait_until 5 dead "$pid" || fail "the leaked sleep ($pid) lives on"
}

t_run_cmd_output() {
	run_cmd printf 'a\n\nb\n\n\n'
	assert_eq "$out" $'a\n\nb' "stdout without its trailing newlines"
	run_cmd bash -c 'printf "x y\t\n" >&2; exit 3'
	assert_rc 3
	assert_eq "$err" $'x y\t' "stderr"
	run_cmd true
	assert_eq "$out$err" "" "no output"
}

t_proc_state() {
	local pid
	cp /bin/sleep "$T/a) Z b" || return
	"$T/a) Z b" 1000 &
	pid=$!
	defer kill_wait "$pid"
	wait_until 5 comm_is "$pid" "a) Z b" || fail "the process never named itself"
	# (named at its exec, it runs on to its nanosleep: S once there)
	wait_until 5 eval '[ "$(proc_state "$pid")" = S ]' ||
		fail "the state of a process whose name holds \") Z \": $(proc_state "$pid"), never S"
	alive "$pid" || fail "alive says a sleeping process is not"
	kill -STOP "$pid"
	wait_until 5 eval '[ "$(proc_state "$pid")" = T ]' || fail "stopped: $(proc_state "$pid")"
	kill -KILL "$pid"
	wait_until 5 dead "$pid" || fail "dead says a killed process is alive"
	{ wait "$pid"; } 2>/dev/null # (no "Killed" in the log)
	assert_eq "$(proc_state 999999999)" "" "the state of no process"
}

# state_field reads brig state's top-level pid and status as jq reads
# them, where an annotation has the same names, and an id that is not
# there gives nothing.
t_state_field() {
	brig_make_rootfs "$T/rootfs" >/dev/null || return
	mkdir "$T/b" && (cd "$T/b" && "$BRIG" spec) || return
	brig_bundle_edit "$T/b" '.root.path = $r | .process.terminal = false
		| .process.args = ["sleep", "100"]
		| .annotations = {"pid": "7", "status": "x", "z": "\"pid\": 8"}' --arg r "$T/rootfs" || return
	"$BRIG" --root "$T/root" create --bundle "$T/b" sf || return
	defer "$BRIG" --root "$T/root" delete --force sf
	assert_eq "$(state_field sf pid)" "$("$BRIG" --root "$T/root" state sf | jq -r .pid)" "pid"
	assert_eq "$(state_field sf status)" created "status"
	assert_eq "$(state_field sf annotations)" "$("$BRIG" --root "$T/root" state sf | jq -r .annotations)" \
		"a field that is no string or number (jq reads it)"
	assert_eq "$(state_field none status)" "" "the status of no container"
}

# run_cmd's deadline against coreutils' timeout, both "-k 1 3", side by
# side on each case: the status (the command's own, 124 at the deadline,
# 137 when SIGTERM is ignored, a signal's, 126 and 127), the output, and
# the deadline reaching a background child in the command's group.  (3 s:
# a shell that had not set its trap 1 s after its start, on a loaded
# machine, made the two differ once.)
t_deadline() {
	local dl=$BRIG_BUILDDIR/tests/helpers/deadline c i want got
	[ -x "$dl" ] || skip "no $dl: make check builds it"
	local cases=("true" "echo out; exit 3" "sleep 10" "trap '' TERM; sleep 10"
		'kill -USR1 $$' "exec /nonexistent/x" "exec $T/noexec"
		"trap 'echo term; exit 0' TERM; sleep 10 & wait"
		"sleep 10 & echo \$! >$T/bg.\$0; wait")
	: >"$T/noexec"
	for i in "${!cases[@]}"; do
		c=${cases[i]}
		# (in braces: the shell's "Killed" lines go too)
		(
			{ timeout -k 1 3 sh -c "$c" t >"$T/t.out"; } 2>/dev/null
			echo "rc=$? $(<"$T/t.out")" >"$T/t.res"
		) &
		{ "$dl" -k 1 3 sh -c "$c" d >"$T/d.out"; } 2>/dev/null
		got="rc=$? $(<"$T/d.out")"
		wait
		want=$(<"$T/t.res")
		assert_eq "$got" "$want" "deadline against timeout on: $c"
	done
	# the background sleep of the last case, in the command's group:
	# ended by the deadline's SIGTERM under both
	for i in t d; do
		wait_until 2 dead "$(<"$T/bg.$i")" || fail "the background sleep under $i lives on"
	done
}

# The sanitizer build's own leak check: a brig that leaks a block (the
# fault "leak") fails at exit, naming LeakSanitizer, and one that does not
# leak passes.  The build's link flags (configure.ac: a static libasan, no
# PIE) must leave the check working, or every test of that build would
# pass over leaks unseen.
t_sanitizer_leak() {
	grep -q -- '-fsanitize=address' "$BRIG_BUILDDIR/Makefile" 2>/dev/null ||
		skip "brig was built without --enable-sanitizers (CI's asan build has it)"
	need_faults
	brig_make_rootfs "$T/rootfs" >/dev/null || return
	run_cmd env -u ASAN_OPTIONS -u LSAN_OPTIONS "$BRIG" --root "$T/root" job --rootfs "$T/rootfs" -- true
	assert_eq "$rc:$err" "0:" "a job of a brig that leaks nothing"
	run_cmd env -u ASAN_OPTIONS -u LSAN_OPTIONS BRIG_FAULT=job.ids-lock:leak=4096 \
		"$BRIG" --root "$T/root" job --rootfs "$T/rootfs" -- true
	assert [ "$rc" -ne 0 ]
	assert_contains "$err" "ERROR: LeakSanitizer: detected memory leaks" "stderr of a leaking brig"
	assert_contains "$err" "Direct leak of 4096 byte(s) in 1 object(s)" "stderr of a leaking brig"
}

tap_test "a test that leaks a process, a mount, a cgroup fails, naming it, and it is cleared" t_leaks
tap_test "run_cmd's out and err: the output less its trailing newlines" t_run_cmd_output
tap_test "proc_state, alive, dead: the state after the name's last parenthesis" t_proc_state
tap_test "state_field: brig state's top-level pid and status, as jq reads them" t_state_field
tap_test "run_cmd's deadline: the status, output and signals of coreutils' timeout" t_deadline
tap_test "the sanitizer build: a brig that leaks a block fails at exit, naming it" t_sanitizer_leak
tap_done
