#!/bin/bash
# linux.seccomp: every action (errno and errnoRet, the kill actions, trap,
# trace, log, notify with a listener), defaultErrnoRet, argument filters
# (one value, MASKED_EQ, two args ANDed, two args on the same index ORed
# as runc does), unknown syscall names, architectures, flags, the
# noNewPrivileges=false order, create/start, the default profile of
# contrib/seccomp, the filter cache and `brig features`.  Each test reads
# the result from inside a busybox container.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"
"$BRIG" features | jq -e '.linux.seccomp.enabled' >/dev/null 2>&1 ||
	skip_all "brig is built without seccomp"

brig_file_bundle
PROFILE=$BRIG_SRCDIR/contrib/seccomp/default.json
LISTENER=$BRIG_BUILDDIR/tests/helpers/seccomp-listener
MKDIR='["mkdir", "mkdirat"]'
# no core file from a process killed by SIGSYS
NOCORE='.process.rlimits = [{"type": "RLIMIT_CORE", "hard": 0, "soft": 0}]'
# a jq filter of the default profile: mkdir and mkdirat fail with ENOSPC
# (an ERRNO rule added after the ALLOW of the same syscall would not win)
NO_MKDIR='.syscalls |= map(.names -= ["mkdir", "mkdirat"])
	| .syscalls += [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 28}]'

# bundle: $T/b = the busybox bundle with a writable root.
bundle() {
	mkdir -p "$T/b" && cp -a "$BUNDLE_TPL/rootfs" "$BUNDLE_TPL/config.json" "$T/b/" &&
		brig_bundle_edit "$T/b" '.root.readonly = false' ||
		fail "cannot make the bundle $T/b"
}

# sc SCRIPT SECCOMP-JSON [JQ-FILTER [JQ-ARGS...]]: `brig run` of `sh -c
# SCRIPT` with linux.seccomp = SECCOMP-JSON; sets out/err/rc.
sc() {
	local script=$1 seccomp=$2 filter=${3:-.}
	shift 2
	[ $# -gt 0 ] && shift
	brig_bundle_edit "$T/b" ".process.args = [\"sh\", \"-c\", \$script]
		| .linux.seccomp = \$sc | $filter" --arg script "$script" --argjson sc "$seccomp" "$@" ||
		fail "jq $filter"
	brig --root "$T/root" run --bundle "$T/b" "c$RANDOM"
}

# sc_args ARGS-JSON SECCOMP-JSON [JQ-FILTER]: the same with process.args.
sc_args() {
	brig_bundle_edit "$T/b" ".process.args = \$args | .linux.seccomp = \$sc | ${3:-.}" \
		--argjson args "$1" --argjson sc "$2" || fail "jq"
	brig --root "$T/root" run --bundle "$T/b" "c$RANDOM"
}

# rule NAMES-JSON ACTION [EXTRA-JSON]: a profile allowing everything but
# one rule, e.g. rule "$MKDIR" SCMP_ACT_ERRNO '{"errnoRet": 28}'.
rule() {
	jq -cn --argjson names "$1" --arg action "$2" --argjson extra "${3:-{\}}" \
		'{defaultAction: "SCMP_ACT_ALLOW",
		  syscalls: [{names: $names, action: $action} + $extra]}'
}

# The default profile, edited by a jq FILTER.
profile() {
	jq -c "${1:-.}" "$PROFILE"
}

# listener MODE [N]: the test agent on $T/l.sock, writing $T/state.json
# and $T/state.json.log; $lpid is its pid.
listener() {
	"$LISTENER" "$T/l.sock" "$T/state.json" "$@" &
	lpid=$!
	defer kill_wait -TERM "$lpid"
	for _ in $(seq 200); do
		[ -S "$T/l.sock" ] && return 0
		sleep 0.05
	done
	fail "the listener did not come up"
}

# listener_done: wait for the agent to see the last process go.
listener_done() {
	for _ in $(seq 200); do
		kill -0 "$lpid" 2>/dev/null || break
		sleep 0.05
	done
	wait "$lpid" 2>/dev/null
	assert_contains "$(cat "$T/state.json.log" 2>/dev/null)" "done" "listener log"
}

# ------------------------------------------------------------- actions

t_errno() {
	bundle || return
	sc 'mkdir /tmp/x; echo "mkdir $?"; touch /tmp/f && echo touched' \
		"$(rule "$MKDIR" SCMP_ACT_ERRNO '{"errnoRet": 28}')"
	assert_rc 0
	assert_eq "$out" $'mkdir 1\ntouched' "the other syscalls run"
	assert_err_line "mkdir: can't create directory '/tmp/x': No space left on device"
	# without errnoRet: EPERM, as runc
	sc 'mkdir /tmp/x' "$(rule "$MKDIR" SCMP_ACT_ERRNO)"
	assert_rc 1
	assert_err_line "mkdir: can't create directory '/tmp/x': Operation not permitted"
	assert_no_file "$T/b/rootfs/tmp/x"
}

