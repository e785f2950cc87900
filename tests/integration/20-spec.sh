#!/bin/bash
# brig spec and brig features: faithful to runc spec, valid JSON, and what
# brig spec writes is accepted by brig's own parser.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"


# The document without the two fields that name the runtime, sorted.
normalized() {
	jq -S 'del(.ociVersion, .hostname)' "$1"
}

t_spec_like_runc() {
	local args
	require_cmd runc jq
	for args in "" "--rootless"; do
		mkdir -p "brig$args" "runc$args"
		# shellcheck disable=SC2086
		brig spec --bundle "brig$args" $args
		assert_rc 0
		assert_eq "$out$err" "" "output of brig spec $args"
		# shellcheck disable=SC2086
		(cd "runc$args" && runc spec $args) || fail "runc spec $args"
		assert_file "brig$args/config.json" || continue
		assert_eq "$(normalized "brig$args/config.json")" "$(normalized "runc$args/config.json")" \
			"brig spec $args vs runc spec $args"
		assert_eq "$(jq -r .ociVersion "brig$args/config.json")" "1.3.0" "ociVersion"
		assert_eq "$(stat -c %a "brig$args/config.json")" "$(stat -c %a "runc$args/config.json")" \
			"mode of config.json"
	done
}

t_spec_defaults() {
	require_cmd jq
	brig spec
	assert_rc 0
	assert_json "$(cat config.json)" || return
	assert_eq "$(jq -c .process.args config.json)" '["sh"]' "process.args"
	assert_eq "$(jq -c .process.terminal config.json)" 'true' "process.terminal"
	assert_eq "$(jq -r .root.path config.json)" 'rootfs' "root.path"
	assert_eq "$(jq -c '[.linux.namespaces[].type] | sort' config.json)" \
		'["ipc","mount","network","pid","uts"]' "namespaces"
}

t_spec_no_overwrite() {
	local sum
	echo '{"mine": true}' >config.json
	sum=$(md5sum config.json)
	brig spec
	assert_rc 1
	assert_eq "$out" "" "stdout"
	assert_lines 1 "$err" "stderr"
	assert_match "$err" '^brig: ' "stderr"
	assert_contains "$err" "config.json" "stderr"
	assert_eq "$(md5sum config.json)" "$sum" "config.json after a refused spec"
	mkdir b
	echo '{}' >b/config.json
	brig spec --bundle b
	assert_rc 1
	assert_contains "$err" "config.json" "stderr of spec --bundle"
	assert_eq "$(cat b/config.json)" "{}" "b/config.json"
}

t_spec_bundle() {
	mkdir b
	brig spec --bundle "$T/b"
	assert_rc 0
	assert_eq "$out$err" "" "output"
	assert_file b/config.json
	assert_no_file config.json
	brig spec --bundle "$T/nosuch"
	assert_rc 1
	assert_lines 1 "$err" "stderr"
	assert_contains "$err" "$T/nosuch" "stderr"
	assert_no_file "$T/nosuch"
}

# The done-when of the foundation: `brig spec && brig features` is JSON.
t_spec_and_features_json() {
	require_cmd jq
	brig spec
	assert_rc 0
	brig features
	assert_rc 0
	assert_eq "$err" "" "stderr of features"
	assert_json "$out" "features" || return
	assert_json "$(cat config.json)" "config.json"
	assert_eq "$(jq -r .ociVersionMax <<<"$out")" "1.3.0" "ociVersionMax"
	assert_match "$(jq -r .ociVersionMin <<<"$out")" '^1\.[0-9]+\.[0-9]+$' "ociVersionMin"
	local key
	for key in ociVersionMin ociVersionMax hooks mountOptions linux annotations; do
		assert_eq "$(jq --arg k "$key" 'has($k)' <<<"$out")" true "features has $key"
	done
	for key in namespaces capabilities cgroup seccomp apparmor selinux intelRdt mountExtensions; do
		assert_eq "$(jq --arg k "$key" '.linux | has($k)' <<<"$out")" true "features.linux has $key"
	done
	assert_eq "$(jq -r '[.hooks[], .mountOptions[], .linux.namespaces[], .linux.capabilities[]] | map(type) | unique | join(",")' <<<"$out")" \
		"string" "lists of names"
	# every annotation that changes what brig does is among the
	# potentially unsafe ones (runtime-spec 1.2; "." ends a prefix):
	# the run.brig.* rows of docs/SECURITY.md
	local ann
	for ann in $(grep -o 'run\.brig\.[a-z.]*[a-z]' "$BRIG_SRCDIR/docs/SECURITY.md" | sort -u); do
		assert_eq "$(jq --arg a "$ann" '[.potentiallyUnsafeConfigAnnotations[] |
			select(. == $a or (endswith(".") and ($a | startswith(.))))] | length > 0' <<<"$out")" \
			true "$ann among potentiallyUnsafeConfigAnnotations"
	done
}

