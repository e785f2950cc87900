#!/bin/bash
# Confinement that must hold when config.json says nothing, or says it in
# a corner brig once got wrong.  Four findings of the audit of 18285a8, each
# attacked for real:
#
# 1. No process.capabilities (the key missing, or null) gave the container
#    every capability brig had (its own bounding set, all 41 but what the
#    caller lacks) in CapBnd, CapPrm and CapEff.  With CAP_DAC_READ_SEARCH the
#    container opens any file of the host's filesystem by its file handle
#    (open_by_handle_at, the "shocker" exploit): nothing ties a handle to
#    the caller's root.  `brig exec --process p.json` without capabilities
#    did the same.  Now a missing key means empty sets (all five 0), as
#    runc 1.1.5 does for run; exec --process without capabilities gets the
#    container's own sets, which is runc's rule for exec (runc 1.1.5, same
#    bundle: exec'd CapBnd/CapPrm/CapEff 0000000020000420 in a container
#    of the default config, the attack refused with EPERM).
#
# 2. startContainer hooks ran before the seccomp filter was loaded when
#    noNewPrivileges was true: a hook is a program of the image, and it
#    and whatever it left behind ran unfiltered ("Seccomp: 0", a background
#    mkdir the filter denies succeeded).  Now the hooks run under the
#    container's filter with noNewPrivileges true and false; runc 1.1.5
#    loads the filter before the hooks in both cases (its hook and the
#    hook's child see "Seccomp: 2", the mkdir is refused).
#
# 3. The session keyring was named "_ses.%.40s": containers whose ids share
#    their first 40 bytes shared a keyring.  The kernel joins a keyring by
#    name only if the joiner may search it; brig's keyrings (0x3f130000)
#    are not searchable by other processes of the uid, but the container
#    that possesses one may make it so (KEYCTL_SETPERM; runc sets 0x3f1b0000
#    on every container's keyring so that `runc exec` can join it).  The
#    attacker starts first with a searchable keyring of the victim's
#    truncated name: the victim joins it and puts its keys where the
#    attacker reads them.  runc 1.1.5 names the keyring "_ses.<full id>"
#    and is not fooled.  The keyrings of unrelated containers, and the
#    host's session keyring, are out of reach of a container's process
#    too.  `brig exec` left its process in the session keyring of its
#    caller: the host's keys were readable from the container (runc exec
#    joins the container's keyring "_ses.<id>").
#
# 4. ".seccomp-cache" was a legal container id, and the compiled-filter
#    cache lives at <root>/.seccomp-cache: on 18285a8 `delete` of that id
#    (even without --force, even when it fails with "does not exist")
#    removed the whole cache, and `create`/`run` of it failed as "already
#    exists".  Now ids that start with a dot are refused as a usage error
#    (exit 2) by every command that takes one, and the cache is untouched.
#    runc 1.1.5 accepts the id (its regex ^[\w+-\.]+$ allows a leading
#    dot) and keeps no cache under its root, so nothing is at stake there.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"

# One busybox rootfs for the whole file (tests/lib/rootfs.sh: mkbundle runs
# on it, with the test's $T/shared at /shared), with the two helpers in it.
brig_file_rootfs

# helper NAME: the static tests/security/NAME (empty when it cannot be
# had: the tests that need it skip).
helper() { static_helper "security/$1"; }

HANDLE_ATTACKER=$(helper handle-attacker) && cp "$HANDLE_ATTACKER" "$ROOTFS/handle-attacker" ||
	HANDLE_ATTACKER=
KEYRING_PROBE=$(helper keyring-probe) && cp "$KEYRING_PROBE" "$ROOTFS/keyring-probe" ||
	KEYRING_PROBE=

need_handle_attacker() {
	[ -n "$HANDLE_ATTACKER" ] || skip "needs a static tests/security/handle-attacker (gcc -static)"
}

need_keyring_probe() {
	[ -n "$KEYRING_PROBE" ] || skip "needs a static tests/security/keyring-probe (gcc -static)"
}

