#!/bin/bash
# brig job's host-facing copies against a hostile job (issue 30, findings
# 2, 3 and 8): what --export writes on the host, and --copy-in's
# destination in the job's hostile rootfs.
#
#   --export never leaves a setuid/setgid file, or a file of the job's host
#   ids, under DIR: not when the export succeeds, not when it fails
#   half-way (directories nested past the bound, --export-limit reached),
#   not while it runs (the test polls DIR all along).  It is staged in a
#   0700 directory inside DIR, moved in once complete, removed on failure.
#   It writes what the layer holds: a sparse file's holes stay holes, hard
#   links stay links; --export-limit bounds the bytes, the job's deadline
#   plus 5 s its time, SIGTERM stops it; each failure leaves DIR empty.
#   --copy-in refuses a FIFO (or anything not a regular file) at its
#   destination without blocking, and SIGTERM while brig builds the job
#   (a long copy-in) ends brig at once with nothing left.
#
# runc has no job mode, no export and no copy-in: nothing to compare
# (its closest, `runc exec ... tar`, is the caller's own code).
#
# Every job runs under the test's own --root "$T/root"; nothing may be
# left (assert_clean, and the harness's leak check).  SPARSE_SIZE (1T)
# is the size of the sparse file of the hole test: a smaller one checks an
# old brig without filling the disk.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"
# shellcheck source=../lib/job.sh
. "$(dirname "$0")/../lib/job.sh"

: "${SPARSE_SIZE:=1T}"

# bad_entries DIR: every entry under DIR (DIR itself too) with a setuid or
# setgid bit, or not owned by this shell's uid and gid (brig's caller):
# with a user namespace the job's host ids, without it whatever the job
# chowned to.
bad_entries() {
	find "$1" \( -perm /6000 -o ! -uid "$(id -u)" -o ! -gid "$(id -g)" \) \
		-printf '%p %m %U:%G\n' 2>/dev/null
}

# poll_dir DIR: in the background (POLL_PID), until stop_poll, every bad
# entry seen under DIR, appended to $T/seen.
poll_dir() {
	: >"$T/seen"
	rm -f "$T/stop-poll"
	(
		while [ ! -e "$T/stop-poll" ]; do
			bad_entries "$1" >>"$T/seen"
		done
	) &
	POLL_PID=$!
	defer kill_wait "$POLL_PID"
}

stop_poll() {
	touch "$T/stop-poll"
	wait_until 5 dead "$POLL_PID"
	wait "$POLL_PID" 2>/dev/null
}

# assert_never_bad DIR: nothing bad under DIR now, and nothing the poller
# saw.
assert_never_bad() {
	stop_poll
	assert_eq "$(bad_entries "$1")" "" "setuid/setgid or foreign entries under $1 at the end"
	assert_eq "$(sort -u "$T/seen" | head -20)" "" "setuid/setgid or foreign entries seen under $1 during the export"
}

# The job's lines that make setuid/setgid files (6755, 2755, 4755, owned by
# the job's root) before and after what makes the export fail (the order
# readdir gives is the kernel's).
# shellcheck disable=SC2016
SUID='mk() { mkdir -p "$1"; echo x >"$1/$2"; chmod "$3" "$1/$2"; }; '
SUID+='mk /x a 6755; mk /x/sub b 2755; mk /a c 4755; '

# export_fails WHY USERNS JOB-ARGS...: a job that makes setuid files and
# then makes the export fail; the export fails (125, one line naming
# --export and WHY), DIR is empty and never held a bad entry.
export_fails() {
	local why=$1 userns=$2
	shift 2
	[ "$userns" = userns ] || set -- --no-userns "$@"
	mkdir -p "$T/exp"
	poll_dir "$T/exp"
	job --export "$T/exp" "$@"
	assert_never_bad "$T/exp"
	assert_rc 125
	assert_lines 1 "$err" "stderr"
	assert_contains "$err" "--export" "stderr"
	assert_contains "$err" "$why" "stderr"
	assert_res reason '"error"'
	assert_contains "$(res error)" "$why" "result .error"
	assert_empty_dir "$T/exp"
	assert_clean
}

# ------------------------------------------------------- setuid, depth

t_suid_depth() {
	# shellcheck disable=SC2016
	export_fails "deeper than 128" "$1" -- sh -c "$SUID"'
		d=/x/deep; i=0; while [ $i -lt 140 ]; do d=$d/d; i=$((i+1)); done
		mkdir -p $d; echo y >$d/f
		mk /x/z e 6755; mk /z f 6755'
}

# ------------------------------------------------------- setuid, limit

