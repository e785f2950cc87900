#!/bin/bash
# brig killed at any step, or failing at one: the next brig cleans up.
#
# A build configured with --enable-fault-injection reads BRIG_FAULT
# (runtime/util/fault.h): "STEP:kill" makes every process of brig's that
# reaches STEP SIGKILL itself, "STEP:errno=N" makes the step fail with
# errno N where it can, "STEP:stop" stops it; BRIG_FAULT_LOG=FILE lists
# the steps reached.  Each walk learns the steps of a command from a clean
# run's log, then, step by step:
#
#   - kill there: `brig delete --force ID` removes everything (no process,
#     mount, cgroup directory, state directory or temporary file left
#     under --root), and the same id can be created again at once; a
#     killed exec leaves the container running and usable;
#   - fail there: brig says so in one line, exits non-zero, and leaves
#     nothing, without a delete.
#
# And, with any build: a state.json cut short by a crash, a full --root;
# and the races that only a slow process shows: a claim's follower that
# has not run yet when `pool destroy` comes (the destroy waits for it).
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"
[ -n "${BRIG_TEST_CGROUPS:-}" ] ||
	skip_all "needs the cgroups of tests/helpers/subreaper (BRIG_TEST_CGROUPS)"

brig_file_bundle

# ----------------------------------------------------------------- helpers

# b ARGS...: brig --root $T/root ARGS (out, err, rc), with TMPDIR=$T/tmp.
b() {
	mkdir -p "$T/tmp"
	run_cmd env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" "$@"
}

# bf FAULT ARGS...: b ARGS with BRIG_FAULT=FAULT.
bf() {
	local fault=$1
	shift
	mkdir -p "$T/tmp"
	run_cmd env TMPDIR="$T/tmp" BRIG_FAULT="$fault" "$BRIG" --root "$T/root" "$@"
}

# steps_of ARGS...: the steps brig ARGS reaches (its run is a clean one,
# which must succeed), each once, in order.
steps_of() {
	rm -f "$T/steps"
	mkdir -p "$T/tmp"
	BRIG_FAULT_LOG=$T/steps TMPDIR=$T/tmp timeout -k 5 60 "$BRIG" --root "$T/root" "$@" \
		</dev/null >/dev/null 2>"$T/steps.err" || {
		echo "brig $*: $(cat "$T/steps.err")" >&2
		return 1
	}
	awk '!seen[$0]++' "$T/steps"
}

