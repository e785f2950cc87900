#!/bin/bash
# tests/vm/systemd/unit.sh: the body of brig-vm-run.service in the systemd
# guest.  Once the boot has finished, tests/vm/guest.sh runs with stdout and
# stderr on the virtio-serial ports run.sh streams (as tests/vm/init does in
# the shell guest); the unit's end powers the guest off.
out='' err=''
for p in /sys/class/virtio-ports/*; do
	case $(cat "$p/name" 2>/dev/null) in
	brig-vm.out) out=/dev/${p##*/} ;;
	brig-vm.err) err=/dev/${p##*/} ;;
	esac
done
if [ -z "$out" ] || [ -z "$err" ]; then
	echo "brig-vm: no virtio-serial ports brig-vm.out/brig-vm.err" >/dev/console
	exit 1
fi
# The unit's cgroup is delegated (Delegate=yes): this script moves into
# its leaf "guest", so that the unit's cgroup has no process and can give
# its controllers to the cgroups the subreaper makes for each test file
# beside it (BRIG_TEST_CGROUP_PARENT), as the root does in the shell guest.
unit=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)
mkdir -p "$unit/guest" && echo $$ >"$unit/guest/cgroup.procs" &&
	read -ra ctl <"$unit/cgroup.controllers" &&
	for c in "${ctl[@]}"; do
		echo "+$c" >"$unit/cgroup.subtree_control"
	done
export BRIG_TEST_CGROUP_PARENT=$unit
state=$(systemctl is-system-running --wait)
echo "vm: systemd $(systemctl show -p Version --value) is $state" >"$err"
[ "$state" = running ] || systemctl --failed --no-pager --no-legend >"$err"
/bin/bash /run/brig-vm/guest.sh </dev/null >"$out" 2>"$err"
sync
