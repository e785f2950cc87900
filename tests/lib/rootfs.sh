# shellcheck shell=bash
# tests/lib/rootfs.sh: busybox root filesystems and OCI bundles for tests and
# the demo.  Needs no root and no network: the rootfs is Debian's statically
# linked busybox (package busybox-static) plus a symlink per applet.
#
#   . tests/lib/rootfs.sh
#   brig_make_rootfs DIR            DIR/bin/busybox, DIR/bin/<applet>, /etc files
#   brig_make_bundle DIR [ARGS...]  DIR/rootfs + DIR/config.json ("$BRIG spec ARGS")
#   brig_bundle_edit DIR FILTER [JQ-ARGS...]   rewrite DIR/config.json with jq
#
# Functions print a one-line reason on stderr and return 1 on failure.

# brig_busybox: path of a statically linked busybox on this host.
brig_busybox() {
	local bb
	for bb in ${BRIG_BUSYBOX:-} /bin/busybox /usr/bin/busybox; do
		[ -x "$bb" ] || continue
		# A dynamic busybox (package "busybox") would need the host's libc
		# inside the rootfs; only the static one is self-contained.
		if LC_ALL=C ldd "$bb" >/dev/null 2>&1; then
			continue
		fi
		echo "$bb"
		return 0
	done
	echo "rootfs: no statically linked busybox found (apt-get install busybox-static)" >&2
	return 1
}

# brig_make_rootfs DIR: a minimal busybox root filesystem in DIR (created;
# must not exist or be empty).
brig_make_rootfs() {
	local dir=$1 bb
	bb=$(brig_busybox) || return 1
	if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
		echo "rootfs: $dir exists and is not empty" >&2
		return 1
	fi
	mkdir -p "$dir"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,root,run,var} || return 1
	cp "$bb" "$dir/bin/busybox" || return 1
	# What `chroot DIR /bin/busybox --install -s /bin` does, without needing
	# root: one symlink per applet in /bin.  Relative links also resolve
	# when the rootfs is inspected from the host.  One perl (Essential in
	# Debian) for the 268 links: an ln each took 2.5-6 s a rootfs here, a
	# multiple of that in a TCG guest; 0.4 s now.
	"$dir/bin/busybox" --list | perl -e '
		chdir $ARGV[0] or die "$ARGV[0]: $!\n";
		while (my $applet = <STDIN>) {
			chomp $applet;
			next if -e $applet;
			symlink("busybox", $applet) or die "$applet: $!\n";
		}
		chmod(0700, "../root") && chmod(01777, "../tmp") or die "chmod: $!\n";' "$dir/bin" ||
		{
			echo "rootfs: cannot link the applets in $dir/bin" >&2
			return 1
		}
	[ -x "$dir/bin/sh" ] || {
		echo "rootfs: busybox in $dir has no sh applet" >&2
		return 1
	}
	printf '%s\n' "root:x:0:0:root:/root:/bin/sh" \
		"nobody:x:65534:65534:nobody:/nonexistent:/bin/false" >"$dir/etc/passwd" &&
		printf '%s\n' "root:x:0:" "nogroup:x:65534:" >"$dir/etc/group"
}

# brig_make_bundle DIR [SPEC-ARGS...]: an OCI bundle in DIR: a busybox
# rootfs and the config.json of `$BRIG spec SPEC-ARGS` (e.g. --rootless).
brig_make_bundle() {
	local dir=$1
	shift
	mkdir -p "$dir" || return 1
	brig_make_rootfs "$dir/rootfs" || return 1
	"${BRIG:?BRIG is not set}" spec --bundle "$dir" "$@" || return 1
}

# brig_bundle_edit DIR FILTER [JQ-ARGS...]: apply the jq FILTER to
# DIR/config.json, e.g.
#   brig_bundle_edit B '.process.args = $a' --argjson a '["true"]'
brig_bundle_edit() {
	local dir=$1 filter=$2
	shift 2
	if ! jq "$@" "$filter" "$dir/config.json" >"$dir/config.json.new" ||
		! mv "$dir/config.json.new" "$dir/config.json"; then
		rm -f "$dir/config.json.new"
		echo "rootfs: jq '$filter' failed on $dir/config.json" >&2
		return 1
	fi
}

# brig_file_rootfs: one busybox rootfs for a whole test file, at $ROOTFS
# (making one costs a process per applet).  It lives in tap.sh's state
# directory, which goes when the file ends.
brig_file_rootfs() {
	ROOTFS=${_tap_state:?source tests/lib/tap.sh first}/rootfs
	brig_make_rootfs "$ROOTFS" || {
		echo "Bail out! cannot make a busybox rootfs"
		exit 1
	}
}

# brig_file_bundle: one bundle template for a whole test file, at
# $BUNDLE_TPL: a busybox rootfs and the config.json of `brig spec`, without
# a terminal.  Tests copy it into their own $T.
brig_file_bundle() {
	BUNDLE_TPL=${_tap_state:?source tests/lib/tap.sh first}/bundle
	brig_make_bundle "$BUNDLE_TPL" && brig_bundle_edit "$BUNDLE_TPL" '.process.terminal = false' || {
		echo "Bail out! cannot make a busybox bundle"
		exit 1
	}
}

