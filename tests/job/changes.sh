#!/bin/bash
# brig job --changes and --export-tar (issue 34): what the job created,
# modified and deleted, read from its writable layer against the rootfs,
# for a cold job and a pooled one.
#
#   --changes FILE      one JSON object a line: path, change, type, and for
#                       what is there now mode, uid, gid, size, a file's
#                       sha256, a symlink's target; "opaque" on a directory
#                       made again after the job removed it
#   --changes -         the same objects as the result's "changes" array
#   --export-tar FILE   the same changes as an OCI image layer: applied to a
#                       copy of the rootfs (whiteouts first, as the image
#                       spec says), it gives the job's final tree
#
# Each change set is checked against the overlay's real content: the job
# itself prints, at its end, what it sees (sha256sum, stat), and the test
# compares.  brig's own mount points (/proc and the rest, a --tmpfs, a
# bind) and directories only copied up are no changes: a `true` job has
# none.  The hostile side (names, depth, sparse files, hard links, limits,
# kills) is tests/security/job-changes.sh.
#
# runc has no job mode and no change set; `podman diff` is the closest
# (its A/C/D are created/modified/deleted here).
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"
# shellcheck source=../lib/job.sh
. "$(dirname "$0")/../lib/job.sh"

command -v tar >/dev/null 2>&1 || skip_all "needs tar"

# The lower layer's entries the jobs change (the file's rootfs is every
# job's lower layer and is never written).
mkdir -p "$ROOTFS/srv/dir/sub" "$ROOTFS/srv/redo/y" "$ROOTFS/srv/hollow/sub"
echo socket >"$ROOTFS/tmp/probe.sock"
echo keep >"$ROOTFS/srv/keep"
echo edit >"$ROOTFS/srv/edit"
echo gone >"$ROOTFS/srv/gone"
echo mv >"$ROOTFS/srv/mv"
echo a >"$ROOTFS/srv/dir/a"
echo z >"$ROOTFS/srv/dir/sub/z"
echo x >"$ROOTFS/srv/redo/x"
echo z >"$ROOTFS/srv/redo/y/z"
ln -s keep "$ROOTFS/srv/link"

# What the job does: every kind of change, of files, directories,
# symlinks and a FIFO.
# shellcheck disable=SC2016
CHANGE='echo more >>/srv/edit; rm /srv/gone; rm -rf /srv/dir
	rm -rf /srv/redo; mkdir /srv/redo; echo new >/srv/redo/x
	ln -sfn edit /srv/link; mv /srv/mv /srv/moved; chmod 600 /srv/keep
	mkdir -p /new/sub; echo f >/new/sub/f; ln -s /nowhere /new/l; mkfifo /new/p
	printf "%s\n" one two >/new/two-lines
	rm -rf /srv/hollow; mkdir -p /srv/hollow/sub'

# The tree as a job sees it, one line an entry: path, type, mode, owner,
# size, and a file's sha256 or a symlink's target.  /proc, /sys and /dev
# are other file systems (-xdev).
# shellcheck disable=SC2016
TREE='find / -xdev | sort | while read -r f; do
	set -- $(stat -c "%a %u %g %s %F" "$f")
	case $5 in
	regular) echo "$f file $1 $2 $3 $4 $(sha256sum <"$f" | cut -d" " -f1)" ;;
	symbolic) echo "$f symlink $2 $3 $4 $(readlink "$f")" ;;
	directory) echo "$f dir $1 $2 $3" ;;
	*) echo "$f $5 $1 $2 $3 $4" ;;
	esac
done'

# lines FILE: the change set's entries as "change type path", sorted.
lines() {
	jq -r '"\(.change) \(.type) \(.path)"' "$1" | sort
}

# ---------------------------------------------------------------- kinds

