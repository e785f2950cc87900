#!/bin/bash
# OCI hooks (runtime-spec 1.3): each of the six stages runs at its point of
# the lifecycle, in the namespaces and with the view of the filesystem the
# spec gives it, with the state on stdin and its args and env exactly; a
# timeout kills the hook; and the failure of each stage has its own
# consequence: create/run abort and leave nothing, a failing poststart
# fails start/run and kills the container, a failing poststop is a warning.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"

# One busybox rootfs for the whole file; containers write only to /shared,
# which is each test's $T/shared.
brig_file_rootfs
HOSTBIN=$(dirname "$ROOTFS")/hostbin
BUSYBOX=$(brig_busybox) || {
	echo "Bail out! no static busybox"
	exit 1
}

# rec.sh DIR NAME MARKER: what a hook sees, into DIR/NAME.*: the state
# from stdin, its namespaces, its argv and environment as exec'd (read
# from /proc by the shell's own pid as that /proc numbers it), whether the
# host file MARKER is visible, the network namespace of the pid in the
# state, and NAME appended to DIR/order.  Runs under dash on the host and
# busybox sh in the container.
REC='#!/bin/sh
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
d=$1 n=$2
read -r me _ </proc/self/stat
cat >"$d/$n.state"
for ns in mnt net pid uts; do readlink "/proc/self/ns/$ns"; done >"$d/$n.ns"
tr "\0" "\n" <"/proc/$me/cmdline" >"$d/$n.argv"
tr "\0" "\n" <"/proc/$me/environ" >"$d/$n.env"
if [ -e "$3" ]; then echo visible; else echo hidden; fi >"$d/$n.view"
p=$(sed -n "s/.*\"pid\":\([0-9]*\).*/\1/p" "$d/$n.state")
[ -z "$p" ] || readlink "/proc/$p/ns/net" >"$d/$n.pidnet"
echo "$n" >>"$d/order"
'
mkdir -p "$HOSTBIN" "$ROOTFS/hooks-only" &&
	printf '%s' "$REC" >"$HOSTBIN/rec.sh" &&
	printf '%s' "$REC" >"$ROOTFS/rec.sh" &&
	ln -s "$BUSYBOX" "$HOSTBIN/false" &&
	ln -s "$BUSYBOX" "$HOSTBIN/true" &&
	ln -s ../bin/busybox "$ROOTFS/hooks-only/sh" || {
	echo "Bail out! cannot write the hook scripts"
	exit 1
}

# --------------------------------------------------------------- helpers

# hooks_bundle HOOKS CMD [ARGS...]: the bundle $T/b of mkbundle
# (tests/lib/rootfs.sh: CMD ARGS on the shared rootfs, $T/shared at
# /shared) with one annotation and .hooks = HOOKS (JSON).
hooks_bundle() {
	local hooks=$1
	shift
	mkbundle '.annotations = {"org.brig.test": "hooks"} | .hooks = '"$hooks" "$@"
}

# rec_hook NAME: the host recorder as a hook: argv[0] "hook-NAME", env
# with a space in a value.
rec_hook() {
	jq -nc --arg n "$1" --arg rec "$HOSTBIN/rec.sh" --arg d "$T/shared" --arg m "$T/marker" \
		'{path: "/bin/sh", args: ["hook-" + $n, $rec, $d, $n, $m],
		  env: ["STAGE=" + $n, "SPACE=a b"]}'
}

# The recorder inside the container, from a path only the container has.
rec_hook_in_container() {
	jq -nc --arg m "$T/marker" \
		'{path: "/hooks-only/sh", args: ["sh", "/rec.sh", "/shared", "startContainer", $m],
		  env: ["STAGE=startContainer"]}'
}

# sh_hook SCRIPT [TIMEOUT]: /bin/sh -c SCRIPT (with $0 = $T/shared).
sh_hook() {
	jq -nc --arg s "$1" --arg d "$T/shared" --argjson t "${2:-null}" \
		'{path: "/bin/sh", args: ["sh", "-c", $s, $d]} + (if $t then {timeout: $t} else {} end)'
}

# The same in the container (busybox sh).
ctr_sh_hook() {
	jq -nc --arg s "$1" --argjson t "${2:-null}" \
		'{path: "/bin/sh", args: ["sh", "-c", $s, "/shared"]} + (if $t then {timeout: $t} else {} end)'
}

