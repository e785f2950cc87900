#!/bin/bash
# The systemd cgroup driver (--systemd-cgroup) against a real systemd: the
# container's cgroup is a transient scope, brig-ID.scope in the slice its
# "slice:prefix:name" cgroupsPath names, started with the init's pid and
# Delegate=yes; the resources are unit properties (MemoryMax, TasksMax,
# CPUWeight, CPUQuotaPerSecUSec, AllowedCPUs, ...) and the cgroup files
# say the same; update, pause/resume, exec, ps and events work on it;
# delete stops the unit and leaves no unit, failed or not; rootless, the
# user's own systemd does the same.  Runs where
# systemd is PID 1 on pure cgroup v2 (tests/vm's systemd guest); elsewhere
# every test skips, and 75-cgroups.sh checks the driver's refusal.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"
[ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1 ||
	skip_all "systemd is not PID 1 here (tests/vm/run.sh with BRIG_VM_INIT=systemd runs this)"
[ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] || skip_all "needs pure cgroup v2"

brig_file_rootfs

# ------------------------------------------------------------- helpers

# prop UNIT PROPERTY: its value, as systemctl show says it.
prop() {
	systemctl show -p "$2" --value "$1" 2>&1
}

# scope ID: the container's cgroup directory (systemd's ControlGroup of
# brig-ID.scope).
scope() {
	echo "/sys/fs/cgroup$(prop "brig-$1.scope" ControlGroup)"
}

# brig_units: the units whose name has "brig" in it, loaded or failed.
brig_units() {
	systemctl list-units --all --plain --no-legend --no-pager 2>/dev/null |
		awk '$1 ~ /brig-[^ ]*\.scope$/ { print $1 " " $3 " " $4 }'
}

# failed_units: every failed unit of the guest.
failed_units() {
	systemctl list-units --failed --plain --no-legend --no-pager 2>/dev/null | awk '{ print $1 }'
}

# nothing_left ID [WHEN]: no state, no brig unit, no failed unit.
nothing_left() {
	assert_no_file "$T/root/$1"
	assert_eq "$(brig_units)" "" "brig units left${2:+ $2}"
	assert_eq "$(failed_units)" "" "failed units${2:+ $2}"
}

# sdrun ID PATH [JQ-FILTER]: run -d of a `sleep 1000` bundle with
# cgroupsPath PATH under --systemd-cgroup, which must succeed; deleted
# when the test ends.
sdrun() {
	local id=$1 path=$2 filter=${3:-.}
	mkbundle ".linux.cgroupsPath = \"$path\" | $filter" sleep 1000 || return 1
	delete_at_end "$id"
	br --systemd-cgroup run -d --bundle "$T/b" "$id"
	assert_rc 0
}

# deleted ID: delete --force ID succeeds and leaves nothing.
deleted() {
	br delete --force "$1"
	assert_rc 0
	nothing_left "$1" "after delete"
}

# ------------------------------------------------------------- tests

# The scope: active, in the slice the path names, with the init in it.
t_scope() {
	local pid d
	sdrun c1 system.slice:brig:c1 || return
	assert_eq "$(prop brig-c1.scope ActiveState)" active "the scope's state"
	assert_eq "$(prop brig-c1.scope Slice)" system.slice "the scope's slice"
	assert_eq "$(prop brig-c1.scope Delegate)" yes "Delegate"
	d=$(scope c1)
	assert_eq "$d" /sys/fs/cgroup/system.slice/brig-c1.scope "the scope's cgroup"
	pid=$(state_field c1 pid)
	assert_eq "$(cat "$d/cgroup.procs")" "$pid" "the scope's processes"
	br exec c1 cat /proc/self/cgroup
	assert_eq "$rc:$out" "0:0::/system.slice/brig-c1.scope" "an exec's cgroup"
	br ps c1
	assert_contains "$out" "sleep 1000" "ps"
	deleted c1
	assert_no_file "$d"
}

# The resources: as unit properties (runc's names) and in the files.
t_resources() {
	local d
	sdrun c1 system.slice:brig:c1 '.linux.resources = {memory: {limit: 67108864},
		pids: {limit: 50}, cpu: {quota: 50000, period: 100000, shares: 512, cpus: "0"}}' || return
	assert_eq "$(prop brig-c1.scope MemoryMax)" 67108864 MemoryMax
	assert_eq "$(prop brig-c1.scope TasksMax)" 50 TasksMax
	assert_eq "$(prop brig-c1.scope CPUQuotaPerSecUSec)" 500ms CPUQuotaPerSecUSec
	assert_eq "$(prop brig-c1.scope CPUWeight)" 20 "CPUWeight (shares 512, as runc converts them)"
	assert_eq "$(prop brig-c1.scope AllowedCPUs)" 0 AllowedCPUs
	d=$(scope c1)
	assert_eq "$(cat "$d/memory.max")" 67108864 memory.max
	assert_eq "$(cat "$d/pids.max")" 50 pids.max
	assert_eq "$(cat "$d/cpu.max")" "50000 100000" cpu.max
	assert_eq "$(cat "$d/cpu.weight")" 20 cpu.weight
	assert_eq "$(cat "$d/cpuset.cpus")" 0 cpuset.cpus
	# update: through systemd (the properties) and the files
	br update --memory 134217728 --pids-limit 60 c1
	assert_rc 0
	assert_eq "$(prop brig-c1.scope MemoryMax)" 134217728 "MemoryMax after update"
	assert_eq "$(prop brig-c1.scope TasksMax)" 60 "TasksMax after update"
	assert_eq "$(cat "$d/memory.max")" 134217728 "memory.max after update"
	assert_eq "$(cat "$d/pids.max")" 60 "pids.max after update"
	br events --stats c1
	assert_eq "$(jq -r .data.memory.usage.limit <<<"$out")" 134217728 "events --stats: the memory limit"
	deleted c1
}

