#!/bin/bash
# What confines a job, as brig-job(8) says it (issue 30, findings 9, 10, 12):
#
# - io_uring: the job's profile refuses io_uring_setup, io_uring_enter
#   and io_uring_register (EPERM), as moby#46762 and containerd#9320 do:
#   io_uring's operations (openat, connect, ...) are not system calls, so
#   no seccomp rule sees them.  The probe calls io_uring_setup for real,
#   on a host that has io_uring (kernel.io_uring_disabled 0 here).
# - the result's warning without a user namespace names what the job's
#   root, the host's, really has: "without capabilities", or the
#   capabilities --keep-caps kept.
# - a CPU bound by default: --cpus 1 unless given, --cpus 0 none, pool
#   members too; the job's cgroup has a quota of one period
#   (cpu.cfs_quota_us / cpu.cfs_period_us on v1, cpu.max on v2), and a
#   job of two busy processes gets about one CPU of the wall time.
#   (runc sets no CPU quota unless the config asks; a job's config is
#   brig's, so the bound is brig's default to give.)
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"
# shellcheck source=../lib/job.sh
. "$(dirname "$0")/../lib/job.sh"

if SETID=$(static_helper security/setid-probe); then
	cp "$SETID" "$ROOTFS/bin/setid-probe"
fi

need_setid_probe() {
	[ -x "$ROOTFS/bin/setid-probe" ] || skip "needs a static tests/security/setid-probe (gcc -static)"
}

# ------------------------------------------------------------ io_uring

t_io_uring() {
	local way=$1
	need_setid_probe
	[ "$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)" = 0 ] ||
		diag "kernel.io_uring_disabled is set: the call fails on the host too"
	# shellcheck disable=SC2086 # $way is flags
	job $way -- setid-probe / io_uring
	assert_rc 0
	assert_eq "$out" "io_uring errno=EPERM" "io_uring_setup in the job (${way:-userns})"
	assert_clean
}

# ------------------------------------------------------------ the warning

t_warning() {
	job --no-userns -- true
	assert_rc 0
	assert_res warning \
		'"no user namespace (--no-userns): the job'"'"'s root is the host'"'"'s root, without capabilities"'
	job --no-userns --keep-caps MKNOD,DAC_OVERRIDE -- true
	assert_rc 0
	assert_res warning \
		'"no user namespace (--no-userns): the job'"'"'s root is the host'"'"'s root, with CAP_MKNOD, CAP_DAC_OVERRIDE"'
	job --no-userns --keep-caps cap_net_raw -- true
	assert_res warning \
		'"no user namespace (--no-userns): the job'"'"'s root is the host'"'"'s root, with CAP_NET_RAW"'
	# with a user namespace, none
	job --keep-caps NET_RAW -- true
	assert_res warning null
	assert_clean
}

# A hit of a --no-userns pool warns as a cold job of its options does: its
# member has no user namespace either, and the capabilities its pool
# keeps.  Before the fix a hit's warning was null (found by attacking
# docs/SECURITY.md's gaps: the warning was set on the cold path only).
t_warning_pool() {
	local i
	defer timeout -k 5 30 "$BRIG" --root "$T/root" pool destroy nu
	run_cmd "$BRIG" --root "$T/root" pool create nu --rootfs "$ROOTFS" --size 1 \
		--no-userns --keep-caps NET_RAW
	assert_rc 0 || return
	for i in $(seq 1 50); do
		[ -n "$(ls "$T/root/pools/nu/ready" 2>/dev/null)" ] && break
		sleep 0.2
	done
	rm -f "$T/result.json"
	bj --pool nu --result "$T/result.json" -- true
	assert_rc 0
	assert_res pool '"hit"'
	assert_res warning \
		'"no user namespace (--no-userns): the job'"'"'s root is the host'"'"'s root, with CAP_NET_RAW"'
	run_cmd "$BRIG" --root "$T/root" pool destroy nu
	assert_rc 0
	assert_eq "$("$BRIG" --root "$T/root" list -q 2>&1)" "" "brig list -q"
	assert_eq "$(cgroups_left)" "" "cgroup directories left"
	assert_eq "$(strays)" "" "processes left"
}

# ------------------------------------------------------------ the CPU bound

