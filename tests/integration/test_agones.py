#!/usr/bin/python3
"""paddockd --agones against a local stand-in of the Agones SDK sidecar
(agones_sdk.py; docs/deploy.md "A fleet on Agones"), end to end with the
real paddockd, its real database and the Python client:

- the sidecar starts 1.5 s after paddockd: paddockd says it waits, then
  /ready once the sidecar answers;
- /health comes every period while the loop runs;
- the cluster allocates the GameServer with labels naming a session and a
  world: paddockd creates that session, a client finds it, drives a car in
  it and closes it;
- the recording is exported into --agones-export, /shutdown follows, and
  paddockd stops with exit status 0; the exported file verifies;
- an allocation without the label makes no session, and a SIGTERM ends it;
- an allocation naming a world that is not a preset, and an export folder
  that cannot be made, are said and end in /shutdown;
- an AGONES_SDK_HTTP_PORT that is not a port stops paddockd at start.

Run by ctest as integration_agones (PADDOCKD, PYTHONPATH to build/python)."""
import contextlib
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from agones_sdk import SDK  # noqa: E402
from serving import PADDOCKD, Paddockd, data_args  # noqa: E402

import paddock  # noqa: E402

HEALTH_S = 0.25


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def agones_paddockd(tmp, sdk_port, extra=()):
    """paddockd --agones in tmp, the SDK at sdk_port; its export folder as
    .exports."""
    exports = os.path.join(tmp, "exports")
    srv = Paddockd(tmp, ["--listen", "127.0.0.1:0"] + data_args(tmp) +
                   ["--agones", "--agones-health-s", str(HEALTH_S), "--agones-export", exports,
                    *extra], env={"AGONES_SDK_HTTP_PORT": str(sdk_port)})
    srv.exports = exports
    return srv


@contextlib.contextmanager
def ready_agones(extra=()):
    """The sidecar and paddockd --agones (agones_paddockd) in a folder of
    their own, once paddockd has said /ready; both ended after."""
    with tempfile.TemporaryDirectory(prefix="pdk-agones-") as tmp:
        sdk_port = free_port()
        sdk = SDK(sdk_port)
        srv = agones_paddockd(tmp, sdk_port, extra)
        try:
            check(sdk.wait_call("/ready", 10) is not None, "ready")
            yield sdk, srv
        finally:
            sdk.close()
            srv.kill()


def allocated_session_runs_then_shutdown():
    with tempfile.TemporaryDirectory(prefix="pdk-agones-") as tmp:
        sdk_port = free_port()
        srv = agones_paddockd(tmp, sdk_port, ["--drain-seconds", "5"])
        try:
            srv.wait_log(r"agones: waiting for the SDK sidecar on 127\.0\.0\.1:%d" % sdk_port, 5)
            time.sleep(1.5)
            sdk = SDK(sdk_port)  # the sidecar, late
            try:
                ready_at = sdk.wait_call("/ready", 10)
                check(ready_at is not None, "paddockd says /ready once the sidecar answers")
                srv.wait_log(r"agones: ready", 5)
                time.sleep(8 * HEALTH_S)
                pings = sdk.count("/health", since=ready_at)
                check(pings >= 4, f"/health every {HEALTH_S} s: {pings} pings in {8 * HEALTH_S} s")
                check(sdk.count("/ready") == 1, "one /ready")

                sdk.allocate({"paddock.dev/session": "match-7", "paddock.dev/world": "kerb_strip"})
                allocated_at = time.monotonic()
                m = srv.wait_log(r'agones: allocated: session (\d+) "match-7" on world kerb_strip', 10)
                session_id = int(m.group(1))
                with paddock.Client("127.0.0.1", srv.port, name="agones-test") as c:
                    listed = {s.name: s for s in c.list_sessions()}
                    check("match-7" in listed, f"the session the labels name: {list(listed)}")
                    check(listed["match-7"].session_id == session_id, "its id as logged")
                    check(listed["match-7"].world_preset == "kerb_strip", "on the labelled world")
                    car = c.spawn(session_id, "ref1_sedan", gear="DRIVE").vehicle_id
                    c.dbw_command(session_id, car, throttle_pct=30.0)
                    time.sleep(1.0)
                    check(sdk.count("/shutdown") == 0, "no shutdown while the session runs")
                    c.close_session(session_id)
                ended_at = time.monotonic()
                shutdown_at = sdk.wait_call("/shutdown", 15)
                check(shutdown_at is not None, f"/shutdown after the session ended:\n{srv.log()}")
                check(shutdown_at > ended_at > allocated_at > ready_at, "ready, allocated, ended, shutdown")
                check(sdk.count("/health", since=allocated_at, until=ended_at) >= 2,
                      "/health while allocated")
                code = srv.proc.wait(timeout=15)
                check(code == 0, f"exit status 0 after /shutdown: {code}\n{srv.log()}")
                log = srv.log()
                exported = os.path.join(srv.exports, f"session-{session_id}.db")
                check(f"agones: session {session_id} exported to {exported}" in log, log)
                check(log.index("exported to") < log.index("agones: shutdown said"),
                      "exported before shutdown")
                check(os.path.getsize(exported) > 0, "the export is a file")
                v = subprocess.run([PADDOCKD, "verify", "--db", exported, str(session_id)],
                                   capture_output=True, text=True)
                check(v.returncode == 0 and re.search(r"^match:\s+yes$", v.stdout, re.M),
                      f"the exported recording verifies:\n{v.stdout}{v.stderr}")
            finally:
                sdk.close()
        finally:
            srv.kill()
    print("integration_agones: late sidecar, ready, health, allocated session, export, shutdown: ok")