# pause and resume: the scope's cgroup.freeze.
t_pause() {
	local d
	sdrun c1 system.slice:brig:c1 || return
	d=$(scope c1)
	br pause c1
	assert_rc 0
	assert_eq "$(state_field c1 status)" paused "status after pause"
	assert_eq "$(cat "$d/cgroup.freeze")" 1 "cgroup.freeze after pause"
	br resume c1
	assert_rc 0
	assert_eq "$(state_field c1 status)" running "status after resume"
	assert_eq "$(cat "$d/cgroup.freeze")" 0 "cgroup.freeze after resume"
	br exec c1 echo alive
	assert_eq "$rc:$out" "0:alive" "exec after resume"
	deleted c1
}

# Delegate=yes: the container's cgroup can have cgroups of its own.
t_delegate() {
	local d
	sdrun c1 system.slice:brig:c1 || return
	d=$(scope c1)
	mkdir "$d/sub" || fail "mkdir in the delegated scope"
	assert_ne "$(cat "$d/cgroup.controllers")" "" "controllers in the delegated scope"
	rmdir "$d/sub"
	deleted c1
}

# A slice that does not exist yet: systemd makes it (as for runc); a
# second container with the same unit name (in another slice): one line,
# nothing of it left, the first and its unit untouched.
t_slice_and_clash() {
	sdrun c1 brig-test.slice:brig:c1 || return
	assert_eq "$(prop brig-c1.scope Slice)" brig-test.slice "the scope's slice"
	mkbundle '.linux.cgroupsPath = "system.slice:brig:c1"' sleep 1000 || return
	delete_at_end c2
	br --systemd-cgroup run -d --bundle "$T/b" c2
	assert_rc 1
	assert_lines 1 "$err" "the clash's error"
	assert_contains "$err" 'brig-c1.scope' "the clash's error names the unit"
	diag "CLASHERR: $err"
	assert_no_file "$T/root/c2"
	assert_eq "$(state_field c1 status)" running "the first container after the clash"
	# the failed create stops no unit it did not start: it once stopped
	# c1's (deactivating, SIGTERM, then systemd's SIGKILL 90 s later),
	# waiting 30 s for the job
	assert_eq "$(prop brig-c1.scope ActiveState)" active "the first container's unit after the clash"
	deleted c1
}

# ------------------------------------------------------------- rootless

