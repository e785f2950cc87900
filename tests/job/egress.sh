#!/bin/bash
# brig job --network egress --allow RULE...: on this real kernel, the job
# reaches the names, addresses and ports its rules allow and nothing else
# (other names and addresses, the host's own addresses, link-local and the
# metadata address, loopback, private ranges learned from DNS, IPv6, DNS
# other than to brig's resolver over UDP, query types other than A); the
# result's "egress" counts what was allowed and denied; the job cannot
# change any of it; 64 jobs side by side each get their own; a brig
# SIGKILLed mid-job leaves nothing `brig job --gc` does not remove; a bad
# --allow is refused with status 125, one `brig: ` line naming --allow,
# and nothing left behind.
#
# The fake internet: the file re-runs itself in a network and a mount
# namespace of its own, "the host", where brig runs: lo, a veth to an
# "upstream" namespace (198.51.100.1/24 here, .2 there, the default route;
# 2001:db8:ff::1/64 and ::2, the IPv6 default route), and over the real
# /etc/resolv.conf, in the private mount namespace only, one that names
# the upstream's dnsmasq (198.51.100.53).  The upstream has the servers'
# addresses on its lo (192.0.2.10 .11 .12 .20, 169.254.169.254, 10.1.2.3,
# 2001:db8::10), TCP and UDP echo servers (socat) on ports 7, 443 and
# 5432 of all of them, and dnsmasq with the records below (egress_dns_args).
# The host has TCP echo servers on its own addresses (every one: ports 7
# and 53) and a UDP one on port 7: what a job must never reach.  Nothing
# here touches the host's real interfaces, routes, nftables or resolvers;
# the daemons are stopped (by process group: socat forks) when the file
# ends, and die with it if it is killed (PR_SET_PDEATHSIG).
#
# The file runs in a mount namespace of its own for its mount over
# /etc/resolv.conf, and for those brig makes: the other test files that
# run beside this one would find them in the host's mount table as mounts
# they leaked (see tests/integration/55-netdevices.sh).  The upstream
# namespace is held by a process, not `ip netns add`, whose file in the
# host's /run/netns would outlive a run killed before its cleanup.
#
# The tests need brig's --network egress: until `brig job --network
# egress --allow ...` is understood they skip, saying so; the fake
# internet's own check (the host reaches every server, by name too) runs
# regardless.  The pool test skips until `brig pool create --help`
# mentions egress.
if [ -z "${BRIG_EGRESS_PRIVATE_NS:-}" ] && [ "$(id -u)" -eq 0 ]; then
	if command -v unshare >/dev/null 2>&1 &&
		unshare --net --mount --propagation private true 2>/dev/null; then
		export BRIG_EGRESS_PRIVATE_NS=1
		exec unshare --net --mount --propagation private "$BASH" "$0" "$@"
	fi
	echo "1..0 # SKIP cannot unshare a network and a mount namespace"
	exit 0
fi
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"
# shellcheck source=../lib/job.sh
. "$(dirname "$0")/../lib/job.sh"

# Never the host's network: this must be a namespace of the file's own.
if [ "$(readlink /proc/self/ns/net)" = "$(readlink /proc/1/ns/net)" ] ||
	[ "$(readlink /proc/self/ns/mnt)" = "$(readlink /proc/1/ns/mnt)" ]; then
	echo "Bail out! not in a network and mount namespace of the file's own"
	exit 1
fi
for c in ip nsenter nft dnsmasq socat setpriv setsid; do
	command -v "$c" >/dev/null 2>&1 || skip_all "needs $c"
done
NETPROBE=$(static_helper job/netprobe) || skip_all "needs a static tests/job/netprobe (gcc -static)"
cp "$NETPROBE" "$ROOTFS/bin/netprobe"

# How long a probe waits for a connect or an answer (ms): what does not
# come within W was dropped (the fake internet answers in microseconds);
# a probe that must get through waits WOK, for a loaded machine.
W=1000
WOK=5000

# ---------------------------------------------------------- the fake internet

FAKE=$_tap_state/fake
FAKE_PIDS=()
UP_PID=

# up CMD...: CMD in the upstream namespace (that of $UP_PID, a sleep that
# holds it: no `ip netns add`, whose file in /run/netns would outlive a
# file killed before its cleanup).
up() {
	nsenter --net="/proc/$UP_PID/ns/net" "$@"
}

# fake_daemon NAME [--up] CMD...: CMD in the background (in the upstream
# namespace with --up), leading a process group of its own, killed with
# this shell; its output in $FAKE/NAME.log.
fake_daemon() {
	local name=$1 ns=()
	shift
	if [ "$1" = --up ]; then
		ns=(nsenter --net="/proc/$UP_PID/ns/net")
		shift
	fi
	setsid setpriv --pdeathsig KILL "${ns[@]}" "$@" </dev/null >"$FAKE/$name.log" 2>&1 &
	FAKE_PIDS+=("$!")
}

# echo_servers [--up]: TCP echo servers on every address (IPv4 and IPv6)
# of a namespace, on each port of $PORTS, and UDP ones on each port of
# $UPORTS of each address of $UADDRS (one per address: a UDP server bound
# to them all would answer from the address of the route back, which the
# client's connected socket ignores).
echo_servers() {
	local p a
	for p in $PORTS; do
		fake_daemon "tcp$p$1" "$@" socat -T 5 \
			"TCP6-LISTEN:$p,ipv6only=0,reuseaddr,fork,backlog=256" PIPE
	done
	for p in $UPORTS; do
		for a in $UADDRS; do
			if [[ "$a" = *:* ]]; then
				fake_daemon "udp$p-$a$1" "$@" socat -T 1 "UDP6-RECVFROM:$p,bind=[$a],fork" PIPE
			else
				fake_daemon "udp$p-$a$1" "$@" socat -T 1 "UDP4-RECVFROM:$p,bind=$a,fork" PIPE
			fi
		done
	done
}

# The upstream's records.  allowed.test's names, denied.test's, one
# pointing at each address a job must never reach, a CNAME to a name of
# another domain, TXT records; every other name under .test: NXDOMAIN.
egress_dns_args() {
	local r
	for r in allowed.test,192.0.2.10 sub.allowed.test,192.0.2.11 \
		deep.sub.allowed.test,192.0.2.11 target.other.test,192.0.2.12 \
		denied.test,192.0.2.20 x.denied.test,192.0.2.20 \
		rebind.allowed.test,198.51.100.1 meta.allowed.test,169.254.169.254 \
		lo.allowed.test,127.0.0.1 private.allowed.test,10.1.2.3 \
		v6.allowed.test,192.0.2.10,2001:db8::10 t.allowed.test,192.0.2.10; do
		echo "--host-record=$r"
	done
	echo "--cname=cname.allowed.test,target.other.test"
	echo "--txt-record=t.allowed.test,allowed-txt"
	echo "--txt-record=x.denied.test,denied-txt"
	echo "--mx-host=allowed.test,mx.allowed.test,10"
	echo "--local=/test/"
}

fake_down() {
	local p
	for p in "${FAKE_PIDS[@]}"; do
		kill -TERM -- "-$p" 2>/dev/null
	done
	for p in "${FAKE_PIDS[@]}"; do
		wait "$p" 2>/dev/null
		kill -KILL -- "-$p" 2>/dev/null
	done
	FAKE_PIDS=()
	umount /etc/resolv.conf 2>/dev/null
}
trap 'fake_down; rm -rf "$_tap_state"' EXIT
trap 'exit 143' TERM INT HUP

# other_netns PID: PID is in a network namespace other than this shell's.
other_netns() {
	local ns
	ns=$(readlink "/proc/$1/ns/net" 2>/dev/null) && [ "$ns" != "$(readlink /proc/self/ns/net)" ]
}