# hooks STAGE JSON [STAGE JSON...]: a hooks object, one hook per pair
# (a stage named twice gets both, in order).
hooks() {
	local h='{}'
	while [ $# -ge 2 ]; do
		h=$(jq -c --arg s "$1" --argjson k "$2" '.[$s] += [$k]' <<<"$h")
		shift 2
	done
	echo "$h"
}

# The namespaces of this test (brig's own, the runtime namespace).
host_ns() {
	local ns
	for ns in mnt net pid uts; do readlink "/proc/self/ns/$ns"; done
}

# ---------------------------------------------------------------- stages

# Every stage once, through create/start/delete or run: the order, the
# namespaces, the view of the filesystem, the state, argv and env.
t_stages() { # create|run
	local h pid stage want_status
	touch "$T/marker"
	h=$(hooks prestart "$(rec_hook prestart)" createRuntime "$(rec_hook createRuntime)" \
		createContainer "$(rec_hook createContainer)" \
		startContainer "$(rec_hook_in_container)" \
		poststart "$(rec_hook poststart)" poststop "$(rec_hook poststop)")
	# the container lives until poststart has looked at it
	hooks_bundle "$h" sh -c 'for ns in mnt net pid uts; do readlink /proc/self/ns/$ns; done >/shared/ctr.ns
i=0; until grep -q poststart /shared/order || [ $i -gt 100 ]; do sleep 0.05; i=$((i+1)); done'
	delete_at_end c1
	if [ "$1" = create ]; then
		br create --bundle "$T/b" c1
		assert_rc 0
		assert_eq "$out$err" "" "output of create"
		pid=$(state_field c1 pid)
		assert_eq "$(cat "$T/shared/order")" "$(printf '%s\n' prestart createRuntime createContainer)" \
			"hooks run by create"
		br start c1
		assert_rc 0
		assert_eq "$out$err" "" "output of start"
		wait_until 5 is_status c1 stopped || fail "still $(state_field c1 status)"
		br delete c1
		assert_rc 0
		assert_eq "$out$err" "" "output of delete"
	else
		br run --bundle "$T/b" c1
		assert_rc 0
		assert_eq "$out$err" "" "output of run"
		pid=$(jq -r .pid "$T/shared/prestart.state")
	fi
	assert_empty_dir "$T/root"
	assert_eq "$(cat "$T/shared/order")" "$(printf '%s\n' prestart createRuntime createContainer \
		startContainer poststart poststop)" "every stage, in the lifecycle's order"
	assert_match "$pid" '^[1-9][0-9]*$' "pid" || return
	assert_file "$T/shared/ctr.ns" || return

	for stage in prestart createRuntime createContainer startContainer poststart poststop; do
		case $stage in
		prestart | createRuntime | createContainer) want_status=creating ;;
		startContainer) want_status=created ;;
		poststart) want_status=running ;;
		poststop) want_status=stopped ;;
		esac
		assert_json "$(cat "$T/shared/$stage.state")" "$stage state" || continue
		assert_eq "$(jq -c '[.ociVersion, .id, .status, .bundle, .annotations]' \
			"$T/shared/$stage.state")" \
			"$(jq -nc --arg s "$want_status" --arg b "$T/b" \
				'["1.3.0", "c1", $s, $b, {"org.brig.test": "hooks"}]')" "$stage state"
		if [ $stage = poststop ]; then
			assert_eq "$(jq -r .pid "$T/shared/$stage.state")" null "$stage: no pid once stopped"
		else
			assert_eq "$(jq -r .pid "$T/shared/$stage.state")" "$pid" "$stage: the init's pid"
		fi
	done

	# prestart, createRuntime, poststart and poststop: brig's namespaces,
	# the host's files; the pid in their state is the container's
	for stage in prestart createRuntime poststart poststop; do
		assert_eq "$(cat "$T/shared/$stage.ns")" "$(host_ns)" "$stage namespaces"
		assert_eq "$(cat "$T/shared/$stage.view")" visible "$stage sees the host"
	done
	for stage in prestart createRuntime createContainer poststart; do
		assert_eq "$(cat "$T/shared/$stage.pidnet")" "$(sed -n 2p "$T/shared/ctr.ns")" \
			"$stage: /proc/<pid>/ns/net is the container's"
	done
	# createContainer: the container's namespaces, before pivot_root (the
	# host's files); startContainer: after it, from a path only the
	# container has
	for stage in createContainer startContainer; do
		assert_eq "$(cat "$T/shared/$stage.ns")" "$(cat "$T/shared/ctr.ns")" "$stage namespaces"
	done
	assert_ne "$(sed -n 1p "$T/shared/createContainer.ns")" "$(host_ns | sed -n 1p)" \
		"createContainer mount namespace"
	assert_eq "$(cat "$T/shared/createContainer.view")" visible "createContainer sees the host"
	assert_eq "$(cat "$T/shared/startContainer.view")" hidden "startContainer is in the rootfs"

	# argv and environment, exactly
	for stage in prestart createRuntime createContainer poststart poststop; do
		assert_eq "$(cat "$T/shared/$stage.argv")" \
			"$(printf '%s\n' "hook-$stage" "$HOSTBIN/rec.sh" "$T/shared" "$stage" "$T/marker")" \
			"$stage argv"
		assert_eq "$(cat "$T/shared/$stage.env")" "$(printf '%s\n' "STAGE=$stage" "SPACE=a b")" \
			"$stage environment"
	done
	assert_eq "$(cat "$T/shared/startContainer.argv")" \
		"$(printf '%s\n' sh /rec.sh /shared startContainer "$T/marker")" "startContainer argv"
	assert_eq "$(cat "$T/shared/startContainer.env")" "STAGE=startContainer" \
		"startContainer environment"
}

