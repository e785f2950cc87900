#!/bin/bash
# linux.memoryPolicy (runtime-spec 1.3, config-linux.md "Memory policy"):
# the NUMA memory policy of set_mempolicy(2), set in the container's init
# before it execs the process, so the process itself runs under it.  Every
# mode the kernel has and every flag with a mode it goes with, each read
# back from the container's own /proc/self/numa_maps; the combinations the
# spec, crun and the kernel refuse, each one line naming the field and
# leaving nothing behind; and `features`.
#
# The spec: mode (REQUIRED) one of MPOL_DEFAULT, MPOL_BIND, MPOL_INTERLEAVE,
# MPOL_WEIGHTED_INTERLEAVE, MPOL_PREFERRED, MPOL_PREFERRED_MANY, MPOL_LOCAL;
# nodes a cpuset-style list ("0-3,7"), needed by the modes that work on a
# set of nodes and not allowed with MPOL_DEFAULT and MPOL_LOCAL
# (runtime-spec #1294, runtime-tools' MpolModeNodesValid); flags any of
# MPOL_F_NUMA_BALANCING, MPOL_F_RELATIVE_NODES, MPOL_F_STATIC_NODES.
#
# numa_maps shows a mapping's policy as the kernel's mpol_to_str() writes it:
# "default", "local", "bind:0", "interleave:0", "weighted interleave:0",
# "prefer:0", "prefer (many):0", the flags after "=" ("bind=static:0",
# "bind=relative|balancing:0").  A mapping without a policy of its own (all
# of busybox's) shows the task's, so every line names the same one.
#
# This host may have a single NUMA node: the nodes used are the first one
# this process may allocate from ($NODE); modes and flags this kernel lacks
# are skipped, saying which kernel they need.
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=../lib/rootfs.sh
. "$(dirname "$0")/../lib/rootfs.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v jq >/dev/null 2>&1 || skip_all "needs jq"
[ -r /proc/self/numa_maps ] || skip_all "no /proc/self/numa_maps (a kernel without CONFIG_NUMA)"

# The memory nodes this process may use (and so the container, which
# nests in its cgroups): the first, how many, and one it may not use.
NODES_ALLOWED=$(sed -n 's/^Mems_allowed_list:[[:space:]]*//p' /proc/self/status)
NODE=${NODES_ALLOWED%%[!0-9]*}
[ -n "$NODE" ] || skip_all "cannot read Mems_allowed_list from /proc/self/status"
N_ALLOWED=0
NODE_LAST=$NODE
for r in ${NODES_ALLOWED//,/ }; do
	lo=${r%-*} hi=${r#*-}
	N_ALLOWED=$((N_ALLOWED + hi - lo + 1))
	[ "$hi" -gt "$NODE_LAST" ] && NODE_LAST=$hi
done
NODE_ABSENT=$((NODE_LAST + 1))
unset r lo hi

brig_file_rootfs

# An error about the memory policy: one line naming the field.
MP_ERR='^brig: config\.json: linux\.memoryPolicy(\.(mode|nodes|flags(\[[0-9]+\])?))?: [^[:cntrl:]]+$'

ALL_MODES='["MPOL_BIND","MPOL_DEFAULT","MPOL_INTERLEAVE","MPOL_LOCAL","MPOL_PREFERRED","MPOL_PREFERRED_MANY","MPOL_WEIGHTED_INTERLEAVE"]'
ALL_FLAGS='["MPOL_F_NUMA_BALANCING","MPOL_F_RELATIVE_NODES","MPOL_F_STATIC_NODES"]'

# --------------------------------------------------------------- helpers

# kernel_at_least MAJOR MINOR: uname -r is MAJOR.MINOR or later.
kernel_at_least() {
	local v maj min
	v=$(uname -r)
	maj=${v%%.*}
	min=${v#*.}
	min=${min%%[!0-9]*}
	[ "$maj" -gt "$1" ] || { [ "$maj" -eq "$1" ] && [ "$min" -ge "$2" ]; }
}

# have_mode MODE: this kernel has MODE; require_mode MODE: skip if not.
have_mode() {
	case $1 in
	MPOL_PREFERRED_MANY) kernel_at_least 5 15 ;;
	MPOL_WEIGHTED_INTERLEAVE) [ -d /sys/kernel/mm/mempolicy/weighted_interleave ] ;;
	*) true ;;
	esac
}
require_mode() {
	have_mode "$1" && return 0
	case $1 in
	MPOL_PREFERRED_MANY)
		skip "MPOL_PREFERRED_MANY needs Linux 5.15 (this is $(uname -r))" ;;
	MPOL_WEIGHTED_INTERLEAVE)
		skip "MPOL_WEIGHTED_INTERLEAVE needs Linux 6.9 (no /sys/kernel/mm/mempolicy/weighted_interleave)" ;;
	esac
}
require_flag() {
	case $1 in
	MPOL_F_NUMA_BALANCING)
		kernel_at_least 5 12 ||
			skip "MPOL_F_NUMA_BALANCING needs Linux 5.12 (this is $(uname -r))"
		;;
	esac
}

