#!/bin/bash
# LSM labels: process.selinuxLabel, linux.mountLabel, process.apparmorProfile.
# Where the host lacks the LSM a label is refused with one exact line and
# nothing is left behind; an empty label is ignored; where the host has the
# LSM, the label is checked in effect (else those tests are skipped, with
# the reason).
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"

brig_file_bundle

# What this host and this brig can do, decided the way brig decides it.
selinux_built() {
	[ "$("$BRIG" features | jq -r '.linux.selinux.enabled')" = true ]
}
# (libselinux's is_selinux_enabled: selinuxfs mounted, and a config)
selinux_enabled() {
	awk '$3 == "selinuxfs" { found = 1 } END { exit !found }' /proc/self/mounts &&
		[ -e /etc/selinux/config ]
}
apparmor_enabled() {
	[ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" = Y ]
}

# The line create and run must print for a SELinux label here, or nothing
# when the host can apply one.
selinux_refusal() { # FIELD
	if ! selinux_built; then
		echo "brig: config.json: $1: brig was built without SELinux support"
	elif ! selinux_enabled; then
		echo "brig: config.json: $1: SELinux is not enabled on this host"
	fi
}

# assert_refused WANT FILTER [JQ-ARGS...]: run and create both fail with the
# one line WANT and leave nothing under --root.
assert_refused() {
	local want=$1 filter=$2 cmd
	shift 2
	brig_bundle_edit "$T/b" ".process.args = [\"true\"] | $filter" "$@" || fail "jq $filter"
	for cmd in run create; do
		brig --root "$T/root" "$cmd" --bundle "$T/b" c1
		assert_rc 1
		assert_eq "$out" "" "stdout of $cmd"
		assert_err_line "$want"
		assert_empty_dir "$T/root"
	done
}

# ------------------------------------------------------------- refusals

t_selinux_label_refused() {
	local want
	want=$(selinux_refusal process.selinuxLabel)
	[ -n "$want" ] || skip "SELinux is enabled on this host (the label is checked in effect)"
	bundle || return
	assert_refused "$want" '.process.selinuxLabel = "system_u:system_r:container_t:s0:c1,c2"'
}

t_mount_label_refused() {
	local want
	want=$(selinux_refusal linux.mountLabel)
	[ -n "$want" ] || skip "SELinux is enabled on this host (the label is checked in effect)"
	bundle || return
	assert_refused "$want" '.linux.mountLabel = "system_u:object_r:container_file_t:s0:c1,c2"'
}

t_apparmor_profile_refused() {
	! apparmor_enabled || skip "AppArmor is enabled on this host (the profile is checked in effect)"
	bundle || return
	assert_refused \
		"brig: config.json: process.apparmorProfile: AppArmor is not enabled on this host" \
		'.process.apparmorProfile = "docker-default"'
}

# An invalid context is refused before anything exists, where SELinux is on.
t_selinux_invalid_context() {
	selinux_built || skip "brig was built without SELinux support"
	selinux_enabled || skip "SELinux is not enabled on this host"
	bundle || return
	assert_refused \
		'brig: config.json: process.selinuxLabel: invalid context "no such context": Invalid argument' \
		'.process.selinuxLabel = "no such context"'
}

# ----------------------------------------------------------- empty labels

t_empty_labels_ignored() {
	bundle || return
	ctr 'echo ran' '.process.selinuxLabel = "" | .process.apparmorProfile = "" | .linux.mountLabel = ""'
	assert_rc 0
	assert_eq "$out" "ran" "stdout"
	assert_eq "$err" "" "stderr"
	assert_empty_dir "$T/root"
	# and create + start
	brig_bundle_edit "$T/b" '.process.args = ["true"]'
	brig --root "$T/root" create --bundle "$T/b" c1
	assert_rc 0
	brig --root "$T/root" start c1
	assert_rc 0
	brig --root "$T/root" delete -f c1
	assert_rc 0
	assert_empty_dir "$T/root"
}

# ------------------------------------------------------ labels in effect

# The process runs with the label: the test's own context, which is valid
# and which its domain may transition to.
t_selinux_label_in_effect() {
	local label
	selinux_built || skip "brig was built without SELinux support"
	selinux_enabled || skip "SELinux is not enabled on this host"
	label=$(tr -d '\0' </proc/self/attr/current)
	[ -n "$label" ] || skip "cannot read this process's SELinux context"
	bundle || return
	ctr 'tr -d "\0" </proc/self/attr/current' '.process.selinuxLabel = $l' --arg l "$label"
	assert_rc 0
	assert_eq "$out" "$label" "/proc/self/attr/current in the container"
	assert_empty_dir "$T/root"
}

# The tmpfs mounts and the masks of directories carry the mount label: the
# context of the host's /dev/shm (a tmpfs context the policy accepts).
t_mount_label_in_effect() {
	local label pid path
	selinux_built || skip "brig was built without SELinux support"
	selinux_enabled || skip "SELinux is not enabled on this host"
	require_cmd stat
	label=$(stat -c %C /dev/shm 2>/dev/null)
	[ -n "$label" ] && [ "$label" != "?" ] || skip "cannot read the context of /dev/shm"
	bundle || return
	mkdir -p "$T/b/rootfs/masked"
	brig_bundle_edit "$T/b" '.process.args = ["true"] | .linux.mountLabel = $l |
		.linux.maskedPaths += ["/masked"]' --arg l "$label"
	brig --root "$T/root" create --bundle "$T/b" c1
	assert_rc 0 || return
	defer "$BRIG" --root "$T/root" delete -f c1
	pid=$("$BRIG" --root "$T/root" state c1 | jq -r .pid)
	for path in /dev /dev/shm /masked; do
		assert_eq "$(stat -c %C "/proc/$pid/root$path")" "$label" "context of $path"
	done
	brig --root "$T/root" delete -f c1
	assert_rc 0
}

# The process is confined by the profile: a complain-mode profile loaded for
# the test (it denies nothing), else one the host has in complain mode.
t_apparmor_profile_in_effect() {
	local profile='' attr
	apparmor_enabled || skip "AppArmor is not enabled on this host"
	bundle || return
	if command -v apparmor_parser >/dev/null 2>&1; then
		profile=brig-test-$$
		printf 'profile %s flags=(complain) {\n}\n' "$profile" >"$T/profile"
		apparmor_parser -r "$T/profile" >/dev/null 2>&1 || profile=''
		[ -n "$profile" ] && defer apparmor_parser -R "$T/profile"
	fi
	if [ -z "$profile" ]; then
		profile=$(sed -n 's/^\([^ ]*\) (complain)$/\1/p' \
			/sys/kernel/security/apparmor/profiles 2>/dev/null | head -1)
	fi
	[ -n "$profile" ] || skip "no complain-mode AppArmor profile to confine a test by"
	attr=/proc/self/attr/apparmor/current
	[ -e "$attr" ] || attr=/proc/self/attr/current
	ctr "cat $attr" '.process.apparmorProfile = $p' --arg p "$profile"
	assert_rc 0
	assert_eq "$out" "$profile (complain)" "$attr in the container"
	assert_empty_dir "$T/root"
}

# ---------------------------------------------------------------- features

# features says what brig supports, whatever the host has (features-linux.md).
t_features() {
	local want=true
	brig features
	assert_rc 0
	assert_eq "$(jq -r .linux.apparmor.enabled <<<"$out")" true "linux.apparmor.enabled"
	[ "$(jq -r '.annotations["run.brig.selinux"] // empty' <<<"$out")" = "" ] || want=false
	assert_eq "$(jq -r .linux.selinux.enabled <<<"$out")" "$want" "linux.selinux.enabled"
}

tap_test "selinuxLabel without SELinux: refused, nothing left" t_selinux_label_refused
tap_test "mountLabel without SELinux: refused, nothing left" t_mount_label_refused
tap_test "apparmorProfile without AppArmor: refused, nothing left" t_apparmor_profile_refused
tap_test "an invalid SELinux context is refused" t_selinux_invalid_context
tap_test "empty labels are ignored" t_empty_labels_ignored
tap_test "selinuxLabel is the process's label" t_selinux_label_in_effect
tap_test "mountLabel is the context of tmpfs mounts and masks" t_mount_label_in_effect
tap_test "apparmorProfile confines the process" t_apparmor_profile_in_effect
tap_test "features: apparmor and selinux supported" t_features
tap_done
