#!/bin/bash
# tests/conformance/generate.sh [NAME...]: regenerate the corpus of the
# conformance layer, tests/conformance/corpus/NAME.json, from the real
# generators of this machine, and corpus/SOURCES, which says for each file
# the tool, its version and the exact command.  Without NAME, every entry.
#
#   runc-spec, runc-spec-rootless      `runc spec [--rootless]`
#   crun-spec, crun-spec-rootless      `crun spec [--rootless]`
#   ctr-oci-spec                       `ctr oci spec` (containerd's default spec)
#   ctr-seccomp                        `ctr container create --seccomp`: the
#                                      spec containerd stores (and writes as the
#                                      task's config.json), with containerd's
#                                      default seccomp profile
#   podman, podman-seccomp             the config.json Podman writes for a
#                                      container (`podman create` + `podman
#                                      init`), with --security-opt
#                                      seccomp=unconfined, and with Podman's
#                                      default profile
#   podman-userns                      the same (default profile) with
#                                      --uidmap/--gidmap 0:100000:65536
#   cri-pod-container,                 the spec containerd's CRI plugin makes
#   cri-pod-container-seccomp          for a container of a pod (what kubelet
#                                      asks for, through tests/e2e/cri/cri.py),
#                                      unconfined (containerd's CRI default)
#                                      and with seccomp RuntimeDefault
#   runtime-tools, runtime-tools-noseccomp
#                                      generate.New("linux") of the OCI runtime
#                                      tools (runtime-tools-spec.go), with and
#                                      without its default seccomp profile
#
# No generator exists for rootless Podman or a rootless CRI here (both
# need a non-root user with subordinate ids, which this machine has not):
# podman-userns is Podman's user-namespaced config instead.
#
# Needs root and: runc, crun, containerd (ctr, containerd-shim-runc-v2),
# podman (conmon, netavark), golang-go and
# golang-github-opencontainers-runtime-tools-dev, python3-grpcio and
# protobuf-compiler (for the CRI), busybox-static, jq.  An entry whose tool
# is missing is left as it is, with a warning.
#
# The engines run inside tests/e2e/isolate.sh (a private mount and cgroup
# namespace, tmpfs on /run/containerd, /run/containers, /var/lib/...):
# their state and cgroups do not outlive this script.  Each engine's
# scratch directory ($WORK) appears in what it writes (bind mount sources,
# root.path): it is replaced by "/gen" in the checked-in files, so that a
# regeneration differs from the last one only by what changed (and the
# random container ids).  Files are re-indented by jq (unless they hold a
# number jq 1.6 would round); nothing else is
# edited here: the edits that make a config runnable on this machine are
# made at test time by run.sh, each with its reason.
set -uo pipefail
export LC_ALL=C

SRC=$(cd "$(dirname "$0")/../.." && pwd)
CONF=$SRC/tests/conformance
CORPUS=$CONF/corpus
PY=/usr/bin/python3

[ "$(id -u)" -eq 0 ] || {
	echo "generate.sh: needs root (engines run containers)" >&2
	exit 1
}
command -v jq >/dev/null || {
	echo "generate.sh: needs jq" >&2
	exit 1
}

