#!/bin/bash
# The command line: version, help, flag parsing, usage errors (exit 2) and
# the commands that have not landed yet (exit 1, never a silent success).
# Needs no root.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"

# Every runc subcommand, and brig's own job and pool, as brig's --help must list them.
ALL_COMMANDS="checkpoint create delete events exec features job kill list pause pool ps
	restore resume run spec start state update"

# Every command, each tested in its own file.
IMPLEMENTED="create run start kill state list delete spec features pause resume ps events update exec job pool checkpoint restore"

package_version() {
	sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$BRIG_BUILDDIR/config.h" 2>/dev/null
}

t_version() {
	local flag v
	v=$(package_version)
	for flag in --version -v; do
		brig "$flag"
		assert_rc 0
		assert_eq "$err" "" "stderr of $flag"
		assert_lines 3 "$out" "$flag output"
		if [ -n "$v" ]; then
			assert_eq "$(sed -n 1p <<<"$out")" "brig version $v" "line 1"
		else
			assert_match "$(sed -n 1p <<<"$out")" '^brig version [0-9]+\.[0-9]+\.[0-9]+' "line 1"
		fi
		assert_match "$(sed -n 2p <<<"$out")" '^commit: ([0-9a-f]{7,40}(-dirty)?|unknown)$' "line 2"
		assert_eq "$(sed -n 3p <<<"$out")" "spec: 1.3.0" "line 3"
	done
}

t_help_lists_commands() {
	local flag cmd
	for flag in --help -h; do
		brig "$flag"
		assert_rc 0
		assert_eq "$err" "" "stderr of $flag"
		for cmd in $ALL_COMMANDS; do
			assert_match "$out" $'(^|\n)   '"$cmd"' ' "$flag lists $cmd"
		done
		for cmd in --root --log --log-format --debug --systemd-cgroup --rootless; do
			assert_contains "$out" "$cmd" "$flag mentions $cmd"
		done
	done
}

t_no_args_is_help() {
	local help
	brig --help
	help=$out
	brig
	assert_rc 0
	assert_eq "$out" "$help" "output without arguments"
}

t_every_listed_command_is_covered() {
	local listed cmd
	brig --help
	listed=$(sed -n '/^COMMANDS:/,/^$/p' <<<"$out" | awk 'NR > 1 && NF { print $1 }' | sort)
	assert_eq "$listed" "$(tr -s ' \t\n' '\n' <<<"$ALL_COMMANDS" | sed '/^$/d' | sort)" \
		"commands in --help"
	for cmd in $listed; do
		[[ " $IMPLEMENTED " == *" $cmd "* ]] && continue
		fail "command $cmd is not implemented"
	done
}

t_command_help() {
	local cmd flag
	for cmd in $ALL_COMMANDS; do
		for flag in --help -h; do
			brig "$cmd" "$flag"
			assert_rc 0 || continue
			assert_eq "$err" "" "stderr of $cmd $flag"
			assert_contains "$out" "brig $cmd" "$cmd $flag"
			assert_contains "$out" "USAGE" "$cmd $flag"
		done
	done
}

# An unknown flag: exit 2, nothing on stdout, one line naming the flag.
t_unknown_flags() {
	local args flag
	while IFS='|' read -r flag args; do
		# shellcheck disable=SC2086
		brig $args
		assert_rc 2
		assert_eq "$out" "" "stdout of brig $args"
		assert_lines 1 "$err" "stderr of brig $args"
		assert_match "$err" '^brig: ' "stderr of brig $args"
		assert_contains "$err" "$flag" "stderr of brig $args"
	done <<-'EOF'
		--bogus|--bogus list
		--bogus|--bogus=1 list
		-x|-x list
		--nope|list --nope
		--bogus|state --bogus c1
		--bogus|create --bogus c1
		--bogus|delete --bogus c1
		--bogus|spec --bogus
		--bogus|features --bogus
		--zap|kill --zap c1
	EOF
}

t_usage_errors() {
	local args want
	while IFS='|' read -r want args; do
		# shellcheck disable=SC2086
		brig $args
		assert_rc 2
		assert_eq "$out" "" "stdout of brig $args"
		assert_lines 1 "$err" "stderr of brig $args"
		assert_match "$err" '^brig: ' "stderr of brig $args"
		assert_contains "$err" "$want" "stderr of brig $args"
	done <<-'EOF'
		nosuchcmd|nosuchcmd
		--root|--root
		--log-format|--log-format yaml list
		--rootless|--rootless maybe list
		--format|list --format xml
		state|state
		state|state a b
		delete|delete
		create|create
		run|run
		start|start
		kill|kill
	EOF
}

# --flag=value and --flag value mean the same, before and after the command.
t_flag_value_forms() {
	local form
	mkdir r
	for form in "--root=$T/r" "--root $T/r"; do
		# shellcheck disable=SC2086
		brig $form list --format json
		assert_rc 0
		assert_eq "$out" "[]" "brig $form list"
	done
	# A root that is a regular file: the error names it, either way.
	: >notadir
	for form in "--root=$T/notadir" "--root $T/notadir"; do
		# shellcheck disable=SC2086
		brig $form state c1
		assert_rc 1
		assert_lines 1 "$err" "stderr of brig $form state"
		assert_contains "$err" "$T/notadir" "stderr of brig $form state"
	done
	for form in "--format=json" "--format json" "-f json"; do
		# shellcheck disable=SC2086
		brig --root "$T/r" list $form
		assert_rc 0
		assert_eq "$out" "[]" "list $form"
	done
	for form in "--log=$T/a.log" "--log $T/b.log"; do
		# shellcheck disable=SC2086
		brig --root "$T/r" $form --log-format=json state nosuch
		assert_rc 1
		assert_eq "$err" 'brig: container "nosuch" does not exist' "stderr with $form"
	done
	assert_file a.log && assert_json "$(cat a.log)" "a.log"
	assert_file b.log && assert_json "$(cat b.log)" "b.log"
	mkdir b1 b2 b3
	for form in "--bundle=$T/b1" "--bundle $T/b2" "-b $T/b3"; do
		# shellcheck disable=SC2086
		brig spec $form
		assert_rc 0
	done
	assert_file b1/config.json
	assert_file b2/config.json
	assert_file b3/config.json
	assert_no_file config.json
}

t_global_flags_accepted() {
	local args
	while IFS= read -r args; do
		# shellcheck disable=SC2086
		brig --root "$T/r" $args list -q
		assert_rc 0
		assert_eq "$err" "" "stderr of brig $args list"
	done <<-'EOF'
		--debug
		--systemd-cgroup
		--rootless true
		--rootless=false
		--rootless auto
		--log-format text
		--log-format=json
		--criu /usr/sbin/criu
		--debug --systemd-cgroup --rootless=auto --log-format json
	EOF
	assert_empty_dir "$T/r"
}

tap_test "--version and -v print the three version lines" t_version
tap_test "--help and -h list every runc subcommand and the global flags" t_help_lists_commands
tap_test "no arguments prints the help" t_no_args_is_help
tap_test "every command in --help is implemented or known as not yet" t_every_listed_command_is_covered
tap_test "COMMAND --help and -h exit 0 with the command's usage" t_command_help
tap_test "an unknown flag exits 2 with one line naming it" t_unknown_flags
tap_test "usage errors exit 2 with one line" t_usage_errors
tap_test "--flag=value and --flag value both work" t_flag_value_forms
tap_test "the global flags of runc are accepted" t_global_flags_accepted
tap_done