# mp_bundle POLICY-JSON CMD [ARGS...]: the bundle $T/b (mkbundle) running
# CMD with linux.memoryPolicy = POLICY-JSON.
mp_bundle() {
	local policy=$1
	shift
	mkbundle . "$@"
	brig_bundle_edit "$T/b" '.linux.memoryPolicy = $mp' --argjson mp "$policy" ||
		fail "cannot set linux.memoryPolicy to $policy"
}

# policies NUMA-MAPS: the policy column of every line, each one once.
policies() {
	sed -E 's/^[0-9a-f]+ //
		s/ (file=|heap|stack|huge|anon=|dirty=|swapcache=|active=|writeback=|mapmax=|N[0-9]+=|kernelpagesize_kB=).*$//' <<<"$1" |
		sort -u
}

# expect_policy POLICY-JSON EXPECTED: a container whose process is
# `cat /proc/self/numa_maps` (the init itself, after its execve) runs under
# POLICY-JSON and every one of its mappings shows EXPECTED.
expect_policy() {
	mp_bundle "$1" cat /proc/self/numa_maps
	br run --bundle "$T/b" "c$RANDOM"
	assert_rc 0 || return 1
	assert_eq "$err" "" "stderr with $1"
	assert_eq "$(policies "$out")" "$2" "the policy in numa_maps with $1"
	assert_empty_dir "$T/root"
}

# refused POLICY-JSON: create refuses the policy with one line naming
# linux.memoryPolicy (not as unsupported); the process never runs (it
# would leave $T/shared/ran) and nothing is left under the root.
refused() {
	rm -f "$T/shared/ran"
	mp_bundle "$1" touch /shared/ran
	br run --bundle "$T/b" "c$RANDOM"
	assert_ne "$rc" 0 "exit status with $1"
	assert_eq "$out" "" "stdout with $1"
	assert_lines 1 "$err" "stderr with $1"
	assert_match "$err" "$MP_ERR" "stderr with $1"
	# refused for what is wrong with it, not for want of support
	assert_not_contains "$err" "not implemented" "stderr with $1"
	assert_no_file "$T/shared/ran"
	assert_empty_dir "$T/root"
}

# -------------------------------------------------------------- features

# features-linux.md: "memoryPolicy": {"modes": [...], "flags": [...]}, the
# names the runtime recognizes in config.json (not what this kernel has).
t_features() {
	brig features
	assert_rc 0
	assert_json "$out" "features" || return
	assert_eq "$(jq -c '.linux.memoryPolicy | keys' <<<"$out")" '["flags","modes"]' \
		"the keys of features.linux.memoryPolicy"
	assert_eq "$(jq -c '.linux.memoryPolicy.modes | sort' <<<"$out")" "$ALL_MODES" \
		"features.linux.memoryPolicy.modes"
	assert_eq "$(jq -c '.linux.memoryPolicy.flags | sort' <<<"$out")" "$ALL_FLAGS" \
		"features.linux.memoryPolicy.flags"
	assert_eq "$(jq -c '[.linux.memoryPolicy.modes, .linux.memoryPolicy.flags | length]' <<<"$out")" \
		"[7,3]" "each name once"
}

# ----------------------------------------------------------------- modes

t_mode() { # MODE EXPECTED: with nodes "$NODE"
	require_mode "$1"
	expect_policy "{\"mode\": \"$1\", \"nodes\": \"$NODE\"}" "$2"
}

t_mode_bind_ranges() {
	# the nodes as a range, and a list naming a node this process may not
	# use next to one it may: the kernel keeps the allowed ones
	expect_policy "{\"mode\": \"MPOL_BIND\", \"nodes\": \"$NODE-$NODE\"}" "bind:$NODE"
	expect_policy "{\"mode\": \"MPOL_BIND\", \"nodes\": \"$NODE,$NODE_ABSENT\"}" "bind:$NODE"
}

t_mode_local() {
	expect_policy '{"mode": "MPOL_LOCAL"}' local
}