t_default_errno_ret() {
	bundle || return
	# the default profile without mkdir: the default action answers
	sc 'mkdir /tmp/x' "$(profile '.defaultErrnoRet = 28 | .syscalls |= map(.names -= ["mkdir", "mkdirat"])')"
	assert_rc 1
	assert_err_line "mkdir: can't create directory '/tmp/x': No space left on device"
	sc 'mkdir /tmp/x' "$(profile 'del(.defaultErrnoRet) | .syscalls |= map(.names -= ["mkdir", "mkdirat"])')"
	assert_rc 1
	assert_err_line "mkdir: can't create directory '/tmp/x': Operation not permitted"
}

t_kill_actions() {
	local a
	bundle || return
	for a in SCMP_ACT_KILL SCMP_ACT_KILL_THREAD SCMP_ACT_KILL_PROCESS; do
		sc_args '["mkdir", "/tmp/x"]' "$(rule "$MKDIR" "$a")" \
			"$NOCORE"
		assert_rc 159 # 128 + SIGSYS
		assert_eq "$err" "" "$a: stderr"
		assert_no_file "$T/b/rootfs/tmp/x"
	done
	# the shell that ran the killed command goes on
	sc 'mkdir /tmp/x; echo "status $?"' "$(rule "$MKDIR" SCMP_ACT_KILL_PROCESS)" \
		"$NOCORE"
	assert_rc 0
	assert_eq "$out" "status 159"
}

t_kill_thread() {
	local prog=$BRIG_BUILDDIR/tests/helpers/seccomp-threads
	[ -x "$prog" ] || skip "tests/helpers/seccomp-threads is not built"
	bundle || return
	cp "$prog" "$T/b/rootfs/bin/threads" || fail "cp $prog" || return
	# a second thread calls mkdir: KILL_THREAD ends it alone
	sc_args '["/bin/threads"]' "$(rule "$MKDIR" SCMP_ACT_KILL_THREAD)" "$NOCORE"
	assert_rc 0
	assert_eq "$out" "main thread survived"
	# KILL_PROCESS ends every thread
	sc_args '["/bin/threads"]' "$(rule "$MKDIR" SCMP_ACT_KILL_PROCESS)" "$NOCORE"
	assert_rc 159
	assert_eq "$out" ""
	assert_no_file "$T/b/rootfs/tmp/threaded"
}

t_trap() {
	bundle || return
	# SIGSYS, which a shell can catch
	sc 'trap "echo caught SIGSYS" SYS; cd /tmp; echo "cd $?"' "$(rule '["chdir"]' SCMP_ACT_TRAP)"
	assert_rc 0
	assert_eq "$out" $'caught SIGSYS\ncd 2'
	sc_args '["mkdir", "/tmp/x"]' "$(rule "$MKDIR" SCMP_ACT_TRAP)" \
		"$NOCORE"
	assert_rc 159
	assert_no_file "$T/b/rootfs/tmp/x"
}

t_trace() {
	bundle || return
	# no tracer: the call fails with ENOSYS, whatever errnoRet says
	sc 'mkdir /tmp/x' "$(rule "$MKDIR" SCMP_ACT_TRACE '{"errnoRet": 28}')"
	assert_rc 1
	assert_err_line "mkdir: can't create directory '/tmp/x': Function not implemented"
}

t_log() {
	local pid before
	bundle || return
	brig_bundle_edit "$T/b" '.process.args = ["mkdir", "/tmp/x"] | .linux.seccomp = $sc' \
		--argjson sc "$(rule "$MKDIR" SCMP_ACT_LOG)" || fail "jq" || return
	brig --root "$T/root" create --bundle "$T/b" c1
	assert_rc 0 || return
	defer "$BRIG" --root "$T/root" delete --force c1
	pid=$("$BRIG" --root "$T/root" state c1 | jq .pid)
	brig --root "$T/root" start c1
	assert_rc 0
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	[ -d "$T/b/rootfs/tmp/x" ] || fail "SCMP_ACT_LOG lets the call run"
	# the kernel's record of it, where this host shows it
	grep -qw log /proc/sys/kernel/seccomp/actions_logged 2>/dev/null || return 0
	before=$(dmesg 2>/dev/null) || return 0
	[ -n "$before" ] || return 0
	assert_match "$(dmesg | grep -F "pid=$pid ")" 'type=1326 .*comm="mkdir".*code=0x7ffc0000' \
		"the audit record of SCMP_ACT_LOG"
}

