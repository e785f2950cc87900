#!/bin/bash
# brig job's denied_syscalls and --audit (issue 34): the calls the job's
# profile refuses beyond the base profile notify brig, which answers each
# with EPERM (as the kernel did before) and counts it by name.
#
#   the result       "denied_syscalls": {"mount": 2, ...} and
#                    "denied_syscalls_truncated"
#   --audit FILE     one JSON line per refused call: ms, the job's pid,
#                    call, args, and a path argument's string; at most
#                    --audit-limit lines ("audit_truncated" past them)
#
# Hostile jobs: 10,000 refused calls in a loop, eight threads at once, a
# denial while the job is being killed, names that try to break a line.
# Each count is exact (the probe counts what the kernel returned), and the
# errno is the one the job got before (EPERM).  Past 10,000 answers brig
# gives one a millisecond: a looping job slows only itself
# (tests/bench/changes.sh has the figures).
#
# runc has no job mode; its closest, a seccomp agent on listenerPath, is
# the caller's own program.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"
# shellcheck source=../lib/job.sh
. "$(dirname "$0")/../lib/job.sh"

# Every call the job profile adds, as the probe makes it, and the name
# (and count) the result gives it.
CALLS="mount umount pivot_root unshare-user unshare-mnt ptrace-attach ptrace-traceme
	process_vm_readv keyctl add_key request_key bpf perf_event_open userfaultfd kexec_load"
COUNTS='{"add_key":1,"bpf":1,"kexec_load":1,"keyctl":1,"mount":1,"perf_event_open":1,"pivot_root":1,"process_vm_readv":1,"ptrace":2,"request_key":1,"umount2":1,"unshare":2,"userfaultfd":1}'

t_counts() {
	need_probe
	# shellcheck disable=SC2086
	job -- probe $CALLS
	assert_rc 0
	local c
	for c in $CALLS; do
		assert_contains "$out" "$c errno=EPERM" "probe $c"
	done
	assert_eq "$(res 'denied_syscalls' | jq -cS .)" "$COUNTS" "denied_syscalls"
	assert_res denied_syscalls_truncated false
	# what the base profile refuses is not counted (yet): a plain job
	job -- true
	assert_res denied_syscalls '{}'
	assert_clean
}

# 10,000 refused calls in a loop, then (another job) 8 threads of 1,200
# at once: each one refused with EPERM, each one counted.
t_loop_threads() {
	need_probe
	job -- probe loop 10000 mount
	assert_rc 0
	assert_eq "$out" "mount 10000 errno=EPERM" "what the job got"
	assert_res denied_syscalls '{"mount":10000}'
	assert_res denied_syscalls_truncated false
	diag "10,000 refused calls: the job's wall time $(res wall_ms) ms"
	job -- probe threads 8 1200 keyctl
	assert_rc 0
	assert_eq "$out" "keyctl 9600 errno=EPERM" "what the job's threads got"
	assert_res denied_syscalls '{"keyctl":9600}'
	assert_clean
}

# Past 10,000 answers, one a millisecond: 1,500 more take at least 1 s,
# and every one is still answered and counted.
t_slowed() {
	need_probe
	job -- probe loop 11500 mount
	assert_rc 0
	assert_eq "$out" "mount 11500 errno=EPERM" "what the job got"
	assert_res denied_syscalls '{"mount":11500}'
	assert_res_int wall_ms 1000
	assert_clean
}

# Once the answers are slowed (past 10,000), a job that then idles costs
# brig nothing: brig waits in poll, it does not spin until the deadline.
# The CPU time of brig and what it reaped (the job's) is at most a
# second, for 10,050 calls and 3 s of sleep.
t_idle_after_slowed() {
	need_probe
	local cpu
	TIMEFORMAT='%3U %3S'
	{ time job -- sh -c 'probe loop 10050 mount; sleep 3'; } 2>"$T/cpu"
	assert_rc 0
	assert_res denied_syscalls '{"mount":10050}'
	cpu=$(awk '{ printf "%d", ($1 + $2) * 1000 }' "$T/cpu")
	[ "$cpu" -le 1000 ] || fail "brig and the job used $cpu ms of CPU over a job of 3 s idle"
	assert_clean
}

