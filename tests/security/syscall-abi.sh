#!/bin/bash
# The other syscall ABIs of an x86_64 kernel against linux.seccomp.  Any
# x86_64 process may also make i386 system calls (`int $0x80`, when the
# kernel has CONFIG_IA32_EMULATION) and x32 ones (the number with
# __X32_SYSCALL_BIT, when it has CONFIG_X86_X32_ABI).  Their numbers are
# not x86_64's: i386's mkdir is 39, which is x86_64's getpid.  A filter
# that tests numbers without the architecture (AUDIT_ARCH_I386 in
# seccomp_data.arch) lets an i386 mkdir through as a getpid, and one that
# denies mkdir without listing SCMP_ARCH_X86 must not let the i386 mkdir
# run at all.
#
# brig builds its filters with libseccomp, which checks the architecture
# first: a syscall of an architecture the filter does not list gets the
# bad-architecture action (KILL: SIGSYS), of a listed one the rules of
# that architecture's numbers; an x32 call is told apart by its number
# (>= 0x40000000) under AUDIT_ARCH_X86_64.
#
# The attack is real: tests/security/abi-probe, a static x86_64 program,
# issues mkdir of a directory under /shared, a host directory bind-mounted
# into the container, through all three ABIs, each in a child of its own
# (a KILL ends only that child), in `run` and in `exec` (which loads the
# filter itself, from brig's filter cache then).  The host directory must stay empty.  The probe runs on
# the host first, outside any filter: without i386 syscalls (no
# IA32_EMULATION, or ia32_emulation=0) there is nothing to attack.  A
# kernel without x32 answers ENOSYS to every x32 call, after seccomp: the
# filter's own answer is still seen, but no directory could be made.
#
# runc 1.1.5 (libseccomp 2.5.4, as brig here) gives the same answers on the
# same bundles: SIGSYS for the i386 and x32 calls of an x86_64-only
# filter, EPERM from the rule on all three ABIs when they are listed, the
# profile's ENOSYS for the i386 mkdir (and x86_64's) of the allow-list.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"
"$BRIG" features | jq -e '.linux.seccomp.enabled' >/dev/null 2>&1 ||
	skip_all "brig is built without seccomp"
[ "$(uname -m)" = x86_64 ] || skip_all "x86_64 only (the host is $(uname -m))"

brig_file_bundle
PROFILE=$BRIG_SRCDIR/contrib/seccomp/default.json

# The probe, statically linked: it runs in a busybox rootfs.
probe_path() { static_helper security/abi-probe; }

# The calls: getpid and a mkdir under /shared, through each ABI.
CALLS=(x86_64:getpid i386:getpid x32:getpid
	x86_64:mkdir:/shared/x86_64 i386:mkdir:/shared/i386 x32:mkdir:/shared/x32)

# setup: $PROBE; $X32 is "yes" when the kernel runs x32 calls; skips
# when it runs no i386 ones.  Then the bundle $T/b: the probe in its
# rootfs, $T/shared at /shared.
setup() {
	local host
	require_root
	PROBE=$(probe_path) || skip "needs a static tests/security/abi-probe (gcc -static)"
	run_cmd "$PROBE" i386:getpid x32:getpid "i386:mkdir:$T/i386"
	host=$out
	[ "$(sed -n 1p <<<"$host")" = "i386:getpid ok" ] ||
		skip "the kernel runs no i386 syscalls (CONFIG_IA32_EMULATION, ia32_emulation=): int \$0x80 getpid: $(sed -n 1p <<<"$host")"
	# the attack works where no filter stands in its way
	[ -d "$T/i386" ] || fail "the probe's i386 mkdir made no directory on the host: $host"
	X32=no
	[ "$(sed -n 2p <<<"$host")" = "x32:getpid ok" ] && X32=yes
	[ "$X32" = yes ] ||
		diag "the kernel runs no x32 syscalls (CONFIG_X86_X32_ABI): $(sed -n 2p <<<"$host"); the x32 mkdir is checked for the filter's answer only"
	if ! mkdir -p "$T/b" "$T/shared" ||
		! cp -a "$BUNDLE_TPL/rootfs" "$BUNDLE_TPL/config.json" "$T/b/" ||
		! cp "$PROBE" "$T/b/rootfs/abi-probe" ||
		! brig_bundle_edit "$T/b" '.mounts += [{destination: "/shared", type: "bind",
				source: $shared, options: ["rbind", "rw"]}]' --arg shared "$T/shared"; then
		fail "cannot make the bundle $T/b"
		exit 1
	fi
}

