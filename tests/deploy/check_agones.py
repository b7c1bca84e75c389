#!/usr/bin/python3
"""Parses and lints deploy/agones (docs/deploy.md "A fleet on Agones"): no
cluster runs here, so what Agones and Kubernetes would refuse or run wrong
is checked by hand. The kinds and API versions; TCP ports 7420 and 7421
(Agones' default is UDP); health settings; a non-root user that is the
image's; requests and limits; every mounted volume declared, /tmp writable
under a read-only root; a grace period longer than the drain; the Fleet's
template the GameServer's spec; the autoscaler on that Fleet; the
allocation's labels a session name and a world preset that exist; and the
container's arguments a command line paddockd takes (started for real, as
check_service.py does, its paths moved into a scratch folder).

usage: check_agones.py SOURCE_DIR PADDOCKD"""
import os
import re
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_service import start_it  # noqa: E402


def fail(msg):
    print(f"check_agones: {msg}", file=sys.stderr)
    sys.exit(1)


def load(src, name):
    path = os.path.join(src, "deploy", "agones", name)
    try:
        with open(path) as f:
            return yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        fail(f"{name}: {e}")


def need(cond, where, what):
    if not cond:
        fail(f"{where}: {what}")


def check_gameserver_spec(spec, where, image_uid):
    ports = spec.get("ports", [])
    need({p.get("containerPort") for p in ports} == {7420, 7421}, where, "container ports 7420 and 7421")
    for p in ports:
        need(p.get("protocol") == "TCP", where, f"port {p.get('name')} must say protocol TCP")
    health = spec.get("health", {})
    for k in ("initialDelaySeconds", "periodSeconds", "failureThreshold"):
        need(isinstance(health.get(k), int) and health[k] > 0, where, f"health.{k} a positive int")
    pod = spec["template"]["spec"]
    sc = pod.get("securityContext", {})
    need(sc.get("runAsNonRoot") is True, where, "runAsNonRoot: true")
    need(sc.get("runAsUser") == image_uid, where, f"runAsUser {image_uid}, the image's user")
    containers = pod.get("containers", [])
    need(len(containers) == 1, where, "one container")
    c = containers[0]
    res = c.get("resources", {})
    need(res.get("requests", {}).get("cpu") and res.get("limits", {}).get("memory"), where,
         "resources: requests and limits")
    args = [str(a) for a in c.get("args", [])]
    need("--agones" in args, where, "--agones in args")
    need("--drain-seconds" in args, where, "--drain-seconds in args")
    drain = float(args[args.index("--drain-seconds") + 1])
    need(pod.get("terminationGracePeriodSeconds", 30) > drain + 5, where,
         f"terminationGracePeriodSeconds past the {drain:g} s drain (and the flush after it)")
    volumes = {v["name"] for v in pod.get("volumes", [])}
    mounts = {m["mountPath"]: m["name"] for m in c.get("volumeMounts", [])}
    for path, name in mounts.items():
        need(name in volumes, where, f"the volume {name} mounted at {path} is declared")
    if c.get("securityContext", {}).get("readOnlyRootFilesystem"):
        need("/tmp" in mounts, where, "a read-only root needs /tmp mounted (SQLite's scratch)")
    for flag in ("--db", "--agones-export"):
        if flag in args:
            value = args[args.index(flag) + 1]
            need(any(value.startswith(m + "/") for m in mounts), where, f"{flag} {value} on a volume")
    return args


def main():
    if len(sys.argv) != 3:
        fail(__doc__.splitlines()[-1])
    src, paddockd = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with open(os.path.join(src, "deploy", "Dockerfile")) as f:
        m = re.search(r"useradd .*--uid (\d+)", f.read())
    need(m, "deploy/Dockerfile", "a useradd --uid")
    uid = int(m.group(1))

    gs = load(src, "gameserver.yaml")
    need(gs.get("apiVersion") == "agones.dev/v1" and gs.get("kind") == "GameServer",
         "gameserver.yaml", "apiVersion agones.dev/v1, kind GameServer")
    args = check_gameserver_spec(gs["spec"], "gameserver.yaml", uid)

    fleet = load(src, "fleet.yaml")
    need(fleet.get("apiVersion") == "agones.dev/v1" and fleet.get("kind") == "Fleet",
         "fleet.yaml", "apiVersion agones.dev/v1, kind Fleet")
    need(fleet["spec"]["template"]["spec"] == gs["spec"], "fleet.yaml",
         "its template's spec is gameserver.yaml's spec")
    need(isinstance(fleet["spec"].get("replicas"), int), "fleet.yaml", "replicas")

    fas = load(src, "fleetautoscaler.yaml")
    need(fas.get("apiVersion") == "autoscaling.agones.dev/v1" and fas.get("kind") == "FleetAutoscaler",
         "fleetautoscaler.yaml", "apiVersion autoscaling.agones.dev/v1, kind FleetAutoscaler")
    need(fas["spec"]["fleetName"] == fleet["metadata"]["name"], "fleetautoscaler.yaml",
         "fleetName is the Fleet's name")
    buf = fas["spec"]["policy"]["buffer"]
    need(0 < buf["minReplicas"] <= buf["maxReplicas"] and buf["bufferSize"] <= buf["maxReplicas"],
         "fleetautoscaler.yaml", "bufferSize <= maxReplicas, 0 < minReplicas <= maxReplicas")

    alloc = load(src, "allocation.yaml")
    need(alloc.get("apiVersion") == "allocation.agones.dev/v1" and alloc.get("kind") == "GameServerAllocation",
         "allocation.yaml", "apiVersion allocation.agones.dev/v1, kind GameServerAllocation")
    sel = alloc["spec"]["selectors"][0]["matchLabels"]
    need(sel.get("agones.dev/fleet") == fleet["metadata"]["name"], "allocation.yaml",
         "selects the Fleet by agones.dev/fleet")
    labels = alloc["spec"]["metadata"]["labels"]
    session, world = labels.get("paddock.dev/session", ""), labels.get("paddock.dev/world", "flat")
    need(0 < len(session) <= 64, "allocation.yaml", "a paddock.dev/session label of 1..64 bytes")
    need(os.path.exists(os.path.join(src, "presets", "worlds", world + ".json")), "allocation.yaml",
         f"paddock.dev/world {world} is a world preset")

    with tempfile.TemporaryDirectory(prefix="pdk-agones-") as tmp:
        start_it(src, paddockd, ["paddockd", "serve"] + args, tmp, "the GameServer's container")
    print("check_agones: GameServer, Fleet, FleetAutoscaler and GameServerAllocation lint clean; "
          "the container's command starts and stops cleanly")


if __name__ == "__main__":
    main()