# ------------------------------------------------------------ arguments

t_args_value() {
	bundle || return
	# personality(PER_LINUX32) is refused, personality(PER_LINUX) is not
	sc 'linux64 uname -m; linux32 uname -m' \
		"$(rule '["personality"]' SCMP_ACT_ERRNO \
			'{"args": [{"index": 0, "value": 8, "op": "SCMP_CMP_EQ"}]}')"
	assert_rc 1
	assert_eq "$out" "$(uname -m)" "linux64"
	assert_err_line "linux32: personality(0x8): Operation not permitted"
}

t_args_masked_eq() {
	bundle || return
	# value is the mask, valueTwo the datum: signals with (sig & 3) == 2
	sc 'kill -0 1; echo "0: $?"; kill -CONT 1; echo "CONT: $?"; kill -WINCH 1; echo "WINCH: $?"' \
		"$(rule '["kill"]' SCMP_ACT_ERRNO \
			'{"args": [{"index": 1, "value": 3, "valueTwo": 2, "op": "SCMP_CMP_MASKED_EQ"}]}')"
	assert_rc 0
	assert_eq "$out" $'0: 0\nCONT: 1\nWINCH: 0'
	assert_err_line "sh: can't kill pid 1: Operation not permitted"
}

t_args_and() {
	bundle || return
	# two indexes: both must match (kill(1, SIGCONT) only)
	sc 'sleep 10 & p=$!; kill -CONT 1; echo "1 CONT: $?"; kill -0 1; echo "1 0: $?"
	    kill -CONT $p; echo "p CONT: $?"; kill $p' \
		"$(rule '["kill"]' SCMP_ACT_ERRNO \
			'{"args": [{"index": 0, "value": 1, "op": "SCMP_CMP_EQ"},
			           {"index": 1, "value": 18, "op": "SCMP_CMP_EQ"}]}')"
	assert_rc 0
	assert_eq "$out" $'1 CONT: 1\n1 0: 0\np CONT: 0'
}

t_args_same_index() {
	bundle || return
	# the same index twice: runc makes one rule of each, so either matches
	sc 'kill -0 1; echo "0: $?"; kill -CONT 1; echo "CONT: $?"; kill -WINCH 1; echo "WINCH: $?"' \
		"$(rule '["kill"]' SCMP_ACT_ERRNO \
			'{"args": [{"index": 1, "value": 0, "op": "SCMP_CMP_EQ"},
			           {"index": 1, "value": 18, "op": "SCMP_CMP_EQ"}]}')"
	assert_rc 0
	assert_eq "$out" $'0: 1\nCONT: 1\nWINCH: 0'
}

t_args_operators() {
	local op want
	bundle || return
	# kill(1, sig) for sig 0, 18 (CONT), 28 (WINCH) against 18
	for op in NE:101 LT:100 LE:110 EQ:010 GE:011 GT:001; do
		want=${op#*:}
		sc 'for s in 0 CONT WINCH; do kill -$s 1 2>/dev/null && printf 0 || printf 1; done' \
			"$(rule '["kill"]' SCMP_ACT_ERRNO \
				"{\"args\": [{\"index\": 1, \"value\": 18, \"op\": \"SCMP_CMP_${op%%:*}\"}]}")"
		assert_rc 0
		assert_eq "$out" "$want" "SCMP_CMP_${op%%:*} 18: refused 0, CONT, WINCH"
	done
}

# ---------------------------------------------------------- the profile

t_unknown_syscall() {
	bundle || return
	brig_bundle_edit "$T/b" '.process.args = ["mkdir", "/tmp/x"] | .linux.seccomp = $sc' \
		--argjson sc "$(rule '["brig_no_such_syscall", "mkdir", "mkdirat"]' SCMP_ACT_ERRNO)" ||
		fail "jq" || return
	brig --root "$T/root" --debug --log "$T/log" run --bundle "$T/b" c1
	assert_rc 1
	assert_err_line "mkdir: can't create directory '/tmp/x': Operation not permitted"
	assert_contains "$(cat "$T/log")" 'unknown syscall \"brig_no_such_syscall\" skipped'
}

t_architectures() {
	local other=SCMP_ARCH_AARCH64
	bundle || return
	[ "$(uname -m)" = x86_64 ] || other=SCMP_ARCH_X86_64
	# x86_64 with its 32-bit ABIs, as Podman sends it
	sc 'mkdir /tmp/x' "$(rule "$MKDIR" SCMP_ACT_ERRNO '{"errnoRet": 28}' |
		jq -c '.architectures = ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"]')"
	assert_rc 1
	assert_err_line "mkdir: can't create directory '/tmp/x': No space left on device"
	# another architecture only: the native one is always in the filter
	sc 'mkdir /tmp/x' "$(rule "$MKDIR" SCMP_ACT_ERRNO '{"errnoRet": 28}' |
		jq -c --arg a "$other" '.architectures = [$a]')"
	assert_rc 1
	assert_err_line "mkdir: can't create directory '/tmp/x': No space left on device"
	# an architecture the spec names but this libseccomp does not know
	if ! "$BRIG" features | jq -e '.linux.seccomp.archs | index("SCMP_ARCH_SH")' >/dev/null; then
		sc 'true' '{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_SH"]}'
		assert_rc 1
		assert_match "$err" '^brig: config.json: linux.seccomp.architectures: "SCMP_ARCH_SH" is not known to libseccomp [0-9.]+$'
		assert_empty_dir "$T/root"/c*
	fi
}

