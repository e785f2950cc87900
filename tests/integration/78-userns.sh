#!/bin/bash
# User namespaces, as runc makes them: the container's root is a host id
# of the mappings (its files, its processes, what it creates through a
# bind mount); partial mappings and process.user inside them; the configs
# refused; supplementary groups where setgroups is allowed; exec joining
# the container's user namespace; another container joining it; idmapped
# bind mounts ("idmap", "ridmap", a mount's own mappings) and brig
# features saying so; the unprivileged (rootless) flow of a real user, with
# its state under $XDG_RUNTIME_DIR and no cgroup; and CVE-2019-5736 with
# the attacker as the root of a user namespace.
#
# The container's root is host uid/gid 100000 (0-65535 mapped to
# 100000-165535): every test runs on its own copy of the busybox rootfs
# owned by it ($T/rootfs), and $T is made traversable (0711) so that the
# container's root, which is not the host's, reaches its rootfs and its
# bind mount sources (runc needs the same).
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"
[ -e /proc/self/ns/user ] && [ "$(cat /proc/sys/user/max_user_namespaces 2>/dev/null)" != 0 ] ||
	skip_all "needs user namespaces"

brig_file_rootfs

HOSTID=100000
MAP='[{"containerID": 0, "hostID": 100000, "size": 65536}]'

# --------------------------------------------------------------- helpers

# userns_rootfs: $T/rootfs, a copy of the file's rootfs owned by the
# container's root (host 100000), symlinks included; $T traversable.
userns_rootfs() {
	chmod 0711 "$T" &&
		cp -a "$ROOTFS" "$T/rootfs" &&
		chown -hR "$HOSTID:$HOSTID" "$T/rootfs" ||
		fail "cannot make $T/rootfs"
}

# userns_bundle FILTER CMD [ARGS...]: the bundle $T/b: `brig spec` without a
# terminal, running CMD ARGS on $T/rootfs in a new user namespace (0-65535
# mapped to 100000-165535), with the host directory $T/shared (owned by
# the container's root) bind-mounted read-write at /shared, then FILTER,
# in which $map is $MAP and $x the string $X.
userns_bundle() {
	local filter=$1 args
	shift
	args=$(json_args "$@")
	if [ ! -d "$T/rootfs" ]; then
		userns_rootfs || return 1
	fi
	mkdir -p "$T/b" "$T/shared" &&
		chown "$HOSTID:$HOSTID" "$T/shared" &&
		rm -f "$T/b/config.json" &&
		"$BRIG" spec --bundle "$T/b" &&
		brig_bundle_edit "$T/b" '.process.terminal = false | .process.args = $a
			| .root.path = $root
			| .linux.namespaces += [{type: "user"}]
			| .linux.uidMappings = $map | .linux.gidMappings = $map
			| .mounts += [{destination: "/shared", type: "bind", source: $shared,
				       options: ["rbind", "rw"]}]
			| '"$filter" \
			--argjson a "$args" --arg root "$T/rootfs" --arg shared "$T/shared" \
			--argjson map "$MAP" --arg x "${X:-}" ||
		fail "cannot write the bundle $T/b"
}

# run_ctr ID: `brig run` of the bundle $T/b in the foreground (sets out,
# err, rc), deleted when the test ends.
run_ctr() {
	delete_at_end "$1"
	br run --bundle "$T/b" "$1"
}

# pid_of ID: the host pid of the container's init.
pid_of() {
	state_field "$1" pid
}

# status_field PID FIELD: a field of /proc/PID/status (tabs squeezed).
status_field() {
	sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null | tr -s '\t ' ' ' | sed 's/ $//'
}

# owner PATH: "uid:gid" of PATH on the host (not following a symlink).
owner() {
	stat -c '%u:%g' "$1" 2>&1
}

# strip_map TEXT: a uid_map/gid_map without its column padding.
strip_map() {
	tr -s ' \t' ' ' <<<"$1" | sed 's/^ //; s/ $//'
}

# cgroups_named ID: the directories named ID under the test file's own
# cgroups (tests/helpers/subreaper), in every hierarchy.
cgroups_named() {
	local dir
	local IFS=:
	for dir in ${BRIG_TEST_CGROUPS:-}; do
		[ -d "$dir" ] || continue
		find "$dir" -mindepth 1 -type d -name "$1" 2>/dev/null
	done
}

# ------------------------------------------------------------- the basics

