#!/bin/bash
# A container must never reach a process that is not its own: not through
# a cgroup it was told to use, not through a pid that changed hands.
#
# 1. Hijacking another workload's cgroup.  linux.cgroupsPath may name an
#    existing cgroup.  If that cgroup holds processes, they are another
#    workload's: a container put there would share (and, with its own
#    resources, rewrite) that workload's limits, and `kill --all` or
#    `delete --force`, which drain the container's cgroup, would kill it.
#    A cgroup is one directory per hierarchy, and the workload may sit in
#    any of them: on a v1 or hybrid host, in every hierarchy but the first
#    one (the only one brig 18285a8 looked at, and not even that one when
#    it made the directory there), only in the unified (v2) one, in a
#    single one where brig creates the directory in all the others, or in
#    a cgroup below the one named.  brig refuses a cgroupsPath whose
#    cgroup holds processes in ANY hierarchy, in one line naming the
#    cgroup, before it writes a single limit, and leaves nothing behind.
#    And kill --all and delete drain only cgroups brig made for the
#    container: a cgroup that was there (empty) before create, which
#    someone else joins later, is not the container's to drain.
#
#    Each test places a victim `sleep` in a cgroup "victim" nested under
#    the test file's own cgroup in each hierarchy (made by
#    tests/helpers/subreaper: the machine's own cgroups are never
#    touched) and points a container with pids and memory limits at it.
#    The cgroupsPath is "victim", relative: brig nests it under the
#    caller's cgroup in every hierarchy, exactly where the victim is.  (An
#    absolute path is one path for every hierarchy; where the test's own
#    cgroups differ between hierarchies, as on this machine whose memory
#    hierarchy puts everything under the supervisor's cgroup, it cannot
#    stay under them, and its test skips.)  The victim must be alive, its
#    limits unchanged, after create, kill --all KILL and delete --force.
#
#    runc 1.1.5 on the same attacks (checked side by side on this host):
#    it accepts joining a populated cgroup, at most with a warning
#    ("container's cgroup is not empty: 1 process(es) found ... won't be
#    supported in runc 1.2"), and writes the container's limits into the
#    victim's cgroup (pids.max became 7).  Like brig 18285a8 it looks at
#    one hierarchy only (devices, here): a victim in devices only draws
#    the warning, and `kill --all KILL` kills it; a victim in pids only,
#    or in the unified hierarchy only, draws nothing, gets the container's
#    limits, and survives kill --all.  Its `delete --force` of a container
#    with its own pid namespace kills only the init (the namespace takes
#    the rest), so the victim survived that.  runc 1.2 refuses a non-empty
#    cgroup (runc issue 3132).
#
# 2. Pid reuse.  To signal every process of a container, brig lists them
#    (/proc for a container with its own pid namespace and no cgroup,
#    cgroup.procs otherwise: `kill --all`, and `delete --force` draining
#    the cgroup), then pins each pid with pidfd_open().  A pid whose
#    process exits between the two may be handed to an unrelated process,
#    which the pidfd then pins and the signal hits.  brig opens the pidfd
#    first and checks membership after (a pidfd's process cannot change).
#    The attack is deterministic, not a race: brig runs with
#    tests/security/pidreuse-shim.so preloaded, which, when brig pins the
#    chosen container pid P (or freezes the cgroup, after reading it),
#    kills that process and makes a victim take P (ns_last_pid and fork)
#    before letting brig go on.  All of it runs in a pid namespace of the
#    test's own (unshare --pid --mount-proc), so only the test's pids are
#    touched.  Each test asserts the reuse really happened (the victim
#    has pid P) and that the victim survived; and, so that a brig which
#    signals nothing cannot pass, that the container's other process got
#    the signal.
#
#    runc 1.1.5 (libcontainer's signalAllProcesses) freezes the cgroup,
#    KILL or not, then reads cgroup.procs and signals each pid with
#    kill(2), then thaws: no pidfd, but a v1 frozen task cannot exit, so
#    the pids hold still while the freeze does (a failed freeze is only a
#    warning).  brig 18285a8 froze for every signal but KILL, and its
#    drain read the pids before freezing.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

# --------------------------------------------------------- pid reuse: inside

