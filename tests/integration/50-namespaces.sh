#!/bin/bash
# Namespaces: each one asked for is new (seen from inside and compared with
# the host), each one given by path is joined, and the combinations that
# cannot work are refused before anything exists.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"

# One busybox rootfs for the whole file; every test has its own bundle $T/b
# pointing at it, and its own --root.  Containers never write to it.
brig_file_rootfs

# --------------------------------------------------------------- helpers

# ns_bundle DIR FILTER CMD [ARGS...]: a bundle in DIR: `brig spec` without a
# terminal, running CMD ARGS on the shared rootfs, then the jq FILTER (which
# may read $ENV).
ns_bundle() {
	local dir=$1 filter=$2 args
	shift 2
	args=$(json_args "$@") &&
		mkdir -p "$dir" &&
		rm -f "$dir/config.json" &&
		"$BRIG" spec --bundle "$dir" &&
		brig_bundle_edit "$dir" '.process.terminal = false | .process.args = $a
			| .root.path = $root | '"$filter" --argjson a "$args" --arg root "$ROOTFS" ||
		fail "cannot write the bundle $dir"
}

# start_other ID FILTER: a detached container ID (bundle $T/ID) that sleeps;
# its pid in $other_pid.
start_other() {
	ns_bundle "$T/$1" "$2" sleep 100
	defer "$BRIG" --root "$T/root" delete --force "$1"
	br run --detach --bundle "$T/$1" "$1"
	assert_rc 0 || return
	other_pid=$(state_field "$1" pid)
	assert_match "$other_pid" '^[1-9][0-9]*$' "pid of $1" || return
	# run --detach may return before the init has called execve (runc's
	# too): wait until it is sleep
	wait_until 5 comm_is "$other_pid" sleep || fail "$1 did not exec sleep"
}

# ns_of PID TYPE: "type:[inode]", as readlink /proc/PID/ns/TYPE says.
ns_of() {
	readlink "/proc/$1/ns/$2"
}

# to_userns DIR: bundle DIR in a user namespace of its own (ids 100000..,
# 65536 of them), its rootfs a copy that the namespace's root owns, where
# it can reach it (removed when the test ends).
to_userns() {
	local ur
	ur=$(mktemp -d /tmp/brig-userns.XXXXXX) && defer rm -rf "$ur" &&
		cp -a "$ROOTFS" "$ur/rootfs" && chown -R 100000:100000 "$ur/rootfs" &&
		chmod 755 "$ur" || fail "cannot make a rootfs for the user namespace" || return
	brig_bundle_edit "$1" '.linux.namespaces += [{type: "user"}] | .root.path = $r
		| .linux.uidMappings = [{containerID: 0, hostID: 100000, size: 65536}]
		| .linux.gidMappings = [{containerID: 0, hostID: 100000, size: 65536}]' \
		--arg r "$ur/rootfs"
}

# A script printing the namespaces of the container, one per line.
SHOW_NS='for n in cgroup ipc mnt net pid time uts; do readlink /proc/self/ns/$n; done'

# ns_line OUT TYPE: the line of a SHOW_NS output for TYPE.
ns_line() {
	grep "^$2:" <<<"$1"
}

# --------------------------------------------------------- new namespaces

t_new_pid() {
	ns_bundle "$T/b" . sh -c 'echo $$; ps -o pid,comm; true'
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$(sed -n 1p <<<"$out")" 1 "\$\$ in the container"
	# only the container's processes: sh (1) and ps (2)
	assert_eq "$(sed -n '3,$p' <<<"$out" | awk '{ print $1, $2 }')" "$(printf '1 sh\n2 ps')" \
		"ps in the container"
	assert_empty_dir "$T/root"
}

t_new_ns_inodes() {
	local n host
	ns_bundle "$T/b" '.linux.namespaces += [{type: "cgroup"}, {type: "time"}]' sh -c "$SHOW_NS"
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_lines 7 "$out" "namespaces" || return
	for n in cgroup ipc mnt net pid time uts; do
		host=$(ns_of $$ "$n")
		assert_match "$(ns_line "$out" "$n")" "^$n:\[[0-9]+\]$" "$n namespace inside"
		assert_ne "$(ns_line "$out" "$n")" "$host" "$n namespace inside vs the host's"
	done
	assert_empty_dir "$T/root"
}

