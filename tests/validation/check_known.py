#!/usr/bin/python3
"""Runs `paddockd validate` and holds its failing rows to the list of known
failures (tests/validation/known_failures.txt): the run passes when exactly
the listed rows fail. A row that fails and is not listed is a regression; a
listed row that passes is fixed, and the list must lose it. Either fails the
check, naming the rows.

Usage: check_known.py PADDOCKD PRESETS_DIR KNOWN_FILE [validate options...]

The list is for the run ctest makes (the fast subset, every preset): a
listed row the run does not make is stale too. The list holds the defects the suite has found and not yet fixed, each with
why; docs/validation.md shows them all. An empty list is the goal.
"""
import json
import os
import subprocess
import sys
import tempfile


def key(preset, row):
    return f"{preset} | {row['maneuver']} | {row['figure']}"


def read_known(path):
    """{key: why} from lines 'preset | maneuver | figure | why'."""
    known = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split("|")]
            if len(parts) != 4 or not all(parts):
                sys.exit(f"{path}:{n}: expected 'preset | maneuver | figure | why', got: {line}")
            known[" | ".join(parts[:3])] = parts[3]
    return known


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    paddockd, presets, known_path = sys.argv[1:4]
    known = read_known(known_path)
    with tempfile.TemporaryDirectory() as out:
        cmd = [paddockd, "validate", "--presets", presets, "--out", out] + sys.argv[4:]
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        results = os.path.join(out, "results.json")
        if not os.path.exists(results):
            print(run.stdout)
            sys.exit(f"paddockd validate wrote no results (exit {run.returncode})")
        with open(results, encoding="utf-8") as f:
            doc = json.load(f)
    failed, passed = set(), set()
    for p in doc["presets"]:
        for row in p["rows"]:
            (failed if row["verdict"] == "FAIL" else passed).add(key(p["name"], row))
    new = sorted(failed - set(known))
    fixed = sorted(k for k in known if k in passed)
    absent = sorted(k for k in known if k not in passed and k not in failed)
    for k in new:
        print(f"FAIL, not a known failure: {k}")
    for k in fixed:
        print(f"passes now, take it off {os.path.basename(known_path)}: {k}")
    for k in absent:
        print(f"no such row in this run, take it off {os.path.basename(known_path)}: {k}")
    print(f"{len(failed)} rows failed, all known" if not new else f"{len(new)} new failures",
          f"({len(known)} known, {len(fixed)} of them fixed)")
    sys.exit(1 if new or fixed or absent else 0)


if __name__ == "__main__":
    main()
