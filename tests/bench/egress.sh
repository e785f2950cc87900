#!/bin/bash
# tests/bench/egress.sh: what --network egress costs a job.
#
#   sudo tests/bench/egress.sh            RUNS=200 LOOKUPS=200 tests/bench/egress.sh
#
# In network and mount namespaces of its own (nothing of the host's
# network is touched), with a fake upstream resolver (dnsmasq, in a
# namespace of its own, answering allowed.test) named by a private
# /etc/resolv.conf:
#
#   start    `brig job --network egress --allow allowed.test -- true`
#            against `--network loopback -- true`, in ROUNDS hyperfine
#            runs, the order swapped each round: the difference of the
#            medians (goal: at most 2 ms), and of the means; and, where
#            /run is not a tmpfs, again (last) with one there
#   spaced   the same, SPACED_RUNS runs 0.7 s apart: the egress tables
#            are gone by each job's start (they stay 0.5 s after the
#            last job), and the job makes them again
#   phases   PHASE_RUNS jobs of each network back to back with --debug:
#            the median of each phase brig logs (where the cost lies)
#   lookup   LOOKUPS lookups of allowed.test (busybox nslookup -type=a)
#            from inside a job: through brig's resolver (egress)
#            against straight to the upstream (--network host): the
#            difference per lookup (goal: at most 1 ms)
#   rss      brig's peak RSS while an egress job runs, against a loopback
#            job's
#
# It prints, never asserts (tests/bench/README.md).
#
# Environment: BRIG (default: the build's brig), RUNS (100), WARMUP (5),
# ROUNDS (5), LOOKUPS (100), PHASE_RUNS (40), SPACED_RUNS (15).
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-100}
WARMUP=${WARMUP:-5}
LOOKUPS=${LOOKUPS:-100}
PHASE_RUNS=${PHASE_RUNS:-40}
ROUNDS=${ROUNDS:-5}
SPACED_RUNS=${SPACED_RUNS:-15}

if [ -z "${BRIG_BENCH_EGRESS_INSIDE:-}" ]; then
	bench_need hyperfine dnsmasq=dnsmasq-base
	exec env BRIG_BENCH_EGRESS_INSIDE=1 unshare --net --mount --propagation private \
		bash "$0" "$@"
fi
bench_start egress hyperfine dnsmasq=dnsmasq-base
chmod 0755 "$W"
up_pid='' dns_pid=''
cleanup() {
	[ -n "$dns_pid" ] && kill "$dns_pid" 2>/dev/null
	[ -n "$up_pid" ] && kill "$up_pid" 2>/dev/null
	wait 2>/dev/null
	"$BRIG" --root "$W/root" job --gc >/dev/null 2>&1
	rm -rf "$W"
}
trap cleanup EXIT

brig_make_rootfs "$W/rootfs" >/dev/null || die "cannot make the rootfs"
chmod -R go+rX "$W/rootfs"

# the upstream: a namespace held by a sleeping process, a veth to it
ip link set lo up
unshare --net sleep infinity &
up_pid=$!
sleep 0.1
ip link add up0 type veth peer name up1 netns "/proc/$up_pid/ns/net" || die "veth"
ip addr add 198.51.100.1/24 dev up0
ip link set up0 up
nsenter --net="/proc/$up_pid/ns/net" sh -c '
	ip link set lo up && ip addr add 198.51.100.53/24 dev up1 && ip link set up1 up &&
	ip route add default via 198.51.100.1' || die "upstream"
ip route add default via 198.51.100.53
nsenter --net="/proc/$up_pid/ns/net" dnsmasq --keep-in-foreground --no-resolv --no-hosts \
	--listen-address=198.51.100.53 --bind-interfaces --user=root --pid-file= \
	--address=/allowed.test/192.0.2.10 --log-facility=- >/dev/null 2>&1 &
dns_pid=$!
echo "nameserver 198.51.100.53" >"$W/resolv.conf"
mount --bind "$W/resolv.conf" /etc/resolv.conf || die "resolv.conf"
sleep 0.3

J=("$BRIG" --root "$W/root" job --rootfs "$W/rootfs")

J=("$BRIG" --root "$W/root" job --rootfs "$W/rootfs")

