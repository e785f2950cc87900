#!/bin/bash
# brig pool and brig job --pool: warm pools of ready sandboxes.  A pool is
# made (create), listed (list, text and JSON), claimed from (job --pool:
# the same job as a cold `brig job`, with "pool": "hit" or "miss" in its
# result), refilled in the background after each claim, repaired (gc) and
# removed (destroy).  Bad input is refused (status 125, one `brig: ` line)
# with nothing left; a sandbox is never used twice, even by 64 callers at
# once; a claimer SIGKILLed mid-job, a `pool create` SIGKILLed half-way,
# a member whose init dies while it waits and a destroy under running
# claims leave nothing once gc or destroy has run; and pools work for a
# brig in a mount namespace of its own.
#
# Every test has its own --root "$T/root" (the pools live in
# $T/root/pools/NAME, their members are containers of that root whose ids
# start with NAME-) on one busybox rootfs for the whole file ($ROOTFS),
# with TMPDIR=$T/tmp.  Every test destroys its pools and then asserts that
# nothing is left: `brig list` is empty, no entry under $T/root/pools/ or
# $T/root/jobs/, no temporary file, no cgroup directory, no process; the
# harness fails a test that leaves a process, a mount or a cgroup
# directory.  The helpers are those of options.sh and hostile.sh.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"
# The members' cgroups are made under the caller's: outside the
# subreaper's own cgroups the harness could not tell a leaked cgroup from
# the machine's.
[ -n "${BRIG_TEST_CGROUPS:-}" ] ||
	skip_all "needs the cgroups of tests/helpers/subreaper (BRIG_TEST_CGROUPS)"

if [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
	CG=v2
else
	CG=v1
fi

brig_file_rootfs

# ----------------------------------------------------------------- helpers

# bp ARGS...: `brig --root $T/root pool ARGS` (sets out, err, rc).
bp() {
	mkdir -p "$T/tmp"
	run_cmd env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" pool "$@"
}

# bj ARGS...: `brig --root $T/root job ARGS` (sets out, err, rc), with
# TMPDIR=$T/tmp.
bj() {
	mkdir -p "$T/tmp"
	run_cmd env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" job "$@"
}

# pjob POOL ARGS...: `job --pool POOL ARGS`, the result in $T/result.json.
pjob() {
	local pool=$1
	shift
	rm -f "$T/result.json"
	bj --pool "$pool" --result "$T/result.json" "$@"
}

# mkpool NAME ARGS...: `pool create NAME ARGS` on the file's rootfs, which
# must succeed silently; the pool is destroyed when the test ends (bounded:
# a destroy that hangs must not hang the file), whatever happened.
mkpool() {
	local name=$1
	shift
	defer timeout -k 5 30 "$BRIG" --root "$T/root" pool destroy "$name"
	bp create "$name" --rootfs "$ROOTFS" "$@"
	assert_eq "$rc" 0 "exit status of pool create $name $* (stderr: $(_show "$err"))" || return 1
	assert_eq "$out$err" "" "output of pool create $name"
}

# rmpool NAME: `pool destroy NAME`, which must succeed silently.
rmpool() {
	bp destroy "$1"
	assert_eq "$rc" 0 "exit status of pool destroy $1 (stderr: $(_show "$err"))"
	assert_eq "$out$err" "" "output of pool destroy $1"
}

# pool_field NAME FIELD: FIELD of pool NAME in `pool list --format json`
# (compact JSON; empty when there is no such pool).
pool_field() {
	"$BRIG" --root "$T/root" pool list --format json 2>/dev/null |
		jq -c --arg n "$1" ".[] | select(.name == \$n) | .$2" 2>/dev/null
}

ready_is() { # NAME N
	[ "$(pool_field "$1" ready)" = "$2" ]
}

# wait_ready NAME N [SECS]: until pool NAME has N ready members (default
# 10 s: the refill of a claim is bounded); fails the test otherwise.
wait_ready() {
	local t0 t1
	t0=$(date +%s%N)
	if ! wait_until "${3:-10}" ready_is "$1" "$2"; then
		fail "pool $1: ready $(pool_field "$1" ready), creating $(pool_field "$1" creating)" \
			"after ${3:-10} s, expected ready $2"
		return 1
	fi
	t1=$(date +%s%N)
	REFILL_MS=$(((t1 - t0) / 1000000))
}

# members NAME: the ids of pool NAME's members (containers NAME-*), sorted.
members() {
	"$BRIG" --root "$T/root" list -q 2>/dev/null | grep "^$1-" | sort
}

# init_pid ID: the pid of container ID's init (brig state).
init_pid() {
	"$BRIG" --root "$T/root" state "$1" 2>/dev/null | jq -r .pid 2>/dev/null
}

# res FIELD: the FIELD of $T/result.json, as compact JSON ("<no result>"
# when there is none).
res() {
	jq -c ".$1" "$T/result.json" 2>/dev/null || echo "<no result>"
}

# assert_res FIELD EXPECTED (JSON text, e.g. 0, null, '"exited"')
assert_res() {
	assert_eq "$(res "$1")" "$2" "result .$1"
}

# assert_res_int FIELD MIN [MAX]: an integer in [MIN, MAX].
assert_res_int() {
	local v
	v=$(res "$1")
	if ! [[ "$v" =~ ^[0-9]+$ ]]; then
		fail "result .$1: expected an integer, got $(_show "$v")"
		return 1
	fi
	[ "$v" -ge "$2" ] || fail "result .$1: expected at least $2, got $v"
	[ -z "${3:-}" ] || [ "$v" -le "$3" ] || fail "result .$1: expected at most $3, got $v"
}

# assert_hit POOL: the job of $T/result.json ran in a member of POOL:
# "pool": "hit", and its id is a member's (POOL-...).
assert_hit() {
	assert_res pool '"hit"'
	assert_match "$(res id)" "^\"$1-" "result .id of a hit"
}

# assert_clean [WHEN]: no pool and no job is left: `brig list` is empty,
# `pool list --format json` is [], nothing under $T/root/pools/ and
# $T/root/jobs/ and nothing else in $T/root but brig's own bookkeeping
# (dot-directories), no temporary file in $T/tmp, no cgroup directory, no
# stray process.
assert_clean() {
	local when=${1:+ $1}
	assert_eq "$("$BRIG" --root "$T/root" list -q 2>&1)" "" "brig list -q$when"
	assert_eq "$("$BRIG" --root "$T/root" pool list --format json 2>&1 | jq -c . 2>&1)" "[]" \
		"pool list --format json$when"
	assert_eq "$(find "$T/root/pools" -mindepth 1 -maxdepth 1 ! -name '.*' 2>/dev/null)" "" \
		"entries of $T/root/pools$when"
	assert_eq "$(find "$T/root/jobs" -mindepth 1 -maxdepth 1 ! -name '.*' 2>/dev/null)" "" \
		"entries of $T/root/jobs$when"
	assert_eq "$(find "$T/root" -mindepth 1 -maxdepth 1 ! -name '.*' ! -name jobs ! -name pools 2>/dev/null)" "" \
		"entries of $T/root$when"
	assert_empty_dir "$T/tmp"
	assert_eq "$(cgroups_left)" "" "cgroup directories left$when"
	assert_eq "$(strays)" "" "processes left$when"
}

# The shell line a held job runs first: its uid_map in /s/map.$I, then
# /s/ready.$I (the pool's --mount of $T/s at /s, $I from --env).
# shellcheck disable=SC2016
READY='cat /proc/self/uid_map >/s/map.$I && touch /s/ready.$I'

# shared_dir: $T/s, mode 1777, for the pools' `--mount $T/s:/s:rw`.
shared_dir() {
	mkdir -p "$T/s" "$T/tmp"
	chmod 1777 "$T/s"
}

# bg_pjob POOL I ARGS...: `job --pool POOL --env I=I ARGS` in the
# background (BG[I] is brig's pid), its stdout, stderr and result in
# $T/bg.I.{out,err,json}.
declare -a BG
bg_pjob() {
	local pool=$1 i=$2
	shift 2
	rm -f "$T/bg.$i.json"
	TMPDIR=$T/tmp "$BRIG" --root "$T/root" job --pool "$pool" --env "I=$i" \
		--result "$T/bg.$i.json" "$@" </dev/null >"$T/bg.$i.out" 2>"$T/bg.$i.err" &
	BG[i]=$!
	defer kill_wait "${BG[i]}"
}

# job_started I: wait (10 s) for /s/ready.I; set BASE (the job's first
# host uid, from its uid_map) and JOB_PID (a host pid of the job's).
job_started() {
	wait_for "$T/s/ready.$1" 100 || {
		fail "job $1 did not start: $(cat "$T/bg.$1.err" 2>/dev/null)"
		return 1
	}
	BASE=$(awk '$1 == 0 { print $2 }' "$T/s/map.$1")
	assert_match "$BASE" '^[0-9]+$' "job $1's uid_map: $(cat "$T/s/map.$1")" || return
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
	local n ctrl path
	if [ "$CG" = v2 ]; then
		sed -n 's|^0::|/sys/fs/cgroup|p' "/proc/$1/cgroup"
		return
	fi
	while IFS=: read -r n ctrl path; do
		case ",$ctrl," in
		*",$2,"*)
			echo "/sys/fs/cgroup/${ctrl%%,*}$path"
			return
			;;
		esac
	done <"/proc/$1/cgroup"
}