t_kinds() {
	# shellcheck disable=SC2016
	job --changes "$T/c.jsonl" -- sh -c "$CHANGE"'
		for f in /srv/edit /srv/redo/x /srv/moved /srv/keep /new/sub/f /new/two-lines; do
			echo "$f $(stat -c "%a %s" $f) $(sha256sum <$f | cut -d" " -f1)"
		done'
	assert_rc 0
	assert_eq "$(lines "$T/c.jsonl")" "created dir /new
created dir /new/sub
created fifo /new/p
created file /new/sub/f
created file /new/two-lines
created file /srv/moved
created symlink /new/l
deleted dir /srv/dir
deleted dir /srv/redo/y
deleted file /srv/gone
deleted file /srv/mv
modified dir /srv
modified dir /srv/hollow
modified dir /srv/hollow/sub
modified dir /srv/redo
modified file /srv/edit
modified file /srv/keep
modified file /srv/redo/x
modified symlink /srv/link" "the change set"
	# every file's mode, size and sha256 as the job saw them
	assert_eq "$(jq -r 'select(.type == "file" and .change != "deleted") | "\(.path) \(.mode | ltrimstr("0")) \(.size) \(.sha256)"' \
		"$T/c.jsonl" | sort)" "$(sort <<<"$out")" "files: mode, size, sha256 against the job's view"
	assert_eq "$(jq -c 'select(.path == "/srv/link" or .path == "/new/l") | [.path, .target, .size]' \
		"$T/c.jsonl")" '["/new/l","/nowhere",8]
["/srv/link","edit",4]' "symlinks: target and size"
	assert_eq "$(jq -c 'select(.opaque) | .path' "$T/c.jsonl")" '"/srv/hollow"
"/srv/redo"' \
		"the directory made again is opaque"
	assert_eq "$(jq -c 'select(.change == "deleted") | keys' "$T/c.jsonl" | sort -u)" \
		'["change","path","type"]' "a deletion's fields"
	assert_eq "$(jq -c 'select(.path == "/new/sub/f") | [.uid, .gid, .mode]' "$T/c.jsonl")" \
		'[0,0,"0644"]' "the job's ids, as the job saw them"
	# directories before their entries
	assert_eq "$(jq -r .path "$T/c.jsonl" | head -3 | tr '\n' ' ')" "/new /new/l /new/p " \
		"the order: a directory, then its entries by name"
	assert_clean
}

# A job that changes nothing has an empty change set and layer: reading
# files, brig's mount points (a --tmpfs, a bind, /dev, /proc) and the
# directories their copy up makes are not the job's changes.
t_nothing() {
	mkdir -p "$T/bind"
	job --changes "$T/c.jsonl" --export-tar "$T/l.tar" --tmpfs /srv/t --mount "$T/bind:/etc/b" \
		-- sh -c 'cat /srv/keep /etc/passwd >/dev/null; echo x >/srv/t/f; ls /proc /dev >/dev/null'
	assert_rc 0
	assert_eq "$(stat -c %s "$T/c.jsonl" 2>&1)" 0 "the change set's size"
	assert_eq "$(tar tf "$T/l.tar" 2>&1)" "" "the layer's entries"
	job --changes - -- true
	assert_rc 0
	assert_res changes '[]'
	assert_clean
}

# --changes -: the same objects, in the result.
t_in_result() {
	job --changes "$T/c.jsonl" -- sh -c "$CHANGE"
	assert_rc 0
	job --changes - -- sh -c "$CHANGE"
	assert_rc 0
	assert_eq "$(res 'changes[]')" "$(jq -c . "$T/c.jsonl")" "the result's changes"
	assert_res reason '"exited"'
	assert_clean
}

# The job's user: its ids in the change set and in the layer's headers.
t_user() {
	job --user 1000:1001 --changes "$T/c.jsonl" --export-tar "$T/l.tar" \
		-- sh -c 'echo u >/tmp/u; mkdir /tmp/d'
	assert_rc 0
	assert_eq "$(jq -c 'select(.path | startswith("/tmp/")) | [.path, .uid, .gid]' "$T/c.jsonl")" \
		'["/tmp/d",1000,1001]
["/tmp/u",1000,1001]' "ids in the change set"
	assert_eq "$(tar --numeric-owner -tvf "$T/l.tar" | awk '$NF ~ /^tmp\/./ { print $2, $NF }')" \
		"1000/1001 tmp/d/
1000/1001 tmp/u" "ids in the layer"
	assert_clean
}

