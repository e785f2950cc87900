#!/bin/bash
# File descriptors that reach the container's process: exactly stdio, the
# caller's socket-activation fds ($LISTEN_FDS, when $LISTEN_PID is brig's
# own pid) and the caller's --preserve-fds N fds after them.  Never one of
# brig's own.
#
# The attack: --preserve-fds N (or $LISTEN_FDS) from a caller that left
# holes in [3, 3+N).  brig opens its own fds at the lowest free numbers (the
# bundle directory, the v1 cgroup `tasks` files, the --log file...), and a
# runtime that clears close-on-exec on every fd of the range without
# asking whether the caller really passed it hands them to the container:
# the bundle directory as fd 3 lets the container read
# /proc/self/fd/3/../host-secret and list the host's /tmp, the `tasks`
# files are write-only fds on the host's cgroupfs, the --log file is a host
# file open for writing.  The same goes for `create` (the init keeps them until `start`)
# and `exec` (with --log, its log file).
#
# brig's defence: before it opens anything of its own, it checks that every
# fd it is asked to pass is open in the caller, and refuses a hole in
# runc's words ("unable to stat preserved-fd I (of N): ..."; a hole among
# the $LISTEN_FDS fds names LISTEN_FDS), leaving nothing behind.  `exec`
# follows $LISTEN_FDS only under the LISTEN_PID rule of create and run:
# LISTEN_FDS meant for another process (LISTEN_PID=1, say) passes nothing.
#
# runc 1.1.5 on the same attacks (checked side by side on this host):
# - `run --preserve-fds 10` with fds 3-12 closed is refused, but as
#   "unable to stat preserved-fd 4 (of 10): stat /proc/self/fd/7": runc
#   checks after opening fds of its own at 3-6, which pass its check.
# - `run --preserve-fds 2` with fd 3 open and fd 4 closed (and
#   `exec --preserve-fds 2` the same) is NOT refused: runc's own O_PATH fd
#   of /sys/fs/cgroup sits at 4 and reaches the container, which lists the
#   host's cgroupfs through /proc/self/fd/4/.  runc has the hole too; brig
#   refuses it.
# - LISTEN_FDS=2 (LISTEN_PID=runc) with fd 4 closed: not refused either,
#   the container gets runc's /sys/fs/cgroup fd at 4.
# - `exec` ignores $LISTEN_FDS altogether (whatever LISTEN_PID says): it
#   passes nothing for them.  brig's exec passes them under the LISTEN_PID
#   rule of create and run, and nothing otherwise.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

# What the container runs: the list of its fds (through ls, which has
# closed its own directory fd by the time it reads the links, so that fd
# has no "->"), then for each fd from 3 on where it leads, what a file
# holds, what a directory lists, and any host-secret next to or above it.
# shellcheck disable=SC2016
PROBE='echo "fds: $(ls -l /proc/self/fd/ | awk '\''$(NF-1) == "->" { print $(NF-2) }'\'' | sort -n | tr "\n" " ")"
echo "env: $(env | grep ^LISTEN_ | sort | tr "\n" " ")"
n=3
while [ $n -lt 64 ]; do
	p=/proc/self/fd/$n
	if [ -e $p ]; then
		echo "fd $n -> $(readlink $p)"
		[ ! -d $p ] || echo "DIR fd $n: $(ls -A $p/ | head -20 | tr "\n" " ")"
		[ ! -f $p ] || echo "read $n: $(head -c 100 $p)"
	fi
	cat $p/host-secret $p/../host-secret $p/../../host-secret 2>/dev/null
	n=$((n + 1))
done
echo "probe done"'

# fdrun [-o PREFIX] [-l N] [FD=FILE]... -- CMD [ARGS...]: run_cmd CMD with
# every fd from 3 to 63 closed, but each FD opened read-only on FILE.
# With -l, CMD gets LISTEN_FDS=N and LISTEN_PID=its own pid (the shell
# that sets them execs CMD, which keeps the pid).  With -o, CMD's stdout
# and stderr go to PREFIX.out and PREFIX.err (where a created container
# writes after `start`), read back into out and err.
# shellcheck disable=SC2016
FDRUN='if [ "$1" = -o ]; then exec >"$2.out" 2>"$2.err"; shift 2; fi
if [ "$1" = -l ]; then export LISTEN_FDS=$2 LISTEN_PID=$$; shift 2; fi
for ((fd = 3; fd < 64; fd++)); do eval "exec $fd<&-"; done
while [ "$1" != -- ]; do eval "exec ${1%%=*}<\"\${1#*=}\""; shift; done
shift
exec "$@"'
fdrun() {
	run_cmd bash -c "$FDRUN" fdrun "$@"
	if [ "$1" = -o ]; then
		out=$(cat "$2.out")
		err=$(cat "$2.err")
	fi
}