# own_cgroups PID: the cgroup directories of PID (a member's init or a
# job's process) that are its own, not those of this shell.
own_cgroups() {
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
	done <"/proc/$1/cgroup" 2>/dev/null
}

# all_dead PID...: none of the PIDs is alive.
all_dead() {
	local p
	for p in "$@"; do
		alive "$p" && return 1
	done
	return 0
}

# assert_dead WHAT PID...: the PIDs are gone.
assert_dead() {
	local what=$1 p left=
	shift
	for p in "$@"; do
		alive "$p" && left="$left $p($(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null))"
	done
	assert_eq "$left" "" "processes alive $what"
}

# assert_gone WHAT DIR...: the directories (cgroups, state) are gone.
assert_gone() {
	local what=$1 d
	shift
	for d in "$@"; do
		[ ! -e "$d" ] || fail "$what: $d is still there"
	done
}

# whole_pool NAME: nothing of pool NAME is being made, and every member
# is whole (created, its init alive) and counted ready.
whole_pool() {
	local m n=0
	[ "$(pool_field "$1" creating)" = 0 ] || return 1
	for m in $(members "$1"); do
		n=$((n + 1))
		[ "$("$BRIG" --root "$T/root" state "$m" 2>/dev/null | jq -r .status 2>/dev/null)" = created ] &&
			alive "$(init_pid "$m")" || return 1
	done
	[ "$(pool_field "$1" ready)" = "$n" ]
}

# pool_state NAME: pool NAME's list entry and its members' statuses.
pool_state() {
	local m
	echo "$("$BRIG" --root "$T/root" pool list --format json 2>&1 | jq -c --arg n "$1" '.[] | select(.name == $n) | del(.options)' 2>&1);"
	for m in $(members "$1"); do
		echo " $m $("$BRIG" --root "$T/root" state "$m" 2>&1 | jq -r .status 2>&1) pid $(init_pid "$m")"
	done | tr '\n' ' '
}

# no_claims NAME: no member of pool NAME is claimed (its claimed/ is
# empty; a pool with no such directory fails).
no_claims() {
	[ -d "$T/root/pools/$1/claimed" ] && [ -z "$(ls -A "$T/root/pools/$1/claimed")" ]
}

# followed NAME: wait (10 s) until no member of pool NAME is claimed: the
# followers of its claims have removed their members (container, state,
# cgroups, entries), which they do once the claimer has returned; FOLLOW_MS
# says how long it took.
followed() {
	local t0 t1
	t0=$(date +%s%N)
	wait_until 10 no_claims "$1" || {
		fail "pool $1: claimed members left after 10 s: $(ls "$T/root/pools/$1/claimed" | tr '\n' ' ')"
		return 1
	}
	t1=$(date +%s%N)
	FOLLOW_MS=$(((t1 - t0) / 1000000))
}

# names ENV-OUTPUT: the variable names of `env` output, sorted, one a line.
names() {
	sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p' <<<"$1" | sort
}

# ----------------------------------------------------- create, list, destroy

