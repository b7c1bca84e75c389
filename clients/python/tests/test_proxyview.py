"""paddock.ProxyView: exact where its model is (a cubic path, a constant yaw
rate), a capped extrapolation, eased corrections and snaps, teleports, the
adaptive delay, the clock filter, named errors; the issue's targets through a
simulated network (a 0.5 g turn at 30 m/s sent at 30 Hz, 50 +- 20 ms, 2 %
and 5 % loss, seeded); and teleport_count from the real server after a
vehicle reset."""
import math
import random
import time

import pytest

from paddock.proxyview import (EXTRAPOLATING, HOLDING, INTERPOLATING, WAITING, NoFreeTrack,
                               ProxyView, Sample, Settings, StaleSample, UnknownVehicle,
                               euler_from_quat, quat_from_euler)

NS = 1_000_000_000
T0 = 1_700_000_000 * NS
G = 9.80665


def turn(t_s):
    """The true state at t_s on a 0.5 g circle at 30 m/s (left)."""
    v, a = 30.0, 0.5 * G
    r, w = v * v / a, v / (v * v / a)
    return dict(x=r * math.sin(w * t_s), y=r * (1.0 - math.cos(w * t_s)), yaw=w * t_s,
                vx=v, yaw_rate=w)


class State:
    """A VehicleState as the client's rows carry it."""

    def __init__(self, vehicle_id, x, y, yaw, vx, yaw_rate, teleport_count=0):
        self.vehicle_id, self.x_m, self.y_m, self.z_m = vehicle_id, x, y, 0.0
        self.yaw_rad, self.pitch_rad, self.roll_rad = yaw, 0.0, 0.0
        self.vx_mps, self.vy_mps, self.vz_mps = vx, 0.0, 0.0
        self.yaw_rate_radps = yaw_rate
        self.teleport_count = teleport_count


def turn_sample(t_s, vehicle_id=1, teleport_count=0):
    st = turn(t_s)
    return Sample.from_state(State(vehicle_id, st["x"], st["y"], st["yaw"], st["vx"],
                                   st["yaw_rate"], teleport_count),
                             T0 + round(t_s * NS), t_s)


