#!/usr/bin/python3
"""Writes the dashboard's catalog.json at build time: the world and vehicle
presets the page offers (from presets/), each world's terrain for the map
(surface, patches, ramps, bumps), each vehicle's steering lock and brake
line limit (the full scale of the page's steering and brake), and the
telemetry channels `paddockd channels` lists (the plot picker's choices).

The protocol has no request that lists presets, so the page reads them from
this file, made from the same presets/ the build's paddockd serves by
default (docs/adr/0025-dashboard-static-page.md).

usage: catalog.py PRESETS_DIR PADDOCKD OUT.json
"""
import json
import os
import subprocess
import sys


def value(v):
    """A preset number, bare or as {"value": ..., "basis": ...}."""
    if isinstance(v, dict):
        return v.get("value")
    return v


def load(path):
    with open(path, encoding="utf-8") as f:
        try:
            return json.load(f)
        except json.JSONDecodeError as e:
            sys.exit(f"catalog.py: {path}: not JSON: {e}")


def documents(presets, kind):
    """(name, path, document) of each preset of kind, in name order."""
    folder = os.path.join(presets, kind)
    for file in sorted(os.listdir(folder)):
        if file.endswith(".json"):
            path = os.path.join(folder, file)
            yield file[:-5], path, load(path)


def worlds(presets):
    out = {}
    for name, _, doc in documents(presets, "worlds"):
        terrain = doc.get("terrain", {})
        out[name] = {
            "description": doc.get("description", ""),
            "terrain": {
                "surface": terrain.get("surface", "tarmac"),
                "patches": terrain.get("patches", []),
                "ramps": terrain.get("ramps", []),
                "bumps": terrain.get("bumps", []),
            },
        }
    return out


def vehicles(presets):
    out = {}
    for name, path, doc in documents(presets, "vehicles"):
        lock = value(doc.get("steering", {}).get("lockDeg"))
        bar = value(doc.get("brakes", {}).get("maxLineBar"))
        if not isinstance(lock, (int, float)) or not isinstance(bar, (int, float)):
            sys.exit(f"catalog.py: {path}: steering.lockDeg and brakes.maxLineBar must be numbers "
                     f"(found {lock!r} and {bar!r})")
        out[name] = {"description": doc.get("description", ""), "lockDeg": lock,
                          "maxLineBar": bar}
    return out


def channels(paddockd):
    text = subprocess.run([paddockd, "channels"], check=True, capture_output=True,
                          text=True).stdout
    rows = []
    for line in text.splitlines()[1:]:
        parts = line.split(None, 2)
        if len(parts) >= 2:
            rows.append({"name": parts[0], "unit": parts[1],
                         "description": parts[2] if len(parts) > 2 else ""})
    if not rows:
        sys.exit(f"catalog.py: `{paddockd} channels` listed no channels")
    return rows


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-1])
    presets, paddockd, out = sys.argv[1:]
    catalog = {"worlds": worlds(presets), "vehicles": vehicles(presets),
               "channels": channels(paddockd)}
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(catalog, f, indent=1)
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
