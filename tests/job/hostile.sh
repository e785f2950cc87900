#!/bin/bash
# brig job against hostile jobs: a fork bomb, a memory hog, a job that
# outlives its timeout with a child in the background, an output flood,
# writes all over the rootfs and `rm -rf /`, attempts to reach the network,
# to mount, to ptrace, to read the host through /proc, to unshare a user
# namespace, to use the kernel keyring and the other denied system calls;
# 64 jobs at once; brig itself killed (SIGKILL, SIGTERM, SIGINT) mid-job.
# Each asserts the result's fields, brig's exit status, and that nothing is
# left: no process, cgroup, state directory, mount or temporary file.
#
# Every job runs under the test's own --root "$T/root" on one busybox rootfs
# for the whole file ($ROOTFS), or on a private copy of it when the test
# compares the rootfs before and after; with TMPDIR=$T/tmp.  The options
# one by one are in options.sh (whose helpers these are too).
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

# shellcheck source=../lib/job.sh
. "$(dirname "$0")/../lib/job.sh"

# job_cgroups: the cgroup directories of the job's process JOB_PID that
# are its own (not those of this shell, which brig inherits).
job_cgroups() {
	local n ctrl path mine
	while IFS=: read -r n ctrl path; do
		mine=$(awk -F: -v n="$n" '$1 == n { print $3 }' "/proc/$BASHPID/cgroup")
		[ "$path" = "$mine" ] && continue
		if [ -z "$ctrl" ]; then
			if [ "$CG" = v2 ]; then
				echo "/sys/fs/cgroup$path"
			else
				echo "/sys/fs/cgroup/unified$path"
			fi
		else
			ctrl=${ctrl#name=}
			echo "/sys/fs/cgroup/${ctrl%%,*}$path"
		fi
	done <"/proc/$JOB_PID/cgroup"
}

# all_dead PID...: none of the PIDs is alive.
all_dead() {
	local p
	for p in "$@"; do
		alive "$p" && return 1
	done
	return 0
}

# assert_dead WHAT PID...: the PIDs (the job's processes) are gone.
assert_dead() {
	local what=$1 p left=
	shift
	for p in "$@"; do
		alive "$p" && left="$left $p($(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null))"
	done
	assert_eq "$left" "" "the job's processes alive $what"
}

# assert_gone DIR...: the directories (the job's cgroups) are gone.
assert_gone() {
	local d
	for d in "$@"; do
		[ ! -e "$d" ] || fail "the job's cgroup $d is still there"
	done
}

# tree_sum DIR: everything under DIR (path, type, mode, owner, size, mtime,
# ctime, link target) and the checksum of every file: any change shows.
tree_sum() {
	(
		cd "$1" || exit 1
		find . -printf '%p %y %m %U:%G %s %T@ %C@ %l\n' | sort
		find . -type f -exec md5sum {} + | sort
	)
}

# private_rootfs: a copy of the file's rootfs in $T/rootfs.
private_rootfs() {
	mkdir -p "$T/rootfs" && cp -a "$ROOTFS/." "$T/rootfs/" || fail "cannot copy the rootfs"
}

# DENIED CALL: the ERE of a probe line saying CALL was refused (seccomp's
# EPERM or ENOSYS, or a kill).
denied() {
	echo "(^|
)$1 (errno=(EPERM|ENOSYS)|signal=SIGSYS)(
|$)"
}

# assert_denied OUTPUT CALL...: the probe said each CALL was refused.
assert_denied() {
	local o=$1 c
	shift
	for c in "$@"; do
		assert_match "$o" "$(denied "$c")" "probe $c"
	done
}

# ------------------------------------------------------------- resources

# A fork bomb of sleeps under --pids 64: forks fail once the cgroup holds
# 64 tasks (the shell dies of it), the job ends long before its timeout and
# every sleep with it.
t_fork_bomb_sleeps() {
	local last
	job --pids 64 --timeout 20s -- sh -c 'n=0
		while [ $n -lt 1000 ]; do sleep 30 & n=$((n + 1)); echo $n; done
		echo "all forked"'
	assert_ne "$rc" 124 "exit status (not a timeout)"
	assert_ne "$rc" 0 "exit status (the shell cannot fork)"
	assert_not_contains "$out" "all forked" "stdout"
	last=$(tail -n 1 <<<"$out")
	assert_match "$last" '^[0-9]+$' "the last sleep forked" &&
		{ [ "$last" -ge 48 ] && [ "$last" -le 63 ]; } ||
		fail "sleeps forked: $last, expected up to 63 (64 tasks with the shell)"
	assert_contains "$err" "can't fork" "stderr"
	assert_res reason '"exited"'
	assert_res exit_code "$rc"
	assert_res timed_out false
	[ "$(res pids_peak)" = null ] || assert_res_int pids_peak 48 64
	assert_clean
}

