#!/bin/bash
# The inputs of a job that docs/SECURITY.md listed as attacked by no test
# ("Gaps"), attacked for real: a --copy-in destination whose parents in
# the hostile rootfs are symlinks out of it; the fds brig job's caller has
# open and $LISTEN_FDS; a --cwd through /proc/self/fd/N; the rootfs's
# setuid-root binary and device nodes; the rootfs's /etc/passwd as a FIFO,
# a huge file, a symlink out of the root; and the --pid-file of create in
# a directory the container can write.  Each names the host paths the
# attack aims at (files of the test's own, in $T) and checks them after.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"
# shellcheck source=../lib/job.sh
. "$(dirname "$0")/../lib/job.sh"

brig_file_bundle

# private_rootfs: a copy of the file's rootfs in $T/rootfs.
private_rootfs() {
	mkdir -p "$T/rootfs" && cp -a "$ROOTFS/." "$T/rootfs/" || fail "cannot copy the rootfs"
}

# up_to_root PATH: PATH (absolute) as seen from the rootfs $T/rootfs/X by
# a relative symlink: enough ../ to climb out of any depth, then PATH.
up_to_root() {
	echo "../../../../../../../../../../../../../../..$1"
}

# bp ARGS...: `brig --root $T/root pool ARGS` (sets out, err, rc).
bp() {
	mkdir -p "$T/tmp"
	run_cmd env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" pool "$@"
}

# mkpool NAME ARGS...: pool create NAME --size 1 ARGS (destroyed when the
# test ends); fails the test when it fails.
mkpool() {
	local name=$1
	shift
	defer timeout -k 5 30 "$BRIG" --root "$T/root" pool destroy "$name"
	bp create "$name" --size 1 "$@"
	assert_eq "$rc" 0 "exit status of pool create $name (stderr: $(_show "$err"))" || return 1
}

# ready_one NAME: wait (20 s) until pool NAME has a ready member.
ready_one() {
	local n
	for ((n = 0; n < 400; n++)); do
		[ "$(find "$T/root/pools/$1/ready" -mindepth 1 -maxdepth 1 2>/dev/null | grep -c .)" -ge 1 ] &&
			return 0
		sleep 0.05
	done
	fail "pool $1: no ready member after 20 s"
}

# rmpool NAME: pool destroy NAME, which leaves nothing under pools/ (then
# removed, for assert_clean).
rmpool() {
	bp destroy "$1"
	assert_eq "$rc" 0 "exit status of pool destroy $1 (stderr: $(_show "$err"))"
	assert_empty_dir "$T/root/pools"
	rmdir "$T/root/pools" 2>/dev/null
}

# pjob NAME ARGS...: brig job --pool NAME ARGS, the result in $T/result.json.
pjob() {
	local pool=$1
	shift
	rm -f "$T/result.json"
	bj --pool "$pool" --result "$T/result.json" "$@"
}

# ----------------------------------------------------------- --copy-in