# setup: the bundle $T/b running the probe; next to it $T/host-secret
# (what /proc/self/fd/N/../host-secret reaches when N is the bundle
# directory) and the host directory $T/host with a secret in it; the
# files $T/m<N>, each with its own marker, for the caller to pass.
setup() {
	local n
	require_root
	require_cmd jq
	SECRET="host-secret-$RANDOM$RANDOM"
	TOKEN=$RANDOM$RANDOM
	echo "$SECRET" >"$T/host-secret"
	mkdir -p "$T/host"
	echo "$SECRET" >"$T/host/host-secret"
	for ((n = 3; n < 16; n++)); do
		echo "marker-$n-$TOKEN" >"$T/m$n"
	done
	bundle "$T/b"
	brig_bundle_edit "$T/b" '.process.args = ["sh", "-c", $p]' --arg p "$PROBE" || exit 1
	defer "$BRIG" --root "$T/root" delete --force c
}

# untouched WHAT: the last command's container (if it ran) reached no
# host secret and no directory through its fds.
untouched() {
	assert_not_contains "$out$err" "$SECRET" "output of $1"
	assert_not_contains "$out" "DIR fd" "output of $1"
}

# refused WHAT TEXT [exec]: the last command was refused, with TEXT in its
# error; its container (its process, for exec) never ran and nothing is
# left under $T/root (for exec: nothing but the init in `c`).
refused() {
	assert_ne "$rc" 0 "exit status of $1"
	assert_contains "$err" "$2" "error of $1"
	assert_not_contains "$out" "fds:" "output of $1 (the container must not run)"
	if [ "$rc" -eq 0 ]; then
		diag "what the container of $1 found:" "$(grep '^fd ' <<<"$out")"
	fi
	untouched "$1"
	if [ "${3:-}" = exec ]; then
		wait_until 5 init_alone ||
			fail "processes in c after $1: $(n_procs), expected 1"
	else
		assert_empty_dir "$T/root"
	fi
}

# passed WHAT [N...]: the last command's container ran and had exactly the
# fds 0, 1, 2 and N..., each N the caller's $T/m<N>.
passed() {
	local what=$1 n want="fds: 0 1 2 "
	shift
	for n; do want+="$n "; done
	untouched "$what"
	assert_contains "$out" "probe done" "output of $what" || {
		diag "stderr: $err"
		return 1
	}
	assert_eq "$(grep '^fds:' <<<"$out")" "$want" "fds of the container's process ($what)" ||
		diag "$(grep '^fd ' <<<"$out")"
	for n; do
		assert_contains "$out" "read $n: marker-$n-$TOKEN" "what fd $n reads ($what)"
	done
}

# finish_created: start the created `c`, wait for it to stop, delete it,
# and read back what it printed (to $T/c.out and $T/c.err: fdrun -o "$T/c").
finish_created() {
	local rc_create=$rc
	if [ "$rc" -eq 0 ]; then
		"$BRIG" --root "$T/root" start c || fail "start c"
		wait_until 10 is_status c stopped || fail "c did not stop"
		"$BRIG" --root "$T/root" delete --force c || fail "delete c"
	fi
	out=$(cat "$T/c.out")
	err=$(cat "$T/c.err")
	rc=$rc_create
}

# exec_setup: the container `c` of setup(), running sleep, for exec.
exec_setup() {
	setup
	brig_bundle_edit "$T/b" '.process.args = ["sleep", "1000"]' || exit 1
	run_cmd "$BRIG" --root "$T/root" run --detach --bundle "$T/b" c
	assert_rc 0 || exit 1
}

# n_procs: the number of processes in `c`.
n_procs() {
	"$BRIG" --root "$T/root" ps --format json c | jq -r length
}

