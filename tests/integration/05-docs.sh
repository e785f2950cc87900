#!/bin/bash
# The man pages and the shell completions that brig-docgen writes from the
# command table at build time: a page per command of `brig --help`, every
# flag of `brig CMD --help` in its page, pages groff takes without a
# warning, `make install` putting them where man(1), bash-completion and
# zsh look, and the bash and zsh completions themselves.  Needs the build
# tree (BRIG_BUILDDIR); only the container-id completion needs root.
# And docs/SECURITY.md, the threat model: a row for every flag of `brig job
# --help` and `brig pool --help` and every run.brig.* annotation of the
# sources, and every test it names there, saying what it is said to say.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

DOCGEN=$BRIG_BUILDDIR/contrib/docgen/brig-docgen
MAN=$BRIG_BUILDDIR/man
BASH_COMPLETION=$BRIG_BUILDDIR/completions/brig
ZSH_COMPLETION=$BRIG_BUILDDIR/completions/_brig

[ -x "$DOCGEN" ] || skip_all "no $DOCGEN: build brig first (make)"

# --------------------------------------------------------------- helpers

# The commands that `brig --help` lists.
help_commands() {
	"$BRIG" --help | sed -n '/^COMMANDS:/,/^$/p' | awk 'NR > 1 && NF { print $1 }'
}

# help_flags [CMD]: the long flags that `brig [CMD] --help` lists.
help_flags() {
	"$BRIG" "$@" --help | sed -n '/OPTIONS:$/,/^$/p' | grep -oE '^   --[a-z0-9-]+' |
		sed 's/^ *//'
}

# in_page PAGE FLAG: the page names FLAG as its source spells an option,
# "\fB\-\-no\-pivot\fR".
in_page() {
	local esc=${2//-/\\-}
	grep -qF "\\fB$esc\\fR" "$1"
}

# make_var NAME: the value of the make variable NAME in the build tree.
make_var() {
	make_build -s --eval="print-var-$1: ; @echo \$($1)" "print-var-$1"
}

# make_build ARGS...: make in the build tree as a process of its own, not
# as a child of the `make check` that runs this file: without its jobserver
# or its command-line variables (TESTS=...).
make_build() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
		make --no-print-directory -C "$BRIG_BUILDDIR" "$@"
}

# ------------------------------------------------------- the threat model

SECURITY=$BRIG_SRCDIR/docs/SECURITY.md

# security_rows HEADING: the table rows of the section "## HEADING" of
# docs/SECURITY.md, one a line.
security_rows() {
	awk -v h="## $1" '/^## / { in_section = ($0 == h); next } in_section && /^\| `/' "$SECURITY"
}