t_suid_limit() {
	export_fails "--export-limit" "$1" --writable 16M --export-limit 1M -- sh -c "$SUID"'
		dd if=/dev/zero of=/x/big bs=1M count=4 2>/dev/null
		mk /x/z e 6755; mk /z f 6755'
}

# ------------------------------------------------------- setuid, a full disk

# DIR on a tmpfs of 2M (the test's own mount, under $T): the write that
# fills it fails the export.
t_suid_full() {
	tmpfs_dir "$T/exp" 2M || return
	export_fails "No space left on device" "$1" --writable 16M -- sh -c "$SUID"'
		dd if=/dev/zero of=/x/big bs=1M count=4 2>/dev/null
		mk /x/z e 6755; mk /z f 6755'
	umount "$T/exp"
}

# ------------------------------------------------------- the export as it should be

# A good export: the files, as the caller's, without the setuid bits.
t_suid_ok() {
	mkdir -p "$T/exp"
	poll_dir "$T/exp"
	job --export "$T/exp" -- sh -c "$SUID"'ln -s /etc/passwd /x/l; echo n >"/x/new
line"'
	assert_never_bad "$T/exp"
	assert_rc 0
	assert_eq "$(stat -c %a "$T/exp/x/a" "$T/exp/x/sub/b" "$T/exp/a/c" | tr '\n' ' ')" \
		"755 755 755 " "the modes of the exported setuid files"
	assert_eq "$(readlink "$T/exp/x/l")" /etc/passwd "the exported symlink"
	assert_eq "$(cat "$T/exp/x/new
line")" n "a name with a newline"
	assert_eq "$(find "$T/exp" -name '.brig-export-*')" "" "the staging directory"
	assert_clean
}

# ------------------------------------------------------- holes, links

t_sparse() {
	local t1 t2 kb size
	size=$(numfmt --from=iec "$SPARSE_SIZE")
	mkdir -p "$T/exp"
	t1=$(date +%s%N)
	job --writable 1M --export "$T/exp" -- sh -c "truncate -s $size /big && echo hi >/small"
	t2=$(date +%s%N)
	assert_rc 0
	assert_eq "$(stat -c %s "$T/exp/big" 2>&1)" "$size" "the size of the sparse file"
	kb=$(du -sk "$T/exp" | cut -f1)
	[ "$kb" -le 64 ] || fail "the export takes $kb KiB of the host's disk"
	assert_eq "$(cat "$T/exp/small" 2>&1)" hi "/small"
	[ $(((t2 - t1) / 1000000)) -le 5000 ] || fail "the export took $(((t2 - t1) / 1000000)) ms"
	assert_clean
}

t_links() {
	local kb
	mkdir -p "$T/exp"
	# shellcheck disable=SC2016
	job --writable 2M --export "$T/exp" -- sh -c 'mkdir /l /m &&
		dd if=/dev/urandom of=/l/0 bs=1M count=1 2>/dev/null &&
		i=1; while [ $i -lt 80 ]; do ln /l/0 /l/$i; i=$((i+1)); done; ln /l/0 /m/x'
	assert_rc 0
	assert_eq "$(stat -c '%i %h' "$T/exp"/l/* "$T/exp/m/x" | sort -u)" \
		"$(stat -c '%i' "$T/exp/l/0") 81" "one inode of 81 links"
	assert_eq "$(cmp "$T/exp/l/7" "$T/exp/m/x" && echo same)" same "the links' data"
	kb=$(du -sk "$T/exp" | cut -f1)
	[ "$kb" -le 1200 ] || fail "the export takes $kb KiB of the host's disk"
	assert_clean
}

# ------------------------------------------------------- the limit

t_limit() {
	mkdir -p "$T/exp"
	job --writable 16M --export-limit 1M --export "$T/exp" -- \
		sh -c 'echo a >/first; dd if=/dev/zero of=/big bs=1M count=4 2>/dev/null'
	assert_rc 125
	assert_err_line "brig: --export: more than 1048576 bytes to write (--export-limit)"
	assert_empty_dir "$T/exp"
	assert_clean
	# within it, and 0 for none
	job --writable 16M --export-limit 5M --export "$T/exp" -- \
		sh -c 'dd if=/dev/zero of=/big bs=1M count=4 2>/dev/null'
	assert_rc 0
	assert_eq "$(stat -c %s "$T/exp/big" 2>&1)" 4194304 "/big within the limit"
	rm -rf "$T/exp"
	job --writable 16M --export-limit 0 --export "$T/exp" -- \
		sh -c 'dd if=/dev/zero of=/big bs=1M count=4 2>/dev/null'
	assert_rc 0
	bj --rootfs "$ROOTFS" --export-limit lots -- true
	assert_rc 125
	assert_err_line 'brig: --export-limit "lots": expected a size (64K, 512M, 1G)'
	assert_clean
}