# MPOL_DEFAULT is what numa_maps shows when nothing was set at all: run
# brig under another policy (numactl --interleave), which its children
# inherit, so that only a set_mempolicy(MPOL_DEFAULT) in the init shows.
t_mode_default() {
	require_cmd numactl
	mkbundle . cat /proc/self/numa_maps
	run_cmd numactl --interleave="$NODE" "$BRIG" --root "$T/root" run --bundle "$T/b" "c$RANDOM"
	assert_rc 0 || return
	assert_eq "$(policies "$out")" "interleave:$NODE" \
		"without linux.memoryPolicy the container keeps the caller's policy"
	mp_bundle '{"mode": "MPOL_DEFAULT"}' cat /proc/self/numa_maps
	run_cmd numactl --interleave="$NODE" "$BRIG" --root "$T/root" run --bundle "$T/b" "c$RANDOM"
	assert_rc 0 || return
	assert_eq "$err" "" "stderr"
	assert_eq "$(policies "$out")" default "MPOL_DEFAULT under a caller's interleave"
	# nodes "" is no nodes (a Go runtime cannot tell them apart)
	mp_bundle '{"mode": "MPOL_DEFAULT", "nodes": ""}' cat /proc/self/numa_maps
	run_cmd numactl --interleave="$NODE" "$BRIG" --root "$T/root" run --bundle "$T/b" "c$RANDOM"
	assert_rc 0 || return
	assert_eq "$(policies "$out")" default "MPOL_DEFAULT with nodes \"\""
	assert_empty_dir "$T/root"
}

# ----------------------------------------------------------------- flags

t_flag_static() {
	local mode shown
	expect_policy "{\"mode\": \"MPOL_BIND\", \"nodes\": \"$NODE\", \"flags\": [\"MPOL_F_STATIC_NODES\"]}" \
		"bind=static:$NODE"
	expect_policy "{\"mode\": \"MPOL_INTERLEAVE\", \"nodes\": \"$NODE\", \"flags\": [\"MPOL_F_STATIC_NODES\"]}" \
		"interleave=static:$NODE"
	# crun's test_mempolicy.py: prefer=static:0
	expect_policy "{\"mode\": \"MPOL_PREFERRED\", \"nodes\": \"$NODE\", \"flags\": [\"MPOL_F_STATIC_NODES\"]}" \
		"prefer=static:$NODE"
	for mode in MPOL_PREFERRED_MANY MPOL_WEIGHTED_INTERLEAVE; do
		if ! have_mode "$mode"; then
			diag "$mode: not on this kernel ($(uname -r)), not tried"
			continue
		fi
		shown="prefer (many)"
		[ "$mode" = MPOL_WEIGHTED_INTERLEAVE ] && shown="weighted interleave"
		expect_policy "{\"mode\": \"$mode\", \"nodes\": \"$NODE\", \"flags\": [\"MPOL_F_STATIC_NODES\"]}" \
			"$shown=static:$NODE"
	done
}

# With MPOL_F_RELATIVE_NODES the nodes are indexes into the nodes the
# process may use, folded modulo their number: node $N_ALLOWED is the
# first allowed one, even where no node of that number exists.  So the
# runtime hands the list to the kernel as it is.
t_flag_relative() {
	expect_policy "{\"mode\": \"MPOL_BIND\", \"nodes\": \"0\", \"flags\": [\"MPOL_F_RELATIVE_NODES\"]}" \
		"bind=relative:$NODE"
	expect_policy "{\"mode\": \"MPOL_BIND\", \"nodes\": \"$N_ALLOWED\", \"flags\": [\"MPOL_F_RELATIVE_NODES\"]}" \
		"bind=relative:$NODE"
	expect_policy "{\"mode\": \"MPOL_INTERLEAVE\", \"nodes\": \"0\", \"flags\": [\"MPOL_F_RELATIVE_NODES\"]}" \
		"interleave=relative:$NODE"
	expect_policy "{\"mode\": \"MPOL_PREFERRED\", \"nodes\": \"0\", \"flags\": [\"MPOL_F_RELATIVE_NODES\"]}" \
		"prefer=relative:$NODE"
}

