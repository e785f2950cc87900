#!/bin/bash
# Run every test layer of brig, from a fresh Debian 12 machine, as root:
#
#   ./tests/run-all.sh         (as root, or as a user with sudo)
#   ./tests/run-all.sh --quick (a developer's loop: the release build's
#                               unit, integration, security, conformance
#                               and job layers, no fuzzing, no guest, no
#                               engines, no asan build, no lint)
#
# 1. apt-get installs the build and test dependencies (SKIP_APT=1 skips it);
# 2. builds brig twice out of tree: build-release/ (--enable-static-libs:
#    yajl, libseccomp and libcap linked statically, as a build for speed
#    is) and build-asan/ (the shared default, --enable-sanitizers: ASan +
#    UBSan, and --enable-fault-injection for the reliability layer, which
#    the release build skips): every test runs against both ways of linking;
# 3. runs `make check` in each: unit, integration, fuzz, security and
#    conformance (brig against runc on the world's configs) tests (the fuzzer
#    for FUZZ_SECONDS=60 in the release build only: FUZZ_SECONDS=0 in asan);
# 4. after the release build's check, the "e2e" layer: Podman and
#    containerd (ctr and the CRI) driving the release build, each
#    scenario compared with runc's result (runc's baseline in
#    tests/e2e/baselines/, or runc live: tests/e2e/lib.sh); then the asan
#    build and its check;
# 5. then the guests, two at a time (one CPU each; each list in two
#    parts): the "vm" layer, the scripts listed in tests/vm/TESTS run
#    again with the release build inside a qemu guest with pure cgroup v2
#    (tests/vm/run.sh; SKIP when no guest can run here), and the
#    "vm-systemd" layer, tests/vm/TESTS-systemd in a guest whose PID 1 is
#    systemd (the systemd cgroup driver against a real systemd); `make
#    lint` (clang-format check + shellcheck + cppcheck) runs meanwhile;
# 6. prints one result line per layer, a table of each step's wall time
#    (and of each make check layer's scripts, summed), and the totals.
#
# Environment:
#   SKIP_APT=1          do not run apt-get
#   BRIG_TOTALS_FILE    also write "passed=N failed=N skipped=N" (one per
#                       line) there, whatever happens
#   FUZZ_SECONDS        fuzzing time of the release build (default 60)
#   JOBS                parallel make jobs (default: number of CPUs)
#   BRIG_DISTCLEAN=1    if the source tree is configured in-tree, run
#                       `make distclean` there first (otherwise: refuse)
#   BRIG_VM_TIMEOUT, BRIG_VM_CACHE
#                       the vm layer's (see tests/vm/run.sh)
#
# Exit status: 0 when every layer passed, 1 otherwise.  Logs stay in
# build-*/{configure,make,check,lint}.log and build-*/test-suite.log; the vm
# layers' in build-release/vm.log and build-release/tests/vm-results/ (and
# vm-systemd.log, tests/vm-systemd-results/).

set -uo pipefail

# Root: as it is, or through sudo (a fresh machine where one is root may
# have no sudo at all; a user with sudo is asked for it once).
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
	exec sudo -E "$0" "$@"
fi

APT_PACKAGES="build-essential autoconf automake libtool pkg-config git
	libyajl-dev libseccomp-dev libcap-dev libselinux1-dev libsystemd-dev
	libnftables-dev libnftnl-dev libmnl-dev libc-ares-dev nettle-dev libarchive-dev nftables dnsmasq-base socat
	busybox-static jq clang libclang-rt-14-dev runc cppcheck clang-format shellcheck valgrind
	qemu-system-x86 linux-image-amd64 uidmap man-db groff-base zsh bash-completion
	podman conmon catatonit containerd python3-grpcio python3-protobuf protobuf-compiler numactl
	systemd dbus criu"

SRC=$(cd "$(dirname "$0")/.." && pwd)
QUICK=0
case ${1:-} in
--quick) QUICK=1 ;;
"") ;;
*)
	echo "usage: $0 [--quick]" >&2
	exit 2
	;;
esac
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
FUZZ_SECONDS_RELEASE=${FUZZ_SECONDS:-60}
START=$(date +%s)

