#!/bin/bash
# brig job: every option does what brig-job(8) says, the defaults are the
# hardened ones, and a bad value of any flag is refused (status 125, one
# `brig: ...` line on stderr naming the flag) with nothing left behind.
#
# Every job runs under the test's own --root "$T/root" on one busybox rootfs
# for the whole file ($ROOTFS, the read-only lower layer of each job's
# overlay), with TMPDIR=$T/tmp so that a temporary file brig forgets shows.
# After each job: `brig list` is empty, nothing is left under
# $T/root/jobs/ or in $T/tmp; the harness fails a test that leaves a
# process, a mount or a cgroup directory.  Hostile jobs are in hostile.sh.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

# shellcheck source=../lib/job.sh
. "$(dirname "$0")/../lib/job.sh"

# names ENV-OUTPUT: the variable names of `env` output, sorted, one a line.
names() {
	sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p' <<<"$1" | sort
}

# expect_capped FILE LIMIT: what brig writes of a stream whose bytes are
# FILE under --output-limit LIMIT: all of it within the limit; otherwise the
# first half (rounded up), a newline unless that half ends with one, the
# marker line, the last half.
expect_capped() {
	local size h t
	size=$(stat -c %s "$1")
	if [ "$size" -le "$2" ]; then
		cat "$1"
		return
	fi
	h=$((($2 + 1) / 2))
	t=$(($2 / 2))
	head -c "$h" "$1"
	[ "$(head -c "$h" "$1" | tail -c 1 | od -An -tx1 | tr -d ' ')" = 0a ] || echo
	printf '[brig: %d bytes dropped]\n' $((size - $2))
	[ "$t" -eq 0 ] || tail -c "$t" "$1"
}

# ----------------------------------------------------------- the defaults

# The job's environment is exactly PATH and HOME=/root: nothing of brig's
# own (TERM, TMPDIR, BRIG_TEST_LEAK), and brig itself says nothing.
t_env_default() {
	job -- env
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$(names "$out" | tr '\n' ' ')" "HOME PATH " "the job's variables"
	assert_contains "$out" "HOME=/root" "env"
	grep -q '^PATH=.*/bin' <<<"$out" || fail "no PATH with /bin in the environment: $(_show "$out")"
	assert_not_contains "$out" "leaked" "env"
	assert_clean
}

# --env adds variables (a value with spaces and '=' stays whole) and wins
# over a default; HOME is the --user's home from the rootfs's /etc/passwd.
t_env() {
	job --env A=1 --env 'B=x y' --env C=a=b -- env
	assert_rc 0
	assert_eq "$(names "$out" | tr '\n' ' ')" "A B C HOME PATH " "the job's variables"
	assert_contains "$out" "A=1" "env"
	assert_contains "$out" "B=x y" "env"
	assert_contains "$out" "C=a=b" "env"

	job --env HOME=/elsewhere -- env
	assert_rc 0
	assert_eq "$(grep '^HOME=' <<<"$out")" "HOME=/elsewhere" "HOME with --env HOME=/elsewhere"

	# 65534 is "nobody" in the rootfs's passwd, home /nonexistent
	job --user 65534 -- env
	assert_rc 0
	assert_eq "$(grep '^HOME=' <<<"$out")" "HOME=/nonexistent" "HOME of --user 65534"
	assert_eq "$(names "$out" | tr '\n' ' ')" "HOME PATH " "the variables of --user 65534"
	assert_clean
}

# Root inside, an unprivileged range of 65536 host ids outside: the uid_map
# and gid_map, and the job's processes as the host sees them.
t_ids() {
	local base gbase
	job -- sh -c 'id -u; id -g; cat /proc/self/uid_map /proc/self/gid_map'
	assert_rc 0
	assert_eq "$(sed -n 1,2p <<<"$out" | tr '\n' ' ')" "0 0 " "id -u, id -g inside"
	base=$(sed -n 3p <<<"$out" | awk '{ print $1 ":" $3 }')
	assert_eq "$base" "0:65536" "uid_map (inside:count): $(sed -n 3p <<<"$out")"
	base=$(sed -n 3p <<<"$out" | awk '{ print $2 }')
	gbase=$(sed -n 4p <<<"$out" | awk '{ print $2 }')
	assert_match "$base" '^[0-9]+$' "the job's first host uid" || return
	[ "$base" -ge "$ID_START" ] || fail "host uid $base is below the id ranges ($ID_START)"
	# the ranges are the 65536-id blocks from ID_START
	assert_eq "$(((base - ID_START) % 65536))" 0 "offset of host uid $base in its range"
	assert_eq "$gbase" "$base" "the job's first host gid"
	assert_eq "$(sed -n 4p <<<"$out" | awk '{ print $1 ":" $3 }')" "0:65536" "gid_map (inside:count)"

	# from the host: the job's process has the range's ids, no capability
	bg_job -- sh -c "$READY; sleep 30"
	job_started || return
	assert_eq "$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/$JOB_PID/status")" \
		"$BASE $BASE $BASE $BASE" "Uid of the job's process $JOB_PID on the host"
	assert_eq "$(awk '/^Gid:/ { print $2, $3, $4, $5 }' "/proc/$JOB_PID/status")" \
		"$BASE $BASE $BASE $BASE" "Gid of the job's process $JOB_PID on the host"
	assert_eq "$(awk '/^CapEff:/ { print $2 }' "/proc/$JOB_PID/status")" 0000000000000000 \
		"CapEff of the job's process on the host"
	[ "$BASE" -ge "$ID_START" ] || fail "host uid $BASE is below the id ranges ($ID_START)"
	kill -TERM "$BG_PID"
	wait_exit "$BG_PID" 10
	assert_clean
}

