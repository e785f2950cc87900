#!/bin/bash
# shellcheck disable=SC2317 # (functions called through tap_test, which shellcheck cannot see)
# The conformance layer: brig against runc on the configs the world's
# generators write (tests/conformance/corpus, made by generate.sh: runc
# spec, crun spec, ctr oci spec, containerd with its seccomp profile, the
# CRI's pod container, Podman, the OCI runtime tools; rootless variants).
#
# For each corpus entry, one test: the config is made runnable here (the
# edits, each with its reason, are in normalise.jq), then run with
# brig and with runc on the same bundle path, a fresh copy each, with the
# same container id and cgroupsPath.  Its process is the static probe
# tests/conformance/probe (probe.c), which prints what the process sees:
# capabilities, seccomp, ids and maps, rlimits, hostname, env, cwd, umask,
# the answers to clone3/faccessat2/openat2/close_range/syscall 1000 and a
# few more, namespaces, fds, keyring, mountinfo, cgroups and their
# limits, /dev, sysctls, lo's state (flags, a connect() to 127.0.0.1
# and ::1).  Each run also has hooks of every stage, which write the
# environment they get (see add_hooks): "hook.STAGE.env:" lines.  The two
# outputs must be the same, but for the lines that
# tests/conformance/allow-list lets differ, each for a reason written
# there (a difference brig makes on purpose).  The test prints the
# differences left, "brig: LINE" / "runc: LINE".  Both runs must also
# exit 0 and print nothing on stderr.
#
# A config that runc cannot run fails its test too: normalise() has to
# make every corpus entry runnable here.  The one exception is a failure
# of runc that the allow-list names ("run: failed: exit N: MESSAGE", a
# bug of runc 1.1.5 with its reason): the test says so, and compares
# brig's output with runc's on the edit runc_instead names.
#
# Variants (VARIANTS): a few corpus entries again with one edit each,
# NAME@KEY=VALUE: runc-spec and podman with each rootfsPropagation of the
# spec, with a device rule whose access has letters outside "rwm"
# (deviceAccess=rwa, rwma), and with linux.sysctl kernel.domainname.
# And tests of their own, each under both runtimes but the last:
#   poststart        a failing poststart hook fails start, and the
#                    container does not exist afterwards
#                    (t_poststart_fails)
#   exec:NAME        every corpus entry: the process of `exec` and of
#   exec-t:NAME      `exec -d` (exec:), of `exec -t` (exec-t:) leads its
#                    own session and process group (t_exec_session)
#   sysctl:NAME      kernel.hostname in linux.sysctl is refused, nothing
#                    left (t_sysctl_hostname)
#   netdev:NAME      brig alone (runc 1.1.5 ignores the key):
#                    linux.netDevices move into the container and back,
#                    in a network namespace of the test's (t_netdevices)
#
# A new generator, or a new version of one: run generate.sh (see its
# header); its new files are tested from then on.
# shellcheck source-path=SCRIPTDIR source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

CONF=$BRIG_SRCDIR/tests/conformance
ALLOW=$CONF/allow-list

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"
RUNC=$(side_runc) || skip_all "needs runc to compare with (not installed, or BRIG_VM=1)"
[ -x "$BRIG" ] || {
	echo "Bail out! no brig binary at $BRIG"
	exit 1
}
# The probe runs inside busybox: static.  As `make check` built it, or
# built here.
PROBE=$(static_helper conformance/probe) || skip_all "needs a static tests/conformance/probe (gcc -static)"
# A probe built before probe.c last changed would not print what the
# layer compares now: built here instead.
if [ "$CONF/probe.c" -nt "$PROBE" ]; then
	PROBE=$_tap_state/probe
	gcc -std=gnu11 -static -O2 -o "$PROBE" "$CONF/probe.c" ||
		skip_all "needs a static tests/conformance/probe (gcc -static)"
fi
brig_file_rootfs

# The container's root of a config with a user namespace (and no usable
# mapping of its own) is this host id, as in tests/integration/78-userns.sh.
HOSTID=100000

# ------------------------------------------------------------ this host

# The names of capabilities 0-40, to tell which ones we have.
CAP_NAMES=(CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID
	SETPCAP LINUX_IMMUTABLE NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW
	IPC_LOCK IPC_OWNER SYS_MODULE SYS_RAWIO SYS_CHROOT SYS_PTRACE SYS_PACCT
	SYS_ADMIN SYS_BOOT SYS_NICE SYS_RESOURCE SYS_TIME SYS_TTY_CONFIG MKNOD LEASE
	AUDIT_WRITE AUDIT_CONTROL SETFCAP MAC_OVERRIDE MAC_ADMIN SYSLOG WAKE_ALARM
	BLOCK_SUSPEND AUDIT_READ PERFMON BPF CHECKPOINT_RESTORE)

