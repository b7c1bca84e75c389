#!/usr/bin/python3
"""Checks the layout rules of issue 24 over the source tree (not the build).

Usage: layout_rules.py [SOURCE_DIR]   (default: two folders up from here)

Prints every broken rule as "path:line: rule N: what" and exits 1 when
there is one. Each rule is one function below; they read the tree only.
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", ".."))
SIM = "server/sim"
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
violations = []


def report(path, line, rule, what):
    violations.append(f"{path}:{line}: rule {rule}: {what}")


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
        return f.read()


def c_files(folder):
    """Every .c and .h file under folder, as paths relative to ROOT."""
    out = []
    for d, subdirs, names in os.walk(os.path.join(ROOT, folder)):
        subdirs.sort()
        out += [os.path.relpath(os.path.join(d, n), ROOT)
                for n in sorted(names) if n.endswith((".c", ".h"))]
    return out


def includes(path):
    """(line number, '<' or '"', name) for each #include line of a file."""
    return [(i, m.group(1), m.group(2))
            for i, text in enumerate(read(path).splitlines(), 1)
            if (m := INCLUDE_RE.match(text))]


def find_cycle(graph):
    """One cycle of a {node: {node: (path, line, why)}} graph as a node list, or None."""
    state = {}

    def visit(v, trail):
        state[v] = 1
        trail.append(v)
        for w in sorted(graph.get(v, {})):
            if state.get(w) == 1:
                return trail[trail.index(w):] + [w]
            if w not in state and (c := visit(w, trail)):
                return c
        trail.pop()
        state[v] = 2
        return None

    for v in sorted(graph):
        if v not in state and (c := visit(v, [])):
            return c
    return None


def report_cycles(graph, rule, what):
    """Reports each cycle of graph once, cutting one edge until none is left."""
    while c := find_cycle(graph):
        path, line, _ = graph[c[0]][c[1]]
        hops = "".join(f" -> {b} ({graph[a][b][2]})" for a, b in zip(c, c[1:]))
        report(path, line, rule, f"{what}: {c[0]}{hops}")
        del graph[c[0]][c[1]]


def strip_comments(s):
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: "\n" * m.group(0).count("\n"), s, flags=re.S)


def rule1_app_include_circle():
    """No circle among server/app's files, through the headers each file includes."""
    # A .c file leans on another when a header it includes (directly or through
    # app's other headers) declares a function the other defines and it calls
    # that function: two .c files sharing one *_internal.h and calling each
    # other are the circle issue 24 names, which the bare header graph misses.
    files = c_files("server/app")
    local = {os.path.basename(f): f for f in files}  # pdk_app's include dir is server/app
    func_re = re.compile(r"^[A-Za-z_][\w \*]*?\b(\w+)\s*\(", re.M)
    defined, declared = {}, {}  # function -> its .c; header -> its functions
    for f in files:
        body = strip_comments(read(f))
        for m in func_re.finditer(body):
            if f.endswith(".h"):
                declared.setdefault(f, set()).add(m.group(1))
            elif not body[m.start():m.end()].startswith("static"):
                depth, i = 1, m.end()
                while i < len(body) and depth:  # to the closing parenthesis
                    depth += {"(": 1, ")": -1}.get(body[i], 0)
                    i += 1
                if body[i:].lstrip().startswith("{"):
                    defined[m.group(1)] = f
    graph = {}
    for f in (f for f in files if f.endswith(".c")):
        used = set(re.findall(r"\w+", strip_comments(read(f))))
        todo = [(local[n], line) for line, _, n in includes(f) if n in local]
        seen = set()
        while todo:  # the headers f reaches, each with the include line of f that brings it
            h, line = todo.pop(0)
            if h in seen:
                continue
            seen.add(h)
            for fn in sorted(declared.get(h, set()) & used):
                if defined.get(fn, f) != f:
                    graph.setdefault(f, {}).setdefault(defined[fn], (f, line, f"calls {fn}"))
            todo += [(local[n], line) for _, _, n in includes(h) if n in local]
    report_cycles(graph, 1, "server/app's files call each other in a circle")


def sim_part(path, name):
    """The sim folder an include of name from path reaches, or None outside the private parts."""
    for base in (os.path.dirname(path), SIM, SIM + "/include"):  # as the compiler looks
        full = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(ROOT, full)):
            rel = os.path.relpath(full, SIM)
            if rel.startswith(("..", "include/")):
                return None  # outside sim, or its public contract
            # Any folder of sim but include/ is a part (vehicle, tyre, ...).
            return rel.split("/")[0] if "/" in rel else "(top)"
    return None  # a system or generated header


def rule2_sim_folder_circle():
    """No include circle between sim's subfolders and its top except through include/sim/."""
    graph = {}
    for f in c_files(SIM):
        rel = os.path.relpath(f, SIM)
        if rel.startswith("include/"):
            continue
        src = rel.split("/")[0] if "/" in rel else "(top)"
        for line, kind, name in includes(f):
            dst = sim_part(f, name) if kind == '"' else None
            if dst and dst != src:
                graph.setdefault(src, {}).setdefault(dst, (f, line, f'{f}:{line} "{name}"'))
    report_cycles(graph, 2, "sim's folders include each other in a circle")


def private_sim_header(path, name):
    """Whether an include of name from path reaches a header of sim outside include/."""
    sim = os.path.join(ROOT, SIM)
    for base in (os.path.join(ROOT, os.path.dirname(path)), sim):
        full = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(full) and full.startswith(sim + os.sep):
            return not full.startswith(os.path.join(sim, "include") + os.sep)
    return False