t_flags() {
	local plain allowed
	bundle || return
	sc 'mkdir /tmp/x; grep "^Seccomp" /proc/self/status' \
		"$(rule "$MKDIR" SCMP_ACT_ERRNO | jq -c '.flags = ["SECCOMP_FILTER_FLAG_TSYNC",
			"SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
			"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"]')"
	assert_rc 0
	assert_eq "$out" $'Seccomp:\t2\nSeccomp_filters:\t1'
	assert_err_line "mkdir: can't create directory '/tmp/x': Operation not permitted"
	# SPEC_ALLOW: the filter does not force the store-bypass mitigation
	# (visible only on CPUs that have one)
	sc 'grep ^Speculation_Store_Bypass /proc/self/status' '{"defaultAction": "SCMP_ACT_ALLOW"}'
	plain=$out
	sc 'grep ^Speculation_Store_Bypass /proc/self/status' \
		'{"defaultAction": "SCMP_ACT_ALLOW", "flags": ["SECCOMP_FILTER_FLAG_SPEC_ALLOW"]}'
	allowed=$out
	if [ "$plain" != "$allowed" ]; then
		assert_not_contains "$allowed" "force mitigated" "SPEC_ALLOW"
	fi
}

t_no_new_privileges_false() {
	bundle || return
	# loaded before the capabilities go (it needs CAP_SYS_ADMIN then), and
	# brig's own steps after it (setuid, capset, the PATH lookup) still pass
	sc 'mkdir /tmp/x; id -u; grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status' \
		"$(rule "$MKDIR" SCMP_ACT_ERRNO '{"errnoRet": 28}')" \
		'.process.noNewPrivileges = false | .process.user = {"uid": 1000, "gid": 1000}'
	assert_rc 0
	assert_eq "$out" $'1000\nNoNewPrivs:\t0\nSeccomp:\t2'
	assert_err_line "mkdir: can't create directory '/tmp/x': No space left on device"
}

t_errno_ret_needs_errno_action() {
	bundle || return
	sc 'true' "$(rule "$MKDIR" SCMP_ACT_ALLOW '{"errnoRet": 28}' | jq -c '.defaultAction = "SCMP_ACT_ERRNO"')"
	assert_rc 1
	assert_err_line "brig: config.json: linux.seccomp.syscalls[0].errnoRet: only SCMP_ACT_ERRNO and SCMP_ACT_TRACE take an errno, not SCMP_ACT_ALLOW"
	sc 'true' '{"defaultAction": "SCMP_ACT_ALLOW", "defaultErrnoRet": 1}'
	assert_rc 1
	assert_err_line "brig: config.json: linux.seccomp.defaultErrnoRet: only SCMP_ACT_ERRNO and SCMP_ACT_TRACE take an errno, not SCMP_ACT_ALLOW"
}

t_default_profile() {
	local admin='.process.capabilities |= with_entries(if .key == "ambient" then . else .value += ["CAP_SYS_ADMIN"] end)'
	bundle || return
	# what a shell does all day
	sc 'ls / >/dev/null && cat /etc/passwd | wc -l >/dev/null && ps >/dev/null &&
	    (sleep 0; echo sub) && echo hi >/tmp/f && cat /tmp/f && date >/dev/null && echo ok' \
		"$(profile)"
	assert_rc 0
	assert_eq "$out" $'sub\nhi\nok'
	assert_eq "$err" ""
	# new namespaces and mounts, even with CAP_SYS_ADMIN
	sc 'unshare -U true; echo "unshare $?"; mount -t tmpfs none /tmp; echo "mount $?"' \
		"$(profile)" "$admin"
	assert_rc 0
	assert_eq "$out" $'unshare 1\nmount 1'
	assert_eq "$err" $'unshare: unshare(0x10000000): Operation not permitted\nmount: permission denied (are you root?)'
	# which they can without the profile
	sc 'unshare -U true; echo "unshare $?"; mount -t tmpfs none /tmp; echo "mount $?"' null \
		"$admin | del(.linux.seccomp)"
	assert_rc 0
	assert_eq "$out" $'unshare 0\nmount 0'
}