# bundle [JQ-FILTER [JQ-ARGS...]]: the file's bundle in $T/b, its process
# `sleep 1000` (and the filter applied).
bundle() {
	local filter=${1:-}
	[ $# -eq 0 ] || shift
	[ -d "$T/b" ] || cp -a "$BUNDLE_TPL" "$T/b"
	brig_bundle_edit "$T/b" '.process.args = ["sleep", "1000"]'"${filter:+ | $filter}" "$@"
}

# left WHAT: fail with what is left of every container: processes, cgroup
# directories, mounts under $T, entries and files under --root (but
# brig's bookkeeping: the dot-directories, e.g. the seccomp cache, and
# the jobs/ and pools/ directories themselves), temporary files (in
# TMPDIR, and a writer's "*.tmp.PID" anywhere under --root).
left() {
	local what=$1 x
	x=$(_tap_leaked_procs)
	[ -z "$x" ] || fail "$what: processes left: $x"
	x=$(_tap_cgroups_left)
	[ -z "$x" ] || fail "$what: cgroup directories left: $x"
	x=$(_tap_mounts_under "$T")
	[ -z "$x" ] || fail "$what: mounts left: $x"
	x=$(find "$T/root" -mindepth 1 -name '.*' -prune -o ! -path "$T/root/jobs" \
		! -path "$T/root/pools" -print 2>/dev/null)
	[ -z "$x" ] || fail "$what: left under --root: $x"
	x=$(find "$T/root" -name '*.tmp.*' 2>/dev/null)
	[ -z "$x" ] || fail "$what: a writer's temporary files left under --root: $x"
	x=$(find "$T/tmp" -mindepth 1 2>/dev/null)
	[ -z "$x" ] || fail "$what: temporary files left: $x"
}

# cleanup_after WHAT ID: `delete --force ID` succeeds, nothing is left,
# and ID can be used again at once.
cleanup_after() {
	local what=$1 id=$2
	b delete --force "$id"
	[ "$rc" -eq 0 ] || fail "$what: delete --force: status $rc: $(_show "$err")"
	# a killed brig's init may take a moment to be reaped by the subreaper
	wait_until 5 eval '[ -z "$(_tap_leaked_procs)" ]'
	left "$what, after delete --force"
	b run -d -b "$T/b" "$id"
	[ "$rc" -eq 0 ] || fail "$what: the id again: status $rc: $(_show "$err")"
	b delete --force "$id"
	[ "$rc" -eq 0 ] || fail "$what: delete of the id again: status $rc: $(_show "$err")"
	left "$what, the id again"
}

# mkpool NAME SIZE: a pool of SIZE on the file's rootfs, destroyed when
# the test ends (bounded: a destroy that hangs must not hang the file).
mkpool() {
	b pool create "$1" --size "$2" --rootfs "$BUNDLE_TPL/rootfs"
	assert_rc 0 || return 1
	defer timeout -k 5 30 "$BRIG" --root "$T/root" pool destroy "$1"
}

# cgroups_named ID: the cgroup directories named ID under the file's own
# cgroups (where every container of this file has its cgroups).
cgroups_named() {
	_tap_cgroups_left | grep -E "/$1\$"
}

# running_c: the file's bundle running as container c, deleted (bounded)
# when the test ends.
running_c() {
	bundle || return 1
	b run -d -b "$T/b" c
	assert_rc 0 || return 1
	defer timeout 10 "$BRIG" --root "$T/root" delete --force c
}

# status_is WANT WHAT: state and list say container c is WANT.
status_is() {
	b state c
	assert_eq "$(jq -r .status <<<"$out")" "$1" "state $2 (stderr: $(_show "$err"))"
	b list --format json
	assert_eq "$(jq -r '.[] | select(.id == "c") | .status' <<<"$out")" "$1" "list $2"
}

# one_line WHAT: $err is one `brig: ` line.
one_line() {
	[ "$(nlines "$err")" -eq 1 ] && [[ "$err" == "brig: "* ]] ||
		fail "$1: stderr is not one brig: line: $(_show "$err")"
}

# --------------------------------------------------------------- the walks

# run -d killed at each of its steps, in brig or in the init.
t_kill_run() {
	local steps s
	need_faults || return
	bundle || return
	steps=$(steps_of run -d -b "$T/b" c) || return
	b delete --force c
	assert_ne "$steps" "" "the steps of run -d"
	diag "run -d: $(wc -l <<<"$steps") steps: $(tr '\n' ' ' <<<"$steps")"
	for s in $steps; do
		bf "$s:kill" run -d -b "$T/b" c
		cleanup_after "run -d killed at $s" c
	done
}

# create killed at each step, then start killed at each of its steps.
t_kill_create_start() {
	local steps s
	need_faults || return
	bundle || return
	steps=$(steps_of create -b "$T/b" c) || return
	b delete --force c
	for s in $steps; do
		bf "$s:kill" create -b "$T/b" c
		cleanup_after "create killed at $s" c
	done
	b create -b "$T/b" c
	assert_rc 0
	steps=$(steps_of start c) || return
	b delete --force c
	assert_ne "$steps" "" "the steps of start"
	diag "start: $(tr '\n' ' ' <<<"$steps")"
	for s in $steps; do
		b create -b "$T/b" c
		assert_eq "$rc" 0 "create before start killed at $s (stderr: $(_show "$err"))"
		bf "$s:kill" start c
		cleanup_after "start killed at $s" c
	done
}

# A foreground run (brig waits for the process, then deletes): killed at
# each step, including the wait and the delete after it.
t_kill_foreground() {
	local steps s
	need_faults || return
	bundle '.process.args = ["true"]' || return
	steps=$(steps_of run -b "$T/b" c) || return
	diag "run: $(tr '\n' ' ' <<<"$steps")"
	for s in $steps; do
		bf "$s:kill" run -b "$T/b" c
		cleanup_after "run killed at $s" c
	done
}

# exec killed at each step: the container goes on, and takes execs.
t_kill_exec() {
	local steps s
	need_faults || return
	running_c || return
	steps=$(steps_of exec c true) || return
	# the exec'd process's own steps, which it cannot log (it has closed
	# its fds and is in the container's root by then)
	steps=$(printf '%s\n' $steps sync.send.PIDFD sync.send.READY | awk '!seen[$0]++')
	diag "exec: $(tr '\n' ' ' <<<"$steps")"
	for s in $steps; do
		bf "$s:kill" exec c true
		b exec c echo alive
		assert_eq "$rc:$out" "0:alive" "exec after an exec killed at $s (stderr: $(_show "$err"))"
		assert_eq "$(b state c >/dev/null; jq -r .status <<<"$out")" running \
			"status after an exec killed at $s"
	done
	cleanup_after "the container of the killed execs" c
}

# delete killed at each step: the next delete --force finishes it.
t_kill_delete() {
	local steps s
	need_faults || return
	bundle || return
	b run -d -b "$T/b" c
	steps=$(steps_of delete --force c) || return
	diag "delete: $(tr '\n' ' ' <<<"$steps")"
	for s in $steps; do
		b run -d -b "$T/b" c
		assert_eq "$rc" 0 "run before delete killed at $s (stderr: $(_show "$err"))"
		bf "$s:kill" delete --force c
		cleanup_after "delete killed at $s" c
	done
}

# pause, then resume, killed at each step: resume brings the container
# back (a pause that froze it and died before it saved the state left
# it paused in all but name), and it takes an exec.
t_kill_pause_resume() {
	local steps s cmd
	need_faults || return
	running_c || return
	for cmd in pause resume; do
		[ "$cmd" = resume ] && b pause c
		steps=$(steps_of "$cmd" c) || return
		[ "$cmd" = pause ] && b resume c
		diag "$cmd: $(tr '\n' ' ' <<<"$steps")"
		for s in $steps; do
			[ "$cmd" = resume ] && b pause c
			bf "$s:kill" "$cmd" c
			b resume c
			case $rc:$err in
			0: | "1:brig: container not paused") ;;
			*) fail "resume after $cmd killed at $s: status $rc: $(_show "$err")" ;;
			esac
			run_cmd timeout 10 "$BRIG" --root "$T/root" exec c echo alive
			assert_eq "$rc:$out" "0:alive" "exec after $cmd killed at $s (stderr: $(_show "$err"))"
		done
	done
	cleanup_after "the container of the killed pauses and resumes" c
}

