#!/bin/bash
# Podman (with conmon) running brig, and the same scenarios with runc.
#
# Podman gets a store, a run directory and a configuration of its own under
# $E2E_TMP (CONTAINERS_CONF, CONTAINERS_STORAGE_CONF), the cgroup manager
# of $E2E_CGROUP_MANAGER (cgroupfs, or systemd in the systemd guest), and
# contrib/podman/containers.conf, which names brig in
# runtime_supports_json and runtime_supports_nocgroup.  Each scenario calls
# `podman --runtime PATH`, as a user of brig would.  The image is a busybox
# rootfs imported into that store (no registry).
#
# Needs: root, podman, conmon, catatonit (for --init); see tests/e2e/lib.sh.

# shellcheck source=lib.sh
. "${BRIG_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}/tests/e2e/lib.sh"
# shellcheck source=../lib/rootfs.sh
. "$BRIG_SRCDIR/tests/lib/rootfs.sh"
# shellcheck source=../lib/podman.sh
. "$BRIG_SRCDIR/tests/lib/podman.sh"

for cmd in podman conmon; do
	command -v "$cmd" >/dev/null || skip_all "$cmd is not installed (apt-get install podman)"
done
e2e_main "$@"

IMG=localhost/brig-e2e-busybox
PD=$E2E_TMP/podman

# Podman's configuration (tests/lib/podman.sh): contrib/podman/containers.conf
# with the binary under test, an isolated store and events, the driver.
podman_setup() {
	brig_podman_config "$PD" "$BRIG" "$RUNC" "$E2E_CGROUP_MANAGER" || return 1
	brig_make_rootfs "$E2E_TMP/rootfs" || return 1
	tar -C "$E2E_TMP/rootfs" -cf "$E2E_TMP/rootfs.tar" . || return 1
	podman import --change 'CMD ["/bin/sh"]' \
		--change 'ENV PATH=/usr/sbin:/usr/bin:/sbin:/bin' \
		"$E2E_TMP/rootfs.tar" "$IMG" >/dev/null
}

export CONTAINERS_CONF=$PD/containers.conf CONTAINERS_STORAGE_CONF=$PD/storage.conf
if ! out=$(podman_setup 2>&1); then
	echo "Bail out! podman set-up failed: $out"
	exit 1
fi

# What may exist between scenarios: Podman's own cgroups for conmon (with
# the systemd manager, none below ours).
podman_baseline_cgroups=$(printf '%s\n' ./libpod_parent ./libpod_parent/conmon)

# Nothing a scenario started may outlive it: no container known to
# Podman, no state under the runtimes' default roots (Podman passes no
# --root), no cgroup but Podman's own, no process in any cgroup below
# ours, no mount that was not there before; with the systemd manager, no
# libpod unit (the containers' scopes) and no failed unit.
e2e_check_clean() {
	local left
	left=$(podman ps -aq)
	if [ -n "$left" ]; then
		fail "containers left: $(podman ps -a --format '{{.Names}} {{.Status}}' | tr '\n' ' ')"
		podman rm -af -t 0 >/dev/null 2>&1
	fi
	left=$(find /run/brig /run/runc -mindepth 1 -maxdepth 1 ! -name .seccomp-cache 2>/dev/null)
	[ -z "$left" ] || fail "runtime state left: $(ls -AR /run/brig /run/runc | tr '\n' ' ')"
	left=$(e2e_cgroup_dirs | grep -vxF "$podman_baseline_cgroups")
	[ -z "$left" ] || fail "cgroups left: $(echo "$left" | tr '\n' ' ')"
	left=$(e2e_procs_below)
	[ -z "$left" ] || fail "processes left: $left"
	# (Podman makes its overlay store a mount of its own, and drops it
	# again, at will.)
	left=$(e2e_mounts | comm -13 "$E2E_TMP/mounts" - | awk -v d="$PD/storage/overlay" '$3 != d')
	[ -z "$left" ] || fail "mounts left: $left"
	if [ "$E2E_CGROUP_MANAGER" = systemd ]; then
		e2e_check_units 'libpod-*'
	fi
}