# The classic bomb, f() { f | f & }: the job's processes churn at the
# limit; the main shell ends, and the job with every process of it.
t_fork_bomb_classic() {
	job --pids 64 --timeout 20s -- sh -c 'f() { f | f & }; f; sleep 2; echo survived'
	assert_ne "$rc" 124 "exit status (not a timeout)"
	[ "$rc" -lt 125 ] || fail "exit status $rc"
	assert_contains "$err" "can't fork" "stderr (the limit was hit)"
	assert_res timed_out false
	[ "$(res pids_peak)" = null ] || assert_res_int pids_peak 2 64
	assert_clean
}

# A memory hog under --memory 32M: killed by the OOM killer, reason oom;
# its peak never past the limit.
t_memory_hog() {
	job --memory 32M --timeout 30s -- sh -c 'x=0123456789abcdef; while :; do x=$x$x; done'
	assert_rc 137
	assert_res reason '"oom"'
	assert_res oom_killed true
	assert_res signal '"SIGKILL"'
	assert_res exit_code null
	assert_res timed_out false
	assert_res_int memory_peak_bytes 16777216 33554432
	assert_clean
}

# `sleep 100 &` and a busy loop under --timeout 1s: status 124, reason
# timeout, ended within 100 ms of the deadline (the job's wall_ms), brig
# returned within 100 ms of that job's time and what a job that does
# nothing costs it, and every process and cgroup of the job gone when
# brig returns.  Where a job of true takes more than 200 ms (the asan
# build: 230 ms on a quiet machine, 398 once in CI beside another file's
# 64 jobs at once), the end may lag the deadline by half that: the
# kill-all's freeze, kill and reap wait for a CPU as the job of true did
# (wall_ms was 1135 in that run).
t_timeout() {
	local t0 t1 base_ms elapsed wall pids cgs lag
	mkdir -p "$T/s"
	chmod 1777 "$T/s"
	t0=$(date +%s%N)
	job -- true
	t1=$(date +%s%N)
	assert_rc 0
	base_ms=$(((t1 - t0) / 1000000))

	rm -f "$T/result.json"
	t0=$(date +%s%N)
	TMPDIR=$T/tmp timeout -k 5 30 "$BRIG" --root "$T/root" job --rootfs "$ROOTFS" \
		--result "$T/result.json" --mount "$T/s:/s:rw" --timeout 1s \
		-- sh -c "sleep 100 & $READY; while :; do :; done" \
		</dev/null >"$T/bg.out" 2>"$T/bg.err" &
	BG_PID=$!
	defer kill_wait "$BG_PID"
	job_started || return
	pids=$(uid_pids "$BASE")
	cgs=$(job_cgroups)
	wait "$BG_PID"
	rc=$?
	t1=$(date +%s%N)
	elapsed=$(((t1 - t0) / 1000000))
	# shellcheck disable=SC2086 # (lists of pids and directories)
	{
		assert_dead "when brig returned" $pids
		assert_gone $cgs
	}
	diag "brig ran ${elapsed} ms (a job of true: ${base_ms} ms); wall_ms $(res wall_ms)"
	assert_eq "$rc" 124 "exit status (stderr: $(cat "$T/bg.err"))"
	assert_res reason '"timeout"'
	assert_res timed_out true
	assert_res oom_killed false
	lag=$((base_ms / 2 > 100 ? base_ms / 2 : 100))
	assert_res_int wall_ms 1000 $((1000 + lag))
	wall=$(res wall_ms)
	[[ "$wall" =~ ^[0-9]+$ ]] || wall=1000
	[ "$elapsed" -le $((base_ms + wall + 100)) ] ||
		fail "brig returned after $elapsed ms: more than 100 ms past the job's $wall ms and the $base_ms ms of a job of true"
	[ -n "$pids" ] && [ "$(wc -w <<<"$pids")" -ge 2 ] ||
		fail "the job's processes seen: $(_show "$pids") (expected the shell and sleep)"
	assert_clean
}

