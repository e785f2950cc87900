#!/bin/sh
# embed.sh NAME FILE: FILE's bytes as a C array NAME (NUL-terminated) and
# NAME_len, for the binary to carry a profile (brig job's default seccomp
# profile is contrib/seccomp/default.json).  od, not xxd: coreutils only.
set -eu
name=$1
file=$2
printf '/* generated from %s by contrib/seccomp/embed.sh: do not edit */\n' "${file##*/}"
printf '#include <stddef.h>\n\nextern const char %s[];\nextern const size_t %s_len;\n' "$name" "$name"
printf 'const char %s[] = {\n' "$name"
od -An -v -tx1 "$file" | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1, /g; s/ $//'
printf '0x00\n};\nconst size_t %s_len = sizeof(%s) - 1;\n' "$name" "$name"