def rule3_only_public_sim_outside():
    """Outside sim (server/, clients/, tests/integration/) only sim/... headers are included."""
    for folder in ("server", "clients", "tests/integration"):
        for f in c_files(folder):
            if f.startswith(SIM + "/"):
                continue
            for line, _, name in includes(f):
                if private_sim_header(f, name):
                    report(f, line, 3, f'includes sim\'s private header "{name}"; '
                           'use a public one from server/sim/include/sim/')


def rule4_public_headers_closed():
    """A public sim header includes only system headers and other sim/ headers."""
    for f in c_files(SIM + "/include/sim"):
        for line, kind, name in includes(f):
            if kind == '"' and not name.startswith("sim/"):
                report(f, line, 4, f'public header includes "{name}", neither a system '
                       'nor a sim/ header')


def rule5_protobuf_in_wire_only():
    """Among server/'s files only server/wire includes protobuf-c or a *.pb-c.h."""
    for f in c_files("server"):
        if f.startswith("server/wire/"):
            continue
        for line, _, name in includes(f):
            if name.startswith("protobuf-c/") or name.endswith(".pb-c.h"):
                report(f, line, 5, f'includes "{name}"; only server/wire may use protobuf-c')


CITATION_RE = re.compile(r"\bseeds?[ _-]?00\d|\bseeds/|\breference/[\w./-]*?\.md", re.I)


def rule6_no_outside_citation():
    """No file cites a seed (seed 00N, seeds/) or a reference/*.md outside the repository."""
    for d, subdirs, names in os.walk(ROOT):
        rel = os.path.relpath(d, ROOT)
        subdirs[:] = sorted(s for s in subdirs if s != ".git"
                            and os.path.join(rel, s) not in ("tests/lint", "./tests/lint")
                            and not os.path.exists(os.path.join(d, s, "CMakeCache.txt")))
        for n in sorted(names):
            path = os.path.normpath(os.path.join(rel, n))
            with open(os.path.join(d, n), "rb") as f:
                data = f.read()
            if b"\0" in data[:8192]:
                continue  # binary (fixture databases)
            for i, text in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
                for m in CITATION_RE.finditer(text):
                    report(path, i, 6, f'cites "{m.group(0)}", a document outside '
                           'the repository')


def rule7_adr_is_a_decision():
    """Each ADR has Context, Decision and Consequences headings and at most 250 lines."""
    adr = "docs/adr"
    for n in sorted(os.listdir(os.path.join(ROOT, adr))):
        if not n.endswith(".md"):
            continue
        path = f"{adr}/{n}"
        lines = read(path).splitlines()
        headings = " ".join(t.lower() for t in lines if re.match(r"\s{0,3}#{1,6}\s", t))
        for word in ("context", "decision", "consequence"):
            if word not in headings:
                report(path, 1, 7, f"no heading for {word.capitalize()}"
                       + ("s" if word == "consequence" else ""))
        if len(lines) > 250:
            report(path, 251, 7, f"{len(lines)} lines; an ADR is a decision on "
                   "at most 250 lines")


# server/'s layers, lowest first (server/CMakeLists.txt adds them in this
# order): a layer's files include headers of the layers below it only.
LAYERS = ["server/sim", "server/params", "server/validate", "server/wire", "server/store",
          "server/net", "server/app"]


def rule8_layers_include_down():
    """A server layer includes no header of a layer above it (validate is above sim and
    params, below app)."""
    headers = {}
    for rank, layer in enumerate(LAYERS):
        for f in c_files(layer):
            if f.endswith(".h") and not f.startswith(SIM + "/"):
                headers.setdefault(os.path.basename(f), rank)
    for rank, layer in enumerate(LAYERS):
        for f in c_files(layer):
            for line, kind, name in includes(f):
                if kind != '"' or "/" in name:
                    continue
                if os.path.isfile(os.path.join(ROOT, os.path.dirname(f), name)):
                    continue  # the layer's own header
                above = headers.get(name)
                if above is not None and above > rank:
                    report(f, line, 8, f'includes "{name}" of {LAYERS[above]}, a layer above '
                           f'{layer}')


# libm's functions whose results glibc picks by processor (with or without
# FMA) and may change between releases; sqrt, fabs, fmod, remainder, fmin,
# fmax, floor and the like are exact IEEE operations and stay allowed.
LIBM_VARYING = ("exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "pow", "sin", "cos",
                "tan", "sincos", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
                "asinh", "acosh", "atanh", "hypot", "cbrt", "erf", "erfc", "lgamma", "tgamma")
LIBM_CALL_RE = re.compile(r"(?<![\w.>])(" + "|".join(LIBM_VARYING) + r")\s*\(")


def rule9_sim_math_everywhere_the_same():
    """sim calls none of LIBM_VARYING: a replay on another machine or glibc must step
    to the same bits (math/vmath.h and math/trig.h have the project's own)."""
    for f in c_files(SIM):
        code = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', strip_comments(read(f)))
        for i, text in enumerate(code.splitlines(), 1):
            for m in LIBM_CALL_RE.finditer(text):
                report(f, i, 9, f"calls libm's {m.group(1)}, whose bits glibc picks by "
                       "processor; use math/vmath.h or math/trig.h")


RULES = [rule1_app_include_circle, rule2_sim_folder_circle, rule3_only_public_sim_outside,
         rule4_public_headers_closed, rule5_protobuf_in_wire_only,
         rule6_no_outside_citation, rule7_adr_is_a_decision, rule8_layers_include_down,
         rule9_sim_math_everywhere_the_same]

if __name__ == "__main__":
    for rule in RULES:
        rule()
    print("\n".join(violations))
    if violations:
        print(f"layout_rules: {len(violations)} violation(s)")
        sys.exit(1)
    print("layout_rules: every rule holds")
