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
# limits, /dev, sysctls.  The two outputs must be the same, but for the
# lines that tests/conformance/allow-list lets differ, each for a reason
# written there (a difference brig makes on purpose).  The test prints
# the differences left, "brig: LINE" / "runc: LINE".  Both runs must also
# exit 0 and print nothing on stderr.
#
# A config that runc cannot run fails its test too: normalise() has to
# make every corpus entry runnable here.
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
# with the probe at /probe, owned by OWNER (the container's root).
bundle() {
	rm -rf "$T/b" && mkdir -p "$T/b" &&
		cp -a "$ROOTFS" "$T/b/rootfs" &&
		cp "$PROBE" "$T/b/rootfs/probe" &&
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

t_conformance() {
	local name=$1 owner diffs left line rt
	CGNAME=conf-$$-$name
	normalise "$name" "$CGNAME" >"$T/normalised.json" || {
		fail "cannot normalise corpus/$name.json"
		return
	}
	owner=$(root_of "$T/normalised.json")
	# The container's root, when it is not the host's, reaches the
	# bundle and the stand-ins through $T.
	[ "$owner" = 0:0 ] || chmod 0711 "$T"
	standins "$T/normalised.json" "$T/binds" "$owner" >"$T/config.json" || {
		fail "cannot make the bind mount stand-ins"
		return
	}

	for rt in brig runc; do
		bundle "$T/config.json" "$owner" || {
			fail "cannot make the bundle for $rt"
			return
		}
		if [ "$rt" = brig ]; then
			run_rt brig "$BRIG" --root "$T/root" run --bundle "$T/b" "$CGNAME"
		else
			run_rt runc "$RUNC" --root "$T/runc-root" run --bundle "$T/b" "$CGNAME"
			# runc 1.1.5 on a hybrid host makes its cgroup2 directory
			# from the root of the unified hierarchy, not under ours.
			rmdir "/sys/fs/cgroup/unified/$CGNAME" 2>/dev/null
		fi
		if [ "$(cat "$T/$rt.rc")" != 0 ] || [ -s "$T/$rt.err" ]; then
			fail "$rt run: exit status $(cat "$T/$rt.rc"), stderr: $(cat "$T/$rt.err")"
		fi
		tidy "$T/$rt.out" >"$T/$rt.probe" || fail "cannot tidy the output of $rt"
	done
	if ! grep -q '^status\.CapEff: ' "$T/brig.probe" || ! grep -q '^status\.CapEff: ' "$T/runc.probe"; then
		fail "no output of the probe to compare"
		return
	fi

	diffs=$(diff --unchanged-line-format= --old-line-format='brig: %L' \
		--new-line-format='runc: %L' "$T/brig.probe" "$T/runc.probe")
	left=
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		allowed "$name" "${line#*: }" && continue
		left+="$line"$'\n'
	done <<<"$diffs"
	if [ -n "$left" ]; then
		fail "brig and runc differ on tests/conformance/corpus/$name.json (normalised by normalise.jq; CONFORMANCE_KEEP=DIR keeps the config and both outputs):"$'\n'"$left"
	fi
	# Kept for a look by hand: CONFORMANCE_KEEP=DIR.
	if [ -n "${CONFORMANCE_KEEP:-}" ]; then
		mkdir -p "$CONFORMANCE_KEEP" &&
			cp "$T/config.json" "$CONFORMANCE_KEEP/$name.config.json" &&
			cp "$T/brig.probe" "$CONFORMANCE_KEEP/$name.brig" &&
			cp "$T/runc.probe" "$CONFORMANCE_KEEP/$name.runc"
	fi
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
for f in "$CONF"/corpus/*.json; do
	name=$(basename "$f" .json)
	tap_test "$name: brig sees what runc sees" t_conformance "$name"
done
tap_test "allow-list: every entry has a line and a reason" t_allow_list
tap_done