# A pause killed after it froze the cgroup, before it saved the state:
# state and list say paused, as runc's (which read the freezer), not the
# saved "running"; resume thaws it and both say running again.
t_dead_pause_status() {
	need_faults || return
	running_c || return
	bf pause.frozen:kill pause c
	assert_ne "$rc" 0 "pause killed at pause.frozen"
	status_is paused "after the killed pause"
	b resume c
	assert_rc 0
	status_is running "after resume"
	run_cmd timeout 10 "$BRIG" --root "$T/root" exec c echo alive
	assert_eq "$rc:$out" "0:alive" "exec after resume (stderr: $(_show "$err"))"
	cleanup_after "the container of the killed pause" c
}

# update killed at its step: the container runs on, the next update
# takes.
t_kill_update() {
	need_faults || return
	running_c || return
	bf update.applied:kill update --pids-limit 100 c
	assert_ne "$rc" 0 "update killed at update.applied"
	b update --pids-limit 200 c
	assert_eq "$rc" 0 "update after (stderr: $(_show "$err"))"
	b exec c echo alive
	assert_eq "$rc:$out" "0:alive" "exec after"
	cleanup_after "the container of the killed update" c
}

# brig job killed at each step: `brig job --gc` leaves nothing.
t_kill_job() {
	local steps s
	need_faults || return
	steps=$(steps_of job --rootfs "$BUNDLE_TPL/rootfs" -- true) || return
	diag "job: $(wc -l <<<"$steps") steps: $(tr '\n' ' ' <<<"$steps")"
	for s in $steps; do
		bf "$s:kill" job --rootfs "$BUNDLE_TPL/rootfs" -- true
		# the init of a brig killed before GO exits by itself, holding
		# the job's lock (a copy of brig's fds) until then; gc takes
		# only what nobody holds
		wait_until 5 eval '[ -z "$(_tap_leaked_procs)" ]'
		b job --gc
		[ "$rc" -eq 0 ] || fail "job --gc after a job killed at $s: status $rc: $(_show "$err")"
		wait_until 5 eval '[ -z "$(_tap_leaked_procs)" ]'
		left "job killed at $s, after job --gc"
	done
}

