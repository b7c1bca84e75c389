"""Fixtures: the real paddockd on a free loopback port with a temporary database.

PADDOCKD names the binary (ctest sets it to the build's); PADDOCK_SOURCE_DIR
the checkout whose presets/ and migrations/ it serves (default: three folders
up from here).
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("PADDOCK_SOURCE_DIR",
                            os.path.normpath(os.path.join(HERE, "..", "..", "..")))
PADDOCKD = os.environ.get("PADDOCKD", os.path.join(SOURCE_DIR, "build", "bin", "paddockd"))
LISTENING = re.compile(r"\) listening on 127\.0\.0\.1:(\d+)")  # the ready line, "paddockd 0.1.0 (build ...) listening on"


class Server:
    """One paddockd process: start() waits for its "listening on" line, stop()
    sends SIGTERM and checks that it stopped cleanly."""

    def __init__(self, workdir, db=None, extra=()):
        self.workdir = workdir
        self.db = db or os.path.join(workdir, "paddock.db")
        self.extra = list(extra)
        self.log_path = os.path.join(workdir, "paddockd.log")
        self.proc = None
        self.port = None

    def start(self, timeout_s=20.0):
        before = len(LISTENING.findall(self.log()))
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [PADDOCKD, "serve", "--listen", "127.0.0.1:0", "--db", self.db,
                 "--presets", os.path.join(SOURCE_DIR, "presets"),
                 "--migrations", os.path.join(SOURCE_DIR, "migrations")] + self.extra,
                stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            # A restarted server appends to the same log: wait for its own line.
            lines = LISTENING.findall(self.log())
            if len(lines) > before:
                self.port = int(lines[-1])
                return self
            if self.proc.poll() is not None:
                raise RuntimeError(f"paddockd exited with {self.proc.returncode}: {self.log()}")
            time.sleep(0.02)
        raise RuntimeError(f"paddockd did not say it was listening within {timeout_s} s")

    def stop(self):
        """SIGTERM, then checks the exit status and the clean-stop line."""
        if self.proc is None:
            return
        before = self.log().count("stopped cleanly")
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError("paddockd did not stop within 30 s of SIGTERM")
        self.proc = None
        assert code == 0, f"paddockd exited with {code}: {self.log()}"
        assert self.log().count("stopped cleanly") == before + 1

    def log(self):
        if not os.path.exists(self.log_path):
            return ""
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()


@pytest.fixture(scope="session")
def server():
    with tempfile.TemporaryDirectory(prefix="paddock-py-") as d:
        srv = Server(d).start()
        yield srv
        srv.stop()


@pytest.fixture
def fresh_server():
    """A server of the test's own, for tests that restart it or count recordings."""
    with tempfile.TemporaryDirectory(prefix="paddock-py-") as d:
        srv = Server(d).start()
        yield srv
        srv.stop()


@pytest.fixture
def client(server):
    import paddock
    with paddock.Client("127.0.0.1", server.port, name="pytest") as c:
        yield c


def python_env():
    """The environment a subprocess (an example) needs to import paddock as this test does."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


def pytest_configure(config):
    config.addinivalue_line("markers", "long: runs for seconds of real time (ctest python_client_long)")