# Without a user namespace, brig makes the network, ipc and uts
# namespaces ahead, in a thread of its own (linux/ns_premake.h), not in
# the init's clone: they must be what that clone made, new and owned by
# the host's user namespace (as runc's are); with a user namespace of
# its own, the container's network namespace is that one's.
t_premade_owner() {
	local pid n own
	ns_bundle "$T/b" . sleep 100
	br run -d --bundle "$T/b" c1
	assert_rc 0 || return
	defer "$BRIG" --root "$T/root" delete --force c1
	pid=$(state_field c1 pid)
	for n in net ipc uts; do
		assert_ne "$(ns_of "$pid" "$n")" "$(ns_of $$ "$n")" "the container's $n namespace"
		assert_eq "$(lsns -n -o ONS -t "$n" -p "$pid" | tr -d ' ')" \
			"$(stat -L -c %i /proc/self/ns/user)" "the owner of its $n namespace"
	done
	ns_bundle "$T/u" . sleep 100
	to_userns "$T/u" || return
	br run -d --bundle "$T/u" c2
	assert_rc 0 || return
	defer "$BRIG" --root "$T/root" delete --force c2
	pid=$(state_field c2 pid)
	own=$(stat -L -c %i "/proc/$pid/ns/user")
	assert_ne "$own" "$(stat -L -c %i /proc/self/ns/user)" "the user namespace of c2"
	assert_eq "$(lsns -n -o ONS -t net -p "$pid" | tr -d ' ')" "$own" \
		"the owner of c2's network namespace"
}

# The thread that makes them fails: one line, and nothing left (the
# harness checks mounts, cgroups and processes after each test).
t_premade_fails() {
	need_faults
	ns_bundle "$T/b" . true
	run_cmd env BRIG_FAULT=create.premake:errno=12 "$BRIG" --root "$T/root" run \
		--bundle "$T/b" c1
	assert_rc 1
	assert_eq "$err" "brig: create the container's namespaces: Cannot allocate memory" \
		"the error"
	assert_empty_dir "$T/root"
}

# Namespaces not asked for are the host's.
t_shared_ns() {
	local n
	ns_bundle "$T/b" '.linux.namespaces |= map(select(.type == "mount"))
		| del(.hostname)' sh -c "$SHOW_NS"
	br run --bundle "$T/b" c1
	assert_rc 0
	for n in cgroup ipc net pid time uts; do
		assert_eq "$(ns_line "$out" "$n")" "$(ns_of $$ "$n")" "$n namespace inside vs the host's"
	done
	assert_ne "$(ns_line "$out" mnt)" "$(ns_of $$ mnt)" "mnt namespace inside vs the host's"
	assert_empty_dir "$T/root"
}

t_new_uts() {
	local host_name host_domain
	host_name=$(hostname)
	host_domain=$(cat /proc/sys/kernel/domainname)
	ns_bundle "$T/b" '.hostname = "brig-uts-test" | .domainname = "brig.test"' \
		sh -c 'hostname; cat /proc/sys/kernel/domainname'
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$out" "$(printf 'brig-uts-test\nbrig.test')" "hostname and domainname inside"
	assert_eq "$(hostname)" "$host_name" "the host's hostname afterwards"
	assert_eq "$(cat /proc/sys/kernel/domainname)" "$host_domain" "the host's domainname afterwards"
	assert_empty_dir "$T/root"
}

t_new_net() {
	ns_bundle "$T/b" . cat /proc/net/dev
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$(sed -n '3,$p' <<<"$out" | awk -F: '{ gsub(/ /, "", $1); print $1 }')" lo \
		"interfaces in the container"
	assert_empty_dir "$T/root"
}

# ... and lo is up (IFF_UP, 0x1), as runc and crun bring it up: a
# connection to a closed port of 127.0.0.1 is refused (with lo down the
# network is unreachable).  In a user namespace too.  runc runs the same
# bundle where it is installed.
LO_SCRIPT='cat /sys/class/net/lo/flags; nc 127.0.0.1 9 </dev/null 2>&1'
t_new_net_lo_up() { # plain|userns
	local runc want=$'0x9\nnc: can\'t connect to remote host (127.0.0.1): Connection refused'
	ns_bundle "$T/b" . sh -c "$LO_SCRIPT"
	if [ "$1" = userns ]; then
		to_userns "$T/b" || return
	fi
	br run --bundle "$T/b" c1
	assert_eq "$out" "$want" "lo's flags, and a connection over it"
	assert_empty_dir "$T/root"
	runc=$(side_runc) || return 0
	brig_bundle_edit "$T/b" '.linux.cgroupsPath = $cg' --arg cg "runc-$RANDOM"
	run_cmd "$runc" --root "$T/runc" run --bundle "$T/b" "r$RANDOM"
	assert_eq "$out" "$want" "under runc ($runc)"
}