# An output flood (yes) under --output-limit 4K: the first 2K, the marker,
# the last 2K; the counts agree with each other.
t_output_flood() {
	local n d
	yes | head -c 2048 >"$T/half"
	job --output-limit 4K --timeout 1s -- yes
	assert_rc 124
	assert_res reason '"timeout"'
	n=$(res stdout_bytes)
	d=$(res stdout_dropped_bytes)
	if [[ "$n$d" =~ ^[0-9]+$ ]]; then
		assert_eq "$((n - d))" 4096 "stdout_bytes - stdout_dropped_bytes ($n - $d)"
		[ "$n" -gt 65536 ] || fail "yes wrote only $n bytes in a second"
		{
			cat "$T/half"
			printf '[brig: %d bytes dropped]\n' "$d"
			# yes writes "y\n" forever: an odd total ends in "y"
			if [ $((n % 2)) -eq 0 ]; then
				cat "$T/half"
			else
				yes | head -c 2049 | tail -c 2048
			fi
		} >"$T/expected"
		cmp -s "$out_file" "$T/expected" ||
			fail "stdout: $(stat -c %s "$out_file") bytes, expected $(stat -c %s "$T/expected"): $(_show "$(head -c 100 "$out_file")")...$(_show "$(tail -c 100 "$out_file")")"
	else
		fail "result .stdout_bytes, .stdout_dropped_bytes: $n, $d"
	fi
	assert_res stderr_bytes 0

	# a flood that ends: 10 MB on stdout, 5 MB on stderr
	job --output-limit 4K -- sh -c 'yes | head -c 10000000; yes | head -c 5000000 >&2'
	assert_rc 0
	assert_res stdout_bytes 10000000
	assert_res stdout_dropped_bytes 9995904
	assert_res stderr_bytes 5000000
	assert_res stderr_dropped_bytes 4995904
	{
		cat "$T/half"
		echo '[brig: 9995904 bytes dropped]'
		cat "$T/half"
	} >"$T/expected"
	cmp -s "$out_file" "$T/expected" || fail "stdout of 10 MB: $(stat -c %s "$out_file") bytes"
	{
		cat "$T/half"
		echo '[brig: 4995904 bytes dropped]'
		cat "$T/half"
	} >"$T/expected"
	cmp -s "$err_file" "$T/expected" || fail "stderr of 5 MB: $(stat -c %s "$err_file") bytes"
	assert_clean
}

# ----------------------------------------------------------- filesystems

# Writes, renames, removals, chmods all over the rootfs land in the
# writable layer: the job sees them, the lower directory is unchanged
# byte for byte.
t_writes_everywhere() {
	local before
	private_rootfs
	before=$(tree_sum "$T/rootfs")
	rm -f "$T/result.json"
	bj --rootfs "$T/rootfs" --result "$T/result.json" -- sh -c '
		for d in / /bin /etc /root /tmp /usr /usr/bin /var /sbin /run; do
			echo pwned >"$d/pwned" && echo "wrote $d"
		done
		echo pwned >>/etc/passwd
		mv /etc/group /etc/group.moved
		chmod 4777 /bin/busybox; chmod 777 /etc /
		chown 1:1 /etc/passwd 2>/dev/null
		rm -f /bin/ls /bin/cat
		mkdir -p /usr/new/dir
		touch -d "2001-01-01 00:00" /bin/sh /etc
		ln -sf /pwned /bin/evil
		echo "read back: $(head -n 1 /pwned) $(tail -n 1 /etc/passwd)"
		truncate -s 0 /etc/passwd
		dd if=/dev/zero of=/bin/busybox bs=1 count=16 seek=64 conv=notrunc 2>/dev/null
		echo done'
	assert_rc 0
	assert_contains "$out" "wrote /
wrote /bin" "stdout"
	assert_contains "$out" "read back: pwned pwned" "the job sees its writes"
	assert_contains "$out" "done" "stdout"
	assert_eq "$(tree_sum "$T/rootfs")" "$before" "the rootfs after the job"
	assert_clean
}

