#!/bin/bash
# brig demo, from a fresh Debian 12 machine, as root:
#
#   ./contrib/demo.sh          (as root, or as a user with sudo)
#
# Installs the build dependencies, builds brig out of tree in build-release/
# (or uses the in-tree build if the tree is configured in-tree), makes an
# OCI bundle whose rootfs is Debian's busybox-static, and runs
#   sh -c 'echo hello from brig; uname -a'
# in it with brig, then a job that fails (its exit status comes back), then
# the first again through Podman when Podman is installed (podman --runtime
# BRIG, with contrib/podman/containers.conf, in a private store).  Each
# shows the container's output, its exit status and the wall time.  Safe
# to run again; it leaves no temporary files, cgroups or mounts.
#
# Environment: SKIP_APT=1 skips apt-get; JOBS sets make's parallelism.

set -euo pipefail

# Root: as it is, or through sudo (a fresh machine where one is root may
# have no sudo at all; a user with sudo is asked for it once).
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
	exec sudo -E "$0" "$@"
fi

APT_PACKAGES="build-essential autoconf automake libtool pkg-config git
	libyajl-dev libseccomp-dev libcap-dev libselinux1-dev libsystemd-dev
	libnftables-dev libnftnl-dev libmnl-dev libc-ares-dev nettle-dev libarchive-dev busybox-static jq"
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

demo_cleanup() {
	local m
	if [ -n "$TMP" ] && [ -d "$TMP" ]; then
		[ -n "${BRIG:-}" ] && "$BRIG" --root "$TMP/state" delete --force "$ID" >/dev/null 2>&1
		# Nothing may stay mounted under the temp dir before it goes.
		awk -v d="$TMP" 'index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo |
			sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
		rm -rf "$TMP"
	fi
}
trap demo_cleanup EXIT
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
# shellcheck source=../tests/lib/rootfs.sh
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

say "a job that fails: sh -c 'echo working; exit 3'"
brig_bundle_edit "$TMP/bundle" '.process.args = ["sh", "-c", "echo working; exit 3"]' ||
	die "cannot edit config.json"
timed fail "$BRIG" --root "$TMP/state" run --bundle "$TMP/bundle" "$ID"
show fail
[ "$RC" -eq 3 ] || die "brig run did not return the container's exit status 3"

# An agent's snippet, as brig job runs untrusted code: it tries to wipe
# the rootfs, reach the network and mount, and leaves a file behind; the
# rootfs is untouched (every write went to a tmpfs), and the result JSON
# says how it ended.
SNIPPET='echo 42 > /root/answer
echo "agent: rm -rf /bin /etc /usr"; rm -rf /bin /etc /usr
echo "agent: /bin is gone: $(ls /bin 2>&1)"
echo "agent: the network: $(nc -w 1 1.1.1.1 80 </dev/null 2>&1 || echo unreachable)"
echo "agent: mount: $(mount -t tmpfs x /mnt 2>&1)"'
say "brig job: an agent's destructive snippet, 2 s and 64M at most"
# busybox's sh is a builtin-rich shell: it goes on without /bin
timed job "$BRIG" --root "$TMP/state" job --rootfs "$TMP/bundle/rootfs" --timeout 2s \
	--memory 64M --export "$TMP/export" --result "$TMP/result.json" -- /bin/sh -c "$SNIPPET"
show job
echo "    result: $(cat "$TMP/result.json")"
echo "    exported: $(cd "$TMP/export" && find . -type f | sort | tr '\n' ' ')"
echo "    the rootfs's /bin still has $(find "$TMP/bundle/rootfs/bin" | wc -l) entries"
[ "$RC" -eq 0 ] || die "brig job failed"

# ------------------------------------------------------------------ podman

if ! command -v podman >/dev/null; then
	say "Podman is not installed: skipping the Podman part"
	exit 0
fi
say "the same through Podman: podman --runtime $BRIG run --rm IMAGE sh -c '...'"
# A private Podman store and configuration in the temp dir, from
# contrib/podman/containers.conf.  Podman runs in a private mount and
# cgroup namespace (tests/e2e/isolate.sh): its absolute cgroup paths
# (--cgroup-parent /brig-demo) land below this shell's cgroup, and nothing
# it mounts or caches stays on the host.
# shellcheck source=../tests/lib/podman.sh
. "$SRC/tests/lib/podman.sh"
brig_podman_config "$TMP/podman" "$BRIG" || die "cannot write the Podman configuration"
tar -C "$TMP/bundle/rootfs" -cf "$TMP/rootfs.tar" . || die "cannot pack the rootfs"
cat >"$TMP/podman.sh" <<'EOF'
# $1: the podman dir, $2: brig, $3: the rootfs tarball, $4: the result prefix
export CONTAINERS_CONF=$1/containers.conf CONTAINERS_STORAGE_CONF=$1/storage.conf
podman import --change 'ENV PATH=/bin' "$3" localhost/brig-demo >/dev/null || exit 1
t0=$(date +%s%N)
podman --runtime "$2" run --rm --cgroup-parent /brig-demo localhost/brig-demo sh -c 'echo hello from brig; uname -a' \
	</dev/null >"$4.out" 2>"$4.err"
rc=$?
t1=$(date +%s%N)
echo "$rc $(((t1 - t0) / 1000000))" >"$4.rc"
# what Podman made below /brig-demo (conmon's cgroup), in this namespace's
# view: below the caller's cgroup
for h in /sys/fs/cgroup/*/ /sys/fs/cgroup/; do
	[ -d "$h/brig-demo" ] && find "$h/brig-demo" -depth -type d -exec rmdir {} + 2>/dev/null
done
true
EOF
"$SRC/tests/e2e/isolate.sh" bash "$TMP/podman.sh" "$TMP/podman" "$BRIG" "$TMP/rootfs.tar" \
	"$TMP/podman" >"$TMP/podman.log" 2>&1 || die "podman failed: $(tail -3 "$TMP/podman.log")"
read -r RC MS <"$TMP/podman.rc" || die "podman did not run"
show podman
[ "$RC" -eq 0 ] || die "podman run with brig failed"
say "done"