P() { podman --runtime "$RT" "$@"; }

# ---------------------------------------------------------------- scenarios

s_echo() {
	run_cmd P run --rm "$IMG" echo hello from a container
	assert_rc 0
	assert_eq "$out" "hello from a container"
}

s_exit_codes() {
	local name
	run_cmd P run --rm "$IMG" true
	assert_rc 0
	run_cmd P run --rm "$IMG" sh -c 'exit 1'
	assert_rc 1
	run_cmd P run --rm "$IMG" sh -c 'exit 42'
	assert_rc 42
	run_cmd P run --rm "$IMG" /no/such/command
	assert_rc 127
	assert_contains "$err" "no such file or directory"
	run_cmd P run --rm "$IMG" nosuchcommand
	assert_rc 127
	run_cmd P run --rm "$IMG" /etc/passwd
	assert_rc 126
	assert_contains "$err" "permission denied"
	name=$(e2e_name kill)
	run_cmd P run -d --name "$name" "$IMG" sleep 1000
	assert_rc 0
	run_cmd P kill "$name"
	assert_rc 0
	run_cmd P wait "$name"
	assert_eq "$out" 137 "exit code after podman kill"
	run_cmd P rm "$name"
	assert_rc 0
}

s_detach_exec() {
	local name
	name=$(e2e_name d)
	run_cmd P run -d --name "$name" "$IMG" sleep 1000
	assert_rc 0
	run_cmd P exec "$name" sh -c 'echo exec-ok; id -u; cat /proc/1/cmdline | tr "\0" " "'
	assert_rc 0
	assert_eq "$out" $'exec-ok\n0\nsleep 1000 '
	run_cmd P exec "$name" sh -c 'exit 5'
	assert_rc 5
	run_cmd P exec -u 65534 -w /tmp -e FOO=bar "$name" sh -c 'id -u; pwd; echo $FOO'
	assert_eq "$out" $'65534\n/tmp\nbar'
	run_cmd P exec "$name" /no/such/command
	assert_rc 127
	# busybox sleep as PID 1 ignores SIGTERM: stop ends with SIGKILL
	run_cmd P stop -t 1 "$name"
	assert_rc 0
	run_cmd podman inspect --format '{{.State.Status}} {{.State.ExitCode}}' "$name"
	assert_eq "$out" "exited 137"
	run_cmd P rm "$name"
	assert_rc 0
}

s_restart() {
	local name
	name=$(e2e_name again)
	run_cmd P run -d --name "$name" "$IMG" sh -c 'echo started; exec sleep 1000'
	assert_rc 0
	run_cmd P stop -t 0 "$name"
	assert_rc 0
	run_cmd P start "$name"
	assert_rc 0
	run_cmd podman inspect --format '{{.State.Status}}' "$name"
	assert_eq "$out" running
	run_cmd P logs "$name"
	assert_eq "$out" $'started\nstarted'
	run_cmd P rm -f -t 0 "$name"
	assert_rc 0
}

s_tty() {
	e2e_tty "podman --runtime $RT run -it --rm $IMG sh -c 'tty; [ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo tty-ok; exit 4'"
	assert_eq "$rc" 4 "exit status"
	assert_match "$out" $'^/dev/pts/[0-9]+\ntty-ok$' "output"
}

s_exec_tty() {
	local name
	name=$(e2e_name etty)
	run_cmd P run -d --name "$name" "$IMG" sleep 1000
	e2e_tty "podman --runtime $RT exec -it $name sh -c 'tty; [ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo exec-tty-ok; exit 3'"
	assert_eq "$rc" 3 "exit status"
	assert_match "$out" $'^/dev/pts/[0-9]+\nexec-tty-ok$' "output"
	run_cmd P rm -f -t 0 "$name"
}

s_stdin() {
	out=$(echo piped into the container | timeout -k 5 60 podman --runtime "$RT" run -i --rm "$IMG" cat 2>&1)
	assert_eq "$out" "piped into the container"
}