# --no-userns (what brig also does, by itself, on a host without user
# namespaces): no user namespace, so the job's root is the host's root,
# but with no capability, under no_new_privs and seccomp; the rootfs is
# still read-only under the overlay, and the result carries a warning.
t_no_userns() {
	local before
	before=$(find "$ROOTFS" -xdev -printf '%p %m %U:%G %s\n' | sort | md5sum)
	job --no-userns -- sh -c 'cat /proc/self/uid_map; id -u
		grep -E "^(CapEff|CapPrm|NoNewPrivs|Seccomp):" /proc/self/status
		readlink /proc/self/ns/user
		echo written > /etc/owned && touch /bin/new && echo wrote'
	assert_rc 0
	assert_eq "$(sed -n 1p <<<"$out" | awk '{ print $1, $2, $3 }')" "0 0 4294967295" \
		"uid_map: the host's"
	assert_eq "$(readlink /proc/self/ns/user)" "$(grep '^user:' <<<"$out")" \
		"the job's user namespace is the host's"
	assert_eq "$(awk '$1 == "CapEff:" || $1 == "CapPrm:" { print $2 }' <<<"$out" | sort -u)" \
		0000000000000000 "no capability"
	assert_eq "$(awk '$1 == "NoNewPrivs:" { print $2 }' <<<"$out")" 1 "NoNewPrivs"
	assert_eq "$(awk '$1 == "Seccomp:" { print $2 }' <<<"$out")" 2 "Seccomp"
	assert_contains "$out" wrote "writes land in the writable layer"
	assert_eq "$(find "$ROOTFS" -xdev -printf '%p %m %U:%G %s\n' | sort | md5sum)" "$before" \
		"the rootfs is unchanged"
	assert_match "$(res warning)" 'no user namespace' "result .warning"
	# without the flag, no warning field
	job -- true
	assert_res warning null
	assert_clean
}

# No capability (any set), no_new_privs, a seccomp filter, core=0 and
# nofile=1024, and a namespace of its own of every kind.
t_hardened() {
	local ns host inside
	job -- sh -c 'grep -E "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp):" /proc/self/status
		echo "core $(ulimit -c) nofile $(ulimit -n) $(ulimit -Hn)"
		for ns in pid ipc uts mnt cgroup net user; do
			echo "ns $ns $(readlink /proc/self/ns/$ns)"
		done'
	assert_rc 0
	assert_eq "$(grep -E '^Cap' <<<"$out" | awk '{ print $2 }' | sort -u)" 0000000000000000 \
		"capability sets: $(grep -E '^Cap' <<<"$out" | tr '\n' ' ')"
	assert_eq "$(awk '$1 == "NoNewPrivs:" { print $2 }' <<<"$out")" 1 "NoNewPrivs"
	assert_eq "$(awk '$1 == "Seccomp:" { print $2 }' <<<"$out")" 2 "Seccomp"
	assert_eq "$(grep '^core' <<<"$out")" "core 0 nofile 1024 1024" "rlimits"
	for ns in pid ipc uts mnt cgroup net user; do
		host=$(readlink "/proc/self/ns/$ns")
		inside=$(awk -v n="$ns" '$1 == "ns" && $2 == n { print $3 }' <<<"$out")
		assert_match "$inside" "^$ns:" "the job's $ns namespace"
		assert_ne "$inside" "$host" "the job's $ns namespace (the host's is $host)"
	done
	assert_clean
}

# /dev: the standard nodes only (null zero full random urandom tty ptmx,
# pts, shm, mqueue; and the usual fd/stdin/stdout/stderr symlinks), and
# they work.
t_dev() {
	job -- sh -c 'cd /dev
		for f in * .*; do
			[ "$f" = . ] || [ "$f" = .. ] || [ ! -e "$f" -a ! -L "$f" ] && continue
			if [ -L "$f" ]; then t=link; elif [ -c "$f" ]; then t=char
			elif [ -b "$f" ]; then t=block; elif [ -d "$f" ]; then t=dir; else t=other; fi
			echo "$t $f"
		done
		echo x >/dev/null && echo "null ok"
		echo "urandom $(head -c 16 /dev/urandom | wc -c)"
		echo "zero $(head -c 4 /dev/zero | od -An -tx1 | tr -d " ")"'
	assert_rc 0
	local chars dirs links others
	chars=$(awk '$1 == "char" { print $2 }' <<<"$out" | sort | tr '\n' ' ')
	dirs=$(awk '$1 == "dir" { print $2 }' <<<"$out" | sort | tr '\n' ' ')
	links=$(awk '$1 == "link" { print $2 }' <<<"$out" | sort | tr '\n' ' ')
	others=$(awk '$1 == "block" || $1 == "other" { print $2 }' <<<"$out" | tr '\n' ' ')
	# ptmx is a node or a link to pts/ptmx
	assert_match "$chars" '^full null (ptmx )?random tty urandom zero $' "character devices in /dev"
	assert_eq "$dirs" "mqueue pts shm " "directories in /dev"
	assert_eq "$(tr ' ' '\n' <<<"$links" | grep -vxE 'fd|stdin|stdout|stderr|ptmx|core|' | tr '\n' ' ')" "" \
		"symlinks in /dev ($links)"
	assert_eq "$others" "" "other entries in /dev"
	assert_contains "$out" "null ok" "/dev/null"
	assert_contains "$out" "urandom 16" "/dev/urandom"
	assert_contains "$out" "zero 00000000" "/dev/zero"
	assert_clean
}

# ------------------------------------------------------------ the network

# The default, loopback: a network namespace of its own with only lo, up;
# HTTP over 127.0.0.1 works (busybox httpd and wget; busybox nc -l quits
# at the EOF of its stdin, /dev/null, racing the client; and wget -T
# crashes on a refused connection).
t_network_loopback() {
	local script
	# shellcheck disable=SC2016
	script='tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | tr "\n" " "; echo
		echo "flags $(cat /sys/class/net/lo/flags)"
		echo "ns $(readlink /proc/self/ns/net)"
		mkdir -p /tmp/www; echo hello-lo >/tmp/www/index.html
		httpd -f -p 127.0.0.1:7777 -h /tmp/www &
		i=0
		while [ $i -lt 50 ]; do
			wget -q -O- http://127.0.0.1:7777/index.html 2>/dev/null && break
			sleep 0.1; i=$((i + 1))
		done >/tmp/got
		kill $!; wait; echo "got $(cat /tmp/got)"'
	for net in "" loopback; do
		job ${net:+--network "$net"} --timeout 20s -- sh -c "$script"
		assert_rc 0
		assert_eq "$(sed -n 1p <<<"$out")" "lo " "interfaces (--network ${net:-default})"
		# IFF_UP|IFF_LOOPBACK
		assert_eq "$(sed -n 2p <<<"$out")" "flags 0x9" "lo's flags (--network ${net:-default})"
		assert_ne "$(sed -n 3p <<<"$out")" "ns $(readlink /proc/self/ns/net)" "the net namespace"
		assert_contains "$out" "got hello-lo" "a connection over lo (--network ${net:-default})"
	done
	assert_clean
}