t_basics() {
	local pid
	userns_bundle . sh -c 'id -u; id -g; cat /proc/self/uid_map /proc/self/gid_map
		stat -c "%u:%g" / /bin/busybox /etc/passwd
		ls -ln /bin | awk "NR > 1 && (\$3 != 0 || \$4 != 0)" | head -3
		touch /shared/made-inside; mkdir /shared/dir-inside'
	run_ctr c1
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$(sed -n 1,2p <<<"$out")" $'0\n0' "id -u, id -g"
	assert_eq "$(strip_map "$(sed -n 3p <<<"$out")")" "0 100000 65536" "/proc/self/uid_map"
	assert_eq "$(strip_map "$(sed -n 4p <<<"$out")")" "0 100000 65536" "/proc/self/gid_map"
	# the rootfs, owned by host 100000, is the container root's
	assert_eq "$(sed -n 5,7p <<<"$out")" $'0:0\n0:0\n0:0' "owner of /, /bin/busybox, /etc/passwd inside"
	assert_eq "$(sed -n '8,$p' <<<"$out")" "" "files of /bin not owned by 0:0 inside (ls -ln /bin)"
	# what it creates is host 100000's
	assert_eq "$(owner "$T/shared/made-inside")" "100000:100000" "host owner of a file made inside"
	assert_eq "$(owner "$T/shared/dir-inside")" "100000:100000" "host owner of a directory made inside"

	# the init seen from the host
	userns_bundle . sleep 1000
	up c2 || return
	pid=$(pid_of c2)
	assert_eq "$(status_field "$pid" Uid)" "100000 100000 100000 100000" "host Uid of the init"
	assert_eq "$(status_field "$pid" Gid)" "100000 100000 100000 100000" "host Gid of the init"
	assert_ne "$(readlink "/proc/$pid/ns/user")" "$(readlink /proc/self/ns/user)" \
		"user namespace of the init"
	assert_eq "$(strip_map "$(cat "/proc/$pid/uid_map")")" "0 100000 65536" "uid_map from the host"
	br delete --force c2
	assert_rc 0
	alive "$pid" && fail "the init $pid survived delete --force"
	assert_empty_dir "$T/root"
}

# The init of a user namespace enters its v1 cgroups itself, as any init
# does (a task may move itself, through the files brig opened: no pid
# written by brig, whose first write after an idle spell waits for an RCU
# grace period): it is in every cgroup of the container, in every
# hierarchy, and no fd of those files reaches the container's process.
t_cgroups() {
	local pid line n=0
	userns_bundle '.linux.cgroupsPath = "ucg"' sh -c 'ls /proc/self/fd | tr "\n" " "'
	run_ctr c1
	assert_rc 0
	assert_eq "$out" "0 1 2 3 " "the fds of a process in the container (ls's own is 3)"
	userns_bundle '.linux.cgroupsPath = "ucg"' sleep 1000
	up c2 || return
	pid=$(pid_of c2)
	while IFS= read -r line; do
		case $line in
		0::*) ;;
		*) n=$((n + 1)) ;;
		esac
		assert_match "$line" '/ucg$' "the init's cgroup (from the host)"
	done <"/proc/$pid/cgroup"
	[ "$n" -gt 0 ] || diag "no v1 hierarchy here"
	assert_eq "$(ls "/proc/$pid/fd" | tr '\n' ' ')" "0 1 2 " "the fds of the init"
	# nor while it is brig, created, waiting for start
	brig_bundle_edit "$T/b" '.linux.cgroupsPath = "ucg3"' || return
	delete_at_end c3
	br create --bundle "$T/b" c3
	assert_rc 0 || return
	pid=$(pid_of c3)
	assert_eq "$(find "/proc/$pid/fd" -mindepth 1 -exec readlink {} + | grep /sys/fs/cgroup)" "" \
		"cgroup files open in the created init"
}

# The default devices cannot be made (mknod) in a user namespace: they are
# the host's, bind-mounted; /proc and /sys are mounted (sysfs since the
# network namespace is new too).
t_devices_proc_sys() {
	userns_bundle . sh -c 'for d in null zero full random urandom tty; do
			stat -c "%n %F %t:%T" /dev/$d
			grep -c " /dev/$d " /proc/self/mountinfo
		done
		echo data >/dev/null && echo "null ok"
		head -c 3 /dev/zero | od -An -tx1
		head -c 8 /dev/urandom | wc -c
		echo x >/dev/full || echo "full refused"
		cut -d" " -f2,3 /proc/self/mounts | grep -E "^/(proc|sys) "
		test -r /proc/self/status && echo "proc ok"
		test -d /sys/kernel && echo "sys ok"'
	run_ctr c1
	assert_rc 0
	assert_eq "$out" "/dev/null character special file 1:3
1
/dev/zero character special file 1:5
1
/dev/full character special file 1:7
1
/dev/random character special file 1:8
1
/dev/urandom character special file 1:9
1
/dev/tty character special file 5:0
1
null ok
 00 00 00
8
full refused
/proc proc
/sys sysfs
proc ok
sys ok" "the devices, /proc and /sys inside"
	assert_contains "$err" "No space left on device" "stderr (the write to /dev/full)"
	assert_empty_dir "$T/root"
}