# init_alone: `c` holds its init and nothing else.
init_alone() {
	[ "$(n_procs)" = 1 ]
}

# The finding itself: `run --preserve-fds 10` from a caller with fds 3-12
# closed (brig's bundle directory landed at 3, its v1 `tasks` files at
# 7-12), with only fd 3 open, with --log (its fd at 3), and
# `--preserve-fds 2` with fd 3 open and 4 closed.  (runc 1.1.5 refuses the
# first as "preserved-fd 4 (of 10)", its own fds at 3-6 passing its check,
# and runs the `--preserve-fds 2` one with its /sys/fs/cgroup fd at 4.)
t_run_holes() {
	setup
	fdrun -- "$BRIG" --root "$T/root" run --preserve-fds 10 --bundle "$T/b" c
	refused "run --preserve-fds 10 (fds 3-12 closed)" "unable to stat preserved-fd 0 (of 10)"

	fdrun 3="$T/m3" -- "$BRIG" --root "$T/root" run --preserve-fds 10 --bundle "$T/b" c
	refused "run --preserve-fds 10 (fd 3 open, 4-12 closed)" "unable to stat preserved-fd 1 (of 10)"

	fdrun 3="$T/m3" -- "$BRIG" --root "$T/root" run --preserve-fds 2 --bundle "$T/b" c
	refused "run --preserve-fds 2 (fd 3 open, 4 closed)" "unable to stat preserved-fd 1 (of 2)"

	fdrun 3="$T/m3" 4="$T/m4" 5="$T/m5" 7="$T/m7" -- \
		"$BRIG" --root "$T/root" run --preserve-fds 5 --bundle "$T/b" c
	refused "run --preserve-fds 5 (fd 6 closed)" "unable to stat preserved-fd 3 (of 5)"

	fdrun -- "$BRIG" --log "$T/brig.log" --root "$T/root" run --preserve-fds 10 --bundle "$T/b" c
	refused "--log run --preserve-fds 10 (fds 3-12 closed)" "unable to stat preserved-fd 0 (of 10)"
}

# The same through create + start: the init holds brig's fds until start.
# (runc 1.1.5's create with fd 3 open and 4 closed: its /sys/fs/cgroup fd
# reaches the container at 4.)
t_create_holes() {
	setup
	fdrun -o "$T/c" -- "$BRIG" --root "$T/root" create --preserve-fds 10 --bundle "$T/b" c
	finish_created
	refused "create --preserve-fds 10 (fds 3-12 closed)" "unable to stat preserved-fd 0 (of 10)"
	run_cmd "$BRIG" --root "$T/root" start c
	assert_ne "$rc" 0 "exit status of start after a refused create"

	fdrun -o "$T/c" 3="$T/m3" -- "$BRIG" --root "$T/root" create --preserve-fds 2 --bundle "$T/b" c
	finish_created
	refused "create --preserve-fds 2 (fd 3 open, 4 closed)" "unable to stat preserved-fd 1 (of 2)"

	fdrun -o "$T/c" -- "$BRIG" --log "$T/brig.log" --root "$T/root" create --preserve-fds 4 \
		--bundle "$T/b" c
	finish_created
	refused "--log create --preserve-fds 4 (fds 3-6 closed)" "unable to stat preserved-fd 0 (of 4)"
}

# $LISTEN_FDS meant for brig (LISTEN_PID is its pid) with a hole: those fds
# are passed as they are, so a hole is refused as well, naming LISTEN_FDS;
# a hole among the --preserve-fds after them is a preserved-fd's.  (runc
# 1.1.5 is not refused: the container gets its /sys/fs/cgroup fd at 4.)
t_listen_holes() {
	setup
	fdrun -l 2 3="$T/m3" -- "$BRIG" --root "$T/root" run --bundle "$T/b" c
	refused "LISTEN_FDS=2 run (fd 4 closed)" "LISTEN_FDS"

	fdrun -l 2 -- "$BRIG" --root "$T/root" run --bundle "$T/b" c
	refused "LISTEN_FDS=2 run (fds 3-4 closed)" "LISTEN_FDS"

	fdrun -l 2 3="$T/m3" 4="$T/m4" -- \
		"$BRIG" --root "$T/root" run --preserve-fds 2 --bundle "$T/b" c
	refused "LISTEN_FDS=2 run --preserve-fds 2 (fds 5-6 closed)" "unable to stat preserved-fd 0 (of 2)"

	fdrun -o "$T/c" -l 2 3="$T/m3" -- "$BRIG" --root "$T/root" create --bundle "$T/b" c
	finish_created
	refused "LISTEN_FDS=2 create (fd 4 closed)" "LISTEN_FDS"
}

