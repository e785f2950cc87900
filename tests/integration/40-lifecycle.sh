#!/bin/bash
# The life of a container through brig's CLI, as runc lives it: run (output,
# exit status, --keep, --detach, signal forwarding), create/start (pid file,
# the blocked init, wrong transitions), kill, delete, state after the init
# died behind brig's back, which fds reach the container, and the errors
# that must leave nothing behind.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"

# One busybox rootfs for the whole file (making one costs about a second);
# every test has its own bundle $T/b pointing at it, and its own --root.
# Containers write only to $T/shared, never into the rootfs.
brig_file_rootfs

# --------------------------------------------------------------- helpers

# The processes in the pid namespace of PID, itself included.
pidns_members() {
	local ino p
	ino=$(stat -L -c %i "/proc/$1/ns/pid" 2>/dev/null) || return 0
	for p in /proc/[0-9]*; do
		[ "$(stat -L -c %i "$p/ns/pid" 2>/dev/null)" = "$ino" ] && echo "${p#/proc/}"
	done
}

# A container that waits for a signal and writes its name to
# /shared/sig: as PID 1 of its namespace it sees only signals it traps.
TRAPPER='for s in HUP TERM USR1 USR2; do trap "echo $s >/shared/sig; exit 0" $s; done
touch /shared/ready
sleep 100 &
wait'

# ------------------------------------------------------------------- run

t_run_output() {
	mkbundle . sh -c 'echo to stdout; echo to stderr >&2'
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$out" "to stdout" "stdout"
	assert_eq "$err" "to stderr" "stderr"
	assert_empty_dir "$T/root"
}

# --debug: one "phases:" line when the command ends, the total first and
# then each step's own time (tests/bench/profile.sh reads it); none
# without --debug.
t_run_phases() {
	local line total sum
	mkbundle . true
	run_cmd "$BRIG" --root "$T/root" --debug --log "$T/log" run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$(grep -c 'phases: ' "$T/log")" 1 "phases lines in the log"
	line=$(sed -n 's/.*msg="phases: \(.*\)".*/\1/p' "$T/log")
	assert_match "$line" '^run [0-9]+\.[0-9]{3} ms: ' "the line: $line"
	for p in plan seccomp cgroup "init setup" execve "the process" "delete: cgroup"; do
		assert_match "$line" "[:,] $p [0-9]+\.[0-9]{3}(,|$)" "phase $p in: $line"
	done
	# the steps add up to no more than the total
	total=$(sed -n 's/^run \([0-9.]*\) ms:.*/\1/p' <<<"$line")
	sum=$(sed 's/^[^:]*: //' <<<"$line" | tr ',' '\n' | awk '{ s += $NF } END { printf "%.3f", s }')
	awk -v s="$sum" -v t="$total" 'BEGIN { exit !(s <= t + 0.001) }' ||
		fail "the phases add up to $sum ms, more than the total $total ms"
	run_cmd "$BRIG" --root "$T/root" --log "$T/log2" run --bundle "$T/b" c2
	assert_rc 0
	assert_eq "$(grep -c 'phases: ' "$T/log2" 2>/dev/null)" 0 "phases lines without --debug"
	assert_empty_dir "$T/root"
}

t_run_status() { # STATUS
	mkbundle . sh -c "exit $1"
	br run --bundle "$T/b" c1
	assert_rc "$1"
	assert_eq "$out$err" "" "output"
	assert_empty_dir "$T/root"
}

# A command the shell of the container cannot find: 127, its message.
t_run_status_127_not_found() {
	mkbundle . sh -c 'nosuchcommand'
	br run --bundle "$T/b" c1
	assert_rc 127
	assert_contains "$err" "nosuchcommand: not found" "stderr"
	assert_empty_dir "$T/root"
}

# Without a pid namespace of its own the process can kill itself: 128+N.
# (In its own pid namespace `kill -9 $$` is ignored by the kernel, for runc
# too: the container is PID 1 there.)
t_run_killed_self() { # SIGNAL STATUS
	mkbundle 'del(.linux.namespaces[] | select(.type == "pid"))' sh -c "kill -$1 \$\$"
	br run --bundle "$T/b" c1
	assert_rc "$2"
	assert_empty_dir "$T/root"
}

# PID 1 of a pid namespace killed from outside: 137.
t_run_killed_from_outside() {
	local pid
	mkbundle . sh -c 'touch /shared/ready; sleep 100'
	delete_at_end c1
	"$BRIG" --root "$T/root" run --bundle "$T/b" c1 >"$T/out" 2>"$T/err" &
	pid=$!
	wait_until 5 file_exists "$T/shared/ready" || fail "the container did not start"
	"$BRIG" --root "$T/root" kill c1 KILL || fail "brig kill c1 KILL"
	wait_exit "$pid" 10
	assert_eq "$rc" 137 "exit status of run"
	assert_eq "$(cat "$T/out" "$T/err")" "" "output of run"
	assert_empty_dir "$T/root"
}