# own_cgroups: a cgroup "brig-conf-gen.PID" under ours in every hierarchy
# of /sys/fs/cgroup, one directory a line (what tests/helpers/subreaper
# makes for a test file, without a build tree).  The engines' cgroups
# (/kubepods, /libpod_parent, ...) land there, not beside ours.
own_cgroups() {
	local mnt fstype super line path ctrls c ok
	while read -r _ _ _ _ mnt _ rest; do
		fstype=${rest#*- }
		super=${fstype#* * }
		fstype=${fstype%% *}
		case $fstype in cgroup | cgroup2) ;; *) continue ;; esac
		[[ $mnt == /sys/fs/cgroup* ]] || continue
		path=
		while IFS= read -r line; do
			ctrls=${line#*:}
			ctrls=${ctrls%%:*}
			if [ "$fstype" = cgroup2 ]; then
				[ -z "$ctrls" ] || continue
			else
				[ -n "$ctrls" ] || continue
				ok=1
				for c in ${ctrls//,/ }; do
					[[ ,$super, == *",$c,"* ]] || ok=0
				done
				[ "$ok" = 1 ] || continue
			fi
			path=${line#*:*:}
			break
		done </proc/self/cgroup
		[ -n "$path" ] || continue
		echo "$mnt${path%/}/brig-conf-gen.$$"
	done </proc/self/mountinfo
}

# Inside a private mount and cgroup namespace whose cgroups are our own
# (above), as the e2e layer runs the engines.  The work runs in a child
# that moves itself there; the cgroups are removed when it is done.
if [ "${BRIG_E2E_ISOLATED:-}" != 1 ]; then
	mapfile -t CGS < <(own_cgroups)
	for d in "${CGS[@]}"; do
		mkdir "$d" || exit 1
		# v1 cpuset: no task joins a cgroup without cpus and mems
		if [ -f "$d/cpuset.cpus" ]; then
			cat "$d/../cpuset.cpus" >"$d/cpuset.cpus"
			cat "$d/../cpuset.mems" >"$d/cpuset.mems"
		fi
	done
	(
		for d in "${CGS[@]}"; do
			echo 0 >"$d/cgroup.procs" || exit 1
		done
		exec "$SRC/tests/e2e/isolate.sh" bash "$0" "$@"
	)
	rc=$?
	for d in "${CGS[@]}"; do
		find "$d" -depth -type d -exec rmdir {} + 2>/dev/null ||
			echo "generate.sh: could not remove the cgroup $d (or below)" >&2
	done
	exit "$rc"
fi

WORK=$(mktemp -d /tmp/brig-conf-gen.XXXXXX) || exit 1
CONTAINERD_PID=
cleanup() {
	if [ -n "$CONTAINERD_PID" ]; then
		kill "$CONTAINERD_PID" 2>/dev/null
		wait "$CONTAINERD_PID" 2>/dev/null
	fi
	# (Podman leaves its overlay store mounted; the namespace is ours)
	awk -v w="$WORK" 'index($5, w) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
		while read -r m; do umount -l "$m"; done
	rm -rf "$WORK"
}
trap cleanup EXIT

WANT=" $* "
want() { [ "$WANT" = "  " ] || [[ "$WANT" == *" $1 "* ]]; }

warn() { echo "generate.sh: $*" >&2; }

# save NAME FILE TOOL-VERSION COMMAND: FILE as corpus/NAME.json (with
# $WORK replaced by /gen) and its entry in the SOURCES list.
declare -A SRCLINE=()
save() {
	local name=$1 file=$2 version=$3 cmd=$4 fmt=(jq .)
	# jq 1.6 holds numbers as doubles: a 64-bit value would change, and
	# such a file is kept as the tool wrote it.
	if grep -qE '[0-9]{16,}' "$file"; then
		fmt=(cat)
	fi
	if ! jq -e . "$file" >/dev/null || ! "${fmt[@]}" "$file" | sed "s|$WORK|/gen|g" >"$CORPUS/$name.json.new"; then
		warn "$name: $file is not JSON"
		rm -f "$CORPUS/$name.json.new"
		return 1
	fi
	mv "$CORPUS/$name.json.new" "$CORPUS/$name.json"
	SRCLINE[$name]=$(printf '%s\n\ttool: %s\n\tcommand: %s' "$name.json" "$version" "$cmd")
	echo "generate.sh: wrote corpus/$name.json"
}

have() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || {
			warn "no $c: entries that need it are left as they are"
			return 1
		}
	done
}

# busybox rootfs (tests/lib/rootfs.sh) for the engines' images.
# shellcheck source-path=SCRIPTDIR source=../lib/rootfs.sh
. "$SRC/tests/lib/rootfs.sh"
# (rootfs.sh has a function ctr of its own)
unset -f ctr
brig_make_rootfs "$WORK/rootfs" || exit 1

# ------------------------------------------------------------ runc, crun

gen_spec() { # TOOL NAME [ARGS...]
	local tool=$1 name=$2
	shift 2
	want "$name" || return 0
	have "$tool" || return 0
	if ! mkdir -p "$WORK/$name" || ! (cd "$WORK/$name" && "$tool" spec "$@"); then
		warn "$name: $tool spec $* failed"
		return 1
	fi
	save "$name" "$WORK/$name/config.json" "$("$tool" --version | head -1)" "$tool spec${*:+ $*}"
}
gen_spec runc runc-spec
gen_spec runc runc-spec-rootless --rootless
gen_spec crun crun-spec
gen_spec crun crun-spec-rootless --rootless

# ------------------------------------------------------------ containerd

if want ctr-oci-spec && have ctr; then
	ctr oci spec >"$WORK/ctr-oci-spec.json" &&
		save ctr-oci-spec "$WORK/ctr-oci-spec.json" "$(ctr --version)" "ctr oci spec"
fi

# containerd of its own (like tests/e2e/containerd.sh): root, state and
# sockets under $WORK; the CRI with a busybox "pause" image and a CNI
# plugin that only reports an address (no interface, no route, no
# traffic: the pod needs its own network namespace, as kubelet's pods
# have, and Debian has no CNI plugins).
CD=$WORK/containerd
containerd_up() {
	[ -n "$CONTAINERD_PID" ] && return 0
	mkdir -p "$CD"/{root,state,cni-bin,cni-conf} || return 1
	cat >"$CD/config.toml" <<-EOF
		version = 2
		root = "$CD/root"
		state = "$CD/state"
		[grpc]
		  address = "$CD/containerd.sock"
		[ttrpc]
		  address = "$CD/containerd.sock.ttrpc"
		[debug]
		  address = "$CD/debug.sock"
		[metrics]
		  address = ""
		[plugins."io.containerd.grpc.v1.cri"]
		  sandbox_image = "localhost/conf-pause:latest"
		  # no CAP_SYS_RESOURCE on this machine (see tests/e2e/containerd.sh)
		  restrict_oom_score_adj = true
		  [plugins."io.containerd.grpc.v1.cri".cni]
		    bin_dir = "$CD/cni-bin"
		    conf_dir = "$CD/cni-conf"
		  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
		    runtime_type = "io.containerd.runc.v2"
	EOF
	cat >"$CD/cni-conf/10-conf.conflist" <<-'EOF'
		{"cniVersion": "0.4.0", "name": "conf", "plugins": [{"type": "conf-null"}]}
	EOF
	cat >"$CD/cni-bin/conf-null" <<-'EOF'
		#!/bin/sh
		# A CNI plugin that configures nothing: ADD reports one address
		# (TEST-NET-1) on the interface asked for, which containerd needs.
		cat >/dev/null
		case $CNI_COMMAND in
		ADD) printf '{"cniVersion":"0.4.0","interfaces":[{"name":"%s","sandbox":"%s"}],"ips":[{"version":"4","interface":0,"address":"192.0.2.2/24"}]}\n' "$CNI_IFNAME" "$CNI_NETNS" ;;
		VERSION) echo '{"cniVersion":"0.4.0","supportedVersions":["0.3.0","0.3.1","0.4.0"]}' ;;
		esac
	EOF
	chmod +x "$CD/cni-bin/conf-null"
	# (the CRI also calls a "loopback" plugin of its own for lo)
	ln -s conf-null "$CD/cni-bin/loopback"
	setsid containerd --config "$CD/config.toml" >"$CD/containerd.log" 2>&1 </dev/null &
	CONTAINERD_PID=$!
	export CONTAINERD_ADDRESS=$CD/containerd.sock
	for _ in $(seq 200); do
		ctr version >/dev/null 2>&1 && break
		sleep 0.1
	done
	ctr version >/dev/null 2>&1 || {
		warn "containerd did not come up: $(tail -5 "$CD/containerd.log")"
		return 1
	}
	# images: OCI archives of the busybox rootfs (tests/e2e/lib.sh)
	E2E_TMP=$WORK e2e_oci_archive "$WORK/rootfs" localhost/conf-busybox:latest '["/bin/sh"]' "$WORK/bb.tar" &&
		E2E_TMP=$WORK e2e_oci_archive "$WORK/rootfs" localhost/conf-pause:latest \
			'["/bin/sleep","2147483647"]' "$WORK/pause.tar" &&
		ctr -n default image import "$WORK/bb.tar" >/dev/null &&
		ctr -n k8s.io image import "$WORK/bb.tar" >/dev/null &&
		ctr -n k8s.io image import "$WORK/pause.tar" >/dev/null
}