# Rootless under a user's own systemd (user@UID.service, which logind
# starts at a user's first login and root starts here): brig, run by the
# user, asks that manager over the user's bus for the scope, in the
# manager's delegated tree, as Podman rootless has runc and crun do.  The
# limits are the scope's properties and files; /dev is guarded by what
# the user may open (the kernel loads no device filter for a user, and
# runc goes on without one too).
t_rootless() {
	local u uid rl cg d pid bus
	require_cmd useradd userdel setpriv
	u=brig-sd-$$
	useradd -m -d "$T/home" -s /bin/sh -U "$u" 2>"$T/useradd.err" || {
		fail "useradd $u: $(cat "$T/useradd.err")"
		return
	}
	defer userdel -r "$u"
	uid=$(id -u "$u")
	run_cmd systemctl start "user@$uid.service"
	assert_rc 0 || return
	defer systemctl stop "user@$uid.service"
	bus=unix:path=/run/user/$uid/bus
	rl=$T/rl
	chmod 0755 "$T" &&
		mkdir -p "$T/bin" "$T/xdg" "$rl" && cp "$BRIG" "$T/bin/brig" &&
		cp -a "$ROOTFS" "$rl/rootfs" && chown -hR "$u:$u" "$rl" "$T/xdg" || {
		fail "cannot prepare the files of $u"
		return
	}
	# as the user, its brig state in $T/xdg, its bus given by address
	as_rl() {
		timeout -k 5 "${TAP_TIMEOUT:-60}" setpriv --reuid="$uid" --regid="$uid" --init-groups -- \
			env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$T/home" USER="$u" \
			XDG_RUNTIME_DIR="$T/xdg" DBUS_SESSION_BUS_ADDRESS="$bus" "$@"
	}
	uprop() { as_rl systemctl --user show -p "$1" --value brig-rl1.scope 2>&1; }
	as_rl "$T/bin/brig" spec --rootless --bundle "$rl" || fail "brig spec --rootless as $u"
	brig_bundle_edit "$rl" '.process.terminal = false | .process.args = ["sleep", "1000"]
		| .linux.cgroupsPath = "user.slice:brig:rl1"
		| .linux.resources = {memory: {limit: 67108864}, pids: {limit: 50}}' &&
		chown "$u:$u" "$rl/config.json" || fail "edit config.json"
	defer as_rl "$T/bin/brig" delete --force rl1
	run_cmd as_rl "$T/bin/brig" --systemd-cgroup run -d --bundle "$rl" rl1
	assert_rc 0 || return
	assert_eq "$out$err" "" "output of the rootless run -d"
	cg=/user.slice/user-$uid.slice/user@$uid.service/user.slice/brig-rl1.scope
	assert_eq "$(uprop ControlGroup)" "$cg" "the scope's ControlGroup (in the user's manager)"
	assert_eq "$(uprop Delegate)" yes Delegate
	assert_eq "$(uprop MemoryMax)" 67108864 MemoryMax
	assert_eq "$(uprop TasksMax)" 50 TasksMax
	d=/sys/fs/cgroup$cg
	pid=$(as_rl "$T/bin/brig" state rl1 | jq -r .pid)
	assert_eq "$(cat "/proc/$pid/cgroup" 2>&1)" "0::$cg" "the init's cgroup"
	assert_eq "$(cat "$d/memory.max" "$d/pids.max" 2>&1)" $'67108864\n50' "memory.max, pids.max"
	assert_eq "$(stat -c %U "$d")" "$u" "owner of the scope's cgroup"
	# brig runs here in root's cgroup: the user may not move the process
	# into its scope (the cgroups' common ancestor is not the user's), so
	# it stays in brig's, as runc lets it
	run_cmd as_rl "$T/bin/brig" exec rl1 id -u
	assert_rc 0
	assert_eq "$out" 0 "id -u in an exec"
	run_cmd as_rl "$T/bin/brig" update --memory 134217728 rl1
	assert_rc 0
	assert_eq "$(uprop MemoryMax)" 134217728 "MemoryMax after update"
	assert_eq "$(cat "$d/memory.max" 2>&1)" 134217728 "memory.max after update"
	run_cmd as_rl "$T/bin/brig" delete --force rl1
	assert_rc 0
	assert_eq "$out$err" "" "output of delete --force"
	assert_no_file "$d"
	assert_eq "$(as_rl systemctl --user list-units --all --plain --no-legend 'brig-*')" "" \
		"the user's brig units after delete"
	assert_empty_dir "$T/xdg/brig"
	assert_eq "$(failed_units)" "" "failed units"
}

tap_test "systemd: a transient scope in the named slice, Delegate=yes, the init in it; delete leaves no unit" t_scope
tap_test "systemd: resources as unit properties and files; update changes both" t_resources
tap_test "systemd: pause and resume freeze and thaw the scope" t_pause
tap_test "systemd: a delegated scope takes sub-cgroups" t_delegate
tap_test "systemd: a new slice is made; a unit name clash is one line, leaves nothing and stops no unit" t_slice_and_clash
tap_test "systemd, rootless: the user's manager (user@UID.service) gives the scope, limits, update, delete" t_rootless
tap_done