t_run_keep() {
	mkbundle . sh -c 'exit 3'
	br run --keep --bundle "$T/b" c1
	assert_rc 3
	assert_eq "$out$err" "" "output"
	assert_eq "$(state_field c1 status)" stopped "status after run --keep"
	assert_eq "$(state_field c1 pid)" 0 "pid after run --keep"
	br delete c1
	assert_rc 0
	assert_eq "$out$err" "" "output of delete"
	assert_empty_dir "$T/root"
}

t_run_detach() {
	local pid
	mkbundle . sleep 100
	delete_at_end c1
	TAP_TIMEOUT=10 br run --detach --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$out$err" "" "output of run --detach"
	assert_eq "$(state_field c1 status)" running "status"
	pid=$(state_field c1 pid)
	assert_match "$pid" '^[1-9][0-9]*$' "pid" || return
	assert alive "$pid"
	# run --detach may return before the init has called execve (runc's too)
	wait_until 5 comm_is "$pid" sleep ||
		fail "comm of the container's process: $(cat "/proc/$pid/comm"), not sleep"
	br kill c1 KILL
	assert_rc 0
	wait_until 5 is_status c1 stopped || fail "still $(state_field c1 status) after kill"
	assert dead "$pid"
	br delete c1
	assert_rc 0
	assert_eq "$out$err" "" "output of delete"
	assert_empty_dir "$T/root"
}

# A foreground run passes on the signals sent to brig.
t_run_forwards() { # SIGNAL EXPECTED-STATUS
	local pid
	mkbundle . sh -c 'trap "exit 42" TERM; trap "exit 43" USR1; trap "exit 44" HUP
trap "exit 45" INT
touch /shared/ready
sleep 100 &
wait'
	delete_at_end c1
	"$BRIG" --root "$T/root" run --bundle "$T/b" c1 >"$T/out" 2>"$T/err" &
	pid=$!
	wait_until 5 file_exists "$T/shared/ready" || fail "the container did not start"
	kill -"$1" "$pid"
	wait_exit "$pid" 5
	assert_eq "$rc" "$2" "exit status of run after SIG$1"
	assert_eq "$(cat "$T/out" "$T/err")" "" "output of run"
	assert_empty_dir "$T/root"
}

# A shell script's background job starts with SIGINT and SIGQUIT ignored
# (and engines may ignore SIGPIPE): runc's container starts with no signal
# ignored all the same, and a foreground runc forwards them.
# The container leads a session of its own, as under runc: a terminal's ^C
# reaches brig (which forwards it once), not the container directly too.
t_run_own_session() {
	mkbundle . sh -c 'read -r l </proc/self/stat; set -- $l; echo "pid $1 session $6"'
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$out" "pid 1 session 1" "the init's session"
	assert_empty_dir "$T/root"
}

t_run_no_ignored_signals() {
	mkbundle . grep SigIgn /proc/self/status
	run_cmd sh -c 'trap "" INT QUIT PIPE; exec "$BRIG" --root "$1" run --bundle "$2" c1' \
		sh "$T/root" "$T/b"
	assert_rc 0
	assert_eq "$out" "$(printf 'SigIgn:\t0000000000000000')" "ignored signals in the container"
	assert_empty_dir "$T/root"
}

# ---------------------------------------------------------- create/start

t_pid_file() {
	local pid
	mkbundle . sleep 100
	delete_at_end c1
	mkdir "$T/pids"
	br create --pid-file "$T/pids/c1.pid" --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$out$err" "" "output of create"
	assert_file "$T/pids/c1.pid" || return
	pid=$(state_field c1 pid)
	# exactly the digits: containerd's shim parses it with Atoi, no trim
	assert_match "$(od -An -c "$T/pids/c1.pid" | tr -d ' \n')" '^[0-9]+$' "pid file bytes"
	assert_eq "$(cat "$T/pids/c1.pid")" "$pid" "pid file vs state"
	assert_eq "$(ls -A "$T/pids")" "c1.pid" "files next to the pid file"
	assert alive "$pid"
	# a relative --pid-file is relative to the working directory
	br create --pid-file rel.pid --bundle "$T/b" c2
	delete_at_end c2
	assert_rc 0
	assert_eq "$(cat "$T/rel.pid" 2>/dev/null)" "$(state_field c2 pid)" "relative pid file"
	br delete c1
	assert_rc 0
	br delete c2
	assert_rc 0
	assert dead "$pid"
	assert_empty_dir "$T/root"
}