# probe SECCOMP-JSON: the probe's calls in a container with that filter,
# by `run`, then by `exec` into a container with the same filter; sets
# RUN and EXEC to what it printed (one "CALL RESULT" line per call).
probe() {
	local id
	brig_bundle_edit "$T/b" '.process.args = ["/abi-probe"] + $calls | .linux.seccomp = $sc' \
		--argjson calls "$(json_args "${CALLS[@]}")" --argjson sc "$1" || fail "jq"
	br run --bundle "$T/b" "r$RANDOM"
	assert_rc 0
	RUN=$out
	id=e$RANDOM
	brig_bundle_edit "$T/b" '.process.args = ["sleep", "30"]' || fail "jq"
	up "$id" || return
	br exec "$id" /abi-probe "${CALLS[@]}"
	assert_rc 0
	EXEC=$out
	br delete --force "$id"
	assert_rc 0
	diag "run:"
	diag "$RUN"
	diag "exec:"
	diag "$EXEC"
}

# result OUTPUT CALL: what the probe said of CALL.
result() {
	sed -n "s|^$2 ||p" <<<"$1"
}

# expect CALL WANT...: in both runs, CALL's result is one of WANT (an ERE
# each, anchored).
expect() {
	local call=$1 got how out_var re ok
	shift
	for how in run exec; do
		out_var=${how^^}
		got=$(result "${!out_var}" "$call")
		ok=
		for re in "$@"; do
			[[ "$got" =~ ^($re)$ ]] && ok=1
		done
		[ -n "$ok" ] || fail "$how: $call: expected $*, got $(_show "$got")"
	done
}

# untouched: no call made a directory; the host directory is empty.
untouched() {
	local call
	for call in "${CALLS[@]}"; do
		case $call in
		*:mkdir:*) expect "$call" 'errno=.*' 'signal=SIG.*' ;;
		esac
	done
	assert_empty_dir "$T/shared"
}

# no_state: no container is left under $T/root (the filter cache, brig's
# own, may be).
no_state() {
	assert_eq "$(find "$T/root" -mindepth 1 -maxdepth 1 ! -name .seccomp-cache 2>/dev/null)" "" \
		"what is left in $T/root"
}

# Only SCMP_ARCH_X86_64, everything allowed but mkdir and mkdirat: the
# i386 and x32 calls are of no architecture the filter knows; none may
# run (libseccomp kills them: SIGSYS), the i386 mkdir least of all.
t_x86_64_only() {
	setup
	probe '{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64"],
		"syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO"}]}'
	expect x86_64:getpid ok
	expect x86_64:mkdir:/shared/x86_64 'errno=EPERM \(1\)'
	expect i386:getpid 'errno=.*' 'signal=SIG.*'
	expect x32:getpid 'errno=.*' 'signal=SIG.*'
	untouched
	no_state
}

# All three architectures listed, mkdir and mkdirat denied: the rule holds
# on each ABI (by its own numbers), and the rest runs.
t_all_arches() {
	setup
	probe '{"defaultAction": "SCMP_ACT_ALLOW",
		"architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
		"syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO"}]}'
	expect x86_64:getpid ok
	expect i386:getpid ok
	if [ "$X32" = yes ]; then
		expect x32:getpid ok
	else
		expect x32:getpid 'errno=ENOSYS \(38\)'
	fi
	expect x86_64:mkdir:/shared/x86_64 'errno=EPERM \(1\)'
	expect i386:mkdir:/shared/i386 'errno=EPERM \(1\)'
	# seccomp answers before the kernel looks for the x32 table
	expect x32:mkdir:/shared/x32 'errno=EPERM \(1\)'
	untouched
	no_state
}

# An allow-list (contrib/seccomp/default.json, Podman's, without mkdir and
# mkdirat): i386 getpid is allowed, i386 mkdir (39, x86_64's allowed
# getpid) gets the default action, ENOSYS.  The same profile restricted to
# SCMP_ARCH_X86_64: no i386 call runs.
t_allow_list() {
	local sc
	setup
	sc=$(jq -c '.syscalls |= map(.names -= ["mkdir", "mkdirat"])' "$PROFILE") || fail "jq"
	assert_eq "$(jq -c .architectures <<<"$sc")" '["SCMP_ARCH_X86_64","SCMP_ARCH_X86","SCMP_ARCH_X32"]' \
		"architectures of $PROFILE"
	probe "$sc"
	expect x86_64:getpid ok
	expect i386:getpid ok
	expect x86_64:mkdir:/shared/x86_64 'errno=ENOSYS \(38\)'
	expect i386:mkdir:/shared/i386 'errno=ENOSYS \(38\)'
	expect x32:mkdir:/shared/x32 'errno=ENOSYS \(38\)'
	untouched

	probe "$(jq -c '.architectures = ["SCMP_ARCH_X86_64"]' <<<"$sc")"
	expect x86_64:getpid ok
	expect i386:getpid 'errno=.*' 'signal=SIG.*'
	expect x86_64:mkdir:/shared/x86_64 'errno=ENOSYS \(38\)'
	untouched
	no_state
}

tap_test "seccomp: an x86_64-only filter lets no i386 (int 0x80) or x32 syscall through" t_x86_64_only
tap_test "seccomp: a rule holds on the x86_64, i386 and x32 ABIs when all three are listed" t_all_arches
tap_test "seccomp: an allow-list without mkdir refuses the i386 mkdir (x86_64's getpid number)" t_allow_list
tap_done
