#!/bin/bash
# Symlink-exchange races against the setup of a container: while brig
# resolves the paths of the rootfs (mount destinations, /proc, directories
# it creates), an attacker who can write in the rootfs or in a volume
# swaps a directory with a symlink, atomically, with
# renameat2(RENAME_EXCHANGE), in a tight loop (tests/security/racer).  A
# runtime that checks a path and then uses it by name (string paths given
# to mount(2), mkdir(2), open(2)) is sooner or later handed the symlink in
# between, and follows it out of the rootfs.  Three CVEs of runc had this
# shape:
#
#   CVE-2021-30465: a mount destination inside a volume shared with another
#     container, swapped for a symlink while being mounted.  Fixed in runc
#     1.0.0-rc95 (the destination is opened and mounted through
#     /proc/self/fd, then checked to be inside the rootfs).  runc 1.1.5 on
#     the first test's bundle and race: no mount escaped (it refuses them,
#     "possibly malicious path detected"), but its MkdirAll of the
#     destination, raced the same way, made /race-MARK in the host's /
#     (CVE-2024-45310, below).
#   CVE-2019-19921: /proc swapped for a symlink while procfs is mounted,
#     so that the read-only bind of /proc/sys (and the writes to
#     /proc/self/attr, AppArmor) go to a fake procfs while the real one
#     stays writable.  Fixed in runc 1.0.0-rc10 (proc only on an ordinary
#     directory).  runc 1.1.5 on the second test's race (from the host, 25
#     s): 16 containers created, none without a read-only /proc/sys, 243
#     creates refused.
#   CVE-2024-45310: the directories of a missing mount destination made
#     with MkdirAll on a path checked before: a swap in between creates
#     empty directories and files on the host.  Fixed in runc 1.1.14 and
#     1.2.0-rc.3.  runc 1.1.5 on the third test's race made $T/host/b41/c
#     on the host after 41 creates (9 s).
#
# brig's defence (runtime/linux/resolve.c, mounts.c, procfs.c): every path
# inside the rootfs is resolved by openat2(RESOLVE_IN_ROOT) from the fd of
# the rootfs, so a symlink, whenever it is met, resolves inside the root;
# a missing path is made by mkdirat/mknodat relative to the fd of its
# parent resolved that way; mounts are attached to that fd (move_mount),
# never to a string path; and every procfs write goes through a private
# procfs brig mounted itself, never through the container's /proc.  A
# lost race may put a mount at another place *inside* the rootfs (the
# symlink's target resolved in the root), or make the create fail: both
# are fine, as long as what protects a mount goes with it (the read-only
# /proc/sys and the masks on the procfs, wherever it is).  What must
# never happen: a mount, a directory or a write outside the rootfs, or a
# container that can write the host's sysctls.
#
# Each test races for RACES_SECS seconds (default 4) while containers are
# created and checked one after another, and reports how many swaps and
# how many creates there were, and how many creates the race hit (a mount
# placed elsewhere in the root, a refusal).
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

RACES_SECS=${RACES_SECS:-4}
# the racer's own bound, in case its stop file never comes
RACER_MAX=$((RACES_SECS + 30))

# Host-wide files a write through a fake or escaped /proc could change.
CANARIES="/proc/sys/kernel/core_pattern /proc/sys/net/ipv4/ip_forward"

brig_file_bundle

# The racer, statically linked: it runs in a busybox rootfs.
racer_path() { static_helper security/racer; }

# mounts PID: the mount table of PID's mount namespace as PID sees it
# (paths inside its root; a mount outside it is not shown), one line per
# mount: "ID PARENT MOUNTPOINT ROOT FSTYPE OPTIONS SUPEROPTIONS".  The
# racer may rename a mount point while the table is read: a mount is told
# by its id, its parent, its root and its options, which no rename changes.
mounts() {
	awk '{
		for (i = 7; $i != "-"; i++)
			;
		print $1, $2, $5, $4, $(i + 1), $6, $(i + 3)
	}' "/proc/$1/mountinfo"
}