PASSED=0 FAILED=0 SKIPPED=0
RESULTS=()    # one printable line per layer
TIMES=()      # one printable line per step: its wall time
ANY_FAILED=0

say() { printf 'run-all: %s\n' "$*"; }

write_totals() {
	[ -n "${BRIG_TOTALS_FILE:-}" ] || return 0
	printf 'passed=%d\nfailed=%d\nskipped=%d\n' "$PASSED" "$FAILED" "$SKIPPED" >"$BRIG_TOTALS_FILE"
}

# record BUILD LAYER STATUS PASSED FAILED SKIPPED [NOTE]
record() {
	local build=$1 layer=$2 status=$3 p=$4 f=$5 s=$6 note=${7:-}
	PASSED=$((PASSED + p)) FAILED=$((FAILED + f)) SKIPPED=$((SKIPPED + s))
	[ "$status" = FAIL ] && ANY_FAILED=1
	RESULTS+=("$(printf '%-8s %-12s %-4s  %4d passed, %d failed, %d skipped%s' \
		"$build" "$layer" "$status" "$p" "$f" "$s" "${note:+  ($note)}")")
}

print_results() {
	local line
	echo
	echo "== brig test layers =="
	for line in "${RESULTS[@]}"; do
		echo "$line"
	done
	echo
	echo "== wall time of each step (make check's layers: their scripts' time summed, two at a time) =="
	for line in "${TIMES[@]}"; do
		echo "$line"
	done
	printf '%-22s %5ds\n' total "$(($(date +%s) - START))"
	slowest_tests 25
}

# slowest_tests N: the N slowest tests of every build and guest, from the
# "# took S s: NAME" line tap.sh writes after each test's result, with the
# log that holds it (build-asan/tests/job/egress.log, a guest's
# build-release/tests/vm-1-results/integration/75-cgroups.log).
slowest_tests() {
	local lines
	lines=$(cd "$SRC" && find build-*/tests -name '*.log' ! -name test-suite.log -print0 2>/dev/null |
		xargs -0r grep -H '^# took [0-9.]* s: ' |
		sed -n 's/^\([^:]*\)\.log:# took \([0-9.]*\) s: \(.*\)$/\2 \1: \3/p' |
		sort -rn | head -n "$1")
	[ -n "$lines" ] || return 0
	echo
	echo "== the $1 slowest tests (seconds, log, name) =="
	printf '%s\n' "$lines" | awk '{ printf "%8.1f  %s", $1, $2; $1 = $2 = ""; print }'
}

# timed STEP SECONDS [NOTE]: one line of the wall-time table.
timed() {
	TIMES+=("$(printf '%-22s %5ds%s' "$1" "$2" "${3:+  ($3)}")")
}

# layer_seconds DIR LAYER: the seconds the scripts of tests/LAYER took in
# DIR's make check, summed (a script's .log is made when it starts, its
# .trs when it ends); empty where the filesystem keeps no birth time.
layer_seconds() {
	(cd "$1" && find "tests/$2" -name '*.trs' -print0 |
		while IFS= read -r -d '' trs; do
			b=$(stat -c %W "${trs%.trs}.log" 2>/dev/null) e=$(stat -c %Y "$trs")
			[ "${b:-0}" -gt 0 ] || exit 1
			echo $((e - b))
		done | awk '{ s += $1 } END { if (NR) print s }')
}

# A step that fails before any test could run counts as one failure.
die() {
	say "ERROR: $*" >&2
	record "-" setup FAIL 0 1 0 "$*"
	print_results
	finish
}

finish() {
	# no test counted at all is a harness that lost its results
	if [ "$PASSED" -eq 0 ] && [ "$FAILED" -eq 0 ]; then
		say "ERROR: no test result was counted"
		FAILED=1 ANY_FAILED=1
	fi
	write_totals
	say "$PASSED passed, $FAILED failed, $SKIPPED skipped in $(($(date +%s) - START))s"
	[ "$ANY_FAILED" -eq 0 ] && [ "$FAILED" -eq 0 ] && exit 0
	exit 1
}

# show_tail FILE [N]: the end of a log, indented, after a failure.
show_tail() {
	echo "---- last lines of $1"
	tail -n "${2:-30}" "$1" | sed 's/^/    /'
	echo "----"
}

