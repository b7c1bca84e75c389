#!/usr/bin/python3
"""Drive one lap of the skidpad's 40 m circle from a script.

The session is paused and stepped from here, 6 ticks (20 Hz) at a time: each
step's state row feeds a pure-pursuit steering law and a speed controller,
whose DbwCommand applies at once at the paused tick. So the lap runs as fast
as the machine allows and comes out the same every time.

    drive_lap.py [--host H] [--port P] [--speed MPS] [--duration S]

--duration caps the sim time (s); the script stops at the end of the lap or
then, whichever comes first, and prints the lap time and how far the car
strayed from the circle.
"""
import argparse
import math
import sys

import paddock

# The skidpad's circle (presets/worlds/skidpad.json): centred at (0, 40) m,
# radius 40 m, driven anticlockwise from the origin heading +x.
CENTRE_X_M, CENTRE_Y_M, RADIUS_M = 0.0, 40.0, 40.0
# ref1_sedan's data sheet: wheelbase and steering ratio.
WHEELBASE_M, STEER_RATIO = 2.7, 15.0
LOOKAHEAD_M = 8.0
STEP_TICKS = 6
SPEED_GAIN_PCT_PER_MPS = 15.0


def target_point(x_m, y_m):
    """The point on the circle LOOKAHEAD_M ahead (anticlockwise) of the car's nearest one."""
    angle = math.atan2(y_m - CENTRE_Y_M, x_m - CENTRE_X_M) + LOOKAHEAD_M / RADIUS_M
    return CENTRE_X_M + RADIUS_M * math.cos(angle), CENTRE_Y_M + RADIUS_M * math.sin(angle)


def steer_wheel_deg(car):
    """Pure pursuit: the road-wheel angle whose arc reaches the target point."""
    tx, ty = target_point(car.x_m, car.y_m)
    alpha = math.atan2(ty - car.y_m, tx - car.x_m) - car.yaw_rad
    distance_m = math.hypot(tx - car.x_m, ty - car.y_m)
    road_wheel_rad = math.atan2(2.0 * WHEELBASE_M * math.sin(alpha), distance_m)
    return math.degrees(road_wheel_rad) * STEER_RATIO


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=7420)
    ap.add_argument("--speed", type=float, default=12.0, help="target speed, m/s")
    ap.add_argument("--duration", type=float, default=60.0, help="sim time cap, s")
    args = ap.parse_args(argv)

    with paddock.Client(args.host, args.port, name="drive_lap") as c:
        s = c.create_session("drive_lap", world_preset="skidpad").session_id
        tick = c.pause(s).tick
        # Steps end on multiples of STEP_TICKS, where the state rows come.
        c.run_to_tick(s, -(-tick // STEP_TICKS) * STEP_TICKS)
        v = c.spawn(s, "ref1_sedan", gear="DRIVE").vehicle_id
        states = c.subscribe_state(s, rate_hz=120 // STEP_TICKS, vehicle_ids=[v], timeout=10)
        start = None
        turned_rad = 0.0
        last_yaw = 0.0
        worst_m = 0.0
        while True:
            tick = c.step(s, STEP_TICKS).tick
            row = states.get()
            while row.tick < tick:  # the row of the tick the step ended on
                row = states.get()
            car = row.vehicles[0]
            start = row.sim_time_s if start is None else start
            turned_rad += math.remainder(car.yaw_rad - last_yaw, 2.0 * math.pi)
            last_yaw = car.yaw_rad
            off_m = abs(math.hypot(car.x_m - CENTRE_X_M, car.y_m - CENTRE_Y_M) - RADIUS_M)
            worst_m = max(worst_m, off_m)
            if turned_rad >= 2.0 * math.pi or row.sim_time_s - start >= args.duration:
                break
            error_mps = args.speed - car.speed_mps
            c.dbw_command(s, v, steer_wheel_deg=steer_wheel_deg(car),
                          throttle_pct=min(100.0, max(0.0, SPEED_GAIN_PCT_PER_MPS * error_mps)),
                          brake_bar=min(40.0, max(0.0, -10.0 * error_mps)))
        states.close()
        c.close_session(s)
    lap = turned_rad >= 2.0 * math.pi
    print(f"drive_lap: {'lap' if lap else 'stopped'} after {row.sim_time_s - start:.2f} s of "
          f"sim time, {math.degrees(turned_rad):.0f} deg turned, at most {worst_m:.2f} m "
          f"off the circle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
