# shellcheck shell=bash
# tests/lib/job.sh: what the brig job test files (tests/job/options.sh and
# hostile.sh) share: the file's checks (root, jq, the subreaper's cgroups),
# its busybox rootfs ($ROOTFS, with the probe as /bin/probe), and the
# helpers that run a job and check that nothing is left.  Source it after
# tap.sh and rootfs.sh.

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"
# The job's cgroup is made under the caller's: outside the subreaper's own
# cgroups the harness could not tell a leaked cgroup from the machine's.
[ -n "${BRIG_TEST_CGROUPS:-}" ] ||
	skip_all "needs the cgroups of tests/helpers/subreaper (BRIG_TEST_CGROUPS)"

if [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
	CG=v2
else
	CG=v1
fi

# The first host uid of the jobs' id ranges: /etc/subuid's `brig` entry,
# else 2^30.
ID_START=$(awk -F: '$1 == "brig" { print $2; exit }' /etc/subuid 2>/dev/null)
: "${ID_START:=1073741824}"

brig_file_rootfs
# The probe of the system calls (probe.c) is in every job's rootfs as
# /bin/probe when it could be had.
if PROBE=$(static_helper job/probe); then
	cp "$PROBE" "$ROOTFS/bin/probe"
fi

# ----------------------------------------------------------------- helpers

# bj ARGS...: `brig --root $T/root job ARGS` (sets out, err, rc).  brig gets
# TMPDIR=$T/tmp, and in its environment a TERM and a variable of its own
# that the job must not inherit.
bj() {
	mkdir -p "$T/tmp"
	run_cmd env TMPDIR="$T/tmp" TERM=xterm BRIG_TEST_LEAK=leaked \
		"$BRIG" --root "$T/root" job "$@"
}

# job ARGS...: bj on the file's rootfs, the result in $T/result.json.
job() {
	rm -f "$T/result.json"
	bj --rootfs "$ROOTFS" --result "$T/result.json" "$@"
}

# res FIELD: the FIELD of $T/result.json, as compact JSON ("<no result>"
# when there is none).
res() {
	_res "$1"
	echo "$_res_v"
}

# _res FIELD: $_res_v = res FIELD.  A top-level field is read from all of
# them, which one jq (30 ms here) lists once for each new content of the
# file; the assertions below call it in the shell itself, where what it
# keeps lasts.
_res() {
	local json key value
	if [[ "$1" =~ ^[a-z_]+$ ]] && [ -f "$T/result.json" ]; then
		json=$(<"$T/result.json")
		if [ "$json" != "${_res_json-}" ]; then
			declare -gA _res_fields=()
			declare -g _res_json=$json
			while IFS=$'\t' read -r key value; do
				_res_fields[$key]=$value
			done < <(jq -r 'to_entries[] | "\(.key)\t\(.value | tojson)"' <<<"$json" 2>/dev/null &&
				printf '.\tok\n')
		fi
		if [ "${_res_fields[.]-}" = ok ]; then
			_res_v=${_res_fields[$1]-null}
			return
		fi
	fi
	_res_v=$(jq -c ".$1" "$T/result.json" 2>/dev/null) || _res_v="<no result>"
}

# assert_res FIELD EXPECTED (JSON text, e.g. 0, null, '"exited"')
assert_res() {
	_res "$1"
	assert_eq "$_res_v" "$2" "result .$1"
}

# assert_res_int FIELD MIN [MAX]: an integer in [MIN, MAX].
assert_res_int() {
	local v
	_res "$1"
	v=$_res_v
	if ! [[ "$v" =~ ^[0-9]+$ ]]; then
		fail "result .$1: expected an integer, got $(_show "$v")"
		return 1
	fi
	[ "$v" -ge "$2" ] || fail "result .$1: expected at least $2, got $v"
	[ -z "${3:-}" ] || [ "$v" -le "$3" ] || fail "result .$1: expected at most $3, got $v"
}

# assert_clean [WHEN]: no job is left: `brig list` is empty, nothing in
# $T/root but jobs/ and brig's own bookkeeping (dot-directories: the id
# range locks in jobs/.ids, the seccomp cache), no temporary file in
# $T/tmp, no cgroup directory, no stray process.
assert_clean() {
	local when=${1:+ $1}
	assert_eq "$("$BRIG" --root "$T/root" list -q 2>&1)" "" "brig list -q$when"
	assert_eq "$(find "$T/root/jobs" -mindepth 1 -maxdepth 1 ! -name '.*' 2>/dev/null)" "" \
		"entries of $T/root/jobs$when"
	assert_eq "$(find "$T/root" -mindepth 1 -maxdepth 1 ! -name '.*' ! -name jobs 2>/dev/null)" "" \
		"entries of $T/root$when"
	assert_empty_dir "$T/tmp"
	assert_eq "$(cgroups_left)" "" "cgroup directories left$when"
	assert_eq "$(strays)" "" "processes left$when"
}

# tmpfs_dir DIR SIZE: a tmpfs of SIZE on DIR (the test's own mount, under
# $T), unmounted when the test ends.
tmpfs_dir() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2,mode=0755" none "$1" || {
		fail "mount a tmpfs on $1"
		return 1
	}
	defer umount -l "$1"
}