# rm -rf / : the job destroys its own view; the lower directory and a host
# directory bound read-only are untouched.
t_rm_rf() {
	local before
	private_rootfs
	mkdir -p "$T/hostro"
	echo keep >"$T/hostro/keep"
	chmod 0777 "$T/hostro"
	chmod 0666 "$T/hostro/keep"
	before=$(tree_sum "$T/rootfs")
	rm -f "$T/result.json"
	bj --rootfs "$T/rootfs" --result "$T/result.json" --mount "$T/hostro:/hostro" -- sh -c '
		rm -rf / 2>/dev/null; rm -rf /* /.[!.]* 2>/dev/null
		echo "left: $(echo /*)"'
	assert_rc 0
	assert_contains "$out" "left:" "stdout"
	assert_not_contains "$out" "/bin" "what is left of the job's root"
	assert_eq "$(tree_sum "$T/rootfs")" "$before" "the rootfs after rm -rf /"
	assert_eq "$(cat "$T/hostro/keep" 2>&1)" keep "the host file under the read-only mount"
	assert_res reason '"exited"'
	assert_clean
}

# ------------------------------------------------------------- escapes

# No route out: no route at all in the default (loopback) and none
# networks; connections to the internet and to the host's own addresses
# fail with "Network is unreachable".
t_network_unreachable() {
	local addr net targets="1.1.1.1"
	# the host's own first IPv4 address, if it has one besides lo
	addr=$(awk '$1 != "Iface" && $2 == "00000000" { print $1; exit }' /proc/net/route)
	if [ -n "$addr" ] && command -v ip >/dev/null 2>&1; then
		addr=$(ip -4 -o addr show dev "$addr" 2>/dev/null | awk '{ sub(/\/.*/, "", $4); print $4; exit }')
		[ -z "$addr" ] || targets="$targets $addr"
	fi
	for net in loopback none; do
		job --network "$net" --timeout 20s --env "TARGETS=$targets" -- sh -c '
			echo "routes: $(ip route 2>&1 | tr "\n" " ")"
			for a in $TARGETS; do
				nc -w 2 $a 80 </dev/null 2>&1; echo "nc $a $?"
			done
			wget -q -O- http://1.1.1.1/ 2>&1; echo "wget $?"'
		assert_rc 0
		assert_contains "$out" "routes: " "stdout (--network $net)"
		assert_eq "$(sed -n 's/^routes: //p' <<<"$out")" "" "the routes (--network $net)"
		for addr in $targets; do
			assert_not_contains "$out" "nc $addr 0" "nc to $addr (--network $net)"
		done
		assert_not_contains "$out" "wget 0" "wget (--network $net)"
		assert_contains "$out" "Network is unreachable" "stdout (--network $net)"
	done
	assert_clean
}

# mount, umount, pivot_root, a mount namespace of its own: all refused,
# and the job's mounts are the same afterwards.
t_mount() {
	need_probe
	job -- sh -c 'cat /proc/self/mountinfo >/tmp/before
		mount -t tmpfs none /mnt 2>&1; echo "mount $?"
		mount --bind / /mnt 2>&1; echo "bind $?"
		mount -o remount,rw /proc/sys 2>&1; echo "remount $?"
		umount /proc/sys 2>&1; echo "umount $?"
		probe mount umount pivot_root unshare-mnt
		cmp -s /proc/self/mountinfo /tmp/before && echo "mounts unchanged"'
	assert_rc 0
	assert_not_contains "$out" "mount 0" "busybox mount"
	assert_not_contains "$out" "bind 0" "busybox mount --bind"
	assert_not_contains "$out" "remount 0" "busybox mount -o remount,rw /proc/sys"
	assert_not_contains "$out" "umount 0" "busybox umount"
	assert_denied "$out" mount umount pivot_root unshare-mnt
	assert_contains "$out" "mounts unchanged" "the job's mount table"
	assert_clean
}

# ptrace (attach to a process of its own, TRACEME) and process_vm_readv:
# refused.
t_ptrace() {
	need_probe
	job -- probe ptrace-attach ptrace-traceme process_vm_readv
	assert_rc 0
	assert_denied "$out" ptrace-attach ptrace-traceme process_vm_readv
	assert_clean
}