s_limits() {
	run_cmd P run --rm --memory 64m --memory-swap 64m --pids-limit 50 --cpus 0.5 "$IMG" sh -c '
		if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
			cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max /sys/fs/cgroup/cpu.max
		else
			cat /sys/fs/cgroup/memory/memory.limit_in_bytes \
			    /sys/fs/cgroup/memory/memory.memsw.limit_in_bytes 2>/dev/null
			cat /sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/cpu/cpu.cfs_quota_us \
			    /sys/fs/cgroup/cpu/cpu.cfs_period_us
		fi'
	assert_rc 0
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		assert_eq "$out" $'67108864\n50\n50000 100000'
	elif [ -f /sys/fs/cgroup/memory/memory.memsw.limit_in_bytes ]; then
		assert_eq "$out" $'67108864\n67108864\n50\n50000\n100000'
	else
		assert_eq "$out" $'67108864\n50\n50000\n100000'
	fi
}

s_oom() {
	run_cmd P run --rm --memory 32m --memory-swap 32m "$IMG" sh -c 'x=$(head -c 100000000 /dev/zero | tr "\0" a); echo survived'
	assert_rc 137
	assert_not_contains "$out" survived
}

s_pause() {
	local name
	name=$(e2e_name pause)
	run_cmd P run -d --name "$name" "$IMG" sh -c 'while :; do date +%s%N >/tmp/tick; sleep 0.05; done'
	assert_rc 0
	run_cmd P pause "$name"
	assert_rc 0
	run_cmd podman inspect --format '{{.State.Status}}' "$name"
	assert_eq "$out" paused
	run_cmd P unpause "$name"
	assert_rc 0
	run_cmd podman inspect --format '{{.State.Status}}' "$name"
	assert_eq "$out" running
	run_cmd P exec "$name" echo alive
	assert_eq "$out" alive
	run_cmd P rm -f -t 0 "$name"
}

s_update() {
	local name f
	name=$(e2e_name update)
	run_cmd P run -d --name "$name" --memory 64m --cpus 1 "$IMG" sleep 1000
	assert_rc 0
	# podman update --resources=FILE
	run_cmd P update --memory 128m --cpus 0.5 "$name"
	assert_rc 0
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		f='/sys/fs/cgroup/memory.max /sys/fs/cgroup/cpu.max'
	else
		f='/sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/cpu/cpu.cfs_quota_us'
	fi
	run_cmd P exec "$name" cat $f
	assert_match "$out" $'^134217728\n50000( 100000)?$'
	run_cmd P rm -f -t 0 "$name"
}

s_read_only() {
	run_cmd P run --rm --read-only "$IMG" sh -c 'touch /etc/x 2>&1; touch /tmp/y && echo tmp-ok'
	assert_rc 0
	assert_contains "$out" "Read-only file system"
	assert_contains "$out" tmp-ok
}

s_cap_drop() {
	run_cmd P run --rm --cap-drop ALL "$IMG" sh -c 'grep -E "^Cap(Eff|Prm|Bnd)" /proc/self/status'
	assert_rc 0
	assert_eq "$out" $'CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000'
	run_cmd P run --rm --cap-drop ALL --cap-add NET_BIND_SERVICE "$IMG" sh -c 'grep ^CapEff /proc/self/status'
	assert_eq "$out" $'CapEff:\t0000000000000400'
}

s_nnp() {
	run_cmd P run --rm --security-opt no-new-privileges "$IMG" grep NoNewPrivs /proc/self/status
	assert_eq "$out" $'NoNewPrivs:\t1'
	run_cmd P run --rm "$IMG" grep NoNewPrivs /proc/self/status
	assert_eq "$out" $'NoNewPrivs:\t0'
}