# e2e_oci_archive comes from tests/e2e/lib.sh, which also loads tap.sh
# (harmless here: it only makes a state directory).
if { want ctr-seccomp || want cri-pod-container || want cri-pod-container-seccomp; } &&
	have containerd ctr containerd-shim-runc-v2 runc; then
	# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
	BRIG_SRCDIR=$SRC . "$SRC/tests/e2e/lib.sh"
	unset -f ctr
	# (tap.sh replaced our EXIT trap with its own)
	# shellcheck disable=SC2154
	trap 'cleanup; rm -rf "$_tap_state"' EXIT
	containerd_up || CONTAINERD_PID=${CONTAINERD_PID:-none}
fi
cd_ok() { [ -n "$CONTAINERD_PID" ] && [ "$CONTAINERD_PID" != none ]; }

if want ctr-seccomp && cd_ok; then
	# The spec containerd keeps for the container is the config.json the
	# shim writes for its task.
	if ctr -n default container create --seccomp localhost/conf-busybox:latest conf-seccomp sh &&
		ctr -n default container info conf-seccomp | jq .Spec >"$WORK/ctr-seccomp.json"; then
		save ctr-seccomp "$WORK/ctr-seccomp.json" "$(ctr --version)" \
			"ctr container create --seccomp localhost/conf-busybox:latest ID sh; ctr container info ID | jq .Spec (image: the busybox rootfs, CMD /bin/sh)"
	else
		warn "ctr-seccomp: ctr container create --seccomp failed"
	fi
	ctr -n default container delete conf-seccomp >/dev/null 2>&1