# restore, and a job --from-checkpoint, killed right before CRIU starts,
# with the container's state directory, cgroup and CRIU's directories
# made (criu-root, criu-yard and its hierarchies, mounted only in
# brig's own mount namespace): `delete --force`, and `job --gc`, remove
# everything.  (CRIU itself is never started: this runs where criu
# cannot, the vm layer's 82-checkpoint.sh kills a job during CRIU's work.)
t_kill_restore() {
	need_faults || return
	bundle
	mkdir -p "$T/img"
	bf restore.criu:kill restore -d --image-path "$T/img" --bundle "$T/b" c1
	assert_eq "$rc" 137 "restore killed before CRIU (stderr: $(_show "$err"))"
	assert [ -d "$T/root/c1/criu-yard" ]
	cleanup_after "restore killed before CRIU" c1

	bf restore.criu:kill job --from-checkpoint "$T/img" --bundle "$T/b" --id j1
	assert_eq "$rc" 137 "job --from-checkpoint killed before CRIU (stderr: $(_show "$err"))"
	wait_until 5 eval '[ -z "$(_tap_leaked_procs)" ]'
	b job --gc
	[ "$rc" -eq 0 ] || fail "job --gc: status $rc: $(_show "$err")"
	left "job --from-checkpoint killed before CRIU, after job --gc"
}

# brig job --pool killed at each step of a claim: `pool gc` repairs the
# pool (back to its size, only waiting members), and destroy leaves
# nothing.
t_kill_claim() {
	local steps s
	need_faults || return
	mkpool P 2 || return
	steps=$(steps_of job --pool P -- true) || return
	diag "job --pool: $(tr '\n' ' ' <<<"$steps")"
	for s in $steps; do
		wait_until 10 eval '[ "$("$BRIG" --root "$T/root" pool list --format json | jq ".[0].ready")" = 2 ]' ||
			fail "pool not back to 2 ready before the claim killed at $s"
		bf "$s:kill" job --pool P -- true
		b pool gc
		[ "$rc" -eq 0 ] || fail "pool gc after a claim killed at $s: status $rc: $(_show "$err")"
	done
	wait_until 10 eval '[ "$("$BRIG" --root "$T/root" pool list --format json | jq ".[0].ready")" = 2 ]' ||
		fail "pool not back to 2 ready after the killed claims"
	b job --pool P -- echo served
	assert_eq "$rc:$out" "0:served" "a claim after (stderr: $(_show "$err"))"
	b pool destroy P
	assert_rc 0
	wait_until 5 eval '[ -z "$(_tap_leaked_procs)" ]'
	left "claims killed at each step, then pool destroy"
}