# A profile written before Linux 5.3: the default profile without any call
# numbered 435 (clone3) or above, as older Docker and containerd profiles
# and the OCI tools' generated one are.
OLD_PROFILE='.syscalls |= map(.names -= ["clone3", "close_range", "openat2", "pidfd_getfd",
	"faccessat2", "process_madvise", "epoll_pwait2", "mount_setattr", "quotactl_fd",
	"landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self", "memfd_secret",
	"process_mrelease", "futex_waitv", "set_mempolicy_home_node", "cachestat", "fchmodat2",
	"map_shadow_stack", "futex_wake", "futex_wait", "futex_requeue", "statmount", "listmount",
	"lsm_get_self_attr", "lsm_set_self_attr", "lsm_list_modules", "mseal", "setxattrat",
	"getxattrat", "listxattrat", "removexattrat"]) | .syscalls |= map(select(.names != []))'

# Calls newer than the profile get ENOSYS, as from an older kernel, so
# that glibc, Go and busybox fall back to the old ones (runc's "patchbpf"
# rule): clone3, close_range, openat2, faccessat2 and a number no kernel
# has; the profile's own answers stay (acct: EPERM; getpid: allowed).
# runc runs the same bundle where it is installed: the same answers.
t_enosys_newer_calls() {
	local prog=$BRIG_BUILDDIR/tests/helpers/sysno runc want
	[ -x "$prog" ] || skip "tests/helpers/sysno is not built"
	bundle || return
	cp "$prog" "$T/b/rootfs/bin/sysno" || fail "cp $prog" || return
	want=$'435 ENOSYS\n436 ENOSYS\n437 ENOSYS\n439 ENOSYS\n1000 ENOSYS\n163 EPERM\n39 ok'
	sc_args '["/bin/sysno", "435", "436", "437", "439", "1000", "163", "39"]' \
		"$(profile "$OLD_PROFILE")"
	assert_rc 0
	assert_eq "$out" "$want" "what the calls return under brig"
	# without a filter the kernel has them all but 1000
	sc_args '["/bin/sysno", "435", "436", "437", "439", "1000"]' null
	assert_eq "$(grep -c ENOSYS <<<"$out")" 1 "calls the kernel has not (no filter): $out"
	# the allowing default profile is left as it is: the kernel answers
	sc_args '["/bin/sysno", "435", "1000"]' "$(rule "$MKDIR" SCMP_ACT_ERRNO)"
	assert_eq "$(grep -c ENOSYS <<<"$out")" 1 "ENOSYS under an allowing profile: $out"
	runc=$(side_runc) || return 0
	# a relative cgroupsPath: nested under the caller's cgroups, as brig's
	brig_bundle_edit "$T/b" '.process.args = ["/bin/sysno", "435", "436", "437", "439", "1000", "163", "39"]
		| .linux.seccomp = $sc | .linux.cgroupsPath = $cg' \
		--argjson sc "$(profile "$OLD_PROFILE")" --arg cg "runc-$RANDOM"
	run_cmd "$runc" --root "$T/runc" run --bundle "$T/b" "r$RANDOM"
	assert_eq "$out" "$want" "what the calls return under runc ($runc)"
}

# A profile that denies, with EPERM, calls brig's own work could use after
# the filter is loaded: openat2, close_range and faccessat2.  The profile
# names them, so no ENOSYS answer of the stub above applies.  With
# noNewPrivileges false the filter goes on before the capabilities drop,
# so brig's user switch, PATH lookup and fd closing all run under it.
DENY_NEWER='.syscalls |= map(.names -= ["openat2", "close_range", "faccessat2"])
	| .syscalls += [{"names": ["openat2", "close_range", "faccessat2"],
		"action": "SCMP_ACT_ERRNO", "errnoRet": 1}]'

