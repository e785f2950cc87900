#!/bin/bash
# containerd 1.6 and its runc v2 shim running brig, and the same scenarios
# with runc: `ctr run --runc-binary`, and the CRI (the Kubernetes path)
# through a runtime of contrib/containerd/config.toml selected by the
# handler of contrib/kubernetes/runtimeclass.yaml.
#
# containerd gets its own root, state and sockets under $E2E_TMP; it is
# started here and stopped by its pid at the end.  The images are OCI
# archives of a busybox rootfs (no registry).  The CRI calls go through
# tests/e2e/cri/cri.py, a minimal CRI client (Debian has no crictl).
#
# Needs: root, containerd, and for the CRI scenario python3-grpcio and
# protobuf-compiler; see tests/e2e/lib.sh.

# shellcheck source=lib.sh
. "${BRIG_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}/tests/e2e/lib.sh"
# shellcheck source=../lib/rootfs.sh
. "$BRIG_SRCDIR/tests/lib/rootfs.sh"

for cmd in containerd ctr containerd-shim-runc-v2; do
	command -v "$cmd" >/dev/null || skip_all "$cmd is not installed (apt-get install containerd)"
done
e2e_main "$@"
# (tests/lib/rootfs.sh has a ctr of its own)
unset -f ctr

CD=$E2E_TMP/containerd
SOCK=$CD/containerd.sock
NS=brig-e2e
IMG=localhost/brig-e2e-busybox:latest
PAUSE=localhost/brig-e2e-pause:latest
export CONTAINERD_ADDRESS=$SOCK CONTAINERD_NAMESPACE=$NS
PY=/usr/bin/python3
CRI="$PY $BRIG_SRCDIR/tests/e2e/cri/cri.py --address $SOCK"
# The RuntimeClass's handler: the CRI runtime brig is registered as.
HANDLER=$(sed -n 's/^handler: *//p' "$BRIG_SRCDIR/contrib/kubernetes/runtimeclass.yaml")
CONTAINERD_PID=

# The configuration: the test's own paths and CRI settings, then
# contrib/containerd/config.toml with brig's path and root replaced, and
# the same runtime again as "runc" for the comparison; SystemdCgroup as
# E2E_CGROUP_MANAGER says.
containerd_config() {
	local sd=false
	[ "$E2E_CGROUP_MANAGER" = systemd ] && sd=true
	cat <<-EOF
		version = 2
		root = "$CD/root"
		state = "$CD/state"
		[grpc]
		  address = "$SOCK"
		[ttrpc]
		  address = "$SOCK.ttrpc"
		[debug]
		  address = "$CD/debug.sock"
		[metrics]
		  address = ""
		[plugins."io.containerd.grpc.v1.cri"]
		  sandbox_image = "$PAUSE"
		  # CAP_SYS_RESOURCE may be missing (it is on the CI machine): the
		  # sandbox's oom_score_adj of -998 could not be set.
		  restrict_oom_score_adj = true
		  [plugins."io.containerd.grpc.v1.cri".cni]
		    bin_dir = "$CD/cni-bin"
		    conf_dir = "$CD/cni-conf"
	EOF
	sed -e '/^version = /d' \
		-e "s|^\( *SystemdCgroup = \).*|\1$sd|" \
		-e "s|^\( *BinaryName = \).*|\1\"$BRIG\"|" \
		-e "s|^\( *Root = \).*|\1\"/run/containerd/$HANDLER\"|" \
		"$BRIG_SRCDIR/contrib/containerd/config.toml"
	sed -n '/runtimes\.brig\]/,$p' "$BRIG_SRCDIR/contrib/containerd/config.toml" |
		sed -e 's/runtimes\.brig/runtimes.runc/' \
			-e "s|^\( *SystemdCgroup = \).*|\1$sd|" \
			-e "s|^\( *BinaryName = \).*|\1\"$RUNC\"|" \
			-e "s|^\( *Root = \).*|\1\"/run/containerd/runc-cri\"|"
}