# Each step of create that can fail, failing (EIO): one line, a non-zero
# status, nothing left, no delete needed.
t_fail_create() {
	local steps s n=0
	need_faults || return
	bundle || return
	steps=$(steps_of run -d -b "$T/b" c) || return
	b delete --force c
	for s in $steps; do
		bf "$s:errno=5" run -d -b "$T/b" c
		# a step that cannot fail goes on: the run succeeds
		if [ "$rc" -eq 0 ]; then
			b delete --force c
			continue
		fi
		n=$((n + 1))
		one_line "run -d failing at $s"
		wait_until 5 eval '[ -z "$(_tap_leaked_procs)" ]'
		left "run -d failing at $s"
	done
	diag "$n of $(wc -l <<<"$steps") steps of run -d can fail"
	[ "$n" -ge 5 ] || fail "only $n steps failed"
}

# brig killed while it writes a new seccomp cache entry (between its
# temporary file and the rename: the first write of a fresh --root):
# the entry is a miss, and the next brig that writes one removes the dead
# writer's temporary file.
t_kill_cache_write() {
	local s
	need_faults || return
	bundle '.linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW",
		syscalls: [{names: ["kexec_load"], action: "SCMP_ACT_ERRNO"}]}' || return
	bf write.rename:kill run -d -b "$T/b" c
	assert_ne "$rc" 0 "run -d killed at write.rename"
	s=$(find "$T/root/.seccomp-cache" -name '*.tmp.*' 2>/dev/null)
	assert_ne "$s" "" "the killed writer's temporary file (the test's premise)"
	b delete --force c
	b run -d -b "$T/b" c
	assert_eq "$rc" 0 "run -d after (stderr: $(_show "$err"))"
	b delete --force c
	assert_eq "$(find "$T/root/.seccomp-cache" -type f ! -name '*.tmp.*' | wc -l)" 1 \
		"entries of the seccomp cache"
	left "a seccomp cache write killed"
}

# The state store after a crash: a state.json truncated or empty, a
# state directory without one, a container lock held by nobody: list,
# state and delete --force each give one line or recover, never crash or
# hang.
t_store_crash() {
	local how
	bundle || return
	for how in truncated empty missing; do
		b run -d -b "$T/b" c
		assert_rc 0 || return
		case $how in
		truncated) truncate -s 20 "$T/root/c/state.json" ;;
		empty) : >"$T/root/c/state.json" ;;
		missing) rm "$T/root/c/state.json" ;;
		esac
		b list
		assert_eq "$rc" 0 "list with a $how state.json (stderr: $(_show "$err"))"
		b state c
		assert_ne "$rc" 0 "state with a $how state.json"
		one_line "state with a $how state.json"
		b delete --force c
		assert_eq "$rc" 0 "delete --force with a $how state.json (stderr: $(_show "$err"))"
		# the init, whose pid was in the lost state, is brig's to end:
		# it is in the container's cgroup, which delete --force empties
		wait_until 5 eval '[ -z "$(_tap_leaked_procs)" ]'
		left "delete --force of a $how state.json"
	done
}

# --root on a full tmpfs: create and run fail with one line (no space
# left) and leave nothing; with room again, the same id works.
t_disk_full() {
	local x
	bundle || return
	mkdir -p "$T/full"
	mount -t tmpfs -o size=1m,mode=0700 brig-test-full "$T/full" || skip "cannot mount a tmpfs"
	defer umount -l "$T/full"
	mkdir "$T/full/root"
	# every block taken (a file as large as it goes), then the inodes
	dd if=/dev/zero of="$T/full/fill" bs=4k >/dev/null 2>&1
	for cmd in "run -d" create; do
		# shellcheck disable=SC2086 # (the command and its flag)
		run_cmd "$BRIG" --root "$T/full/root" $cmd -b "$T/b" c
		assert_ne "$rc" 0 "$cmd on a full --root"
		one_line "$cmd on a full --root"
		assert_contains "$err" "No space left on device" "$cmd on a full --root"
		x=$(find "$T/full/root" -mindepth 1 -name '.*' -prune -o -print)
		assert_eq "$x" "" "left under a full --root after $cmd"
		x=$(find "$T/full/root" -name '*.tmp.*')
		assert_eq "$x" "" "temporary files under a full --root after $cmd"
		x=$(_tap_cgroups_left)
		assert_eq "$x" "" "cgroup directories after $cmd on a full --root"
		assert_eq "$(_tap_leaked_procs)" "" "processes after $cmd on a full --root"
	done
	rm "$T/full/fill"
	run_cmd "$BRIG" --root "$T/full/root" run -d -b "$T/b" c
	assert_eq "$rc" 0 "run -d with room again (stderr: $(_show "$err"))"
	run_cmd "$BRIG" --root "$T/full/root" delete --force c
	assert_rc 0
}