# A System V message queue of the host is not seen inside.
t_new_ipc() {
	require_cmd ipcmk ipcrm
	local id
	id=$(ipcmk -Q | grep -o '[0-9]*$') || {
		fail "ipcmk -Q"
		return
	}
	defer ipcrm -q "$id"
	assert_match "$(cat /proc/sysvipc/msg)" "[[:space:]]${id}[[:space:]]" "host's queues"
	ns_bundle "$T/b" . sh -c 'cat /proc/sysvipc/msg'
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_lines 1 "$out" "/proc/sysvipc/msg inside (the header only)"
	assert_empty_dir "$T/root"
}

t_new_cgroup() {
	ns_bundle "$T/b" '.linux.namespaces += [{type: "cgroup"}]' cat /proc/self/cgroup
	br run --bundle "$T/b" c1
	assert_rc 0
	[ -n "$out" ] || fail "empty /proc/self/cgroup"
	assert_eq "$(grep -v ':/$' <<<"$out")" "" "cgroup paths that are not /"
	assert_empty_dir "$T/root"
}

t_new_time() {
	local inside host delta
	ns_bundle "$T/b" '.linux.namespaces += [{type: "time"}]
		| .linux.timeOffsets = {monotonic: {secs: 86400}, boottime: {secs: 86400}}' \
		sh -c 'cat /proc/uptime'
	br run --bundle "$T/b" c1
	host=$(cut -d' ' -f1 /proc/uptime)
	assert_rc 0
	inside=$(cut -d' ' -f1 <<<"$out")
	delta=$(awk -v a="$inside" -v b="$host" 'BEGIN { printf "%d", a - b }')
	# one day, give or take the few seconds the run took
	[ "$delta" -ge 86390 ] && [ "$delta" -le 86401 ] ||
		fail "uptime inside ($inside) minus the host's ($host) is $delta, not about 86400"
	assert_empty_dir "$T/root"
}

# Without offsets a new time namespace runs the host's clocks.
t_new_time_no_offsets() {
	local inside host
	ns_bundle "$T/b" '.linux.namespaces += [{type: "time"}]' sh -c 'cat /proc/uptime'
	br run --bundle "$T/b" c1
	host=$(cut -d' ' -f1 /proc/uptime)
	assert_rc 0
	inside=$(cut -d' ' -f1 <<<"$out")
	awk -v a="$inside" -v b="$host" 'BEGIN { exit !(b - a >= 0 && b - a < 10) }' ||
		fail "uptime inside ($inside) vs the host's ($host)"
	assert_empty_dir "$T/root"
}

# ------------------------------------------------------ joined namespaces

t_join_netns() {
	require_cmd unshare
	local path=$T/netns
	# a network namespace kept alive by a bind mount on a file, as
	# `ip netns add` does under /run/netns, but under $T: tests running at
	# the same time see no new host mount of ours
	touch "$path"
	unshare --net="$path" true || {
		fail "unshare --net=$path"
		return
	}
	defer umount "$path"
	export NSPATH=$path
	ns_bundle "$T/b" '.linux.namespaces |= map(if .type == "network" then .path = $ENV.NSPATH else . end)' \
		sh -c 'readlink /proc/self/ns/net; cat /proc/net/dev'
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$(sed -n 1p <<<"$out")" "net:[$(stat -L -c %i "$path")]" "net namespace inside"
	assert_eq "$(sed -n '4,$p' <<<"$out" | awk -F: '{ gsub(/ /, "", $1); print $1 }')" lo \
		"interfaces in the container"
	assert_empty_dir "$T/root"
}

