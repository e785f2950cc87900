#!/usr/bin/python3
"""Minimal CRI (runtime.v1) client for brig's end-to-end tests.

Debian 12 has no crictl and no kubelet, so this drives containerd's CRI
plugin directly over gRPC with python3-grpcio.  api.proto (next to this
file) is compiled with protoc into a private temporary directory at start
and removed at exit; the RPCs are called through channel.unary_unary, so
no grpc_tools code generation is needed.

    cri.py --address SOCK COMMAND ...      (or CRI_ADDRESS=SOCK)
    cri.py --serve DIR                     (many commands, one start)

--serve answers the commands of one caller, one at a time, in this one
process: under an emulated CPU a start of python3 with grpc and protobuf
imported takes seconds, and a test script makes dozens.  DIR holds two
FIFOs made by the caller, "in" and "out".  For each command the caller
writes its arguments, each ended by a NUL, to DIR/args, then a line
"go" to DIR/in; the command's stdout and stderr are written to DIR/stdout
and DIR/stderr, then its exit status, one line, to DIR/out.  A line
"quit" ends the server.  (tests/e2e/containerd.sh: cri_call.)

Results go to stdout (JSON, or one plain value); an error is one line on
stderr and exit status 1.  `exec` exits with the command's exit code.
Arguments after a lone "--" are the command (create, exec).
"""

import argparse
import atexit
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROG = "cri.py"

pb = None  # the compiled api_pb2 module
json_format = None


class CriError(Exception):
    pass