# ------------------------------------------------------------ the layer

# apply LAYER DIR: LAYER applied to DIR as the OCI image spec says: its
# whiteouts first (.wh.NAME removes NAME, .wh..wh..opq empties its
# directory of what DIR had), then its other entries.
apply() {
	local w dir name
	while IFS= read -r w; do
		dir=$(dirname "$w")
		name=$(basename "$w")
		if [ "$name" = .wh..wh..opq ]; then
			find "$2/$dir" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
		else
			rm -rf "${2:?}/$dir/${name#.wh.}"
		fi
	done < <(tar tf "$1" | grep '\(^\|/\)\.wh\.')
	tar -C "$2" --exclude='.wh.*' --numeric-owner -xpf "$1"
}

t_layer_applied() {
	job --export-tar "$T/l.tar" -- sh -c "$CHANGE; $TREE"
	assert_rc 0
	local want=$out
	cp -a "$ROOTFS" "$T/applied"
	apply "$T/l.tar" "$T/applied"
	bj --rootfs "$T/applied" -- sh -c "$TREE"
	assert_rc 0
	assert_eq "$out" "$want" "the tree of the rootfs with the layer applied, against the job's"
	assert_eq "$(tar tf "$T/l.tar" | grep '\.wh\.' | sort)" "srv/.wh.dir
srv/.wh.gone
srv/.wh.mv
srv/hollow/.wh..wh..opq
srv/redo/.wh..wh..opq" "the whiteouts"
	assert_clean
}

# ------------------------------------------------------------ --export-path

# --export-path: --changes, --export-tar and --export take only what is at
# or below the paths; the directories on the way are no changes (and in
# the export, made 0700); a path the job did not write adds nothing; one
# whose way is a symlink of the job's adds nothing, never followed.
t_export_path() {
	job --changes "$T/c.jsonl" --export-tar "$T/l.tar" --export "$T/exp" \
		--export-path /tmp/keep --export-path /var/a/b/ --export-path /nothing/here \
		--export-path /tmp/keep/ --export-path /tmp/keep.x --export-path /tmp/keep/d \
		--export-path /srv/link/x -- sh -c 'mkdir -p /tmp/keep/d /tmp/other /var/a/b/c
		echo k >/tmp/keep/d/f; echo o >/tmp/other/f; echo v >/var/a/b/c/g
		echo x >/var/a/sibling; rm /etc/passwd; mkdir /srv/edit.d; echo e >/srv/edit.d/x'
	assert_rc 0
	local want="/tmp/keep
/tmp/keep/d
/tmp/keep/d/f
/var/a/b
/var/a/b/c
/var/a/b/c/g"
	assert_eq "$(jq -r .path "$T/c.jsonl")" "$want" "the change set"
	assert_eq "$(tar tf "$T/l.tar" | sed 's|^|/|; s|/$||')" "$want" "the layer"
	assert_eq "$(cd "$T/exp" && find . -mindepth 1 | sed 's|^\.||' | sort)" "/tmp
$(sed -n 1,3p <<<"$want")
/var
/var/a
$(sed -n 4,6p <<<"$want")" "the export"
	assert_eq "$(stat -c %a "$T/exp/var" "$T/exp/var/a" | tr '\n' ' ')" "700 700 " \
		"the export's directories on the way"
	for args in "--export-path=tmp" "--export-path=/a/../b" "--export-path=/./a"; do
		job --export "$T/e2" "$args" -- true
		assert_rc 125
		assert_lines 1 "$err" "stderr of $args"
		assert_contains "$err" "brig: --export-path" "stderr of $args"
	done
	job --export-path /a -- true
	assert_rc 125
	assert_contains "$err" "for --export, --export-tar or --changes" "stderr"
	assert_clean
}

