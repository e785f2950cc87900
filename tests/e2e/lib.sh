# shellcheck shell=bash
# tests/e2e/lib.sh: brig under the engines that drive runc, each scenario
# run twice by the same code: once with runc, once with brig.
#
#   . "$BRIG_SRCDIR/tests/e2e/lib.sh"
#   e2e_main "$@"                 # isolate (tests/e2e/isolate.sh), then go on
#   s_echo() { run_cmd podman --runtime "$RT" run --rm ...; assert_rc 0; }
#   scenario "run --rm echo" s_echo
#   e2e_done
#
# A scenario is a function of $RT (the runtime's path) and $RTN (its name:
# "runc" or "brig"), written with the assertions of tests/lib/tap.sh.  Its
# TAP line says how brig did, given how runc did:
#
#   runc    brig    TAP
#   pass    pass    ok
#   pass    fail    not ok
#   fail    pass    ok      (the note says runc failed)
#   fail    fail    ok # SKIP fails with runc too: the scenario proves nothing here
#
# so the suite passes when brig passes every scenario runc passes, and a
# scenario that no runtime passes is reported instead of hidden.  After
# each run, the script's e2e_check_clean (if defined) asserts that nothing
# is left: it is part of the scenario.  e2e_done prints both columns side
# by side and the plan.
#
# runc's column need not be run each time: runc's result does not depend
# on brig's code.  tests/e2e/baselines/CONTEXT holds runc's results of
# one script in one context (the script, the engines' cgroup driver,
# E2E_ONLY, E2E_PARALLEL, host or guest) with the versions they were
# recorded with (runc, Podman, conmon, containerd, catatonit, the kernel,
# the cgroup layout, PID 1) and, per scenario, a checksum of its function
# and of e2e_check_clean.  A scenario whose entry is there, with the same
# checksum, under the same versions, takes runc's result from it; any
# other runs runc live, and the end of the output says which and why.
# tests/e2e/baseline.sh records the files anew (E2E_BASELINE_OUT=DIR:
# runc alone, live, every result written to DIR/CONTEXT); E2E_RUNC_LIVE=1
# ignores them.
#
# Environment: BRIG (the binary under test), RUNC (default /usr/sbin/runc;
# when missing, brig runs alone and each line says so), E2E_TIMEOUT
# (seconds a command may take, default 60), E2E_CGROUP_MANAGER (cgroupfs,
# the default, or systemd: the engines' cgroup driver; systemd needs
# systemd as PID 1, pure cgroup v2, and puts the containers in units of
# systemd's tree instead of below the test's cgroup), E2E_ONLY (a tag:
# only the scenarios given it run, the others are left out of the plan
# with one note; "cgroup" marks those whose outcome depends on the cgroup
# layout and driver, which the vm-systemd layer runs under TCG).

# shellcheck source=../lib/tap.sh
. "${BRIG_SRCDIR:?}/tests/lib/tap.sh"

: "${RUNC:=/usr/sbin/runc}"
TAP_TIMEOUT=${E2E_TIMEOUT:-60}
: "${E2E_CGROUP_MANAGER:=cgroupfs}"
export E2E_CGROUP_MANAGER
E2E_RUNTIMES=()
_e2e_table=()

# e2e_main "$@": run the calling script again inside isolate.sh (a private
# mount and cgroup namespace) with a scratch directory $E2E_TMP, which is
# removed once the namespace is gone.  Returns in the isolated copy.
e2e_main() {
	local rc tmp script
	if [ "${BRIG_E2E_ISOLATED:-}" = 1 ]; then
		_e2e_setup_runtimes
		return 0
	fi
	[ "$(id -u)" -eq 0 ] || skip_all "needs root"
	case $E2E_CGROUP_MANAGER in
	cgroupfs) ;;
	systemd)
		[ -d /run/systemd/system ] && [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] ||
			skip_all "E2E_CGROUP_MANAGER=systemd: needs systemd as PID 1 on pure cgroup v2 (the vm-systemd layer)"
		;;
	*)
		echo "Bail out! E2E_CGROUP_MANAGER=$E2E_CGROUP_MANAGER: expected cgroupfs or systemd"
		exit 1
		;;
	esac
	diag "cgroup driver of the engines and runtimes: $E2E_CGROUP_MANAGER"
	script=$(realpath "$0")
	tmp=$(mktemp -d /tmp/brig-e2e.XXXXXX) || {
		echo "Bail out! cannot create a temporary directory"
		exit 1
	}
	E2E_TMP=$tmp "$BRIG_SRCDIR/tests/e2e/isolate.sh" bash "$script" "$@"
	rc=$?
	# The namespace and its mounts are gone: only files remain.
	rm -rf "$tmp" || echo "# could not remove $tmp"
	exit "$rc"
}