t_create_start() {
	local pid
	mkbundle . sh -c 'touch /shared/started; read x </shared/go; exit 0'
	mkfifo "$T/shared/go" || fail "mkfifo"
	delete_at_end c1
	br create --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$out$err" "" "output of create"
	assert_eq "$(state_field c1 status)" created "status after create"
	pid=$(state_field c1 pid)
	assert_match "$pid" '^[1-9][0-9]*$' "pid" || return
	assert alive "$pid"
	sleep 0.3
	assert_no_file "$T/shared/started"
	assert_ne "$(cat "/proc/$pid/comm")" sh "comm of the created init"

	# a second create of the same id changes nothing
	br create --bundle "$T/b" c1
	assert_rc 1
	assert_err_line 'brig: container "c1" already exists'
	assert_eq "$(state_field c1 status)" created "status after the second create"
	assert_eq "$(state_field c1 pid)" "$pid" "pid after the second create"
	assert alive "$pid"
	assert_no_file "$T/shared/started"

	br start c1
	assert_rc 0
	assert_eq "$out$err" "" "output of start"
	wait_until 5 file_exists "$T/shared/started" || fail "start did not run the command"
	assert_eq "$(state_field c1 status)" running "status after start"
	assert_eq "$(state_field c1 pid)" "$pid" "pid after start"

	br start c1
	assert_rc 1
	assert_err_line "brig: cannot start an already running container"
	assert alive "$pid"

	# let it exit on its own: no brig process is around to see it
	timeout 5 sh -c 'echo go >"$1"' sh "$T/shared/go" || fail "could not release the container"
	wait_until 5 is_status c1 stopped || fail "still $(state_field c1 status) after exit"
	assert_eq "$(state_field c1 pid)" 0 "pid of a stopped container"
	br start c1
	assert_rc 1
	assert_err_line "brig: cannot start a container that has stopped"
	br delete c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

t_start_nonexistent() {
	br start nosuch
	assert_rc 1
	assert_err_line 'brig: container "nosuch" does not exist'
	assert_empty_dir "$T/root"
}

# The id is taken by a running container too.
t_create_over_running() {
	local pid
	mkbundle . sleep 100
	delete_at_end c1
	br run --detach --bundle "$T/b" c1
	assert_rc 0
	pid=$(state_field c1 pid)
	for cmd in create run; do
		br "$cmd" --bundle "$T/b" c1
		assert_rc 1
		assert_err_line 'brig: container "c1" already exists'
	done
	assert_eq "$(state_field c1 status)" running "status"
	assert_eq "$(state_field c1 pid)" "$pid" "pid"
	br delete --force c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

# ------------------------------------------------------------------ kill

# SIGKILL, however it is named, kills a PID 1 that traps nothing.
t_kill_kill() { # SIGNAL
	local pid
	mkbundle . sleep 100
	delete_at_end c1
	br run --detach --bundle "$T/b" c1
	assert_rc 0
	pid=$(state_field c1 pid)
	br kill c1 "$1"
	assert_rc 0 || return
	assert_eq "$out$err" "" "output of kill"
	wait_until 5 is_status c1 stopped || fail "still $(state_field c1 status) after kill $1"
	assert dead "$pid"
	br delete c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

# The signal that arrives is the one named (no SIGNAL: TERM).
t_kill_signal() { # EXPECTED [SIGNAL]
	mkbundle . sh -c "$TRAPPER"
	delete_at_end c1
	br run --detach --bundle "$T/b" c1
	assert_rc 0
	wait_until 5 file_exists "$T/shared/ready" || fail "the container did not start"
	br kill c1 "${@:2}"
	assert_rc 0 || return
	assert_eq "$out$err" "" "output of kill"
	wait_until 5 is_status c1 stopped || fail "still $(state_field c1 status) after kill"
	assert_eq "$(cat "$T/shared/sig" 2>/dev/null)" "$1" "signal received"
	br delete c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

t_kill_unknown() { # SIGNAL
	mkbundle . sh -c "$TRAPPER"
	delete_at_end c1
	br run --detach --bundle "$T/b" c1
	assert_rc 0
	wait_until 5 file_exists "$T/shared/ready" || fail "the container did not start"
	br kill c1 "$1"
	assert_rc 2
	assert_eq "$out" "" "stdout"
	assert_lines 1 "$err" "stderr"
	assert_eq "$err" "brig: unknown signal \"$1\"" "stderr"
	sleep 0.2
	assert_eq "$(state_field c1 status)" running "status after a refused kill"
	assert_no_file "$T/shared/sig"
	br delete --force c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

t_kill_stopped() {
	mkbundle . true
	br run --keep --bundle "$T/b" c1
	assert_rc 0
	delete_at_end c1
	for sig in "" KILL; do
		# shellcheck disable=SC2086
		br kill c1 $sig
		assert_rc 1
		assert_err_line "brig: container not running"
	done
	br delete c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

t_kill_nonexistent() {
	br kill nosuch KILL
	assert_rc 1
	assert_err_line 'brig: container "nosuch" does not exist'
	assert_empty_dir "$T/root"
}

# A created container can be killed (runc allows it): it never runs.
t_kill_created() {
	local pid
	mkbundle . sh -c 'touch /shared/started'
	delete_at_end c1
	br create --bundle "$T/b" c1
	assert_rc 0
	pid=$(state_field c1 pid)
	br kill c1 KILL
	assert_rc 0
	wait_until 5 is_status c1 stopped || fail "still $(state_field c1 status) after kill"
	assert dead "$pid"
	assert_no_file "$T/shared/started"
	br start c1
	assert_rc 1
	assert_err_line "brig: cannot start a container that has stopped"
	br delete c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

# --all reaches every process; without it only PID 1, which ignores TERM.
t_kill_all() { # SIGNAL
	local pid members p
	mkbundle . sh -c 'sleep 100 & sleep 100 & touch /shared/ready; wait'
	delete_at_end c1
	br run --detach --bundle "$T/b" c1
	assert_rc 0
	wait_until 5 file_exists "$T/shared/ready" || fail "the container did not start"
	pid=$(state_field c1 pid)
	members=$(pidns_members "$pid")
	assert_lines 3 "$members" "processes in the container" || return

	br kill c1 TERM
	assert_rc 0
	sleep 0.3
	assert_eq "$(state_field c1 status)" running "status after kill TERM without --all"
	assert_eq "$(pidns_members "$pid")" "$members" "processes after kill TERM without --all"

	br kill --all c1 "$1"
	assert_rc 0
	assert_eq "$out$err" "" "output of kill --all"
	wait_until 5 is_status c1 stopped || fail "still $(state_field c1 status) after kill --all"
	for p in $members; do
		wait_until 5 dead "$p" || fail "process $p survived kill --all"
	done
	br delete c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

# kill --all on a stopped container whose init shared a pid namespace
# (here the caller's): its child outlived it, in the container's cgroup;
# kill --all signals it and succeeds, as runc 1.1.5 does.  Before, brig
# said "container not running" and the child lived on.  A second kill
# --all, with nothing left, succeeds too.  runc runs the same bundle.
t_kill_all_stopped() {
	local runc rt child
	runc=$(side_runc) || runc=
	for rt in brig ${runc:+runc}; do
		rm -f "$T/shared/child"
		mkbundle ".linux.namespaces |= map(select(.type != \"pid\"))
			| .linux.cgroupsPath = \"$rt-$RANDOM\"" \
			sh -c 'sleep 1000 & echo $! >/shared/child.tmp; mv /shared/child.tmp /shared/child'
		if [ "$rt" = brig ]; then
			delete_at_end c1
			br run --detach --bundle "$T/b" c1
		else
			defer "$runc" --root "$T/runc" delete --force r1
			run_cmd "$runc" --root "$T/runc" run --detach --bundle "$T/b" r1
		fi
		assert_rc 0 || return
		wait_for "$T/shared/child" 50 || fail "$rt: no child pid"
		child=$(cat "$T/shared/child")
		defer kill_wait "$child"
		if [ "$rt" = brig ]; then
			wait_until 5 is_status c1 stopped || fail "brig: the init did not end"
			br kill --all c1 KILL
		else
			run_cmd "$runc" --root "$T/runc" kill --all r1 KILL
		fi
		assert_eq "$rc:$err" "0:" "$rt: kill --all on a stopped container"
		wait_until 5 dead "$child" || fail "$rt: the init's child survived kill --all"
		if [ "$rt" = brig ]; then
			br kill --all c1 KILL
			assert_eq "$rc:$err" "0:" "brig: kill --all with nothing left"
			br kill c1 KILL
			assert_eq "$rc:$err" "1:brig: container not running" "brig: kill without --all"
			br delete c1
			assert_rc 0
		fi
	done
}

# ---------------------------------------------------------------- delete

t_delete_running() {
	local pid
	mkbundle . sleep 100
	delete_at_end c1
	br run --detach --bundle "$T/b" c1
	assert_rc 0
	pid=$(state_field c1 pid)
	br delete c1
	assert_rc 1
	assert_err_line 'brig: cannot delete container "c1" that is not stopped: running'
	assert_eq "$(state_field c1 status)" running "status after a refused delete"
	assert alive "$pid"

	br delete --force c1
	assert_rc 0
	assert_eq "$out$err" "" "output of delete --force"
	assert dead "$pid"
	assert_empty_dir "$T/root"
	br state c1
	assert_rc 1
	assert_err_line 'brig: container "c1" does not exist'
}

# As runc: a created container is deleted without --force, its init killed.
t_delete_created() {
	local pid
	mkbundle . sh -c 'touch /shared/started'
	delete_at_end c1
	br create --bundle "$T/b" c1
	assert_rc 0
	pid=$(state_field c1 pid)
	br delete c1
	assert_rc 0
	assert_eq "$out$err" "" "output of delete"
	assert dead "$pid"
	assert_no_file "$T/shared/started"
	assert_empty_dir "$T/root"
}

t_delete_nonexistent() {
	br delete nosuch
	assert_rc 1
	assert_err_line 'brig: container "nosuch" does not exist'
	br delete --force nosuch
	assert_rc 0
	assert_eq "$out$err" "" "output of delete --force"
	assert_empty_dir "$T/root"
}

# ----------------------------------------------------------------- state

# The init killed behind brig's back (no brig process alive): stopped.
t_state_init_killed() {
	local pid
	mkbundle . sleep 100
	delete_at_end c1
	br run --detach --bundle "$T/b" c1
	assert_rc 0
	pid=$(state_field c1 pid)
	assert_match "$pid" '^[1-9][0-9]*$' "pid" || return
	kill -KILL "$pid"
	wait_until 5 is_status c1 stopped || fail "still $(state_field c1 status) after its init died"
	assert_eq "$(state_field c1 pid)" 0 "pid"
	br kill c1 KILL
	assert_rc 1
	assert_err_line "brig: container not running"
	br delete c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

# The recorded pid now names another process (pid reuse, forced here by
# pointing the state at a process of ours): stopped, and that process is
# never signalled.
t_state_pid_reused() {
	local pid other st
	mkbundle . true
	br run --keep --bundle "$T/b" c1
	assert_rc 0
	delete_at_end c1
	st="$T/root/c1/state.json"
	assert_file "$st" || return
	# a start time is counted in clock ticks (10 ms): a process started in
	# the same tick as the container's would be taken for it (a real pid
	# reuse cannot be that fast: the whole pid space has to wrap first)
	sleep 0.05
	sleep 100 &
	other=$!
	defer kill_wait "$other"
	assert_ne "$(sed 's/.*) //' "/proc/$other/stat" | cut -d' ' -f20)" "$(jq -r .pidStart "$st")" \
		"start time of the other process (a test precondition)" || return
	# what the state held while the container ran: its pid (any pid will
	# do: the start time recorded with it is the container's)
	jq -c --argjson p "$other" '.pid = $p | .status = "running"' "$st" >"$st.new" &&
		mv "$st.new" "$st" || fail "cannot rewrite $st"
	pid=$(jq -r .pid "$st")
	assert_eq "$pid" "$other" "pid in the rewritten state"
	assert_eq "$(state_field c1 status)" stopped "status when the pid names another process"
	br kill c1 KILL
	assert_rc 1
	assert_err_line "brig: container not running"
	br delete c1
	assert_rc 0
	assert alive "$other"
	assert_empty_dir "$T/root"
}

# ------------------------------------------------------------------- fds

# An fd brig inherits and was not asked to pass is closed.
t_fd_leak_run() {
	echo secret >"$T/secret"
	mkbundle . ls /proc/self/fd
	br run --bundle "$T/b" c1 5<"$T/secret" 7<"$T/secret"
	assert_rc 0
	# 3: the directory ls reads
	assert_eq "$out" "$(printf '0\n1\n2\n3')" "fds in the container"
	assert_empty_dir "$T/root"
}

t_fd_leak_create() {
	echo secret >"$T/secret"
	mkbundle . sh -c 'ls /proc/self/fd >/shared/fds'
	delete_at_end c1
	br create --bundle "$T/b" c1 5<"$T/secret"
	assert_rc 0
	br start c1 6<"$T/secret"
	assert_rc 0
	wait_until 5 is_status c1 stopped || fail "still $(state_field c1 status)"
	assert_eq "$(cat "$T/shared/fds" 2>/dev/null)" "$(printf '0\n1\n2\n3')" "fds in the container"
	br delete c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

# stdio that is the caller's /dev/null is the container's own /dev/null
# (runc's reOpenDevNull): a file on a mount outside the container is one
# CRIU cannot checkpoint; any other stdio stays what the caller gave.
t_stdio_devnull() {
	local host own
	host=$(stat -L -c '%d:%i' /dev/null)
	# (the shell's own fds, read from a subshell: busybox runs stat in
	# the shell itself, its redirection applied to the shell's fds)
	mkbundle . sh -c 'for i in 0 1 2; do s="$s$(stat -L -c "%d:%i %t:%T" /proc/$$/fd/$i)
"; done; printf %s "$s" >/shared/fds; stat -L -c "%d:%i" /dev/null >/shared/own'
	"$BRIG" --root "$T/root" run --bundle "$T/b" c1 </dev/null >/dev/null 2>/dev/null
	assert_eq "$?" 0 "exit status of run"
	own=$(cat "$T/shared/own")
	assert_ne "$own" "$host" "the container's /dev/null is not the host's"
	assert_eq "$(cat "$T/shared/fds")" "$(printf '%s 1:3\n' "$own" "$own" "$own")" \
		"stdio: the container's /dev/null"
	# a file stays the caller's
	"$BRIG" --root "$T/root" run --bundle "$T/b" c2 </dev/null >"$T/out" 2>/dev/null
	assert_eq "$(sed -n 2p "$T/shared/fds")" "$(stat -c '%d:%i' "$T/out") 0:0" \
		"stdout, a file, is the caller's"
}

t_preserve_fds() {
	echo three >"$T/three"
	echo four >"$T/four"
	mkbundle . sh -c 'cat <&3; cat <&4 2>/dev/null || echo no fd 4'
	br run --preserve-fds 1 --bundle "$T/b" c1 3<"$T/three" 4<"$T/four"
	assert_rc 0
	assert_eq "$out" "$(printf 'three\nno fd 4')" "output"
	assert_empty_dir "$T/root"
}

# Socket activation: $LISTEN_FDS fds after stdio pass when $LISTEN_PID is
# brig's pid (the sh execs brig, keeping its pid), and --preserve-fds N
# comes on top.
t_listen_fds() {
	echo three >"$T/three"
	echo four >"$T/four"
	echo five >"$T/five"
	mkbundle . sh -c 'cat <&3; cat <&4 2>/dev/null || echo no fd 4'
	run_cmd sh -c 'exec 3<"$1"; export LISTEN_PID=$$ LISTEN_FDS=1
		exec "$BRIG" --root "$2" run --bundle "$3" c1' sh "$T/three" "$T/root" "$T/b"
	assert_rc 0
	assert_eq "$out" "$(printf 'three\nno fd 4')" "output with LISTEN_FDS=1"

	mkbundle . sh -c 'cat <&3; cat <&4; cat <&5 2>/dev/null || echo no fd 5'
	run_cmd sh -c 'exec 3<"$1" 4<"$2" 5<"$3"; export LISTEN_PID=$$ LISTEN_FDS=1
		exec "$BRIG" --root "$4" run --preserve-fds 1 --bundle "$5" c1' \
		sh "$T/three" "$T/four" "$T/five" "$T/root" "$T/b"
	assert_rc 0
	assert_eq "$out" "$(printf 'three\nfour\nno fd 5')" "output with LISTEN_FDS=1 --preserve-fds 1"
	assert_empty_dir "$T/root"
}

# $LISTEN_FDS meant for another process (systemd's rule): nothing passes.
t_listen_fds_other_pid() {
	echo three >"$T/three"
	mkbundle . sh -c 'cat <&3 2>/dev/null || echo no fd 3'
	run_cmd sh -c 'exec 3<"$1"; export LISTEN_PID=$(($$ + 1)) LISTEN_FDS=1
		exec "$BRIG" --root "$2" run --bundle "$3" c1' sh "$T/three" "$T/root" "$T/b"
	assert_rc 0
	assert_eq "$out" "no fd 3" "output"
	assert_empty_dir "$T/root"
}

# runc tells the container about the fds it passes: LISTEN_FDS=N and
# LISTEN_PID=1 are added to its environment.
t_listen_fds_env() {
	echo three >"$T/three"
	mkbundle . sh -c 'echo "LISTEN_FDS=$LISTEN_FDS LISTEN_PID=$LISTEN_PID"'
	run_cmd sh -c 'exec 3<"$1"; export LISTEN_PID=$$ LISTEN_FDS=1
		exec "$BRIG" --root "$2" run --bundle "$3" c1' sh "$T/three" "$T/root" "$T/b"
	assert_rc 0
	assert_eq "$out" "LISTEN_FDS=1 LISTEN_PID=1" "environment of the container"
	assert_empty_dir "$T/root"
}

# ---------------------------------------------------------------- errors

# expect_error WANT: create and run of $T/b fail with exactly the line
# WANT, exit 1, and leave nothing: no state, no process (tap.sh checks).
expect_error() {
	local cmd
	for cmd in create run; do
		br "$cmd" --bundle "$T/b" c1
		assert_rc 1
		assert_eq "$out" "" "stdout of $cmd"
		assert_err_line "$1"
		assert_empty_dir "$T/root"
		br state c1
		assert_rc 1
	done
}

t_error_missing_rootfs() {
	mkbundle '.root.path = "nosuch"' true
	expect_error "brig: rootfs \"$T/b/nosuch\": No such file or directory"
}

t_error_rootfs_not_dir() {
	mkbundle '.root.path = "config.json"' true
	expect_error "brig: rootfs \"$T/b/config.json\": not a directory"
}

t_error_exec_not_found() {
	mkbundle . nosuch
	expect_error 'brig: exec: "nosuch": executable file not found in $PATH'
}

t_error_exec_absolute_not_found() {
	mkbundle . /nosuch
	expect_error 'brig: exec: "/nosuch": stat /nosuch: no such file or directory'
}

t_error_exec_permission() {
	mkbundle . /etc/passwd
	expect_error 'brig: exec: "/etc/passwd": permission denied'
}

# An execve that fails after the start: a file that passes the PATH lookup
# but is no program (ENOEXEC).  The process never runs, and brig says so
# where its caller sees it: start, run and run --detach fail with the
# reason, on stderr and in --log; after a start the container's stderr has
# it too, and the container is stopped; after a run it is gone.  runc 1.1.5
# on the same bundle: run exits 1 (checked here); its start and run
# --detach exit 0, and only the container's stderr knows.
t_error_exec_late() { # create|run|run-detach
	local want='brig: exec "/shared/bad": Exec format error' runc
	mkbundle . /shared/bad
	printf 'garbage\n' >"$T/shared/bad" && chmod 755 "$T/shared/bad"
	case $1 in
	create)
		delete_at_end c1
		"$BRIG" --root "$T/root" create --bundle "$T/b" c1 </dev/null >/dev/null 2>"$T/cerr"
		assert_eq "$?" 0 "exit status of create" || return
		brig --root "$T/root" --log "$T/log" start c1
		assert_rc 1
		assert_err_line "$want"
		assert_eq "$(cat "$T/cerr")" "$want" "the container's stderr"
		assert_match "$(cat "$T/log")" 'Exec format error' "start's --log"
		wait_until 5 is_status c1 stopped || fail "still $(state_field c1 status)"
		br delete c1
		assert_rc 0
		;;
	run | run-detach)
		br run ${1#run} --bundle "$T/b" c1
		assert_rc 1
		assert_err_line "$want"
		;;
	esac
	assert_empty_dir "$T/root"
	[ "$1" = run ] || return 0
	runc=$(side_runc) || return 0
	brig_bundle_edit "$T/b" '.linux.cgroupsPath = $cg' --arg cg "runc-$RANDOM"
	run_cmd "$runc" --root "$T/runc" run --bundle "$T/b" "r$RANDOM"
	assert_rc 1
	assert_match "$err" 'exec format error' "runc's stderr"
}

t_error_exec_directory() {
	mkbundle . /bin
	expect_error 'brig: exec: "/bin": is a directory'
}

# The tag "cgroup": the tests whose outcome can depend on the cgroup
# layout, which the vm layer runs again on pure cgroup v2 (tests/vm/TESTS,
# BRIG_TEST_ONLY=cgroup): kill --all and delete --force (through the
# container's cgroup), a created container killed or deleted, the state
# of a dead init, the phases (cgroup set-up and removal), and the errors
# that come after the cgroup was made and must remove it.  The others
# exercise the CLI, signals to the init, stdio and fds, where no cgroup
# code runs; they run on the host, in both builds.
tap_test "run prints the container's stdout and stderr" t_run_output
tap_test "run returns the container's exit status 0" t_run_status 0
tap_test "run returns the container's exit status 3" t_run_status 3
tap_test "run returns the container's exit status 127" t_run_status 127
tap_test "run returns the container's exit status 255" t_run_status 255
tap_test "run returns 127 for a command the container's shell cannot find" t_run_status_127_not_found
tap_test "run returns 137 when the process SIGKILLs itself (no pid namespace)" t_run_killed_self 9 137
tap_test "run returns 143 when the process SIGTERMs itself (no pid namespace)" t_run_killed_self TERM 143
tap_test "run returns 137 when the container is SIGKILLed by brig kill" t_run_killed_from_outside
tap_test "run --keep leaves the container stopped; delete removes it" t_run_keep
tap_test "run --detach returns at once with the container running" t_run_detach
tap_test "a foreground run forwards SIGTERM to the container" t_run_forwards TERM 42
tap_test "a foreground run forwards SIGUSR1 to the container" t_run_forwards USR1 43
tap_test "a foreground run forwards SIGHUP to the container" t_run_forwards HUP 44
tap_test "a foreground run forwards SIGINT, ignored in a background job (as runc)" t_run_forwards INT 45
tap_test "the container leads a session of its own (as runc)" t_run_own_session
tap_test "the container starts with no signal ignored (as runc)" t_run_no_ignored_signals
tap_test "create --pid-file writes exactly the init's pid before returning" t_pid_file
tap_test "create blocks the init; start runs it; wrong transitions fail as in runc" t_create_start
tap_test "start of a nonexistent container fails" t_start_nonexistent
tap_test "create/run of an id in use by a running container fails" t_create_over_running
tap_test "kill KILL" t_kill_kill KILL
tap_test "kill SIGKILL" t_kill_kill SIGKILL
tap_test "kill 9" t_kill_kill 9
tap_test "kill sends TERM by default" t_kill_signal TERM
tap_test "kill TERM" t_kill_signal TERM TERM
tap_test "kill SIGTERM" t_kill_signal TERM SIGTERM
tap_test "kill 15" t_kill_signal TERM 15
tap_test "kill USR1" t_kill_signal USR1 USR1
tap_test "kill SIGUSR2" t_kill_signal USR2 SIGUSR2
tap_test "kill 1 (HUP)" t_kill_signal HUP 1
TAP_TAGS=cgroup tap_test "kill --all on a stopped container signals what is left of it, as runc" t_kill_all_stopped
tap_test "kill takes lowercase names as runc does (usr1)" t_kill_signal USR1 usr1
tap_test "kill takes lowercase names as runc does (sighup)" t_kill_signal HUP sighup
# kill ID 0 (and --all): is it alive?  Nothing is sent; a stopped
# container is "container not running", as with runc.
t_kill_zero() {
	mkbundle . sh -c "$TRAPPER"
	delete_at_end c1
	br run --detach --bundle "$T/b" c1
	assert_rc 0
	wait_until 5 file_exists "$T/shared/ready" || fail "the container did not start"
	br kill c1 0
	assert_rc 0
	assert_eq "$out$err" "" "output of kill c1 0"
	br kill --all c1 0
	assert_rc 0
	sleep 0.2
	assert_eq "$(state_field c1 status)" running "status after kill 0"
	assert_no_file "$T/shared/sig"
	br kill c1 KILL
	wait_until 5 is_status c1 stopped || fail "c1 did not stop"
	br kill c1 0
	assert_rc 1
	assert_err_line "brig: container not running"
	br delete --force c1
	assert_rc 0
	# runc, side by side where it is installed, on the same bundle (a
	# relative cgroupsPath: nested under the caller's, as brig's)
	local runc
	runc=$(side_runc) || return 0
	brig_bundle_edit "$T/b" '.linux.cgroupsPath = $cg' --arg cg "runc-$RANDOM"
	"$runc" --root "$T/runc" run -d --bundle "$T/b" r1 </dev/null >/dev/null 2>&1 ||
		fail "runc run -d r1"
	defer "$runc" --root "$T/runc" delete --force r1
	run_cmd "$runc" --root "$T/runc" kill r1 0
	assert_rc 0
	run_cmd "$runc" --root "$T/runc" kill --all r1 0
	assert_rc 0
}

TAP_TAGS=cgroup tap_test "kill 0 tells whether the container runs, as runc's" t_kill_zero
tap_test "kill with an unknown signal name is a usage error" t_kill_unknown FOO
tap_test "kill with an unknown SIG name is a usage error" t_kill_unknown SIGFOO
tap_test "kill with an out-of-range signal number is a usage error" t_kill_unknown 999
tap_test "kill on a stopped container: container not running" t_kill_stopped
tap_test "kill of a nonexistent container fails" t_kill_nonexistent
TAP_TAGS=cgroup tap_test "kill of a created container stops it before it runs" t_kill_created
TAP_TAGS=cgroup tap_test "kill --all TERM reaches every process of the container" t_kill_all TERM
TAP_TAGS=cgroup tap_test "kill --all KILL reaches every process of the container" t_kill_all KILL
TAP_TAGS=cgroup tap_test "delete refuses a running container; delete --force kills it" t_delete_running
TAP_TAGS=cgroup tap_test "delete of a created container needs no --force" t_delete_created
tap_test "delete of a nonexistent container: error, but not with --force" t_delete_nonexistent
TAP_TAGS=cgroup tap_test "state says stopped once the init is killed behind brig's back" t_state_init_killed
tap_test "state says stopped when the pid names another process" t_state_pid_reused
tap_test "fds leaked into run do not reach the container" t_fd_leak_run
tap_test "fds leaked into create and start do not reach the container" t_fd_leak_create
tap_test "stdio on the caller's /dev/null becomes the container's /dev/null, as in runc" t_stdio_devnull
tap_test "--preserve-fds 1 passes fd 3 and only it" t_preserve_fds
tap_test "LISTEN_FDS passes fds when LISTEN_PID is brig's pid" t_listen_fds
tap_test "LISTEN_FDS for another pid passes nothing" t_listen_fds_other_pid
tap_test "LISTEN_FDS and LISTEN_PID=1 are set in the container (as runc)" t_listen_fds_env
tap_test "missing rootfs: one line, exit 1, nothing left" t_error_missing_rootfs
tap_test "rootfs not a directory: one line, exit 1, nothing left" t_error_rootfs_not_dir
TAP_TAGS=cgroup tap_test "command not in \$PATH: create fails, nothing left" t_error_exec_not_found
TAP_TAGS=cgroup tap_test "absolute command missing: create fails, nothing left" t_error_exec_absolute_not_found
TAP_TAGS=cgroup tap_test "--debug: the time of each phase of run, in one line" t_run_phases
TAP_TAGS=cgroup tap_test "command not executable: permission denied, nothing left" t_error_exec_permission
TAP_TAGS=cgroup tap_test "command is a directory: create fails, nothing left" t_error_exec_directory
TAP_TAGS=cgroup tap_test "an execve that fails after start: start fails and says why" t_error_exec_late create
TAP_TAGS=cgroup tap_test "an execve that fails after start: run fails and says why, as runc's" t_error_exec_late run
TAP_TAGS=cgroup tap_test "an execve that fails after start: run --detach fails and says why" t_error_exec_late run-detach

tap_done