# none: lo is there but down; nothing connects, even to 127.0.0.1.
t_network_none() {
	# shellcheck disable=SC2016
	job --network none -- sh -c 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | tr "\n" " "; echo
		echo "flags $(cat /sys/class/net/lo/flags)"
		echo "ns $(readlink /proc/self/ns/net)"
		nc -w 1 127.0.0.1 7777 </dev/null 2>&1; echo "nc $?"'
	assert_rc 0
	assert_eq "$(sed -n 1p <<<"$out")" "lo " "interfaces"
	assert_eq "$(sed -n 2p <<<"$out")" "flags 0x8" "lo's flags (IFF_LOOPBACK, not up)"
	assert_ne "$(sed -n 3p <<<"$out")" "ns $(readlink /proc/self/ns/net)" "the net namespace"
	assert_match "$out" "unreachable" "a connection to 127.0.0.1"
	assert_not_contains "$out" "nc 0" "nc's status"
	assert_clean
}

# host: the host's network namespace and interfaces.
t_network_host() {
	local ifs
	ifs=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sort | tr '\n' ' ')
	job --network host -- sh -c 'readlink /proc/self/ns/net
		tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | sort | tr "\n" " "'
	assert_rc 0
	assert_eq "$(sed -n 1p <<<"$out")" "$(readlink /proc/self/ns/net)" "the net namespace"
	assert_eq "$(sed -n 2p <<<"$out")" "$ifs" "interfaces"
	assert_clean
}

# ------------------------------------------------------------ the process

t_user() {
	job --user 1000:2000 -- sh -c 'id -u; id -g'
	assert_rc 0
	assert_eq "$out" "1000
2000" "id -u, id -g with --user 1000:2000"
	job --user 1000 -- id -u
	assert_rc 0
	assert_eq "$out" "1000" "id -u with --user 1000"
	# the user is not root: /root (0700, root's) is closed to it
	job --user 1000:1000 -- ls /root
	assert_ne "$rc" 0 "status of ls /root as 1000"
	assert_clean
}

t_cwd() {
	job --cwd /etc -- pwd
	assert_rc 0
	assert_eq "$out" "/etc" "pwd with --cwd /etc"
	job --user 1000 --cwd /tmp -- pwd
	assert_rc 0
	assert_eq "$out" "/tmp" "pwd with --user 1000 --cwd /tmp"
	job -- pwd
	assert_rc 0
	diag "default cwd: $out"
	assert_clean
}

# --stdin FILE: the file's bytes exactly; --stdin -: brig's own stdin; the
# default /dev/null: nothing, even when brig's stdin has something.
t_stdin() {
	printf 'line1\nline2 \001\002 no newline' >"$T/in"
	job --stdin "$T/in" -- cat
	assert_rc 0
	cmp -s "$out_file" "$T/in" || fail "stdout of cat with --stdin FILE: $(_show "$out")"

	run_cmd bash -c 'cat "$0" | env TMPDIR="$1/tmp" "$2" --root "$1/root" job \
		--rootfs "$3" --stdin - -- cat' "$T/in" "$T" "$BRIG" "$ROOTFS"
	assert_rc 0
	cmp -s "$out_file" "$T/in" || fail "stdout of cat with --stdin -: $(_show "$out")"

	# no --stdin, and brig's stdin a pipe with data: cat reads an empty
	# stream (not a closed fd: cat would fail)
	run_cmd bash -c 'cat "$0" | env TMPDIR="$1/tmp" "$2" --root "$1/root" job \
		--rootfs "$3" -- cat' "$T/in" "$T" "$BRIG" "$ROOTFS"
	assert_rc 0
	assert_eq "$out" "" "stdout of cat without --stdin"
	assert_eq "$err" "" "stderr of cat without --stdin"
	assert_clean
}

# --stdout FILE, --stderr FILE: each stream exactly in its file, nothing
# on brig's own; the byte counts in the result.
t_stdout_stderr_files() {
	job --stdout "$T/o" --stderr "$T/e" -- sh -c 'echo to-out; printf "to-err" >&2'
	assert_rc 0
	assert_eq "$out" "" "brig's stdout"
	assert_eq "$err" "" "brig's stderr"
	assert_eq "$(cat "$T/o" 2>&1)" "to-out" "--stdout file"
	assert_eq "$(cat "$T/e" 2>&1)" "to-err" "--stderr file"
	assert_eq "$(stat -c %s "$T/o" "$T/e" 2>&1 | tr '\n' ' ')" "7 6 " "sizes"
	assert_res stdout_bytes 7
	assert_res stderr_bytes 6
	# only one of them
	job --stderr "$T/e2" -- sh -c 'echo A; echo B >&2'
	assert_rc 0
	assert_eq "$out" "A" "brig's stdout with --stderr only"
	assert_eq "$err" "" "brig's stderr with --stderr only"
	assert_eq "$(cat "$T/e2" 2>&1)" "B" "--stderr file"
	assert_clean
}

# --result FILE: one JSON object with every field, right for a job that
# exits 3 after writing 100000 bytes to its writable layer.
t_result_file() {
	local f
	job --id "res-$$" -- sh -c 'head -c 100000 /dev/zero >/tmp/f; echo out; echo errr >&2; exit 3'
	assert_rc 3
	assert_eq "$out" "out" "stdout"
	assert_eq "$err" "errr" "stderr"
	assert_json "$(cat "$T/result.json" 2>&1)" "the result" || return
	assert_eq "$(jq -r type "$T/result.json")" object "the result's type"
	for f in id exit_code signal reason error wall_ms cpu_user_ms cpu_system_ms \
		memory_peak_bytes pids_peak stdout_bytes stderr_bytes stdout_dropped_bytes \
		stderr_dropped_bytes writable_used_bytes timed_out oom_killed; do
		jq -e --arg f "$f" 'has($f)' "$T/result.json" >/dev/null ||
			fail "the result has no field $f: $(cat "$T/result.json")"
	done
	assert_res id "\"res-$$\""
	assert_res exit_code 3
	assert_res signal null
	assert_res reason '"exited"'
	assert_res error null
	assert_res timed_out false
	assert_res oom_killed false
	assert_res stdout_bytes 4
	assert_res stderr_bytes 5
	assert_res stdout_dropped_bytes 0
	assert_res stderr_dropped_bytes 0
	assert_res_int wall_ms 0 60000
	assert_res_int cpu_user_ms 0
	assert_res_int cpu_system_ms 0
	assert_res_int memory_peak_bytes 1
	[ "$(res pids_peak)" = null ] || assert_res_int pids_peak 1 256
	assert_res_int writable_used_bytes 100000
	assert_clean
}

