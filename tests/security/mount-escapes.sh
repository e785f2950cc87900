#!/bin/bash
# Mounts that lead brig's own work out of the container onto the host.
#
# /dev through a volume.  brig fills the container's /dev (the default
# devices, ptmx, fd, stdin...) unless a bind mount is there, and replaces
# whatever the image put at those names.  An image whose /dev is a symlink
# into a read-write volume (dev -> /vol/dev, or dev -> vol) turns that into
# mknod in the host's directory, and the unlink of the host's files that
# sit where /dev/null or /dev/ptmx go.  The same through a bind mount that
# lands on /dev under another spelling ("/dev/", "//dev", "/dev/.") or
# through a symlink of the image (a destination /devlink, devlink -> /dev).
# brig makes devices only inside the rootfs's own mount or the /dev tmpfs
# it mounted itself: a /dev that resolves outside it or onto another mount
# is refused (create fails with one line naming /dev, nothing left), and it
# never unlinks anything but what it may replace in the rootfs.  Each test
# fills a host directory with files, a symlink and a directory at the names
# brig uses, and asserts that afterwards it holds exactly what it held (the
# same entries, types, inodes, contents) and no device node.
#
# ro on an rbind.  A bind's "ro" applies to its top mount only (runc's
# behaviour); an rbind of /sys with "ro" and no cgroup mount left the
# submounts, the cgroup hierarchies of the host, writable: a container in a
# user namespace wrote the pids.max of a cgroup delegated to its root.
# "ro" on an rbind is now recursive, as "rro" is.  The victims are cgroups
# the test makes under its own (never the supervisor's), owned by the
# container's root as a delegated cgroup is; the container writes into
# them, and the test asserts EROFS and the host's values unchanged.
#
# runc 1.1.5 on the same bundles (runc has brig's command line: run this
# file with BRIG=runc to see it):
#  - /dev -> /vol/dev or dev -> vol, no /dev mount or the tmpfs at /dev
#    mounted before the volume (so hidden by it when the devices are made):
#    runc securejoins each device path, follows the link into the volume
#    and mknods random, tty, urandom in the host's directory; an existing
#    entry is left (EEXIST: the host's null file stays, with dev -> /vol/dev
#    setupPtmx then fails on a host-side path; with dev -> vol the container
#    runs).  In a user namespace it os.Create()s the bind targets there:
#    the host's null file is truncated to 0 bytes, empty files appear.
#  - a bind mount at "/dev/", "//dev", "/dev/.": runc cleans the path and
#    leaves the bind /dev alone (brig at 18285a8 filled and emptied it);
#    through the image's symlink (/devlink -> /dev) runc fills it as above.
#  - /dev/null of the image a symlink into the volume: runc keeps the link;
#    its reOpenDevNull then dups the host file onto the container's stdio
#    and the container's writes to /dev/null land in it; in a user
#    namespace runc truncates the host file and fails.  (brig replaces the
#    link, as it must.)
#  - rbind,ro of /sys: runc 1.1.5 also makes only the top mount read-only
#    (its remount with MS_BIND|MS_REC|MS_RDONLY|MS_REMOUNT is not recursive):
#    the container writes the host's pids.max, makes a child cgroup, writes
#    the cgroup2 files and the tmpfs of /sys/fs/cgroup, with or without a
#    user namespace.  rro is recursive in both; a plain bind of /sys with ro
#    shows an empty /sys/fs/cgroup, and in a user namespace both refuse it
#    (EINVAL: a non-recursive bind would uncover what locked mounts hide).
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"
[ -e /proc/self/ns/user ] && [ "$(cat /proc/sys/user/max_user_namespaces 2>/dev/null)" != 0 ] ||
	skip_all "needs user namespaces"

brig_file_rootfs

# The container's root is the host's root (0-65535 mapped onto themselves),
# which needs no chowned rootfs; or host 100000 (RANGE_MAP).
ROOT_MAP='[{"containerID": 0, "hostID": 0, "size": 65536}]'
RANGE_ID=100000
RANGE_MAP='[{"containerID": 0, "hostID": 100000, "size": 65536}]'

# --------------------------------------------------------------- helpers