# Only some ids mapped: uid 1000 of the container is host 200010
# (hostID 200000 + offset 10), its gid 1000 host 101000.
t_partial_mapping() {
	local pid
	userns_bundle '.linux.uidMappings = [{containerID: 0, hostID: 100000, size: 1},
					 {containerID: 990, hostID: 200000, size: 20}]
		| .process.user = {uid: 1000, gid: 1000}' \
		sh -c 'id -u >/shared/id; id -g >>/shared/id; cat /proc/self/uid_map >>/shared/id
			touch /shared/f; exec sleep 1000'
	chmod 0777 "$T/shared"
	up c1 || return
	wait_until 5 file_exists "$T/shared/f" || fail "the container did not run"
	assert_eq "$(sed -n 1,2p "$T/shared/id")" $'1000\n1000' "id -u, id -g"
	assert_eq "$(strip_map "$(sed -n '3,$p' "$T/shared/id")")" $'0 100000 1\n990 200000 20' \
		"/proc/self/uid_map"
	pid=$(pid_of c1)
	assert_eq "$(status_field "$pid" Uid)" "200010 200010 200010 200010" "host Uid of the process"
	assert_eq "$(status_field "$pid" Gid)" "101000 101000 101000 101000" "host Gid of the process"
	assert_eq "$(owner "$T/shared/f")" "200010:101000" "host owner of a file it made"
	br delete --force c1
	assert_rc 0

	# a user outside the mappings is refused, nothing left
	userns_bundle '.process.user = {uid: 70000, gid: 0}' id
	run_ctr c2
	assert_rc 1
	assert_lines 1 "$err" "stderr"
	assert_contains "$err" "70000" "stderr"
	assert_empty_dir "$T/root"
}

# What runc refuses: a new user namespace without one of the mappings,
# mappings without a new user namespace.
t_refused() {
	local f
	for f in 'del(.linux.gidMappings)' 'del(.linux.uidMappings)' '.linux.gidMappings = []'; do
		userns_bundle "$f" true
		br run --bundle "$T/b" c1
		assert_rc 1
		assert_err_line "brig: config.json: linux.uidMappings: a new user namespace needs uidMappings and gidMappings"
		assert_eq "$out" "" "stdout ($f)"
		assert_empty_dir "$T/root"
	done
	for f in 'del(.linux.gidMappings)' 'del(.linux.uidMappings)' '.'; do
		userns_bundle ".linux.namespaces |= map(select(.type != \"user\")) | $f" true
		br run --bundle "$T/b" c1
		assert_rc 1
		assert_err_line "brig: config.json: linux.uidMappings: requires a new user namespace"
		assert_empty_dir "$T/root"
	done
	# the container's root unmapped: the init cannot become it
	userns_bundle '.linux.uidMappings = [{containerID: 1, hostID: 100000, size: 10}]' true
	br run --bundle "$T/b" c1
	assert_rc 1
	assert_lines 1 "$err" "stderr"
	assert_contains "$err" "linux.uidMappings" "stderr"
	assert_empty_dir "$T/root"
	[ -z "${BRIG_SUBREAPER_PID:-}" ] || assert_eq "$(_tap_leaked_procs)" "" "processes left"
}

# brig (root) writes gid_map without denying setgroups first: the
# container may have supplementary groups.
t_setgroups() {
	userns_bundle '.process.user = {uid: 0, gid: 0, additionalGids: [5, 44, 1000]}' \
		sh -c 'cat /proc/self/setgroups; id -G'
	run_ctr c1
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$out" $'allow\n0 5 44 1000' "setgroups, id -G"
	userns_bundle '.process.user = {uid: 1000, gid: 1000, additionalGids: [5]}' \
		sh -c 'id -u; id -G'
	run_ctr c2
	assert_rc 0
	assert_eq "$(sed -n 1,2p <<<"$out")" $'1000\n1000 5' "id -u, id -G of user 1000"
	assert_empty_dir "$T/root"
}

# ----------------------------------------------------------------- exec

t_exec() {
	local pid epid
	userns_bundle . sleep 1000
	up c1 || return
	pid=$(pid_of c1)
	br exec c1 sh -c 'id -u; id -g; cat /proc/self/uid_map; readlink /proc/self/ns/user; readlink /proc/1/ns/user'
	assert_rc 0
	assert_eq "$err" "" "stderr of exec"
	assert_eq "$(sed -n 1,2p <<<"$out")" $'0\n0' "id -u, id -g of exec"
	assert_eq "$(strip_map "$(sed -n 3p <<<"$out")")" "0 100000 65536" "uid_map of exec"
	assert_eq "$(sed -n 4p <<<"$out")" "$(readlink "/proc/$pid/ns/user")" \
		"user namespace of the exec'd process (the init's, from the host)"
	assert_eq "$(sed -n 5p <<<"$out")" "$(sed -n 4p <<<"$out")" "user namespace of the init, inside"

	br exec -u 1000 c1 id -u
	assert_rc 0
	assert_eq "$out" "1000" "id -u of exec -u 1000"

	# from the host: container 1000 is host 101000
	br exec -u 1000:1000 --detach --pid-file "$T/exec.pid" c1 sleep 1000
	assert_rc 0
	epid=$(cat "$T/exec.pid" 2>/dev/null)
	assert_eq "$(status_field "$epid" Uid)" "101000 101000 101000 101000" "host Uid of exec -u 1000:1000"
	assert_eq "$(status_field "$epid" Gid)" "101000 101000 101000 101000" "host Gid of exec -u 1000:1000"
	assert_eq "$(readlink "/proc/$epid/ns/user")" "$(readlink "/proc/$pid/ns/user")" \
		"user namespace of exec --detach"

	# what exec's root makes is host 100000's
	br exec c1 sh -c 'touch /shared/from-exec && stat -c "%u:%g" /shared/from-exec'
	assert_rc 0
	assert_eq "$out" "0:0" "owner of a file exec made, inside"
	assert_eq "$(owner "$T/shared/from-exec")" "100000:100000" "host owner of a file exec made"

	# exec -t: the exec'd process becomes the container's root before it
	# makes its pty, as the init does and runc's nsexec does; before, it
	# made the pty as the host's root, which has no mapping here, and
	# could not give it to its user ("chown the pty to 0: Operation not
	# permitted"; runc exec -t works on the same bundle)
	mkfifo "$T/tty-in"
	timeout -k 5 60 script -qfec "$BRIG --root $T/root exec -t c1 sh -c 'stat -c %u \$(tty); id -u'" \
		/dev/null 9<>"$T/tty-in" <"$T/tty-in" >"$T/tty-out" 2>"$T/tty-err"
	rc=$? out=$(tr -d '\r' <"$T/tty-out") err=$(cat "$T/tty-err")
	assert_rc 0
	assert_eq "$out" $'0\n0' "owner of exec -t's pty and id -u, inside"
	br delete --force c1
	assert_rc 0
	alive "$epid" && fail "the exec'd process $epid survived delete --force"
	assert_empty_dir "$T/root"
}