s_user_workdir_env() {
	run_cmd P run --rm --user 65534:65534 --workdir /tmp -e FOO=bar -e EMPTY= "$IMG" \
		sh -c 'id -u; id -g; pwd; echo "$FOO"; env | grep -c ^EMPTY=$'
	assert_rc 0
	assert_eq "$out" $'65534\n65534\n/tmp\nbar\n1'
	run_cmd P run --rm --user nobody "$IMG" id -un
	assert_eq "$out" nobody
}

s_volume() {
	mkdir -p "$T/vol"
	echo from-host >"$T/vol/in"
	run_cmd P run --rm -v "$T/vol:/data" "$IMG" sh -c 'cat /data/in; echo from-container >/data/out'
	assert_rc 0
	assert_eq "$out" from-host
	assert_eq "$(cat "$T/vol/out" 2>/dev/null)" from-container "file written through the volume"
	run_cmd P run --rm -v "$T/vol:/data:ro" "$IMG" sh -c 'touch /data/x 2>&1'
	assert_contains "$out" "Read-only file system"
}

s_tmpfs() {
	run_cmd P run --rm --tmpfs /scratch:size=1m,mode=1777 "$IMG" sh -c '
		grep " /scratch " /proc/mounts | cut -d" " -f1,3; stat -c %a /scratch
		dd if=/dev/zero of=/scratch/big bs=1k count=2048 2>&1 | grep -o "No space left on device"'
	assert_rc 0
	assert_eq "$out" $'tmpfs tmpfs\n1777\nNo space left on device'
}

s_network() {
	local host_ns
	run_cmd P run --rm --network none "$IMG" sh -c 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "'
	assert_rc 0
	assert_eq "$out" lo "interfaces with --network none"
	host_ns=$(readlink /proc/self/ns/net)
	run_cmd P run --rm --network host "$IMG" readlink /proc/self/ns/net
	assert_rc 0
	assert_eq "$out" "$host_ns" "network namespace with --network host"
}

s_logs() {
	local name
	name=$(e2e_name logs)
	run_cmd P run -d --name "$name" "$IMG" sh -c 'echo to-stdout; echo to-stderr >&2; sleep 1000'
	assert_rc 0
	e2e_wait_for 10 sh -c "podman logs $name 2>&1 | grep -q to-stderr"
	run_cmd P logs "$name"
	assert_eq "$out" to-stdout
	assert_eq "$err" to-stderr
	run_cmd P rm -f -t 0 "$name"
}

s_top() {
	local name
	name=$(e2e_name top)
	run_cmd P run -d --name "$name" "$IMG" sleep 1000
	assert_rc 0
	run_cmd P top "$name" pid args
	assert_rc 0
	assert_match "$out" $'PID +COMMAND\n1 +sleep 1000'
	run_cmd P rm -f -t 0 "$name"
}

s_kill_usr1() {
	local name
	name=$(e2e_name usr1)
	run_cmd P run -d --name "$name" "$IMG" sh -c 'trap "exit 7" USR1; echo ready; while :; do sleep 0.1; done'
	assert_rc 0
	e2e_wait_for 10 sh -c "podman logs $name | grep -q ready"
	run_cmd P kill -s USR1 "$name"
	assert_rc 0
	run_cmd P wait "$name"
	assert_eq "$out" 7 "exit code after SIGUSR1"
	run_cmd P rm "$name"
}

s_init() {
	command -v catatonit >/dev/null || [ -x /usr/libexec/podman/catatonit ] ||
		skip "catatonit is not installed (apt-get install catatonit)"
	run_cmd P run --rm --init "$IMG" sh -c 'cat /proc/1/cmdline | tr "\0" " "; echo; echo $$'
	assert_rc 0
	assert_match "$out" $'^/run/podman-init -- sh -c .*\n[0-9]+$'
	assert_ne "${out##*$'\n'}" 1 "the shell's pid"
}

