#!/bin/bash
# brig exec: a new process in a running container, as runc's exec runs it
# for containerd and Podman: its output and exit status; every namespace,
# the cgroup and the seccomp filter of the container joined; the defaults
# from the container's config and the flags on top (--cwd, --env, --user,
# --additional-gids, --cap, --no-new-privs, the LSM flags, --preserve-fds);
# --process FILE, --detach and --pid-file; a terminal over a console
# socket or relayed in the foreground; runc's errors; many execs at once;
# the processes delete --force and kill --all reach; no host mount made
# on the way; and --cgroup into a sub-cgroup.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"

RECEIVER=$BRIG_BUILDDIR/contrib/console-receiver/brig-console-receiver

# One busybox rootfs for the whole file; every test has its own bundle
# $T/b pointing at it, and its own --root.  Containers write only to
# $T/shared (or their own tmpfs), never into the rootfs.
brig_file_rootfs

# --------------------------------------------------------------- helpers

# /shared is written by processes of other users too (exec --user)
SHARED_MODE=0777

# sleeper [FILTER]: the container c1 running `sleep 1000`, up.
sleeper() {
	mkbundle "${1:-.}" sleep 1000
	up c1
}

# ex ARGS...: `brig exec ARGS` under $T/root (sets out, err, rc).
ex() {
	br exec "$@"
}

# status_field PID FIELD: a field of /proc/PID/status (tabs squeezed).
status_field() {
	sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null | tr -s '\t' ' '
}

# ps_pids ID: the host pids `brig ps --format json ID` lists, sorted.
ps_pids() {
	"$BRIG" --root "$T/root" ps --format json "$1" 2>/dev/null | jq -r '.[]' | sort -n
}

# in_ps ID PID: `brig ps` of ID lists PID.
in_ps() {
	ps_pids "$1" | grep -qx "$2"
}

# n_in_ps ID N: `brig ps` of ID lists N processes.
n_in_ps() {
	[ "$(ps_pids "$1" | wc -l)" -eq "$2" ]
}

# thaw ID: unfreeze the container's cgroup behind brig's back (v1
# freezer.state, v2 cgroup.freeze).
thaw() {
	local d
	for d in $(jq -r '.cgroupPaths // {} | .[]' "$T/root/$1/state.json" 2>/dev/null); do
		if [ -f "$d/freezer.state" ]; then
			echo THAWED >"$d/freezer.state"
		elif [ -f "$d/cgroup.freeze" ]; then
			echo 0 >"$d/cgroup.freeze"
		fi
	done
}

# The capability bit of CAP_NET_ADMIN, and the sets `brig spec` gives
# (CAP_AUDIT_WRITE, CAP_KILL, CAP_NET_BIND_SERVICE).
SPEC_CAPS=$(((1 << 29) | (1 << 5) | (1 << 10)))
NET_ADMIN=$((1 << 12))
hexcaps() {
	printf '%016x' "$1"
}

# ------------------------------------------------------ output and status

