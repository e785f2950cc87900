#!/bin/bash
# linux.netDevices (runtime-spec 1.2+): each named device moves into the
# container's new network namespace, renamed where asked, with its
# permanent addresses and up state, and goes back under its own name when
# the container is deleted (also a stopped one, and after brig was
# SIGKILLed half-way through create); a config that cannot be honoured
# fails create with one line, nothing moved and nothing left.
#
# The host's real interfaces are never touched: each test makes a network
# namespace of its own ($NS), its dummy and veth devices in it, and runs
# brig there (nsenter --net only: brig's mount namespace stays the test's,
# where the leak checks look).  runc 1.1.5, this distribution's, does not
# know linux.netDevices (runc 1.4 and crun 1.22 do): no side-by-side.
#
# The file runs in a mount namespace of its own: `ip netns add` and brig's
# pin of a container's namespace (<state>/netns) are mounts, and in the
# host's mount table the other test files that run beside this one (make
# check runs two at once) would find them as mounts they leaked.
if [ -z "${BRIG_ND_PRIVATE_MNT:-}" ] && [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then
	export BRIG_ND_PRIVATE_MNT=1
	exec unshare --mount --propagation private "$BASH" "$0" "$@"
fi
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"
command -v ip >/dev/null 2>&1 || skip_all "needs ip (iproute2)"
command -v nsenter >/dev/null 2>&1 || skip_all "needs nsenter"
# a probe in a namespace of its own, never the host's
probe=brig-nd-probe-$$
ip netns add "$probe" || skip_all "cannot make a network namespace"
DEVTYPE=dummy
ip -n "$probe" link add name probe0 type dummy 2>/dev/null || DEVTYPE=veth
ip -n "$probe" link add name probe1 type veth peer name probe2 2>/dev/null
probed=$?
ip netns del "$probe"
[ "$probed" -eq 0 ] || skip_all "no veth network devices on this kernel"
[ "$DEVTYPE" = dummy ] || diag "no dummy devices in this kernel: veth pairs stand in for them"

brig_file_rootfs

# --------------------------------------------------------------- helpers

# host_ns: a network namespace of the test's own ($NS), "the host" of
# its brig, removed when the test ends; a dummy d0 in it, up, with an
# IPv4 and an IPv6 address.
host_ns() {
	NS=brig-nd-$$-$RANDOM
	ip netns add "$NS" || fail "ip netns add $NS"
	defer ip netns del "$NS"
	in_ns ip link set lo up &&
		add_dummy d0 10.77.0.1/24 fd77::1/64 ||
		fail "cannot make d0 in $NS"
}

# in_ns CMD...: CMD in $NS's network namespace (and nothing else).
in_ns() {
	nsenter --net="/run/netns/$NS" "$@"
}

# add_dummy NAME [ADDR...]: a dummy device in $NS, up, with ADDRs (a
# veth, its peer NAMEp up in $NS, when the kernel has no dummy).
add_dummy() {
	local name=$1 a
	shift
	if [ "$DEVTYPE" = dummy ]; then
		in_ns ip link add name "$name" type dummy || return
	else
		in_ns ip link add name "$name" type veth peer name "${name}p" &&
			in_ns ip link set "${name}p" up || return
	fi
	for a in "$@"; do
		in_ns ip addr add "$a" dev "$name" nodad 2>/dev/null ||
			in_ns ip addr add "$a" dev "$name" || return
	done
	in_ns ip link set "$name" up
}

# nd_bundle FILTER CMD [ARGS...]: the bundle $T/b: `brig spec` (new
# network namespace), CMD ARGS on the shared rootfs, then jq FILTER.
nd_bundle() {
	local filter=$1 args
	shift
	args=$(json_args "$@") &&
		mkdir -p "$T/b" &&
		rm -f "$T/b/config.json" &&
		"$BRIG" spec --bundle "$T/b" &&
		brig_bundle_edit "$T/b" '.process.terminal = false | .process.args = $a
			| .root.path = $root | '"$filter" --argjson a "$args" --arg root "$ROOTFS" ||
		fail "cannot write the bundle"
}

# nbr ARGS...: brig --root $T/root ARGS in $NS (sets out, err, rc).
nbr() {
	run_cmd nsenter --net="/run/netns/$NS" "$BRIG" --root "$T/root" "$@"
}

# at_host NAME [ADDR]: NAME is in $NS, up (and has ADDR).
at_host() {
	local show
	show=$(in_ns ip addr show dev "$1" 2>&1) || {
		fail "$1 is not in the host namespace: $show"
		return
	}
	assert_match "$(head -n1 <<<"$show")" '[<,]UP[,>]' "$1 up in the host namespace"
	[ -z "${2:-}" ] || assert_contains "$show" " $2 " "$1 has $2 in the host namespace"
}

# not_at_host NAME: NAME is not in $NS.
not_at_host() {
	! in_ns ip link show dev "$1" >/dev/null 2>&1 || fail "$1 is still in the host namespace"
}

# refused FILTER WHAT: create refuses with one line saying WHAT; nothing
# left (state dir), nothing moved (d0 in the host with its addresses).
refused() {
	nd_bundle "$1" true
	nbr create --bundle "$T/b" c
	assert_rc 1
	assert_lines 1 "$err" "one line"
	assert_contains "$err" "$2"
	assert_no_file "$T/root/c"
	at_host d0 10.77.0.1/24
	at_host d0 fd77::1/64
}

SHOW='ip link show dev "$1"; ip addr show dev "$1"; cat /sys/class/net/"$1"/flags'

# ------------------------------------------------------------------ tests

t_features() {
	brig features
	assert_rc 0
	assert_eq "$(jq -r .linux.netDevices.enabled <<<"$out")" true "linux.netDevices.enabled"
}
tap_test "features: linux.netDevices.enabled" t_features

t_move() {
	host_ns
	nd_bundle '.linux.netDevices = {"d0": {}}' sh -c "$SHOW" sh d0
	nbr run --bundle "$T/b" c
	assert_rc 0
	assert_match "$(head -n1 <<<"$out")" '^[0-9]+: d0[@:].*[<,]UP[,>]' "d0 up inside"
	assert_contains "$out" "inet 10.77.0.1/24" "IPv4 address inside"
	assert_contains "$out" "inet6 fd77::1/64" "IPv6 address inside"
	# back in the host once run has deleted the container
	at_host d0 10.77.0.1/24
	at_host d0 fd77::1/64
	assert_no_file "$T/root/c"
}
tap_test "run: a device moves in with its addresses and up state, and back" t_move

t_rename() {
	host_ns
	nd_bundle '.linux.netDevices = {"d0": {"name": "ctr0"}}' \
		sh -c "$SHOW; ip link show dev d0 2>&1 || echo no-d0" sh ctr0
	nbr run --bundle "$T/b" c
	assert_rc 0
	assert_match "$(head -n1 <<<"$out")" '^[0-9]+: ctr0[@:].*[<,]UP[,>]' "ctr0 up inside"
	assert_contains "$out" "inet 10.77.0.1/24" "IPv4 address of ctr0"
	assert_contains "$out" "inet6 fd77::1/64" "IPv6 address of ctr0"
	assert_contains "$out" "no-d0" "no d0 inside"
	at_host d0 10.77.0.1/24
	not_at_host ctr0
}
tap_test "run: a device renamed inside, its own name back on the host" t_rename

t_down() {
	host_ns
	in_ns ip link set d0 down || fail "cannot set d0 down"
	nd_bundle '.linux.netDevices = {"d0": {}}' sh -c "$SHOW" sh d0
	nbr run --bundle "$T/b" c
	assert_rc 0
	assert_match "$(head -n1 <<<"$out")" '^[0-9]+: d0[@:]' "d0 inside"
	assert_not_contains "$(head -n1 <<<"$out")" ",UP" "d0 down inside, as on the host"
	assert_contains "$out" "inet 10.77.0.1/24" "its address all the same"
	assert_contains "$(in_ns ip link show dev d0)" "state DOWN" "d0 back, still down"
}
tap_test "run: a device down on the host is down inside, and back" t_down

t_two_create_delete() {
	local pid inside
	host_ns
	in_ns ip link add name va type veth peer name vb &&
		in_ns ip addr add 10.78.0.1/24 dev va &&
		in_ns ip link set va up &&
		in_ns ip link set vb up || fail "cannot make the veth pair"
	nd_bundle '.linux.netDevices = {"d0": {"name": "eth2"}, "va": {"name": "eth1"}}' sleep 100
	defer "$BRIG" --root "$T/root" delete --force c
	nbr create --bundle "$T/b" c
	assert_rc 0
	pid=$(state_field c pid)
	inside=$(nsenter --net="/proc/$pid/ns/net" ip addr 2>&1)
	assert_contains "$inside" "eth1@" "veth end eth1 inside"
	assert_contains "$inside" "inet 10.78.0.1/24" "its address"
	assert_match "$inside" "[0-9]+: eth2[@:]" "dummy eth2 inside"
	assert_contains "$inside" "inet 10.77.0.1/24" "its address"
	not_at_host d0
	not_at_host va
	nbr delete c
	assert_rc 0
	at_host d0 10.77.0.1/24
	at_host va 10.78.0.1/24
	assert_contains "$(in_ns ip link show dev vb)" "vb@va" "the veth pair whole again"
	assert_no_file "$T/root/c"
}
tap_test "create, delete: two devices (dummy, veth) go in and come back" t_two_create_delete

t_stopped() {
	host_ns
	nd_bundle '.linux.netDevices = {"d0": {"name": "eth0"}}' sleep 100
	defer "$BRIG" --root "$T/root" delete --force c
	nbr run --detach --bundle "$T/b" c
	assert_rc 0
	nbr kill c KILL
	assert_rc 0
	wait_until 5 is_status c stopped || fail "c did not stop"
	not_at_host d0
	nbr delete c
	assert_rc 0
	at_host d0 10.77.0.1/24
	assert_no_file "$T/root/c"
}
tap_test "delete of a container that exited: its namespace was kept for it" t_stopped

t_killed_create() {
	need_faults
	host_ns
	nd_bundle '.linux.netDevices = {"d0": {"name": "eth0"}}' sleep 100
	defer "$BRIG" --root "$T/root" delete --force c
	# (bash's "Killed" for the SIGKILLed brig goes to /dev/null)
	run_cmd env BRIG_FAULT=create.netdevs-moved:kill \
		nsenter --net="/run/netns/$NS" "$BRIG" --root "$T/root" create --bundle "$T/b" c \
		2>/dev/null
	assert_rc 137
	not_at_host d0
	nbr delete --force c
	assert_rc 0
	at_host d0 10.77.0.1/24
	at_host d0 fd77::1/64
	assert_no_file "$T/root/c"
}
tap_test "delete --force after create was SIGKILLed with the device moved" t_killed_create

t_no_such_device() {
	host_ns
	refused '.linux.netDevices = {"d0": {}, "nope0": {}}' \
		'config.json: linux.netDevices["nope0"]: network device "nope0": No such device'
}
tap_test "refused: no such device" t_no_such_device

t_joined() {
	host_ns
	local other=brig-nd-other-$$-$RANDOM
	ip netns add "$other" || fail "ip netns add"
	defer ip netns del "$other"
	refused '.linux.netDevices = {"d0": {}} | (.linux.namespaces[] | select(.type == "network"))
		.path = "/run/netns/'"$other"'"' "joins a network namespace by path"
	assert_eq "$(ip -n "$other" -o link | grep -c d0)" 0 "nothing in the joined namespace"
}
tap_test "refused: the container joins a network namespace" t_joined

t_no_netns() {
	host_ns
	refused '.linux.netDevices = {"d0": {}}
		| .linux.namespaces |= map(select(.type != "network"))' "needs a new network namespace"
}
tap_test "refused: no network namespace" t_no_netns

t_clash() {
	host_ns
	add_dummy d1 || fail "cannot make d1"
	refused '.linux.netDevices = {"d0": {"name": "x0"}, "d1": {"name": "x0"}}' \
		'linux.netDevices["d1"]: name "x0" is taken in the container by linux.netDevices["d0"]'
	at_host d1
	refused '.linux.netDevices = {"d0": {"name": "lo"}}' '"lo" is taken'
}
tap_test "refused: two devices with one name inside, or lo" t_clash

t_bad_name() {
	host_ns
	refused '.linux.netDevices = {"d0": {"name": "a/b"}}' \
		'linux.netDevices.d0.name: invalid network interface name "a/b"'
}
tap_test "refused: a name that cannot be an interface's" t_bad_name

t_second_fails() {
	host_ns
	# lo exists but the kernel never moves a loopback: d0 has moved
	# when its move fails, and must come back
	refused '.linux.netDevices = {"d0": {"name": "eth0"}, "lo": {"name": "lo2"}}' \
		'move network device "lo" as "lo2"'
	not_at_host eth0
}
tap_test "refused: the second move fails, the first device comes back" t_second_fails

t_tampered() {
	local pid
	host_ns
	add_dummy h0 10.79.0.1/24 || fail "cannot make h0"
	nd_bundle '.linux.netDevices = {"d0": {"name": "eth0"}}' sleep 100
	defer "$BRIG" --root "$T/root" delete --force c
	nbr create --bundle "$T/b" c
	assert_rc 0
	pid=$(state_field c pid)
	# the record now names a device of the host, under names that are
	# not the container's
	printf 'h0 h0\nh0 eth0\n' >"$T/root/c/netdevices"
	nbr delete --force c
	assert_rc 0
	at_host h0 10.79.0.1/24
	# eth0 went back as h0?  no: h0 is taken on the host, the move is
	# refused and eth0 dies with the namespace, the host's h0 untouched
	not_at_host eth0
	assert_eq "$(in_ns ip -o link show | grep -cE ' h0[@:]')" 1 "one h0 on the host"
	assert_no_file "$T/root/c"
	[ -e "/proc/$pid" ] && fail "the init outlived delete"
}
tap_test "attack: a tampered record does not move the host's devices" t_tampered

t_swapped_pin() {
	host_ns
	add_dummy h0 10.79.0.1/24 || fail "cannot make h0"
	nd_bundle '.linux.netDevices = {"d0": {"name": "eth0"}}' sleep 100
	defer "$BRIG" --root "$T/root" delete --force c
	nbr create --bundle "$T/b" c
	assert_rc 0
	nbr kill c KILL
	wait_until 5 is_status c stopped || fail "c did not stop"
	# the pinned namespace is now the host's, the record names its h0
	umount "$T/root/c/netns" && mount --bind "/run/netns/$NS" "$T/root/c/netns" ||
		fail "cannot swap the pin"
	printf 'h0 h0\n' >"$T/root/c/netdevices"
	nbr delete c
	assert_rc 1
	assert_contains "$err" "network namespace is brig's own"
	at_host h0 10.79.0.1/24
	nbr delete --force c
	assert_rc 0
	at_host h0 10.79.0.1/24
	assert_no_file "$T/root/c"
}
tap_test "attack: a pin swapped for the host's namespace moves nothing" t_swapped_pin

tap_done