fi

# cri NAME SECCOMP: a pod (its own network namespace, through conf-null)
# and a container in it, created (not started); the spec from containerd.
# SECCOMP=1: the container asks for seccomp RuntimeDefault, which
# tests/e2e/cri/cri.py cannot say: a copy of it gets the field in its
# api.proto (LinuxContainerSecurityContext.seccomp, 15, as in
# k8s.io/cri-api) and a wrapper sets it on CreateContainer.
gen_cri() {
	local name=$1 seccomp=$2 pod cid cri=$WORK/cri-$1 ver
	want "$name" && cd_ok || return 0
	have protoc || return 0
	"$PY" -c 'import grpc, google.protobuf' 2>/dev/null || {
		warn "$name: no python3-grpcio/python3-protobuf"
		return 0
	}
	mkdir -p "$cri" && cp "$SRC/tests/e2e/cri/cri.py" "$SRC/tests/e2e/cri/api.proto" "$cri/" || return 1
	if [ "$seccomp" = 1 ]; then
		sed -i -e 's/^\(message LinuxContainerSecurityContext {\)$/\1\n    SecurityProfile seccomp = 15;/' "$cri/api.proto"
		cat >>"$cri/api.proto" <<-'EOF'

			message SecurityProfile {
			    enum ProfileType {
			        RuntimeDefault = 0;
			        Unconfined = 1;
			        Localhost = 2;
			    }
			    ProfileType profile_type = 1;
			    string localhost_ref = 2;
			}
		EOF
		cat >"$cri/cri-seccomp.py" <<-'EOF'
			import os, sys
			sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
			import cri
			orig = cri.Client.rt
			def rt(self, method, request, timeout=None):
			    if method == "CreateContainer":
			        sp = request.config.linux.security_context.seccomp
			        sp.profile_type = cri.pb.SecurityProfile.RuntimeDefault
			        sp.SetInParent()
			    return orig(self, method, request, timeout)
			cri.Client.rt = rt
			sys.exit(cri.main(sys.argv[1:]))
		EOF
		CRI=("$PY" "$cri/cri-seccomp.py" --address "$CD/containerd.sock")
	else
		CRI=("$PY" "$cri/cri.py" --address "$CD/containerd.sock")
	fi
	pod=$("${CRI[@]}" runp --name "conf-$name" --uid "uid-$name" --namespace default \
		--runtime-handler runc --cgroup-parent /kubepods --log-dir "$WORK/pods-$name" --pod-network) || {
		warn "$name: RunPodSandbox failed: $(tail -3 "$CD/containerd.log")"
		return 1
	}
	if ! cid=$("${CRI[@]}" create "$pod" --name c1 --image localhost/conf-busybox:latest -- sh) ||
		! ctr -n k8s.io container info "$cid" | jq .Spec >"$WORK/$name.json"; then
		warn "$name: CreateContainer failed"
		cid=
	fi
	ver="$(ctr --version), CRI plugin runtime.v1"
	if [ -n "$cid" ]; then
		if [ "$seccomp" = 1 ]; then
			save "$name" "$WORK/$name.json" "$ver" \
				"tests/e2e/cri/cri.py runp --pod-network --cgroup-parent /kubepods ... (CNI: generate.sh's conf-null); cri.py create POD --name c1 --image localhost/conf-busybox:latest -- sh, with securityContext.seccomp {profile_type: RuntimeDefault}; ctr -n k8s.io container info ID | jq .Spec"
		else
			save "$name" "$WORK/$name.json" "$ver" \
				"tests/e2e/cri/cri.py runp --pod-network --cgroup-parent /kubepods ... (CNI: generate.sh's conf-null); cri.py create POD --name c1 --image localhost/conf-busybox:latest -- sh; ctr -n k8s.io container info ID | jq .Spec"
		fi
		"${CRI[@]}" rm "$cid" >/dev/null
	fi
	"${CRI[@]}" stopp "$pod" >/dev/null
	"${CRI[@]}" rmp "$pod" >/dev/null
}
gen_cri cri-pod-container 0
gen_cri cri-pod-container-seccomp 1

