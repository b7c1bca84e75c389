#!/usr/bin/python3
"""Runs `paddockd validate` into a temporary folder and writes its report:
docs/validation.md (a table per preset, the convergence table, how to rerun),
one PNG of plots per preset in docs/validation/, and the generated blocks of
docs/presets.md's data sheets (between <!-- validation:NAME --> markers, so a
rerun replaces them). Exits 1 when a row fails, as the command does.

    /usr/bin/python3 tests/validation/report.py [--paddockd build/bin/paddockd]
        [--jobs 2] [--fast] [--preset P]...

Needs matplotlib (Debian's python3-matplotlib) and nothing else."""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def fmt(v, digits=4):
    if v is None:
        return "-"
    if isinstance(v, float) and abs(v) >= 1000:
        return f"{v:.0f}"
    return f"{v:.{digits}g}"


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head, body = rows[0], rows[1:]
    cols = {h: [float(r[i]) for r in body] for i, h in enumerate(head)}
    return cols


def esc(text):
    return text.replace("|", "\\|")


def preset_table(p):
    out = ["| maneuver | figure | value | reference | criterion | result |",
           "|---|---|---|---|---|---|"]
    for r in p["rows"]:
        if r["maneuver"] == "convergence":
            continue
        value = "-" if r["value"] is None else f"{fmt(r['value'])} {r['unit']}"
        ref = "" if r["reference"] is None else f"{fmt(r['reference'])} {r['unit']}: "
        result = r["verdict"]
        if r["verdict"] == "FAIL":
            miss = r["miss"]
            result = "**FAIL**" + ("" if miss is None else f" by {100 * miss:.3g} %")
        note = f"<br>{esc(r['note'])}" if r["note"] else ""
        out.append(f"| {esc(r['maneuver'])} | {esc(r['figure'])}{note} | {value} | "
                   f"{esc(ref + r['reference_text'])} | {r['criterion']} | {result} |")
    return out


def convergence_table(results):
    subs = sorted(results["substeps"])
    out = ["| preset | figure | " + " | ".join(f"{s} substeps" for s in subs) +
           " | difference | result |",
           "|---|---|" + "---|" * len(subs) + "---|---|"]
    for p in results["presets"]:
        by_fig = {f"{r['maneuver']}: {r['figure']}": r for r in p["rows"]}
        for r in p["rows"]:
            if r["maneuver"] != "convergence":
                continue
            src = by_fig.get(r["figure"])
            vals = [fmt(src["by_substeps"].get(str(s))) if src else "-" for s in subs]
            result = r["verdict"] if r["verdict"] != "FAIL" else "**FAIL**"
            out.append(f"| {p['name']} | {esc(r['figure'])} | " + " | ".join(vals) +
                       f" | {fmt(r['value'], 3)} % | {result} |")
    return out


