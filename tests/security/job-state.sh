#!/bin/bash
# The job mode's host-side state that a hostile container can reach
# (issue 30, security part 3): the watcher's result record, and the id
# ranges' lock files.
#
# 1. The result of the run.brig.job.* annotations (runtime/lifecycle/watch.h).  A
#    plain `brig run` container whose annotations ask for a deadline and
#    a result gets a watcher, which writes the result, as root on the
#    host, to the path the annotation names.  When the container can
#    write a directory on that path (its rootfs, or a bind of the host's
#    directory), it attacks the record:
#      - it swaps a directory on the path for a symlink to a host
#        directory: brig af2dd8b followed it and created the record (and
#        its temporary file) there.  brig opens the path's directory from
#        "/" with no symlink in any component: nothing is created;
#      - it pre-creates the result file with a forged "exited 0, not
#        timed out" record and waits for the deadline kill: brig af2dd8b
#        never replaced an existing file, so the forgery was the record.
#        brig renames its record over whatever is at the name, so the
#        record says timed_out, and so it does over a hard link (the
#        linked file is not written through), a symlink (its target is
#        not created) and a FIFO (never opened: the watcher does not
#        hang);
#      - a path whose directory has a symlink already at create fails
#        create, in one line naming the annotation, with nothing left.
#    runc ignores these annotations: there is nothing to compare.
#
# 2. The id ranges' locks, /run/brig-job-ids/<slot> (runtime/job/rootfs.c).
#    brig af2dd8b left one file per range ever used (778 after one run of
#    the suite).  A range let go of leaves nothing: after cold jobs, and
#    after a pool's whole life (create, claims, destroy), the files of the
#    ranges they used are gone, unless another test's job holds that
#    range now (its file is locked: /proc/locks says so, without this
#    test taking any lock).  And removing a lock file never lets two jobs
#    hold one range: 16 jobs at once, with short jobs claiming and
#    releasing ranges around them all the while, never share a host id;
#    and the race itself, made to happen with a brig built with
#    --enable-fault-injection (stopped between opening a range's file and
#    locking it, while the file is unlinked and a new one at its name is
#    locked by another holder), does not give it the held range.  A brig
#    whose claimer took the lock of the unlinked file as the range's got
#    that range (checked: that test fails on such a build).
#
# A test's containers are under its own --root "$T/root", its results and
# directories under $T; each asserts that nothing is left (the harness
# checks processes, mounts and cgroups).
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"
# shellcheck source=../lib/job.sh
. "$(dirname "$0")/../lib/job.sh"

# The watcher is adopted by tests/helpers/subreaper: without it, a test
# could not tell when the watcher has written the result.
[ -n "${BRIG_SUBREAPER_PID:-}" ] ||
	skip_all "needs tests/helpers/subreaper (BRIG_SUBREAPER_PID): run it through make check"

brig_file_bundle

IDS=/run/brig-job-ids

# ------------------------------------------------------------ the watcher

# wbundle NAME SCRIPT RESULT [TIMEOUT]: the bundle $T/NAME, whose process
# runs SCRIPT (sh -c) as the container's root on a writable rootfs, with
# $T/shared (mode 0777) bound read-write at /shared, and the annotations
# run.brig.job.result=RESULT (and .timeout=TIMEOUT).
wbundle() {
	local name=$1 script=$2 result=$3 timeout=${4:-}
	mkdir -p "$T/shared"
	chmod 0777 "$T/shared"
	cp -a "$BUNDLE_TPL" "$T/$name"
	brig_bundle_edit "$T/$name" '.root.readonly = false
		| .process.args = ["sh", "-c", $s]
		| .mounts += [{destination: "/shared", type: "bind", source: $m,
			options: ["rbind", "rw"]}]
		| .annotations["run.brig.job.result"] = $r
		| if $t != "" then .annotations["run.brig.job.timeout"] = $t else . end' \
		--arg s "$script" --arg m "$T/shared" --arg r "$result" --arg t "$timeout"
}

