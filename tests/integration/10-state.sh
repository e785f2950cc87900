#!/bin/bash
# The state store seen from the command line: state, list, delete on
# containers that do not exist, container id rules, and the log formats.
# Every test uses its own --root; only the default-root test reads /run/brig.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"

NOSUCH='brig: container "nosuch" does not exist'
LIST_HEADER='ID          PID         STATUS      BUNDLE      CREATED     OWNER'
RFC3339='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$'

t_state_nosuch() {
	brig --root "$T/root" state nosuch
	assert_rc 1
	assert_eq "$out" "" "stdout"
	assert_err_line "$NOSUCH"
	assert_empty_dir "$T/root"
	mkdir "$T/root2"
	brig --root "$T/root2" state nosuch
	assert_rc 1
	assert_err_line "$NOSUCH"
	assert_empty_dir "$T/root2"
}

# What Podman and containerd match on, with the default --root.
t_state_nosuch_default_root() {
	local existed=no
	[ -e /run/brig ] && existed=yes
	brig state nosuch
	assert_rc 1
	assert_eq "$out" "" "stdout"
	assert_err_line "$NOSUCH"
	[ "$existed" = yes ] || assert_no_file /run/brig
}

t_list_empty() {
	local runc_out
	brig --root "$T/root" list
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$out" "$LIST_HEADER" "list on an empty root"
	if command -v runc >/dev/null; then
		runc_out=$(runc --root "$T/runc" list 2>&1)
		assert_eq "$out" "$runc_out" "brig list vs runc list"
	fi
	brig --root "$T/root" list -q
	assert_rc 0
	assert_eq "$out$err" "" "list -q on an empty root"
	brig --root "$T/root" list --format json
	assert_rc 0
	assert_eq "$err" "" "stderr"
	assert_eq "$out" "[]" "list --format json on an empty root"
	assert_empty_dir "$T/root"
	mkdir "$T/root"
	brig --root "$T/root" list --format json
	assert_rc 0
	assert_eq "$out" "[]" "list --format json on an existing empty root"
	assert_empty_dir "$T/root"
}

t_delete_nosuch() {
	brig --root "$T/root" delete --force nosuch
	assert_rc 0
	assert_eq "$out$err" "" "output of delete --force nosuch"
	brig --root "$T/root" delete -f nosuch
	assert_rc 0
	brig --root "$T/root" delete nosuch
	assert_rc 1
	assert_eq "$out" "" "stdout"
	assert_err_line "$NOSUCH"
	assert_empty_dir "$T/root"
}

# Ids that must be refused before anything touches the state directory.
# (runc exits 1 here; brig calls a malformed id a usage error: 1 or 2.)
t_invalid_ids() {
	local -a ids=("" "/" "a/b" "../x" "." ".." $'a\tb' $'a\nb' $'a\001b' $'\177'
		"$(head -c 1025 /dev/zero | tr '\0' a)")
	local id args bundle=$T/bundle
	mkdir "$bundle"
	"$BRIG" spec --bundle "$bundle" || fail "brig spec"
	for id in "${ids[@]}"; do
		for args in "state" "delete" "delete --force" "create --bundle $bundle" "run --bundle $bundle"; do
			# shellcheck disable=SC2086
			brig --root "$T/root" $args "$id"
			[[ $rc == 1 || $rc == 2 ]] ||
				fail "brig $args $(_show "$id"): exit status $rc, expected 1 or 2"
			assert_eq "$out" "" "stdout of brig $args $(_show "${id:0:20}")"
			assert_lines 1 "$err" "stderr of brig $args $(_show "${id:0:20}")"
			assert_contains "$err" "invalid container id" "stderr of brig $args $(_show "${id:0:20}")"
		done
	done
	assert_empty_dir "$T/root"
}

# The limits are exact: 1024 bytes and odd but harmless characters are ids
# ("--" ends the flags, so an id may start with "-").
t_valid_ids() {
	local id
	for id in "$(head -c 1024 /dev/zero | tr '\0' a)" "a" "A-b_c.d+e" "-lead" "x:y" "ünï"; do
		brig --root "$T/root" state -- "$id"
		assert_rc 1
		assert_contains "$err" "does not exist" "state $(_show "${id:0:20}")"
	done
	assert_empty_dir "$T/root"
}

# --log FILE --log-format json: one JSON object per line, {level,msg,time},
# appended to; the error is still printed once on stderr.
t_log_json() {
	local line n=0
	brig --root "$T/root" --log "$T/log.json" --log-format json state nosuch
	assert_rc 1
	assert_eq "$out" "" "stdout"
	assert_err_line "$NOSUCH"
	brig --root "$T/root" --log "$T/log.json" --log-format json --debug delete nosuch
	assert_rc 1
	assert_err_line "$NOSUCH"
	assert_file "$T/log.json" || return
	while IFS= read -r line; do
		n=$((n + 1))
		assert_eq "$(jq -r 'type' <<<"$line" 2>&1)" object "line $n type" || continue
		assert_eq "$(jq -r '[.level, .msg, .time] | map(type) | join(",")' <<<"$line")" \
			"string,string,string" "line $n level/msg/time" || continue
		assert_match "$(jq -r .time <<<"$line")" "$RFC3339" "line $n time"
		assert_match "$(jq -r .level <<<"$line")" '^(debug|info|warning|error|fatal)$' "line $n level"
	done <"$T/log.json"
	[ "$n" -ge 2 ] || fail "expected at least 2 log lines, got $n"
	assert_eq "$(jq -rs '[.[] | select(.level == "error")] | length' "$T/log.json")" 2 "error lines"
	assert_eq "$(jq -rs '[.[] | select(.level == "error")] | last | .msg' "$T/log.json")" \
		'container "nosuch" does not exist' "last error msg"
	assert_empty_dir "$T/root"
}

# Without --log, --log-format json still prints the error once on stderr.
t_log_json_stderr() {
	brig --root "$T/root" --log-format json state nosuch
	assert_rc 1
	assert_eq "$out" "" "stdout"
	assert_eq "$(grep -c 'nosuch.*does not exist' <<<"$err")" 1 \
		"times the error is on stderr"
}

t_log_text() {
	brig --root "$T/root" --log "$T/log.txt" state nosuch
	assert_rc 1
	assert_err_line "$NOSUCH"
	assert_file "$T/log.txt" || return
	assert_lines 1 "$(cat "$T/log.txt")" "log.txt"
	assert_contains "$(cat "$T/log.txt")" "level=error" "log.txt"
	assert_contains "$(cat "$T/log.txt")" 'nosuch' "log.txt"
}

tap_test "state of an unknown id: one line, exit 1" t_state_nosuch
tap_test "state of an unknown id under the default --root" t_state_nosuch_default_root
tap_test "list on an empty root: the header, nothing with -q, [] as json" t_list_empty
tap_test "delete --force of an unknown id succeeds, delete fails" t_delete_nosuch
tap_test "invalid container ids are refused by every command" t_invalid_ids
tap_test "ids up to 1024 bytes are valid" t_valid_ids
tap_test "--log-format json writes JSON objects with level, msg, time" t_log_json
tap_test "--log-format json without --log prints the error once" t_log_json_stderr
tap_test "--log FILE in text format" t_log_text
tap_done