# mkb ROOTFS FILTER [JQ-ARGS...]: the bundle $T/b: `brig spec` without a
# terminal on ROOTFS, then FILTER ($map is ROOT_MAP, or $MAP when set).
mkb() {
	local root=$1 filter=$2
	shift 2
	mkdir -p "$T/b" &&
		rm -f "$T/b/config.json" &&
		"$BRIG" spec --bundle "$T/b" &&
		brig_bundle_edit "$T/b" '.process.terminal = false | .root.path = $root
			| '"$filter" --arg root "$root" --argjson map "${MAP:-$ROOT_MAP}" "$@" ||
		fail "cannot write the bundle $T/b"
}

# A user namespace with the mappings $map.
USERNS='.linux.namespaces += [{type: "user"}] | .linux.uidMappings = $map | .linux.gidMappings = $map'
# No mount at /dev or below it.
NO_DEV_MOUNTS='.mounts |= map(select(.destination | test("^/dev(/|$)") | not))'

# snapshot DIR: what the host would lose in DIR: every entry's type, inode,
# owner, mode, size and link target, and the contents of the regular files.
snapshot() {
	(
		cd "$1" || exit 1
		find . -printf '%y %i %U:%G %m %s %p -> %l\n' | sort
		find . -type f -print0 | sort -z | xargs -0r sha256sum
	)
}

# devices_in DIR: the device nodes and fifos under DIR.
devices_in() {
	find "$1" \( -type c -o -type b -o -type p \) -printf '%p %y %Mr\n' 2>/dev/null
}

# fill_host DIR: a host directory at the names brig fills /dev with: a
# secret at null, a symlink to another host file ($T/hostfile) at zero, a
# file at ptmx and stdin (brig replaces them by links), an empty directory
# at full; random, urandom, tty are missing (brig would make them).
fill_host() {
	mkdir -p "$1" &&
		echo "$SECRET" >"$1/null" &&
		ln -s "$T/hostfile" "$1/zero" &&
		echo "ptmx of the host" >"$1/ptmx" &&
		echo "stdin of the host" >"$1/stdin" &&
		mkdir "$1/full" ||
		fail "cannot fill $1"
}

setup7() {
	SECRET="host-secret-$RANDOM$RANDOM"
	echo "$SECRET other" >"$T/hostfile"
	HOSTFILE=$(stat -c '%i %s' "$T/hostfile")
}

# create_and_check DIR WHAT MUST-REFUSE: `create` of the bundle $T/b, then
# (whatever it did) the host directory DIR holds what it held before
# ($BEFORE), no device node, $T/hostfile is intact, and nothing is left.
# With MUST-REFUSE (yes) the create fails with one line naming /dev; else
# it may succeed (then it is deleted) or fail so.
create_and_check() {
	local dir=$1 what=$2 must=$3
	br create --bundle "$T/b" c1
	local crc=$rc cerr=$err
	if [ "$crc" -eq 0 ]; then
		br delete --force c1
		assert_rc 0
	fi
	assert_eq "$(snapshot "$dir")" "$BEFORE" "the host directory after create ($what)"
	assert_eq "$(devices_in "$T/host")" "" "device nodes on the host ($what)"
	assert_eq "$(stat -c '%i %s' "$T/hostfile")" "$HOSTFILE" "the host file $T/hostfile ($what)"
	assert_eq "$(cat "$T/hostfile")" "$SECRET other" "the host file $T/hostfile ($what)"
	if [ "$must" = yes ] || [ "$crc" -ne 0 ]; then
		assert_ne "$crc" 0 "exit status of create ($what)"
		assert_lines 1 "$cerr" "stderr of create ($what)"
		assert_contains "$cerr" "/dev" "stderr of create ($what)"
	fi
	assert_empty_dir "$T/root"
	# the next round starts from the same host directory
	rm -rf "$T/host"
}

# ------------------------------------------------------- /dev via a volume

