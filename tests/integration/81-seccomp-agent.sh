#!/bin/bash
# A seccomp agent written for runc (linux.seccomp.listenerPath): brig hands
# it the notify fd the way runc 1.1 does, so that an agent that reads it as
# runc's own example agent (contrib/cmd/seccompagent) does gets it: one
# message, the container process state as JSON with the fd in one
# SCM_RIGHTS.  The agent's answers take effect in the container (a write
# it answers EPERM fails, the other writes go on); a listenerPath with
# nobody behind it fails create with runc's words and leaves nothing; an
# agent that drops the message or is slow to read it hangs nothing.  runc
# runs the same bundles side by side where it is installed.  The agent is
# tests/helpers/runc-agent.c (its header says how it answers).
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"
"$BRIG" features | jq -e '.linux.seccomp.enabled' >/dev/null 2>&1 ||
	skip_all "brig is built without seccomp"

# Every command here takes well under a second: one that waits for an
# agent that never answers must fail the test, in bounded time.
TAP_TIMEOUT=15

brig_file_bundle
BRIG_SPEC=$("$BRIG" --version | sed -n 's/^spec: //p')
CHMOD='["chmod", "fchmod", "fchmodat"]'
MKDIR_CHMOD='["mkdir", "mkdirat", "chmod", "fchmod", "fchmodat"]'

# The agent as `make check` built it, else built here once for the file
# (it runs on the host: no need for -static).
AGENT=$BRIG_BUILDDIR/tests/helpers/runc-agent
if [ ! -x "$AGENT" ]; then
	AGENT=$_tap_state/runc-agent
	gcc -O2 -o "$AGENT" "$BRIG_SRCDIR/tests/helpers/runc-agent.c" 2>/dev/null || AGENT=
fi

# bundle: $T/b = the busybox bundle with a writable root (the agent makes
# directories in it for the container).
bundle() {
	mkdir -p "$T/b" && cp -a "$BUNDLE_TPL/rootfs" "$BUNDLE_TPL/config.json" "$T/b/" &&
		brig_bundle_edit "$T/b" '.root.readonly = false' ||
		fail "cannot make the bundle $T/b"
}

# notify SCRIPT NAMES-JSON: $T/b runs `sh -c SCRIPT` under a profile that
# lets every call run but NAMES, which go to the agent on $T/a.sock with
# the metadata "meta"; an annotation, for the state.  Its ociVersion is not
# the runtime's: the state says the runtime's (runc: specs.Version).
notify() {
	brig_bundle_edit "$T/b" '.process.args = ["sh", "-c", $script]
		| .ociVersion = "1.0.0" | .annotations = {"org.example.agent": "yes"}
		| .linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW", listenerPath: $l,
			listenerMetadata: "meta",
			syscalls: [{names: $names, action: "SCMP_ACT_NOTIFY"}]}' \
		--arg script "$1" --argjson names "$2" --arg l "$T/a.sock" || fail "jq"
}

# agent [drop | hold FILE]: tests/helpers/runc-agent on $T/a.sock, its pid
# in $apid; what connection N brought goes to $T/st.N, its log to
# $T/st.log.
agent() {
	[ -n "$AGENT" ] || skip "tests/helpers/runc-agent is not built and gcc could not build it"
	"$AGENT" "$T/a.sock" "$T/st" "$@" &
	apid=$!
	defer kill_wait -TERM "$apid"
	wait_until 5 test -S "$T/a.sock" || fail "the agent did not come up"
}

# agent_saw ERE: a line of the agent's log matches ERE, within 5 s.
agent_saw() {
	wait_until 5 grep -Eqs "$1" "$T/st.log" ||
		fail "no /$1/ in the agent's log: $(_show "$(cat "$T/st.log" 2>/dev/null)")"
}

