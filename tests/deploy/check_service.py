#!/usr/bin/python3
"""Checks deploy/systemd (docs/deploy.md "One machine: systemd") on a machine
whose systemd need not be running: systemd-analyze verify passes on the unit
and on it with the HIL drop-in, without a warning; systemd-analyze security
scores both as docs/deploy.md says; and the command line each would start
is one paddockd takes: it is run, with the unit's paths moved into a
scratch folder (keys and a certificate made there, loopback ports), until it
says it is listening, then stopped with SIGTERM.

usage: check_service.py SOURCE_DIR PADDOCKD"""
import hashlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time

INSTALLED = "/usr/local/bin/paddockd"


def fail(msg):
    print(f"check_service: {msg}", file=sys.stderr)
    sys.exit(1)


def exec_start(text):
    """The last ExecStart= of a unit or drop-in (an empty one resets), as argv."""
    text = re.sub(r"\\\n", " ", text)
    found = None
    for line in text.splitlines():
        m = re.match(r"\s*ExecStart=(.*)$", line)
        if m:
            found = shlex.split(m.group(1)) or None
    return found


def analyze(args, unit_dir):
    env = dict(os.environ, SYSTEMD_UNIT_PATH=unit_dir + ":")
    return subprocess.run(["systemd-analyze"] + args, capture_output=True, text=True, env=env)


def scratch_units(src, paddockd, tmp, with_hil):
    """The unit (and drop-in) with ExecStart's binary the built one."""
    units = os.path.join(tmp, "with-hil" if with_hil else "plain")
    os.makedirs(units)
    sysd = os.path.join(src, "deploy", "systemd")
    with open(os.path.join(sysd, "paddockd.service")) as f:
        unit = f.read()
    with open(os.path.join(units, "paddockd.service"), "w") as f:
        f.write(unit.replace(INSTALLED, paddockd))
    argv = exec_start(unit)
    if with_hil:
        os.makedirs(os.path.join(units, "paddockd.service.d"))
        with open(os.path.join(sysd, "paddockd.service.d", "hil.conf")) as f:
            hil = f.read()
        with open(os.path.join(units, "paddockd.service.d", "hil.conf"), "w") as f:
            f.write(hil.replace(INSTALLED, paddockd))
        argv = exec_start(hil) or argv
    return units, argv


def start_it(src, paddockd, argv, tmp, what="ExecStart"):
    """Runs paddockd with argv's arguments (argv[0] is the program), its
    paths moved into tmp, until it listens on TCP and HTTP; then SIGTERM.
    what names the command line in the messages."""
    etc = os.path.join(tmp, "etc")
    os.makedirs(etc, exist_ok=True)
    with open(os.path.join(etc, "keys.json"), "w") as f:
        json.dump({"keys": [{"name": "ops", "role": "operator",
                             "sha256": hashlib.sha256(b"check-service-key").hexdigest()}]}, f)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-keyout", os.path.join(etc, "server.key"),
                    "-out", os.path.join(etc, "server.crt")], check=True, capture_output=True)
    # Kubernetes' TLS secrets name them tls.crt and tls.key.
    for ours, theirs in (("server.crt", "tls.crt"), ("server.key", "tls.key")):
        with open(os.path.join(etc, ours), "rb") as f, open(os.path.join(etc, theirs), "wb") as g:
            g.write(f.read())
    moved = {
        "${CREDENTIALS_DIRECTORY}": etc,
        "/etc/paddock": etc,
        "/var/lib/paddock": os.path.join(tmp, "state"),
        "/usr/local/share/paddock/presets": os.path.join(src, "presets"),
        "/usr/local/share/paddock/migrations": os.path.join(src, "migrations"),
        "/usr/local/share/paddock/web": os.path.join(tmp, "web"),
        "0.0.0.0:7420": "127.0.0.1:0",
        "0.0.0.0:7421": "127.0.0.1:0",
    }
    os.makedirs(moved["/var/lib/paddock"], exist_ok=True)
    os.makedirs(moved["/usr/local/share/paddock/web"], exist_ok=True)
    args = [paddockd]
    for a in argv[1:]:
        for old, new in moved.items():
            a = a.replace(old, new)
        if a.startswith("/usr/local") or a.startswith("/etc") or a.startswith("/var"):
            fail(f"{what} names {a}, which this check does not know where to put")
        args.append(a)
    log = os.path.join(tmp, "paddockd.log")
    with open(log, "w") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with open(log) as f:
            text = f.read()
        if "listening on" in text and re.search(r"https? on ", text):
            break
        if proc.poll() is not None:
            fail(f"{what}'s paddockd exited {proc.returncode}:\n{text}")
        time.sleep(0.05)
    else:
        proc.kill()
        fail(f"{what}'s paddockd did not listen within 20 s:\n{text}")
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(timeout=60)
    with open(log) as f:
        text = f.read()
    if code != 0 or "stopped cleanly" not in text:
        fail(f"{what}'s paddockd stopped with {code}:\n{text}")


def main():
    if len(sys.argv) != 3:
        fail(__doc__.splitlines()[-1])
    src, paddockd = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with open(os.path.join(src, "docs", "deploy.md")) as f:
        docs = f.read()
    with tempfile.TemporaryDirectory(prefix="pdk-service-") as tmp:
        for with_hil, said in ((False, "scores the unit"), (True, "with the HIL drop-in")):
            units, argv = scratch_units(src, paddockd, tmp, with_hil)
            unit = os.path.join(units, "paddockd.service")
            r = analyze(["verify", unit], units)
            if r.returncode != 0 or r.stdout.strip() or r.stderr.strip():
                fail(f"systemd-analyze verify ({said}): {r.returncode}\n{r.stdout}{r.stderr}")
            r = analyze(["security", "--offline=true", unit], units)
            m = re.search(r"Overall exposure level for paddockd\.service: (\d+\.\d) (\w+)", r.stdout)
            if not m:
                fail(f"systemd-analyze security ({said}) gave no score:\n{r.stdout}{r.stderr}")
            score = f"{m.group(1)} {m.group(2)}"
            if not re.search(re.escape(said) + r":?\s+\*\*" + re.escape(score) + r"\*\*", docs):
                fail(f"docs/deploy.md should say it {said} **{score}** (systemd-analyze security)")
            print(f"check_service: verify passes and security {said}: {score}")
            if argv[0] != INSTALLED:
                fail(f"ExecStart runs {argv[0]}, not {INSTALLED}")
            start_it(src, paddockd, argv, os.path.join(tmp, "run-hil" if with_hil else "run"))
            print(f"check_service: its ExecStart ({' '.join(argv[1:3])} ...) starts and stops cleanly")


if __name__ == "__main__":
    main()