# ------------------------------------------------------------ Podman

# Podman with its own defaults (no containers.conf of the project's:
# this is what a user of Podman gets), but for a store and run directory
# under $WORK, the cgroupfs manager (no systemd here) and events in a
# file.  --network none: the default bridge would change the host's
# network (the bridge, its firewall rules); the config differs only by
# the path of the network namespace, which run.sh drops anyway.
# `podman init` makes Podman write the config.json (with the bind mounts
# it adds at that point) and create the container with runc.
gen_podman() { # NAME CREATE-ARGS...
	local name=$1 id ud P=$WORK/podman
	shift
	want "$name" || return 0
	have podman conmon runc || return 0
	if [ ! -f "$P/containers.conf" ]; then
		mkdir -p "$P"/{storage,run,tmp} &&
			cat >"$P/storage.conf" <<-EOF &&
				[storage]
				driver = "overlay"
				graphroot = "$P/storage"
				runroot = "$P/run"
			EOF
			cat >"$P/containers.conf" <<-EOF &&
				[engine]
				cgroup_manager = "cgroupfs"
				events_logger = "file"
				events_logfile_path = "$P/events.log"
				tmp_dir = "$P/tmp"
			EOF
			tar -C "$WORK/rootfs" -cf "$WORK/rootfs.tar" . || return 1
		CONTAINERS_CONF=$P/containers.conf CONTAINERS_STORAGE_CONF=$P/storage.conf \
			podman import --change 'CMD ["/bin/sh"]' --change 'ENV PATH=/usr/sbin:/usr/bin:/sbin:/bin' \
			"$WORK/rootfs.tar" localhost/conf-busybox >/dev/null || {
			warn "podman import failed"
			return 1
		}
	fi
	export CONTAINERS_CONF=$P/containers.conf CONTAINERS_STORAGE_CONF=$P/storage.conf
	id=$(podman create --runtime runc --network none "$@" localhost/conf-busybox sh) || {
		warn "$name: podman create failed"
		return 1
	}
	# Podman writes config.json, then calls runc create, which fails on
	# this machine for Podman's default RLIMIT_NOFILE of 1048576 (no
	# CAP_SYS_RESOURCE): the file is there all the same.
	podman init --runtime runc "$id" >"$WORK/podman-init.log" 2>&1
	ud=$(podman inspect --format '{{.StaticDir}}' "$id")
	[ -f "$ud/config.json" ] || {
		warn "$name: podman init wrote no config.json: $(cat "$WORK/podman-init.log")"
		podman rm -f "$id" >/dev/null 2>&1
		return 1
	}
	save "$name" "$ud/config.json" "$(podman --version)" \
		"podman create --runtime runc --network none ${*:+$* }localhost/conf-busybox sh; podman init ID; cp \$(podman inspect --format '{{.StaticDir}}' ID)/config.json (image: the busybox rootfs, CMD /bin/sh)"
	podman rm -f "$id" >/dev/null
	unset CONTAINERS_CONF CONTAINERS_STORAGE_CONF
}
gen_podman podman --security-opt seccomp=unconfined
gen_podman podman-seccomp
gen_podman podman-userns --uidmap 0:100000:65536 --gidmap 0:100000:65536