_e2e_setup_runtimes() {
	[ -x "$BRIG" ] || {
		echo "Bail out! no brig binary at $BRIG"
		exit 1
	}
	if [ -x "$RUNC" ]; then
		E2E_RUNTIMES+=("runc=$RUNC")
		_e2e_baseline_open
	else
		diag "no runc at $RUNC: brig runs alone"
	fi
	[ -n "${E2E_BASELINE_OUT:-}" ] || E2E_RUNTIMES+=("brig=$BRIG")
}

# ------------------------------------------------------------ runc's baseline

_e2e_context=''   # this run's baseline name
_e2e_versions=''  # what runc's results depend on besides the scenario
_e2e_baseline=''  # the file whose results stand for runc's, if usable
_e2e_from_baseline=0
_e2e_live=()      # "NAME: why" for each scenario runc ran live for

# _e2e_context_name: the baseline's name for this script in this context.
_e2e_context_name() {
	local where=host
	[ "${BRIG_VM:-}" = 1 ] && where=vm-$(cat /proc/1/comm 2>/dev/null)
	printf '%s-%s%s%s-%s' "$(basename "$0" .sh)" "$E2E_CGROUP_MANAGER" \
		"${E2E_ONLY:+-$E2E_ONLY}" "${E2E_PARALLEL:+-p$E2E_PARALLEL}" "$where"
}

# _e2e_version_list: one "tool version" per tool runc's results depend on.
_e2e_version_list() {
	local v
	v=$("$RUNC" --version 2>/dev/null | head -n 1)
	echo "runc: ${v:-?}"
	for tool in podman conmon containerd catatonit; do
		command -v "$tool" >/dev/null || continue
		v=$("$tool" --version 2>/dev/null | head -n 1)
		echo "$tool: ${v:-?}"
	done
	echo "kernel: $(uname -r)"
	echo "cgroup: $(stat -fc %T /sys/fs/cgroup)"
	echo "pid1: $(cat /proc/1/comm 2>/dev/null)"
}

# _e2e_baseline_open: find this context's baseline; usable when its
# versions are this machine's (recording: start the file anew).
_e2e_baseline_open() {
	local file recorded
	_e2e_context=$(_e2e_context_name)
	_e2e_versions=$(_e2e_version_list | paste -sd ';' - | sed 's/;/; /g')
	if [ -n "${E2E_BASELINE_OUT:-}" ]; then
		mkdir -p "$E2E_BASELINE_OUT" || exit 1
		{
			echo "# runc's results of tests/e2e/$(basename "$0") ($_e2e_context), written by"
			echo "# tests/e2e/baseline.sh: see tests/e2e/lib.sh.  Record again, do not edit."
			printf 'recorded\t%s\n' "$(date -u +%Y-%m-%d)"
			printf 'versions\t%s\n' "$_e2e_versions"
		} >"$E2E_BASELINE_OUT/$_e2e_context" || exit 1
		diag "recording runc's baseline: $E2E_BASELINE_OUT/$_e2e_context"
		return 0
	fi
	file=$BRIG_SRCDIR/tests/e2e/baselines/$_e2e_context
	if [ "${E2E_RUNC_LIVE:-0}" = 1 ]; then
		diag "E2E_RUNC_LIVE=1: runc runs live"
	elif [ ! -f "$file" ]; then
		diag "no runc baseline $file: runc runs live (tests/e2e/baseline.sh records one)"
	elif [ "$(awk -F '\t' '$1 == "versions" { print $2 }' "$file")" != "$_e2e_versions" ]; then
		diag "runc's baseline $file is stale: runc runs live (tests/e2e/baseline.sh records it again)"
		diag "  recorded with: $(awk -F '\t' '$1 == "versions" { print $2 }' "$file")"
		diag "  here:          $_e2e_versions"
	else
		_e2e_baseline=$file
		recorded=$(awk -F '\t' '$1 == "recorded" { print $2 }' "$file")
		diag "runc's results from the baseline $file (recorded $recorded) where it has them"
	fi
}

