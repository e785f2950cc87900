#!/bin/bash
# ptrace and /proc/PID/* of the runtime's own processes, from inside the
# container.  While `brig exec` joins a container, and while the init of a
# container that joins another's pid namespace sets it up, a process
# running brig's code (with brig's privileges, before the capabilities,
# the filter and the user of the container apply) lives in the container's
# pid namespace.  A process of the container that got hold of it -- by
# PTRACE_ATTACH / PTRACE_SEIZE, process_vm_readv(), /proc/PID/mem, or
# /proc/PID/{exe,fd/*,root,cwd} -- would run code as brig, or reach what
# brig holds: the host's root and cwd before it enters the container, its
# fds, its binary (CVE-2016-9962 was runc's exec process reachable so).
#
# brig's defence: the init and the exec process are born non-dumpable
# (PR_SET_DUMPABLE 0 before clone3), so the kernel refuses all of these
# (ptrace_may_access) to a process without CAP_SYS_PTRACE; execve of the
# container's program makes it dumpable again.
#
# The attack is real: container A runs tests/security/ptrace-attacker as
# its init, root in the container, and it polls every pid of A's pid
# namespace in a tight loop, trying all of the above on each; meanwhile
# the test runs `brig exec` into A over and over, and creates, starts,
# deletes and runs containers B that join A's pid namespace.  A holds the
# capabilities Docker gives a container by default; the brig under attack
# is a copy of the build's.  A host file $T/secret (the attacker knows its
# path; it does not exist in the container) must never be read.
#
# With CAP_SYS_PTRACE added to A, the kernel lets A trace every process of
# its pid namespace, dumpable or not (no LSM here restricts ptrace): no
# runtime can refuse the attach, runc included, and with it the code of
# that process (/proc/PID/mem is writable too) and the privileges it has
# before it applies the container's are the attacker's.  What a runtime
# still controls is what its processes hold while they are visible: their
# root and cwd must be the container's, and no fd of theirs may be a
# directory of the host.  Those two tests assert that (a directory fd is
# a way out when the secret can be opened through "../../.." below it)
# and report what else the attacker got, attaches included.
#
# runc 1.1.5 (Debian's) on the same attacks, with BRIG=runc: with the
# default capabilities its processes refuse everything too.  With
# CAP_SYS_PTRACE, its exec process is attached to and read, but it is born
# after it joined every namespace of the container: its root and cwd are
# the container's, its fds /dev/null and the container's /etc/passwd: the
# host is not reached (the exec test passes).  The init of a container
# joining A's pid namespace is reachable before its pivot_root: its
# /proc/PID/root is the host's, and its fds ("/", the rootfs's /dev)
# lead there too (the join test fails, as with brig).
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

ROUNDS=${PTRACE_ROUNDS:-8}

# Docker's default capabilities: more than brig spec's three, as a real
# container usually has.
DOCKER_CAPS='["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD",
	"CAP_NET_RAW", "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP",
	"CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE"]'

# The attacker, statically linked: it runs in a busybox rootfs.
attacker_path() { static_helper security/ptrace-attacker; }

# wait_stopped ID: until `state` says stopped (10 s).
wait_stopped() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ "$(state_field "$1" status)" = stopped ] && return 0
		sleep 0.1
	done
	return 1
}