# ------------------------------------------------------------ runtime tools

gen_runtime_tools() {
	local gp=$WORK/go ver
	want runtime-tools || want runtime-tools-noseccomp || return 0
	have go || return 0
	[ -d /usr/share/gocode/src/github.com/opencontainers/runtime-tools/generate ] || {
		warn "no golang-github-opencontainers-runtime-tools-dev"
		return 0
	}
	mkdir -p "$gp/src/runtime-tools-spec" &&
		cp "$CONF/runtime-tools-spec.go" "$gp/src/runtime-tools-spec/main.go" || return 1
	# GOPATH mode: Debian's Go sources, no module proxy
	(cd "$gp/src/runtime-tools-spec" && GO111MODULE=off GOPATH=/usr/share/gocode:$gp \
		GOCACHE=$gp/cache GOFLAGS='' go build -o "$gp/runtime-tools-spec" .) || {
		warn "runtime-tools: go build failed"
		return 1
	}
	ver="golang-github-opencontainers-runtime-tools-dev $(dpkg-query -W -f '${Version}' golang-github-opencontainers-runtime-tools-dev 2>/dev/null), $(go version)"
	if want runtime-tools; then
		"$gp/runtime-tools-spec" "$WORK/rt.json" &&
			save runtime-tools "$WORK/rt.json" "$ver" \
				"runtime-tools-spec FILE (tests/conformance/runtime-tools-spec.go: generate.New(\"linux\"), saved)"
	fi
	if want runtime-tools-noseccomp; then
		"$gp/runtime-tools-spec" --no-seccomp "$WORK/rt-n.json" &&
			save runtime-tools-noseccomp "$WORK/rt-n.json" "$ver" \
				"runtime-tools-spec --no-seccomp FILE (generate.New(\"linux\") with Linux.Seccomp = nil)"
	fi
}
gen_runtime_tools

# ------------------------------------------------------------ SOURCES

# Entries not regenerated this time keep their old lines.
{
	cat <<-'EOF'
		# The generators of tests/conformance/corpus/*.json (written by
		# tests/conformance/generate.sh; the scratch directory of the run is
		# "/gen" in the files).
	EOF
	for f in "$CORPUS"/*.json; do
		n=$(basename "$f" .json)
		echo
		if [ -n "${SRCLINE[$n]:-}" ]; then
			echo "${SRCLINE[$n]}"
			echo "	generated: $(date -u +%Y-%m-%d) on $(. /etc/os-release && echo "$PRETTY_NAME")"
		elif [ -f "$CORPUS/SOURCES" ]; then
			awk -v f="$n.json" '$0 == f { on = 1; print; next } on && /^\t/ { print; next } { on = 0 }' "$CORPUS/SOURCES"
		else
			echo "$n.json"
		fi
	done
} >"$WORK/SOURCES" && mv "$WORK/SOURCES" "$CORPUS/SOURCES"
echo "generate.sh: wrote corpus/SOURCES"
