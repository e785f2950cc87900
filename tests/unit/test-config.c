/* SPDX-License-Identifier: Apache-2.0 */
/*
 * spec/: config.json, process.json and LinuxResources parsed into the model,
 * checked field by field; then the errors, each naming its JSON path.
 *
 * Fixtures are written with ' for " to keep them readable; json() swaps.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "spec/spec.h"
#include "util/error.h"
#include "tap.h"

/* The fixture with every ' turned into ", heap allocated. */
static char *json(const char *s)
{
	char *j = brig_xstrdup(s);

	for (char *p = j; *p; p++)
		if (*p == '\'')
			*p = '"';
	return j;
}

static struct brig_config *parse(const char *fixture)
{
	struct brig_error err = BRIG_ERROR_INIT;
	char *text = json(fixture);
	struct brig_config *cfg = brig_config_parse("config.json", text, strlen(text), &err);

	if (!cfg)
		printf("# unexpected error: %s\n", err.msg);
	brig_error_release(&err);
	free(text);
	return cfg;
}

/* A config that must fail with exactly @want. */
static void parse_fails(const char *fixture, const char *want)
{
	struct brig_error err = BRIG_ERROR_INIT;
	char *text = json(fixture);
	struct brig_config *cfg = brig_config_parse("config.json", text, strlen(text), &err);

	ok(cfg == NULL, "refused: %s", want);
	is_str(err.msg, want, "  error message");
	brig_config_free(cfg);
	brig_error_release(&err);
	free(text);
}

#define HEAD "'ociVersion': '1.3.0', 'root': {'path': 'rootfs'}"

static void test_root_and_mounts(void)
{
	struct brig_config *cfg =
	    parse("{'ociVersion': '1.2.0-dev', 'root': {'path': '/srv/rootfs', 'readonly': true},"
	          " 'hostname': 'box', 'domainname': 'example.org',"
	          " 'mounts': ["
	          "  {'destination': '/proc', 'type': 'proc', 'source': 'proc',"
	          "   'options': ['nosuid', 'noexec']},"
	          "  {'destination': '/data', 'type': 'bind', 'source': '/srv/data',"
	          "   'options': ['rbind', 'idmap'],"
	          "   'uidMappings': [{'containerID': 0, 'hostID': 100000, 'size': 65536}],"
	          "   'gidMappings': [{'containerID': 0, 'hostID': 200000, 'size': 1000},"
	          "                   {'containerID': 1000, 'hostID': 1000, 'size': 1}]},"
	          "  {'destination': '/tmp'}"
	          " ]}");

	diag("root, mounts, hostname, domainname");
	if (!ok(cfg != NULL, "root and mounts parse"))
		return;
	is_str(cfg->oci_version, "1.2.0-dev", "ociVersion");
	is_str(cfg->root->path, "/srv/rootfs", "root.path");
	ok(cfg->root->readonly, "root.readonly");
	is_str(cfg->hostname, "box", "hostname");
	is_str(cfg->domainname, "example.org", "domainname");
	is_int(cfg->n_mounts, 3, "three mounts");
	is_str(cfg->mounts[0].destination, "/proc", "mounts[0].destination");
	is_str(cfg->mounts[0].type, "proc", "mounts[0].type");
	is_str(cfg->mounts[0].source, "proc", "mounts[0].source");
	is_int(cfg->mounts[0].n_options, 2, "mounts[0] has two options");
	is_str(cfg->mounts[0].options[0], "nosuid", "mounts[0].options[0]");
	is_str(cfg->mounts[0].options[1], "noexec", "mounts[0].options[1]");
	is_int(cfg->mounts[0].n_uid_mappings, 0, "mounts[0] has no uidMappings");
	is_int(cfg->mounts[1].n_uid_mappings, 1, "mounts[1] has one uidMapping");
	is_int(cfg->mounts[1].uid_mappings[0].container_id, 0,
	       "mounts[1].uidMappings[0].containerID");
	is_int(cfg->mounts[1].uid_mappings[0].host_id, 100000, "mounts[1].uidMappings[0].hostID");
	is_int(cfg->mounts[1].uid_mappings[0].size, 65536, "mounts[1].uidMappings[0].size");
	is_int(cfg->mounts[1].n_gid_mappings, 2, "mounts[1] has two gidMappings");
	is_int(cfg->mounts[1].gid_mappings[1].container_id, 1000,
	       "mounts[1].gidMappings[1].containerID");
	is_int(cfg->mounts[1].gid_mappings[1].host_id, 1000, "mounts[1].gidMappings[1].hostID");
	is_int(cfg->mounts[1].gid_mappings[1].size, 1, "mounts[1].gidMappings[1].size");
	is_str(cfg->mounts[2].destination, "/tmp", "mounts[2].destination");
	ok(cfg->mounts[2].type == NULL && cfg->mounts[2].source == NULL &&
	       cfg->mounts[2].n_options == 0,
	   "mounts[2]: absent members are NULL/empty");
	ok(cfg->process == NULL && cfg->linux == NULL, "absent process and linux are NULL");
	brig_config_free(cfg);
}

