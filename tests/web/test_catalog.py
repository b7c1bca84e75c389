#!/usr/bin/python3
"""clients/web/catalog.py against the real presets and paddockd, and its
refusals: a preset that is not JSON, a vehicle without a numeric steering
lock, each named with its file. ctest passes PADDOCKD and PADDOCK_SOURCE_DIR."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SOURCE = os.environ["PADDOCK_SOURCE_DIR"]
PADDOCKD = os.environ["PADDOCKD"]
CATALOG = os.path.join(SOURCE, "clients", "web", "catalog.py")


def run(presets, out):
    return subprocess.run(["/usr/bin/python3", CATALOG, presets, PADDOCKD, out],
                          capture_output=True, text=True)


def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "catalog.json")
    r = run(os.path.join(SOURCE, "presets"), out)
    check(r.returncode == 0, f"catalog.py on presets/ failed: {r.stderr}")
    cat = json.load(open(out))
    def preset(kind, name):
        return json.load(open(os.path.join(SOURCE, "presets", kind, name + ".json")))
    sedan = preset("vehicles", "midsize_sedan")
    check(cat["vehicles"]["midsize_sedan"]["lockDeg"] == sedan["steering"]["lockDeg"],
          "midsize_sedan's lock is its preset's")
    ranger = preset("vehicles", "polaris_ranger")["brakes"]["maxLineBar"]
    check(isinstance(ranger, dict) and cat["vehicles"]["polaris_ranger"]["maxLineBar"] == ranger["value"],
          "a {value: ...} number is read: polaris_ranger's brake limit")
    check(cat["worlds"]["hill"]["terrain"]["ramps"] == preset("worlds", "hill")["terrain"]["ramps"],
          "hill's ramps are its preset's")
    check(set(cat["vehicles"]) == {f[:-5] for f in os.listdir(os.path.join(SOURCE, "presets", "vehicles"))
                                   if f.endswith(".json")}, "every vehicle preset is listed")
    names = [c["name"] for c in cat["channels"]]
    check("Speed" in names and "EngineRPM" in names, f"the channels include Speed and EngineRPM: {names[:5]}")
    check(names[0] != "channel", "the header line is not a channel")

    bad = os.path.join(tmp, "bad")
    shutil.copytree(os.path.join(SOURCE, "presets"), bad)
    with open(os.path.join(bad, "worlds", "broken.json"), "w") as f:
        f.write("{ not json")
    r = run(bad, out)
    check(r.returncode != 0 and "broken.json: not JSON" in r.stderr, f"a broken world is named: {r.stderr}")

    os.remove(os.path.join(bad, "worlds", "broken.json"))
    doc = json.load(open(os.path.join(bad, "vehicles", "kart.json")))
    del doc["steering"]["lockDeg"]
    json.dump(doc, open(os.path.join(bad, "vehicles", "kart.json"), "w"))
    r = run(bad, out)
    check(r.returncode != 0 and "kart.json: steering.lockDeg and brakes.maxLineBar must be numbers" in r.stderr,
          f"a vehicle without a lock is named: {r.stderr}")
print("ok: catalog.py reads presets and channels and names a bad preset")