# A container joining the user (and pid) namespace of another, by path:
# its process is the root of that namespace, as runc makes it.
t_join_userns() {
	local pid
	userns_bundle . sleep 1000
	up a || return
	pid=$(pid_of a)
	X=$pid userns_bundle 'del(.linux.uidMappings, .linux.gidMappings)
		| .linux.namespaces = [.linux.namespaces[]
			| if .type == "user" or .type == "pid" then .path = "/proc/\($x)/ns/\(.type)"
			  else . end]' \
		sh -c 'id -u; id -g; cat /proc/self/uid_map; readlink /proc/self/ns/user; touch /shared/joined'
	run_ctr b
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$(sed -n 1,2p <<<"$out")" $'0\n0' "id -u, id -g in the joined user namespace"
	assert_eq "$(strip_map "$(sed -n 3p <<<"$out")")" "0 100000 65536" "uid_map"
	assert_eq "$(sed -n 4p <<<"$out")" "$(readlink "/proc/$pid/ns/user")" "user namespace"
	assert_eq "$(owner "$T/shared/joined")" "100000:100000" "host owner of a file it made"
	br delete --force a
	assert_rc 0
	assert_empty_dir "$T/root"
}

# ------------------------------------------------------- idmapped mounts

# kernel_at_least MAJOR MINOR
kernel_at_least() {
	local v maj min
	v=$(uname -r)
	maj=${v%%.*}
	min=${v#*.}
	min=${min%%[!0-9]*}
	[ "$maj" -gt "$1" ] || { [ "$maj" -eq "$1" ] && [ "$min" -ge "$2" ]; }
}

# require_idmap_fs DIR: the filesystem of DIR can be idmapped by this
# kernel (as runc's tests ask, requires_idmap_fs); the test is skipped
# otherwise.
require_idmap_fs() {
	local t
	t=$(stat -fc %T "$1")
	case $t in
	ext2/ext3 | xfs | btrfs | f2fs | msdos | vfat) kernel_at_least 5 12 ;;
	overlayfs) kernel_at_least 5 19 ;;
	tmpfs) kernel_at_least 6 3 ;;
	*) false ;;
	esac || skip "no idmapped mounts of $t ($1) on Linux $(uname -r)"
}

# idmap_src: $T/plain (no submount) and $T/tree (a tmpfs at sub/), each
# with f0 owned by host 0:0 and f1 by host 1:1, on the host.
idmap_src() {
	require_idmap_fs "$T"
	kernel_at_least 6 3 || skip "no idmapped tmpfs on Linux $(uname -r)"
	mkdir -p "$T/plain" "$T/tree/sub" || return 1
	touch "$T/plain/f0" "$T/plain/f1" "$T/tree/f0" &&
		chown 1:1 "$T/plain/f1" || return 1
	mount -t tmpfs brig-test "$T/tree/sub" || {
		fail "cannot mount a tmpfs on $T/tree/sub"
		return 1
	}
	defer umount -l "$T/tree/sub"
	touch "$T/tree/sub/t0" "$T/tree/sub/t1" && chown 1:1 "$T/tree/sub/t1"
}

# idm ID SOURCE OPTIONS [MOUNT-FILTER]: run `stat` of every file under
# /idm, the host's SOURCE mounted there with OPTIONS (a JSON array), the
# mount edited with MOUNT-FILTER; out holds "NAME UID:GID" lines.
idm() {
	X=$2 userns_bundle '.mounts += [{destination: "/idm", type: "bind", source: $x, options: '"$3"'}
			      | '"${4:-.}"']' \
		sh -c 'cd /idm && find . -type f | sort | xargs stat -c "%n %u:%g"'
	run_ctr "$1"
}