containerd_setup() {
	mkdir -p "$CD"/{root,state,cni-bin,cni-conf,log} || return 1
	containerd_config >"$CD/config.toml" || return 1
	setsid containerd --config "$CD/config.toml" >"$CD/log/containerd.log" 2>&1 </dev/null &
	CONTAINERD_PID=$!
	e2e_wait_for 20 ctr version || {
		echo "containerd did not come up: $(tail -5 "$CD/log/containerd.log")"
		return 1
	}
	brig_make_rootfs "$E2E_TMP/rootfs" || return 1
	e2e_oci_archive "$E2E_TMP/rootfs" "$IMG" '["/bin/sh"]' "$E2E_TMP/bb.tar" || return 1
	e2e_oci_archive "$E2E_TMP/rootfs" "$PAUSE" '["/bin/sleep","2147483647"]' \
		"$E2E_TMP/pause.tar" || return 1
	ctr image import "$E2E_TMP/bb.tar" >/dev/null || return 1
	ctr -n k8s.io image import "$E2E_TMP/bb.tar" >/dev/null || return 1
	ctr -n k8s.io image import "$E2E_TMP/pause.tar" >/dev/null || return 1
}

# Stopped by pid, after every task: the shims of running tasks would
# outlive it.
containerd_stop() {
	local ns t
	[ -n "$CONTAINERD_PID" ] || return 0
	for ns in $NS k8s.io; do
		for t in $(ctr -n "$ns" task ls -q 2>/dev/null); do
			ctr -n "$ns" task delete -f "$t" >/dev/null 2>&1
		done
		for t in $(ctr -n "$ns" containers ls -q 2>/dev/null); do
			ctr -n "$ns" containers delete "$t" >/dev/null 2>&1
		done
	done
	kill "$CONTAINERD_PID" 2>/dev/null
	wait "$CONTAINERD_PID" 2>/dev/null
	CONTAINERD_PID=
}
# cri_ok: whether the CRI client runs here (python3 with grpc and
# protobuf, and protoc), found once: each scenario's clean check asks.
CRI_OK=0
[ -x "$PY" ] && "$PY" -c 'import grpc, google.protobuf' 2>/dev/null &&
	command -v protoc >/dev/null && CRI_OK=1
cri_ok() {
	[ "$CRI_OK" = 1 ]
}

# The CRI client as one server process (cri.py --serve, which says how
# it is asked) and cri_call, which asks it: in an emulated guest a start
# of cri.py took seconds, and the script made some thirty.  Where the
# server cannot start, $CRI stays cri.py itself.
CRI_DIR=$E2E_TMP/cri CRI_PID=
cri_server_start() {
	mkdir -p "$CRI_DIR" && mkfifo "$CRI_DIR/in" "$CRI_DIR/out" || return 1
	"$PY" "$BRIG_SRCDIR/tests/e2e/cri/cri.py" --serve "$CRI_DIR" </dev/null \
		>"$CRI_DIR/server.log" 2>&1 &
	CRI_PID=$!
	CRI=cri_call
}
# cri_call ARGS...: what `cri.py --address $SOCK ARGS...` would do: its
# stdout, stderr and exit status.
cri_call() {
	local rc
	kill -0 "$CRI_PID" 2>/dev/null || {
		echo "cri.py --serve is gone: $(cat "$CRI_DIR/server.log")" >&2
		return 1
	}
	printf '%s\0' --address "$SOCK" "$@" >"$CRI_DIR/args" || return 1
	# (read and write: opening a FIFO so never blocks)
	echo go 1<>"$CRI_DIR/in"
	IFS= read -r -t 300 rc <>"$CRI_DIR/out" || {
		echo "cri.py --serve did not answer within 300 s" >&2
		return 1
	}
	cat "$CRI_DIR/stdout"
	cat "$CRI_DIR/stderr" >&2
	return "$rc"
}
cri_server_stop() {
	[ -n "$CRI_PID" ] || return 0
	echo quit 1<>"$CRI_DIR/in"
	wait "$CRI_PID" 2>/dev/null
	CRI_PID=
}
if cri_ok; then
	cri_server_start || echo "# cri.py --serve did not start: cri.py runs once a command"
fi

# (tap.sh's own EXIT trap removes its state directory: kept)
trap 'cri_server_stop; containerd_stop; rm -rf "$_tap_state"' EXIT

# (not in a subshell: CONTAINERD_PID must stay set)
if ! containerd_setup >"$E2E_TMP/setup.log" 2>&1; then
	echo "Bail out! containerd set-up failed: $(cat "$E2E_TMP/setup.log")"
	exit 1
fi

shims() {
	pgrep -f "containerd-shim-runc-v2 .*-address $SOCK( |$)"
}

