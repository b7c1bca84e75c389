"""The real paddockd serving for a Python integration test: started with the
test's arguments, its output in files of a folder, ready once it says it
listens, stopped with SIGTERM and held to exit status 0."""
import os
import re
import signal
import subprocess
import time

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PADDOCKD = os.environ.get("PADDOCKD", os.path.join(SOURCE, "build", "bin", "paddockd"))
LISTENING = r"\) listening on 127\.0\.0\.1:(\d+)"


def data_args(folder):
    """--db in folder, and the tree's presets and migrations."""
    return ["--db", os.path.join(folder, "paddock.db"), "--presets", os.path.join(SOURCE, "presets"),
            "--migrations", os.path.join(SOURCE, "migrations")]


class Paddockd:
    """paddockd serve ARGS, its stdout and stderr in folder (one file, or
    out and err apart with split), waited for until it listens (port)."""

    def __init__(self, folder, args, env=None, split=False, timeout_s=20):
        self.out_path = os.path.join(folder, "paddockd.out")
        self.err_path = os.path.join(folder, "paddockd.err") if split else self.out_path
        err = open(self.err_path, "w") if split else subprocess.STDOUT
        with open(self.out_path, "w") as out:
            self.proc = subprocess.Popen([PADDOCKD, "serve"] + list(args), stdout=out, stderr=err,
                                         env=dict(os.environ, **(env or {})))
        if split:
            err.close()
        self.port = int(self.wait_log(LISTENING, timeout_s).group(1))

    def read(self, path):
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def log(self):
        """stdout and stderr, stderr after stdout when they are apart."""
        text = self.read(self.out_path)
        return text if self.err_path == self.out_path else text + self.read(self.err_path)

    def wait_log(self, pattern, timeout_s):
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            m = re.search(pattern, self.log())
            if m:
                return m
            if self.proc.poll() is not None:
                raise AssertionError(f"paddockd exited {self.proc.returncode}:\n{self.log()}")
            time.sleep(0.02)
        raise AssertionError(f"no /{pattern}/ in paddockd's log within {timeout_s} s:\n{self.log()}")

    def stop(self):
        """SIGTERM; exit status 0 or AssertionError."""
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=30)
        if code != 0:
            raise AssertionError(f"paddockd exited {code}:\n{self.log()}")

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
