"""Telemetry subscriptions: every row at 60 Hz for 10 s of real time, and 1,000
ticks of live telemetry equal, bit for bit, to the recording's CSV export."""
import struct
import time

import numpy
import pytest

import paddock
from paddock import errors

CHANNELS = ["PosX", "PosY", "PosZ", "Yaw", "Speed", "VelX", "VelY", "YawRate", "AccelX",
            "AccelY", "SteerAngle", "SteerWheel", "Throttle", "BrakePressure", "Gear",
            "TyreLoad_F", "TyreLoad_R", "SlipAngle_F", "SlipAngle_R", "DragForce"]


def spawn_fleet(c, s, n):
    """n single-track sedans side by side, each driven a little differently."""
    ids = []
    for i in range(n):
        v = c.spawn(s, "ref1_sedan", y_m=6.0 * i, speed_mps=5.0 + i, gear="DRIVE").vehicle_id
        c.dbw_command(s, v, throttle_pct=5.0 + 3.0 * i, steer_wheel_deg=10.0 * (i % 3 - 1))
        ids.append(v)
    return ids


@pytest.mark.long
def test_twenty_channels_of_ten_vehicles_at_60_hz_for_10_s_every_row(client):
    s = client.create_session("py-telemetry-10s").session_id
    vehicles = spawn_fleet(client, s, 10)
    sub = client.subscribe_telemetry(s, CHANNELS, rate_hz=60, timeout=5)
    assert sub.rate_hz == 60 and sub.channels == CHANNELS
    ticks = []
    end = time.monotonic() + 10.0
    while time.monotonic() < end:
        batch = sub.get()
        assert batch.vehicle_ids == vehicles
        assert batch.values.shape == (10, 20) and batch.values.dtype == numpy.float64
        ticks.append(batch.tick)
    sub.close()
    client.close_session(s)
    assert sub.dropped == 0
    assert all(t % 2 == 0 for t in ticks)
    # Every tick multiple of 2 in the window, each once.
    assert ticks == list(range(ticks[0], ticks[-1] + 2, 2))
    assert ticks[-1] - ticks[0] >= 2 * 60 * 9


def test_telemetry_refusals_name_what_was_wrong(client):
    s = client.create_session("py-telemetry-refusals").session_id
    with pytest.raises(errors.UnknownKey, match="NoSuchChannel"):
        client.subscribe_telemetry(s, ["Speed", "NoSuchChannel"])
    with pytest.raises(errors.InvalidArgument, match="rate"):
        client.subscribe_telemetry(s, ["Speed"], rate_hz=7)
    client.close_session(s)


def test_1000_live_ticks_equal_the_recordings_csv_bit_for_bit(client):
    s = client.create_session("py-telemetry-csv", timing="lockstep").session_id
    vehicles = spawn_fleet(client, s, 3)
    client.take_step_lease(s, deadline_ms=60000)
    sub = client.subscribe_telemetry(s, CHANNELS, rate_hz=120, timeout=5)
    live = {}
    # One tick per step, so no batch is ever replaced by a newer one.
    for _ in range(1000):
        client.step(s, 1)
        batch = sub.get()
        for i, v in enumerate(batch.vehicle_ids):
            live[(batch.tick, v)] = batch.values[i]
    sub.close()
    client.release_step_lease(s)
    client.close_session(s)
    ticks = sorted({t for t, _ in live})
    assert len(ticks) == 1000 and ticks == list(range(ticks[0], ticks[0] + 1000))

    frame = client.csv_export(s, from_tick=ticks[0], to_tick=ticks[-1], channels=CHANNELS,
                              dataframe=True)
    assert list(frame.columns) == ["tick", "time_s", "vehicle"] + CHANNELS
    assert len(frame) == 1000 * len(vehicles)
    recorded = frame[CHANNELS].to_numpy(dtype=numpy.float64)
    for row, (tick, v) in enumerate(zip(frame["tick"], frame["vehicle"])):
        mine = live[(int(tick), int(v))]
        theirs = recorded[row]
        if not numpy.array_equal(mine.view(numpy.uint64), theirs.view(numpy.uint64)):
            j = int(numpy.flatnonzero(mine.view(numpy.uint64) != theirs.view(numpy.uint64))[0])
            pytest.fail(f"tick {tick} vehicle {v} {CHANNELS[j]}: live {mine[j]!r} "
                        f"({struct.pack('<d', mine[j]).hex()}), csv {theirs[j]!r}")


def test_an_input_answered_at_tick_t_shows_first_in_the_batch_of_t_plus_1(client):
    s = client.create_session("py-telemetry-timeline").session_id
    tick = client.pause(s).tick
    v = client.spawn(s, "midsize_sedan", gear="DRIVE").vehicle_id
    sub = client.subscribe_telemetry(s, ["Throttle", "SteerWheel"], vehicle_ids=[v],
                                     timeout=5)
    tick = client.step(s, 2).tick
    batch = sub.get()
    while batch.tick < tick:
        batch = sub.get()
    applied = client.dbw_command(s, v, throttle_pct=40.0, steer_wheel_deg=90.0)
    assert applied == tick  # paused: applied at once, at the paused tick T
    assert list(batch.values[0]) == [0.0, 0.0]
    client.step(s, 1)
    after = sub.get()
    # The step of T is the first to use the input: the batch of T + 1 shows it.
    assert after.tick == tick + 1
    assert after.values[0][0] > 0.0 and after.values[0][1] > 0.0
    sub.close()
    client.close_session(s)
