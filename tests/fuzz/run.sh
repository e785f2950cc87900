#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# Build tests/fuzz/fuzz-config.c with libFuzzer, ASan and UBSan, seed it with
# the fixtures of tests/unit/fixtures and fuzz the config parsers for
# ${FUZZ_SECONDS:-60} seconds.  Prints TAP (run by `make check`).
#
#   FUZZ_SECONDS   how long to fuzz; 0 skips the test
#   FUZZ_CC        the compiler (default clang)
#   BRIG_SRCDIR    the source tree (default: this script's ../..)
#   BRIG_BUILDDIR  where config.h is (default: BRIG_SRCDIR)
#
# Everything is built and run in a temporary directory, removed at the end;
# a crash leaves its input in a kept directory named in the output.
set -u

seconds=${FUZZ_SECONDS:-60}
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

tmp=$(mktemp -d "${TMPDIR:-/tmp}/brig-fuzz.XXXXXX") || skip "cannot create a temporary directory"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' \
	>"$tmp/probe.c"
"$cc" -fsanitize=fuzzer,address,undefined "$tmp/probe.c" -o "$tmp/probe" \
	>"$tmp/probe.log" 2>&1 ||
	skip "$cc cannot link -fsanitize=fuzzer (install libclang-rt-dev)"

echo "1..1"

if ! "$cc" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-std=gnu11 -I"$builddir" -iquote "$srcdir" -iquote "$srcdir/runtime" \
	"$srcdir/tests/fuzz/fuzz-config.c" "$srcdir"/runtime/util/*.c "$srcdir"/spec/*.c \
	-lyajl -o "$tmp/fuzz-config" >"$tmp/build.log" 2>&1; then
	echo "not ok 1 - fuzz config parser: the target does not build"
	tail -n 30 "$tmp/build.log" | diag
	exit 1
fi

mkdir "$tmp/corpus"
for f in "$srcdir"/tests/unit/fixtures/*.json "$srcdir"/tests/unit/fixtures/good/*.json \
	"$srcdir"/tests/unit/fixtures/bad/*.json; do
	[ -f "$f" ] || continue
	case $f in
	*/good/*) cp "$f" "$tmp/corpus/good-${f##*/}" ;;
	*/bad/*) cp "$f" "$tmp/corpus/bad-${f##*/}" ;;
	*) cp "$f" "$tmp/corpus/${f##*/}" ;;
	esac
done
seeds=$(find "$tmp/corpus" -type f | wc -l)

mkdir "$tmp/artifacts"
status=0
(cd "$tmp" && UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	./fuzz-config -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 \
	-detect_leaks=1 -dict="$srcdir/tests/fuzz/dict" -print_final_stats=1 \
	-artifact_prefix="$tmp/artifacts/" corpus) >"$tmp/fuzz.log" 2>&1 || status=$?

runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$tmp/fuzz.log" | tail -n 1)
cov=$(grep -o 'cov: [0-9]*' "$tmp/fuzz.log" | tail -n 1)
if [ "$status" -eq 0 ] && [ -n "$runs" ]; then
	echo "ok 1 - fuzz config parser for $seconds s"
	echo "# $runs runs from $seeds seeds, ${cov:-cov: ?}, corpus grew to $(find "$tmp/corpus" -type f | wc -l)"
	exit 0
fi

echo "not ok 1 - fuzz config parser for $seconds s (exit status $status)"
if [ -n "$(ls "$tmp/artifacts")" ]; then
	kept=$(mktemp -d "${TMPDIR:-/tmp}/brig-fuzz-crash.XXXXXX")
	cp "$tmp"/artifacts/* "$kept"/
	echo "# inputs kept in $kept; replay: fuzz-config $kept/<file>"
	for a in "$kept"/*; do
		echo "# $(basename "$a"), $(wc -c <"$a") bytes, first 256 in hex:"
		head -c 256 "$a" | od -An -tx1 | diag
	done
fi
tail -n 60 "$tmp/fuzz.log" | diag
exit 1