# `brig exec --preserve-fds` with holes: with --log, the log file (a host
# file, open for writing) sat at fd 3 and reached the exec'd process.
# (runc 1.1.5: `--log exec --preserve-fds 6` with fds 3-8 closed is refused
# as "preserved-fd 5 (of 6)"; `exec --preserve-fds 2` with fd 4 closed
# runs, with runc's /sys/fs/cgroup fd at 4.)
t_exec_holes() {
	exec_setup
	fdrun -- "$BRIG" --log "$T/brig.log" --root "$T/root" exec --preserve-fds 6 c sh -c "$PROBE"
	err+=$(cat "$T/brig.log" 2>/dev/null)
	refused "--log exec --preserve-fds 6 (fds 3-8 closed)" "unable to stat preserved-fd 0 (of 6)" exec

	fdrun -- "$BRIG" --root "$T/root" exec --preserve-fds 6 c sh -c "$PROBE"
	refused "exec --preserve-fds 6 (fds 3-8 closed)" "unable to stat preserved-fd 0 (of 6)" exec

	fdrun 3="$T/m3" -- "$BRIG" --root "$T/root" exec --preserve-fds 2 c sh -c "$PROBE"
	refused "exec --preserve-fds 2 (fd 3 open, 4 closed)" "unable to stat preserved-fd 1 (of 2)" exec

	# detached: what it would find goes to the container's /dev/shm
	fdrun 3="$T/m3" -- "$BRIG" --root "$T/root" exec --detach --preserve-fds 2 c \
		sh -c "{ $PROBE; } >/dev/shm/probe 2>&1"
	refused "exec --detach --preserve-fds 2 (fd 3 open, 4 closed)" "unable to stat preserved-fd 1 (of 2)" exec
	run_cmd "$BRIG" --root "$T/root" exec c cat /dev/shm/probe
	assert_ne "$rc" 0 "exit status of cat /dev/shm/probe (the refused exec --detach must not run)"
	untouched "exec --detach --preserve-fds 2 (fd 3 open, 4 closed)"

	fdrun -l 2 3="$T/m3" -- "$BRIG" --root "$T/root" exec c sh -c "$PROBE"
	refused "LISTEN_FDS=2 exec (fd 4 closed)" "LISTEN_FDS" exec

	run_cmd "$BRIG" --root "$T/root" delete --force c
	assert_rc 0
	assert_empty_dir "$T/root"
}