# Joined by /proc/PID/ns/TYPE of another container, which has its own.
t_join_other() { # TYPE NAME-IN-/proc
	local other_pid
	start_other a '.hostname = "brig-other" | .linux.namespaces += [{type: "cgroup"}, {type: "time"}]
		| .linux.timeOffsets = {boottime: {secs: 86400}}' || return
	export NSTYPE=$1 NSPATH=/proc/$other_pid/ns/$2
	ns_bundle "$T/b" '.linux.namespaces |= map(if .type == $ENV.NSTYPE then .path = $ENV.NSPATH else . end)
		| if $ENV.NSTYPE == "uts" then del(.hostname) else . end
		| if $ENV.NSTYPE == "time" or $ENV.NSTYPE == "cgroup"
		  then .linux.namespaces += [{type: $ENV.NSTYPE, path: $ENV.NSPATH}] else . end' \
		sh -c "readlink /proc/self/ns/$2"
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$out" "$(ns_of "$other_pid" "$2")" "$2 namespace inside vs the other container's"
	assert_ne "$out" "$(ns_of $$ "$2")" "$2 namespace inside vs the host's"
	assert_eq "$(state_field a status)" running "status of the other container"
	br delete --force a
	assert_rc 0
	assert_empty_dir "$T/root"
}

t_join_uts_hostname() {
	local other_pid
	start_other a '.hostname = "brig-other"' || return
	export NSPATH=/proc/$other_pid/ns/uts
	ns_bundle "$T/b" '.linux.namespaces |= map(if .type == "uts" then .path = $ENV.NSPATH else . end)
		| del(.hostname)' hostname
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$out" brig-other "hostname in the joined uts namespace"
	br delete --force a
	assert_rc 0
	assert_empty_dir "$T/root"
}

t_join_time_offsets() {
	local other_pid inside host delta
	start_other a '.linux.namespaces += [{type: "time"}]
		| .linux.timeOffsets = {boottime: {secs: 86400}}' || return
	export NSPATH=/proc/$other_pid/ns/time
	ns_bundle "$T/b" '.linux.namespaces += [{type: "time", path: $ENV.NSPATH}]' cat /proc/uptime
	br run --bundle "$T/b" c1
	host=$(cut -d' ' -f1 /proc/uptime)
	assert_rc 0
	inside=$(cut -d' ' -f1 <<<"$out")
	delta=$(awk -v a="$inside" -v b="$host" 'BEGIN { printf "%d", a - b }')
	[ "$delta" -ge 86390 ] && [ "$delta" -le 86401 ] ||
		fail "uptime inside ($inside) minus the host's ($host) is $delta, not about 86400"
	br delete --force a
	assert_rc 0
	assert_empty_dir "$T/root"
}

# The joiner sees the other container's processes, and is not PID 1.
t_join_pid() {
	local other_pid
	start_other a . || return
	export NSPATH=/proc/$other_pid/ns/pid
	ns_bundle "$T/b" '.linux.namespaces |= map(if .type == "pid" then .path = $ENV.NSPATH else . end)' \
		sh -c 'echo $$; ps -o pid,args; true'
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_match "$(sed -n 1p <<<"$out")" '^([2-9]|[1-9][0-9]+)$' "\$\$ in the joined pid namespace"
	assert_match "$out" $'\n *1 sleep 100\n' "ps in the joined pid namespace"
	assert_eq "$(state_field a status)" running "status of the other container"
	br delete --force a
	assert_rc 0
	assert_empty_dir "$T/root"
}

# --------------------------------------------------- invalid combinations

# expect_refused WANT: create and run of $T/b fail with exactly the line
# WANT, exit 1, and leave nothing (no state; tap.sh checks processes and
# mounts).
expect_refused() {
	local cmd
	for cmd in create run; do
		br "$cmd" --bundle "$T/b" c1
		assert_rc 1
		assert_eq "$out" "" "stdout of $cmd"
		assert_err_line "$1"
		assert_empty_dir "$T/root"
	done
}

# ns_index TYPE: the index of TYPE in $T/b's linux.namespaces.
ns_index() {
	jq --arg t "$1" '.linux.namespaces | map(.type) | index($t)' "$T/b/config.json"
}

t_bad_hostname() {
	ns_bundle "$T/b" '.linux.namespaces |= map(select(.type != "uts")) | .hostname = "h"' true
	expect_refused "brig: config.json: hostname: requires a uts namespace"
}

t_bad_domainname() {
	ns_bundle "$T/b" '.linux.namespaces |= map(select(.type != "uts")) | del(.hostname)
		| .domainname = "d"' true
	expect_refused "brig: config.json: domainname: requires a uts namespace"
}