# assert_no_containers: the state root holds no container (the seccomp
# cache may be there).
assert_no_containers() {
	assert_eq "$(find "$T/root" -mindepth 1 -maxdepth 1 ! -name .seccomp-cache 2>/dev/null)" "" \
		"what is left in the state root"
}

# wait_file FILE: until FILE is not empty (5 s).
wait_file() {
	wait_until 5 test -s "$1"
}

# ---------------------------------------------------------- capabilities

NO_CAPS=$'CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nCapAmb:\t0000000000000000'

# What the container runs: its capability sets, then the attack on the
# host's secret, whose handle is in $H.
# shellcheck disable=SC2016
SHOCKER='grep ^Cap /proc/self/status; /handle-attacker read / "$H"'

# shocker_setup: a host secret outside the container's rootfs, on the same
# filesystem (a handle is only good there), and its handle in HANDLE.
shocker_setup() {
	need_handle_attacker
	SECRET="host-secret-$RANDOM$RANDOM"
	mkdir -p "$T/host"
	echo "$SECRET" >"$T/host/secret"
	chmod 0600 "$T/host/secret"
	[ "$(stat -c %d "$T/host/secret")" = "$(stat -c %d "$ROOTFS")" ] ||
		skip "the rootfs and $T are on different filesystems: no handle to forge"
	HANDLE=$("$HANDLE_ATTACKER" get "$T/host/secret") ||
		skip "$(df --output=fstype "$T" | tail -1) has no file handles"
}

# The attack is real: with CAP_DAC_READ_SEARCH given on purpose, it reads
# the secret; without process.capabilities (missing or null) the container
# has no capability at all and the handle is refused.
t_caps_missing_run() {
	local filter
	shocker_setup
	mkbundle . sh -c "$SHOCKER"
	brig_bundle_edit "$T/b" '.process.capabilities = {bounding: $c, effective: $c, permitted: $c}
		| .process.env += ["H=" + $h]' --argjson c '["CAP_DAC_READ_SEARCH"]' --arg h "$HANDLE"
	br run --bundle "$T/b" control
	assert_rc 0
	assert_contains "$out" "$SECRET" "what the control (CAP_DAC_READ_SEARCH given) read"

	for filter in 'del(.process.capabilities)' '.process.capabilities = null'; do
		mkbundle "$filter" sh -c "$SHOCKER"
		brig_bundle_edit "$T/b" '.process.env += ["H=" + $h]' --arg h "$HANDLE"
		br run --bundle "$T/b" c
		assert_not_contains "$out$err" "$SECRET" "what the container read ($filter)"
		assert_contains "$err" "open_by_handle_at: Operation not permitted" \
			"the attack's error ($filter)"
		assert_eq "$(grep ^Cap <<<"$out")" "$NO_CAPS" "capability sets of the container ($filter)"
		# create + start: the same init, the same sets
		mkbundle "$filter" sh -c 'grep ^Cap /proc/self/status >/shared/caps'
		br create --bundle "$T/b" c2
		assert_rc 0
		br start c2
		assert_rc 0
		wait_until 5 is_status c2 stopped || fail "c2 did not stop"
		assert_eq "$(cat "$T/shared/caps" 2>/dev/null)" "$NO_CAPS" \
			"capability sets of the created container ($filter)"
		br delete c2
		assert_rc 0
	done
	assert_empty_dir "$T/root"
}

# cap_lines PID: the capability sets of PID, as in /proc/PID/status.
cap_lines() {
	grep ^Cap "/proc/$1/status"
}