# A call made through another architecture's entry (int 0x80) is the
# same call: one count by name, no key twice in the object.  Skipped
# where the kernel has no such entry (int 0x80 is SIGSEGV outside any
# job: a kernel without IA32 emulation, or a guest whose hypervisor
# refuses it), since no job could make the call there.
t_arches() {
	need_probe
	local host
	host=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$PROBE" getpid-int80 2>&1)
	[ "$host" = "getpid-int80 ok" ] ||
		skip "this kernel has no 32-bit entry: int 0x80 on the host, as nobody: $host"
	job -- probe mount mount-int80 keyctl
	assert_rc 0
	assert_contains "$out" "mount-int80 errno=EPERM" "probe mount-int80"
	assert_eq "$(jq -c .denied_syscalls "$T/result.json")" '{"mount":2,"keyctl":1}' \
		"denied_syscalls"
	assert_eq "$(grep -o '"mount":' "$T/result.json" | wc -l)" 1 "\"mount\" keys in the result"
	assert_clean
}

# A job killed at its deadline while its threads make refused calls: 124,
# the counts so far, nothing left, brig not stuck.
t_killed() {
	need_probe
	job --timeout 1s -- probe threads 4 1000000 bpf
	assert_rc 124
	assert_res reason '"timeout"'
	assert_res_int denied_syscalls.bpf 10000
	assert_res_int wall_ms 1000 3000
	assert_clean
}

t_audit() {
	need_probe
	# shellcheck disable=SC2016
	job --audit "$T/audit" --audit-limit 4 -- sh -c '
		mount -t tmpfs none /mnt; mount -t proc proc "$(printf "/a\nb\"\377")"
		umount /; probe keyctl bpf >/dev/null; echo $$'
	assert_rc 0
	local pid=$out
	assert_eq "$(wc -l <"$T/audit")" 4 "lines of --audit"
	assert_eq "$(jq -c '[.call, .source, .target, .fstype]' "$T/audit" | head -2)" \
		'["mount","none","/mnt","tmpfs"]
["mount","proc","/a\nb\"�","proc"]' "the mounts' lines"
	assert_eq "$(jq -c '[.call, .target]' "$T/audit" | sed -n 3p)" '["umount2","/"]' \
		"the umount's line"
	assert_eq "$(jq -c '[.call, (.args | length)]' "$T/audit" | sed -n 4p)" '["keyctl",6]' \
		"the keyctl's line"
	# the sh's children: a pid of the job's namespace, above the sh's
	assert_eq "$(jq -r '.pid > '"$pid"' and .pid < 100' "$T/audit" | sort -u)" true \
		"the pids are the job's"
	assert_res audit_truncated true
	assert_res denied_syscalls '{"mount":2,"umount2":1,"keyctl":1,"bpf":1}'
	assert_clean
}

# The job never holds the listener: its fds are its stdio, and a call it
# makes is refused whatever it does.
t_no_listener_in_job() {
	job -- sh -c 'ls -l /proc/self/fd/ | grep -c seccomp; ls /proc/self/fd'
	assert_eq "$out" "0
0
1
2
3" "the job's fds (ls's own directory is 3)"
	assert_clean
}

t_bad() {
	bj --rootfs "$ROOTFS" --audit "" -- true
	assert_rc 125
	assert_contains "$err" "brig: --audit: expected FILE" "stderr"
	bj --rootfs "$ROOTFS" --audit-limit x -- true
	assert_rc 125
	assert_contains "$err" "brig: --audit-limit \"x\": expected a number" "stderr"
	bj --rootfs "$ROOTFS" --audit "$T/nodir/a" -- true
	assert_rc 125
	assert_lines 1 "$err" "stderr"
	assert_contains "$err" "brig: --audit \"$T/nodir/a\"" "stderr"
	assert_clean
}

# --seccomp unconfined or a FILE: no job denials, no field.
t_other_profiles() {
	job --seccomp unconfined -- true
	assert_rc 0
	assert_res denied_syscalls null
	assert_clean
}