fake_up() {
	local a
	mkdir -p "$FAKE" && ip link set lo up || return
	fake_daemon upstream unshare --net sleep infinity
	UP_PID=${FAKE_PIDS[-1]}
	wait_until 10 other_netns "$UP_PID" || return
	up ip link set lo up &&
		ip link add eg-host type veth peer name eg-up &&
		ip link set eg-up netns "$UP_PID" &&
		ip link set eg-host addrgenmode none &&
		up ip link set eg-up addrgenmode none &&
		ip addr add 198.51.100.1/24 dev eg-host &&
		ip addr add 2001:db8:ff::1/64 dev eg-host nodad &&
		ip link set eg-host up &&
		ip route add default via 198.51.100.2 &&
		up ip addr add 198.51.100.2/24 dev eg-up &&
		up ip addr add 198.51.100.53/24 dev eg-up &&
		up ip addr add 2001:db8:ff::2/64 dev eg-up nodad &&
		up ip link set eg-up up || return
	# a route to every destination that must stay unreachable, so that
	# only brig's rules keep a job from them
	ip -6 route add default via 2001:db8:ff::2 || return
	local servers="192.0.2.10 192.0.2.11 192.0.2.12 192.0.2.20 169.254.169.254 10.1.2.3"
	for a in $servers; do
		up ip addr add "$a/32" dev lo || return
	done
	up ip addr add 2001:db8::10/128 dev lo nodad || return
	PORTS="7 443 5432" UPORTS="7 443 5432" UADDRS="$servers 2001:db8::10" echo_servers --up
	# the host's own addresses (198.51.100.1, 127.0.0.1, its end of each
	# job's link): TCP 7 and 53 (brig's resolver is UDP only) on all of
	# them, UDP 7 on those known now
	PORTS="7 53" UPORTS=7 UADDRS="198.51.100.1 127.0.0.1" echo_servers
	mapfile -t dns < <(egress_dns_args)
	fake_daemon dnsmasq --up dnsmasq --keep-in-foreground --conf-file=/dev/null \
		--no-resolv --no-hosts --bind-interfaces --listen-address=198.51.100.53 \
		--user=root --pid-file= --local-ttl=300 --log-queries \
		"--log-facility=$FAKE/dnsmasq.queries" "${dns[@]}"
	echo "nameserver 198.51.100.53" >"$FAKE/resolv.conf" &&
		mount --bind "$FAKE/resolv.conf" /etc/resolv.conf
}

# fake_check: the host reaches every server (by name too), so that what a
# job does not reach, brig's rules kept it from.
fake_check() {
	local want got=() i
	want=(
		"tcp allowed.test 7 ok 192.0.2.10"
		"udp allowed.test 443 ok 192.0.2.10"
		"tcp sub.allowed.test 5432 ok 192.0.2.11"
		"tcp cname.allowed.test 7 ok 192.0.2.12"
		"tcp denied.test 443 ok 192.0.2.20"
		"udp 192.0.2.20 443 ok 192.0.2.20"
		"udp 192.0.2.20 7 ok 192.0.2.20"
		"tcp 169.254.169.254 7 ok 169.254.169.254"
		"tcp 10.1.2.3 7 ok 10.1.2.3"
		"tcp 2001:db8::10 443 ok 2001:db8::10"
		"udp 2001:db8::10 7 ok 2001:db8::10"
		"tcp 198.51.100.1 7 ok 198.51.100.1"
		"tcp 127.0.0.1 53 ok 127.0.0.1"
		"udp 127.0.0.1 7 ok 127.0.0.1"
		"udp 198.51.100.1 7 ok 198.51.100.1"
		"udp 10.1.2.3 5432 ok 10.1.2.3"
		"tcp nonexistent.test 7 nxdomain"
		"dns t.allowed.test TXT NOERROR TXT=allowed-txt"
		"dns v6.allowed.test AAAA NOERROR AAAA=2001:db8::10"
		"dns cname.allowed.test A NOERROR CNAME=target.other.test A=192.0.2.12"
		"dns allowed.test A NOERROR A=192.0.2.10"
	)
	# the servers may take a moment to listen
	for ((i = 0; i < 20; i++)); do
		got=()
		local w
		for w in "${want[@]}"; do
			# shellcheck disable=SC2086 # the probe's words
			set -- $w
			if [ "$1" = dns ]; then
				got+=("$("$NETPROBE" -w 300 dns - "$2" "$3")")
			else
				got+=("$("$NETPROBE" -w 300 "$1" "$2" "$3")")
			fi
		done
		[ "$(printf '%s\n' "${got[@]}")" = "$(printf '%s\n' "${want[@]}")" ] && return 0
		sleep 0.1
	done
	diag "the fake internet, from the host:" "$(printf '%s\n' "${got[@]}")"
	return 1
}

fake_up || {
	echo "Bail out! cannot set the fake internet up"
	exit 1
}
fake_check || {
	echo "Bail out! the fake internet does not answer (logs: $(tail -n 5 "$FAKE"/*.log))"
	exit 1
}

# Whether brig has --network egress: a bad --allow is refused naming
# --allow, not as an unknown flag or an unknown --network (no job runs).
EGRESS=
run_cmd "$BRIG" --root "$_tap_state/probe-root" job --rootfs "$ROOTFS" --network egress \
	--allow '' -- true
case $err in
*"unknown flag"* | *"expected none, loopback or host"*) ;;
*) EGRESS=1 ;;
esac
rm -rf "$_tap_state/probe-root"

need_egress() {
	[ -n "$EGRESS" ] || skip "brig has no --network egress yet"
}

# ----------------------------------------------------------------- helpers

# ejob ARGS... -- CMD...: `brig job --network egress ARGS -- CMD` on the
# file's rootfs (sets out, err, rc; the result in $T/result.json), and
# the wait for its egress to be ended (egress_settled).
ejob() {
	job --network egress --timeout 60s "$@"
	egress_settled
}

# probes PROBE...: the script that runs each PROBE (netprobe's arguments,
# e.g. "tcp allowed.test 7") side by side, every one's line on stdout.
# A PROBE that must get through starts with "+" ("+tcp allowed.test 7"):
# it waits $WOK, the others $W.
probes() {
	local p s=
	for p in "$@"; do
		case $p in
		+*) s+="netprobe -w $WOK ${p#+} & " ;;
		*) s+="netprobe -w $W $p & " ;;
		esac
	done
	echo "${s}wait"
}

# line PROBE: the line netprobe printed for PROBE ("tcp HOST PORT",
# "dns NAME TYPE") in $out, or <none>.
line() {
	local l
	l=$(awk -v p="$1 " 'index($0, p) == 1 { print; exit }' <<<"$out")
	echo "${l:-<none>}"
}

# refute_match STRING ERE [WHAT]: STRING does not match ERE.
refute_match() {
	[[ "$1" =~ $2 ]] || return 0
	fail "${3:-value}: expected not to match /$2/, got $(_show "$1")"
}

# reached PROTO HOST PORT [ADDRESS]: the job's probe got an answer (from
# ADDRESS).
reached() {
	local l
	l=$(line "$1 $2 $3")
	if [ -n "${4:-}" ]; then
		assert_match "$l" "^$1 $2 $3 ok $4\$" "$1 to $2 port $3: reached"
	else
		assert_match "$l" "^$1 $2 $3 ok( |\$)" "$1 to $2 port $3: reached"
	fi
}

# blocked PROTO HOST PORT: the job's probe got no answer (a name that
# did not resolve, a drop, a refusal).
blocked() {
	local l
	l=$(line "$1 $2 $3")
	assert_ne "$l" "<none>" "$1 to $2 port $3: probed"
	refute_match "$l" "^$1 $2 $3 ok" "$1 to $2 port $3: blocked"
}

# dns_line NAME TYPE: the line of a `netprobe dns ... NAME TYPE` in $out.
dns_line() {
	line "dns $1 $2"
}

# res_has FIELD VALUE: the result's array .egress.FIELD holds VALUE.
res_has() {
	local v
	v=$(jq -c --arg v "$2" ".egress.$1 | index(\$v)" "$T/result.json" 2>/dev/null)
	[[ "$v" =~ ^[0-9]+$ ]] || fail "result .egress.$1: no $2 in $(res "egress.$1")"
}

# res_lacks FIELD VALUE: the result's array .egress.FIELD does not hold VALUE.
res_lacks() {
	local v
	v=$(jq -c --arg v "$2" ".egress.$1 | index(\$v)" "$T/result.json" 2>/dev/null)
	[ "$v" = null ] || fail "result .egress.$1: expected no $2, got $(res "egress.$1")"
}

# The egress slots' directory of this file's network namespace.
SLOTS=/run/brig-egress/net-$(stat -L -c %i /proc/self/ns/net)

# egress_ending: the slots whose ends are under way: a slot's file that
# says "end", locked by the child of brig's that removes the link (and,
# with the last slot, the tables) (one "SLOT" a line).  A file is opened, never made (flock(1)
# would make one gone meanwhile).
egress_ending() {
	local f
	for f in "$SLOTS"/*; do
		[ "$(head -c 3 "$f" 2>/dev/null)" = end ] || continue
		(exec 9<"$f" && flock -n 9) 2>/dev/null || echo "${f##*/}"
	done
}

