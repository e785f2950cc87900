#!/bin/bash
# tests/bench/job.sh: `brig job -- true` next to crun and runc running an
# equivalently hardened bundle, and the bare floor.
#
#   sudo tests/bench/job.sh            RUNS=200 CONC="1 8 64" tests/bench/job.sh
#
# The bundle crun and runc run has what a job has: a user namespace (the
# container's 0-65535 mapped to host ids from 1073741824), pid, ipc, uts,
# mount, cgroup and network namespaces, no capabilities, no_new_privs, the
# Podman-like seccomp profile (contrib/seccomp/default.json) and an
# overlay rootfs over a tmpfs upper layer.  Their overlay is mounted by a
# --prepare step, outside the timing (brig's is inside it): the comparison
# favours them.  The floor is unshare(1) making the same namespaces.
#
# Then jobs per second with CONC concurrent callers (JOBS jobs in all):
# brig job against crun run of the same bundle on a plain read-only rootfs
# (no overlay to prepare per run).  It prints, never asserts; see
# tests/bench/README.md.
#
# Environment: BRIG (default: the build's brig), RUNS (100), WARMUP (5),
# CONC ("1 8 64"), JOBS (192), KEEP=1 keeps the work directory.
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-100}
WARMUP=${WARMUP:-5}
CONC=${CONC:-1 8 64}
JOBS=${JOBS:-192}
bench_start job hyperfine jq
bench_want crun runc || note "crun or runc missing: its figures are skipped"
chmod 0755 "$W"
cleanup() {
	local r
	for r in crun runc; do
		command -v "$r" >/dev/null 2>&1 || continue
		bench_delete_all "$r" "$W/root-$r"
	done
	umount "$W/ovl/merged" "$W/ovl/w" 2>/dev/null
	bench_finish
}
trap cleanup EXIT

BRIG=$BRIG brig_make_bundle "$W/bundle" >/dev/null || die "cannot make the bundle"
chmod -R go+rX "$W/bundle"
mkdir -p "$W/ovl/w" "$W/ovl/merged" "$W/hardened" "$W/plain" "$W/root-brig" "$W/root-crun" "$W/root-runc"
# the hardened config, twice: over the overlay, and over the plain rootfs
harden='.ociVersion = "1.1.0" | .process.terminal = false | .process.args = ["true"]
	| .process.capabilities = {} | .process.noNewPrivileges = true
	| .linux.namespaces = [{"type":"pid"},{"type":"ipc"},{"type":"uts"},{"type":"mount"},
		{"type":"cgroup"},{"type":"network"},{"type":"user"}]
	| .linux.uidMappings = [{"containerID":0,"hostID":1073741824,"size":65536}]
	| .linux.gidMappings = .linux.uidMappings
	| .linux.resources = {"memory":{"limit":536870912},"pids":{"limit":256}}
	| .mounts |= map(select(.destination != "/sys/fs/cgroup"))
	| .mounts |= map(if .destination == "/dev/pts" then .options -= ["gid=5"] else . end)
	| .linux.seccomp = $p[0]'
jq --arg root "$W/ovl/merged" --slurpfile p "$SRC/contrib/seccomp/default.json" \
	"$harden | .root.path = \$root" "$W/bundle/config.json" >"$W/hardened/config.json" ||
	die "cannot write the hardened bundle"
jq --arg root "$W/bundle/rootfs" --slurpfile p "$SRC/contrib/seccomp/default.json" \
	"$harden | .root.path = \$root | .root.readonly = true" "$W/bundle/config.json" \
	>"$W/plain/config.json" || die "cannot write the plain bundle"

# a fresh overlay for each crun or runc run (untimed)
cat >"$W/overlay.sh" <<EOS
umount $W/ovl/merged $W/ovl/w 2>/dev/null
mount -t tmpfs -o size=64m tmpfs $W/ovl/w && mkdir $W/ovl/w/u $W/ovl/w/k &&
	chown 1073741824:1073741824 $W/ovl/w/u &&
	mount -t overlay -o lowerdir=$W/bundle/rootfs,upperdir=$W/ovl/w/u,workdir=$W/ovl/w/k overlay $W/ovl/merged
EOS

hf=(hyperfine -N --style basic --warmup "$WARMUP" --runs "$RUNS" --export-json "$W/bench.json")
hf+=(--prepare true -n "brig job" "$BRIG --root $W/root-brig job --rootfs $W/bundle/rootfs -- true")
for r in crun runc; do
	command -v "$r" >/dev/null 2>&1 || continue
	hf+=(--prepare "sh -c '$r --root $W/root-$r delete --force b >/dev/null 2>&1; sh $W/overlay.sh'"
		-n "$r run" "$r --root $W/root-$r run --bundle $W/hardened b")
done
hf+=(--prepare true -n floor "unshare --user --map-root-user -m -u -i -n -p -C --fork true")

note "$(uname -r), $(nproc) CPUs, load $(cut -d" " -f1-3 /proc/loadavg)"
note "brig: $("$BRIG" --version | head -1)"
export W BRIG JOBS CONC
# crun refuses the hybrid layout's cgroup2 mount: a private mount
# namespace without it (the host is left as it is)
unshare -m --propagation private -- bash -c '
	if mountpoint -q /sys/fs/cgroup/unified; then umount /sys/fs/cgroup/unified || exit 1; fi
	"$@" >"$W/hyperfine.out" 2>&1 || { cat "$W/hyperfine.out"; exit 1; }
	# jobs per second, CONC callers at once
	for c in $CONC; do
		for r in brig crun; do
			if [ $r = brig ]; then
				cmd="$BRIG --root $W/root-brig job --rootfs $W/bundle/rootfs -- true"
			else
				command -v crun >/dev/null || continue
				cmd="crun --root $W/root-crun run --bundle $W/plain"
			fi
			s=$(date +%s.%N)
			seq "$JOBS" | xargs -P "$c" -I{} sh -c "$cmd c{} >/dev/null 2>&1 || echo fail" >"$W/fail.$r.$c"
			e=$(date +%s.%N)
			echo "$r $c $(awk -v s="$s" -v e="$e" -v n="$JOBS" "BEGIN { printf \"%.1f\", n / (e - s) }") $(wc -l <"$W/fail.$r.$c")"
		done
	done >"$W/conc.out"' bench "${hf[@]}" || die "hyperfine failed"

med() { jq -r --arg n "$1" '.results[] | select(.command == $n) | .median * 1000' "$W/bench.json"; }
echo
printf '%-10s %10s\n' runtime "median ms"
for n in "brig job" "crun run" "runc run" floor; do
	m=$(med "$n")
	[ -n "$m" ] && printf '%-10s %10.2f\n' "$n" "$m"
done
b=$(med "brig job")
for n in "crun run" "runc run" floor; do
	o=$(med "$n")
	[ -n "$o" ] && awk -v b="$b" -v o="$o" -v n="$n" 'BEGIN { printf "brig job/%-9s %6.2fx\n", n, b / o }'
done
echo
printf '%-6s %8s %10s %10s\n' callers runtime "jobs/s" failures
while read -r r c rate fails; do
	printf '%-6s %8s %10s %10s\n' "$c" "$r" "$rate" "$fails"
done <"$W/conc.out"
for c in $CONC; do
	awk -v c="$c" '$2 == c { r[$1] = $3 } END { if (r["crun"] > 0) printf "brig/crun jobs/s at %s callers: %.2fx\n", c, r["brig"] / r["crun"] }' "$W/conc.out"
done