# fs_root PATH: PATH as the root of a bind mount of it shows in mountinfo
# (relative to its filesystem's mount point).
fs_root() {
	local p m
	p=$(realpath "$1") && m=$(stat -c %m "$p") || return 1
	[ "$m" = / ] || p=${p#"$m"}
	echo "${p:-/}"
}

# start_racer_ctr VOLUME PATH...: container A, the attacker: its init is
# the racer, swapping the pairs of PATHs in its /vol, the host directory
# VOLUME (a volume shared with the victim, as an emptyDir of Kubernetes).
# It reports in $T/report.
start_racer_ctr() {
	local vol=$1 racer args
	shift
	racer=$(racer_path) || skip "needs a static tests/security/racer (gcc -static)"
	mkdir -p "$T/report" && bundle "$T/a" && cp "$racer" "$T/a/rootfs/racer" || return 1
	args=$(json_args /racer -t "$RACER_MAX" -r /report/ready -s /report/stop \
		-o /report/summary "$@")
	brig_bundle_edit "$T/a" '.process.args = $a
		| .mounts += [{destination: "/vol", type: "bind", source: $vol, options: ["rbind", "rw"]},
			      {destination: "/report", type: "bind", source: $report,
			       options: ["rbind", "rw"]}]' \
		--argjson a "$args" --arg vol "$vol" --arg report "$T/report" || return 1
	delete_at_end a
	# (the racer's stdio: files of its own, not run_cmd's)
	"$BRIG" --root "$T/root" run --detach --bundle "$T/a" a >"$T/a.out" 2>"$T/a.err" || {
		fail "run --detach a: $(cat "$T/a.err")"
		return 1
	}
	wait_for "$T/report/ready" || {
		fail "the racer did not start: $(cat "$T/a.err")"
		return 1
	}
}

# stop_racer_ctr: stop the racer of A and delete A; $SWAPS is how many
# swaps it made.
stop_racer_ctr() {
	touch "$T/report/stop"
	wait_for "$T/report/summary" || fail "the racer wrote no summary"
	SWAPS=$(sed -n 's/^swaps=\([0-9]*\).*/\1/p' "$T/report/summary" 2>/dev/null)
	run_cmd "$BRIG" --root "$T/root" delete --force a
	assert_rc 0
}

# start_racer_host PATH...: the racer on the host, swapping the pairs of
# PATHs (in a rootfs the attacker controls), reporting in $T/report.
start_racer_host() {
	local racer
	racer=$(racer_path) || skip "needs a static tests/security/racer (gcc -static)"
	rm -rf "$T/report" && mkdir -p "$T/report" || return 1
	"$racer" -t "$RACER_MAX" -r "$T/report/ready" -s "$T/report/stop" -o "$T/report/summary" \
		"$@" >/dev/null 2>"$T/report/err" &
	RACER_PID=$!
	defer stop_racer_host
	wait_for "$T/report/ready" || {
		fail "the racer did not start: $(cat "$T/report/err")"
		return 1
	}
}

# stop_racer_host: stop the racer of start_racer_host; $SWAPS as above.
stop_racer_host() {
	[ -n "${RACER_PID:-}" ] || return 0
	touch "$T/report/stop"
	wait_exit "$RACER_PID" 10
	RACER_PID=
	SWAPS=$(sed -n 's/^swaps=\([0-9]*\).*/\1/p' "$T/report/summary" 2>/dev/null)
}

# created_pid ID: the pid of the created container ID (empty if none).
created_pid() {
	"$BRIG" --root "$T/root" state "$1" 2>/dev/null | jq -r '.pid // empty' 2>/dev/null
}

# race_create ID CHECK: `create` of the bundle $T/b as ID, then:
#   created: CHECK ID PID looks at it from the host, and it is deleted;
#   refused: it must have failed cleanly (a message, no state left).
# Counts in CREATED, REFUSED (and ERRORS, the first few messages).
race_create() {
	local id=$1 check=$2 pid
	br create --bundle "$T/b" "$id"
	if [ "$rc" -eq 0 ]; then
		CREATED=$((CREATED + 1))
		pid=$(created_pid "$id")
		if [ -z "$pid" ] || [ ! -r "/proc/$pid/mountinfo" ]; then
			fail "created $id has no init to look at"
		else
			"$check" "$id" "$pid"
		fi
		br delete --force "$id"
		assert_rc 0
	else
		REFUSED=$((REFUSED + 1))
		[ "$rc" -ne 124 ] || fail "create $id hung"
		assert_ne "$err" "" "error of the refused create $id"
		[ ! -e "$T/root/$id" ] || fail "the refused create $id left $T/root/$id behind"
		if [ "$(nlines "$ERRORS")" -lt 4 ] && [[ "$ERRORS" != *"${err##*: }"* ]]; then
			ERRORS+=${ERRORS:+$'\n'}$err
		fi
	fi
}

# race_loop PREFIX CHECK [PREPARE]: race_create PREFIX<i> CHECK for
# RACES_SECS seconds, and on until there were 5 creates on a loaded
# machine (3 x RACES_SECS at most); PREPARE i first, when given.  It stops
# after three failing creates, not to drown them in more of the same.
race_loop() {
	local prefix=$1 check=$2 prepare=${3:-} i=0 start=$SECONDS
	local failed=$_tap_failed nfail=0
	CREATED=0 REFUSED=0 DIVERTED=0 ERRORS='' EXAMPLE=''
	while [ "$nfail" -lt 3 ] && { [ $((SECONDS - start)) -lt "$RACES_SECS" ] ||
		{ [ "$i" -lt 5 ] && [ $((SECONDS - start)) -lt $((3 * RACES_SECS)) ]; }; }; do
		_tap_failed=0
		[ -z "$prepare" ] || "$prepare" "$i" || break
		race_create "$prefix$i" "$check"
		[ "$_tap_failed" -eq 0 ] || nfail=$((nfail + 1))
		failed=$((failed | _tap_failed))
		i=$((i + 1))
	done
	_tap_failed=$failed
}

# diverted WHAT: count a create whose mounts the race put elsewhere in the
# root (the first one is shown).
diverted() {
	DIVERTED=$((DIVERTED + 1))
	[ -n "$EXAMPLE" ] || EXAMPLE=$1
}

# report WHAT: the diagnostic that shows the race ran, and the checks
# that it really raced: swaps happened, containers were created during
# them.
report() {
	diag "$1: ${SWAPS:-0} swaps, $((CREATED + REFUSED)) creates: $CREATED created" \
		"($DIVERTED with a mount the race put elsewhere in the root), $REFUSED refused"
	[ -z "$EXAMPLE" ] || diag "for instance: $EXAMPLE"
	[ -z "$ERRORS" ] || diag "refusals: $ERRORS"
	[ "${SWAPS:-0}" -gt 0 ] || fail "$1: the racer swapped nothing"
	[ $((CREATED + REFUSED)) -ge 5 ] || fail "$1: only $((CREATED + REFUSED)) creates during the race"
}

# ------------------------------------------------- CVE-2021-30465 shape

# Container A and the victim B share the volume $T/shared (at /vol in
# both).  A swaps, in it, the directory mnt1 with the symlink link1 -> /,
# and mnt2 with link2 -> $T/hostvols, a host directory.  B's mounts go
# through the volume:
#   - a tmpfs at /vol/mnt1/race-MARK (brig creates the directory);
#   - the attacker's second volume $T/evil at /vol/mnt2: the first stage
#     of the CVE's exploit, which, followed on the host, covers the host
#     directory $T/hostvols in B's mount namespace with the attacker's
#     volume;
#   - a bind of the host's innocuous $T/hostvols/data at /data: the second
#     stage; through the first, its source would be the attacker's
#     data -> / and B would get the host's / at /data.
# Every mount must be in B's mount table, inside its root (a mount that
# went outside the root is gone with the old root after pivot_root, and
# missing from it); /data must be the host's data directory; the host's /
# gets no race-MARK, $T/hostvols is unchanged.
MARK=$RANDOM$RANDOM

check_mount_dest() {
	local id=$1 pid=$2 table tmpfs evil data
	table=$(mounts "$pid")
	tmpfs=$(awk '$5 == "tmpfs" && $7 ~ /(^|,)size=1240k(,|$)/ { print $3 }' <<<"$table")
	evil=$(awk -v r="$EVIL_ROOT" '$4 == r { print $3 }' <<<"$table")
	data=$(awk '$3 == "/data" { print $4 }' <<<"$table")
	assert_lines 1 "$tmpfs" "the tmpfs of $id in its mount table" || diag "$table"
	assert_lines 1 "$evil" "the bind of the attacker's volume of $id in its mount table"
	assert_eq "$data" "$DATA_ROOT" "what is mounted at /data in $id"
	assert_eq "$(cat "/proc/$pid/root/data/marker" 2>&1)" innocuous "/data/marker in $id"
	# where the race put them: in the directory of the volume (under
	# either of its names, as the racer goes on) or elsewhere in the root
	if [[ ! "$tmpfs" =~ ^/vol/(mnt1|link1)/race-$MARK$ ]] ||
		[[ ! "$evil" =~ ^/vol/(mnt2|link2)$ ]]; then
		diverted "$id: the tmpfs at $tmpfs, the attacker's volume at $evil"
	fi
}

t_mount_destination_exchange() {
	require_root
	require_cmd jq
	mkdir -p "$T/shared/mnt1" "$T/shared/mnt2" "$T/evil" "$T/hostvols/data" || return
	ln -s / "$T/shared/link1" && ln -s "$T/hostvols" "$T/shared/link2" || return
	ln -s / "$T/evil/data" || return
	echo innocuous >"$T/hostvols/data/marker"
	EVIL_ROOT=$(fs_root "$T/evil") && DATA_ROOT=$(fs_root "$T/hostvols/data") || return
	defer rmdir "/race-$MARK"

	bundle "$T/b" || return
	brig_bundle_edit "$T/b" '.process.args = ["true"]
		| .mounts += [
			{destination: "/vol", type: "bind", source: $shared, options: ["rbind", "rw"]},
			{destination: ("/vol/mnt1/race-" + $mark), type: "tmpfs", source: "tmpfs",
			 options: ["size=1240k"]},
			{destination: "/vol/mnt2", type: "bind", source: $evil, options: ["rbind", "rw"]},
			{destination: "/data", type: "bind", source: $data, options: ["rbind", "ro"]}]' \
		--arg shared "$T/shared" --arg evil "$T/evil" --arg data "$T/hostvols/data" \
		--arg mark "$MARK" || return

	start_racer_ctr "$T/shared" /vol/mnt1 /vol/link1 /vol/mnt2 /vol/link2 || return
	race_loop b check_mount_dest
	stop_racer_ctr
	report "mount destinations swapped in a shared volume"

	assert_no_file "/race-$MARK"
	assert_eq "$(cd "$T/hostvols" && find . | sort | tr '\n' ' ')" ". ./data ./data/marker " \
		"what $T/hostvols holds"
	assert_eq "$(readlink "$T/evil/data")" / "the attacker's data -> /"
	# the racer put every name back
	if [ ! -d "$T/shared/mnt1" ] || [ ! -L "$T/shared/link1" ]; then
		fail "mnt1 and link1 not put back"
	fi
	assert_empty_dir "$T/root"
}

# ------------------------------------------------- CVE-2019-19921 shape

# The rootfs is the attacker's, a host directory it writes in: the racer
# (on the host) swaps its /proc, a real directory, with proc-swap, a
# symlink to a fake procfs: /fake inside the rootfs, then $T/hostfake on
# the host.  Both are trees of empty files where brig would write through
# a /proc that is not a procfs: the sysctl (net.ipv4.ip_forward),
# oomScoreAdj, the LSM attributes (self/attr/exec; no LSM is enabled here,
# brig writes none), setgroups.  (No sys/fs in them: the attacker's own
# write, below, must not land in a fake file.)
#
# The fake files must stay empty; the settings must reach the real
# procfs (B's network namespace, B's init); and wherever the race put B's
# procfs (at /proc, or at the symlink's target inside the root: both are
# the attacker's directories, either is acceptable), it must carry the
# default readonlyPaths and maskedPaths: a read-only sys and a masked
# keys, mounts *on that procfs* (their parent is its mount).  The CVE's
# exploit raced exactly this: the procfs went to one place, the read-only
# bind of /proc/sys, made later by path, to another.  Then B runs, and its
# process does what the exploit did next: it writes a host-wide sysctl
# (fs.lease-break-time, harmless and put back at once; the exploit's was
# kernel.core_pattern, a host root shell at the next crash) through every
# place its procfs may be at: the host's value must not change.
#
# brig 18285a8 loses this race within seconds: check_ordinary_directory()
# looks at /proc, then resolve_target() resolves it again (the swap in
# between puts procfs at /fake), and brig_paths_readonly() and
# brig_paths_mask() resolve "/proc/sys", "/proc/keys"... afresh later: a
# swap puts the read-only bind on /fake/sys, an ordinary directory, or
# finds /proc/sys missing (the symlink to $T/hostfake dangles in the
# root) and skips it.  B's root then writes the host's sysctls.
FAKE_FILES="self/attr/exec self/attr/current self/attr/apparmor/exec thread-self/attr/exec
1/attr/exec 1/task/1/attr/exec 1/attr/apparmor/exec 1/task/1/attr/apparmor/exec
self/oom_score_adj 1/oom_score_adj self/setgroups 1/setgroups
sys/net/ipv4/ip_forward sys/kernel/core_pattern keys"
LEASE=/proc/sys/fs/lease-break-time

# make_fake DIR: the fake procfs tree in DIR.
make_fake() {
	local f
	for f in $FAKE_FILES; do
		mkdir -p "$1/$(dirname "$f")" && : >"$1/$f" && chmod 0666 "$1/$f" || return 1
	done
}

check_proc() {
	local id=$1 pid=$2 table procs mnt mp
	table=$(mounts "$pid")
	# the procfs mounts (not the binds of their subdirectories)
	procs=$(awk '$5 == "proc" && $4 == "/" { print $1 "," $3 }' <<<"$table")
	assert_ne "$procs" "" "the procfs of $id in its mount table" || diag "$table"
	for mnt in $procs; do
		mp=${mnt#*,} mnt=${mnt%%,*}
		# the proc directory is /proc or /proc-swap, as the racer goes on
		[[ "$mp" =~ ^/proc(-swap)?$ ]] || diverted "$id: its procfs at $mp"
		awk -v m="$mnt" '$2 == m && $4 == "/sys" && $6 ~ /^ro(,|$)/ { ok = 1 }
			END { exit !ok }' <<<"$table" ||
			fail "$id: its procfs at $mp has no read-only sys on it"
		awk -v m="$mnt" '$2 == m && $3 ~ /\/keys$/ { ok = 1 } END { exit !ok }' <<<"$table" ||
			fail "$id: its procfs at $mp has no mask on keys"
	done
	assert_eq "$(nsenter --net="/proc/$pid/ns/net" cat /proc/sys/net/ipv4/ip_forward)" 1 \
		"net.ipv4.ip_forward in $id"
	assert_eq "$(cat "/proc/$pid/oom_score_adj")" 432 "oom_score_adj of $id"
	assert_eq "$(find "$FAKE" -type f -size +0c)" "" "fake procfs files written"

	# the attack of the exploit, from inside
	br start "$id"
	assert_rc 0
	wait_until 10 is_status "$id" stopped || fail "$id did not stop"
	if [ "$(cat "$LEASE")" != "${SAVED[$LEASE]}" ]; then
		fail "$id wrote the host's $LEASE"
		diag "its mounts but the cgroups:"$'\n'"$(grep -v cgroup <<<"$table")"
		restore_canaries
	fi
	[ "$_tap_failed" -eq 0 ] || diag "what $id did:"$'\n'"$(cat "$T/b/rootfs/tmp/attack.out" 2>&1)"
	rm -f "$T/b/rootfs/tmp/attack.out"
}

t_proc_exchange() {
	local fake value script
	require_root
	require_cmd jq nsenter
	# shellcheck disable=SC2086 # a list of paths
	save_canaries $CANARIES $LEASE
	value=$((${SAVED[$LEASE]} == 7 ? 8 : 7))
	bundle "$T/b" || return
	# the write of the exploit, through every place B's procfs may be at
	script="for d in /proc /proc-swap /fake $T/hostfake; do
		echo $value >\$d/sys/fs/lease-break-time && echo wrote through \$d
	done >/tmp/attack.out 2>&1"
	# (its report goes to its /tmp: the root is writable)
	brig_bundle_edit "$T/b" '.process.args = ["sh", "-c", $s] | .root.readonly = false
		| .linux.sysctl = {"net.ipv4.ip_forward": "1"}
		| .process.oomScoreAdj = 432' --arg s "$script" || return
	make_fake "$T/b/rootfs/fake" && make_fake "$T/hostfake" || return

	for fake in /fake "$T/hostfake"; do
		FAKE=$fake
		[ "$fake" != /fake ] || FAKE=$T/b/rootfs/fake
		rm -f "$T/b/rootfs/proc-swap" && ln -s "$fake" "$T/b/rootfs/proc-swap" || return
		start_racer_host "$T/b/rootfs/proc" "$T/b/rootfs/proc-swap" || return
		race_loop "p${fake//\//-}-" check_proc
		stop_racer_host
		report "/proc swapped with a symlink to $fake"
		assert_eq "$(find "$FAKE" -type f -size +0c)" "" "fake procfs files written"
		if [ ! -d "$T/b/rootfs/proc" ] || [ ! -L "$T/b/rootfs/proc-swap" ]; then
			fail "proc and proc-swap not put back"
		fi
	done
	assert_canaries "after the races"
	assert_empty_dir "$T/root"
}

# ------------------------------------------------- CVE-2024-45310 shape

# A and B share the volume $T/shared; A swaps its directory a with
# alink -> $T/host (absolute), and f with flink -> ../../..(...)/$T/host
# (relative, climbing out of the volume), both a host directory.  B needs
# brig to create, each time under new names, the directories of a tmpfs
# destination /vol/a/b<i>/c, of a file bind destination /vol/f/g<i>/file
# (and the file) and of its cwd /vol/a/w<i>/d.  Followed on the host, any
# of them would appear in $T/host: it must stay empty.
check_mkdir() {
	local id=$1 pid=$2 table tmpfs file
	table=$(mounts "$pid")
	tmpfs=$(awk '$5 == "tmpfs" && $7 ~ /(^|,)size=1240k(,|$)/ { print $3 }' <<<"$table")
	file=$(awk -v r="$FILE_ROOT" '$4 == r { print $3 }' <<<"$table")
	assert_lines 1 "$tmpfs" "the tmpfs of $id in its mount table" || diag "$table"
	assert_lines 1 "$file" "the bind of the file of $id in its mount table"
	assert_empty_dir "$T/host"
	if [[ ! "$tmpfs" =~ ^/vol/(a|alink)/b[0-9]+/c$ ]] ||
		[[ ! "$file" =~ ^/vol/(f|flink)/g[0-9]+/file$ ]]; then
		diverted "$id: the tmpfs at $tmpfs, the file at $file"
	fi
}

# prepare_mkdir I: B's config for round I, with destinations never made.
prepare_mkdir() {
	brig_bundle_edit "$T/b" '.mounts = $base + [
			{destination: "/vol", type: "bind", source: $shared, options: ["rbind", "rw"]},
			{destination: "/vol/a/b\($i)/c", type: "tmpfs", source: "tmpfs",
			 options: ["size=1240k"]},
			{destination: "/vol/f/g\($i)/file", type: "bind", source: $file,
			 options: ["bind", "ro"]}]
		| .process.cwd = "/vol/a/w\($i)/d"' \
		--argjson base "$BASE_MOUNTS" --argjson i "$1" --arg shared "$T/shared" \
		--arg file "$T/file" || fail "cannot write B's config"
}

t_mkdir_exchange() {
	local up
	require_root
	require_cmd jq
	mkdir -p "$T/shared/a" "$T/shared/f" "$T/host" || return
	echo file >"$T/file"
	FILE_ROOT=$(fs_root "$T/file") || return
	ln -s "$T/host" "$T/shared/alink" || return
	up=$(realpath "$T/shared" | sed 's|[^/]*|..|g; s|^/||')
	ln -s "$up/..$T/host" "$T/shared/flink" || return
	[ "$(realpath "$T/shared/flink")" = "$(realpath "$T/host")" ] ||
		fail "flink does not lead to $T/host"
	bundle "$T/b" || return
	brig_bundle_edit "$T/b" '.process.args = ["true"]' || return
	BASE_MOUNTS=$(jq -c .mounts "$T/b/config.json")

	start_racer_ctr "$T/shared" /vol/a /vol/alink /vol/f /vol/flink || return
	race_loop m check_mkdir prepare_mkdir
	stop_racer_ctr
	report "directories made in a shared volume"
	assert_empty_dir "$T/host"
	assert_empty_dir "$T/root"
}

tap_test "CVE-2021-30465: mount destinations swapped in a shared volume stay in the rootfs" t_mount_destination_exchange
tap_test "CVE-2019-19921: a /proc swapped with a fake procfs gets nothing written, keeps its masks" t_proc_exchange
tap_test "CVE-2024-45310: directories made in a swapped shared volume stay off the host" t_mkdir_exchange
tap_done