# When the caller really passes every fd, exactly those reach the
# container, each the caller's own file, and nothing of brig's (--log
# included): run, create + start, exec, with $LISTEN_FDS and
# --preserve-fds together.  (runc 1.1.5 the same for run; its exec passes
# no $LISTEN_FDS fd.)
t_all_passed() {
	setup
	fdrun 3="$T/m3" 4="$T/m4" 5="$T/m5" 6="$T/m6" 7="$T/m7" 8="$T/m8" 9="$T/m9" \
		10="$T/m10" 11="$T/m11" 12="$T/m12" -- \
		"$BRIG" --log "$T/brig.log" --root "$T/root" run --preserve-fds 10 --bundle "$T/b" c
	assert_rc 0
	passed "--log run --preserve-fds 10" 3 4 5 6 7 8 9 10 11 12
	assert_empty_dir "$T/root"

	# fd 5 open but not passed: closed
	fdrun 3="$T/m3" 4="$T/m4" 5="$T/m5" -- \
		"$BRIG" --root "$T/root" run --preserve-fds 2 --bundle "$T/b" c
	assert_rc 0
	passed "run --preserve-fds 2" 3 4

	fdrun -l 2 3="$T/m3" 4="$T/m4" 5="$T/m5" -- \
		"$BRIG" --root "$T/root" run --preserve-fds 1 --bundle "$T/b" c
	assert_rc 0
	passed "LISTEN_FDS=2 run --preserve-fds 1" 3 4 5
	assert_contains "$out" "env: LISTEN_FDS=2 LISTEN_PID=1 " "environment of the container"

	fdrun -o "$T/c" 3="$T/m3" 4="$T/m4" 5="$T/m5" 6="$T/m6" -- \
		"$BRIG" --log "$T/brig.log" --root "$T/root" create --preserve-fds 3 --bundle "$T/b" c
	assert_rc 0
	finish_created
	passed "--log create --preserve-fds 3" 3 4 5
	assert_empty_dir "$T/root"

	brig_bundle_edit "$T/b" '.process.args = ["sleep", "1000"]' || return
	run_cmd "$BRIG" --root "$T/root" run --detach --bundle "$T/b" c
	assert_rc 0 || return
	fdrun 3="$T/m3" 4="$T/m4" 5="$T/m5" 6="$T/m6" 7="$T/m7" 8="$T/m8" -- \
		"$BRIG" --log "$T/brig.log" --root "$T/root" exec --preserve-fds 6 c sh -c "$PROBE"
	assert_rc 0
	passed "--log exec --preserve-fds 6" 3 4 5 6 7 8
	fdrun -l 2 3="$T/m3" 4="$T/m4" 5="$T/m5" -- \
		"$BRIG" --root "$T/root" exec --preserve-fds 1 c sh -c "$PROBE"
	assert_rc 0
	passed "LISTEN_FDS=2 exec --preserve-fds 1" 3 4 5
	run_cmd "$BRIG" --root "$T/root" delete --force c
	assert_rc 0
	assert_empty_dir "$T/root"
}

# Finding 4: `exec` followed $LISTEN_FDS without looking at $LISTEN_PID,
# so `env LISTEN_FDS=2 LISTEN_PID=1 brig exec ... 3<hostdir` (an
# environment meant for another process, inherited by brig) handed the
# host directory to the exec'd process.  Under the rule of create and run
# those fds are not passed, and --preserve-fds counts from 3 then.  (runc
# 1.1.5's exec never passes $LISTEN_FDS fds.)
t_exec_listen_not_ours() {
	exec_setup
	fdrun 3="$T/host" 4="$T/host" -- env LISTEN_FDS=2 LISTEN_PID=1 \
		"$BRIG" --root "$T/root" exec c sh -c "$PROBE"
	assert_rc 0
	passed "LISTEN_FDS=2 LISTEN_PID=1 exec"
	assert_contains "$out" $'env: \n' "environment of the exec'd process"

	# no LISTEN_PID at all, and the pid of brig's caller
	fdrun 3="$T/host" 4="$T/host" -- env -u LISTEN_PID LISTEN_FDS=2 \
		"$BRIG" --root "$T/root" exec c sh -c "$PROBE"
	assert_rc 0
	passed "LISTEN_FDS=2 exec without LISTEN_PID"
	fdrun 3="$T/host" 4="$T/host" -- env LISTEN_FDS=2 LISTEN_PID=$BASHPID \
		"$BRIG" --root "$T/root" exec --detach c sh -c "{ $PROBE; } >/dev/shm/probe 2>&1"
	assert_rc 0
	wait_until 10 init_alone || fail "exec --detach did not end"
	run_cmd "$BRIG" --root "$T/root" exec c cat /dev/shm/probe
	passed "LISTEN_FDS=2 LISTEN_PID=<brig's caller> exec --detach"

	# --preserve-fds counts from fd 3: fd 3 is the preserved one
	fdrun 3="$T/m3" 4="$T/host" 5="$T/host" -- env LISTEN_FDS=2 LISTEN_PID=1 \
		"$BRIG" --root "$T/root" exec --preserve-fds 1 c sh -c "$PROBE"
	assert_rc 0
	passed "LISTEN_FDS=2 LISTEN_PID=1 exec --preserve-fds 1" 3

	run_cmd "$BRIG" --root "$T/root" delete --force c
	assert_rc 0
	assert_empty_dir "$T/root"
}

