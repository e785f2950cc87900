#!/bin/bash
# The container's file system: the default mounts of `brig spec`, every
# kind of `mounts` entry and its options, destinations that try to leave
# the rootfs, root.readonly and --no-pivot, rootfsPropagation, /dev and
# linux.devices, maskedPaths and readonlyPaths.  Each test reads the
# result from inside a busybox container (/proc/self/mountinfo, stat, a
# write that must fail) and checks the host is untouched.
#
# The file runs in a mount namespace of its own, as 55-netdevices.sh does:
# its fixtures are host mounts (tmpfs sources, a shared mount for the
# bundle), and the test files that run beside it (make check runs two at
# once) count the host's mounts.  50-namespaces.sh's "no mount namespace"
# test saw one of them once (21 mounts where it counted 20, gone by the
# test's end).  brig runs in that namespace too: the caller's, whose
# mount table the tests check.
if [ -z "${BRIG_MOUNTS_PRIVATE_MNT:-}" ] && [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then
	export BRIG_MOUNTS_PRIVATE_MNT=1
	exec unshare --mount --propagation private "$BASH" "$0" "$@"
fi
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"

# One busybox bundle for the whole file, copied into each test's $T
# (making a rootfs costs a process per applet, and jq is not free either).
brig_file_bundle

# mi MOUNTINFO MOUNTPOINT: "FSTYPE MOUNT-OPTIONS SUPER-OPTIONS" of the top
# mount at MOUNTPOINT in the mountinfo text, empty when there is none.
mi() {
	awk -v m="$2" '$5 == m {
		for (i = 7; $i != "-"; i++) ;
		l = $(i + 1) " " $6 " " $(i + 3)
	} END { print l }' <<<"$1"
}

# mi_prop MOUNTINFO MOUNTPOINT: the optional fields (shared:N master:N ...)
# of the top mount at MOUNTPOINT.
mi_prop() {
	awk -v m="$2" '$5 == m {
		s = ""
		for (i = 7; $i != "-"; i++) s = s (s == "" ? "" : " ") $i
		l = s
	} END { print l }' <<<"$1"
}

# mi_dev MOUNTINFO MOUNTPOINT: the major:minor of the top mount there.
mi_dev() {
	awk -v m="$2" '$5 == m { l = $3 } END { print l }' <<<"$1"
}

# has_opt OPTIONS NAME: NAME is one of the comma-separated OPTIONS.
has_opt() {
	[[ ",$1," == *",$2,"* ]]
}