# delete_all: every container under $T/root, with the build's brig.
delete_all() {
	local d
	for d in "$T"/root/*/; do
		[ -d "$d" ] && timeout -k 5 30 "$BRIG" --root "$T/root" delete --force "$(basename "$d")"
	done
}

# setup: the brig under attack ($C, a copy), its checksums, the host
# secret ($T/secret holding $SECRET).
setup() {
	require_root
	require_cmd jq sha256sum
	mkdir -p "$T/bin" "$T/report"
	C=$T/bin/brig
	cp "$BRIG" "$C" || exit 1
	BEFORE=$(sha256sum <"$BRIG")
	SUM=$(sha256sum <"$C")
	SECRET="host-secret-$RANDOM$RANDOM$RANDOM"
	echo "$SECRET" >"$T/secret"
	chmod 0600 "$T/secret"
}

# start_attacker [EXTRA-CAP]: container A of the copy $C, its init the
# attacker (reporting to $T/report), with Docker's capabilities (and
# EXTRA-CAP), up and polling.
start_attacker() {
	local attacker caps
	attacker=$(attacker_path) || skip "needs a static tests/security/ptrace-attacker (gcc -static)"
	caps=$(jq -c --arg extra "${1:-}" '. + (if $extra == "" then [] else [$extra] end)' <<<"$DOCKER_CAPS")
	brig_make_bundle "$T/a" || return 1
	cp "$attacker" "$T/a/rootfs/attacker" || return 1
	brig_bundle_edit "$T/a" '.process.terminal = false
		| .process.args = ["/attacker", "/report", $target, $secret, "60"]
		| .process.capabilities = {bounding: $caps, effective: $caps, permitted: $caps}
		| .mounts += [{"destination": "/report", "type": "bind", "source": $report,
			       "options": ["rbind", "rw"]}]' \
		--arg target "$(stat -c '%d:%i' "$C")" --arg secret "$T/secret" \
		--arg report "$T/report" --argjson caps "$caps" || return 1
	defer delete_all
	# (the attacker's stdio: files of its own, not run_cmd's)
	"$C" --root "$T/root" run --detach --bundle "$T/a" a >"$T/a.out" 2>"$T/a.err" || {
		fail "run --detach a: $(cat "$T/a.err")"
		return 1
	}
	wait_for "$T/report/ready" || {
		fail "the attacker did not start"
		return 1
	}
	APID=$(state_field a pid)
}

# stop_attacker MIN-PIDS [HOST-ONLY]: stop the attacker, delete A, and
# check what it achieved: nothing at all on brig's processes (with
# HOST-ONLY: nothing of the host: no secret, no write to brig's binary;
# the rest is reported), neither binary changed, and it saw at least
# MIN-PIDS processes.
stop_attacker() {
	local min=$1 summary pids hits kinds
	touch "$T/report/stop"
	wait_for "$T/report/summary" || fail "the attacker wrote no summary"
	summary=$(cat "$T/report/summary" 2>/dev/null)
	diag "attacker: $summary"
	run_cmd "$BRIG" --root "$T/root" delete --force a
	assert_rc 0
	hits=$(sort -u "$T/report/hits" 2>/dev/null)
	if [ -n "$hits" ]; then
		kinds=$(cut -d: -f1 <<<"$hits" | sort | uniq -c | tr -s ' \n' ' ')
		diag "the attacker's successes (by kind):$kinds"
		diag "$(sed 's/ of pid [0-9]*$//; s/ pid [0-9]*/ pid N/; s/[0-9][0-9]*/N/g' <<<"$hits" |
				sort -u | awk -F: '++n[$1] <= 4')"
	fi
	if [ -n "${2:-}" ]; then
		hits=$(grep -E '^(secret|write):' <<<"$hits")
	fi
	assert_eq "$(head -5 <<<"$hits")" "" "what the attacker achieved"
	assert_not_contains "$(cat "$T/report/loot" 2>/dev/null)" "$SECRET" "what the attacker read"
	assert_eq "$(sha256sum <"$C")" "$SUM" "sha256 of the brig binary under attack"
	assert_eq "$(sha256sum <"$BRIG")" "$BEFORE" "sha256 of the brig binary of the build"
	pids=$(sed -n 's/.*pids=\([0-9]*\).*/\1/p' <<<"$summary")
	[ "${pids:-0}" -ge "$min" ] ||
		fail "the attacker saw only ${pids:-0} processes, expected at least $min"
}