# wrun NAME: `brig run` of the bundle $T/NAME in the foreground (rc, out,
# err), then wait (10 s) for its watcher to have written the result and
# gone; a watcher still there fails the test (it hangs).
wrun() {
	mkdir -p "$T/tmp"
	run_cmd env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" run -b "$T/$1" "$1"
	wait_until 10 eval '[ -z "$(_tap_leaked_procs)" ]' ||
		fail "container $1: its watcher is still there 10 s after its end: $(_tap_leaked_procs)"
}

# rec FILE FIELD: the FIELD of the result FILE, as compact JSON (never
# read through a FIFO or a symlink left at its name).
rec() {
	if [ -f "$1" ] && [ ! -L "$1" ]; then
		jq -c ".$2" "$1" 2>/dev/null || echo "<no result>"
	else
		echo "<no result: $(stat -c %F "$1" 2>&1)>"
	fi
}

# w_clean: nothing of the containers is left under $T/root.
w_clean() {
	assert_eq "$("$BRIG" --root "$T/root" list -q 2>&1)" "" "brig list -q"
	assert_empty_dir "$T/tmp"
}

# The container swaps a directory on the result's path, in its rootfs and
# in a bind of a host directory, for a symlink to a directory of the
# host's: the record must not be created there (nor its temporary file).
t_result_dir_swapped() {
	local name dir
	mkdir -p "$T/victim"
	for name in rootfs bind; do
		if [ "$name" = rootfs ]; then
			# /out/d in the container is $T/rootfs/rootfs/out/d on the host
			wbundle "$name" "rm -rf /out/d && ln -s '$T/victim' /out/d" \
				"$T/$name/rootfs/out/d/result.json" || return
			dir=$T/$name/rootfs/out/d
		else
			wbundle "$name" "rm -rf /shared/d && ln -s '$T/victim' /shared/d" \
				"$T/shared/d/result.json" || return
			dir=$T/shared/d
		fi
		mkdir -p "$dir"
		wrun "$name"
		assert_eq "$rc:$err" "0:" "the $name container that swapped the directory"
		# the attack happened: the directory is a symlink to the host's
		assert_eq "$(readlink "$dir")" "$T/victim" "the swapped directory in the $name" ||
			continue
		assert_empty_dir "$T/victim"
		assert_no_file "$T/victim/result.json"
	done
	w_clean
}

# FORGED: a record that says the job exited 0 in time.
FORGED='{"id":"forged","exit_code":0,"signal":null,"reason":"exited","error":null,"wall_ms":1,"timed_out":false,"oom_killed":false}'

# The container writes a forged record at the result's name, then runs
# past its deadline: the record is brig's, and says timed_out.
t_result_forged() {
	wbundle forge "printf '%s\\n' '$FORGED' >/shared/result.json; sleep 100" \
		"$T/shared/result.json" 1s || return
	wrun forge
	assert_eq "$rc" 137 "the status of a container killed at its deadline ($err)"
	assert_eq "$(rec "$T/shared/result.json" id)" '"forge"' "the record's id"
	assert_eq "$(rec "$T/shared/result.json" timed_out)" true "the record's timed_out"
	assert_eq "$(rec "$T/shared/result.json" reason)" '"timeout"' "the record's reason"
	assert_eq "$(find "$T/shared" -mindepth 1 | wc -l)" 1 "files in the result's directory"
	w_clean
}