# proc_field FILE KEY: the value after KEY ("rchar:", "pos:") in FILE of
# /proc, 0 when it is gone; builtins only, as it is polled.
proc_field() {
	local k v n=0
	while read -r k v; do
		[ "$k" = "$2" ] && n=$v
	done 2>/dev/null <"$1"
	echo "$n"
}

# read_bytes PID: the bytes PID has read (/proc/PID/io's rchar).
read_bytes() {
	proc_field "/proc/$1/io" rchar:
}

# need_probe: skip unless the rootfs has /bin/probe.
need_probe() {
	[ -x "$ROOTFS/bin/probe" ] || skip "needs a static tests/job/probe (gcc -static)"
}

# bg_job ARGS...: `brig job` in the background (BG_PID is brig's pid) on the
# file's rootfs, with $T/s (mode 1777) bind-mounted read-write at /s for the
# job to talk to the test; its stdout and stderr in $T/bg.out and
# $T/bg.err, the result in $T/result.json.  The job is expected to write
# its uid_map to /s/map and then create /s/ready (see job_started).
bg_job() {
	mkdir -p "$T/s" "$T/tmp"
	chmod 1777 "$T/s"
	rm -f "$T/result.json"
	TMPDIR=$T/tmp "$BRIG" --root "$T/root" job --rootfs "$ROOTFS" \
		--result "$T/result.json" --mount "$T/s:/s:rw" "$@" \
		</dev/null >"$T/bg.out" 2>"$T/bg.err" &
	BG_PID=$!
	defer kill_wait "$BG_PID"
}

# The shell line a bg_job runs once its processes are there: a job that
# puts one in the background does so first ("sleep 100 & $READY; ..."),
# so that the test that counts the job's processes when it is ready sees
# them all (a loaded run saw the shell alone).
# shellcheck disable=SC2016
# shellcheck disable=SC2034 # for the files that source this
READY='cat /proc/self/uid_map >/s/map && touch /s/ready'

# job_started: wait (10 s) for /s/ready; set BASE (the job's first host
# uid, from its uid_map) and JOB_PID (a host pid of the job's).
job_started() {
	wait_for "$T/s/ready" 100 || {
		fail "the job did not start: $(cat "$T/bg.err" 2>/dev/null)"
		return 1
	}
	BASE=$(awk '$1 == 0 { print $2 }' "$T/s/map")
	assert_match "$BASE" '^[0-9]+$' "the job's uid_map: $(cat "$T/s/map")" || return
	JOB_PID=$(uid_pids "$BASE" | head -n 1)
	[ -n "$JOB_PID" ] || {
		fail "no host process with a uid in [$BASE, $BASE+65536)"
		return 1
	}
}

# uid_pids BASE: the host pids whose real uid is in [BASE, BASE+65536),
# the job's id range (only builtins: it runs over every process).
uid_pids() {
	local f k v
	for f in /proc/[0-9]*/status; do
		while read -r k v _; do
			[ "$k" = Uid: ] || continue
			if [ "$v" -ge "$1" ] && [ "$v" -lt $(($1 + 65536)) ]; then
				f=${f#/proc/}
				echo "${f%/status}"
			fi
			break
		done 2>/dev/null <"$f"
	done
}

# cg_dir PID CONTROLLER: PID's cgroup directory for CONTROLLER (v1), or its
# cgroup2 directory on a v2 host.
cg_dir() {
	local ctrl path
	if [ "$CG" = v2 ]; then
		sed -n 's|^0::|/sys/fs/cgroup|p' "/proc/$1/cgroup"
		return
	fi
	while IFS=: read -r _ ctrl path; do
		case ",$ctrl," in
		*",$2,"*)
			echo "/sys/fs/cgroup/${ctrl%%,*}$path"
			return
			;;
		esac
	done <"/proc/$1/cgroup"
}

# cg_read PID CONTROLLER V1-FILE V2-FILE: a file of PID's cgroup.
cg_read() {
	local d
	d=$(cg_dir "$1" "$2")
	if [ "$CG" = v2 ]; then
		cat "$d/$4" 2>&1
	else
		cat "$d/$3" 2>&1
	fi
}
