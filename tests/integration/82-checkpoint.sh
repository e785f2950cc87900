#!/bin/bash
# checkpoint and restore with CRIU (criu swrk, its RPC), as runc does them:
# a counter checkpointed and restored goes on counting, under a new id, in
# a cgroup of its own; --leave-running, --pre-dump then a dump on top of
# it; stdio pipes handed to the restored container (descriptors.json);
# binds and a tmpfs; each --manage-cgroups-mode; one image restored into
# three containers at once (fork), each going on on its own.
#
# Debian's criu 3.17 cannot run on a kernel newer than it knows ("Unexpected
# rt vDSO area bounds"): there, only the first test runs (checkpoint says so
# in one line and changes nothing); the rest run in the qemu guest of
# tests/vm (Debian's 6.1 kernel), where `criu check` passes.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"
command -v criu >/dev/null 2>&1 || skip_all "needs criu (apt-get install criu)"

brig_file_rootfs
RECEIVER=$BRIG_BUILDDIR/contrib/console-receiver/brig-console-receiver

CRIU_OK=1
CRIU_WHY=$(criu check 2>&1 | grep -m1 Error) || true
criu check >/dev/null 2>&1 || CRIU_OK=0
need_criu() {
	[ "$CRIU_OK" = 1 ] || skip "criu check fails on this kernel ($(uname -r)): ${CRIU_WHY:-no reason}"
}

# A counter: the next number every 0.1 s into /shared/count; its own
# stdio is the container's /dev/null (a host file would be outside the
# container, which CRIU cannot dump).
COUNTER='exec </dev/null >/dev/null 2>&1; i=0; while true; do i=$((i+1)); echo $i >/shared/count; sleep 0.1; done'

# Its rootfs is its own (restore makes mount points in it, and a copy
# restored next to another needs its own).
counter_bundle() {
	cp -a "$ROOTFS" "$T/rootfs"
	mkbundle . sh -c "$COUNTER"
	brig_bundle_edit "$T/b" '.root.path = $r' --arg r "$T/rootfs"
}

# count_in FILE: the number in a counter's FILE (0 when there is none);
# a read between the truncation and the write of the counter's echo finds
# the file empty, and is tried again
count_in() {
	local c i
	for i in 1 2 3 4 5; do
		c=$(cat "$1" 2>/dev/null)
		[ -n "$c" ] && break
		sleep 0.05
	done
	echo "${c:-0}"
}

count() {
	count_in "$T/shared/count"
}

# counts_past N: the counter is past N within 10 s.
counts_past() {
	local n=$1 i
	for ((i = 0; i < 100; i++)); do
		[ "$(count)" -gt "$n" ] && return 0
		sleep 0.1
	done
	return 1
}

# the cgroup path of PID in its v2 line (or its memory one)
cg_of() {
	sed -n 's/^0:://p; s/^[0-9]*:memory://p' "/proc/$1/cgroup" | head -n 1
}

t_no_criu_says_why() {
	[ "$CRIU_OK" = 0 ] || skip "criu works here; the failure path is for a kernel criu does not know"
	counter_bundle
	up c1
	counts_past 0 || fail "the counter does not count"
	br checkpoint --image-path "$T/img" c1
	assert_rc 1
	assert_match "$err" '^brig: criu failed: dump: Error \(' "one line with CRIU's error"
	assert_lines 1 "$err"
	assert is_status c1 running
	local n
	n=$(count)
	counts_past "$n" || fail "the container stopped counting after a failed checkpoint"
	br restore --image-path "$T/img" --bundle "$T/b" -d c2
	assert_rc 1
	assert_match "$err" '^brig: ' "restore fails"
	assert_lines 1 "$err"
	br state c2
	assert_rc 1
	assert_eq "$(ls "$T/root")" "c1" "nothing of c2 is left"
}

# the options of the cgroup filesystems (a new cgroup2 mount from the
# initial cgroup namespace would reset nsdelegate, memory_recursiveprot)
cg_options() {
	awk '{ i = 7; while ($i != "-") i++; if ($(i + 1) ~ /^cgroup/) print $5, $(i + 3) }' \
		/proc/self/mountinfo | sort
}