# egress_settled: wait (5 s at most) until no slot is being ended.  brig
# returns before its child has removed the job's link (a second at most
# for the job's namespace to take it, then the deletion) and, if the slot
# was the last, the tables.
egress_settled() {
	wait_until 5 eval '[ -z "$(egress_ending)" ]' ||
		diag "egress slots still being ended after 5 s: $(egress_ending | tr '\n' ' ')"
}

# egress_left_now: what an egress job may leave on the host: links whose
# names start brig-e, nftables tables whose names start brig_e (brig's
# brig_egress, an older brig's brig_e<slot>), and the slots' directory of
# the file's network namespace (the last slot let go removes it and the
# tables).
egress_left_now() {
	ip -o link show | awk -F': ' '$2 ~ /^brig-e/ { print "link " $2 }'
	nft list tables 2>&1 | awk '$NF ~ /^brig_e/ { print "table " $0 }'
	[ ! -e "$SLOTS" ] || echo "slots $SLOTS: $(ls -A "$SLOTS" 2>/dev/null | tr '\n' ' ')"
}

# egress_left: the same, once the slots being ended are (egress_settled)
# and, the last slot let go, the tables that its child keeps half a
# second for a next job are gone (5 s at most).
egress_left() {
	egress_settled
	wait_until 5 eval '[ -z "$(egress_left_now)" ]'
	egress_left_now
}

# assert_egress_clean [WHEN]: assert_clean, and no link or table left.
# Both go before the job's slot is free (a link is deleted if the job's
# namespace does not take it: a socket the job left closing could keep
# that for minutes).
assert_egress_clean() {
	assert_no_egress "$@"
	# the child that ended the last slot exits once the tables are gone;
	# its exit closes its netfilter sockets, which waits for a grace
	# period (10-50 ms here), a moment in which it has no cmdline and is
	# not a zombie yet: seen as a process left (once, in CI's asan build)
	wait_until 5 eval '[ -z "$(strays)" ]' || true
	assert_clean "$@"
}

# assert_no_egress [WHEN]: no link and no table now.
assert_no_egress() {
	assert_eq "$(egress_left)" "" "egress links and tables left${1:+ $1}"
}

# host_net: the host's links, addresses, routes and nftables ruleset
# (without counters, timers, and the IPv6 link-local addresses, which
# come and go on their own), to compare before and after.
host_net() {
	ip -o link show
	ip -o addr show | grep -v ' fe80:' | sed -E 's/ (valid_lft|preferred_lft) [^ ]+//g; s/ tentative//'
	ip -4 route show table all
	ip -6 route show table all | grep -v 'fe80:' | sed -E 's/ expires [^ ]+//g'
	nft list ruleset 2>&1 | sed -E 's/ (packets|bytes) [0-9]+//g; s/ expires [^ ,}]+//g'
}

# same_net BEFORE AFTER WHAT: two host_net outputs are the same (else the
# difference).
same_net() {
	[ "$1" = "$2" ] || fail "$3 changed:" "$(diff <(echo "$1") <(echo "$2"))"
}

# resolver_addr: the job's nameserver, from the job's own resolv.conf
# (the host's end of its link), in $out's "resolver ADDR" line.
resolver_addr() {
	sed -n 's/^resolver //p' <<<"$out" | head -n 1
}

# ------------------------------------------------------------------ tests

# The fake internet works from the host (checked once before the tests
# too: without it they would prove nothing), over TCP DNS as well; and
# nothing of brig's is on the host before the first job.
t_fake() {
	fake_check || fail "the fake internet does not answer the host"
	assert_match "$("$NETPROBE" dns -t - allowed.test A)" '^dns allowed.test A NOERROR A=192.0.2.10$' \
		"DNS over TCP to the upstream"
	assert_eq "$(egress_left)" "" "egress links and tables on the host"
}

# 1. An allowed name resolves (its A record from upstream, forwarded) and
# is reachable on every port, TCP and UDP, when its rule names none (the
# names below it are not allowed); the result counts it and the bytes
# both ways.
t_allowed_name() {
	need_egress
	ejob --allow allowed.test -- sh -c "$(probes "+dns - allowed.test A") && $(probes \
		"+tcp allowed.test 7" "+tcp allowed.test 443" "+tcp allowed.test 5432" \
		"+udp allowed.test 7" "+udp allowed.test 443" "+dns - sub.allowed.test A")"
	assert_rc 0
	assert_match "$(dns_line allowed.test A)" "^dns allowed.test A NOERROR A=192.0.2.10\$" \
		"the A query of allowed.test"
	assert_match "$(dns_line sub.allowed.test A)" "^dns sub.allowed.test A NXDOMAIN\$" \
		"a name below the one allowed"
	reached tcp allowed.test 7 192.0.2.10
	reached tcp allowed.test 443 192.0.2.10
	reached tcp allowed.test 5432 192.0.2.10
	reached udp allowed.test 7 192.0.2.10
	reached udp allowed.test 443 192.0.2.10
	assert_res_int egress.allowed 1
	assert_res_int egress.bytes_out 1
	assert_res_int egress.bytes_in 1
	assert_res egress.denied_names '["sub.allowed.test"]'
	assert_res egress.denied_addresses '[]'
	assert_egress_clean
}

# The job's network: eth0 with an address in 10.213.0.0/16 (/30) and one
# in fd62:7269:6700::/96 (/126), a default route for each, a resolv.conf
# naming the host's end of the link; the result's egress object with
# --result - too.
t_job_network() {
	need_egress
	# shellcheck disable=SC2016
	ejob --allow allowed.test -- sh -c 'ip -o addr show dev eth0; ip route show
		ip -6 route show | sed "s/^/v6 /"
		echo "resolver $(netprobe resolver)"
		cat /etc/resolv.conf'
	assert_rc 0
	assert_match "$out" "inet 10\.213\.[0-9]+\.[0-9]+/30 " "eth0's address"
	assert_match "$out" "inet6 fd62:7269:6700::[0-9a-f:]+/126 " "eth0's IPv6 address"
	assert_eq "$(grep -c ' inet6 ' <<<"$out")" 1 "eth0's IPv6 addresses (none link-local)"
	assert_match "$(grep '^default' <<<"$out")" '^default via 10\.213\.[0-9]+\.[0-9]+ dev eth0' \
		"the job's default route"
	assert_match "$(grep '^v6 default' <<<"$out")" '^v6 default via fd62:7269:6700::[0-9a-f:]+ dev eth0' \
		"the job's IPv6 default route"
	assert_match "$(resolver_addr)" '^10\.213\.[0-9]+\.[0-9]+$' "the job's nameserver"
	assert_eq "$(grep -c '^nameserver' <<<"$out")" 1 "nameserver lines in the job's resolv.conf"

	# --result -: the result, with its egress object, on stdout (the job's
	# stdout on stderr)
	bj --rootfs "$ROOTFS" --network egress --allow allowed.test --result - -- \
		netprobe -w "$WOK" tcp allowed.test 7
	assert_rc 0
	assert_eq "$err" "tcp allowed.test 7 ok 192.0.2.10" "the job's output"
	assert_eq "$(jq -c '.egress | [.allowed > 0, .bytes_in > 0,
		.bytes_out > 0, .denied_names, .denied_addresses]' <<<"$out" 2>&1)" '[true,true,true,[],[]]' \
		"the result's egress object on stdout"
	assert_egress_clean
}

# 2. A port rule: allowed.test:443 reaches port 443 (TCP and UDP), not
# 7 nor 5432: dropped, counted in denied and denied_addresses.
t_port_rule() {
	need_egress
	ejob --allow allowed.test:443 -- sh -c "$(probes "+dns - allowed.test A") && $(probes \
		"+tcp allowed.test 443" "+udp allowed.test 443" "tcp allowed.test 7" \
		"tcp allowed.test 5432" "udp allowed.test 7")"
	assert_rc 0
	assert_match "$(dns_line allowed.test A)" "^dns allowed.test A NOERROR A=192.0.2.10\$" \
		"the A query of allowed.test"
	reached tcp allowed.test 443 192.0.2.10
	reached udp allowed.test 443 192.0.2.10
	blocked tcp allowed.test 7
	blocked tcp allowed.test 5432
	blocked udp allowed.test 7
	assert_res_int egress.allowed 1
	assert_res_int egress.denied 1
	res_has denied_addresses 192.0.2.10
	assert_egress_clean
}