# What brig spec writes goes through brig's own parser and runs, once it
# has a rootfs and no terminal; the rootless variant asks for a user
# namespace, which is refused until user namespaces land.
t_spec_round_trip() {
	require_root
	brig_make_rootfs "$T/rootfs" || fail "brig_make_rootfs"
	"$BRIG" spec || fail "brig spec"
	brig_bundle_edit "$T" '.process.terminal = false | .process.args = ["true"]'
	brig --root "$T/root" run --bundle "$T" c-run
	assert_rc 0
	assert_eq "$out$err" "" "output of run"
	assert_empty_dir "$T/root"
	# The bundle defaults to the working directory.
	brig --root "$T/root" run c1
	assert_rc 0
	assert_empty_dir "$T/root"

	# the rootless spec, run by root: a user namespace mapping root alone
	rm -f config.json
	"$BRIG" spec --rootless || fail "brig spec --rootless"
	brig_bundle_edit "$T" '.process.terminal = false | .process.args = ["cat", "/proc/self/uid_map"]'
	brig --root "$T/root" run --bundle "$T" c-rootless
	assert_rc 0
	assert_eq "$(tr -s ' ' <<<"$out")" " 0 0 1" "the container's uid_map"
	assert_empty_dir "$T/root"
}

# runc's own spec runs in brig too (test suites written for runc use it).
t_runc_spec_round_trip() {
	require_root
	require_cmd runc
	brig_make_rootfs "$T/rootfs" || fail "brig_make_rootfs"
	runc spec || fail "runc spec"
	brig_bundle_edit "$T" '.process.terminal = false | .process.args = ["sh", "-c", "exit 7"]'
	brig --root "$T/root" run --bundle "$T" c1
	assert_rc 7
	assert_empty_dir "$T/root"
}

# The busybox bundle of tests/lib/rootfs.sh, as the demo builds it.
t_busybox_bundle() {
	require_root
	brig_make_bundle "$T/b" || {
		fail "brig_make_bundle"
		return
	}
	brig_bundle_edit "$T/b" '.process.args = $a | .process.terminal = false' \
		--argjson a '["sh","-c","echo hello from brig"]' || fail "brig_bundle_edit"
	assert_eq "$(readlink "$T/b/rootfs/bin/sh")" "busybox" "rootfs/bin/sh"
	assert_file "$T/b/rootfs/etc/passwd"
	assert_file "$T/b/rootfs/etc/group"
	local d
	for d in proc sys dev tmp etc; do
		[ -d "$T/b/rootfs/$d" ] || fail "rootfs/$d is missing"
	done
	brig --root "$T/root" run --bundle "$T/b" demo
	assert_rc 0
	assert_eq "$out" "hello from brig" "the container's output"
	assert_empty_dir "$T/root"
}

t_busybox_rootfs_runs() {
	require_root
	require_cmd chroot
	brig_make_rootfs "$T/r" || {
		fail "brig_make_rootfs"
		return
	}
	run_cmd chroot "$T/r" /bin/sh -c 'echo hi from $(id -un); ls /bin/ls'
	assert_rc 0
	assert_eq "$out" $'hi from root\n/bin/ls' "output in the chroot"
}

tap_test "brig spec (and --rootless) equals runc spec" t_spec_like_runc
tap_test "brig spec defaults are runc's busybox-friendly ones" t_spec_defaults
tap_test "brig spec refuses to overwrite config.json" t_spec_no_overwrite
tap_test "brig spec --bundle DIR writes DIR/config.json only" t_spec_bundle
tap_test "brig spec && brig features print valid JSON" t_spec_and_features_json
tap_test "brig spec (and --rootless) output round-trips through brig's parser and runs" t_spec_round_trip
tap_test "runc spec output runs too" t_runc_spec_round_trip
tap_test "a busybox bundle from tests/lib/rootfs.sh runs" t_busybox_bundle
tap_test "the busybox rootfs works in a chroot" t_busybox_rootfs_runs
tap_done