# --export-path below what the job removed: below a directory it made
# again (opaque, on the way, so never in the layer) each hidden entry
# needs a whiteout of its own; below one it removed (a whiteout on the
# way), the path itself is deleted.  Applied, the layer gives the job's
# view there.
t_export_path_gone() {
	job --changes "$T/c.jsonl" --export-tar "$T/l.tar" --export-path /srv/redo/y \
		--export-path /srv/dir/sub -- sh -c 'rm -rf /srv/redo /srv/dir; mkdir -p /srv/redo/y'
	assert_rc 0
	assert_eq "$(jq -c '[.change, .type, .path]' "$T/c.jsonl")" '["deleted","dir","/srv/dir/sub"]
["modified","dir","/srv/redo/y"]
["deleted","file","/srv/redo/y/z"]' "the change set"
	assert_eq "$(tar tf "$T/l.tar")" "srv/dir/.wh.sub
srv/redo/y/
srv/redo/y/.wh.z" "the layer"
	cp -a "$ROOTFS" "$T/applied"
	apply "$T/l.tar" "$T/applied"
	assert_eq "$(ls -A "$T/applied/srv/redo/y" "$T/applied/srv/dir" 2>&1)" "$T/applied/srv/dir:
a

$T/applied/srv/redo/y:" "what the layer left of them"
	assert_clean
}

# The layer's edges: a sparse file of 8 EiB (tmpfs takes it; libarchive
# takes 2 GiB of hole a call) fails the layer at once, past 1 PiB of
# holes, where it would take 2^32 calls; a socket over a rootfs file
# deletes it (sockets are left out); a directory of names past
# --export-limit fails, before brig holds them.
t_layer_edges() {
	local t0
	need_probe
	t0=$(date +%s%N)
	job --timeout 30s --changes "$T/c.jsonl" --export-tar "$T/l.tar" \
		-- truncate -s 9223372036854775807 /huge
	assert_rc 125
	[ $((($(date +%s%N) - t0) / 1000000)) -lt 10000 ] || fail "an 8 EiB sparse file took 10 s"
	assert_eq "$err" "brig: --export-tar: \"/huge\": more than 1024 TiB of holes in the layer" \
		"stderr"
	assert_eq "$(ls "$T/l.tar" "$T/c.jsonl" 2>/dev/null)" "" "the outputs"
	job --changes "$T/c.jsonl" --export-tar "$T/l.tar" \
		-- sh -c 'rm /tmp/probe.sock; probe unix-socket'
	assert_rc 0
	assert_eq "$(tar tf "$T/l.tar" | grep probe)" "tmp/.wh.probe.sock" "the socket over a file"
	assert_eq "$(jq -r 'select(.path == "/tmp/probe.sock") | "\(.change) \(.type)"' "$T/c.jsonl")" \
		"modified socket" "the socket in the change set"
	job --export-limit 64K --changes "$T/c.jsonl" -- sh -c 'mkdir /d; cd /d; i=0
		while [ $i -lt 600 ]; do touch n-$i-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef; i=$((i+1)); done'
	assert_rc 125
	assert_contains "$err" "brig: --changes: \"/d\": more than 65536 bytes of names (--export-limit)" \
		"stderr"
	assert_clean
}

# ------------------------------------------------------------ bad input

t_bad() {
	bj --rootfs "$ROOTFS" --changes - -- true
	assert_rc 125
	assert_lines 1 "$err" "stderr"
	assert_contains "$err" "brig: --changes -: " "stderr"
	assert_contains "$err" "no --result" "stderr"
	local args
	for args in "--changes=" "--export-tar=" "--changes=$T/nodir/c" "--export-tar=$T/nodir/l" \
		"--export-tar=$T/" "--changes=$T/.."; do
		job "$args" -- true
		assert_rc 125
		assert_lines 1 "$err" "stderr of $args"
		assert_contains "$err" "brig: ${args%%=*}" "stderr of $args"
		assert_eq "$(ls "$T/nodir" 2>&1)" "ls: cannot access '$T/nodir': No such file or directory" \
			"$T/nodir after $args"
	done
	assert_clean
}