# 3. *.allowed.test: every name below it (two levels too; any case;
# asked upstream), never allowed.test itself (NXDOMAIN), nor its address
# by a raw connection.
t_suffix_rule() {
	need_egress
	local u=u$$-$RANDOM.allowed.test
	ejob --allow '*.allowed.test' -- sh -c "$(probes "+tcp sub.allowed.test 7" \
		"+tcp deep.sub.allowed.test 443" "+tcp allowed.test 7" "+dns - allowed.test A" \
		"+dns - SUB.Allowed.Test A" "+dns - $u A") && $(probes "tcp 192.0.2.10 7")"
	assert_rc 0
	# a name the rule allows is asked upstream, whose NXDOMAIN the job gets
	assert_match "$(dns_line "$u" A)" "^dns $u A NXDOMAIN\$" "$u (unknown upstream)"
	assert_contains "$(cat "$FAKE/dnsmasq.queries")" "query[A] $u " "the upstream's queries"
	reached tcp sub.allowed.test 7 192.0.2.11
	reached tcp deep.sub.allowed.test 443 192.0.2.11
	assert_match "$(line "tcp allowed.test 7")" "^tcp allowed.test 7 nxdomain\$" \
		"allowed.test under *.allowed.test"
	assert_match "$(dns_line allowed.test A)" "^dns allowed.test A NXDOMAIN\$" \
		"the A query of allowed.test"
	assert_match "$(dns_line SUB.Allowed.Test A)" "^dns SUB.Allowed.Test A NOERROR A=192.0.2.11\$" \
		"names match in any case"
	blocked tcp 192.0.2.10 7
	res_has denied_names allowed.test
	res_has denied_addresses 192.0.2.10
	assert_egress_clean
}

# 4. A name no rule matches: NXDOMAIN (never asked upstream), counted, in
# denied_names.
t_denied_name() {
	need_egress
	local u=u$$-$RANDOM.denied.test
	ejob --allow allowed.test --audit "$T/audit" -- sh -c "$(probes "+tcp denied.test 443" \
		"+dns - x.denied.test A" "+dns - allowed.test.denied.test A" "+dns - $u A")"
	assert_rc 0
	# each refusal a line of --audit, as the resolver refuses it
	assert_eq "$(jq -r 'select(.egress == "name") | .name' "$T/audit" | sort -u)" \
		"$(printf '%s\n' allowed.test.denied.test denied.test "$u" x.denied.test | sort)" \
		"the names in --audit"
	assert_match "$(dns_line "$u" A)" "^dns $u A NXDOMAIN\$" "$u"
	assert_match "$(line "tcp denied.test 443")" "^tcp denied.test 443 nxdomain\$" "denied.test"
	assert_match "$(dns_line x.denied.test A)" "^dns x.denied.test A NXDOMAIN\$" "x.denied.test"
	assert_match "$(dns_line allowed.test.denied.test A)" \
		"^dns allowed.test.denied.test A NXDOMAIN\$" "allowed.test.denied.test"
	assert_res_int egress.denied 4
	res_has denied_names denied.test
	res_has denied_names x.denied.test
	res_has denied_names allowed.test.denied.test
	res_has denied_names "$u"
	res_lacks denied_names allowed.test
	assert_not_contains "$(cat "$FAKE/dnsmasq.queries")" "$u" "the upstream's queries"
	assert_egress_clean
}

# 5. A raw address no rule allows (192.0.2.20, denied.test's): TCP and
# UDP (443, as QUIC would) dropped, in denied_addresses.
t_denied_address() {
	need_egress
	ejob --allow allowed.test --audit "$T/audit" -- sh -c "$(probes "tcp 192.0.2.20 443" \
		"udp 192.0.2.20 443" "tcp 192.0.2.20 7" "udp 192.0.2.20 7")"
	assert_rc 0
	assert_eq "$(jq -c 'select(.egress) | [.egress, .address]' "$T/audit")" \
		'["address","192.0.2.20"]' "--audit"
	blocked tcp 192.0.2.20 443
	blocked udp 192.0.2.20 443
	blocked tcp 192.0.2.20 7
	blocked udp 192.0.2.20 7
	assert_res_int egress.denied 1
	res_has denied_addresses 192.0.2.20
	assert_egress_clean
}

# 6. Names that resolve to what a job must never reach: the host's own
# address (DNS rebinding), the metadata address, loopback, a private
# address.  Resolvable or not, never reached; nor are those addresses
# (and the host's end of the link) by raw connections.
t_never_reached() {
	need_egress
	local n
	# shellcheck disable=SC2016
	ejob --allow '*.allowed.test' -- sh -c 'echo "resolver $(netprobe resolver)"
		r=$(netprobe resolver)
		'"$(probes "tcp rebind.allowed.test 7" "tcp meta.allowed.test 7" \
		"tcp lo.allowed.test 53" "tcp private.allowed.test 7" "udp rebind.allowed.test 7" \
		"tcp 198.51.100.1 7" "tcp 198.51.100.1 53" "udp 198.51.100.1 7" \
		"tcp 169.254.169.254 7" "tcp 10.1.2.3 7" "tcp 127.0.0.1 53" \
		'tcp $r 7' 'udp $r 7')"
	assert_rc 0
	for n in rebind meta private; do
		blocked tcp "$n.allowed.test" 7
	done
	blocked tcp lo.allowed.test 53
	blocked udp rebind.allowed.test 7
	blocked tcp 198.51.100.1 7
	blocked tcp 198.51.100.1 53
	blocked udp 198.51.100.1 7
	blocked tcp 169.254.169.254 7
	blocked tcp 10.1.2.3 7
	blocked tcp 127.0.0.1 53
	local r
	r=$(resolver_addr)
	assert_match "$r" '^10\.213\.' "the job's nameserver"
	blocked tcp "$r" 7
	blocked udp "$r" 7
	res_has denied_addresses 198.51.100.1
	res_has denied_addresses 169.254.169.254
	res_has denied_addresses 10.1.2.3
	assert_egress_clean
}

# 7. DNS only to brig's resolver, over UDP, for A (and AAAA) queries:
# over TCP to it, or to the upstream server straight: no answer; TXT, MX
# and ANY of an allowed name: REFUSED; TXT of a denied name: NXDOMAIN or
# REFUSED.  Every one counted.
t_dns_rules() {
	need_egress
	local u=u$$-$RANDOM.allowed.test
	# shellcheck disable=SC2016
	ejob --allow allowed.test --allow t.allowed.test --allow "$u" -- sh -c \
		'echo "resolver $(netprobe resolver)"
		'"$(probes 'dns -t - allowed.test A' "dns 198.51.100.53 $u A" \
		'+dns - t.allowed.test TXT' '+dns - allowed.test MX' '+dns - allowed.test ANY' \
		'+dns - x.denied.test TXT' '+dns - t.allowed.test A')"
	assert_rc 0
	assert_match "$(dns_line allowed.test A)" '^dns allowed.test A (timeout|refused|unreachable)$' \
		"DNS over TCP to brig's resolver"
	assert_match "$(dns_line "$u" A)" "^dns $u A (timeout|refused|unreachable)\$" \
		"DNS to the upstream server"
	assert_match "$(dns_line t.allowed.test TXT)" '^dns t.allowed.test TXT REFUSED$' \
		"TXT of an allowed name"
	assert_match "$(dns_line allowed.test MX)" '^dns allowed.test MX REFUSED$' \
		"MX of an allowed name"
	assert_match "$(dns_line allowed.test ANY)" '^dns allowed.test ANY REFUSED$' \
		"ANY of an allowed name"
	assert_match "$(dns_line x.denied.test TXT)" '^dns x.denied.test TXT (NXDOMAIN|REFUSED)$' \
		"TXT of a denied name"
	assert_match "$(dns_line t.allowed.test A)" '^dns t.allowed.test A NOERROR A=192.0.2.10$' \
		"A of an allowed name"
	assert_not_contains "$(cat "$FAKE/dnsmasq.queries")" "$u" "the upstream's queries"
	# the TCP query, the direct one, TXT, MX, ANY, the denied TXT
	assert_res_int egress.denied 6
	assert_res_int egress.allowed 1
	res_has denied_addresses 198.51.100.53
	res_has denied_addresses "$(resolver_addr)"
	res_has denied_names x.denied.test
	assert_egress_clean
}