# --result -: the result alone on brig's stdout; the job's stdout goes to
# brig's stderr (with the job's stderr).
t_result_stdout() {
	bj --rootfs "$ROOTFS" --result - -- sh -c 'echo job-out; echo job-err >&2'
	assert_rc 0
	assert_json "$out" "brig's stdout" || return
	assert_eq "$(jq -c . <<<"$out" | wc -l)" 1 "JSON documents on stdout"
	assert_eq "$(jq -r .reason <<<"$out")" exited "reason"
	assert_eq "$(jq -r .stdout_bytes <<<"$out")" 8 "stdout_bytes"
	assert_contains "$err" "job-out" "brig's stderr"
	assert_contains "$err" "job-err" "brig's stderr"
	assert_clean
}

# Killed by a signal: 128+N, the signal's name, exit_code null.
t_signaled() {
	need_probe
	job -- probe segv
	assert_rc 139
	assert_res signal '"SIGSEGV"'
	assert_res exit_code null
	assert_res reason '"signaled"'
	assert_res timed_out false
	assert_clean
}

# A command the job cannot run (missing, not executable): status 125, one
# `brig: ` line, reason "error" with the message in the result; nothing
# left.
t_cannot_exec() {
	job -- /no/such/cmd
	assert_rc 125
	assert_lines 1 "$err" "stderr"
	assert_match "$err" '^brig: .*/no/such/cmd' "stderr"
	assert_res reason '"error"'
	assert_match "$(res error)" '^".*/no/such/cmd.*"$' "result .error"
	assert_res exit_code null
	job -- /etc/passwd
	assert_rc 125
	assert_lines 1 "$err" "stderr"
	assert_res reason '"error"'
	assert_match "$(res error)" '^".+"$' "result .error"
	assert_clean
}