def feed_turn(view, t_end_s, late_ns=NS // 20):
    k = 0
    while k / 30.0 <= t_end_s + 1e-9:
        s = turn_sample(k / 30.0)
        view.arrival(s.server_ns, s.server_ns + late_ns)
        view.push(s, s.server_ns + late_ns)
        k += 1


def test_settings_are_checked_and_named():
    Settings().check()
    with pytest.raises(ValueError, match="snap_distance_m is nan"):
        Settings(snap_distance_m=float("nan")).check()
    with pytest.raises(ValueError, match=r"delay_max_s \(0.2 s\) is below delay_floor_s"):
        ProxyView(Settings(delay_floor_s=0.5, delay_max_s=0.2))
    with pytest.raises(ValueError, match="at least one track"):
        ProxyView(max_vehicles=0)


def test_euler_quaternion_round_trip_and_iso_8855_signs():
    for yaw, pitch, roll in [(0.3, 0.05, -0.04), (-2.9, -0.2, 0.3)]:
        back = euler_from_quat(quat_from_euler(yaw, pitch, roll))
        assert all(abs(a - b) < 1e-12 for a, b in zip(back, (yaw, pitch, roll)))
    w, x, y, z = quat_from_euler(0.0, 0.1, 0.0)
    assert abs(2.0 * (x * z - w * y) + math.sin(0.1)) < 1e-15  # nose down


def test_hermite_is_exact_on_a_cubic_path():
    view = ProxyView()
    c = [(1.0, 20.0, -3.0, 0.7), (-4.0, 2.0, 1.5, -0.4), (0.3, 0.0, 0.1, 0.02)]
    path = lambda t: tuple(a + b * t + d * t * t + e * t ** 3 for a, b, d, e in c)
    speed = lambda t: tuple(b + 2 * d * t + 3 * e * t * t for a, b, d, e in c)
    for t in (0.0, 0.033, 0.1, 0.117, 0.2, 0.3):
        view.push(Sample(7, T0 + round(t * NS), t, path(t), speed(t)), T0)
    track = view.tracks[7]
    for j in range(1, 300):
        t = j * 0.001
        mode, pos, _ = track.eval(view.settings, T0 + round(t * NS))
        assert mode == INTERPOLATING
        assert math.dist(pos, path(t)) < 1e-9


def test_slerp_turns_at_a_constant_rate_across_the_seam():
    view = ProxyView()
    w, yaw0 = 0.9, 2.9
    for k in range(10):
        t = k / 30.0
        yaw = math.remainder(yaw0 + w * t, 2 * math.pi)
        view.push(Sample(3, T0 + round(t * NS), t, (0, 0, 0), (0, 0, 0), yaw_rad=yaw), T0)
    for j in range(1, 290):
        t = j * 0.001
        _, _, q = view.tracks[3].eval(view.settings, T0 + round(t * NS))
        assert abs(math.remainder(euler_from_quat(q)[0] - (yaw0 + w * t), 2 * math.pi)) < 1e-9


def test_extrapolation_follows_the_circle_then_holds():
    view = ProxyView()
    for k in range(31):
        view.push(turn_sample(k / 30.0), T0)
    track = view.tracks[1]
    mode, pos, q = track.eval(view.settings, T0 + NS + NS // 10)
    assert mode == EXTRAPOLATING
    truth = turn(1.1)
    assert math.dist(pos, (truth["x"], truth["y"], 0.0)) < 2e-4
    assert abs(euler_from_quat(q)[0] - truth["yaw"]) < 1e-9
    _, held, _ = track.eval(view.settings, T0 + NS + NS // 4)
    mode, pos, _ = track.eval(view.settings, T0 + 3 * NS)
    assert mode == HOLDING and pos == held


def test_corrections_ease_out_and_large_ones_snap():
    view = ProxyView()
    feed_turn(view, 1.0)
    now = T0 + NS + NS // 20 + NS * 3 // 10
    a = view.draw(1, now)
    assert a.mode == EXTRAPOLATING
    s = turn_sample(31 / 30.0)
    s.pos_m = (s.pos_m[0], s.pos_m[1] + 0.5, s.pos_m[2])
    view.push(s, now)
    b = view.draw(1, now)
    assert math.dist(a.pos_m, b.pos_m) < 1e-9
    track = view.tracks[1]
    err0 = math.dist(b.pos_m, track.eval(view.settings, b.drawn_server_ns)[1])
    assert err0 > 0.1
    b = view.draw(1, now + NS // 2)
    err = math.dist(b.pos_m, track.eval(view.settings, b.drawn_server_ns)[1])
    assert abs(err - err0 * math.exp(-5.0)) < 1e-9
    assert track.snaps == 0
    s = turn_sample(32 / 30.0)
    s.pos_m = (s.pos_m[0] + 10.0, s.pos_m[1], s.pos_m[2])
    view.push(s, now + NS // 2)
    assert track.snaps == 1
    b = view.draw(1, now + NS // 2)
    assert math.dist(b.pos_m, track.eval(view.settings, b.drawn_server_ns)[1]) == 0.0


def test_a_teleport_jumps_and_late_samples_from_before_it_are_refused():
    view = ProxyView()
    feed_turn(view, 1.0)
    now = T0 + NS + NS // 20
    assert view.draw(1, now).mode == INTERPOLATING
    s = turn_sample(31 / 30.0, teleport_count=1)
    s.pos_m = (500.0, -200.0, 0.0)
    view.push(s, now)
    pose = view.draw(1, now)
    assert pose.mode == WAITING and pose.pos_m[:2] == (500.0, -200.0)
    assert view.tracks[1].teleports == 1 and view.tracks[1].snaps == 0
    with pytest.raises(StaleSample, match="teleport_count 0, older than the 1 drawn"):
        view.push(turn_sample(32 / 30.0), now)


def test_errors_name_what_was_wrong():
    view = ProxyView(max_vehicles=1)
    s = turn_sample(0.5)
    view.push(s, s.server_ns)
    with pytest.raises(StaleSample, match="older than every sample kept or repeats one"):
        view.push(s, s.server_ns)
    with pytest.raises(StaleSample):
        view.push(turn_sample(0.4), s.server_ns)
    other = turn_sample(0.5, vehicle_id=2)
    with pytest.raises(NoFreeTrack, match="no track free for vehicle 2"):
        view.push(other, s.server_ns)
    view.push(other, s.server_ns + 3 * NS)  # vehicle 1 silent for 3 s: its track is free
    assert 1 not in view.tracks
    bad = turn_sample(0.6, vehicle_id=2)
    bad.pos_m = (0.0, float("nan"), 0.0)
    with pytest.raises(ValueError, match=r"vehicle 2's sample has a non-finite pos_m\[y\]"):
        view.push(bad, s.server_ns)
    with pytest.raises(UnknownVehicle, match="no sample of vehicle 9"):
        view.draw(9, s.server_ns)
    with pytest.raises(UnknownVehicle):
        view.forget(9)
    with pytest.raises(ValueError, match="no wall_time_ns stamp"):
        view.arrival(0, s.server_ns)
    with pytest.raises(ValueError, match="round trip of 0 ns"):
        view.clock_sample(5, 0)


def test_a_tick_in_parts_is_one_arrival():
    from paddock.rows import StateRow
    view = ProxyView()
    first = turn_sample(0.0)
    for part in range(3):
        state = State(10 + part, 1.0, 2.0, 0.0, 5.0, 0.0)
        view.push_row(StateRow(1, 1, 1, 0.0, first.server_ns, [state], part, 3),
                      first.server_ns + NS // 100)
    assert view.arrivals == 1
    assert all(view.tracks.get(10 + part) for part in range(3))


def test_the_delay_follows_interval_and_jitter():
    view = ProxyView()
    stamp = T0
    for _ in range(60):
        view.arrival(stamp, stamp + NS // 20)
        stamp += NS // 30
    assert abs(view.interval_s - 1 / 30) < 1e-9 and abs(view.latency_s - 0.05) < 1e-9
    assert abs(view.delay_s - 0.15) < 1e-8
    rng = random.Random(42)
    for _ in range(3000):
        view.arrival(stamp, stamp + NS // 20 + round(rng.uniform(-0.02, 0.02) * NS))
        stamp += NS // 30
    assert abs(view.jitter_s - 0.04 / 3) < 0.003  # E|X - Y| of two uniforms on +-20 ms
    assert abs(view.delay_target_s - (view.latency_s + 0.1 + 2 * view.jitter_s)) < 1e-9


def test_the_clock_filter_keeps_the_shortest_round_trip_and_the_picture():
    view = ProxyView()
    feed_turn(view, 1.0)
    before = view.draw(1, T0 + NS)
    view.clock_sample(5_000_000, 90_000_000)
    view.clock_sample(1_000_000, 60_000_000)
    view.clock_sample(9_000_000, 140_000_000)
    assert view.offset_ns == 1_000_000 and view.round_trip_ns == 60_000_000
    assert view.draw(1, T0 + NS).drawn_server_ns == before.drawn_server_ns


def run_network(rate_hz, loss, seconds=20.0, seed=29, settings=None):
    """The turn through a simulated network: every 120/rate-th tick sent,
    lost with probability loss, else 50 ms +- 20 ms late (uniform), stamps
    0-0.1 ms late as the server's ticks are, the client's clock 3.7 s ahead,
    a ping a second; drawn at 60 Hz, the first 2 s not counted. Returns
    (position p95 in m, heading p95 in degrees, snaps, largest step error)."""
    rng = random.Random(seed)
    ahead = 3_700_000_000
    arrivals = []
    for k in range(0, int(seconds * 120) + 1, 120 // rate_hz):
        if rng.random() < loss:
            continue
        late_ns = round(rng.uniform(0.0, 1e-4) * NS)
        stamp = T0 + k * NS // 120 + late_ns
        arrive = stamp + ahead + round((0.05 + rng.uniform(-0.02, 0.02)) * NS)
        arrivals.append((arrive, k, stamp))
    arrivals.sort()
    view = ProxyView(settings)
    pos_err, head_err, prev, worst_step = [], [], None, 0.0
    i, next_ping = 0, 0
    for f in range(int(seconds * 60)):
        now = T0 + ahead + f * NS // 60
        while T0 + ahead + next_ping * NS <= now:
            t0 = T0 + ahead + next_ping * NS
            up, down = (0.05 + rng.uniform(-0.02, 0.02) for _ in range(2))
            t12 = t0 - ahead + round(up * NS)
            t3 = t0 + round((up + down) * NS)
            view.clock_sample(((t12 - t0) + (t12 - t3)) // 2, t3 - t0)
            next_ping += 1
        while i < len(arrivals) and arrivals[i][0] <= now:
            arrive, k, stamp = arrivals[i]
            st = turn(k / 120)
            view.arrival(stamp, arrive)
            view.push(Sample.from_state(State(1, st["x"], st["y"], st["yaw"], st["vx"],
                                              st["yaw_rate"]), stamp, k / 120), arrive)
            i += 1
        if 1 not in view.tracks:
            continue
        pose = view.draw(1, now)
        truth = turn((pose.drawn_server_ns - T0) / NS)
        if f < 120:
            continue
        true_pos = (truth["x"], truth["y"], 0.0)
        pos_err.append(math.dist(pose.pos_m, true_pos))
        head_err.append(abs(math.degrees(math.remainder(pose.yaw_rad - truth["yaw"],
                                                        2 * math.pi))))
        if prev is not None:
            step = [(p - q) - (a - b) for p, q, a, b in zip(pose.pos_m, prev[0], true_pos,
                                                            prev[1])]
            worst_step = max(worst_step, math.hypot(*step))
        prev = (pose.pos_m, true_pos)
    p95 = lambda xs: sorted(xs)[math.ceil(0.95 * len(xs)) - 1]
    return p95(pos_err), p95(head_err), view.tracks[1].snaps, worst_step


def test_the_issue_targets_through_a_simulated_network():
    pos, head, snaps, step = run_network(30, 0.02)
    print(f"turn 30 Hz 2 %: p95 {pos:.4f} m, heading p95 {head:.4f} deg, step {step:.4f} m")
    assert pos < 0.05 and head < 0.5 and snaps == 0 and step < 0.10
    pos, head, snaps, step = run_network(30, 0.05)
    assert pos < 0.15 and snaps == 0
    # The measure can fail: without a buffer or an extrapolation the view
    # holds behind the car most of the time.
    bare = Settings(send_intervals=0.0, jitter_scale=0.0, delay_floor_s=0.0,
                    extrapolate_max_s=0.0)
    pos, _, _, _ = run_network(30, 0.02, settings=bare)
    assert pos > 0.05


def test_teleport_count_from_the_server_makes_the_view_jump(client):
    s = client.create_session("py-proxy-view").session_id
    v = client.spawn(s, "midsize_sedan", speed_mps=15.0, gear="DRIVE").vehicle_id
    ping = client.ping()
    view = ProxyView()
    view.clock_sample(ping.offset_ns, max(ping.round_trip_ns, 1))
    sub = client.subscribe_state(s, rate_hz=30, timeout=5)
    for _ in range(6):
        view.push_row(sub.get(), time.time_ns())
    assert view.draw(v, time.time_ns()).pos_m[0] > 0.0
    client.reset_vehicle(s, v, x_m=-40.0, y_m=7.5, yaw_deg=90.0)
    while True:
        row = sub.get()
        view.push_row(row, time.time_ns())
        if row.vehicles[0].teleport_count == 1:
            break
    pose = view.draw(v, time.time_ns())
    assert view.tracks[v].teleports == 1 and view.tracks[v].snaps == 0
    assert math.dist(pose.pos_m[:2], (-40.0, 7.5)) < 0.05
    sub.close()
    client.close_session(s)