# 8. IPv6 is not routed: what the job sends over it (to an upstream
# address, to the host's own, to brig's end of the link) reaches brig's
# end only, to be dropped and counted; the link's own multicast (MLD
# reports) is not counted; AAAA of an allowed name is NODATA (NOERROR, no
# address); an IPv6 rule is refused as a usage error.
t_ipv6() {
	need_egress
	ejob --allow v6.allowed.test --allow '*.allowed.test' -- sh -c "$(probes \
		"tcp 2001:db8::10 7" "udp 2001:db8::10 443" "tcp 2001:db8:ff::1 7" \
		"tcp fd62:7269:6700::1 53" "+dns - v6.allowed.test AAAA" "+dns - v6.allowed.test A")"
	assert_rc 0
	blocked tcp 2001:db8::10 7
	blocked udp 2001:db8::10 443
	blocked tcp 2001:db8:ff::1 7
	blocked tcp fd62:7269:6700::1 53
	assert_match "$(dns_line v6.allowed.test AAAA)" '^dns v6.allowed.test AAAA NOERROR$' \
		"AAAA of an allowed name"
	assert_match "$(dns_line v6.allowed.test A)" '^dns v6.allowed.test A NOERROR A=192.0.2.10$' \
		"A of the same name"
	# each probe's packets (a TCP one's SYN and its resends) counted
	assert_res_int egress.denied 4
	res_has denied_addresses 2001:db8::10
	res_has denied_addresses 2001:db8:ff::1
	res_has denied_addresses fd62:7269:6700::1
	res_lacks denied_addresses ff02::16
	assert_eq "$(jq -r '.egress.denied_addresses[]' "$T/result.json" | grep -c '^ff')" 0 \
		"multicast addresses among the denied"

	bad_allow --rootfs "$ROOTFS" --network egress --allow '[2001:db8::10]:443'
	assert_contains "$err" "IPv6 is not routed" "the message"
	bad_allow --rootfs "$ROOTFS" --network egress --allow allowed.test --allow 2001:db8::/32
	assert_egress_clean
}

# 9. CIDR rules: an address allows itself on every port, a network with
# a port only that port; a private network is allowed when a rule names
# it (by address, and by a name that resolves there); a CIDR rule allows
# no name.
t_cidr_rules() {
	need_egress
	ejob --allow 192.0.2.20/32 --allow 10.1.2.0/24 -- sh -c "$(probes "+tcp 192.0.2.20 7" \
		"+udp 192.0.2.20 443" "+tcp 192.0.2.20 5432" "+tcp 10.1.2.3 7" "tcp 192.0.2.10 7" \
		"+tcp denied.test 7")"
	assert_rc 0
	reached tcp 192.0.2.20 7
	reached udp 192.0.2.20 443
	reached tcp 192.0.2.20 5432
	reached tcp 10.1.2.3 7
	blocked tcp 192.0.2.10 7
	assert_match "$(line "tcp denied.test 7")" "^tcp denied.test 7 nxdomain\$" \
		"a name under a CIDR rule"
	assert_res_int egress.allowed 1
	assert_res_int egress.bytes_in 1

	ejob --allow 192.0.2.0/24:7 -- sh -c "$(probes "+tcp 192.0.2.20 7" "+udp 192.0.2.20 7" \
		"+tcp 192.0.2.10 7" "tcp 192.0.2.20 443" "udp 192.0.2.20 443" "tcp 192.0.2.10 5432" \
		"tcp 10.1.2.3 7")"
	assert_rc 0
	reached tcp 192.0.2.20 7
	reached udp 192.0.2.20 7
	reached tcp 192.0.2.10 7
	blocked tcp 192.0.2.20 443
	blocked udp 192.0.2.20 443
	blocked tcp 192.0.2.10 5432
	blocked tcp 10.1.2.3 7
	res_has denied_addresses 192.0.2.20
	res_has denied_addresses 192.0.2.10

	# an address alone; a private address a name resolves to, reached
	# because a CIDR rule names its network
	ejob --allow 192.0.2.12 --allow private.allowed.test --allow 10.1.2.0/24 -- sh -c \
		"$(probes "+tcp 192.0.2.12 443" "+udp 192.0.2.12 5432" "+tcp private.allowed.test 7" \
			"tcp 192.0.2.11 7")"
	assert_rc 0
	reached tcp 192.0.2.12 443
	reached udp 192.0.2.12 5432
	reached tcp private.allowed.test 7 10.1.2.3
	blocked tcp 192.0.2.11 7
	assert_egress_clean
}

# A CNAME chain: the job asked for cname.allowed.test and gets the chain
# and target's address, which it may reach; the target's own name, asked
# for, is not allowed.
t_cname() {
	need_egress
	ejob --allow cname.allowed.test -- sh -c "$(probes "+dns - cname.allowed.test A" \
		"+dns - target.other.test A") && $(probes "+tcp cname.allowed.test 7")"
	assert_rc 0
	assert_match "$(dns_line cname.allowed.test A)" \
		'^dns cname.allowed.test A NOERROR CNAME=target.other.test A=192.0.2.12$' \
		"the A query of cname.allowed.test"
	assert_match "$(dns_line target.other.test A)" '^dns target.other.test A NXDOMAIN$' \
		"the A query of target.other.test"
	reached tcp cname.allowed.test 7 192.0.2.12
	res_has denied_names target.other.test
	assert_egress_clean
}

