#!/usr/bin/python3
"""Checks deploy/Dockerfile on a machine without a container engine
(docs/deploy.md "A container"): its two stages, what the runtime stage
holds (a non-root user, the data volume, a health check, the ports), that
it installs no build tools, that the build stage installs the same
libraries' -dev packages as deploy/install-deps.sh, and that the runtime
installs the Debian package of every shared library the built paddockd
links (ldd, then dpkg -S). With --build and a container engine that
answers, it also runs docker build (or podman build).

usage: check_container.py SOURCE_DIR PADDOCKD [--build]"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# In debian:12-slim already, and never worth listing.
BASE = {"libc6"}


def fail(msg):
    print(f"check_container: {msg}", file=sys.stderr)
    sys.exit(1)


def stages(dockerfile):
    """[(name, base, [instruction lines, continuations joined])]."""
    out = []
    text = re.sub(r"\\\n", " ", dockerfile)
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"FROM\s+(\S+)\s+AS\s+(\S+)$", line, re.I)
        if m:
            out.append((m.group(2), m.group(1), []))
        elif line.upper().startswith("FROM"):
            fail(f"a stage without a name: {line}")
        elif out:
            out[-1][2].append(line)
    return out


def apt_packages(lines):
    pkgs = []
    for line in lines:
        for m in re.finditer(r"apt-get install ((?:[^&;]|&(?!&))*)", line):
            pkgs += [w for w in m.group(1).split() if not w.startswith("-")]
    return pkgs


def install_deps_packages(script):
    m = re.search(r"packages=\((.*?)\n\)", script, re.S)
    if not m:
        fail("deploy/install-deps.sh has no packages=( ... ) list")
    words = []
    for line in m.group(1).splitlines():
        words += line.split("#", 1)[0].split()
    return words


def package_of(path):
    """The Debian package that owns a library path (ldd's, or its real one)."""
    for p in (path, os.path.realpath(path)):
        for q in (p, p.replace("/usr/lib/", "/lib/", 1), p.replace("/lib/", "/usr/lib/", 1)):
            r = subprocess.run(["dpkg", "-S", q], capture_output=True, text=True)
            if r.returncode == 0:
                return r.stdout.split(":", 1)[0]
    return None


def linked_packages(binary):
    r = subprocess.run(["ldd", binary], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"ldd {binary}: {r.stderr.strip()}")
    pkgs = {}
    for line in r.stdout.splitlines():
        m = re.match(r"\s*(\S+) => (/\S+)", line)
        if not m:
            continue
        lib, path = m.groups()
        if path.startswith("/usr/local") or "/build" in path:
            fail(f"paddockd links {lib} from {path}, which no Debian package provides")
        pkg = package_of(path)
        if pkg is None:
            fail(f"no Debian package owns {path} ({lib})")
        pkgs.setdefault(pkg, []).append(lib)
    return pkgs


def engine():
    for tool in ("docker", "podman"):
        if shutil.which(tool) and subprocess.run([tool, "info"], capture_output=True).returncode == 0:
            return tool
    return None


def main():
    if len(sys.argv) < 3:
        fail(__doc__.splitlines()[-1])
    src, binary = sys.argv[1], sys.argv[2]
    with open(os.path.join(src, "deploy", "Dockerfile")) as f:
        dockerfile = f.read()
    st = stages(dockerfile)
    if [s[0] for s in st] != ["build", "runtime"]:
        fail(f"the stages are {[s[0] for s in st]}, not build then runtime")
    (_, build_base, build), (_, run_base, run) = st
    if not build_base.startswith("debian:12") or run_base != "debian:12-slim":
        fail(f"bases {build_base} and {run_base}: Debian 12, and its slim image to run")

    def has(lines, pattern, what):
        if not any(re.search(pattern, l) for l in lines):
            fail(f"the runtime stage has no {what}")

    has(run, r"^USER\s+(?!root\b|0\b)\S+", "USER other than root")
    has(run, r"^VOLUME\s+/var/lib/paddock\b", "VOLUME /var/lib/paddock")
    has(run, r"^HEALTHCHECK\s.*/livez", "HEALTHCHECK of /livez")
    has(run, r"^EXPOSE\s+.*\b7420\b", "EXPOSE 7420")
    has(run, r"^COPY\s+--from=build\b", "COPY --from=build")
    has(run, r"^STOPSIGNAL\s+SIGTERM\b", "STOPSIGNAL SIGTERM")
    has(run, r"--drain-seconds", "--drain-seconds (a SIGTERM drains)")

    runtime = set(apt_packages(run))
    tools = {p for p in runtime if p.endswith("-dev") or p in
             {"build-essential", "cmake", "gcc", "clang", "nodejs", "npm", "protobuf-compiler"}}
    if tools:
        fail(f"the runtime stage installs build tools: {sorted(tools)}")

    with open(os.path.join(src, "deploy", "install-deps.sh")) as f:
        # libclang-rt-14-dev is the fuzz build's, not paddockd's.
        wanted = {p for p in install_deps_packages(f.read())
                  if p.endswith("-dev") and not p.startswith("libclang")}
    missing_dev = wanted - set(apt_packages(build))
    if missing_dev:
        fail(f"the build stage lacks -dev packages deploy/install-deps.sh installs: {sorted(missing_dev)}")

    linked = linked_packages(binary)
    if any(lib.startswith("libasan") for libs in linked.values() for lib in libs):
        # A sanitizer build (CI's second pass) links its runtime besides;
        # the image is built without the sanitizers.
        for pkg in [p for p, libs in linked.items()
                    if any(l.startswith(("libasan", "libubsan", "libstdc++", "libgcc_s")) for l in libs)]:
            del linked[pkg]
        print("check_container: a sanitizer build: its runtime's libraries left out of the comparison")
    missing = {p: libs for p, libs in linked.items() if p not in runtime and p not in BASE}
    if missing:
        fail("the runtime stage does not install what paddockd links: " +
             ", ".join(f"{p} ({' '.join(libs)})" for p, libs in sorted(missing.items())))
    extra = runtime - set(linked) - BASE
    if extra:
        fail(f"the runtime stage installs packages paddockd does not link: {sorted(extra)}")
    print(f"check_container: stages build ({build_base}) and runtime ({run_base}); the runtime's "
          f"{len(runtime)} packages are exactly what paddockd links besides libc6: "
          f"{' '.join(sorted(runtime))}")

    # The command the image runs, as far as this machine can: its paths
    # moved into a scratch folder, keys made there (check_service.py).
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from check_service import start_it
    entry = cmd = None
    for line in run:
        m = re.match(r"(ENTRYPOINT|CMD)\s+(\[.*\])$", line)
        if m and m.group(1) == "ENTRYPOINT":
            entry = json.loads(m.group(2))
        elif m:
            cmd = json.loads(m.group(2))
    if not entry or entry[0] != "paddockd" or cmd is None:
        fail(f"the runtime stage's ENTRYPOINT {entry} and CMD {cmd}: paddockd in exec form")
    with tempfile.TemporaryDirectory(prefix="pdk-container-") as tmp:
        start_it(os.path.abspath(src), os.path.abspath(binary), entry + cmd, tmp,
                 "the image's command")
    print("check_container: the image's command (ENTRYPOINT and CMD) starts and stops cleanly")

    tool = engine()
    if "--build" in sys.argv[3:]:
        if tool is None:
            fail("--build: no container engine answers (docker info, podman info)")
        r = subprocess.run([tool, "build", "-f", "deploy/Dockerfile", "-t", "paddock:check", "."], cwd=src)
        if r.returncode != 0:
            fail(f"{tool} build failed")
        print(f"check_container: {tool} build passed")
    elif tool is None:
        print("check_container: no container engine here; the image itself is not built")
    else:
        print(f"check_container: {tool} answers; run with --build to build the image too")


if __name__ == "__main__":
    main()
