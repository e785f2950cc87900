#!/bin/bash
# process.* and the per-process parts of linux.*: args and the PATH
# lookup, env and HOME, cwd, user, capabilities, noNewPrivileges, rlimits,
# oomScoreAdj, scheduler, ioPriority, personality, execCPUAffinity,
# hostname, domainname, sysctl; and the exec errors.  Each test reads the
# result from inside a busybox container.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"

# One busybox bundle for the whole file, copied into each test's $T
# (making a rootfs costs a process per applet, and jq is not free either).
brig_file_bundle

# ctr_args ARGS-JSON [JQ-FILTER [JQ-ARGS...]]: the same with process.args.
ctr_args() {
	local args=$1 filter=${2:-.}
	shift
	[ $# -gt 0 ] && shift
	brig_bundle_edit "$T/b" ".process.args = \$args | $filter" --argjson args "$args" "$@" ||
		fail "jq $filter"
	brig --root "$T/root" run --bundle "$T/b" "c$RANDOM"
}

# The capability lines of /proc/self/status, and NoNewPrivs.
STATUS_CAPS='grep -E "^(Cap|NoNewPrivs)" /proc/self/status'

# caps_lines INH PRM EFF BND AMB [NNP]: what $STATUS_CAPS prints.
caps_lines() {
	printf 'CapInh:\t%016x\nCapPrm:\t%016x\nCapEff:\t%016x\nCapBnd:\t%016x\nCapAmb:\t%016x' \
		"$1" "$2" "$3" "$4" "$5"
	[ -n "${6:-}" ] && printf '\nNoNewPrivs:\t%s' "$6"
	echo
}

# ------------------------------------------------------------------- args

t_args_path_lookup() {
	bundle || return
	mkdir -p "$T/b/rootfs/opt/tools"
	printf '#!/bin/sh\necho "hello from $0"\n' >"$T/b/rootfs/opt/tools/hello"
	chmod 755 "$T/b/rootfs/opt/tools/hello"
	ctr_args '["hello"]' '.process.env = ["PATH=/opt/tools:/bin"]'
	assert_rc 0
	assert_eq "$out" "hello from /opt/tools/hello" "PATH lookup"
	# the last PATH of env is the one
	ctr_args '["hello"]' '.process.env = ["PATH=/bin", "PATH=/nope:/opt/tools"]'
	assert_rc 0
	assert_eq "$out" "hello from /opt/tools/hello" "the last PATH"
	ctr_args '["hello"]' '.process.env = ["PATH=/bin:/usr/bin"]'
	assert_rc 1
	assert_eq "$out" "" "stdout"
	assert_err_line 'brig: exec: "hello": executable file not found in $PATH'
	# absolute: no lookup
	ctr_args '["/opt/tools/hello"]' '.process.env = ["PATH=/nope"]'
	assert_rc 0
	assert_eq "$out" "hello from /opt/tools/hello" "absolute path"
	ctr_args '["/bin/busybox", "echo", "a  b", ""]'
	assert_rc 0
	assert_eq "$out" "a  b " "arguments passed as they are"
	assert_empty_dir "$T/root"
}

# A process whose env has no PATH: a name without a slash is not found,
# run and exec alike, as runc and crun 1.8.1 fail it (runc: exec: "sh":
# executable file not found in $PATH; crun: executable file `sh` not
# found in $PATH).  Before, brig searched a default PATH and ran /bin/sh.
# A name with a slash still runs.  runc runs the same bundle.
t_args_no_path() {
	local runc rt
	bundle || return
	runc=$(side_runc) || runc=
	for rt in brig ${runc:+runc}; do
		brig_bundle_edit "$T/b" '.process.args = ["sh", "-c", "echo found"]
			| .process.env = ["TERM=xterm"] | .linux.cgroupsPath = $cg' --arg cg "nopath-$rt-$RANDOM"
		if [ "$rt" = brig ]; then
			br run --bundle "$T/b" c1
		else
			run_cmd "$runc" --root "$T/runc" run --bundle "$T/b" r1
			"$runc" --root "$T/runc" delete --force r1 >/dev/null 2>&1
		fi
		assert_ne "$rc" 0 "$rt: sh without a PATH"
		assert_eq "$out" "" "$rt: stdout"
		assert_contains "${err//\\\"/\"}" 'exec: "sh": executable file not found in $PATH' "$rt: the error"
		[ "$rt" = runc ] || assert_err_line 'brig: exec: "sh": executable file not found in $PATH'
	done
	# exec into a container whose env has no PATH: the same
	brig_bundle_edit "$T/b" '.process.args = ["/bin/sleep", "100"]'
	delete_at_end c2
	br run -d --bundle "$T/b" c2
	assert_rc 0 || return
	br exec c2 sh -c 'echo found'
	assert_rc 255
	assert_contains "$err" 'exec: "sh": executable file not found in $PATH' "exec without a PATH"
	br exec c2 /bin/sh -c 'echo found'
	assert_eq "$rc:$out" "0:found" "exec of /bin/sh without a PATH"
	br exec --env PATH=/bin c2 sh -c 'echo found'
	assert_eq "$rc:$out" "0:found" "exec --env PATH=/bin"
}

# ---------------------------------------------------------- env and HOME

t_env_exact() {
	bundle || return
	ctr_args '["env"]' '.process.env = ["PATH=/bin", "FOO=bar baz", "EMPTY=", "A=1=2", "Z=last"]'
	assert_rc 0
	assert_eq "$err" "" "stderr"
	# HOME is added (root's, from /etc/passwd) when the config has none
	assert_eq "$out" $'PATH=/bin\nFOO=bar baz\nEMPTY=\nA=1=2\nZ=last\nHOME=/root' "env"
	# a name given twice: once, with the last value, where it came first
	# (runc sets the variables one by one)
	ctr_args '["env"]' '.process.env = ["PATH=/bin", "A=1", "B=x", "A=2"]'
	assert_rc 0
	assert_eq "$out" $'PATH=/bin\nA=2\nB=x\nHOME=/root' "env with A twice"
	# an entry without "=" is refused, as runc does
	ctr_args '["env"]' '.process.env = ["PATH=/bin", "FOO"]'
	assert_rc 1
	assert_eq "$out" "" "stdout with an entry FOO"
	assert_lines 1 "$err" "stderr with an entry FOO"
	assert_contains "$err" '"FOO"' "stderr with an entry FOO"
	assert_empty_dir "$T/root"
	ctr_args '["env"]' '.process.env = ["HOME=/home/x", "PATH=/bin"]'
	assert_rc 0
	assert_eq "$out" $'HOME=/home/x\nPATH=/bin' "env with a HOME"
	ctr_args '["env"]' '.process.env = ["PATH=/bin"] | .process.user = {"uid": 65534, "gid": 65534}'
	assert_rc 0
	assert_eq "$out" $'PATH=/bin\nHOME=/nonexistent' "env of nobody"
	# no /etc/passwd entry: HOME=/
	ctr_args '["env"]' '.process.env = ["PATH=/bin"] | .process.user = {"uid": 4321, "gid": 4321}'
	assert_rc 0
	assert_eq "$out" $'PATH=/bin\nHOME=/' "env of a uid without an entry"
	assert_empty_dir "$T/root"
}

# ------------------------------------------------------------------- cwd

t_cwd() {
	bundle || return
	ctr 'pwd' '.process.cwd = "/etc"'
	assert_rc 0
	assert_eq "$out" "/etc" "cwd"
	# created when missing, with brig spec's read-only root too
	ctr 'pwd; stat -c %F .' '.process.cwd = "/newdir/sub"'
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$out" $'/newdir/sub\ndirectory' "a missing cwd"
	assert [ -d "$T/b/rootfs/newdir/sub" ]
	ctr 'pwd' '.root.readonly = false | .process.cwd = "/newdir2"'
	assert_rc 0
	assert_eq "$out" "/newdir2" "a missing cwd, writable root"
	assert [ -d "$T/b/rootfs/newdir2" ]
	ctr 'pwd' '.process.cwd = "/etc/passwd"'
	assert_rc 1
	assert_eq "$out" "" "stdout"
	assert_lines 1 "$err" "stderr"
	assert_contains "$err" "/etc/passwd" "stderr"
	assert_contains "$err" "Not a directory" "stderr"
	assert_empty_dir "$T/root"
}

t_cwd_relative() {
	local cmd
	bundle || return
	brig_bundle_edit "$T/b" '.process.cwd = "rel/dir"'
	for cmd in create run; do
		brig --root "$T/root" "$cmd" --bundle "$T/b" c1
		assert_rc 1
		assert_eq "$out" "" "stdout of $cmd"
		assert_err_line "brig: config.json: process.cwd: must be an absolute path"
		assert_empty_dir "$T/root"
	done
	assert_no_file "$T/b/rootfs/rel"
}

# ------------------------------------------------------------------- user

t_user() {
	bundle || return
	ctr 'id; id -G; umask; touch /tmp/f; mkdir /tmp/d; stat -c "%a %u:%g %n" /tmp/f /tmp/d' \
		'.process.user = {"uid": 1000, "gid": 1000, "additionalGids": [10, 20], "umask": 63}
		 | .mounts += [{"destination": "/tmp", "type": "tmpfs", "source": "tmpfs"}]'
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$out" "uid=1000 gid=1000 groups=10,20
1000 10 20
0077
600 1000:1000 /tmp/f
700 1000:1000 /tmp/d" "uid, gid, additionalGids, umask 0077"
	ctr 'id; umask; touch /tmp/f; stat -c %a /tmp/f' \
		'.process.user = {"uid": 1000, "gid": 1000}'
	assert_rc 0
	assert_eq "$out" $'uid=1000 gid=1000\n0022\n644' "no additionalGids, no umask"
	assert_empty_dir "$T/root"
}

# A uid and gid the rootfs knows nothing about: no /etc/passwd, no /etc/group.
t_user_no_passwd() {
	bundle || return
	rm -f "$T/b/rootfs/etc/passwd" "$T/b/rootfs/etc/group"
	ctr 'id; echo "HOME=$HOME"' '.process.user = {"uid": 4321, "gid": 8765, "additionalGids": [9]}'
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$out" $'uid=4321 gid=8765 groups=9\nHOME=/' "id"
	assert_empty_dir "$T/root"
}

# ---------------------------------------------------------- capabilities

t_caps_root() {
	bundle || return
	# brig spec's sets: the ambient ones are dropped (not inheritable)
	ctr "$STATUS_CAPS"
	assert_rc 0
	assert_eq "$out" "$(caps_lines 0 0x20000420 0x20000420 0x20000420 0 1)" "brig spec's capabilities"
	ctr "$STATUS_CAPS" \
		'.process.capabilities = {"bounding": $c, "effective": $c, "permitted": $c, "inheritable": $c}' \
		--argjson c '["CAP_NET_BIND_SERVICE"]'
	assert_rc 0
	assert_eq "$out" "$(caps_lines 0x400 0x400 0x400 0x400 0 1)" "only CAP_NET_BIND_SERVICE"
	ctr "$STATUS_CAPS" \
		'.process.capabilities = {"bounding": ["CAP_CHOWN", "CAP_KILL", "CAP_SYS_ADMIN"], "effective": ["CAP_KILL"], "permitted": ["CAP_KILL", "CAP_CHOWN"]}'
	assert_rc 0
	# a root exec makes effective = permitted (the kernel's rule for uid 0);
	# without noNewPrivileges permitted grows to the bounding set
	assert_eq "$out" "$(caps_lines 0 0x21 0x21 0x200021 0 1)" "different sets"
	ctr "$STATUS_CAPS" '.process.noNewPrivileges = false'
	assert_rc 0
	assert_eq "$out" "$(caps_lines 0 0x200021 0x200021 0x200021 0 0)" "different sets, noNewPrivileges false"
	ctr "$STATUS_CAPS" '.process.capabilities = {} | .process.noNewPrivileges = true'
	assert_rc 0
	assert_eq "$out" "$(caps_lines 0 0 0 0 0 1)" "no capability at all"
	assert_empty_dir "$T/root"
}

# Ambient capabilities make it through the uid switch and the exec.
t_caps_ambient() {
	bundle || return
	ctr "$STATUS_CAPS" \
		'.process.user = {"uid": 1000, "gid": 1000}
		 | .process.capabilities = {"bounding": $c, "effective": $c, "permitted": $c, "inheritable": $c, "ambient": $c}' \
		--argjson c '["CAP_NET_BIND_SERVICE"]'
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$out" "$(caps_lines 0x400 0x400 0x400 0x400 0x400 1)" "with an ambient capability"
	# not ambient: a non-root exec loses it
	ctr "$STATUS_CAPS" '.process.capabilities.ambient = []'
	assert_rc 0
	assert_eq "$out" "$(caps_lines 0x400 0 0 0x400 0 1)" "without the ambient capability"
	assert_empty_dir "$T/root"
}

t_caps_unknown() {
	bundle || return
	ctr "$STATUS_CAPS" \
		'.process.capabilities = {"bounding": $c, "effective": $c, "permitted": $c}' \
		--argjson c '["CAP_NOSUCH", "CAP_NET_BIND_SERVICE"]'
	assert_rc 0
	assert_eq "$out" "$(caps_lines 0 0x400 0x400 0x400 0 1)" "the known capability only"
	assert_empty_dir "$T/root"
}

t_no_new_privs() {
	bundle || return
	ctr 'grep NoNewPrivs /proc/self/status' '.process.noNewPrivileges = true'
	assert_rc 0
	assert_eq "$out" $'NoNewPrivs:\t1' "noNewPrivileges true"
	ctr 'grep NoNewPrivs /proc/self/status' '.process.noNewPrivileges = false'
	assert_rc 0
	assert_eq "$out" $'NoNewPrivs:\t0' "noNewPrivileges false"
	ctr 'grep NoNewPrivs /proc/self/status' 'del(.process.noNewPrivileges)'
	assert_rc 0
	assert_eq "$out" $'NoNewPrivs:\t0' "noNewPrivileges absent"
	assert_empty_dir "$T/root"
}

# --------------------------------------------------------------- rlimits

t_rlimits() {
	local hard
	bundle || return
	ctr 'ulimit -n; ulimit -Hn; grep "open files" /proc/self/limits | tr -s " "' \
		'.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 1024, "hard": 2048}]'
	assert_rc 0
	assert_eq "$out" $'1024\n2048\nMax open files 1024 2048 files ' "RLIMIT_NOFILE 1024/2048"
	ctr 'ulimit -c; ulimit -Hc' \
		'.process.rlimits = [{"type": "RLIMIT_CORE", "soft": 0, "hard": 0}]'
	assert_rc 0
	assert_eq "$out" $'0\n0' "RLIMIT_CORE 0"
	# above the caller's own hard limit: refused without CAP_SYS_RESOURCE
	hard=$(ulimit -Hn)
	if [ "$hard" = unlimited ] || (($(sed -n 's/^CapEff:\t//p' /proc/self/status | sed 's/^/0x/') >> 24 & 1)); then
		skip "the caller may raise RLIMIT_NOFILE (CAP_SYS_RESOURCE or no limit)"
	fi
	ctr 'ulimit -n' '.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": $n, "hard": $n}]' \
		--argjson n "$((hard + 1))"
	assert_rc 1
	assert_eq "$out" "" "stdout"
	assert_err_line 'brig: setrlimit "RLIMIT_NOFILE": Operation not permitted'
	assert_empty_dir "$T/root"
}

t_oom_score_adj() {
	local cur
	bundle || return
	cur=$(cat /proc/self/oom_score_adj)
	[ "$cur" -le 500 ] || skip "oom_score_adj of the caller is above 500"
	ctr 'cat /proc/self/oom_score_adj' '.process.oomScoreAdj = 500'
	assert_rc 0
	assert_eq "$out" 500 "oom_score_adj"
	ctr 'cat /proc/self/oom_score_adj' 'del(.process.oomScoreAdj)'
	assert_rc 0
	assert_eq "$out" "$cur" "oom_score_adj left alone"
	# below the current value needs CAP_SYS_RESOURCE, which this machine's
	# bounding set does not have
	if (($(sed -n 's/^CapBnd:\t//p' /proc/self/status | sed 's/^/0x/') >> 24 & 1)); then
		skip "the caller has CAP_SYS_RESOURCE: lowering oom_score_adj is allowed"
	fi
	ctr 'cat /proc/self/oom_score_adj' '.process.oomScoreAdj = $n' --argjson n "$((cur - 500))"
	assert_rc 1
	assert_eq "$out" "" "stdout"
	assert_err_line "brig: set oom_score_adj to $((cur - 500)): write \"/proc/1/oom_score_adj\": Permission denied"
	assert_empty_dir "$T/root"
}

# --------------------------------------------------- scheduling and such

t_scheduler() {
	bundle || return
	ctr 'sed -n "s/^policy *: *//p" /proc/self/sched; awk "{ print \$19 }" /proc/self/stat' \
		'.process.scheduler = {"policy": "SCHED_BATCH", "nice": 5}'
	assert_rc 0
	assert_eq "$err" "" "stderr"
	# SCHED_BATCH is policy 3; field 19 of stat is the nice value
	assert_eq "$out" $'3\n5' "policy and nice"
	ctr 'sed -n "s/^policy *: *//p" /proc/self/sched' \
		'.process.scheduler = {"policy": "SCHED_IDLE"}'
	assert_rc 0
	assert_eq "$out" 5 "SCHED_IDLE"
	assert_empty_dir "$T/root"
}

t_io_priority() {
	bundle || return
	[ -e "$BUNDLE_TPL/rootfs/bin/ionice" ] || skip "this busybox has no ionice applet"
	ctr 'ionice -p $$' '.process.ioPriority = {"class": "IOPRIO_CLASS_BE", "priority": 6}'
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$out" "best-effort: prio 6" "ionice"
	ctr 'ionice -p $$' '.process.ioPriority = {"class": "IOPRIO_CLASS_IDLE"}'
	assert_rc 0
	assert_eq "$out" "idle" "ionice"
	assert_empty_dir "$T/root"
}

t_personality() {
	bundle || return
	[ "$(uname -m)" = x86_64 ] || skip "LINUX32 is checked on x86_64 only"
	ctr 'uname -m' '.linux.personality = {"domain": "LINUX32"}'
	assert_rc 0
	assert_eq "$out" "i686" "uname -m with LINUX32"
	ctr 'uname -m' '.linux.personality = {"domain": "LINUX"}'
	assert_rc 0
	assert_eq "$out" "x86_64" "uname -m with LINUX"
	assert_empty_dir "$T/root"
}

t_cpu_affinity() {
	bundle || return
	ctr 'grep Cpus_allowed_list /proc/self/status' \
		'.process.execCPUAffinity = {"initial": "0", "final": "0"}'
	assert_rc 0
	assert_eq "$out" $'Cpus_allowed_list:\t0' "initial 0, final 0"
	ctr 'grep Cpus_allowed_list /proc/self/status' \
		'.process.execCPUAffinity = {"initial": "0"}'
	assert_rc 0
	assert_eq "$out" $'Cpus_allowed_list:\t0' "initial 0"
	[ "$(nproc)" -ge 2 ] || skip "one CPU: initial and final cannot differ"
	ctr 'grep Cpus_allowed_list /proc/self/status' \
		'.process.execCPUAffinity = {"initial": "0", "final": "1"}'
	assert_rc 0
	assert_eq "$out" $'Cpus_allowed_list:\t1' "initial 0, final 1"
	assert_empty_dir "$T/root"
}

t_hostname_domainname() {
	bundle || return
	ctr 'hostname; cat /proc/sys/kernel/hostname /proc/sys/kernel/domainname' \
		'.hostname = "box" | .domainname = "example.org"'
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$out" $'box\nbox\nexample.org' "hostname and domainname"
	assert_ne "$(hostname)" box "the host's hostname"
	assert_empty_dir "$T/root"
}

t_sysctl() {
	local host
	bundle || return
	host=$(cat /proc/sys/kernel/shmmax)
	ctr 'cat /proc/sys/kernel/shmmax /proc/sys/kernel/msgmax' \
		'.linux.sysctl = {"kernel.shmmax": "123456789", "kernel.msgmax": "4321"}'
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$out" $'123456789\n4321' "sysctl in the container's ipc namespace"
	assert_eq "$(cat /proc/sys/kernel/shmmax)" "$host" "the host's kernel.shmmax"
	# the host's ipc namespace: refused before anything runs
	ctr 'cat /proc/sys/kernel/shmmax' \
		'.linux.namespaces |= map(select(.type != "ipc"))'
	assert_rc 1
	assert_eq "$out" "" "stdout"
	assert_err_line 'brig: config.json: linux.sysctl["kernel.shmmax"]: requires a new ipc namespace'
	assert_eq "$(cat /proc/sys/kernel/shmmax)" "$host" "the host's kernel.shmmax"
	assert_empty_dir "$T/root"
}

# kernel.hostname in linux.sysctl, with a uts namespace: refused, as runc
# refuses it (it is the hostname field's), in runc's words; before, brig
# set it.  kernel.domainname is allowed, as runc allows it (Docker sets
# the NIS domain that way).  runc runs the same bundles side by side.
t_sysctl_hostname() {
	local runc rt
	bundle || return
	runc=$(side_runc) || runc=
	for rt in brig ${runc:+runc}; do
		brig_bundle_edit "$T/b" '.process.args = ["sh", "-c", "hostname; cat /proc/sys/kernel/domainname"]
			| .hostname = "box" | .linux.sysctl = {"kernel.hostname": "other"}
			| .linux.cgroupsPath = $cg' --arg cg "sysctl-$rt-$RANDOM"
		if [ "$rt" = brig ]; then
			br run --bundle "$T/b" c1
		else
			run_cmd "$runc" --root "$T/runc" run --bundle "$T/b" r1
		fi
		assert_ne "$rc" 0 "$rt: kernel.hostname in linux.sysctl"
		# (runc's log escapes the quotes)
		assert_contains "${err//\\\"/\"}" \
			'sysctl "kernel.hostname" is not allowed as it conflicts with the OCI "hostname" field' \
			"$rt: the error"
		[ "$rt" = brig ] && assert_err_line 'brig: config.json: linux.sysctl: sysctl "kernel.hostname" is not allowed as it conflicts with the OCI "hostname" field'
		brig_bundle_edit "$T/b" '.linux.sysctl = {"kernel.domainname": "example.org"}'
		if [ "$rt" = brig ]; then
			br run --bundle "$T/b" c1
		else
			run_cmd "$runc" --root "$T/runc" run --bundle "$T/b" r1
			"$runc" --root "$T/runc" delete --force r1 >/dev/null 2>&1
		fi
		assert_eq "$rc:$out" $'0:box\nexample.org' "$rt: kernel.domainname in linux.sysctl"
	done
	assert_empty_dir "$T/root"
}

# ------------------------------------------------------------ exec errors

# The exec errors of runc (Go's exec.LookPath): one line, exit 1, no
# container left, for run and create alike.
t_exec_errors() {
	local cmd args want
	bundle || return
	chmod 644 "$T/b/rootfs/etc/passwd"
	while IFS='|' read -r args want; do
		[ -n "$args" ] || continue
		brig_bundle_edit "$T/b" '.process.args = $a' --argjson a "$args"
		for cmd in run create; do
			brig --root "$T/root" "$cmd" --bundle "$T/b" c1
			assert_rc 1
			assert_eq "$out" "" "stdout of $cmd $args"
			assert_err_line "$want"
			assert_empty_dir "$T/root"
		done
	done <<-'EOF'
		["nosuch"]|brig: exec: "nosuch": executable file not found in $PATH
		["/etc/passwd"]|brig: exec: "/etc/passwd": permission denied
		["/etc"]|brig: exec: "/etc": is a directory
		["/nosuch"]|brig: exec: "/nosuch": stat /nosuch: no such file or directory
		["etc"]|brig: exec: "etc": executable file not found in $PATH
	EOF
}

tap_test "args: PATH lookup from env, absolute paths" t_args_path_lookup
tap_test "env is passed exactly, HOME from /etc/passwd" t_env_exact
tap_test "cwd is used, and created when missing" t_cwd
tap_test "a relative cwd is refused by the parser" t_cwd_relative
tap_test "user: uid, gid, additionalGids, umask" t_user
tap_test "a uid without an /etc/passwd entry" t_user_no_passwd
tap_test "capabilities of a root process" t_caps_root
tap_test "ambient capabilities of a non-root process" t_caps_ambient
tap_test "an unknown capability is skipped" t_caps_unknown
tap_test "noNewPrivileges" t_no_new_privs
tap_test "rlimits, and one above the caller's hard limit" t_rlimits
tap_test "oomScoreAdj, and one below the current value" t_oom_score_adj
tap_test "scheduler: SCHED_BATCH with nice 5" t_scheduler
tap_test "ioPriority" t_io_priority
tap_test "personality LINUX32" t_personality
tap_test "execCPUAffinity initial and final" t_cpu_affinity
tap_test "hostname and domainname" t_hostname_domainname
tap_test "a process with no PATH: sh is not found, as runc and crun" t_args_no_path
tap_test "kernel.hostname in linux.sysctl is refused, kernel.domainname set, as runc does" t_sysctl_hostname
tap_test "sysctl in the container's ipc namespace" t_sysctl
tap_test "exec errors: not found, not executable, a directory" t_exec_errors
tap_done