# exec --process of a process.json without capabilities: the exec'd process
# gets the container's own sets (those of its init), never brig's; in a
# container of the default config (three capabilities) and in one without
# any.  The attack is refused in both.
t_caps_missing_exec() {
	local filter pid want
	shocker_setup
	jq -n --arg s "$SHOCKER" --arg h "$HANDLE" \
		'{args: ["sh", "-c", $s], cwd: "/", env: ["PATH=/bin", "H=" + $h], user: {uid: 0, gid: 0}}' \
		>"$T/p.json"
	jq '.args = ["sh", "-c", "grep ^Cap /proc/self/status >/shared/detached.caps"]' "$T/p.json" \
		>"$T/detached.json"
	for filter in . 'del(.process.capabilities)'; do
		mkbundle "$filter" sleep 100
		up c || return
		pid=$(state_field c pid)
		want=$(cap_lines "$pid")
		if [ "$filter" = . ]; then
			assert_eq "$(grep CapEff <<<"$want")" $'CapEff:\t0000000020000420' \
				"effective set of the default config's init"
		else
			assert_eq "$want" "$NO_CAPS" "capability sets of the init without capabilities"
		fi
		br exec --process "$T/p.json" c
		assert_not_contains "$out$err" "$SECRET" "what exec --process read (config: $filter)"
		assert_contains "$err" "open_by_handle_at: Operation not permitted" \
			"the attack's error (exec --process, config: $filter)"
		assert_eq "$(grep ^Cap <<<"$out")" "$want" \
			"capability sets of exec --process (config: $filter)"
		rm -f "$T/shared/detached.caps"
		br exec --detach --process "$T/detached.json" c
		assert_rc 0
		wait_file "$T/shared/detached.caps" || fail "exec --detach --process wrote nothing"
		assert_eq "$(cat "$T/shared/detached.caps" 2>/dev/null)" "$want" \
			"capability sets of exec --detach --process (config: $filter)"
		br delete --force c
		assert_rc 0
	done
	assert_empty_dir "$T/root"
}

# ---------------------------------------------------- startContainer hooks

# The filter: everything allowed but mkdir and mkdirat (EPERM).
DENY_MKDIR='{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir", "mkdirat"],
	"action": "SCMP_ACT_ERRNO", "errnoRet": 1}]}'

# The hook (/bin/sh of the image): its own seccomp mode, and a child left
# behind that waits for the init to be done with the hooks and tries to
# make a directory on the host (through /shared); the result, or the
# absence of one, in /shared/bg.*.
# shellcheck disable=SC2016
HOOK='grep Seccomp: /proc/self/status >/shared/hook.status
(grep Seccomp: /proc/self/status >/shared/bg.status; sleep 0.3
 mkdir /shared/made-by-hook; echo $? >/shared/bg.done) </dev/null >/dev/null 2>&1 &'

# The container's process waits (5 s at most) for the hook's child, then
# tries the same itself: the filter must be there.
# shellcheck disable=SC2016
CTR='i=0; while [ ! -s /shared/bg.done ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
mkdir /shared/made-by-ctr; grep Seccomp: /proc/self/status'

t_start_hooks_filtered() {
	local nnp how
	for nnp in true false; do
		for how in run create; do
			rm -rf "$T/shared"
			mkbundle . sh -c "$CTR"
			brig_bundle_edit "$T/b" '.process.noNewPrivileges = $nnp | .linux.seccomp = $f
				| .hooks.startContainer = [{path: "/bin/sh", args: ["sh", "-c", $h]}]' \
				--argjson nnp "$nnp" --argjson f "$DENY_MKDIR" --arg h "$HOOK"
			if [ "$how" = run ]; then
				br run --bundle "$T/b" c
			else
				"$BRIG" --root "$T/root" create --bundle "$T/b" c >"$T/c.out" 2>"$T/c.err"
				assert_eq "$?" 0 "exit status of create (noNewPrivileges $nnp)"
				br start c
				assert_rc 0
				wait_until 10 is_status c stopped || fail "c did not stop"
				out=$(cat "$T/c.out") err=$(cat "$T/c.err")
			fi
			assert_rc 0
			assert_eq "$out" $'Seccomp:\t2' "seccomp mode of the container ($how, noNewPrivileges $nnp)"
			assert_contains "$err" "Operation not permitted" \
				"mkdir of the container ($how, noNewPrivileges $nnp)"
			assert_eq "$(cat "$T/shared/hook.status" 2>/dev/null)" $'Seccomp:\t2' \
				"seccomp mode of the startContainer hook ($how, noNewPrivileges $nnp)"
			assert_eq "$(cat "$T/shared/bg.status" 2>/dev/null)" $'Seccomp:\t2' \
				"seccomp mode of the hook's child ($how, noNewPrivileges $nnp)"
			# the child did try (else the test proves nothing), and failed
			assert_eq "$(cat "$T/shared/bg.done" 2>/dev/null)" 1 \
				"exit status of the hook child's mkdir ($how, noNewPrivileges $nnp)"
			assert_no_file "$T/shared/made-by-hook"
			assert_no_file "$T/shared/made-by-ctr"
			br delete --force c
		done
	done
	assert_no_containers
}

