# shellcheck shell=bash
# tests/lib/tap.sh: a small TAP producer for brig's shell tests.
#
#   . "${BRIG_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"
#
#   t_version() {
#       run_cmd "$BRIG" --version
#       assert_rc 0
#       assert_eq "$(sed -n 3p <<<"$out")" "spec: 1.3.0"
#   }
#   tap_test "--version prints three lines" t_version
#   tap_done
#
# Every test runs in its own subshell, in a fresh empty directory $T that is
# removed afterwards (with anything registered through `defer`).  Assertions
# print "# ..." diagnostics and mark the test failed but let it go on, so one
# run shows every broken expectation; `skip REASON` ends the test as skipped.
# The plan ("1..N") is printed at the end by tap_done.
#
# Environment (set by `make check`, guessed when a test is run by hand):
#   BRIG           absolute path of the brig binary under test
#   BRIG_SRCDIR    top of the source tree
#   BRIG_BUILDDIR  top of the build tree
#   TAP_TIMEOUT    seconds a run_cmd may take (default 60)

export LC_ALL=C
if [ -z "${BRIG_SRCDIR:-}" ]; then
	BRIG_SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fi
: "${BRIG_BUILDDIR:=$BRIG_SRCDIR}"
: "${BRIG:=$BRIG_BUILDDIR/brig}"
export BRIG BRIG_SRCDIR BRIG_BUILDDIR

_tap_n=0
_tap_state=$(mktemp -d "${TMPDIR:-/tmp}/brig-tap.XXXXXX") || {
	echo "Bail out! cannot create a temporary directory"
	exit 1
}
trap 'rm -rf "$_tap_state"' EXIT
# The real paths the leak checks compare mount points with, once per file:
# a test's $T is $_tap_tmp/brig-test.XXXXXX.
_tap_tmp=$(realpath -m "${TMPDIR:-/tmp}")
_tap_state_real=$(realpath -m "$_tap_state")

# diag MSG...: a TAP comment line per line of MSG.
diag() {
	local line
	while IFS= read -r line; do
		printf '# %s\n' "$line"
	done <<<"$*"
}

# skip_all REASON: the whole file is skipped (call before any tap_test).
skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

# ------------------------------------------------------------------ tests

# tap_test NAME FUNC [ARGS...]: run FUNC ARGS in a subshell inside a fresh
# directory $T and report one TAP line for it.
tap_test() {
	local name=$1 rc leaked t0=$EPOCHREALTIME
	shift
	# BRIG_TEST_ONLY=TAG (a list of the vm layer): only the tests given
	# TAG in TAP_TAGS (`TAP_TAGS=cgroup tap_test ...`) run; the others
	# are left out of the plan, and tap_done says how many
	if [ -n "${BRIG_TEST_ONLY:-}" ] && [[ " ${TAP_TAGS:-} " != *" $BRIG_TEST_ONLY "* ]]; then
		_tap_left_out=$((${_tap_left_out:-0} + 1))
		return
	fi
	_tap_n=$((_tap_n + 1))
	# BRIG_TEST_MATCH=REGEX (a developer's aid): only the tests whose
	# names match run; the others are skipped, saying so
	if [ -n "${BRIG_TEST_MATCH:-}" ] && ! [[ "$name" =~ $BRIG_TEST_MATCH ]]; then
		echo "ok $_tap_n - $name # SKIP not matched by BRIG_TEST_MATCH"
		return
	fi
	T=$(mktemp -d "${TMPDIR:-/tmp}/brig-test.XXXXXX") || {
		echo "not ok $_tap_n - $name"
		diag "cannot create a temporary directory"
		return
	}
	printf '%s\n' "$(</proc/self/mountinfo)" >"$_tap_state/mounts"
	_tap_body "$@"
	rc=$?

	# Nothing a test did may outlive it: no process, no new mount anywhere
	# on the host, no mount left under its directory, no cgroup.  (A test makes its
	# own mounts only under $T, and removes them.)  Each check writes a
	# file that the shell reads itself: a $(...) forks, and a fork costs
	# 5 ms here, at every test.
	_tap_leaked_procs >"$_tap_state/leaked"
	leaked=$(<"$_tap_state/leaked")
	if [ -n "$leaked" ]; then
		diag "leaked processes (killed now):" "$leaked"
		rc=1
		_tap_kill_leaked
	fi
	_tap_mount_checks "$_tap_state/mounts" "$T" "$_tap_state/under" >"$_tap_state/leaked"
	leaked=$(<"$_tap_state/leaked")
	if [ -n "$leaked" ]; then
		diag "new host mounts:" "$leaked"
		rc=1
	fi
	leaked=$(<"$_tap_state/under")
	if [ -n "$leaked" ]; then
		diag "leaked mounts under $T:" "$leaked"
		rc=1
		_tap_umount_under "$T"
	fi
	_tap_cgroups_left >"$_tap_state/leaked"
	leaked=$(<"$_tap_state/leaked")
	if [ -n "$leaked" ]; then
		diag "leaked cgroup directories (removed now):" "$leaked"
		rc=1
		_tap_cgroups_remove
	fi
	rm -rf "$T" 2>/dev/null || {
		diag "could not remove $T"
		rc=1
	}
	unset T

	if [ -f "$_tap_state/skip" ]; then
		echo "ok $_tap_n - $name # SKIP $(<"$_tap_state/skip")"
	elif [ "$rc" -eq 0 ]; then
		echo "ok $_tap_n - $name"
	else
		echo "not ok $_tap_n - $name"
	fi
	# its wall time, leak checks included (run-all.sh lists the slowest)
	_tap_took "$t0" "$name"
}

