/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "cmd/cmd.h"
#include "cmd/job.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"

static const struct brig_option options[] = {
	BRIG_JOB_SANDBOX_OPTIONS,
	BRIG_JOB_RUN_OPTIONS,
	{ "id", 0, BRIG_OPT_STRING, "ID", "the job's container id", "job-<random>" },
	{ "pool", 0, BRIG_OPT_STRING, "NAME",
	  "run in a waiting sandbox of pool NAME (brig pool create; a cold start when none "
	  "waits); the pool fixes the sandbox's options",
	  NULL },
	{ "from-checkpoint", 0, BRIG_OPT_STRING, "DIR",
	  "restore the job from this image of a container of --bundle (brig checkpoint) "
	  "instead of running a command",
	  NULL },
	{ "gc", 0, BRIG_OPT_BOOL, NULL, "remove what jobs whose brig is gone left, and run no job",
	  NULL },
};

/*
 * --pool NAME: the sandbox is the pool's (its flags, kept at pool create),
 * the run is this command line's; a sandbox flag here is refused.
 */
static int pool_opts(struct brig_cli *cli, struct brig_args *a, struct brig_job_opts *o,
                     struct brig_job_args *pja, struct brig_job_opts *po,
                     struct brig_cmd_pool_args *pa, struct brig_error *err)
{
	static const struct brig_option sandbox[] = { BRIG_JOB_SANDBOX_OPTIONS };

	for (size_t i = 0; i < ARRAY_SIZE(sandbox); i++)
		if (brig_cmd_opt(options, ARRAY_SIZE(options), a, sandbox[i].name)->set)
			return brig_error_usage(err,
			                        "--%s: the sandboxes of pool \"%s\" have theirs "
			                        "(brig pool create)",
			                        sandbox[i].name, o->pool);
	if (brig_cmd_opt(options, ARRAY_SIZE(options), a, "id")->set)
		return brig_error_usage(err, "--id: a pool's sandbox has its own");
	if (brig_cmd_pool_options(&cli->ctx, o->pool, sandbox, ARRAY_SIZE(sandbox), pa, err) < 0 ||
	    brig_cmd_job_parse(sandbox, ARRAY_SIZE(sandbox), &pa->a, pja, po, err) < 0)
		return -1;
	/* the sandbox of the pool, the run of this command */
	po->argv = o->argv;
	po->argc = o->argc;
	po->timeout_ms = o->timeout_ms;
	po->copy_in = o->copy_in;
	po->n_copy_in = o->n_copy_in;
	po->export_dir = o->export_dir;
	po->changes_path = o->changes_path;
	po->export_tar = o->export_tar;
	po->audit_path = o->audit_path;
	po->export_paths = o->export_paths;
	po->n_export_paths = o->n_export_paths;
	po->audit_limit = o->audit_limit;
	/* by default, twice what the pool's writable layer holds */
	po->export_limit = brig_cmd_opt(options, ARRAY_SIZE(options), a, "export-limit")->set
	                       ? o->export_limit
	                       : 2 * po->writable;
	po->env = o->env;
	po->n_env = o->n_env;
	po->allow = o->allow;
	po->n_allow = o->n_allow;
	po->cwd = o->cwd;
	po->output_limit = o->output_limit;
	po->stdout_path = o->stdout_path;
	po->stderr_path = o->stderr_path;
	po->stdin_path = o->stdin_path;
	po->result_path = o->result_path;
	po->pool = o->pool;
	return 0;
}

/*
 * --from-checkpoint DIR: the sandbox and the process are the image's
 * (and its bundle's config); of the sandbox flags only --bundle and
 * --writable (the job's own layer) apply, and of the run's none that
 * would change the process.
 */