# assert_mount MOUNTINFO MOUNTPOINT FSTYPE MNT-OPTS SUPER-OPTS: the mount at
# MOUNTPOINT has that type and at least those options.
assert_mount() {
	local line type mopts sopts o
	line=$(mi "$1" "$2")
	[ -n "$line" ] || {
		fail "no mount at $2 in: $1"
		return 1
	}
	read -r type mopts sopts <<<"$line"
	assert_eq "$type" "$3" "type of the mount at $2"
	for o in ${4//,/ }; do
		has_opt "$mopts" "$o" || fail "mount options of $2: no \"$o\" in \"$mopts\""
	done
	for o in ${5//,/ }; do
		has_opt "$sopts" "$o" || fail "super options of $2: no \"$o\" in \"$sopts\""
	done
}

# ---------------------------------------------------------- default mounts

t_default_mounts() {
	local hostpts d h
	bundle || return
	ctr 'cat /proc/self/mountinfo'
	assert_rc 0
	assert_eq "$err" "" "stderr"
	# brig spec says root.readonly
	has_opt "$(mi "$out" / | cut -d' ' -f2)" ro || fail "/ is not read-only: $out"
	assert_mount "$out" /proc proc rw ""
	assert_mount "$out" /dev tmpfs nosuid mode=755,size=65536k
	assert_mount "$out" /dev/pts devpts nosuid,noexec ptmxmode=666,mode=620,gid=5
	assert_mount "$out" /dev/shm tmpfs nosuid,noexec,nodev size=65536k
	assert_mount "$out" /dev/mqueue mqueue nosuid,noexec,nodev ""
	# a new network namespace: a sysfs of its own, read-only as asked
	assert_mount "$out" /sys sysfs ro,nosuid,noexec,nodev ro
	assert_mount "$out" /sys/fs/cgroup "$(stat -f -c %T /sys/fs/cgroup | sed 's/cgroup2fs/cgroup2/')" \
		ro,nosuid,noexec,nodev ""
	# everything under /sys/fs/cgroup is read-only too
	d=$(awk '$5 ~ "^/sys/fs/cgroup/" && ("," $6 ",") !~ /,ro,/ { print $5 }' <<<"$out")
	assert_eq "$d" "" "writable mounts under /sys/fs/cgroup"
	# devpts is a new instance (newinstance): not one of the host's
	hostpts=$(awk '$9 == "devpts" { print $3 }' /proc/self/mountinfo)
	d=$(mi_dev "$out" /dev/pts)
	assert_ne "$d" "" "device of /dev/pts"
	for h in $hostpts; do
		assert_ne "$d" "$h" "device of the container's /dev/pts (the host's devpts)"
	done
	assert_empty_dir "$T/root"
}

# sysfs is read-only when the network namespace is the host's, whatever the
# options say.
t_sysfs_host_netns() {
	bundle || return
	ctr 'grep " /sys " /proc/self/mountinfo; touch /sys/brig-probe' \
		'.linux.namespaces |= map(select(.type != "network"))
		 | .mounts |= map(if .destination == "/sys" then .options -= ["ro"] else . end)'
	assert_rc 1
	assert_eq "$(mi "$out" /sys | cut -d' ' -f1)" sysfs "type of /sys"
	has_opt "$(mi "$out" /sys | cut -d' ' -f2)" ro || fail "/sys is not read-only: $out"
	assert_eq "$err" "touch: /sys/brig-probe: Read-only file system" "stderr"
	# a new network namespace and no "ro": writable
	ctr 'grep " /sys " /proc/self/mountinfo' \
		'.linux.namespaces += [{"type": "network"}]'
	assert_rc 0
	has_opt "$(mi "$out" /sys | cut -d' ' -f2)" rw || fail "/sys in a new netns without ro: $out"
	assert_empty_dir "$T/root"
}

# ------------------------------------------------------------ bind mounts

t_bind_ro() {
	bundle || return
	mkdir "$T/src"
	echo host >"$T/src/f"
	ctr 'cat /mnt/ro/f; grep " /mnt/ro " /proc/self/mountinfo >&2; echo x >/mnt/ro/f; touch /mnt/ro/new; exit 0' \
		'.mounts += [{"destination": "/mnt/ro", "type": "bind", "source": $s, "options": ["bind", "ro"]}]' \
		--arg s "$T/src"
	assert_rc 0
	assert_eq "$out" "host" "the file seen through the bind"
	assert_contains "$err" "sh: can't create /mnt/ro/f: Read-only file system" "stderr"
	assert_contains "$err" "touch: /mnt/ro/new: Read-only file system" "stderr"
	has_opt "$(sed -n 1p <<<"$err" | cut -d' ' -f6)" ro || fail "mount options of /mnt/ro: $err"
	assert_eq "$(cat "$T/src/f")" "host" "the host file"
	assert_eq "$(ls "$T/src")" "f" "the host directory"
	assert_empty_dir "$T/root"
}

# A file bound onto a path missing from the rootfs: the mount point is
# created as a file, and writes go through to the host's file.
t_bind_file() {
	bundle || return
	echo "from the host" >"$T/hostfile"
	ctr 'cat /data/sub/file; echo appended >>/data/sub/file; stat -c %F /data/sub/file' \
		'.root.readonly = false
		 | .mounts += [{"destination": "/data/sub/file", "type": "bind", "source": $s, "options": ["bind"]}]' \
		--arg s "$T/hostfile"
	assert_rc 0
	assert_eq "$out" $'from the host\nregular file' "output"
	assert_eq "$(cat "$T/hostfile")" $'from the host\nappended' "the host file"
	assert_file "$T/b/rootfs/data/sub/file"
	assert_eq "$(stat -c %s "$T/b/rootfs/data/sub/file")" 0 "size of the mount point"
	assert_empty_dir "$T/root"
}

# bind vs rbind with a submount in the source; rro, and ro on an rbind, are
# for the whole tree (runc 1.1.5 makes only the top mount of "rbind, ro"
# read-only, which left a read-only /sys's cgroup files writable:
# tests/security/mount-escapes.sh).
t_bind_recursive() {
	bundle || return
	mkdir -p "$T/src/sub"
	echo top >"$T/src/top"
	mount -t tmpfs brig-test "$T/src/sub" || {
		fail "mount a tmpfs on $T/src/sub"
		return
	}
	defer umount -l "$T/src/sub"
	echo below >"$T/src/sub/s"
	ctr 'ls /b/sub; cat /rb/sub/s /rb/top
		echo x >/rro/sub/x; echo x >/rro/top
		echo ok >/ro/sub/y && echo written; echo x >/ro/top
		grep -E " /(b|rb|rro|ro)(/sub)? " /proc/self/mountinfo >&2' \
		'.mounts += [
			{"destination": "/b", "type": "bind", "source": $s, "options": ["bind"]},
			{"destination": "/rb", "type": "bind", "source": $s, "options": ["rbind"]},
			{"destination": "/rro", "type": "bind", "source": $s, "options": ["rbind", "rro"]},
			{"destination": "/ro", "type": "bind", "source": $s, "options": ["rbind", "ro"]}]' \
		--arg s "$T/src"
	assert_rc 0
	assert_eq "$out" $'below\ntop' "output"
	assert_contains "$err" "sh: can't create /rro/sub/x: Read-only file system"
	assert_contains "$err" "sh: can't create /rro/top: Read-only file system"
	assert_contains "$err" "sh: can't create /ro/sub/y: Read-only file system"
	assert_contains "$err" "sh: can't create /ro/top: Read-only file system"
	assert_eq "$(mi "$err" /b/sub)" "" "a submount under the plain bind"
	assert_eq "$(mi "$err" /rb/sub | cut -d' ' -f1)" tmpfs "the submount under the rbind"
	has_opt "$(mi "$err" /rro/sub | cut -d' ' -f2)" ro || fail "/rro/sub is not read-only: $err"
	has_opt "$(mi "$err" /ro/sub | cut -d' ' -f2)" ro || fail "/ro/sub is not read-only: $err"
	assert_no_file "$T/src/sub/y"
	assert_no_file "$T/src/sub/x"
	assert_eq "$(cat "$T/src/top")" top "the host's top file"
	assert_empty_dir "$T/root"
}

# A relative source is the bundle's, not brig's working directory's.
t_bind_relative_source() {
	bundle || return
	mkdir "$T/b/data" "$T/data"
	echo bundle >"$T/b/data/which"
	echo cwd >"$T/data/which"
	brig_bundle_edit "$T/b" '.process.args = ["cat", "/mnt/which"]
		| .mounts += [{"destination": "/mnt", "type": "bind", "source": "data", "options": ["bind"]}]'
	(cd "$T" && brig --root "$T/root" run --bundle b c1 && printf '%s\n' "$rc" >rc && printf '%s' "$out" >out)
	assert_eq "$(cat "$T/rc" 2>/dev/null)" 0 "exit status with --bundle b"
	assert_eq "$(cat "$T/out" 2>/dev/null)" "bundle" "what the relative source named"
	(cd / && brig --root "$T/root" run --bundle "$T/b" c2 && printf '%s' "$out" >"$T/out")
	assert_eq "$(cat "$T/out")" "bundle" "the same from /"
	assert_empty_dir "$T/root"
}

t_bind_flags() {
	bundle || return
	mkdir "$T/src"
	cp "$BUNDLE_TPL/rootfs/bin/busybox" "$T/src/busybox"
	ctr 'grep " /mnt " /proc/self/mountinfo; /mnt/busybox true' \
		'.mounts += [{"destination": "/mnt", "type": "bind", "source": $s, "options": ["bind", "nosuid", "nodev", "noexec"]}]' \
		--arg s "$T/src"
	assert_rc 126
	local o
	for o in nosuid nodev noexec; do
		has_opt "$(mi "$out" /mnt | cut -d' ' -f2)" "$o" || fail "no $o on /mnt: $out"
	done
	assert_eq "$err" "sh: /mnt/busybox: Permission denied" "stderr"
	# the same directory without the options: executable
	ctr '/mnt/busybox echo runs' \
		'.mounts[-1].options = ["bind"]'
	assert_rc 0
	assert_eq "$out" "runs" "output"
	assert_empty_dir "$T/root"
}

# The propagation option of a bind shows in the optional fields of
# mountinfo.  The source is a shared tmpfs, so a slave has a master.
t_bind_propagation() {
	bundle || return
	mkdir "$T/p"
	mount -t tmpfs brig-test "$T/p" || {
		fail "mount a tmpfs on $T/p"
		return
	}
	defer umount -l "$T/p"
	mount --make-shared "$T/p" || fail "make $T/p shared"
	ctr 'cat /proc/self/mountinfo' \
		'.mounts += [
			{"destination": "/shared", "type": "bind", "source": $s, "options": ["rbind", "rshared"]},
			{"destination": "/slave", "type": "bind", "source": $s, "options": ["rbind", "rslave"]},
			{"destination": "/private", "type": "bind", "source": $s, "options": ["rbind", "private"]}]' \
		--arg s "$T/p"
	assert_rc 0
	assert_match "$(mi_prop "$out" /shared)" '(^| )shared:[0-9]+' "propagation of /shared"
	assert_match "$(mi_prop "$out" /slave)" '^master:[0-9]+$' "propagation of /slave"
	assert_eq "$(mi_prop "$out" /private)" "" "propagation of /private"
	assert_empty_dir "$T/root"
}

# ------------------------------------------------------- other filesystems

t_tmpfs_options() {
	bundle || return
	ctr 'grep " /t " /proc/self/mountinfo; stat -c %a /t
		dd if=/dev/zero of=/t/big bs=1k count=2000 2>&1 | grep -v records' \
		'.mounts += [{"destination": "/t", "type": "tmpfs", "source": "tmpfs", "options": ["size=1m", "mode=0711", "nosuid"]}]'
	assert_rc 0
	assert_eq "$(mi "$out" /t | cut -d' ' -f1)" tmpfs "type of /t"
	has_opt "$(mi "$out" /t | cut -d' ' -f2)" nosuid || fail "no nosuid: $out"
	has_opt "$(mi "$out" /t | cut -d' ' -f3)" size=1024k || fail "no size=1024k: $out"
	has_opt "$(mi "$out" /t | cut -d' ' -f3)" mode=711 || fail "no mode=711: $out"
	assert_eq "$(sed -n 2,3p <<<"$out")" $'711\ndd: error writing \'/t/big\': No space left on device' "mode of /t, a write of 2000k"
	assert_empty_dir "$T/root"
}

# tmpcopyup: the tmpfs starts with what the rootfs had there (contents,
# modes, links); writes stay in the tmpfs.
t_tmpfs_copyup() {
	local d=$T/b/rootfs/opt/data
	bundle || return
	mkdir -p "$d/sub"
	echo keep >"$d/k"
	echo deep >"$d/sub/s"
	ln -s k "$d/link"
	chmod 0750 "$d"
	chmod 0604 "$d/k"
	ctr 'cd /opt/data && stat -c "%a %n" . k; cat k sub/s link; readlink link
		echo new >k2 && echo >>k && grep " /opt/data " /proc/self/mountinfo >&2' \
		'.mounts += [{"destination": "/opt/data", "type": "tmpfs", "source": "tmpfs", "options": ["tmpcopyup"]}]'
	assert_rc 0
	assert_eq "$out" $'750 .\n604 k\nkeep\ndeep\nkeep\nk' "output"
	assert_eq "$(mi "$err" /opt/data | cut -d' ' -f1)" tmpfs "type of /opt/data"
	assert_eq "$(cd "$d" && find . | sort | tr '\n' ' ')" ". ./k ./link ./sub ./sub/s " "the rootfs directory"
	assert_eq "$(cat "$d/k")" keep "the rootfs file"
	# without tmpcopyup: empty
	ctr 'ls -A /opt/data' '.mounts[-1].options = []'
	assert_rc 0
	assert_eq "$out" "" "an empty tmpfs"
	assert_empty_dir "$T/root"
}

t_overlay() {
	bundle || return
	mkdir "$T/ov"
	mount -t tmpfs brig-test "$T/ov" || {
		fail "mount a tmpfs on $T/ov"
		return
	}
	defer umount -l "$T/ov"
	mkdir "$T/ov/l1" "$T/ov/l2" "$T/ov/u" "$T/ov/w"
	echo l1 >"$T/ov/l1/a"
	echo l2 >"$T/ov/l2/a"
	echo l2 >"$T/ov/l2/b"
	echo up >"$T/ov/u/c"
	ctr 'cd /merged && ls; cat a b c; echo new >d; echo changed >b; grep " /merged " /proc/self/mountinfo >&2' \
		'.mounts += [{"destination": "/merged", "type": "overlay", "source": "overlay",
			"options": [("lowerdir=" + $d + "/l1:" + $d + "/l2"), ("upperdir=" + $d + "/u"), ("workdir=" + $d + "/w")]}]' \
		--arg d "$T/ov"
	assert_rc 0
	assert_eq "$out" $'a\nb\nc\nl1\nl2\nup' "the merged directory"
	assert_eq "$(mi "$err" /merged | cut -d' ' -f1)" overlay "type of /merged"
	assert_eq "$(cat "$T/ov/u/d" "$T/ov/u/b")" $'new\nchanged' "the upper directory"
	assert_eq "$(cat "$T/ov/l2/b")" l2 "the lower directory"
	assert_no_file "$T/ov/l1/d"
	assert_empty_dir "$T/root"
}