t_bad_sysctl_net() {
	ns_bundle "$T/b" '.linux.namespaces |= map(select(.type != "network"))
		| .linux.sysctl = {"net.ipv4.ip_forward": "1"}' true
	expect_refused 'brig: config.json: linux.sysctl["net.ipv4.ip_forward"]: requires a new network namespace'
}

t_bad_sysctl_ipc() {
	ns_bundle "$T/b" '.linux.namespaces |= map(select(.type != "ipc"))
		| .linux.sysctl = {"kernel.msgmax": "4096"}' true
	expect_refused 'brig: config.json: linux.sysctl["kernel.msgmax"]: requires a new ipc namespace'
}

t_bad_sysctl_host() {
	ns_bundle "$T/b" '.linux.sysctl = {"kernel.panic": "1"}' true
	expect_refused 'brig: config.json: linux.sysctl["kernel.panic"]: not namespaced: the container may not set it'
}

t_bad_time_offsets() {
	ns_bundle "$T/b" '.linux.timeOffsets = {monotonic: {secs: 86400}}' true
	expect_refused "brig: config.json: linux.timeOffsets: requires a new time namespace"
}

t_bad_path_type() {
	local i
	export NSPATH=/proc/$BASHPID/ns/uts
	ns_bundle "$T/b" '.linux.namespaces |= map(if .type == "network" then .path = $ENV.NSPATH else . end)' true
	i=$(ns_index network)
	expect_refused \
		"brig: config.json: linux.namespaces[$i].path: \"/proc/$BASHPID/ns/uts\" is not a network namespace"
}

t_bad_path_file() {
	local i
	echo not a namespace >"$T/file"
	export NSPATH=$T/file
	ns_bundle "$T/b" '.linux.namespaces |= map(if .type == "network" then .path = $ENV.NSPATH else . end)' true
	i=$(ns_index network)
	expect_refused \
		"brig: config.json: linux.namespaces[$i].path: \"$T/file\" is not a network namespace"
}

t_bad_path_missing() {
	local i
	export NSPATH=$T/nosuch
	ns_bundle "$T/b" '.linux.namespaces |= map(if .type == "uts" then .path = $ENV.NSPATH else . end)
		| del(.hostname)' true
	i=$(ns_index uts)
	expect_refused \
		"brig: config.json: linux.namespaces[$i].path: open \"$T/nosuch\": No such file or directory"
}

# Without a mount namespace nothing can be masked (runc: "unable to
# restrict sys entries without a private MNT namespace").
t_bad_no_mount_ns_masks() {
	ns_bundle "$T/b" '.linux.namespaces |= map(select(.type != "mount"))' true
	expect_refused "brig: config.json: linux.maskedPaths: unable to restrict sys entries without a private mount namespace"
	brig_bundle_edit "$T/b" '.linux.maskedPaths = []'
	expect_refused "brig: config.json: linux.readonlyPaths: unable to restrict sys entries without a private mount namespace"
}

NO_MNTNS='.linux.namespaces |= map(select(.type != "mount"))
	| .linux.maskedPaths = [] | .linux.readonlyPaths = []'
SEES='readlink /proc/self/ns/mnt; ls /'

mounts_here() {
	grep -c . /proc/self/mountinfo
}