t_counter() {
	need_criu
	local n pid cg opts
	opts=$(cg_options)
	counter_bundle
	up c1
	counts_past 2 || fail "the counter does not count"
	br checkpoint --image-path "$T/img" c1
	assert_rc 0
	assert_eq "$err" "" "stderr of checkpoint"
	br state c1
	assert_rc 1
	n=$(count)
	sleep 0.5
	assert_eq "$(count)" "$n" "the counter stopped with the checkpoint"
	assert_file "$T/img/descriptors.json"
	assert_file "$T/img/inventory.img"
	assert_eq "$(cg_options)" "$opts" "the cgroup filesystems' options after checkpoint"

	delete_at_end c2
	br restore --image-path "$T/img" --bundle "$T/b" -d c2
	assert_rc 0
	assert_eq "$out$err" "" "output of restore -d"
	assert is_status c2 running
	assert_eq "$(cg_options)" "$opts" "the cgroup filesystems' options after restore"
	counts_past "$n" || fail "the restored counter does not go on from $n"
	pid=$(state_field c2 pid)
	cg=$(cg_of "$pid")
	assert_contains "$cg" "c2" "the restored init is in c2's own cgroup"
	br exec c2 cat /shared/count
	assert_rc 0
	# CRIU restores the network namespace empty (runc's rule: the
	# runtime does not manage network devices); brig brought lo up
	br exec c2 cat /sys/class/net/lo/flags
	assert_eq "$out" 0x9 "lo in the restored container: IFF_UP|IFF_LOOPBACK"
	br kill c2 KILL
	assert_rc 0
	wait_until 10 is_status c2 stopped || fail "c2 did not stop"
	br delete c2
	assert_rc 0
	assert_empty_dir "$T/root"
}

t_leave_running() {
	need_criu
	local n
	counter_bundle
	up c1
	counts_past 2 || fail "the counter does not count"
	br checkpoint --leave-running --image-path "$T/img" c1
	assert_rc 0
	assert is_status c1 running
	n=$(count)
	counts_past "$n" || fail "c1 stopped counting"
	br kill c1 KILL
	wait_until 10 is_status c1 stopped || fail "c1 did not stop"
	br delete c1
	delete_at_end c2
	n=$(count)
	br restore --image-path "$T/img" --bundle "$T/b" -d c2
	assert_rc 0
	counts_past "$n" || fail "the copy restored from a running container does not count"
}

t_pre_dump() {
	need_criu
	counter_bundle
	up c1
	counts_past 2 || fail "the counter does not count"
	br checkpoint --pre-dump --image-path "$T/img/pre" c1
	assert_rc 0
	assert is_status c1 running
	br checkpoint --parent-path ../pre --image-path "$T/img/final" c1
	assert_rc 0
	br checkpoint --parent-path /abs --image-path "$T/img/x" c1
	assert_rc 2
	assert_err_line "brig: --parent-path must be relative"
	delete_at_end c2
	local n
	n=$(count)
	br restore --image-path "$T/img/final" --bundle "$T/b" -d c2
	assert_rc 0
	counts_past "$n" || fail "the counter restored from pre-dump + dump does not count"
}

# The init's stdout is a pipe: the restored one writes into restore's own.
t_pipes() {
	need_criu
	cp -a "$ROOTFS" "$T/rootfs"
	mkbundle . sh -c 'i=0; while true; do i=$((i+1)); echo "n $i"; sleep 0.1; done'
	brig_bundle_edit "$T/b" '.root.path = $r' --arg r "$T/rootfs"
	delete_at_end c1
	delete_at_end c2
	{ : | "$BRIG" --root "$T/root" run -d --bundle "$T/b" c1 2>&1 | cat >"$T/out1"; } &
	local p1=$!
	defer kill_wait "$p1"
	wait_until 10 grep -q "n 3" "$T/out1" || fail "no output from c1"
	br checkpoint --image-path "$T/img" c1
	assert_rc 0
	assert_match "$(cat "$T/img/descriptors.json")" 'pipe:\[' "descriptors.json names the pipe"
	wait_exit "$p1" 10
	{ : | "$BRIG" --root "$T/root" restore -d --image-path "$T/img" --bundle "$T/b" c2 2>&1 | cat >"$T/out2"; } &
	local p2=$!
	defer kill_wait "$p2"
	wait_until 60 grep -q "n " "$T/out2" || fail "no output from the restored c2 on the new pipe: $(cat "$T/out2")"
	local last first
	last=$(tail -n 1 "$T/out1" | cut -d' ' -f2)
	first=$(head -n 1 "$T/out2" | cut -d' ' -f2)
	assert [ "$first" -gt "$last" ]
}

