#!/usr/bin/env python3
"""Finds circles among the C files of a folder (default server/app).

A file depends on another when it calls a function that the other file
defines and that reaches it through its #include lines (a header it
includes, directly or through other headers, declares it). Prints each file's dependencies and every circle;
exits 1 when there is one.
"""
import os
import re
import sys

folder = sys.argv[1] if len(sys.argv) > 1 else "server/app"
files = sorted(f for f in os.listdir(folder) if f.endswith((".c", ".h")))
text = {f: open(os.path.join(folder, f), encoding="utf-8").read() for f in files}

include_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# A function declared or defined at the top level: "type name(" at column 0.
func_re = re.compile(r"^[A-Za-z_][\w \*]*?\b(\w+)\s*\(", re.M)


def strip_comments(s):
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", s, flags=re.S)


defined = {}  # function name -> the .c file that defines it
for f in files:
    if f.endswith(".c"):
        body = strip_comments(text[f])
        for m in func_re.finditer(body):
            line = body[m.start(): body.find("\n", m.end())]
            if line.startswith("static") or m.group(1) in ("if", "while", "for", "switch"):
                continue
            # a definition: the next non-space after the closing parenthesis is "{"
            rest = body[m.end():]
            depth, i = 1, 0
            while i < len(rest) and depth:
                depth += {"(": 1, ")": -1}.get(rest[i], 0)
                i += 1
            if rest[i:].lstrip().startswith("{"):
                defined[m.group(1)] = f

declared = {}  # header -> the functions it declares
for f in files:
    if f.endswith(".h"):
        declared[f] = {m.group(1) for m in func_re.finditer(strip_comments(text[f]))}


def headers_of(f, seen=None):
    seen = set() if seen is None else seen
    for inc in include_re.findall(text[f]):
        if inc in text and inc not in seen:
            seen.add(inc)
            headers_of(inc, seen)
    return seen


deps = {}
for f in files:
    if f.endswith(".c"):
        used = set(re.findall(r"\b\w+\b", strip_comments(text[f])))
        d = set()
        for h in headers_of(f):
            d |= {defined[n] for n in declared.get(h, ()) if n in defined and n in used}
        d.discard(f)
        deps[f] = d

for f in sorted(deps):
    print(f"{f}: {' '.join(sorted(deps[f])) or '-'}")

# Circles: strongly connected components of more than one file.
index, low, stack, on, sccs = {}, {}, [], set(), []


def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on.add(v)
    for w in deps[v]:
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(sorted(comp))


sys.setrecursionlimit(10000)
for v in sorted(deps):
    if v not in index:
        visit(v)
if sccs:
    for c in sccs:
        print("circle:", " ".join(c))
    sys.exit(1)
print("no circle")