# has_row HEADING NAME: the section has a row whose input is `NAME`, or
# `NAME ARG...` (an option with its argument).
has_row() {
	local name=${2//./\\.}
	security_rows "$1" | grep -qE "^\\| \`${name}[ \`]"
}

# pool_subcommands: the subcommands `brig pool --help` names in its usage
# line ("create|list|...").
pool_subcommands() {
	"$BRIG" pool --help | sed -n '/^USAGE:/{n;p;}' | grep -oE '[a-z]+(\|[a-z]+)+' | tr '|' '\n'
}

# run_brig_annotations: the run.brig.* annotations brig's sources spell
# out (every string literal "run.brig.X"), and those its annotation guide
# documents.
run_brig_annotations() {
	(
		cd "$BRIG_SRCDIR" || exit 1
		grep -rhoE --include='*.[ch]' '"run\.brig\.[a-z0-9_.-]+"' runtime spec hooks | tr -d '"'
		grep -hoE '`run\.brig\.[a-z0-9_.-]+`' contrib/annotations/README.md | tr -d '`'
	) | sort -u
}

# cited_tests: the test files docs/SECURITY.md names, one a line.
cited_tests() {
	grep -oE 'tests/[a-z0-9_./-]+\.(sh|c)' "$SECURITY" | sort -u
}

# complete_words WORD...: what _brig offers for the last WORD of the command
# line WORD... (the cursor at its end), one a line.
complete_words() {
	bash --norc --noprofile -c '
		source "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		_brig || exit 1
		printf "%s\n" "${COMPREPLY[@]}"' _ "$BASH_COMPLETION" "$@"
}

# ------------------------------------------------------------ man pages

t_docgen_usage() {
	run_cmd "$DOCGEN"
	assert_rc 2
	assert_match "$err" '^usage: ' "stderr"
	run_cmd "$DOCGEN" man
	assert_rc 2
	run_cmd "$DOCGEN" nosuch
	assert_rc 2
	run_cmd "$DOCGEN" list
	assert_rc 0
	assert_eq "$out" "$(help_commands)" "brig-docgen list"
	mkdir pages
	run_cmd "$DOCGEN" man "$T/pages"
	assert_rc 0
	assert_eq "$out$err" "" "output of brig-docgen man"
	run_cmd "$DOCGEN" man "$T/nosuchdir"
	assert_rc 1
	assert_contains "$err" "$T/nosuchdir" "stderr"
}

t_page_per_command() {
	local cmd n=0
	assert_file "$MAN/brig.8"
	for cmd in $(help_commands); do
		assert_file "$MAN/brig-$cmd.8"
		n=$((n + 1))
	done
	assert_ne "$n" 0 "commands in brig --help"
	# man/pages lists what `make install` installs: the same pages
	assert_eq "$(sort "$MAN/pages")" "$( (
		echo brig.8
		help_commands | sed 's/.*/brig-&.8/'
	) | sort)" "man/pages"
	assert_eq "$(cd "$MAN" && ls -- *.8)" "$(sort "$MAN/pages")" "the pages in man/"
}

t_page_names_every_flag() {
	local cmd flag page
	for flag in $(help_flags); do
		in_page "$MAN/brig.8" "$flag" || fail "brig.8 does not describe $flag"
	done
	in_page "$MAN/brig.8" --root || fail "brig.8 does not describe --root"
	for cmd in $(help_commands); do
		page=$MAN/brig-$cmd.8
		assert_file "$page" || continue
		for flag in $(help_flags "$cmd"); do
			in_page "$page" "$flag" || fail "brig-$cmd.8 does not describe $flag"
		done
		grep -q "^\.SH SEE ALSO" "$page" || fail "brig-$cmd.8 has no SEE ALSO"
		grep -qF "\\fBbrig\\-$cmd\\fR(8)" "$MAN/brig.8" ||
			fail "brig.8 does not refer to brig-$cmd(8)"
	done
}

# The description of --help is re-flowed: no line of the page starts with
# the indentation of --help (a troff break), and nothing is lost.
t_page_description() {
	local page=$MAN/brig-create.8 section
	assert_file "$page" || return
	assert_eq "$(grep -c '^ ' "$MAN"/*.8 | grep -v ':0$')" "" "indented lines"
	assert_contains "$(cat "$page")" $'.SH DESCRIPTION\nCreate a container from the bundle' \
		"brig-create.8"
	assert_contains "$(cat "$page")" '\fBbrig start\fR' 'brig start in bold'
	for section in NAME SYNOPSIS DESCRIPTION COMMANDS 'GLOBAL OPTIONS' 'EXIT STATUS' FILES \
		ENVIRONMENT 'SEE ALSO'; do
		grep -qx "\\.SH $section" "$MAN/brig.8" || fail "brig.8 has no $section section"
	done
	assert_contains "$(cat "$MAN/brig.8")" "$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/"brig \1"/p' \
		"$BRIG_BUILDDIR/config.h")" ".TH of brig.8"
}

t_groff_clean() {
	local page
	require_cmd groff
	for page in "$MAN"/*.8; do
		run_cmd groff -man -ww -z -Tutf8 "$page"
		assert_rc 0
		assert_eq "$err" "" "groff warnings for ${page##*/}"
	done
}

