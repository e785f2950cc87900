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

while read -r n file; do
	if [ "$file" != total ] && [ "$n" -gt "$MAX_LINES" ]; then
		echo "files: $file has $n lines (at most $MAX_LINES)"
		bad=1
	fi
done < <(find runtime spec hooks -name '*.[ch]' -print0 | sort -z | xargs -0 wc -l)

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
	# each file's uses of the others' functions, then each pair that
	# uses each other: one awk for the folder (a grep per pair took a
	# minute of CPU for the whole tree)
	out=$(for f in "${files[@]}"; do
		key=${f//\//_}
		printf '%s\n' "$f" "$tmp/$key.defs" "$tmp/$key.code"
	done | awk '
		{ n++; name[n] = $0
			if (n % 3 == 0) { file[n / 3] = name[n - 2]; defs[n / 3] = name[n - 1]
				code[n / 3] = name[n] }
			next }
		END {
			nf = n / 3
			for (i = 1; i <= nf; i++)
				while ((getline line < defs[i]) > 0) owner[line] = owner[line] " " i
			for (i = 1; i <= nf; i++) {
				while ((getline line < code[i]) > 0) {
					gsub(/[^A-Za-z0-9_]+/, " ", line)
					m = split(line, w, " ")
					for (k = 1; k <= m; k++) {
						if (!(w[k] in owner)) continue
						split(owner[w[k]], o, " ")
						for (x in o) if (o[x] != i) used[i, o[x], w[k]] = 1
					}
				}
			}
			for (key in used) { split(key, p, SUBSEP); names[p[1], p[2]] = names[p[1], p[2]] " " p[3] }
			for (i = 1; i <= nf; i++)
				for (j = i + 1; j <= nf; j++)
					if (((i, j) in names) && ((j, i) in names))
						printf "files: %s and %s call each other (%s: %s; %s: %s)\n",
							file[i], file[j], file[i], first3(names[i, j]),
							file[j], first3(names[j, i])
		}
		# the first three of the names in S, sorted as sort(1) in the C locale
		function first3(s,   a, m, k, l, t, r) {
			m = split(s, a, " ")
			for (k = 2; k <= m; k++) {
				t = a[k]
				for (l = k - 1; l >= 1 && a[l] > t; l--) a[l + 1] = a[l]
				a[l + 1] = t
			}
			for (k = 1; k <= m && k <= 3; k++) r = r (k > 1 ? " " : "") a[k]
			return r
		}' -)
	if [ -n "$out" ]; then
		echo "$out"
		bad=1
	fi
done < <(find runtime spec hooks -type d | sort)
exit "$bad"
