#!/usr/bin/python3
"""paddockd serve --config (docs/paddockd.md "Configuration file"), with the
real paddockd and the Python client:

- deploy/paddockd.conf names every option `paddockd --help` lists for serve,
  and paddockd serves with it (its listen and db overridden on the command
  line);
- a file's value holds where the command line says nothing, and the command
  line's flag overrides it: max-sessions = 1 refuses a second session,
  and --max-sessions 2 after it does not;
- a file that is wrong is refused at start, exit status 2, naming the file
  and line and what is wrong; a bad value is named as its flag is.

Run by ctest as integration_config (PADDOCKD, PYTHONPATH to build/python)."""
import os
import re
import subprocess
import sys
import tempfile

import paddock
from paddock import errors
from serving import PADDOCKD, SOURCE, Paddockd, data_args

SHIPPED = os.path.join(SOURCE, "deploy", "paddockd.conf")


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def shipped_file_lists_every_option_and_serves():
    usage = subprocess.run([PADDOCKD, "--help"], capture_output=True, text=True).stdout
    # serve's own lines, and the options common to every command.
    serve_part = usage.split("paddockd run")[0] + usage.split("common:")[1]
    flags = set(re.findall(r"--([a-z][a-z-]+)", serve_part)) - {"config"}
    with open(SHIPPED) as f:
        text = f.read()
    named = set(re.findall(r"^#? ?([a-z][a-z-]+) =", text, re.M))
    check(flags <= named, f"deploy/paddockd.conf lacks {sorted(flags - named)}")
    check(named <= flags, f"deploy/paddockd.conf names options serve lacks: {sorted(named - flags)}")
    with tempfile.TemporaryDirectory(prefix="pdk-config-") as tmp:
        srv = Paddockd(tmp, ["--config", SHIPPED, "--listen", "127.0.0.1:0"] + data_args(tmp))
        srv.stop()
    print(f"integration_config: deploy/paddockd.conf names all {len(flags)} options and serves")


def file_values_hold_and_flags_override():
    with tempfile.TemporaryDirectory(prefix="pdk-config-") as tmp:
        conf = os.path.join(tmp, "one.conf")
        with open(conf, "w") as f:
            f.write("# one session at a time\nlisten = 127.0.0.1:0\n  max-sessions = 1  \n"
                    "agones = false\n")
        for extra, allowed in (([], 1), (["--max-sessions", "2"], 2)):
            srv = Paddockd(tmp, ["--config", conf] + data_args(tmp) + extra)
            try:
                with paddock.Client("127.0.0.1", srv.port, name="config-test") as c:
                    c.create_session("first")
                    if allowed == 1:
                        try:
                            c.create_session("second")
                            raise AssertionError("max-sessions = 1 allowed a second session")
                        except errors.Capacity as e:
                            check("maximum of 1 sessions" in str(e), str(e))
                    else:
                        c.create_session("second")
            finally:
                srv.stop()
    print("integration_config: a file's value holds; the command line's flag overrides it")


def wrong_files_are_refused():
    with tempfile.TemporaryDirectory(prefix="pdk-config-") as tmp:
        cases = [
            ("bogus = 1\n", r"bad\.conf:1: unknown option 'bogus'"),
            ("# fine\nlisten\n", r"bad\.conf:2: 'listen' is not 'name = value'"),
            ("agones = maybe\n", r"bad\.conf:1: 'agones' is a switch: true or false, not 'maybe'"),
            ("db = a.db\ndb = b.db\n", r"bad\.conf:2: 'db' is given again \(first on line 1\)"),
            ("auth =\n", r"bad\.conf:1: 'auth' has no value"),
            ("max-sessions = lots\n", r"--max-sessions: 'lots' is not a whole number"),
            ("listen = 1.2.3.4:9\x00\n", r"bad\.conf: holds a NUL byte"),
            ("# ok\ndb = " + "a" * 5000 + "\n", r"bad\.conf:2: a line longer than 4096 bytes"),
            ("# a comment line\n" * 70000, r"bad\.conf: larger than 1 MiB: not a configuration file"),
        ]
        path = os.path.join(tmp, "bad.conf")
        for body, want in cases:
            with open(path, "w") as f:
                f.write(body)
            r = subprocess.run([PADDOCKD, "serve", "--config", path] + data_args(tmp),
                               capture_output=True, text=True, timeout=30)
            check(r.returncode == 2, f"{body!r}: exit {r.returncode}\n{r.stdout}{r.stderr}")
            check(re.search(want, r.stderr), f"{body!r}: no /{want}/ in: {r.stderr}")
        for args, want in ((["--config", os.path.join(tmp, "none.conf")], r"none\.conf: No such file"),
                           (["--config"], r"--config needs a value"),
                           (["--config", path, "--config", path], r"--config is given twice")):
            r = subprocess.run([PADDOCKD, "serve"] + args, capture_output=True, text=True, timeout=30)
            check(r.returncode == 2 and re.search(want, r.stderr), f"{args}: {r.returncode} {r.stderr}")
    print("integration_config: wrong files are refused, naming the file, line and fault")


if __name__ == "__main__":
    shipped_file_lists_every_option_and_serves()
    file_values_hold_and_flags_override()
    wrong_files_are_refused()
    sys.exit(0)
