#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# Build brig's fuzz targets with libFuzzer, ASan and UBSan and fuzz each
# for ${FUZZ_SECONDS:-60} seconds.  Prints TAP, one test per target (run
# by `make check`):
#
#   config   config.json, process.json (exec --process) and LinuxResources
#            (update --resources): tests/fuzz/fuzz-config.c, seeded with
#            tests/unit/fixtures
#   cmdline  the command line of every command, flags and values
#            (fuzz-cmdline.c, seeds in corpus/cmdline: NUL-separated argv)
#   state    state.json as read back, and its round trip (fuzz-state.c)
#   seccomp  a profile's translation to BPF (fuzz-seccomp.c)
#   dns      the egress job's resolver: a job's query and an upstream's
#            answer (fuzz-dns.c, seeds in corpus/dns: a selector byte and
#            a packet; c-ares is loaded from the system)
#
#   FUZZ_SECONDS   how long to fuzz each target; 0 skips the file
#   FUZZ_TARGETS   which targets (default: all five)
#   FUZZ_CC        the compiler (default clang)
#   BRIG_SRCDIR    the source tree (default: this script's ../..)
#   BRIG_BUILDDIR  where config.h and the generated sources are (default:
#                  BRIG_SRCDIR)
#
# Everything is built and run in a temporary directory, removed at the end;
# a crash leaves its input in a kept directory named in the output.
set -u

seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-config cmdline state seccomp dns}
cc=${FUZZ_CC:-clang}
srcdir=${BRIG_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${BRIG_BUILDDIR:-$srcdir}

skip() {
	echo "1..0 # SKIP $*"
	exit 0
}

# Indent a log into TAP comments.
diag() {
	sed 's/^/# /'
}

case $seconds in
0) skip "FUZZ_SECONDS=0" ;;
*[!0-9]*) skip "FUZZ_SECONDS=$seconds is not a number of seconds" ;;
esac
command -v "$cc" >/dev/null 2>&1 || skip "$cc not found"
[ -f "$builddir/config.h" ] || skip "no config.h in $builddir (run configure)"
[ -f "$builddir/runtime/job/default_profile.c" ] ||
	skip "no runtime/job/default_profile.c in $builddir (run make)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/brig-fuzz.XXXXXX") || skip "cannot create a temporary directory"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' \
	>"$tmp/probe.c"
"$cc" -fsanitize=fuzzer,address,undefined "$tmp/probe.c" -o "$tmp/probe" \
	>"$tmp/probe.log" 2>&1 ||
	skip "$cc cannot link -fsanitize=fuzzer (install libclang-rt-dev)"

set -- $targets
echo "1..$#"

# brig without its main(), instrumented once for every target
cflags="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -std=gnu11"
libs=""
for pkg in yajl libseccomp libcap libselinux libsystemd; do
	pkg-config --exists "$pkg" 2>/dev/null || continue
	cflags="$cflags $(pkg-config --cflags "$pkg")"
	libs="$libs $(pkg-config --libs "$pkg")"
done
mkdir "$tmp/obj"
objs_ok=1
for f in "$srcdir"/runtime/*.c "$srcdir"/runtime/*/*.c "$srcdir"/hooks/*.c "$srcdir"/spec/*.c \
	"$builddir/runtime/job/default_profile.c"; do
	case $f in */runtime/main.c) continue ;; esac
	o=$tmp/obj/$(echo "${f#"$srcdir"/}" | tr / _).o
	# shellcheck disable=SC2086 # (the flags)
	"$cc" -c $cflags -I"$builddir" -iquote "$srcdir" -iquote "$srcdir/runtime" "$f" -o "$o" \
		>>"$tmp/build.log" 2>&1 || objs_ok=0
done

n=0 status_all=0
for t in "$@"; do
	n=$((n + 1))
	if [ "$objs_ok" != 1 ] || ! "$cc" -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -std=gnu11 -I"$builddir" -iquote "$srcdir" \
		-iquote "$srcdir/runtime" "$srcdir/tests/fuzz/fuzz-$t.c" "$tmp"/obj/*.o $libs \
		-o "$tmp/fuzz-$t" >>"$tmp/build.log" 2>&1; then
		echo "not ok $n - fuzz $t: the target does not build"
		tail -n 30 "$tmp/build.log" | diag
		status_all=1
		continue
	fi

	mkdir "$tmp/corpus-$t" "$tmp/artifacts-$t"
	if [ "$t" = config ]; then
		for f in "$srcdir"/tests/unit/fixtures/*.json "$srcdir"/tests/unit/fixtures/good/*.json \
			"$srcdir"/tests/unit/fixtures/bad/*.json; do
			[ -f "$f" ] || continue
			case $f in
			*/good/*) cp "$f" "$tmp/corpus-$t/good-${f##*/}" ;;
			*/bad/*) cp "$f" "$tmp/corpus-$t/bad-${f##*/}" ;;
			*) cp "$f" "$tmp/corpus-$t/${f##*/}" ;;
			esac
		done
	else
		cp "$srcdir/tests/fuzz/corpus/$t"/* "$tmp/corpus-$t/"
	fi
	seeds=$(find "$tmp/corpus-$t" -type f | wc -l)

	status=0
	(cd "$tmp" && UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		LSAN_OPTIONS=suppressions="$srcdir/tests/fuzz/lsan.supp" \
		"./fuzz-$t" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 \
		-detect_leaks=1 -dict="$srcdir/tests/fuzz/dict" -print_final_stats=1 \
		-artifact_prefix="$tmp/artifacts-$t/" "corpus-$t") >"$tmp/fuzz-$t.log" 2>&1 ||
		status=$?

	runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$tmp/fuzz-$t.log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$tmp/fuzz-$t.log" | tail -n 1)
	if [ "$status" -eq 0 ] && [ -n "$runs" ]; then
		echo "ok $n - fuzz $t for $seconds s"
		echo "# $runs runs from $seeds seeds, ${cov:-cov: ?}, corpus grew to $(find "$tmp/corpus-$t" -type f | wc -l)"
		continue
	fi

	status_all=1
	echo "not ok $n - fuzz $t for $seconds s (exit status $status)"
	if [ -n "$(ls "$tmp/artifacts-$t")" ]; then
		kept=$(mktemp -d "${TMPDIR:-/tmp}/brig-fuzz-crash.XXXXXX")
		cp "$tmp/artifacts-$t"/* "$kept"/
		echo "# inputs kept in $kept; replay: fuzz-$t $kept/<file>"
		for a in "$kept"/*; do
			echo "# $(basename "$a"), $(wc -c <"$a") bytes, first 256 in hex:"
			head -c 256 "$a" | od -An -tx1 | diag
		done
	fi
	tail -n 60 "$tmp/fuzz-$t.log" | diag
done
exit "$status_all"