# The host through /proc: only the job's own processes are there, /proc/1
# is the job's and its root the job's root; no /proc/PID/root reaches a host
# file; /proc/sys and the other read-only paths are mounted read-only; the
# masked paths read empty.
t_proc() {
	local secret p
	secret="host-secret-$RANDOM$RANDOM"
	echo "$secret" >"$T/secret"
	chmod 0644 "$T/secret"
	job --env "SECRET=$T/secret" -- sh -c '
		echo "procs: $(ls /proc | grep -c "^[0-9]")"
		for p in /proc/[0-9]*; do
			cat "$p/root$SECRET" "$p/root/etc/debian_version" "$p/cwd$SECRET" 2>/dev/null
		done
		echo "root1: $(ls /proc/1/root/ | tr "\n" " ")"
		echo "root: $(ls / | tr "\n" " ")"
		echo x >/proc/sys/kernel/domainname || echo "proc-sys refused"
		for m in /proc/sys /proc/sysrq-trigger /proc/irq /proc/bus /proc/fs; do
			[ -e $m ] && echo "ro-path $m $(awk -v m=$m "\$5 == m { print \$6 }" /proc/self/mountinfo)"
		done
		for f in /proc/kcore /proc/keys /proc/timer_list /proc/sched_debug /proc/latency_stats /proc/interrupts; do
			[ -e $f ] && echo "masked $f $(head -c 64 $f 2>/dev/null | wc -c)"
		done
		for d in /proc/acpi /proc/scsi /sys/firmware; do
			[ -d $d ] && echo "masked $d $(ls -A $d 2>/dev/null | wc -l)"
		done
		true'
	assert_rc 0
	assert_not_contains "$out" "$secret" "stdout"
	assert_not_contains "$out" "$(cat /etc/debian_version 2>/dev/null || echo no-debian)" "stdout (the host's /etc/debian_version)"
	p=$(sed -n 's/^procs: //p' <<<"$out")
	[ -n "$p" ] && [ "$p" -le 5 ] || fail "processes in the job's /proc: $(_show "$p")"
	assert_eq "$(sed -n 's/^root1: //p' <<<"$out")" "$(sed -n 's/^root: //p' <<<"$out")" \
		"/proc/1/root (the job's own root)"
	assert_contains "$out" "proc-sys refused" "a write to /proc/sys"
	assert_contains "$err" "Read-only file system" "a write to /proc/sys"
	assert_match "$out" "ro-path /proc/sys ro" "/proc/sys mount"
	while read -r _ p opts; do
		assert_match "$opts" '^ro(,|$)' "the mount of $p"
	done < <(grep '^ro-path ' <<<"$out")
	while read -r _ p n; do
		assert_eq "$n" 0 "bytes (files) or entries (directories) of masked $p"
	done < <(grep '^masked ' <<<"$out")
	# (kcore: the one that matters, where the kernel has it)
	[ ! -e /proc/kcore ] || assert_match "$out" "masked /proc/kcore 0" "/proc/kcore"
	assert_clean
}

# A user namespace: refused through unshare and clone (busybox unshare,
# and the raw calls).
t_unshare() {
	need_probe
	job -- sh -c 'unshare -U true 2>&1; echo "unshare -U $?"
		unshare -r id -u 2>&1; echo "unshare -r $?"
		probe unshare-user clone-user'
	assert_rc 0
	assert_not_contains "$out" "unshare -U 0" "busybox unshare -U"
	assert_not_contains "$out" "unshare -r 0" "busybox unshare -r"
	assert_denied "$out" unshare-user clone-user
	assert_clean
}

# The kernel keyring: keyctl, add_key, request_key refused.
t_keyctl() {
	need_probe
	job -- probe keyctl add_key request_key
	assert_rc 0
	assert_denied "$out" keyctl add_key request_key
	assert_clean
}

# The rest of the denials: bpf, perf_event_open, userfaultfd, kexec_load,
# open_by_handle_at.
t_denied_calls() {
	need_probe
	job -- probe bpf perf_event_open userfaultfd kexec_load open_by_handle_at
	assert_rc 0
	assert_denied "$out" bpf perf_event_open userfaultfd kexec_load open_by_handle_at
	assert_clean
}

# ------------------------------------------------------- many, and brig