# A claimer killed once its member is claimed, before it spawned the
# follower that would remove it: no `pool gc`, the next claim's follower
# removes that member (its init, cgroups and state go), off the next
# job's time.
t_next_claim_repairs() {
	local id pid
	need_faults || return
	mkpool P 2 || return
	bf pool.claimed:kill job --pool P -- true
	id=$(ls "$T/root/pools/P/claimed")
	[ "$(nlines "$id")" -eq 1 ] || fail "claimed after the killed claim: '$id'"
	pid=$(jq -r .pid "$T/root/$id/state.json")
	[ -n "$(cgroups_named "$id")" ] || fail "no cgroup named $id before the next claim"
	alive "$pid" || fail "the claimed member's init $pid is not alive before the next claim"
	b job --pool P -- echo next
	assert_eq "$rc:$out" "0:next" "the next claim (stderr: $(_show "$err"))"
	wait_until 10 eval '[ -z "$(ls "$T/root/pools/P/claimed")" ] && [ ! -e "$T/root/$id" ]' ||
		fail "10 s after the next claim: claimed '$(ls "$T/root/pools/P/claimed" | tr '\n' ' ')'"
	wait_until 5 eval '! alive "$pid"' || fail "the killed claim's init $pid outlived the next claim"
	assert_eq "$(cgroups_named "$id")" "" "the killed claim's cgroups"
}

# A claim's follower that has not run yet when `pool destroy` comes: the
# destroy waits for it (the claimer took its lock before it spawned it),
# and when it goes on, nothing is left.  Before, the destroy returned and
# the follower outlived its pool (CI, pool.sh test 7).
t_slow_follower() {
	local d fpid
	need_faults || return
	mkpool P 1 || return
	bf pool.follow:stop job --pool P -- true
	assert_rc 0
	# this test's own: another file beside it may have a pool named P too
	fpid=$(pgrep -f "$T/root pool follow P P-" | head -n 1)
	assert_match "$fpid" '^[0-9]+$' "the follower's pid" || return
	defer kill -CONT "$fpid"
	wait_until 5 eval "[ \"\$(proc_state $fpid)\" = T ]" ||
		fail "the follower is not stopped: $(proc_state "$fpid")"
	"$BRIG" --root "$T/root" pool destroy P >"$T/d.out" 2>&1 &
	d=$!
	defer kill_wait "$d"
	sleep 0.5
	alive "$d" || fail "pool destroy returned before the stopped follower ended: $(cat "$T/d.out")"
	kill -CONT "$fpid"
	wait_exit "$d" 10
	assert_eq "$rc:$(cat "$T/d.out")" "0:" "pool destroy once the follower went on"
	wait_until 5 eval '[ -z "$(_tap_leaked_procs)" ]'
	left "pool destroy after a slow follower"
}

# A process that ends at once, and is reaped by its parent (an engine's
# conmon; here the subreaper) before `brig start` spawned the watcher of
# its run.brig.job.result annotation: start succeeds and the result says
# how it exited.  Before, start failed with "its process: No such
# process" (CI, podman.sh "run.brig.job.timeout and .result annotations").
t_watch_reaped() {
	need_faults || return
	bundle '.process.args = ["sh", "-c", "exit 3"] |
		.annotations["run.brig.job.result"] = $r' --arg r "$T/result.json" || return
	b create -b "$T/b" c
	assert_rc 0 || return
	bf start.execve:sleep=300 start c
	assert_eq "$rc:$err" "0:" "start of a process reaped before its watcher ran"
	wait_for "$T/result.json" 50 || fail "no result written"
	assert_eq "$(jq -r '.reason, .exit_code' "$T/result.json" 2>&1 | tr '\n' ' ')" "exited 3 " \
		"the result of a process reaped before its watcher ran"
	b delete --force c
	assert_rc 0
	left "a watched container reaped early"
}