# install_into ROOT: `make install DESTDIR=ROOT`; sets mandir and datadir.
# It only reads the build tree, so it runs beside the other test files of
# `make check`.
install_into() {
	mandir=$(make_var mandir)
	datadir=$(make_var datadir)
	if [ -z "$mandir" ] || [ -z "$datadir" ]; then
		fail "cannot read mandir and datadir from the build tree"
		return 1
	fi
	run_cmd make_build -s install DESTDIR="$1"
	assert_rc 0
}

t_install() {
	local mandir datadir root=$T/root page
	install_into "$root" || return
	for page in $(cat "$MAN/pages"); do
		assert_file "$root$mandir/man8/$page"
	done
	assert_file "$root$datadir/bash-completion/completions/brig"
	assert_file "$root$datadir/zsh/vendor-completions/_brig"
	assert_eq "$(cat "$root$datadir/bash-completion/completions/brig")" \
		"$(cat "$BASH_COMPLETION")" "installed bash completion"
	assert_eq "$(cat "$root$datadir/zsh/vendor-completions/_brig")" \
		"$(cat "$ZSH_COMPLETION")" "installed zsh completion"
	run_cmd make_build -s uninstall DESTDIR="$root"
	assert_rc 0
	assert_eq "$(find "$root" ! -type d)" "" "files left by make uninstall"
}

t_man_finds_pages() {
	local mandir datadir root=$T/root
	require_cmd man
	install_into "$root" || return
	run_cmd env MANPATH="$root$mandir" man -w brig
	assert_rc 0
	assert_eq "$out" "$root$mandir/man8/brig.8" "man -w brig"
	run_cmd env MANPATH="$root$mandir" MANPAGER=cat PAGER=cat MANWIDTH=80 man brig
	assert_rc 0
	assert_contains "$out" "brig - an OCI runtime for short, ephemeral, untrusted jobs" "man brig"
	run_cmd env MANPATH="$root$mandir" MANPAGER=cat PAGER=cat MANWIDTH=80 man 8 brig-create
	assert_rc 0
	assert_contains "$out" "brig-create - create a container" "man 8 brig-create"
}

# ------------------------------------------------------------ completions

t_bash_complete_words() {
	assert_file "$BASH_COMPLETION" || return
	run_cmd bash --norc --noprofile -n "$BASH_COMPLETION"
	assert_rc 0
	run_cmd bash --norc --noprofile -c 'source "$1" && complete -p brig' _ "$BASH_COMPLETION"
	assert_rc 0
	assert_eq "$out" "complete -F _brig brig" "complete -p brig"

	assert_eq "$(complete_words brig cr)" "create" "brig cr<TAB>"
	assert_eq "$(complete_words brig create --b)" "--bundle" "brig create --b<TAB>"
	assert_contains "$(complete_words brig --ro)" "--root" "brig --ro<TAB>"
	out=$(complete_words brig exec --)
	assert_match "$out" $'(^|\n)--process(\n|$)' "brig exec --<TAB>"
	assert_match "$out" $'(^|\n)--detach(\n|$)' "brig exec --<TAB>"
	assert_match "$(complete_words brig exec -)" $'(^|\n)-p(\n|$)' "brig exec -<TAB>"
	assert_eq "$(complete_words brig --debug st)" $'start\nstate' "brig --debug st<TAB>"
	# values: words, directories, files
	assert_eq "$(complete_words brig --log-format '')" $'text\njson' "brig --log-format <TAB>"
	assert_eq "$(complete_words brig list --format = j)" "json" "brig list --format=j<TAB>"
	mkdir bundle-dir && : >bundle-file
	assert_eq "$(complete_words brig create --bundle "$T/bundle-")" "$T/bundle-dir" \
		"brig create --bundle DIR<TAB>"
	assert_eq "$(complete_words brig create --pid-file "$T/bundle-f")" "$T/bundle-file" \
		"brig create --pid-file FILE<TAB>"
	# no flags of exec after its command, no values for a flag without one
	assert_eq "$(complete_words brig exec c1 sh --)" "" "brig exec c1 sh --<TAB>"
	assert_eq "$(complete_words brig list -q '')" "" "brig list -q <TAB>"
}