# 10. The job cannot change the rules: without CAP_NET_ADMIN anywhere
# its attempts on its eth0, routes and links fail (or stay in its own
# namespace); the host's links, addresses, routes and nftables ruleset
# are what they were, during the job and after it, and what was denied
# stays denied.
t_job_cannot_change_rules() {
	need_egress
	local before during after
	before=$(host_net)
	# shellcheck disable=SC2016
	bg_job --network egress --allow allowed.test --timeout 60s -- sh -c "$READY"'
		i=0; while [ ! -e /s/go ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
		grep CapEff /proc/self/status
		ip link set eth0 down; echo "link-down $?"
		ip route del default; echo "route-del $?"
		ip addr add 192.0.2.99/24 dev eth0; echo "addr-add $?"
		ip route add 192.0.2.20/32 dev eth0; echo "route-add $?"
		ip link add d0 type dummy; echo "link-add $?"
		ip link set eth0 mtu 1280; echo "mtu $?"
		ip link set lo down; ip link set lo up
		touch /s/done
		i=0; while [ ! -e /s/go2 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
		'"$(probes "tcp 192.0.2.20 7" "tcp 198.51.100.1 7")"'
		ip -o link show eth0; exit 0'
	job_started || return
	during=$(host_net)
	touch "$T/s/go"
	wait_for "$T/s/done" 300 || fail "the job did not try"
	same_net "$during" "$(host_net)" "the host's network after the job's attempts"
	touch "$T/s/go2"
	wait_exit "$BG_PID" 30
	assert_eq "$rc" 0 "status of the job (stderr: $(cat "$T/bg.err"))"
	out=$(cat "$T/bg.out")
	assert_match "$(grep '^CapEff' <<<"$out")" '^CapEff:[[:space:]]+0+$' "the job's capabilities"
	local what
	for what in link-down route-del addr-add route-add link-add mtu; do
		assert_match "$(grep "^$what " <<<"$out")" "^$what [1-9][0-9]*\$" "the job's $what"
	done
	blocked tcp 192.0.2.20 7
	blocked tcp 198.51.100.1 7
	# once the job's end is over (the tables kept for a next job gone)
	egress_left >/dev/null
	after=$(host_net)
	same_net "$before" "$after" "the host's network before and after the job"
	assert_egress_clean
}

# 10b. A job with CAP_NET_RAW names addresses it does not have as its
# own on the link, raw: ARP requests and IPv6 neighbour solicitations to
# brig's end with a spoofed sender, three each.  Brig's namespace (the
# host's, in use) learns none of them (it learned every one before: a
# job could fill the host's neighbour tables, which all its links
# share); the job's own address still resolves brig's end (what it is
# allowed, it reaches).
t_spoofed_neighbours() {
	need_egress
	local s i seen=
	# shellcheck disable=SC2016
	s='gw=$(netprobe resolver); gw6=$(ip -6 route show default | awk "{ print \$3 }"); '
	for i in 1 2 3; do
		s+="netprobe spoof arp eth0 192.0.2.7$i \$gw; netprobe spoof nd eth0 2001:db8::7$i \$gw6; "
	done
	bg_job --network egress --keep-caps NET_RAW --allow 192.0.2.20/32 --timeout 60s -- \
		sh -c "$READY; $s"'i=0; while [ ! -e /s/go ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; '"$(probes "+tcp 192.0.2.20 7")"
	job_started || return
	# the neighbours brig's namespace has, until the job is told to end
	for i in $(seq 1 40); do
		seen+=$(ip neigh show | grep -E '^(192\.0\.2\.7[0-9]|2001:db8::7[0-9]) ')$'\n'
		[ "$(grep -c ' sent$' "$T/bg.out")" -ge 6 ] && [ "$i" -ge 10 ] && break
		sleep 0.05
	done
	seen+=$(ip neigh show | grep -E '^(192\.0\.2\.7[0-9]|2001:db8::7[0-9]) ')
	seen=$(sort -u <<<"$seen" | sed '/^$/d')
	touch "$T/s/go"
	wait_exit "$BG_PID" 30
	assert_eq "$rc" 0 "status of the job (stderr: $(cat "$T/bg.err"))"
	out=$(cat "$T/bg.out")
	for i in 1 2 3; do
		assert_match "$(grep "^spoof arp 192.0.2.7$i " <<<"$out")" ' sent$' "the job's ARP as 192.0.2.7$i"
		assert_match "$(grep "^spoof nd 2001:db8::7$i " <<<"$out")" ' sent$' "the job's NS as 2001:db8::7$i"
	done
	assert_eq "$seen" "" "neighbours brig's namespace learned from the job's spoofed senders"
	reached tcp 192.0.2.20 7
	assert_egress_clean
}

# 11. 64 jobs at once, job i allowing allowed.test (even i) or
# sub.allowed.test (odd i), each trying both names and the other's
# address: every one reaches its own name only.  (BRIG_EGRESS_JOBS=N, a
# developer's aid: N jobs instead.)  What must get through may take 30 s
# rather than WOK's 5: 64 jobs, their resolvers and some 200 probes at
# once on two CPUs, beside another test file and the guests, left answers
# later than 5 s in CI.
t_concurrent() {
	need_egress
	local WOK=30000
	local i n=${BRIG_EGRESS_JOBS:-64} own other own_a other_a start pids=() bad=0 o
	mkdir -p "$T/tmp" "$T/c"
	start=$(date +%s.%N)
	for ((i = 0; i < n; i++)); do
		if ((i % 2 == 0)); then
			own=allowed.test other=sub.allowed.test own_a=192.0.2.10 other_a=192.0.2.11
		else
			own=sub.allowed.test other=allowed.test own_a=192.0.2.11 other_a=192.0.2.10
		fi
		echo "$own $other $own_a $other_a" >"$T/c/$i.want"
		TMPDIR=$T/tmp "$BRIG" --root "$T/root" job --rootfs "$ROOTFS" --network egress \
			--allow "$own" --timeout 120s --result "$T/c/$i.json" -- \
			sh -c "$(probes "+tcp $own 7" "+tcp $other 7") && $(probes "tcp $other_a 7")" \
			</dev/null >"$T/c/$i.out" 2>"$T/c/$i.err" &
		pids+=("$!")
		defer kill_wait "$!"
	done
	for ((i = 0; i < n; i++)); do
		wait_exit "${pids[i]}" 180
		[ "$rc" -eq 0 ] || {
			fail "job $i: status $rc: $(cat "$T/c/$i.err")"
			bad=$((bad + 1))
			continue
		}
		read -r own other own_a other_a <"$T/c/$i.want"
		out=$(cat "$T/c/$i.out")
		o=$(line "tcp $own 7")$'\n'$(line "tcp $other 7")$'\n'$(line "tcp $other_a 7")
		[[ "$o" =~ ^"tcp $own 7 ok $own_a"$'\n'"tcp $other 7 nxdomain"$'\n'"tcp $other_a 7 "(timeout|refused|unreachable|noecho) ]] || {
			fail "job $i (allowing $own) saw:" "$o"
			bad=$((bad + 1))
		}
	done
	diag "$n egress jobs side by side: $(awk -v a="$start" -v b="$(date +%s.%N)" \
		'BEGIN { printf "%.1f", b - a }') s, $bad wrong"
	assert_egress_clean
}

# next_job_through: a job after what a test did reaches allowed.test and
# nothing else, and leaves nothing.
next_job_through() {
	ejob --allow allowed.test -- sh -c "$(probes "+tcp allowed.test 7" "tcp 192.0.2.20 7")"
	assert_rc 0
	reached tcp allowed.test 7 192.0.2.10
	blocked tcp 192.0.2.20 7
	assert_egress_clean
}

# 12. brig SIGKILLed mid-job: `brig job --gc` leaves no link, no table,
# no state; a new egress job works.
t_sigkill_gc() {
	need_egress
	bg_job --network egress --allow allowed.test --timeout 60s -- sh -c "$READY; sleep 30"
	job_started || return
	assert_ne "$(egress_left_now)" "" "the job's link and table while it runs"
	kill -KILL "$BG_PID"
	# (bash's "Killed" notice is the test's own doing: not in the log)
	{ wait_exit "$BG_PID" 10; } 2>/dev/null
	assert_eq "$rc" 137 "brig's status after SIGKILL"
	bj --gc
	assert_rc 0
	assert_eq "$err" "" "stderr of --gc"
	wait_until 10 dead "$JOB_PID" || fail "the job's process $JOB_PID outlived --gc"
	assert_eq "$(egress_left)" "" "egress links and tables after --gc"
	assert_egress_clean "after --gc"
	next_job_through
}

# 13. Bad --allow values: status 125, one `brig: ` line naming --allow,
# the job never ran, nothing left (no link, no table).
bad_allow() {
	bj "$@" -- echo RAN
	assert_eq "$rc" 125 "exit status of job $* (stderr: $(_show "$err"))"
	assert_lines 1 "$err" "stderr of job $*"
	assert_match "$err" "^brig: .*--allow" "stderr of job $*"
	assert_not_contains "$out" RAN "stdout of job $*"
	assert_eq "$(egress_left)" "" "egress links and tables after job $*"
}

# brig job --network egress killed at each step it reaches (egress.slot,
# egress.table, egress.link among the lifecycle's): job --gc leaves no
# link, table, process or state; and failing at each (EIO): brig itself
# leaves nothing.  Needs fault injection (CI's asan build has it).
t_kill_steps() {
	need_egress
	need_faults
	local steps s
	rm -f "$T/steps"
	BRIG_FAULT_LOG=$T/steps bj --rootfs "$ROOTFS" --network egress --allow allowed.test -- true
	assert_rc 0
	steps=$(awk '!seen[$0]++' "$T/steps")
	grep -qx egress.link <<<"$steps" || fail "no egress step among: $(tr '\n' ' ' <<<"$steps")"
	diag "egress job: $(wc -l <<<"$steps") steps: $(tr '\n' ' ' <<<"$steps")"
	for s in $steps; do
		BRIG_FAULT="$s:kill" bj --rootfs "$ROOTFS" --network egress --allow allowed.test -- true
		wait_until 5 eval '[ -z "$(_tap_leaked_procs)" ]'
		bj --gc
		[ "$rc" -eq 0 ] || fail "job --gc after a job killed at $s: status $rc: $err"
		assert_egress_clean "after a job killed at $s and job --gc"
		BRIG_FAULT="$s:errno=5" bj --rootfs "$ROOTFS" --network egress --allow allowed.test -- true
		assert_egress_clean "after a job that failed at $s"
	done
}

t_bad_allow() {
	need_egress
	local v
	for v in '' '*' '*.' 'a.test:0' 'a.test:70000' 'a.test:' 'a.test:x' '192.0.2.0/33' \
		'192.0.2.1/24' '10.0.0.0/8' '10.213.0.0/16' '10.213.4.0/24' '0.0.0.0/0' \
		'[2001:db8::1]:0' '2001:db8::1]:443' 'a..test' 'a test' 'a/b.test' \
		"$(printf 'a%.0s' {1..64}).test"; do
		bad_allow --rootfs "$ROOTFS" --network egress --allow "$v"
	done
	bad_allow --rootfs "$ROOTFS" --network egress --allow allowed.test --allow ''
	bad_allow --rootfs "$ROOTFS" --allow allowed.test
	bad_allow --rootfs "$ROOTFS" --network loopback --allow allowed.test
	bad_allow --rootfs "$ROOTFS" --network host --allow allowed.test
	bad_allow --rootfs "$ROOTFS" --network none --allow allowed.test
	assert_egress_clean
}

# 14. Pooled egress jobs: two jobs with different lists back to back on
# one pool, each with its own allowances; a brig's gc in another network
# namespace in between takes no slot of theirs.
t_pool() {
	need_egress
	mkdir -p "$T/tmp"
	defer timeout -k 5 30 "$BRIG" --root "$T/root" pool destroy eg
	run_cmd env TMPDIR="$T/tmp" "$BRIG" --root "$T/root" pool create eg --rootfs "$ROOTFS" \
		--network egress --size 1
	# until pools have egress, pool create says so
	if [ "$rc" -eq 125 ] && [[ "$err" = *egress*yet* ]]; then
		assert_eq "$(egress_left)" "" "egress links and tables after pool create"
		skip "brig pool create has no --network egress yet ($err)"
	fi
	assert_eq "$rc" 0 "exit status of pool create (stderr: $(_show "$err"))" || return
	# a brig in another network namespace (a new one) sees the waiting
	# member's link nowhere: its gc leaves the member's slot alone
	run_cmd unshare --net "$BRIG" --root "$T/other-root" job --gc
	assert_rc 0
	rm -f "$T/result.json"
	bj --pool eg --result "$T/result.json" --allow allowed.test -- sh -c \
		"$(probes "+tcp allowed.test 7" "+tcp sub.allowed.test 7") && $(probes "tcp 192.0.2.11 7")"
	assert_rc 0
	reached tcp allowed.test 7 192.0.2.10
	assert_match "$(line "tcp sub.allowed.test 7")" "nxdomain\$" "sub.allowed.test, first job"
	blocked tcp 192.0.2.11 7
	rm -f "$T/result.json"
	bj --pool eg --result "$T/result.json" --allow sub.allowed.test -- sh -c \
		"$(probes "+tcp sub.allowed.test 7" "+tcp allowed.test 7") && $(probes "tcp 192.0.2.10 7")"
	assert_rc 0
	reached tcp sub.allowed.test 7 192.0.2.11
	assert_match "$(line "tcp allowed.test 7")" "nxdomain\$" "allowed.test, second job"
	blocked tcp 192.0.2.10 7
	run_cmd "$BRIG" --root "$T/root" pool destroy eg
	assert_rc 0
	assert_no_egress "after pool destroy"
}

# slot_holder SLOT: the pid of the process with SLOT's file as its fd 3
# (the child of brig's that ends the slot).
slot_holder() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/fd/3" 2>/dev/null)" = "$SLOTS/$1" ] && echo "${p#/proc/}"
	done
}