# Nothing a scenario started may outlive it: no task or container in
# containerd, no pod, no shim, no runtime state, no cgroup below the
# parents the runtimes make ("/brig-e2e", "/e2e-pods"), no process there.
e2e_check_clean() {
	local left
	left=$(ctr task ls -q; ctr containers ls -q)
	if [ -n "$left" ]; then
		fail "containerd still has: $(echo "$left" | tr '\n' ' ')"
		for t in $left; do
			ctr task delete -f "$t" >/dev/null 2>&1
			ctr containers delete "$t" >/dev/null 2>&1
		done
	fi
	if [ -x "$PY" ] && [ -n "$(cri_ok && $CRI pods -q 2>/dev/null)" ]; then
		fail "pods left: $($CRI pods -q | tr '\n' ' ')"
	fi
	e2e_wait_for 10 sh -c "! pgrep -f 'containerd-shim-runc-v2 .*-address $SOCK( |\$)'" ||
		fail "shims left: $(shims | tr '\n' ' ')"
	# the runtimes' roots: only <root>/<namespace> may stay, and brig's
	# seccomp cache
	left=$(find /run/containerd/runc /run/containerd/"$HANDLER" /run/containerd/runc-cri \
		-mindepth 2 ! -path '*/.seccomp-cache*' 2>/dev/null)
	[ -z "$left" ] || fail "runtime state left: $(echo "$left" | tr '\n' ' ')"
	left=$(e2e_cgroup_dirs | grep -vxE '\./(brig-e2e|e2e-pods)')
	[ -z "$left" ] || fail "cgroups left: $(echo "$left" | tr '\n' ' ')"
	left=$(e2e_procs_below)
	[ -z "$left" ] || fail "processes left in container cgroups: $left"
	if [ "$E2E_CGROUP_MANAGER" = systemd ]; then
		e2e_check_units "$NS-*" 'cri-containerd-*'
	fi
}

# ctr_argv ID: CTR, the `ctr run` that runs the task ID with the runtime
# under test: through the runc v2 shim, with the systemd cgroup driver
# and a "slice:prefix:name" path under E2E_CGROUP_MANAGER=systemd (as
# `ctr run` users pass them), or ctr's default path /NAMESPACE/ID.
ctr_argv() {
	CTR=(ctr run --runtime io.containerd.runc.v2 --runc-binary "$RT")
	if [ "$E2E_CGROUP_MANAGER" = systemd ]; then
		CTR+=(--runc-systemd-cgroup --cgroup "system.slice:$NS:$1")
	fi
}

# ctr_run [OPTION...] -- ID CMD...: CTR with OPTIONs, then the image, ID
# and CMD (under TAP_TIMEOUT, as run_cmd runs commands).
ctr_run() {
	local opts=()
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	ctr_argv "$1"
	timeout -k 5 "${TAP_TIMEOUT:-60}" "${CTR[@]}" "${opts[@]}" "$IMG" "$@"
}

# ctr_cgroup ID: the cgroup directory of task ID.
ctr_cgroup() {
	if [ "$E2E_CGROUP_MANAGER" = systemd ]; then
		echo "/sys/fs/cgroup/system.slice/$NS-$1.scope"
	elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		echo "/sys/fs/cgroup/$NS/$1"
	else
		echo "/sys/fs/cgroup/memory/$NS/$1"
	fi
}

# task_status ID: the STATUS column of `ctr task ls` for ID.
task_status() {
	ctr task ls | awk -v id="$1" '$1 == id { print $3 }'
}

# ---------------------------------------------------------------- scenarios

s_echo() {
	run_cmd ctr_run --rm -- "$(e2e_name echo)" echo hello from a container
	assert_rc 0
	assert_eq "$out" "hello from a container"
}

s_exit_codes() {
	local id pid
	run_cmd ctr_run --rm -- "$(e2e_name x0)" true
	assert_rc 0
	run_cmd ctr_run --rm -- "$(e2e_name x3)" sh -c 'exit 3'
	assert_rc 3
	# killed: 128+9
	id=$(e2e_name x137)
	ctr_run --rm -- "$id" sleep 1000 >/dev/null 2>&1 &
	pid=$!
	e2e_wait_for 10 sh -c "ctr task ls | grep -q '^$id .*RUNNING'" || fail "$id did not start"
	ctr task kill -s KILL "$id"
	wait "$pid"
	assert_eq "$?" 137 "exit status of ctr run after task kill -s KILL"
	# create fails: ctr reports the runtime's error and exits 1
	run_cmd ctr_run --rm -- "$(e2e_name noent)" /no/such/command
	assert_rc 1
	assert_contains "$err" "no such file or directory"
	ctr containers delete "$(e2e_name noent)" >/dev/null 2>&1
}