# Two pools: create prints nothing and returns with every member ready (a
# created container whose init waits, shaped by the pool's options: its
# memory limit is the pool's --memory); list in text (NAME SIZE READY
# CREATING) and JSON (with the options as given); destroy removes every
# member (container, init, cgroups) and the pool's directory, and only
# that pool's; destroying a missing pool is one line and a failure.
t_basics() {
	local a b id pid line cgs_a=() pids_a=() opts
	bp list
	assert_rc 0
	assert_eq "$(grep -v '^NAME' <<<"$out")" "" "pool list without pools"
	bp list --format json
	assert_rc 0
	assert_eq "$(jq -c . <<<"$out" 2>&1)" "[]" "pool list --format json without pools"

	mkpool alpha --size 2 --memory 64M || return
	mkpool beta --size 1 --pids 32 || return
	# create made the sandboxes "now": ready when it returns
	bp list --format json
	assert_rc 0
	assert_json "$out" "pool list --format json" || return
	assert_eq "$(jq -c '[.[] | .name] | sort' <<<"$out")" '["alpha","beta"]' "the pools' names"
	assert_eq "$(jq -c '.[] | select(.name == "alpha") | [.size, .ready, .creating]' <<<"$out")" \
		"[2,2,0]" "alpha's size, ready, creating"
	assert_eq "$(jq -c '.[] | select(.name == "beta") | [.size, .ready, .creating]' <<<"$out")" \
		"[1,1,0]" "beta's size, ready, creating"
	assert_eq "$(jq -c '[.[] | keys] | unique' <<<"$out")" '[["creating","name","options","ready","size"]]' \
		"the keys of a pool object"
	opts=$(jq -r '.[] | select(.name == "alpha") | .options | join(" ")' <<<"$out")
	assert_contains "$opts" "--memory 64M" "alpha's options"
	assert_contains "$opts" "$ROOTFS" "alpha's options"
	assert_contains "$(jq -r '.[] | select(.name == "beta") | .options | join(" ")' <<<"$out")" \
		"--pids 32" "beta's options"
	assert_eq "$(jq -c '[.[] | .options | type] | unique' <<<"$out")" '["array"]' "type of .options"

	bp list
	assert_rc 0
	line=$(grep -v '^NAME' <<<"$out")
	assert_eq "$(awk '{ print $1, $2, $3, $4 }' <<<"$line" | sort)" "alpha 2 2 0
beta 1 1 0" "pool list (text): $(_show "$out")"
	if grep -q '^NAME' <<<"$out"; then
		assert_eq "$(grep '^NAME' <<<"$out" | awk '{ print $1, $2, $3, $4 }')" \
			"NAME SIZE READY CREATING" "the header of pool list"
	fi

	a=$(members alpha)
	b=$(members beta)
	assert_eq "$(grep -c . <<<"$a")" 2 "alpha's members in brig list: $(_show "$a")"
	assert_eq "$(grep -c . <<<"$b")" 1 "beta's members in brig list: $(_show "$b")"
	[ -d "$T/root/pools/alpha" ] || fail "no $T/root/pools/alpha"
	for id in $a; do
		assert_eq "$("$BRIG" --root "$T/root" state "$id" 2>&1 | jq -r .status 2>&1)" created \
			"status of member $id"
		pid=$(init_pid "$id")
		alive "$pid" || {
			fail "member $id: init $(_show "$pid") is not alive"
			continue
		}
		pids_a+=("$pid")
		mapfile -t -O "${#cgs_a[@]}" cgs_a < <(own_cgroups "$pid")
		assert_eq "$(cat "$(cg_dir "$pid" memory)/memory.limit_in_bytes" \
			"$(cg_dir "$pid" memory)/memory.max" 2>/dev/null)" 67108864 "memory limit of member $id"
	done
	assert_ne "${#cgs_a[@]}" 0 "alpha's members' cgroups"

	rmpool alpha
	assert_eq "$(members alpha)" "" "alpha's members after its destroy"
	assert_eq "$(members beta)" "$b" "beta's members after alpha's destroy"
	assert_no_file "$T/root/pools/alpha"
	assert_dead "of alpha's members after its destroy" "${pids_a[@]}"
	assert_gone "alpha's members' cgroups after its destroy" "${cgs_a[@]}"
	for id in $a; do
		assert_no_file "$T/root/$id"
	done
	assert_eq "$(pool_field alpha size)" "" "alpha in pool list after its destroy"
	assert_eq "$(pool_field beta ready)" 1 "beta's ready after alpha's destroy"

	rmpool beta
	bp destroy beta
	assert_ne "$rc" 0 "exit status of pool destroy of a missing pool"
	assert_lines 1 "$err" "stderr of pool destroy of a missing pool"
	assert_match "$err" "^brig: " "stderr of pool destroy of a missing pool"
	assert_clean
}

# bad_create RE ARGS...: `pool create ARGS` is refused with status 125 and
# one `brig: ` line matching RE, and nothing is left: no pool, member,
# cgroup, mount or process.
bad_create() {
	local re=$1
	shift
	bp create "$@"
	assert_eq "$rc" 125 "exit status of pool create $* (stderr: $(_show "$err"))"
	assert_lines 1 "$err" "stderr of pool create $*"
	assert_match "$err" "^brig: .*$re" "stderr of pool create $*"
	assert_eq "$out" "" "stdout of pool create $*"
	assert_clean "after pool create $*"
}

# Bad input, and options the host cannot honour (a memory limit too small
# for the init, a --mount source that is not there): found while making
# the members at the latest, with every member made so far removed.
t_bad_create() {
	touch "$T/file"
	bad_create ''
	bad_create '' --size 2 --rootfs "$ROOTFS"
	bad_create --size P --size 0 --rootfs "$ROOTFS"
	bad_create --size P --size junk --rootfs "$ROOTFS"
	bad_create --size P --size -1 --rootfs "$ROOTFS"
	bad_create --size P --size "" --rootfs "$ROOTFS"
	bad_create --rootfs P --size 2 --rootfs "$T/nonexistent"
	bad_create --rootfs P --size 2 --rootfs "$T/file"
	bad_create --bogus P --size 2 --rootfs "$ROOTFS" --bogus
	# a name that would be a path outside the pools' directory
	bad_create '' ../escape --size 1 --rootfs "$ROOTFS"
	assert_no_file "$T/root/escape"
	bad_create '' a/b --size 1 --rootfs "$ROOTFS"
	# what only making a member shows: no pool of half its members is left
	bad_create '' P --size 3 --rootfs "$ROOTFS" --memory 1
	bad_create '' P --size 3 --rootfs "$ROOTFS" --mount "$T/nonexistent:/x"
	# a claim from a pool that does not exist has no options to run with
	bj --pool nope -- echo RAN
	assert_eq "$rc" 125 "exit status of job --pool nope (stderr: $(_show "$err"))"
	assert_lines 1 "$err" "stderr of job --pool nope"
	assert_not_contains "$out" RAN "stdout of job --pool nope"
	assert_clean
}

# A second create of a pool's name fails and leaves the first as it was.
t_duplicate() {
	local m
	mkpool P --size 1 || return
	m=$(members P)
	bp create P --size 2 --rootfs "$ROOTFS"
	assert_eq "$rc" 125 "exit status of a duplicate create (stderr: $(_show "$err"))"
	assert_lines 1 "$err" "stderr of a duplicate create"
	assert_match "$err" "^brig: " "stderr of a duplicate create"
	assert_eq "$(pool_field P size),$(pool_field P ready)" "1,1" "the pool's size,ready after the duplicate"
	assert_eq "$(members P)" "$m" "the members after the duplicate"
	rmpool P
	assert_clean
}

# ------------------------------------------------------------ job --pool

# A claimed job: its stdout, stderr and exit status as a cold job's; the
# same result fields as a cold job's plus "pool": "hit"; its id is a
# member's, and that member is never handed out again.  A signal, a
# command that cannot run and --result - follow the rules of brig job.
t_job() {
	local before after id cold_keys t0 t1
	bj --rootfs "$ROOTFS" --result "$T/cold.json" -- true
	assert_rc 0
	cold_keys=$(jq -c 'keys' "$T/cold.json" 2>&1)

	mkpool P --size 2 || return
	before=$(members P)
	pjob P -- sh -c 'head -c 100000 /dev/zero >/tmp/f; echo out; echo errr >&2; exit 3'
	assert_rc 3
	assert_eq "$out" "out" "stdout"
	assert_eq "$err" "errr" "stderr"
	assert_json "$(cat "$T/result.json" 2>&1)" "the result" || return
	assert_hit P
	assert_eq "$(jq -c 'del(.pool) | keys' "$T/result.json")" "$cold_keys" "the result's fields but pool" ||
		diag "the result: $(cat "$T/result.json")"
	assert_res exit_code 3
	assert_res signal null
	assert_res reason '"exited"'
	assert_res error null
	assert_res timed_out false
	assert_res oom_killed false
	assert_res stdout_bytes 4
	assert_res stderr_bytes 5
	assert_res_int wall_ms 0 60000
	assert_res_int writable_used_bytes 100000
	id=$(jq -r .id "$T/result.json")
	assert_contains "$before" "$id" "the members before the claim ($id)"
	followed P || return
	diag "the member removed ${FOLLOW_MS} ms after brig returned"
	after=$(members P)
	assert_not_contains "$after" "$id" "the members after the claim"
	assert_no_file "$T/root/$id"

	wait_ready P 2
	# shellcheck disable=SC2016
	pjob P -- sh -c 'kill -9 $$'
	assert_rc 137
	assert_hit P
	assert_res signal '"SIGKILL"'
	assert_res exit_code null
	assert_res reason '"signaled"'
	assert_ne "$(res id)" "\"$id\"" "the id of the next claim"

	wait_ready P 2
	pjob P -- /no/such/cmd
	assert_rc 125
	assert_lines 1 "$err" "stderr"
	assert_match "$err" '^brig: .*/no/such/cmd' "stderr"
	assert_res reason '"error"'

	wait_ready P 2
	bj --pool P --result - -- sh -c 'echo job-out'
	assert_rc 0
	assert_json "$out" "brig's stdout with --result -" || return
	assert_eq "$(jq -r .pool <<<"$out")" hit "pool with --result -"
	assert_contains "$err" "job-out" "brig's stderr with --result -"
	# what the job leaves running dies with it, as under a cold job's pid 1:
	# brig returns at once, not when the sleep would end
	wait_ready P 2
	t0=$(date +%s%N)
	pjob P -- sh -c 'sleep 3171 & echo bg'
	t1=$(date +%s%N)
	assert_rc 0
	assert_eq "$out" bg "stdout of a job that leaves sleep behind"
	[ $(((t1 - t0) / 1000000)) -lt 5000 ] ||
		fail "brig returned $(((t1 - t0) / 1000000)) ms after a job that left sleep 3171 behind"
	assert_eq "$(pgrep -x -f 'sleep 3171' 2>/dev/null)" "" "the job's sleep after brig returned"

	# destroyed at once, while the claims' refill may still be running
	rmpool P
	assert_clean
}