# dev_link MODE: the image's /dev is a symlink into the volume /vol (a host
# directory, read-write).  MODE "none": no mount at /dev; "tmpfs": the
# default mounts, the tmpfs at /dev included, the volume mounted after
# them (the tmpfs lands in the rootfs and is hidden by the volume) or
# before them (the tmpfs covers the host's directory, in the container's
# mount namespace only: brig may go on).
dev_link() {
	local mode=$1 link userns order dir filter must what
	setup7
	for link in /vol/dev vol; do
		for userns in no yes; do
			for order in after before; do
				[ "$mode" = none ] && [ "$order" = before ] && continue
				rm -rf "$T/rootfs"
				cp -a "$ROOTFS" "$T/rootfs" || return
				rm -rf "$T/rootfs/dev"
				ln -s "$link" "$T/rootfs/dev"
				mkdir -p "$T/rootfs/vol"
				dir=$T/host
				[ "$link" = vol ] || dir=$T/host/dev
				fill_host "$dir"
				BEFORE=$(snapshot "$dir")
				filter='.process.args = ["sh", "-c", "ls -l /dev/null"]'
				[ "$mode" = none ] && filter+=" | $NO_DEV_MOUNTS"
				[ "$userns" = yes ] && filter+=" | $USERNS"
				if [ "$order" = after ]; then
					filter+=' | .mounts += [$vol]'
					must=yes
				else
					filter+=' | .mounts = [$vol] + .mounts'
					must=
				fi
				mkb "$T/rootfs" "$filter" --argjson vol "$(jq -n --arg h "$T/host" \
					'{destination: "/vol", type: "bind", source: $h, options: ["rbind", "rw"]}')"
				what="dev -> $link, /dev mount: $mode, volume $order, userns: $userns"
				create_and_check "$dir" "$what" "$must"
			done
		done
	done
}

# /dev reached through another bind mount of the host directory: its
# destination spelled "/dev/", "//dev" or "/dev/." (runc cleans them and
# leaves such a /dev alone), or a symlink of the image to /dev.  brig may
# leave it alone or refuse it; it must not fill or empty it.
t_dev_other_bind() {
	local dest userns must filter
	setup7
	for dest in /dev/ //dev /dev/. /devlink; do
		for userns in no yes; do
			rm -rf "$T/rootfs"
			cp -a "$ROOTFS" "$T/rootfs" || return
			ln -s /dev "$T/rootfs/devlink"
			fill_host "$T/host"
			BEFORE=$(snapshot "$T/host")
			filter='.process.args = ["true"] | '"$NO_DEV_MOUNTS"'
				| .mounts += [{destination: $d, type: "bind", source: $h, options: ["rbind", "rw"]}]'
			[ "$userns" = yes ] && filter+=" | $USERNS"
			mkb "$T/rootfs" "$filter" --arg d "$dest" --arg h "$T/host"
			# through the image's symlink, brig cannot take it for a
			# bind /dev: it must refuse it
			must=
			[ "$dest" = /devlink ] && must=yes
			create_and_check "$T/host" "bind mount at $dest, userns: $userns" "$must"
		done
	done
}

# The image's /dev is its own directory, but its entries are symlinks into
# the volume (/vol/victim, ../vol/victim, a directory of the volume at fd):
# brig replaces the links in the rootfs, never what they point to.
t_dev_entries_into_volume() {
	local userns filter
	setup7
	for userns in no yes; do
		rm -rf "$T/rootfs"
		cp -a "$ROOTFS" "$T/rootfs" || return
		mkdir -p "$T/rootfs/vol"
		ln -s /vol/victim "$T/rootfs/dev/null"
		ln -s ../vol/victim "$T/rootfs/dev/zero"
		ln -s /vol/victim "$T/rootfs/dev/tty"
		ln -s /vol/victim "$T/rootfs/dev/ptmx"
		ln -s /vol/vdir "$T/rootfs/dev/fd"
		ln -s /vol/victim "$T/rootfs/dev/stdin"
		mkdir -p "$T/host/vdir"
		echo "$SECRET" >"$T/host/victim"
		BEFORE=$(snapshot "$T/host")
		filter='.process.args = ["sh", "-c", "stat -c \"%n %F %t:%T\" /dev/null /dev/zero /dev/tty"]
			| '"$NO_DEV_MOUNTS"'
			| .mounts += [{destination: "/vol", type: "bind", source: $h, options: ["rbind", "rw"]}]'
		[ "$userns" = yes ] && filter+=" | $USERNS"
		mkb "$T/rootfs" "$filter" --arg h "$T/host"
		br run --bundle "$T/b" c1
		assert_rc 0
		assert_eq "$out" "/dev/null character special file 1:3
/dev/zero character special file 1:5
/dev/tty character special file 5:0" "the container's devices (userns: $userns)"
		assert_eq "$(snapshot "$T/host")" "$BEFORE" "the host directory (userns: $userns)"
		assert_eq "$(devices_in "$T/host")" "" "device nodes on the host (userns: $userns)"
		assert_empty_dir "$T/root"
		rm -rf "$T/host"
	done
}

# ------------------------------------------------------------ ro of /sys

