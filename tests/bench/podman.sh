#!/bin/bash
# tests/bench/podman.sh: what the runtime's speed means through an
# engine: `podman run --rm IMAGE true` with brig, runc and crun as the
# runtime, in one hyperfine invocation.  Podman gets a store and a
# configuration of its own (tests/lib/podman.sh: contrib/podman's
# containers.conf, cgroupfs), the image is a busybox rootfs imported into
# that store (no registry), and everything runs inside tests/e2e/isolate.sh
# (a private mount and cgroup namespace; the host is left untouched).
# crun, which refuses this host's hybrid cgroups, is shown when it runs.
# It prints, never asserts.
#
#   sudo tests/bench/podman.sh        RUNS=50 tests/bench/podman.sh
#
# Environment: BRIG (default: the build's brig), RUNS (30), WARMUP (3),
# KEEP=1 keeps the work directory.
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-30}
WARMUP=${WARMUP:-3}
bench_start podman podman conmon hyperfine jq
trap bench_finish EXIT
export W BRIG RUNS WARMUP SRC

cat >"$W/inner.sh" <<'EOS'
set -u
# shellcheck source=../lib/rootfs.sh
. "$SRC/tests/lib/rootfs.sh"
# shellcheck source=../lib/podman.sh
. "$SRC/tests/lib/podman.sh"
IMG=localhost/brig-bench-busybox
brig_podman_config "$W/podman" "$BRIG" "$(command -v runc)" || exit 1
export CONTAINERS_CONF=$W/podman/containers.conf CONTAINERS_STORAGE_CONF=$W/podman/storage.conf
brig_make_rootfs "$W/rootfs" >/dev/null || exit 1
tar -C "$W/rootfs" -cf "$W/rootfs.tar" . || exit 1
podman import --change 'CMD ["/bin/sh"]' "$W/rootfs.tar" "$IMG" >/dev/null || exit 1
args=()
for r in "$BRIG" runc crun; do
	command -v "$r" >/dev/null 2>&1 || continue
	# only a runtime that runs the image here is timed
	podman --runtime "$r" run --rm "$IMG" true >/dev/null 2>&1 || {
		echo "bench: $(basename "$r") cannot run the image here: skipped" >&2
		continue
	}
	n=$(basename "$r")
	args+=(-n "$n" "podman --runtime $r run --rm $IMG true")
done
hyperfine -N --style basic --warmup "$WARMUP" --runs "$RUNS" --export-json "$W/bench.json" "${args[@]}"
r=$?
# podman (cgroupfs) leaves its parents, libpod_parent and its conmon,
# empty: below the caller's cgroup in every hierarchy, which is the root
# of each one here (isolate.sh's cgroup namespace)
find /sys/fs/cgroup/*/libpod_parent /sys/fs/cgroup/libpod_parent -depth -type d \
	-exec rmdir {} + 2>/dev/null
exit "$r"
EOS

note "$(uname -r), $(nproc) CPUs, load $(cut -d" " -f1-3 /proc/loadavg), $(podman --version)"
E2E_TMP=$W bash "$SRC/tests/e2e/isolate.sh" bash "$W/inner.sh" >"$W/hf.log" 2>&1 ||
	{
		tail -20 "$W/hf.log" >&2
		die "podman or hyperfine failed"
	}
grep '^bench:' "$W/hf.log"

stats=$(jq -r '.results[] | [.command, .median * 1000, .mean * 1000, .stddev * 1000] | @tsv' "$W/bench.json")
echo
printf '%-8s %10s %10s %10s\n' runtime "median ms" "mean ms" "sd ms"
while IFS=$'\t' read -r name median mean sd; do
	printf '%-8s %10.1f %10.1f %10.1f\n' "$name" "$median" "$mean" "$sd"
done <<<"$stats"
echo
b=$(awk -F'\t' '$1 == "brig" { print $2 }' <<<"$stats")
for other in runc crun; do
	o=$(awk -F'\t' -v n="$other" '$1 == n { print $2 }' <<<"$stats")
	[ -n "$b" ] && [ -n "$o" ] &&
		awk -v b="$b" -v o="$o" -v n="$other" 'BEGIN { printf "podman run --rm with brig/%s: %.2fx (median %.1f ms vs %.1f ms)\n", n, b / o, b, o }'
done
exit 0