# show_failures FILE...: each "not ok" line of the TAP output in FILE
# with the diagnostics around it (a test's come before its line, an e2e
# scenario's after it; 12 lines at most each side, 80 in all): what CI's
# summary shows of a failure, so that it can be told apart from another
# without the logs.
show_failures() {
	awk '/^# / && !/^# scenario  / {
			if (n > 0) { n--; print; next }
			if (k == 12) { for (i = 1; i < k; i++) b[i] = b[i + 1]; k-- }
			b[++k] = $0; next
		}
		/^not ok/ { for (i = 1; i <= k; i++) print b[i]; k = 0; n = 12; print; next }
		{ k = 0; n = 0 }' "$@" 2>/dev/null | head -n 80 | sed 's/^/    /'
}

# show_errors FILE: the compiler's and make's error lines of a build log
# (the end of the log when there are none).
show_errors() {
	if grep -qE 'error|undefined reference|\*\*\*' "$1"; then
		echo "---- errors in $1"
		grep -E 'error|undefined reference|\*\*\*' "$1" | head -40 | sed 's/^/    /'
		echo "----"
	else
		show_tail "$1"
	fi
}

# ------------------------------------------------------------------ setup

install_deps() {
	local log
	if [ "${SKIP_APT:-0}" = 1 ]; then
		say "SKIP_APT=1: not installing packages"
		return 0
	fi
	[ "$(id -u)" -eq 0 ] || die "apt-get needs root: run with sudo, or SKIP_APT=1 with the packages installed"
	command -v apt-get >/dev/null || die "no apt-get: install by hand: $(echo $APT_PACKAGES)"
	log=$(mktemp)
	say "apt-get: installing $(echo "$APT_PACKAGES" | wc -w) packages (quietly)"
	# shellcheck disable=SC2086
	if ! { DEBIAN_FRONTEND=noninteractive apt-get -qq update &&
		DEBIAN_FRONTEND=noninteractive apt-get -qq install -y --no-install-recommends \
			$APT_PACKAGES; } >"$log" 2>&1; then
		show_tail "$log" 40
		rm -f "$log"
		die "apt-get failed"
	fi
	rm -f "$log"
}