static void test_process(void)
{
	struct brig_config *cfg =
	    parse("{" HEAD ", 'process': {"
	          " 'terminal': true, 'consoleSize': {'height': 24, 'width': 80},"
	          " 'user': {'uid': 1000, 'gid': 1001, 'umask': 18, 'additionalGids': [5, 6, 7],"
	          "          'username': 'alice'},"
	          " 'args': ['/bin/sh', '-c', 'echo hi'], 'commandLine': 'sh.exe',"
	          " 'env': ['PATH=/usr/bin', 'TERM=xterm'], 'cwd': '/home/alice',"
	          " 'capabilities': {'bounding': ['CAP_CHOWN', 'CAP_KILL'],"
	          "   'effective': ['CAP_CHOWN'], 'inheritable': [],"
	          "   'permitted': ['CAP_CHOWN', 'CAP_NET_BIND_SERVICE'], 'ambient': ['CAP_KILL']},"
	          " 'rlimits': [{'type': 'RLIMIT_NOFILE', 'soft': 1024, 'hard': 4096},"
	          "             {'type': 'RLIMIT_CORE', 'soft': 0, 'hard': 18446744073709551615}],"
	          " 'noNewPrivileges': true, 'apparmorProfile': 'docker-default',"
	          " 'oomScoreAdj': -500, 'selinuxLabel': 'system_u:system_r:container_t:s0',"
	          " 'scheduler': {'policy': 'SCHED_DEADLINE', 'nice': -5, 'priority': 3,"
	          "   'flags': ['SCHED_FLAG_RESET_ON_FORK', 'SCHED_FLAG_RECLAIM'],"
	          "   'runtime': 10000000, 'deadline': 20000000, 'period': 30000000},"
	          " 'ioPriority': {'class': 'IOPRIO_CLASS_BE', 'priority': 4},"
	          " 'execCPUAffinity': {'initial': '0-3,7', 'final': '4'}"
	          "}}");
	struct brig_process *p;

	diag("process");
	if (!ok(cfg != NULL, "process parses"))
		return;
	p = cfg->process;
	ok(p->terminal, "process.terminal");
	is_int(p->console_size->height, 24, "consoleSize.height");
	is_int(p->console_size->width, 80, "consoleSize.width");
	is_int(p->user.uid, 1000, "user.uid");
	is_int(p->user.gid, 1001, "user.gid");
	ok(p->user.umask.set, "user.umask is set");
	is_int(p->user.umask.value, 022, "user.umask");
	is_int(p->user.n_additional_gids, 3, "user.additionalGids count");
	is_int(p->user.additional_gids[0], 5, "user.additionalGids[0]");
	is_int(p->user.additional_gids[2], 7, "user.additionalGids[2]");
	is_str(p->user.username, "alice", "user.username");
	is_int(p->n_args, 3, "args count");
	is_str(p->args[0], "/bin/sh", "args[0]");
	is_str(p->args[2], "echo hi", "args[2]");
	is_str(p->command_line, "sh.exe", "commandLine");
	is_int(p->n_env, 2, "env count");
	is_str(p->env[1], "TERM=xterm", "env[1]");
	is_str(p->cwd, "/home/alice", "cwd");
	is_int(p->capabilities->n_bounding, 2, "capabilities.bounding count");
	is_str(p->capabilities->bounding[1], "CAP_KILL", "capabilities.bounding[1]");
	is_int(p->capabilities->n_effective, 1, "capabilities.effective count");
	is_str(p->capabilities->effective[0], "CAP_CHOWN", "capabilities.effective[0]");
	is_int(p->capabilities->n_inheritable, 0, "capabilities.inheritable is empty");
	is_int(p->capabilities->n_permitted, 2, "capabilities.permitted count");
	is_str(p->capabilities->permitted[1], "CAP_NET_BIND_SERVICE", "capabilities.permitted[1]");
	is_int(p->capabilities->n_ambient, 1, "capabilities.ambient count");
	is_str(p->capabilities->ambient[0], "CAP_KILL", "capabilities.ambient[0]");
	is_int(p->n_rlimits, 2, "rlimits count");
	is_str(p->rlimits[0].type, "RLIMIT_NOFILE", "rlimits[0].type");
	is_int(p->rlimits[0].resource, RLIMIT_NOFILE, "rlimits[0] resource constant");
	is_int(p->rlimits[0].soft, 1024, "rlimits[0].soft");
	is_int(p->rlimits[0].hard, 4096, "rlimits[0].hard");
	is_int(p->rlimits[1].resource, RLIMIT_CORE, "rlimits[1] resource constant");
	ok(p->rlimits[1].hard == UINT64_MAX, "rlimits[1].hard is UINT64_MAX");
	ok(p->no_new_privileges, "noNewPrivileges");
	is_str(p->apparmor_profile, "docker-default", "apparmorProfile");
	ok(p->oom_score_adj.set, "oomScoreAdj is set");
	is_int(p->oom_score_adj.value, -500, "oomScoreAdj");
	is_str(p->selinux_label, "system_u:system_r:container_t:s0", "selinuxLabel");
	is_str(p->scheduler->policy, "SCHED_DEADLINE", "scheduler.policy");
	is_int(p->scheduler->nice, -5, "scheduler.nice");
	is_int(p->scheduler->priority, 3, "scheduler.priority");
	is_int(p->scheduler->n_flags, 2, "scheduler.flags count");
	is_str(p->scheduler->flags[1], "SCHED_FLAG_RECLAIM", "scheduler.flags[1]");
	is_int(p->scheduler->runtime, 10000000, "scheduler.runtime");
	is_int(p->scheduler->deadline, 20000000, "scheduler.deadline");
	is_int(p->scheduler->period, 30000000, "scheduler.period");
	is_str(p->io_priority->class_, "IOPRIO_CLASS_BE", "ioPriority.class");
	is_int(p->io_priority->priority, 4, "ioPriority.priority");
	is_str(p->exec_cpu_affinity->initial, "0-3,7", "execCPUAffinity.initial");
	is_str(p->exec_cpu_affinity->final, "4", "execCPUAffinity.final");
	brig_config_free(cfg);

	cfg = parse("{" HEAD ", 'process': {'args': ['sh'], 'cwd': '/'}}");
	if (!ok(cfg != NULL, "a minimal process parses"))
		return;
	p = cfg->process;
	ok(!p->terminal && !p->console_size && !p->capabilities && !p->scheduler &&
	       !p->io_priority && !p->exec_cpu_affinity && !p->oom_score_adj.set &&
	       !p->user.umask.set && p->user.uid == 0 && p->n_rlimits == 0 && p->n_env == 0,
	   "absent process members are unset");
	brig_config_free(cfg);
}

static void test_hooks_and_annotations(void)
{
	struct brig_config *cfg =
	    parse("{" HEAD ", 'hooks': {"
	          " 'prestart': [{'path': '/usr/bin/fix-mounts', 'args': ['fix-mounts', 'a'],"
	          "               'env': ['K=V'], 'timeout': 5}],"
	          " 'createRuntime': [{'path': '/bin/cr1'}, {'path': '/bin/cr2'}],"
	          " 'createContainer': [{'path': '/bin/cc'}],"
	          " 'startContainer': [{'path': '/bin/sc'}],"
	          " 'poststart': [{'path': '/bin/ps'}],"
	          " 'poststop': [{'path': '/bin/pst', 'timeout': 60}]},"
	          " 'annotations': {'com.example.key': 'value', 'org.opencontainers.x': ''}}");
	const struct brig_hooks *h;

	diag("hooks and annotations");
	if (!ok(cfg != NULL, "hooks and annotations parse"))
		return;
	h = &cfg->hooks;
	is_int(h->n[BRIG_HOOK_PRESTART], 1, "one prestart hook");
	is_str(h->stage[BRIG_HOOK_PRESTART][0].path, "/usr/bin/fix-mounts", "prestart[0].path");
	is_int(h->stage[BRIG_HOOK_PRESTART][0].n_args, 2, "prestart[0].args count");
	is_str(h->stage[BRIG_HOOK_PRESTART][0].args[1], "a", "prestart[0].args[1]");
	is_int(h->stage[BRIG_HOOK_PRESTART][0].n_env, 1, "prestart[0].env count");
	is_str(h->stage[BRIG_HOOK_PRESTART][0].env[0], "K=V", "prestart[0].env[0]");
	ok(h->stage[BRIG_HOOK_PRESTART][0].timeout.set, "prestart[0].timeout is set");
	is_int(h->stage[BRIG_HOOK_PRESTART][0].timeout.value, 5, "prestart[0].timeout");
	is_int(h->n[BRIG_HOOK_CREATE_RUNTIME], 2, "two createRuntime hooks");
	is_str(h->stage[BRIG_HOOK_CREATE_RUNTIME][1].path, "/bin/cr2", "createRuntime[1].path");
	ok(!h->stage[BRIG_HOOK_CREATE_RUNTIME][1].timeout.set, "createRuntime[1] has no timeout");
	is_str(h->stage[BRIG_HOOK_CREATE_CONTAINER][0].path, "/bin/cc", "createContainer[0].path");
	is_str(h->stage[BRIG_HOOK_START_CONTAINER][0].path, "/bin/sc", "startContainer[0].path");
	is_str(h->stage[BRIG_HOOK_POSTSTART][0].path, "/bin/ps", "poststart[0].path");
	is_str(h->stage[BRIG_HOOK_POSTSTOP][0].path, "/bin/pst", "poststop[0].path");
	is_int(h->stage[BRIG_HOOK_POSTSTOP][0].timeout.value, 60, "poststop[0].timeout");
	is_int(cfg->n_annotations, 2, "two annotations");
	is_str(cfg->annotations[0].key, "com.example.key", "annotations[0] key");
	is_str(cfg->annotations[0].value, "value", "annotations[0] value");
	is_str(cfg->annotations[1].key, "org.opencontainers.x", "annotations[1] key");
	is_str(cfg->annotations[1].value, "", "annotations[1] value");
	brig_config_free(cfg);
}