# Without args, argv[0] is the path (busybox picks its applet from it);
# without env, the environment is empty.
t_no_args() {
	hooks_bundle "$(hooks createRuntime "{\"path\": \"$HOSTBIN/true\"}" \
		poststop "$(sh_hook 'tr "\0" "\n" </proc/$$/environ >$0/env; echo done >$0/ran')")" true
	run_cmd env -i A=1 B="b c" "$BRIG" --root "$T/root" run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$(cat "$T/shared/ran" 2>/dev/null)" "done" "poststop ran"
	assert_eq "$(cat "$T/shared/env")" $'A=1\nB=b c' "environment without env: brig's"
	hooks_bundle "$(hooks createRuntime "{\"path\": \"$HOSTBIN/false\"}")" true
	br run --bundle "$T/b" c1
	assert_rc 1
	assert_err_line "brig: error running hook: createRuntime hook #0 \"$HOSTBIN/false\": exited with status 1"
	assert_empty_dir "$T/root"
}

# Hooks of a stage run one after the other, in order.
t_order() {
	hooks_bundle "$(hooks createRuntime "$(sh_hook 'sleep 0.1; echo 1 >>$0/order')" \
		createRuntime "$(sh_hook 'echo 2 >>$0/order')" \
		createRuntime "$(sh_hook 'echo 3 >>$0/order')")" true
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$(cat "$T/shared/order")" "$(printf '%s\n' 1 2 3)" "order"
}

# No fd of brig's, nor of brig's caller, reaches a hook: stdin, stdout,
# stderr and the directory the shell lists.
t_no_fds() {
	local s='read -r me _ </proc/self/stat; n=$1; set -- /proc/$me/fd/*; echo $# >$0/$n.nfds'
	hooks_bundle "$(hooks createRuntime "$(jq -c '.args += ["createRuntime"]' <<<"$(sh_hook "$s")")" \
		createContainer "$(jq -c '.args += ["createContainer"]' <<<"$(sh_hook "$s")")" \
		startContainer "$(jq -c '.args += ["startContainer"]' <<<"$(ctr_sh_hook "$s")")" \
		poststart "$(jq -c '.args += ["poststart"]' <<<"$(sh_hook "$s")")" \
		poststop "$(jq -c '.args += ["poststop"]' <<<"$(sh_hook "$s")")")" true
	run_cmd bash -c 'exec 7</dev/null 8>/dev/null; exec "$@"' bash \
		"$BRIG" --root "$T/root" run --bundle "$T/b" c1
	assert_rc 0
	for stage in createRuntime createContainer startContainer poststart poststop; do
		assert_eq "$(cat "$T/shared/$stage.nfds" 2>/dev/null)" 4 "fds of the $stage hook"
	done
}