# No mount namespace in config.json: the container runs in its caller's
# mount namespace (runc's behaviour), chrooted into the rootfs, which brig
# binds there, privately, with the container's mounts below it.  exec
# enters the same root; delete, and a create that fails half-way, unmount
# it all.  runc 1.1.5 on the same bundle (in a mount namespace of its own
# here: it leaves its 17 mounts behind) sees the same.
t_no_mount_ns() {
	local mine rootfs_ls before runc
	mine=$(readlink /proc/self/ns/mnt)
	rootfs_ls=$(ls "$ROOTFS")
	before=$(mounts_here)
	ns_bundle "$T/b" "$NO_MNTNS" sh -c "$SEES"
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$out" "$mine"$'\n'"$rootfs_ls" "the namespace and root of the container"
	assert_eq "$(mounts_here)" "$before" "mounts here after run"
	# detached, exec, delete
	ns_bundle "$T/b" "$NO_MNTNS" sleep 100
	delete_at_end c2
	br run --detach --bundle "$T/b" c2
	assert_rc 0 || return
	assert_ne "$(mounts_here)" "$before" "mounts here while it runs"
	br exec c2 sh -c "$SEES"
	assert_rc 0
	assert_eq "$out" "$mine"$'\n'"$rootfs_ls" "the namespace and root of exec"
	br delete --force c2
	assert_rc 0
	assert_eq "$(mounts_here)" "$before" "mounts here after delete"
	# a hostile container mounts over its own root, again and again: all
	# of it goes when it is deleted
	ns_bundle "$T/b" "$NO_MNTNS"' | .process.capabilities |= with_entries(.value += ["CAP_SYS_ADMIN"])' \
		sh -c 'for i in 1 2 3 4 5; do mount -t tmpfs none / || exit 1; done'
	br run --bundle "$T/b" c4
	assert_rc 0
	assert_eq "$(mounts_here)" "$before" "mounts here after a run that mounted over its root"
	# a mount that fails after the rootfs was bound
	ns_bundle "$T/b" "$NO_MNTNS"' | .mounts += [{destination: "/mnt", type: "bind",
		source: "/nonexistent", options: ["bind"]}]' true
	br create --bundle "$T/b" c3
	assert_rc 1
	assert_eq "$(mounts_here)" "$before" "mounts here after a failed create"
	assert_empty_dir "$T/root"
	runc=$(side_runc) || return 0
	ns_bundle "$T/b" "$NO_MNTNS"' | .linux.cgroupsPath = $ENV.CG' sh -c "$SEES"
	CG=runc-$RANDOM run_cmd unshare -m --propagation private sh -c \
		'readlink /proc/self/ns/mnt; exec "$0" --root "$1" run --bundle "$2" "$3"' \
		"$runc" "$T/runc" "$T/b" "r$RANDOM"
	assert_rc 0
	assert_eq "$(sed 1d <<<"$out")" "$(head -1 <<<"$out")"$'\n'"$rootfs_ls" \
		"runc: the namespace it ran in, and the rootfs"
}

# A mount namespace joined by path: the rootfs work happens inside it, as
# runc does it (pivot_root included: that namespace's root is the rootfs
# afterwards); the caller's namespace is untouched.  runc, on a namespace
# of its own: the same.
t_join_mount_ns() {
	local ns before runc
	for ns in brig runc; do
		[ "$ns" = runc ] && { runc=$(side_runc) || break; }
		touch "$T/mnt.$ns" && unshare --mount="$T/mnt.$ns" --propagation private true ||
			fail "unshare --mount=$T/mnt.$ns" || return
		defer umount "$T/mnt.$ns"
	done
	before=$(mounts_here)
	export NSPATH=$T/mnt.brig CG=runc-$RANDOM
	ns_bundle "$T/b" '.linux.namespaces |= map(if .type == "mount" then .path = $ENV.NSPATH else . end)
		| .linux.cgroupsPath = $ENV.CG' sh -c 'readlink /proc/self/ns/mnt; ls /bin/busybox'
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$out" "$(stat -L -c 'mnt:[%i]' "$T/mnt.brig")"$'\n'/bin/busybox \
		"brig: in the joined namespace, in the rootfs"
	assert_eq "$(mounts_here)" "$before" "mounts here"
	assert_empty_dir "$T/root"
	[ -n "$runc" ] || return 0
	NSPATH=$T/mnt.runc brig_bundle_edit "$T/b" \
		'.linux.namespaces |= map(if .type == "mount" then .path = $ENV.NSPATH else . end)'
	run_cmd "$runc" --root "$T/runc" run --bundle "$T/b" "r$RANDOM"
	assert_rc 0
	assert_eq "$out" "$(stat -L -c 'mnt:[%i]' "$T/mnt.runc")"$'\n'/bin/busybox "runc: the same"
}

t_bad_duplicate() {
	ns_bundle "$T/b" '.linux.namespaces += [{type: "pid"}]' true
	expect_refused "brig: config.json: linux.namespaces[$(($(jq '.linux.namespaces | length' "$T/b/config.json") - 1))].type: duplicate namespace type \"pid\""
}

t_bad_duplicate_path() {
	ns_bundle "$T/b" '.linux.namespaces += [{type: "network", path: "/proc/self/ns/net"}]' true
	expect_refused "brig: config.json: linux.namespaces[$(($(jq '.linux.namespaces | length' "$T/b/config.json") - 1))].type: duplicate namespace type \"network\""
}