t_missing_destination() {
	bundle || return
	ctr 'grep " /a/b/c " /proc/self/mountinfo | wc -l' \
		'.mounts += [{"destination": "/a/b/c", "type": "tmpfs", "source": "tmpfs"}]'
	assert_rc 0
	assert_eq "$out" 1 "mounts at /a/b/c"
	assert [ -d "$T/b/rootfs/a/b/c" ]
	assert_empty_dir "$T/b/rootfs/a/b/c"
	assert_empty_dir "$T/root"
}

# A mount that fails: one line, exit 1, no container, no process, no mount.
t_mount_errors() {
	local cmd
	bundle || return
	for cmd in create run; do
		brig_bundle_edit "$T/b" '.mounts += [{"destination": "/m", "type": "nosuchfs", "source": "x"}]'
		brig --root "$T/root" "$cmd" --bundle "$T/b" c1
		assert_rc 1
		assert_eq "$out" "" "stdout of $cmd"
		assert_err_line 'brig: mount "/m" (nosuchfs): unknown filesystem type: No such device'
		assert_empty_dir "$T/root"
		brig_bundle_edit "$T/b" '.mounts[-1] = {"destination": "/m", "type": "bind", "source": $s, "options": ["bind"]}' \
			--arg s "$T/nosuch"
		brig --root "$T/root" "$cmd" --bundle "$T/b" c1
		assert_rc 1
		assert_eq "$out" "" "stdout of $cmd"
		assert_err_line "brig: mount \"/m\" (bind): open \"$T/nosuch\": No such file or directory"
		assert_empty_dir "$T/root"
		assert_no_file "$T/nosuch"
		brig_bundle_edit "$T/b" 'del(.mounts[-1])'
	done
	brig --root "$T/root" list -q
	assert_eq "$out" "" "containers left"
}

