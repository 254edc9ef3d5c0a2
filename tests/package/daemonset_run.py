#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""`docker run` arguments for a container of packaging/daemonset.yaml, so the
image test runs exactly what the manifest asks for (capabilities, user,
read-only root, hostPID, mounts and their propagation, limits, args).

  daemonset_run.py MANIFEST CONTAINER HOSTDIR CONFIGDIR [HOSTPATH=DIR...]
                                                (NUL-separated args)
  daemonset_run.py MANIFEST CONTAINER --probe    (the liveness command)

A hostPath given as HOSTPATH=DIR is DIR; others outside /sys are moved under
HOSTDIR (the test never writes the host's /var/log); a configMap volume is
CONFIGDIR. A setting this script does
not know makes it fail: the test must not silently run less than the manifest.
"""
import os
import sys

import yaml

PROPAGATION = {"HostToContainer": "rslave", "Bidirectional": "rshared", "None": "rprivate"}


def die(msg):
    sys.exit("daemonset_run.py: " + msg)


def pod_and_container(path, name):
    with open(path) as f:
        pod = yaml.safe_load(f)["spec"]["template"]["spec"]
    for c in pod.get("initContainers", []) + pod["containers"]:
        if c["name"] == name:
            return pod, c
    die("no container %r in %s" % (name, path))


def security_args(sc):
    args = []
    for key, val in sc.items():
        if key == "capabilities":
            args += ["--cap-drop=" + c for c in val.get("drop", [])]
            args += ["--cap-add=" + c for c in val.get("add", [])]
        elif key == "readOnlyRootFilesystem":
            args += ["--read-only"] if val else []
        elif key == "runAsUser":
            args += ["--user=%d" % val]
        elif key == "privileged":
            args += ["--privileged"] if val else []
        elif key == "seccompProfile" and val == {"type": "RuntimeDefault"}:
            pass  # docker's default profile
        else:
            die("securityContext %s: %r not mirrored" % (key, val))
    return args


def volume_source(vol, hostdir, configdir, mapped):
    if "configMap" in vol:
        return configdir
    hp = vol.get("hostPath")
    if not hp:
        die("volume %s: only hostPath and configMap are mirrored" % vol["name"])
    path = hp["path"]
    if path in mapped:
        return mapped[path]
    if path.startswith("/sys/"):
        if not os.path.isdir(path):
            die("hostPath %s is not a directory here" % path)
        return path
    src = hostdir + path
    if hp.get("type") == "DirectoryOrCreate":
        os.makedirs(src, exist_ok=True)
    elif not os.path.isdir(src):
        die("hostPath %s (%s) does not exist" % (path, src))
    return src


def mount_args(pod, c, hostdir, configdir, mapped):
    vols = {v["name"]: v for v in pod.get("volumes", [])}
    args = []
    for m in c.get("volumeMounts", []):
        unknown = set(m) - {"name", "mountPath", "readOnly", "mountPropagation"}
        if unknown:
            die("volumeMount %s: %s not mirrored" % (m["name"], sorted(unknown)))
        opts = ["ro"] if m.get("readOnly") else []
        if "mountPropagation" in m:
            opts.append(PROPAGATION[m["mountPropagation"]])
        src = volume_source(vols[m["name"]], hostdir, configdir, mapped)
        spec = "type=bind,source=%s,target=%s" % (src, m["mountPath"])
        if "ro" in opts:
            spec += ",readonly"
        prop = [o for o in opts if o != "ro"]
        if prop:
            spec += ",bind-propagation=" + prop[0]
        args.append("--mount=" + spec)
    return args


def limit_args(c):
    lim = c.get("resources", {}).get("limits", {})
    args = []
    cpu = lim.get("cpu")
    if cpu is not None:
        cpu = str(cpu)
        args.append("--cpus=%g" % (int(cpu[:-1]) / 1000 if cpu.endswith("m") else float(cpu)))
    mem = lim.get("memory")
    if mem is not None:
        units = {"Ki": "k", "Mi": "m", "Gi": "g"}
        args.append("--memory=" + (mem[:-2] + units[mem[-2:]] if mem[-2:] in units else str(mem)))
    return args


def main():
    manifest, name = sys.argv[1], sys.argv[2]
    pod, c = pod_and_container(manifest, name)
    if sys.argv[3] == "--probe":
        sys.stdout.write("\0".join(c["livenessProbe"]["exec"]["command"]) + "\0")
        return
    hostdir, configdir = sys.argv[3], sys.argv[4]
    mapped = dict(a.split("=", 1) for a in sys.argv[5:])
    args = ["--pid=host"] if pod.get("hostPID") else []
    args += security_args(c.get("securityContext", {}))
    args += mount_args(pod, c, hostdir, configdir, mapped)
    args += limit_args(c)
    cmd = c.get("command", [])
    if cmd:
        args.append("--entrypoint=" + cmd[0])
    args.append(c["image"])
    args += cmd[1:] + c.get("args", [])
    sys.stdout.write("\0".join(args) + "\0")


main()
