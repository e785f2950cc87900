#!/bin/bash
# tests/bench/syscalls.sh: where the kernel time of a cold `run` (or of an
# `exec` into a running container) goes, system call by system call, for
# brig and crun.  bpftrace sums the time that every call of the runtime's
# processes (their name: brig, crun) and of the container's `true` spends
# in the kernel, and counts their page faults, over RUNS runs back to back,
# and this prints per run: the calls made, their kernel time, the page
# faults, and the TOP calls by time.  Calls that wait for another process
# (poll, recvmsg, waitid, ...) are summed apart: their time is the other's
# work.
#
# Wall times on a machine with neighbours move by a millisecond from one
# run to the next; these sums move far less, so they show what a change
# removed, and what the floor (the namespaces of the clone) costs.  It
# counts every process of those names on the machine: run it when
# nothing else runs brig.  It prints, never asserts.
#
#   sudo tests/bench/syscalls.sh       RUNS=100 TOP=30 tests/bench/syscalls.sh
#   sudo WHAT=exec tests/bench/syscalls.sh
#
# Both run in a private mount namespace without the cgroup v2 mount of a
# hybrid host (crun refuses hybrid cgroups), as run.sh does.  WHAT=exec
# times `exec <id> true` into a container (`sleep`) that a copy of the
# runtime under another name starts before the trace and deletes after
# (neither counted), in a private pid namespace whose init reaps it, as
# exec.sh does.  Environment: BRIG, WHAT (run, or exec), RUNS (50), TOP
# (20), RUNTIMES ("brig crun"; one not installed is skipped).
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-50}
TOP=${TOP:-20}
RUNTIMES=${RUNTIMES:-brig crun}
WHAT=${WHAT:-run}
case $WHAT in
run | exec) ;;
*) die "WHAT: run or exec, not $WHAT" ;;
esac
bench_start syscalls bpftrace unshare awk
bench_want crun || true
trap bench_finish EXIT

UNISTD=/usr/include/x86_64-linux-gnu/asm/unistd_64.h
[ -r "$UNISTD" ] || bench_need "$UNISTD=linux-libc-dev"
bench_bundle "$W/bundle"
bench_bundle_beside "$W/bundle" "$W/bundle-sleep" '.process.args = ["sleep", "100000"]'

# The calls whose time is spent waiting for another process (crun waits
# for its child in read(2) too, which cannot be told apart here).
WAITS=" poll ppoll select pselect6 epoll_wait epoll_pwait epoll_pwait2 recvmsg recvfrom "
WAITS+="waitid wait4 futex nanosleep clock_nanosleep pause rt_sigsuspend rt_sigtimedwait "

cat >"$W/sum.bt" <<'EOF'
tracepoint:raw_syscalls:sys_enter /comm == str($1) || comm == "true"/ {
	@at[tid] = nsecs;
	@nr[tid] = args->id;
}
tracepoint:raw_syscalls:sys_exit /@at[tid]/ {
	@ns[@nr[tid]] = sum(nsecs - @at[tid]);
	@calls[@nr[tid]] = count();
	delete(@at[tid]);
	delete(@nr[tid]);
}
tracepoint:exceptions:page_fault_user /comm == str($1) || comm == "true"/ {
	@faults = count();
}
END { clear(@at); clear(@nr); }
EOF

# trace NAME CMD...: CMD (RUNS runs of NAME) under bpftrace; its maps in
# $W/NAME.bt.
trace() {
	local name=$1 pid i
	shift
	# bpftrace finds the tracepoints in tracefs: mounted, when the host
	# has none, in a mount namespace of its own (the host's is untouched)
	unshare -m sh -c 'mountpoint -q /sys/kernel/tracing ||
		mount -t tracefs tracefs /sys/kernel/tracing || exit 1
		exec bpftrace "$@"' sh "$W/sum.bt" "$name" >"$W/$name.bt" 2>"$W/$name.bt.err" &
	pid=$!
	# bpftrace prints "Attaching N probes..." once it traces
	for i in $(seq 200); do
		grep -q '^Attaching' "$W/$name.bt" "$W/$name.bt.err" 2>/dev/null && break
		sleep 0.05
	done
	"$@"
	kill -INT "$pid"
	wait "$pid"
}