# A terminal: the pty's master goes to --console-socket at create, and
# the restored one's (CRIU's orphan-pts-master) to restore's.
t_tty() {
	need_criu
	[ -x "$RECEIVER" ] || skip "needs $RECEIVER (make)"
	local last first
	counter_bundle
	brig_bundle_edit "$T/b" '.process.terminal = true
		| .process.args[2] = "i=0; while true; do i=$((i+1)); echo \"t $i\"; sleep 0.1; done"'
	: >"$T/in"
	start_receiver "$T/sock1" --in "$T/in" --out "$T/out1"
	local r1=$RECV_PID
	delete_at_end c1
	br run -d --console-socket "$T/sock1" --bundle "$T/b" c1
	assert_rc 0
	wait_until 10 grep -q "t 3" "$T/out1" || fail "no output from c1's terminal"
	br checkpoint --image-path "$T/img" c1
	assert_rc 0
	wait_exit "$r1" 20
	start_receiver "$T/sock2" --in "$T/in" --out "$T/out2"
	delete_at_end c2
	br restore -d --console-socket "$T/sock2" --image-path "$T/img" --bundle "$T/b" c2
	assert_rc 0
	assert_eq "$out$err" "" "output of restore -d"
	wait_until 20 grep -q "t " "$T/out2" || fail "no output from the restored terminal"
	last=$(grep "^t " "$T/out1" | tail -n 1 | tr -dc '0-9')
	first=$(grep "^t " "$T/out2" | head -n 1 | tr -dc '0-9')
	assert [ "$first" -gt "$last" ]
}

# A bind of the host and a tmpfs whose contents CRIU carries over; a bind
# whose source is a symlink (as Debian's /lib is) restores too.
t_mounts() {
	need_criu
	counter_bundle
	mkdir -p "$T/data"
	echo data >"$T/data/f"
	ln -s data "$T/link"
	brig_bundle_edit "$T/b" '.mounts += [{destination: "/scratch", type: "tmpfs", source: "tmpfs", options: ["size=1m"]},
		{destination: "/data", type: "bind", source: $l, options: ["rbind", "ro"]}]
		| .process.args[2] = "echo kept >/scratch/f; " + .process.args[2]' --arg l "$T/link"
	up c1
	counts_past 2 || fail "the counter does not count"
	br checkpoint --image-path "$T/img" c1
	assert_rc 0
	delete_at_end c2
	br restore --image-path "$T/img" --bundle "$T/b" -d c2
	assert_rc 0
	br exec c2 cat /scratch/f
	assert_rc 0
	assert_eq "$out" "kept" "the tmpfs file came back"
	br exec c2 sh -c 'grep -c " /shared " /proc/self/mountinfo'
	assert_eq "$out" "1" "the bind of the host is there"
	br exec c2 cat /data/f
	assert_eq "$out" "data" "the bind of a symlink's target is there"
}

t_cgroup_modes() {
	need_criu
	local mode n pid cg
	counter_bundle
	for mode in soft full strict ignore; do
		brig_bundle_edit "$T/b" '.linux.resources.pids.limit = 50'
		up "c-$mode"
		counts_past 1 || fail "$mode: the counter does not count"
		br checkpoint --manage-cgroups-mode "$mode" --image-path "$T/img-$mode" "c-$mode"
		assert_rc 0 || return
		delete_at_end "r-$mode"
		brig_bundle_edit "$T/b" '.linux.resources.pids.limit = 60'
		br restore --manage-cgroups-mode "$mode" --image-path "$T/img-$mode" --bundle "$T/b" -d "r-$mode"
		assert_rc 0 "$mode: restore (stderr: $err)" || return
		n=$(count)
		counts_past "$n" || fail "$mode: the restored counter does not count"
		pid=$(state_field "r-$mode" pid)
		cg=$(cg_of "$pid")
		assert_contains "$cg" "r-$mode" "$mode: in its own cgroup"
		# strict: CRIU made the cgroup with the image's properties,
		# brig then gave it the config's limits (criu runs on the vm
		# layer's pure cgroup v2)
		[ "$mode" != strict ] ||
			assert_eq "$(cat "/sys/fs/cgroup$cg/pids.max" 2>&1)" 60 "strict: the config's pids limit"
		br delete --force "r-$mode"
		assert_rc 0
		assert [ ! -d "/sys/fs/cgroup$cg" ]
	done
	br checkpoint --manage-cgroups-mode bogus x
	assert_rc 2
	assert_err_line 'brig: invalid --manage-cgroups-mode "bogus": expected soft, full, strict or ignore'
}