t_idmap() {
	idmap_src || return
	# "idmap": through the container's own mappings, host ids are its ids
	idm c1 "$T/plain" '["bind", "idmap"]'
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$out" $'./f0 0:0\n./f1 1:1' "owners through bind,idmap"
	# no idmap: host 0 and 1 are unmapped, nobody
	idm c2 "$T/plain" '["bind"]'
	assert_rc 0
	assert_eq "$out" $'./f0 65534:65534\n./f1 65534:65534' "owners through a plain bind"
	# "ridmap" covers the submounts of an rbind
	idm c3 "$T/tree" '["rbind", "ridmap"]'
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$out" $'./f0 0:0\n./sub/t0 0:0\n./sub/t1 1:1' "owners through rbind,ridmap"
	# "idmap" on an rbind: the top mount only (runc, OCI runtime-spec)
	idm c4 "$T/tree" '["rbind", "idmap"]'
	assert_rc 0
	assert_eq "$out" $'./f0 0:0\n./sub/t0 65534:65534\n./sub/t1 65534:65534' \
		"owners through rbind,idmap"
	# nothing of it shows on the host
	assert_eq "$(owner "$T/plain/f0") $(owner "$T/plain/f1")" "0:0 1:1" "host owners"
	assert_empty_dir "$T/root"
}

# A file the container's root creates through an idmapped mount is host
# root's: the mount maps container 0 back to host 0.
t_idmap_create() {
	require_idmap_fs "$T"
	mkdir -p "$T/plain" && chmod 0755 "$T/plain"
	X=$T/plain userns_bundle '.mounts += [{destination: "/idm", type: "bind", source: $x,
				       options: ["bind", "idmap", "rw"]}]' \
		sh -c 'touch /idm/new && mkdir /idm/d && stat -c "%u:%g" /idm/new /idm/d'
	run_ctr c1
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$out" $'0:0\n0:0' "owners inside"
	assert_eq "$(owner "$T/plain/new")" "0:0" "host owner of a file made through idmap"
	assert_eq "$(owner "$T/plain/d")" "0:0" "host owner of a directory made through idmap"
	assert_empty_dir "$T/root"
}

# A mount's own uidMappings/gidMappings make its user namespace as given:
# a file of host id X appears as the kernel id that namespace maps X to.
t_idmap_mount_mappings() {
	idmap_src || return
	# 0 -> 100000: host 0 is kernel 100000, the container's 0
	idm c1 "$T/plain" '["bind"]' '.uidMappings = $map | .gidMappings = $map'
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$out" $'./f0 0:0\n./f1 1:1' "owners through mappings 0->100000"
	# 0 -> 100001: host 0 is kernel 100001, the container's 1
	idm c2 "$T/plain" '["bind"]' \
		'.uidMappings = [{containerID: 0, hostID: 100001, size: 65535}]
		 | .gidMappings = [{containerID: 0, hostID: 100002, size: 65534}]'
	assert_rc 0
	assert_eq "$out" $'./f0 1:2\n./f1 2:3' "owners through mappings 0->100001 (gid 0->100002)"
	# with rbind and ridmap, the submounts too
	idm c3 "$T/tree" '["rbind", "ridmap"]' '.uidMappings = $map | .gidMappings = $map'
	assert_rc 0
	assert_eq "$out" $'./f0 0:0\n./sub/t0 0:0\n./sub/t1 1:1' "owners through rbind,ridmap with mappings"
	# one of the two only: refused, nothing left
	idm c4 "$T/plain" '["bind"]' '.uidMappings = $map'
	assert_rc 1
	assert_lines 1 "$err" "stderr"
	assert_match "$err" '^brig: config\.json: mounts\[[0-9]+\]: .*uidMappings and gidMappings' "stderr"
	assert_empty_dir "$T/root"
}

t_idmap_features_refused() {
	local f
	brig features
	assert_rc 0
	assert_eq "$(jq .linux.mountExtensions.idmap.enabled <<<"$out")" true \
		"features .linux.mountExtensions.idmap.enabled"
	assert_eq "$(jq -c '[.mountOptions[] | select(. == "idmap" or . == "ridmap")] | sort' <<<"$out")" \
		'["idmap","ridmap"]' "idmap and ridmap in features .mountOptions"

	# only bind mounts can be idmapped: one line naming the mount
	for f in '{options: ["idmap"]}' '{options: ["ridmap"]}' \
		'{uidMappings: $map, gidMappings: $map}'; do
		userns_bundle '.mounts += [{destination: "/idm", type: "tmpfs", source: "tmpfs"} + '"$f"']' true
		br run --bundle "$T/b" c1
		assert_rc 1
		assert_lines 1 "$err" "stderr ($f)"
		assert_contains "$err" '"/idm"' "stderr ($f)"
		assert_contains "$err" "idmap" "stderr ($f)"
		assert_empty_dir "$T/root"
	done
}

# ------------------------------------------------------------- rootless

