#!/bin/bash
# Attacks on a warm pool's host-facing edges (issue 30, security part 3):
#
#   - the waiting init's name: a pooled job reads /proc/1/cmdline and
#     /proc/1/environ, and finds neither brig's command line (the state
#     root, the rootfs, a --mount source) nor brig's environment (a marker
#     put there when the pool was made).  runc's waiting init shows
#     "runc init" (its argv is the re-exec's, [runc, init]); brig's init is
#     a clone that never re-executes, so it overwrites its argv and
#     environ areas to read "brig\0init" (NULs after it to the area's old
#     length) and names itself "brig:init";
#   - forged ready/ entries: one naming a listener of the test's own (a
#     python process chrooted into $T/fr, holding a SOCK_SEQPACKET pair
#     and a directory at the fd numbers the entry gives), one naming the
#     real init of another pool's member (with its real fd numbers): the
#     claim (with --env SECRET=..., --copy-in and --export) sends nothing
#     to either, removes the entry (and leaves the other pool's member
#     alone), says so in one warning line, and runs the job cold (a miss);
#     a real member's entry (and record) rewritten is refused, the member
#     destroyed; entries naming running jobs make no claim, follower or
#     gc delete them;
#   - where a member's cgroup is made: under the cgroup the pool recorded
#     at `pool create` (its creator's, or --cgroup-parent), whoever fills
#     it or claims from it.
#
# Each test has its own --root "$T/root" and asserts at its end that
# nothing is left: containers, pools, job directories, cgroups, processes
# (the harness checks mounts, processes and cgroups too).
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"
[ -n "${BRIG_TEST_CGROUPS:-}" ] ||
	skip_all "needs the cgroups of tests/helpers/subreaper (BRIG_TEST_CGROUPS)"

if [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
	CG=v2
else
	CG=v1
fi

brig_file_rootfs

# ----------------------------------------------------------------- helpers

declare -a VICTIM

# bp ARGS...: `brig --root $T/root pool ARGS` (sets out, err, rc).
bp() {
	mkdir -p "$T/tmp"
	run_cmd env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" pool "$@"
}

# pjob POOL ARGS...: `brig job --pool POOL ARGS`, the result in
# $T/result.json.
pjob() {
	local pool=$1
	shift
	mkdir -p "$T/tmp"
	rm -f "$T/result.json"
	run_cmd env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" job --pool "$pool" \
		--result "$T/result.json" "$@"
}

# mkpool NAME ARGS...: `pool create NAME --rootfs $ROOTFS ARGS`, which
# must succeed silently; destroyed when the test ends.
mkpool() {
	local name=$1
	shift
	defer timeout -k 5 30 "$BRIG" --root "$T/root" pool destroy "$name"
	bp create "$name" --rootfs "$ROOTFS" "$@"
	assert_eq "$rc" 0 "exit status of pool create $name (stderr: $(_show "$err"))" || return 1
	assert_eq "$out$err" "" "output of pool create $name"
}

rmpool() {
	bp destroy "$1"
	assert_eq "$rc" 0 "exit status of pool destroy $1 (stderr: $(_show "$err"))"
}

res() {
	jq -c ".$1" "$T/result.json" 2>/dev/null || echo "<no result>"
}

pool_field() {
	"$BRIG" --root "$T/root" pool list --format json 2>/dev/null |
		jq -c --arg n "$1" ".[] | select(.name == \$n) | .$2" 2>/dev/null
}

ready_is() { # NAME N
	[ "$(pool_field "$1" ready)" = "$2" ] && [ "$(pool_field "$1" creating)" = 0 ]
}

# members NAME: the ids of pool NAME's members.
members() {
	"$BRIG" --root "$T/root" list -q 2>/dev/null | grep "^$1-" | sort
}

init_pid() {
	"$BRIG" --root "$T/root" state "$1" 2>/dev/null | jq -r .pid 2>/dev/null
}

no_claims() {
	[ -z "$(ls -A "$T/root/pools/$1/claimed" 2>/dev/null)" ]
}

# start_time PID: field 22 of /proc/PID/stat.
start_time() {
	sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $20 }'
}