# inner_pidreuse MODE (run as pid 1 of a new pid namespace, see
# run_pidreuse): start the bundle $T/b as container c, pick one of its two
# sleeps as the target P, run the attacked command with the shim
# preloaded, and report on stdout, one "key value" per line, what became
# of everything.  MODE is pidns (kill --all USR1, no cgroup), cgroup (kill
# --all KILL, no cgroup.kill) or drain (delete --force, no cgroup.kill).
inner_pidreuse() {
	local mode=$1 init kids p other ns i g=() cmd=("${@:2}") sleep_bin
	[ "$mode" = pidns ] && g=(--cgroup-manager disabled)
	[ "$mode" != pidns ] && export PIDREUSE_NO_CGROUP_KILL=1
	sleep_bin=$(command -v sleep)
	"$BRIG" --root "$T/root" "${g[@]}" run --detach --bundle "$T/b" c >"$T/run.out" 2>&1 || {
		echo "error run: $(cat "$T/run.out")"
		return
	}
	init=$("$BRIG" --root "$T/root" state c | jq -r .pid)
	ns=$(readlink "/proc/$init/ns/pid")
	for ((i = 0; i < 100; i++)); do
		kids=$(cat "/proc/$init/task/$init/children" 2>/dev/null)
		# shellcheck disable=SC2086
		set -- $kids
		[ $# -ge 2 ] && break
		sleep 0.05
	done
	if [ $# -lt 2 ]; then
		echo "error the container's sleeps did not start: $kids"
	else
		p=$1 other=$2
		echo "target $p"
		PIDREUSE_TARGET=$p PIDREUSE_REPORT=$T/report PIDREUSE_VICTIM=$sleep_bin LD_PRELOAD=$PRELOAD \
			"$BRIG" --root "$T/root" "${g[@]}" "${cmd[@]}" >"$T/cmd.out" 2>&1
		echo "rc $?"
		echo "output $(tr '\n' ' ' <"$T/cmd.out")"
		sleep 0.3
		# the victim: not a container process, whatever brig did
		if grep -q "^victim $p\$" "$T/report" 2>/dev/null; then
			if alive "$p" && [ "$(tr '\0' ' ' <"/proc/$p/cmdline")" = "$sleep_bin 1000 " ]; then
				echo "victim alive"
			else
				echo "victim dead"
			fi
		fi
		if alive "$other" && [ "$(readlink "/proc/$other/ns/pid")" = "$ns" ]; then
			echo "other alive"
		else
			echo "other dead"
		fi
		sed 's/^/shim /' "$T/report" 2>/dev/null
		grep -q "^victim $p\$" "$T/report" 2>/dev/null && kill -KILL "$p" 2>/dev/null
	fi
	"$BRIG" --root "$T/root" "${g[@]}" delete --force c >/dev/null 2>&1
}

# Run as `bash cgroup-hijack.sh --inner FUNC ARGS...` inside the namespace.
if [ "${1:-}" = --inner ]; then
	shift
	"$@"
	exit 0
fi

brig_file_rootfs

# ------------------------------------------------------------ cgroup hijack

# The test file's own cgroup in each hierarchy (tests/helpers/subreaper).
test_cgroups() {
	[ -n "${BRIG_TEST_CGROUPS:-}" ] ||
		skip "needs the test file's own cgroups (run under tests/helpers/subreaper, as make check does)"
	IFS=: read -ra CGS <<<"$BRIG_TEST_CGROUPS"
}

# victim_cgroups SUB DIR...: the cgroup DIR/SUB (made with its parents),
# for each DIR; $VDIRS lists them, $MADE every directory made here,
# removed (deepest first) when the test ends.
victim_cgroups() {
	local sub=$1 d p part
	shift
	VDIRS=() MADE=()
	defer remove_made
	for d in "$@"; do
		p=$d
		while IFS= read -r -d / part; do
			p=$p/$part
			mkdir "$p" || fail "mkdir $p"
			MADE=("$p" "${MADE[@]}")
			case $p in
			*/cpuset/*) # a v1 cpuset takes no task before it has cpus and mems
				cat "${p%/*}/cpuset.cpus" >"$p/cpuset.cpus"
				cat "${p%/*}/cpuset.mems" >"$p/cpuset.mems"
				;;
			esac
		done <<<"$sub/"
		VDIRS+=("$p")
	done
}

remove_made() {
	local d i
	for d in "${MADE[@]}"; do
		for ((i = 0; i < 50; i++)); do
			rmdir "$d" 2>/dev/null || [ -d "$d" ] || break
			sleep 0.02
		done
	done
}

# start_victim: a `sleep` ($VICTIM), in every cgroup of $VDIRS, killed
# when the test ends.
start_victim() {
	local d
	sleep 1000 &
	VICTIM=$!
	defer kill_victim
	for d in "${VDIRS[@]}"; do
		echo "$VICTIM" >"$d/cgroup.procs" || fail "cannot move the victim into $d"
		grep -qx "$VICTIM" "$d/cgroup.procs" || fail "the victim is not in $d"
	done
}

kill_victim() {
	kill -KILL "$VICTIM" 2>/dev/null
	wait "$VICTIM" 2>/dev/null
}

# limits: the limit files of every cgroup made here, with their values.
limits() {
	local d f
	for d in "${MADE[@]}"; do
		for f in pids.max memory.limit_in_bytes memory.memsw.limit_in_bytes memory.max \
			memory.swap.max cpu.cfs_quota_us cpu.max; do
			[ -e "$d/$f" ] && echo "$d/$f=$(cat "$d/$f")"
		done
	done
}

# The bundle $T/b: `sleep 100` with a pids and a memory limit, in the
# cgroup $CGPATH (default "victim", relative: under the test's own).
limited_bundle() {
	mkbundle '.linux.resources.pids = {limit: 7}
		| .linux.resources.memory = {limit: 67108864}' sleep 100 || return 1
	# shellcheck disable=SC2016 # jq's variable
	brig_bundle_edit "$T/b" '.linux.cgroupsPath = $p' --arg p "${CGPATH:-victim}"
}

# spare_victim BEFORE: kill --all KILL and delete --force of c (whatever
# is left of it) do not reach the victim, nor change its limits.
spare_victim() {
	br kill --all c KILL
	sleep 0.2
	alive "$VICTIM" || fail "kill --all KILL of c killed the victim"
	br delete --force c
	sleep 0.2
	alive "$VICTIM" || fail "delete --force of c killed the victim"
	assert_eq "$(limits)" "$1" "the victim's limits after kill --all and delete --force"
	assert_empty_dir "$T/root"
}

# hijack [SUB] DIR...: the attack, with the victim in DIR/victim (or
# DIR/victim/SUB) for each DIR: create is refused in one line naming the
# cgroup, nothing is left, and neither create nor kill --all nor delete
# --force reach the victim or its limits.
hijack() {
	local before d sub=victim
	[[ $1 == /* ]] || {
		sub=victim/$1
		shift
	}
	victim_cgroups "$sub" "$@"
	start_victim
	before=$(limits)
	limited_bundle || return
	delete_at_end c

	br create --bundle "$T/b" c
	assert_ne "$rc" 0 "exit status of create in a cgroup with the victim in ${VDIRS[*]}"
	assert_lines 1 "$err" "stderr of create"
	assert_contains "$err" victim "stderr of create (naming the cgroup)"
	assert alive "$VICTIM"
	assert_eq "$(limits)" "$before" "the victim's limits after create"
	assert_empty_dir "$T/root"
	# what brig made for the container in the other hierarchies is gone
	for d in "${CGS[@]}"; do
		[[ " ${MADE[*]} " == *" $d/victim "* ]] && continue
		[ -d "$d/victim" ] && fail "create left $d/victim behind"
	done
	spare_victim "$before"
}

# The baseline: the victim everywhere, the first hierarchy included.
t_hijack_everywhere() {
	require_root
	require_cmd jq
	test_cgroups
	hijack "${CGS[@]}"
}

# The finding as audited: the victim in every hierarchy but the first one
# (where brig made the directory, so it looked no further).
t_hijack_but_first() {
	require_root
	require_cmd jq
	test_cgroups
	[ "${#CGS[@]}" -ge 2 ] || skip "one cgroup hierarchy only (pure v2): nothing but the first"
	hijack "${CGS[@]:1}"
}

# The victim only in the unified hierarchy of a hybrid host: brig makes
# every v1 directory.  (delete drained it through its cgroup.kill.)
t_hijack_unified_only() {
	local d u=
	require_root
	require_cmd jq
	test_cgroups
	for d in "${CGS[@]}"; do
		[[ $d == /sys/fs/cgroup/unified/* ]] && u=$d
	done
	[ -n "$u" ] || skip "not a hybrid host: no unified hierarchy next to v1 ones"
	hijack "$u"
}

# The victim in one hierarchy at a time, each in turn (brig makes the
# directory in all the others).  pids: kill --all reads its cgroup.procs.
t_hijack_one_hierarchy() {
	local d
	require_root
	require_cmd jq
	test_cgroups
	[ "${#CGS[@]}" -ge 2 ] || skip "one cgroup hierarchy only (pure v2)"
	for d in "${CGS[@]}"; do
		subtest hijack "$d" || fail "with the victim in ${d#/sys/fs/cgroup/} only"
	done
}

# The cgroup itself is empty, a cgroup below it is not: kill --all and
# delete drain the whole tree.  Below it in the v1 pids hierarchy, whose
# cgroup.procs kill --all reads (a v1 devices cgroup with a child refuses
# the container's device rules, which would stop create by accident), or
# in the only hierarchy of a pure v2 host.
t_hijack_below() {
	local d where=()
	require_root
	require_cmd jq
	test_cgroups
	for d in "${CGS[@]}"; do
		[[ $d == /sys/fs/cgroup/pids/* ]] && where=("$d")
	done
	[ "${#CGS[@]}" -eq 1 ] && where=("${CGS[@]}")
	[ "${#where[@]}" -gt 0 ] || skip "no v1 pids hierarchy"
	hijack below "${where[@]}"
}

# An existing cgroup, empty at create (accepted: engines pre-create
# them), which another workload joins afterwards: it is not brig's to
# drain.  In every hierarchy, then in every one but the first (where brig
# makes the container's directory, which is all it may drain).
late_join() {
	local before
	victim_cgroups victim "$@"
	limited_bundle || return
	delete_at_end c
	br create --bundle "$T/b" c
	assert_rc 0 || return
	start_victim
	before=$(limits)
	spare_victim "$before"
}

t_hijack_late_join() {
	require_root
	require_cmd jq
	test_cgroups
	subtest late_join "${CGS[@]}" || fail "with the cgroup there before in every hierarchy"
	[ "${#CGS[@]}" -ge 2 ] || return 0
	subtest late_join "${CGS[@]:1}" || fail "with the cgroup there before in all but the first"
}

# The same with an absolute cgroupsPath: "/<the test's cgroup>/victim".
# One path names the cgroup in every hierarchy, so this is only nested
# under the test's own cgroups where they are the same in all of them.
t_hijack_absolute() {
	local d rel own=
	require_root
	require_cmd jq
	test_cgroups
	for d in "${CGS[@]}"; do
		rel=$(cgroup_of "$d")
		[ -z "$own" ] && own=$rel
		[ "$rel" = "$own" ] ||
			skip "the test's cgroups differ between hierarchies ($own, $rel): one absolute path cannot name both"
	done
	CGPATH=$own/victim hijack "${CGS[@]:1}"
}

# cgroup_of DIR: DIR as a cgroup path, without the mount point of its
# hierarchy (the longest cgroup mount point above it).
cgroup_of() {
	local mp best=
	while read -r mp; do
		[[ $1 == "$mp"/* ]] && [ ${#mp} -gt ${#best} ] && best=$mp
	done < <(awk '{ for (i = 7; $i != "-"; i++); if ($(i + 1) ~ /^cgroup2?$/) print $5 }' /proc/self/mountinfo)
	echo "${1#"$best"}"
}

# subtest CMD [ARGS...]: CMD in a subshell with its own defers (run when
# it ends); fails when one of its assertions did.
subtest() {
	(
		_tap_failed=0
		_tap_defers=()
		trap _tap_run_defers EXIT
		"$@"
		exit "$_tap_failed"
	)
}

# ----------------------------------------------------------------- pid reuse

# The shim, built for this brig (a shared object: LD_PRELOAD).
shim_path() {
	local built=$BRIG_BUILDDIR/tests/security/pidreuse-shim.so
	if [ -f "$built" ]; then
		echo "$built"
		return 0
	fi
	command -v gcc >/dev/null 2>&1 || return 1
	gcc -shared -fPIC -O2 -o "$T/pidreuse-shim.so" "$BRIG_SRCDIR/tests/security/pidreuse-shim.c" \
		-ldl || return 1
	echo "$T/pidreuse-shim.so"
}

# run_pidreuse MODE FILTER CMD...: the bundle $T/b (two sleeps under a
# `sh` that waits for them, then FILTER), inner_pidreuse MODE CMD... as
# pid 1 of a new pid namespace; its report in $out.
run_pidreuse() {
	local mode=$1 filter=$2
	shift 2
	require_root
	require_cmd jq unshare
	LC_ALL=C ldd "$BRIG" >/dev/null 2>&1 ||
		skip "brig is statically linked: LD_PRELOAD cannot reach its pidfd_open"
	SHIM=$(shim_path) || skip "cannot build tests/security/pidreuse-shim.so (gcc -shared)"
	# a sanitizer build wants its runtime first of all preloaded libraries
	PRELOAD=$(LC_ALL=C ldd "$BRIG" | awk '/lib(a|ub)san/ { printf "%s ", $3 }')$SHIM
	export SHIM PRELOAD
	mkbundle "$filter" sh -c 'sleep 1000 & sleep 1000 & wait' || return 1
	run_cmd timeout -k 5 40 unshare --pid --fork --mount-proc --kill-child \
		bash "$SELF" --inner inner_pidreuse "$mode" "$@"
	# what the shim did, on one line
	diag "$(sed -n 's/^shim //p' <<<"$out" | paste -sd ';' | sed 's/;/; /g')"
	[ -z "$err" ] || diag "stderr: $err"
}

# check_pidreuse: the reuse happened, the victim lived, the container's
# other sleep was signalled, the command succeeded and left nothing.
check_pidreuse() {
	local p
	grep -q '^error ' <<<"$out" && fail "$(grep '^error ' <<<"$out")"
	p=$(sed -n 's/^target //p' <<<"$out")
	[ -n "$p" ] || {
		fail "no target pid"
		return 1
	}
	grep -q "^shim reused $p " <<<"$out" || {
		fail "the attack did not happen: no process took pid $p (brig pinned it some other way?)"
		return 1
	}
	grep -q "^shim victim $p\$" <<<"$out" || fail "the shim's victim did not report pid $p"
	grep -qx "victim alive" <<<"$out" || fail "the victim that took pid $p was signalled: $(grep -x 'victim .*' <<<"$out")"
	grep -qx "other dead" <<<"$out" || fail "the container's other process was not signalled"
	assert_eq "$(sed -n 's/^rc //p' <<<"$out")" 0 \
		"exit status of the attacked command (its $(grep '^output ' <<<"$out"))"
	assert_empty_dir "$T/root"
}

# kill --all of a container with its own pid namespace and no cgroup:
# brig walks /proc (signal_pidns).  SIGUSR1, which the namespace's init
# ignores (a KILL would take the whole namespace down first).
t_pidreuse_pidns() {
	run_pidreuse pidns '.' kill --all c USR1 || return
	check_pidreuse
}

# kill --all KILL through the cgroup's pids: with cgroup.kill hidden (it
# pins no pid), frozen, read, pinned, signalled (kill-all.sh).
t_pidreuse_cgroup() {
	run_pidreuse cgroup '.' kill --all c KILL || return
	check_pidreuse
}

# delete --force drains the cgroup; with cgroup.kill hidden (v1 hosts,
# kernels before 5.14) by reading cgroup.procs, freezing, and signalling
# pid by pid.  The container shares the test's pid namespace, so the
# init's death leaves the sleeps for the drain to find.
t_pidreuse_drain() {
	run_pidreuse drain '.linux.namespaces |= map(select(.type != "pid"))' delete --force c ||
		return
	check_pidreuse
}

tap_test "cgroup hijack: a cgroupsPath populated in every hierarchy is refused" t_hijack_everywhere
tap_test "cgroup hijack: populated in every hierarchy but the first, refused, victim untouched" t_hijack_but_first
tap_test "cgroup hijack: populated in the unified hierarchy only, refused, victim untouched" t_hijack_unified_only
tap_test "cgroup hijack: populated in any one hierarchy, refused, victim untouched" t_hijack_one_hierarchy
tap_test "cgroup hijack: a cgroupsPath with a populated cgroup below it is refused" t_hijack_below
tap_test "cgroup hijack: a workload joining the container's pre-existing cgroup later is spared" t_hijack_late_join
tap_test "cgroup hijack: an absolute cgroupsPath to a populated cgroup is refused" t_hijack_absolute
tap_test "pid reuse: kill --all (own pid namespace, no cgroup) spares the new owner of a pid" t_pidreuse_pidns
tap_test "pid reuse: kill --all KILL through the cgroup spares the new owner of a pid" t_pidreuse_cgroup
tap_test "pid reuse: delete --force draining the cgroup spares the new owner of a pid" t_pidreuse_drain
tap_done
