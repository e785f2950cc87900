#!/bin/bash
# The one direction of brig's dependencies (docs/DESIGN.md, Layers): a
# file includes headers of its own layer or of a layer below it, never
# above.  From the bottom:
#
#   0 runtime/util/   1 spec/   2 hooks/   3 runtime/cgroup/
#   4 runtime/linux/  5 runtime/lifecycle/
#   6 runtime/job/    7 runtime/cmd/    8 runtime/main.c
#
# Every source file lives in its layer's folder: one anywhere else (at
# the top of runtime/ but main.c, say) is an error too, and so is an
# include of a header that is in no layer's folder.  Run from the source
# tree; prints each, exits 1 when there is one.  `make lint` runs it.
set -u
cd "${1:-.}" || exit 2

# layer FILE-OR-HEADER: the layer number of a path relative to the tree
# (a header as written in #include: "util/log.h" is runtime/util/log.h).
layer() {
	case $1 in
	runtime/main.c) echo 8 ;;
	runtime/cmd/* | cmd/*) echo 7 ;;
	runtime/job/* | job/*) echo 6 ;;
	runtime/linux/* | linux/*) echo 4 ;;
	runtime/lifecycle/* | lifecycle/*) echo 5 ;;
	runtime/cgroup/* | cgroup/*) echo 3 ;;
	hooks/*) echo 2 ;;
	spec/*) echo 1 ;;
	runtime/util/* | util/*) echo 0 ;;
	*) echo none ;;
	esac
}

bad=0
while IFS= read -r file; do
	mine=$(layer "$file")
	if [ "$mine" = none ]; then
		echo "layers: $file is in no layer's folder"
		bad=1
		continue
	fi
	while IFS= read -r hdr; do
		[ "$hdr" = config.h ] && continue
		theirs=$(layer "$hdr")
		if [ "$theirs" = none ]; then
			echo "layers: $file includes \"$hdr\", which is in no layer's folder"
			bad=1
		elif [ "$theirs" -gt "$mine" ]; then
			echo "layers: $file (layer $mine) includes \"$hdr\" (layer $theirs)"
			bad=1
		fi
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
done < <(find runtime spec hooks -name '*.[ch]' | sort)
exit "$bad"