# check_state FILE VERSION ID PID: FILE is the container process state
# as runc 1.1 sends it (runtime-spec's ContainerProcessState): ociVersion
# the runtime's spec version, fds ["seccompFd"], pid the container's init,
# the metadata, and the state as runc gives it to hooks (status
# "creating"), with runc's fields and no others.
check_state() {
	local file=$1 version=$2 id=$3 pid=$4
	assert_json "$(cat "$file" 2>/dev/null)" "the state the agent got" || return
	assert_eq "$(jq -c '[.ociVersion, .fds, .pid, .metadata, .state.ociVersion, .state.id,
		.state.status, .state.pid, .state.bundle, .state.annotations]' "$file")" \
		"$(jq -cn --arg v "$version" --arg id "$id" --argjson pid "$pid" --arg b "$T/b" \
			'[$v, ["seccompFd"], $pid, "meta", $v, $id, "creating", $pid, $b,
			  {"org.example.agent": "yes"}]')" \
		"the state the agent got"
	assert_eq "$(jq -c 'keys' "$file")" '["fds","metadata","ociVersion","pid","state"]' \
		"the fields of the container process state"
	assert_eq "$(jq -c '.state | keys' "$file")" \
		'["annotations","bundle","id","ociVersion","pid","status"]' \
		"the fields of its .state (runc's specs.State)"
}

# runtime brig|runc: the runtime of the test is $rt: `on ARGS...` runs it
# (sets out/err/rc) on the container c1, which goes when the test ends.
# runc gets a relative cgroupsPath in $T/b, nested under the caller's
# cgroups, and what it leaves of it is removed.
runtime() {
	rt=$1
	if [ "$rt" = brig ]; then
		version=$BRIG_SPEC
		delete_at_end c1
		return
	fi
	RUNC=$(side_runc) || skip "runc is not installed: nothing to compare with"
	version=$("$RUNC" --version | sed -n 's/^spec: //p')
	cg=runc-agent-$RANDOM
	brig_bundle_edit "$T/b" '.linux.cgroupsPath = $cg' --arg cg "$cg" || fail "jq"
	defer runc_cgroup_cleanup "$cg"
	defer timeout -k 5 30 "$RUNC" --root "$T/runc" delete --force c1
}

on() {
	if [ "$rt" = brig ]; then
		br "$@"
	else
		run_cmd "$RUNC" --root "$T/runc" "$@"
	fi
}

# pid_of: the pid of c1 as `state` says.
pid_of() {
	if [ "$rt" = brig ]; then
		state_field c1 pid
	else
		"$RUNC" --root "$T/runc" state c1 2>/dev/null | jq -r .pid
	fi
}

# runc_cgroup_cleanup NAME: remove what runc left of its cgroup NAME (on
# a hybrid host it may leave directories in the unified hierarchy), under
# this file's cgroups only, and only empty directories.
runc_cgroup_cleanup() {
	local dir
	local IFS=:
	for dir in ${BRIG_TEST_CGROUPS:-}; do
		[ -d "$dir" ] && find "$dir" -depth -type d -name "$1" -exec rmdir {} + 2>/dev/null
	done
}

# ------------------------------------------------------- the answers

# `brig run`: the agent refuses a write that starts with "deny" (the
# builtin echo of the container's init), lets the others go on; the state
# names that init.
t_write_run() {
	local pid
	bundle || return
	agent || return
	notify 'echo deny this write; r=$?; echo allowed; echo "status $r"' '["write"]'
	runtime brig
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$out" $'allowed\nstatus 1' "what the container wrote"
	assert_err_line "sh: write error: Operation not permitted"
	agent_saw '^conn 1 done$'
	pid=$(sed -n 's/^notif 1 pid \([0-9]*\) write EPERM$/\1/p' "$T/st.log")
	assert_lines 1 "$pid" "writes the agent refused" || return
	assert_eq "$(head -1 "$T/st.log")" "conn 1 ok pid $pid" \
		"the agent took the message; its pid is the init, which wrote"
	assert grep -qx "notif 1 pid $pid write continue" "$T/st.log"
	assert_no_file "$T/st.2"
	check_state "$T/st.1" "$BRIG_SPEC" c1 "$pid"
}