# A state larger than a pipe holds: a hook reading all of it gets all of
# it, one ignoring it does not hang brig (nor kill it with SIGPIPE).
t_big_state() {
	head -c 300000 /dev/zero | tr '\0' x >"$T/big"
	hooks_bundle "$(hooks prestart "$(sh_hook 'exec 0<&-; sleep 0.2')" \
		createRuntime "$(sh_hook 'exit 0')" \
		createContainer "$(sh_hook 'cat >$0/cc.state')" \
		poststop "$(sh_hook 'cat >$0/poststop.state')")" true
	brig_bundle_edit "$T/b" '.annotations.big = $big' --rawfile big "$T/big" ||
		fail "cannot add the annotation" || return
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$(jq -r '.annotations.big | length' "$T/shared/cc.state")" 300000 \
		"createContainer state"
	assert_eq "$(jq -r '.annotations.big | length' "$T/shared/poststop.state")" 300000 \
		"poststop state"
	assert_empty_dir "$T/root"
}

# A hook may ask brig about the container: start and run hold no lock
# while poststart runs, delete none while poststop does.
t_hooks_query_brig() { # create|run
	local q="\"\$0/../brig\" --root \"\$0/../root\" state c1 >\"\$0/\$1.json\""
	hooks_bundle "$(hooks poststart "$(jq -c '.args += ["poststart"]' <<<"$(sh_hook "$q" 5)")" \
		poststop "$(jq -c '.args += ["poststop"]' <<<"$(sh_hook "$q" 5)")")" sleep 100
	ln -s "$BRIG" "$T/brig"
	delete_at_end c1
	if [ "$1" = create ]; then
		br create --bundle "$T/b" c1
		assert_rc 0
		br start c1
	else
		br run --detach --bundle "$T/b" c1
	fi
	assert_rc 0
	assert_eq "$(jq -r .status "$T/shared/poststart.json")" running "brig state from poststart"
	br delete --force c1
	assert_rc 0
	assert_eq "$(cat "$T/shared/poststop.json" 2>/dev/null)" "" \
		"brig state from poststop: the container is gone"
	assert_empty_dir "$T/root"
}

# ---------------------------------------------------------------- failures

# A timeout kills the hook and fails the stage, naming it.
t_timeout() { # STAGE create|run
	local t0 t1 h
	if [ "$1" = startContainer ]; then
		h=$(ctr_sh_hook 'exec sleep 30' 1)
	else
		h=$(sh_hook 'exec sleep 30' 1)
	fi
	hooks_bundle "$(hooks "$1" "$h")" sleep 100
	delete_at_end c1
	t0=$(date +%s%N)
	br "$2" --bundle "$T/b" c1
	t1=$(date +%s%N)
	assert_ne "$rc" 0 "exit status"
	assert_contains "$err" "$1 hook #0 \"/bin/sh\": timed out after 1s" "stderr"
	[ $(((t1 - t0) / 1000000)) -lt 5000 ] || fail "took $(((t1 - t0) / 1000000)) ms"
	assert_empty_dir "$T/root"
}

# A failing prestart, createRuntime or createContainer hook: create and
# run fail with its error, nothing is left behind (no state, no process,
# no mount: tap.sh checks the last two after every test), and the
# container having existed, its poststop hooks run.
t_create_hook_fails() { # STAGE create|run
	hooks_bundle "$(hooks "$1" "$(sh_hook 'echo oops >&2; exit 3')" \
		poststop "$(sh_hook 'cat >$0/poststop.state')")" sleep 100
	delete_at_end c1
	br "$2" --bundle "$T/b" c1
	assert_rc 1
	assert_err_line "brig: error running hook: $1 hook #0 \"/bin/sh\": exited with status 3, stderr: oops"
	assert_empty_dir "$T/root"
	assert_eq "$(jq -r .status "$T/shared/poststop.state" 2>/dev/null)" stopped "poststop ran"
}

# assert_hook_envs SUFFIX STAGE...: what the hook of each STAGE of
# t_hook_env_inherited wrote ($T/shared/STAGE.env) is the environment it
# is to get there: brig's own (HOOKTEST, PATH), the process's in the
# container (startContainer), or its own "env" (empty, own).  SUFFIX ends
# each assertion's name.
assert_hook_envs() {
	local suffix=$1 s want
	shift
	for s in "$@"; do
		want="inherited|/brig/path:$PATH"
		[ "$s" = empty ] && want="unset"
		[ "$s" = own ] && want=own
		[ "$s" = startContainer ] && want="unset|$(jq -r '.process.env[] | select(startswith("PATH="))[5:]' "$T/b/config.json")"
		assert_eq "$(cat "$T/shared/$s.env" 2>/dev/null)" "$want" "$s$suffix"
	done
}

