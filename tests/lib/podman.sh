# shellcheck shell=bash
# tests/lib/podman.sh: a Podman of its own for brig, as the e2e tests and
# the demo run it.
#
#   . tests/lib/podman.sh
#   brig_podman_config DIR BRIG [RUNC [MANAGER]]
#                       write DIR/containers.conf and DIR/storage.conf,
#                       store in DIR; MANAGER: the cgroup manager
#                       (cgroupfs, the default, or systemd)
#   export CONTAINERS_CONF=DIR/containers.conf CONTAINERS_STORAGE_CONF=DIR/storage.conf
#
# containers.conf is contrib/podman/containers.conf (brig in
# runtime_supports_json and runtime_supports_nocgroup, [engine.runtimes])
# with the binary BRIG first in brig's list, and around it what a test
# needs: the cgroup manager (cgroupfs unless told), events in a file, no network by default,
# ulimits that need no CAP_SYS_RESOURCE, and (with RUNC) a runc entry.

brig_podman_config() {
	local dir=$1 brig=$2 runc=${3:-} manager=${4:-cgroupfs}
	local src=${BRIG_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
	mkdir -p "$dir"/{storage,run,tmp} || return 1
	cat >"$dir/storage.conf" <<-EOF || return 1
		[storage]
		driver = "overlay"
		graphroot = "$dir/storage"
		runroot = "$dir/run"
	EOF
	{
		cat <<-EOF
			[containers]
			netns = "none"
			log_driver = "k8s-file"
			# Podman's default nofile/nproc of 1048576 need CAP_SYS_RESOURCE
			# (missing on the CI machine).
			default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

		EOF
		awk -v brig="$brig" -v runc="$runc" -v d="$dir" -v m="$manager" '
			{ print }
			/^\[engine\]$/ {
				print "cgroup_manager = \"" m "\""
				print "events_logger = \"file\""
				print "events_logfile_path = \"" d "/events.log\""
				print "tmp_dir = \"" d "/tmp\""
			}
			/^\[engine\.runtimes\]$/ && runc != "" { print "runc = [\"" runc "\"]" }
			/^brig = \[/ { print "  \"" brig "\"," }
		' "$src/contrib/podman/containers.conf"
	} >"$dir/containers.conf"
}