# create + start: the agent has the fd once create returns (runc sends it
# before it returns); the answers hold after start.
t_write_create_start() {
	local pid
	bundle || return
	agent || return
	notify 'exec >/tmp/out 2>&1; echo deny this write; echo "status $?"; echo allowed' '["write"]'
	runtime brig
	br create --bundle "$T/b" c1
	assert_rc 0 || return
	pid=$(state_field c1 pid)
	agent_saw "^conn 1 ok pid $pid\$"
	assert_eq "$(state_field c1 status)" created
	br start c1
	assert_rc 0
	agent_saw '^conn 1 done$'
	assert_eq "$(cat "$T/b/rootfs/tmp/out" 2>/dev/null)" \
		$'sh: write error: Operation not permitted\nstatus 1\nallowed' "what the container wrote"
	assert grep -qx "notif 1 pid $pid write EPERM" "$T/st.log"
	check_state "$T/st.1" "$BRIG_SPEC" c1 "$pid"
}

# runc's example agent's own answers (mkdir P makes P-METADATA, chmod is
# ENOMEDIUM), with create + start: the same in the container, the same
# state (each runtime's spec version), under brig and under runc.  (runc
# refuses SCMP_ACT_NOTIFY for write, which its init uses after loading the
# filter; brig's init hands the fd over with sendmsg and refuses that.)
t_runc_answers() {
	local pid
	bundle || return
	agent || return
	notify 'exec >/tmp/out 2>&1; mkdir /tmp/d; echo "mkdir $?"; ls -d /tmp/d*
		touch /tmp/f; chmod 600 /tmp/f; echo "chmod $?"' "$MKDIR_CHMOD"
	runtime "$1"
	on create --bundle "$T/b" c1
	assert_rc 0 || return
	pid=$(pid_of)
	agent_saw "^conn 1 ok pid $pid\$"
	on start c1
	assert_rc 0
	agent_saw '^conn 1 done$'
	assert_eq "$(cat "$T/b/rootfs/tmp/out" 2>/dev/null)" \
		$'mkdir 0\n/tmp/d-meta\nchmod: /tmp/f: No medium found\nchmod 1' "$rt: what the container saw"
	check_state "$T/st.1" "$version" c1 "$pid"
	if [ "$rt" = runc ]; then
		notify true '["write"]'
		on run --bundle "$T/b" c2
		diag "runc with SCMP_ACT_NOTIFY for write: exit status $rc: $err"
	fi
}

# exec: the process exec'd under the container's filter has its own notify
# fd, sent with its own pid and the state of the running container (the
# init's pid), as runc's setnsProcess does.
t_exec() {
	local init pid
	bundle || return
	agent || return
	notify 'exec sleep 100' "$CHMOD"
	runtime "$1"
	on create --bundle "$T/b" c1
	assert_rc 0 || return
	init=$(pid_of)
	on start c1
	assert_rc 0
	agent_saw "^conn 1 ok pid $init\$"
	touch "$T/b/rootfs/tmp/f"
	on exec c1 chmod 600 /tmp/f
	assert_rc 1
	assert_err_line "chmod: /tmp/f: No medium found"
	pid=$(sed -n 's/^notif 2 pid \([0-9]*\) chmod ENOMEDIUM$/\1/p' "$T/st.log")
	assert_lines 1 "$pid" "chmod calls of the exec'd process" || return
	assert grep -qx "conn 2 ok pid $pid" "$T/st.log"
	assert_ne "$pid" "$init" "the exec'd process's pid"
	assert_eq "$(jq -c '[.ociVersion, .fds, .pid, .metadata, .state.ociVersion, .state.id,
		.state.status, .state.pid, .state.bundle]' "$T/st.2" 2>/dev/null)" \
		"$(jq -cn --arg v "$version" --argjson pid "$pid" --argjson init "$init" --arg b "$T/b" \
			'[$v, ["seccompFd"], $pid, "meta", $v, "c1", "running", $init, $b]')" \
		"$rt: the state of the exec"
}

# ------------------------------------------------------- no agent