t_bash_complete_container_ids() {
	local ids
	require_root
	brig_busybox >/dev/null 2>&1 || skip "needs busybox-static"
	if ! brig_make_bundle "$T/b" >/dev/null 2>&1 ||
		! brig_bundle_edit "$T/b" '.process.terminal = false | .process.args = ["sleep", "100"]'; then
		skip "cannot make a busybox bundle"
	fi
	defer timeout -k 5 30 "$BRIG" --root "$T/root" delete --force c1
	run_cmd "$BRIG" --root "$T/root" create --bundle "$T/b" c1
	assert_rc 0 || return
	run_cmd "$BRIG" --root "$T/root" list -q
	assert_eq "$out" "c1" "brig list -q"

	assert_eq "$(complete_words "$BRIG" --root "$T/root" delete '')" "c1" \
		"brig --root R delete <TAB>"
	assert_eq "$(complete_words "$BRIG" --root = "$T/root" state c)" "c1" \
		"brig --root=R state c<TAB>"
	assert_eq "$(complete_words "$BRIG" --root "$T/root" kill --all '')" "c1" \
		"brig --root R kill --all <TAB>"
	assert_eq "$(complete_words "$BRIG" --root "$T/root" delete c1 '')" "" \
		"brig --root R delete c1 <TAB>"
	mkdir "$T/other"
	ids=$(complete_words "$BRIG" --root "$T/other" delete '')
	assert_eq "$ids" "" "brig --root OTHER delete <TAB>"
}

t_zsh_completion() {
	assert_file "$ZSH_COMPLETION" || return
	assert_eq "$(head -n 1 "$ZSH_COMPLETION")" "#compdef brig" "first line"
	require_cmd zsh
	run_cmd zsh -n "$ZSH_COMPLETION"
	assert_rc 0
	assert_eq "$err" "" "zsh -n"
	# compinit writes its dump under $ZDOTDIR: the test's own directory
	run_cmd env HOME="$T" ZDOTDIR="$T" zsh -fc '
		autoload -U compinit
		compinit -u
		source "$1"
		print -r -- "${_comps[brig]}"' _ "$ZSH_COMPLETION"
	assert_rc 0
	assert_eq "$err" "" "stderr of compinit; source"
	assert_eq "$out" "_brig" "the completion function of brig"
}

# ------------------------------------------------------- the threat model

t_security_job_flags() {
	local flag n=0
	assert_file "$SECURITY" || return
	for flag in $(help_flags job); do
		[ "$flag" = --help ] && continue
		n=$((n + 1))
		has_row "brig job options" "$flag" ||
			fail "docs/SECURITY.md: no row for brig job $flag under \"## brig job options\""
	done
	# the extraction itself: brig job has some thirty flags
	[ "$n" -ge 20 ] || fail "only $n flags found in brig job --help"
	assert_contains " $(help_flags job | tr '\n' ' ')" " --rootfs --bundle " "flags of brig job --help"
	assert_contains " $(help_flags job | tr '\n' ' ')" " --timeout " "flags of brig job --help"
}

t_security_pool_flags() {
	local sub flag flags n=0 subs
	assert_file "$SECURITY" || return
	subs=$(pool_subcommands)
	[ "$(wc -w <<<"$subs")" -ge 4 ] ||
		fail "pool subcommands from brig pool --help: $(_show "$subs")"
	assert_contains " $(tr '\n' ' ' <<<"$subs")" " create " "pool subcommands"
	flags=$({
		help_flags pool
		for sub in $subs; do help_flags pool "$sub"; done
	} | sort -u)
	for flag in $flags; do
		[ "$flag" = --help ] && continue
		n=$((n + 1))
		has_row "brig pool options" "$flag" ||
			fail "docs/SECURITY.md: no row for brig pool $flag under \"## brig pool options\""
	done
	[ "$n" -ge 15 ] || fail "only $n flags found in brig pool --help"
	assert_contains " $(tr '\n' ' ' <<<"$flags")" " --size " "flags of brig pool --help"
}

