#!/bin/bash
# brig demo, from a fresh Debian 12 machine, as root:
#
#   sudo ./contrib/demo.sh
#
# Installs the build dependencies, builds brig out of tree in build-release/
# (or uses the in-tree build if the tree is configured in-tree), makes an
# OCI bundle whose rootfs is Debian's busybox-static, and runs
#   sh -c 'echo hello from brig; uname -a'
# in it with brig, then through Podman when Podman is installed.  Until
# containers run, it stops after `brig spec` and the config validation and
# says so.  Safe to run again; it leaves no temporary files.
#
# Environment: SKIP_APT=1 skips apt-get; JOBS sets make's parallelism.

set -euo pipefail

APT_PACKAGES="build-essential autoconf automake libtool pkg-config git
	libyajl-dev libseccomp-dev libcap-dev libselinux1-dev libsystemd-dev
	busybox-static jq"
ARGS='["sh","-c","echo hello from brig; uname -a"]'
ID=brig-demo-$$

SRC=$(cd "$(dirname "$0")/.." && pwd)
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
TMP=

say() { printf '==> %s\n' "$*"; }
die() {
	printf 'demo: %s\n' "$*" >&2
	exit 1
}

cleanup() {
	local m
	if [ -n "$TMP" ] && [ -d "$TMP" ]; then
		[ -n "${BRIG:-}" ] && "$BRIG" --root "$TMP/state" delete --force "$ID" >/dev/null 2>&1
		if [ -n "${PODMAN_DEMO:-}" ]; then
			podman rm -f brig-demo >/dev/null 2>&1
			podman rmi -f localhost/brig-demo >/dev/null 2>&1
		fi
		# Nothing may stay mounted under the temp dir before it goes.
		awk -v d="$TMP" 'index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo |
			sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
		rm -rf "$TMP"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------ dependencies

if [ "${SKIP_APT:-0}" != 1 ]; then
	[ "$(id -u)" -eq 0 ] || die "run as root (sudo $0), or SKIP_APT=1 with the packages installed"
	say "installing build dependencies (apt-get, quietly)"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get -qq update >/dev/null ||
		die "apt-get update failed"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get -qq install -y --no-install-recommends \
		$APT_PACKAGES >/dev/null || die "apt-get install failed"
fi

# ------------------------------------------------------------------- build

cd "$SRC"
if [ -f config.status ]; then
	# Configured in-tree by a developer: out-of-tree builds are refused
	# by autotools then, so use that build.
	say "building brig in-tree (the source tree is configured in-tree)"
	make -j"$JOBS" >/dev/null 2>&1 || die "make failed (run make in $SRC to see why)"
	BRIG=$SRC/brig
else
	if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
		say "./autogen.sh"
		./autogen.sh >/dev/null 2>&1 || die "./autogen.sh failed (run it to see why)"
	fi
	say "building brig in build-release/"
	mkdir -p build-release
	cd build-release
	if [ ! -f Makefile ]; then
		../configure >configure.log 2>&1 || die "configure failed: see $PWD/configure.log"
	fi
	make -j"$JOBS" >make.log 2>&1 || die "make failed: see $PWD/make.log"
	BRIG=$PWD/brig
	cd "$SRC"
fi
"$BRIG" --version | sed 's/^/    /'

# ------------------------------------------------------------------ bundle

TMP=$(mktemp -d /tmp/brig-demo.XXXXXX)
. "$SRC/tests/lib/rootfs.sh"
say "making a busybox bundle in $TMP/bundle"
brig_make_bundle "$TMP/bundle" || die "cannot make the bundle"
brig_bundle_edit "$TMP/bundle" '.process.args = $a | .process.terminal = false' \
	--argjson a "$ARGS" || die "cannot edit config.json"
echo "    brig spec wrote config.json; process.args = $(jq -c .process.args "$TMP/bundle/config.json")"

# --------------------------------------------------------------------- run

# timed NAME CMD...: run CMD (stdin /dev/null), keep its stdout and stderr
# in $TMP/NAME.out and $TMP/NAME.err, its exit status in RC and wall
# time in MS.
timed() {
	local name=$1 t0 t1
	shift
	t0=$(date +%s%N)
	RC=0
	"$@" </dev/null >"$TMP/$name.out" 2>"$TMP/$name.err" || RC=$?
	t1=$(date +%s%N)
	MS=$(((t1 - t0) / 1000000))
}

# show NAME: what the last `timed NAME` printed, and how it ended.
show() {
	sed 's/^/    | /' "$TMP/$1.out"
	sed 's/^/    ! /' "$TMP/$1.err"
	echo "    exit status: $RC, wall time: $MS ms"
}

say "brig run --bundle $TMP/bundle $ID"
timed brig "$BRIG" --root "$TMP/state" run --bundle "$TMP/bundle" "$ID"
show brig
[ "$RC" -eq 0 ] || die "brig run failed"

# ------------------------------------------------------------------ podman

if ! command -v podman >/dev/null; then
	say "Podman is not installed: skipping the Podman part"
	exit 0
fi
say "the same through Podman (podman --runtime $BRIG)"
# A private Podman store and configuration in the temp dir: the host's
# images and containers are not touched.
mkdir -p "$TMP/podman"/{storage,run,tmp}
cat >"$TMP/podman/storage.conf" <<EOF
[storage]
driver = "vfs"
graphroot = "$TMP/podman/storage"
runroot = "$TMP/podman/run"
EOF
cat >"$TMP/podman/containers.conf" <<EOF
[containers]
netns = "none"
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$TMP/podman/events.log"
tmp_dir = "$TMP/podman/tmp"
runtime_supports_json = ["brig", "crun", "runc"]
[engine.runtimes]
brig = ["$BRIG"]
EOF
export CONTAINERS_STORAGE_CONF=$TMP/podman/storage.conf CONTAINERS_CONF=$TMP/podman/containers.conf
PODMAN_DEMO=1
tar -C "$TMP/bundle/rootfs" -cf - . |
	podman import --change 'ENV PATH=/bin' - localhost/brig-demo >/dev/null ||
	die "podman import failed"
timed podman podman --runtime brig run --rm --name brig-demo localhost/brig-demo \
	sh -c 'echo hello from brig; uname -a'
show podman
[ "$RC" -eq 0 ] || die "podman run with brig failed"
say "done"