s_tty() {
	ctr_argv "$(e2e_name tty)"
	e2e_tty "${CTR[*]} --rm -t $IMG $(e2e_name tty) sh -c 'tty; [ -t 0 ] && [ -t 1 ] && echo tty-ok; exit 4'"
	assert_eq "$rc" 4 "exit status"
	assert_match "$out" $'^/dev/pts/[0-9]+\ntty-ok$' "output"
}

s_task_lifecycle() {
	local id pid runpid
	id=$(e2e_name d)
	# in the foreground, in the background: ctr run exits with the task
	TAP_TIMEOUT=120 ctr_run --rm -- "$id" sh -c 'trap "exit 7" USR1; echo ready; while :; do sleep 0.1; done' >"$T/run.out" 2>&1 &
	runpid=$!
	e2e_wait_for 10 grep -q ready "$T/run.out" || fail "$id did not start: $(cat "$T/run.out")"
	assert_eq "$(task_status "$id")" RUNNING "task status"
	pid=$(ctr task ls | awk -v id="$id" '$1 == id { print $2 }')
	run_cmd ctr task exec --exec-id e1 "$id" sh -c 'echo exec-ok; echo exec-err >&2; exit 5'
	assert_rc 5
	assert_eq "$out" exec-ok
	assert_eq "$err" exec-err
	run_cmd ctr task exec --exec-id e2 --user 65534 --cwd /tmp "$id" sh -c 'id -u; pwd'
	assert_eq "$out" $'65534\n/tmp'
	# ps: the runtime's `ps --format json`
	run_cmd ctr task ps "$id"
	assert_rc 0
	assert_contains "$out" "$pid" "task ps"
	run_cmd ctr task pause "$id"
	assert_rc 0
	assert_eq "$(task_status "$id")" PAUSED "task status after pause"
	run_cmd ctr task resume "$id"
	assert_rc 0
	assert_eq "$(task_status "$id")" RUNNING "task status after resume"
	run_cmd ctr task kill -s USR1 "$id"
	assert_rc 0
	wait "$runpid"
	assert_eq "$?" 7 "exit status of ctr run after SIGUSR1"
}

s_exec_tty() {
	local id
	id=$(e2e_name etty)
	run_cmd ctr_run -d -- "$id" sleep 1000
	assert_rc 0
	e2e_tty "ctr task exec -t --exec-id t1 $id sh -c 'tty; [ -t 0 ] && echo exec-tty-ok; exit 3'"
	assert_eq "$rc" 3 "exit status"
	# (ctr itself may complain after: it resizes the pty of a process that
	# is gone)
	assert_match "$out" $'^/dev/pts/[0-9]+\nexec-tty-ok(\n|$)' "output"
	ctr task delete -f "$id" >/dev/null
	ctr containers delete "$id"
}

s_limits_metrics() {
	local id m f
	id=$(e2e_name mem)
	run_cmd ctr_run -d --memory-limit 67108864 -- "$id" sleep 1000
	assert_rc 0
	# ctr's default spec has no /sys/fs/cgroup mount: read it from here
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		m=$(cat "$(ctr_cgroup "$id")/memory.max" 2>&1)
	else
		m=$(cat "$(ctr_cgroup "$id")/memory.limit_in_bytes" 2>&1)
	fi
	assert_eq "$m" 67108864 "the container's memory limit"
	if [ "$E2E_CGROUP_MANAGER" = systemd ]; then
		assert_eq "$(systemctl show -p MemoryMax --value "$NS-$id.scope")" 67108864 \
			"MemoryMax of the task's scope"
	fi
	# metrics: containerd reads the cgroup itself
	run_cmd ctr task metrics --format json "$id"
	assert_rc 0
	assert_json "$out"
	# v1's metrics have memory.usage.limit, v2's memory.usage_limit
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		m=$(jq -r '.. | .usage_limit? // empty' <<<"$out" | head -1) f=memory.usage_limit
	else
		m=$(jq -r '.. | .limit? // empty' <<<"$out" | head -1) f=memory.usage_in_bytes
	fi
	assert_match "$m" '^67108864$' "memory limit in metrics"
	assert_match "$(jq -r '.. | .pids? | .current? // empty' <<<"$out" | head -1)" '^[1-9]' "pids in metrics"
	run_cmd ctr task metrics "$id"
	assert_rc 0
	assert_contains "$out" "$f" "metrics table"
	ctr task delete -f "$id" >/dev/null
	ctr containers delete "$id"
}