# cpu_bound PID: the CPU bound of PID's cgroup as "QUOTA PERIOD" ("max
# PERIOD" or "-1 PERIOD" when none).
cpu_bound() {
	if [ "$CG" = v2 ]; then
		cg_read "$1" cpu - cpu.max
	else
		echo "$(cg_read "$1" cpu cpu.cfs_quota_us -) $(cg_read "$1" cpu cpu.cfs_period_us -)"
	fi
}

# assert_one_cpu PID WHAT: PID's cgroup's quota is one period.
assert_one_cpu() {
	local q p
	read -r q p <<<"$(cpu_bound "$1")"
	assert_match "$q $p" '^[0-9]+ [0-9]+$' "the CPU bound of $2" || return
	assert_eq "$q" "$p" "the quota of $2 against its period"
}

t_cpu_default() {
	bg_job -- sh -c "$READY; sleep 30"
	job_started || return
	assert_one_cpu "$JOB_PID" "a job by default"
	kill -TERM "$BG_PID"
	wait_exit "$BG_PID" 10
	assert_clean "after the default job"

	rm -rf "$T/s"
	bg_job --cpus 0 -- sh -c "$READY; sleep 30"
	job_started || return
	assert_match "$(cpu_bound "$JOB_PID")" '^(max|-1) [0-9]+$' "the CPU bound with --cpus 0"
	kill -TERM "$BG_PID"
	wait_exit "$BG_PID" 10
	assert_clean
}

# Two busy processes for 3 s: about one CPU of the wall time (a loose
# bound: 1.3), and at least something of it (the loops ran).
t_cpu_held() {
	local used wall
	job --timeout 3s -- sh -c 'while :; do :; done & while :; do :; done'
	assert_res reason '"timeout"'
	used=$(($(res cpu_user_ms) + $(res cpu_system_ms)))
	wall=$(res wall_ms)
	diag "two busy processes: ${used} ms of CPU in ${wall} ms"
	[ "$used" -le $((wall * 13 / 10)) ] ||
		fail "the job used $used ms of CPU in $wall ms: more than one CPU"
	[ "$used" -ge $((wall / 5)) ] || fail "the job used only $used ms of CPU in $wall ms"
	assert_clean
}

# A pool's member has the bound too, from its making.
t_cpu_pool() {
	local m pid
	defer timeout -k 5 30 "$BRIG" --root "$T/root" pool destroy cpu
	run_cmd "$BRIG" --root "$T/root" pool create cpu --rootfs "$ROOTFS" --size 1
	assert_rc 0 || return
	wait_until 10 eval '[ -n "$("$BRIG" --root "$T/root" list -q 2>/dev/null | grep "^cpu-")" ]' ||
		fail "no member of pool cpu"
	m=$("$BRIG" --root "$T/root" list -q 2>/dev/null | grep '^cpu-' | head -n 1)
	pid=$("$BRIG" --root "$T/root" state "$m" 2>/dev/null | jq -r .pid)
	assert_match "$pid" '^[0-9]+$' "member $m's init" || return
	assert_one_cpu "$pid" "pool cpu's member"
	run_cmd "$BRIG" --root "$T/root" pool destroy cpu
	assert_rc 0
	# (the pools directory stays, empty: assert_clean would count it)
	assert_eq "$("$BRIG" --root "$T/root" list -q 2>&1)" "" "brig list -q"
	assert_eq "$(cgroups_left)" "" "cgroup directories left"
	assert_eq "$(strays)" "" "processes left"
}

t_cpus_bad() {
	local v
	for v in -1 abc ""; do
		bj --rootfs "$ROOTFS" --cpus "$v" -- true
		assert_rc 125
		assert_lines 1 "$err" "stderr of --cpus \"$v\""
		assert_contains "$err" "--cpus" "stderr of --cpus \"$v\""
	done
	assert_clean
}

tap_test "io_uring_setup is refused to a job" t_io_uring ""
tap_test "io_uring_setup is refused to a job (--no-userns)" t_io_uring --no-userns
tap_test "the warning without a user namespace names the capabilities kept" t_warning
tap_test "a hit of a --no-userns pool warns as its cold job would" t_warning_pool
tap_test "a job's cgroup has a quota of one CPU by default, none with --cpus 0" t_cpu_default
tap_test "a job of two busy processes gets about one CPU" t_cpu_held
tap_test "a pool's member has a quota of one CPU by default" t_cpu_pool
tap_test "a bad --cpus is one line and 125" t_cpus_bad
tap_done
