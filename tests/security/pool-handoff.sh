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

cgroups_left() {
	local dir
	local IFS=:
	for dir in $BRIG_TEST_CGROUPS; do
		[ -d "$dir" ] || continue
		find "$dir" -mindepth 1 -type d ! -path "$dir/shell" 2>/dev/null
	done
}

strays() {
	local pid
	[ -n "${BRIG_SUBREAPER_PID:-}" ] || return 0
	for pid in $(cat /proc/"$BRIG_SUBREAPER_PID"/task/*/children 2>/dev/null); do
		[ "$pid" = "$$" ] && continue
		alive "$pid" && echo "$pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
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

tap_test "a pooled job's /proc/1 shows \"brig init\", nothing of brig's argv or environ" t_init_name
tap_done