# our_caps: a JSON array of the capabilities in our bounding set.
our_caps() {
	local bnd i
	bnd=$((16#$(awk '/^CapBnd:/ { print $2 }' /proc/self/status)))
	for i in "${!CAP_NAMES[@]}"; do
		if (((bnd >> i) & 1)); then
			echo "CAP_${CAP_NAMES[i]}"
		fi
	done | jq -R . | jq -sc .
}

# our_hard_limits: {"RLIMIT_X": hard (null: unlimited)}, of this shell.
our_hard_limits() {
	prlimit --pid $$ --raw --noheadings --output RESOURCE,HARD |
		awk '{ printf "%s\t%s\n", "RLIMIT_" $1, ($2 == "unlimited" || $2 == "-1") ? "null" : $2 }' |
		jq -Rn '[inputs | split("\t") | {(.[0]): (.[1] | fromjson)}] | add'
}

OUR_CAPS=$(our_caps)
HAVE_SYS_RESOURCE=$(jq -r 'index("CAP_SYS_RESOURCE") != null' <<<"$OUR_CAPS")
OUR_LIMITS=$(our_hard_limits)
OUR_OOM=$(cat /proc/self/oom_score_adj)

# ------------------------------------------------------------ the bundle

# normalise NAME CGPATH: corpus/NAME.json made runnable here, on stdout:
# the edits of normalise.jq, each with its reason there.
normalise() {
	jq --arg cg "$2" --argjson caps "$OUR_CAPS" --argjson limits "$OUR_LIMITS" \
		--argjson sysres "$HAVE_SYS_RESOURCE" --argjson oom "$OUR_OOM" \
		--argjson hostid "$HOSTID" -f "$CONF/normalise.jq" "$CONF/corpus/$1.json"
}

# standins CONFIG DIR [UID:GID]: bind mount sources of CONFIG that do not
# exist here (the engine's per-container files: /etc/hosts, hostname,
# resolv.conf, .containerenv, the pod's /dev/shm) replaced by empty ones
# made in DIR (a file for a destination under /etc, /run/.containerenv
# and /dev/termination-log, a directory else), owned by UID:GID; the
# config with them on stdout.
standins() {
	local config=$1 dir=$2 owner=${3:-0:0} map='{}' src dst i=0
	mkdir -p "$dir" || return 1
	while IFS=$'\t' read -r src dst; do
		[ -e "$src" ] && continue
		i=$((i + 1))
		case $dst in
		/etc/* | /run/.containerenv | /dev/termination-log) : >"$dir/$i" ;;
		*) mkdir -p "$dir/$i" ;;
		esac
		chown "$owner" "$dir/$i"
		map=$(jq -c --arg s "$src" --arg n "$dir/$i" '. + {($s): $n}' <<<"$map")
	done < <(jq -r '.mounts[]? | select(.type == "bind" or ((.options // []) | index("bind") or index("rbind")))
		| select(.source | startswith("/")) | [.source, .destination] | @tsv' "$config")
	jq --argjson m "$map" '.mounts |= map(if $m[.source] then .source = $m[.source] else . end)' "$config"
}

# root_of CONFIG: "UID:GID" on the host of the container's root (0:0
# without a user namespace).
root_of() {
	jq -r '[(.linux.uidMappings // [] | map(select(.containerID == 0))[0].hostID // 0),
		(.linux.gidMappings // [] | map(select(.containerID == 0))[0].hostID // 0)] | "\(.[0]):\(.[1])"' "$1"
}

# bundle CONFIG OWNER: $T/b, a fresh bundle of CONFIG, the busybox rootfs
# with the probe at /probe and the mount point of the hooks' directory
# (HOOKDIR, below), owned by OWNER (the container's root).
bundle() {
	rm -rf "$T/b" && mkdir -p "$T/b" &&
		cp -a "$ROOTFS" "$T/b/rootfs" &&
		cp "$PROBE" "$T/b/rootfs/probe" &&
		mkdir "$T/b/rootfs$HOOKDIR" &&
		cp "$1" "$T/b/config.json" || return 1
	if [ "$2" != 0:0 ]; then
		chown -hR "$2" "$T/b/rootfs" || return 1
	fi
}

# run_rt NAME CMD...: CMD with stdin, stdout and stderr each a pipe (the
# probe reports its fds: a file name would differ; and runc in the
# foreground hands the container pipes of its own, which it copies from
# and to its stdio, where brig passes its stdio as it is: with pipes
# both look the same), stdout into $T/NAME.out, stderr $T/NAME.err, the
# status in $T/NAME.rc.
run_rt() {
	local name=$1
	shift
	: | { { timeout -k 5 "${TAP_TIMEOUT:-60}" "$@" 2>&1 1>&3 3>&-
		echo $? >"$T/$name.rc"; } | cat >"$T/$name.err"; } 3>&1 | cat >"$T/$name.out"
}

# tidy FILE: what differs between two runs for a reason the probe cannot
# see, replaced: $T (the bundle's path in bind mount roots) by <T>, the
# caller's cgroup in each hierarchy (in /proc/self/cgroup and in the roots
# of cgroup mounts) by <caller>, our cgroupsPath by <cg>.
tidy() {
	local line path args=(-e "s|$T|<T>|g")
	while IFS= read -r line; do
		# N:CONTROLLERS:PATH
		path=${line#*:}
		path=${path#*:}
		[ "$path" = / ] && continue
		args+=(-e "s|^cgroup: ${line%:*}:$path/|cgroup: ${line%:*}:<caller>/|"
			-e "s|^\(mount: .* cgroup2\{0,1\} root=\)$path/|\1<caller>/|")
	done </proc/self/cgroup
	args+=(-e "s|$CGNAME|<cg>|g")
	sed "${args[@]}" "$1"
}

# ------------------------------------------------------------ hooks

# Each run has hooks of its own (normalise.jq drops the corpus's, which
# are programs of the generating machine): each writes the environment
# it was given (its /proc/self/environ, sorted) to NAME.env in a directory
# of $T, bind mounted at HOOKDIR in the container:
#   prestart, createRuntime, poststart, poststop
#                    no env: the runtime's own environment (RUN_ENV)
#   prestart-empty   "env": []: none at all
#   prestart-own     an env of its own: exactly that
#   createContainer  no env, in the container's namespaces before its
#                    pivot_root: the container process's, as runc's init
#                    has set it by then
#   startContainer   no env, in the container: the same, HOME too
# The runtimes run under `env -i RUN_ENV`, fixed values: the runtime's
# environment is the same for both, but for what a runtime would add or
# drop.  The files become "hook.NAME.env: VAR=VALUE" lines of the
# output, compared like the probe's.
HOOKDIR=/hookenv
RUN_ENV=(PATH=/usr/sbin:/usr/bin:/sbin:/bin:/conformance/bin BRIG_CONFORMANCE=runtime-env)
HOOKS=(prestart prestart-empty prestart-own createRuntime createContainer startContainer
	poststart poststop)
# /proc/self/environ opened by the shell itself (a forked opener would be
# gone by the time tr reads, and the mm with it); /proc/$$ would name
# another process in the host's /proc, which createContainer still sees.
# (dash, the host's sh, and busybox sh look commands up in a default PATH
# when there is none in the environment.)
# shellcheck disable=SC2016 # (for sh -c)
HOOK_SH='exec </proc/self/environ && tr "\0" "\n" | sort >"$0/$1.env"'

# add_hooks DIR: the config on stdin with those hooks, writing to DIR (a
# host directory) and, in the container, to HOOKDIR, DIR bind mounted.
add_hooks() {
	jq --arg dir "$1" --arg in "$HOOKDIR" --arg sh "$HOOK_SH" '
		def hook($d; $n): {path: "/bin/sh", args: ["sh", "-c", $sh, $d, $n]};
		.mounts += [{destination: $in, type: "bind", source: $dir, options: ["rbind", "rw"]}]
		| .hooks = {
			prestart: [hook($dir; "prestart"),
				(hook($dir; "prestart-empty") | .env = []),
				(hook($dir; "prestart-own") | .env = ["HOOK_OWN=own", "HOOK_TWO=a b"])],
			createRuntime: [hook($dir; "createRuntime")],
			createContainer: [hook($dir; "createContainer")],
			startContainer: [hook($in; "startContainer")],
			poststart: [hook($dir; "poststart")],
			poststop: [hook($dir; "poststop")]
		}'
}

# hook_lines DIR: what the hooks wrote to DIR, as lines of the output.
hook_lines() {
	local h line
	for h in "${HOOKS[@]}"; do
		if [ ! -f "$1/$h.env" ]; then
			echo "hook.$h.env: (did not run)"
		elif [ ! -s "$1/$h.env" ]; then
			echo "hook.$h.env: (empty)"
		else
			while IFS= read -r line; do
				echo "hook.$h.env: $line"
			done <"$1/$h.env"
		fi
	done
}

# ------------------------------------------------------------ variants

# A variant NAME@KEY=VALUE is the corpus entry NAME with one more edit
# after normalise.jq, named by KEY:
#   rootfsPropagation=V   .linux.rootfsPropagation = V
# Every value of the spec's rootfsPropagation, on two entries that
# differ in their mounts: runc's own spec and Podman's config (which
# have no rootfsPropagation of their own).  Every entry again with each
# value would double the time of the layer for little more.
PROPAGATIONS=(private rprivate slave rslave shared rshared unbindable runbindable)
VARIANTS=()
for base in runc-spec podman; do
	for p in "${PROPAGATIONS[@]}"; do
		VARIANTS+=("$base@rootfsPropagation=$p")
	done
done
#   deviceAccess=LETTERS  one device rule more in linux.resources.devices,
#                         allowing c 10:229 (fuse, which no default rule
#                         allows) with access LETTERS
# Access letters outside "rwm": runc 1.1.5 ignores the ones it does not
# know ("rwa" allows rw) and runs the container; brig does the same (a
# runtime that refused the config would fail the test, one that kept
# more or fewer letters differs in cg.devices/devices.list on a cgroup v1
# host).  An "a" after "rw", and one between "rwm" and nothing else.
for base in runc-spec podman; do
	for a in rwa rwma; do
		VARIANTS+=("$base@deviceAccess=$a")
	done
done
#   domainname=NAME       linux.sysctl["kernel.domainname"] = NAME (and
#                         the probe reads it back)
# runc 1.1.5 refuses kernel.hostname in linux.sysctl (it is the hostname
# field's; t_sysctl_hostname) but takes kernel.domainname and writes it
# in the container's uts namespace; brig does the same (Docker sets the
# NIS domain through it).
for base in runc-spec podman; do
	VARIANTS+=("$base@domainname=conformance")
done

# variant_edit KEY=VALUE: the config on stdin with that edit (none for an
# empty argument).
variant_edit() {
	case $1 in
	'') cat ;;
	rootfsPropagation=*) jq --arg v "${1#*=}" '.linux.rootfsPropagation = $v' ;;
	domainname=*)
		jq --arg v "${1#*=}" '.linux.sysctl["kernel.domainname"] = $v
			| .process.args += ["sysctl:kernel.domainname"]'
		;;
	deviceAccess=*)
		jq --arg v "${1#*=}" '.linux.resources.devices = ((.linux.resources.devices // [])
			+ [{allow: true, type: "c", major: 10, minor: 229, access: $v}])'
		;;
	*)
		echo "run.sh: unknown variant $1" >&2
		return 1
		;;
	esac
}

# runc_instead KEY=VALUE: the edit runc runs in place of KEY=VALUE when it
# fails a variant and the allow-list lets it fail ("run: failed: ..."):
# brig's output is then compared with runc's of that edit (the
# allow-list says what may differ between the two).  Nothing: brig's
# output cannot be compared with anything of runc's.
#   unbindable, runbindable: runc 1.1.5 makes the host's "/" unbindable
#   before it binds the rootfs, and fails create (EINVAL); runc >= 1.2
#   gives the value to the container's root at the end, as brig does.
#   Against private (rprivate) only the propagation of "/" (of every
#   mount) differs.
runc_instead() {
	case $1 in
	rootfsPropagation=unbindable) echo rootfsPropagation=private ;;
	rootfsPropagation=runbindable) echo rootfsPropagation=rprivate ;;
	esac
}

# ------------------------------------------------------------ allow-list

# allowed NAME LINE: an allow-list entry lets LINE ("key: value", as the
# probe printed it) differ for corpus entry NAME.  An entry is
#   GLOB  REGEXP  # REASON
# (GLOB matches the corpus name, REGEXP, an ERE without blanks or "#",
# the line); comment lines start with "#".  Each entry used is counted in $_tap_state/used.
allowed() {
	local name=$1 text=$2 entry glob re rest
	while IFS= read -r entry; do
		entry=${entry%%#*}
		read -r glob re rest <<<"$entry"
		[ -n "$glob" ] || continue
		# shellcheck disable=SC2053
		[[ $name == $glob ]] || continue
		if [[ $text =~ $re ]]; then
			echo "$glob $re" >>"$_tap_state/used"
			return 0
		fi
	done <"$ALLOW"
	return 1
}

# ------------------------------------------------------------ the test

# config NAME EDIT: $T/config.json, corpus entry NAME normalised, with the
# variant's EDIT and the hooks, and the bind mount stand-ins; OWNER set
# to the container's root.
config() {
	# (made before the stand-ins, which replace missing sources)
	[ -d "$T/hooks" ] || mkdir -m 0777 "$T/hooks" || return 1
	normalise "$1" "$CGNAME" | variant_edit "$2" | add_hooks "$T/hooks" >"$T/normalised.json" ||
		return 1
	OWNER=$(root_of "$T/normalised.json")
	# The container's root, when it is not the host's, reaches the
	# bundle, the stand-ins and the hooks' directory through $T.
	[ "$OWNER" = 0:0 ] || chmod 0711 "$T"
	standins "$T/normalised.json" "$T/binds" "$OWNER" >"$T/config.json"
}

# run_one RT: $T/config.json run with RT (brig or runc) in a fresh
# bundle, under `env -i RUN_ENV`; $T/RT.probe: the probe's output and the
# hooks' lines, tidied; $T/RT.status: "ok", or "failed: exit N: STDERR"
# on one line (runc's log prefix dropped), tidied too.
run_one() {
	local rt=$1
	bundle "$T/config.json" "$OWNER" || {
		fail "cannot make the bundle for $rt"
		return 1
	}
	if ! rm -rf "$T/hooks" || ! mkdir -m 0777 "$T/hooks"; then
		fail "cannot make $T/hooks"
		return 1
	fi
	if [ "$rt" = brig ]; then
		run_rt brig env -i "${RUN_ENV[@]}" "$BRIG" --root "$T/root" run --bundle "$T/b" "$CGNAME"
	else
		run_rt runc env -i "${RUN_ENV[@]}" "$RUNC" --root "$T/runc-root" run --bundle "$T/b" "$CGNAME"
		# runc 1.1.5 on a hybrid host makes its cgroup2 directory
		# from the root of the unified hierarchy, not under ours.
		rmdir "/sys/fs/cgroup/unified/$CGNAME" 2>/dev/null
	fi
	hook_lines "$T/hooks" >>"$T/$rt.out"
	if [ "$(cat "$T/$rt.rc")" = 0 ] && [ ! -s "$T/$rt.err" ]; then
		echo ok
	else
		printf 'failed: exit %s: %s\n' "$(cat "$T/$rt.rc")" \
			"$(sed 's/^time="[^"]*" level=[a-z]* msg="\(.*\)"$/\1/' "$T/$rt.err" | paste -sd ' ')"
	fi >"$T/$rt.status.raw"
	if ! tidy "$T/$rt.status.raw" >"$T/$rt.status" || ! tidy "$T/$rt.out" >"$T/$rt.probe"; then
		fail "cannot tidy the output of $rt"
		return 1
	fi
}

# The corpus entry (or variant) NAME under both runtimes: brig must run
# it; runc too, unless the allow-list lets runc's "run: failed: ..." be
# (then runc runs runc_instead's edit, see there); the outputs must be the
# same but for the lines the allow-list lets differ.
t_conformance() {
	local name=$1 base=${1%%@*} edit='' instead diffs left line missing
	[[ $name == *@* ]] && edit=${name#*@}
	# a container id and cgroup name: no "@" or "="
	CGNAME=conf-$$-$base${edit:+-${edit#*=}}
	config "$base" "$edit" || {
		fail "cannot make the config of $name (normalise.jq, the variant, the hooks, the stand-ins)"
		return
	}

	run_one brig || return
	run_one runc || return
	if [ "$(cat "$T/brig.status")" != ok ]; then
		fail "brig run: $(cat "$T/brig.status")" "(runc run: $(cat "$T/runc.status"))"
		return
	fi
	if [ "$(cat "$T/runc.status")" != ok ]; then
		if ! allowed "$name" "run: $(cat "$T/runc.status")"; then
			fail "runc run: $(cat "$T/runc.status")"
		else
			instead=$(runc_instead "$edit")
			diag "runc cannot run $name, as the allow-list expects: $(cat "$T/runc.status")"
			if [ -z "$instead" ]; then
				diag "brig's output has nothing of runc's to be compared with"
				grep -q '^status\.CapEff: ' "$T/brig.probe" || fail "no output of the probe under brig"
				return
			fi
			diag "brig's output is compared with runc's on $base@$instead"
			config "$base" "$instead" || {
				fail "cannot make the config of $base@$instead"
				return
			}
			run_one runc || return
			[ "$(cat "$T/runc.status")" = ok ] || fail "runc run of $base@$instead: $(cat "$T/runc.status")"
		fi
	fi
	if ! grep -q '^status\.CapEff: ' "$T/brig.probe" || ! grep -q '^status\.CapEff: ' "$T/runc.probe"; then
		fail "no output of the probe to compare"
		return
	fi
	# (the same under both would pass: a hook of the test that does not
	# work here is a failure of its own)
	missing=$(grep -h '(did not run)$' "$T/brig.probe" "$T/runc.probe" | sort -u)
	[ -z "$missing" ] || fail "hooks of the test that did not run:"$'\n'"$missing"

	diffs=$(diff --unchanged-line-format= --old-line-format='brig: %L' \
		--new-line-format='runc: %L' "$T/brig.probe" "$T/runc.probe")
	left=
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		allowed "$name" "${line#*: }" && continue
		left+="$line"$'\n'
	done <<<"$diffs"
	if [ -n "$left" ]; then
		fail "brig and runc differ on tests/conformance/corpus/$base.json (normalised by normalise.jq${edit:+, with $edit}; CONFORMANCE_KEEP=DIR keeps the config and both outputs):"$'\n'"$left"
	fi
	# Kept for a look by hand: CONFORMANCE_KEEP=DIR.
	if [ -n "${CONFORMANCE_KEEP:-}" ]; then
		mkdir -p "$CONFORMANCE_KEEP" &&
			cp "$T/config.json" "$CONFORMANCE_KEEP/$name.config.json" &&
			cp "$T/brig.probe" "$CONFORMANCE_KEEP/$name.brig" &&
			cp "$T/runc.probe" "$CONFORMANCE_KEEP/$name.runc"
	fi
}

# A failing poststart hook fails start, and the container is deleted
# afterwards (runc, crun; brig since issue 21): `state` says it does not
# exist, under each runtime, and nothing is left (the state under --root;
# processes and cgroups: tap.sh checks).  runc 1.1.5 runs poststart
# hooks already at create (a bug of its own, fixed in runc 1.2): there
# create fails, and start then finds nothing; the container does not
# exist afterwards there either.  The container's process sleeps: a
# runtime that did not kill it would leave it behind.
t_poststart_fails() {
	local rt id=conf-$$-poststart
	CGNAME=$id
	normalise runc-spec "$CGNAME" |
		jq '.process.args = ["sleep", "60"] | .hooks = {poststart: [{path: "/bin/false", args: ["false"]}]}' \
			>"$T/config.json" || {
		fail "cannot make the config"
		return
	}
	for rt in brig runc; do
		local cmd=("$BRIG" --root "$T/root")
		[ "$rt" = runc ] && cmd=("$RUNC" --root "$T/runc-root")
		defer "${cmd[@]}" delete --force "$id"
		bundle "$T/config.json" 0:0 || {
			fail "cannot make the bundle for $rt"
			return
		}
		run_cmd "${cmd[@]}" create --bundle "$T/b" "$id"
		[ "$rt" = runc ] || assert_eq "$rc" 0 "brig create: exit status (stderr: $err)"
		if [ "$rc" = 0 ]; then
			run_cmd "${cmd[@]}" start "$id"
			assert_ne "$rc" 0 "$rt start: exit status with a failing poststart hook"
		elif [ "$rt" = runc ]; then
			assert_contains "$err" "error running hook" "runc create: stderr"
			diag "runc create failed already (runc 1.1.5 runs poststart at create): $err"
		fi
		run_cmd "${cmd[@]}" state "$id"
		assert_ne "$rc" 0 "$rt state afterwards: exit status (stdout: $out)"
		if [ "$rt" = brig ]; then
			assert_eq "$err" "brig: container \"$id\" does not exist" "brig state afterwards: stderr"
			assert_empty_dir "$T/root"
		else
			assert_contains "$err" "does not exist" "runc state afterwards: stderr"
			assert_empty_dir "$T/runc-root"
			rmdir "/sys/fs/cgroup/unified/$CGNAME" 2>/dev/null
		fi
	done
}

# rt_cmd RT: CMD, the command line of runtime RT (brig or runc) with its
# state root under $T.
rt_cmd() {
	if [ "$1" = brig ]; then
		CMD=("$BRIG" --root "$T/root")
	else
		CMD=("$RUNC" --root "$T/runc-root")
	fi
}

# rt_gone RT ID: ID does not exist under RT afterwards, and RT left
# nothing under its state root (processes and cgroups: tap.sh checks).
rt_gone() {
	local left
	rt_cmd "$1"
	run_cmd "${CMD[@]}" state "$2"
	assert_ne "$rc" 0 "$1 state afterwards: exit status (stdout: $out)"
	assert_contains "$err" "does not exist" "$1 state afterwards: stderr"
	if [ "$1" = brig ]; then
		# (but for the compiled seccomp filters that brig keeps for the
		# next container, .seccomp-cache)
		left=$(find "$T/root" -mindepth 1 -maxdepth 1 ! -name .seccomp-cache 2>/dev/null)
		assert_eq "$left" "" "brig's state root afterwards"
	else
		assert_empty_dir "$T/runc-root"
		# (runc 1.1.5's cgroup2 directory on a hybrid host, see run_one)
		rmdir "/sys/fs/cgroup/unified/$CGNAME" 2>/dev/null
	fi
}

# The process of `exec` leads a session and a process group of its own,
# with or without a terminal: runc's nsexec calls setsid() for every
# process it starts, the exec'd one too, and so does brig (issue 32;
# tests/integration/77-exec.sh).  Seen from inside, its pid, its process
# group and its session (fields 5 and 6 of /proc/PID/stat) are the same
# number.  For corpus entry NAME, under each runtime: the container runs
# `sleep` (run --detach), `exec` runs a shell that prints the three
# (MODE notty: in the foreground without a terminal, then detached, exec
# -d, through a file in a directory of $T bind mounted at HOOKDIR; MODE
# tty: with a terminal, exec -t on the pty of script(1)), then the
# container is deleted and nothing is left.
t_exec_session() {
	local name=$1 mode=$2 rt id want line
	id=conf-$$-$name-exec
	CGNAME=$id
	# (made before the stand-ins, which replace missing sources)
	mkdir -m 0777 "$T/shared" || {
		fail "cannot make $T/shared"
		return
	}
	normalise "$name" "$CGNAME" |
		jq --arg dir "$T/shared" --arg in "$HOOKDIR" '.process.args = ["/bin/sleep", "100"]
			| .mounts += [{destination: $in, type: "bind", source: $dir, options: ["rbind", "rw"]}]' \
			>"$T/normalised.json" || {
		fail "cannot make the config"
		return
	}
	OWNER=$(root_of "$T/normalised.json")
	[ "$OWNER" = 0:0 ] || chmod 0711 "$T"
	standins "$T/normalised.json" "$T/binds" "$OWNER" >"$T/config.json" || {
		fail "cannot make the stand-ins"
		return
	}
	# pid, then the fields pgrp and session of /proc/PID/stat
	# shellcheck disable=SC2016 # (for sh -c, in the container)
	local show='echo $$ $(cut -d" " -f5,6 /proc/$$/stat)'
	for rt in brig runc; do
		rt_cmd "$rt"
		defer "${CMD[@]}" delete --force "$id"
		bundle "$T/config.json" "$OWNER" || {
			fail "cannot make the bundle for $rt"
			return
		}
		rm -f "$T/shared/sid"
		run_cmd env -i "${RUN_ENV[@]}" "${CMD[@]}" run --detach --bundle "$T/b" "$id"
		assert_eq "$rc" 0 "$rt run --detach: exit status (stderr: $err)"
		[ "$rc" = 0 ] || continue
		if [ "$mode" = tty ]; then
			# exec -t, on the pty of script(1) (as in 77-exec.sh)
			printf -v line '%q ' "${CMD[@]}" exec -t "$id" /bin/sh -c "$show"
			[ -p "$T/tty-in" ] || mkfifo "$T/tty-in"
			timeout -k 5 "${TAP_TIMEOUT:-60}" script -qfec "$line" /dev/null \
				9<>"$T/tty-in" <"$T/tty-in" >"$T/tty-out" 2>"$T/tty-err"
			rc=$?
			out=$(tr -d '\r' <"$T/tty-out")
			assert_eq "$rc" 0 "$rt exec -t: exit status (its output, the pty's: $out; stderr: $(cat "$T/tty-err"))"
			want=$(awk '{ print $1, $1, $1 }' <<<"$out")
			assert_match "$out" '^[0-9]+ [0-9]+ [0-9]+$' "$rt exec -t: pid, process group, session"
			assert_eq "$out" "$want" "$rt exec -t: pid, process group, session"
		else
			run_cmd "${CMD[@]}" exec "$id" /bin/sh -c "$show"
			assert_eq "$rc" 0 "$rt exec: exit status (stderr: $err)"
			want=$(awk '{ print $1, $1, $1 }' <<<"$out")
			assert_match "$out" '^[0-9]+ [0-9]+ [0-9]+$' "$rt exec: pid, process group, session"
			assert_eq "$out" "$want" "$rt exec without a terminal: pid, process group, session"
			run_cmd "${CMD[@]}" exec -d "$id" /bin/sh -c \
				"$show >$HOOKDIR/sid.tmp && mv $HOOKDIR/sid.tmp $HOOKDIR/sid"
			assert_eq "$rc" 0 "$rt exec -d: exit status (stderr: $err)"
			wait_for "$T/shared/sid" 50 || fail "$rt exec -d: wrote nothing"
			out=$(cat "$T/shared/sid" 2>/dev/null)
			want=$(awk '{ print $1, $1, $1 }' <<<"$out")
			assert_match "$out" '^[0-9]+ [0-9]+ [0-9]+$' "$rt exec -d: pid, process group, session"
			assert_eq "$out" "$want" "$rt exec -d: pid, process group, session"
		fi
		run_cmd "${CMD[@]}" delete --force "$id"
		assert_eq "$rc" 0 "$rt delete --force: exit status (stderr: $err)"
		rt_gone "$rt" "$id"
	done
}

# linux.sysctl["kernel.hostname"] with a uts namespace of the
# container's own: refused, as it is the hostname field's to set.  runc
# 1.1.5 refuses the config before it makes anything ("sysctl
# \"kernel.hostname\" is not allowed as it conflicts with the OCI
# \"hostname\" field"), and so does brig, in one line.  (Not
# kernel.domainname, which both take: the domainname variants.)  For
# corpus entry NAME under each runtime: run fails, `state` says the
# container does not exist, nothing is left under the state root
# (processes and cgroups: tap.sh checks).
t_sysctl_hostname() {
	local name=$1 rt id
	id=conf-$$-$name-sysctl
	CGNAME=$id
	normalise "$name" "$CGNAME" | jq '.linux.sysctl["kernel.hostname"] = "conformance"' \
		>"$T/normalised.json" || {
		fail "cannot make the config"
		return
	}
	jq -e '.linux.namespaces | map(select(.type == "uts" and .path == null)) | length == 1' \
		"$T/normalised.json" >/dev/null || fail "$name has no uts namespace of its own"
	OWNER=$(root_of "$T/normalised.json")
	[ "$OWNER" = 0:0 ] || chmod 0711 "$T"
	standins "$T/normalised.json" "$T/binds" "$OWNER" >"$T/config.json" || {
		fail "cannot make the stand-ins"
		return
	}
	for rt in brig runc; do
		rt_cmd "$rt"
		defer "${CMD[@]}" delete --force "$id"
		bundle "$T/config.json" "$OWNER" || {
			fail "cannot make the bundle for $rt"
			return
		}
		run_cmd env -i "${RUN_ENV[@]}" "${CMD[@]}" run --bundle "$T/b" "$id"
		assert_ne "$rc" 0 "$rt run with kernel.hostname in linux.sysctl: exit status (stdout: $out)"
		assert_contains "$err" 'kernel.hostname' "$rt run: stderr"
		assert_contains "$err" 'is not allowed' "$rt run: stderr"
		[ "$rt" = runc ] || assert_lines 1 "$err" "brig run: stderr"
		rt_gone "$rt" "$id"
	done
}

# linux.netDevices (runtime-spec 1.2): brig moves each named device of
# its caller's network namespace into the container's new one (renamed
# where the entry says "name"), and back under its own name when the
# container is deleted (tests/integration/55-netdevices.sh has the rest).
# runc 1.1.5 does not know the key and ignores it (runc 1.4 and crun 1.22
# know it): brig alone, no side by side.  For corpus entry NAME (one with
# a network namespace of its own and no user namespace): d0 as it is and
# d1 as ctr1.  The host's real network is never touched: the test's
# "host" is a network namespace of its own (unshare -n: no mount under
# /run/netns, which the leak checks of every test would see), with two
# dummy devices made in it (veth pairs on a kernel without dummy
# devices), where brig runs.  The container must list d0
# and ctr1 in its /sys/class/net (and not d1), run must succeed, and
# afterwards d0 and d1 are back in that namespace, no ctr1 there, and
# nothing is left under the state root.
t_netdevices() {
	local name=$1 id inside host
	id=conf-$$-$name-netdev
	CGNAME=$id
	normalise "$name" "$CGNAME" |
		jq '.process.args = ["/bin/ls", "/sys/class/net"]
			| .linux.netDevices = {"d0": {}, "d1": {"name": "ctr1"}}' >"$T/normalised.json" || {
		fail "cannot make the config"
		return
	}
	jq -e '(.linux.namespaces | map(select(.type == "network" and .path == null)) | length == 1)
		and (.linux.namespaces | map(select(.type == "user")) | length == 0)' \
		"$T/normalised.json" >/dev/null || fail "$name has no network namespace of its own, or a user namespace"
	standins "$T/normalised.json" "$T/binds" 0:0 >"$T/config.json" || {
		fail "cannot make the stand-ins"
		return
	}
	bundle "$T/config.json" 0:0 || {
		fail "cannot make the bundle"
		return
	}
	rt_cmd brig
	defer "${CMD[@]}" delete --force "$id"
	# in the "host" namespace: the dummies, brig's run (its output in
	# $T/nd.*), then "run: STATUS" and the devices there, "host: NAME"
	# shellcheck disable=SC2016 # (for sh -c)
	# (veth pairs, d0 and d0p, d1 and d1p, on a kernel without dummy
	# devices, as in 55-netdevices.sh)
	run_cmd unshare -n /bin/sh -c 'if ip link add d0 type dummy 2>/dev/null; then
			ip link add d1 type dummy || exit 90
		else
			echo "veth pairs"
			ip link add d0 type veth peer name d0p && ip link add d1 type veth peer name d1p || exit 90
		fi
		"$@" >"$0.out" 2>"$0.err" </dev/null
		echo "run: $?"
		ip -o link show | sed -n "s/^[0-9]*: \([^:@]*\)[:@].*/host: \1/p"' \
		"$T/nd" env -i "${RUN_ENV[@]}" "${CMD[@]}" run --bundle "$T/b" "$id"
	if [ "$rc" = 90 ]; then
		skip "cannot make dummy or veth network devices in a network namespace of the test's: $err"
		return
	fi
	assert_eq "$rc" 0 "unshare -n: exit status (stderr: $err)"
	inside=$(cat "$T/nd.out")
	host=$(grep '^host: ' <<<"$out" | sort | paste -sd ' ')
	assert_contains "$out" "run: 0" "brig run: exit status (stderr: $(cat "$T/nd.err"))"
	assert_eq "$(cat "$T/nd.err")" "" "brig run: stderr"
	assert_eq "$(grep -xE 'd0|d1|ctr1' <<<"$inside" | sort | paste -sd ' ')" "ctr1 d0" \
		"the container's /sys/class/net (all of it: $(paste -sd ' ' <<<"$inside"))"
	if grep -qx "veth pairs" <<<"$out"; then
		assert_eq "$host" "host: d0 host: d0p host: d1 host: d1p host: lo" \
			"the devices of the host namespace afterwards"
	else
		assert_eq "$host" "host: d0 host: d1 host: lo" "the devices of the host namespace afterwards"
	fi
	rt_gone brig "$id"
}

# Every entry of the allow-list has its glob, its line and its reason;
# entries that no difference used are listed (they may belong to another
# kind of host: a note, not a failure).
t_allow_list() {
	local n=0 entry glob re rest unused=
	[ -f "$ALLOW" ] || {
		fail "no $ALLOW"
		return
	}
	while IFS= read -r entry; do
		n=$((n + 1))
		[[ $entry =~ ^[[:space:]]*(#|$) ]] && continue
		read -r glob re rest <<<"${entry%%#*}"
		if [ -z "$re" ] || [ -n "$rest" ]; then
			fail "allow-list:$n: want GLOB REGEXP # REASON: $entry"
		elif [[ ! $entry =~ \#[[:space:]]*[^[:space:]] ]]; then
			fail "allow-list:$n: no reason: $entry"
		elif ! grep -qxF "$glob $re" "$_tap_state/used" 2>/dev/null; then
			unused+="$entry"$'\n'
		fi
	done <"$ALLOW"
	[ -z "$unused" ] || diag "allow-list entries no difference used here:" "$unused"
}

: >"$_tap_state/used"
# CONFORMANCE_ONLY=GLOB (by hand): only the entries and variants GLOB
# matches.
for name in $(for f in "$CONF"/corpus/*.json; do basename "$f" .json; done) "${VARIANTS[@]}"; do
	# shellcheck disable=SC2053
	[[ $name == ${CONFORMANCE_ONLY:-*} ]] || continue
	tap_test "$name: brig sees what runc sees" t_conformance "$name"
done
# shellcheck disable=SC2053
if [[ poststart == ${CONFORMANCE_ONLY:-*} ]]; then
	tap_test "poststart: a failing hook fails start, the container does not exist afterwards (brig and runc)" \
		t_poststart_fails
fi
# The entries that exec's session is checked on: all of the corpus,
# without a terminal (exec:NAME) and with one (exec-t:NAME).
for name in $(for f in "$CONF"/corpus/*.json; do basename "$f" .json; done); do
	# shellcheck disable=SC2053
	if [[ exec:$name == ${CONFORMANCE_ONLY:-*} ]]; then
		tap_test "exec:$name: the exec'd process leads its own session and process group, exec and exec -d (brig and runc)" \
			t_exec_session "$name" notty
	fi
	# shellcheck disable=SC2053
	if [[ exec-t:$name == ${CONFORMANCE_ONLY:-*} ]] && command -v script >/dev/null 2>&1; then
		tap_test "exec-t:$name: the exec'd process leads its own session and process group, exec -t (brig and runc)" \
			t_exec_session "$name" tty
	fi
done
# The entries kernel.hostname is refused on: four with a uts namespace.
for name in runc-spec podman cri-pod-container runtime-tools; do
	# shellcheck disable=SC2053
	[[ sysctl:$name == ${CONFORMANCE_ONLY:-*} ]] || continue
	tap_test "sysctl:$name: kernel.hostname in linux.sysctl is refused, nothing left (brig and runc)" \
		t_sysctl_hostname "$name"
done
# The entries netDevices are moved on (brig alone): five with a network
# namespace of their own, no user namespace.
if command -v unshare >/dev/null 2>&1 && command -v ip >/dev/null 2>&1; then
	for name in runc-spec podman cri-pod-container ctr-oci-spec runtime-tools; do
		# shellcheck disable=SC2053
		[[ netdev:$name == ${CONFORMANCE_ONLY:-*} ]] || continue
		tap_test "netdev:$name: linux.netDevices move into the container and back (brig; runc 1.1.5 ignores them)" \
			t_netdevices "$name"
	done
fi
tap_test "allow-list: every entry has a line and a reason" t_allow_list
tap_done