# What the container leaves at the result's name: a hard link to a host
# file it can see (not written through), a symlink to a host path (not
# created), a FIFO (never opened: the watcher ends).  Each time the record
# replaces it.
t_result_name_taken() {
	local kind r=$T/shared/result.json
	mkdir -p "$T/victim" "$T/shared"
	echo keep >"$T/shared/keep"
	for kind in link symlink fifo; do
		rm -f "$r"
		case $kind in
		link) wbundle "$kind" "ln /shared/keep /shared/result.json; exit 3" "$r" ;;
		symlink) wbundle "$kind" "ln -s '$T/victim/planted' /shared/result.json; exit 3" "$r" ;;
		fifo) wbundle "$kind" "mkfifo /shared/result.json; exit 3" "$r" ;;
		esac || return
		wrun "$kind"
		assert_eq "$rc" 3 "the status of the $kind container ($err)"
		assert [ -f "$r" ] && assert [ ! -L "$r" ]
		# (exit_code may be null: brig run reaps the process, and before
		# Linux 6.15 the watcher may come too late to read its status)
		assert_eq "$(rec "$r" id):$(rec "$r" timed_out)" "\"$kind\":false" \
			"the record over a $kind at its name"
		assert_eq "$(cat "$T/shared/keep")" keep "the file a hard link at the name led to"
		assert_eq "$(stat -c %h "$T/shared/keep")" 1 "the links of the hard-linked file"
		assert_no_file "$T/victim/planted"
	done
	assert_eq "$(find "$T/shared" -mindepth 1 | sort | tr '\n' ' ')" "$T/shared/keep $r " \
		"files in the result's directory"
	w_clean
}

# A result path that brig would refuse at the end fails create: its
# directory has a symlink (the host's /var/run is one), or it names no
# file.  One line naming the annotation; nothing is left, nothing made.
t_result_bad_path() {
	local path
	mkdir -p "$T/real"
	ln -s real "$T/link"
	for path in "$T/link/result.json" "$T/real/.." "$T/real/"; do
		wbundle bad true "$path" || return
		mkdir -p "$T/tmp"
		run_cmd env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" create -b "$T/bad" bad
		if [ "$rc" -eq 0 ]; then
			fail "create with the result \"$path\" succeeded"
			"$BRIG" --root "$T/root" delete --force bad >/dev/null 2>&1
		fi
		assert_lines 1 "$err" "stderr of create with the result \"$path\""
		assert_contains "$err" "annotations.run.brig.job.result: \"$path\"" \
			"stderr of create with the result \"$path\""
		rm -rf "$T/bad"
	done
	assert_contains "$err" "is not the path of a file"
	assert_empty_dir "$T/real"
	w_clean
}

# The record replaces whatever is at its name at the end (a container's
# forgery), so an annotation's author must not be able to point it at a
# file of the host's: a file, a symlink or a FIFO at the path at create
# fails create in one line, and stays as it was.  An earlier record of
# brig's (marked trusted.brig.result, which no container can set) is no
# obstacle: a container made again with the same annotations (an
# engine's restart) gets its record written over the old one.  Before
# this, the renaming writer replaced any file at all: a pod author could
# have brig overwrite /etc/passwd with a record.
t_result_host_file() {
	local kind r=$T/shared/result.json
	mkdir -p "$T/shared"
	for kind in file symlink fifo; do
		rm -f "$r"
		case $kind in
		file) echo precious >"$r" ;;
		symlink) ln -s "$T/victim" "$r" ;;
		fifo) mkfifo "$r" ;;
		esac
		wbundle "host-$kind" true "$r" || return
		mkdir -p "$T/tmp"
		run_cmd env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" create -b "$T/host-$kind" "host-$kind"
		if [ "$rc" -eq 0 ]; then
			fail "create with a $kind of the host's at the result's path succeeded"
			"$BRIG" --root "$T/root" delete --force "host-$kind" >/dev/null 2>&1
		fi
		assert_lines 1 "$err" "stderr of create over a $kind"
		assert_contains "$err" "exists and is no result of brig's" "stderr of create over a $kind"
		assert_eq "$(stat -c %F "$r")" \
			"$(case $kind in file) echo "regular file" ;; symlink) echo "symbolic link" ;; fifo) echo fifo ;; esac)" \
			"what is at the result's path after create over a $kind"
	done
	assert_no_file "$T/victim"
	# a record of brig's at the name: a second run replaces it
	wbundle first "exit 4" "$r" || return
	rm -f "$r"
	wrun first
	assert_eq "$(rec "$r" id)" '"first"' "the first record"
	wbundle second "exit 5" "$r" || return
	wrun second
	assert_eq "$rc" 5 "the status of the second run ($err)"
	assert_eq "$(rec "$r" id)" '"second"' "the record of the second run, over the first"
	w_clean
}