# ------------------------------------------------------- time and signals

# A job that fills its layer (--writable 1G) with 384 files of 1 MB of
# data (in /d, /d1 ... /d7; few processes, so that it is done well within
# a 3 s --timeout), then makes /done; the export of it, brig is stopped in
# (SIGSTOP, as soon as anything of it shows in DIR) so that the test
# decides what happens during it.  DIR is a tmpfs: the test does not
# measure the host's disk.
# shellcheck disable=SC2016
FILL='mkdir /d && dd if=/dev/zero of=/d/0 bs=1M count=1 2>/dev/null &&
	i=1 && while [ $i -lt 48 ]; do cp /d/0 /d/$i; i=$((i+1)); done &&
	for k in 1 2 3 4 5 6 7; do cp -r /d /d$k; done && touch /done'

# stop_in_export PID DIR: SIGSTOP PID once DIR holds anything.
stop_in_export() {
	local n=0
	shopt -s nullglob dotglob
	local f=()
	while alive "$1"; do
		f=("$2"/*)
		if [ ${#f[@]} -gt 0 ]; then
			kill -STOP "$1"
			return 0
		fi
		n=$((n + 1))
	done
	fail "brig ended before its export was seen ($n polls)"
	return 1
}

bg_export() {
	tmpfs_dir "$T/exp" 1G || return
	mkdir -p "$T/tmp"
	rm -f "$T/result.json"
	TMPDIR=$T/tmp "$BRIG" --root "$T/root" job --rootfs "$ROOTFS" --result "$T/result.json" \
		--writable 1G --memory 2G --export "$T/exp" "$@" </dev/null >"$T/bg.out" 2>"$T/bg.err" &
	BG_PID=$!
	defer kill_wait "$BG_PID"
}

t_sigterm_export() {
	local t1 t2
	bg_export -- sh -c "$FILL" || return
	stop_in_export "$BG_PID" "$T/exp" || return
	kill -TERM "$BG_PID"
	t1=$(date +%s%N)
	kill -CONT "$BG_PID"
	wait_exit "$BG_PID" 10
	t2=$(date +%s%N)
	assert_eq "$rc" 125 "brig's status"
	assert_eq "$(cat "$T/bg.err")" "brig: --export: stopped, brig got SIGTERM" "stderr"
	[ $(((t2 - t1) / 1000000)) -le 1000 ] || fail "brig took $(((t2 - t1) / 1000000)) ms after SIGTERM"
	assert_empty_dir "$T/exp"
	assert_clean
}

# The job runs to its --timeout (3 s): the export has the 5 s after it.
# brig, stopped in the export until 10 s have passed, stops it as soon as
# it goes on.
t_deadline() {
	local t0 t2
	t0=$(date +%s%N)
	bg_export --timeout 3s -- sh -c "$FILL; sleep 100" || return
	stop_in_export "$BG_PID" "$T/exp" || return
	while [ $((($(date +%s%N) - t0) / 1000000)) -lt 10000 ]; do
		sleep 0.1
	done
	kill -CONT "$BG_PID"
	wait_exit "$BG_PID" 10
	t2=$(date +%s%N)
	assert_eq "$rc" 125 "brig's status"
	assert_eq "$(cat "$T/bg.err")" \
		"brig: --export: stopped, past the job's deadline (--timeout) and 5 s" "stderr"
	[ $(((t2 - t0) / 1000000)) -le 11500 ] || fail "brig returned after $(((t2 - t0) / 1000000)) ms"
	assert_empty_dir "$T/exp"
	assert_clean
}

# Without a stop: a job that ends at its deadline, whose export of 384 MB
# is well within the 5 s, ends with the job's timeout status.
t_deadline_ok() {
	local t1 t2
	tmpfs_dir "$T/exp" 1G || return
	t1=$(date +%s%N)
	run_cmd env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" job --rootfs "$ROOTFS" \
		--writable 1G --memory 2G --timeout 3s --export "$T/exp" -- sh -c "$FILL; sleep 100"
	t2=$(date +%s%N)
	assert_rc 124
	assert_file "$T/exp/done"
	assert_eq "$(find "$T/exp" -type f ! -name 'done' | wc -l)" 384 "files exported"
	[ $(((t2 - t1) / 1000000)) -le 8500 ] || fail "brig returned after $(((t2 - t1) / 1000000)) ms"
	assert_clean
}

# ------------------------------------------------------- --copy-in

# A FIFO (and a symlink to one, a directory) at the copy-in destination in
# the rootfs: one line naming it, 125, at once; a FIFO on the host as the
# source: the same.
t_copyin_fifo() {
	local r=$T/rootfs t1 t2
	mkdir -p "$T/tmp"
	cp -a "$ROOTFS" "$r"
	mkfifo "$r/etc/fifo"
	ln -s /etc/fifo "$r/etc/link"
	echo data >"$T/f"
	for dst in /etc/fifo /etc/link; do
		t1=$(date +%s%N)
		TAP_TIMEOUT=10 run_cmd env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" job \
			--rootfs "$r" --copy-in "$T/f:$dst" -- cat "$dst"
		t2=$(date +%s%N)
		assert_rc 125
		assert_err_line "brig: --copy-in: \"$dst\": not a regular file in the job's root"
		[ $(((t2 - t1) / 1000000)) -le 3000 ] || fail "brig took $(((t2 - t1) / 1000000)) ms"
		assert_clean "after --copy-in to $dst"
	done
	mkfifo "$T/hostfifo"
	TAP_TIMEOUT=10 run_cmd env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" job \
		--rootfs "$r" --copy-in "$T/hostfifo:/in" -- true
	assert_rc 125
	assert_err_line "brig: --copy-in: \"$T/hostfifo\" is not a regular file or a directory"
	assert_clean "after --copy-in of a FIFO"
	# a regular file of the rootfs is still replaced
	run_cmd env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" job --rootfs "$r" \
		--copy-in "$T/f:/etc/hostname" -- cat /etc/hostname
	assert_rc 0
	assert_eq "$out" data "the copied-in /etc/hostname"
	assert_clean
}


# SIGTERM while brig copies a large tree in (512 MB, from a tmpfs; brig
# stopped in the copy as soon as it has read 32 MB): brig ends at once,
# 125, the job never started, nothing left.
t_copyin_sigterm() {
	local t1 t2 i
	tmpfs_dir "$T/big" 600M || return
	mkdir -p "$T/tmp" "$T/s"
	chmod 1777 "$T/s"
	for ((i = 0; i < 64; i++)); do
		head -c 8M /dev/zero >"$T/big/$i"
	done
	TMPDIR=$T/tmp "$BRIG" --root "$T/root" job --rootfs "$ROOTFS" --writable 1G --memory 2G \
		--mount "$T/s:/s:rw" --copy-in "$T/big:/big" -- touch /s/ran \
		</dev/null >"$T/bg.out" 2>"$T/bg.err" &
	BG_PID=$!
	defer kill_wait "$BG_PID"
	until [ "$(read_bytes "$BG_PID")" -ge $((32 << 20)) ] || ! alive "$BG_PID"; do
		:
	done
	alive "$BG_PID" || {
		fail "brig was not seen copying in"
		return
	}
	kill -STOP "$BG_PID"
	kill -TERM "$BG_PID"
	t1=$(date +%s%N)
	kill -CONT "$BG_PID"
	wait_exit "$BG_PID" 10
	t2=$(date +%s%N)
	assert_eq "$rc" 125 "brig's status"
	assert_eq "$(cat "$T/bg.err")" \
		'brig: --copy-in: "/big": stopped, brig got SIGTERM' "stderr"
	[ $(((t2 - t1) / 1000000)) -le 1000 ] || fail "brig took $(((t2 - t1) / 1000000)) ms after SIGTERM"
	assert_no_file "$T/s/ran"
	assert_clean
}

tap_test "--export: a setuid file, then too deep: never on the host (user namespace)" t_suid_depth userns
tap_test "--export: a setuid file, then too deep: never on the host (--no-userns)" t_suid_depth no-userns
tap_test "--export: a setuid file, then past --export-limit: never on the host (user namespace)" t_suid_limit userns
tap_test "--export: a setuid file, then past --export-limit: never on the host (--no-userns)" t_suid_limit no-userns
tap_test "--export: a setuid file, then a full disk: never on the host (user namespace)" t_suid_full userns
tap_test "--export: a setuid file, then a full disk: never on the host (--no-userns)" t_suid_full no-userns
tap_test "--export: setuid files exported without their bits, as the caller's" t_suid_ok
tap_test "--export: a sparse file of $SPARSE_SIZE in a 1M layer is exported sparse" t_sparse
tap_test "--export: 81 hard links of 1 MB are one file on the host" t_links
tap_test "--export-limit: past it nothing is exported" t_limit
tap_test "--export: SIGTERM during the export stops it, nothing left" t_sigterm_export
tap_test "--export: the job's deadline and 5 s bound the export" t_deadline
tap_test "--export: an export within the deadline's grace completes" t_deadline_ok
tap_test "--copy-in: a FIFO at the destination or as the source: refused at once" t_copyin_fifo
tap_test "--copy-in: SIGTERM during a long copy-in ends brig, nothing left" t_copyin_sigterm
tap_done