# proc_sid PID: PID's session.
proc_sid() {
	sed -n 's/^[0-9]* (.*) [A-Za-z] [0-9-]* [0-9-]* \([0-9-]*\) .*/\1/p' "/proc/$1/stat" 2>/dev/null
}

# 15. The end of an egress job: brig returns, and a child of its removes
# the link (and, with the last slot, the tables), holding the slot and
# nothing of the caller's
# (its fds are /dev/null, the slot's file and netfilter sockets; brig
# started it in the mount namespace brig started in, in a session of its
# own, deaf to SIGTERM); job --gc waits for it.
t_end() {
	need_egress
	local s pid gc fd t
	job --network egress --timeout 60s --allow allowed.test -- true
	assert_rc 0
	bj --gc
	assert_rc 0
	assert_eq "$(egress_left_now)" "" "egress links and tables once job --gc returned"
	need_faults
	BRIG_FAULT=egress.end:stop job --network egress --timeout 60s --allow allowed.test -- true
	assert_rc 0
	s=$(egress_ending)
	assert_ne "$s" "" "a slot being ended once brig returned"
	[ -n "$s" ] || return
	pid=$(slot_holder "$s")
	assert_ne "$pid" "" "the process that holds slot $s"
	[ -n "$pid" ] || return
	defer kill -KILL "$pid"
	wait_until 5 eval '[ "$(proc_state "$pid")" = T ]' || fail "$pid did not stop at egress.end"
	for fd in /proc/"$pid"/fd/*; do
		t=$(readlink "$fd")
		case ${fd##*/}:$t in
		[012]:/dev/null | 3:"$SLOTS/$s" | *:socket:*) ;;
		*) fail "the ending child's fd ${fd##*/}: $t" ;;
		esac
	done
	assert_eq "$(readlink "/proc/$pid/ns/mnt")" "$(readlink /proc/self/ns/mnt)" \
		"the ending child's mount namespace"
	assert_ne "$(proc_sid "$pid")" "$(proc_sid $$)" "the ending child's session"
	assert_ne "$(egress_left_now)" "" "the job's tables while its end is stopped"
	kill -TERM "$pid"
	"$BRIG" --root "$T/root" job --gc &
	gc=$!
	sleep 0.3
	alive "$gc" || fail "job --gc did not wait for the stopped end"
	kill -CONT "$pid"
	wait "$gc"
	assert_eq "$?" 0 "job --gc's status"
	assert_eq "$(egress_left_now)" "" "egress links and tables once job --gc returned"
	wait_until 5 dead "$pid" || fail "the ending child $pid outlived its end"
	assert_egress_clean
}

# slot_of: the slot of the job whose $out has a "resolver ADDR" line
# (ADDR: 10.213.0.0/16's address 4 * slot + 1).
slot_of() {
	local a
	a=$(resolver_addr)
	IFS=. read -r _ _ x y <<<"$a"
	echo $(((x * 256 + y - 1) / 4))
}

SAY_RESOLVER="sed -n 's/^nameserver /resolver /p' /etc/resolv.conf"

# A slot's chains stay in the tables while another slot is taken, for
# the slot's next job, which finds them emptied: it reaches nothing that
# the last job learned or that a CIDR rule of the last job's allowed,
# its figures are its own, and what the last job was denied is not in
# them.  The tables go with the last slot.
t_slot_reused() {
	need_egress
	local n
	# a job that holds a slot, and with it the tables
	bg_job --network egress --allow allowed.test --timeout 60s -- sh -c "$READY; sleep 30"
	job_started || return
	defer kill_wait "$BG_PID"
	ejob --allow allowed.test --allow 192.0.2.20/32 -- sh -c "$SAY_RESOLVER; $(probes \
		"+tcp allowed.test 7" "+tcp 192.0.2.20 7" "tcp 192.0.2.12 7")"
	assert_rc 0
	reached tcp allowed.test 7 192.0.2.10
	reached tcp 192.0.2.20 7
	blocked tcp 192.0.2.12 7
	res_has denied_addresses 192.0.2.12
	n=$(slot_of)
	assert_match "$n" '^[0-9]+$' "the first job's slot"
	# what the next job of the slot must not inherit is there
	assert_contains "$(nft list set inet brig_egress "s${n}_learned" 2>&1)" 192.0.2.10 \
		"slot $n's learned set, its job ended"
	assert_contains "$(nft list chain inet brig_egress "s${n}_cidr" 2>&1)" 192.0.2.20 \
		"slot $n's CIDR rules, its job ended"
	ejob --allow sub.allowed.test -- sh -c "$SAY_RESOLVER; $(probes "tcp 192.0.2.10 7" \
		"tcp 192.0.2.20 7" "+tcp sub.allowed.test 7")"
	assert_rc 0
	assert_eq "$(slot_of)" "$n" "the second job's slot: the first's"
	blocked tcp 192.0.2.10 7
	blocked tcp 192.0.2.20 7
	reached tcp sub.allowed.test 7 192.0.2.11
	res_has denied_addresses 192.0.2.10
	res_has denied_addresses 192.0.2.20
	res_lacks denied_addresses 192.0.2.12
	# nothing sent, nothing counted
	ejob --allow allowed.test -- sh -c "$SAY_RESOLVER"
	assert_rc 0
	assert_eq "$(slot_of)" "$n" "the third job's slot: the first's"
	assert_res egress.allowed 0
	assert_res egress.denied 0
	assert_res egress.denied_addresses '[]'
	kill -TERM "$BG_PID"
	wait_exit "$BG_PID" 30
	assert_egress_clean
}