# hide_ready NAME: pool NAME's ready entries (once it is full: no fill
# under way) renamed to dot-names, which a claim skips (so that a claim
# finds only what the test forges); show_ready puts them back (deferred:
# destroy must find them).
declare -A HIDDEN
hide_ready() {
	local e
	wait_until 10 ready_is "$1" "$(pool_field "$1" size)" || fail "pool $1 is not full"
	for e in "$T/root/pools/$1/ready"/*; do
		[ -e "$e" ] || continue
		mv "$e" "${e%/*}/.${e##*/}"
	done
	[ -n "${HIDDEN[$1]:-}" ] || defer show_ready "$1"
	HIDDEN[$1]=1
}

show_ready() {
	local e
	for e in "$T/root/pools/$1/ready"/.*; do
		case ${e##*/} in . | ..) continue ;; esac
		[ -e "$e" ] || continue
		mv "$e" "${e%/*}/${e##*/.}"
	done
}

# assert_clean: no container, pool, job directory, cgroup, stray process.
assert_clean() {
	assert_eq "$("$BRIG" --root "$T/root" list -q 2>&1)" "" "brig list -q"
	assert_eq "$(find "$T/root/pools" -mindepth 1 -maxdepth 1 ! -name '.*' 2>/dev/null)" "" \
		"entries of $T/root/pools"
	assert_eq "$(find "$T/root/jobs" -mindepth 1 -maxdepth 1 ! -name '.*' 2>/dev/null)" "" \
		"entries of $T/root/jobs"
	assert_eq "$(cgroups_left)" "" "cgroup directories left"
	assert_eq "$(strays)" "" "processes left"
}

# ------------------------------------------------------- the init's name

# A pooled job reads its pid 1's cmdline, environ and comm.  Pool N is
# made as usual (the job cannot read /proc/1/environ: the init is not
# dumpable); pool E with --no-userns --keep-caps SYS_PTRACE, whose job
# (the host's root, CAP_SYS_PTRACE) can: there the environ must be empty.
# brig's command line held $T/root, $ROOTFS and the --mount source; its
# environment a marker.  Both pools are also refilled by `pool fill`
# (another command line) before the claims that read them.
t_init_name() {
	local p marker=brig-marker-$RANDOM$RANDOM cmdline environ
	mkdir -p "$T/src-of-mount"
	for p in N E; do
		local extra=()
		[ "$p" = E ] && extra=(--no-userns --keep-caps SYS_PTRACE)
		defer timeout -k 5 30 "$BRIG" --root "$T/root" pool destroy "$p"
		run_cmd env TMPDIR="$T/tmp" BRIG_POOL_MARKER="$marker" "$BRIG" --root "$T/root" \
			pool create "$p" --size 1 --rootfs "$ROOTFS" --mount "$T/src-of-mount:/m" "${extra[@]}"
		assert_rc 0 || return
		# shellcheck disable=SC2016
		pjob "$p" -- sh -c 'tr "\0" "|" </proc/1/cmdline; echo
			tr "\0" "|" </proc/1/environ 2>&1; echo
			cat /proc/1/comm'
		assert_rc 0
		assert_eq "$(res pool)" '"hit"' "pool $p: the job's pool"
		cmdline=$(sed -n 1p <<<"$out")
		environ=$(sed -n 2p <<<"$out")
		diag "pool $p: /proc/1/cmdline: $cmdline"
		diag "pool $p: /proc/1/environ: $environ"
		assert_match "$cmdline" '^brig\|init\|*$' "pool $p: /proc/1/cmdline"
		for leak in "$T" "$ROOTFS" src-of-mount "$marker"; do
			assert_not_contains "$cmdline" "$leak" "pool $p: /proc/1/cmdline"
			assert_not_contains "$environ" "$leak" "pool $p: /proc/1/environ"
		done
		if [ "$p" = E ]; then
			assert_match "$environ" '^\|*$' "pool E: /proc/1/environ (readable, empty)"
		fi
		assert_eq "$(sed -n 3p <<<"$out")" "brig:init" "pool $p: /proc/1/comm"
		# the replacement's maker was `pool fill`: the same
		wait_until 10 ready_is "$p" 1 || fail "pool $p did not refill"
		wait_until 10 no_claims "$p"
		pjob "$p" -- sh -c 'tr "\0" "|" </proc/1/cmdline'
		assert_match "$out" '^brig\|init\|*$' "pool $p, the refill's member: /proc/1/cmdline"
		rmpool "$p"
	done
	assert_clean
}

# ------------------------------------------------------- forged entries

# The forger: chrooted into $1 (whose upper/ holds a file "planted"), a
# SOCK_SEQPACKET pair at fds 50 and 51 and upper/ at fd 52; it records
# whatever arrives on 50 (the message, each fd's first bytes) in $1/got,
# then exits.
forger() {
	exec python3 - "$1" <<-'EOF'
		import array, os, socket, sys
		root = sys.argv[1]
		a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
		up = os.open(root + "/upper", os.O_RDONLY | os.O_DIRECTORY)
		os.dup2(a.fileno(), 50, inheritable=False)
		os.dup2(b.fileno(), 51, inheritable=False)
		os.dup2(up, 52, inheritable=False)
		os.chroot(root)
		os.chdir("/")
		open("/listening", "w").close()
		s = socket.socket(fileno=os.dup(50))
		msg, anc, _, _ = s.recvmsg(64, socket.CMSG_SPACE(16 * 4))
		with open("/got", "wb") as f:
		    f.write(b"message %d bytes\n" % len(msg))
		    for _, _, data in anc:
		        fds = array.array("i")
		        fds.frombytes(data[: len(data) - len(data) % 4])
		        for fd in fds:
		            try:
		                f.write(b"fd: " + os.pread(fd, 4096, 0) + b"\n")
		            except OSError as e:
		                f.write(b"fd: %s\n" % e.strerror.encode())
	EOF
}

# start_forger: the forger in the background (FORGER is its pid) on
# $T/fr, listening.
start_forger() {
	require_cmd python3
	mkdir -p "$T/fr/upper"
	echo planted >"$T/fr/upper/planted"
	(forger "$T/fr") &
	FORGER=$!
	defer kill_wait "$FORGER"
	wait_for "$T/fr/listening" 100 || fail "the forger does not listen"
}

# claim_forged POOL: the claim the forgers wait for, with a secret in
# --env, a --copy-in and an --export (into a new $T/export).
claim_forged() {
	echo copied >"$T/copy-src"
	rm -rf "$T/export"
	mkdir -p "$T/export"
	pjob "$1" --env SECRET=s3cr3t-value --copy-in "$T/copy-src:/copied-in" \
		--export "$T/export" -- sh -c 'cat /bsecret/s 2>/dev/null; echo ran'
}

# assert_forger_got_nothing: nothing of the claim reached $T/fr, and
# nothing of $T/fr reached the export.
assert_forger_got_nothing() {
	assert_no_file "$T/fr/got"
	[ -e "$T/fr/got" ] && diag "the forger got: $(tr -d '\0' <"$T/fr/got")"
	assert_no_file "$T/fr/copied-in"
	assert_no_file "$T/export/planted"
}

# An entry (with a well-formed member id of the pool) naming the forger's
# pid, its start time and fd numbers: the claim sends it nothing, removes
# the entry, runs the job cold, and says why in one line.
t_forged_listener() {
	local entry
	mkpool P --size 1 || return
	hide_ready P
	start_forger || return
	entry=$T/root/pools/P/ready/P-0123456789ab
	printf '52 51 1073741824 %d %s\n' "$FORGER" "$(start_time "$FORGER")" >"$entry"
	claim_forged P
	diag "claim: rc $rc, stderr $(_show "$err")"
	assert_rc 0
	assert_eq "$out" "ran" "the job's output"
	assert_eq "$(res pool)" '"miss"' "the claim of a forged entry"
	assert_match "$err" 'level=warning msg="pool \\"P\\": entry \\"P-0123456789ab\\" refused: ' \
		"brig's stderr"
	assert_lines 1 "$err" "brig's stderr"
	assert_forger_got_nothing
	assert_no_file "$entry"
	assert_no_file "$T/root/pools/P/claimed/P-0123456789ab"
	alive "$FORGER" || fail "the forger was signalled"
	show_ready P
	wait_until 10 no_claims P
	rmpool P
	assert_clean
}

# An entry in pool A naming the waiting init of pool B's member (B binds a
# secret at /bsecret), with that member's own fd numbers, under its own id
# and under a well-formed id of A's: the claim of A hands nothing to B's
# member, which still waits, ready in B.
t_forged_other_member() {
	local bm bpid forged
	mkdir -p "$T/bsecret"
	echo the-b-secret >"$T/bsecret/s"
	mkpool A --size 1 || return
	mkpool B --size 1 --mount "$T/bsecret:/bsecret" || return
	bm=$(members B)
	bpid=$(init_pid "$bm")
	for forged in "$bm" A-00000000beef; do
		hide_ready A
		cp "$T/root/pools/B/ready/$bm" "$T/root/pools/A/ready/$forged"
		claim_forged A
		diag "claim ($forged): rc $rc, stderr $(_show "$err")"
		assert_rc 0
		assert_eq "$out" "ran" "the job's output (entry $forged)"
		assert_eq "$(res pool)" '"miss"' "the claim of entry $forged"
		assert_contains "$err" "entry \\\"$forged\\\" refused: " "brig's stderr"
		assert_lines 1 "$err" "brig's stderr"
		assert_no_file "$T/root/pools/A/ready/$forged"
		alive "$bpid" || fail "B's member's init is gone"
		assert_eq "$(pool_field B ready)" 1 "B's ready members"
		assert_eq "$(members B)" "$bm" "B's members"
		wait_until 10 no_claims A
	done
	# B's member still serves B's own jobs
	pjob B -- cat /bsecret/s
	assert_eq "$out" "the-b-secret" "a job of B"
	assert_eq "$(res pool)" '"hit"' "a job of B"
	show_ready A
	wait_until 10 no_claims B
	rmpool A
	rmpool B
	assert_clean
}

# A real member's own entry, rewritten: naming the forger (its pid, start
# time and fds) under the member's id; then (the state root's record of
# the member rewritten too, as only root can) naming the member's init
# with the fd of another socket it holds as the hand-off socket.  Each
# claim refuses the member (destroys it: it is never served), sends
# nothing, and runs the job cold.
t_forged_fds() {
	local m pid start rec host
	mkpool P --size 1 || return
	start_forger || return
	m=$(members P)
	hide_ready P
	printf '52 51 1073741824 %d %s\n' "$FORGER" "$(start_time "$FORGER")" >"$T/root/pools/P/ready/$m"
	claim_forged P
	assert_rc 0
	assert_eq "$(res pool)" '"miss"' "the claim of a rewritten entry"
	assert_contains "$err" 'refused: its pid is not its init' "brig's stderr"
	assert_forger_got_nothing
	assert_eq "$(members P | grep -cx "$m")" 0 "member $m after the claim (destroyed)"
	rm -f "$T/root/pools/P/ready/.$m"

	hide_ready P
	m=$(members P)
	pid=$(init_pid "$m")
	start=$(start_time "$pid")
	rec=$T/root/jobs/$m/member
	read -r _ _ host _ <"$rec"
	# fd 3 of the init: a SOCK_SEQPACKET socket, but not one the init made
	[ -S "/proc/$pid/fd/3" ] || skip "the init holds no socket at fd 3"
	sed -i 's/^\([0-9]*\) [0-9]* /\1 3 /' "$rec"
	printf '%s 3 %s %d %s\n' "$(cut -d' ' -f1 "$rec")" "$host" "$pid" "$start" >"$T/root/pools/P/ready/$m"
	claim_forged P
	assert_rc 0
	assert_eq "$(res pool)" '"miss"' "the claim of a member whose hand-off socket is another"
	assert_contains "$err" "refused: its hand-off socket is not its init's" "brig's stderr"
	dead "$pid" || fail "the refused member's init still lives"
	rm -f "$T/root/pools/P/ready/.$m"
	wait_until 10 no_claims P
	rmpool P
	assert_clean
}

# Entries in ready/ and claimed/ naming a running cold job of the same
# root (--id victim, and --id P-0123456789ab, a name a member of P could
# have): neither a claim (which refuses them), nor the claim's follower
# (which removes the members of dead claimers: unlocked claimed/ entries),
# nor pool gc deletes the job: an entry's name alone is no member.
t_forged_victim() {
	local v
	mkpool P --size 1 || return
	mkdir -p "$T/tmp"
	for v in victim P-0123456789ab; do
		TMPDIR=$T/tmp "$BRIG" --root "$T/root" job --rootfs "$ROOTFS" --id "$v" \
			--timeout 60s -- sleep 60 </dev/null >/dev/null 2>"$T/$v.err" &
		VICTIM[${#VICTIM[@]}]=$!
		defer kill_wait -TERM "$!"
	done
	hide_ready P
	for v in victim P-0123456789ab; do
		wait_until 10 is_status "$v" running || fail "job $v does not run: $(cat "$T/$v.err")"
		echo "1 2 3 4 5" >"$T/root/pools/P/claimed/$v"
		echo "garbage" >"$T/root/pools/P/ready/$v"
	done
	pjob P -- true
	assert_rc 0
	assert_eq "$(res pool)" '"miss"' "the claim"
	wait_until 10 no_claims P
	bp gc
	assert_rc 0
	sleep 0.5
	for v in victim P-0123456789ab; do
		assert_eq "$(state_field "$v" status)" running "job $v after the claim, its follower and pool gc"
	done
	kill_wait -TERM "${VICTIM[@]}"
	show_ready P
	rmpool P
	assert_clean
}

# ------------------------------------------------------- the cgroup parent

# test_dirs: the test file's own cgroup directories (one per hierarchy).
test_dirs() {
	tr ':' '\n' <<<"$BRIG_TEST_CGROUPS"
}

# mk_cgroups NAME...: a child NAME of the test's cgroup in every hierarchy
# (v1 cpuset: its parent's cpus and mems), removed when the test ends.
mk_cgroups() {
	local d n
	for n in "$@"; do
		while read -r d; do
			mkdir "$d/$n" || fail "mkdir $d/$n"
			if [ -f "$d/cpuset.cpus" ]; then
				cat "$d/cpuset.cpus" >"$d/$n/cpuset.cpus"
				cat "$d/cpuset.mems" >"$d/$n/cpuset.mems"
			fi
		done < <(test_dirs)
		defer rm_cgroups "$n"
	done
}

rm_cgroups() {
	local d
	while read -r d; do
		rmdir "$d/$1" 2>/dev/null
	done < <(test_dirs)
}

# in_cg NAME CMD...: CMD in a process of its own moved into the child
# NAME of the test's cgroup in every hierarchy (this shell stays where it
# is; the process goes with CMD's end).
in_cg() {
	local n=$1 d
	shift
	(
		while read -r d; do
			echo "$BASHPID" >"$d/$n/cgroup.procs" || exit 126
		done < <(test_dirs)
		exec "$@"
	)
}

# cg_of PID: PID's cgroup directories, one per hierarchy, sorted.
cg_of() {
	local ctrl path
	while IFS=: read -r _ ctrl path; do
		if [ -z "$ctrl" ]; then
			echo "/sys/fs/cgroup/unified$path"
		else
			ctrl=${ctrl#name=}
			echo "/sys/fs/cgroup/${ctrl%%,*}$path"
		fi
	done <"/proc/$1/cgroup" | sort
}

# assert_member_under MEMBER PARENT WHAT: MEMBER's init is in
# PARENT/MEMBER of the test's cgroup in every hierarchy.
assert_member_under() {
	local want got
	want=$(test_dirs | sed "s|\$|/$2/$1|" | sort)
	got=$(cg_of "$(init_pid "$1")")
	assert_eq "$got" "$want" "$3's cgroups"
}

# The pool is made in cgroup A of the test's; its job is claimed from B,
# and the claim's replacement is made from B (its follower, `pool fill
# --queue`, is the claimer's child): the member, the claimed job's and the
# replacement's, are in A.  A pool made with --cgroup-parent C (relative:
# below its creator's cgroup, the test's) keeps its members in C whoever
# claims.  (An absolute --cgroup-parent is the same path in every
# hierarchy, which on this machine's memory hierarchy would leave the
# test's cgroup: it is checked for its refusals only.)
t_cgroup_parent() {
	local m m2
	[ "$CG" = v1 ] || skip "a creator in a cgroup with child cgroups needs v1 or hybrid"
	mk_cgroups A B C
	defer timeout -k 5 30 "$BRIG" --root "$T/root" pool destroy P
	mkdir -p "$T/tmp"
	run_cmd in_cg A env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" pool create P --size 1 \
		--rootfs "$ROOTFS"
	assert_rc 0 || return
	m=$(members P)
	assert_member_under "$m" A "the first member (made by a creator in A)"

	run_cmd in_cg B env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" job --pool P \
		--result "$T/result.json" -- true
	assert_rc 0
	assert_eq "$(res pool),$(res id)" "\"hit\",\"$m\"" "the claim from B"
	wait_until 10 ready_is P 1 || fail "pool P did not refill"
	wait_until 10 no_claims P
	m2=$(members P)
	assert_ne "$m2" "$m" "the replacement"
	assert_member_under "$m2" A "the replacement (made by B's claim)"
	rmpool P

	defer timeout -k 5 30 "$BRIG" --root "$T/root" pool destroy Q
	bp create Q --size 1 --rootfs "$ROOTFS" --cgroup-parent C
	assert_rc 0 || return
	m=$(members Q)
	assert_member_under "$m" C "pool Q's member (--cgroup-parent C)"
	run_cmd in_cg B env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" job --pool Q \
		--result "$T/result.json" -- true
	assert_rc 0
	assert_eq "$(res pool)" '"hit"' "the claim of Q from B"
	wait_until 10 ready_is Q 1 || fail "pool Q did not refill"
	wait_until 10 no_claims Q
	m2=$(members Q)
	assert_member_under "$m2" C "pool Q's replacement (made by B's claim)"
	rmpool Q
	rm_cgroups A
	rm_cgroups B
	rm_cgroups C
	assert_clean
}

# Bad --cgroup-parent values: one line naming the flag, 125, no pool.  A
# record that is not brig's own (writable by others) stops every fill.
t_cgroup_parent_bad() {
	local bad
	for bad in ../up a/../b a//b ./a "" nosuch-$$ /nosuch-$$ "$(printf 'a\tb')"; do
		bp create P --size 1 --rootfs "$ROOTFS" --cgroup-parent "$bad"
		assert_rc 125
		assert_lines 1 "$err" "stderr of --cgroup-parent $(_show "$bad")"
		assert_match "$err" '^brig: --cgroup-parent' "stderr of --cgroup-parent $(_show "$bad")"
		assert_no_file "$T/root/pools/P"
	done
	mkpool P --size 1 || return
	bp fill P --cgroup-parent x
	assert_rc 125
	assert_eq "$err" "brig: --cgroup-parent is a flag of pool create: a pool's cgroup is decided once" "stderr of pool fill --cgroup-parent"
	chmod 0666 "$T/root/pools/P/cgroup"
	"$BRIG" --root "$T/root" list -q | grep '^P-' | head -1 >"$T/m"
	timeout 30 "$BRIG" --root "$T/root" delete --force "$(cat "$T/m")"
	rm -rf "$T/root/pools/P/ready/$(cat "$T/m")" "$T/root/jobs/$(cat "$T/m")"
	bp fill P
	assert_rc 125
	assert_lines 1 "$err" "stderr of a fill with a record writable by others"
	assert_contains "$err" "not a file of brig's own" "stderr of a fill with a record writable by others"
	assert_eq "$(members P)" "" "members made"
	rmpool P
	assert_clean
}

tap_test "a pooled job's /proc/1 shows \"brig init\", nothing of brig's argv or environ" t_init_name
tap_test "a forged ready/ entry naming a listener: nothing sent, a cold job" t_forged_listener
tap_test "a forged ready/ entry naming another pool's member: nothing sent, it still waits" t_forged_other_member
tap_test "a real member's entry rewritten (pid, hand-off fd): refused, nothing sent" t_forged_fds
tap_test "entries naming running jobs: no claim, follower or gc deletes them" t_forged_victim
tap_test "members' cgroups stay under the pool's parent whoever claims and refills" t_cgroup_parent
tap_test "bad --cgroup-parent: one line, 125, nothing left; a foreign record stops a fill" t_cgroup_parent_bad
tap_done
