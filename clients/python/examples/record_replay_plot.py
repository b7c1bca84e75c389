#!/usr/bin/python3
"""Record a run, replay it, verify it, and plot its telemetry to a PNG.

1. Records a step steer: a sedan at 15 m/s whose wheel turns 60 deg after
   one second, in a paused session stepped from here.
2. Verifies the recording (re-simulated against every recorded state hash).
3. Replays it as a new session and checks the replay's state rows equal the
   live run's, tick for tick.
4. Exports its telemetry as CSV into a pandas DataFrame and plots the path
   and the yaw rate with matplotlib.

    record_replay_plot.py [--host H] [--port P] [--duration S] [--out FILE.png]
"""
import argparse
import sys

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402

import paddock  # noqa: E402

STEER_AT_S = 1.0
STEER_WHEEL_DEG = 60.0
STEP_TICKS = 12


def record(c, duration_s):
    """The recorded session's id and its state rows by tick."""
    s = c.create_session("record_replay_plot").session_id
    tick = c.pause(s).tick
    # Steps end on multiples of STEP_TICKS, where the state rows come.
    c.run_to_tick(s, -(-tick // STEP_TICKS) * STEP_TICKS)
    v = c.spawn(s, "midsize_sedan", speed_mps=15.0, gear="DRIVE").vehicle_id
    c.dbw_command(s, v, throttle_pct=25.0)
    states = c.subscribe_state(s, rate_hz=120 // STEP_TICKS, timeout=10)
    live = {}
    steered = False
    ticks = int(duration_s * 120)
    for _ in range(0, ticks, STEP_TICKS):
        tick = c.step(s, STEP_TICKS).tick
        while True:
            row = states.get()
            live[row.tick] = row.vehicles
            if row.tick >= tick:
                break
        if not steered and row.sim_time_s >= STEER_AT_S:
            c.dbw_command(s, v, steer_wheel_deg=STEER_WHEEL_DEG)
            steered = True
    states.close()
    c.close_session(s)
    return s, live


def replay(c, s, live):
    """Runs a replay of s to each of the live run's ticks and compares the
    rows; returns how many were equal (it stops at the first that is not)."""
    r = c.replay_open(s, paused=True)
    states = c.subscribe_state(r.session_id, rate_hz=120 // STEP_TICKS, timeout=10)
    matched = 0
    for tick in sorted(t for t in live if t > r.tick):
        c.run_to_tick(r.session_id, tick)
        row = states.get()
        while row.tick < tick:
            row = states.get()
        if row.vehicles != live[tick]:
            raise SystemExit(f"record_replay_plot: the replay differs at tick {tick}")
        matched += 1
    states.close()
    c.close_session(r.session_id)
    return matched


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=7420)
    ap.add_argument("--duration", type=float, default=6.0, help="sim time to record, s")
    ap.add_argument("--out", default="record_replay_plot.png")
    args = ap.parse_args(argv)

    with paddock.Client(args.host, args.port, name="record_replay_plot") as c:
        s, live = record(c, args.duration)
        verdict = c.verify(s)
        print(f"verify: {verdict.message}")
        if not verdict.match:
            return 1
        matched = replay(c, s, live)
        print(f"replay: {matched} state rows equal to the live run's")
        frame = c.csv_export(s, channels=["PosX", "PosY", "YawRate", "Speed"], dataframe=True)

    fig, (path, yaw) = plt.subplots(1, 2, figsize=(11, 4.5))
    path.plot(frame["PosX"], frame["PosY"])
    path.set_xlabel("x (m)")
    path.set_ylabel("y (m)")
    path.set_aspect("equal", adjustable="datalim")
    path.set_title(f"session {s}: path")
    yaw.plot(frame["time_s"], frame["YawRate"])
    yaw.set_xlabel("time (s)")
    yaw.set_ylabel("yaw rate (rad/s)")
    yaw.set_title(f"step steer of {STEER_WHEEL_DEG:.0f} deg at {STEER_AT_S:.0f} s")
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print(f"record_replay_plot: {len(frame)} CSV rows plotted to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