# _e2e_sum FUNC: the checksum of a scenario's code as the baseline keys it.
_e2e_sum() {
	{
		declare -f "$1"
		declare -f e2e_check_clean 2>/dev/null
	} | cksum | cut -d' ' -f1
}

# _e2e_baseline_result NAME FUNC: runc's result from the baseline (pass,
# FAIL or skip) in _e2e_res, or an empty one and why in _e2e_why.
_e2e_baseline_result() {
	local r
	_e2e_res='' _e2e_why=''
	[ -n "$_e2e_baseline" ] || return 0
	r=$(awk -F '\t' -v n="$1" '$1 ~ /^(pass|FAIL|skip)$/ && $3 == n { print $1 " " $2; exit }' \
		"$_e2e_baseline")
	if [ -z "$r" ]; then
		_e2e_why="not in the baseline"
	elif [ "${r#* }" != "$(_e2e_sum "$2")" ]; then
		_e2e_why="changed since the baseline"
	else
		_e2e_res=${r%% *}
	fi
}

# _e2e_baseline_write NAME FUNC RESULT: one result into the baseline.
_e2e_baseline_write() {
	printf '%s\t%s\t%s\n' "$3" "$(_e2e_sum "$2")" "$1" >>"$E2E_BASELINE_OUT/$_e2e_context"
}

# _e2e_run NAME FUNC: run FUNC once with the runtime NAME=PATH; 0 pass,
# 1 fail, 2 skip.  Its diagnostics go to $E2E_TMP/log.
_e2e_run() {
	local rt=$1 func=$2 rc
	(
		RTN=${rt%%=*} RT=${rt#*=}
		export RT RTN
		T=$E2E_TMP/t.$RTN
		rm -rf "$T"
		mkdir -p "$T" || exit 1
		_tap_body _e2e_body "$func"
	) >"$E2E_TMP/log" 2>&1
	rc=$?
	if [ -f "$_tap_state/skip" ]; then
		echo "# SKIP $(cat "$_tap_state/skip")" >>"$E2E_TMP/log"
		return 2
	fi
	return "$rc"
}

# _e2e_body FUNC: the scenario, then the script's e2e_check_clean.
_e2e_body() {
	"$1"
	if [ "$(type -t e2e_check_clean)" = function ]; then
		e2e_check_clean
	fi
}

# scenario NAME FUNC [TAG...]: one TAP line for FUNC, run with runc then
# brig (none when E2E_ONLY names a tag it does not have).
_e2e_left_out=0
scenario() {
	local name=$1 func=$2 rt res r col=() brig_log runc_log note t0=$EPOCHREALTIME
	if [ -n "${E2E_ONLY:-}" ] && [[ " ${*:3} " != *" $E2E_ONLY "* ]]; then
		_e2e_left_out=$((_e2e_left_out + 1))
		return 0
	fi
	_tap_n=$((_tap_n + 1))
	for rt in "${E2E_RUNTIMES[@]}"; do
		if [ "${rt%%=*}" = runc ] && [ -n "$_e2e_baseline" ]; then
			_e2e_baseline_result "$name" "$func"
			if [ -n "$_e2e_res" ]; then
				col+=("runc:$_e2e_res")
				runc_log="(runc's result in the baseline $_e2e_baseline)"
				_e2e_from_baseline=$((_e2e_from_baseline + 1))
				continue
			fi
			_e2e_live+=("$name: $_e2e_why")
		fi
		_e2e_run "$rt" "$func"
		r=$?
		case $r in
		0) res=pass ;;
		2) res=skip ;;
		*) res=FAIL ;;
		esac
		col+=("${rt%%=*}:$res")
		if [ "${rt%%=*}" = brig ]; then
			brig_log=$(cat "$E2E_TMP/log")
		else
			runc_log=$(cat "$E2E_TMP/log")
			[ -z "${E2E_BASELINE_OUT:-}" ] || _e2e_baseline_write "$name" "$func" "$res"
		fi
	done
	local runc_res=none brig_res=none c
	for c in "${col[@]}"; do
		case $c in
		runc:*) runc_res=${c#runc:} ;;
		brig:*) brig_res=${c#brig:} ;;
		esac
	done
	_e2e_table+=("$(printf '%-44s %-6s %-6s' "${name:0:44}" "$runc_res" "$brig_res")")
	if [ -n "${E2E_BASELINE_OUT:-}" ]; then
		echo "ok $_tap_n - $name # runc: $runc_res (recorded)"
		[ "$runc_res" = pass ] || diag "runc:" "$runc_log"
	elif [ "$brig_res" = skip ]; then
		echo "ok $_tap_n - $name # SKIP ${brig_log##*# SKIP }"
	elif [ "$brig_res" = pass ]; then
		note=
		[ "$runc_res" = FAIL ] && note=" (runc fails this one)"
		[ "$runc_res" = none ] && note=" (brig alone: no runc)"
		echo "ok $_tap_n - $name$note"
		[ "$runc_res" = FAIL ] && diag "runc:" "$runc_log"
	elif [ "$runc_res" = FAIL ]; then
		echo "ok $_tap_n - $name # SKIP fails with runc too: the scenario proves nothing here"
		diag "runc:" "$runc_log"
		diag "brig:" "$brig_log"
	else
		echo "not ok $_tap_n - $name"
		diag "brig:" "$brig_log"
	fi
	# its wall time, both runtimes' (run-all.sh lists the slowest)
	_tap_took "$t0" "$name"
	return 0
}