s_rm_no_state() {
	local before
	before=$(ls -A /run/"$RTN" 2>/dev/null)
	run_cmd P run --rm --name "$(e2e_name rm)" "$IMG" true
	assert_rc 0
	run_cmd podman ps -aq
	assert_eq "$out" "" "containers after run --rm"
	assert_eq "$(ls -A /run/"$RTN" 2>/dev/null)" "$before" "/run/$RTN after run --rm"
	assert_eq "$(e2e_cgroup_dirs | grep -c libpod-)" 0 "container cgroups after run --rm"
	if [ "$E2E_CGROUP_MANAGER" = systemd ]; then
		assert_eq "$(e2e_units 'libpod-*')" "" "container scopes after run --rm"
	fi
}

# (E2E_PARALLEL containers: 20 by default)
#
# What the runtime owes each container is its command run with its stdout
# on conmon's pipe, and its exit status: the line each one writes must be
# in its log (k8s-file, at a path of ours: `run --rm` leaves it).  `podman
# run` gets the same bytes through conmon's attach socket.  A line that is
# in the log but never reached `podman run` got past the runtime and was
# lost between conmon and Podman: it is reported, not counted.  (In CI one
# `podman run` of 20 printed nothing once, with exit status 0, which says
# that the write succeeded: busybox's echo exits 1 when it fails.  Here 2
# in 200, then none in 5000.  Which side lost the line is what the log
# tells.)
s_parallel() {
	local i pids=() bad=0 n=${E2E_PARALLEL:-20}
	for i in $(seq 1 "$n"); do
		timeout -k 5 120 podman --runtime "$RT" run --rm --name "$(e2e_name p$i)" \
			--log-opt path="$T/log.$i" "$IMG" \
			sh -c "echo container $i" >"$T/out.$i" 2>"$T/err.$i" &
		pids+=($!)
	done
	for i in $(seq 1 "$n"); do
		if ! wait "${pids[i - 1]}"; then
			bad=$((bad + 1))
			diag "container $i failed: $(cat "$T/err.$i")"
		elif ! grep -qx '[^ ]* stdout F container '"$i" "$T/log.$i" 2>/dev/null; then
			bad=$((bad + 1))
			diag "container $i wrote to its log: $(cat "$T/log.$i" 2>&1)"
		elif [ "$(cat "$T/out.$i")" != "container $i" ]; then
			diag "container $i: its log has its line, \`podman run\` printed \"$(cat "$T/out.$i")\"" \
				"(lost between conmon and Podman; not counted)"
		fi
	done
	assert_eq "$bad" 0 "containers that failed out of $n"
	# `run --rm` may return before the cleanup conmon started at the exit
	# (podman container cleanup --rm, which deletes the container in the
	# runtime) is done: when that cleanup takes the container's lock
	# first, the run's own removal finds nothing to do.  The runtime must
	# end clean, in a bounded time.  The bound is 90 s: in the systemd
	# guest, one of four TCG guests on two CPUs, the six cleanups
	# (podman container cleanup, a Go binary each) were seen still under
	# way after 30 s.  (A state left for good was brig's: a delete failed
	# on libpod_parent, which that container's create had made and which
	# held the others by then; Podman forgot the container anyway.
	# 75-cgroups.sh's t_shared_parent holds that case.)
	e2e_wait_for 90 sh -c '[ -z "$(find "/run/$1" -mindepth 1 -maxdepth 1 ! -name .seccomp-cache)" ]' \
		sh "$RTN" ||
		diag "the runtime's state 90 s after the runs: $(ls -AR "/run/$RTN" | tr '\n' ' ')"
}

s_nocgroup() {
	run_cmd P run --rm --cgroups=disabled "$IMG" sh -c 'grep -E "^[0-9]+:(pids|memory)?:" /proc/self/cgroup'
	assert_rc 0
	assert_not_contains "$out" libpod "the container's cgroups"
}

s_runtime_name() {
	run_cmd podman --runtime "$RTN" run --rm "$IMG" echo via-the-configured-name
	assert_rc 0
	assert_eq "$out" via-the-configured-name
	run_cmd podman --runtime "$RTN" info --format '{{.Host.OCIRuntime.Path}}'
	assert_eq "$out" "$RT"
}