# --------------------------------------------------- escaping the rootfs

# A destination through a symlink of the rootfs is resolved inside the
# rootfs: the absolute target and the ../ one both land in its /tmp.
t_destination_escape() {
	local abs=/tmp/brig-escape-$$ rel=/tmp/brig-escape-rel-$$
	bundle || return
	rm -rf "$abs" "$rel"
	ln -s "$abs" "$T/b/rootfs/evil"
	ln -s "../../../../../../../..$rel" "$T/b/rootfs/evil2"
	ctr 'awk '\''$5 ~ "^/(tmp|evil)" { print $5 }'\'' /proc/self/mountinfo | sort; echo x >/evil/f; cat /tmp/brig-escape-'$$'/f' \
		'.mounts += [{"destination": "/evil", "type": "tmpfs", "source": "tmpfs"},
			{"destination": "/evil2", "type": "tmpfs", "source": "tmpfs"}]'
	assert_rc 0
	assert_eq "$out" "$abs"$'\n'"$rel"$'\nx' "the mounts inside"
	assert_no_file "$abs"
	assert_no_file "$rel"
	[ -e "$abs" ] && rm -rf "$abs"
	[ -e "$rel" ] && rm -rf "$rel"
	assert [ -d "$T/b/rootfs$abs" ]
	assert [ -d "$T/b/rootfs$rel" ]
	assert_eq "$(readlink "$T/b/rootfs/evil")" "$abs" "the symlink in the rootfs"
	assert_empty_dir "$T/root"
}

# ------------------------------------------------------- root and pivot