# cgroup2_mount: where the host's cgroup2 hierarchy is (empty if none).
cgroup2_mount() {
	awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo
}

# victims OWNER: the cgroups a container must not write, nested under
# this test's own (tests/helpers/subreaper's brig-tests.<pid>) and owned
# by OWNER (the container's root on the host) as a delegated cgroup is:
# $VPIDS in the v1 pids hierarchy with pids.max 100, $VV2 in the cgroup2
# one with cgroup.max.descendants "max".  $ESCAPE: a file the container
# must not create in the tmpfs holding the v1 hierarchies.
victims() {
	local own v2
	MARK="$RANDOM$RANDOM"
	VPIDS='' VV2='' ESCAPE=''
	own=$(sed -n 's/^[0-9]*:pids://p' /proc/self/cgroup)
	if [ -n "$own" ] && [ -d /sys/fs/cgroup/pids ]; then
		VPIDS=/sys/fs/cgroup/pids${own%/}/brig-victim-$MARK
		mkdir "$VPIDS" || fail "mkdir $VPIDS"
		defer rmdir "$VPIDS"
		defer rmdir "$VPIDS/child"
		echo 100 >"$VPIDS/pids.max" && chown -R "$1" "$VPIDS" ||
			fail "cannot delegate $VPIDS"
	fi
	v2=$(cgroup2_mount)
	own=$(sed -n 's/^0:://p' /proc/self/cgroup)
	if [ -n "$v2" ] && [ -n "$own" ]; then
		VV2=$v2${own%/}/brig-victim-$MARK
		mkdir "$VV2" || fail "mkdir $VV2"
		defer rmdir "$VV2"
		chown -R "$1" "$VV2" || fail "cannot delegate $VV2"
	fi
	[ -n "$VPIDS$VV2" ] || skip "needs the v1 pids or the cgroup2 hierarchy"
	if [ "$(stat -f -c %T /sys/fs/cgroup)" = tmpfs ]; then
		ESCAPE=/sys/fs/cgroup/brig-escape-$MARK
		defer rm -f "$ESCAPE"
	fi
}

# What the container does: each write, "WROTE WHAT" or "REFUSED WHAT:
# the shell's error".  `: >>FILE` opens FILE for writing and writes
# nothing: the test of a top sysfs file harmless even where it succeeds.
sys_script() {
	cat <<-'EOF'
		try() {
			if e=$( { eval "$2"; } 2>&1 ); then echo "WROTE $1"; else echo "REFUSED $1: $e"; fi
		}
	EOF
	if [ -n "$VPIDS" ]; then
		echo "try pids.max 'echo 5 >$VPIDS/pids.max'"
		echo "try mkdir 'mkdir $VPIDS/child'"
		echo "try cgroup.procs ': >>$VPIDS/cgroup.procs'"
	fi
	[ -z "$VV2" ] || echo "try cgroup.max.descendants 'echo 5 >$VV2/cgroup.max.descendants'"
	[ -z "$ESCAPE" ] || echo "try tmpfs ': >>$ESCAPE'"
	echo "try sysfs ': >>/sys/kernel/profiling'"
}

# sys_host_check WHAT: the victims hold what they held.
sys_host_check() {
	if [ -n "$VPIDS" ]; then
		assert_eq "$(cat "$VPIDS/pids.max")" 100 "host $VPIDS/pids.max ($1)"
		assert_no_file "$VPIDS/child"
		echo 100 >"$VPIDS/pids.max"
		rmdir "$VPIDS/child" 2>/dev/null
	fi
	if [ -n "$VV2" ]; then
		assert_eq "$(cat "$VV2/cgroup.max.descendants")" max \
			"host $VV2/cgroup.max.descendants ($1)"
		echo max >"$VV2/cgroup.max.descendants"
	fi
	if [ -n "$ESCAPE" ]; then
		assert_no_file "$ESCAPE"
		rm -f "$ESCAPE"
	fi
}

# assert_refused WHAT...: each write WHAT failed with EROFS.
assert_refused() {
	local w line
	for w in "$@"; do
		line=$(grep "^[A-Z]* $w\b" <<<"$out")
		assert_contains "$line" "REFUSED $w: " "the container's write ($w, $CASE)"
		assert_contains "$line" "Read-only file system" "the container's write ($w, $CASE)"
	done
}