# report NAME: the maps of $W/NAME.bt per run, by call.
report() {
	awk -v runs="$RUNS" -v top="$TOP" -v waits="$WAITS" -v name="$1" -v what="$WHAT" '
		FILENAME == ARGV[1] {
			if ($1 == "#define" && $2 ~ /^__NR_/) sys[$3] = substr($2, 6)
			next
		}
		/^@(ns|calls)\[[0-9]+\]: [0-9]+/ {
			split(substr($0, 2), a, "[^a-z0-9]+")
			v[a[1], a[2]] = a[3]
			ids[a[2]] = 1
		}
		/^@faults: [0-9]+/ { faults = $2 }
		END {
			for (id in ids) {
				n = (id in sys) ? sys[id] : "syscall_" id
				if (index(waits, " " n " ")) {
					wns += v["ns", id]; wcalls += v["calls", id]
					continue
				}
				tot += v["ns", id]; calls += v["calls", id]
				line[id] = sprintf("  %-18s %7.1f us %6.1f calls %6.2f us each",
				                   n, v["ns", id] / runs / 1000, v["calls", id] / runs,
				                   v["ns", id] / v["calls", id] / 1000)
				key[id] = v["ns", id]
			}
			printf "%s: %.0f calls, %.3f ms in the kernel per %s (and %.0f waits, %.3f ms); %.0f page faults\n",
			       name, calls / runs, tot / runs / 1e6, what, wcalls / runs, wns / runs / 1e6,
			       faults / runs
			for (i = 0; i < top; i++) {
				best = ""
				for (id in key)
					if (best == "" || key[id] > key[best]) best = id
				if (best == "") break
				print line[best]
				delete key[best]
			}
		}' "$UNISTD" "$W/$1.bt"
}

printf 'syscalls: %s, %s CPUs, brig %s, %s %ss each\n' "$(uname -r)" "$(nproc)" \
	"$("$BRIG" --version | head -1 | sed 's/^brig version //')" "$RUNS" "$WHAT"
export BRIG RUNS W WHAT
# in a private mount namespace without the v2 mount of a hybrid host
# (crun refuses hybrid cgroups); for exec, in a private pid namespace too,
# whose init reaps the container
# shellcheck disable=SC2016 # (expanded by the inner shell)
inner='
	if [ "$(stat -f -c %T /sys/fs/cgroup)" = tmpfs ] &&
		[ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
		umount /sys/fs/cgroup/unified || exit 1
	fi
	root=$W/root-$2
	if [ "$WHAT" = run ]; then
		for i in $(seq "$RUNS"); do
			"$1" --root "$root" run --bundle "$W/bundle" "s$i" >/dev/null || exit 1
		done
		exit 0
	fi
	# the container, started and deleted by a copy of the runtime named
	# otherwise (not traced), execs by the runtime, traced once ready;
	# "done" whatever happens, so that the trace never waits for it alone
	trap '\''touch "$W/done"'\'' EXIT
	cp "$1" "$W/$2-setup" || exit 1
	"$W/$2-setup" --root "$root" run -d --bundle "$W/bundle-sleep" x </dev/null >/dev/null || exit 1
	touch "$W/ready"
	while [ ! -e "$W/go" ]; do sleep 0.05; done
	for i in $(seq "$RUNS"); do
		"$1" --root "$root" exec x true >/dev/null || { r=1; break; }
	done
	touch "$W/done"
	"$W/$2-setup" --root "$root" delete --force x
	exit "${r:-0}"'
for r in $RUNTIMES; do
	case $r in
	brig) cmd=$BRIG ;;
	*)
		command -v "$r" >/dev/null 2>&1 || {
			note "$r is not installed: skipped"
			continue
		}
		cmd=$(command -v "$r")
		;;
	esac
	rm -f "$W/ready" "$W/go" "$W/done"
	if [ "$WHAT" = run ]; then
		trace "$r" unshare -m bash -c "$inner" bash "$cmd" "$r" || note "$r: a run failed"
	else
		# started before the trace: the container comes up untraced
		unshare -m -p --fork --mount-proc bash -c "$inner" bash "$cmd" "$r" &
		setup=$!
		for i in $(seq 200); do
			[ -e "$W/ready" ] && break
			sleep 0.05
		done
		trace "$r" sh -c 'touch "$1/go"; while [ ! -e "$1/done" ]; do sleep 0.02; done' sh "$W"
		wait "$setup" || note "$r: the container or an exec failed"
	fi
	report "$r"
	echo
done