# static_helper SUBPATH: the static test program tests/SUBPATH (it runs in
# a busybox rootfs, where there is no libc), as `make check` built it, or
# built here (gcc -static) when a file runs by hand: into $T inside a
# test, tap.sh's state directory outside one.  Status 1 when neither
# works (the tests that need it skip, saying so).
static_helper() {
	local built=$BRIG_BUILDDIR/tests/$1 out=${T:-${_tap_state:?source tests/lib/tap.sh first}}
	if [ -x "$built" ] && ! LC_ALL=C ldd "$built" >/dev/null 2>&1; then
		echo "$built"
		return 0
	fi
	command -v gcc >/dev/null 2>&1 || return 1
	out=$out/${1##*/}
	gcc -std=gnu11 -static -O2 -o "$out" "$BRIG_SRCDIR/tests/$1.c" 2>/dev/null || return 1
	echo "$out"
}

# bundle [DIR]: DIR (default $T/b) = a copy of $BUNDLE_TPL (brig_file_bundle).
bundle() {
	local dir=${1:-$T/b}
	mkdir -p "$dir" && cp -a "$BUNDLE_TPL/rootfs" "$BUNDLE_TPL/config.json" "$dir/" ||
		fail "cannot make the bundle $dir"
}

# ctr SCRIPT [JQ-FILTER [JQ-ARGS...]]: `brig run` of `sh -c SCRIPT` in the
# bundle $T/b, its config.json first edited with FILTER; sets out/err/rc.
ctr() {
	local script=$1 filter=${2:-.}
	shift
	[ $# -gt 0 ] && shift
	brig_bundle_edit "$T/b" ".process.args = [\"sh\", \"-c\", \$script] | $filter" \
		--arg script "$script" "$@" || fail "jq $filter"
	brig --root "$T/root" run --bundle "$T/b" "c$RANDOM"
}

# jq_words [WORD...]: sets JQ_WORDS_OPTS (jq's options --arg w0 WORD
# --arg w1 WORD ...) and JQ_WORDS (the filter [$w0, $w1, ...]) that give
# jq the words as an array of strings, whatever they hold (`jq --args`
# would take "-c" for its own option).  A jq costs 30 ms here (jq 1.6
# compiles its builtins at every start), 300 in a TCG guest: a bundle
# that needs words costs one, not one per word.
jq_words() {
	local a i=0
	JQ_WORDS_OPTS=() JQ_WORDS=
	for a in "$@"; do
		JQ_WORDS_OPTS+=(--arg "w$i" "$a")
		JQ_WORDS+="${JQ_WORDS:+, }\$w$i"
		i=$((i + 1))
	done
	JQ_WORDS="[$JQ_WORDS]"
}

# json_args [WORD...]: the words as a JSON array of strings.
json_args() {
	jq_words "$@"
	jq -nc "${JQ_WORDS_OPTS[@]}" "$JQ_WORDS"
}

# spec_config: $SPEC_CONFIG = the path of a config.json that `$BRIG spec`
# wrote, made once per test file (in tap.sh's state directory) and read
# by every bundle made from it.
spec_config() {
	local dir=${_tap_state:?source tests/lib/tap.sh first}/spec
	SPEC_CONFIG=$dir/config.json
	[ -s "$SPEC_CONFIG" ] && return
	mkdir -p "$dir" && rm -f "$SPEC_CONFIG" &&
		"${BRIG:?BRIG is not set}" spec --bundle "$dir"
}

# mkbundle FILTER CMD [ARGS...]: the bundle $T/b: `brig spec` without a
# terminal, running CMD ARGS on the shared rootfs $ROOTFS (brig_file_rootfs),
# with the host directory $T/shared bind-mounted read-write at /shared,
# then the jq FILTER.  $SHARED_MODE, when set, is the mode of $T/shared.
# One jq from the file's spec to the bundle's config.json.
mkbundle() {
	local filter=$1
	shift
	jq_words "$@"
	if spec_config && { [ -d "$T/b" ] && [ -d "$T/shared" ] || mkdir -p "$T/b" "$T/shared"; } &&
		{ [ -z "${SHARED_MODE:-}" ] || chmod "$SHARED_MODE" "$T/shared"; } &&
		jq '.process.terminal = false | .process.args = '"$JQ_WORDS"'
			| .root.path = $root
			| .mounts += [{destination: "/shared", type: "bind", source: $shared,
				       options: ["rbind", "rw"]}]
			| '"$filter" \
			"${JQ_WORDS_OPTS[@]}" --arg root "$ROOTFS" --arg shared "$T/shared" \
			"$SPEC_CONFIG" >"$T/b/config.json"; then
		return 0
	fi
	rm -f "$T/b/config.json"
	fail "cannot write the bundle $T/b"
}

# delete_at_end ID: delete --force ID (under $T/root) when the test ends, whatever
# happened (bounded: a container lock held forever must not hang the file).
delete_at_end() {
	defer timeout -k 5 30 "$BRIG" --root "$T/root" delete --force "$1"
}

# up ID: `run --detach` of the bundle $T/b as ID (deleted when the test
# ends); fails the test when it does not start or prints anything.
up() {
	delete_at_end "$1"
	br run --detach --bundle "$T/b" "$1"
	assert_rc 0 || return 1
	# shellcheck disable=SC2154 # (err: set by br, of tap.sh, sourced before this file)
	assert_eq "$out$err" "" "output of run --detach $1"
}