# rootless_user: a new user $RL (uid $RL_UID, gid $RL_GID), removed when
# the test ends; its own copy of brig ($RL_BRIG, in $T/bin, which it can
# execute), its XDG_RUNTIME_DIR ($T/xdg) and a bundle $T/rl (config.json
# from `brig spec --rootless` as the user, a rootfs it owns).
rootless_user() {
	local i
	require_cmd useradd userdel setpriv
	RL=brig-rl-$$-$BASHPID
	chmod 0755 "$T" || return 1
	# /etc/passwd is locked while another useradd runs (parallel tests)
	for ((i = 0; i < 20; i++)); do
		useradd -m -d "$T/home" -s /bin/sh -U "$RL" 2>"$T/useradd.err" && break
		sleep 0.2
	done
	id -u "$RL" >/dev/null 2>&1 || {
		fail "useradd $RL: $(cat "$T/useradd.err")"
		return 1
	}
	defer userdel -r "$RL"
	RL_UID=$(id -u "$RL")
	RL_GID=$(id -g "$RL")
	mkdir -p "$T/bin" "$T/xdg" "$T/rl" &&
		cp "$BRIG" "$T/bin/brig" && chmod 0755 "$T/bin" "$T/bin/brig" &&
		cp -a "$ROOTFS" "$T/rl/rootfs" &&
		chown -hR "$RL_UID:$RL_GID" "$T/rl" "$T/xdg" && chmod 0700 "$T/xdg" || {
		fail "cannot prepare the files of $RL"
		return 1
	}
	RL_BRIG=$T/bin/brig
	# the user cannot reach the build tree: it runs its own copy only
	as_user "$RL_BRIG" --version >/dev/null || {
		fail "$RL cannot run $RL_BRIG"
		return 1
	}
	as_user "$RL_BRIG" spec --rootless --bundle "$T/rl" || {
		fail "brig spec --rootless as $RL"
		return 1
	}
}

# as_user CMD [ARGS...]: CMD as $RL, with a clean environment and its own
# XDG_RUNTIME_DIR.  In the sanitizer build, LeakSanitizer cannot stop the
# world of a rootless `brig exec`: that brig has joined the container's
# user namespace, and its tracer is refused ptrace there, so the leak check
# at exit would spin forever; it is off for the unprivileged user only (the
# same code runs with it as root in the other tests).
as_user() {
	timeout -k 5 "${TAP_TIMEOUT:-60}" \
		setpriv --reuid="$RL_UID" --regid="$RL_GID" --init-groups -- \
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$T/home" USER="$RL" \
		XDG_RUNTIME_DIR="$T/xdg" ASAN_OPTIONS=detect_leaks=0 "$@"
}

# rl_edit FILTER [JQ-ARGS...]: edit the user's config.json (keeping it the
# user's).
rl_edit() {
	brig_bundle_edit "$T/rl" "$@" && chown "$RL_UID:$RL_GID" "$T/rl/config.json" ||
		fail "jq $1"
}

t_rootless() {
	local pid
	rootless_user || return
	assert_eq "$(jq -c '.linux.uidMappings' "$T/rl/config.json")" \
		"[{\"containerID\":0,\"hostID\":$RL_UID,\"size\":1}]" "uidMappings of spec --rootless"
	rl_edit '.process.terminal = false
		| .process.args = ["sh", "-c", "id -u; id -g; cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups"]'
	run_cmd as_user "$RL_BRIG" run --bundle "$T/rl" r1
	assert_rc 0
	assert_eq "$err" "" "stderr of rootless run"
	assert_eq "$(sed -n 1,2p <<<"$out")" $'0\n0' "id -u, id -g"
	assert_eq "$(strip_map "$(sed -n 3p <<<"$out")")" "0 $RL_UID 1" "uid_map"
	assert_eq "$(strip_map "$(sed -n 4p <<<"$out")")" "0 $RL_GID 1" "gid_map"
	assert_eq "$(sed -n 5p <<<"$out")" "deny" "setgroups"
	assert_empty_dir "$T/xdg/brig"

	# detached: its state under $XDG_RUNTIME_DIR/brig, the user's
	rl_edit '.process.args = ["sleep", "1000"]'
	defer as_user "$RL_BRIG" delete --force r2
	run_cmd as_user "$RL_BRIG" run --detach --bundle "$T/rl" r2
	assert_rc 0 || return
	assert_eq "$out$err" "" "output of rootless run --detach"
	assert [ -d "$T/xdg/brig/r2" ]
	assert_eq "$(owner "$T/xdg/brig/r2")" "$RL_UID:$RL_GID" "owner of the state directory"
	run_cmd as_user "$RL_BRIG" list -q
	assert_eq "$out" "r2" "list of the user"
	pid=$(as_user "$RL_BRIG" state r2 | jq -r .pid)
	assert_eq "$(status_field "$pid" Uid)" "$RL_UID $RL_UID $RL_UID $RL_UID" "host Uid of the init"
	# no cgroup: none is delegated to the user, and no limit asks for one
	assert_eq "$(cgroups_named r2)" "" "cgroup directories of r2"
	assert_eq "$(cat "/proc/$pid/cgroup")" "$(cat /proc/self/cgroup)" \
		"cgroups of the init (brig's caller's)"

	run_cmd as_user "$RL_BRIG" exec r2 sh -c 'id -u; cat /proc/self/uid_map; readlink /proc/self/ns/user; readlink /proc/self/ns/pid'
	assert_rc 0
	assert_eq "$err" "" "stderr of rootless exec"
	assert_eq "$(sed -n 1p <<<"$out")" "0" "id -u of exec"
	assert_eq "$(strip_map "$(sed -n 2p <<<"$out")")" "0 $RL_UID 1" "uid_map of exec"
	assert_eq "$(sed -n 3p <<<"$out")" "$(readlink "/proc/$pid/ns/user")" "user namespace of exec"
	assert_eq "$(sed -n 4p <<<"$out")" "$(readlink "/proc/$pid/ns/pid")" "pid namespace of exec"
	run_cmd as_user "$RL_BRIG" exec r2 sh -c 'echo $$'
	assert_rc 0
	assert_match "$out" '^[0-9]+$' "pid of exec in the container"

	run_cmd as_user "$RL_BRIG" delete --force r2
	assert_rc 0
	assert_eq "$out$err" "" "output of delete --force"
	wait_until 5 dead "$pid" || fail "the init $pid survived delete --force"
	assert_empty_dir "$T/xdg/brig"
	run_cmd as_user "$RL_BRIG" list -q
	assert_eq "$out" "" "list after delete"
}

