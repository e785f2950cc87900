#!/bin/bash
# process.terminal: the pty round trip over --console-socket (create +
# start, run --detach) with contrib/console-receiver on the other end; a
# foreground `run` relaying its own stdio under script(1) (output, input,
# exit status, consoleSize, brig's own terminal size and SIGWINCH); the pty
# owned by the container's user; and runc's errors for a console socket
# that is missing or not wanted.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"

RECEIVER=$BRIG_BUILDDIR/contrib/console-receiver/brig-console-receiver
[ -x "$RECEIVER" ] || skip_all "needs $RECEIVER (make)"

brig_file_rootfs

# --------------------------------------------------------------- helpers

# tty_bundle FILTER CMD [ARGS...]: the bundle $T/b on the shared rootfs with
# a terminal, running CMD ARGS, then the jq FILTER.
tty_bundle() {
	local filter=$1 args
	shift
	args=$(json_args "$@") &&
		mkdir -p "$T/b" &&
		rm -f "$T/b/config.json" &&
		"$BRIG" spec --bundle "$T/b" &&
		brig_bundle_edit "$T/b" '.process.terminal = true | .process.args = $a
			| .root.path = $root | '"$filter" \
			--argjson a "$args" --arg root "$ROOTFS" ||
		fail "cannot write the bundle $T/b"
}

# lines FILE: FILE without carriage returns.
lines() {
	tr -d '\r' <"$1"
}

# in_script CMD: CMD under script(1), on a pty of its own; sets out (the
# pty's output without carriage returns), err and rc.  script's stdin is a
# fifo that stays open and empty: at end-of-file script would type ^D,
# and one typed before brig turns its terminal raw comes out as a NUL.
in_script() {
	[ -p "$T/tty-in" ] || mkfifo "$T/tty-in"
	timeout -k 5 "${TAP_TIMEOUT:-60}" script -qfec "$1" /dev/null \
		9<>"$T/tty-in" <"$T/tty-in" >"$T/tty-out" 2>"$T/tty-err"
	rc=$?
	out=$(tr -d '\r' <"$T/tty-out")
	err=$(cat "$T/tty-err")
}

# ------------------------------------------------------- console socket

# What the receiver types into the container's shell; each answer is on
# a line of its own that the echo of the command line cannot match.
SESSION='echo hi
tty
stty size
for f in 0 1 2; do echo "fd$f $(readlink /proc/$$/fd/$f)"; done
stat -c "console %t:%T" /dev/console
stat -L -c "stdin %t:%T" /proc/self/fd/0
exit 3
'

check_session() { # OUTPUT
	local l
	for l in hi /dev/pts/0 "30 100" "fd0 /dev/pts/0" "fd1 /dev/pts/0" "fd2 /dev/pts/0" \
		"console 88:0" "stdin 88:0" "status 3"; do
		grep -qxF "$l" <<<"$1" || fail "no line $(_show "$l") in the container's output: $(_show "$1")"
	done
}