# ----------------------------------------------------------------- sysctl

t_sysctl_net() {
	local before
	before=$(cat /proc/sys/net/ipv4/ip_forward)
	export V=$((1 - before))
	ns_bundle "$T/b" '.linux.sysctl = {"net.ipv4.ip_forward": $ENV.V}' cat /proc/sys/net/ipv4/ip_forward
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$out" "$((1 - before))" "net.ipv4.ip_forward inside"
	assert_eq "$(cat /proc/sys/net/ipv4/ip_forward)" "$before" "the host's net.ipv4.ip_forward"
	assert_empty_dir "$T/root"
}

t_sysctl_ipc() {
	local before
	before=$(cat /proc/sys/kernel/msgmax)
	export V=$((before + 1))
	ns_bundle "$T/b" '.linux.sysctl = {"kernel.msgmax": $ENV.V}' cat /proc/sys/kernel/msgmax
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$out" "$((before + 1))" "kernel.msgmax inside"
	assert_eq "$(cat /proc/sys/kernel/msgmax)" "$before" "the host's kernel.msgmax"
	assert_empty_dir "$T/root"
}

tap_test "pid namespace: the container is PID 1 and sees only its processes" t_new_pid
tap_test "every namespace asked for is new (cgroup ipc mnt net pid time uts)" t_new_ns_inodes
tap_test "network, ipc and uts namespaces made ahead are new and the host user namespace's (a user namespace's own with one)" t_premade_owner
tap_test "the namespaces made ahead fail: one line, nothing left" t_premade_fails
tap_test "namespaces not asked for are the host's" t_shared_ns
tap_test "uts namespace: hostname and domainname inside, the host's untouched" t_new_uts
tap_test "network namespace: only lo" t_new_net
tap_test "network namespace: lo is up, as under runc" t_new_net_lo_up plain
tap_test "network namespace in a user namespace: lo is up, as under runc" t_new_net_lo_up userns
tap_test "ipc namespace: the host's message queues are not seen" t_new_ipc
tap_test "cgroup namespace: every cgroup path is /" t_new_cgroup
tap_test "time namespace: timeOffsets move boottime by a day" t_new_time
tap_test "time namespace without offsets: the host's clocks" t_new_time_no_offsets
tap_test "network namespace joined by path (a persisted netns)" t_join_netns
tap_test "uts namespace joined by another container's path" t_join_other uts uts
tap_test "ipc namespace joined by another container's path" t_join_other ipc ipc
tap_test "network namespace joined by another container's path" t_join_other network net
tap_test "cgroup namespace joined by another container's path" t_join_other cgroup cgroup
tap_test "time namespace joined by another container's path" t_join_other time time
tap_test "a joined uts namespace shows the other container's hostname" t_join_uts_hostname
tap_test "a joined time namespace keeps the other container's offsets" t_join_time_offsets
tap_test "pid namespace joined by path: the other container's processes are seen" t_join_pid
tap_test "hostname without a new uts namespace is refused" t_bad_hostname
tap_test "domainname without a new uts namespace is refused" t_bad_domainname
tap_test "sysctl net.* without a new network namespace is refused" t_bad_sysctl_net
tap_test "sysctl kernel.msgmax without a new ipc namespace is refused" t_bad_sysctl_ipc
tap_test "sysctl that is not namespaced is refused" t_bad_sysctl_host
tap_test "timeOffsets without a new time namespace is refused" t_bad_time_offsets
tap_test "a namespace path of another type is refused" t_bad_path_type
tap_test "a namespace path that is a regular file is refused" t_bad_path_file
tap_test "a namespace path that does not exist is refused" t_bad_path_missing
tap_test "no mount namespace: masked and read-only paths are refused, as by runc" t_bad_no_mount_ns_masks
tap_test "no mount namespace: the caller's, chrooted; nothing left mounted (as runc)" t_no_mount_ns
tap_test "a mount namespace joined by path: the rootfs made in it (as runc)" t_join_mount_ns
tap_test "a duplicate namespace type is refused" t_bad_duplicate
tap_test "a duplicate namespace type with a path is refused" t_bad_duplicate_path
tap_test "sysctl net.ipv4.ip_forward applies in the new network namespace only" t_sysctl_net
tap_test "sysctl kernel.msgmax applies in the new ipc namespace only" t_sysctl_ipc

tap_done
