#!/bin/bash
# brig job's binds (--mount) against a hostile job (issue 30, finding 1):
# through a bind a job has at most the rights of an unprivileged host
# identity of its own.  It cannot leave a setuid or setgid file, or a
# device, on the host; cannot write, chmod or chown what that identity
# could not (root's files); cannot read what it could not (a 0600 file of
# root's in a ro bind).  Each attack runs three ways: with the job's user
# namespace (its binds are not idmapped: root's files are nobody's to
# it), with --no-userns (the binds are idmapped to an id range of the
# job's own, where root's ids are unmapped), and with --no-userns and
# --keep-caps DAC_OVERRIDE,FOWNER,CHOWN,MKNOD (unmapped ids are beyond
# any capability: privileged_wrt_inode_uidgid; CAP_CHOWN's one way past
# them, chown_ok's "unmapped owner", is closed by the job's seccomp
# filter, which refuses the chown calls then).  Every check is made on
# the host, as root and as an unprivileged host user.
#
# What else could put such a file in the bind, checked: rename and link
# from the job's rootfs into the bind are EXDEV (another mount); O_TMPFILE
# with a setuid mode then linkat is refused by the mode rule (the
# "tmpfile" call below); openat2 (whose mode seccomp cannot read) is
# ENOSYS; io_uring (whose openat and such seccomp never sees) is EPERM;
# a file capability written with setxattr("security.capability") by a
# job with a user namespace is namespaced to its root (a v3 xattr whose
# rootid is the job's host uid, which the host's exec ignores), and
# without one needs CAP_SETFCAP, whose xattr the idmapped mount writes
# with the job's range as rootid, ignored by the host alike.
#
# runc 1.1.5 side by side (run by hand: a bundle with a user namespace
# mapping 0 to 1073741824, a rw rbind of a root-owned 0755 directory and
# one of a 1777 directory): runc has no idmapped binds, its root is an
# unprivileged host id there; `touch` in the 0755 bind and a write to its
# root-owned file fail with "Permission denied", as brig's job's do now.
# In the 1777 bind its files are owned by 1073741824, as brig's job's are
# by its range, but runc lets `chmod 6755` through: its copy is left
# setuid and setgid to 1073741824 (not root), where brig's filter refuses
# the mode (EPERM).
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"
# shellcheck source=../lib/job.sh
. "$(dirname "$0")/../lib/job.sh"

command -v setpriv >/dev/null 2>&1 || skip_all "needs setpriv"
SETID=$(static_helper security/setid-probe) ||
	skip_all "needs a static tests/security/setid-probe (gcc -static)"
cp "$SETID" "$ROOTFS/bin/setid-probe"

# The three ways a job may run.
WAYS=("" "--no-userns" "--no-userns --keep-caps DAC_OVERRIDE,FOWNER,CHOWN,MKNOD")

# host_dir: $T/d, a host directory of root's that others may write (1777),
# holding a file of root's (rootfile, 0644, "host"), a program of root's
# (rootbin, 0755) and a secret (0600); $T and its parents are searchable,
# so that an unprivileged host user can run what the job left there.
host_dir() {
	chmod 755 "$T"
	mkdir -p "$T/d"
	chmod 1777 "$T/d"
	echo host >"$T/d/rootfile"
	chmod 644 "$T/d/rootfile"
	cp "$SETID" "$T/d/rootbin"
	chmod 755 "$T/d/rootbin"
	echo "top secret" >"$T/d/secret"
	chmod 600 "$T/d/secret"
}

# assert_no_privileged_file DIR WHAT: nothing under DIR is setuid or
# setgid, a device, or owned by host root but the files the test made.
assert_no_privileged_file() {
	local found
	found=$(find "$1" \( -perm /6000 -o -type c -o -type b \) -printf '%M %u %p\n')
	assert_eq "$found" "" "setuid, setgid or device files under $1 ($2)"
	found=$(find "$1" -mindepth 1 \( -uid 0 -o -gid 0 \) ! -name rootfile ! -name rootbin \
		! -name secret ! -name ro -printf '%M %u:%g %p\n')
	assert_eq "$found" "" "files of host root's under $1 ($2)"
}