# Subordinate ids (/etc/subuid, /etc/subgid, which useradd fills) are
# mapped by shadow's newuidmap/newgidmap: the user's rootfs owned by its
# uid is root's inside, and the subordinate range is every other id.
t_rootless_subids() {
	local sub_uid sub_gid
	require_cmd newuidmap newgidmap
	rootless_user || return
	sub_uid=$(awk -F: -v u="$RL" '$1 == u { print $2; exit }' /etc/subuid)
	sub_gid=$(awk -F: -v u="$RL" '$1 == u { print $2; exit }' /etc/subgid)
	[ -n "$sub_uid" ] && [ -n "$sub_gid" ] || skip "useradd gave $RL no subordinate ids"
	rl_edit '.process.terminal = false
		| .process.args = ["sh", "-c", "cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups; id -u"]
		| .linux.uidMappings = [{containerID: 0, hostID: $u, size: 1}, {containerID: 1, hostID: $su, size: 1000}]
		| .linux.gidMappings = [{containerID: 0, hostID: $g, size: 1}, {containerID: 1, hostID: $sg, size: 1000}]' \
		--argjson u "$RL_UID" --argjson g "$RL_GID" --argjson su "$sub_uid" --argjson sg "$sub_gid"
	run_cmd as_user "$RL_BRIG" run --bundle "$T/rl" r1
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$(strip_map "$(sed -n 2p <<<"$out")")" "1 $sub_uid 1000" "second uid_map line"
	assert_eq "$(strip_map "$(sed -n 4p <<<"$out")")" "1 $sub_gid 1000" "second gid_map line"
	assert_eq "$(sed -n 5p <<<"$out")" "allow" "setgroups (newgidmap keeps it)"
	assert_eq "$(sed -n 6p <<<"$out")" "0" "id -u"
	assert_empty_dir "$T/xdg/brig"
	# ids the user was not given: newuidmap refuses, brig says where to look
	rl_edit '.linux.uidMappings = [{containerID: 0, hostID: $u, size: 1}, {containerID: 1, hostID: 1, size: 10}]' \
		--argjson u "$RL_UID"
	run_cmd as_user "$RL_BRIG" run --bundle "$T/rl" r1
	assert_rc 1
	assert_err_line 'brig: linux.uidMappings: newuidmap: uid range [1-11) -> [1-11) not allowed'
	assert_empty_dir "$T/xdg/brig"
}

# A limit needs a cgroup, which the user may not make: one clear line,
# nothing left.
t_rootless_limits() {
	local f
	rootless_user || return
	for f in '.linux.resources = {memory: {limit: 67108864}}' \
		'.linux.resources = {pids: {limit: 100}}'; do
		rl_edit ".process.terminal = false | .process.args = [\"true\"] | $f"
		run_cmd as_user "$RL_BRIG" run --bundle "$T/rl" r1
		assert_rc 1
		assert_lines 1 "$err" "stderr ($f)"
		assert_match "$err" '^brig: .*cgroup' "stderr ($f)"
		assert_empty_dir "$T/xdg/brig"
		assert_eq "$(cgroups_named r1)" "" "cgroup directories of r1"
	done
	[ -z "${BRIG_SUBREAPER_PID:-}" ] || assert_eq "$(_tap_leaked_procs)" "" "processes left"
}

# ------------------------------------------------------ CVE-2019-5736