# ------------------------------------------------------------- keyrings

# 40 bytes, the length of the old truncation (keyring names are global:
# random, so that another run of this file cannot meet this one)
PREFIX=$(printf 'victim-%05d-%027d' "$RANDOM" 0)

# keyring_pair FIRST-ID FIRST-SCRIPT SECOND-ID SECOND-SCRIPT: FIRST runs
# detached; SECOND runs in the foreground once FIRST has written
# /shared/first.ready, and /shared/second.done is made when it is done.
# FIRST's script ends by itself (it waits for second.done, bounded); it
# is deleted.  $rc: SECOND's exit status.
keyring_pair() {
	local r
	mkbundle . sh -c "$2"
	up "$1" || return 1
	wait_until 5 file_exists "$T/shared/first.ready" || fail "$1 did not get ready"
	mkbundle . sh -c "$4"
	br run --bundle "$T/b" "$3"
	r=$rc
	touch "$T/shared/second.done"
	wait_until 10 is_status "$1" stopped || fail "$1 did not stop"
	br delete --force "$1"
	assert_rc 0
	rc=$r
}

# (in a container's script) wait until /shared/second.done, 5 s at most
# shellcheck disable=SC2016
WAIT_SECOND='i=0; while [ ! -e /shared/second.done ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done'