prepare_tree() {
	local tool
	for tool in autoreconf make cc pkg-config jq; do
		command -v "$tool" >/dev/null || die "missing $tool (install the packages, or drop SKIP_APT)"
	done
	cd "$SRC" || die "cannot enter $SRC"
	# Autotools VPATH builds refuse a source tree configured in-tree.
	if [ -f config.status ]; then
		if [ "${BRIG_DISTCLEAN:-0}" = 1 ]; then
			say "source tree is configured in-tree: make distclean (BRIG_DISTCLEAN=1)"
			make distclean >/dev/null 2>&1 || rm -f config.status
		else
			die "$SRC is configured in-tree; out-of-tree builds need it clean: run 'make distclean' there (or set BRIG_DISTCLEAN=1)"
		fi
	fi
	if [ ! -x configure ] || [ ! -f Makefile.in ] || [ ! -f build-aux/tap-driver.sh ] ||
		[ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
		say "autogen.sh"
		./autogen.sh >autogen.log 2>&1 || {
			show_tail autogen.log
			die "autogen.sh failed"
		}
		rm -f autogen.log
	fi
}

# ------------------------------------------------------------------ layers

# count_layers BUILD DIR: one result per tests/<layer>/, from the .trs files
# (automake writes one ":test-result: X" line per test case).
count_layers() {
	local build=$1 dir=$2 layer p f s files status note secs
	local layers
	layers=$(cd "$dir" && find tests -name '*.trs' 2>/dev/null | cut -d/ -f2 | sort -u)
	if [ -z "$layers" ]; then
		record "$build" tests FAIL 0 1 0 "no test results: see $dir/check.log"
		return
	fi
	for layer in $layers; do
		read -r p f s files < <(cd "$dir" && find "tests/$layer" -name '*.trs' -print0 |
			xargs -0 awk '
				FNR == 1 { files++ }
				/^:test-result: (PASS|XFAIL)/ { p++ }
				/^:test-result: (FAIL|XPASS|ERROR)/ { f++ }
				/^:test-result: SKIP/ { s++ }
				END { printf "%d %d %d %d\n", p, f, s, files }')
		status=PASS
		[ "$p" -eq 0 ] && [ "$f" -eq 0 ] && status=SKIP
		[ "$f" -eq 0 ] || status=FAIL
		note="$files file(s)"
		record "$build" "$layer" "$status" "$p" "$f" "$s" "$note"
		secs=$(layer_seconds "$dir" "$layer")
		[ -n "$secs" ] && timed "  $build $layer" "$secs" "$files file(s)"
	done
}

# build NAME [CONFIGURE-ARGS...]: configure and make in build-NAME, the
# test programs included (a guest started next finds them built, and the
# check after it builds nothing under the guest's feet); 0 when built.
build() {
	local name=$1 dir="$SRC/build-$1" t0
	shift
	t0=$(date +%s)
	rm -rf "$dir"
	mkdir -p "$dir"
	cd "$dir" || die "cannot enter $dir"

	say "[$name] configure $*"
	if ! ../configure "$@" >configure.log 2>&1; then
		show_tail configure.log
		record "$name" build FAIL 0 1 0 "configure failed: $dir/configure.log"
		return 1
	fi
	say "[$name] make -j$JOBS"
	if ! { make -j"$JOBS" && make -j"$JOBS" check TESTS=; } >make.log 2>&1; then
		show_errors make.log
		record "$name" build FAIL 0 1 0 "make failed: $dir/make.log"
		return 1
	fi
	record "$name" build PASS 1 0 0
	timed "$name build" "$(($(date +%s) - t0))" "configure, make -j$JOBS"
}

# check_build NAME FUZZ_SECONDS: make check (check-quick) in build-NAME.
check_build() {
	local name=$1 fuzz=$2 dir="$SRC/build-$1" t0 t1 rc failed_before
	t0=$(date +%s)
	cd "$dir" || die "cannot enter $dir"
	local target=check
	[ "$QUICK" = 1 ] && target=check-quick
	say "[$name] make $target (FUZZ_SECONDS=$fuzz)"
	t1=$(date +%s)
	FUZZ_SECONDS=$fuzz \
		UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
		make -j"$JOBS" "$target" >check.log 2>&1
	rc=$?
	timed "$name check" "$(($(date +%s) - t1))" "make -j$JOBS $target"
	failed_before=$FAILED
	count_layers "$name" "$dir"
	if [ "$rc" -ne 0 ]; then
		# The names of what failed, then where the details are.
		grep -E '^(FAIL|XPASS|ERROR): ' check.log | sed 's/^/    /' | head -50
		if [ -f test-suite.log ]; then
			show_failures test-suite.log
			say "[$name] details: $dir/test-suite.log"
		else
			show_tail check.log
		fi
		# make check can fail with every .trs green (e.g. a test program
		# that does not build): that is a failure too.
		if [ "$FAILED" -eq "$failed_before" ]; then
			record "$name" check FAIL 0 1 0 "make check exited $rc: $dir/check.log"
		fi
	fi
	say "[$name] done in $(($(date +%s) - t0))s"
}

# count_tap_logs DIR: "PASSED FAILED SKIPPED RAN" over the TAP logs
# NAME.log in DIR (exit status in NAME.rc): a script that exited non-zero,
# printed no plan or not as many results as planned is one failure more.
count_tap_logs() {
	(cd "$1" 2>/dev/null && find . -name '*.log' ! -name console.log -print0 |
		xargs -0 -r awk '
			function end_script(  rc, rcfile) {
				if (cur == "") return
				rcfile = cur; sub(/\.log$/, ".rc", rcfile)
				if ((getline rc < rcfile) <= 0 || rc != 0 || plan < 0 || n != plan) f++
				ran++
			}
			FNR == 1 { end_script(); cur = FILENAME; plan = -1; n = 0 }
			/^1\.\.[0-9]+/ { plan = substr($1, 4) + 0; if (plan == 0 && /# *SKIP/) s++ }
			/^ok/ { n++; if (/# *SKIP/) s++; else p++ }
			/^not ok/ { n++; f++ }
			/^Bail out!/ { f++ }
			END { end_script(); printf "%d %d %d %d\n", p, f, s, ran }')
}

# record_scripts LAYER DIR N LOG: one result for LAYER from the TAP logs
# in DIR of N scripts run by a harness whose output is in LOG (a script
# that never ran is a failure); PASS, or SKIP when nothing passed.
record_scripts() {
	local layer=$1 results=$2 n=$3 log=$4 p f s ran
	read -r p f s ran < <(count_tap_logs "$results")
	: "${p:=0}" "${f:=0}" "${s:=0}" "${ran:=0}"
	[ "$ran" -lt "$n" ] && f=$((f + n - ran))
	if [ "$f" -gt 0 ]; then
		record release "$layer" FAIL "$p" "$f" "$s" "$n script(s): $log"
	elif [ "$p" -eq 0 ]; then
		record release "$layer" SKIP "$p" "$f" "$s" "$n script(s)"
	else
		record release "$layer" PASS "$p" "$f" "$s" "$n script(s)"
	fi
}

# The "vm" layers: the scripts of a list (one path per line, from the top
# of the source tree), run by tests/vm/run.sh with the release build in a
# qemu guest with pure cgroup v2: "vm" runs tests/vm/TESTS in the guest
# whose PID 1 is a shell, "vm-systemd" tests/vm/TESTS-systemd in the one
# whose PID 1 is systemd.  Counted from the TAP logs it leaves (NAME.log,
# exit status in NAME.rc), plus one failure per script that did not end
# well: exited non-zero, printed no plan or not as many results as planned,
# or never ran (no log, or an empty one).  Part K of N of a list (its
# scripts K, K+N, K+2N, ... counted from 0) runs in a guest of its own,
# with one CPU: tests/run-all.sh runs two such guests at a time (two
# guests of two CPUs each, side by side on two CPUs, wait on each other's
# vCPUs; single-CPU ones do not).
# run_vm LAYER LIST INIT TIMEOUT (seconds, unless BRIG_VM_TIMEOUT says) [K N]
run_vm() {
	local layer=$1 list=$2 init=$3 timeout=${BRIG_VM_TIMEOUT:-$4} part=${5:-0} parts=${6:-1}
	local dir="$SRC/build-release" results="$SRC/build-release/tests/$layer-results"
	local log="$SRC/build-release/$layer.log" scripts=() rc reason failed_before
	if [ ! -x "$dir/brig" ] || [ ! -x "$dir/tests/helpers/subreaper" ]; then
		record release "$layer" SKIP 0 0 1 "no release build"
		return
	fi
	mapfile -t scripts < <(grep -vE '^[[:space:]]*(#|$)' "$SRC/$list" |
		awk -v k="$part" -v n="$parts" '(NR - 1) % n == k')
	say "[$layer] tests/vm/run.sh: ${#scripts[@]} script(s) in a qemu guest (pure cgroup v2, PID 1 $init)"
	(cd "$SRC" && BRIG_VM_RESULTS=$results BRIG_VM_INIT=$init BRIG_VM_TIMEOUT=$timeout \
		BRIG_VM_SMP=$([ "$parts" -gt 1 ] && echo 1) bash tests/vm/run.sh "$dir" "${scripts[@]}") >"$log" 2>&1
	rc=$?
	if [ "$rc" -eq 77 ]; then
		reason=$(sed -n 's/^vm: cannot run the guest: //p' "$log" | tail -n 1)
		record release "$layer" SKIP 0 0 1 "${reason:-no guest here: see $log}"
		return
	fi
	failed_before=$FAILED
	record_scripts "$layer" "$results" "${#scripts[@]}" "$log"
	# the e2e scripts' side-by-side tables (brig and runc)
	grep -E '^# (scenario |[^#].*  (pass|FAIL|skip|none) +(pass|FAIL|skip|none) *$)' "$log" |
		sed 's/^# /    /'
	[ "$FAILED" -eq "$failed_before" ] || [ "$rc" -ne 0 ] || show_failures "$log"
	if [ "$rc" -ne 0 ]; then
		grep -E '^vm: ' "$log" | sed 's/^/    /' | head -20
		show_failures "$log"
		# run.sh failed with every count green (the guest died between
		# scripts, say): that is a failure too.
		[ "$FAILED" -eq "$failed_before" ] &&
			record release "$layer" FAIL 0 1 0 "tests/vm/run.sh exited $rc: $log"
	fi
}

# The "e2e" layer: tests/e2e/run.sh with the release build (Podman,
# containerd; each scenario with runc as well), counted as the vm layer is.
run_e2e() {
	local dir="$SRC/build-release" results="$SRC/build-release/tests/e2e-results"
	local scripts=("$SRC/tests/e2e/podman.sh" "$SRC/tests/e2e/containerd.sh" "$SRC/tests/e2e/demo.sh")
	local rc failed_before
	if [ ! -x "$dir/brig" ] || [ ! -x "$dir/tests/helpers/subreaper" ]; then
		record release e2e SKIP 0 0 1 "no release build"
		return
	fi
	say "[e2e] tests/e2e/run.sh: Podman and containerd with brig and with runc"
	BRIG_E2E_RESULTS=$results bash "$SRC/tests/e2e/run.sh" "$dir" "${scripts[@]}" >"$dir/e2e.log" 2>&1
	rc=$?
	failed_before=$FAILED
	record_scripts e2e "$results" "${#scripts[@]}" "$dir/e2e.log"
	grep -E '^Bail out!' "$dir/e2e.log" | sed 's/^/    /' | head -20
	show_failures "$dir/e2e.log"
	# the side-by-side tables
	grep -E '^# (e2e: |scenario |[^#].*  (pass|FAIL|skip|none) +(pass|FAIL|skip|none) *$)' \
		"$dir/e2e.log" | sed 's/^# /    /'
	[ "$rc" -ne 0 ] && [ "$FAILED" -eq "$failed_before" ] &&
		record release e2e FAIL 0 1 0 "tests/e2e/run.sh exited $rc: $dir/e2e.log"
}

run_lint() {
	local dir="$SRC/build-release"
	say "[lint] make lint"
	if [ ! -f "$dir/Makefile" ]; then
		record lint lint FAIL 0 1 0 "no configured build-release"
		return
	fi
	if make -C "$dir" lint >"$dir/lint.log" 2>&1; then
		record lint lint PASS 1 0 0 "clang-format + shellcheck + cppcheck"
	else
		show_tail "$dir/lint.log"
		record lint lint FAIL 0 1 0 "$dir/lint.log"
	fi
}

# ------------------------------------------------------------------ main

# since T0: the seconds since T0 (for the wall-time table).
since() { echo $(($(date +%s) - $1)); }

# (The asan build and lint at the idle class, SCHED_IDLE, beside the
# release build's check, and the guests then paired longest with
# shortest: tried at 2026-12-05, and no clear gain.  The check took 783
# s where runs of that day without the lane took 681-708: what runs
# beside a check slows it, even at the idle class, by about what the
# 56 s of the build and 117 of lint take off the path.  The whole run:
# 2351 s, against 2360-2428 without it the same day, within the
# machine's variance of about 5%.)
#
# The guests: after the host's layers (a host's test beside a busy qemu
# guest ran five times slower here, so they do not overlap), in two tracks
# of one CPU each, longest first: one runs vm-systemd-1 then vm-2; the
# other lint, then vm-systemd-2 then vm-1.  (Four guests at once took
# 2.37 times as long each as two at once did, not twice: TCG guests that
# share a CPU lose to each other.)  Each list is in two parts, each part
# in a guest of its own, in the background: its output in
# build-release/LAYER.out and its counts in LAYER.state, which
# merge_guests adds to ours.
GUEST_PIDS=() GUEST_LAYERS=()
# start_guest LAYER LIST INIT TIMEOUT NOTE K N [AFTER]: the guest starts
# once the lane before it on its track, AFTER, has ended: its LAYER.done
# is there, or its process is gone (a sibling: no `wait` for it).
start_guest() {
	local layer=$1 out=$SRC/build-release/$1.out state=$SRC/build-release/$1.state
	local after=${8:-} after_pid=
	[ -z "$after" ] || after_pid=${GUEST_PIDS[${#GUEST_PIDS[@]} - 1]}
	rm -f "$out" "$state" "$SRC/build-release/$layer.done"
	(
		RESULTS=() TIMES=() PASSED=0 FAILED=0 SKIPPED=0 ANY_FAILED=0
		trap ': >"$SRC/build-release/$layer.done"' EXIT
		while [ -n "$after" ] && [ ! -e "$SRC/build-release/$after.done" ] &&
			kill -0 "$after_pid" 2>/dev/null; do
			sleep 1
		done
		t0=$(date +%s)
		run_vm "$1" "$2" "$3" "$4" "$6" "$7"
		timed "$1" "$(since "$t0")" "$5"
		# (global once sourced: merge_guests reads it inside a function)
		declare -p RESULTS TIMES PASSED FAILED SKIPPED ANY_FAILED |
			sed 's/^declare \(-[a-zA-Z-]*\) /declare -g \1 /' >"$state"
	) >"$out" 2>&1 </dev/null &
	GUEST_PIDS+=($!) GUEST_LAYERS+=("$layer")
}

# start_guests 1: the track beside lint; start_guests 2: the other, once
# lint is done.
start_guests() {
	if [ "$1" = 1 ]; then
		say "[guests] vm and vm-systemd, each in two guests of one CPU, two at a time (lint the while)"
		start_guest vm-systemd-1 tests/vm/TESTS-systemd systemd 3000 "qemu guest, PID 1 systemd, part 1 of 2" 0 2
		start_guest vm-2 tests/vm/TESTS shell 1800 "qemu guest, PID 1 a shell, part 2 of 2" 1 2 vm-systemd-1
	else
		start_guest vm-systemd-2 tests/vm/TESTS-systemd systemd 3000 "qemu guest, PID 1 systemd, part 2 of 2" 1 2
		start_guest vm-1 tests/vm/TESTS shell 1800 "qemu guest, PID 1 a shell, part 1 of 2" 0 2 vm-systemd-2
	fi
}

# merge_guests: wait for the guests, then add their output and counts.
merge_guests() {
	local host_results=("${RESULTS[@]}") host_times=("${TIMES[@]}")
	local p=$PASSED f=$FAILED s=$SKIPPED any=$ANY_FAILED t0 i layer state
	local g_results=() g_times=() gp=0 gf=0 gs=0
	[ "${#GUEST_PIDS[@]}" -gt 0 ] || return 0
	t0=$(date +%s)
	say "[guests] waiting for the guests"
	for i in "${!GUEST_PIDS[@]}"; do
		layer=${GUEST_LAYERS[i]} state=$SRC/build-release/${GUEST_LAYERS[i]}.state
		wait "${GUEST_PIDS[i]}"
		cat "$SRC/build-release/$layer.out" 2>/dev/null
		RESULTS=() TIMES=() PASSED=0 FAILED=0 SKIPPED=0 ANY_FAILED=0
		# shellcheck source=/dev/null
		if ! [ -s "$state" ] || ! . "$state"; then
			RESULTS=() TIMES=() PASSED=0 FAILED=0 SKIPPED=0 ANY_FAILED=0
			record release "$layer" FAIL 0 1 0 "the guest's lane ended without results: $SRC/build-release/$layer.out"
		fi
		g_results+=("${RESULTS[@]}") g_times+=("${TIMES[@]}")
		gp=$((gp + PASSED)) gf=$((gf + FAILED)) gs=$((gs + SKIPPED))
		[ "$ANY_FAILED" -eq 0 ] || any=1
	done
	RESULTS=("${host_results[@]}" "${g_results[@]}")
	TIMES=("${host_times[@]}" "${g_times[@]}")
	timed "waiting for the guests" "$(since "$t0")" "after the host's layers"
	PASSED=$((p + gp)) FAILED=$((f + gf)) SKIPPED=$((s + gs)) ANY_FAILED=$any
}

trap 'write_totals' EXIT
t0=$(date +%s)
install_deps
prepare_tree
timed "setup" "$(since "$t0")" "apt-get, autogen.sh"
build release --enable-static-libs && check_build release "$FUZZ_SECONDS_RELEASE"
if [ "$QUICK" = 1 ]; then
	print_results
	finish
fi
t0=$(date +%s)
run_e2e
timed e2e "$(since "$t0")"
build asan --enable-sanitizers --enable-fault-injection && check_build asan 0
start_guests 1
t0=$(date +%s)
run_lint
timed lint "$(since "$t0")" "beside the guests"
start_guests 2
merge_guests
print_results
finish