static void test_linux_basics(void)
{
	struct brig_config *cfg =
	    parse("{" HEAD ", 'linux': {"
	          " 'namespaces': [{'type': 'pid'}, {'type': 'network', 'path': '/run/netns/x'},"
	          "   {'type': 'mount'}, {'type': 'ipc'}, {'type': 'uts'}, {'type': 'user'},"
	          "   {'type': 'cgroup', 'path': ''}, {'type': 'time'}],"
	          " 'uidMappings': [{'containerID': 0, 'hostID': 1000, 'size': 1},"
	          "                 {'containerID': 1, 'hostID': 100000, 'size': 65535}],"
	          " 'gidMappings': [{'containerID': 0, 'hostID': 1000, 'size': 1}],"
	          " 'timeOffsets': {'monotonic': {'secs': -86400, 'nanosecs': 999999999},"
	          "                 'boottime': {'secs': 172800}},"
	          " 'devices': [{'path': '/dev/fuse', 'type': 'c', 'major': 10, 'minor': 229,"
	          "              'fileMode': 438, 'uid': 0, 'gid': 5},"
	          "             {'path': '/dev/sda', 'type': 'b', 'major': 8, 'minor': 0},"
	          "             {'path': '/dev/null2', 'type': 'u', 'major': 1, 'minor': 3},"
	          "             {'path': '/dev/myfifo', 'type': 'p'}],"
	          " 'netDevices': {'eth1': {'name': 'ctr0'}, 'ens3f0': {}},"
	          " 'cgroupsPath': 'system.slice:brig:abc',"
	          " 'rootfsPropagation': 'rslave', 'mountLabel': 'system_u:object_r:c_file_t:s0'"
	          "}}");
	const struct brig_linux *lx;

	diag("linux: namespaces, id mappings, timeOffsets, devices, netDevices");
	if (!ok(cfg != NULL, "linux basics parse"))
		return;
	lx = cfg->linux;
	is_int(lx->n_namespaces, 8, "eight namespaces");
	is_int(lx->namespaces[0].type, BRIG_NS_PID, "namespaces[0].type");
	ok(lx->namespaces[0].path == NULL, "namespaces[0].path is NULL");
	is_int(lx->namespaces[1].type, BRIG_NS_NETWORK, "namespaces[1].type");
	is_str(lx->namespaces[1].path, "/run/netns/x", "namespaces[1].path");
	is_int(lx->namespaces[2].type, BRIG_NS_MOUNT, "namespaces[2].type");
	is_int(lx->namespaces[3].type, BRIG_NS_IPC, "namespaces[3].type");
	is_int(lx->namespaces[4].type, BRIG_NS_UTS, "namespaces[4].type");
	is_int(lx->namespaces[5].type, BRIG_NS_USER, "namespaces[5].type");
	is_int(lx->namespaces[6].type, BRIG_NS_CGROUP, "namespaces[6].type");
	ok(lx->namespaces[6].path == NULL, "namespaces[6]: \"path\": \"\" means none");
	is_int(lx->namespaces[7].type, BRIG_NS_TIME, "namespaces[7].type");
	ok(brig_config_namespace(lx, BRIG_NS_NETWORK) == &lx->namespaces[1],
	   "brig_config_namespace finds network");
	is_int(lx->n_uid_mappings, 2, "two uidMappings");
	is_int(lx->uid_mappings[1].container_id, 1, "uidMappings[1].containerID");
	is_int(lx->uid_mappings[1].host_id, 100000, "uidMappings[1].hostID");
	is_int(lx->uid_mappings[1].size, 65535, "uidMappings[1].size");
	is_int(lx->n_gid_mappings, 1, "one gidMapping");
	is_int(lx->gid_mappings[0].host_id, 1000, "gidMappings[0].hostID");
	is_int(lx->n_time_offsets, 2, "two timeOffsets");
	is_str(lx->time_offsets[0].clock, "monotonic", "timeOffsets[0] clock");
	is_int(lx->time_offsets[0].secs, -86400, "timeOffsets.monotonic.secs");
	is_int(lx->time_offsets[0].nanosecs, 999999999, "timeOffsets.monotonic.nanosecs");
	is_str(lx->time_offsets[1].clock, "boottime", "timeOffsets[1] clock");
	is_int(lx->time_offsets[1].secs, 172800, "timeOffsets.boottime.secs");
	is_int(lx->time_offsets[1].nanosecs, 0, "timeOffsets.boottime.nanosecs defaults to 0");
	is_int(lx->n_devices, 4, "four devices");
	is_str(lx->devices[0].path, "/dev/fuse", "devices[0].path");
	is_int(lx->devices[0].type, 'c', "devices[0].type");
	is_int(lx->devices[0].major, 10, "devices[0].major");
	is_int(lx->devices[0].minor, 229, "devices[0].minor");
	ok(lx->devices[0].file_mode.set, "devices[0].fileMode is set");
	is_int(lx->devices[0].file_mode.value, 0666, "devices[0].fileMode");
	ok(lx->devices[0].uid.set && lx->devices[0].uid.value == 0, "devices[0].uid");
	ok(lx->devices[0].gid.set && lx->devices[0].gid.value == 5, "devices[0].gid");
	is_int(lx->devices[1].type, 'b', "devices[1].type");
	is_int(lx->devices[1].major, 8, "devices[1].major");
	ok(!lx->devices[1].file_mode.set && !lx->devices[1].uid.set && !lx->devices[1].gid.set,
	   "devices[1]: fileMode, uid, gid unset");
	is_int(lx->devices[2].type, 'u', "devices[2].type");
	is_int(lx->devices[3].type, 'p', "devices[3].type");
	is_str(lx->devices[3].path, "/dev/myfifo", "devices[3].path (a FIFO needs no numbers)");
	is_int(lx->n_net_devices, 2, "two netDevices");
	is_str(lx->net_devices[0].host_name, "eth1", "netDevices[0] host name");
	is_str(lx->net_devices[0].name, "ctr0", "netDevices.eth1.name");
	is_str(lx->net_devices[1].host_name, "ens3f0", "netDevices[1] host name");
	ok(lx->net_devices[1].name == NULL, "netDevices.ens3f0.name is NULL");
	is_str(lx->cgroups_path, "system.slice:brig:abc", "cgroupsPath");
	is_str(lx->rootfs_propagation, "rslave", "rootfsPropagation");
	is_str(lx->mount_label, "system_u:object_r:c_file_t:s0", "mountLabel");
	ok(!lx->resources && !lx->seccomp && !lx->intel_rdt && !lx->memory_policy &&
	       !lx->personality && lx->n_sysctl == 0 && lx->n_masked_paths == 0,
	   "absent linux members are unset");
	brig_config_free(cfg);
}

#define RESOURCES_FIXTURE                                                                         \
	"{'devices': [{'allow': false, 'access': 'rwm'},"                                         \
	"   {'allow': true, 'type': 'c', 'major': 1, 'minor': 3, 'access': 'rw'},"                \
	"   {'allow': true, 'type': 'b', 'major': -1, 'minor': -1, 'access': 'm'}],"              \
	" 'memory': {'limit': 536870912, 'reservation': 268435456, 'swap': -1,"                   \
	"   'kernel': 0, 'kernelTCP': 1048576, 'swappiness': 60,"                                 \
	"   'disableOOMKiller': true, 'useHierarchy': false, 'checkBeforeUpdate': true},"         \
	" 'cpu': {'shares': 1024, 'quota': 50000, 'burst': 10000, 'period': 100000,"              \
	"   'realtimeRuntime': 950000, 'realtimePeriod': 1000000, 'cpus': '0-3,7',"               \
	"   'mems': '0', 'idle': 1},"                                                             \
	" 'pids': {'limit': 512},"                                                                \
	" 'blockIO': {'weight': 500, 'leafWeight': 0,"                                            \
	"   'weightDevice': [{'major': 8, 'minor': 0, 'weight': 300, 'leafWeight': 10},"          \
	"                    {'major': 8, 'minor': 16}],"                                         \
	"   'throttleReadBpsDevice': [{'major': 8, 'minor': 0, 'rate': 1048576}],"                \
	"   'throttleWriteBpsDevice': [{'major': 8, 'minor': 1, 'rate': 2097152}],"               \
	"   'throttleReadIOPSDevice': [{'major': 8, 'minor': 2, 'rate': 100}],"                   \
	"   'throttleWriteIOPSDevice': [{'major': 8, 'minor': 3, 'rate': 200},"                   \
	"                               {'major': 253, 'minor': 0, 'rate': 300}]},"               \
	" 'hugepageLimits': [{'pageSize': '2MB', 'limit': 209715200},"                            \
	"                    {'pageSize': '1GB', 'limit': 0}, {'pageSize': '64KB', 'limit': 1}]," \
	" 'network': {'classID': 1048577, 'priorities': [{'name': 'eth0', 'priority': 500},"      \
	"   {'name': 'lo', 'priority': 0}]},"                                                     \
	" 'rdma': {'mlx5_0': {'hcaHandles': 3, 'hcaObjects': 10000}, 'mlx4_1': {}},"              \
	" 'unified': {'memory.high': '1G', 'io.max': '8:0 rbps=1048576'}}"