# 64 jobs at once (each waits until all 64 are running): all succeed, with
# 64 distinct ids and 64 disjoint host id ranges.
t_64_jobs() {
	local i pids=() bases n prev
	mkdir -p "$T/s" "$T/r" "$T/tmp"
	chmod 1777 "$T/s"
	for ((i = 0; i < 64; i++)); do
		TMPDIR=$T/tmp timeout -k 5 90 "$BRIG" --root "$T/root" job --rootfs "$ROOTFS" \
			--result "$T/r/$i.json" --mount "$T/s:/s:rw" --env "I=$i" --timeout 60s -- sh -c '
			cat /proc/self/uid_map >/s/map.$I
			touch /s/ready.$I
			n=0
			while :; do
				set -- /s/ready.*
				[ $# -ge 64 ] && break
				[ $n -ge 400 ] && { echo "only $# jobs at once" >&2; exit 1; }
				sleep 0.1
				n=$((n + 1))
			done
			echo "job $I"' </dev/null >"$T/r/$i.out" 2>"$T/r/$i.err" &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[i]}"
		rc=$?
		[ "$rc" -eq 0 ] || fail "job $i: exit status $rc, stderr: $(cat "$T/r/$i.err")"
		assert_eq "$(cat "$T/r/$i.out")" "job $i" "stdout of job $i"
		assert_eq "$(jq -r .reason "$T/r/$i.json" 2>&1)" exited "reason of job $i"
	done
	assert_eq "$(jq -r .id "$T"/r/*.json 2>/dev/null | sort -u | grep -c .)" 64 "distinct ids"
	bases=$(awk '$1 == 0 { print $2 }' "$T"/s/map.* | sort -n)
	assert_eq "$(sort -u <<<"$bases" | grep -c .)" 64 "distinct host uid ranges"
	prev=
	for n in $bases; do
		[ -z "$prev" ] || [ $((n - prev)) -ge 65536 ] ||
			fail "host uid ranges at $prev and $n overlap"
		prev=$n
	done
	assert_clean
}

# Two jobs at once under two different --root directories get distinct
# host id ranges too (a range shared by two jobs would be one host uid for
# both).  brig starts its search for a free range at a slot that depends on
# its pid: the second brig runs in a pid namespace of its own, whose next
# pid (ns_last_pid, the namespace's own) is set to lead it to the first
# job's slot first, so that a range lock kept per state root, not per
# host, shows.  (It spent host pids until one fell in the slot: 4096 tries
# at most, 44 s of a CI run.)
t_ranges_across_roots() {
	local slot n pid base_b
	n=$(awk -F: '$1 == "brig" { print int($3 / 65536); exit }' /etc/subuid 2>/dev/null)
	: "${n:=1024}"
	# shellcheck disable=SC2016
	bg_job --timeout 60s -- sh -c "$READY"'; i=0
		while [ ! -e /s/go ] && [ $i -lt 400 ]; do sleep 0.1; i=$((i + 1)); done'
	job_started || return
	slot=$(((BASE - ID_START) / 65536))
	pid=$slot
	[ "$pid" -ge 2 ] || pid=$((pid + n)) # (1 is the namespace's init)
	mkdir -p "$T/s2"
	chmod 1777 "$T/s2"
	# shellcheck disable=SC2016
	TMPDIR=$T/tmp unshare --pid --fork --mount-proc -- sh -c '
		echo $(($1 - 1)) >/proc/sys/kernel/ns_last_pid || exit 99
		shift
		"$@" &
		echo $! >"$0"
		wait $!' "$T/b.pid" "$pid" \
		"$BRIG" --root "$T/root2" job --rootfs "$ROOTFS" \
		--mount "$T/s2:/s:rw" -- sh -c 'cat /proc/self/uid_map >/s/map' \
		</dev/null >"$T/b.out" 2>"$T/b.err" &
	wait_exit "$!" 30
	alive "$BG_PID" || fail "the first job had ended before the second ran"
	touch "$T/s/go"
	assert_eq "$rc" 0 "status of the job under the second root ($(<"$T/b.err"))"
	assert_eq "$(<"$T/b.pid")" "$pid" "the second brig's pid (slot $slot of $n)"
	wait_exit "$BG_PID" 20
	base_b=$(awk '$1 == 0 { print $2 }' "$T/s2/map" 2>/dev/null)
	diag "first job: host uid $BASE (slot $slot); second (brig pid $pid in its namespace): $base_b"
	assert_ne "$base_b" "$BASE" "the host id range of a job under another --root"
	rm -rf "$T/root2"
	assert_clean
}

# brig SIGKILLed mid-job: the job's processes die with it; `brig job --gc`
# then removes what is left (state, cgroups).
t_sigkill_gc() {
	local pids cgs
	bg_job --timeout 60s -- sh -c "sleep 100 & $READY; sleep 100"
	job_started || return
	pids=$(uid_pids "$BASE")
	cgs=$(job_cgroups)
	assert_ne "$cgs" "" "the job's cgroups"
	kill -KILL "$BG_PID"
	wait "$BG_PID" 2>/dev/null
	# shellcheck disable=SC2086 # (lists of pids and directories)
	{
		wait_until 5 all_dead $pids || assert_dead "5 s after brig was SIGKILLed" $pids
		diag "left by the SIGKILL: list: $("$BRIG" --root "$T/root" list -q 2>&1 | tr '\n' ' ')," \
			"jobs: $(ls -A "$T/root/jobs" 2>&1 | tr '\n' ' '), cgroups: $(ls -d $cgs 2>/dev/null | tr '\n' ' ')"
		bj --gc
		assert_rc 0
		assert_eq "$out$err" "" "output of --gc"
		assert_gone $cgs
	}
	assert_clean "after --gc"
}

# The same, cleaned by the next job instead of --gc.
t_sigkill_next_job() {
	local pids cgs
	bg_job --timeout 60s -- sh -c "sleep 100 & $READY; sleep 100"
	job_started || return
	pids=$(uid_pids "$BASE")
	cgs=$(job_cgroups)
	kill -KILL "$BG_PID"
	wait "$BG_PID" 2>/dev/null
	# shellcheck disable=SC2086 # (lists of pids and directories)
	{
		wait_until 5 all_dead $pids || assert_dead "5 s after brig was SIGKILLed" $pids
		job -- echo next
		assert_rc 0
		assert_eq "$out" next "stdout of the next job"
		assert_gone $cgs
	}
	assert_clean "after the next job"
}

# SIGTERM and SIGINT to brig: the job's processes are gone when brig
# returns; a result is written; nothing is left.
t_sigterm_sigint() {
	local sig pids cgs
	for sig in TERM INT; do
		rm -rf "$T/s"
		bg_job --timeout 60s -- sh -c "sleep 100 & $READY; sleep 100"
		job_started || return
		pids=$(uid_pids "$BASE")
		cgs=$(job_cgroups)
		kill "-$sig" "$BG_PID"
		wait_exit "$BG_PID" 10
		# shellcheck disable=SC2086 # (lists of pids and directories)
		{
			assert_dead "when brig returned after SIG$sig" $pids
			assert_gone $cgs
		}
		diag "SIG$sig: exit status $rc, result: $(cat "$T/result.json" 2>&1)"
		assert_ne "$rc" 0 "exit status after SIG$sig"
		assert_json "$(cat "$T/result.json" 2>&1)" "the result after SIG$sig"
		assert_res timed_out false
		# a reason "error" comes with its message
		[ "$(res reason)" != '"error"' ] || assert_match "$(res error)" '^"..*"$' \
			"result .error (with reason \"error\")"
		assert_clean "after SIG$sig"
	done
}

tap_test "a fork bomb of sleeps under --pids 64" t_fork_bomb_sleeps
tap_test "the classic fork bomb under --pids 64" t_fork_bomb_classic
tap_test "a memory hog under --memory 32M: oom" t_memory_hog
tap_test "sleep & and a busy loop under --timeout 1s: 124, by 1.1 s, all gone" t_timeout
tap_test "an output flood under --output-limit 4K" t_output_flood
tap_test "writes all over the rootfs leave the lower layer unchanged" t_writes_everywhere
tap_test "rm -rf / leaves the lower layer and ro mounts unchanged" t_rm_rf
tap_test "no route out (loopback, none)" t_network_unreachable
tap_test "mount, umount, pivot_root refused" t_mount
tap_test "ptrace and process_vm_readv refused" t_ptrace
tap_test "no host through /proc; /proc/sys ro; masked paths empty" t_proc
tap_test "no user namespace (unshare, clone)" t_unshare
tap_test "keyctl, add_key, request_key refused" t_keyctl
tap_test "bpf, perf_event_open, userfaultfd, kexec_load, open_by_handle_at refused" t_denied_calls
tap_test "64 jobs at once: distinct ids and host id ranges" t_64_jobs
tap_test "jobs under two --root dirs: distinct host id ranges" t_ranges_across_roots
tap_test "brig SIGKILLed: the job dies, --gc removes the rest" t_sigkill_gc
tap_test "brig SIGKILLed: the next job removes the rest" t_sigkill_next_job
tap_test "SIGTERM, SIGINT to brig end the job" t_sigterm_sigint
tap_done
