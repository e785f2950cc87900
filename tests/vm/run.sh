#!/bin/bash
# tests/vm/run.sh BUILD_DIR TEST_SCRIPT...
#
# Runs brig's shell tests (TAP scripts such as tests/integration/40-lifecycle.sh)
# as root in ONE throw-away qemu guest with a pure cgroup v2 hierarchy, the
# hierarchy this machine cannot offer: the guest boots the host's Debian
# kernel with cgroup_no_v1=all, every controller enabled at the root.  The
# guest sees the host's / read-only (9p) under a tmpfs overlay, so the build
# tree and the sources are at the same paths as here; nothing it writes
# reaches the host except the results.  tests/vm/init sets the guest up;
# tests/vm/guest.sh runs the scripts in it.
#
# Each script runs as `make check` runs it (from BUILD_DIR, under
# BUILD_DIR/tests/helpers/subreaper, BRIG=BUILD_DIR/brig), with BRIG_VM=1.
# Script paths are taken relative to the current directory, or else to the
# source tree of this file (as tests/vm/TESTS lists them); an argument may
# start with variables for the script ("E2E_CGROUP_MANAGER=systemd
# E2E_ONLY=cgroup tests/e2e/podman.sh"), the first one's value then ending
# its results' name (e2e/podman-systemd.log).
#
# Output: per script, a "# vm: SCRIPT" line then its TAP output, unchanged,
# on stdout; the tests' stderr and our own messages ("vm: ...") on stderr.
# Results, in $BRIG_VM_RESULTS (emptied first):
#   NAME.log     the TAP output of tests/NAME.sh (e.g. integration/40-lifecycle.log)
#   NAME.rc      its exit status (no .rc: it never finished)
#   console.log  the guest's serial console
#
# Exit status: 0 when every script exited 0; 1 otherwise (a script failed or
# never ran, the guest died, the timeout hit); 77 when no guest can be run
# here (one "vm: cannot run the guest: REASON" line on stderr).  TAP "not ok"
# lines do not change it: tap.sh exits 0 either way, count them in the logs.
#
# Environment:
#   BRIG_VM_RESULTS  results directory (default BUILD_DIR/tests/vm-results)
#   BRIG_VM_TIMEOUT  seconds before qemu is killed (default 1200)
#   BRIG_VM_CACHE    where the extracted vmlinux and the initramfs are kept
#                    between runs (default /var/tmp/brig-vm-cache)
#   BRIG_VM_KERNEL   kernel version to boot (default: the newest one in /boot
#                    with its modules in /lib/modules)
#   BRIG_VM_MEM      guest memory in MiB (default 1024)
#   BRIG_VM_SMP      guest CPUs (default: the host's)
#   BRIG_VM_INIT     shell (default): a shell is the guest's PID 1, every
#                    cgroup v2 controller enabled at the root; systemd:
#                    systemd is PID 1 with a D-Bus system bus (the units in
#                    tests/vm/systemd/; about 10 s more to boot under TCG),
#                    and the tests run in its brig-vm-run.service
#   BRIG_VM_DEBUG=1  print the guest console when done
#   TAP_TIMEOUT, BRIG_BUSYBOX  passed on to the tests when set
#
# Needs: root, qemu-system-x86_64 (package qemu-system-x86), a kernel in
# /boot with its modules (linux-image-amd64), a static busybox
# (busybox-static).  Guests may run side by side; a cache update waits for
# another (flock on /run/lock/brig-vm.lock).  Without a usable KVM the
# guest is emulated (TCG): exec-heavy shell tests run 15-30 times slower
# than on the host, and timings say nothing about brig; the guest is for
# correctness.

set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)

say() { printf 'vm: %s\n' "$*" >&2; }
fail() {
	say "$*"
	exit 1
}
cannot_run() {
	say "cannot run the guest: $*"
	exit 77
}

[ $# -ge 2 ] || {
	echo "usage: $0 BUILD_DIR TEST_SCRIPT..." >&2
	exit 2
}
BUILD=$(cd "$1" 2>/dev/null && pwd) || fail "no build directory $1"
shift
RESULTS=${BRIG_VM_RESULTS:-$BUILD/tests/vm-results}
TIMEOUT=${BRIG_VM_TIMEOUT:-1200}
CACHE=${BRIG_VM_CACHE:-/var/tmp/brig-vm-cache}
MEM=${BRIG_VM_MEM:-1024}
INIT=${BRIG_VM_INIT:-shell}
case $INIT in shell | systemd) ;; *) fail "BRIG_VM_INIT=$INIT: expected shell or systemd" ;; esac