/* Every field of RESOURCES_FIXTURE; @where says which document it came from. */
static void check_resources(const struct brig_resources *r, const char *where)
{
	const struct brig_blkio *b = r->block_io;

	is_int(r->n_devices, 3, "%s: three device rules", where);
	ok(!r->devices[0].allow, "%s: devices[0].allow", where);
	is_int(r->devices[0].type, 'a', "%s: devices[0].type defaults to 'a'", where);
	ok(!r->devices[0].major.set && !r->devices[0].minor.set, "%s: devices[0] major/minor unset",
	   where);
	is_str(r->devices[0].access, "rwm", "%s: devices[0].access", where);
	ok(r->devices[1].allow, "%s: devices[1].allow", where);
	is_int(r->devices[1].type, 'c', "%s: devices[1].type", where);
	ok(r->devices[1].major.set && r->devices[1].major.value == 1, "%s: devices[1].major",
	   where);
	ok(r->devices[1].minor.set && r->devices[1].minor.value == 3, "%s: devices[1].minor",
	   where);
	is_str(r->devices[1].access, "rw", "%s: devices[1].access", where);
	is_int(r->devices[2].type, 'b', "%s: devices[2].type", where);
	is_int(r->devices[2].major.value, -1, "%s: devices[2].major is -1 (any)", where);
	is_int(r->devices[2].minor.value, -1, "%s: devices[2].minor is -1 (any)", where);

	is_int(r->memory->limit.value, 536870912, "%s: memory.limit", where);
	is_int(r->memory->reservation.value, 268435456, "%s: memory.reservation", where);
	ok(r->memory->swap.set, "%s: memory.swap is set", where);
	is_int(r->memory->swap.value, -1, "%s: memory.swap", where);
	ok(r->memory->kernel.set && r->memory->kernel.value == 0, "%s: memory.kernel", where);
	is_int(r->memory->kernel_tcp.value, 1048576, "%s: memory.kernelTCP", where);
	ok(r->memory->swappiness.set, "%s: memory.swappiness is set", where);
	is_int(r->memory->swappiness.value, 60, "%s: memory.swappiness", where);
	ok(r->memory->disable_oom_killer.set && r->memory->disable_oom_killer.value,
	   "%s: memory.disableOOMKiller", where);
	ok(r->memory->use_hierarchy.set && !r->memory->use_hierarchy.value,
	   "%s: memory.useHierarchy", where);
	ok(r->memory->check_before_update.set && r->memory->check_before_update.value,
	   "%s: memory.checkBeforeUpdate", where);

	is_int(r->cpu->shares.value, 1024, "%s: cpu.shares", where);
	is_int(r->cpu->quota.value, 50000, "%s: cpu.quota", where);
	is_int(r->cpu->burst.value, 10000, "%s: cpu.burst", where);
	is_int(r->cpu->period.value, 100000, "%s: cpu.period", where);
	is_int(r->cpu->realtime_runtime.value, 950000, "%s: cpu.realtimeRuntime", where);
	is_int(r->cpu->realtime_period.value, 1000000, "%s: cpu.realtimePeriod", where);
	is_str(r->cpu->cpus, "0-3,7", "%s: cpu.cpus", where);
	is_str(r->cpu->mems, "0", "%s: cpu.mems", where);
	ok(r->cpu->idle.set && r->cpu->idle.value == 1, "%s: cpu.idle", where);

	ok(r->has_pids, "%s: has pids", where);
	ok(r->pids_limit.set, "%s: pids.limit is set", where);
	is_int(r->pids_limit.value, 512, "%s: pids.limit", where);

	ok(b->weight.set && b->weight.value == 500, "%s: blockIO.weight", where);
	ok(b->leaf_weight.set && b->leaf_weight.value == 0, "%s: blockIO.leafWeight 0", where);
	is_int(b->n_weight_device, 2, "%s: two weightDevice entries", where);
	is_int(b->weight_device[0].major, 8, "%s: weightDevice[0].major", where);
	is_int(b->weight_device[0].minor, 0, "%s: weightDevice[0].minor", where);
	is_int(b->weight_device[0].weight.value, 300, "%s: weightDevice[0].weight", where);
	is_int(b->weight_device[0].leaf_weight.value, 10, "%s: weightDevice[0].leafWeight", where);
	is_int(b->weight_device[1].minor, 16, "%s: weightDevice[1].minor", where);
	ok(!b->weight_device[1].weight.set && !b->weight_device[1].leaf_weight.set,
	   "%s: weightDevice[1] weights unset", where);
	is_int(b->n_throttle_read_bps, 1, "%s: one throttleReadBpsDevice", where);
	is_int(b->throttle_read_bps[0].rate, 1048576, "%s: throttleReadBpsDevice[0].rate", where);
	is_int(b->n_throttle_write_bps, 1, "%s: one throttleWriteBpsDevice", where);
	is_int(b->throttle_write_bps[0].minor, 1, "%s: throttleWriteBpsDevice[0].minor", where);
	is_int(b->throttle_write_bps[0].rate, 2097152, "%s: throttleWriteBpsDevice[0].rate", where);
	is_int(b->n_throttle_read_iops, 1, "%s: one throttleReadIOPSDevice", where);
	is_int(b->throttle_read_iops[0].rate, 100, "%s: throttleReadIOPSDevice[0].rate", where);
	is_int(b->n_throttle_write_iops, 2, "%s: two throttleWriteIOPSDevice", where);
	is_int(b->throttle_write_iops[1].major, 253, "%s: throttleWriteIOPSDevice[1].major", where);
	is_int(b->throttle_write_iops[1].rate, 300, "%s: throttleWriteIOPSDevice[1].rate", where);

	is_int(r->n_hugepage_limits, 3, "%s: three hugepageLimits", where);
	is_str(r->hugepage_limits[0].page_size, "2MB", "%s: hugepageLimits[0].pageSize", where);
	is_int(r->hugepage_limits[0].limit, 209715200, "%s: hugepageLimits[0].limit", where);
	is_str(r->hugepage_limits[1].page_size, "1GB", "%s: hugepageLimits[1].pageSize", where);
	is_str(r->hugepage_limits[2].page_size, "64KB", "%s: hugepageLimits[2].pageSize", where);

	ok(r->network->class_id.set && r->network->class_id.value == 1048577, "%s: network.classID",
	   where);
	is_int(r->network->n_priorities, 2, "%s: two network priorities", where);
	is_str(r->network->priorities[0].name, "eth0", "%s: priorities[0].name", where);
	is_int(r->network->priorities[0].priority, 500, "%s: priorities[0].priority", where);
	is_str(r->network->priorities[1].name, "lo", "%s: priorities[1].name", where);

	is_int(r->n_rdma, 2, "%s: two rdma devices", where);
	is_str(r->rdma[0].device, "mlx5_0", "%s: rdma[0] device", where);
	ok(r->rdma[0].hca_handles.set && r->rdma[0].hca_handles.value == 3,
	   "%s: rdma.mlx5_0.hcaHandles", where);
	ok(r->rdma[0].hca_objects.set && r->rdma[0].hca_objects.value == 10000,
	   "%s: rdma.mlx5_0.hcaObjects", where);
	is_str(r->rdma[1].device, "mlx4_1", "%s: rdma[1] device", where);
	ok(!r->rdma[1].hca_handles.set && !r->rdma[1].hca_objects.set,
	   "%s: rdma.mlx4_1 limits unset", where);

	is_int(r->n_unified, 2, "%s: two unified entries", where);
	is_str(r->unified[0].key, "memory.high", "%s: unified[0] key", where);
	is_str(r->unified[0].value, "1G", "%s: unified[0] value", where);
	is_str(r->unified[1].key, "io.max", "%s: unified[1] key", where);
	is_str(r->unified[1].value, "8:0 rbps=1048576", "%s: unified[1] value", where);
}