# e2e_done: both columns side by side, then the plan.
e2e_done() {
	local line
	diag "$(printf '%-44s %-6s %-6s' scenario runc brig)"
	for line in "${_e2e_table[@]}"; do
		diag "$line"
	done
	[ "$_e2e_left_out" -eq 0 ] ||
		diag "$_e2e_left_out scenario(s) without the tag $E2E_ONLY (E2E_ONLY) left out"
	if [ -n "$_e2e_baseline" ]; then
		diag "runc: $_e2e_from_baseline scenario(s) from the baseline, ${#_e2e_live[@]} live"
		for line in "${_e2e_live[@]}"; do
			diag "  runc live: $line"
		done
	fi
	echo "1..$_tap_n"
	exit 0
}

# e2e_container_name BASE: a name for this runtime's run of a scenario.
e2e_name() {
	echo "e2e-$RTN-$1"
}

# _e2e_cgroup_roots: the test's own cgroup in every hierarchy, one per
# line: the isolated roots, or with the systemd driver (no cgroup
# namespace) the directories the subreaper made for this file.
_e2e_cgroup_roots() {
	local h
	if [ "$E2E_CGROUP_MANAGER" = systemd ]; then
		tr ':' '\n' <<<"${BRIG_TEST_CGROUPS:-}" | grep .
		return 0
	fi
	for h in /sys/fs/cgroup/*/ /sys/fs/cgroup/; do
		[ -e "$h/cgroup.procs" ] && echo "$h"
	done
}

# e2e_cgroup_dirs: the cgroup directories under the test's own cgroup, one
# per line, relative, sorted, from every hierarchy ("shell", the test's
# leaf on v2, left out).
e2e_cgroup_dirs() {
	local h
	_e2e_cgroup_roots | while read -r h; do
		(cd "$h" && find . -mindepth 1 -type d ! -name shell 2>/dev/null)
	done | sort -u
}

# e2e_remove_cgroups: remove the (empty) cgroup directories below the
# test's own cgroup in every hierarchy, deepest first: what the engines
# made for themselves (/libpod_parent/conmon) or left as parents.
e2e_remove_cgroups() {
	local d h roots
	roots=$(_e2e_cgroup_roots)
	for d in $(e2e_cgroup_dirs | sort -r); do
		for h in $roots; do
			if [ -d "$h/$d" ]; then
				rmdir "$h/$d" 2>/dev/null
			fi
		done
	done
}

# e2e_procs_below: the pids of every cgroup below the test's own (whose
# own processes, in "shell" on v2, are the test's), from the pids
# hierarchy or cgroup2.
e2e_procs_below() {
	local h
	if [ "$E2E_CGROUP_MANAGER" = systemd ]; then
		h=$(_e2e_cgroup_roots | head -n 1)
	else
		h=/sys/fs/cgroup/pids
		[ -e "$h/cgroup.procs" ] || h=/sys/fs/cgroup
	fi
	[ -n "$h" ] || return 0
	find "$h" -mindepth 2 -name cgroup.procs ! -path "$h/shell/*" -exec cat {} + 2>/dev/null
}

# e2e_units PATTERN...: the systemd units loaded whose names match, one
# per line (with the systemd driver, what a scenario leaves behind).
e2e_units() {
	systemctl list-units --all --plain --no-legend --no-pager "$@" 2>/dev/null | awk '{ print $1 }'
}

# e2e_check_units PATTERN...: fail when a unit matching PATTERN is loaded
# or any unit has failed (then reset, for the next scenario).
e2e_check_units() {
	local left
	left=$(e2e_units "$@")
	[ -z "$left" ] || fail "units left: $(echo "$left" | tr '\n' ' ')"
	left=$(systemctl list-units --failed --plain --no-legend --no-pager | awk '{ print $1 }')
	if [ -n "$left" ]; then
		fail "failed units: $(echo "$left" | tr '\n' ' ')"
		systemctl reset-failed
	fi
}

# e2e_tty CMD: run CMD (a string) under script(1) with a pty, and set out
# (without carriage returns) and rc.  Its stdin stays open for 5 s: with
# /dev/null, script can lose the output.
e2e_tty() {
	out=$(timeout -k 5 60 script -qfec "$1" /dev/null < <(sleep 5) 2>&1)
	rc=$?
	out=${out//$'\r'/}
}

# e2e_mounts: the mount table of this namespace, without ids.
e2e_mounts() {
	awk '{ sub(/^[0-9]+ [0-9]+ /, ""); print }' /proc/self/mountinfo | sort
}

# e2e_wait_for SECONDS CMD...: retry CMD every 0.1 s until it succeeds.
e2e_wait_for() {
	local n=$(($1 * 10))
	shift
	while ! "$@" >/dev/null 2>&1; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}

# e2e_oci_archive ROOTFS NAME CMD-JSON OUT: an OCI image archive (image
# layout in a tar) of ROOTFS as one uncompressed layer, named NAME (for
# `ctr image import` and `podman load`), with CMD-JSON as its command and
# a PATH.  No registry, no image tool.
e2e_oci_archive() {
	local rootfs=$1 name=$2 cmd=$3 out=$4 d layer config manifest
	d=$(mktemp -d "$E2E_TMP/oci.XXXXXX") || return 1
	mkdir -p "$d/blobs/sha256" || return 1
	tar -C "$rootfs" --numeric-owner -cf "$d/layer.tar" . || return 1
	layer=$(sha256sum "$d/layer.tar" | cut -d' ' -f1)
	mv "$d/layer.tar" "$d/blobs/sha256/$layer"
	jq -cn --arg diff "sha256:$layer" --argjson cmd "$cmd" '{
		architecture: "amd64", os: "linux",
		config: {Env: ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"], Cmd: $cmd},
		rootfs: {type: "layers", diff_ids: [$diff]}}' >"$d/config.json" || return 1
	config=$(sha256sum "$d/config.json" | cut -d' ' -f1)
	mv "$d/config.json" "$d/blobs/sha256/$config"
	jq -cn --arg c "sha256:$config" --argjson cs "$(stat -c %s "$d/blobs/sha256/$config")" \
		--arg l "sha256:$layer" --argjson ls "$(stat -c %s "$d/blobs/sha256/$layer")" '{
		schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
		config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $c, size: $cs},
		layers: [{mediaType: "application/vnd.oci.image.layer.v1.tar", digest: $l, size: $ls}]
	}' >"$d/manifest.json" || return 1
	manifest=$(sha256sum "$d/manifest.json" | cut -d' ' -f1)
	jq -cn --arg m "sha256:$manifest" --argjson ms "$(stat -c %s "$d/manifest.json")" \
		--arg name "$name" '{schemaVersion: 2, manifests: [{
		mediaType: "application/vnd.oci.image.manifest.v1+json", digest: $m, size: $ms,
		annotations: {"io.containerd.image.name": $name,
			"org.opencontainers.image.ref.name": ($name | sub(".*:"; ""))}}]}' \
		>"$d/index.json" || return 1
	mv "$d/manifest.json" "$d/blobs/sha256/$manifest"
	echo '{"imageLayoutVersion":"1.0.0"}' >"$d/oci-layout"
	tar -C "$d" -cf "$out" oci-layout index.json blobs || return 1
	rm -rf "$d"
}