# nothing_left: a failed create left no container behind: nothing under
# --root but brig's compiled filter cache (runtime/linux/seccomp_cache.c).
nothing_left() {
	local what=$1
	if [ "$rt" = brig ]; then
		assert_empty_dir "$T/root/c1"
		assert_eq "$(find "$T/root" -mindepth 1 -maxdepth 1 ! -name .seccomp-cache 2>/dev/null)" "" \
			"what $what left under --root"
		br list -q
		assert_eq "$out" "" "containers after $what"
	else
		assert_empty_dir "$T/runc"
	fi
}

# listenerPath with no agent: no socket there, then a socket whose agent
# died (connection refused).  create and run fail with runc's words
# ("failed to connect with seccomp agent specified in the seccomp profile:
# dial unix PATH: connect: ...") and leave nothing.
t_no_agent() {
	local cmd
	bundle || return
	notify true "$CHMOD"
	runtime "$1"
	for cmd in create run; do
		on "$cmd" --bundle "$T/b" c1
		assert_ne "$rc" 0 "exit status of $rt $cmd, no socket"
		assert_contains "$err" "failed to connect with seccomp agent" "$rt $cmd, no socket"
		assert_contains "$err" "$T/a.sock" "$rt $cmd, no socket"
		nothing_left "$cmd without a socket"
	done
	agent || return
	kill -KILL "$apid"
	wait "$apid" 2>/dev/null
	assert test -S "$T/a.sock"
	on create --bundle "$T/b" c1
	assert_ne "$rc" 0 "exit status of $rt create, stale socket"
	assert_contains "$err" "failed to connect with seccomp agent" "$rt create, stale socket"
	assert_contains "${err,,}" "connection refused" "$rt create, stale socket"
	nothing_left "create with a stale socket"
}

# ------------------------------------------------- agents that misbehave

# An agent that takes the connection and closes it without reading: the fd
# dies with the unread message, and the notified call fails with ENOSYS (no
# listener left), as it does when an agent dies; nothing hangs.
t_agent_drops() {
	bundle || return
	agent drop || return
	notify 'touch /tmp/f; chmod 600 /tmp/f; echo "chmod $?"' "$CHMOD"
	runtime "$1"
	on run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$out" "chmod 1" "$rt: the container went on"
	assert_err_line "chmod: /tmp/f: Function not implemented"
	agent_saw '^conn 1 dropped$'
}

# A slow agent: it reads the message only once $T/go exists.  create does
# not wait for it (the message is in the socket); the container's notified
# call waits for the answer, then gets it.
t_agent_slow() {
	local pid
	bundle || return
	agent hold "$T/go" || return
	notify 'exec >/tmp/out 2>&1; echo before; touch /tmp/f; chmod 600 /tmp/f; echo "chmod $?"' "$CHMOD"
	runtime "$1"
	on create --bundle "$T/b" c1
	assert_rc 0 || return
	pid=$(pid_of)
	agent_saw '^conn 1 held$'
	on start c1
	assert_rc 0
	wait_until 5 grep -qs before "$T/b/rootfs/tmp/out" || fail "$rt: the container did not start"
	sleep 0.3
	assert_eq "$(cat "$T/b/rootfs/tmp/out")" before "$rt: chmod waits for the agent"
	touch "$T/go"
	agent_saw "^conn 1 ok pid $pid\$"
	agent_saw '^conn 1 done$'
	assert_eq "$(cat "$T/b/rootfs/tmp/out")" $'before\nchmod: /tmp/f: No medium found\nchmod 1' \
		"$rt: the answer came late, and held"
}

tap_test "write: the agent's EPERM fails the write, other writes go on (run)" t_write_run
tap_test "write: create hands the state and fd over, start runs under the agent" t_write_create_start
for r in brig runc; do
	tap_test "runc's example answers (mkdir, chmod) and the state: $r" t_runc_answers "$r"
	tap_test "exec: its own fd, its pid, the running container's state ($r)" t_exec "$r"
	tap_test "no agent behind listenerPath: $r fails with runc's words, leaves nothing" t_no_agent "$r"
	tap_test "an agent that drops the message: ENOSYS, no hang ($r)" t_agent_drops "$r"
	tap_test "a slow agent: create does not wait, the call waits for the answer ($r)" t_agent_slow "$r"
done
tap_done
