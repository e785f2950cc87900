#!/bin/bash
# Malformed bundles: create and run report one line naming config.json and
# the JSON path (or the missing file), exit 1, and leave nothing under
# --root, whether the root existed before or not.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"

# NAME|JQ FILTER applied to `brig spec`'s config.json|WHAT STDERR MUST CONTAIN
BAD_CONFIGS='
memory-limit-string|.linux.resources.memory = {"limit": "1g"}|config.json: linux.resources.memory.limit: 
memory-limit-fraction|.linux.resources.memory = {"limit": 1.5}|config.json: linux.resources.memory.limit: 
pids-limit-string|.linux.resources.pids = {"limit": "x"}|config.json: linux.resources.pids.limit: 
args-string|.process.args = "sh"|config.json: process.args: 
args-empty|.process.args = []|config.json: process.args: 
args-number-element|.process.args = ["sh", 1]|config.json: process.args[1]: 
terminal-string|.process.terminal = "yes"|config.json: process.terminal: 
uid-negative|.process.user.uid = -1|config.json: process.user.uid: 
uid-too-big|.process.user.uid = 4294967296|config.json: process.user.uid: 
cwd-relative|.process.cwd = "relative"|config.json: process.cwd: 
rlimit-hard-string|.process.rlimits = [{"type": "RLIMIT_NOFILE", "hard": "1", "soft": 1}]|config.json: process.rlimits[0].hard: 
env-object|.process.env = {"A": "b"}|config.json: process.env: 
root-path-number|.root.path = 5|config.json: root.path: 
root-missing|del(.root)|config.json: root: 
oci-version-missing|del(.ociVersion)|config.json: ociVersion: 
mount-destination-number|.mounts[1].destination = 5|config.json: mounts[1].destination: 
mounts-object|.mounts = {}|config.json: mounts: 
namespace-unknown|.linux.namespaces[0].type = "bogus"|config.json: linux.namespaces[0].type: 
namespaces-string|.linux.namespaces = "pid"|config.json: linux.namespaces: 
hook-path-missing|.hooks = {"prestart": [{"args": ["x"]}]}|config.json: hooks.prestart[0].path: 
annotation-number|.annotations = {"a": 1}|config.json: annotations.a: 
sysctl-number|.linux.sysctl = {"net.ipv4.ip_forward": 1}|config.json: linux.sysctl["net.ipv4.ip_forward"]: 
seccomp-syscalls-object|.linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": {}}|config.json: linux.seccomp.syscalls: 
linux-array|.linux = []|config.json: linux: 
top-level-array|[.]|config.json: 
oci-version-control-chars|.ociVersion = "1.0.0\n\u001b[31mconfig.json: all good"|config.json: ociVersion: 
namespace-control-chars|.linux.namespaces[0].type = "bo\ngus"|config.json: linux.namespaces[0].type: 
annotation-key-control-chars|.annotations = {"a\nb": 1}|config.json: annotations[
cwd-control-chars|.process.cwd = "rel\u001b[2Jative"|config.json: process.cwd: 
'

# write_config DIR FILTER: DIR/config.json = brig spec | jq FILTER.
write_config() {
	mkdir -p "$1"
	"$BRIG" spec --bundle "$1" || return 1
	jq "$2" "$1/config.json" >"$1/config.new" && mv "$1/config.new" "$1/config.json"
}

# expect_refused BUNDLE WANT: create and run both refuse BUNDLE with one line
# containing WANT (and no control character: values from the file are
# escaped), exit 1, and leave the --root as they found it.
expect_refused() {
	local bundle=$1 want=$2 cmd pre
	for pre in absent empty; do
		rm -rf "$T/root"
		[ "$pre" = empty ] && mkdir "$T/root"
		for cmd in create run; do
			brig --root "$T/root" "$cmd" --bundle "$bundle" c1
			assert_rc 1
			assert_eq "$out" "" "stdout of $cmd"
			assert_lines 1 "$err" "stderr of $cmd"
			assert_match "$err" '^brig: ' "stderr of $cmd"
			assert_contains "$err" "$want" "stderr of $cmd"
			assert_not_contains "$err" "not implemented" "stderr of $cmd"
			[[ "$err" != *[[:cntrl:]]* ]] ||
				fail "stderr of $cmd has control characters: $(_show "$err")"
			assert_empty_dir "$T/root"
			if [ "$pre" = empty ]; then
				[ -d "$T/root" ] || fail "$cmd removed the existing --root"
			fi
		done
	done
}

t_bad_config() { # FILTER WANT
	require_cmd jq
	write_config "$T/b" "$1" || {
		fail "cannot write the bundle"
		return
	}
	expect_refused "$T/b" "$2"
}

t_invalid_json() {
	mkdir b
	printf '{"ociVersion": "1.3.0",' >b/config.json
	expect_refused "$T/b" "config.json: "
	grep -q 'invalid JSON' <<<"$err" || fail "error does not say invalid JSON: $err"
	printf '' >b/config.json
	expect_refused "$T/b" "config.json: "
	printf '{"ociVersion": "1.3.0"\0}' >b/config.json
	expect_refused "$T/b" "config.json: "
	printf '\xff\xfe{}' >b/config.json
	expect_refused "$T/b" "config.json: "
}

t_missing_config() {
	mkdir b
	expect_refused "$T/b" "config.json"
}

t_config_is_directory() {
	mkdir -p b/config.json
	expect_refused "$T/b" "config.json"
}

t_missing_bundle() {
	expect_refused "$T/nosuch" "$T/nosuch"
	assert_no_file "$T/nosuch"
}

t_bundle_is_file() {
	: >notadir
	expect_refused "$T/notadir" "$T/notadir"
}

while IFS='|' read -r name filter want; do
	[ -n "$name" ] || continue
	tap_test "bad config $name: $want" t_bad_config "$filter" "$want"
done <<<"$BAD_CONFIGS"
tap_test "invalid JSON in config.json" t_invalid_json
tap_test "bundle without config.json" t_missing_config
tap_test "config.json is a directory" t_config_is_directory
tap_test "bundle directory does not exist" t_missing_bundle
tap_test "bundle is a regular file" t_bundle_is_file
tap_done