# Regression guard: `run` (and create) with $LISTEN_FDS meant for another
# process passes none of those fds and announces none; --preserve-fds
# counts from fd 3.  (runc 1.1.5 behaves the same.)
t_run_listen_not_ours() {
	setup
	fdrun 3="$T/host" 4="$T/host" -- env LISTEN_FDS=2 LISTEN_PID=1 \
		"$BRIG" --root "$T/root" run --bundle "$T/b" c
	assert_rc 0
	passed "LISTEN_FDS=2 LISTEN_PID=1 run"
	assert_contains "$out" $'env: \n' "environment of the container"

	fdrun 3="$T/host" 4="$T/host" -- env LISTEN_FDS=2 LISTEN_PID=$BASHPID \
		"$BRIG" --root "$T/root" run --bundle "$T/b" c
	assert_rc 0
	passed "LISTEN_FDS=2 LISTEN_PID=<brig's caller> run"

	fdrun 3="$T/m3" 4="$T/host" 5="$T/host" -- env LISTEN_FDS=2 LISTEN_PID=1 \
		"$BRIG" --root "$T/root" run --preserve-fds 1 --bundle "$T/b" c
	assert_rc 0
	passed "LISTEN_FDS=2 LISTEN_PID=1 run --preserve-fds 1" 3

	fdrun -o "$T/c" 3="$T/host" 4="$T/host" -- env LISTEN_FDS=2 LISTEN_PID=1 \
		"$BRIG" --root "$T/root" create --bundle "$T/b" c
	assert_rc 0
	finish_created
	passed "LISTEN_FDS=2 LISTEN_PID=1 create"
	assert_empty_dir "$T/root"
}

brig_file_bundle

# A caller with its stdin closed (and --log): brig's first fd takes the
# lowest free number, 0.  At 18285a8 they were all close-on-exec, so the
# container found 0 closed, but until execve the init and the exec child
# held one of brig's fds as their stdin (and a hook, its stdin), and one
# opened without close-on-exec would have stayed.  brig now opens
# /dev/null on a closed 0, 1 or 2 before anything else: the container's
# stdin is /dev/null, for run, create and exec.  (runc gives a closed
# stdio /dev/null too, as Go's os/exec does for a nil reader.)
# shellcheck disable=SC2016
CLOSE0='exec 0<&-; exec "$@"'
t_closed_stdio() {
	local cmd
	setup
	brig_bundle_edit "$T/b" '.process.args = ["sh", "-c", "echo \"stdin: $(readlink /proc/self/fd/0)\"; "+$p]' \
		--arg p "$PROBE" || exit 1
	for cmd in run create; do
		if [ "$cmd" = run ]; then
			fdrun -- bash -c "$CLOSE0" _ "$BRIG" --root "$T/root" --log "$T/log" run --bundle "$T/b" c
		else
			fdrun -o "$T/c" -- bash -c "$CLOSE0" _ "$BRIG" --root "$T/root" --log "$T/log" create --bundle "$T/b" c
			finish_created
		fi
		assert_rc 0
		assert_contains "$out" "stdin: /dev/null" "the container's stdin ($cmd)"
		passed "$cmd with stdin closed"
		assert_empty_dir "$T/root"
	done
	exec_setup
	fdrun -- bash -c "$CLOSE0" _ "$BRIG" --root "$T/root" --log "$T/log" exec c sh -c "echo \"stdin: \$(readlink /proc/self/fd/0)\"; $PROBE"
	assert_rc 0
	assert_contains "$out" "stdin: /dev/null" "the exec'd process's stdin"
	passed "exec with stdin closed"
}

tap_test "fd leaks: run --preserve-fds with a hole is refused, brig's own fds never reach the container" t_run_holes
tap_test "fd leaks: create --preserve-fds with a hole is refused, nothing left to start" t_create_holes
tap_test "fd leaks: \$LISTEN_FDS meant for brig with a hole is refused" t_listen_holes
tap_test "fd leaks: exec --preserve-fds with a hole (and --log) is refused" t_exec_holes
tap_test "fd leaks: exactly the fds the caller passes reach the container, each the caller's" t_all_passed
tap_test "fd leaks: exec passes no \$LISTEN_FDS fd meant for another pid" t_exec_listen_not_ours
tap_test "fd leaks: run passes no \$LISTEN_FDS fd meant for another pid" t_run_listen_not_ours
tap_test "fd leaks: a closed stdin becomes /dev/null, never one of brig's fds" t_closed_stdio
tap_done