static int checkpoint_opts(struct brig_args *a, struct brig_error *err)
{
	static const struct brig_option sandbox[] = { BRIG_JOB_SANDBOX_OPTIONS };
	static const char *const process[] = { "copy-in", "env", "cwd", "pool", NULL };

	for (size_t i = 0; i < ARRAY_SIZE(sandbox); i++)
		if (strcmp(sandbox[i].name, "bundle") && strcmp(sandbox[i].name, "writable") &&
		    brig_cmd_opt(options, ARRAY_SIZE(options), a, sandbox[i].name)->set)
			return brig_error_usage(err,
			                        "--%s: a job restored from a checkpoint is the "
			                        "checkpointed container's (its bundle's config)",
			                        sandbox[i].name);
	for (const char *const *p = process; *p; p++)
		if (brig_cmd_opt(options, ARRAY_SIZE(options), a, *p)->set)
			return brig_error_usage(err,
			                        "--%s: a job restored from a checkpoint goes on as "
			                        "the checkpointed process",
			                        *p);
	return 0;
}

static int run(struct brig_cli *cli, struct brig_args *a, struct brig_error *err)
{
	struct brig_job_opts o = { 0 }, po = { 0 };
	struct brig_job_args ja = { 0 }, pja = { 0 };
	struct brig_cmd_pool_args pa = { 0 };
	int r;

	if (brig_cmd_opt(options, ARRAY_SIZE(options), a, "gc")->b) {
		if (a->n_pos)
			return brig_error_usage(err, "--gc takes no command");
		return brig_job_gc(&cli->ctx, err);
	}
	r = brig_cmd_job_parse(options, ARRAY_SIZE(options), a, &ja, &o, err);
	if (r == 0 && o.from_checkpoint)
		r = checkpoint_opts(a, err);
	if (r == 0 && o.pool)
		r = pool_opts(cli, a, &o, &pja, &po, &pa, err);
	if (r == 0)
		r = brig_job_run(&cli->ctx, o.pool ? &po : &o, &cli->exit_status, err);
	brig_job_args_release(&ja);
	brig_job_args_release(&pja);
	brig_cmd_pool_options_release(&pa);
	return r;
}