t_readonly_root() {
	bundle || return
	ctr 'touch /x; touch /tmp/x && echo tmp-ok' \
		'.root.readonly = true | .mounts += [{"destination": "/tmp", "type": "tmpfs", "source": "tmpfs"}]'
	assert_rc 0
	assert_eq "$out" "tmp-ok" "output"
	assert_eq "$err" "touch: /x: Read-only file system" "stderr"
	assert_no_file "$T/b/rootfs/x"
	ctr 'touch /x && echo ok' '.root.readonly = false'
	assert_rc 0
	assert_eq "$out" "ok" "a writable root"
	assert_file "$T/b/rootfs/x"
	assert_empty_dir "$T/root"
}

t_no_pivot() {
	local before
	bundle || return
	echo mark >"$T/b/rootfs/marker"
	before=$(cd "$T/b/rootfs" && echo *)
	brig_bundle_edit "$T/b" '.root.readonly = false
		| .process.args = ["sh", "-c", "cat /marker; ls / | tr \"\\n\" \" \"; echo; awk \"\\$5 == \\\"/\\\" { print \\$4 }\" /proc/self/mountinfo; touch /made-inside"]'
	brig --root "$T/root" run --no-pivot --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$(sed -n 1p <<<"$out")" "mark" "the rootfs's file"
	assert_eq "$(sed -n 2p <<<"$out")" "$before " "ls /"
	assert_eq "$(sed -n 3p <<<"$out")" "$T/b/rootfs" "the root mount"
	assert_file "$T/b/rootfs/made-inside"
	assert_empty_dir "$T/root"
}

# --no-pivot leaves the host's root under the container's, in its mount
# namespace, and with it the host's full procfs and sysfs, which would
# tell the kernel that a fresh procfs mount of the container's reveals
# nothing new.  As runc, brig unmounts them there first, or covers them
# with a tmpfs where they cannot be unmounted (locked, in a user
# namespace): both ways run here, with CAP_SYS_ADMIN.  The mount of a
# fresh procfs is then what runc 1.1.5 gives on the same bundle (the
# kernel allows it on this host either way: it only counts the *locked*
# mounts over a procfs, and a host's has none; with pivot_root too).
t_no_pivot_host_proc() { # plain|userns
	local ur runc want script='mkdir -p /tmp/p; mount -t proc proc /tmp/p && echo mounted; ls /bin/busybox'
	bundle || return
	brig_bundle_edit "$T/b" '.root.readonly = false | .process.args = ["sh", "-c", $s]
		| .process.capabilities |= with_entries(.value += ["CAP_SYS_ADMIN"])' --arg s "$script"
	if [ "$1" = userns ]; then
		ur=$(mktemp -d /tmp/brig-nopivot.XXXXXX) && defer rm -rf "$ur" &&
			mv "$T/b/rootfs" "$ur/rootfs" && chown -R 100000:100000 "$ur/rootfs" &&
			chmod 755 "$ur" || fail "cannot make a rootfs for the user namespace" || return
		brig_bundle_edit "$T/b" '.linux.namespaces += [{type: "user"}] | .root.path = $r
			| .linux.uidMappings = [{containerID: 0, hostID: 100000, size: 65536}]
			| .linux.gidMappings = [{containerID: 0, hostID: 100000, size: 65536}]' \
			--arg r "$ur/rootfs"
	fi
	brig --root "$T/root" run --no-pivot --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$err" "" "stderr"
	want=$out
	assert_match "$out" '/bin/busybox$' "the container ran in its rootfs"
	assert_empty_dir "$T/root"
	runc=$(side_runc) || return 0
	brig_bundle_edit "$T/b" '.linux.cgroupsPath = $cg' --arg cg "runc-$RANDOM"
	run_cmd "$runc" --root "$T/runc" run --no-pivot --bundle "$T/b" "r$RANDOM"
	assert_eq "$out" "$want" "runc ($runc) on the same bundle"
}

# rootfsPropagation: each value runs; "shared" makes the container's root
# mount shared, the others do not (runc >= 1.2, its mounts_propagation.bats;
# runc 1.1 runs them all but leaves / private); "unbindable" makes the root
# unbindable and "runbindable" its mounts too (runc >= 1.2 applies the
# value to the root once in it; runc 1.1.5 fails both with EINVAL, as brig
# did: an unbindable "/" cannot give the rootfs its bind).
t_rootfs_propagation() {
	local p
	bundle || return
	for p in shared slave private rshared rslave rprivate unbindable runbindable; do
		ctr 'awk "\$5 == \"/\" || \$5 == \"/proc\"" /proc/self/mountinfo' \
			'.linux.rootfsPropagation = $p' --arg p "$p"
		assert_rc 0
		assert_eq "$err" "" "stderr with $p"
		case $p in
		*shared) assert_match "$(mi_prop "$out" /)" '(^| )shared:[0-9]+' "propagation of / with $p" ;;
		*unbindable) assert_match "$(mi_prop "$out" /)" '(^| )unbindable' "propagation of / with $p" ;;
		*) assert_not_contains "$(mi_prop "$out" /)" "shared:" "propagation of / with $p" ;;
		esac
		# the recursive form reaches the mounts below the root
		case $p in
		runbindable) assert_match "$(mi_prop "$out" /proc)" '(^| )unbindable' "/proc with $p" ;;
		unbindable) assert_not_contains "$(mi_prop "$out" /proc)" unbindable "/proc with $p" ;;
		esac
	done
	assert_empty_dir "$T/root"
}