# brig job's deadline and result through an engine (runtime/lifecycle/watch.h): the
# annotations make brig kill the whole container at the deadline and write
# the result JSON when it ends.  brig's own: runc ignores them.
s_job_annotations() {
	local name t0 t1 first
	[ "$RTN" = brig ] || skip "run.brig.job.* are brig's annotations"
	name=$(e2e_name job)
	t0=$(date +%s%N)
	run_cmd P run --rm --name "$name" --annotation run.brig.job.timeout=1s \
		--annotation run.brig.job.result="$T/result.json" "$IMG" \
		sh -c 'sleep 100 & while :; do :; done'
	t1=$(date +%s%N)
	assert_rc 137
	# ended at its deadline (1 s), not after the 100 s of its sleep
	assert [ $(((t1 - t0) / 1000000)) -lt 10000 ]
	wait_for "$T/result.json"
	assert_eq "$(jq -r .reason "$T/result.json")" timeout "the result's reason"
	assert_eq "$(jq -r .timed_out "$T/result.json")" true
	assert_eq "$(jq -r .stdout_bytes "$T/result.json")" null "streams are the engine's"
	# no deadline: the result of a normal end
	run_cmd P run --rm --annotation run.brig.job.result="$T/ok.json" "$IMG" sh -c 'exit 3'
	assert_rc 3
	wait_for "$T/ok.json"
	assert_eq "$(jq -r .reason "$T/ok.json")" exited
	assert_eq "$(jq -r .timed_out "$T/ok.json")" false
	# the record replaces what a container may have put at the path by
	# the end, so at create nothing of the host's may be there: a file or
	# a symlink at the path fails create, and stays as it was (whose
	# target is not created); an earlier record of brig's is replaced
	echo keep >"$T/existing"
	ln -s "$T/victim" "$T/link"
	run_cmd P run --rm --annotation run.brig.job.result="$T/existing" "$IMG" true
	assert_ne "$rc" 0 "podman run with a file of the host's at the result's path"
	assert_contains "$out$err" "is no result of brig's"
	run_cmd P run --rm --annotation run.brig.job.result="$T/link" "$IMG" true
	assert_ne "$rc" 0 "podman run with a symlink at the result's path"
	assert_eq "$(cat "$T/existing")" keep "a file the result path named"
	assert [ -L "$T/link" ]
	assert [ ! -e "$T/victim" ]
	# (by its id: exit_code may be null, conmon reaps the process and the
	# watcher may come too late to read its status)
	first=$(jq -r .id "$T/ok.json")
	run_cmd P run --rm --annotation run.brig.job.result="$T/ok.json" "$IMG" sh -c 'exit 6'
	assert_rc 6
	wait_until 5 eval '[ "$(jq -r .id "$T/ok.json" 2>/dev/null)" != "$first" ]' ||
		fail "a second run's record over the first ($first): $(cat "$T/ok.json")"
	assert_eq "$(jq -r .reason "$T/ok.json")" exited "the second run's record"
	# a bad value is one line from create, nothing left
	run_cmd P run --rm --annotation run.brig.job.timeout=soon "$IMG" true
	assert_ne "$rc" 0
	assert_contains "$err" "run.brig.job.timeout"
}

# checkpoint and restore go through the runtime's own commands (CRIU,
# where `criu check` passes: the vm guest's kernel, not this host's).
need_criu() {
	command -v criu >/dev/null || skip "criu is not installed"
	criu check >/dev/null 2>&1 || skip "criu check fails on this kernel ($(uname -r))"
}

COUNTER='i=0; while true; do i=$((i+1)); echo $i >/tmp/count; sleep 0.1; done'

# the counter of NAME (0 when it cannot be read; a read between the
# truncation and the write of the counter's echo, empty, is tried again)
pcount() {
	local c i
	for i in 1 2 3; do
		c=$(P exec "$1" cat /tmp/count 2>/dev/null)
		[ -n "$c" ] && break
	done
	echo "${c:-0}"
}