# The per-job options on a pooled job: --env, --cwd, --stdin (FILE and
# -), --stdout/--stderr, --output-limit, --copy-in, --export.
t_job_options() {
	local n
	mkpool P --size 2 || return

	pjob P --env A=1 --env 'B=x y' -- env
	assert_rc 0
	assert_hit P
	assert_eq "$(names "$out" | tr '\n' ' ')" "A B HOME PATH " "the job's variables"
	assert_contains "$out" "B=x y" "env"

	wait_ready P 2
	pjob P --cwd /etc -- pwd
	assert_rc 0
	assert_eq "$out" /etc "pwd with --cwd /etc"

	wait_ready P 2
	printf 'line1\nline2 \001\002 no newline' >"$T/in"
	pjob P --stdin "$T/in" -- cat
	assert_rc 0
	cmp -s "$out_file" "$T/in" || fail "stdout of cat with --stdin FILE: $(_show "$out")"

	wait_ready P 2
	run_cmd bash -c 'cat "$0" | env TMPDIR="$1/tmp" "$2" --root "$1/root" job \
		--pool P -- cat' "$T/in" "$T" "$BRIG"
	assert_rc 0
	assert_eq "$out" "" "stdout of cat without --stdin (/dev/null)"
	wait_ready P 2
	run_cmd bash -c 'cat "$0" | env TMPDIR="$1/tmp" "$2" --root "$1/root" job \
		--pool P --stdin - -- cat' "$T/in" "$T" "$BRIG"
	assert_rc 0
	cmp -s "$out_file" "$T/in" || fail "stdout of cat with --stdin -: $(_show "$out")"

	wait_ready P 2
	pjob P --stdout "$T/o" --stderr "$T/e" -- sh -c 'echo to-out; printf to-err >&2'
	assert_rc 0
	assert_eq "$out$err" "" "brig's output with --stdout and --stderr"
	assert_eq "$(cat "$T/o" 2>&1),$(cat "$T/e" 2>&1)" "to-out,to-err" "--stdout, --stderr files"

	wait_ready P 2
	for ((n = 0; n < 300; n++)); do echo "line $n"; done >"$T/lines"
	pjob P --copy-in "$T/lines:/data/lines" --output-limit 100 -- cat /data/lines
	assert_rc 0
	assert_hit P
	assert_res stdout_bytes 2590
	assert_res stdout_dropped_bytes 2490
	assert_eq "$(grep -c '^\[brig: 2490 bytes dropped\]$' "$out_file")" 1 "marker lines on stdout"
	assert_eq "$(head -n 1 "$out_file")" "line 0" "the first line kept"

	wait_ready P 2
	echo copied >"$T/f"
	mkdir -p "$T/exp"
	pjob P --copy-in "$T/f:/data/in.txt" --export "$T/exp" -- sh -c 'cat /data/in.txt; echo a >/tmp/w'
	assert_rc 0
	assert_hit P
	assert_eq "$out" copied "a file copied in"
	assert_eq "$(cat "$T/exp/tmp/w" 2>&1)" a "exported /tmp/w"

	# as a cold job's: the files copied in, and the directories made for
	# them, are the job's user's; a missing --cwd is made
	wait_ready P 2
	pjob P --copy-in "$T/f:/data/in.txt" --cwd /new/dir -- sh -c '
		pwd; stat -c "%n %u:%g" /data /data/in.txt
		echo changed >>/data/in.txt && echo "append ok"'
	assert_rc 0
	assert_hit P
	assert_eq "$out" "/new/dir
/data 0:0
/data/in.txt 0:0
append ok" "--cwd (missing), --copy-in: pwd, owners, append"
	rmpool P
	assert_clean
}