# A cgroup removed by someone else while brig reads it (systemd stops an
# emptied scope and removes its cgroup as soon as the last process dies):
# the read of its cgroup.procs, opened before the removal, fails with
# ENODEV.  That is an empty cgroup, as ENOENT already was.  Before, delete
# failed with 'read ".../cgroup.procs": No such device' and kept the state
# dir (CI, vm-systemd 76-systemd.sh, delete --force of a scope).
t_cgroup_removed() {
	local pid d dpid dirs
	need_faults || return
	running_c || return
	b state c
	pid=$(jq -r .pid <<<"$out")
	assert_match "$pid" '^[0-9]+$' "the init's pid" || return
	dirs=$(cgroups_named c)
	assert_ne "$dirs" "" "the container's cgroup directories" || return
	kill -KILL "$pid"
	wait_until 5 eval '[ "$(jq -r .status <<<"$("$BRIG" --root "$T/root" state c)")" = stopped ]' ||
		fail "the container did not stop"
	mkdir -p "$T/tmp"
	env TMPDIR="$T/tmp" BRIG_FAULT=cgroup.procs.opened:stop "$BRIG" --root "$T/root" delete c \
		>"$T/d.out" 2>&1 &
	dpid=$!
	defer kill_wait "$dpid"
	wait_until 5 eval "[ \"\$(proc_state $dpid)\" = T ]" ||
		fail "delete did not stop with cgroup.procs open: $(proc_state "$dpid")"
	# the init is gone: every one of its cgroups is empty
	for d in $dirs; do
		rmdir "$d" || fail "rmdir $d"
	done
	# on, past every later stop (there should be none: the cgroup is gone)
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ "$(proc_state "$dpid")" = T ] && kill -CONT "$dpid"
		alive "$dpid" || break
		sleep 0.1
	done
	wait_exit "$dpid" 10
	assert_eq "$rc:$(cat "$T/d.out")" "0:" "delete of a container whose cgroup went while it was read"
	left "a cgroup removed while delete read it"
}

tap_test "run -d killed at each step: delete --force leaves nothing, the id is free" t_kill_run
tap_test "create, then start, killed at each step: delete --force leaves nothing" t_kill_create_start
tap_test "a foreground run killed at each step: delete --force leaves nothing" t_kill_foreground
tap_test "exec killed at each step: the container runs on and takes execs" t_kill_exec
tap_test "delete killed at each step: the next delete --force finishes" t_kill_delete
tap_test "pause and resume killed at each step: resume brings the container back" t_kill_pause_resume
tap_test "a pause killed after it froze: state and list say paused, resume thaws" t_dead_pause_status
tap_test "update killed: the container runs on, the next update takes" t_kill_update
tap_test "brig job killed at each step: job --gc leaves nothing" t_kill_job
tap_test "job --pool killed at each step of a claim: pool gc repairs, destroy leaves nothing" t_kill_claim
tap_test "restore and job --from-checkpoint killed before CRIU: delete --force and job --gc leave nothing" t_kill_restore
tap_test "a claimer killed before its follower ran: the next claim's follower removes the member" t_next_claim_repairs
tap_test "run -d failing at each step (EIO): one line, nothing left" t_fail_create
tap_test "a seccomp cache write killed: a miss, its temporary file removed later" t_kill_cache_write
tap_test "a truncated, empty or missing state.json: list, state, delete --force recover" t_store_crash
tap_test "a full --root: create and run fail with one line, nothing left" t_disk_full
tap_test "pool destroy waits for a claim's follower that has not run yet" t_slow_follower
tap_test "a watched process reaped before start spawned its watcher: start succeeds" t_watch_reaped
tap_test "a cgroup removed while delete reads its cgroup.procs (ENODEV): delete succeeds, nothing left" t_cgroup_removed
tap_done
