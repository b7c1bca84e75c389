#!/usr/bin/python3
"""A 50 Hz drive-by-wire control loop, as an autonomy stack runs one.

It takes the AUTONOMY lease on a vehicle, enables the kit with its CRC and
rolling-counter checks on, and every 20 ms, on absolute deadlines, sends a
steering angle (a gentle sine) and a ULC velocity target, each with its
rolling counter and CRC-8 (paddock.DbwKit). The kit's watchdog drops a
channel after 100 ms without a command; the loop's commands come every 20
ms, and should one period be missed by more than the watchdog (the machine
stalled), the loop sees the disengagement in the reports and enables the
kit again. At the end (--duration, Ctrl-C) it disables the kit cleanly.

    dbw_loop.py [--host H] [--port P] [--session S --vehicle V] [--speed MPS]
                [--duration S]

Without --session it creates a session and spawns a midsize_sedan in drive.
Twice a second it prints what the kit reports; it exits 1 if the kit never
became active.
"""
import argparse
import math
import signal
import sys
import time

import paddock

PERIOD_S = 0.02            # 50 Hz
WATCHDOG_S = 0.1           # the kit's command timeout (12 ticks)
STEER_AMPLITUDE_DEG = 30.0
STEER_PERIOD_S = 5.0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=7420)
    ap.add_argument("--session", type=int)
    ap.add_argument("--vehicle", type=int)
    ap.add_argument("--speed", type=float, default=8.0, help="ULC velocity target, m/s")
    ap.add_argument("--duration", type=float, default=20.0, help="seconds of wall time")
    args = ap.parse_args(argv)

    stop = []
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    with paddock.Client(args.host, args.port, name="dbw_loop") as c:
        s = args.session or c.create_session("dbw_loop").session_id
        v = args.vehicle or c.spawn(s, "midsize_sedan", gear="DRIVE").vehicle_id
        c.lease(s, v, "autonomy")
        kit = paddock.DbwKit(s, v, crc=True)
        reports = c.subscribe_dbw(s, v, kinds=["system", "ulc", "steering"], timeout=5)
        c.send_dbw(kit.system(enable=True, validate_cmd_crc_rc=True))
        system = ulc = steering = None
        active_seen = False
        start = time.monotonic()
        deadline = start
        last_sent = start
        worst_gap_s = 0.0
        period = 0
        while not stop and time.monotonic() - start < args.duration:
            deadline += PERIOD_S
            time.sleep(max(0.0, deadline - time.monotonic()))
            now = time.monotonic()
            gap_s = now - last_sent
            worst_gap_s = max(worst_gap_s, gap_s)
            if gap_s > WATCHDOG_S:
                # The kit timed out meanwhile: it needs enabling again.
                c.send_dbw(kit.system(enable=True))
                deadline = now
            t = now - start
            c.send_dbw(kit.steering(STEER_AMPLITUDE_DEG *
                                    math.sin(2.0 * math.pi * t / STEER_PERIOD_S)))
            c.send_dbw(kit.ulc(args.speed if t > 1.0 else 0.0, enable_shift=True))
            last_sent = time.monotonic()
            for r in reports.drain():
                if r.kind == "system":
                    system = r.report
                    active_seen = active_seen or system.state == paddock.pb.SYSTEM_STATE_ACTIVE
                elif r.kind == "ulc":
                    ulc = r.report
                else:
                    steering = r.report
            period += 1
            if period % 25 == 0 and system and ulc and steering:
                print(f"t {t:5.2f} s  system {paddock.pb.SystemState.Name(system.state)} "
                      f"{system.reason_not_ready_str or '-'}  "
                      f"v {ulc.vel_meas:5.2f}/{ulc.vel_ref:5.2f} m/s  "
                      f"steer {steering.steering_wheel_angle:6.1f} deg", flush=True)
        # A clean end: the ULC and steering released, then the kit disabled.
        c.send_dbw(kit.ulc(0.0, enable=False))
        c.send_dbw(kit.steering(0.0, enable=False))
        c.send_dbw(kit.system(disable=True))
        reports.close()
        c.lease(s, v, "autonomy", release=True)
    print(f"dbw_loop: {period} periods, longest gap between commands "
          f"{worst_gap_s * 1000:.1f} ms, kit {'was' if active_seen else 'never'} active")
    return 0 if active_seen else 1


if __name__ == "__main__":
    sys.exit(main())