# The same with the bundle on a shared mount of the host: nothing the
# container mounts may appear on the host.
t_rootfs_propagation_shared_host() {
	local p left
	mkdir "$T/shared"
	mount -t tmpfs brig-test "$T/shared" || {
		fail "mount a tmpfs on $T/shared"
		return
	}
	defer umount -R -l "$T/shared"
	mount --make-shared "$T/shared" || fail "make $T/shared shared"
	bundle "$T/shared/b" || return
	for p in default shared slave private rslave unbindable runbindable; do
		if [ "$p" = default ]; then
			brig_bundle_edit "$T/shared/b" 'del(.linux.rootfsPropagation)'
		else
			brig_bundle_edit "$T/shared/b" '.linux.rootfsPropagation = $p' --arg p "$p"
		fi
		brig_bundle_edit "$T/shared/b" '.process.args = ["true"]'
		brig --root "$T/root" run --bundle "$T/shared/b" c1
		assert_rc 0
		assert_eq "$err" "" "stderr with $p"
		left=$(awk -v d="$T/shared/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo)
		assert_eq "$left" "" "host mounts under the bundle after a run with $p"
		[ -n "$left" ] && umount -R -l "$T/shared/b/rootfs"
	done
	assert_empty_dir "$T/root"
}

# ----------------------------------------------------------------- devices

t_default_devices() {
	bundle || return
	ctr 'cd /dev && stat -c "%n %F %t:%T %a %u:%g" null zero full random urandom tty
		for l in ptmx fd stdin stdout stderr; do echo "$l -> $(readlink $l)"; done
		stat -c "%n %F %t:%T %a" pts/ptmx; stat -c "%n %F" shm pts mqueue
		head -c 3 /dev/zero | od -An -tx1; echo x >/dev/null; echo x >/dev/full'
	assert_rc 1
	assert_eq "$out" "null character special file 1:3 666 0:0
zero character special file 1:5 666 0:0
full character special file 1:7 666 0:0
random character special file 1:8 666 0:0
urandom character special file 1:9 666 0:0
tty character special file 5:0 666 0:0
ptmx -> pts/ptmx
fd -> /proc/self/fd
stdin -> /proc/self/fd/0
stdout -> /proc/self/fd/1
stderr -> /proc/self/fd/2
pts/ptmx character special file 5:2 666
shm directory
pts directory
mqueue directory
 00 00 00" "/dev in the container"
	assert_eq "$err" "sh: write error: No space left on device" "stderr (/dev/full)"
	assert_empty_dir "$T/root"
}

t_linux_devices() {
	bundle || return
	ctr 'stat -c "%n %F %t:%T %a %u:%g" /dev/fuse /dev/sub/loop7 /dev/myfifo' \
		'.linux.devices = [
			{"path": "/dev/fuse", "type": "c", "major": 10, "minor": 229, "fileMode": 432, "uid": 1000, "gid": 1000},
			{"path": "/dev/sub/loop7", "type": "b", "major": 7, "minor": 7, "fileMode": 384},
			{"path": "/dev/myfifo", "type": "p", "fileMode": 420, "uid": 2, "gid": 3}]'
	assert_rc 0
	assert_eq "$err" "" "stderr"
	# busybox prints the numbers in hex: 10:229 is a:e5
	assert_eq "$out" "/dev/fuse character special file a:e5 660 1000:1000
/dev/sub/loop7 block special file 7:7 600 0:0
/dev/myfifo fifo 0:0 644 2:3" "the devices"
	assert_empty_dir "$T/root"
}

# Without a /dev tmpfs the nodes go into the rootfs's own /dev: what the
# rootfs shipped there (a symlink out of it, a regular file) is replaced by
# the real node, and the symlink's target is left alone.
t_dev_null_replaced() {
	bundle || return
	echo secret >"$T/target"
	ln -s "$T/target" "$T/b/rootfs/dev/null"
	echo regular >"$T/b/rootfs/dev/zero"
	ctr 'stat -c "%n %F %t:%T %a" /dev/null /dev/zero; echo x >/dev/null; head -c 2 /dev/zero | od -An -tx1' \
		'.mounts |= map(select(.destination != "/dev"))'
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$out" $'/dev/null character special file 1:3 666\n/dev/zero character special file 1:5 666\n 00 00' "output"
	assert_eq "$(cat "$T/target")" secret "the symlink's target"
	assert_eq "$(stat -c '%F %t:%T' "$T/b/rootfs/dev/null")" "character special file 1:3" "rootfs/dev/null"
	assert_empty_dir "$T/root"
}

# ------------------------------------------------------------ maskedPaths