# Fork: one image, three containers restored at once, each counting into
# its own /shared (a bundle per copy: its own rootfs and bind).
t_fork() {
	need_criu
	local i pids=()
	counter_bundle
	up c1
	counts_past 2 || fail "the counter does not count"
	br checkpoint --image-path "$T/img" c1
	assert_rc 0
	for i in 1 2 3; do
		# a copy of the bind's contents too: a file the counter had
		# open at the dump (its echo's) must be there at the restore
		mkdir -p "$T/f$i" && cp -a "$T/shared" "$T/f$i/shared"
		cp -a "$T/rootfs" "$T/f$i/rootfs"
		jq --arg r "$T/f$i/rootfs" --arg s "$T/f$i/shared" \
			'.root.path = $r | (.mounts[] | select(.destination == "/shared") | .source) = $s' \
			"$T/b/config.json" >"$T/f$i/config.json"
		delete_at_end "fork$i"
	done
	for i in 1 2 3; do
		"$BRIG" --root "$T/root" restore -d --image-path "$T/img" --bundle "$T/f$i" "fork$i" \
			</dev/null >"$T/f$i.out" 2>&1 &
		pids+=($!)
	done
	for i in 0 1 2; do
		wait "${pids[$i]}"
		assert_eq "$?" 0 "restore fork$((i + 1)): $(cat "$T/f$((i + 1)).out")"
	done
	for i in 1 2 3; do
		wait_until 20 test -s "$T/f$i/shared/count" || fail "fork$i does not count"
		assert is_status "fork$i" running
		assert_contains "$(cg_of "$(state_field "fork$i" pid)")" "fork$i" "fork$i: its own cgroup"
	done
	# each goes on on its own: kill one, the others count on
	br kill fork2 KILL
	wait_until 10 is_status fork2 stopped || fail "fork2 did not stop"
	local a b
	a=$(count_in "$T/f1/shared/count") b=$(count_in "$T/f3/shared/count")
	sleep 1
	assert [ "$(count_in "$T/f1/shared/count")" -gt "$a" ]
	assert [ "$(count_in "$T/f3/shared/count")" -gt "$b" ]
}

# A sandbox prepared for jobs: a shell that has its state (v=41, and
# /marker written in its rootfs) and waits for a line on stdin, which
# decides what it does: a number, it answers and writes /marker, exit 3;
# "hang", it says so, then a sleep in the background and a loop.  Its stdin and stdout
# are pipes (what a job's become); its stdin's writer, a sleep, stays
# until the checkpoint.  The bundle names a cgroup (cgroupsPath) that
# the jobs must not share.  The sleep's length is the test's own
# ($MARK, set by prepare_job_image): pgrep finds the job's processes by
# it, and no other test's (the host's tests run side by side).
PREP='v=41; echo prepared >/marker; echo ready
read n
case $n in hang) echo hanging; sleep MARK & while :; do sleep 1; done ;; esac
echo "answer $((v + n))"; cat /marker; echo "fork $n" >/marker; cat /marker
exit 3'

prepare_job_image() {
	MARK=$((100000 + RANDOM * 32 + RANDOM % 32))
	cp -a "$ROOTFS" "$T/rootfs"
	mkbundle '.root.readonly = false | .linux.cgroupsPath = "brig-prep-cg"' sh -c "${PREP/MARK/$MARK}"
	brig_bundle_edit "$T/b" '.root.path = $r' --arg r "$T/rootfs"
	delete_at_end prep
	{
		{
			sleep 600 &
			echo $! >"$T/writer.pid"
			wait
		} | "$BRIG" --root "$T/root" run -d --bundle "$T/b" prep 2>&1 | cat >"$T/prep.out"
	} &
	defer kill_wait $!
	wait_until 30 grep -q ready "$T/prep.out" || {
		fail "the prepared shell is not ready: $(cat "$T/prep.out")"
		return 1
	}
	br checkpoint --image-path "$T/img" prep
	kill "$(cat "$T/writer.pid")"
	assert_rc 0 "checkpoint of the prepared shell (stderr: $err)"
}