# ------------------------------------------------------------ the id ranges

# member_files POOL: "SLOT:INODE" of the id range's lock file of each
# member ready in POOL (its entry names its host uid; its init holds the
# file's lock, so the file is the range's now).
member_files() {
	local f base slot ino
	for f in "$T/root/pools/$1/ready/"*; do
		base=$(awk '{ print $3 }' "$f" 2>/dev/null)
		[[ "$base" =~ ^[0-9]+$ ]] || continue
		slot=$(((base - ID_START) / 65536))
		ino=$(stat -c %i "$IDS/$slot" 2>/dev/null) && echo "$slot:$ino"
	done
}

# taken_files FILE...: "SLOT:INODE" of each id range's lock file that a
# brig --debug, whose stderr is in FILE..., said it took.
taken_files() {
	sed -n 's/.*job: id range \([0-9]*\): .*, inode \([0-9]*\).*/\1:\2/p' "$@"
}

# left_files SLOT:INODE...: the slots whose lock file is still that very
# file (the inode), locked by nobody: left behind by the brig that took
# it.  A file of another job at the same name since is another inode.
left_files() {
	local s ino
	for s in "$@"; do
		ino=${s##*:}
		[ "$(stat -c %i "$IDS/${s%%:*}" 2>/dev/null)" = "$ino" ] || continue
		grep -Eq " [0-9a-f]+:[0-9a-f]+:$ino " /proc/locks || echo "${s%%:*}"
	done
}

# Eight cold jobs one after the other: each range's file goes with it.
t_ids_cold_jobs() {
	local i files=()
	mkdir -p "$T/tmp"
	for ((i = 0; i < 8; i++)); do
		run_cmd env TMPDIR="$T/tmp" "$BRIG" --debug --root "$T/root" job --rootfs "$ROOTFS" \
			-- true
		assert_rc 0 || return
		files+=("$(taken_files "$err_file")")
	done
	assert_eq "$(printf '%s\n' "${files[@]}" | grep -Ec '^[0-9]+:[0-9]+$')" 8 \
		"the id ranges' files the jobs took (--debug)"
	assert_eq "$(left_files "${files[@]}" | tr '\n' ' ')" "" \
		"lock files left in $IDS (slots) by the jobs"
	assert_clean
}

# A pool's whole life: its members (their ranges, from their entries),
# three claims and destroy: none of their ranges' files is left.  Each
# claim waits for the pool to be full again, so every member it can take
# was seen ready and its file is counted: a member that became ready
# between the look and the claim was taken unseen (a hit says nothing
# of its range), and the run counted only two files.
t_ids_pool() {
	local i files=() f
	mkdir -p "$T/tmp"
	defer timeout -k 5 30 "$BRIG" --root "$T/root" pool destroy P
	run_cmd env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" pool create P --rootfs "$ROOTFS" --size 2
	assert_eq "$rc:$err" "0:" "pool create" || return
	for ((i = 0; i < 3; i++)); do
		wait_until 10 eval '[ "$(member_files P | wc -l)" -eq 2 ]'
		mapfile -t -O "${#files[@]}" files < <(member_files P)
		# a miss runs cold: its brig says which file it took
		run_cmd env TMPDIR="$T/tmp" "$BRIG" --debug --root "$T/root" job --pool P \
			-- cat /proc/self/uid_map
		assert_rc 0 || return
		mapfile -t -O "${#files[@]}" files < <(taken_files "$err_file")
	done
	mapfile -t -O "${#files[@]}" files < <(member_files P)
	run_cmd env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" pool destroy P
	assert_eq "$rc:$err" "0:" "pool destroy"
	# the followers and fills end after destroy's return at the latest
	wait_until 10 eval '[ -z "$(_tap_leaked_procs)" ]'
	mapfile -t files < <(printf '%s\n' "${files[@]}" | grep -E '^[0-9]+:[0-9]+$' | sort -u)
	assert [ "${#files[@]}" -ge 3 ]
	assert_eq "$(left_files "${files[@]}" | tr '\n' ' ')" "" \
		"lock files left in $IDS (slots) by the pool's members: ${files[*]}"
	assert_empty_dir "$T/root/pools"
	rmdir "$T/root/pools" 2>/dev/null
	assert_clean
}

# 16 jobs at once, each holding its range until all 16 run, while short
# jobs take and let go of ranges around them (their files unlinked as
# they go, as claimers lock them): no two share a host id, and no short
# job got the range of a running one.
t_ids_concurrent() {
	local i pids=() churn=() bases n prev long files
	mkdir -p "$T/s" "$T/r" "$T/tmp"
	chmod 1777 "$T/s"
	for ((i = 0; i < 16; i++)); do
		TMPDIR=$T/tmp timeout -k 5 90 "$BRIG" --debug --root "$T/root" job --rootfs "$ROOTFS" \
			--mount "$T/s:/s:rw" --env "I=$i" --timeout 80s -- sh -c '
			cat /proc/self/uid_map >/s/map.$I
			touch /s/ready.$I
			n=0
			while [ ! -e /s/go ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
			echo "job $I"' </dev/null >"$T/r/$i.out" 2>"$T/r/$i.err" &
		pids+=($!)
	done
	# the churn: 4 loops of short jobs, each recording its host uid
	for ((i = 0; i < 4; i++)); do
		(
			for ((k = 0; k < 12; k++)); do
				TMPDIR=$T/tmp timeout -k 5 60 "$BRIG" --debug --root "$T/root" job \
					--rootfs "$ROOTFS" -- cat /proc/self/uid_map \
					</dev/null >>"$T/r/churn.$i" 2>>"$T/r/churn.$i.err" || exit 1
			done
		) &
		churn+=($!)
	done
	wait_until 60 eval '[ "$(find "$T/s" -name "ready.*" | wc -l)" -ge 16 ]' ||
		fail "only $(find "$T/s" -name 'ready.*' | wc -l) of 16 jobs started"
	for i in "${!churn[@]}"; do
		wait "${churn[i]}" || fail "short jobs $i: $(cat "$T/r/churn.$i.err")"
	done
	touch "$T/s/go"
	for i in "${!pids[@]}"; do
		wait "${pids[i]}"
		rc=$?
		[ "$rc" -eq 0 ] || fail "job $i: exit status $rc, stderr: $(cat "$T/r/$i.err")"
		assert_eq "$(cat "$T/r/$i.out")" "job $i" "stdout of job $i"
	done
	long=$(awk '$1 == 0 { print $2 }' "$T"/s/map.* | sort -n)
	assert_eq "$(sort -u <<<"$long" | grep -c .)" 16 "distinct host uids of the 16 jobs"
	prev=
	for n in $long; do
		[ -z "$prev" ] || [ $((n - prev)) -ge 65536 ] ||
			fail "host uid ranges at $prev and $n overlap"
		prev=$n
	done
	bases=$(awk '$1 == 0 { print $2 }' "$T"/r/churn.[0-9])
	assert_eq "$(grep -c . <<<"$bases")" 48 "the short jobs' host uids"
	for n in $bases; do
		grep -qx "$n" <<<"$long" && fail "a short job got host uid $n, a running job's"
	done
	files=$(taken_files "$T"/r/*.err)
	assert_eq "$(grep -c . <<<"$files")" 64 "the id ranges' files the jobs took (--debug)"
	# shellcheck disable=SC2086 # (a list of words)
	assert_eq "$(left_files $files | sort -u | tr '\n' ' ')" "" \
		"lock files left in $IDS (slots)"
	assert_clean
}

# The race that removing lock files opens, made to happen: a claimer has
# opened a range's file and not locked it yet (BRIG_FAULT stops it there)
# when the range is let go of (the file unlinked) and taken by another
# holder (a new file at the name, locked: here the test's own flock, as a
# claim takes it).  The claimer then locks the unlinked file: it must see
# that it is no longer the one at its name and not take that range.
t_ids_unlinked_under_claimer() {
	local slot f pid holder base n
	need_faults
	require_cmd flock
	mkdir -p "$T/tmp"
	BRIG_FAULT=job.ids-lock:stop TMPDIR=$T/tmp "$BRIG" --root "$T/root" job --rootfs "$ROOTFS" \
		-- cat /proc/self/uid_map </dev/null >"$T/b.out" 2>"$T/b.err" &
	pid=$!
	defer kill_wait "$pid"
	wait_until 20 eval '[ "$(proc_state "$pid")" = T ]' ||
		{ fail "brig did not stop before its first lock: $(cat "$T/b.err")"; return; }
	for f in /proc/"$pid"/fd/*; do
		case $(readlink "$f") in "$IDS"/*) slot=$(readlink "$f") ;; esac
	done
	slot=${slot#"$IDS"/}
	assert_match "$slot" '^[0-9]+$' "the slot brig opened" || return
	# released, then taken: a new file at the name, locked
	rm -f "$IDS/$slot"
	(
		exec 9>"$IDS/$slot" && flock -x 9 && exec sleep 60
	) &
	holder=$!
	defer kill_wait "$holder"
	defer rm -f "$IDS/$slot"
	wait_until 10 eval 'grep -Eq " [0-9a-f]+:[0-9a-f]+:$(stat -c %i "$IDS/$slot" 2>/dev/null) " /proc/locks' ||
		{ fail "the test's holder did not lock $IDS/$slot"; return; }
	# (it stops again before each lock it tries next: let it go on)
	for ((n = 0; n < 600; n++)); do
		case $(proc_state "$pid") in
		T) kill -CONT "$pid" ;;
		Z | "") break ;;
		esac
		sleep 0.05
	done
	wait_exit "$pid" 30
	assert_eq "$rc:$(cat "$T/b.err")" "0:" "the claimer's status"
	base=$(awk '$1 == 0 { print $2 }' "$T/b.out")
	assert_match "$base" '^[0-9]+$' "the claimer's uid_map: $(cat "$T/b.out")"
	assert_ne "$base" $((ID_START + slot * 65536)) \
		"the claimer's host uid (the range of slot $slot, held by another)"
	# the test's own lock file: removed while it holds it
	rm -f "$IDS/$slot"
	kill_wait "$holder"
	assert_clean
}

tap_test "result: a directory on its path swapped for a symlink creates nothing there" t_result_dir_swapped
tap_test "result: a forged record at its name is replaced, timed_out after a deadline kill" t_result_forged
tap_test "result: a hard link, a symlink or a FIFO at its name is replaced, never used" t_result_name_taken
tap_test "result: a path through a symlink, or of no file, fails create in one line" t_result_bad_path
tap_test "result: a file of the host's at its path fails create, is never replaced; brig's own is" t_result_host_file
tap_test "id ranges: eight cold jobs leave no lock file" t_ids_cold_jobs
tap_test "id ranges: a pool's members and claims leave no lock file after destroy" t_ids_pool
tap_test "id ranges: 16 jobs at once among short ones never share a host id" t_ids_concurrent
tap_test "id ranges: a file unlinked and taken under a claimer is not locked as the range" t_ids_unlinked_under_claimer
tap_done