def allocation_without_label_makes_no_session():
    with ready_agones() as (sdk, srv):
        sdk.allocate({"team": "blue"})
        srv.wait_log(r"agones: allocated without a paddock\.dev/session label", 10)
        with paddock.Client("127.0.0.1", srv.port, name="agones-test") as c:
            check(c.list_sessions() == [], "no session made")
        srv.stop()
        check(sdk.count("/shutdown") == 0, "SIGTERM is the cluster's doing: no /shutdown")
    print("integration_agones: an allocation without the session label: ok")


def allocations_that_cannot_be_served_shut_down():
    """A world that is not a preset: no session, said, and /shutdown. An
    export folder that cannot be made: said, the recording kept in the
    database, and /shutdown all the same."""
    with ready_agones() as (sdk, srv):
        sdk.allocate({"paddock.dev/session": "m", "paddock.dev/world": "no_such_world"})
        srv.wait_log(r'allocated, but session "m" \(world no_such_world\) cannot be made: .*'
                     r'no_such_world.*; shutting down', 10)
        check(sdk.wait_call("/shutdown", 10) is not None, "/shutdown")
        check(srv.proc.wait(timeout=15) == 0, srv.log())
    with ready_agones(["--agones-export", "/dev/null/exports"]) as (sdk, srv):
        sdk.allocate({"paddock.dev/session": "kept"})
        sid = int(srv.wait_log(r'allocated: session (\d+) "kept"', 10).group(1))
        with paddock.Client("127.0.0.1", srv.port, name="agones-test") as c:
            c.close_session(sid)
        srv.wait_log(r"agones: cannot export into /dev/null/exports: Not a directory; "
                     r"session %d stays in the database only" % sid, 10)
        check(sdk.wait_call("/shutdown", 10) is not None, "/shutdown")
        check(srv.proc.wait(timeout=15) == 0, srv.log())
    print("integration_agones: an unknown world and an export folder that cannot be made: "
          "said, then shutdown: ok")


def a_bad_sdk_port_is_refused_at_start():
    with tempfile.TemporaryDirectory(prefix="pdk-agones-") as tmp:
        env = dict(os.environ, AGONES_SDK_HTTP_PORT="notaport")
        r = subprocess.run([PADDOCKD, "serve", "--listen", "127.0.0.1:0",
                            "--db", os.path.join(tmp, "p.db"), "--agones"],
                           capture_output=True, text=True, env=env, timeout=30)
        check(r.returncode == 1, f"exit status 1: {r.returncode}\n{r.stdout}{r.stderr}")
        check("AGONES_SDK_HTTP_PORT 'notaport' is not a port" in r.stderr, r.stderr)
    print("integration_agones: a bad AGONES_SDK_HTTP_PORT is refused at start: ok")


if __name__ == "__main__":
    allocated_session_runs_then_shutdown()
    allocation_without_label_makes_no_session()
    allocations_that_cannot_be_served_shut_down()
    a_bad_sdk_port_is_refused_at_start()