# ------------------------------------------------------------ can we run?

[ "$(id -u)" -eq 0 ] || cannot_run "not root"
command -v qemu-system-x86_64 >/dev/null || cannot_run "no qemu-system-x86_64 (apt-get install qemu-system-x86)"

# The kernel: the newest one in /boot whose modules are installed.
KVER=${BRIG_VM_KERNEL:-}
if [ -z "$KVER" ]; then
	KVER=$(for k in /boot/vmlinuz-*; do
		v=${k#/boot/vmlinuz-}
		[ -f "/lib/modules/$v/modules.dep" ] && echo "$v"
	done | sort -V | tail -n 1)
fi
[ -n "$KVER" ] && [ -r "/boot/vmlinuz-$KVER" ] || cannot_run "no kernel /boot/vmlinuz-${KVER:-*} (apt-get install linux-image-amd64)"
KIMG=/boot/vmlinuz-$KVER
MODDIR=/lib/modules/$KVER
[ -f "$MODDIR/modules.dep" ] || cannot_run "no modules for $KVER in $MODDIR"

if [ "$INIT" = systemd ]; then
	[ -x /lib/systemd/systemd ] || cannot_run "no /lib/systemd/systemd (apt-get install systemd)"
	command -v dbus-daemon >/dev/null || cannot_run "no dbus-daemon (apt-get install dbus)"
fi

# shellcheck source=../lib/rootfs.sh
. "$SRC/tests/lib/rootfs.sh"
BUSYBOX=$(brig_busybox 2>/dev/null) || cannot_run "no static busybox for the initramfs (apt-get install busybox-static)"

# ------------------------------------------------------------ what to run

[ -x "$BUILD/brig" ] || fail "$BUILD/brig is not built"
[ -x "$BUILD/tests/helpers/subreaper" ] ||
	fail "$BUILD/tests/helpers/subreaper is not built (make check TESTS= builds it)"

SCRIPTS=() LABELS=() NAMES=() ENVS=()
for entry in "$@"; do
	# VAR=VALUE ... SCRIPT: the script runs with those variables set, and
	# its results are named with the first one's value appended
	# (e2e/podman-systemd)
	read -ra words <<<"$entry"
	vars=() suffix=
	while [ "${#words[@]}" -gt 1 ] && [[ ${words[0]} =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do
		[ "${#vars[@]}" -gt 0 ] || suffix=-${words[0]#*=}
		vars+=("${words[0]}")
		words=("${words[@]:1}")
	done
	t=${words[*]}
	if [ "${t#/}" = "$t" ] && [ ! -f "$t" ] && [ -f "$SRC/$t" ]; then
		path=$SRC/$t
	else
		path=$t
	fi
	[ -f "$path" ] || fail "no test script $t"
	path=$(realpath "$path")
	# Results are named as automake names them: the path in the source
	# tree, minus tests/ and .sh.
	name=${path#"$SRC"/}
	[ "$name" = "$path" ] && name=$(basename "$path")
	name=${name#tests/}
	name=${name%.sh}$suffix
	SCRIPTS+=("$path") LABELS+=("$entry") NAMES+=("$name") ENVS+=("${vars[*]}")
done

# ------------------------------------------------------------ the cache

mkdir -p "$CACHE" || cannot_run "cannot create the cache $CACHE"

# One cache update at a time on this machine: the lock is held while the
# kernel is extracted and the initramfs built, then let go.  Guests may
# run side by side (tests/run-all.sh runs both at once): each has a run
# directory and results of its own, and reads the cache files only at
# boot (an update replaces them by rename).
LOCKFILE=$CACHE/lock
[ -d /run/lock ] && [ -w /run/lock ] && LOCKFILE=/run/lock/brig-vm.lock
exec {LOCK}>"$LOCKFILE" || cannot_run "cannot open $LOCKFILE"
if ! flock -n "$LOCK"; then
	say "waiting for another guest's cache update ($LOCKFILE)"
	flock -w "$TIMEOUT" "$LOCK" || fail "still waiting for the cache after ${TIMEOUT}s"
fi

# A results directory is ours to empty only if we made it (.vm-results).
if [ -e "$RESULTS" ] && [ ! -e "$RESULTS/.vm-results" ] && [ -n "$(ls -A "$RESULTS")" ]; then
	fail "$RESULTS is not empty and holds no earlier results: not touching it"
fi
rm -rf "$RESULTS"
mkdir -p "$RESULTS" && : >"$RESULTS/.vm-results" || fail "cannot create $RESULTS"

# ------------------------------------------------------------ kernel

# extract_vmlinux BZIMAGE: the ELF kernel inside a bzImage, on stdout.  The
# boot protocol header says where the compressed payload is: at
# payload_offset (0x248) from the protected-mode code, which follows the
# (setup_sects + 1) * 512 bytes of setup (setup_sects at 0x1f1); its last 4
# bytes are the uncompressed size, not part of the stream.
extract_vmlinux() {
	local img=$1 setup_sects off len start magic
	[ "$(od -An -c -j $((0x202)) -N4 "$img" | tr -d ' ')" = HdrS ] || return 1
	setup_sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$img" | tr -d ' ')
	[ "$setup_sects" -ne 0 ] || setup_sects=4
	read -r off len < <(od -An -tu4 -j $((0x248)) -N8 "$img")
	start=$(((setup_sects + 1) * 512 + off))
	magic=$(od -An -tx1 -j "$start" -N4 "$img" | tr -d ' \n')
	case $magic in
	fd377a58) set -- xz -dc ;;
	28b52ffd) set -- zstd -dc ;;
	1f8b*) set -- gzip -dc ;;
	5d0000*) set -- xz --format=lzma -dc ;;
	*) return 1 ;;
	esac
	dd if="$img" iflag=skip_bytes,count_bytes skip="$start" count=$((len - 4)) status=none | "$@"
}

# The guest boots the uncompressed vmlinux through its PVH entry point:
# no real-mode setup, no decompression under emulation (seconds saved per
# boot).  Extracted once per kernel; the bzImage if that fails.
key() { stat -c '%n %s %Y' "$@"; }
VMLINUX=$CACHE/vmlinux-$KVER
if [ "$(cat "$VMLINUX.key" 2>/dev/null)" != "$(key "$KIMG")" ]; then
	say "extracting vmlinux from $KIMG into $CACHE"
	if extract_vmlinux "$KIMG" >"$VMLINUX.$$" 2>/dev/null &&
		[ "$(head -c 4 "$VMLINUX.$$" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
		mv "$VMLINUX.$$" "$VMLINUX"
		key "$KIMG" >"$VMLINUX.key"
	else
		rm -f "$VMLINUX.$$" "$VMLINUX" "$VMLINUX.key"
		say "cannot extract vmlinux: booting the (slower) bzImage"
	fi
fi
[ -s "$VMLINUX" ] && [ -f "$VMLINUX.key" ] || VMLINUX=$KIMG

# ------------------------------------------------------------ initramfs

# Modules needed before the root is mounted: virtio PCI, 9p over virtio,
# overlayfs, virtio-serial; and null_blk (a /dev/nullb0 for io.max tests).
MODULES="virtio_pci 9pnet_virtio 9p overlay virtio_console null_blk"

# module_files MODULE: the .ko files (relative to MODDIR) of MODULE and its
# dependencies, dependencies first; nothing when it is built in.
module_files() {
	local re=${1//_/[-_]} line deps=() i
	grep -qE "/$re\.ko" "$MODDIR/modules.builtin" && return 0
	line=$(grep -E "(^|/)$re\.ko(\.[a-z]+)?:" "$MODDIR/modules.dep") || return 1
	# modules.dep lists the dependencies of a module last-loaded first.
	read -ra deps <<<"${line#*:}"
	for ((i = ${#deps[@]} - 1; i >= 0; i--)); do
		echo "${deps[i]}"
	done
	echo "${line%%:*}"
}

build_initramfs() {
	local d ko n m order=""
	d=$(mktemp -d "$CACHE/initramfs.XXXXXX") || return 1
	mkdir -p "$d"/{bin,dev,proc,sys,tmp,modules}
	cp "$BUSYBOX" "$d/bin/busybox" && cp "$HERE/init" "$d/init" && chmod 755 "$d/init" || return 1
	for m in $MODULES; do
		module_files "$m" >"$d/files" || {
			say "module $m not found in $MODDIR"
			return 1
		}
		while read -r ko; do
			n=${ko##*/}
			n=${n%%.ko*}
			n=${n//-/_}
			case " $order " in *" $n "*) continue ;; esac
			case $ko in
			*.xz) xz -dc ;;
			*.zst) zstd -qdc ;;
			*.gz) gzip -dc ;;
			*) cat ;;
			esac <"$MODDIR/$ko" >"$d/modules/$n.ko" || return 1
			# Rewriting the module drops its appended signature: checking
			# it costs ~60 ms a module under emulation.  (The guest
			# kernel gets the harmless "E" unsigned-module taint.)
			command -v objcopy >/dev/null && objcopy "$d/modules/$n.ko"
			order="$order $n"
		done <"$d/files"
	done
	rm -f "$d/files"
	echo "$order" >"$d/modules/order"
	(cd "$d" && find . | LC_ALL=C sort | "$BUSYBOX" cpio -o -H newc 2>/dev/null) >"$INITRD.$$" || return 1
	mv "$INITRD.$$" "$INITRD"
	rm -rf "$d"
}

# Rebuilt when the init script, the module list, busybox or the kernel's
# modules change.
INITRD=$CACHE/initramfs-$KVER.cpio
INITRD_KEY="$(cksum <"$HERE/init") $MODULES $(key "$BUSYBOX" "$MODDIR/modules.dep")"
if [ "$(cat "$INITRD.key" 2>/dev/null)" != "$INITRD_KEY" ] || [ ! -s "$INITRD" ]; then
	say "building the initramfs in $CACHE"
	build_initramfs || cannot_run "cannot build the initramfs"
	echo "$INITRD_KEY" >"$INITRD.key"
fi
flock -u "$LOCK"
exec {LOCK}>&-

# ------------------------------------------------------------ the run

# The per-run directory: share/ is the guest's /run/brig-vm (read-write).
RUN=$(mktemp -d "${TMPDIR:-/tmp}/brig-vm.XXXXXX") || fail "mktemp failed"
SHARE=$RUN/share
mkdir -p "$SHARE/results"
QEMU_PID=""

# EOF for a FIFO reader still waiting for a writer that never came (qemu
# died before opening it): open it read-write, which never blocks.
unblock_readers() {
	local f
	for f in "$RUN/out" "$RUN/err"; do
		[ -p "$f" ] && exec {fd}<>"$f" && exec {fd}>&-
	done
}
cleanup() {
	# Only what we started: qemu (through its timeout), then the readers.
	[ -n "$QEMU_PID" ] && kill "$QEMU_PID" 2>/dev/null && wait "$QEMU_PID" 2>/dev/null
	unblock_readers
	rm -rf "$RUN"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cp "$HERE/guest.sh" "$SHARE/guest.sh"
{
	printf 'export BRIG=%q BRIG_SRCDIR=%q BRIG_BUILDDIR=%q\n' "$BUILD/brig" "$SRC" "$BUILD"
	for v in TAP_TIMEOUT BRIG_BUSYBOX; do
		[ -n "${!v:-}" ] && printf 'export %s=%q\n' "$v" "${!v}"
	done
	printf 'SCRIPTS=(%s)\n' "$(printf '%q ' "${SCRIPTS[@]}")"
	printf 'LABELS=(%s)\n' "$(printf '%q ' "${LABELS[@]}")"
	printf 'NAMES=(%s)\n' "$(printf '%q ' "${NAMES[@]}")"
	printf 'ENVS=(%s)\n' "$(printf '%q ' "${ENVS[@]}")"
} >"$SHARE/config"
# The systemd guest's /etc additions (tests/vm/init copies etc/ over its
# /etc): the target it boots into, the tests' unit, and /dev/null links
# that mask units and every generator.
if [ "$INIT" = systemd ]; then
	sd=$SHARE/etc/systemd
	mkdir -p "$sd/system" "$sd/system-generators" || fail "cannot write the guest's units"
	cp "$HERE/systemd/brig-vm.target" "$HERE/systemd/brig-vm-run.service" "$sd/system/" &&
		cp "$HERE/systemd/unit.sh" "$SHARE/unit.sh" || fail "cannot copy the guest's units"
	grep -vE '^[[:space:]]*(#|$)' "$HERE/systemd/masks" | while read -r u; do
		ln -s /dev/null "$sd/system/$u"
	done
	for g in /lib/systemd/system-generators/*; do
		[ -e "$g" ] && ln -s /dev/null "$sd/system-generators/${g##*/}"
	done
fi
# The paths the guest must see, in case /tmp or /run hides them.
printf '%s\n' "$SRC" "$BUILD" "${SCRIPTS[@]%/*}" | sort -u >"$SHARE/keep"

# KVM only when it is the real thing (kvm_intel or kvm_amd loaded): the
# /dev/kvm of some sandboxes cannot run a stock kernel.  Otherwise TCG.
if { [ -d /sys/module/kvm_intel ] || [ -d /sys/module/kvm_amd ]; } && [ -w /dev/kvm ]; then
	ACCEL=(-accel kvm -cpu host)
else
	ACCEL=(-accel "tcg,thread=multi" -cpu max)
fi

# The guest's stdout and stderr arrive on two virtio-serial ports, written
# by qemu into FIFOs that these readers copy to ours.  A reader whose output
# went away drains the rest: the guest must never block on a full port.
mkfifo "$RUN/out" "$RUN/err" || fail "mkfifo failed"
{ cat || cat >/dev/null; } <"$RUN/out" &
READERS=$!
{ cat >&2 || cat >/dev/null; } <"$RUN/err" &
READERS="$READERS $!"

APPEND="console=ttyS0 quiet loglevel=3 panic=-1 rdinit=/init cgroup_no_v1=all"
# Faster under emulation: no crypto self-tests, no mitigations, trust the
# CPU's RNG, one serial port to probe.  Not tsc=reliable: it turns off the
# watchdog that would catch a TSC gone wrong under a loaded host (see the
# clock check below); on this host the guest stays on the TSC without it,
# and boots as fast.
APPEND="$APPEND cryptomgr.notests mitigations=off random.trust_cpu=on 8250.nr_uarts=1"
if [ "$INIT" = systemd ]; then
	APPEND="$APPEND brig_vm_init=systemd systemd.unit=brig-vm.target systemd.hostname=brig-vm"
	APPEND="$APPEND systemd.show_status=0 systemd.log_target=console systemd.log_level=warning"
fi

say "booting $KVER ($(basename "$VMLINUX"), ${ACCEL[1]%%,*}, ${MEM} MiB, PID 1 $INIT) for ${#SCRIPTS[@]} script(s), timeout ${TIMEOUT}s"
T0=$(date +%s)
timeout -k 10 "$TIMEOUT" qemu-system-x86_64 \
	-nodefaults -no-user-config -nographic -no-reboot \
	-M q35 -m "$MEM" -smp "${BRIG_VM_SMP:-$(nproc)}" "${ACCEL[@]}" \
	-kernel "$VMLINUX" -initrd "$INITRD" -append "$APPEND" \
	-serial "file:$RUN/console.log" -monitor none \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$SHARE,mount_tag=brigvm,security_model=none,multidevs=remap" \
	-device virtio-serial-pci,id=vser \
	-chardev "file,id=out,path=$RUN/out" -device virtserialport,bus=vser.0,chardev=out,name=brig-vm.out \
	-chardev "file,id=err,path=$RUN/err" -device virtserialport,bus=vser.0,chardev=err,name=brig-vm.err \
	</dev/null >"$RUN/qemu.log" 2>&1 &
QEMU_PID=$!
wait "$QEMU_PID"
qrc=$?
QEMU_PID=""
unblock_readers
# shellcheck disable=SC2086
wait $READERS 2>/dev/null
say "guest ran for $(($(date +%s) - T0))s"
# The guest's clock started as the host's (its RTC): ahead of it at the
# end, it ran fast, and every timeout in the guest was shorter than it
# says.  (Once seen: 2086 s of scripts in a guest that ran 787 s, with the
# TSC trusted; the kernel's clocksource watchdog now guards it.)
if read -r gclock gsource <"$SHARE/results/.clock" 2>/dev/null && [ -n "$gclock" ]; then
	skew=$((gclock - $(date +%s)))
	[ "${skew#-}" -le 30 ] ||
		say "the guest's clock ($gsource) ended ${skew}s off the host's: its timeouts did not last what they say"
fi

# ------------------------------------------------------------ results

cp -R "$SHARE/results/." "$RESULTS/"
cp "$RUN/console.log" "$RESULTS/console.log" 2>/dev/null
[ "${BRIG_VM_DEBUG:-0}" = 1 ] && cat "$RUN/console.log" "$RUN/qemu.log" >&2

console_tail() {
	echo "---- the guest's console (its end; all of it in $RESULTS/console.log)" >&2
	tail -n 25 "$RUN/console.log" 2>/dev/null | sed 's/^/    /' >&2
	if [ -s "$RUN/qemu.log" ]; then
		echo "---- qemu said" >&2
		sed 's/^/    /' "$RUN/qemu.log" >&2
	fi
	echo "----" >&2
}
if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	console_tail
	fail "timed out after ${TIMEOUT}s (BRIG_VM_TIMEOUT): qemu killed"
fi
if [ ! -e "$SHARE/done" ]; then
	console_tail
	fail "the guest gave no exit status (qemu exited $qrc)"
fi

status=0
for i in "${!SCRIPTS[@]}"; do
	rc=$(cat "$RESULTS/${NAMES[i]}.rc" 2>/dev/null)
	if [ "$rc" != 0 ]; then
		say "${LABELS[i]} exited ${rc:-?}"
		status=1
	fi
done
exit "$status"