# brig's work after the filter does not depend on what it allows: the
# container runs as its user, with HOME from /etc/passwd, found on $PATH,
# and without the fd 5 its caller did not preserve; run, and create +
# start, under brig; the same bundle under runc sees the same.  (Before
# the fix the init died after start: `start` said nothing.)
t_brig_work_after_filter() {
	local runc want script='id -u; echo "$HOME"; ls /proc/self/fd | tr "\n" " "'
	bundle || return
	echo 'u:x:1000:1000::/home/u:/bin/sh' >>"$T/b/rootfs/etc/passwd"
	want=$'1000\n/home/u\n0 1 2 3 '
	brig_bundle_edit "$T/b" '.process.args = ["sh", "-c", $script] | .process.env = ["PATH=/bin"]
		| .process.user = {uid: 1000, gid: 1000} | .process.noNewPrivileges = false
		| .linux.seccomp = $sc' --arg script "$script" --argjson sc "$(profile "$DENY_NEWER")" ||
		fail "jq" || return
	{ br run --bundle "$T/b" c1; } 5</dev/null
	assert_rc 0
	assert_eq "$out" "$want" "under brig run"
	assert_eq "$err" ""
	delete_at_end c2
	"$BRIG" --root "$T/root" create --bundle "$T/b" c2 </dev/null >"$T/c2.out" 2>"$T/c2.err"
	assert_eq "$?" 0 "exit status of create" || return
	br start c2
	assert_rc 0
	assert_eq "$err" "" "start's stderr"
	wait_until 5 is_status c2 stopped || fail "still $(state_field c2 status)"
	assert_eq "$(cat "$T/c2.out")" "$want" "under create + start"
	runc=$(side_runc) || return 0
	brig_bundle_edit "$T/b" '.linux.cgroupsPath = $cg' --arg cg "runc-$RANDOM"
	{ run_cmd "$runc" --root "$T/runc" run --bundle "$T/b" "r$RANDOM"; } 5</dev/null
	assert_eq "$out" "$want" "under runc ($runc)"
}

t_create_start() {
	local nnp
	bundle || return
	# the init reads exec.fifo and execs under the filter (loaded before
	# the capabilities drop) or loads it right before execve
	for nnp in true false; do
		brig_bundle_edit "$T/b" '.process.args = ["sh", "-c", "echo started >/tmp/out; mkdir /tmp/x 2>>/tmp/out"]
			| .process.noNewPrivileges = ($nnp == "true") | .linux.seccomp = $sc' \
			--arg nnp "$nnp" --argjson sc "$(profile "$NO_MKDIR")" || fail "jq" || return
		brig --root "$T/root" create --bundle "$T/b" "c-$nnp"
		assert_rc 0 || return
		brig --root "$T/root" start "c-$nnp"
		assert_rc 0
		for _ in $(seq 100); do
			[ "$("$BRIG" --root "$T/root" state "c-$nnp" | jq -r .status)" = stopped ] && break
			sleep 0.05
		done
		assert_eq "$(cat "$T/b/rootfs/tmp/out")" $'started\nmkdir: can\'t create directory \'/tmp/x\': No space left on device' \
			"noNewPrivileges $nnp"
		brig --root "$T/root" delete "c-$nnp"
		assert_rc 0
	done
}

# ---------------------------------------------------------------- notify

# An exec'd process gets the container's filter, a new one with a listener
# fd of its own, which goes to listenerPath with the state too.
t_notify_exec() {
	local id=c$RANDOM mode
	for mode in true false; do
		bundle || return
		listener errno 28 || return
		brig_bundle_edit "$T/b" '.process.args = ["sleep", "100"]
			| .process.noNewPrivileges = ($nnp == "true")
			| .linux.seccomp = ($sc + {listenerPath: $l})' --arg nnp "$mode" \
			--argjson sc "$(rule "$MKDIR" SCMP_ACT_NOTIFY)" --arg l "$T/l.sock" || fail "jq" || return
		defer "$BRIG" --root "$T/root" delete --force "$id-$mode"
		brig --root "$T/root" run --detach --bundle "$T/b" "$id-$mode"
		assert_rc 0 || return
		mv "$T/state.json" "$T/state-init.json"
		# the init's agent keeps its fd; a second one takes the exec's
		wait_until 5 eval '[ ! -S "$T/l.sock" ]'
		listener errno 28 || return
		brig --root "$T/root" exec "$id-$mode" sh -c 'mkdir /tmp/x; echo "mkdir $?"'
		assert_rc 0
		assert_eq "$out" "mkdir 1" "exec's mkdir (noNewPrivileges $mode)"
		assert_err_line "mkdir: can't create directory '/tmp/x': No space left on device"
		assert_eq "$(jq -r '[.state.id, .state.status] | join(" ")' "$T/state.json")" \
			"$id-$mode running" "the state the exec's listener got"
		brig --root "$T/root" delete --force "$id-$mode"
		rm -f "$T/state.json" "$T/state-init.json"
	done
}