# The attacker is the init of a user-namespaced container (the root of
# that namespace); brig exec, which joins it, is attacked as in
# tests/security/cve-2019-5736.sh, on a private copy of brig.
t_cve_2019_5736() {
	local attacker=$BRIG_BUILDDIR/tests/security/exe-attacker C sum before i summary pids target
	require_cmd sha256sum
	[ -x "$attacker" ] && ! LC_ALL=C ldd "$attacker" >/dev/null 2>&1 ||
		skip "needs the static tests/security/exe-attacker (make check TESTS=)"
	mkdir -p "$T/bin" "$T/report"
	C=$T/bin/brig
	cp "$BRIG" "$C" || return
	before=$(sha256sum <"$BRIG")
	sum=$(sha256sum <"$C")
	target=$(stat -c '%d:%i' "$C")
	userns_rootfs || return
	cp "$attacker" "$T/rootfs/attacker" && chown "$HOSTID:$HOSTID" "$T/report" || return
	X=$T/report userns_bundle '.mounts += [{destination: "/report", type: "bind", source: $x,
					 options: ["rbind", "rw"]}]' /attacker /report "$target" 60
	defer "$BRIG" --root "$T/root" delete --force a
	run_cmd "$C" --root "$T/root" run --detach --bundle "$T/b" a
	assert_rc 0 || return
	wait_until 10 file_exists "$T/report/ready" || {
		fail "the attacker did not start"
		return
	}
	for ((i = 0; i < 10; i++)); do
		run_cmd "$C" --root "$T/root" exec a true
		assert_rc 0 || break
		run_cmd "$C" --root "$T/root" exec --user 1000:1000 a sh -c 'exit 3'
		assert_rc 3
		run_cmd "$C" --root "$T/root" exec --detach a sleep 0.1
		assert_rc 0
	done
	sleep 0.3
	touch "$T/report/stop"
	wait_until 10 file_exists "$T/report/summary" || fail "the attacker wrote no summary"
	summary=$(cat "$T/report/summary" 2>/dev/null)
	diag "attacker: $summary"
	run_cmd "$BRIG" --root "$T/root" delete --force a
	assert_rc 0
	assert_eq "$(sort -u "$T/report/hits" 2>/dev/null | head -5)" "" "what the attacker achieved"
	assert_eq "$(sha256sum <"$C")" "$sum" "sha256 of the brig binary under attack"
	assert_eq "$(sha256sum <"$BRIG")" "$before" "sha256 of the brig binary of the build"
	pids=$(sed -n 's/.*pids=\([0-9]*\).*/\1/p' <<<"$summary")
	[ "${pids:-0}" -ge 10 ] || fail "the attacker saw only ${pids:-0} processes, expected at least 10"
	assert_empty_dir "$T/root"
}

# A bind source the container's mapped root cannot reach (a 0700
# directory of the host's root, inside another) is opened by brig as the
# host's root, as runc opens it: the mount is made (what the container may
# read in it is the kernel's business: here, nothing).  It was EACCES.
# runc runs the same bundle where it is installed.
t_bind_source_unreachable() {
	local runc rt
	mkdir -m 0700 "$T/private" "$T/private/data" || return
	echo secret >"$T/private/data/file"
	chmod 0600 "$T/private/data/file"
	X=$T/private/data userns_bundle '.mounts += [{destination: "/data", type: "bind", source: $x,
		options: ["rbind", "ro"]}]' sh -c 'ls -d /data; cat /data/file 2>/dev/null || echo denied'
	runc=$(side_runc) || runc=
	for rt in brig ${runc:+runc}; do
		if [ "$rt" = brig ]; then
			br run --bundle "$T/b" c1
		else
			# a relative cgroupsPath: nested under the caller's, as brig's
			brig_bundle_edit "$T/b" '.linux.cgroupsPath = $cg' --arg cg "runc-$RANDOM"
			run_cmd "$runc" --root "$T/runc" run --bundle "$T/b" r1
		fi
		assert_rc 0
		assert_eq "$out" $'/data\ndenied' "what the container finds under $rt"
	done
	assert_empty_dir "$T/root"
}

tap_test "a user namespace: root inside is host 100000, its files, the init from the host" t_basics
tap_test "a user namespace: a bind source its root cannot reach is mounted, as runc" t_bind_source_unreachable
tap_test "a user namespace: the init enters every cgroup itself, no cgroup fd reaches it" t_cgroups
tap_test "a user namespace: the default devices are bind-mounted, /proc and /sys mounted" t_devices_proc_sys
tap_test "a partial mapping: process.user 1000 is hostID + offset; an unmapped user refused" t_partial_mapping
tap_test "a user namespace without both mappings, or mappings without one, refused" t_refused
tap_test "additionalGids in a user namespace brig made as root (setgroups allowed)" t_setgroups
tap_test "exec joins the container's user namespace (also -u 1000, --detach)" t_exec
tap_test "a container joins another's user and pid namespaces by path" t_join_userns
tap_test "idmapped bind mounts: idmap, ridmap, rbind+idmap, none" t_idmap
tap_test "a file made through an idmapped mount is the host root's" t_idmap_create
tap_test "a mount's own uidMappings/gidMappings" t_idmap_mount_mappings
tap_test "features lists idmap; idmap of a tmpfs refused naming the mount" t_idmap_features_refused
tap_test "rootless: a real user runs, lists, execs into and deletes a container" t_rootless
tap_test "rootless: subordinate ids through newuidmap/newgidmap" t_rootless_subids
tap_test "rootless: a resource limit without a delegated cgroup fails in one line" t_rootless_limits
tap_test "CVE-2019-5736: brig exec into a user namespace is out of the attacker's reach" t_cve_2019_5736
tap_done