# _tap_took T0 NAME: "# took S.mmm s: NAME", the seconds since T0 (an
# $EPOCHREALTIME).
_tap_took() {
	local us=$((${EPOCHREALTIME/./} - ${1/./}))
	printf '# took %d.%03d s: %s\n' $((us / 1000000)) $((us / 1000 % 1000)) "$2"
}

# _tap_body CMD [ARGS...]: run CMD ARGS as a test's body, in a subshell
# inside $T: its assertions count, its defers run when it ends, a command
# not found fails it (with a diagnostic).  0 passed, 1 failed; a `skip`
# leaves $_tap_state/skip behind.
_tap_body() {
	# (rm only when there is one: a process costs 8 ms, at every test)
	[ ! -e "$_tap_state/skip" ] || rm -f "$_tap_state/skip"
	[ ! -e "$_tap_state/cnf" ] || rm -f "$_tap_state/cnf"
	(
		export T
		_tap_failed=0
		_tap_defers=()
		trap '_tap_run_defers' EXIT
		cd "$T" || exit 1
		"$@" </dev/null
		exit "$_tap_failed"
	)
	[ $? -eq 0 ] && [ ! -f "$_tap_state/cnf" ] && return 0
	if [ -f "$_tap_state/cnf" ]; then
		diag "$(<"$_tap_state/cnf")"
	fi
	return 1
}

# tap_done: print the plan; the exit status is always 0 (failures are in
# the "not ok" lines, a non-zero status would count them twice).
tap_done() {
	[ "${_tap_left_out:-0}" -eq 0 ] ||
		diag "$_tap_left_out test(s) without the tag $BRIG_TEST_ONLY left out (BRIG_TEST_ONLY)"
	echo "1..$_tap_n"
	exit 0
}

# skip REASON: end the current test as skipped.
skip() {
	printf '%s\n' "$*" >"$_tap_state/skip"
	exit 0
}

require_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
}

require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "needs $c"
	done
}

# A typo in a test is a failure, not a quiet pass.  (bash runs this handler
# in a separate environment: it leaves its mark in a file.)
command_not_found_handle() {
	printf 'FAIL: command not found: %s\n' "$1" >>"$_tap_state/cnf"
	printf '%s: command not found\n' "$1" >&2
	return 127
}

# defer CMD [ARGS...]: run CMD when the current test ends (last in, first out).
defer() {
	local q
	printf -v q '%q ' "$@"
	_tap_defers+=("$q")
}

# save_canaries FILE...: remember what each existing host FILE (a sysctl,
# say) holds, in SAVED; the test puts back whatever changed when it ends.
save_canaries() {
	local c
	declare -gA SAVED
	for c in "$@"; do
		[ -e "$c" ] || continue
		SAVED[$c]=$(cat "$c")
	done
	defer restore_canaries
}

# restore_canaries: write back every saved FILE whose content changed.
restore_canaries() {
	local c
	for c in "${!SAVED[@]}"; do
		[ -e "$c" ] || continue
		[ "$(cat "$c")" = "${SAVED[$c]}" ] || printf '%s\n' "${SAVED[$c]}" >"$c"
	done
}