# The audit's own commands, then the host user who runs what was left.
t_audit() {
	local way=$1 found
	host_dir
	# shellcheck disable=SC2086 # $way is flags
	job $way --mount "$T/d:/w:rw" -- sh -c \
		'cp /bin/setid-probe /w/t; chmod 6755 /w/t; echo "chmod=$?"'
	assert_rc 0
	assert_eq "$out" "chmod=1" "the job's chmod 6755"
	assert_no_privileged_file "$T/d" "${way:-userns}"
	if [ -e "$T/d/t" ]; then
		found=$(stat -c '%u' "$T/d/t")
		assert_ne "$found" 0 "the owner of the job's copy"
		run_cmd setpriv --reuid 65534 --regid 65534 --clear-groups "$T/d/t" euid
		assert_eq "$out" "euid=65534 egid=65534" "a host user who runs the job's copy"
	fi
	assert_clean
}

# A file of root's in the rw bind: rewritten, appended to, chmod u+s,
# chowned, removed, renamed; none of it may happen.
t_root_files() {
	local way=$1
	host_dir
	# shellcheck disable=SC2086
	job $way --mount "$T/d:/w:rw" -- sh -c '
		echo evil >/w/rootfile; echo "write=$?"
		echo evil >>/w/rootfile; echo "append=$?"
		chmod u+s /w/rootbin; echo "chmod=$?"
		chmod 666 /w/rootfile; echo "chmod666=$?"
		chown 0:0 /w/rootfile; echo "chown=$?"
		rm -f /w/rootbin; echo "rm=$?"
		mv /w/rootfile /w/moved; echo "mv=$?"
		cat /w/secret; echo "read=$?"'
	assert_rc 0
	assert_eq "$out" "$(printf '%s=1\n' write append chmod chmod666 chown rm mv read)" \
		"what the job could do to root's files"
	assert_eq "$(cat "$T/d/rootfile" 2>&1)" host "root's file"
	assert_eq "$(stat -c '%a %u:%g' "$T/d/rootfile" "$T/d/rootbin" "$T/d/secret" 2>&1)" \
		"$(printf '644 0:0\n755 0:0\n600 0:0')" "root's files' modes and owners"
	assert_not_contains "$out$err" "top secret" "the job's output"
	assert_no_privileged_file "$T/d" "${way:-userns}"
	assert_clean
}

# A ro bind of a 0600 file of root's and of its directory.
t_ro_secret() {
	local way=$1
	host_dir
	mkdir "$T/ro"
	echo "top secret" >"$T/ro/secret"
	chmod 600 "$T/ro/secret"
	# shellcheck disable=SC2086
	job $way --mount "$T/ro:/r" --mount "$T/ro/secret:/s" -- sh -c \
		'cat /r/secret; echo "dir=$?"; cat /s; echo "file=$?"'
	assert_rc 0
	assert_eq "$out" "$(printf 'dir=1\nfile=1')" "the job's reads"
	assert_not_contains "$out$err" "top secret" "the job's output"
	assert_clean
}

# Every other way to make such a file: the raw calls, with the default
# profile and with --seccomp unconfined (the mode rules are the job's
# whatever --seccomp says).
t_raw_calls() {
	local way=$1 seccomp=$2 calls c expected=
	calls="chmod fchmod fchmodat fchmodat2 open openat creat tmpfile openat2 mkdir mkdirat"
	calls="$calls mknod-suid mknod-chr mknod-blk io_uring"
	for c in $calls; do
		case $c in
		openat2) expected+="$c errno=ENOSYS"$'\n' ;;
		*) expected+="$c errno=EPERM"$'\n' ;;
		esac
	done
	host_dir
	# a directory every way of the job may write in (one of root's is
	# unmapped, unwritable, without a user namespace)
	mkdir -m 1777 "$T/d/out"
	chown 65534:65534 "$T/d/out"
	# shellcheck disable=SC2086
	job $way --seccomp "$seccomp" --mount "$T/d:/w:rw" -- setid-probe /w/out $calls
	assert_rc 0
	assert_eq "$out" "${expected%$'\n'}" "the calls' outcomes"
	assert_no_privileged_file "$T/d" "${way:-userns} --seccomp $seccomp"
	assert_clean
}