# A pooled job: its member's init kept the listener, its claimer takes it
# and answers as a cold job's brig does; the job has no such fd.
t_pooled() {
	need_probe
	run_cmd "$BRIG" --root "$T/root" pool create P --size 1 --rootfs "$ROOTFS"
	assert_rc 0
	defer "$BRIG" --root "$T/root" pool destroy P
	bj --pool P --result "$T/result.json" --audit "$T/audit" --audit-limit 5000 \
		-- sh -c 'probe mount keyctl; probe loop 2000 bpf; ls -l /proc/self/fd | grep -c seccomp; true'
	assert_rc 0
	assert_res pool '"hit"'
	assert_eq "$out" "mount errno=EPERM
keyctl errno=EPERM
bpf 2000 errno=EPERM
0" "what the job got"
	assert_res denied_syscalls '{"mount":1,"keyctl":1,"bpf":2000}'
	assert_eq "$(jq -r .call "$T/audit" | sort | uniq -c | tr -s ' ')" " 2000 bpf
 1 keyctl
 1 mount" "the audit's lines"
	run_cmd "$BRIG" --root "$T/root" pool destroy P
	assert_rc 0
	rmdir "$T/root/pools"
	assert_clean
}

# A job that ends before brig has taken its filter's listener (the
# create sends it through a socket, which brig's loop accepts, then
# reads, a poll each): its result says denied_syscalls {} all the same.
# A call would have waited for brig's answer: none was made.  Under load
# in CI a cold `true` ended that soon, and its result lacked the field (a
# pooled job's, whose claimer holds the fd from the start, had it).
# brig sleeps at job.watch, before its first poll, while the job ends.
t_ended_before_listener() {
	need_faults
	BRIG_FAULT=job.watch:sleep=500 job -- true
	assert_rc 0
	assert_res denied_syscalls '{}'
	assert_res denied_syscalls_truncated false
	assert_clean
}

# Once the job's filter has no task left (its last process is exiting),
# its listener's fd says POLLHUP at every poll, and nothing more can come:
# brig polls it no more.  It did, and spun until the job's end was seen,
# while the job's memory was freed (3300 to 4300 polls for a job that
# exits with 100 MB, on a CPU the exit needed).  --debug says how many
# polls brig's loop made.
t_no_spin_at_exit() {
	local n
	mkdir -p "$T/tmp"
	run_cmd env TMPDIR="$T/tmp" "$BRIG" --debug --root "$T/root" job --rootfs "$ROOTFS" \
		--memory 1G -- sh -c 'x=$(head -c 100000000 /dev/zero | tr "\0" a); echo ${#x}'
	assert_rc 0
	assert_eq "$out" 100000000 "the job's output"
	n=$(sed -n 's/.*watched in \([0-9]*\) polls.*/\1/p' <<<"$err")
	assert_match "$n" '^[0-9]+$' "the polls brig's --debug counted (stderr: $(_show "$err"))" || return
	[ "$n" -lt 100 ] || fail "brig polled $n times for a job that wrote one line"
	assert_clean
}

tap_test "every call the job profile adds: EPERM, counted by name" t_counts
tap_test "10,000 refused calls in a loop; 8 threads at once: each counted" t_loop_threads
tap_test "past 10,000 answers, one a millisecond: the job slows, all counted" t_slowed
tap_test "past 10,000 answers, a job that then idles costs brig no CPU" t_idle_after_slowed
tap_test "a call through the 32-bit entry: the same name, one count" t_arches
tap_test "refused calls while the job is killed at its deadline" t_killed
tap_test "--audit: a line each, the job's pids, path arguments, --audit-limit" t_audit
tap_test "the job never holds the seccomp listener" t_no_listener_in_job
tap_test "a pooled job's refused calls: counted by its claimer, never the job's" t_pooled
tap_test "bad --audit, --audit-limit: 125, one line" t_bad
tap_test "--seccomp unconfined: nothing counted, no field" t_other_profiles
tap_test "a job ended before brig took its listener: denied_syscalls {}" t_ended_before_listener
tap_test "the job's filter without a task: its listener polled no more" t_no_spin_at_exit
tap_done
