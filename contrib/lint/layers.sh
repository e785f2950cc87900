#!/bin/bash
# The one direction of brig's dependencies (docs/DESIGN.md, Layers): a
# file includes headers of its own layer or of a layer below it, never
# above.  From the bottom:
#
#   0 runtime/util/   1 spec/   2 hooks/   3 runtime/cgroup/
#   4 runtime/linux/  5 the lifecycle (runtime/*.c, *.h)
#   6 runtime/job/    7 runtime/cmd/    8 runtime/main.c
#
# Run from the source tree; prints each include that points up, exits 1
# when there is one.  `make lint` runs it.
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
	runtime/cgroup/* | cgroup/*) echo 3 ;;
	hooks/*) echo 2 ;;
	spec/*) echo 1 ;;
	runtime/util/* | util/*) echo 0 ;;
	runtime/* | *.h) echo 5 ;;
	*) echo 5 ;;
	esac
}

bad=0
while IFS= read -r file; do
	mine=$(layer "$file")
	while IFS= read -r hdr; do
		[ "$hdr" = config.h ] && continue
		theirs=$(layer "$hdr")
		if [ "$theirs" -gt "$mine" ]; then
			echo "layers: $file (layer $mine) includes \"$hdr\" (layer $theirs)"
			bad=1
		fi
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
done < <(find runtime spec hooks -name '*.[ch]' | sort)
exit "$bad"