t_console_socket_create_start() {
	local pid
	tty_bundle '.process.consoleSize = {height: 30, width: 100}' sh -c 'sh; echo "status $?"'
	printf '%s' "$SESSION" >"$T/in"
	start_receiver "$T/sock" --in "$T/in" --out "$T/out"
	br create --bundle "$T/b" --console-socket "$T/sock" c1
	assert_rc 0
	assert_eq "$out$err" "" "output of create"
	defer "$BRIG" --root "$T/root" delete --force c1
	assert_eq "$(state_field c1 status)" created "status after create"
	pid=$(state_field c1 pid)
	# the created init already holds its terminal: stdio and the ctty
	assert_eq "$(readlink "/proc/$pid/fd/0")" /dev/pts/0 "stdin of the created init"
	assert_eq "$(sed 's/^.*) //' "/proc/$pid/stat" | awk '{ print $5 }')" $((0x8800)) \
		"tty_nr (the ctty) of the created init"
	br start c1
	assert_rc 0
	wait_exit "$RECV_PID" 20
	assert_eq "$rc" 0 "exit status of the receiver ($(cat "$T/receiver.err"))"
	check_session "$(lines "$T/out")"
	wait_until 5 is_status c1 stopped || fail "the container did not stop"
	br delete c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

t_console_socket_run_detach() {
	tty_bundle '.process.consoleSize = {height: 30, width: 100}' sh -c 'sh; echo "status $?"'
	printf '%s' "$SESSION" >"$T/in"
	start_receiver "$T/sock" --in "$T/in" --out "$T/out"
	br run --detach --bundle "$T/b" --console-socket "$T/sock" c1
	assert_rc 0
	defer "$BRIG" --root "$T/root" delete --force c1
	wait_exit "$RECV_PID" 20
	check_session "$(lines "$T/out")"
	wait_until 5 is_status c1 stopped || fail "the container did not stop"
	br delete c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

# The receiver hangs up before the container starts: the container's
# terminal is hung up, not brig's business; create itself succeeded.
t_console_socket_receiver_gone() {
	tty_bundle . sh -c 'echo hello'
	: >"$T/in"
	start_receiver "$T/sock" --in "$T/in" --out "$T/out"
	br create --bundle "$T/b" --console-socket "$T/sock" c1
	assert_rc 0
	defer "$BRIG" --root "$T/root" delete --force c1
	kill -KILL "$RECV_PID"
	wait "$RECV_PID" 2>/dev/null
	br start c1
	assert_rc 0
	br delete --force c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

t_console_socket_missing() {
	tty_bundle . true
	br create --bundle "$T/b" --console-socket "$T/nothing" c1
	assert_rc 1
	assert_err_line "brig: connect to the console socket \"$T/nothing\": No such file or directory"
	assert_empty_dir "$T/root"
}

# --------------------------------------------------------- runc's rules

t_detach_without_socket() {
	tty_bundle . true
	br run --detach --bundle "$T/b" c1
	assert_rc 1
	assert_err_line "brig: cannot allocate tty if brig will detach without setting console socket"
	br create --bundle "$T/b" c1
	assert_rc 1
	assert_err_line "brig: cannot allocate tty if brig will detach without setting console socket"
	assert_empty_dir "$T/root"
}

t_socket_without_tty_or_detach() {
	: >"$T/sock" # never connected to: the rules come first
	tty_bundle '.process.terminal = false' true
	br create --bundle "$T/b" --console-socket "$T/sock" c1
	assert_rc 1
	assert_err_line "brig: cannot use console socket if brig will not detach or allocate tty"
	br run --detach --bundle "$T/b" --console-socket "$T/sock" c1
	assert_rc 1
	assert_err_line "brig: cannot use console socket if brig will not detach or allocate tty"
	# a foreground run relays its own stdio: no socket either
	tty_bundle . true
	br run --bundle "$T/b" --console-socket "$T/sock" c1
	assert_rc 1
	assert_err_line "brig: cannot use console socket if brig will not detach or allocate tty"
	assert_empty_dir "$T/root"
}

# --------------------------------------------------- foreground run -t

t_run_tty_output_status() {
	require_cmd script
	tty_bundle '.process.consoleSize = {height: 30, width: 100}' \
		sh -c 'echo hello; tty; stty size; [ -t 0 ] && [ -t 2 ] && echo "stdio ttys"; exit 7'
	in_script "$BRIG --root $T/root run --bundle $T/b c1"
	assert_rc 7
	# no size of its own under script: consoleSize stays
	assert_eq "$out" "hello
/dev/pts/0
30 100
stdio ttys" "output"
	assert_empty_dir "$T/root"
}

t_run_tty_signal_status() {
	require_cmd script
	tty_bundle . sh -c 'kill -TERM $$; sleep 5'
	# as pid 1 of its namespace the shell ignores SIGTERM: it has its own
	brig_bundle_edit "$T/b" '.linux.namespaces |= map(select(.type != "pid"))'
	in_script "$BRIG --root $T/root run --bundle $T/b c1"
	assert_rc 143
	assert_empty_dir "$T/root"
}

# brig's input reaches the container's shell; brig's terminal is raw (its
# own echo is off: the command line shows once, from the container's pty).
t_run_tty_input() {
	require_cmd script
	tty_bundle . sh
	(
		printf 'echo "in-$((6 * 7))-container"; exit 5\n'
		sleep 2
	) | timeout -k 5 60 script -qfec "$BRIG --root $T/root run --bundle $T/b c1" /dev/null \
		>"$T/out" 2>&1
	rc=$?
	assert_eq "$rc" 5 "exit status"
	assert_contains "$(lines "$T/out")" "
in-42-container" "output"
	assert_empty_dir "$T/root"
}

# brig's terminal is raw while it relays (the container's pty does the
# echo and the line editing) and as it was afterwards.
t_run_tty_restores_terminal() {
	local during
	require_cmd script
	tty_bundle . sh -c 'sleep 1'
	in_script "stty -g >$T/before; (sleep 0.5; stty -F /dev/tty -a >$T/during) &
		$BRIG --root $T/root run --bundle $T/b c1; stty -g >$T/after; wait"
	assert_rc 0
	assert_eq "$(cat "$T/after")" "$(cat "$T/before")" "the terminal after run"
	during=" $(tr '\n;' '  ' <"$T/during") "
	assert_contains "$during" " -icanon " "the terminal during run"
	assert_contains "$during" " -echo " "the terminal during run"
	assert_contains "$during" " -isig " "the terminal during run"
	assert_contains "$during" " opost " "the terminal during run (output processing kept)"
	assert_empty_dir "$T/root"
}

# brig's own terminal has a size: the container's pty takes it (runc).
t_run_tty_host_size() {
	require_cmd script
	tty_bundle '.process.consoleSize = {height: 30, width: 100}' stty size
	in_script "stty rows 40 cols 132; $BRIG --root $T/root run --bundle $T/b c1"
	assert_rc 0
	assert_eq "$out" "40 132" "size in the container"
	assert_empty_dir "$T/root"
}

# SIGWINCH on brig: the container's pty follows, and the container gets
# its own SIGWINCH from its terminal (brig does not forward it).  The
# new size is set in one TIOCSWINSZ: `stty rows 50 cols 60` makes two,
# 50x80 then 50x60, and a brig slow enough (the asan build's, once in
# CI) relays the first before the second, so that the container's trap
# printed both sizes.
t_run_tty_winch() {
	require_cmd script
	require_cmd perl
	printf '%s\n' 'require "sys/ioctl.ph";' 'my $ws = pack("S4", 50, 60, 0, 0);' \
		'ioctl(STDIN, &TIOCSWINSZ, $ws) or die "TIOCSWINSZ: $!\n";' >"$T/winsz.pl"
	tty_bundle . sh -c 'trap "stty size; exit 0" WINCH; echo ready
		i=0; while [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done; echo no-winch'
	in_script "sh -c '$BRIG --root $T/root run --bundle $T/b c1 & sleep 1.5; perl $T/winsz.pl; wait \$!'"
	assert_rc 0
	assert_eq "$out" "ready
50 60" "output"
	assert_empty_dir "$T/root"
}

# A container user gets its pty (runc chowns it), so it can reopen it.
t_run_tty_user() {
	require_cmd script
	tty_bundle '.process.user = {uid: 1000, gid: 1000}' \
		sh -c 'stat -c "owner %u" /dev/pts/0; echo reopened >/dev/pts/0; echo console >/dev/console'
	in_script "$BRIG --root $T/root run --bundle $T/b c1"
	assert_rc 0
	assert_eq "$out" "owner 1000
reopened
console" "output"
	assert_empty_dir "$T/root"
}

tap_test "console socket: create + start, the pty round trip" t_console_socket_create_start
tap_test "console socket: run --detach" t_console_socket_run_detach
tap_test "console socket: the receiver hangs up before start" t_console_socket_receiver_gone
tap_test "console socket: a missing socket fails create, nothing left" t_console_socket_missing
tap_test "a terminal and --detach without a console socket: runc's error" t_detach_without_socket
tap_test "a console socket without a terminal or detach: runc's error" t_socket_without_tty_or_detach
tap_test "run with a terminal: output and exit status under script" t_run_tty_output_status
tap_test "run with a terminal: 128+N when the container is killed" t_run_tty_signal_status
tap_test "run with a terminal: input reaches the container" t_run_tty_input
tap_test "run with a terminal: brig's terminal is raw, then restored" t_run_tty_restores_terminal
tap_test "run with a terminal: the pty takes the size of brig's terminal" t_run_tty_host_size
tap_test "run with a terminal: SIGWINCH resizes the pty" t_run_tty_winch
tap_test "run with a terminal: the pty belongs to the container's user" t_run_tty_user
tap_done