s_kill_all_delete_force() {
	local id
	id=$(e2e_name all)
	run_cmd ctr_run -d -- "$id" sh -c 'sleep 1000 & sleep 1000 & wait'
	assert_rc 0
	ctr task exec -d --exec-id bg "$id" sleep 1000 >/dev/null 2>&1
	run_cmd ctr task kill --all -s KILL "$id"
	assert_rc 0
	e2e_wait_for 10 sh -c "ctr task ls | grep -q '^$id .*STOPPED'" ||
		fail "kill --all did not stop the task: $(ctr task ls)"
	run_cmd ctr task delete "$id"
	assert_rc 0
	ctr containers delete "$id"
	# delete -f of a running task
	run_cmd ctr_run -d -- "$id" sleep 1000
	assert_rc 0
	run_cmd ctr task delete -f "$id"
	assert_rc 0
	run_cmd ctr containers delete "$id"
	assert_rc 0
}

# The Kubernetes path: a pod of the RuntimeClass's handler (or of "runc"
# for the comparison), a container in it, exec, update, stop, removal.
s_cri() {
	local handler pod cid m logs parent=/e2e-pods
	cri_ok || skip "no CRI client (apt-get install python3-grpcio protobuf-compiler)"
	# the kubelet's pod cgroup: a slice with the systemd driver
	[ "$E2E_CGROUP_MANAGER" = systemd ] && parent=brige2e.slice
	handler=$HANDLER
	[ "$RTN" = runc ] && handler=runc
	logs=$T/pods
	pod=$($CRI runp --name "$(e2e_name pod)" --uid "uid-$RTN" --namespace e2e \
		--runtime-handler "$handler" --cgroup-parent "$parent" --log-dir "$logs") ||
		{
			fail "RunPodSandbox with handler $handler failed"
			return
		}
	cid=$($CRI create "$pod" --name c1 --image "$IMG" --memory 67108864 --env FOO=bar \
		-- sh -c 'echo hello from $FOO; exec sleep 1000') || fail "CreateContainer failed"
	run_cmd $CRI start "$cid"
	assert_rc 0
	run_cmd $CRI status "$cid" --field state
	assert_eq "$out" CONTAINER_RUNNING "container state"
	# ExecSync: the runtime's exec --process
	run_cmd $CRI exec "$cid" -- sh -c 'echo out; echo err >&2; exit 3'
	assert_rc 3
	assert_eq "$out" out
	assert_eq "$err" err
	if [ "$E2E_CGROUP_MANAGER" = systemd ]; then
		m=/sys/fs/cgroup/$parent/cri-containerd-$cid.scope/memory.max
	elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		m=/sys/fs/cgroup/e2e-pods/$cid/memory.max
	else
		m=/sys/fs/cgroup/memory/e2e-pods/$cid/memory.limit_in_bytes
	fi
	assert_eq "$(cat "$m" 2>&1)" 67108864 "memory limit of the container's cgroup"
	# UpdateContainerResources: the runtime's update --resources -
	run_cmd $CRI update "$cid" --memory 134217728
	assert_rc 0
	assert_eq "$(cat "$m" 2>&1)" 134217728 "memory limit after update"
	run_cmd $CRI logs "$cid"
	assert_eq "$out" "hello from bar" "the container's log"
	run_cmd $CRI stop "$cid" --timeout 2
	assert_rc 0
	run_cmd $CRI status "$cid" --field state
	assert_eq "$out" CONTAINER_EXITED "container state after stop"
	run_cmd $CRI rm "$cid"
	assert_rc 0
	run_cmd $CRI stopp "$pod"
	assert_rc 0
	run_cmd $CRI rmp "$pod"
	assert_rc 0
}

scenario "ctr run --rm echo" s_echo cgroup
scenario "ctr run exit codes 0 3 137, missing command" s_exit_codes cgroup
scenario "ctr run -t (tty)" s_tty
scenario "ctr run, task exec, ps, pause, resume, kill -s USR1" s_task_lifecycle cgroup
scenario "task exec -t (tty)" s_exec_tty
scenario "--memory-limit and task metrics" s_limits_metrics cgroup
scenario "task kill --all, task delete -f" s_kill_all_delete_force cgroup
scenario "CRI: RuntimeClass handler from config.toml" s_cri cgroup

containerd_stop
# The parents the runtimes made for ctr's and the CRI's cgroups.
e2e_remove_cgroups
e2e_done