t_notify_errno() {
	local id=c$RANDOM
	bundle || return
	listener errno 28 || return
	brig_bundle_edit "$T/b" '.process.args = ["sh", "-c", "mkdir /tmp/x; echo \"mkdir $?\""]
		| .linux.seccomp = ($sc + {listenerPath: $l, listenerMetadata: "MKNOD=/dev/null"})
		| .annotations = {"org.example.key": "value"}' \
		--argjson sc "$(rule "$MKDIR" SCMP_ACT_NOTIFY)" --arg l "$T/l.sock" || fail "jq" || return
	brig --root "$T/root" run --bundle "$T/b" "$id"
	assert_rc 0
	assert_eq "$out" "mkdir 1"
	assert_err_line "mkdir: can't create directory '/tmp/x': No space left on device"
	listener_done
	assert_json "$(cat "$T/state.json")" "the container process state" || return
	assert_eq "$(jq -c '[.ociVersion, .fds, .metadata, .state.ociVersion, .state.id,
		.state.status, .state.bundle, .state.annotations, .pid == .state.pid, .pid > 1]' "$T/state.json")" \
		"$(jq -cn --arg id "$id" --arg b "$T/b" --arg v "$("$BRIG" --version | sed -n 's/^spec: //p')" \
			--arg cv "$(jq -r .ociVersion "$T/b/config.json")" \
			'[$v, ["seccompFd"], "MKNOD=/dev/null", $cv, $id, "creating", $b,
			  {"org.example.key": "value"}, true, true]')"
	assert_eq "$(head -1 "$T/state.json.log")" "fds 1"
	assert_match "$(sed -n 2p "$T/state.json.log")" '^syscall [0-9]+$'
}

t_notify_continue() {
	bundle || return
	# noNewPrivileges false: loaded (and handed over) before the caps drop;
	# TSYNC and WAIT_KILLABLE_RECV go with the listener
	listener continue || return
	sc 'mkdir /tmp/x && echo made' \
		"$(rule "$MKDIR" SCMP_ACT_NOTIFY | jq -c --arg l "$T/l.sock" '.listenerPath = $l
			| .flags = ["SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"]')" \
		'.process.noNewPrivileges = false'
	assert_rc 0
	assert_eq "$out" "made"
	[ -d "$T/b/rootfs/tmp/x" ] || fail "the notified mkdir did not run"
	listener_done
	assert_eq "$(jq -r .metadata "$T/state.json")" "null" "no listenerMetadata, no metadata"
}

t_notify_create() {
	bundle || return
	listener errno 1 || return
	brig_bundle_edit "$T/b" '.process.args = ["mkdir", "/tmp/x"]
		| .linux.seccomp = ($sc + {listenerPath: $l})' \
		--argjson sc "$(rule "$MKDIR" SCMP_ACT_NOTIFY)" --arg l "$T/l.sock" || fail "jq" || return
	brig --root "$T/root" create --bundle "$T/b" c1
	assert_rc 0 || return
	defer "$BRIG" --root "$T/root" delete --force c1
	# the agent has the fd once create returns, as with runc
	assert_eq "$(jq -r '.state.status + " " + (.pid | tostring)' "$T/state.json")" \
		"creating $("$BRIG" --root "$T/root" state c1 | jq .pid)"
	brig --root "$T/root" start c1
	assert_rc 0
	listener_done
	assert_no_file "$T/b/rootfs/tmp/x"
}

t_notify_errors() {
	bundle || return
	# nobody listening: create fails and leaves nothing
	sc 'true' "$(rule "$MKDIR" SCMP_ACT_NOTIFY | jq -c --arg l "$T/none.sock" '.listenerPath = $l')"
	assert_rc 1
	assert_err_line "brig: failed to connect with seccomp agent specified in the seccomp profile: dial unix $T/none.sock: connect: no such file or directory"
	assert_empty_dir "$T/root"/c*
	# the init hands the fd over with sendmsg
	sc 'true' "$(rule '["sendmsg"]' SCMP_ACT_NOTIFY | jq -c --arg l "$T/none.sock" '.listenerPath = $l')"
	assert_rc 1
	assert_err_line 'brig: config.json: linux.seccomp.syscalls[0]: SCMP_ACT_NOTIFY cannot be used for "sendmsg"'
	# write is not refused, where runc 1.1.5 refuses it ("SCMP_ACT_NOTIFY
	# cannot be used for the write syscall"): runc's init writes to runc
	# before the agent has the fd, brig's hands the fd over by sendmsg
	# first, and an agent answers its later writes (81-seccomp-agent.sh
	# runs a container whose writes its agent answers)
	sc 'true' "$(jq -cn --arg l "$T/none.sock" '{defaultAction: "SCMP_ACT_NOTIFY", listenerPath: $l}')"
	assert_rc 1
	assert_err_line "brig: config.json: linux.seccomp.defaultAction: SCMP_ACT_NOTIFY cannot be the default action"
}

# ----------------------------------------------------------------- cache