# exec_rounds: `brig exec` into A, in every form, $ROUNDS times.
exec_rounds() {
	local i pid
	for ((i = 0; i < ROUNDS; i++)); do
		run_cmd "$C" --root "$T/root" exec a true
		assert_rc 0 || break
		run_cmd "$C" --root "$T/root" exec --user 1000:1000 --cwd /tmp a sh -c 'exit 3'
		assert_rc 3
		run_cmd "$C" --root "$T/root" exec --detach --pid-file "$T/exec.pid" a sleep 0.2
		assert_rc 0
		pid=$(cat "$T/exec.pid" 2>/dev/null)
		jq -n '{args: ["true"], cwd: "/", env: ["PATH=/bin"], user: {uid: 0, gid: 0}}' \
			>"$T/process.json"
		run_cmd "$C" --root "$T/root" exec --process "$T/process.json" --detach a
		assert_rc 0
	done
	# the detached ones are done before the attacker stops
	[ -z "${pid:-}" ] || wait_until 5 dead "$pid"
}

# join_rounds: containers B joining A's pid namespace, created and started
# (the init waits for start as brig's code), and run, $ROUNDS times.
join_rounds() {
	local i
	brig_make_bundle "$T/b" || return
	brig_bundle_edit "$T/b" '.process.terminal = false | .process.args = ["true"]
		| .linux.namespaces = [.linux.namespaces[]
			| if .type == "pid" then .path = $ns else . end]' \
		--arg ns "/proc/$APID/ns/pid" || return
	for ((i = 0; i < ROUNDS; i++)); do
		run_cmd "$C" --root "$T/root" create --bundle "$T/b" "b$i"
		assert_rc 0 || break
		sleep 0.1
		run_cmd "$C" --root "$T/root" start "b$i"
		assert_rc 0
		wait_stopped "b$i" || fail "b$i did not stop"
		run_cmd "$C" --root "$T/root" delete "b$i"
		assert_rc 0
		run_cmd "$C" --root "$T/root" run --bundle "$T/b" "r$i"
		assert_rc 0
	done
}

t_exec() {
	setup
	start_attacker || return
	exec_rounds
	stop_attacker "$ROUNDS"
	assert_empty_dir "$T/root"
}

t_join() {
	setup
	start_attacker || return
	join_rounds
	stop_attacker "$ROUNDS"
	assert_empty_dir "$T/root"
}

t_exec_sys_ptrace() {
	setup
	start_attacker CAP_SYS_PTRACE || return
	exec_rounds
	stop_attacker "$ROUNDS" host-only
	assert_empty_dir "$T/root"
}

# Known and open, as with runc 1.1.5: an init joining an existing pid
# namespace is in it from its birth, and until pivot_root its root, cwd and
# fds are the host's; with CAP_SYS_PTRACE (in the host's user namespace)
# another process of that namespace reads the host through /proc/<pid>/root.
# exec closed the same hole with a joiner (the process is forked already
# inside every namespace); create needs the same for a joined pid
# namespace.  BRIG_TEST_KNOWN=1 runs the attack anyway.
t_join_sys_ptrace() {
	[ "${BRIG_TEST_KNOWN:-0}" = 1 ] ||
		skip "known, open (runc 1.1.5 too): a joining init shows the host's root before pivot_root; BRIG_TEST_KNOWN=1 runs it"
	setup
	start_attacker CAP_SYS_PTRACE || return
	join_rounds
	stop_attacker "$ROUNDS" host-only
	assert_empty_dir "$T/root"
}

tap_test "ptrace: the container's root cannot attach to, read or open brig's exec processes" t_exec
tap_test "ptrace: the container's root cannot attach to, read or open the init of a container joining its pid namespace" t_join
tap_test "ptrace: with CAP_SYS_PTRACE, brig's exec processes lead nowhere on the host" t_exec_sys_ptrace
tap_test "ptrace: with CAP_SYS_PTRACE, the init of a container joining its pid namespace leads nowhere on the host" t_join_sys_ptrace
tap_done