# The victim starts after the attacker, whose id shares its first 40
# bytes, has made its own keyring searchable by name: the victim must not
# join it (and leave its key where the attacker reads it).  Then the other
# way round: the victim, first, made its keyring searchable (runc's
# permissions); the attacker, second, must not join it.
t_keyring_shared_prefix() {
	local a=${PREFIX}a b=${PREFIX}b
	need_keyring_probe
	keyring_pair "$b" "/keyring-probe share && /keyring-probe session >/shared/b.ses
		touch /shared/first.ready; $WAIT_SECOND
		/keyring-probe find victim-key >/shared/b.found" \
		"$a" '/keyring-probe session >/shared/a.ses; /keyring-probe add victim-key "victim secret"
		/keyring-probe find victim-key >/shared/a.found'
	assert_rc 0
	assert_eq "$(cat "$T/shared/a.found")" "FOUND victim secret" "the victim's own key, in the victim"
	assert_eq "$(cat "$T/shared/b.found")" NOTFOUND "the victim's key, from the attacker started first"
	assert_ne "$(cut -d' ' -f1 "$T/shared/a.ses")" "$(cut -d' ' -f1 "$T/shared/b.ses")" \
		"serial of the session keyrings of $a and $b"

	rm -f "$T"/shared/*
	keyring_pair "$a" "/keyring-probe add victim-key 'victim secret' >/dev/null && /keyring-probe share
		/keyring-probe session >/shared/a.ses; touch /shared/first.ready; $WAIT_SECOND" \
		"$b" '/keyring-probe session >/shared/b.ses; /keyring-probe find victim-key >/shared/b.found'
	assert_rc 1
	assert_eq "$(cat "$T/shared/b.found")" NOTFOUND "the victim's key, from the attacker started second"
	assert_ne "$(cut -d' ' -f1 "$T/shared/a.ses")" "$(cut -d' ' -f1 "$T/shared/b.ses")" \
		"serial of the session keyrings of $a and $b"
	assert_empty_dir "$T/root"
}

# Two containers with unrelated ids, one keyring each, both made
# searchable (the most a container can do): neither finds the other's key
# while both run.
t_keyring_unrelated() {
	need_keyring_probe
	# shellcheck disable=SC2016
	keyring_pair "ka-$RANDOM" "/keyring-probe add a-key 'a secret' >/dev/null && /keyring-probe share
		/keyring-probe find a-key >/shared/a.found; /keyring-probe session >/shared/a.ses
		touch /shared/first.ready
		i=0; while [ ! -e /shared/b.added ] && [ \$i -lt 50 ]; do sleep 0.1; i=\$((i + 1)); done
		/keyring-probe find b-key >/shared/a.found-b; $WAIT_SECOND" \
		"kb-$RANDOM" '/keyring-probe add b-key "b secret" && /keyring-probe share
		/keyring-probe session >/shared/b.ses; /keyring-probe find a-key >/shared/b.found
		touch /shared/b.added
		i=0; while [ ! -s /shared/a.found-b ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done'
	assert_rc 0
	assert_eq "$(cat "$T/shared/a.found")" "FOUND a secret" "a's own key, in a"
	assert_eq "$(cat "$T/shared/b.found")" NOTFOUND "a's key, from b"
	assert_eq "$(cat "$T/shared/a.found-b")" NOTFOUND "b's key, from a"
	assert_ne "$(cut -d' ' -f1 "$T/shared/a.ses")" "$(cut -d' ' -f1 "$T/shared/b.ses")" \
		"serial of the session keyrings of a and b"
	assert_empty_dir "$T/root"
}

# The host's session keyring (a new one of this test's, with a key in it:
# brig is started from there) is out of reach of the container's process,
# through run and create + start.
t_keyring_host_run() {
	local key="host-key-$RANDOM" secret="host secret $RANDOM$RANDOM"
	need_keyring_probe
	# the key is really there for whatever inherits the keyring
	run_cmd "$KEYRING_PROBE" new-session "$key" "$secret" "$KEYRING_PROBE" find "$key"
	assert_eq "$out" "FOUND $secret" "the host's key, on the host"

	mkbundle . /keyring-probe find "$key"
	run_cmd "$KEYRING_PROBE" new-session "$key" "$secret" "$BRIG" --root "$T/root" run --bundle "$T/b" c
	assert_eq "$out" NOTFOUND "the host's key, from the container (run)"
	assert_not_contains "$out$err" "$secret" "output of the container"

	mkbundle . sh -c "/keyring-probe find $key >/shared/found"
	run_cmd "$KEYRING_PROBE" new-session "$key" "$secret" "$BRIG" --root "$T/root" create --bundle "$T/b" c
	assert_rc 0
	run_cmd "$KEYRING_PROBE" new-session "$key" "$secret" "$BRIG" --root "$T/root" start c
	assert_rc 0
	wait_until 5 is_status c stopped || fail "c did not stop"
	assert_eq "$(cat "$T/shared/found" 2>/dev/null)" NOTFOUND "the host's key, from the container (create + start)"
	br delete c
	assert_rc 0
	assert_empty_dir "$T/root"
}

# The same through `brig exec` (args, --process, --detach): its process
# becomes a process of the container and must not keep the session keyring
# of whoever ran brig exec.  (18285a8 left it there: FOUND.)
t_keyring_host_exec() {
	local key="host-key-$RANDOM" secret="host secret $RANDOM$RANDOM"
	need_keyring_probe
	mkbundle . sleep 100
	up c || return
	run_cmd "$KEYRING_PROBE" new-session "$key" "$secret" "$BRIG" --root "$T/root" exec c \
		/keyring-probe find "$key"
	assert_eq "$out" NOTFOUND "the host's key, from exec"
	jq -n --arg k "$key" '{args: ["/keyring-probe", "find", $k], cwd: "/", env: ["PATH=/bin"],
		user: {uid: 0, gid: 0}}' >"$T/p.json"
	run_cmd "$KEYRING_PROBE" new-session "$key" "$secret" "$BRIG" --root "$T/root" exec \
		--process "$T/p.json" c
	assert_eq "$out" NOTFOUND "the host's key, from exec --process"
	run_cmd "$KEYRING_PROBE" new-session "$key" "$secret" "$BRIG" --root "$T/root" exec --detach c \
		sh -c "/keyring-probe find $key >/shared/found"
	assert_rc 0
	wait_file "$T/shared/found" || fail "exec --detach wrote nothing"
	assert_eq "$(cat "$T/shared/found" 2>/dev/null)" NOTFOUND "the host's key, from exec --detach"
	br delete --force c
	assert_rc 0
	assert_empty_dir "$T/root"
}

# ------------------------------------------------------- ids with a dot

# cache_listing: what the seccomp cache holds (names and contents).
cache_listing() {
	(cd "$T/root/.seccomp-cache" 2>/dev/null && sha256sum -- * 2>&1) || echo "no cache"
}

# Every command that takes an id refuses ".seccomp-cache" (and any id
# starting with a dot) as a usage error, and the cache, made by a
# container with a filter first, is untouched: on 18285a8 `delete` of that
# id removed it.
t_dot_ids() {
	local before cmd
	mkbundle . true
	brig_bundle_edit "$T/b" '.linux.seccomp = $f' --argjson f "$DENY_MKDIR"
	br run --bundle "$T/b" first
	assert_rc 0
	before=$(cache_listing)
	assert_ne "$before" "no cache" "the seccomp cache after a run with a filter"
	for cmd in "create --bundle $T/b" "run --bundle $T/b" start state kill delete \
		"delete --force" exec ps pause resume "events --stats" "update --pids-limit 10"; do
		if [ "$cmd" = exec ]; then
			# exec fails as runc's exec does: status 255
			br exec .seccomp-cache true
			assert_rc 255
		else
			# shellcheck disable=SC2086
			br $cmd .seccomp-cache
			assert_rc 2
		fi
		assert_contains "$err" 'invalid container id ".seccomp-cache"' "error of $cmd .seccomp-cache"
		if ! assert_eq "$(cache_listing)" "$before" "the seccomp cache after $cmd .seccomp-cache"; then
			# the next command gets a cache to lose again
			br run --bundle "$T/b" first
		fi
	done
	# any id with a leading dot: whatever brig names a file of its own there
	# later is safe too
	delete_at_end .hidden
	br create --bundle "$T/b" .hidden
	assert_rc 2
	assert_contains "$err" 'invalid container id ".hidden"' "error of create .hidden"
	# (a brig that made it: gone before its state is)
	"$BRIG" --root "$T/root" delete --force .hidden >/dev/null 2>&1
	br list --quiet
	assert_eq "$out" "" "containers left"
	assert_eq "$(ls -A "$T/root")" .seccomp-cache "what the state root holds"

	# the same in an empty root: create refuses before it makes anything
	rm -rf "$T/root"
	br create --bundle "$T/b" .seccomp-cache
	assert_rc 2
	assert_contains "$err" 'invalid container id ".seccomp-cache"' "error of create in an empty root"
	assert_empty_dir "$T/root/.seccomp-cache"
	rm -rf "$T/root"
}

tap_test "no process.capabilities: no capability, a host file by handle out of reach" t_caps_missing_run
tap_test "exec --process without capabilities: the container's own sets, not brig's" t_caps_missing_exec
tap_test "startContainer hooks and what they leave run under the container's seccomp filter" t_start_hooks_filtered
tap_test "keyrings: ids sharing their first 40 bytes do not share a session keyring" t_keyring_shared_prefix
tap_test "keyrings: two unrelated containers do not see each other's keys" t_keyring_unrelated
tap_test "keyrings: the host's session keyring is out of reach of the container" t_keyring_host_run
tap_test "keyrings: brig exec does not carry the caller's session keyring into the container" t_keyring_host_exec
tap_test "ids starting with a dot (.seccomp-cache) are refused, the seccomp cache untouched" t_dot_ids
tap_done