# --id names the job (and its result); without it each job gets an id of
# its own; an id in use is refused and the job using it goes on.
t_id() {
	local id1
	job --id "named-$$" -- true
	assert_rc 0
	assert_res id "\"named-$$\""
	job -- true
	id1=$(res id)
	assert_match "$id1" '^"[^"]+"$' "a generated id"
	job -- true
	assert_match "$(res id)" '^"[^"]+"$' "a generated id"
	assert_ne "$(res id)" "$id1" "a second generated id"

	# shellcheck disable=SC2016
	bg_job --id "dup-$$" --timeout 30s -- sh -c "$READY"'; i=0
		while [ ! -e /s/go ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
		echo first-done'
	job_started || return
	bj --rootfs "$ROOTFS" --id "dup-$$" -- echo RAN
	assert_rc 125
	assert_lines 1 "$err" "stderr of the duplicate"
	assert_match "$err" "^brig: .*(--id|dup-$$)" "stderr of the duplicate"
	assert_not_contains "$out" RAN "stdout of the duplicate"
	# the first job was not disturbed
	alive "$BG_PID" || fail "the first job ended when the duplicate was refused"
	touch "$T/s/go"
	wait_exit "$BG_PID" 20
	assert_eq "$rc" 0 "status of the first job"
	assert_eq "$(cat "$T/bg.out")" "first-done" "stdout of the first job"
	assert_res id "\"dup-$$\""
	assert_clean
}

# ------------------------------------------------------------------ time

# The forms of a duration; at the timeout the job is ended with status 124.
t_timeout_forms() {
	job --timeout 500ms -- sleep 5
	assert_rc 124
	assert_res reason '"timeout"'
	assert_res timed_out true
	assert_res_int wall_ms 500 4000
	job --timeout 1.5s -- sleep 5
	assert_rc 124
	assert_res timed_out true
	assert_res_int wall_ms 1500 4500
	job --timeout 2s -- sleep 0.2
	assert_rc 0
	assert_res timed_out false
	assert_res reason '"exited"'
	job --timeout 1m -- true
	assert_rc 0
	assert_clean
}

# --cpu-time: RLIMIT_CPU; a busy loop is killed (SIGXCPU at the soft limit,
# SIGKILL at the hard one: a pid 1 ignores the first) after about that much
# CPU time, well before the wall-clock timeout.
t_cpu_time() {
	job --cpu-time 1s --timeout 20s -- sh -c 'echo "limit $(ulimit -t)"; while :; do :; done'
	assert_match "$rc" '^(152|137)$' "exit status (SIGXCPU or SIGKILL)"
	assert_eq "$out" "limit 1" "ulimit -t inside"
	assert_match "$(res signal)" '^"(SIGXCPU|SIGKILL)"$' "result .signal"
	assert_res reason '"signaled"'
	assert_res timed_out false
	local user sys
	user=$(res cpu_user_ms)
	sys=$(res cpu_system_ms)
	if [[ "$user$sys" =~ ^[0-9]+$ ]]; then
		[ $((user + sys)) -ge 900 ] || fail "CPU time used: $user+$sys ms, expected about 1000"
	else
		fail "result .cpu_user_ms, .cpu_system_ms: $user, $sys"
	fi
	assert_clean
}

# ------------------------------------------------------ limits (cgroups)

# The defaults in the job's own cgroup: memory 512M without swap, 256
# pids, a CPU quota of one CPU (--cpus 1); and --memory, --pids, --cpus.
t_limits() {
	local dir
	bg_job -- sh -c "$READY; sleep 30"
	job_started || return
	for dir in pids memory; do
		assert_ne "$(cg_dir "$JOB_PID" "$dir")" "$(cg_dir "$BG_PID" "$dir")" \
			"the job's $dir cgroup (brig's own)"
	done
	assert_eq "$(cg_read "$JOB_PID" memory memory.limit_in_bytes memory.max)" 536870912 "memory limit"
	if [ "$CG" = v2 ]; then
		assert_eq "$(cg_read "$JOB_PID" memory - memory.swap.max)" 0 "memory.swap.max"
	elif [ -e "$(cg_dir "$JOB_PID" memory)/memory.memsw.limit_in_bytes" ]; then
		assert_eq "$(cg_read "$JOB_PID" memory memory.memsw.limit_in_bytes -)" 536870912 \
			"memory+swap limit"
	else
		diag "no swap accounting on this host: swap off not checked"
	fi
	assert_eq "$(cg_read "$JOB_PID" pids pids.max pids.max)" 256 "pids.max"
	if [ "$CG" = v2 ]; then
		assert_eq "$(cg_read "$JOB_PID" cpu - cpu.max)" "100000 100000" "cpu.max"
	else
		assert_eq "$(cg_read "$JOB_PID" cpu cpu.cfs_quota_us -)" 100000 "cpu.cfs_quota_us"
	fi
	kill -TERM "$BG_PID"
	wait_exit "$BG_PID" 10
	assert_clean "after the first job"

	rm -rf "$T/s"
	bg_job --memory 100M --pids 10 --cpus 1.5 -- sh -c "$READY; sleep 30"
	job_started || return
	assert_eq "$(cg_read "$JOB_PID" memory memory.limit_in_bytes memory.max)" 104857600 "memory limit"
	if [ "$CG" = v2 ]; then
		assert_eq "$(cg_read "$JOB_PID" memory - memory.swap.max)" 0 "memory.swap.max"
	elif [ -e "$(cg_dir "$JOB_PID" memory)/memory.memsw.limit_in_bytes" ]; then
		assert_eq "$(cg_read "$JOB_PID" memory memory.memsw.limit_in_bytes -)" 104857600 \
			"memory+swap limit"
	fi
	assert_eq "$(cg_read "$JOB_PID" pids pids.max pids.max)" 10 "pids.max"
	if [ "$CG" = v2 ]; then
		assert_eq "$(cg_read "$JOB_PID" cpu - cpu.max | awk '{ print $1 * 1000 / $2 }')" 1500 \
			"cpu.max quota/period (x1000)"
	else
		assert_eq "$(($(cg_read "$JOB_PID" cpu cpu.cfs_quota_us -) * 1000 / \
			$(cg_read "$JOB_PID" cpu cpu.cfs_period_us -)))" 1500 "cfs quota/period (x1000)"
	fi
	kill -TERM "$BG_PID"
	wait_exit "$BG_PID" 10
	assert_clean
}

# ------------------------------------------------------------ filesystems

# --writable SIZE caps the writable layer: writes past it fail with ENOSPC;
# the default is 64M.  The result counts what the layer holds; the next job
# does not see it.
t_writable() {
	job --writable 2M -- sh -c 'dd if=/dev/zero of=/big bs=64k count=64 2>&1; echo "dd $?"
		rm -f /big
		dd if=/dev/zero of=/ok bs=64k count=8 2>/dev/null; echo "small $?"'
	assert_rc 0
	assert_contains "$out" "No space left on device" "dd of 4M with --writable 2M"
	assert_not_contains "$out" "dd 0" "dd of 4M with --writable 2M"
	assert_contains "$out" "small 0" "dd of 512K with --writable 2M"
	assert_res_int writable_used_bytes 524288 3145728

	# the default: 48M fit, 80M do not
	job -- sh -c 'dd if=/dev/zero of=/a bs=1M count=48 2>/dev/null; echo "48M $?"
		rm -f /a
		dd if=/dev/zero of=/b bs=1M count=80 2>&1; echo "80M $?"'
	assert_rc 0
	assert_contains "$out" "48M 0" "48M in the default writable layer"
	assert_contains "$out" "No space left on device" "80M in the default writable layer"
	assert_not_contains "$out" "80M 0" "80M in the default writable layer"

	# what a job wrote is gone for the next one
	job -- sh -c 'echo x >/persist; echo x >/tmp/persist'
	assert_rc 0
	job -- sh -c 'ls /persist /tmp/persist 2>&1; true'
	assert_eq "$(grep -c 'No such file' <<<"$out")" 2 "the writes of the last job: $(_show "$out")"
	assert_clean
}

# --tmpfs PATH[:SIZE], repeatable: a tmpfs at PATH, capped at SIZE.
t_tmpfs() {
	job --tmpfs /scratch:1M --tmpfs /other -- sh -c '
		awk "\$2 == \"/scratch\" || \$2 == \"/other\" { print \$2, \$3 }" /proc/mounts
		dd if=/dev/zero of=/scratch/f bs=64k count=32 2>&1; echo "dd $?"
		echo "size $(wc -c </scratch/f)"
		echo hi >/other/g && echo "other ok"'
	assert_rc 0
	assert_contains "$out" "/scratch tmpfs" "mounts"
	assert_contains "$out" "/other tmpfs" "mounts"
	assert_contains "$out" "No space left on device" "dd of 2M into a 1M tmpfs"
	assert_not_contains "$out" "dd 0" "dd of 2M into a 1M tmpfs"
	local size
	size=$(sed -n 's/^size //p' <<<"$out")
	[ -n "$size" ] && [ "$size" -le 1048576 ] || fail "file in the 1M tmpfs: $size bytes"
	assert_contains "$out" "other ok" "a write to /other"
	assert_clean
}

# --mount SRC:DST[:ro|rw]: read-only by default and with :ro (writes fail,
# reads work), read-write with :rw (the host sees the write).
t_mount() {
	mkdir -p "$T/ro" "$T/rw"
	echo host-data >"$T/ro/in"
	chmod 0777 "$T/ro" "$T/rw"
	chmod 0666 "$T/ro/in"
	job --mount "$T/ro:/ro" --mount "$T/ro:/ro2:ro" --mount "$T/rw:/rw:rw" -- sh -c '
		cat /ro/in /ro2/in
		echo x >/ro/new 2>&1 || echo "ro refused"
		echo x >>/ro2/in 2>&1 || echo "ro2 refused"
		echo from-job >/rw/out && echo "rw ok"'
	assert_rc 0
	assert_contains "$out" "host-data
host-data" "reads of the ro mounts"
	assert_contains "$err" "Read-only file system" "a write to a read-only mount (stderr)"
	assert_contains "$out" "ro refused" "a write to --mount SRC:DST"
	assert_contains "$out" "ro2 refused" "a write to --mount SRC:DST:ro"
	assert_contains "$out" "rw ok" "a write to --mount SRC:DST:rw"
	assert_no_file "$T/ro/new"
	assert_eq "$(cat "$T/ro/in")" host-data "the host file under the ro mount"
	assert_eq "$(cat "$T/rw/out" 2>&1)" from-job "the host file written through the rw mount"
	assert_clean
}

# --copy-in HOSTPATH:PATH (file or directory, at the top of the tree or
# deeper, missing parents made): in the job's writable layer before it
# starts, the job's own (root's inside), so the job can change it and
# write next to it; what the job does to it stays there.
t_copy_in() {
	echo copied >"$T/f"
	mkdir -p "$T/d/sub"
	echo deep >"$T/d/sub/g"
	job --copy-in "$T/f:/data/in.txt" -- sh -c '
		cat /data/in.txt
		stat -c "%n %u:%g" /data /data/in.txt
		echo changed >>/data/in.txt && echo "append ok"
		touch /data/new && echo "parent writable"'
	assert_rc 0
	assert_eq "$out" "copied
/data 0:0
/data/in.txt 0:0
append ok
parent writable" "a file copied to /data/in.txt"
	assert_eq "$err" "" "stderr"

	job --copy-in "$T/f:/in.txt" --copy-in "$T/d:/tree" --copy-in "$T/d:/tmp/tree" -- sh -c '
		cat /in.txt /tree/sub/g /tmp/tree/sub/g
		echo changed >>/in.txt && echo "append ok"'
	assert_rc 0
	assert_eq "$out" "copied
deep
deep
append ok" "a file copied to /in.txt, a tree to /tree and /tmp/tree"
	assert_eq "$(cat "$T/f")" copied "the host file after the job"
	assert_clean
}

# --export DIR: after the job, the files it wrote (and only those) are in
# DIR, at their paths.
t_export() {
	mkdir -p "$T/exp"
	job --export "$T/exp" -- sh -c 'echo a >/tmp/f; mkdir -p /root/d; echo b >/root/d/g; echo c >/new'
	assert_rc 0
	assert_eq "$(cat "$T/exp/tmp/f" 2>&1)" a "exported /tmp/f"
	assert_eq "$(cat "$T/exp/root/d/g" 2>&1)" b "exported /root/d/g"
	assert_eq "$(cat "$T/exp/new" 2>&1)" c "exported /new"
	assert_eq "$(cd "$T/exp" && find . -type f | sort | tr '\n' ' ')" "./new ./root/d/g ./tmp/f " \
		"files in the export"
	assert_clean
}

# ---------------------------------------------------------- confinement

# --keep-caps: only the capabilities named (with or without CAP_) are kept,
# and work: CAP_CHOWN lets root chown a file, which it cannot by default.
t_keep_caps() {
	job -- sh -c 'touch /tmp/x; chown 1:1 /tmp/x 2>&1; echo "chown $?"'
	assert_rc 0
	assert_not_contains "$out" "chown 0" "chown without capabilities"
	job --keep-caps CAP_CHOWN,NET_BIND_SERVICE -- sh -c '
		grep -E "^Cap(Prm|Eff):" /proc/self/status
		touch /tmp/x; chown 1:1 /tmp/x 2>&1; echo "chown $?"'
	assert_rc 0
	# CAP_CHOWN is bit 0, CAP_NET_BIND_SERVICE bit 10
	assert_eq "$(awk '$1 == "CapEff:" { print $2 }' <<<"$out")" 0000000000000401 "CapEff"
	assert_eq "$(awk '$1 == "CapPrm:" { print $2 }' <<<"$out")" 0000000000000401 "CapPrm"
	assert_contains "$out" "chown 0" "chown with CAP_CHOWN"
	assert_clean
}

# --seccomp: the default filter refuses keyctl and userfaultfd (which
# the kernel would allow this job); unconfined has no filter; a FILE (an
# OCI linux.seccomp object) is the filter.
t_seccomp() {
	need_probe
	job -- sh -c 'grep ^Seccomp: /proc/self/status; probe keyctl userfaultfd'
	assert_rc 0
	assert_contains "$out" "Seccomp:	2" "the default"
	assert_match "$out" "keyctl (errno=(EPERM|ENOSYS)|signal=SIGSYS)" "keyctl under the default"
	assert_match "$out" "userfaultfd (errno=(EPERM|ENOSYS)|signal=SIGSYS)" "userfaultfd under the default"
	job --seccomp default -- sh -c 'grep ^Seccomp: /proc/self/status; probe keyctl'
	assert_rc 0
	assert_contains "$out" "Seccomp:	2" "--seccomp default"
	assert_match "$out" "keyctl (errno=(EPERM|ENOSYS)|signal=SIGSYS)" "keyctl under --seccomp default"

	job --seccomp unconfined -- sh -c 'grep -E "^(Seccomp|NoNewPrivs):" /proc/self/status; probe keyctl userfaultfd'
	assert_rc 0
	assert_contains "$out" "Seccomp:	0" "--seccomp unconfined"
	assert_contains "$out" "NoNewPrivs:	1" "--seccomp unconfined"
	assert_contains "$out" "keyctl ok" "keyctl unconfined"
	assert_contains "$out" "userfaultfd ok" "userfaultfd unconfined"

	cat >"$T/profile.json" <<-'EOF'
		{"defaultAction": "SCMP_ACT_ALLOW",
		 "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
		 "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}]}
	EOF
	job --seccomp "$T/profile.json" -- sh -c 'grep ^Seccomp: /proc/self/status
		mkdir /tmp/d 2>&1; echo "mkdir $?"; touch /tmp/f && echo "touch ok"'
	assert_rc 0
	assert_contains "$out" "Seccomp:	2" "--seccomp FILE"
	assert_contains "$out" "Operation not permitted" "mkdir under --seccomp FILE"
	assert_not_contains "$out" "mkdir 0" "mkdir under --seccomp FILE"
	assert_contains "$out" "touch ok" "touch under --seccomp FILE"
	assert_clean
}

# ---------------------------------------------------------------- output

# --output-limit: past the limit, the first half (rounded up), one marker
# line, the last half; per stream; the counts in the result.
t_output_limit() {
	local i
	mkdir -p "$T/data"
	for ((i = 0; i < 300; i++)); do echo "line $i"; done >"$T/data/in"
	# 2590 bytes: within 4096; cut at 100 (mid-line head), at 13 (odd)
	expect_capped "$T/data/in" 100 >"$T/exp100"
	expect_capped "$T/data/in" 13 >"$T/exp13"

	job --mount "$T/data:/data" --output-limit 4096 -- sh -c 'cat /data/in; cat /data/in >&2'
	assert_rc 0
	cmp -s "$out_file" "$T/data/in" || fail "stdout within the limit: $(_show "$out")"
	cmp -s "$err_file" "$T/data/in" || fail "stderr within the limit: $(_show "$err")"
	assert_res stdout_dropped_bytes 0

	job --mount "$T/data:/data" --output-limit 100 -- sh -c 'cat /data/in; cat /data/in >&2'
	assert_rc 0
	cmp -s "$out_file" "$T/exp100" || fail "stdout with --output-limit 100: $(_show "$out"), expected $(_show "$(cat "$T/exp100")")"
	cmp -s "$err_file" "$T/exp100" || fail "stderr with --output-limit 100: $(_show "$err")"
	assert_eq "$(grep -c '^\[brig: 2490 bytes dropped\]$' "$out_file")" 1 "marker lines on stdout"
	assert_res stdout_bytes 2590
	assert_res stderr_bytes 2590
	assert_res stdout_dropped_bytes 2490
	assert_res stderr_dropped_bytes 2490

	job --mount "$T/data:/data" --output-limit 13 -- cat /data/in
	assert_rc 0
	cmp -s "$out_file" "$T/exp13" || fail "stdout with --output-limit 13: $(_show "$out"), expected $(_show "$(cat "$T/exp13")")"
	assert_res stdout_dropped_bytes 2577

	# the default, 1M: 1.5M of "y\n"
	yes | head -c 1572864 >"$T/big"
	expect_capped "$T/big" 1048576 >"$T/expbig"
	job -- sh -c 'yes | head -c 1572864'
	assert_rc 0
	cmp -s "$out_file" "$T/expbig" || fail "stdout of 1.5M with the default limit ($(stat -c %s "$out_file") bytes)"
	assert_res stdout_bytes 1572864
	assert_res stdout_dropped_bytes 524288
	assert_clean
}

# ---------------------------------------------------------------- bundle

# --bundle: the config's args (when no CMD is given), env, cwd, user and
# hostname; the rest is the job's hardening (its capabilities, namespaces
# and writable root are ignored), and the bundle's rootfs stays unchanged.
t_bundle() {
	brig_make_bundle "$T/b" || return
	brig_bundle_edit "$T/b" '.process.terminal = false
		| .process.args = ["sh", "-c", "id -u; id -g; pwd; hostname; env | sort; grep -E \"^(CapEff|NoNewPrivs|Seccomp):\" /proc/self/status; readlink /proc/self/ns/net; echo w >/tmp/written && echo written"]
		| .process.env = ["PATH=/bin:/usr/bin", "FOO=bar"]
		| .process.cwd = "/tmp"
		| .process.user = {uid: 1000, gid: 1000}
		| .hostname = "bundlehost"
		| .root.readonly = false
		| .process.capabilities = {bounding: ["CAP_SYS_ADMIN"], effective: ["CAP_SYS_ADMIN"], permitted: ["CAP_SYS_ADMIN"]}
		| .process.noNewPrivileges = false
		| .linux.namespaces = [{type: "mount"}]
		| del(.linux.seccomp)' || return
	rm -f "$T/result.json"
	bj --bundle "$T/b" --result "$T/result.json"
	assert_rc 0
	assert_eq "$(sed -n 1,4p <<<"$out" | tr '\n' ' ')" "1000 1000 /tmp bundlehost " "uid, gid, cwd, hostname"
	assert_contains "$out" "FOO=bar" "env"
	assert_contains "$out" "PATH=/bin:/usr/bin" "env"
	assert_eq "$(awk '$1 == "CapEff:" { print $2 }' <<<"$out")" 0000000000000000 "CapEff"
	assert_eq "$(awk '$1 == "NoNewPrivs:" { print $2 }' <<<"$out")" 1 "NoNewPrivs"
	assert_eq "$(awk '$1 == "Seccomp:" { print $2 }' <<<"$out")" 2 "Seccomp"
	assert_match "$out" "net:\[" "the net namespace"
	assert_not_contains "$out" "$(readlink /proc/self/ns/net)" "the net namespace (the host's)"
	assert_contains "$out" "written" "a write to /tmp"
	assert_no_file "$T/b/rootfs/tmp/written"
	assert_res reason '"exited"'

	# a CMD replaces the args
	bj --bundle "$T/b" -- sh -c 'echo override; id -u'
	assert_rc 0
	assert_eq "$out" "override
1000" "stdout with a CMD"
	assert_clean
}

# --gc with nothing to collect: status 0, nothing printed or left; with a
# job running (its brig alive), the job is not touched.
t_gc() {
	bj --gc
	assert_rc 0
	assert_eq "$out$err" "" "output of --gc"
	assert_clean "after --gc"

	# shellcheck disable=SC2016
	bg_job --timeout 30s -- sh -c "$READY"'; i=0
		while [ ! -e /s/go ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
		echo still-here'
	job_started || return
	bj --gc
	assert_rc 0
	assert_eq "$out$err" "" "output of --gc"
	alive "$JOB_PID" || fail "--gc killed a running job's process"
	[ -d "$T/root/jobs" ] && [ -n "$(find "$T/root/jobs" -mindepth 1 -maxdepth 1 ! -name '.*')" ] ||
		fail "--gc removed a running job's state"
	touch "$T/s/go"
	wait_exit "$BG_PID" 20
	assert_eq "$rc" 0 "status of the running job"
	assert_eq "$(cat "$T/bg.out")" "still-here" "stdout of the running job"
	assert_clean
}

# ------------------------------------------------------------- bad input

# bad_case FLAG-ERE ARGS...: `brig job ARGS -- echo RAN` is refused with
# status 125 and one `brig: ` line matching FLAG-ERE; the job never ran
# and nothing is left.
bad_case() {
	local re=$1
	shift
	bj "$@" -- echo RAN
	assert_eq "$rc" 125 "exit status of job $* (stderr: $(_show "$err"))"
	assert_lines 1 "$err" "stderr of job $*"
	assert_match "$err" "^brig: .*$re" "stderr of job $*"
	assert_not_contains "$out" RAN "stdout of job $*"
	assert_clean "after job $*"
}

t_bad_rootfs() {
	touch "$T/file"
	bad_case --rootfs --rootfs "$T/nonexistent"
	bad_case --rootfs --rootfs "$T/file"
	# neither --rootfs nor --bundle
	bad_case '' --timeout 1s
	# both
	brig_make_bundle "$T/b" || return
	bad_case '' --rootfs "$ROOTFS" --bundle "$T/b"
}

t_bad_bundle() {
	mkdir -p "$T/empty" "$T/badjson/rootfs"
	echo '{not json' >"$T/badjson/config.json"
	bad_case --bundle --bundle "$T/nonexistent"
	bad_case "(--bundle|config.json)" --bundle "$T/empty"
	bad_case "(--bundle|config.json)" --bundle "$T/badjson"
}

# bad_values FLAG VALUE...: each VALUE of FLAG is refused.
bad_values() {
	local flag=$1 v
	shift
	for v in "$@"; do
		bad_case "$flag" --rootfs "$ROOTFS" "$flag" "$v"
	done
}

t_bad_durations() {
	bad_values --timeout abc -1s 5x "" 1.5.5s 10parsecs
	bad_values --cpu-time abc 1y -2s
}

t_bad_sizes() {
	bad_values --memory abc 12Q -1M ""
	bad_values --writable abc 1X -5
	bad_values --output-limit abc 1Z -1
}

t_bad_counts() {
	bad_values --pids abc -1 1.5 ""
	bad_values --cpus abc -1 1/2 "" -0.5
}

t_bad_paths() {
	mkdir -p "$T/src"
	touch "$T/file"
	bad_values --tmpfs relative /s:abc ""
	bad_values --mount "$T/src" "$T/nonexistent:/x" "$T/src:relative" "$T/src:/x:rx"
	bad_values --copy-in "$T/nonexistent:/x" "$T/file" "$T/file:relative"
	bad_values --export "$T/file/sub"
	bad_values --cwd relative
	bad_values --stdin "$T/nonexistent"
	bad_values --stdout "$T/nodir/x"
	bad_values --stderr "$T/nodir/x"
	bad_values --result "$T/nodir/x"
}

t_bad_process() {
	bad_values --env NOEQUALS "=v" ""
	bad_values --user abc 1:x -1 ""
	bad_values --network bogus ""
	bad_values --id "a/b" ".." ""
	bad_values --keep-caps CAP_BOGUS "CHOWN,NOPE"
}

t_bad_seccomp() {
	echo '{not json' >"$T/garbage.json"
	bad_values --seccomp "$T/nonexistent.json" "$T/garbage.json" bogus-profile-name
}

t_bad_misc() {
	# an unknown flag, a flag without its value, no command
	bad_case --bogus --rootfs "$ROOTFS" --bogus
	bj --rootfs "$ROOTFS" --timeout
	assert_rc 125
	assert_lines 1 "$err" "stderr of --timeout without a value"
	assert_match "$err" "^brig: .*--timeout" "stderr of --timeout without a value"
	bj --rootfs "$ROOTFS"
	assert_rc 125
	assert_lines 1 "$err" "stderr without a command"
	assert_match "$err" "^brig: " "stderr without a command"
	assert_clean
}

tap_test "default environment: exactly PATH and HOME=/root" t_env_default
tap_test "--env adds and overrides; HOME follows --user" t_env
tap_test "uid 0 inside, an unprivileged host id range outside" t_ids
tap_test "hardened by default: caps, no_new_privs, seccomp, rlimits, namespaces" t_hardened
tap_test "--no-userns: the host's ids, still no caps, a warning in the result" t_no_userns
tap_test "/dev holds only the standard nodes" t_dev
tap_test "--network loopback (the default): only lo, up" t_network_loopback
tap_test "--network none: lo down" t_network_none
tap_test "--network host: the host's namespace" t_network_host
tap_test "--user UID[:GID]" t_user
tap_test "--cwd" t_cwd
tap_test "--stdin FILE, -, and the default /dev/null" t_stdin
tap_test "--stdout FILE and --stderr FILE" t_stdout_stderr_files
tap_test "--result FILE: every field of an exited job" t_result_file
tap_test "--result -: the result on stdout, the job's stdout on stderr" t_result_stdout
tap_test "a job killed by a signal: 128+N, its name" t_signaled
tap_test "a command that cannot be run: 125, reason error" t_cannot_exec
tap_test "--id, generated ids, a duplicate id refused" t_id
tap_test "--timeout forms: 500ms 1.5s 2s 1m" t_timeout_forms
tap_test "--cpu-time kills a busy loop" t_cpu_time
tap_test "--memory --pids --cpus: defaults and values in the job's cgroup" t_limits
tap_test "--writable caps the writable layer (default 64M)" t_writable
tap_test "--tmpfs PATH[:SIZE]" t_tmpfs
tap_test "--mount ro by default, :ro, :rw" t_mount
tap_test "--copy-in a file and a directory" t_copy_in
tap_test "--export gets the files the job wrote" t_export
tap_test "--keep-caps" t_keep_caps
tap_test "--seccomp default, unconfined, FILE" t_seccomp
tap_test "--output-limit: head, marker, tail, per stream; default 1M" t_output_limit
tap_test "--bundle: process, env, cwd, user, hostname taken, the rest hardened" t_bundle
tap_test "--gc: nothing to collect; a running job untouched" t_gc
tap_test "bad --rootfs, neither or both of --rootfs and --bundle" t_bad_rootfs
tap_test "bad --bundle" t_bad_bundle
tap_test "bad --timeout, --cpu-time" t_bad_durations
tap_test "bad --memory, --writable, --output-limit" t_bad_sizes
tap_test "bad --pids, --cpus" t_bad_counts
tap_test "bad --tmpfs, --mount, --copy-in, --export, --cwd, --stdin/out/err, --result" t_bad_paths
tap_test "bad --env, --user, --network, --id, --keep-caps" t_bad_process
tap_test "bad --seccomp" t_bad_seccomp
tap_test "an unknown flag, a missing value, no command" t_bad_misc
tap_done