# assert_canaries WHEN: every saved FILE still holds what it held
# ("host FILE WHEN" names a failure).
assert_canaries() {
	local c
	for c in "${!SAVED[@]}"; do
		assert_eq "$(cat "$c")" "${SAVED[$c]}" "host $c $1"
	done
}

_tap_run_defers() {
	local i
	for ((i = ${#_tap_defers[@]} - 1; i >= 0; i--)); do
		eval "${_tap_defers[i]}" >/dev/null 2>&1 || true
	done
}

# Mount points at or below DIR, from /proc/self/mountinfo (field 5,
# octal-escaped by the kernel).
# The host's mount table without mount ids, which change on every mount:
# mount point, options, fs type and source, sorted.
_tap_mount_lines() {
	awk '{ sub(/^[0-9]+ [0-9]+ /, ""); print }' /proc/self/mountinfo | sort
}

# Drop mount lines that belong to another test running at the same time
# (make check runs test files in parallel): a test mounts only under its
# own $T, so a mount under another test's directory is that test's; and
# under another file's state directory (its shared rootfs, which a
# container without a mount namespace of its own has mounts on, in the
# namespace all the files share), that file's.
_tap_not_other_tests() {
	_tap_not_others_vars "$1"
	awk "${_tap_av[@]}" "$_TAP_AWK_LIB$_TAP_NOT_OTHERS"
}
_TAP_NOT_OTHERS='{
	p = mpath($3)
	if (index(p, base) == 1 && !at_or_below(p, mine)) next
	if (index(p, files) == 1 && !at_or_below(p, file)) next
	print
}'

# _tap_not_others_vars DIR: $_tap_av = the awk variables of
# $_TAP_NOT_OTHERS for the test whose $T is DIR.
_tap_not_others_vars() {
	_tap_real "$1"
	_tap_av=(-v mine="$_tap_r" -v base="$_tap_tmp/brig-test."
		-v file="$_tap_state_real" -v files="$_tap_tmp/brig-tap.")
}

# The awk functions of the mount checks: mpath(P), a mount point of
# mountinfo as a path (its spaces are "\040"); at_or_below(P, D), the
# path P is D or under it.
_TAP_AWK_LIB='function mpath(p) { gsub(/\\040/, " ", p); return p }
function at_or_below(p, d) { return p == d || index(p, d "/") == 1 }
'

# _tap_real DIR: $_tap_r = the real path of DIR, with no process when DIR
# is a test's own $T (made in $_tap_tmp, whose real path is known).
_tap_real() {
	if [ "${1%/*}" = "${TMPDIR:-/tmp}" ] && [[ "${1##*/}" == brig-test.* ]]; then
		_tap_r=$_tap_tmp/${1##*/}
	else
		_tap_r=$(realpath -m "$1")
	fi
}

# _tap_mount_checks SAVED DIR UNDER: the lines of the host's mount table
# (as _tap_mount_lines prints them) that were not in SAVED (a copy of
# /proc/self/mountinfo), as many times as they are there more, less
# those of other tests (_tap_not_other_tests; DIR is the test's $T), in
# the table's order; and in the file UNDER, the mount points at or below
# DIR (as _tap_mounts_under prints them).  One awk for what took twelve
# processes.
_tap_mount_checks() {
	: >"$3"
	_tap_not_others_vars "$2"
	awk "${_tap_av[@]}" -v under="$3" "$_TAP_AWK_LIB"'
		FNR == NR { sub(/^[0-9]+ [0-9]+ /, ""); saved[$0]++; next }
		at_or_below(mpath($5), mine) { print mpath($5) > under }
		{ sub(/^[0-9]+ [0-9]+ /, "") }
		saved[$0] > 0 { saved[$0]--; next }
		'"$_TAP_NOT_OTHERS" "$1" /proc/self/mountinfo
}

# Processes a test left behind.  Tests run under tests/helpers/subreaper,
# which adopts every orphan (a container init whose `brig create` exited):
# any child of it other than this script is a leak, unless it has already
# exited (a zombie the subreaper has not reaped yet, or gone by the time it
# is looked at).  Without the subreaper (a test run by hand) nothing can be
# told apart.
_tap_leaked_procs() {
	local f line pid
	[ -n "${BRIG_SUBREAPER_PID:-}" ] || return 0
	for f in /proc/"$BRIG_SUBREAPER_PID"/task/*/children; do
		line=
		{ read -r line <"$f"; } 2>/dev/null
		for pid in $line; do
			[ "$pid" = "$$" ] && continue
			alive "$pid" || continue
			echo "$pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
		done
	done
}

_tap_kill_leaked() {
	local pid rest
	_tap_leaked_procs | while read -r pid rest; do
		kill -KILL "$pid" 2>/dev/null
	done
	sleep 0.2
}

# Cgroup directories a test left behind: under the test file's own
# cgroups (made by tests/helpers/subreaper, listed in $BRIG_TEST_CGROUPS),
# anything but the leaf "shell" that holds this script on a v2 host.
_tap_cgroups_left() {
	[ -n "${BRIG_TEST_CGROUPS:-}" ] || return 0
	# the shell's own globbing: a find per hierarchy took 70 ms a test
	with_globstar _tap_cgroups_below
}
_tap_cgroups_below() {
	local dir d IFS=:
	for dir in $BRIG_TEST_CGROUPS; do
		[ -d "$dir" ] || continue
		for d in "$dir"/**/; do
			d=${d%/}
			[ "$d" = "$dir" ] || [ "$d" = "$dir/shell" ] || echo "$d"
		done
	done
}

# with_globstar CMD [ARGS...]: CMD with the shell's globstar and nullglob
# on ("DIR/**/NAME": NAME in DIR and below, nothing when none), then both
# as they were.
with_globstar() {
	local globstar=0 nullglob=0 rc
	shopt -q globstar && globstar=1
	shopt -q nullglob && nullglob=1
	shopt -s globstar nullglob
	"$@"
	rc=$?
	[ "$globstar" = 1 ] || shopt -u globstar
	[ "$nullglob" = 1 ] || shopt -u nullglob
	return "$rc"
}

# The tests' names for the two above: strays (the processes left, one
# "PID CMDLINE" a line) and cgroups_left (the cgroup directories left).
strays() { _tap_leaked_procs; }
cgroups_left() { _tap_cgroups_left; }

_tap_cgroups_remove() {
	local d
	_tap_cgroups_left | sort -r | while IFS= read -r d; do
		rmdir "$d" 2>/dev/null
	done
}

_tap_mounts_under() {
	[ -r /proc/self/mountinfo ] || return 0
	_tap_real "$1"
	awk -v d="$_tap_r" "$_TAP_AWK_LIB"'at_or_below(mpath($5), d) { print mpath($5) }' \
		/proc/self/mountinfo
}

_tap_umount_under() {
	local m
	_tap_mounts_under "$1" | sort -r | while IFS= read -r m; do
		umount -l "$m" 2>/dev/null
	done
}

# ----------------------------------------------------------- running things

# side_runc: the path of runc, for a test that runs the same bundle with
# runc side by side (with a relative cgroupsPath, so that runc nests the
# container under the caller's cgroups too); nothing (status 1) where runc
# is not installed, or in the qemu guest of tests/vm (BRIG_VM=1), where
# runc's containers leave a cgroup2 mount in the guest's mount table.
side_runc() {
	[ "${BRIG_VM:-0}" != 1 ] && command -v runc
}

# run_cmd CMD [ARGS...]: run CMD with stdin from /dev/null and set
#   out, err   its stdout and stderr (trailing newlines removed)
#   rc         its exit status (124 when it ran longer than TAP_TIMEOUT)
#   out_file, err_file   the exact bytes, valid until the next run_cmd
run_cmd() {
	out_file=$_tap_state/out.$BASHPID
	err_file=$_tap_state/err.$BASHPID
	if declare -F "$1" >/dev/null; then
		"$@" </dev/null >"$out_file" 2>"$err_file"
	else
		"${_TAP_TIMEOUT[@]}" -k 5 "${TAP_TIMEOUT:-60}" "$@" </dev/null >"$out_file" 2>"$err_file"
	fi
	rc=$?
	# (the shell reads them itself: $(cat) forked twice, 15 ms a command)
	out=$(<"$out_file")
	err=$(<"$err_file")
	return 0
}

# run_cmd's timeout: tests/helpers/deadline where make check built it (a
# static `timeout -k`, 2.6 ms a command where coreutils' costs 6.2), or
# timeout itself.
if [ -x "${BRIG_BUILDDIR:-}/tests/helpers/deadline" ]; then
	_TAP_TIMEOUT=("$BRIG_BUILDDIR/tests/helpers/deadline")
else
	_TAP_TIMEOUT=(timeout)
fi

# brig ARGS...: run_cmd "$BRIG" ARGS...
brig() {
	run_cmd "$BRIG" "$@"
}

# br ARGS...: brig with the test's own --root "$T/root" (sets out, err, rc).
br() {
	brig --root "$T/root" "$@"
}

# state_field ID FIELD: one top-level field of `brig state ID` under
# $T/root (empty when it fails).  Wait loops poll it: a string or a number
# on its line at the top level of brig's indented output ("  \"pid\": 42")
# is read by the shell; anything else by jq (30 ms a start here, far more
# in a TCG guest).
state_field() {
	local out re=$'\n  "'"$2"'": ("([^"\\]*)"|(-?[0-9]+)),?\n'
	out=$("$BRIG" --root "$T/root" state "$1" 2>/dev/null) || return 0
	if [[ $out =~ $re ]]; then
		echo "${BASH_REMATCH[2]}${BASH_REMATCH[3]}"
	else
		jq -r ".$2" <<<"$out" 2>/dev/null
	fi
}

is_status() { # ID STATUS
	[ "$(state_field "$1" status)" = "$2" ]
}

# wait_until SECS CMD [ARGS...]: poll CMD every 50 ms until it succeeds;
# fails after SECS seconds.
wait_until() {
	local n=$(($1 * 20))
	shift
	until "$@"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.05
	done
}

# comm_is PID COMM: /proc/PID/comm is COMM.  busybox's sh runs an applet
# through /proc/self/exe, so a process is "exe" until the applet names
# itself: wait for the name, never read it once.
comm_is() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]
}

is_socket() { # PATH
	[ -S "$1" ]
}

# start_receiver SOCKET [RECEIVER-ARGS...]: contrib's console receiver
# ($RECEIVER) in the background ($RECV_PID), listening once SOCKET
# exists; its stderr in $T/receiver.err.
start_receiver() {
	local sock=$1
	shift
	"$RECEIVER" "$@" "$sock" 2>"$T/receiver.err" &
	RECV_PID=$!
	defer kill_wait "$RECV_PID"
	wait_until 10 is_socket "$sock" || fail "the receiver does not listen on $sock"
}

file_exists() {
	[ -e "$1" ]
}

# wait_for FILE [TENTHS]: until FILE exists (default 10 s).
wait_for() {
	local i
	for ((i = 0; i < ${2:-100}; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# wait_exit PID SECS: wait for our background child PID for at most SECS
# seconds; its exit status in $rc.  A child that hangs is killed (rc=124).
wait_exit() {
	local pid=$1 n=$(($2 * 20))
	while _tap_proc_state "$pid" && [ "$_tap_s" != Z ] && [ -n "$_tap_s" ]; do
		n=$((n - 1))
		if [ "$n" -le 0 ]; then
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			rc=124
			fail "process $pid did not exit within $2 s"
			return 1
		fi
		sleep 0.05
	done
	wait "$pid"
	rc=$?
}

# need_faults: the test needs BRIG_FAULT (runtime/util/fault.h), which only
# a build configured with --enable-fault-injection has: skipped otherwise.
need_faults() {
	have_faults || skip "brig was built without --enable-fault-injection (CI's asan build has it)"
}

# have_faults: brig was built with fault injection (BRIG_FAULT).
have_faults() {
	grep -q '^#define BRIG_FAULTS 1' "$BRIG_BUILDDIR/config.h" 2>/dev/null
}

# proc_state PID: the one-letter state of PID (empty when there is none).
proc_state() {
	_tap_proc_state "$1"
	[ -z "$_tap_s" ] || echo "$_tap_s"
}

# _tap_proc_state PID: $_tap_s = the one-letter state of PID (empty when
# there is none), read by the shell itself (the field after the last ")":
# the name between the parentheses may hold anything).
_tap_proc_state() {
	local line=
	_tap_s=
	{ IFS= read -r line <"/proc/$1/stat"; } 2>/dev/null
	[[ "$line" == *") "* ]] || return 0
	line=${line##*) }
	_tap_s=${line%% *}
}

# alive PID: PID is a process, not a zombie.
alive() {
	_tap_proc_state "$1"
	[ -n "$_tap_s" ] && [ "$_tap_s" != Z ] && [ "$_tap_s" != X ]
}

# dead PID: the opposite of alive.
dead() {
	! alive "$1"
}

# kill_wait [-SIG] PID...: signal each PID (SIGKILL unless -SIG says
# otherwise), then wait until it is gone: at most 5 s (then SIGKILL), and
# reaped when it is this shell's child.  What a test starts in the
# background is deferred to this, not to a bare kill: the leak check at
# the test's end would otherwise race the process's exit (an ASan build's
# takes milliseconds).
kill_wait() {
	local sig=-KILL p
	case ${1:-} in
	-*)
		sig=$1
		shift
		;;
	esac
	for p in "$@"; do
		kill "$sig" "$p" 2>/dev/null
	done
	for p in "$@"; do
		wait_until 5 dead "$p" || kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	return 0
}

# nlines STRING: number of lines in STRING (0 for the empty string).
nlines() {
	if [ -z "$1" ]; then
		echo 0
	else
		printf '%s\n' "$1" | wc -l
	fi
}

# --------------------------------------------------------------- assertions
# Each prints a diagnostic naming the caller's line and marks the test
# failed; each returns 1 on failure so `assert_x || return` can stop early.

fail() {
	local i src='?' line='?'
	# The innermost caller outside this library is the test's line.
	for ((i = 1; i < ${#BASH_SOURCE[@]}; i++)); do
		if [ "${BASH_SOURCE[i]}" != "${BASH_SOURCE[0]}" ]; then
			src=${BASH_SOURCE[i]} line=${BASH_LINENO[i - 1]}
			break
		fi
	done
	_tap_failed=1
	diag "FAIL at ${src##*/}:$line: $*"
	return 1
}

# _show STRING: STRING quoted for a diagnostic ("..." when printable).
_show() {
	local s=$1 more=
	if [ ${#s} -gt 2000 ]; then
		more="...(${#s} bytes)"
		s=${s:0:2000}
	fi
	if [[ "$s" == *[[:cntrl:]]* ]]; then
		printf '%q%s' "$s" "$more"
	else
		printf '"%s"%s' "$s" "$more"
	fi
}

assert_eq() { # ACTUAL EXPECTED [WHAT]
	[ "$1" == "$2" ] && return 0
	fail "${3:-value}: expected $(_show "$2"), got $(_show "$1")"
}

assert_ne() { # ACTUAL UNEXPECTED [WHAT]
	[ "$1" != "$2" ] && return 0
	fail "${3:-value}: expected anything but $(_show "$2")"
}

assert_contains() { # HAYSTACK NEEDLE [WHAT]
	[[ "$1" == *"$2"* ]] && return 0
	fail "${3:-value}: expected to contain $(_show "$2"), got $(_show "$1")"
}

assert_not_contains() { # HAYSTACK NEEDLE [WHAT]
	[[ "$1" != *"$2"* ]] && return 0
	fail "${3:-value}: expected not to contain $(_show "$2"), got $(_show "$1")"
}

assert_match() { # STRING ERE [WHAT]
	[[ "$1" =~ $2 ]] && return 0
	fail "${3:-value}: expected to match /$2/, got $(_show "$1")"
}

assert_rc() { # EXPECTED: the exit status of the last run_cmd
	[ "$rc" -eq "$1" ] && return 0
	fail "exit status: expected $1, got $rc" "(stdout: $(_show "$out"); stderr: $(_show "$err"))"
}

assert_lines() { # N STRING [WHAT]
	local n
	n=$(nlines "$2")
	[ "$n" -eq "$1" ] && return 0
	fail "${3:-value}: expected $1 line(s), got $n: $(_show "$2")"
}

# assert_err_line TEXT: stderr of the last run_cmd is exactly one line TEXT.
assert_err_line() {
	assert_eq "$err" "$1" "stderr"
}

assert_json() { # STRING [WHAT]: STRING is one valid JSON document
	jq -e . >/dev/null 2>&1 <<<"$1" && return 0
	fail "${2:-value}: not valid JSON: $(_show "$1")"
}

assert_file() { # PATH
	[ -f "$1" ] && return 0
	fail "expected a regular file $1"
}

assert_no_file() { # PATH
	[ ! -e "$1" ] && [ ! -L "$1" ] && return 0
	fail "expected $1 not to exist"
}

# assert_empty_dir DIR: DIR is absent or empty.
assert_empty_dir() {
	[ -e "$1" ] || return 0
	if [ -d "$1" ] && [ -z "$(ls -A "$1")" ]; then
		return 0
	fi
	fail "expected $1 to be empty or absent, it holds: $(cd "$1" 2>/dev/null && find . -mindepth 1 | head -20 | tr '\n' ' ')"
}

# assert CMD [ARGS...]: CMD succeeds.
assert() {
	"$@" && return 0
	fail "command failed: $*"
}