# MPOL_F_NUMA_BALANCING goes with MPOL_BIND (Linux 5.12), alone and with
# either of the other two (crun's test_mempolicy.py: bind=balancing:0,
# bind=relative|balancing:0).
t_flag_numa_balancing() {
	require_flag MPOL_F_NUMA_BALANCING
	expect_policy "{\"mode\": \"MPOL_BIND\", \"nodes\": \"$NODE\", \"flags\": [\"MPOL_F_NUMA_BALANCING\"]}" \
		"bind=balancing:$NODE"
	expect_policy "{\"mode\": \"MPOL_BIND\", \"nodes\": \"$NODE\", \"flags\": [\"MPOL_F_NUMA_BALANCING\", \"MPOL_F_STATIC_NODES\"]}" \
		"bind=static|balancing:$NODE"
	expect_policy "{\"mode\": \"MPOL_BIND\", \"nodes\": \"0\", \"flags\": [\"MPOL_F_RELATIVE_NODES\", \"MPOL_F_NUMA_BALANCING\"]}" \
		"bind=relative|balancing:$NODE"
}

# ---------------------------------------------------- refused: the parser
#
# crun 1.29 (src/libcrun/mempolicy.c) says, for the same configs:
#   "linux NUMA mempolicy mode is missing from the configuration"
#   "requested linux NUMA mempolicy mode '%s' is unknown"
#   "requested linux NUMA mempolicy flag '%s' is unknown"
#   "cannot parse input `%s`"                       (the nodes, cpuset syntax)
#   "requested NUMA bitmask bigger than kernel supported bitmask"
# and the kernel's set_mempolicy(2) EINVAL as "set_mempolicy: Invalid
# argument" for everything else below.  Its earlier libnuma version said
# "Requested linux numa mempolicy flag MPOL_F_RELATIVE_NODES and
# MPOL_F_STATIC_NODES cannot be combined", "Requested linux numa mempolicy
# flag MPOL_F_NUMA_BALANCING is incompatible with %s" and "linux numa
# mempolicy nodes is missing from the configuration".  brig says each as
# one line "brig: config.json: linux.memoryPolicy[.FIELD]: ..." ($MP_ERR).

t_refused_names() {
	refused '{}'
	refused '{"nodes": "0"}'
	refused '{"mode": "BAD_MODE"}'
	refused '{"mode": "mpol_bind", "nodes": "0"}'
	refused "{\"mode\": \"MPOL_BIND\", \"nodes\": \"$NODE\", \"flags\": [\"BADFLAG\"]}"
	refused "{\"mode\": \"MPOL_BIND\", \"nodes\": \"$NODE\", \"flags\": [\"MPOL_F_STATIC_NODES\", \"MPOL_F_LOCAL\"]}"
}

t_refused_node_syntax() {
	local nodes
	for nodes in bad "0-" "1-0" "0," ",0" " 0" "-1" "0--1"; do
		refused "$(jq -cn --arg n "$nodes" '{mode: "MPOL_BIND", nodes: $n}')"
	done
}

# MPOL_F_STATIC_NODES and MPOL_F_RELATIVE_NODES are mutually exclusive
# (set_mempolicy(2); crun's test "mempolicy-static-relative-nodes-flags").
t_refused_static_relative() {
	refused "{\"mode\": \"MPOL_BIND\", \"nodes\": \"$NODE\", \"flags\": [\"MPOL_F_STATIC_NODES\", \"MPOL_F_RELATIVE_NODES\"]}"
	refused "{\"mode\": \"MPOL_PREFERRED\", \"nodes\": \"$NODE\", \"flags\": [\"MPOL_F_RELATIVE_NODES\", \"MPOL_F_STATIC_NODES\"]}"
}

# ------------------------------------------ refused: invalid combinations

# MPOL_DEFAULT and MPOL_LOCAL take no nodes (runtime-spec #1294;
# set_mempolicy(2): "nodemask must be specified as NULL").
t_refused_nodes_not_taken() {
	refused "{\"mode\": \"MPOL_DEFAULT\", \"nodes\": \"$NODE\"}"
	refused "{\"mode\": \"MPOL_LOCAL\", \"nodes\": \"$NODE\"}"
}

# The modes that work on a set of nodes need a non-empty one, absent and
# "" alike (crun's test "mempolicy-no-nodes": MPOL_INTERLEAVE without nodes).
t_refused_nodes_missing() {
	local mode
	for mode in MPOL_BIND MPOL_INTERLEAVE MPOL_WEIGHTED_INTERLEAVE MPOL_PREFERRED_MANY; do
		refused "{\"mode\": \"$mode\"}"
		refused "{\"mode\": \"$mode\", \"nodes\": \"\"}"
	done
}

# MPOL_F_NUMA_BALANCING is for MPOL_BIND (crun's test
# "mempolicy-numa-balancing-flag": with MPOL_PREFERRED).
t_refused_numa_balancing() {
	local mode
	for mode in MPOL_PREFERRED MPOL_INTERLEAVE MPOL_WEIGHTED_INTERLEAVE; do
		refused "{\"mode\": \"$mode\", \"nodes\": \"$NODE\", \"flags\": [\"MPOL_F_NUMA_BALANCING\"]}"
	done
	refused '{"mode": "MPOL_DEFAULT", "flags": ["MPOL_F_NUMA_BALANCING"]}'
	refused '{"mode": "MPOL_LOCAL", "flags": ["MPOL_F_NUMA_BALANCING"]}'
}