static void test_resources(void)
{
	struct brig_config *cfg =
	    parse("{" HEAD ", 'linux': {'resources': " RESOURCES_FIXTURE "}}");
	const struct brig_resources *r;

	diag("linux.resources");
	if (!ok(cfg != NULL, "linux.resources parses"))
		return;
	check_resources(cfg->linux->resources, "config");
	brig_config_free(cfg);

	cfg = parse("{" HEAD ", 'linux': {'resources': {'pids': {},"
	            " 'memory': {'swappiness': 18446744073709551615},"
	            " 'cpu': {'cpus': '', 'mems': ''}}}}");
	if (!ok(cfg != NULL, "sparse resources parse"))
		return;
	r = cfg->linux->resources;
	ok(r->has_pids && !r->pids_limit.set, "an empty pids object: has_pids, no limit");
	ok(!r->memory->swappiness.set, "swappiness (uint64)-1 means unset, as Docker writes it");
	ok(!r->memory->limit.set && !r->memory->disable_oom_killer.set,
	   "absent memory fields unset");
	ok(r->cpu->cpus == NULL && r->cpu->mems == NULL, "empty cpus/mems mean unset");
	ok(!r->cpu->shares.set && !r->cpu->idle.set, "absent cpu fields unset");
	ok(!r->block_io && !r->network && r->n_devices == 0 && r->n_rdma == 0 &&
	       r->n_unified == 0 && r->n_hugepage_limits == 0,
	   "absent resource groups unset");
	brig_config_free(cfg);
}

static void test_seccomp(void)
{
	struct brig_config *cfg =
	    parse("{" HEAD ", 'linux': {'seccomp': {"
	          " 'defaultAction': 'SCMP_ACT_ERRNO', 'defaultErrnoRet': 1,"
	          " 'architectures': ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', 'SCMP_ARCH_X32'],"
	          " 'flags': ['SECCOMP_FILTER_FLAG_LOG', 'SECCOMP_FILTER_FLAG_SPEC_ALLOW'],"
	          " 'listenerPath': '/run/seccomp-agent.sock', 'listenerMetadata': 'meta',"
	          " 'syscalls': ["
	          "  {'names': ['read', 'write', 'no_such_syscall_at_all'],"
	          "   'action': 'SCMP_ACT_ALLOW'},"
	          "  {'names': ['personality'], 'action': 'SCMP_ACT_ALLOW',"
	          "   'args': [{'index': 0, 'value': 0, 'op': 'SCMP_CMP_EQ'},"
	          "            {'index': 5, 'value': 4294967295, 'valueTwo': 8,"
	          "             'op': 'SCMP_CMP_MASKED_EQ'}]},"
	          "  {'names': ['mkdir'], 'action': 'SCMP_ACT_ERRNO', 'errnoRet': 38},"
	          "  {'names': ['mount'], 'action': 'SCMP_ACT_NOTIFY'}"
	          " ]}}}");
	const struct brig_seccomp *sc;

	diag("linux.seccomp");
	if (!ok(cfg != NULL, "linux.seccomp parses"))
		return;
	sc = cfg->linux->seccomp;
	is_int(sc->default_action, BRIG_SCMP_ACT_ERRNO, "defaultAction");
	ok(sc->default_errno_ret.set && sc->default_errno_ret.value == 1, "defaultErrnoRet");
	is_int(sc->n_architectures, 3, "three architectures");
	is_str(sc->architectures[0], "SCMP_ARCH_X86_64", "architectures[0]");
	is_str(sc->architectures[2], "SCMP_ARCH_X32", "architectures[2]");
	is_int(sc->n_flags, 2, "two flags");
	is_str(sc->flags[1], "SECCOMP_FILTER_FLAG_SPEC_ALLOW", "flags[1]");
	is_str(sc->listener_path, "/run/seccomp-agent.sock", "listenerPath");
	is_str(sc->listener_metadata, "meta", "listenerMetadata");
	is_int(sc->n_syscalls, 4, "four syscall rules");
	is_int(sc->syscalls[0].n_names, 3, "syscalls[0] has three names");
	is_str(sc->syscalls[0].names[2], "no_such_syscall_at_all",
	       "syscalls[0].names[2]: unknown names are kept, not refused");
	is_int(sc->syscalls[0].action, BRIG_SCMP_ACT_ALLOW, "syscalls[0].action");
	ok(!sc->syscalls[0].errno_ret.set && sc->syscalls[0].n_args == 0,
	   "syscalls[0]: no errnoRet, no args");
	is_int(sc->syscalls[1].n_args, 2, "syscalls[1] has two args");
	is_int(sc->syscalls[1].args[0].index, 0, "syscalls[1].args[0].index");
	is_int(sc->syscalls[1].args[0].value, 0, "syscalls[1].args[0].value");
	is_int(sc->syscalls[1].args[0].value_two, 0, "syscalls[1].args[0].valueTwo defaults to 0");
	is_int(sc->syscalls[1].args[0].op, BRIG_SCMP_CMP_EQ, "syscalls[1].args[0].op");
	is_int(sc->syscalls[1].args[1].index, 5, "syscalls[1].args[1].index");
	is_int(sc->syscalls[1].args[1].value, 4294967295LL, "syscalls[1].args[1].value");
	is_int(sc->syscalls[1].args[1].value_two, 8, "syscalls[1].args[1].valueTwo");
	is_int(sc->syscalls[1].args[1].op, BRIG_SCMP_CMP_MASKED_EQ, "syscalls[1].args[1].op");
	is_int(sc->syscalls[2].action, BRIG_SCMP_ACT_ERRNO, "syscalls[2].action");
	ok(sc->syscalls[2].errno_ret.set && sc->syscalls[2].errno_ret.value == 38,
	   "syscalls[2].errnoRet");
	is_int(sc->syscalls[3].action, BRIG_SCMP_ACT_NOTIFY, "syscalls[3].action");
	is_str(brig_seccomp_action_name(sc->syscalls[3].action), "SCMP_ACT_NOTIFY",
	       "action name round-trips");
	brig_config_free(cfg);

	cfg = parse("{" HEAD ", 'linux': {'seccomp': {'defaultAction': 'SCMP_ACT_KILL_PROCESS'}}}");
	if (!ok(cfg != NULL, "a bare seccomp parses"))
		return;
	sc = cfg->linux->seccomp;
	is_int(sc->default_action, BRIG_SCMP_ACT_KILL_PROCESS, "defaultAction KILL_PROCESS");
	ok(!sc->default_errno_ret.set && sc->n_syscalls == 0 && sc->n_architectures == 0 &&
	       !sc->listener_path,
	   "absent seccomp members unset");
	brig_config_free(cfg);
}