# The good path: a directory of nobody's (65534) that others may write is
# where the job leaves its files; the caller reads them, owned by the
# job's range (never root), and a plain file can be made executable.
t_output() {
	local way=$1 owner
	chmod 755 "$T"
	mkdir -m 1777 "$T/out"
	chown 65534:65534 "$T/out"
	# shellcheck disable=SC2086
	job $way --mount "$T/out:/out:rw" -- sh -c \
		'echo 42 >/out/answer && mkdir /out/sub && echo x >/out/sub/f && chmod 755 /out/sub/f && echo done'
	assert_rc 0
	assert_eq "$out" "done" "the job's output"
	assert_eq "$(cat "$T/out/answer" 2>&1)" 42 "the job's file, read by the caller"
	assert_eq "$(stat -c %a "$T/out/sub/f" 2>&1)" 755 "its executable file's mode"
	owner=$(stat -c %u "$T/out/answer")
	assert_ne "$owner" 0 "the owner of the job's file"
	[ "$owner" -ge "$ID_START" ] || fail "the job's file is owned by $owner, not by an id of the jobs' ranges"
	assert_no_privileged_file "$T/out" "${way:-userns}"
	assert_clean
}

# No rw bind: the mode rules are not added (chmod u+s in the job's own
# writable layer works as it always did).
t_no_rw_bind() {
	job -- sh -c 'touch /tmp/f && chmod 4755 /tmp/f && stat -c %a /tmp/f'
	assert_rc 0
	assert_eq "$out" 4755 "chmod u+s in the job's own layer"
	assert_clean
}

# A --seccomp file whose rule for one of the mode calls has conditions
# cannot be combined with the mode rules: one line naming the flag, 125,
# nothing left.  Without a rw bind the same file is taken.
t_conditional_profile() {
	host_dir
	jq '.syscalls += [{"names": ["fchmodat"], "action": "SCMP_ACT_ALLOW",
		"args": [{"index": 2, "value": 0, "op": "SCMP_CMP_NE"}]}]' \
		"$BRIG_SRCDIR/contrib/seccomp/default.json" >"$T/p.json"
	job --seccomp "$T/p.json" --mount "$T/d:/w:rw" -- true
	assert_rc 125
	assert_lines 1 "$err" "stderr"
	assert_contains "$err" "--seccomp" "stderr"
	assert_contains "$err" '"fchmodat" has a conditional rule' "stderr"
	job --seccomp "$T/p.json" --mount "$T/d:/w" -- true
	assert_rc 0
	assert_clean
}

for way in "${WAYS[@]}"; do
	tap_test "a rw bind: the audit's cp and chmod 6755 leave no setuid file (${way:-userns})" t_audit "$way"
	tap_test "a rw bind: root's files stay root's (${way:-userns})" t_root_files "$way"
	tap_test "a ro bind: root's 0600 file is not read (${way:-userns})" t_ro_secret "$way"
	tap_test "a rw bind: no call makes a setuid, setgid or device file (${way:-userns})" t_raw_calls "$way" default
	tap_test "a rw bind: the job's output is collected from a directory of nobody's (${way:-userns})" t_output "$way"
done
tap_test "a rw bind, --seccomp unconfined: the mode rules all the same (userns)" t_raw_calls "" unconfined
tap_test "a rw bind, --seccomp unconfined: the mode rules all the same (--no-userns --keep-caps)" \
	t_raw_calls "${WAYS[2]}" unconfined
tap_test "without a rw bind the job's own layer is as it was" t_no_rw_bind
tap_test "a rw bind and a --seccomp file with a conditional chmod rule: refused, 125" t_conditional_profile
tap_done
