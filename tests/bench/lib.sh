# shellcheck shell=bash
# tests/bench/lib.sh: how every bench script starts, right after `set -u`:
#
#   . "$(dirname "$0")/lib.sh"
#   bench_start NAME [TOOL...]
#
# bench_start sets SRC (the source tree), BRIG (default: the build's brig,
# $SRC/brig) and W (a new work directory, $TMPDIR/brig-bench-NAME.XXXXXX,
# which the script removes), exports LC_ALL=C, and dies unless it runs as
# root with an executable $BRIG and every TOOL found: one missing is
# installed with apt-get first (Debian's package of that name, or
# TOOL=PACKAGE when they differ).  note and die print one "bench: ..."
# line (die on stderr, and exits 1).
#
# bench_memcg_usage PID: PID's memory cgroup's usage in bytes (v1 or v2).
# bench_phase_medians FILE: the median of each --debug phase in FILE.
#
# bench_delete_all RUNTIME ROOT: every container under the state root ROOT
# deleted with RUNTIME (what a failed run left); bench_finish: W removed,
# or kept with KEEP=1 (and said so).
#
# bench_bundle DIR [JQ]: a busybox bundle in DIR made by tests/lib/rootfs.sh
# with `brig spec`'s config (runc's default), no terminal, args ["true"],
# ociVersion 1.1.0 (crun 1.8.1 refuses "1.3.0", and nothing in the config
# is newer), then the jq filter JQ applied to its config.json.
# bench_bundle_beside DIR NEW JQ: a bundle NEW whose config is DIR's with
# JQ applied, its root DIR's rootfs (the same files, no copy); JQ may use
# $profile, contrib/seccomp/default.json (the Podman-like profile).

export LC_ALL=C
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BRIG=${BRIG:-$SRC/brig}
# shellcheck source=../lib/rootfs.sh
. "$SRC/tests/lib/rootfs.sh"

note() { printf 'bench: %s\n' "$*"; }
die() {
	printf 'bench: %s\n' "$*" >&2
	exit 1
}

_bench_have() {
	case $1 in
	/*) [ -x "$1" ] ;;
	*) command -v "$1" >/dev/null 2>&1 ;;
	esac
}

# bench_want TOOL[=PACKAGE]...: each one installed when missing (TOOL a
# command, or a path: /usr/bin/time=time); 1 when one is still missing.
bench_want() {
	local t tool pkg r=0
	for t in "$@"; do
		tool=${t%%=*} pkg=${t#*=}
		pkg=${pkg##*/}
		_bench_have "$tool" && continue
		note "installing $pkg"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null 2>&1 ||
			{ apt-get update -qq >/dev/null 2>&1 &&
				DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null 2>&1; }
		_bench_have "$tool" || r=1
	done
	return "$r"
}

# bench_need TOOL[=PACKAGE]...: the same, and die when one is missing.
bench_need() {
	local t
	for t in "$@"; do
		bench_want "$t" || die "needs ${t%%=*} (apt-get install ${t#*=})"
	done
}

bench_start() {
	local name=$1
	shift
	[ "$(id -u)" -eq 0 ] || die "needs root (brig and the runtimes create namespaces and mounts)"
	[ -x "$BRIG" ] || die "no brig at $BRIG (build it, or set BRIG)"
	bench_need "$@"
	# shellcheck disable=SC2034 # (the scripts')
	W=$(mktemp -d "${TMPDIR:-/tmp}/brig-bench-$name.XXXXXX") || die "mktemp"
}

bench_bundle() {
	BRIG=$BRIG brig_make_bundle "$1" >/dev/null || die "cannot make the bundle $1"
	brig_bundle_edit "$1" '.process.terminal = false | .process.args = ["true"]
		| .ociVersion = "1.1.0"'"${2:+ | $2}" || die "cannot edit the bundle $1"
}

bench_bundle_beside() {
	mkdir -p "$2" &&
		jq --arg root "$1/rootfs" --slurpfile p "$SRC/contrib/seccomp/default.json" \
			"\$p[0] as \$profile | .root.path = \$root | $3" "$1/config.json" >"$2/config.json" ||
		die "cannot make the bundle $2"
}

bench_delete_all() {
	local id
	for id in "$2"/*/; do
		[ -d "$id" ] || continue
		"$1" --root "$2" delete --force "$(basename "$id")" >/dev/null 2>&1
	done
}

# bench_memcg_usage PID: the memory usage of PID's memory cgroup in bytes
# (memory.usage_in_bytes on v1, memory.current on v2); nothing when it
# cannot be read.  Exported, for the scripts' inner `bash -c`.
bench_memcg_usage() {
	local cg
	cg=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' "/proc/$1/cgroup" 2>/dev/null)
	if [ -n "$cg" ]; then
		cat "/sys/fs/cgroup/memory$cg/memory.usage_in_bytes" 2>/dev/null
	else
		cat "/sys/fs/cgroup$(sed -n 's/^0:://p' "/proc/$1/cgroup" 2>/dev/null)/memory.current" 2>/dev/null
	fi
}
export -f bench_memcg_usage

# bench_phase_medians FILE: FILE holds "phases: ..." lines of brig --debug
# (runtime/util/phases.h), one a run; print "phase median" for the total
# and each phase, in the order of the first line.
bench_phase_medians() {
	sed 's/"$//; s/^phases: [a-z]* \([0-9.]*\) ms: /total \1, /' "$1" | tr ',' '\n' |
		sed 's/^ *//' | awk '
		{ v = $NF; $NF = ""; sub(/ $/, ""); if (!($0 in seen)) { seen[$0] = 1; order[++n] = $0 }
		  vals[$0] = vals[$0] " " v }
		END { for (i = 1; i <= n; i++) {
			k = split(vals[order[i]], a, " ");
			for (x = 1; x <= k; x++) for (y = x + 1; y <= k; y++) if (a[y] < a[x]) { t = a[x]; a[x] = a[y]; a[y] = t }
			printf "  %-28s %8.3f ms\n", order[i], a[int((k + 1) / 2)] } }'
}

bench_finish() {
	if [ "${KEEP:-0}" = 1 ]; then
		note "kept $W"
	else
		rm -rf "$W"
	fi
}