static void test_linux_rest(void)
{
	struct brig_config *cfg =
	    parse("{" HEAD ", 'linux': {"
	          " 'intelRdt': {'closID': 'guaranteed', 'l3CacheSchema': 'L3:0=7f0;1=1f',"
	          "   'memBwSchema': 'MB:0=20;1=70', 'schemata': ['L2:0=ff', 'L3CODE:0=f'],"
	          "   'enableMonitoring': true},"
	          " 'memoryPolicy': {'mode': 'MPOL_INTERLEAVE', 'nodes': '0-1,3',"
	          "   'flags': ['MPOL_F_STATIC_NODES', 'MPOL_F_NUMA_BALANCING']},"
	          " 'personality': {'domain': 'LINUX32', 'flags': ['ADDR_NO_RANDOMIZE']},"
	          " 'sysctl': {'net.ipv4.ip_forward': '1', 'kernel.shm_rmid_forced': '1'},"
	          " 'maskedPaths': ['/proc/kcore', '/sys/firmware'],"
	          " 'readonlyPaths': ['/proc/sys', '/proc/sysrq-trigger', '/proc/bus']"
	          "}}");
	const struct brig_linux *lx;

	diag("linux: intelRdt, memoryPolicy, personality, sysctl, maskedPaths, readonlyPaths");
	if (!ok(cfg != NULL, "the rest of linux parses"))
		return;
	lx = cfg->linux;
	is_str(lx->intel_rdt->clos_id, "guaranteed", "intelRdt.closID");
	is_str(lx->intel_rdt->l3_cache_schema, "L3:0=7f0;1=1f", "intelRdt.l3CacheSchema");
	is_str(lx->intel_rdt->mem_bw_schema, "MB:0=20;1=70", "intelRdt.memBwSchema");
	is_int(lx->intel_rdt->n_schemata, 2, "intelRdt.schemata count");
	is_str(lx->intel_rdt->schemata[1], "L3CODE:0=f", "intelRdt.schemata[1]");
	ok(lx->intel_rdt->enable_monitoring, "intelRdt.enableMonitoring");
	is_str(lx->memory_policy->mode, "MPOL_INTERLEAVE", "memoryPolicy.mode");
	is_str(lx->memory_policy->nodes, "0-1,3", "memoryPolicy.nodes");
	is_int(lx->memory_policy->n_flags, 2, "memoryPolicy.flags count");
	is_str(lx->memory_policy->flags[0], "MPOL_F_STATIC_NODES", "memoryPolicy.flags[0]");
	is_str(lx->memory_policy->flags[1], "MPOL_F_NUMA_BALANCING", "memoryPolicy.flags[1]");
	is_str(lx->personality->domain, "LINUX32", "personality.domain");
	is_int(lx->personality->n_flags, 1, "personality.flags count");
	is_str(lx->personality->flags[0], "ADDR_NO_RANDOMIZE", "personality.flags[0]");
	is_int(lx->n_sysctl, 2, "two sysctls");
	is_str(lx->sysctl[0].key, "net.ipv4.ip_forward", "sysctl[0] key");
	is_str(lx->sysctl[0].value, "1", "sysctl[0] value");
	is_str(lx->sysctl[1].key, "kernel.shm_rmid_forced", "sysctl[1] key");
	is_int(lx->n_masked_paths, 2, "two maskedPaths");
	is_str(lx->masked_paths[1], "/sys/firmware", "maskedPaths[1]");
	is_int(lx->n_readonly_paths, 3, "three readonlyPaths");
	is_str(lx->readonly_paths[2], "/proc/bus", "readonlyPaths[2]");
	brig_config_free(cfg);

	cfg = parse("{" HEAD ", 'linux': {'memoryPolicy': {'mode': 'MPOL_LOCAL'},"
	            " 'personality': {'domain': 'LINUX'}, 'intelRdt': {}}}");
	if (!ok(cfg != NULL, "bare memoryPolicy, personality and intelRdt parse"))
		return;
	lx = cfg->linux;
	is_str(lx->memory_policy->mode, "MPOL_LOCAL", "memoryPolicy.mode MPOL_LOCAL");
	ok(!lx->memory_policy->nodes && lx->memory_policy->n_flags == 0,
	   "memoryPolicy: no nodes, no flags");
	is_str(lx->personality->domain, "LINUX", "personality.domain LINUX");
	ok(!lx->intel_rdt->clos_id && !lx->intel_rdt->enable_monitoring, "empty intelRdt");
	brig_config_free(cfg);
}

static void test_process_doc(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	char *text = json("{'terminal': false, 'user': {'uid': 0, 'gid': 0},"
	                  " 'args': ['/bin/ls', '-l'], 'env': ['A=1'], 'cwd': '/srv',"
	                  " 'capabilities': {'bounding': ['CAP_SYS_ADMIN']},"
	                  " 'rlimits': [{'type': 'RLIMIT_NPROC', 'soft': 10, 'hard': 20}],"
	                  " 'noNewPrivileges': true}");
	struct brig_process_doc *doc = brig_process_parse("process.json", text, strlen(text), &err);

	diag("brig_process_parse");
	if (ok(doc != NULL, "process.json parses")) {
		const struct brig_process *p = doc->process;

		ok(!p->terminal, "terminal");
		is_int(p->n_args, 2, "args count");
		is_str(p->args[1], "-l", "args[1]");
		is_str(p->env[0], "A=1", "env[0]");
		is_str(p->cwd, "/srv", "cwd");
		is_str(p->capabilities->bounding[0], "CAP_SYS_ADMIN", "capabilities.bounding[0]");
		is_int(p->rlimits[0].resource, RLIMIT_NPROC, "rlimits[0]");
		is_int(p->rlimits[0].hard, 20, "rlimits[0].hard");
		ok(p->no_new_privileges, "noNewPrivileges");
	} else {
		printf("# %s\n", err.msg);
	}
	brig_process_doc_free(doc);
	brig_error_release(&err);
	free(text);

	text = json("{'args': ['sh'], 'cwd': 'relative'}");
	doc = brig_process_parse("process.json", text, strlen(text), &err);
	ok(doc == NULL, "process.json with a relative cwd is refused");
	is_str(err.msg, "process.json: cwd: must be an absolute path",
	       "  the path starts at the document");
	brig_error_release(&err);
	free(text);
}

static void test_resources_doc(void)
{
	struct brig_error err = BRIG_ERROR_INIT;
	char *text = json(RESOURCES_FIXTURE);
	struct brig_resources_doc *doc =
	    brig_resources_parse("resources.json", text, strlen(text), &err);

	diag("brig_resources_parse");
	if (ok(doc != NULL, "resources.json parses"))
		check_resources(doc->resources, "update");
	else
		printf("# %s\n", err.msg);
	brig_resources_doc_free(doc);
	brig_error_release(&err);
	free(text);

	text = json("{'memory': {'limit': -2}}");
	doc = brig_resources_parse("resources.json", text, strlen(text), &err);
	ok(doc == NULL, "resources.json with memory.limit -2 is refused");
	is_str(err.msg,
	       "resources.json: memory.limit: -2 is out of range "
	       "[-1, 9223372036854775807]",
	       "  the path starts at the document");
	brig_error_release(&err);
	free(text);
}