def plot(p, tmp, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    traces = {t["name"]: os.path.join(tmp, t["file"]) for t in p["traces"]}
    fig, axes = plt.subplots(2, 3, figsize=(12, 7))
    fig.suptitle(f"{p['name']}: paddockd validate")
    ax = axes[0][0]
    if "circle" in traces:
        c = read_csv(traces["circle"])
        ax.plot(c["ay_mps2"], [57.29578 * v for v in c["us_rad"]], lw=0.8)
        ax.set_xlabel("lateral acceleration, m/s²")
        ax.set_ylabel("road-wheel steer − L/R, deg")
    ax.set_title("steady-state circle R 100 m")
    ax = axes[0][1]
    if "step_steer" in traces:
        c = read_csv(traces["step_steer"])
        ax.plot(c["t_s"], [57.29578 * v for v in c["yaw_rate_radps"]], lw=0.8)
        ax.set_xlabel("time from the step, s")
        ax.set_ylabel("yaw rate, deg/s")
    ax.set_title("step steer 80 km/h")
    ax = axes[0][2]
    for name, path in sorted(traces.items()):
        if name.startswith("brake_"):
            c = read_csv(path)
            ax.plot(c["distance_m"], [3.6 * v for v in c["speed_mps"]], lw=0.8,
                    label=name[len("brake_"):], ls="-" if "_abs_" in name else "--")
    ax.set_xlabel("distance, m")
    ax.set_ylabel("speed, km/h")
    ax.set_title("braking from 100 km/h (dashed: locked)")
    if ax.lines:
        ax.legend(fontsize=5, ncol=2)
    ax = axes[1][0]
    if "launch" in traces:
        c = read_csv(traces["launch"])
        ax.plot(c["t_s"], [3.6 * v for v in c["speed_mps"]], lw=0.8)
        ax.set_xlabel("time, s")
        ax.set_ylabel("speed, km/h")
    ax.set_title("full throttle from rest")
    ax = axes[1][1]
    if "lane_change" in traces:
        c = read_csv(traces["lane_change"])
        ax.plot(c["x_m"], c["y_m"], lw=0.8)
        if "lane_change_cones" in traces:
            k = read_csv(traces["lane_change_cones"])
            for i in range(0, len(k["x_m"]), 2):
                xs = k["x_m"][i:i + 2]
                for side in ("y_right_m", "y_left_m"):
                    ax.plot(xs, k[side][i:i + 2], "o", color="tab:orange", ms=2)
        ax.set_xlabel("x, m")
        ax.set_ylabel("y, m")
    ax.set_title("double lane change (ISO 3888-1), fastest pass")
    ax = axes[1][2]
    for name, path in sorted(traces.items()):
        if name.startswith("creep_"):
            c = read_csv(path)
            ax.plot(c["t_s"], [1e3 * v for v in c["displacement_m"]], lw=0.8,
                    label=name[len("creep_"):])
    ax.axhline(1.0, color="k", lw=0.5, ls=":")
    ax.set_xlabel("time, s")
    ax.set_ylabel("CG moved, mm")
    ax.set_title("held on the 30 % slope")
    if ax.lines[1:]:
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(png, dpi=72)
    plt.close(fig)


def row(p, maneuver, start):
    for r in p["rows"]:
        if r["maneuver"] == maneuver and r["figure"].startswith(start):
            return r
    return None


def sheet_block(p):
    """What the car does against the simple analytic value, for presets.md."""
    lines = [f"<!-- validation:{p['name']} begin: generated by tests/validation/report.py "
             "from paddockd validate; a rerun replaces it -->",
             "",
             "Measured by `paddockd validate` (docs/validation.md): what the car does, the "
             "simple analytic value beside it and why they differ.",
             "",
             "| figure | the car | analytic | the difference |",
             "|---|---|---|---|"]
    us = row(p, "circle R100", "understeer gradient, road wheel")
    bic = row(p, "circle R100", "understeer gradient against the bicycle")
    if us and us["value"] is not None:
        lines.append(f"| understeer gradient (R 100 m, 0.5-4 m/s²) | {fmt(us['value'], 3)} deg/g | "
                     f"bicycle {fmt(bic['reference'] if bic else None, 3)} deg/g; four-wheel "
                     f"{fmt(us['reference'], 3)} deg/g | {esc(us['note'])} |")
    for maneuver, start, label in (("launch", "0-", None),
                                   ("launch", "top speed", "top speed from rest"),
                                   ("brake locked tarmac", "100-0", "100-0 km/h locked, tarmac"),
                                   ("brake ABS tarmac", "100-0", "100-0 km/h ABS, tarmac"),
                                   ("tilt table", "rollover", "tilt-table angle, stiff variant"),
                                   ("lane change", "highest", "ISO 3888-1 lane change")):
        r = row(p, maneuver, start)
        if r is None or r["verdict"] == "n/a":
            continue
        label = label or r["figure"]
        lines.append(f"| {label} | {fmt(r['value'])} {r['unit']} | "
                     f"{fmt(r['reference'])} {r['unit']}: {esc(r['reference_text'])} | "
                     f"{esc(r['note']) or r['criterion']} ({r['verdict']}) |")
    lines += ["", f"<!-- validation:{p['name']} end -->"]
    return "\n".join(lines)


def update_presets_md(results):
    path = os.path.join(ROOT, "docs", "presets.md")
    text = open(path).read()
    for p in results["presets"]:
        block = sheet_block(p)
        pat = re.compile(rf"<!-- validation:{re.escape(p['name'])} begin.*?"
                         rf"<!-- validation:{re.escape(p['name'])} end -->", re.S)
        if pat.search(text):
            text = pat.sub(lambda m: block, text)
            continue
        head = f"### vehicles/{p['name']}\n"
        i = text.find(head)
        if i < 0:
            continue
        j = text.find("\n### ", i + len(head))
        j = len(text) if j < 0 else j
        text = text[:j].rstrip("\n") + "\n\n" + block + "\n" + text[j:]
    open(path, "w").write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--paddockd", default=os.path.join(ROOT, "build", "bin", "paddockd"))
    ap.add_argument("--jobs", default="2")
    ap.add_argument("--fast", action="store_true")
    ap.add_argument("--preset", action="append", default=[])
    ap.add_argument("--substeps", default="2,8,1,4")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [args.paddockd, "validate", "--jobs", args.jobs, "--out", tmp,
               "--substeps", args.substeps, "--presets", os.path.join(ROOT, "presets")]
        cmd += ["--fast"] if args.fast else []
        for p in args.preset:
            cmd += ["--preset", p]
        done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        sys.stdout.write(done.stdout)
        if done.returncode not in (0, 1):
            print(f"report.py: {' '.join(cmd)} exited {done.returncode}", file=sys.stderr)
            return 2
        with open(os.path.join(tmp, "results.json")) as f:
            results = json.load(f)
        pngdir = os.path.join(ROOT, "docs", "validation")
        os.makedirs(pngdir, exist_ok=True)
        failed = 0
        md = ["# Validation", "",
              "Generated by `tests/validation/report.py` from `paddockd validate"
              + (" --fast" if results["fast"] else "") + "`; do not edit by hand. Each preset "
              "in `presets/vehicles` runs the standard maneuvers in-process on the real sim "
              "(docs/paddockd.md, \"validate\", describes each maneuver, its reference and its "
              "criterion). A row that fails is a defect the suite found, not a criterion to "
              "relax.", "",
              "Rerun: `cmake --build build -j2 && /usr/bin/python3 tests/validation/report.py` "
              f"(the run took {results['wall_s']:.0f} s of wall time with `--jobs {args.jobs}`); "
              "the command alone: `build/bin/paddockd validate [--preset P]... [--fast] "
              "[--jobs N] [--out DIR]`. CI runs the fast subset (`ctest -R validation_fast`).",
              ""]
        summary = ["| preset | rows | passed | failed | not applicable |", "|---|---|---|---|---|"]
        for p in results["presets"]:
            n = {v: sum(1 for r in p["rows"] if r["verdict"] == v)
                 for v in ("pass", "FAIL", "n/a", "info")}
            failed += n["FAIL"]
            summary.append(f"| [{p['name']}](#{p['name']}) | {len(p['rows'])} | {n['pass']} | "
                           f"{n['FAIL']} | {n['n/a']} |")
        md += summary + [""]
        for p in results["presets"]:
            png = os.path.join(pngdir, f"{p['name']}.png")
            plot(p, tmp, png)
            md += [f"## {p['name']}", "", f"![{p['name']}](validation/{p['name']}.png)", ""]
            md += preset_table(p) + [""]
        md += ["## Convergence", "",
               f"Each converging figure at {', '.join(str(s) for s in sorted(results['substeps']))} "
               "substeps; the difference is between the default (2) and four times as many "
               "(8), at most 0.5 %.", ""]
        md += convergence_table(results) + [""]
        with open(os.path.join(ROOT, "docs", "validation.md"), "w") as f:
            f.write("\n".join(md))
        update_presets_md(results)
    print(f"report.py: docs/validation.md, docs/validation/*.png, docs/presets.md; "
          f"{failed} rows failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
