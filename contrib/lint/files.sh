#!/bin/bash
# Two rules of the layout (docs/DESIGN.md, Layout) that creep back unseen:
#
#   - no source file over 800 lines: past that a file holds more than one
#     concern (split it along a seam, as checkpoint.c and job.c were);
#   - within a folder, of two files one uses the other, not both: no file
#     calls a function defined in another file of its folder that calls
#     one of its own (a two-way tie), so that the order of the files of a
#     folder reads one way, as the layers do (contrib/lint/layers.sh).
#
# A function is the file's when it is defined there and not static; a use
# is its name as a word outside comments and strings (gcc -fpreprocessed
# strips them).  Run from the source tree; prints each breach, exits 1
# when there is one.  `make lint` runs it.
set -u
cd "${1:-.}" || exit 2
MAX_LINES=800

bad=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/brig-lint-files.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

while IFS= read -r file; do
	n=$(wc -l <"$file")
	if [ "$n" -gt "$MAX_LINES" ]; then
		echo "files: $file has $n lines (at most $MAX_LINES)"
		bad=1
	fi
done < <(find runtime spec hooks -name '*.[ch]' | sort)

# code FILE: FILE without comments and strings, one line per line
code() {
	gcc -fpreprocessed -dD -E -P -x c "$1" 2>/dev/null | sed 's/"\([^"\\]\|\\.\)*"/""/g'
}

# defs CODE: the functions a file (its code, as code() prints it) defines
# and exports (not static): a definition starts at the first column and
# its line ends without ';'
defs() {
	grep -E '^[A-Za-z_]' | grep -vE '^(static|extern|typedef|struct [a-z_]+ \{|enum|union|#)' |
		grep -vE ';[[:space:]]*$' |
		sed -n 's/^.*[^A-Za-z0-9_]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' | sort -u
}

while IFS= read -r dir; do
	files=()
	while IFS= read -r f; do files+=("$f"); done < <(find "$dir" -maxdepth 1 -name '*.c' | sort)
	[ "${#files[@]}" -gt 1 ] || continue
	for f in "${files[@]}"; do
		key=${f//\//_}
		code "$f" >"$tmp/$key.code"
		defs <"$tmp/$key.code" >"$tmp/$key.defs"
	done
	for ((i = 0; i < ${#files[@]}; i++)); do
		a=${files[i]} ka=${files[i]//\//_}
		for ((j = i + 1; j < ${#files[@]}; j++)); do
			b=${files[j]} kb=${files[j]//\//_}
			[ -s "$tmp/$kb.defs" ] && [ -s "$tmp/$ka.defs" ] || continue
			ab=$(grep -owF -f "$tmp/$kb.defs" "$tmp/$ka.code" | sort -u | head -n 3 | tr '\n' ' ')
			[ -n "$ab" ] || continue
			ba=$(grep -owF -f "$tmp/$ka.defs" "$tmp/$kb.code" | sort -u | head -n 3 | tr '\n' ' ')
			[ -n "$ba" ] || continue
			echo "files: $a and $b call each other ($a: ${ab% }; $b: ${ba% })"
			bad=1
		done
	done
done < <(find runtime spec hooks -type d | sort)
exit "$bad"