# bjob ARGS...: `brig job --from-checkpoint $T/img --bundle $T/b ARGS`
bjob() {
	"$BRIG" --root "$T/root" job --from-checkpoint "$T/img" --bundle "$T/b" "$@"
}

# nothing of a job is left: no container, no job directory, no process
jobs_gone() {
	assert_eq "$("$BRIG" --root "$T/root" list -q 2>&1)" "" "brig list -q${1:+ $1}"
	assert_eq "$(find "$T/root/jobs" -mindepth 1 -maxdepth 1 ! -name '.*' 2>/dev/null)" "" \
		"entries of $T/root/jobs${1:+ $1}"
	[ -z "${MARK:-}" ] ||
		assert_eq "$(pgrep -f "slee[p] $MARK")" "" "processes of the job${1:+ $1}"
}

t_job_fork() {
	need_criu
	local i pids=()
	prepare_job_image || return
	for i in 1 2 3; do
		echo "$i" | bjob --stdin - --result "$T/r$i.json" >"$T/j$i.out" 2>"$T/j$i.err" &
		pids+=($!)
	done
	for i in 1 2 3; do
		wait "${pids[$((i - 1))]}"
		assert_eq "$?" 3 "job $i's exit status (stderr: $(cat "$T/j$i.err"))"
		assert_eq "$(cat "$T/j$i.out")" "answer $((41 + i))
prepared
fork $i" "job $i's output: the prepared state, then its own write"
		assert_eq "$(jq -r '[.exit_code, .reason, .timed_out] | join(" ")' "$T/r$i.json" 2>&1)" \
			"3 exited false" "job $i's result"
		assert [ "$(jq .writable_used_bytes "$T/r$i.json")" -gt 0 ]
	done
	assert_eq "$(cat "$T/rootfs/marker")" prepared "the bundle's rootfs after the jobs"
	jobs_gone
}

t_job_timeout() {
	need_criu
	local bg pid t0=$EPOCHREALTIME secs
	prepare_job_image || return
	# the deadline covers the restore, then the checks below while the
	# job hangs: 10 s was too short for a guest sharing its CPU, and a
	# fixed 40 s was 35 s of waiting in a guest of its own.  So: four
	# times what the image took (a run, then a checkpoint, which the
	# restore mirrors), at least 15 s, at most 60.
	secs=$((4 * (${EPOCHREALTIME/./} - ${t0/./}) / 1000000 + 1))
	[ "$secs" -ge 15 ] || secs=15
	[ "$secs" -le 60 ] || secs=60
	diag "the deadline: ${secs} s"
	echo hang | bjob --stdin - --id jobA --timeout "${secs}s" --result "$T/r.json" \
		>"$T/j.out" 2>"$T/j.err" &
	bg=$!
	defer kill_wait "$bg"
	wait_until 60 grep -q hanging "$T/j.out" || fail "the job did not start: $(cat "$T/j.err")"
	pid=$(pgrep -f "slee[p] $MARK" | head -n 1)
	assert_contains "$(cg_of "$pid")" "jobA" "the job's cgroup: its id's, not the bundle's cgroupsPath"
	wait "$bg" 2>/dev/null
	assert_eq "$?" 124 "exit status (stderr: $(cat "$T/j.err"))"
	assert_eq "$(jq -r '[.reason, .timed_out] | join(" ")' "$T/r.json" 2>&1)" "timeout true" "the result"
	jobs_gone
}

t_job_keeper() {
	need_criu
	local bg
	prepare_job_image || return
	# brig itself, not a subshell of bjob's: $! is what is killed
	echo hang | "$BRIG" --root "$T/root" job --from-checkpoint "$T/img" --bundle "$T/b" \
		--stdin - --id jobK --timeout 5m >"$T/j.out" 2>"$T/j.err" &
	bg=$!
	defer kill_wait "$bg"
	wait_until 60 grep -q hanging "$T/j.out" || fail "the job did not start: $(cat "$T/j.err")"
	kill -KILL "$bg"
	wait "$bg" 2>/dev/null
	wait_until 20 sh -c '! pgrep -f "slee[p] $0" >/dev/null' "$MARK" || fail "the job outlived brig"
	wait_until 20 sh -c '[ -z "$("$0" --root "$1" list -q)" ]' "$BRIG" "$T/root" ||
		fail "the container outlived brig"
	br job --gc
	assert_rc 0
	jobs_gone "after job --gc"
}