const struct brig_command brig_cmd_job = {
	.name = "job",
	.args_usage = "[--] <command> [<arg>...]",
	.summary = "run an untrusted command in a hardened, single-use sandbox",
	.description =
	    "   Run COMMAND once in a sandbox made for it and removed after it: a user\n"
	    "   namespace whose root is an unprivileged host id range of its own, no\n"
	    "   capabilities, no_new_privs, the default seccomp profile with more\n"
	    "   denials, new pid, ipc, uts, mount, cgroup and network namespaces,\n"
	    "   masked /proc and /sys paths, and pids, memory and CPU limits in a cgroup\n"
	    "   of its own. The rootfs is read-only under an overlay whose upper layer\n"
	    "   is a tmpfs of --writable bytes: every write lands there and is gone\n"
	    "   afterwards (--export copies it out). stdout and stderr stream through\n"
	    "   brig, capped at --output-limit each: past it brig keeps the first and\n"
	    "   the last half and writes \"[brig: N bytes dropped]\" where it cut.\n"
	    "\n"
	    "   The limits by default: 256 pids, 512M of memory without swap, one CPU\n"
	    "   (--cpus 0: no CPU bound), a pool's members as a cold job.\n"
	    "\n"
	    "   Binds (--mount, and a --bundle's bind mounts) give the job no more than\n"
	    "   an unprivileged host identity of its own. With a user namespace a bind is not "
	    "idmapped:\n"
	    "   the job's ids are its host range there, the host's files (root's first)\n"
	    "   are nobody's to it, and what it writes is owned by its range. Without\n"
	    "   one (--no-userns) the job's uid k is host id H+k of a range of its own\n"
	    "   in its binds, and every other host id but nobody's (65534) is unmapped\n"
	    "   there, beyond any capability it keeps: it can neither write, chmod nor\n"
	    "   read root's files through a bind. To collect a job's files, bind a\n"
	    "   directory of nobody's that others may write (chown 65534:65534, chmod\n"
	    "   1777); with a user namespace one of root's with mode 1777 serves too.\n"
	    "   While a bind is rw the job's seccomp filter, whatever --seccomp says\n"
	    "   (unconfined: these rules alone), refuses setuid and setgid modes and\n"
	    "   device nodes (chmod, open, creat, mkdir, mknod and their kin: EPERM),\n"
	    "   openat2 (ENOSYS: libc falls back to openat), io_uring (EPERM) and,\n"
	    "   without a user namespace with CAP_CHOWN kept, the chown calls (EPERM);\n"
	    "   a --seccomp FILE with a conditional rule for one of those is refused.\n"
	    "\n"
	    "   At --timeout, or when brig gets SIGINT, SIGTERM or SIGHUP, every process\n"
	    "   of the job dies at once; if brig itself is killed, so is the job, and\n"
	    "   the next job (or --gc) removes what is left. A signal while brig makes\n"
	    "   the job (its root, --copy-in) ends brig before the job starts (status\n"
	    "   125), one during the create as soon as the job is started, and a signal\n"
	    "   before or during --export fails the export; whatever the phase, what\n"
	    "   brig made is removed.\n"
	    "\n"
	    "   --copy-in writes only into regular files and directories of the job's\n"
	    "   root: a FIFO, a device, a socket or a symlink at its destination (the\n"
	    "   rootfs's own files are the job's) is refused, as is a host path that is\n"
	    "   not a regular file or a directory.\n"
	    "\n"
	    "   --export DIR copies the job's writable layer into DIR once the job has\n"
	    "   ended: directories, regular files and symlinks (as symlinks, never\n"
	    "   followed); devices, FIFOs, sockets and what the job deleted are not\n"
	    "   copied. Every entry is made by brig as its caller (brig's user and\n"
	    "   group), without setuid or setgid bits, whatever the job's were; holes\n"
	    "   stay holes and hard links stay hard links. The copy is made in a\n"
	    "   directory DIR/.brig-export-* that only brig's user can enter, moved\n"
	    "   into DIR once complete (no entry of DIR is replaced: a name DIR has\n"
	    "   fails the export), and removed when anything fails it: directories\n"
	    "   nested more than 128 deep, more than --export-limit bytes to write\n"
	    "   (each file, directory, symlink and hard link counts 256 besides its\n"
	    "   data), 5 s past the job's deadline (the start plus --timeout; with\n"
	    "   --timeout 0 only the limit bounds it), SIGINT, SIGTERM or SIGHUP, an\n"
	    "   error. A failed export is brig's failure: status 125, one line on\n"
	    "   stderr, the result's error; nothing of it is in DIR. A brig killed\n"
	    "   (SIGKILL) during the export leaves its DIR/.brig-export-* directory.\n"
	    "\n"
	    "   --changes FILE writes what the job created, modified and deleted, read\n"
	    "   from its writable layer against the rootfs once it has ended: one JSON\n"
	    "   object a line (--changes -: the result's \"changes\" array), a directory\n"
	    "   before its entries, in byte order of their names (the deletions an\n"
	    "   opaque directory holds last). Each has path (as the job saw\n"
	    "   it), change (created, modified, deleted) and type (file, dir, symlink,\n"
	    "   fifo, socket, char, block; a deleted entry's is the rootfs's); what is\n"
	    "   there now also mode (\"0644\", setuid and setgid bits as the job left\n"
	    "   them), uid and gid (the job's ids) and, but for a directory, size; a\n"
	    "   file its sha256 (null once the files hashed would pass the --writable\n"
	    "   size: only holes make them so), a symlink its target. A path or target\n"
	    "   that is no valid UTF-8 has U+FFFD in the JSON string and its exact bytes\n"
	    "   in hex beside it (path_hex, target_hex). A directory the job removed and\n"
	    "   made again is \"opaque\": the rootfs's entries it held are deleted, each\n"
	    "   one listed. A directory is modified only when its mode or owner changed\n"
	    "   or something below it did; brig's mount points (/proc, /dev, /sys,\n"
	    "   --tmpfs and --mount destinations) are left out, the directories made\n"
	    "   for them are not, nor is what --copy-in wrote.\n"
	    "\n"
	    "   --export-path PATH (repeatable, absolute, no . or ..) limits --export,\n"
	    "   --export-tar and --changes to what is at or below each PATH: the\n"
	    "   directories on the way are no changes, are made 0700 in --export's\n"
	    "   DIR, and one that is a symlink in the job's layer ends the way (it is\n"
	    "   never followed): that PATH adds nothing, as one the job did not write.\n"
	    "\n"
	    "   --export-tar FILE writes the same changes as an OCI image layer: a pax\n"
	    "   tar of the directories, regular files (holes as sparse entries),\n"
	    "   symlinks, FIFOs and hard links, with the job's ids and no setuid or\n"
	    "   setgid bit; a deletion is an empty .wh.NAME, an opaque directory holds\n"
	    "   .wh..wh..opq. Devices and sockets are left out (over a rootfs entry,\n"
	    "   a whiteout). Holes in all past 1 PiB fail it. A name of the job's\n"
	    "   that begins with .wh. fails it (applied, it would delete). FILE,\n"
	    "   --changes FILE and --audit FILE are written as unnamed files in their\n"
	    "   directory and named only once all of them (and --export) are\n"
	    "   complete, each replacing what was there: a failure, a signal or a\n"
	    "   kill leaves none. Both are bounded as --export is: --export-limit\n"
	    "   bytes each, directories 4096 deep (an fd each, within the hard limit\n"
	    "   of open files), the deadline and 5 s, brig's signals. The sha256 is nettle's, the "
	    "tar libarchive's, each loaded only\n"
	    "   by a job that asks.\n"
	    "\n"
	    "   The calls the job's profile refuses beyond the default profile's\n"
	    "   (mount, umount2, pivot_root, unshare, setns, ptrace, process_vm_*,\n"
	    "   keyctl, add_key, request_key, bpf, perf_event_open, userfaultfd,\n"
	    "   kexec_*, open_by_handle_at, fanotify_init, the new mount API,\n"
	    "   io_uring) go to brig (a seccomp listener in brig's own hands, never\n"
	    "   the job's), which answers each with EPERM, as the kernel did, and\n"
	    "   counts it: the result's denied_syscalls. The first 10000 answers are\n"
	    "   given at once, then one a millisecond: a job that loops on them slows\n"
	    "   only itself. Past 1000000 brig answers without counting\n"
	    "   (denied_syscalls_truncated). --audit FILE writes one JSON line per\n"
	    "   refused call, at most --audit-limit: ms (since the job's start), pid\n"
	    "   (in the job), call, args (six numbers) and, for the mount calls, the\n"
	    "   strings of their paths (source, target, fstype, path, new_root,\n"
	    "   put_old, to_path, as the job passed them); with --network egress\n"
	    "   also a line for each name the resolver refused (egress, name), as it\n"
	    "   refuses it, and one for each of the denied addresses the result\n"
	    "   names (egress, address), at the end. Past the limit the result says\n"
	    "   audit_truncated. A pool's member's init keeps its listener for\n"
	    "   the claimer, which counts as a cold job's brig does. With --seccomp\n"
	    "   unconfined or FILE, and for a job restored from a checkpoint (its\n"
	    "   filter is the image's), nothing is counted and there is no such\n"
	    "   field.\n"
	    "\n"
	    "   With --network egress the job has lo and eth0, one end of a veth pair\n"
	    "   whose other end, brig-eN, is in brig's network namespace, with a /30 of\n"
	    "   10.213.0.0/16 between them; brig routes and masquerades what the job\n"
	    "   sends there, through an nftables table of the job's own (inet brig_eN),\n"
	    "   and turns IPv4 forwarding on in its namespace (and leaves it on). The\n"
	    "   job reaches only what an --allow rule names: NAME (that name),\n"
	    "   *.NAME (every name below it), an IPv4 address or CIDR, each with an\n"
	    "   optional :PORT (TCP and UDP). Its\n"
	    "   /etc/resolv.conf names brig's resolver at brig's end of the link,\n"
	    "   which answers A queries for the names the rules allow (asking the\n"
	    "   host's resolvers, those of brig's /etc/resolv.conf) and lets the job\n"
	    "   reach the answer's addresses for their TTL (30 s at least, an hour at\n"
	    "   most); other names get NXDOMAIN, other types REFUSED, AAAA no answer.\n"
	    "   Never reached, whatever a rule or an answer says: loopback,\n"
	    "   link-local (169.254.169.254 too), multicast, broadcast, 0/8,\n"
	    "   10.213.0.0/16, and every address of brig's host (only UDP port 53 at\n"
	    "   the resolver is open there); a name's answer in a private range\n"
	    "   (10/8, 172.16/12, 192.168/16, 100.64/10) is not learned: a CIDR rule\n"
	    "   allows one. An address a name resolves to is shared by every name it\n"
	    "   serves (a CDN's): the job reaches all of them there. IPv6 is not\n"
	    "   routed: eth0 has an address of fd62:7269:6700::/96 and a default\n"
	    "   route only so that what the job sends over IPv6 reaches brig's end,\n"
	    "   where it is dropped and counted; an IPv6 rule is a usage error.\n"
	    "   The result's egress object counts what was let through and what\n"
	    "   was refused. brig returns once the job's figures are read: a child\n"
	    "   of brig's then removes the link (which goes with the job's namespace,\n"
	    "   or past a second is deleted) and the table, holding the slot until\n"
	    "   they are gone; --gc waits for that (3 s at most). A brig killed\n"
	    "   leaves its link to die with the job and its table to the next\n"
	    "   egress job or --gc.\n"
	    "\n"
	    "   With --pool the command runs in a waiting sandbox of the pool (brig\n"
	    "   pool), handed to the sandbox's init, which stays the job's pid 1: it\n"
	    "   reaps what the job leaves, and when the job ends the rest ends with it.\n"
	    "   The result and exit status are a cold job's.\n"
	    "\n"
	    "   With --from-checkpoint IMG --bundle DIR the job is no command but a\n"
	    "   process checkpointed from a container of that bundle (brig checkpoint),\n"
	    "   restored through CRIU: it goes on where it was dumped, its stdin and\n"
	    "   stdout pipes become the job's, and its root is an overlay of a tmpfs\n"
	    "   of --writable bytes over the bundle's rootfs, so one image serves any\n"
	    "   number of jobs at once, each with its own layer, id and cgroup. It is\n"
	    "   as confined as the container that was checkpointed (the image holds\n"
	    "   its namespaces, user mapping, capabilities and seccomp filter), which\n"
	    "   needs a pid namespace of its own; the sandbox flags but --writable are\n"
	    "   refused, as are --env, --cwd, --copy-in and --pool. A keeper process\n"
	    "   removes the job if brig is killed.\n"
	    "\n"
	    "   --result writes one JSON object: id, exit_code (or null), signal (\"SIGKILL\"\n"
	    "   or null), reason (exited, signaled, timeout, oom or error), error (or null),\n"
	    "   wall_ms, cpu_user_ms, cpu_system_ms, memory_peak_bytes, pids_peak (null\n"
	    "   where the kernel keeps no peak), stdout_bytes, stderr_bytes,\n"
	    "   stdout_dropped_bytes, stderr_dropped_bytes, writable_used_bytes,\n"
	    "   timed_out and oom_killed; with --pool also pool (\"hit\" or \"miss\"),\n"
	    "   warning when the job ran without a user namespace, and with --network\n"
	    "   egress egress: allowed (flows let through and names answered), denied\n"
	    "   (packets dropped and names refused), denied_names and denied_addresses\n"
	    "   (up to 32 of each), bytes_out and bytes_in (over its link), with\n"
	    "   the default profile denied_syscalls (an object: a count by call) and\n"
	    "   denied_syscalls_truncated, and with --changes - changes.\n"
	    "\n"
	    "   Exit status: the job's, 128+N when it was killed by signal N, 124 at\n"
	    "   the timeout, 125 when brig could not run it or its --export,\n"
	    "   --export-tar or --changes failed\n"
	    "   (one line on stderr).\n"
	    "\n"
	    "   On a host without user namespaces (or with --no-userns) the job runs\n"
	    "   as the host's root, without capabilities but those of --keep-caps, and\n"
	    "   the result says so in a \"warning\" field that names them.\n"
	    "\n"
	    "   Host ids: a job's ids 0-65535 are a range of the host's that no other\n"
	    "   running job has: from the \"brig\" entries of /etc/subuid and /etc/subgid\n"
	    "   when both exist with the same start, else from 1073741824 (1024 ranges).\n"
	    "   A range in use is an flock'd file in /run/brig-job-ids, removed when the\n"
	    "   range is let go of (a brig killed leaves it, unlocked, for the next job\n"
	    "   that takes the range).",
	BRIG_OPTIONS(options),
	.mode = BRIG_PARSE_STOP,
	.min_args = 0,
	.max_args = -1,
	.run = run,
	.error_status = 125,
};