# start ROOT [HYPERFINE-OPTION...]: both, with the state under ROOT, in
# ROUNDS hyperfine runs of RUNS/ROUNDS each, the two commands' order
# swapped from one round to the next (a spell of load lands on both
# alike); every round's times together, the medians and the means
start() {
	local j="$BRIG --root $1 job --rootfs $W/rootfs" k per cmds
	shift
	cmds=("$j --network loopback -- true" "$j --network egress --allow allowed.test -- true")
	per=$(((RUNS + ROUNDS - 1) / ROUNDS))
	rm -f "$W"/start.*.json
	for ((k = 0; k < ROUNDS; k++)); do
		hyperfine -N --warmup "$WARMUP" --runs "$per" "$@" --export-json "$W/start.$k.json" \
			"${cmds[k % 2]}" "${cmds[(k + 1) % 2]}" >/dev/null 2>&1 ||
			die "hyperfine failed"
	done
	jq -rs '[.[].results[]] | group_by(.command | test("--network egress"))
		| map([.[].times[]] | sort | [(.[(length / 2 | floor)] + .[((length - 1) / 2 | floor)]) / 2, add / length])
		| "\(.[0][0] * 1000) \(.[1][0] * 1000) \(.[0][1] * 1000) \(.[1][1] * 1000)"' "$W"/start.*.json |
		awk '{ printf "loopback %.2f ms, egress %.2f ms (medians): egress costs %.2f ms more (goal: at most 2), %.2fx; means %.2f and %.2f ms, +%.2f\n",
			$1, $2, $2 - $1, $2 / $1, $3, $4, $4 - $3 }'
}
echo "== start: egress against loopback, \`true\`, $RUNS runs each in $ROUNDS rounds"
start "$W/root"
# Jobs further apart than the tables linger after the last one (0.5 s,
# runtime/job/egress_slot.c) each make the tables anew
echo "== spaced: the same, $SPACED_RUNS runs each, 0.7 s apart (the tables made for each job)"
RUNS=$SPACED_RUNS ROUNDS=1 WARMUP=1 start "$W/root" --prepare "sleep 0.7"
echo "== phases: $PHASE_RUNS jobs of each back to back, brig --debug's phases (medians)"
for net in loopback egress; do
	allow=()
	[ "$net" = egress ] && allow=(--allow allowed.test)
	for ((i = 0; i < PHASE_RUNS; i++)); do
		"$BRIG" --root "$W/root" --debug job --rootfs "$W/rootfs" --network "$net" \
			"${allow[@]}" -- true 2>&1 >/dev/null |
			grep -o "phases: .*\"" >>"$W/$net.phases"
	done
	echo "--network $net:"
	bench_phase_medians "$W/$net.phases"
done

echo "== lookup: $LOOKUPS lookups of allowed.test from inside a job, less the same job without them"
# busybox's date has no %N: each job is timed from outside, with its
# lookups and without, through brig's resolver (the job's resolv.conf
# names it) and straight to the upstream (--network host)
# (hyperfine -N splits each command as a shell would: the loops are quoted)
# shellcheck disable=SC2016
via='i=0; while [ $i -lt $0 ]; do nslookup -type=a allowed.test >/dev/null || exit 1; i=$((i+1)); done'
# shellcheck disable=SC2016
direct='i=0; while [ $i -lt $0 ]; do nslookup -type=a allowed.test 198.51.100.53 >/dev/null || exit 1; i=$((i+1)); done'
LRUNS=${LOOKUP_RUNS:-10}
hyperfine -N --warmup 2 --runs "$LRUNS" --export-json "$W/lookup.json" \
	"${J[*]} --network egress --allow allowed.test -- sh -c '$via' $LOOKUPS" \
	"${J[*]} --network egress --allow allowed.test -- sh -c '$via' 0" \
	"${J[*]} --network host -- sh -c '$direct' $LOOKUPS" \
	"${J[*]} --network host -- sh -c '$direct' 0" >/dev/null 2>&1 ||
	note "a lookup loop failed"
if [ -s "$W/lookup.json" ]; then
	jq -r '[.results[].mean * 1000] | "\(.[0]) \(.[1]) \(.[2]) \(.[3])"' "$W/lookup.json" |
		awk -v n="$LOOKUPS" '{ v = ($1 - $2) / n; d = ($3 - $4) / n
			printf "through brig'"'"'s resolver %.3f ms, straight to the upstream %.3f ms: %.3f ms more a lookup (goal: at most 1)\n", v, d, v - d }'
fi

echo "== rss: brig's peak while a job runs"
for net in loopback egress; do
	"${J[@]}" --network "$net" -- sleep 1 >/dev/null 2>&1 &
	p=$!
	sleep 0.6
	echo "$net: $(sed -n 's/^VmHWM:[[:space:]]*//p' "/proc/$p/status" 2>/dev/null)"
	wait "$p"
done

# An egress job makes two files more than a loopback one under /run (its
# slot's, and its resolv.conf in its state).  Where /run is not a tmpfs
# (this kind of machine: it is on the root's ext4), each costs what ext4
# takes to find a free inode among those deleted a moment ago, which
# tmpfs never pays.  Every host that boots systemd or Debian's initramfs
# has /run on a tmpfs: the same runs with one there, in this namespace.
if [ "$(stat -f -c %T /run)" != tmpfs ]; then
	# (what the jobs above left under the real /run ended first)
	"$BRIG" --root "$W/root" job --gc >/dev/null 2>&1
	mount -t tmpfs -o mode=0755 tmpfs /run || die "tmpfs on /run"
	echo "== start: the same, with /run a tmpfs and the state in /run/brig (as on a host with systemd)"
	start /run/brig
fi