# sys_bundle OPTIONS USERNS: the bundle $T/b with /sys an rbind/bind of the
# host's /sys with OPTIONS (JSON), no cgroup mount, in a user namespace
# (USERNS: no, root (the host's root is the container's), range (host
# 100000 is)), running sys_script.  Sets CASE, makes the victims.
sys_bundle() {
	local opts=$1 userns=$2 root=$ROOTFS owner=0:0 filter
	CASE="$opts, userns: $userns"
	MAP=$ROOT_MAP
	if [ "$userns" = range ]; then
		MAP=$RANGE_MAP
		owner=$RANGE_ID:$RANGE_ID
		if [ ! -d "$T/rootfs" ]; then
			chmod 0711 "$T" && cp -a "$ROOTFS" "$T/rootfs" &&
				chown -hR "$owner" "$T/rootfs" || fail "cannot make $T/rootfs"
		fi
		root=$T/rootfs
	fi
	victims "$owner"
	filter='.process.args = ["sh", "-c", $s]
		| .mounts |= map(select(.destination | test("^/sys(/|$)") | not))
		| .mounts += [{destination: "/sys", type: "bind", source: "/sys", options: $o}]'
	[ "$userns" = no ] || filter+=" | $USERNS"
	mkb "$root" "$filter" --arg s "$(sys_script)" --argjson o "$opts"
}

# sys_ro OPTIONS: /sys an rbind with ro (or rro): every write under it
# fails with EROFS, its submounts (the cgroup hierarchies, their tmpfs)
# included, with and without a user namespace.
sys_ro() {
	local userns
	for userns in no root range; do
		sys_bundle "$1" "$userns"
		br run --bundle "$T/b" c1
		assert_rc 0
		assert_eq "$err" "" "stderr of run ($CASE)"
		assert_not_contains "$out" "WROTE" "what the container wrote ($CASE)"
		[ -z "$VPIDS" ] || assert_refused pids.max mkdir cgroup.procs
		[ -z "$VV2" ] || assert_refused cgroup.max.descendants
		# (the host's root owns these: host 100000 is refused them
		# for want of permission before the mount is looked at)
		if [ "$userns" != range ]; then
			assert_refused sysfs
			[ -z "$ESCAPE" ] || assert_refused tmpfs
		fi
		sys_host_check "$CASE"
		assert_empty_dir "$T/root"
	done
}

t_sys_rbind_ro() {
	sys_ro '["rbind", "ro"]'
}

t_sys_rbind_rro() {
	sys_ro '["rbind", "rro"]'
}

# A plain bind of /sys with ro stays what it is in runc: the top mount
# only, read-only, without the submounts (/sys/fs/cgroup is the empty
# directory of sysfs); in a user namespace the kernel refuses it (a
# non-recursive bind would uncover what the locked submounts hide).
t_sys_bind_ro() {
	local userns
	sys_bundle '["bind", "ro"]' no
	brig_bundle_edit "$T/b" '.process.args[2] += "\necho \"cgroup: $(ls -A /sys/fs/cgroup | wc -l)\""'
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$err" "" "stderr of run ($CASE)"
	assert_not_contains "$out" "WROTE" "what the container wrote ($CASE)"
	assert_refused sysfs
	assert_contains "$out" "cgroup: 0" "entries of /sys/fs/cgroup ($CASE)"
	sys_host_check "$CASE"
	assert_empty_dir "$T/root"
	for userns in root range; do
		sys_bundle '["bind", "ro"]' "$userns"
		br run --bundle "$T/b" c1
		assert_ne "$rc" 0 "exit status of run ($CASE)"
		assert_eq "$out" "" "stdout of run ($CASE)"
		assert_contains "$err" "/sys" "stderr of run ($CASE)"
		sys_host_check "$CASE"
		assert_empty_dir "$T/root"
	done
}

tap_test "an image's /dev symlinked into a volume, no /dev mount: no device on the host" dev_link none
tap_test "an image's /dev symlinked into a volume, tmpfs at /dev: no device on the host" dev_link tmpfs
tap_test "a bind mount reaching /dev under another name is not filled nor emptied" t_dev_other_bind
tap_test "/dev entries of the image linking into a volume are replaced, not followed" t_dev_entries_into_volume
tap_test "an rbind of /sys with ro is read-only down to the cgroup hierarchies" t_sys_rbind_ro
tap_test "an rbind of /sys with rro is read-only down to the cgroup hierarchies" t_sys_rbind_rro
tap_test "a plain bind of /sys with ro: the top mount read-only, as runc" t_sys_bind_ro
tap_done
