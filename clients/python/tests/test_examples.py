"""Each example in clients/python/examples runs briefly against the real
server and does what it says, so the examples cannot rot."""
import os
import subprocess
import sys

import pytest

from conftest import python_env

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")


def run(server, script, *args):
    done = subprocess.run([sys.executable, os.path.join(EXAMPLES, script), "--port",
                           str(server.port), *args], env=python_env(), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_drive_lap_goes_round_the_skidpad(server):
    out = run(server, "drive_lap.py", "--duration", "40")
    assert "drive_lap: lap after" in out
    off_m = float(out.split("at most ")[1].split(" m")[0])
    assert off_m < 1.0


def test_drive_lap_stops_at_its_duration(server):
    assert "drive_lap: stopped after" in run(server, "drive_lap.py", "--duration", "2")


@pytest.mark.long
def test_dbw_loop_keeps_the_kit_active_and_inside_the_watchdog(server):
    out = run(server, "dbw_loop.py", "--duration", "2.5")
    assert "kit was active" in out
    gap_ms = float(out.split("longest gap between commands ")[1].split(" ms")[0])
    assert gap_ms < 100.0


def test_record_replay_plot_writes_its_png(server, tmp_path):
    png = tmp_path / "plot.png"
    out = run(server, "record_replay_plot.py", "--duration", "3", "--out", str(png))
    assert "matches its recording" in out and "state rows equal" in out
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