t_masked_paths() {
	local f files=""
	bundle || return
	mkdir -p "$T/b/rootfs/masked/sub"
	echo a >"$T/b/rootfs/masked/a"
	echo b >"$T/b/rootfs/masked/sub/b"
	echo secret >"$T/b/rootfs/mfile"
	# the /proc files of brig spec's list that this kernel has
	for f in $(jq -r '.linux.maskedPaths[]' "$T/b/config.json"); do
		[ -f "$f" ] && files="$files $f"
	done
	ctr 'for f in '"$files"' /mfile; do echo "$f $(stat -c "%F %t:%T" $f) [$(cat $f)]"; done
		ls -A /masked; touch /masked/x; echo x >/mfile; echo "[$(cat /mfile)]"
		[ -d /proc/acpi ] && ls -A /proc/acpi && touch /proc/acpi/x
		grep " /masked " /proc/self/mountinfo' \
		'.linux.maskedPaths += ["/masked", "/mfile", "/nonexistent/x", "/proc/nonexistent"]'
	assert_rc 0
	for f in $files /mfile; do
		assert_contains "$out" "$f character special file 1:3 []" "masked file $f"
	done
	assert_eq "$(grep -c '^/' <<<"$out")" "$(($(wc -w <<<"$files") + 1))" "masked files"
	assert_contains "$out" "[]"$'\n'"[]" "/mfile after a write"
	has_opt "$(mi "$out" /masked | cut -d' ' -f2)" ro || fail "/masked is not read-only: $out"
	assert_contains "$err" "touch: /masked/x: Read-only file system"
	if [ -d /proc/acpi ]; then
		assert_contains "$err" "touch: /proc/acpi/x: Read-only file system"
	fi
	assert_eq "$(cat "$T/b/rootfs/mfile")" secret "the rootfs's masked file"
	assert_eq "$(ls "$T/b/rootfs/masked")" $'a\nsub' "the rootfs's masked directory"
	assert_empty_dir "$T/root"
}

# A masked path that is a symlink is not followed: neither the host file it
# names nor the rootfs file it points to is masked.
t_masked_symlink() {
	bundle || return
	mkdir "$T/hostdir"
	echo host >"$T/hostdir/file"
	ln -s "$T/hostdir/file" "$T/b/rootfs/mlink"
	ln -s "$T/hostdir" "$T/b/rootfs/mdirlink"
	ln -s /etc/group "$T/b/rootfs/mlink-in"
	ln -s /etc "$T/b/rootfs/mdirlink-in"
	ctr 'stat -c "%n %F" /mlink /mdirlink /mlink-in /mdirlink-in /etc/group
		head -1 /etc/group; ls /etc | grep -c passwd
		grep -cE " /(mlink|mdirlink|etc)" /proc/self/mountinfo' \
		'.linux.maskedPaths += ["/mlink", "/mdirlink", "/mlink-in", "/mdirlink-in"]'
	assert_eq "$out" "/mlink symbolic link
/mdirlink symbolic link
/mlink-in symbolic link
/mdirlink-in symbolic link
/etc/group regular file
root:x:0:
1
0" "output"
	assert_eq "$(cat "$T/hostdir/file")" host "the host file"
	assert_eq "$(ls "$T/hostdir")" file "the host directory"
	assert_empty_dir "$T/root"
}

# ----------------------------------------------------------- readonlyPaths

t_readonly_paths() {
	local d=$T/b/rootfs/rodir
	bundle || return
	mkdir -p "$d/sub/deep" "$d/tm"
	echo a >"$d/sub/deep/f"
	ctr 'sysctl -w kernel.shmmax=1000; echo 1000 >/proc/sys/kernel/shmmax
		echo x >/rodir/sub/deep/f; touch /rodir/new; touch /rodir/tm/x; touch /rw && echo rw-ok
		cat /rodir/sub/deep/f; grep -E " /proc/sys | /rodir" /proc/self/mountinfo | cut -d" " -f5,6' \
		'.root.readonly = false
		 | .linux.readonlyPaths += ["/rodir", "/nonexistent"]
		 | .mounts += [{"destination": "/rodir/tm", "type": "tmpfs", "source": "tmpfs"}]'
	assert_rc 0
	assert_eq "$err" "sysctl: error setting key 'kernel.shmmax': Read-only file system
sh: can't create /proc/sys/kernel/shmmax: Read-only file system
sh: can't create /rodir/sub/deep/f: Read-only file system
touch: /rodir/new: Read-only file system
touch: /rodir/tm/x: Read-only file system" "stderr"
	assert_eq "$(sed -n 1,2p <<<"$out")" $'rw-ok\na' "output"
	assert_contains "$out" "/proc/sys ro," "/proc/sys"
	assert_contains "$out" "/rodir ro," "/rodir"
	assert_contains "$out" "/rodir/tm ro," "/rodir/tm"
	assert_eq "$(cat "$d/sub/deep/f")" a "the rootfs file"
	assert_no_file "$d/new"
	assert_ne "$(cat /proc/sys/kernel/shmmax)" 1000 "the host's kernel.shmmax"
	assert_empty_dir "$T/root"
}

# ------------------------------------------------------------- /proc rules

# proc and sysfs go on an ordinary directory, never through a symlink of the
# rootfs (runc refuses it the same way).
t_proc_on_symlink() {
	local fs dir
	for fs in proc sysfs; do
		dir=$([ "$fs" = proc ] && echo proc || echo sys)
		bundle "$T/b$fs" || return
		rmdir "$T/b$fs/rootfs/$dir"
		mkdir "$T/b$fs/rootfs/evil"
		ln -s /evil "$T/b$fs/rootfs/$dir"
		brig_bundle_edit "$T/b$fs" '.process.args = ["true"]'
		brig --root "$T/root" run --bundle "$T/b$fs" c1
		assert_rc 1
		assert_err_line "brig: mount \"/$dir\" ($fs): filesystem \"$fs\" must be mounted on ordinary directory"
		assert_empty_dir "$T/root"
	done
}