# A hook without "env" gets the runtime's own environment (runc's hooks
# are Go exec.Cmds with a nil Env; crun's too): hooks written for them
# find their helpers on its PATH.  In the container (createContainer,
# startContainer) it is the process's environment, as runc's init has
# set it by then: the host's never reaches a program of the container.
# One with "env" gets exactly that, an empty one too.  runc runs the same
# bundle.
t_hook_env_inherited() {
	local s runc env_of='printf "%s|%s\n" "${HOOKTEST-unset}" "$PATH" >"$0/$1.env"'
	local h='{}' stages='prestart createRuntime poststart poststop'
	for s in $stages; do
		h=$(jq -c --arg s "$s" --argjson k "$(sh_hook "$env_of")" \
			'.[$s] += [$k | .args += [$s]]' <<<"$h")
	done
	# in the container, once /shared is there
	h=$(jq -c --argjson k "$(ctr_sh_hook "$env_of")" \
		'.startContainer += [$k | .args += ["startContainer"]]' <<<"$h")
	# and two with an env of their own: one empty, one not (sh sets a
	# PATH of its own when there is none)
	h=$(jq -c --argjson e "$(sh_hook 'echo "${HOOKTEST-unset}" >"$0/$1.env"')" \
		'.prestart += [($e | .args += ["empty"] | .env = []),
		               ($e | .args += ["own"] | .env = ["HOOKTEST=own"])]' <<<"$h")
	hooks_bundle "$h" true
	run_cmd env -i HOOKTEST=inherited PATH="/brig/path:$PATH" "$BRIG" --root "$T/root" \
		run --bundle "$T/b" c1
	assert_rc 0
	assert_hook_envs "" $stages startContainer empty own
	assert_empty_dir "$T/root"
	runc=$(side_runc) || return 0
	rm -f "$T"/shared/*.env
	brig_bundle_edit "$T/b" '.linux.cgroupsPath = $cg' --arg cg "runc-$RANDOM"
	run_cmd env -i HOOKTEST=inherited PATH="/brig/path:$PATH" "$runc" --root "$T/runc" \
		run --bundle "$T/b" "r$RANDOM"
	assert_rc 0
	assert_hook_envs " under runc ($runc)" prestart createRuntime poststart startContainer empty own
}

# startContainer hooks run under the container's seccomp filter (runc's
# order), and brig watches them from there: a profile older than
# pidfd_open (the OCI runtime tools' generated one: ENOSYS) or one that
# denies it (EPERM) must not fail them.  brig said "pidfd_open: Function
# not implemented"; runc runs the same bundle.  The hook's timeout still
# holds without a pidfd.
t_start_container_no_pidfd() {
	local errno runc sc
	for errno in 38 1; do
		sc=$(jq -nc --argjson e "$errno" '{defaultAction: "SCMP_ACT_ALLOW",
			syscalls: [{names: ["pidfd_open"], action: "SCMP_ACT_ERRNO", errnoRet: $e}]}')
		hooks_bundle "$(hooks startContainer "$(ctr_sh_hook 'echo ran >$0/start')")" true
		brig_bundle_edit "$T/b" '.linux.seccomp = $sc' --argjson sc "$sc"
		rm -f "$T/shared/start"
		br run --bundle "$T/b" c1
		assert_rc 0
		assert_eq "$err" "" "stderr (pidfd_open: errno $errno)"
		assert_eq "$(cat "$T/shared/start" 2>/dev/null)" ran "the hook ran (errno $errno)"
		if runc=$(side_runc); then
			rm -f "$T/shared/start"
			brig_bundle_edit "$T/b" '.linux.cgroupsPath = $cg' --arg cg "runc-$RANDOM"
			run_cmd "$runc" --root "$T/runc" run --bundle "$T/b" "r$RANDOM"
			assert_rc 0
			assert_eq "$(cat "$T/shared/start" 2>/dev/null)" ran "runc: the hook ran (errno $errno)"
		fi
	done
	hooks_bundle "$(hooks startContainer "$(ctr_sh_hook 'exec sleep 30' 1)")" true
	brig_bundle_edit "$T/b" '.linux.seccomp = $sc' --argjson sc "$sc"
	br run --bundle "$T/b" c2
	assert_rc 1
	assert_err_line 'brig: error running hook: startContainer hook #0 "/bin/sh": timed out after 1s'
	# (the compiled filters stay in the cache, by design)
	assert_eq "$(ls "$T/root")" "" "containers left"
}

# A failing startContainer hook: the init exits non-zero before the
# container's process runs.  start (or run) fails with the hook's reason,
# so that the caller knows; after a start the container's stderr has the
# line too (an engine's log of the container).  runc 1.1.5's start exits 0
# here: the issue asks for a status a caller can see.
t_start_container_fails() { # create|run
	local ctr_err
	hooks_bundle "$(hooks startContainer "$(ctr_sh_hook 'echo nope >&2; exit 4')" \
		poststart "$(sh_hook 'echo ran >$0/poststart')")" sh -c 'echo process ran >/shared/ran'
	delete_at_end c1
	if [ "$1" = create ]; then
		"$BRIG" --root "$T/root" create --bundle "$T/b" c1 2>"$T/cerr"
		assert_eq "$?" 0 "exit status of create"
		br start c1
		assert_rc 1
		assert_err_line "brig: error running hook: startContainer hook #0 \"/bin/sh\": exited with status 4, stderr: nope"
		# (the init closed its fds on its way out: it may not be dead yet)
		wait_until 5 is_status c1 stopped || fail "still $(state_field c1 status)"
		ctr_err=$(cat "$T/cerr")
		br delete c1
		assert_rc 0
	else
		br run --bundle "$T/b" c1
		assert_ne "$rc" 0 "exit status of run"
		ctr_err=$err
	fi
	assert_eq "$ctr_err" "brig: error running hook: startContainer hook #0 \"/bin/sh\": exited with status 4, stderr: nope" \
		"the container's stderr"
	assert_no_file "$T/shared/ran"
	assert_no_file "$T/shared/poststart"
	assert_empty_dir "$T/root"
}

# A failing poststart hook fails start and run: the container is killed
# and deleted (its poststop hooks run), as runc and crun do.
t_poststart_fails() { # create|run|run-detach
	local pid runc
	# (the hook waits for the process to have done something)
	hooks_bundle "$(hooks poststart "$(sh_hook 'until [ -e $0/ran ]; do sleep 0.05; done
echo nope >&2; exit 5' 5)" \
		poststop "$(sh_hook 'cat >$0/poststop.state')")" sh -c 'touch /shared/ran; sleep 100'
	delete_at_end c1
	case $1 in
	create)
		br create --bundle "$T/b" c1
		assert_rc 0
		pid=$(state_field c1 pid)
		br start c1
		;;
	run) br run --bundle "$T/b" c1 ;;
	run-detach) br run --detach --bundle "$T/b" c1 ;;
	esac
	assert_rc 1
	assert_err_line "brig: error running hook: poststart hook #0 \"/bin/sh\": exited with status 5, stderr: nope"
	assert_file "$T/shared/ran"
	if [ "$1" = create ]; then
		! alive "$pid" || fail "the container's process is alive"
		# deleted, as runc and crun do: it does not exist any more
		br state c1
		assert_rc 1
		assert_err_line 'brig: container "c1" does not exist'
	fi
	assert_eq "$(jq -r .status "$T/shared/poststop.state" 2>/dev/null)" stopped "poststop ran"
	assert_empty_dir "$T/root"
	[ "$1" = create ] || return 0
	# runc 1.1.5 on the same bundle runs poststart at create already (a bug
	# of its own, fixed in 1.2) and fails create; either way the container
	# is gone afterwards
	runc=$(side_runc) || return 0
	rm -f "$T/shared/ran"
	brig_bundle_edit "$T/b" '.linux.cgroupsPath = $cg' --arg cg "runc-$RANDOM"
	run_cmd "$runc" --root "$T/runc" create --bundle "$T/b" r1
	[ "$rc" = 0 ] && run_cmd "$runc" --root "$T/runc" start r1
	assert_rc 1
	run_cmd "$runc" --root "$T/runc" state r1
	assert_rc 1
	assert_match "$err" 'container does not exist' "runc state afterwards"
}

# A failing poststop hook is a warning; the others still run; delete
# succeeds.
t_poststop_warns() {
	hooks_bundle "$(hooks poststop "$(sh_hook 'echo first >>$0/order')" \
		poststop "$(sh_hook 'echo bad >&2; exit 2')" \
		poststop "$(sh_hook 'echo third >>$0/order')" \
		poststop "$(sh_hook 'exec sleep 30' 1)" \
		poststop "$(sh_hook 'echo fifth >>$0/order')")" true
	br create --bundle "$T/b" c1
	assert_rc 0
	delete_at_end c1
	br delete c1
	assert_rc 0
	assert_eq "$out" "" "stdout of delete"
	assert_lines 2 "$err" "stderr of delete"
	assert_contains "$(sed -n 1p <<<"$err")" \
		'level=warning msg="error running hook: poststop hook #1 \"/bin/sh\": exited with status 2, stderr: bad"'
	assert_contains "$(sed -n 2p <<<"$err")" \
		'level=warning msg="error running hook: poststop hook #3 \"/bin/sh\": timed out after 1s"'
	assert_eq "$(cat "$T/shared/order")" "$(printf '%s\n' first third fifth)" "poststop hooks run"
	assert_empty_dir "$T/root"
}

t_features() {
	brig features
	assert_rc 0
	assert_eq "$(jq -c .hooks <<<"$out")" \
		'["prestart","createRuntime","createContainer","startContainer","poststart","poststop"]'
}

tap_test "every stage: create, start, delete" t_stages create
tap_test "every stage: run" t_stages run
tap_test "no args: argv[0] is the path; no env: brig's" t_no_args
tap_test "hooks of a stage run in order" t_order
tap_test "hooks get stdio and no other fd" t_no_fds
tap_test "a state larger than a pipe" t_big_state
tap_test "hooks may call brig: start" t_hooks_query_brig create
tap_test "hooks may call brig: run" t_hooks_query_brig run
for stage in prestart createRuntime createContainer startContainer poststart; do
	tap_test "$stage timeout (run)" t_timeout "$stage" run
done
for stage in prestart createRuntime createContainer; do
	tap_test "$stage timeout (create)" t_timeout "$stage" create
	for mode in create run; do
		tap_test "failing $stage hook: $mode fails, nothing left" t_create_hook_fails "$stage" "$mode"
	done
done
tap_test "a hook without env inherits brig's environment, as runc's" t_hook_env_inherited
tap_test "startContainer hooks under a filter that denies pidfd_open, as runc's" t_start_container_no_pidfd
tap_test "failing startContainer hook: create + start" t_start_container_fails create
tap_test "failing startContainer hook: run" t_start_container_fails run
tap_test "failing poststart hook fails start, kills and deletes the container" t_poststart_fails create
tap_test "failing poststart hook fails run" t_poststart_fails run
tap_test "failing poststart hook fails run --detach" t_poststart_fails run-detach
tap_test "failing poststop hook: a warning, the rest run" t_poststop_warns
# createContainer hooks run with the rootfs as their working directory, as
# runc's do (hooks written for runc use paths relative to it); runc runs
# the same bundle side by side where it is installed.
t_create_container_cwd() {
	local runc want
	hooks_bundle "$(hooks createContainer "$(sh_hook 'pwd >"$0/cwd.brig"')")" true
	want=$(cd "$ROOTFS" && pwd -P)
	br run --bundle "$T/b" c1
	assert_rc 0
	assert_eq "$(cat "$T/shared/cwd.brig" 2>/dev/null)" "$want" "the hook's cwd under brig"
	runc=$(side_runc) || return 0
	# a relative cgroupsPath: nested under the caller's, as brig's
	brig_bundle_edit "$T/b" '.linux.cgroupsPath = $cg | .hooks = $h' --arg cg "runc-$RANDOM" \
		--argjson h "$(hooks createContainer "$(sh_hook 'pwd >"$0/cwd.runc"')")"
	run_cmd "$runc" --root "$T/runc" run --bundle "$T/b" r1
	assert_rc 0
	assert_eq "$(cat "$T/shared/cwd.runc" 2>/dev/null)" "$want" "the hook's cwd under runc"
}

tap_test "createContainer hooks run in the rootfs, as runc's" t_create_container_cwd
tap_test "features lists the six stages" t_features
tap_done