t_cache() {
	local entry
	bundle || return
	brig_bundle_edit "$T/b" '.process.args = ["mkdir", "/tmp/x"] | .linux.seccomp = $sc' \
		--argjson sc "$(profile "$NO_MKDIR")" || fail "jq" || return
	brig --root "$T/root" --debug --log "$T/log1" run --bundle "$T/b" c1
	assert_rc 1
	assert_contains "$(cat "$T/log1")" "seccomp: filter compiled"
	assert_eq "$(stat -c %a "$T/root/.seccomp-cache")" 700 "cache directory mode"
	entry=$(ls "$T/root/.seccomp-cache")
	assert_lines 1 "$entry" "cache entries"
	assert_eq "$(stat -c %a "$T/root/.seccomp-cache/$entry")" 600 "entry mode"
	# the same profile again: from the cache, same result
	brig --root "$T/root" --debug --log "$T/log2" run --bundle "$T/b" c2
	assert_rc 1
	assert_err_line "mkdir: can't create directory '/tmp/x': No space left on device"
	assert_contains "$(cat "$T/log2")" "seccomp: filter from the cache"
	# a damaged entry is a miss, rebuilt
	printf 'garbage' | dd of="$T/root/.seccomp-cache/$entry" bs=1 seek=100 conv=notrunc 2>/dev/null
	brig --root "$T/root" --debug --log "$T/log3" run --bundle "$T/b" c3
	assert_rc 1
	assert_err_line "mkdir: can't create directory '/tmp/x': No space left on device"
	assert_contains "$(cat "$T/log3")" "seccomp: filter compiled"
	# another errno is another program; the listener is not part of it
	brig_bundle_edit "$T/b" '.linux.seccomp.syscalls[-1].errnoRet = 1' || fail "jq" || return
	brig --root "$T/root" run --bundle "$T/b" c4
	assert_rc 1
	assert_err_line "mkdir: can't create directory '/tmp/x': Operation not permitted"
	assert_lines 2 "$(ls "$T/root/.seccomp-cache")" "cache entries"
	# `brig list` does not take it for a container
	brig --root "$T/root" list -q
	assert_eq "$out" ""
}

t_features() {
	brig features
	assert_rc 0
	assert_eq "$(jq -c '.linux.seccomp | [.enabled, (.operators | length), (.knownFlags | length),
		(.actions | index("SCMP_ACT_NOTIFY") != null), (.archs | index("SCMP_ARCH_X86_64") != null),
		(.supportedFlags - .knownFlags)]' <<<"$out")" '[true,7,4,true,true,[]]'
}

tap_test "SCMP_ACT_ERRNO with and without errnoRet" t_errno
tap_test "defaultErrnoRet, EPERM without it" t_default_errno_ret
tap_test "SCMP_ACT_KILL, KILL_THREAD, KILL_PROCESS end the process with SIGSYS" t_kill_actions
tap_test "SCMP_ACT_KILL_THREAD ends one thread, KILL_PROCESS all" t_kill_thread
tap_test "SCMP_ACT_TRAP raises SIGSYS" t_trap
tap_test "SCMP_ACT_TRACE without a tracer is ENOSYS" t_trace
tap_test "SCMP_ACT_LOG lets the call run and logs it" t_log
tap_test "an argument value" t_args_value
tap_test "SCMP_CMP_MASKED_EQ: value is the mask, valueTwo the datum" t_args_masked_eq
tap_test "two arguments of one rule are ANDed" t_args_and
tap_test "the same argument twice: one rule each (runc)" t_args_same_index
tap_test "every comparison operator" t_args_operators
tap_test "unknown syscall names are skipped" t_unknown_syscall
tap_test "architectures" t_architectures
tap_test "flags" t_flags
tap_test "noNewPrivileges false: loaded before the capabilities drop" t_no_new_privileges_false
tap_test "errnoRet only with ERRNO and TRACE" t_errno_ret_needs_errno_action
tap_test "the default profile of contrib/seccomp" t_default_profile
tap_test "create and start under a filter" t_create_start
tap_test "notify: the listener gets the fd and the state, answers an errno" t_notify_errno
tap_test "notify: continue, TSYNC, WAIT_KILLABLE_RECV, noNewPrivileges false" t_notify_continue
tap_test "notify: create hands the fd over" t_notify_create
tap_test "notify: no listener, sendmsg, default action" t_notify_errors
tap_test "notify: exec hands its own filter's fd to the listener" t_notify_exec
tap_test "calls newer than the profile get ENOSYS, as under runc" t_enosys_newer_calls
tap_test "brig's own work after the filter does not depend on it, as under runc" t_brig_work_after_filter
tap_test "compiled filters are cached under the state root" t_cache
tap_test "features: linux.seccomp" t_features
tap_done