# ------------------------------------------------------------ a pool

t_pooled() {
	run_cmd "$BRIG" --root "$T/root" pool create P --size 1 --rootfs "$ROOTFS"
	assert_rc 0
	defer "$BRIG" --root "$T/root" pool destroy P
	bj --pool P --result "$T/result.json" --changes "$T/p.jsonl" --export-tar "$T/p.tar" \
		-- sh -c "$CHANGE; $TREE"
	assert_rc 0
	assert_res pool '"hit"'
	local want=$out
	job --changes "$T/c.jsonl" -- sh -c "$CHANGE"
	assert_rc 0
	assert_eq "$(lines "$T/p.jsonl")" "$(lines "$T/c.jsonl")" "a pooled job's change set, a cold one's"
	cp -a "$ROOTFS" "$T/applied"
	apply "$T/p.tar" "$T/applied"
	bj --rootfs "$T/applied" -- sh -c "$TREE"
	assert_eq "$out" "$want" "the pooled job's layer applied, against its tree"
	run_cmd "$BRIG" --root "$T/root" pool destroy P
	assert_rc 0
	assert_eq "$(ls -A "$T/root/pools" 2>&1)" "" "the pools' directory"
	rmdir "$T/root/pools"
	assert_clean
}

# A pooled job's change set is told against its member's own lower: the
# rootfs as it was when the member was made, which the member's overlay
# still shows.  The pool's --rootfs path naming another tree by the claim
# (an image updated meanwhile) changes nothing of it.
t_pooled_rootfs_replaced() {
	local r=$T/pool-rootfs job='echo new >/made; rm /srv/gone'
	cp -a "$ROOTFS" "$r"
	run_cmd "$BRIG" --root "$T/root" pool create P --size 1 --rootfs "$r"
	assert_rc 0
	defer "$BRIG" --root "$T/root" pool destroy P
	mv "$r" "$r.made"
	cp -a "$r.made" "$r"
	echo other >"$r/made"
	rm "$r/srv/gone"
	bj --pool P --result "$T/result.json" --changes "$T/p.jsonl" -- sh -c "$job"
	assert_rc 0
	assert_res pool '"hit"'
	job --changes "$T/c.jsonl" -- sh -c "$job"
	assert_rc 0
	assert_eq "$(lines "$T/p.jsonl")" "$(lines "$T/c.jsonl")" \
		"a pooled job's change set against its member's rootfs, a cold one's"
	run_cmd "$BRIG" --root "$T/root" pool destroy P
	assert_rc 0
	rmdir "$T/root/pools"
	assert_clean
}

tap_test "--changes: created, modified, deleted files, directories, symlinks" t_kinds
tap_test "a job that changes nothing: no change, whatever brig mounted" t_nothing
tap_test "--changes -: the same change set in the result" t_in_result
tap_test "--user: the job's ids in the change set and the layer" t_user
tap_test "--export-tar: the layer applied to the rootfs gives the job's tree" t_layer_applied
tap_test "--export-path: the three take only those paths, never through a link" t_export_path
tap_test "--export-path below what the job removed: deletions, whiteouts" t_export_path_gone
tap_test "an 8 EiB sparse file fails the layer at once; a socket over a file; names" t_layer_edges
tap_test "bad --changes, --export-tar: 125, one line, nothing left" t_bad
tap_test "job --pool: the same change set and layer as a cold job" t_pooled
tap_test "job --pool: told against the member's rootfs, the path replaced since" t_pooled_rootfs_replaced
tap_done
