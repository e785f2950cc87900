# tests/conformance/normalise.jq: a corpus config made runnable on the
# machine of the test (run.sh), with as few edits as that takes, each
# with its reason.  What the config says about the container otherwise
# (mounts, namespaces, capabilities, seccomp, rlimits, env, user, cwd,
# resources, masked paths, sysctls, annotations) is left as it is: that
# is what brig and runc are compared on.
#
# Arguments (jq --arg/--argjson):
#   $cg       the relative cgroupsPath of the test
#   $caps     the capabilities in the bounding set of the test ([names])
#   $limits   the test's hard rlimits ({"RLIMIT_X": n, null: unlimited})
#   $sysres   whether the test has CAP_SYS_RESOURCE
#   $oom      the test's oom_score_adj
#   $hostid   the first host id of a user namespace (100000)
#
# (jq 1.6 holds numbers as doubles: a config with a 64-bit value above
# 2^53, 18446744073709551615 say, would be changed by any edit here.
# None of the corpus has one.)

# The root: the busybox rootfs of the bundle, not the generator's
# (Podman's overlay, the "rootfs" of a directory that is not here);
# root.readonly as the config says.
.root = {path: "rootfs", readonly: (.root.readonly // false)}

# The process: the probe, with the config's sysctls to read back; no
# terminal (the output is read through pipes).
| .process.args = ["/probe"] + ((.linux.sysctl // {}) | keys | map("sysctl:" + .))
| .process.terminal = false
| del(.process.consoleSize)

# cgroups: a relative path, which both runtimes nest under the caller's
# cgroup (the rule of this machine; tests/helpers/subreaper checks for
# leftovers there); the same one for both runs.
| .linux.cgroupsPath = $cg

# Hooks run host programs of the generating machine.  (run.sh adds hooks
# of its own, which tell what environment each stage gets.)
| del(.hooks)

# Namespaces given by path are those of the pod or of the engine that
# wrote the config (the CRI sandbox's): gone here.  The container gets
# new ones instead.
| if .linux.namespaces then .linux.namespaces |= map(del(.path)) else . end

# No SELinux or AppArmor here: labels and profiles would name nothing.
| del(.process.selinuxLabel, .linux.mountLabel, .process.apparmorProfile)

# Capabilities the test runs without (CAP_SYS_RESOURCE on the CI
# machine) cannot be given to the container by any runtime.
| if .process.capabilities then
	.process.capabilities |= map_values(map(select(. as $c | $caps | index($c))))
  else . end

# rlimits above the test's hard limits need CAP_SYS_RESOURCE (Podman asks
# for RLIMIT_NOFILE 1048576): lowered to them where it is missing.
| if ($sysres | not) and .process.rlimits then
	.process.rlimits |= map(
		if $limits[.type] != null and .hard > $limits[.type] then
			.hard = $limits[.type] | .soft = ([.soft, .hard] | min)
		else . end)
  else . end

# An oom_score_adj below the test's needs CAP_SYS_RESOURCE too.
| if ($sysres | not) and .process.oomScoreAdj != null and .process.oomScoreAdj < $oom then
	.process.oomScoreAdj = $oom
  else . end

# User namespaces: host ids below $hostid (a rootless config made by root
# maps 0 to 0) are moved up by $hostid, where nothing of this host lives;
# a config without mappings (crun spec --rootless: crun maps the calling
# user at run time) maps 0 to $hostid, size 1, as crun would for a user
# of that uid.
| def up: map(if .hostID < $hostid then .hostID += $hostid else . end);
  if (.linux.namespaces // []) | map(.type) | index("user") then
	.linux.uidMappings = ((.linux.uidMappings // [{containerID: 0, hostID: 0, size: 1}]) | up)
	| .linux.gidMappings = ((.linux.gidMappings // [{containerID: 0, hostID: 0, size: 1}]) | up)
  else . end