# The pool's shaping options are every claimed job's: --user, --network
# none, --tmpfs, --mount, --pids (read from the job's cgroup on the host).
t_pool_options() {
	shared_dir
	echo host-data >"$T/s/in"
	chmod 0644 "$T/s/in"
	mkpool P --size 1 --user 1000:2000 --network none --tmpfs /scratch:1M \
		--mount "$T/s:/s:rw" --pids 20 || return
	bg_pjob P 1 -- sh -c "$READY"'; id -u; id -g; cat /s/in
		echo "lo $(cat /sys/class/net/lo/flags)"
		awk "\$2 == \"/scratch\" { print \$2, \$3 }" /proc/mounts
		i=0; while [ ! -e /s/go ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done'
	job_started 1 || return
	assert_eq "$(cat "$(cg_dir "$JOB_PID" pids)/pids.max" 2>&1)" 20 "pids.max of the job's cgroup"
	touch "$T/s/go"
	wait_exit "${BG[1]}" 20
	assert_eq "$rc" 0 "exit status (stderr: $(cat "$T/bg.1.err"))"
	assert_eq "$(cat "$T/bg.1.out")" "1000
2000
host-data
lo 0x8
/scratch tmpfs" "the job's user, --mount, lo (down), --tmpfs"
	assert_eq "$(jq -r .pool "$T/bg.1.json" 2>&1)" hit "result .pool"
	rmpool P
	assert_clean
}

# --timeout on a pooled job: `sleep 100 &` and a busy loop end with 124,
# reason timeout, within 100 ms of the deadline (the job's wall_ms), and
# brig returns within 100 ms of that job's time and what a pooled `true`
# costs it; every process of the job is gone when brig returns, and its
# cgroups once the claim's follower has run.  (Against the deadline alone,
# brig's own start and end under a sanitizer ate the 100 ms twice.)
t_timeout() {
	local t0 t1 base_ms elapsed wall dog pids cgs
	shared_dir
	mkpool P --size 1 --mount "$T/s:/s:rw" || return
	t0=$(date +%s%N)
	pjob P -- true
	t1=$(date +%s%N)
	assert_rc 0
	base_ms=$(((t1 - t0) / 1000000))

	wait_ready P 1
	t0=$(date +%s%N)
	bg_pjob P 1 --timeout 1s -- sh -c "sleep 100 & $READY; while :; do :; done"
	job_started 1 || return
	pids=$(uid_pids "$BASE")
	cgs=$(own_cgroups "$JOB_PID")
	# brig's end, to the millisecond (wait_exit polls): a watchdog kills
	# it if it is still there after 30 s
	(
		trap 'kill "$s"; exit' TERM
		sleep 30 &
		s=$!
		wait "$s" && kill -KILL "${BG[1]}" 2>/dev/null
	) &
	dog=$!
	wait "${BG[1]}"
	rc=$?
	t1=$(date +%s%N)
	kill "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	elapsed=$(((t1 - t0) / 1000000))
	wall=$(jq .wall_ms "$T/bg.1.json" 2>/dev/null)
	[[ "$wall" =~ ^[0-9]+$ ]] || wall=1000
	# shellcheck disable=SC2086 # (lists of pids and directories)
	{
		assert_dead "when brig returned" $pids
		followed P
		assert_gone "the job's cgroups once its follower ran" $cgs
	}
	diag "brig ran ${elapsed} ms (a pooled job of true: ${base_ms} ms); wall_ms $(jq .wall_ms "$T/bg.1.json" 2>&1)"
	assert_eq "$rc" 124 "exit status (stderr: $(cat "$T/bg.1.err"))"
	cp "$T/bg.1.json" "$T/result.json" 2>/dev/null
	assert_res pool '"hit"'
	assert_res reason '"timeout"'
	assert_res timed_out true
	assert_res_int wall_ms 1000 1100
	[ "$elapsed" -le $((base_ms + wall + 100)) ] ||
		fail "brig returned after $elapsed ms: more than 100 ms past the job's $wall ms and the $base_ms ms of a pooled true"
	[ "$(wc -w <<<"$pids")" -ge 2 ] ||
		fail "the job's processes seen: $(_show "$pids") (expected the shell and sleep)"
	rmpool P
	assert_clean
}

# A pool with no ready member: the claim runs a cold job with the pool's
# options ("pool": "miss"), never an error.  Four claims at once on a
# pool of one: one member for them, and a refill takes longer than
# starting brig.
t_miss() {
	local i hits=0 misses=0 p
	shared_dir
	echo pool-mount >"$T/s/marker"
	chmod 0644 "$T/s/marker"
	mkpool P --size 1 --mount "$T/s:/s:rw" || return
	for i in 1 2 3 4; do
		bg_pjob P "$i" -- cat /s/marker
	done
	for i in 1 2 3 4; do
		wait_exit "${BG[i]}" 30
		assert_eq "$rc" 0 "exit status of claim $i (stderr: $(cat "$T/bg.$i.err"))"
		assert_eq "$(cat "$T/bg.$i.out")" pool-mount "stdout of claim $i (the pool's --mount)"
		p=$(jq -r .pool "$T/bg.$i.json" 2>&1)
		case $p in
		hit) hits=$((hits + 1)) ;;
		miss) misses=$((misses + 1)) ;;
		*) fail "result .pool of claim $i: $(_show "$p")" ;;
		esac
		assert_eq "$(jq -r .reason "$T/bg.$i.json" 2>&1)" exited "result .reason of claim $i"
	done
	diag "4 claims on a pool of 1: $hits hits, $misses misses"
	[ "$hits" -ge 1 ] || fail "no claim found the ready member"
	[ "$misses" -ge 1 ] || fail "no miss: 4 claims at once were served by a pool of 1"
	assert_eq "$(jq -r .id "$T"/bg.*.json | sort -u | grep -c .)" 4 "distinct ids of the 4 claims"
	wait_ready P 1
	rmpool P
	assert_clean
}