static void test_errors(void)
{
	static const struct {
		const char *section; /* the value of "linux" */
		const char *want;
	} cases[] = {
		/* namespaces */
		{ "{'namespaces': [{'type': 'pid'}, {}]}",
		  "linux.namespaces[1].type: is required" },
		{ "{'namespaces': [{'type': 'pid'}, {'type': 'mount'}, {'type': 'bogus'}]}",
		  "linux.namespaces[2].type: unknown namespace type \"bogus\"" },
		{ "{'namespaces': [{'type': 'pid'}, {'type': 'ipc'}, {'type': 'pid'}]}",
		  "linux.namespaces[2].type: duplicate namespace type \"pid\"" },
		{ "{'namespaces': [{'type': 'network', 'path': 'netns'}]}",
		  "linux.namespaces[0].path: must be an absolute path" },
		{ "{'namespaces': {}}", "linux.namespaces: expected an array, got an object" },
		/* id mappings */
		{ "{'uidMappings': [{'containerID': 0, 'hostID': 1}]}",
		  "linux.uidMappings[0].size: is required" },
		{ "{'gidMappings': [{'containerID': 0, 'hostID': 1, 'size': 0}]}",
		  "linux.gidMappings[0].size: must be greater than 0" },
		/* timeOffsets */
		{ "{'timeOffsets': {'realtime': {'secs': 1}}}",
		  "linux.timeOffsets.realtime: unknown clock \"realtime\"" },
		{ "{'timeOffsets': {'boottime': {'nanosecs': 1000000000}}}",
		  "linux.timeOffsets.boottime.nanosecs: 1000000000 is out of range "
		  "[0, 999999999]" },
		{ "{'timeOffsets': {'monotonic': {'secs': 1.5}}}",
		  "linux.timeOffsets.monotonic.secs: expected an integer, got 1.5" },
		{ "{'timeOffsets': {'monotonic': {}, 'monotonic': {}}}",
		  "linux.timeOffsets.monotonic: duplicate key" },
		/* devices */
		{ "{'devices': [{'type': 'c', 'major': 1, 'minor': 3}]}",
		  "linux.devices[0].path: is required" },
		{ "{'devices': [{'path': 'dev/null', 'type': 'c', 'major': 1, 'minor': 3}]}",
		  "linux.devices[0].path: must be an absolute path" },
		{ "{'devices': [{'path': '/dev/x', 'type': 'x', 'major': 1, 'minor': 3}]}",
		  "linux.devices[0].type: unknown device type \"x\"" },
		{ "{'devices': [{'path': '/dev/x', 'major': 1, 'minor': 3}]}",
		  "linux.devices[0].type: is required" },
		{ "{'devices': [{'path': '/dev/x', 'type': 'b', 'minor': 3}]}",
		  "linux.devices[0].major: is required" },
		{ "{'devices': [{'path': '/dev/x', 'type': 'u', 'major': 1}]}",
		  "linux.devices[0].minor: is required" },
		{ "{'devices': [{'path': '/dev/x', 'type': 'c', 'major': 1, 'minor': 3,"
		  " 'fileMode': 8192}]}",
		  "linux.devices[0].fileMode: 8192 is out of range [0, 4095]" },
		{ "{'devices': [{'path': '/dev/x', 'type': 'c', 'major': 1, 'minor': 3,"
		  " 'uid': -1}]}",
		  "linux.devices[0].uid: -1 is out of range [0, 4294967295]" },
		/* netDevices */
		{ "{'netDevices': {'': {}}}",
		  "linux.netDevices[\"\"]: invalid network interface name \"\"" },
		{ "{'netDevices': {'a/b': {}}}",
		  "linux.netDevices[\"a/b\"]: invalid network interface name \"a/b\"" },
		{ "{'netDevices': {'eth0': {'name': 'a very long name'}}}",
		  "linux.netDevices.eth0.name: invalid network interface name "
		  "\"a very long name\"" },
		{ "{'netDevices': {'eth0': []}}",
		  "linux.netDevices.eth0: expected an object, got an array" },
		/* intelRdt, memoryPolicy, rootfsPropagation, personality */
		{ "{'intelRdt': {'closID': '../x'}}",
		  "linux.intelRdt.closID: must be a single non-empty path component" },
		{ "{'intelRdt': {'enableMonitoring': 'yes'}}",
		  "linux.intelRdt.enableMonitoring: expected a boolean, got a string" },
		{ "{'memoryPolicy': {'nodes': '0'}}", "linux.memoryPolicy.mode: is required" },
		{ "{'memoryPolicy': {'mode': 'MPOL_FOO'}}",
		  "linux.memoryPolicy.mode: unknown memory policy mode \"MPOL_FOO\"" },
		{ "{'memoryPolicy': {'mode': 'MPOL_BIND', 'nodes': '0-'}}",
		  "linux.memoryPolicy.nodes: invalid node list \"0-\"" },
		{ "{'memoryPolicy': {'mode': 'MPOL_BIND', 'flags': ['MPOL_F_STATIC_NODES', 'X']}}",
		  "linux.memoryPolicy.flags[1]: unknown memory policy flag \"X\"" },
		{ "{'memoryPolicy': {'mode': 'MPOL_BIND',"
		  " 'flags': ['MPOL_F_STATIC_NODES', 'MPOL_F_RELATIVE_NODES']}}",
		  "linux.memoryPolicy.flags: MPOL_F_RELATIVE_NODES and MPOL_F_STATIC_NODES are "
		  "mutually exclusive" },
		{ "{'rootfsPropagation': 'recursive'}",
		  "linux.rootfsPropagation: unknown rootfs propagation \"recursive\"" },
		{ "{'personality': {'flags': []}}", "linux.personality.domain: is required" },
		{ "{'personality': {'domain': 'LINUX64'}}",
		  "linux.personality.domain: unknown personality domain \"LINUX64\"" },
		/* sysctl, masked/readonly paths */
		{ "{'sysctl': {'': '1'}}", "linux.sysctl: keys must not be empty" },
		{ "{'sysctl': {'net.ipv4.ip_forward': 1}}",
		  "linux.sysctl[\"net.ipv4.ip_forward\"]: expected a string, got a number" },
		{ "{'maskedPaths': ['/proc/kcore', 'proc/keys']}",
		  "linux.maskedPaths[1]: must be an absolute path" },
		{ "{'readonlyPaths': ['/proc/sys', 7]}",
		  "linux.readonlyPaths[1]: expected a string, got a number" },
		/* resources */
		{ "{'resources': {'devices': [{'access': 'rwm'}]}}",
		  "linux.resources.devices[0].allow: is required" },
		{ "{'resources': {'devices': [{'allow': true, 'type': 'u'}]}}",
		  "linux.resources.devices[0].type: unknown device type \"u\"" },
		{ "{'resources': {'devices': [{'allow': true, 'major': -2}]}}",
		  "linux.resources.devices[0].major: -2 is out of range [-1, 4294967295]" },
		{ "{'resources': {'memory': {'limit': '1G'}}}",
		  "linux.resources.memory.limit: expected an integer, got a string" },
		{ "{'resources': {'memory': {'swap': -2}}}",
		  "linux.resources.memory.swap: -2 is out of range [-1, 9223372036854775807]" },
		{ "{'resources': {'memory': {'swappiness': 101}}}",
		  "linux.resources.memory.swappiness: 101 is out of range [0, 100]" },
		{ "{'resources': {'memory': {'disableOOMKiller': 1}}}",
		  "linux.resources.memory.disableOOMKiller: expected a boolean, got a number" },
		{ "{'resources': {'cpu': {'shares': -1}}}",
		  "linux.resources.cpu.shares: -1 is out of range [0, 18446744073709551615]" },
		{ "{'resources': {'cpu': {'cpus': '0-3,,5'}}}",
		  "linux.resources.cpu.cpus: invalid CPU list \"0-3,,5\"" },
		{ "{'resources': {'cpu': {'mems': 'all'}}}",
		  "linux.resources.cpu.mems: invalid CPU list \"all\"" },
		{ "{'resources': {'cpu': {'idle': 2}}}",
		  "linux.resources.cpu.idle: 2 is out of range [0, 1]" },
		{ "{'resources': {'pids': {'limit': -5}}}",
		  "linux.resources.pids.limit: -5 is out of range [-1, 9223372036854775807]" },
		{ "{'resources': {'pids': 5}}",
		  "linux.resources.pids: expected an object, got a number" },
		{ "{'resources': {'blockIO': {'weight': 5}}}",
		  "linux.resources.blockIO.weight: 5 is out of range [10, 1000] (or 0)" },
		{ "{'resources': {'blockIO': {'leafWeight': 1001}}}",
		  "linux.resources.blockIO.leafWeight: 1001 is out of range [0, 1000]" },
		{ "{'resources': {'blockIO': {'weightDevice': [{'major': 8}]}}}",
		  "linux.resources.blockIO.weightDevice[0].minor: is required" },
		{ "{'resources': {'blockIO': {'weightDevice': [{'major': 8, 'minor': 0,"
		  " 'weight': 9}]}}}",
		  "linux.resources.blockIO.weightDevice[0].weight: 9 is out of range "
		  "[10, 1000] (or 0)" },
		{ "{'resources': {'blockIO': {'throttleReadBpsDevice':"
		  " [{'major': 8, 'minor': 0}]}}}",
		  "linux.resources.blockIO.throttleReadBpsDevice[0].rate: is required" },
		{ "{'resources': {'blockIO': {'throttleWriteIOPSDevice': [{'major': 8, 'minor': 0,"
		  " 'rate': 1}, {'major': 8, 'minor': 0, 'rate': -1}]}}}",
		  "linux.resources.blockIO.throttleWriteIOPSDevice[1].rate: -1 is out of range "
		  "[0, 18446744073709551615]" },
		{ "{'resources': {'hugepageLimits': [{'limit': 1}]}}",
		  "linux.resources.hugepageLimits[0].pageSize: is required" },
		{ "{'resources': {'hugepageLimits': [{'pageSize': '2M', 'limit': 1}]}}",
		  "linux.resources.hugepageLimits[0].pageSize: invalid page size \"2M\"" },
		{ "{'resources': {'hugepageLimits': [{'pageSize': '2MB'}]}}",
		  "linux.resources.hugepageLimits[0].limit: is required" },
		{ "{'resources': {'network': {'classID': 4294967296}}}",
		  "linux.resources.network.classID: 4294967296 is out of range [0, 4294967295]" },
		{ "{'resources': {'network': {'priorities': [{'priority': 1}]}}}",
		  "linux.resources.network.priorities[0].name: is required" },
		{ "{'resources': {'network': {'priorities': [{'name': 'eth0'}]}}}",
		  "linux.resources.network.priorities[0].priority: is required" },
		{ "{'resources': {'network': {'priorities':"
		  " [{'name': 'eth0 9\\n', 'priority': 1}]}}}",
		  "linux.resources.network.priorities[0].name: invalid network interface name "
		  "\"eth0 9?\"" },
		{ "{'resources': {'rdma': {'mlx5_0': {'hcaHandles': -1}}}}",
		  "linux.resources.rdma.mlx5_0.hcaHandles: -1 is out of range [0, 4294967295]" },
		{ "{'resources': {'rdma': {'mlx 0': {}}}}",
		  "linux.resources.rdma[\"mlx 0\"]: invalid RDMA device name" },
		{ "{'resources': {'unified': {'memory.max': 5}}}",
		  "linux.resources.unified[\"memory.max\"]: expected a string, got a number" },
		{ "{'resources': {'unified': {'../../etc/passwd': 'x'}}}",
		  "linux.resources.unified[\"../../etc/passwd\"]: invalid cgroup file name "
		  "(expected \"<controller>.<file>\")" },
		{ "{'resources': {'unified': {'memory..max': 'x'}}}",
		  "linux.resources.unified[\"memory..max\"]: invalid cgroup file name "
		  "(expected \"<controller>.<file>\")" },
		{ "{'resources': {'unified': {'nodot': 'x'}}}",
		  "linux.resources.unified.nodot: invalid cgroup file name "
		  "(expected \"<controller>.<file>\")" },
		/* seccomp */
		{ "{'seccomp': {}}", "linux.seccomp.defaultAction: is required" },
		{ "{'seccomp': {'defaultAction': 'SCMP_ACT_MAYBE'}}",
		  "linux.seccomp.defaultAction: unknown seccomp action \"SCMP_ACT_MAYBE\"" },
		{ "{'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW', 'defaultErrnoRet': -1}}",
		  "linux.seccomp.defaultErrnoRet: -1 is out of range [0, 65535]" },
		{ "{'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW',"
		  " 'architectures': ['SCMP_ARCH_X86_64', 'SCMP_ARCH_Z80']}}",
		  "linux.seccomp.architectures[1]: unknown seccomp architecture "
		  "\"SCMP_ARCH_Z80\"" },
		{ "{'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW', 'flags': ['FLAG']}}",
		  "linux.seccomp.flags[0]: unknown seccomp flag \"FLAG\"" },
		{ "{'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW', 'listenerPath': 'sock'}}",
		  "linux.seccomp.listenerPath: must be an absolute path" },
		{ "{'seccomp': {'defaultAction': 'SCMP_ACT_NOTIFY'}}",
		  "linux.seccomp.listenerPath: is required with SCMP_ACT_NOTIFY" },
		{ "{'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW',"
		  " 'syscalls': [{'names': ['mount'], 'action': 'SCMP_ACT_NOTIFY'}]}}",
		  "linux.seccomp.listenerPath: is required with SCMP_ACT_NOTIFY" },
		{ "{'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [{'action':"
		  " 'SCMP_ACT_ERRNO'}]}}",
		  "linux.seccomp.syscalls[0].names: is required" },
		{ "{'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [{'names': [],"
		  " 'action': 'SCMP_ACT_ERRNO'}]}}",
		  "linux.seccomp.syscalls[0].names: must not be empty" },
		{ "{'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW',"
		  " 'syscalls': [{'names': ['x']}]}}",
		  "linux.seccomp.syscalls[0].action: is required" },
		{ "{'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [{'names': ['x'],"
		  " 'action': 'SCMP_ACT_ALLOW', 'args': [{'index': 6, 'value': 0,"
		  " 'op': 'SCMP_CMP_EQ'}]}]}}",
		  "linux.seccomp.syscalls[0].args[0].index: 6 is out of range [0, 5]" },
		{ "{'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [{'names': ['x'],"
		  " 'action': 'SCMP_ACT_ALLOW', 'args': [{'index': 0, 'op': 'SCMP_CMP_EQ'}]}]}}",
		  "linux.seccomp.syscalls[0].args[0].value: is required" },
		{ "{'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [{'names': ['x'],"
		  " 'action': 'SCMP_ACT_ALLOW', 'args': [{'index': 0, 'value': 1}]}]}}",
		  "linux.seccomp.syscalls[0].args[0].op: is required" },
		{ "{'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [{'names': ['x'],"
		  " 'action': 'SCMP_ACT_ALLOW', 'args': [{'index': 0, 'value': 1,"
		  " 'op': 'SCMP_CMP_XX'}]}]}}",
		  "linux.seccomp.syscalls[0].args[0].op: unknown seccomp operator "
		  "\"SCMP_CMP_XX\"" },
		{ "{'seccomp': {'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [{'names': ['x'],"
		  " 'action': 'SCMP_ACT_ERRNO', 'errnoRet': 4294967296}]}}",
		  "linux.seccomp.syscalls[0].errnoRet: 4294967296 is out of range "
		  "[0, 65535]" },
	};

	diag("errors name their JSON path");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *doc = brig_xasprintf("{" HEAD ", 'linux': %s}", cases[i].section);
		char *want = brig_xasprintf("config.json: %s", cases[i].want);

		/* the fixture's ' become ", the expected message stays as written */
		parse_fails(doc, want);
		free(doc);
		free(want);
	}

	/* outside linux */
	parse_fails("{'ociVersion': '1.3.0', 'root': {'path': 'r'}, 'mounts': [{}]}",
	            "config.json: mounts[0].destination: is required");
	parse_fails("{" HEAD ", 'process': {'args': ['sh'], 'cwd': '/',"
	            " 'rlimits': [{'type': 'RLIMIT_BOGUS', 'soft': 1, 'hard': 1}]}}",
	            "config.json: process.rlimits[0].type: unknown rlimit \"RLIMIT_BOGUS\"");
	parse_fails("{" HEAD ", 'process': {'args': ['sh'], 'cwd': '/',"
	            " 'scheduler': {'policy': 'SCHED_OTHER', 'flags': ['SCHED_FLAG_X']}}}",
	            "config.json: process.scheduler.flags[0]: unknown scheduler flag "
	            "\"SCHED_FLAG_X\"");
	parse_fails("{" HEAD ", 'process': {'args': ['sh'], 'cwd': '/',"
	            " 'execCPUAffinity': {'initial': '1-'}}}",
	            "config.json: process.execCPUAffinity.initial: invalid CPU list \"1-\"");
	parse_fails("{" HEAD ", 'hooks': {'poststop': [{'path': 'rel'}]}}",
	            "config.json: hooks.poststop[0].path: must be an absolute path");
}

int main(void)
{
	test_root_and_mounts();
	test_process();
	test_hooks_and_annotations();
	test_linux_basics();
	test_resources();
	test_seccomp();
	test_linux_rest();
	test_process_doc();
	test_resources_doc();
	test_errors();
	return tap_done();
}
