#!/bin/bash
# tests/e2e/isolate.sh CMD [ARGS...]: run CMD in a private mount namespace
# and a new cgroup namespace, with every cgroup hierarchy mounted again so
# that its root is the caller's own cgroup, and fresh tmpfs on the run
# directories the engines and runtimes share with the host.
#
# Podman (cgroupfs) and ctr give the runtime absolute cgroup paths
# ("/libpod_parent/libpod-ID", "/NAMESPACE/ID").  Inside, those land below
# the caller's cgroup in every hierarchy, as this machine requires (the
# caller is in a different cgroup in each v1 hierarchy, so no one absolute
# path could be right on the host).  Under tests/helpers/subreaper that is
# the test file's own cgroup, which the subreaper checks for leftovers.
#
# On a pure cgroup v2 host the namespace's root must be a cgroup with no
# process, whose controllers its children can have: a v2 cgroup with
# processes (ours, the test's leaf) gives none.  So the namespace is made
# from a new cgroup beside ours, "isolate.PID", which we leave for its leaf
# "shell" once inside; it is removed when CMD ends.
#
# With E2E_CGROUP_MANAGER=systemd the engines ask systemd for their
# cgroups, which are units in systemd's tree ("machine.slice/libpod-ID.scope"):
# the cgroup namespace and hierarchies stay the host's, only the mounts
# are private.
#
# What the engines leave in /run (/run/brig, /run/runc, /run/containerd,
# /run/containers, /run/libpod, /run/netns) and in their default stores
# (/var/lib/containers, /var/lib/containerd) lives and dies with the
# namespace: nothing of a test run reaches the host's disk but $E2E_TMP.
set -euo pipefail

if [ "${BRIG_E2E_ISOLATED:-}" != 1 ]; then
	export BRIG_E2E_ISOLATED=1
	if [ "${E2E_CGROUP_MANAGER:-cgroupfs}" = systemd ]; then
		exec unshare --mount --propagation private -- "$0" "$@"
	fi
	if [ "$(stat -fc %T /sys/fs/cgroup)" != cgroup2fs ]; then
		exec unshare --mount --cgroup --propagation private -- "$0" "$@"
	fi
	own=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)
	iso=${own%/*}/isolate.$$
	mkdir "$iso"
	read -ra ctl <"${own%/*}/cgroup.controllers"
	for c in "${ctl[@]}"; do
		echo "+$c" >"${own%/*}/cgroup.subtree_control"
	done
	export BRIG_E2E_V2_LEAF=1
	rc=0
	(echo "$BASHPID" >"$iso/cgroup.procs" &&
		exec unshare --mount --cgroup --propagation private -- "$0" "$@") || rc=$?
	# what is left below it was reported inside; nothing is running there
	find "$iso" -depth -type d -exec rmdir {} + 2>/dev/null
	exit "$rc"
fi

remount_cgroups() {
	# Mount each hierarchy under /sys/fs/cgroup again with its own options: in
	# the new cgroup namespace its root is our cgroup.  The host's mounts are
	# unmounted first (in this namespace only), so that no reader of
	# mountinfo can take a hidden one.
	declare -a mnts=() types=() opts=()
	while read -r _ _ _ _ mnt _ rest; do
		fstype=${rest#*- }
		fstype=${fstype%% *}
		case $fstype in cgroup | cgroup2) ;; *) continue ;; esac
		case $mnt in /sys/fs/cgroup/* | /sys/fs/cgroup) ;; *) continue ;; esac
		super=${rest#*- * * }
		mnts+=("$mnt") types+=("$fstype") opts+=("$super")
	done </proc/self/mountinfo

	links=()
	for l in /sys/fs/cgroup/*; do
		if [ -L "$l" ]; then
			links+=("$(basename "$l")=$(readlink "$l")")
		fi
	done

	top_is_v2=0
	for i in "${!mnts[@]}"; do
		if [ "${mnts[i]}" = /sys/fs/cgroup ]; then
			top_is_v2=1
		fi
	done
	umount -R /sys/fs/cgroup
	if [ "$top_is_v2" = 0 ]; then
		mount -t tmpfs -o mode=755,nosuid,nodev,noexec tmpfs /sys/fs/cgroup
	fi
	for i in "${!mnts[@]}"; do
		# the super options: "rw,memory", "rw,nsdelegate,..."; keep the
		# controllers and names, drop rw/ro
		o=$(tr ',' '\n' <<<"${opts[i]}" | { grep -vxE 'rw|ro' || true; } | paste -sd, -)
		mkdir -p "${mnts[i]}"
		mount -t "${types[i]}" -o "${o:-defaults}" "${types[i]}" "${mnts[i]}"
	done
	for l in "${links[@]}"; do
		ln -sfn "${l#*=}" "/sys/fs/cgroup/${l%%=*}"
	done
	if [ "${BRIG_E2E_V2_LEAF:-}" = 1 ]; then
		# into the leaf; the namespace's root gives its children every controller
		mkdir /sys/fs/cgroup/shell
		echo $$ >/sys/fs/cgroup/shell/cgroup.procs
		read -ra ctl </sys/fs/cgroup/cgroup.controllers
		for c in "${ctl[@]}"; do
			echo "+$c" >/sys/fs/cgroup/cgroup.subtree_control
		done
	fi
}

[ "${E2E_CGROUP_MANAGER:-cgroupfs}" = systemd ] || remount_cgroups
for d in /run/brig /run/runc /run/containerd /run/containers /run/libpod /run/netns /run/crun \
	/var/lib/containers /var/lib/containerd /var/lib/cni; do
	mkdir -p "$d"
	mount -t tmpfs -o mode=700 tmpfs "$d"
done
exec "$@"