# The tables of brig's earlier layout (one pair per slot, brig_e<slot>),
# as a dead job of an older brig left them for slot 0's link: the slot's
# next job removes them, and is filtered by its own chains alone.
t_old_tables() {
	need_egress
	nft -f - <<-'EOF' || fail "cannot make the old tables"
		table inet brig_e0 {
			chain out {
				type filter hook forward priority filter - 10; policy accept;
				iifname "brig-e0" drop
			}
		}
		table arp brig_e0 {
			chain in {
				type filter hook input priority filter - 10; policy accept;
				iifname "brig-e0" drop
			}
		}
	EOF
	ejob --allow allowed.test -- sh -c "$SAY_RESOLVER; $(probes "+tcp allowed.test 7")"
	assert_rc 0
	assert_eq "$(slot_of)" 0 "the job's slot"
	reached tcp allowed.test 7 192.0.2.10
	assert_egress_clean
}

# Takers hold the slots' directory's flock shared while they take a
# slot; under load (64 jobs on two CPUs, in CI's ASan build) some always
# did, and a job that made the tables waited for the lock alone, up to
# 5 s, then failed ("lock ...: Connection timed out").  Making the tables
# needs no lock: here the directory is held shared throughout, as by a
# taker that never ends, and a job that makes the tables starts at once.
# The last slot let go cannot delete them meanwhile (it needs the lock
# alone): --gc does once it is let go.
t_tables_beside_takers() {
	need_egress
	local holder
	assert_eq "$(egress_left_now)" "" "egress links and tables before" || return
	(umask 077 && mkdir -p "$SLOTS")
	# (the lock is sleep's, which is the job: killed, it lets go)
	(exec 9<"$SLOTS" && flock -s 9 && exec sleep 60) &
	holder=$!
	defer kill_wait "$holder"
	wait_until 5 eval 'grep -Eq "FLOCK +ADVISORY +READ +[0-9]+ [0-9a-f:]+:$(stat -c %i "$SLOTS") " /proc/locks' ||
		fail "the test's shared lock on $SLOTS is not there"
	ejob --allow allowed.test -- sh -c "$(probes "+tcp allowed.test 7" "tcp 192.0.2.20 7")"
	assert_rc 0
	assert_eq "$err" "" "stderr"
	reached tcp allowed.test 7 192.0.2.10
	blocked tcp 192.0.2.20 7
	kill_wait "$holder"
	bj --gc
	assert_rc 0
	assert_egress_clean
}

# brig SIGKILLed while the child that makes its slot's chains (and the
# tables) is stopped at egress.make-tables: the child, let go, makes them
# and finds nobody to hand them to; the slot's file, locked through
# brig's open file that the child shares, is free once the child is
# gone; --gc leaves nothing, and the next job gets through.
t_sigkill_maker() {
	need_egress
	need_faults
	local maker
	assert_eq "$(egress_left_now)" "" "egress links and tables before" || return
	mkdir -p "$T/tmp"
	BRIG_FAULT=egress.make-tables:stop TMPDIR=$T/tmp "$BRIG" --root "$T/root" job \
		--rootfs "$ROOTFS" --network egress --allow allowed.test --timeout 60s -- true \
		</dev/null >"$T/out" 2>"$T/err" &
	local pid=$!
	defer kill_wait "$pid"
	wait_until 30 eval '[ -n "$(stopped_child "$pid")" ]' ||
		fail "brig's child did not stop at egress.make-tables: $(cat "$T/err")" || return
	maker=$(stopped_child "$pid")
	kill -KILL "$pid"
	{ wait_exit "$pid" 10; } 2>/dev/null
	assert_eq "$rc" 137 "brig's status after SIGKILL"
	kill -CONT "$maker"
	wait_until 10 dead "$maker" || fail "the child $maker outlived brig by 10 s"
	bj --gc
	assert_rc 0
	assert_eq "$err" "" "stderr of --gc"
	assert_egress_clean "after --gc"
	next_job_through
}

# stopped_child PID: a child of PID's that is stopped (state T), if any.
stopped_child() {
	local c
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		[ "$(proc_state "$c")" = T ] && echo "$c" && return
	done
}

# Two jobs that find no tables make them at the same moment (both stopped
# where they are about to, then let go together): one makes them, the
# other's transaction fails whole and it makes its slot's chains alone.
# One pair of tables, each base chain's rules once, each job filtered by
# its own chains.  (The tables are made by a child of brig's, which is
# the one stopped.)
t_tables_made_at_once() {
	need_egress
	need_faults
	local i pids=() makers=() o
	assert_eq "$(egress_left_now)" "" "egress links and tables before" || return
	mkdir -p "$T/tmp" "$T/m" "$T/s"
	chmod 1777 "$T/s"
	rm -f "$T/s/go"
	for i in 0 1; do
		BRIG_FAULT=egress.make-tables:stop TMPDIR=$T/tmp "$BRIG" --root "$T/root" job \
			--rootfs "$ROOTFS" --network egress --allow allowed.test --timeout 60s \
			--mount "$T/s:/s:rw" -- sh -c "$(probes "+tcp allowed.test 7" \
			"tcp 192.0.2.20 7"); touch /s/done.$i; n=0
			while [ ! -e /s/go ] && [ \$n -lt 300 ]; do sleep 0.1; n=\$((n + 1)); done" \
			</dev/null >"$T/m/$i.out" 2>"$T/m/$i.err" &
		pids+=("$!")
		defer kill_wait "$!"
	done
	for i in 0 1; do
		wait_until 30 eval '[ -n "$(stopped_child "${pids[i]}")" ]' ||
			fail "job $i's brig's child did not stop at egress.make-tables: $(cat "$T/m/$i.err")"
		makers+=("$(stopped_child "${pids[i]}")")
	done
	kill -CONT "${makers[@]}"
	wait_until 30 eval '[ -e "$T/s/done.0" ] && [ -e "$T/s/done.1" ]' ||
		fail "the jobs did not get through: $(cat "$T/m/0.err" "$T/m/1.err")"
	assert_eq "$(nft list tables 2>&1 | grep -c brig_egress)" 2 "tables named brig_egress"
	for o in "inet brig_egress in" "inet brig_egress out" "arp brig_egress in"; do
		assert_eq "$(nft list chain $o 2>&1 | grep -c 'iifname "brig-e\*" drop')" 1 \
			"the rule that drops what no slot takes, in chain $o"
	done
	assert_eq "$(nft list chain inet brig_egress nat 2>&1 | grep -c masquerade)" 1 \
		"masquerade rules"
	touch "$T/s/go"
	for i in 0 1; do
		wait_exit "${pids[i]}" 60
		assert_eq "$rc" 0 "job $i's status (stderr: $(cat "$T/m/$i.err"))"
		out=$(cat "$T/m/$i.out")
		reached tcp allowed.test 7 192.0.2.10
		blocked tcp 192.0.2.20 7
	done
	assert_egress_clean
}

tap_test "the fake internet answers the host (by name, TCP, UDP, IPv6)" t_fake
tap_test "an allowed name resolves and is reached on every port" t_allowed_name
tap_test "the job's eth0, route and resolv.conf" t_job_network
tap_test "NAME:PORT: that port only" t_port_rule
tap_test "*.NAME: the names below it, not NAME" t_suffix_rule
tap_test "a denied name: NXDOMAIN, counted" t_denied_name
tap_test "a denied address: TCP and UDP dropped, counted" t_denied_address
tap_test "the host, metadata, loopback, private: never reached" t_never_reached
tap_test "DNS: UDP to brig's resolver only, A only" t_dns_rules
tap_test "IPv6: not routed, every attempt refused and counted; IPv6 rules refused" t_ipv6
tap_test "CIDR rules, with and without a port" t_cidr_rules
tap_test "a CNAME chain" t_cname
tap_test "the job cannot change the rules" t_job_cannot_change_rules
tap_test "spoofed ARP and neighbour solicitations: brig's namespace learns none" t_spoofed_neighbours
tap_test "64 jobs at once, each with its own rules" t_concurrent
tap_test "brig SIGKILLed mid-job: --gc leaves nothing" t_sigkill_gc
tap_test "bad --allow values: 125, one line, nothing left" t_bad_allow
tap_test "killed or failing at each step: nothing left (after --gc)" t_kill_steps
tap_test "pooled egress jobs with different rules back to back" t_pool
tap_test "a job's end: its link removed by a child of brig's; --gc waits" t_end
tap_test "a slot's next job finds its chains emptied; the tables go with the last slot" t_slot_reused
tap_test "an older brig's per-slot tables: removed by the slot's next job" t_old_tables
tap_test "the tables made while takers hold the slots' directory: at once" t_tables_beside_takers
tap_test "two jobs make the tables at once: one pair, each job its own chains" t_tables_made_at_once
tap_test "brig SIGKILLed while its child makes the tables: --gc leaves nothing" t_sigkill_maker
tap_done