t_output_status() {
	sleeper || return
	ex c1 sh -c 'echo to stdout; echo to stderr >&2'
	assert_rc 0
	assert_eq "$out" "to stdout" "stdout"
	assert_eq "$err" "to stderr" "stderr"
	ex c1 sh -c 'exit 3'
	assert_rc 3
	assert_eq "$out$err" "" "output of exit 3"
	ex c1 sh -c 'exit 127'
	assert_rc 127
	ex c1 sh -c 'exit 255'
	assert_rc 255
	# stdin is the caller's
	run_cmd sh -c 'echo from-stdin | "$BRIG" --root "$1" exec c1 cat' sh "$T/root"
	assert_rc 0
	assert_eq "$out" "from-stdin" "stdin relayed"
	# a command the shell of the container cannot find: its 127
	ex c1 sh -c nosuchcommand
	assert_rc 127
	assert_contains "$err" "nosuchcommand: not found" "stderr"
	# a command brig cannot find: runc's error, exit 255 (runc's status
	# of a failed exec, which no process gives alone)
	ex c1 nonexist
	assert_rc 255
	assert_eq "$out" "" "stdout of exec nonexist"
	assert_err_line 'brig: exec failed: exec: "nonexist": executable file not found in $PATH'
	ex c1 /nonexist
	assert_rc 255
	assert_err_line 'brig: exec failed: exec: "/nonexist": stat /nonexist: no such file or directory'
	# killed by a signal: 128+N (not PID 1 of its namespace: the kernel
	# delivers it)
	ex c1 sh -c 'kill -9 $$'
	assert_rc 137
	assert_eq "$out$err" "" "output of kill -9 \$\$"
	ex c1 sh -c 'kill -TERM $$'
	assert_rc 143
	assert_eq "$(state_field c1 status)" running "status of the container"
	br delete --force c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

# A foreground exec forwards the signals it gets to its process.
t_forward_signal() {
	local pid
	sleeper || return
	"$BRIG" --root "$T/root" exec c1 sh -c 'trap "exit 42" USR1; trap "exit 43" TERM
		touch /shared/ready; sleep 100 & wait' >"$T/out" 2>"$T/err" &
	pid=$!
	wait_until 5 file_exists "$T/shared/ready" || fail "the exec'd process did not start"
	kill -USR1 "$pid"
	wait_exit "$pid" 5
	assert_eq "$rc" 42 "exit status of exec after SIGUSR1"
	rm -f "$T/shared/ready"
	"$BRIG" --root "$T/root" exec c1 sh -c 'trap "exit 42" USR1; trap "exit 43" TERM
		touch /shared/ready; sleep 100 & wait' >"$T/out" 2>"$T/err" &
	pid=$!
	wait_until 5 file_exists "$T/shared/ready" || fail "the exec'd process did not start"
	kill -TERM "$pid"
	wait_exit "$pid" 5
	assert_eq "$rc" 43 "exit status of exec after SIGTERM"
	assert_eq "$(cat "$T/out" "$T/err")" "" "output of exec"
	# the container's init is untouched
	assert_eq "$(state_field c1 status)" running "status of the container"
	br delete --force c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

# ------------------------------------------------------------ namespaces

NSES="pid net ipc uts mnt cgroup time"

# ns_of PID: "NAME LINK" per namespace of the host's /proc/PID/ns.
ns_of() {
	local n
	for n in $NSES; do
		echo "$n $(readlink "/proc/$1/ns/$n")"
	done
}

t_namespaces() {
	local init pid marker=m$RANDOM$RANDOM inside host n self
	# every namespace the kernel has: cgroup and time too, the clock of
	# the container's time namespace ten days ahead
	mkbundle '.linux.namespaces += [{type: "cgroup"}, {type: "time"}]
		| .linux.timeOffsets = {boottime: {secs: 864000}, monotonic: {secs: 864000}}
		| .hostname = "exec-test"' \
		sh -c 'echo "$1" >/dev/shm/marker; exec sleep 1000' sh "$marker"
	up c1 || return
	init=$(state_field c1 pid)
	wait_until 5 comm_is "$init" sleep ||
		fail "the init did not exec sleep"

	# what the process sees: its namespaces as links, from inside...
	ex c1 sh -c 'for n in '"$NSES"'; do echo "$n $(readlink /proc/self/ns/$n)"; done'
	assert_rc 0
	inside=$out
	# ...are those of the init, seen from the host
	host=$(ns_of "$init")
	assert_eq "$inside" "$host" "namespaces of the exec'd process vs the init's"
	# and not the host's (the test means something)
	for n in $NSES; do
		assert_ne "$(readlink "/proc/$init/ns/$n")" "$(readlink "/proc/self/ns/$n")" \
			"the init's $n namespace vs the host's"
	done
	# the container's cgroup (at the root of its cgroup namespace), hostname,
	# mounts (the init's tmpfs /dev/shm), root and clock
	ex c1 cat /proc/self/cgroup
	assert_rc 0
	self=$out
	ex c1 cat /proc/1/cgroup
	assert_eq "$self" "$out" "/proc/self/cgroup vs the init's, inside"
	# at the root of each hierarchy (its cgroup namespace)
	assert_eq "$(grep -vc ':/$' <<<"$self")" 0 "/proc/self/cgroup inside: $self"
	ex c1 hostname
	assert_eq "$out" exec-test "hostname"
	ex c1 cat /dev/shm/marker
	assert_rc 0
	assert_eq "$out" "$marker" "the init's /dev/shm"
	ex c1 sh -c 'ls -d /shared /bin/busybox; cat /proc/1/comm'
	assert_eq "$out" $'/bin/busybox\n/shared\nsleep' "the container's root and pid 1"
	ex c1 cut -d. -f1 /proc/uptime
	[ "${out:-0}" -ge 864000 ] 2>/dev/null || fail "uptime in the container: $out (no offset: the time namespace is not joined)"
	# a small pid of the container's pid namespace
	ex c1 sh -c 'echo $$'
	assert_rc 0
	assert_match "$out" '^[0-9]{1,3}$' "pid inside"
	[ "${out:-0}" -gt 1 ] || fail "pid of the exec'd process inside: $out"

	# a detached one, seen from the host while it runs
	ex --detach --pid-file "$T/p" c1 sleep 1000
	assert_rc 0
	assert_eq "$out$err" "" "output of exec --detach"
	pid=$(cat "$T/p" 2>/dev/null)
	assert_match "$pid" '^[1-9][0-9]*$' "pid file" || return
	assert_eq "$(ns_of "$pid")" "$host" "namespaces of the detached process vs the init's"
	assert_eq "$(cat "/proc/$pid/cgroup")" "$(cat "/proc/$init/cgroup")" "/proc/PID/cgroup vs the init's"
	# NSpid: host pid, then the small one of the container
	assert_match "$(status_field "$pid" NSpid)" "^$pid [0-9]{1,3}\$" "NSpid"
	assert_eq "$(readlink "/proc/$pid/root")" / "root of the process (as the host sees it)"
	assert_eq "$(stat -L -c %d:%i "/proc/$pid/root")" "$(stat -L -c %d:%i "/proc/$init/root")" \
		"root of the process vs the init's"
	in_ps c1 "$pid" || fail "ps --format json does not list $pid: $(ps_pids c1 | tr '\n' ' ')"
	in_ps c1 "$init" || fail "ps --format json does not list the init $init"
	br delete --force c1
	assert_rc 0
	wait_until 5 dead "$pid" || fail "the exec'd process survived delete --force"
	assert_empty_dir "$T/root"
}

# A container with a user namespace: exec joins it too, and its ids are
# the container's (mapped on the host).
t_userns() {
	local init pid
	[ -e /proc/self/ns/user ] || skip "no user namespaces"
	NSES="user pid net ipc uts mnt"
	# a rootfs the container's root (uid 100000 on the host) can reach
	chmod 0755 "$T"
	cp -a "$ROOTFS" "$T/rootfs" || fail "cannot copy the rootfs"
	mkbundle '.linux.namespaces += [{type: "user"}]
		| .linux.uidMappings = [{containerID: 0, hostID: 100000, size: 65536}]
		| .linux.gidMappings = [{containerID: 0, hostID: 100000, size: 65536}]' sleep 1000
	brig_bundle_edit "$T/b" '.root.path = $r' --arg r "$T/rootfs"
	up c1 || return
	init=$(state_field c1 pid)
	ex c1 sh -c 'for n in '"$NSES"'; do echo "$n $(readlink /proc/self/ns/$n)"; done'
	assert_rc 0
	assert_eq "$out" "$(ns_of "$init")" "namespaces of the exec'd process vs the init's"
	assert_ne "$(readlink "/proc/$init/ns/user")" "$(readlink /proc/self/ns/user)" \
		"the init's user namespace vs the host's"
	ex c1 sh -c 'id -u; id -g; tr -s " " <"/proc/self/uid_map"'
	assert_rc 0
	assert_eq "$out" $'0\n0\n 0 100000 65536' "ids and uid_map in the container"
	ex -u 1000:1000 -d --pid-file "$T/p" c1 sleep 1000
	assert_rc 0
	pid=$(cat "$T/p" 2>/dev/null)
	assert_eq "$(status_field "$pid" Uid)" "101000 101000 101000 101000" "host uids of exec -u 1000"
	assert_eq "$(status_field "$pid" Gid)" "101000 101000 101000 101000" "host gids of exec -u 1000"
	br delete --force c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

# -------------------------------------------------- defaults and flags

t_defaults() {
	sleeper '.process.env = ["PATH=/bin:/usr/bin", "FOO=from-config", "KEEP=1"]
		| .process.cwd = "/etc"
		| .process.user = {uid: 1234, gid: 5678, additionalGids: [9]}' || return
	ex c1 sh -c 'id -u; id -g; id -G; pwd; echo "FOO=$FOO KEEP=$KEEP"'
	assert_rc 0
	assert_eq "$out" $'1234\n5678\n5678 9\n/etc\nFOO=from-config KEEP=1' "defaults of the config"
	# no fd of brig's reaches the process: 0 1 2, and ls's directory
	ex c1 ls /proc/self/fd 5</dev/null 7<"$T"
	assert_rc 0
	assert_eq "$out" $'0\n1\n2\n3' "fds of the exec'd process"
	br delete --force c1
	assert_rc 0
}

t_cwd() {
	sleeper || return
	ex --cwd /etc c1 pwd
	assert_rc 0
	assert_eq "$out" /etc "pwd with --cwd /etc"
	ex --cwd /shared c1 sh -c 'pwd; touch here'
	assert_rc 0
	assert_file "$T/shared/here"
	ex --cwd /nonexistent c1 pwd
	assert_rc 255
	assert_eq "$out" "" "stdout with a missing --cwd"
	assert_lines 1 "$err" "stderr with a missing --cwd"
	assert_contains "$err" "/nonexistent" "stderr with a missing --cwd"
	assert_contains "$err" "No such file or directory" "stderr with a missing --cwd"
	ex --cwd relative c1 pwd
	assert_rc 255
	assert_lines 1 "$err" "stderr with a relative --cwd"
	br delete --force c1
	assert_rc 0
}

t_env() {
	local want
	sleeper '.process.env = ["PATH=/bin:/usr/bin", "FOO=from-config", "KEEP=1"]' || return
	ex --env FOO=new -e NEW=added --env 'SP=a b' c1 env
	assert_rc 0
	want=$'PATH=/bin:/usr/bin\nFOO=new\nKEEP=1\nNEW=added\nSP=a b'
	# HOME comes from /etc/passwd
	assert_eq "$(grep -v '^HOME=' <<<"$out")" "$want" "environment"
	assert_eq "$(grep -c '^FOO=' <<<"$out")" 1 "FOO once"
	br delete --force c1
	assert_rc 0
}

t_user() {
	sleeper '.process.user = {uid: 0, gid: 4321, additionalGids: [9]}' || return
	ex --user 1000:1000 c1 sh -c 'id -u; id -g'
	assert_rc 0
	assert_eq "$out" $'1000\n1000' "--user 1000:1000"
	# the gid stays the config's
	ex -u 1000 c1 sh -c 'id -u; id -g'
	assert_rc 0
	assert_eq "$out" $'1000\n4321' "-u 1000"
	# additional gids come on top of the config's (runc appends them)
	ex --additional-gids 10 -g 20 c1 id -G
	assert_rc 0
	assert_eq "$out" "4321 9 10 20" "--additional-gids 10 -g 20"
	ex --additional-gids abc c1 id -G
	assert_rc 2
	assert_lines 1 "$err" "stderr of --additional-gids abc"
	assert_contains "$err" "additional-gids" "stderr of --additional-gids abc"
	br delete --force c1
	assert_rc 0
}

t_caps_nnp() {
	local want
	sleeper '.process.noNewPrivileges = false' || return
	ex c1 grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status
	assert_rc 0
	want=$(printf 'CapEff:\t%s\nCapBnd:\t%s\nNoNewPrivs:\t0' "$(hexcaps "$SPEC_CAPS")" "$(hexcaps "$SPEC_CAPS")")
	assert_eq "$out" "$want" "capabilities without --cap"
	ex --cap CAP_NET_ADMIN c1 grep -E '^(CapEff|CapBnd|CapPrm)' /proc/self/status
	assert_rc 0
	want=$(hexcaps $((SPEC_CAPS | NET_ADMIN)))
	assert_eq "$out" "$(printf 'CapPrm:\t%s\nCapEff:\t%s\nCapBnd:\t%s' "$want" "$want" "$want")" \
		"capabilities with --cap CAP_NET_ADMIN"
	ex -c CAP_NET_ADMIN -c CAP_SYS_TIME c1 grep CapEff /proc/self/status
	assert_rc 0
	assert_eq "$out" "$(printf 'CapEff:\t%s' "$(hexcaps $((SPEC_CAPS | NET_ADMIN | (1 << 25))))")" \
		"capabilities with -c CAP_NET_ADMIN -c CAP_SYS_TIME"
	ex --no-new-privs c1 grep NoNewPrivs /proc/self/status
	assert_rc 0
	assert_eq "$out" $'NoNewPrivs:\t1' "--no-new-privs"
	# an unknown capability: runc's warning, and the process runs
	ex --cap CAP_NOSUCH c1 echo ran
	assert_rc 0
	assert_eq "$out" ran "stdout of --cap CAP_NOSUCH"
	assert_lines 1 "$err" "stderr of --cap CAP_NOSUCH"
	assert_contains "$err" "CAP_NOSUCH" "stderr of --cap CAP_NOSUCH"
	br delete --force c1
	assert_rc 0
}

t_lsm_refused() {
	[ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" != Y ] ||
		skip "AppArmor is enabled on this host"
	! awk '$3 == "selinuxfs" { f = 1 } END { exit !f }' /proc/self/mounts ||
		skip "SELinux is enabled on this host"
	sleeper || return
	ex --apparmor docker-default c1 sh -c 'echo ran'
	assert_rc 255
	assert_eq "$out" "" "stdout of --apparmor"
	assert_lines 1 "$err" "stderr of --apparmor"
	assert_contains "$err" "AppArmor" "stderr of --apparmor"
	ex --process-label system_u:system_r:container_t:s0 c1 sh -c 'echo ran'
	assert_rc 255
	assert_eq "$out" "" "stdout of --process-label"
	assert_lines 1 "$err" "stderr of --process-label"
	assert_contains "$err" "SELinux" "stderr of --process-label"
	assert_eq "$(ps_pids c1 | wc -l)" 1 "processes in the container"
	br delete --force c1
	assert_rc 0
}

t_preserve_fds() {
	echo three >"$T/three"
	echo four >"$T/four"
	sleeper || return
	ex --preserve-fds 1 c1 sh -c 'cat <&3; cat <&4 2>/dev/null || echo no fd 4' \
		3<"$T/three" 4<"$T/four"
	assert_rc 0
	assert_eq "$out" $'three\nno fd 4' "output"
	# runc's exec passes them without LISTEN_FDS (that is for run's
	# socket activation)
	ex --preserve-fds 1 c1 sh -c 'echo "LISTEN_FDS=$LISTEN_FDS"' 3<"$T/three"
	assert_rc 0
	assert_eq "$out" "LISTEN_FDS=" "environment with --preserve-fds 1"
	ex --preserve-fds abc c1 true
	assert_rc 2
	assert_contains "$err" "preserve-fds" "stderr of --preserve-fds abc"
	br delete --force c1
	assert_rc 0
}

# ------------------------------------------------------------- --process

t_process_file() {
	local pid
	sleeper || return
	jq -n '{terminal: false, args: ["sh", "-c", "id -u; id -g; pwd; echo \"X=$X\"; exit 4"],
		env: ["PATH=/bin", "X=from-process-json"], cwd: "/shared",
		user: {uid: 1000, gid: 1001}}' >"$T/process.json"
	ex --process "$T/process.json" c1
	assert_rc 4
	assert_eq "$out" $'1000\n1001\n/shared\nX=from-process-json' "output of exec --process"
	ex -p "$T/process.json" c1
	assert_rc 4

	# detached, as containerd's shim and conmon run it
	jq -n '{terminal: false, args: ["sh", "-c", "echo $$ >/shared/inside; sleep 1000"],
		env: ["PATH=/bin"], cwd: "/", user: {uid: 1000, gid: 1000}}' >"$T/process.json"
	ex --process "$T/process.json" --detach --pid-file "$T/exec.pid" c1
	assert_rc 0
	assert_eq "$out$err" "" "output of exec --detach"
	# exactly the digits, as for create's
	assert_match "$(od -An -c "$T/exec.pid" | tr -d ' \n')" '^[0-9]+$' "pid file bytes"
	pid=$(cat "$T/exec.pid")
	wait_until 5 file_exists "$T/shared/inside" || fail "the detached process did not run"
	assert alive "$pid"
	# sh runs sleep through /proc/self/exe: "exe" until the applet names itself
	wait_until 5 comm_is "$pid" sleep ||
		fail "comm of the detached process: $(cat "/proc/$pid/comm"), not sleep"
	assert_eq "$(status_field "$pid" NSpid | cut -d' ' -f2)" "$(cat "$T/shared/inside")" \
		"pid inside the container"
	assert_eq "$(status_field "$pid" Uid | cut -d' ' -f1)" 1000 "uid of the detached process"
	if [ -n "${BRIG_SUBREAPER_PID:-}" ]; then
		assert_eq "$(status_field "$pid" PPid)" "$BRIG_SUBREAPER_PID" \
			"parent of the detached process (the subreaper)"
	fi
	in_ps c1 "$pid" || fail "ps does not list $pid"
	# a bad process.json
	echo '{"args": [' >"$T/bad.json"
	ex --process "$T/bad.json" c1
	assert_rc 255
	assert_lines 1 "$err" "stderr of a bad process.json"
	ex --process "$T/nosuch.json" c1
	assert_rc 255
	assert_lines 1 "$err" "stderr of a missing process.json"
	br delete --force c1
	assert_rc 0
	wait_until 5 dead "$pid" || fail "the detached process survived delete --force"
}

# ---------------------------------------------------------------- terminal

# in_script CMD: CMD under script(1), on a pty of its own (90-terminal.sh).
in_script() {
	[ -p "$T/tty-in" ] || mkfifo "$T/tty-in"
	timeout -k 5 "${TAP_TIMEOUT:-60}" script -qfec "$1" /dev/null \
		9<>"$T/tty-in" <"$T/tty-in" >"$T/tty-out" 2>"$T/tty-err"
	rc=$?
	out=$(tr -d '\r' <"$T/tty-out")
	err=$(cat "$T/tty-err")
}

t_tty_console_socket() {
	local got
	[ -x "$RECEIVER" ] || skip "needs $RECEIVER (make)"
	sleeper || return
	: >"$T/in"
	start_receiver "$T/sock" --in "$T/in" --out "$T/out"
	ex -t -d --console-socket "$T/sock" c1 sh -c \
		'test -t 0 && echo "stdin tty"; test -t 1 && echo "stdout tty"; tty; echo done'
	assert_rc 0
	assert_eq "$out$err" "" "output of exec -t -d"
	wait_exit "$RECV_PID" 10
	assert_eq "$rc" 0 "exit status of the receiver ($(cat "$T/receiver.err"))"
	got=$(tr -d '\r' <"$T/out")
	assert_contains "$got" "stdin tty" "output through the pty"
	assert_contains "$got" "stdout tty" "output through the pty"
	assert_match "$got" $'(^|\n)/dev/pts/[0-9]+\n' "output through the pty"
	assert_contains "$got" "done" "output through the pty"

	# input too: the receiver types into the process's shell
	printf 'echo "in-$((6 * 7))-exec"; exit 0\n' >"$T/in"
	rm -f "$T/out"
	start_receiver "$T/sock2" --in "$T/in" --out "$T/out"
	ex -t -d --console-socket "$T/sock2" c1 sh
	assert_rc 0
	wait_exit "$RECV_PID" 10
	assert_contains "$(tr -d '\r' <"$T/out")" $'\nin-42-exec' "the shell's output"
	br delete --force c1
	assert_rc 0
}

t_tty_foreground() {
	require_cmd script
	sleeper || return
	in_script "$BRIG --root $T/root exec -t c1 sh -c 'echo hello; test -t 0 && echo stdin-tty; exit 7'"
	assert_rc 7
	assert_eq "$out" $'hello\nstdin-tty' "output of exec -t under script"
	in_script "$BRIG --root $T/root exec -t c1 sh -c 'kill -KILL \$\$'"
	assert_rc 137
	# without -t brig's own stdio passes through: no pty of the container's
	in_script "$BRIG --root $T/root exec c1 ls /dev/pts"
	assert_rc 0
	assert_eq "$out" "ptmx" "the container's ptys with exec without -t"
	br delete --force c1
	assert_rc 0
}

t_tty_errors() {
	sleeper || return
	ex -d -t c1 true
	assert_rc 255
	assert_err_line "brig: exec failed: cannot allocate tty if brig will detach without setting console socket"
	: >"$T/sock"
	ex --console-socket "$T/sock" c1 true
	assert_rc 255
	assert_err_line "brig: exec failed: cannot use console socket if brig will not detach or allocate tty"
	ex -d --console-socket "$T/sock" c1 true
	assert_rc 255
	assert_err_line "brig: exec failed: cannot use console socket if brig will not detach or allocate tty"
	assert_eq "$(ps_pids c1 | wc -l)" 1 "processes in the container"
	br delete --force c1
	assert_rc 0
}

# A container whose own process has a terminal: exec without -t has none
# (runc's exec sets terminal false unless -t is given).
t_tty_not_inherited() {
	[ -x "$RECEIVER" ] || skip "needs $RECEIVER (make)"
	mkbundle '.process.terminal = true' sleep 1000
	: >"$T/in"
	start_receiver "$T/sock" --in "$T/in" --out "$T/out"
	delete_at_end c1
	br run --detach --console-socket "$T/sock" --bundle "$T/b" c1
	assert_rc 0 || return
	ex c1 sh -c 'test -t 0 || echo no-tty; exit 5'
	assert_rc 5
	assert_eq "$out" "no-tty" "output of exec without -t"
	assert_eq "$err" "" "stderr of exec without -t"
	br delete --force c1
	assert_rc 0
}

# ------------------------------------------------------------------ errors

t_errors() {
	local pid
	ex nosuch true
	assert_rc 255
	assert_err_line 'brig: exec failed: container "nosuch" does not exist'
	sleeper || return
	ex c1
	assert_rc 2
	assert_eq "$out" "" "stdout of exec without a command"
	assert_contains "$err" "brig: " "stderr of exec without a command"
	for u in abc 1000:x -1 1000: :1000; do
		ex --user "$u" c1 true
		assert_rc 255
		assert_lines 1 "$err" "stderr of --user $u"
		assert_contains "$err" "--user" "stderr of --user $u"
	done
	# runc's words and status for a path out of the container's cgroup
	for c in ../escape a/../.. /..; do
		ex --cgroup "$c" c1 true
		assert_rc 255
		assert_err_line "brig: exec failed: $c is not a sub cgroup path"
	done

	# paused
	br pause c1
	assert_rc 0
	ex c1 true
	assert_rc 255
	assert_err_line "brig: exec failed: cannot exec in a paused container (use --ignore-paused to override)"
	# --ignore-paused: the process starts frozen (brig may wait for it);
	# it runs on resume, which nothing may block
	"$BRIG" --root "$T/root" exec --ignore-paused -d c1 \
		sh -c 'touch /shared/ran' >"$T/out" 2>"$T/err" &
	pid=$!
	wait_until 5 n_in_ps c1 2 || fail "the exec'd process is not in ps: $(ps_pids c1 | tr '\n' ' ')"
	sleep 0.2
	assert_no_file "$T/shared/ran"
	TAP_TIMEOUT=5 br resume c1
	assert_rc 0
	if wait_exit "$pid" 5; then
		assert_eq "$rc" 0 "exit status of exec --ignore-paused ($(cat "$T/err"))"
		wait_until 5 file_exists "$T/shared/ran" || fail "the process did not run after resume"
	else
		# brig exec hung (and is killed now); its process, frozen before
		# it closed brig's fds, may hold the container's lock: thawed by
		# hand for the rest of the test
		thaw c1
		is_status c1 running || TAP_TIMEOUT=5 br resume c1
	fi
	wait_until 5 n_in_ps c1 1 || fail "the process did not finish: $(ps_pids c1 | tr '\n' ' ')"

	# stopped
	br kill c1 KILL
	assert_rc 0
	wait_until 5 is_status c1 stopped || fail "c1 is still $(state_field c1 status)"
	ex c1 true
	assert_rc 255
	assert_err_line "brig: exec failed: cannot exec in a stopped container"
	ex --process /dev/null c1
	assert_rc 255
	assert_err_line "brig: exec failed: cannot exec in a stopped container"
	br delete c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

# A created container (runc allows exec before start): the process runs.
t_created() {
	mkbundle . sh -c 'touch /shared/started; sleep 1000'
	delete_at_end c1
	br create --bundle "$T/b" c1
	assert_rc 0 || return
	ex c1 sh -c 'echo in-created'
	assert_rc 0
	assert_eq "$out" in-created "output of exec in a created container"
	assert_no_file "$T/shared/started"
	assert_eq "$(state_field c1 status)" created "status"
	br delete --force c1
	assert_rc 0
}

# ----------------------------------------------------------------- seccomp

t_seccomp() {
	local nnp
	"$BRIG" features | jq -e '.linux.seccomp.enabled' >/dev/null 2>&1 ||
		skip "brig is built without seccomp"
	for nnp in true false; do
		mkbundle '.linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW",
				syscalls: [{names: ["mkdir", "mkdirat"], action: "SCMP_ACT_ERRNO", errnoRet: 1}]}' \
			sleep 1000
		brig_bundle_edit "$T/b" '.process.noNewPrivileges = ($nnp == "true")' --arg nnp "$nnp"
		up "s$nnp" || return
		ex "s$nnp" mkdir /tmp/x /shared/x
		assert_rc 1
		assert_contains "$err" "Operation not permitted" "stderr of mkdir (noNewPrivileges $nnp)"
		assert_no_file "$T/shared/x"
		ex "s$nnp" sh -c 'grep Seccomp: /proc/self/status; touch /shared/y && echo touched'
		assert_rc 0
		assert_eq "$out" $'Seccomp:\t2\ntouched' "the rest is allowed (noNewPrivileges $nnp)"
		rm -f "$T/shared/y"
		# the filter's load leaves stdio alone (it once closed stdin
		# when loaded before the capabilities drop)
		run_cmd sh -c 'echo from-stdin | "$BRIG" --root "$1" exec "$2" cat' sh "$T/root" "s$nnp"
		assert_eq "$out" from-stdin "stdin of exec (noNewPrivileges $nnp)"
		in_script "$BRIG --root $T/root exec -t s$nnp sh -c 'test -t 0 && echo stdin-tty; tty <&1'"
		assert_match "$out" $'^stdin-tty\n/dev/pts/[0-9]+$' \
			"stdin and stdout of exec -t (noNewPrivileges $nnp)"
		br delete --force "s$nnp"
		assert_rc 0
	done
}

# --------------------------------------------------------------- parallel

t_parallel() {
	local init fds i n_ok=0 bad=
	sleeper || return
	init=$(state_field c1 pid)
	fds=$(ls "/proc/$init/fd" | wc -l)
	for ((i = 0; i < 30; i++)); do
		(
			"$BRIG" --root "$T/root" exec c1 sh -c "echo out-$i; echo err-$i >&2; exit $((i % 4))" \
				>"$T/o.$i" 2>"$T/e.$i"
			echo $? >"$T/rc.$i"
		) &
	done
	wait
	for ((i = 0; i < 30; i++)); do
		if [ "$(cat "$T/rc.$i" 2>/dev/null)" = $((i % 4)) ] &&
			[ "$(cat "$T/o.$i")" = "out-$i" ] && [ "$(cat "$T/e.$i")" = "err-$i" ]; then
			n_ok=$((n_ok + 1))
		else
			bad+="#$i rc=$(cat "$T/rc.$i" 2>/dev/null) out=$(cat "$T/o.$i") err=$(cat "$T/e.$i"); "
		fi
	done
	assert_eq "$n_ok" 30 "execs that succeeded (failures: $bad)"
	assert_eq "$(ls "/proc/$init/fd" | wc -l)" "$fds" "fds of the init"
	assert_eq "$(state_field c1 status)" running "status"
	assert_eq "$(ps_pids c1)" "$init" "processes in the container"
	br delete --force c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

# The joiner (exec.c) fails, or dies, on its way into the container:
# brig exec says so in one line with runc's status for a failed exec, and
# the container takes the next exec.  Both kinds of joiner: one that
# shares brig's memory (c1), and one that forks because the kernel lets
# no such process into a time namespace (c2).
t_joiner_fails() {
	local c
	need_faults || return
	mkbundle . sleep 1000
	up c1 || return
	mkbundle '.linux.namespaces += [{type: "time"}]' sleep 1000
	up c2 || return
	for c in c1 c2; do
		run_cmd env BRIG_FAULT=exec.joiner:errno=12 "$BRIG" --root "$T/root" exec "$c" true
		assert_rc 255
		assert_eq "$err" "brig: exec failed: join the container's namespaces: Cannot allocate memory" \
			"$c: the joiner's error"
		run_cmd env BRIG_FAULT=exec.joiner:kill "$BRIG" --root "$T/root" exec "$c" true
		assert_rc 255
		assert_eq "$err" "brig: exec failed: exec process exited before PIDFD" \
			"$c: the joiner killed"
		ex "$c" echo alive
		assert_eq "$rc:$out" "0:alive" "$c: an exec after (stderr: $err)"
		n_in_ps "$c" 1 || fail "$c: processes left: $(ps_pids "$c" | tr '\n' ' ')"
	done
}

# ----------------------------------------------------- delete and kill

t_delete_force() {
	local pid init
	sleeper || return
	init=$(state_field c1 pid)
	ex -d --pid-file "$T/p" c1 sleep 1000
	assert_rc 0
	pid=$(cat "$T/p")
	assert alive "$pid"
	br delete --force c1
	assert_rc 0
	wait_until 5 dead "$pid" || fail "the exec'd sleep survived delete --force"
	assert dead "$init"
	assert_empty_dir "$T/root"
}

t_kill_all() {
	local pid pid2 init
	sleeper || return
	init=$(state_field c1 pid)
	ex -d --pid-file "$T/p" c1 sleep 1000
	assert_rc 0
	pid=$(cat "$T/p")
	ex -d --pid-file "$T/p2" c1 sh -c 'sleep 1000 & wait'
	assert_rc 0
	pid2=$(cat "$T/p2")
	# TERM without --all: the init only, which (PID 1) ignores it
	br kill c1 TERM
	assert_rc 0
	sleep 0.2
	assert alive "$pid"
	br kill --all c1 KILL
	assert_rc 0
	wait_until 5 dead "$pid" || fail "the exec'd sleep survived kill --all"
	wait_until 5 dead "$pid2" || fail "the exec'd sh survived kill --all"
	wait_until 5 is_status c1 stopped || fail "c1 is still $(state_field c1 status)"
	assert dead "$init"
	assert_eq "$(ps_pids c1)" "" "processes left"
	br delete c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

# ------------------------------------------------------------------ mounts

# host_mounts: the host's mount table as tap.sh compares it (no mount ids;
# mounts of other test files running at the same time left out).
host_mounts() {
	_tap_mount_lines | _tap_not_other_tests "$T"
}

t_no_mounts() {
	local before inside i
	sleeper || return
	before=$(host_mounts)
	ex c1 cat /proc/self/mountinfo
	inside=$out
	for ((i = 0; i < 10; i++)); do
		ex c1 true
		assert_rc 0
	done
	ex -d --pid-file "$T/p" c1 sleep 1000
	assert_rc 0
	assert_eq "$(host_mounts)" "$before" "host mountinfo while a detached exec runs"
	for ((i = 0; i < 10; i++)); do
		ex c1 true
		assert_rc 0
	done
	assert_eq "$(host_mounts)" "$before" "host mountinfo after 20 execs"
	ex c1 cat /proc/self/mountinfo
	assert_eq "$out" "$inside" "the container's mountinfo after 20 execs"
	br delete --force c1
	assert_rc 0
	assert_eq "$(host_mounts)" "$before" "host mountinfo after delete"
}

# ------------------------------------------------------------------ --cgroup

# sub_cgroups ID: make "sub" in each of the container's cgroup directories
# (cpuset: with the parent's cpus and mems); echo the directories.
make_sub_cgroups() {
	local d
	for d in $(jq -r '.cgroupPaths // {} | .[]' "$T/root/$1/state.json"); do
		mkdir "$d/sub" || return 1
		if [ -f "$d/cpuset.cpus" ]; then
			cat "$d/cpuset.cpus" >"$d/sub/cpuset.cpus" &&
				cat "$d/cpuset.mems" >"$d/sub/cpuset.mems" || return 1
		fi
		echo "$d/sub"
	done
}

remove_sub_cgroups() {
	local d
	for d in "$@"; do
		rmdir "$d" 2>/dev/null
	done
}

t_cgroup_sub() {
	local subs init want got line
	[ -n "${BRIG_TEST_CGROUPS:-}" ] ||
		skip "needs the cgroups of tests/helpers/subreaper (BRIG_TEST_CGROUPS)"
	sleeper || return
	init=$(state_field c1 pid)
	subs=$(make_sub_cgroups c1) || fail "cannot make the sub-cgroups"
	# shellcheck disable=SC2086
	defer remove_sub_cgroups $subs
	[ -n "$subs" ] || {
		fail "no cgroupPaths in the state"
		return
	}
	ex --cgroup sub c1 cat /proc/self/cgroup
	assert_rc 0
	got=$out
	want=$(while IFS= read -r line; do
		echo "${line%/}/sub"
	done <"/proc/$init/cgroup")
	assert_eq "$got" "$want" "/proc/self/cgroup of exec --cgroup sub"
	# a detached one is in every sub's cgroup.procs
	ex --cgroup sub -d --pid-file "$T/p" c1 sleep 1000
	assert_rc 0
	for d in $subs; do
		grep -qx "$(cat "$T/p")" "$d/cgroup.procs" || fail "the process is not in $d/cgroup.procs"
	done
	in_ps c1 "$(cat "$T/p")" || fail "ps does not list the process in the sub-cgroup"
	# a sub-cgroup that does not exist
	ex --cgroup nosuch c1 true
	assert_rc 255
	assert_lines 1 "$err" "stderr of --cgroup nosuch"
	assert_contains "$err" "nosuch" "stderr of --cgroup nosuch"
	# kill --all reaches it (the init, PID 1 of its namespace, ignores TERM)
	br kill --all c1 TERM
	assert_rc 0
	if ! wait_until 3 dead "$(cat "$T/p")"; then
		fail "kill --all TERM did not reach the process in the sub-cgroup"
		kill -KILL "$(cat "$T/p")"
		wait_until 5 dead "$(cat "$T/p")" || fail "the process does not die"
	fi
	# shellcheck disable=SC2086
	remove_sub_cgroups $subs
	br delete --force c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

# exec --cgroup in runc's forms: CTRL:PATH and CTRL1,CTRL2:PATH for v1
# hierarchies, the flag repeated, each controller in its own sub-cgroup
# and the others in the container's; a bare PATH alone.  Refused in
# runc's words, which its exec.bats matches: a missing sub-cgroup
# (" adding pid ", ".../nosuch/cgroup.procs: no such file "), an unknown
# controller ("unknown controller "), two bare paths ("missing
# <controller>: prefix").  On pure v2 every CTRL: form is an unknown
# controller, as with runc.  Before, the CTRL: form and a second --cgroup
# were refused.  runc runs the refusals side by side where installed.
t_cgroup_forms() {
	local subs runc rt id line ctrl want
	[ -n "${BRIG_TEST_CGROUPS:-}" ] ||
		skip "needs the cgroups of tests/helpers/subreaper (BRIG_TEST_CGROUPS)"
	sleeper || return
	subs=$(make_sub_cgroups c1) || fail "cannot make the sub-cgroups"
	# shellcheck disable=SC2086
	defer remove_sub_cgroups $subs
	if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then
		ex --cgroup memory:sub c1 true
		assert_rc 255
		assert_contains "$err" "unknown controller " "v2: memory:sub"
	else
		ex --cgroup memory:sub --cgroup pids,freezer:sub c1 cat /proc/self/cgroup
		assert_rc 0
		while IFS=: read -r _ ctrl line; do
			case ",$ctrl," in
			*,memory,* | *,pids,* | *,freezer,*) want=sub ;;
			*) want=own ;;
			esac
			if [ "$want" = sub ]; then
				assert_match "$line" '/sub$' "memory:sub --cgroup pids,freezer:sub: $ctrl"
			else
				[[ $line != */sub ]] || fail "memory:sub --cgroup pids,freezer:sub: $ctrl in $line"
			fi
		done <<<"$out"
		ex --cgroup memory:nosuch c1 true
		assert_rc 255
		assert_contains "$err" " adding pid " "memory:nosuch"
		assert_contains "$err" "/nosuch/cgroup.procs: no such file " "memory:nosuch"
	fi
	runc=$(side_runc) || runc=
	if [ -n "$runc" ]; then
		brig_bundle_edit "$T/b" '.linux.cgroupsPath = $cg' --arg cg "runc-$RANDOM"
		"$runc" --root "$T/runc" run -d --bundle "$T/b" r1 </dev/null >/dev/null 2>&1 ||
			fail "runc run -d r1"
		defer "$runc" --root "$T/runc" delete --force r1
	fi
	for rt in brig ${runc:+runc}; do
		if [ "$rt" = brig ]; then
			id=c1
			x() { br exec "$@"; }
		else
			id=r1
			x() { run_cmd "$runc" --root "$T/runc" exec "$@"; }
		fi
		x --cgroup nosuch "$id" true
		assert_rc 255
		assert_contains "$err" " adding pid " "$rt: --cgroup nosuch"
		assert_contains "$err" "/nosuch/cgroup.procs: no such file " "$rt: --cgroup nosuch"
		x --cgroup whaaat:/ "$id" true
		assert_rc 255
		assert_contains "$err" "unknown controller " "$rt: --cgroup whaaat:/"
		x --cgroup a --cgroup b "$id" true
		assert_rc 255
		assert_contains "$err" "missing <controller>: prefix" "$rt: two bare --cgroup"
	done
}

# delete --force with a sub-cgroup the engine made (and left) under the
# container's: runc removes the whole tree, the process in it killed.
t_cgroup_sub_left() {
	local subs pid
	[ -n "${BRIG_TEST_CGROUPS:-}" ] ||
		skip "needs the cgroups of tests/helpers/subreaper (BRIG_TEST_CGROUPS)"
	sleeper || return
	subs=$(make_sub_cgroups c1) || fail "cannot make the sub-cgroups"
	# shellcheck disable=SC2086
	defer remove_sub_cgroups $subs
	ex --cgroup sub -d --pid-file "$T/p" c1 sleep 1000
	assert_rc 0
	pid=$(cat "$T/p")
	br delete --force c1
	assert_rc 0
	assert_eq "$out$err" "" "output of delete --force"
	wait_until 5 dead "$pid" || fail "the process in the sub-cgroup survived delete --force"
	for d in $subs; do
		[ ! -e "$d" ] || fail "$d is still there after delete --force"
	done
	assert_empty_dir "$T/root"
}

tap_test "exec prints the output and relays the exit status" t_output_status
tap_test "a foreground exec forwards signals to its process" t_forward_signal
tap_test "exec joins every namespace and the cgroup of the container" t_namespaces
tap_test "exec joins the user namespace of the container" t_userns
tap_test "exec takes env, cwd and user from the container's config" t_defaults
tap_test "exec --cwd" t_cwd
tap_test "exec --env adds and replaces" t_env
tap_test "exec --user, -u, --additional-gids" t_user
tap_test "exec --cap, --no-new-privs" t_caps_nnp
tap_test "exec --apparmor, --process-label refused without the LSM" t_lsm_refused
tap_test "exec --preserve-fds 1" t_preserve_fds
tap_test "exec --process FILE, also --detach --pid-file" t_process_file
tap_test "exec -t -d --console-socket: the pty round trip" t_tty_console_socket
tap_test "exec -t in the foreground under script" t_tty_foreground
tap_test "exec -t: runc's console socket rules" t_tty_errors
tap_test "exec without -t has no terminal in a terminal container" t_tty_not_inherited
# When exec itself fails its status is 255 and its error "exec failed:
# ...", as runc's (so that a caller tells brig's failure from the
# process's own status); the process's own status passes through.  runc
# runs the same cases side by side where it is installed.
t_exit_status_as_runc() {
	local runc rt id c
	sleeper || return
	runc=$(side_runc) || runc=
	if [ -n "$runc" ]; then
		# a relative cgroupsPath: nested under the caller's, as brig's
		brig_bundle_edit "$T/b" '.linux.cgroupsPath = $cg' --arg cg "runc-$RANDOM"
		"$runc" --root "$T/runc" run -d --bundle "$T/b" r1 </dev/null >/dev/null 2>&1 ||
			fail "runc run -d r1"
		defer "$runc" --root "$T/runc" delete --force r1
	fi
	for rt in brig ${runc:+runc}; do
		if [ "$rt" = brig ]; then
			id=c1
			x() { br exec "$@"; }
		else
			id=r1
			x() { run_cmd "$runc" --root "$T/runc" exec "$@"; }
		fi
		x "$id" nonexist
		assert_rc 255 && assert_contains "$err" "exec failed: " "$rt: a missing command"
		x nosuch true
		assert_rc 255 && assert_contains "$err" "exec failed: " "$rt: no such container"
		x --cgroup ../x "$id" true
		assert_rc 255 && assert_contains "$err" "../x is not a sub cgroup path" "$rt: --cgroup ../x"
		x --cgroup a/.. "$id" true
		assert_rc 0
		x "$id" sh -c 'exit 3'
		assert_rc 3
	done
}

# The exec'd process leads a session and a process group of its own, with
# or without a terminal, as runc's (nsexec calls setsid() for every exec):
# seen from inside, its session id and process group are its own pid.
# Before, without -t, both were brig's caller's, outside the container's
# pid namespace: 0 inside.
t_session_leader() {
	local runc rt id want
	sleeper || return
	runc=$(side_runc) || runc=
	if [ -n "$runc" ]; then
		brig_bundle_edit "$T/b" '.linux.cgroupsPath = $cg' --arg cg "runc-$RANDOM"
		"$runc" --root "$T/runc" run -d --bundle "$T/b" r1 </dev/null >/dev/null 2>&1 ||
			fail "runc run -d r1"
		defer "$runc" --root "$T/runc" delete --force r1
	fi
	for rt in brig ${runc:+runc}; do
		if [ "$rt" = brig ]; then
			id=c1
			x() { br exec "$@"; }
		else
			id=r1
			x() { run_cmd "$runc" --root "$T/runc" exec "$@"; }
		fi
		# pid, then the fields pgrp and session of /proc/PID/stat
		x "$id" sh -c 'echo $$ $(cut -d" " -f5,6 /proc/$$/stat)'
		assert_rc 0
		want=$(awk '{ print $1, $1, $1 }' <<<"$out")
		assert_eq "$out" "$want" "$rt: exec without -t: pid, process group, session"
		x -d "$id" sh -c 'echo $$ $(cut -d" " -f5,6 /proc/$$/stat) >/shared/sid.tmp &&
			mv /shared/sid.tmp /shared/sid-$0' "$rt"
		assert_rc 0
		wait_for "$T/shared/sid-$rt" 50 || fail "$rt: exec -d wrote nothing"
		out=$(cat "$T/shared/sid-$rt")
		want=$(awk '{ print $1, $1, $1 }' <<<"$out")
		assert_eq "$out" "$want" "$rt: exec -d: pid, process group, session"
	done
}

tap_test "exec errors: no container, no command, --user, paused, stopped" t_errors
tap_test "exec's status when exec fails is 255, as runc's" t_exit_status_as_runc
tap_test "exec makes a session leader, with or without -t, as runc's" t_session_leader
tap_test "exec into a created container" t_created
tap_test "the container's seccomp filter applies to exec'd processes" t_seccomp
tap_test "30 execs in parallel" t_parallel
tap_test "the joiner fails or is killed: one line, status 255, the next exec runs" t_joiner_fails
tap_test "delete --force kills exec'd processes" t_delete_force
tap_test "kill --all kills exec'd processes" t_kill_all
tap_test "exec makes no host mount" t_no_mounts
tap_test "exec --cgroup into a sub-cgroup" t_cgroup_sub
tap_test "exec --cgroup CTRL:PATH, repeated, and runc's refusals" t_cgroup_forms
tap_test "delete --force with a sub-cgroup left under the container's" t_cgroup_sub_left
tap_done