t_security_annotations() {
	local ann found
	assert_file "$SECURITY" || return
	found=$(run_brig_annotations)
	for ann in $found; do
		has_row "run.brig.* annotations" "$ann" ||
			fail "docs/SECURITY.md: no row for $ann under \"## run.brig.* annotations\""
	done
	[ "$(wc -w <<<"$found")" -ge 3 ] || fail "annotations found: $(_show "$found")"
	assert_contains " $(tr '\n' ' ' <<<"$found")" " run.brig.job.result run.brig.job.timeout " \
		"run.brig.* annotations of the sources"
}

t_security_tests_exist() {
	local f n=0
	assert_file "$SECURITY" || return
	for f in $(cited_tests); do
		n=$((n + 1))
		[ -f "$BRIG_SRCDIR/$f" ] || fail "docs/SECURITY.md names $f, which does not exist"
	done
	[ "$n" -ge 10 ] || fail "only $n test files named in docs/SECURITY.md"
	# where contributors read the rule
	grep -qF "docs/SECURITY.md" "$BRIG_SRCDIR/README.md" || fail "README.md does not point to docs/SECURITY.md"
	grep -qF "SECURITY.md" "$BRIG_SRCDIR/docs/DESIGN.md" || fail "docs/DESIGN.md does not point to SECURITY.md"
}

# A test named with its description (tests/x/y.sh: "what it says") has
# it: a renamed or removed test is caught here.  A file that is still a
# placeholder (skip_all "not written yet") is named without one.
t_security_test_names() {
	local cite file desc n=0
	assert_file "$SECURITY" || return
	while IFS= read -r cite; do
		file=${cite%%: \"*}
		desc=${cite#*: \"}
		desc=${desc%\"}
		n=$((n + 1))
		[ -f "$BRIG_SRCDIR/$file" ] || continue # t_security_tests_exist says so
		if grep -qF 'skip_all "not written yet"' "$BRIG_SRCDIR/$file"; then
			fail "docs/SECURITY.md names \"$desc\" of $file, a placeholder"
			continue
		fi
		grep -qF -- "\"$desc\"" "$BRIG_SRCDIR/$file" ||
			fail "docs/SECURITY.md: $file has no test \"$desc\""
	done < <(grep -oE 'tests/[a-z0-9_./-]+\.(sh|c): "[^"]+"' "$SECURITY" | sort -u)
	[ "$n" -ge 20 ] || fail "only $n tests named by their description in docs/SECURITY.md"
}

tap_test "brig-docgen: usage, list, man DIR" t_docgen_usage
tap_test "a man page for brig and for every command of brig --help" t_page_per_command
tap_test "the pages describe every flag of --help" t_page_names_every_flag
tap_test "the pages re-flow the descriptions and have the sections" t_page_description
tap_test "groff -man -ww takes every page without a warning" t_groff_clean
tap_test "make install DESTDIR installs the pages and completions, uninstall removes them" t_install
tap_test "man finds and renders the installed pages" t_man_finds_pages
tap_test "bash: commands, flags and flag values complete" t_bash_complete_words
tap_test "bash: container ids complete under --root" t_bash_complete_container_ids
tap_test "zsh: the completion parses and loads" t_zsh_completion
tap_test "SECURITY.md: a row for every flag of brig job --help" t_security_job_flags
tap_test "SECURITY.md: a row for every flag of brig pool --help and its subcommands" t_security_pool_flags
tap_test "SECURITY.md: a row for every run.brig.* annotation of the sources" t_security_annotations
tap_test "SECURITY.md: every test file it names exists; README and DESIGN point to it" t_security_tests_exist
tap_test "SECURITY.md: every test it names by description has it" t_security_test_names
tap_done
