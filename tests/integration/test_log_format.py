#!/usr/bin/python3
"""paddockd serve --log-format (docs/paddockd.md "Logs"), end to end: with
logfmt and with json, every line paddockd writes to stdout and to stderr
while it starts, serves a session, refuses a malformed frame and stops is
one event with a UTC time stamp, a level, a component and the message; the
events say what happened (listening, the refusal, the clean stop) where
they should. A format that is not one is refused at start.

Run by ctest as integration_log_format (PADDOCKD, PYTHONPATH to build/python)."""
import json
import os
import re
import socket
import subprocess
import tempfile
import time

import paddock
from serving import PADDOCKD, Paddockd, data_args

TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
LOGFMT = re.compile(r'^ts=(\S+) level=(info|warn|error) component=(server|net|store|agones) '
                    r'msg="((?:[^"\\]|\\.)*)"$')


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def events(fmt, text, stream):
    out = []
    for line in text.splitlines():
        if fmt == "json":
            try:
                e = json.loads(line)
            except ValueError as err:
                raise AssertionError(f"{stream}: not JSON ({err}): {line!r}")
            check(set(e) == {"ts", "level", "component", "msg"}, f"{stream}: keys of {line!r}")
        else:
            m = LOGFMT.match(line)
            check(m, f"{stream}: not a logfmt event: {line!r}")
            e = {"ts": m.group(1), "level": m.group(2), "component": m.group(3),
                 "msg": json.loads('"' + m.group(4) + '"')}
        check(TS.match(e["ts"]), f"{stream}: time stamp {e['ts']!r}")
        out.append(e)
    return out


def run(fmt):
    with tempfile.TemporaryDirectory(prefix="pdk-log-") as tmp:
        srv = Paddockd(tmp, ["--log-format", fmt, "--listen", "127.0.0.1:0"] + data_args(tmp),
                       split=True)
        try:
            with paddock.Client("127.0.0.1", srv.port, name="log-test") as c:
                s = c.create_session("logged").session_id
                c.spawn(s, "ref1_sedan")
                c.close_session(s)
            # A frame whose length prefix runs past ten bytes: refused, closed.
            with socket.create_connection(("127.0.0.1", srv.port)) as raw:
                raw.sendall(b"\xff" * 11)
                raw.settimeout(5)
                while raw.recv(4096):
                    pass
            time.sleep(0.2)
            srv.stop()
        finally:
            srv.kill()
        outs = events(fmt, srv.read(srv.out_path), "stdout")
        errs = events(fmt, srv.read(srv.err_path), "stderr")
    check(all(e["level"] == "info" for e in outs), "stdout's events are info")
    check(all(e["level"] in ("warn", "error") for e in errs), "stderr's events are warn or error")
    check(any(e["component"] == "server" and re.search(r"\) listening on 127\.0\.0\.1:\d+", e["msg"])
              for e in outs), "the server's listening event")
    check(any(e["component"] == "server" and e["msg"] == "stopped cleanly" for e in outs),
          f"the clean stop as the last word: {outs[-3:]}")
    check(any(e["component"] == "net" and e["level"] == "warn" and "after error PDK_ERR_PROTOCOL" in e["msg"]
              and "varint prefix runs past 10 bytes" in e["msg"] for e in errs),
          f"the refused frame on stderr: {errs}")
    print(f"integration_log_format: {fmt}: {len(outs)} stdout and {len(errs)} stderr events, "
          "each whole")


def bad_format_refused():
    r = subprocess.run([PADDOCKD, "serve", "--log-format", "xml"], capture_output=True, text=True,
                       timeout=30)
    check(r.returncode == 2 and "--log-format: 'xml' is not text, logfmt or json" in r.stderr,
          f"{r.returncode} {r.stderr}")
    print("integration_log_format: an unknown format is refused at start")


if __name__ == "__main__":
    run("logfmt")
    run("json")
    bad_format_refused()