def load_api():
    global pb, json_format
    if pb is not None:
        return
    tmp = tempfile.mkdtemp(prefix="cri-proto.")
    atexit.register(shutil.rmtree, tmp, True)
    try:
        r = subprocess.run(
            ["protoc", "--proto_path=" + HERE, "--python_out=" + tmp,
             os.path.join(HERE, "api.proto")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except FileNotFoundError:
        raise CriError("protoc not found (apt-get install protobuf-compiler)")
    if r.returncode != 0:
        raise CriError("protoc failed: " + " ".join(r.stderr.split()))
    sys.path.insert(0, tmp)
    import api_pb2  # noqa: E402
    from google.protobuf import json_format as jf
    pb = api_pb2
    json_format = jf


class Client:
    def __init__(self, address, timeout):
        import grpc
        self.grpc = grpc
        if not address:
            raise CriError("no address: pass --address or set CRI_ADDRESS")
        if "://" not in address:
            address = "unix://" + address
        self.channel = grpc.insecure_channel(address)
        self.timeout = timeout

    def call(self, service, method, request, timeout=None):
        resp_cls = getattr(pb, method + "Response")
        fn = self.channel.unary_unary(
            "/runtime.v1.%s/%s" % (service, method),
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=resp_cls.FromString)
        try:
            return fn(request, timeout=timeout or self.timeout)
        except self.grpc.RpcError as e:
            code = e.code().name if e.code() else "UNKNOWN"
            details = " ".join((e.details() or "").split())
            raise CriError("%s: %s: %s" % (method, code, details))

    def rt(self, method, request, timeout=None):
        return self.call("RuntimeService", method, request, timeout)

    def img(self, method, request, timeout=None):
        return self.call("ImageService", method, request, timeout)

    def close(self):
        self.channel.close()


def to_dict(msg):
    return json_format.MessageToDict(
        msg, preserving_proto_field_name=True,
        including_default_value_fields=True)


def out_json(obj):
    print(json.dumps(obj, sort_keys=True))


def kv_list(items, what):
    res = []
    for it in items or []:
        if "=" not in it:
            raise CriError("%s %r: want KEY=VALUE" % (what, it))
        k, v = it.split("=", 1)
        res.append((k, v))
    return res


def ns_options(host_network):
    return pb.NamespaceOption(
        network=pb.NODE if host_network else pb.POD,
        pid=pb.POD, ipc=pb.POD)


def sandbox_config(name, uid, namespace, attempt=0, cgroup_parent="",
                   log_dir="", hostname="", host_network=True, labels=None,
                   annotations=None):
    cfg = pb.PodSandboxConfig(
        metadata=pb.PodSandboxMetadata(name=name, uid=uid,
                                       namespace=namespace, attempt=attempt),
        hostname=hostname, log_directory=log_dir)
    cfg.linux.cgroup_parent = cgroup_parent
    cfg.linux.security_context.namespace_options.CopyFrom(
        ns_options(host_network))
    for k, v in labels or []:
        cfg.labels[k] = v
    for k, v in annotations or []:
        cfg.annotations[k] = v
    return cfg


def recover_sandbox_config(cli, pod_id):
    """The PodSandboxConfig containerd keeps, from the verbose status."""
    resp = cli.rt("PodSandboxStatus",
                  pb.PodSandboxStatusRequest(pod_sandbox_id=pod_id,
                                             verbose=True))
    try:
        info = json.loads(resp.info["info"])
        cfg = pb.PodSandboxConfig()
        json_format.ParseDict(info["config"], cfg, ignore_unknown_fields=True)
    except (KeyError, ValueError, json_format.ParseError) as e:
        raise CriError("cannot recover the sandbox config of %s (%s); pass "
                       "--pod-name/--pod-uid/--pod-namespace" % (pod_id, e))
    return cfg


def linux_resources(a):
    r = pb.LinuxContainerResources()
    if a.memory is not None:
        r.memory_limit_in_bytes = a.memory
    if a.cpu_quota is not None:
        r.cpu_quota = a.cpu_quota
    if a.cpu_period is not None:
        r.cpu_period = a.cpu_period
    if a.cpu_shares is not None:
        r.cpu_shares = a.cpu_shares
    if getattr(a, "cpuset_cpus", None):
        r.cpuset_cpus = a.cpuset_cpus
    return r


# ---- commands

def cmd_version(cli, a, rest):
    out_json(to_dict(cli.rt("Version", pb.VersionRequest(version="v1"))))


def cmd_runp(cli, a, rest):
    if a.log_dir:
        os.makedirs(a.log_dir, exist_ok=True)
    cfg = sandbox_config(a.name, a.uid, a.namespace, a.attempt,
                         a.cgroup_parent, a.log_dir, a.hostname,
                         not a.pod_network, kv_list(a.label, "--label"),
                         kv_list(a.annotation, "--annotation"))
    resp = cli.rt("RunPodSandbox",
                  pb.RunPodSandboxRequest(config=cfg,
                                          runtime_handler=a.runtime_handler),
                  timeout=a.rpc_timeout)
    print(resp.pod_sandbox_id)


def cmd_create(cli, a, rest):
    if a.pod_name:
        if not (a.pod_uid and a.pod_namespace):
            raise CriError("--pod-name needs --pod-uid and --pod-namespace")
        scfg = sandbox_config(a.pod_name, a.pod_uid, a.pod_namespace,
                              a.pod_attempt, a.cgroup_parent or "",
                              a.log_dir or "", "", not a.pod_network)
    else:
        scfg = recover_sandbox_config(cli, a.pod)
        if a.cgroup_parent is not None:
            scfg.linux.cgroup_parent = a.cgroup_parent
        if a.log_dir is not None:
            scfg.log_directory = a.log_dir
    host_net = (scfg.linux.security_context.namespace_options.network
                == pb.NODE)
    cfg = pb.ContainerConfig(
        metadata=pb.ContainerMetadata(name=a.name, attempt=a.attempt),
        image=pb.ImageSpec(image=a.image),
        command=rest, args=a.arg or [], working_dir=a.workdir or "",
        tty=a.tty)
    for k, v in kv_list(a.env, "--env"):
        cfg.envs.add(key=k, value=v)
    for k, v in kv_list(a.label, "--label"):
        cfg.labels[k] = v
    for k, v in kv_list(a.annotation, "--annotation"):
        cfg.annotations[k] = v
    if a.log_path is not None:
        cfg.log_path = a.log_path
    elif scfg.log_directory:
        cfg.log_path = "%s_%d.log" % (a.name, a.attempt)
    cfg.linux.resources.CopyFrom(linux_resources(a))
    sc = cfg.linux.security_context
    sc.namespace_options.CopyFrom(ns_options(host_net))
    sc.privileged = a.privileged
    sc.readonly_rootfs = a.read_only
    if a.user is not None:
        sc.run_as_user.value = a.user
    resp = cli.rt("CreateContainer",
                  pb.CreateContainerRequest(pod_sandbox_id=a.pod, config=cfg,
                                            sandbox_config=scfg),
                  timeout=a.rpc_timeout)
    print(resp.container_id)


def cmd_start(cli, a, rest):
    cli.rt("StartContainer", pb.StartContainerRequest(container_id=a.id),
           timeout=a.rpc_timeout)


def cmd_stop(cli, a, rest):
    cli.rt("StopContainer",
           pb.StopContainerRequest(container_id=a.id, timeout=a.timeout),
           timeout=a.rpc_timeout + a.timeout)


def cmd_rm(cli, a, rest):
    cli.rt("RemoveContainer", pb.RemoveContainerRequest(container_id=a.id),
           timeout=a.rpc_timeout)


def container_status(cli, cid, verbose=True):
    return cli.rt("ContainerStatus",
                  pb.ContainerStatusRequest(container_id=cid, verbose=verbose))


def cmd_status(cli, a, rest):
    resp = container_status(cli, a.id, True)
    st = resp.status
    if a.verbose:
        d = to_dict(resp)
        try:
            d["info"] = {k: json.loads(v) for k, v in resp.info.items()}
        except ValueError:
            pass
        out_json(d)
        return
    res = {
        "id": st.id,
        "name": st.metadata.name,
        "state": pb.ContainerState.Name(st.state),
        "exit_code": st.exit_code,
        "reason": st.reason,
        "message": st.message,
        "created_at": st.created_at,
        "started_at": st.started_at,
        "finished_at": st.finished_at,
        "log_path": st.log_path,
        "pid": None,
    }
    if st.HasField("resources"):
        res["resources"] = to_dict(st.resources.linux)
    try:
        res["pid"] = json.loads(resp.info["info"]).get("pid")
    except (KeyError, ValueError):
        pass
    if a.field:
        if a.field not in res:
            raise CriError("unknown field %r (one of %s)"
                           % (a.field, ", ".join(sorted(res))))
        v = res[a.field]
        print(json.dumps(v) if isinstance(v, (dict, list)) else
              ("" if v is None else v))
    else:
        out_json(res)


def cmd_exec(cli, a, rest):
    if not rest:
        raise CriError("exec: no command (put it after --)")
    # ExecSync timeout 0 means no limit: give the RPC a deadline of its own
    deadline = (a.timeout + a.rpc_timeout) if a.timeout else None
    resp = cli.rt("ExecSync",
                  pb.ExecSyncRequest(container_id=a.id, cmd=rest,
                                     timeout=a.timeout),
                  timeout=deadline or 24 * 3600)
    sys.stdout.buffer.write(resp.stdout)
    sys.stdout.flush()
    sys.stderr.buffer.write(resp.stderr)
    sys.stderr.flush()
    return resp.exit_code


def cmd_update(cli, a, rest):
    r = linux_resources(a)
    if r.ByteSize() == 0:
        raise CriError("update: nothing to update")
    cli.rt("UpdateContainerResources",
           pb.UpdateContainerResourcesRequest(container_id=a.id, linux=r),
           timeout=a.rpc_timeout)


def cmd_ps(cli, a, rest):
    f = pb.ContainerFilter(pod_sandbox_id=a.pod or "")
    resp = cli.rt("ListContainers", pb.ListContainersRequest(filter=f))
    if a.quiet:
        for c in resp.containers:
            print(c.id)
        return
    out_json([{"id": c.id, "pod": c.pod_sandbox_id,
               "name": c.metadata.name,
               "state": pb.ContainerState.Name(c.state)}
              for c in resp.containers])


def cmd_pods(cli, a, rest):
    resp = cli.rt("ListPodSandbox", pb.ListPodSandboxRequest())
    if a.quiet:
        for p in resp.items:
            print(p.id)
        return
    out_json([{"id": p.id, "name": p.metadata.name,
               "namespace": p.metadata.namespace,
               "state": pb.PodSandboxState.Name(p.state),
               "runtime_handler": p.runtime_handler} for p in resp.items])


def cmd_inspectp(cli, a, rest):
    resp = cli.rt("PodSandboxStatus",
                  pb.PodSandboxStatusRequest(pod_sandbox_id=a.id,
                                             verbose=a.verbose))
    d = to_dict(resp)
    try:
        d["info"] = {k: json.loads(v) for k, v in resp.info.items()}
    except ValueError:
        pass
    if not a.verbose:
        d = {"id": resp.status.id,
             "state": pb.PodSandboxState.Name(resp.status.state),
             "runtime_handler": resp.status.runtime_handler}
    out_json(d)


def cmd_stopp(cli, a, rest):
    cli.rt("StopPodSandbox", pb.StopPodSandboxRequest(pod_sandbox_id=a.id),
           timeout=a.rpc_timeout)


def cmd_rmp(cli, a, rest):
    cli.rt("RemovePodSandbox",
           pb.RemovePodSandboxRequest(pod_sandbox_id=a.id),
           timeout=a.rpc_timeout)


def cmd_image(cli, a, rest):
    resp = cli.img("ImageStatus",
                   pb.ImageStatusRequest(image=pb.ImageSpec(image=a.image)))
    if not resp.HasField("image"):
        raise CriError("image %s: not present" % a.image)
    out_json({"id": resp.image.id, "repo_tags": list(resp.image.repo_tags),
              "size": resp.image.size})


def cmd_logs(cli, a, rest):
    """Print a container's log (CRI format: TIME STREAM TAG MSG)."""
    path = container_status(cli, a.id, False).status.log_path
    if not path:
        raise CriError("container %s has no log path" % a.id)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise CriError("%s: %s" % (path, e.strerror))
    for line in data.splitlines():
        parts = line.split(b" ", 3)
        if len(parts) < 3:
            continue
        stream, tag = parts[1].decode(), parts[2]
        if a.stream and stream != a.stream:
            continue
        msg = parts[3] if len(parts) > 3 else b""
        sys.stdout.buffer.write(msg + (b"\n" if tag == b"F" else b""))
    sys.stdout.flush()


# ---- argument parsing

def add_resources(p):
    p.add_argument("--memory", type=int, help="memory limit in bytes")
    p.add_argument("--cpu-quota", type=int)
    p.add_argument("--cpu-period", type=int)
    p.add_argument("--cpu-shares", type=int)
    p.add_argument("--cpuset-cpus")


def parser():
    ap = argparse.ArgumentParser(prog=PROG, description="minimal CRI client")
    ap.add_argument("--address", default=os.environ.get("CRI_ADDRESS"),
                    help="CRI unix socket (default $CRI_ADDRESS)")
    ap.add_argument("--rpc-timeout", type=float, default=60.0,
                    help="seconds per RPC (default 60)")
    sub = ap.add_subparsers(dest="cmd", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("version", help="runtime name and version")
    p.set_defaults(fn=cmd_version)

    p = sub.add_parser("runp", help="run a pod sandbox, print its id")
    p.add_argument("--name", required=True)
    p.add_argument("--uid", required=True)
    p.add_argument("--namespace", default="default")
    p.add_argument("--attempt", type=int, default=0)
    p.add_argument("--runtime-handler", default="",
                   help="runtimes.NAME of config.toml ('' = default)")
    p.add_argument("--cgroup-parent", default="")
    p.add_argument("--log-dir", default="",
                   help="log_directory (created if missing)")
    p.add_argument("--hostname", default="")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--host-network", action="store_true",
                   help="network namespace NODE (the default)")
    g.add_argument("--pod-network", action="store_true",
                   help="network namespace POD (needs CNI)")
    p.add_argument("--label", action="append", metavar="K=V")
    p.add_argument("--annotation", action="append", metavar="K=V")
    p.set_defaults(fn=cmd_runp)

    p = sub.add_parser("create", help="create a container, print its id")
    p.add_argument("pod")
    p.add_argument("--name", required=True)
    p.add_argument("--image", required=True)
    p.add_argument("--attempt", type=int, default=0)
    p.add_argument("--arg", action="append", help="ContainerConfig.args")
    p.add_argument("--env", action="append", metavar="K=V")
    p.add_argument("--label", action="append", metavar="K=V")
    p.add_argument("--annotation", action="append", metavar="K=V")
    p.add_argument("--workdir")
    p.add_argument("--log-path", help="relative to the pod's log_directory "
                   "(default NAME_ATTEMPT.log when the pod has one)")
    p.add_argument("--tty", action="store_true")
    p.add_argument("--privileged", action="store_true")
    p.add_argument("--read-only", action="store_true")
    p.add_argument("--user", type=int, help="run_as_user")
    add_resources(p)
    g = p.add_argument_group(
        "pod sandbox config (default: recovered from the verbose "
        "PodSandboxStatus)")
    g.add_argument("--pod-name")
    g.add_argument("--pod-uid")
    g.add_argument("--pod-namespace")
    g.add_argument("--pod-attempt", type=int, default=0)
    g.add_argument("--pod-network", action="store_true")
    g.add_argument("--cgroup-parent")
    g.add_argument("--log-dir")
    p.set_defaults(fn=cmd_create)

    for name, fn, hlp in (("start", cmd_start, "start a container"),
                          ("rm", cmd_rm, "remove a container"),
                          ("stopp", cmd_stopp, "stop a pod sandbox"),
                          ("rmp", cmd_rmp, "remove a pod sandbox")):
        p = sub.add_parser(name, help=hlp)
        p.add_argument("id")
        p.set_defaults(fn=fn)

    p = sub.add_parser("stop", help="stop a container")
    p.add_argument("id")
    p.add_argument("--timeout", type=int, default=10,
                   help="grace period in seconds before SIGKILL")
    p.set_defaults(fn=cmd_stop)

    p = sub.add_parser("status", help="container state as JSON")
    p.add_argument("id")
    p.add_argument("--field", help="print only this field")
    p.add_argument("--verbose", action="store_true",
                   help="the whole response, info included")
    p.set_defaults(fn=cmd_status)

    p = sub.add_parser("inspectp", help="pod sandbox status as JSON")
    p.add_argument("id")
    p.add_argument("--verbose", action="store_true")
    p.set_defaults(fn=cmd_inspectp)

    p = sub.add_parser("exec", help="ExecSync: CMD after --")
    p.add_argument("id")
    p.add_argument("--timeout", type=int, default=0,
                   help="seconds (0 = none)")
    p.set_defaults(fn=cmd_exec)

    p = sub.add_parser("update", help="UpdateContainerResources")
    p.add_argument("id")
    add_resources(p)
    p.set_defaults(fn=cmd_update)

    p = sub.add_parser("ps", help="list containers")
    p.add_argument("--pod")
    p.add_argument("-q", "--quiet", action="store_true")
    p.set_defaults(fn=cmd_ps)

    p = sub.add_parser("pods", help="list pod sandboxes")
    p.add_argument("-q", "--quiet", action="store_true")
    p.set_defaults(fn=cmd_pods)

    p = sub.add_parser("image", help="exit 0 when the image is present")
    p.add_argument("image")
    p.set_defaults(fn=cmd_image)

    p = sub.add_parser("logs", help="print a container's log file")
    p.add_argument("id")
    p.add_argument("--stream", choices=("stdout", "stderr"))
    p.set_defaults(fn=cmd_logs)
    return ap


def main(argv):
    rest = []
    if "--" in argv:
        i = argv.index("--")
        argv, rest = argv[:i], argv[i + 1:]
    a = parser().parse_args(argv)
    if rest and a.cmd not in ("create", "exec"):
        raise CriError("%s takes no command after --" % a.cmd)
    load_api()
    cli = Client(a.address, a.rpc_timeout)
    try:
        rc = a.fn(cli, a, rest)
    finally:
        cli.close()
    return rc or 0


def run_captured(argv):
    """main(argv) as the command line would run it: its exit status, and
    the bytes it wrote to stdout and stderr."""
    out = io.TextIOWrapper(io.BytesIO(), write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), write_through=True)
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        try:
            rc = main(argv)
        except CriError as e:
            print("%s: %s" % (PROG, e), file=sys.stderr)
            rc = 1
        except SystemExit as e:  # argparse: its message is on stderr
            if e.code is None:
                rc = 0
            elif isinstance(e.code, int):
                rc = e.code
            else:
                print(e.code, file=sys.stderr)
                rc = 1
    finally:
        sys.stdout, sys.stderr = saved
    return rc, out.buffer.getvalue(), err.buffer.getvalue()


def serve(d):
    # gone with the test script that started it, however it ends
    import ctypes
    import signal
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() == 1:
        return 1
    # read and write: opening never blocks, and the server sees no end
    # of file between two callers' writes
    requests = os.fdopen(os.open(os.path.join(d, "in"), os.O_RDWR), "rb", 0)
    for line in iter(requests.readline, b""):
        if line.strip() == b"quit":
            return 0
        with open(os.path.join(d, "args"), "rb") as f:
            argv = [a.decode() for a in f.read().split(b"\0")[:-1]]
        rc, out, err = run_captured(argv)
        with open(os.path.join(d, "stdout"), "wb") as f:
            f.write(out)
        with open(os.path.join(d, "stderr"), "wb") as f:
            f.write(err)
        fd = os.open(os.path.join(d, "out"), os.O_WRONLY)
        os.write(fd, b"%d\n" % rc)
        os.close(fd)
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        sys.exit(serve(sys.argv[2]))
    try:
        sys.exit(main(sys.argv[1:]))
    except CriError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