# counts_on NAME: the counter goes on within 10 s
counts_on() {
	local n i
	n=$(pcount "$1")
	for ((i = 0; i < 20; i++)); do
		sleep 0.5
		[ "$(pcount "$1")" -gt "$n" ] && return 0
	done
	return 1
}

s_checkpoint() {
	local name
	need_criu
	name=$(e2e_name cp)
	run_cmd P run -d --name "$name" "$IMG" sh -c "$COUNTER"
	assert_rc 0
	counts_on "$name" || fail "the counter does not count"
	run_cmd P container checkpoint "$name"
	assert_rc 0
	run_cmd podman inspect --format '{{.State.Status}}' "$name"
	assert_eq "$out" exited "status after checkpoint"
	run_cmd P container restore "$name"
	assert_rc 0
	run_cmd podman inspect --format '{{.State.Status}}' "$name"
	assert_eq "$out" running "status after restore"
	counts_on "$name" || fail "the restored counter does not go on"
	run_cmd P container checkpoint --leave-running "$name"
	assert_rc 0
	counts_on "$name" || fail "the counter stopped with --leave-running"
	run_cmd P rm -f -t 0 "$name"
	assert_rc 0
}

# One exported checkpoint restored into two new containers (--import
# --name): each counts on its own.
s_checkpoint_fork() {
	local name i
	need_criu
	name=$(e2e_name cpf)
	run_cmd P run -d --name "$name" "$IMG" sh -c "$COUNTER"
	assert_rc 0
	counts_on "$name" || fail "the counter does not count"
	run_cmd P container checkpoint --export "$T/cp.tar" "$name"
	assert_rc 0
	run_cmd P rm -f -t 0 "$name"
	for i in 1 2; do
		run_cmd P container restore --import "$T/cp.tar" --name "$name-$i"
		assert_rc 0
	done
	for i in 1 2; do
		counts_on "$name-$i" || fail "copy $i does not count"
	done
	run_cmd P rm -f -t 0 "$name-1" "$name-2"
	assert_rc 0
}

e2e_mounts >"$E2E_TMP/mounts"

scenario "run --rm echo" s_echo cgroup
scenario "exit codes 0 1 42 127 126 137" s_exit_codes cgroup
scenario "run -d, exec, stop, rm" s_detach_exec cgroup
scenario "stop, start again, logs" s_restart cgroup
scenario "run -it (tty)" s_tty
scenario "exec -it (tty)" s_exec_tty
scenario "run -i (stdin pipe)" s_stdin
scenario "--memory --pids-limit --cpus read back" s_limits cgroup
scenario "--memory OOM kill is 137" s_oom cgroup
scenario "pause, unpause" s_pause cgroup
scenario "update --memory --pids-limit" s_update cgroup
scenario "--read-only" s_read_only
scenario "--cap-drop ALL, --cap-add" s_cap_drop
scenario "--security-opt no-new-privileges" s_nnp
scenario "--user --workdir -e" s_user_workdir_env
scenario "-v bind volume (rw, ro)" s_volume
scenario "--tmpfs with size and mode" s_tmpfs
scenario "--network none and host" s_network
scenario "logs (stdout, stderr)" s_logs
scenario "top" s_top cgroup
scenario "kill -s USR1" s_kill_usr1
scenario "--init (catatonit)" s_init
scenario "run --rm leaves no state" s_rm_no_state cgroup
scenario "container checkpoint, restore, --leave-running" s_checkpoint criu
scenario "checkpoint --export, restore --import twice" s_checkpoint_fork criu
scenario "${E2E_PARALLEL:-20} containers in parallel" s_parallel cgroup
scenario "--cgroups=disabled (runtime_supports_nocgroup)" s_nocgroup cgroup
scenario "--runtime NAME from containers.conf" s_runtime_name
scenario "run.brig.job.timeout and .result annotations" s_job_annotations

podman rm -af -t 0 >/dev/null 2>&1
podman rmi -af >/dev/null 2>&1
# Podman's own cgroups (conmon's), below the test's cgroup.
e2e_remove_cgroups
e2e_done