# Two consecutive jobs of one pool share nothing: job 1 writes /tmp/secret
# and leaves `sleep` running; when it ends its processes and cgroups are
# gone, and job 2 sees neither the file nor the process, and runs on
# another overlay (the device of /), in other cgroups, with other host ids.
t_isolation() {
	local pids1 cgs1 cgs2 base1 dev1 host1
	shared_dir
	mkpool P --size 2 --mount "$T/s:/s:rw" || return
	# shellcheck disable=SC2016
	bg_pjob P 1 -- sh -c 'echo secret >/tmp/secret; sleep 1000 & stat -c %d / >/s/dev.1
		hostname >/s/host.1; '"$READY"'
		i=0; while [ ! -e /s/go.1 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done'
	job_started 1 || return
	base1=$BASE
	pids1=$(uid_pids "$BASE")
	cgs1=$(own_cgroups "$JOB_PID")
	assert_ne "$cgs1" "" "job 1's cgroups"
	touch "$T/s/go.1"
	wait_exit "${BG[1]}" 20
	assert_eq "$rc" 0 "exit status of job 1 (stderr: $(cat "$T/bg.1.err"))"
	assert_eq "$(jq -r .pool "$T/bg.1.json" 2>&1)" hit "result .pool of job 1"
	# shellcheck disable=SC2086 # (lists of pids and directories)
	{
		assert_dead "of job 1 (its sleep) after it" $pids1
		followed P
		assert_gone "job 1's cgroups once its follower ran" $cgs1
	}

	# shellcheck disable=SC2016
	bg_pjob P 2 -- sh -c 'cat /tmp/secret 2>&1; echo "procs: $(ps -o comm | tail -n +2 | sort | tr "\n" " ")"
		echo "dev $(stat -c %d /)"; echo "host $(hostname)"; '"$READY"'
		i=0; while [ ! -e /s/go.2 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done'
	job_started 2 || return
	cgs2=$(own_cgroups "$JOB_PID")
	touch "$T/s/go.2"
	wait_exit "${BG[2]}" 20
	assert_eq "$rc" 0 "exit status of job 2 (stderr: $(cat "$T/bg.2.err"))"
	assert_eq "$(jq -r .pool "$T/bg.2.json" 2>&1)" hit "result .pool of job 2"
	out=$(cat "$T/bg.2.out")
	assert_contains "$out" "No such file" "job 2's cat /tmp/secret"
	grep -qx secret <<<"$out" && fail "job 2 read job 1's /tmp/secret: $(_show "$out")"
	assert_not_contains "$(grep '^procs:' <<<"$out")" sleep "job 2's processes"
	dev1=$(cat "$T/s/dev.1" 2>&1)
	host1=$(cat "$T/s/host.1" 2>&1)
	assert_match "$dev1" '^[0-9]+$' "the device of job 1's /"
	assert_ne "$(sed -n 's/^dev //p' <<<"$out")" "$dev1" "the device of job 2's / (job 1's)"
	assert_ne "$BASE" "$base1" "job 2's first host uid (job 1's)"
	assert_ne "$cgs2" "" "job 2's cgroups"
	[ -z "$(comm -12 <(sort <<<"$cgs1") <(sort <<<"$cgs2"))" ] ||
		fail "cgroups of both jobs: $(comm -12 <(sort <<<"$cgs1") <(sort <<<"$cgs2") | tr '\n' ' ')"
	diag "hostnames: job 1 $host1, job 2 $(sed -n 's/^host //p' <<<"$out")"
	assert_ne "$(jq -r .id "$T/bg.2.json")" "$(jq -r .id "$T/bg.1.json")" "job 2's id (job 1's)"
	rmpool P
	assert_clean
}

# After a claim the pool is back to its size (ready == size, creating 0)
# within 10 s, with a new member in place of the one used; so after three
# claims in a row.
t_refill() {
	local before after id
	mkpool P --size 3 || return
	before=$(members P)
	pjob P -- true
	assert_rc 0
	assert_hit P
	id=$(jq -r .id "$T/result.json")
	diag "right after the claim: ready $(pool_field P ready), creating $(pool_field P creating)"
	wait_ready P 3 || return
	diag "refilled in ${REFILL_MS} ms"
	assert_eq "$(pool_field P creating)" 0 "creating once refilled"
	after=$(members P)
	assert_eq "$(grep -c . <<<"$after")" 3 "members once refilled: $(_show "$after")"
	assert_not_contains "$after" "$id" "the members once refilled"
	assert_eq "$(comm -12 <(echo "$before") <(echo "$after") | grep -c .)" 2 \
		"members kept from before the claim"

	pjob P -- true
	assert_rc 0
	pjob P -- true
	assert_rc 0
	pjob P -- true
	assert_rc 0
	wait_ready P 3 || return
	diag "refilled after 3 claims in ${REFILL_MS} ms"
	assert_eq "$(members P | grep -c .)" 3 "members after 3 claims"
	rmpool P
	assert_clean
}

# A claim's refill yields to the claims under way (runtime/job/pool.c:
# claims_under_way).  A perl loop (at a higher priority, so that it is
# not late) stands in for a stream of claims: it touches the pool's
# claimed/ every 5 ms, as each claim and each follower does.  While it
# runs and a quarter of the pool is still ready, a refill makes nothing,
# for 5 s at most (BRIG_POOL_YIELD_MS): then it fills the pool, claims
# or not.  A pool below a quarter is refilled up to a quarter at once;
# once the claims stop, it fills up.
t_refill_yields() {
	local toucher i t0
	require_cmd perl
	mkpool P --size 4 || return
	nice -n -10 perl -e '$d = shift; while (-d $d) { utime undef, undef, $d;
		select(undef, undef, undef, 0.005) }' "$T/root/pools/P/claimed" &
	toucher=$!
	defer kill "$toucher"
	t0=$(date +%s%N)
	pjob P -- true
	assert_rc 0
	assert_hit P
	followed P || return
	sleep 0.5
	assert_eq "$(pool_field P ready) $(pool_field P creating)" "3 0" \
		"ready and creating 0.5 s after a claim's follower, with claims going on"
	wait_ready P 4 15 || return
	diag "refilled $((($(date +%s%N) - t0) / 1000000)) ms after the claim, with claims going on"

	for i in 1 2 3 4; do
		pjob P -- true
		assert_rc 0
		assert_hit P
	done
	followed P || return
	wait_ready P 1 || return
	sleep 0.5
	assert_eq "$(pool_field P ready) $(pool_field P creating)" "1 0" \
		"ready and creating with the pool emptied, claims going on"
	kill "$toucher"
	wait "$toucher" 2>/dev/null
	wait_ready P 4 || return
	diag "refilled in ${REFILL_MS} ms once the claims stopped"
	rmpool P
	assert_clean
}

# 64 callers at once on a pool of 8: 64 successes, 64 distinct sandboxes
# (ids), every hit a member of the pool (the first 8 or refills), no
# deadlock (each caller bounded, and all within 90 s), and the pool back
# to 8 ready members none of which ran a job.
t_race() {
	local i pids=() hits=0 misses=0 p initial used t0 t1 refills
	mkdir -p "$T/r"
	mkpool P --size 8 || return
	initial=$(members P)
	t0=$(date +%s)
	for ((i = 0; i < 64; i++)); do
		TMPDIR=$T/tmp timeout -k 5 90 "$BRIG" --root "$T/root" job --pool P \
			--result "$T/r/$i.json" --env "I=$i" -- sh -c 'echo "job $I"' \
			</dev/null >"$T/r/$i.out" 2>"$T/r/$i.err" &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[i]}"
		rc=$?
		[ "$rc" -eq 0 ] || fail "caller $i: exit status $rc, stderr: $(cat "$T/r/$i.err")"
		assert_eq "$(cat "$T/r/$i.out")" "job $i" "stdout of caller $i"
		p=$(jq -r .pool "$T/r/$i.json" 2>&1)
		case $p in
		hit) hits=$((hits + 1)) ;;
		miss) misses=$((misses + 1)) ;;
		*) fail "result .pool of caller $i: $(_show "$p")" ;;
		esac
	done
	t1=$(date +%s)
	used=$(jq -r .id "$T"/r/*.json 2>/dev/null | sort)
	assert_eq "$(sort -u <<<"$used" | grep -c .)" 64 "distinct ids of the 64 jobs"
	assert_eq "$(jq -r 'select(.pool == "hit") | .id' "$T"/r/*.json | grep -vc "^P-")" 0 \
		"hits whose id is not a member's"
	refills=$(jq -r 'select(.pool == "hit") | .id' "$T"/r/*.json | sort | comm -23 - <(echo "$initial") | grep -c .)
	diag "64 callers, pool of 8: $hits hits ($refills of them refills), $misses misses, $((t1 - t0)) s"
	[ $((t1 - t0)) -le 90 ] || fail "the 64 callers took $((t1 - t0)) s"
	wait_ready P 8 20
	# none of the members now has served a job
	assert_eq "$(comm -12 <(members P) <(echo "$used"))" "" "members that ran a job"
	rmpool P
	assert_clean
}

# brig SIGKILLed while its pooled job sleeps: the job's processes die with
# it (the member's init sees its reply socket close), the claimed member
# goes (its follower or gc removes the container, state and cgroups), and
# the pool is back to its size with only waiting members.
t_sigkill_claimer() {
	local pids cgs id m st
	shared_dir
	mkpool P --size 2 --mount "$T/s:/s:rw" || return
	bg_pjob P 1 --timeout 60s -- sh -c "sleep 100 & $READY; sleep 100"
	job_started 1 || return
	pids=$(uid_pids "$BASE")
	cgs=$(own_cgroups "$JOB_PID")
	# the claimed member: the container whose init is the job's process
	id=
	for m in $(members P); do
		grep -qx "$(init_pid "$m")" <<<"$pids" && id=$m
	done
	diag "the claimed member: $(_show "$id")"
	kill -KILL "${BG[1]}"
	wait "${BG[1]}" 2>/dev/null
	# shellcheck disable=SC2086 # (lists of pids and directories)
	{
		# its init sees brig's end of the reply socket close, and ends
		wait_until 5 all_dead $pids || assert_dead "5 s after brig's SIGKILL" $pids
		bp gc
		assert_rc 0
		assert_eq "$err" "" "stderr of pool gc"
		wait_until 5 all_dead $pids || assert_dead "after pool gc" $pids
		# the claim's follower, which holds its lock, removes it
		followed P
		assert_gone "the killed job's cgroups after pool gc" $cgs
	}
	if [ -n "$id" ]; then
		assert_not_contains "$(members P)" "$id" "the members after pool gc"
		assert_no_file "$T/root/$id"
	fi
	wait_ready P 2
	assert_eq "$(pool_field P creating)" 0 "creating"
	assert_eq "$(members P | grep -c .)" 2 "members after gc and refill"
	for m in $(members P); do
		st=$("$BRIG" --root "$T/root" state "$m" 2>&1 | jq -r .status 2>&1)
		assert_eq "$st" created "status of member $m after pool gc"
	done
	# the pool still serves
	pjob P -- echo after
	assert_rc 0
	assert_eq "$out" after "stdout of a claim after gc"
	rmpool P
	assert_clean
}

# pool destroy while three claims run (hits, sleeping, with a 60 s
# timeout): it succeeds within 10 s, the jobs end (killed, not by their
# timeout), and nothing is left, not even the members the claims'
# refills were making; so five times over, right after two claims.
t_destroy_busy() {
	local i pids=() t0 t1
	shared_dir
	mkpool P --size 3 --mount "$T/s:/s:rw" || return
	for i in 1 2 3; do
		wait_ready P 3
		bg_pjob P "$i" --timeout 60s -- sh -c "$READY; sleep 60"
		job_started "$i" || return
		pids+=("$JOB_PID")
	done
	t0=$(date +%s%N)
	run_cmd timeout -k 5 30 "$BRIG" --root "$T/root" pool destroy P
	t1=$(date +%s%N)
	assert_rc 0
	assert_eq "$out$err" "" "output of pool destroy"
	diag "pool destroy took $(((t1 - t0) / 1000000)) ms"
	[ $(((t1 - t0) / 1000000)) -lt 10000 ] ||
		fail "pool destroy took $(((t1 - t0) / 1000000)) ms with three claims running"
	for i in 1 2 3; do
		wait_exit "${BG[i]}" 15
		diag "claim $i: exit status $rc, result $(jq -c '{pool, reason, exit_code}' "$T/bg.$i.json" 2>&1)"
		assert_ne "$(jq -r .reason "$T/bg.$i.json" 2>&1)" timeout "claim $i's end"
	done
	assert_dead "of the claims' jobs after pool destroy" "${pids[@]}"
	assert_clean

	# destroyed while the claims' fills make members: a member being made
	# then is never left half (its job directory went unremoved once)
	for i in 1 2 3 4 5; do
		mkpool Q --size 2 || return
		pjob Q -- true
		pjob Q -- true
		rmpool Q
		assert_clean "after round $i"
	done
}

# A member whose init is SIGKILLed while it waits: a healthy pool is left
# alone by gc; a claim skips the dead ones (and succeeds); pool gc removes
# them (container, state, cgroups).
t_dead_init() {
	local m a b pa pb cgs
	mkpool P --size 3 || return
	m=$(members P)
	bp gc
	assert_rc 0
	assert_eq "$(members P)" "$m" "members after pool gc of a healthy pool"
	assert_eq "$(pool_field P ready)" 3 "ready after pool gc of a healthy pool"

	a=$(sed -n 1p <<<"$m")
	b=$(sed -n 2p <<<"$m")
	pa=$(init_pid "$a")
	pb=$(init_pid "$b")
	alive "$pa" && alive "$pb" || {
		fail "members $a, $b: inits $(_show "$pa"), $(_show "$pb") not alive"
		return
	}
	cgs=$(own_cgroups "$pa"; own_cgroups "$pb")
	assert_ne "$cgs" "" "the members' cgroups"
	kill -KILL "$pa" "$pb"
	wait_until 5 all_dead "$pa" "$pb" || fail "the inits $pa, $pb outlived SIGKILL"
	diag "with 2 inits dead: ready $(pool_field P ready), creating $(pool_field P creating)"

	pjob P -- echo claimed
	assert_rc 0
	assert_eq "$out" claimed "stdout of the claim"
	assert_ne "$(res id)" "\"$a\"" "the claim's id (a dead member)"
	assert_ne "$(res id)" "\"$b\"" "the claim's id (a dead member)"
	diag "claim: pool $(res pool), id $(res id)"

	bp gc
	assert_rc 0
	assert_eq "$err" "" "stderr of pool gc"
	assert_not_contains "$(members P)" "$a" "members after pool gc"
	assert_not_contains "$(members P)" "$b" "members after pool gc"
	assert_no_file "$T/root/$a"
	assert_no_file "$T/root/$b"
	# shellcheck disable=SC2086 # (a list of directories)
	assert_gone "the dead members' cgroups after pool gc" $cgs
	diag "after gc: ready $(pool_field P ready), creating $(pool_field P creating), members $(members P | tr '\n' ' ')"
	# gc repairs: the pool is back to 3 live members (the claim's refill
	# alone counted the dead ones as ready), and the claimed member is
	# gone once its follower has run
	wait_ready P 3
	followed P
	for m in $(members P); do
		alive "$(init_pid "$m")" || fail "member $m: its init is not alive after pool gc"
	done
	rmpool P
	assert_clean
}

# `pool create` SIGKILLed half-way: pool gc removes the half-made members
# (and the pool, when it is half-made); what it keeps is whole: every
# member created with its init alive, nothing "creating"; destroy then
# leaves nothing.
t_killed_create() {
	local pid
	mkdir -p "$T/tmp"
	# (32: making them takes long enough to be caught half-way)
	TMPDIR=$T/tmp "$BRIG" --root "$T/root" pool create P --size 32 --rootfs "$ROOTFS" \
		</dev/null >"$T/create.out" 2>"$T/create.err" &
	pid=$!
	defer kill_wait "$pid"
	defer timeout -k 5 30 "$BRIG" --root "$T/root" pool destroy P
	# killed once it has made a member or two
	wait_until 10 eval '[ "$(members P | grep -c .)" -ge 2 ]' ||
		diag "no 2 members within 10 s: $(members P | tr '\n' ' ')"
	kill -KILL "$pid" 2>/dev/null || diag "pool create ended before it was killed"
	wait "$pid" 2>/dev/null
	diag "killed create left: members $(members P | tr '\n' ' '); list $("$BRIG" --root "$T/root" pool list --format json 2>&1 | jq -c . 2>&1)"
	bp gc
	assert_rc 0
	assert_eq "$err" "" "stderr of pool gc"
	if [ -z "$(pool_field P size)" ]; then
		diag "after gc: the pool is gone"
		assert_eq "$(members P)" "" "members of a pool gc removed"
	else
		# gc may also start making the missing members (a repair, in the
		# background): within 10 s there is a moment with nothing being
		# made and every member whole
		wait_until 10 whole_pool P ||
			fail "pool P after pool gc: $(pool_state P)"
		diag "after gc: the pool is kept: size $(pool_field P size), ready $(pool_field P ready)"
		rmpool P
	fi
	assert_clean
}

# A pool made from a --bundle: a claim without a command runs the
# config's args; with one, that command; either way in the config's
# environment (HOME from its /etc/passwd; a job's --env wins), cwd, user
# and hostname.
t_bundle() {
	brig_make_bundle "$T/b" || return
	brig_bundle_edit "$T/b" '.process.terminal = false
		| .process.args = ["sh", "-c", "echo \"$(id -u):$(id -g) $(pwd) $(hostname) FOO=$FOO HOME=$HOME\""]
		| .process.env = ["PATH=/bin:/usr/bin", "FOO=bar"]
		| .process.cwd = "/tmp"
		| .process.user = {uid: 1000, gid: 1000}
		| .hostname = "bundlehost"' || return
	defer timeout -k 5 30 "$BRIG" --root "$T/root" pool destroy P
	bp create P --size 2 --bundle "$T/b"
	assert_rc 0
	assert_eq "$out$err" "" "output of pool create P --bundle" || return
	pjob P
	assert_rc 0
	assert_hit P
	assert_eq "$out" "1000:1000 /tmp bundlehost FOO=bar HOME=/" "the config's process"
	wait_ready P 2
	pjob P --env FOO=job --env HOME=/home/x -- sh -c 'echo "$(id -u) $(pwd) FOO=$FOO HOME=$HOME"'
	assert_rc 0
	assert_hit P
	assert_eq "$out" "1000 /tmp FOO=job HOME=/home/x" "a command, --env over the config's"
	rmpool P
	assert_clean
}

# status_of PID FIELD: FIELD of /proc/PID/status (tabs and spaces dropped).
status_of() {
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null
}

# A waiting member is confined already: its init has no capability, runs
# under no_new_privs and, with brig's own profile, under the job's seccomp
# filter (it is loaded before the wait, so that a claim does not pay for
# it); with --seccomp unconfined none, and with a profile FILE the job's
# process loads it (the waiting init has none).  The init that runs the
# job is out of the job's reach: the job cannot open its fds, read its
# environment, or kill it.
t_confined() {
	local m pid
	mkpool P --size 1 || return
	m=$(members P)
	pid=$(init_pid "$m")
	assert_eq "$(status_of "$pid" CapEff),$(status_of "$pid" CapPrm),$(status_of "$pid" CapBnd)" \
		"0000000000000000,0000000000000000,0000000000000000" "capabilities of a waiting init"
	assert_eq "$(status_of "$pid" NoNewPrivs)" 1 "NoNewPrivs of a waiting init"
	assert_eq "$(status_of "$pid" Seccomp)" 2 "Seccomp of a waiting init (default profile)"
	# shellcheck disable=SC2016
	pjob P -- sh -c 'grep ^Seccomp: /proc/self/status
		ls /proc/1/fd >/dev/null 2>&1 && echo "fds of 1 open" || echo "fds of 1 closed"
		cat /proc/1/environ >/dev/null 2>&1 && echo "environ of 1 open" || echo "environ of 1 closed"
		kill -9 1 2>/dev/null; kill -TERM 1 2>/dev/null; echo "after kill $$"'
	assert_rc 0
	assert_hit P
	assert_eq "$(sed -n 1,3p <<<"$out")" "Seccomp:	2
fds of 1 closed
environ of 1 closed" "the job's filter and its reach to pid 1"
	assert_match "$(sed -n 4p <<<"$out")" '^after kill [0-9]+$' "the job after kill 1"
	assert_res reason '"exited"'
	rmpool P

	mkpool U --size 1 --seccomp unconfined || return
	pid=$(init_pid "$(members U)")
	assert_eq "$(status_of "$pid" Seccomp),$(status_of "$pid" NoNewPrivs)" "0,1" \
		"Seccomp, NoNewPrivs of a waiting init (--seccomp unconfined)"
	pjob U -- grep ^Seccomp: /proc/self/status
	assert_rc 0
	assert_eq "$out" "Seccomp:	0" "the job's Seccomp (--seccomp unconfined)"
	rmpool U

	cat >"$T/profile.json" <<-'EOF'
		{"defaultAction": "SCMP_ACT_ALLOW",
		 "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
		 "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}]}
	EOF
	mkpool F --size 1 --seccomp "$T/profile.json" || return
	pid=$(init_pid "$(members F)")
	assert_eq "$(status_of "$pid" Seccomp)" 0 "Seccomp of a waiting init (--seccomp FILE)"
	pjob F -- sh -c 'grep ^Seccomp: /proc/self/status; mkdir /tmp/d 2>/dev/null; echo "mkdir $?"'
	assert_rc 0
	assert_eq "$out" "Seccomp:	2
mkdir 1" "the job under --seccomp FILE"
	rmpool F
	assert_clean
}

# brig in a mount namespace of its own (as a service under systemd's
# PrivateTmp= runs): pools work there as cold jobs do.  Four rounds of
# create, claim, destroy in `unshare -m` (each round a new namespace; the
# members' inits are still adopted by the harness's subreaper).
t_private_mntns() {
	local i
	require_cmd unshare
	mkdir -p "$T/tmp"
	for i in 1 2 3 4; do
		run_cmd env TMPDIR="$T/tmp" unshare -m --propagation private bash -c '
			b() { "$BRIG" --root "$1/root" "${@:2}"; }
			b "$1" pool create P --size 2 --rootfs "$2" || exit 1
			b "$1" job --pool P --result "$1/r.json" -- echo claimed || exit 2
			b "$1" pool destroy P || exit 3' bash "$T" "$ROOTFS"
		assert_eq "$rc" 0 "round $i: create (1), claim (2), destroy (3) in a mount namespace of its own (stderr: $(_show "$err"))"
		assert_eq "$out" claimed "round $i: stdout of the claim"
		[ "$rc" -eq 0 ] && assert_eq "$(jq -r .pool "$T/r.json" 2>&1)" hit "round $i: result .pool"
		timeout -k 5 30 "$BRIG" --root "$T/root" pool destroy P >/dev/null 2>&1
		rm -f "$T/r.json"
		assert_clean "after round $i"
	done
}

tap_test "pool create, list (text, json), destroy" t_basics
tap_test "bad pool create: 125, one line, nothing left" t_bad_create
tap_test "a duplicate pool create fails, the pool unchanged" t_duplicate
tap_test "job --pool: output, status, result (pool: hit), a member used once" t_job
tap_test "job --pool: --env --cwd --stdin --stdout/err --output-limit --copy-in --export" t_job_options
tap_test "job --pool: the pool's --user --network --tmpfs --mount --pids" t_pool_options
tap_test "job --pool of a --bundle pool: the config's args, env, cwd, user" t_bundle
tap_test "job --pool --timeout 1s: 124 by 1.1 s, its processes gone, then its cgroups" t_timeout
tap_test "job --pool on an empty pool: a cold job with the pool's options (miss)" t_miss
tap_test "consecutive jobs of a pool share no file, process, layer, cgroup" t_isolation
tap_test "the pool refills to its size after claims (10 s)" t_refill
tap_test "a refill waits while claims go on (5 s at most), not below a quarter, nor past the claims" t_refill_yields
tap_test "64 callers on a pool of 8: 64 distinct sandboxes, no deadlock" t_race
tap_test "a claimer SIGKILLed mid-job: the job dies with it, the member goes, the pool refills" t_sigkill_claimer
tap_test "pool destroy during claims: the jobs end, nothing left" t_destroy_busy
tap_test "pool create SIGKILLed half-way: pool gc leaves only whole members" t_killed_create
tap_test "a member whose init died: skipped by a claim, removed by pool gc" t_dead_init
tap_test "a waiting member is confined; its init is out of the job's reach" t_confined
tap_test "pools of a brig in a mount namespace of its own (unshare -m)" t_private_mntns
tap_done