# The rootfs's directories are symlinks out of it (absolute, relative,
# through /proc/self), and --copy-in names a file below each: the copy
# lands inside the job's root or fails; nothing is made in the host
# directories the symlinks name, and the rootfs is unchanged.
t_copy_in_symlinks() {
	local p d before
	private_rootfs
	mkdir -p "$T/host/abs" "$T/host/rel" "$T/host/proc" "$T/host/chain"
	echo "copied-$RANDOM" >"$T/payload"
	ln -s "$T/host/abs" "$T/rootfs/abs"
	ln -s "$(up_to_root "$T/host/rel")" "$T/rootfs/rel"
	ln -s "$(up_to_root "$T/host/rel")" "$T/rootfs/etc/deep"
	ln -s "/proc/self/root$T/host/proc" "$T/rootfs/proot"
	ln -s /proc/self/cwd "$T/rootfs/pcwd"
	ln -s /proc/1/root "$T/rootfs/p1root"
	ln -s /proc/self/fd/3 "$T/rootfs/pfd"
	ln -s c2 "$T/rootfs/c1"
	ln -s "$(up_to_root "$T/host/chain")" "$T/rootfs/c2"
	before=$(cd "$T/rootfs" && find . -printf '%p %y %m %U:%G %s %l\n' | sort)
	for p in /abs/x /abs/new/deep/x /rel/x /etc/deep/x /etc/deep/../../rel/x /proot/x \
		/pcwd/x /p1root$T/host/abs/x /pfd/x /c1/x /c1/made/x; do
		bj --rootfs "$T/rootfs" --copy-in "$T/payload:$p" -- cat "$p"
		diag "--copy-in $p: status $rc, $(_show "$out$err")"
		[ "$rc" -eq 0 ] && assert_eq "$out" "$(cat "$T/payload")" "the copy at $p, in the job"
		[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || [ "$rc" -eq 125 ] || fail "--copy-in $p: status $rc"
		for d in "$T"/host/*; do
			assert_empty_dir "$d"
		done
	done
	assert_eq "$(cd "$T/rootfs" && find . -printf '%p %y %m %U:%G %s %l\n' | sort)" "$before" \
		"the rootfs after the copies"
	assert_clean
}

# A pool member's root has its binds mounted when brig copies in (through
# its init's root): a symlink of the image into a :rw bind of the host
# leads a --copy-in there.  brig, as root, must not write what the job's
# ids could not: the copy is refused (it stays on the root's own mount),
# the bind's root-owned directory stays the host root's, and nothing is
# written in it.  Before the fix, with a user namespace the file landed
# in the host's root-owned directory as the job's host uid; with
# --no-userns the directory itself was chowned to the job's uid 1000
# (brig gave away every root-owned directory on the path, not only those
# it made), and the job then wrote into it.  ARGS: extra pool flags.
t_copy_in_pool_bind() {
	private_rootfs
	mkdir -p "$T/vol/protected"
	chmod 0755 "$T/vol" "$T/vol/protected"
	echo "copied-$RANDOM" >"$T/payload"
	ln -s /vol "$T/rootfs/link"
	mkpool P --rootfs "$T/rootfs" --mount "$T/vol:/vol:rw" --user 1000:1000 "$@" || return
	ready_one P || return
	pjob P --copy-in "$T/payload:/link/protected/x" -- sh -c 'echo pwned >/vol/protected/y'
	diag "--copy-in /link/protected/x: status $rc, $(_show "$out$err"), pool $(res pool)"
	assert_rc 125
	assert_contains "$err" "not in the job's own root filesystem"
	assert_eq "$(stat -c %u:%g "$T/vol/protected")" 0:0 "the owner of the bind's protected directory"
	assert_empty_dir "$T/vol/protected"
	rmpool P
	assert_clean
}

# A pool's size file changed behind brig's back: a fill must not make
# members until something runs out.  Before the fix it was read with a
# bare strtoul: "2junk" made 2 members, "-1" listed as 18446744073709551615
# and a fill would have made members without end.  Now anything but what
# pool create writes (1 to 1024 and a newline) stops the fill, in one
# line, with nothing made.
t_pool_size() {
	local v n
	mkpool S --rootfs "$ROOTFS" || return
	ready_one S || return
	for v in 2junk -1 99999 0 "" " 3"; do
		printf '%s\n' "$v" >"$T/root/pools/S/size"
		bp fill S
		assert_rc 125 "pool fill with a size of \"$v\""
		assert_lines 1 "$err" "stderr of pool fill with a size of \"$v\""
		assert_contains "$err" "not a size from 1 to 1024"
		n=$(find "$T/root/pools/S/ready" "$T/root/pools/S/creating" -mindepth 1 -maxdepth 1 \
			2>/dev/null | grep -c .)
		assert_eq "$n" 1 "members after pool fill with a size of \"$v\""
	done
	printf '1\n' >"$T/root/pools/S/size"
	rmpool S
	assert_clean
}

# ------------------------------------------------------------------ fds

# FDS_PROBE: what the job reports of its fds: its shell's (its process's)
# open fds (listed by a child: no command substitution's pipe is open in
# the shell then), the LISTEN_ variables of its environment, and a try at
# the caller's fds 7 and 3.
# shellcheck disable=SC2016
FDS_PROBE='ls /proc/$$/fd; echo "listen $(env | grep -c "^LISTEN_")"
cat /proc/$$/fd/7 /proc/$$/fd/3 2>/dev/null; true'

# caller_fds ARGS...: brig ARGS with fds 3 and 4 on a secret file, 7 on
# it too, 8 on $T/out (written), 9 on the directory $T, and
# LISTEN_FDS=2 LISTEN_PID=brig's own pid (the shell's $$, which execs it).
caller_fds() {
	mkdir -p "$T/tmp"
	run_cmd env TMPDIR="$T/tmp" bash -c 'exec 3<"$1" 4<"$1" 7<"$1" 8>"$2" 9<"$3"
		shift 3
		LISTEN_FDS=2 LISTEN_PID=$$ exec "$@"' _ "$T/secret" "$T/out" "$T" \
		"$BRIG" --root "$T/root" job "$@"
}

# A cold job and a pool's job: only 0, 1, 2, and no LISTEN_ variable.
t_fds() {
	echo "fd-secret-$RANDOM$RANDOM" >"$T/secret"
	chmod 0600 "$T/secret"
	caller_fds --rootfs "$ROOTFS" -- sh -c "$FDS_PROBE"
	assert_rc 0
	assert_eq "$out" "0
1
2
listen 0" "what a cold job sees"
	assert_not_contains "$out$err" "$(cat "$T/secret")" "the job's output"
	mkpool P --rootfs "$ROOTFS" || return
	ready_one P || return
	caller_fds --pool P -- sh -c "$FDS_PROBE"
	assert_rc 0
	assert_eq "$out" "0
1
2
listen 0" "what a pool's job sees"
	assert_not_contains "$out$err" "$(cat "$T/secret")" "the pool job's output"
	assert_eq "$(stat -c %s "$T/out")" 0 "bytes in the caller's fd 8's file"
	rmpool P
	assert_clean
}

# ------------------------------------------------------------------ cwd

# CWD_PROBE: whether the job's cwd is inside its root ("/" and a walk up
# from the cwd meet), and a try at the host's secret through it.
# shellcheck disable=SC2016
CWD_PROBE='cat secret ../secret ../../secret 2>/dev/null
r=$(stat -c %d:%i /)
up=$(stat -c %d:%i ../../../../../../../../../../../../../../../../..)
if [ "$r" = "$up" ]; then echo INSIDE; else echo "ESCAPED cwd=$(pwd -P)"; fi'

# cwd_job ARGS...: brig job ARGS with the caller's fds 3 to 9 on host
# directories ($T/host, holding the secret, and $T).
cwd_job() {
	mkdir -p "$T/tmp"
	run_cmd env TMPDIR="$T/tmp" bash -c 'exec 3<"$1" 4<"$1" 5<"$2" 6<"$1" 7<"$1" 8<"$2" 9<"$1"
		shift 2
		exec "$@"' _ "$T/host" "$T" "$BRIG" --root "$T/root" job "$@"
}

# check_cwd WHAT: the last cwd_job was refused (125, one line) or ran inside.
check_cwd() {
	diag "$1: status $rc, $(_show "$out$err")"
	assert_not_contains "$out$err" "$SECRET" "output ($1)"
	assert_not_contains "$out" ESCAPED "output ($1)"
	if [ "$rc" -eq 0 ]; then
		assert_eq "$out" INSIDE "output ($1)"
	else
		assert_eq "$rc" 125 "exit status ($1)"
		assert_lines 1 "$err" "stderr ($1)"
	fi
}

# --cwd through /proc/self/fd/N (CVE-2024-21626's shape) and the other
# magic links to a directory, of a cold job and of a pool's job (one of a
# --no-userns pool too).
t_cwd() {
	local c n
	SECRET="cwd-secret-$RANDOM$RANDOM"
	mkdir -p "$T/host"
	echo "$SECRET" >"$T/host/secret"
	echo "$SECRET" >"$T/secret"
	for n in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
		cwd_job --rootfs "$ROOTFS" --cwd "/proc/self/fd/$n" -- sh -c "$CWD_PROBE"
		check_cwd "--cwd /proc/self/fd/$n"
	done
	for c in /proc/self/cwd /proc/1/cwd /proc/self/root/.. /proc/thread-self/fd/3 /proc/1/fd/3; do
		cwd_job --rootfs "$ROOTFS" --cwd "$c" -- sh -c "$CWD_PROBE"
		check_cwd "--cwd $c"
	done
	mkpool P --rootfs "$ROOTFS" || return
	for c in /proc/self/fd/3 /proc/self/fd/4 /proc/self/fd/5 /proc/1/cwd; do
		ready_one P || return
		rm -f "$T/result.json"
		cwd_job --pool P --result "$T/result.json" --cwd "$c" -- sh -c "$CWD_PROBE"
		check_cwd "--pool --cwd $c (pool $(res pool))"
	done
	rmpool P
	# under --no-userns the waiting init is the host's root, and holds
	# fds of host directories (its job directory): a chdir through them
	# gets in, and only the check that follows it stands
	mkpool N --rootfs "$ROOTFS" --no-userns || return
	for c in /proc/self/fd/7 /proc/self/fd/9 /proc/self/fd/10 /proc/self/fd/12; do
		ready_one N || return
		rm -f "$T/result.json"
		cwd_job --pool N --result "$T/result.json" --cwd "$c" -- sh -c "$CWD_PROBE"
		check_cwd "--pool (--no-userns) --cwd $c (pool $(res pool))"
	done
	rmpool N
	assert_clean
}

# ------------------------------------------------- setuid files, devices

# The host's first disk's numbers (for a device node in the rootfs): a
# real block device of this host, or the device of its root filesystem.
disk_numbers() {
	local d
	for d in /dev/vda /dev/sda /dev/nvme0n1 /dev/xvda; do
		if [ -b "$d" ]; then
			stat -c '%t %T' "$d" | while read -r ma mi; do echo "$((16#$ma)) $((16#$mi))"; done
			return
		fi
	done
	stat -c %d / | while read -r dev; do echo "$((dev >> 8)) $((dev & 255))"; done
}

# A setuid-root (and setgid) copy of a probe in the rootfs, run by a job
# as 1000:1000: no euid 0 (nosuid, no_new_privs).  A block device node
# with the host disk's numbers and /dev/kmsg's, mode 0666, in the rootfs:
# not usable (nodev), by the job's root either, nor under --no-userns.
t_setuid_dev() {
	local probe nums u
	probe=$(static_helper security/job-inputs-probe) || skip "needs a static tests/security/job-inputs-probe"
	private_rootfs
	cp "$probe" "$T/rootfs/bin/suid"
	chown 0:0 "$T/rootfs/bin/suid"
	chmod 6755 "$T/rootfs/bin/suid"
	nums=$(disk_numbers)
	# shellcheck disable=SC2086 # (major and minor)
	mknod -m 0666 "$T/rootfs/disk" b $nums
	mknod -m 0666 "$T/rootfs/kmsg" c 1 11
	diag "the rootfs's disk node: b $nums; its setuid file: $(stat -c '%A %U' "$T/rootfs/bin/suid")"
	for u in "--user 1000:1000" "" "--no-userns --user 1000:1000" "--no-userns"; do
		# shellcheck disable=SC2086 # (the options)
		bj --rootfs "$T/rootfs" $u -- /bin/suid /disk /kmsg
		assert_rc 0
		diag "${u:-as the job root}: $(_show "$out")"
		if [ -n "$u" ] && [ "${u%1000:1000}" != "$u" ]; then
			assert_contains "$out" "ids ruid=1000 euid=1000 rgid=1000 egid=1000" \
				"the ids of the setuid-root file's process ($u)"
		fi
		assert_match "$out" "open /disk errno=13 " "the rootfs's disk node (${u:-as the job root})"
		assert_match "$out" "open /kmsg errno=13 " "the rootfs's kmsg node (${u:-as the job root})"
	done
	assert_clean
}

# ------------------------------------------------------------ /etc/passwd

# passwd_job WHAT: a job that prints its HOME, bounded (30 s), on
# $T/rootfs; it must start (HOME not from the host's file) or fail in one
# line, never hang.
passwd_job() {
	local t0 t1
	t0=$(date +%s)
	TAP_TIMEOUT=30 bj --rootfs "$T/rootfs" --timeout 20s -- sh -c 'echo "HOME=$HOME"'
	t1=$(date +%s)
	diag "/etc/passwd $1: status $rc in $((t1 - t0)) s, $(_show "$out$err")"
	assert_ne "$rc" 124 "exit status (/etc/passwd $1: not a hang)"
	assert_not_contains "$out$err" LEAKED "output (/etc/passwd $1)"
	if [ "$rc" -eq 0 ]; then
		assert_eq "$out" "HOME=/" "the job's HOME (/etc/passwd $1)"
	else
		assert_lines 1 "$err" "stderr (/etc/passwd $1)"
	fi
}

# The rootfs's /etc/passwd as a FIFO, a 1 GiB sparse file, a symlink to a
# host file (absolute, relative, through /proc/self/root and /proc/1/root),
# a directory.
t_passwd() {
	local what
	private_rootfs
	printf 'root:x:0:0:root:/LEAKED-host-home:/bin/sh\n' >"$T/hostpasswd"
	for what in fifo sparse absolute relative proc-self proc-1 directory; do
		rm -rf "$T/rootfs/etc/passwd"
		case $what in
		fifo) mkfifo "$T/rootfs/etc/passwd" ;;
		sparse)
			printf 'root:x:0:0:root:/LEAKED-sparse:/bin/sh\n' >"$T/rootfs/etc/passwd"
			truncate -s 1G "$T/rootfs/etc/passwd"
			;;
		absolute) ln -s "$T/hostpasswd" "$T/rootfs/etc/passwd" ;;
		relative) ln -s "$(up_to_root "$T/hostpasswd")" "$T/rootfs/etc/passwd" ;;
		proc-self) ln -s "/proc/self/root$T/hostpasswd" "$T/rootfs/etc/passwd" ;;
		proc-1) ln -s "/proc/1/root$T/hostpasswd" "$T/rootfs/etc/passwd" ;;
		directory) mkdir "$T/rootfs/etc/passwd" ;;
		esac
		passwd_job "$what"
	done
	assert_eq "$(cat "$T/hostpasswd")" "root:x:0:0:root:/LEAKED-host-home:/bin/sh" "the host's file"
	assert_clean
}

# ------------------------------------------------------------ --pid-file

# pidfile_create ID PREP [CMD]: `brig CMD ID --pid-file $T/vol/pid` (CMD
# create, or "run --detach"; bounded: 20 s), after the shell that execs brig ran PREP, with $1 the pid file's
# path (the temporary file brig writes first is "$1.tmp.$$": the shell's
# pid is brig's) and $2 the host file $T/target.
pidfile_create() {
	local id=$1 prep=$2 cmd=${3:-create}
	delete_at_end "$id"
	TAP_TIMEOUT=20 run_cmd bash -c "$prep"'
		exec "$3" --root "$4" '"$cmd"' --bundle "$5" --pid-file "$1" "$6"' \
		_ "$T/vol/pid" "$T/target" "$BRIG" "$T/root" "$T/b" "$id"
}

# The --pid-file of create (and run --detach) in a directory the
# container can write: a
# symlink at PATH (to a host file of the test's) is replaced, never
# followed; a symlink, a hard link of the host file or a FIFO pre-made at
# PATH.tmp.<brig's pid> is never written through and never hangs brig.
t_pid_file() {
	local prep what pid
	bundle "$T/b"
	brig_bundle_edit "$T/b" '.process.args = ["true"]' || return
	mkdir -p "$T/vol"
	chmod 1777 "$T/vol"
	echo keep >"$T/target"
	for what in symlink tmp-symlink tmp-hardlink tmp-fifo tmp-dangling run-tmp-fifo run-tmp-hardlink; do
		rm -rf "$T/vol/"*
		case $what in
		symlink) ln -s "$T/target" "$T/vol/pid" ;;
		esac
		case $what in
		tmp-symlink) prep='ln -s "$2" "$1.tmp.$$"' ;;
		tmp-hardlink | run-tmp-hardlink) prep='ln "$2" "$1.tmp.$$"' ;;
		tmp-fifo | run-tmp-fifo) prep='mkfifo "$1.tmp.$$"' ;;
		tmp-dangling) prep='ln -s "$2.new" "$1.tmp.$$"' ;;
		*) prep=: ;;
		esac
		if [ "${what#run-}" != "$what" ]; then
			pidfile_create "c-$what" "$prep" "run --detach"
		else
			pidfile_create "c-$what" "$prep"
		fi
		diag "$what: status $rc, $(_show "$err"), $T/vol: $(ls -l "$T/vol" | tail -n +2 | tr '\n' ' ')"
		assert_ne "$rc" 124 "create with a $what (not a hang)"
		assert_rc 0
		assert_eq "$(cat "$T/target")" keep "the host file ($what)"
		assert_eq "$(stat -c %h "$T/target")" 1 "links of the host file ($what)"
		[ ! -e "$T/target.new" ] || fail "$T/target.new was made ($what)"
		pid=$(state_field "c-$what" pid)
		[ -f "$T/vol/pid" ] && [ ! -L "$T/vol/pid" ] || fail "$T/vol/pid is not a regular file ($what)"
		# (a run's process, `true`, may be gone: its pid is only a number)
		if [ "${what#run-}" != "$what" ]; then
			assert_match "$(cat "$T/vol/pid" 2>&1)" '^[1-9][0-9]*$' "the pid file ($what)"
		else
			assert_eq "$(cat "$T/vol/pid" 2>&1)" "$pid" "the pid file ($what)"
		fi
		assert_eq "$(find "$T/vol" -name 'pid.tmp.*' | grep -c .)" 0 "temporary files left ($what)"
		"$BRIG" --root "$T/root" delete --force "c-$what" >/dev/null 2>&1
	done
}

tap_test "--copy-in through the rootfs's symlinks out of it writes nothing on the host" t_copy_in_symlinks
tap_test "--copy-in through a symlink into a pool member's rw bind leaves its root-owned directory alone" t_copy_in_pool_bind
tap_test "--copy-in through a symlink into a --no-userns pool member's rw bind: refused, the directory stays root's" t_copy_in_pool_bind --no-userns
tap_test "a pool's size file changed behind brig's back: no fill beyond 1 to 1024" t_pool_size
tap_test "a job sees only fds 0, 1, 2 whatever its caller has open and LISTEN_FDS says" t_fds
tap_test "--cwd through /proc/self/fd/N and other magic links: refused or inside the root" t_cwd
tap_test "the rootfs's setuid-root file gives no euid 0, its device nodes are unusable" t_setuid_dev
tap_test "the rootfs's /etc/passwd as a FIFO, a 1 GiB file, a symlink out: no hang, no host file read" t_passwd
tap_test "create --pid-file in a container-writable directory never writes through a link, never hangs" t_pid_file
tap_done