# MPOL_F_STATIC_NODES and MPOL_F_RELATIVE_NODES need nodes to be about:
# not with MPOL_LOCAL, nor with MPOL_PREFERRED's empty set ("If an empty
# nodemask is passed, the policy cannot use the MPOL_F_STATIC_NODES or
# MPOL_F_RELATIVE_NODES flags", numa_memory_policy.rst).
t_refused_node_flags_without_nodes() {
	refused '{"mode": "MPOL_LOCAL", "flags": ["MPOL_F_STATIC_NODES"]}'
	refused '{"mode": "MPOL_LOCAL", "flags": ["MPOL_F_RELATIVE_NODES"]}'
	refused '{"mode": "MPOL_PREFERRED", "flags": ["MPOL_F_STATIC_NODES"]}'
	refused '{"mode": "MPOL_PREFERRED", "nodes": "", "flags": ["MPOL_F_RELATIVE_NODES"]}'
}

# Nodes the container may not use at all: one past the last allowed node
# (the kernel's EINVAL), and one no bitmask holds (crun's test
# "mempolicy-bad-nodes-number": 10284838).
t_refused_absent_nodes() {
	refused "{\"mode\": \"MPOL_BIND\", \"nodes\": \"$NODE_ABSENT\"}"
	refused "{\"mode\": \"MPOL_PREFERRED\", \"nodes\": \"$NODE_ABSENT\"}"
	refused "{\"mode\": \"MPOL_INTERLEAVE\", \"nodes\": \"$NODE_ABSENT\", \"flags\": [\"MPOL_F_STATIC_NODES\"]}"
	refused '{"mode": "MPOL_PREFERRED", "nodes": "10284838"}'
	refused '{"mode": "MPOL_BIND", "nodes": "0-10284838"}'
}

tap_test "features: linux.memoryPolicy lists the 7 modes and 3 flags" t_features
tap_test "MPOL_BIND: the process runs under bind:NODE" t_mode MPOL_BIND "bind:$NODE"
tap_test "MPOL_BIND: nodes as a range, and with a node not allowed" t_mode_bind_ranges
tap_test "MPOL_INTERLEAVE: the process runs under interleave:NODE" \
	t_mode MPOL_INTERLEAVE "interleave:$NODE"
tap_test "MPOL_WEIGHTED_INTERLEAVE: the process runs under weighted interleave:NODE" \
	t_mode MPOL_WEIGHTED_INTERLEAVE "weighted interleave:$NODE"
tap_test "MPOL_PREFERRED: the process runs under prefer:NODE" t_mode MPOL_PREFERRED "prefer:$NODE"
tap_test "MPOL_PREFERRED_MANY: the process runs under prefer (many):NODE" \
	t_mode MPOL_PREFERRED_MANY "prefer (many):$NODE"
tap_test "MPOL_LOCAL: the process runs under local" t_mode_local
tap_test "MPOL_DEFAULT resets a policy inherited from the caller (none: inherited)" t_mode_default
tap_test "MPOL_F_STATIC_NODES with every mode that takes nodes" t_flag_static
tap_test "MPOL_F_RELATIVE_NODES: nodes relative to the allowed ones" t_flag_relative
tap_test "MPOL_F_NUMA_BALANCING with MPOL_BIND, alone and with the others" t_flag_numa_balancing
tap_test "refused: no mode, an unknown mode or flag" t_refused_names
tap_test "refused: nodes that are not a node list" t_refused_node_syntax
tap_test "refused: MPOL_F_STATIC_NODES with MPOL_F_RELATIVE_NODES" t_refused_static_relative
tap_test "refused: nodes with MPOL_DEFAULT or MPOL_LOCAL" t_refused_nodes_not_taken
tap_test "refused: no nodes (or \"\") with BIND, INTERLEAVE, WEIGHTED_INTERLEAVE, PREFERRED_MANY" \
	t_refused_nodes_missing
tap_test "refused: MPOL_F_NUMA_BALANCING with a mode other than MPOL_BIND" t_refused_numa_balancing
tap_test "refused: STATIC or RELATIVE nodes flags without nodes" t_refused_node_flags_without_nodes
tap_test "refused: only nodes the container may not use" t_refused_absent_nodes
tap_done