# Nothing but a procfs on /proc, and nothing inside it but what lxcfs
# emulates (CVE-2019-16884): checked where the destination really is.
t_proc_destinations() {
	local dest
	bundle || return
	ln -s /proc/sys "$T/b/rootfs/sneaky"
	for dest in /proc/sys/net /proc/self/attr /proc/1 /sneaky/kernel; do
		brig_bundle_edit "$T/b" '.process.args = ["true"] | .mounts += [{"destination": $d, "type": "bind", "source": "/tmp", "options": ["bind"]}]' \
			--arg d "$dest"
		brig --root "$T/root" run --bundle "$T/b" c1
		assert_rc 1
		assert_match "$err" "^brig: mount \"$dest\" \\(bind\\): \"/proc/.*\" cannot be mounted because it is inside /proc\$" "$dest"
		assert_empty_dir "$T/root"
		brig_bundle_edit "$T/b" 'del(.mounts[-1])'
	done
	brig_bundle_edit "$T/b" '.mounts |= map(if .destination == "/proc" then .type = "bind" | .source = "/tmp" | .options = ["rbind"] else . end)'
	brig --root "$T/root" run --bundle "$T/b" c1
	assert_rc 1
	assert_err_line 'brig: mount "/proc" (bind): "/proc" cannot be mounted because it is not of type proc'
	assert_empty_dir "$T/root"
}

# The files lxcfs emulates may be bind-mounted over /proc's.
t_proc_lxcfs_files() {
	bundle || return
	echo "123.00 456.00" >"$T/uptime"
	ctr 'cat /proc/uptime' '.mounts += [{"destination": "/proc/uptime", "type": "bind", "source": $s, "options": ["bind", "ro"]}]' \
		--arg s "$T/uptime"
	assert_rc 0
	assert_eq "$out" "123.00 456.00" "/proc/uptime inside"
	assert_empty_dir "$T/root"
}

tap_test "the default mounts of brig spec, with their options" t_default_mounts
tap_test "sysfs is read-only in the host's network namespace" t_sysfs_host_netns
tap_test "a read-only directory bind: EROFS inside, host unchanged" t_bind_ro
tap_test "a file bind creates a file mount point" t_bind_file
tap_test "bind vs rbind with a submount; ro vs rro" t_bind_recursive
tap_test "a relative bind source is resolved against the bundle" t_bind_relative_source
tap_test "nosuid, nodev, noexec on a bind" t_bind_flags
tap_test "rshared, rslave, private on a bind show in mountinfo" t_bind_propagation
tap_test "tmpfs with size= and mode=" t_tmpfs_options
tap_test "tmpfs with tmpcopyup keeps the rootfs's files" t_tmpfs_copyup
tap_test "overlay with lower, upper and work dirs" t_overlay
tap_test "a missing mount destination is created" t_missing_destination
tap_test "mount errors: one line, exit 1, nothing left" t_mount_errors
tap_test "a destination symlink pointing out lands inside the rootfs" t_destination_escape
tap_test "root.readonly: / is EROFS, a tmpfs on it stays writable" t_readonly_root
tap_test "--no-pivot runs the container in its rootfs" t_no_pivot
tap_test "--no-pivot: the host's procfs and sysfs unmounted first, as by runc" t_no_pivot_host_proc plain
tap_test "--no-pivot in a user namespace: the host's procfs and sysfs covered, as by runc" t_no_pivot_host_proc userns
tap_test "rootfsPropagation values" t_rootfs_propagation
tap_test "rootfsPropagation with the bundle on a shared mount leaks nothing" t_rootfs_propagation_shared_host
tap_test "the default devices and links of /dev" t_default_devices
tap_test "linux.devices: char, block and fifo with mode and owner" t_linux_devices
tap_test "a rootfs's /dev/null symlink or file is replaced" t_dev_null_replaced
tap_test "maskedPaths: files are /dev/null, directories empty and ro" t_masked_paths
tap_test "maskedPaths: a symlink is not followed" t_masked_symlink
tap_test "readonlyPaths: /proc/sys and a directory tree are read-only" t_readonly_paths
# A read-only /dev (the spec's tmpfs with "ro") and the mounts under it
# (/dev/pts, /dev/shm, /dev/mqueue): made writable, filled, then made
# read-only, as runc does (it was EROFS creating /dev/pts).  runc runs the
# same bundle where it is installed.
t_readonly_dev() {
	local runc want
	bundle || return
	brig_bundle_edit "$T/b" '.mounts |= map(if .destination == "/dev" then .options += ["ro"] else . end)
		| .process.args = ["sh", "-c", "touch /dev/x 2>/dev/null && echo written; ls -d /dev/pts /dev/shm /dev/mqueue; [ -c /dev/null ] && echo null; grep -c \" /dev ro,\" /proc/self/mountinfo"]'
	want=$'/dev/mqueue\n/dev/pts\n/dev/shm\nnull\n1'
	brig --root "$T/root" run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$out" "$want" "the container's /dev under brig"
	assert_empty_dir "$T/root"
	runc=$(side_runc) || return 0
	# a relative cgroupsPath: nested under the caller's, as brig's
	brig_bundle_edit "$T/b" '.linux.cgroupsPath = $cg' --arg cg "runc-$RANDOM"
	run_cmd "$runc" --root "$T/runc" run --bundle "$T/b" r1
	assert_rc 0
	assert_eq "$out" "$want" "the container's /dev under runc"
}

tap_test "a read-only /dev is filled first, read-only last, as runc" t_readonly_dev
tap_test "proc and sysfs are never mounted through a symlink" t_proc_on_symlink
tap_test "nothing is mounted inside /proc, nor a non-procfs on it" t_proc_destinations
tap_test "the files lxcfs emulates may be mounted over /proc's" t_proc_lxcfs_files
tap_done