t_job_bad_input() {
	mkdir -p "$T/img"
	counter_bundle
	br job --from-checkpoint "$T/img" --bundle "$T/b" -- true
	assert_rc 125
	assert_err_line 'brig: --from-checkpoint: the job is the checkpointed process, it takes no command'
	br job --from-checkpoint "$T/img"
	assert_rc 125
	assert_err_line 'brig: --from-checkpoint needs --bundle: the bundle of the container checkpointed'
	br job --from-checkpoint "$T/img" --bundle "$T/b" --memory 1G
	assert_rc 125
	assert_err_line "brig: --memory: a job restored from a checkpoint is the checkpointed container's (its bundle's config)"
	br job --from-checkpoint "$T/img" --bundle "$T/b" --env A=1
	assert_rc 125
	assert_err_line 'brig: --env: a job restored from a checkpoint goes on as the checkpointed process'
	br job --from-checkpoint "$T/img" --bundle "$T/b" --pool P
	assert_rc 125
	assert_err_line 'brig: --pool: a job restored from a checkpoint goes on as the checkpointed process'
	br job --from-checkpoint "$T/nope" --bundle "$T/b"
	assert_rc 125
	assert_match "$err" '^brig: --from-checkpoint "[^"]*/nope": No such file or directory$' "a missing image"
	brig_bundle_edit "$T/b" '.linux.namespaces |= map(select(.type != "pid"))'
	br job --from-checkpoint "$T/img" --bundle "$T/b"
	assert_rc 125
	assert_err_line 'brig: --from-checkpoint: the bundle'"'"'s config.json needs a pid namespace of its own (linux.namespaces): the job'"'"'s processes end with its pid 1'
	jobs_gone
}

t_restore_bad_input() {
	local n
	counter_bundle
	br restore --image-path "$T/nope" --bundle "$T/b" -d c9
	assert_rc 1
	assert_match "$err" '^brig: --image-path "[^"]*/nope": No such file or directory$' "a missing image directory"
	br restore --empty-ns ipc --bundle "$T/b" c9
	assert_rc 2
	assert_err_line 'brig: invalid --empty-ns "ipc": only "network" is supported'
	br checkpoint --page-server nope c9
	assert_rc 2
	br --systemd-cgroup restore --manage-cgroups-mode strict --image-path "$T/b" --bundle "$T/b" -d c9
	assert_rc 1
	assert_err_line 'brig: --manage-cgroups-mode strict: not with the systemd cgroup driver, whose unit makes the cgroup'
	br checkpoint --image-path "$T/img" c9
	assert_rc 1
	assert_err_line 'brig: container "c9" does not exist'
	n=$(ls "$T/root" 2>/dev/null | wc -l)
	assert_eq "$n" 0 "no state is left"
}

tap_test "checkpoint where criu cannot run: CRIU's error in one line, the container untouched, a failed restore leaves nothing" t_no_criu_says_why
tap_test "a counter checkpointed and restored under a new id goes on counting, in its own cgroup; exec, kill, delete" t_counter
tap_test "checkpoint --leave-running: the container runs on; a copy restores from the image" t_leave_running
tap_test "checkpoint --pre-dump, then a dump with --parent-path, restores" t_pre_dump
tap_test "the init's stdout pipe: the restored init writes into restore's own stdout" t_pipes
tap_test "a terminal: restore sends the restored pty's master to --console-socket" t_tty
tap_test "a tmpfs's contents and a bind of the host come back" t_mounts
tap_test "--manage-cgroups-mode soft, full, strict, ignore: each restores into the new container's cgroup" t_cgroup_modes
tap_test "one image restored into three containers at once: each counts on its own" t_fork
tap_test "bad flags and a missing image directory: one line, nothing left" t_restore_bad_input
tap_test "job --from-checkpoint: three jobs at once from one prepared image, each with its state and a layer of its own" t_job_fork
tap_test "job --from-checkpoint --timeout: 124, in a cgroup of its own, nothing left" t_job_timeout
tap_test "job --from-checkpoint: brig SIGKILLed, its keeper removes the job" t_job_keeper
tap_test "job --from-checkpoint: bad flags, a missing image, no pid namespace: 125, one line, nothing left" t_job_bad_input
tap_done
