"""The synchronous and asyncio clients against the real paddockd: requests,
replies by request id, errors by code, subscriptions (rows, timeouts, the
server ending one, the bounded buffer), viewers and control events."""
import asyncio
import math
import time

import pytest

import paddock
import paddock.aio
from paddock import errors, pb


def test_every_error_code_has_its_class():
    for name, number in pb.ErrorCode.items():
        if number == pb.OK:
            continue
        cls = errors.error_class(number)
        assert issubclass(cls, errors.PaddockError)
        assert cls.code == number and cls.code_name == name
        assert cls.__name__ == "".join(p.capitalize() for p in name.split("_"))
    assert errors.error_class(9999) is errors.PaddockError


def test_welcome_and_ping_clocks(client):
    assert client.welcome.tick_rate_hz == 120
    assert client.welcome.max_frame_bytes >= 65536
    p = client.ping()
    assert 0 < p.round_trip_ns < 1_000_000_000
    # Same host, same clock: the estimate is within the round trip.
    assert abs(p.offset_ns) <= p.round_trip_ns
    assert p.server_monotonic_ns > 0


def test_sessions_vehicles_and_errors(client):
    created = [client.create_session(f"py-{i}", timing="fast") for i in range(3)]
    listed = {s.session_id: s for s in client.list_sessions()}
    for s in created:
        assert listed[s.session_id].name == s.name
        assert listed[s.session_id].timing == pb.TIMING_MODE_FAST
    sid = created[0].session_id
    spawned = client.spawn(sid, "ref1_sedan", x_m=5.0, gear="DRIVE")
    assert spawned.vehicle_id > 0
    with pytest.raises(errors.NotFound, match="session 999999"):
        client.spawn(999999, "ref1_sedan")
    with pytest.raises(errors.StaleId):
        client.dbw_command(sid, 4242, throttle_pct=10.0)
    with pytest.raises(errors.InvalidArgument, match="action"):
        client.tyre_command(sid, spawned.vehicle_id, action=0)
    with pytest.raises(ValueError, match="not a TimingMode"):
        client.create_session("bad", timing="sideways")
    assert client.dbw_command(sid, spawned.vehicle_id, throttle_pct=30.0) >= spawned.tick
    assert client.remove(sid, spawned.vehicle_id) > 0
    for s in created:
        client.close_session(s.session_id)


def test_batches_spawn_and_drive_many_cars_at_one_tick(client):
    sid = client.create_session("py-batches").session_id
    cars = [dict(preset=p, x_m=12.0 * i, gear="DRIVE")
            for i, p in enumerate(["ref1_sedan", "traffic_sedan", "compact_hatch"])]
    done = client.spawn_batch(sid, cars)
    assert len(done.vehicle_ids) == 3 and len(set(done.vehicle_ids)) == 3
    tick = client.dbw_command_batch(
        sid, [dict(vehicle_id=v, throttle_pct=20.0, steer_wheel_deg=10.0)
              for v in done.vehicle_ids])
    assert tick >= done.tick
    # One entry refused refuses the batch, named; nothing is spawned.
    with pytest.raises(errors.NotFound, match=r"spawns\[1\]"):
        client.spawn_batch(sid, [dict(preset="ref1_sedan"), dict(preset="no_such_car")])
    with pytest.raises(errors.StaleId, match=r"commands\[0\]: vehicle 4242"):
        client.dbw_command_batch(sid, [dict(vehicle_id=4242, throttle_pct=5.0)])
    listed = {s.session_id: s for s in client.list_sessions()}
    assert listed[sid].vehicle_count == 3
    client.close_session(sid)


def test_state_fields_bring_wheels_and_instruments(client):
    s = client.create_session("py-state-fields", timing="lockstep").session_id
    client.take_step_lease(s, deadline_ms=60000)
    client.spawn(s, "midsize_sedan", speed_mps=10.0, gear="DRIVE")
    for mask in (0, 1, 2, 4, 7):
        sub = client.subscribe_state(s, rate_hz=120, fields=mask, timeout=5)
        client.step(s, 1)
        car = sub.get().vehicles[0]
        assert (len(car.wheels) == 4) == bool(mask & pb.STATE_FIELD_WHEELS), mask
        assert (car.instruments is not None) == bool(mask & pb.STATE_FIELD_INSTRUMENTS), mask
        if mask & pb.STATE_FIELD_INSTRUMENTS:
            assert car.instruments.gear == pb.GEAR_DRIVE and car.instruments.speed_mps > 9.0
        sub.close()
    client.release_step_lease(s)


def test_state_rows_step_and_session_control(client):
    s = client.create_session("py-state", timing="lockstep").session_id
    client.take_step_lease(s, deadline_ms=60000)
    v = client.spawn(s, "midsize_sedan", speed_mps=10.0, gear="DRIVE").vehicle_id
    sub = client.subscribe_state(s, rate_hz=120, timeout=5)
    reply = client.step(s, 3)
    rows = [sub.get() for _ in range(3)]
    # The batch of tick t holds the state after t steps: the step's reply
    # tick is the last batch's.
    assert [r.tick for r in rows] == [reply.tick - 2, reply.tick - 1, reply.tick]
    car = rows[-1].vehicles[0]
    assert car.vehicle_id == v and car.vx_mps > 9.0
    assert rows[-1].wall_time_ns > 0
    # A paused session sends nothing: the wait ends with TimeoutError.
    with pytest.raises(TimeoutError, match="no state frame"):
        sub.get(timeout=0.3)
    sub.close()
    with pytest.raises(StopIteration):
        next(sub)
    client.release_step_lease(s)


def test_a_tick_split_by_max_batch_vehicles_comes_in_parts(client):
    s = client.create_session("py-parts", timing="lockstep").session_id
    client.take_step_lease(s, deadline_ms=60000)
    ids = [client.spawn(s, "kart", x_m=10.0 * i).vehicle_id for i in range(5)]
    sub = client.subscribe_state(s, rate_hz=120, timeout=5, max_batch_vehicles=2)
    reply = client.step(s, 1)
    parts = [sub.get() for _ in range(3)]
    assert [(p.part, p.parts, p.tick) for p in parts] == [(k, 3, reply.tick) for k in range(3)]
    assert [v.vehicle_id for p in parts for v in p.vehicles] == ids
    sub.close()
    client.release_step_lease(s)


def test_an_area_of_interest_keeps_to_its_radius_and_names_its_refusals(client):
    s = client.create_session("py-aoi", timing="lockstep").session_id
    client.take_step_lease(s, deadline_ms=60000)
    near, mid, far = [client.spawn(s, "kart", x_m=x).vehicle_id for x in (0.0, 40.0, 300.0)]
    sub = client.subscribe_state(s, rate_hz=120, timeout=5, aoi_radius_m=50.0)
    around = client.subscribe_state(s, rate_hz=120, timeout=5, aoi_radius_m=5.0,
                                    aoi_vehicle_id=far)
    client.step(s, 1)
    assert [v.vehicle_id for v in sub.get().vehicles] == [near, mid]
    assert [v.vehicle_id for v in around.get().vehicles] == [far]
    sub.close()
    around.close()
    with pytest.raises(errors.OutOfRange, match="aoi_radius_m nan is not a distance"):
        client.subscribe_state(s, aoi_radius_m=float("nan"))
    with pytest.raises(errors.InvalidArgument, match="needs aoi_radius_m above 0"):
        client.subscribe_state(s, aoi_x_m=3.0)
    with pytest.raises(errors.OutOfRange, match="aoi_x_m and aoi_y_m must be finite"):
        client.subscribe_state(s, aoi_radius_m=5.0, aoi_y_m=float("inf"))
    with pytest.raises(errors.StaleId, match="aoi_vehicle_id 4242 is not a vehicle of session"):
        client.subscribe_state(s, aoi_radius_m=5.0, aoi_vehicle_id=4242)
    client.release_step_lease(s)


def test_reset_vehicle_rights_and_places_a_car_and_names_its_refusals(client):
    s = client.create_session("py-reset", timing="lockstep").session_id
    client.take_step_lease(s, deadline_ms=60000)
    v = client.spawn(s, "midsize_sedan", speed_mps=15.0, gear="DRIVE").vehicle_id
    sub = client.subscribe_state(s, rate_hz=120, timeout=5)
    client.step(s, 60)
    moving = [sub.get() for _ in range(60)][-1].vehicles[0]
    assert moving.x_m > 5.0 and moving.speed_mps > 10.0
    # At a place: it stands there at rest, heading as asked, unfaulted.
    tick = client.reset_vehicle(s, v, x_m=-40.0, y_m=7.5, yaw_deg=90.0)
    client.step(s, 1)
    placed = sub.get().vehicles[0]
    assert abs(placed.x_m + 40.0) < 0.01 and abs(placed.y_m - 7.5) < 0.01
    assert abs(placed.yaw_rad - math.pi / 2) < 1e-3
    assert placed.speed_mps < 0.05 and placed.fault_code == 0 and not placed.faulted
    # Where it stands: the place keeps, the motion goes.
    client.step(s, 30)
    rolled = [sub.get() for _ in range(30)][-1].vehicles[0]
    assert client.reset_vehicle(s, v) > tick
    client.step(s, 1)
    righted = sub.get().vehicles[0]
    assert abs(righted.x_m - rolled.x_m) < 0.05 and abs(righted.y_m - rolled.y_m) < 0.05
    assert righted.speed_mps < 0.05
    sub.close()
    with pytest.raises(ValueError, match="x_m and y_m together"):
        client.reset_vehicle(s, v, x_m=1.0)
    with pytest.raises(ValueError, match="x_m and y_m together"):
        client.reset_vehicle(s, v, yaw_deg=10.0)
    with pytest.raises(errors.StaleId):
        client.reset_vehicle(s, 4242)
    with pytest.raises(errors.OutOfRange, match="x_m and y_m must be finite"):
        client.reset_vehicle(s, v, x_m=float("nan"), y_m=0.0)
    client.release_step_lease(s)


def test_a_subscription_the_server_ends_raises_its_error(client):
    s = client.create_session("py-ending").session_id
    client.spawn(s, "kart")
    sub = client.subscribe_state(s, rate_hz=10, timeout=5)
    sub.get()
    client.close_session(s)
    with pytest.raises(errors.Closed, match=f"subscription {sub.subscription_id} ended"):
        for _ in sub:
            pass


def test_an_undrained_subscription_keeps_the_newest_rows(server):
    with paddock.Client("127.0.0.1", server.port, name="slow", queue_size=4) as c:
        s = c.create_session("py-slow").session_id
        c.spawn(s, "kart")
        sub = c.subscribe_state(s, rate_hz=120, timeout=5)
        time.sleep(0.5)
        assert sub.dropped > 0
        ticks = [sub.get().tick for _ in range(4)]
        assert ticks == list(range(ticks[0], ticks[0] + 4))
        assert sub.get().tick > ticks[-1]
        c.close_session(s)


def test_a_viewer_may_watch_but_not_command(server, client):
    s = client.create_session("py-viewer").session_id
    with paddock.Client("127.0.0.1", server.port, name="watcher", viewer=True) as viewer:
        assert any(x.session_id == s for x in viewer.list_sessions())
        with pytest.raises(errors.Protocol, match="viewer"):
            viewer.create_session("nope")
        with pytest.raises(errors.Protocol, match="viewer"):
            viewer.spawn(s, "kart")
        stats = viewer.subscribe_stats(s, rate_hz=20, timeout=5)
        assert stats.get().session_id == s
        stats.close()
    client.close_session(s)


def test_a_higher_lease_pushes_a_control_event(server, client):
    s = client.create_session("py-lease").session_id
    v = client.spawn(s, "midsize_sedan").vehicle_id
    held = client.lease(s, v, "autonomy")
    assert held.source == pb.CONTROL_SOURCE_AUTONOMY
    with paddock.Client("127.0.0.1", server.port, name="driver") as driver:
        with pytest.raises(errors.Busy, match="pytest"):
            driver.lease(s, v, "autonomy")
        driver.lease(s, v, "driver")
        event = client.next_event(timeout=5)
        assert event.vehicle_id == v
        assert event.active_source == pb.CONTROL_SOURCE_DRIVER
        assert event.preempted == pb.CONTROL_SOURCE_AUTONOMY
    # The driver's lease went with its connection: autonomy drives again.
    event = client.next_event(timeout=5)
    assert event.active_source == pb.CONTROL_SOURCE_AUTONOMY
    assert event.preempted == pb.CONTROL_SOURCE_NONE
    client.close_session(s)


def test_calls_after_close_raise_connection_closed(server):
    c = paddock.Client("127.0.0.1", server.port, name="closing")
    c.close()
    with pytest.raises(errors.ConnectionClosed):
        c.ping()


def test_asyncio_client(server):
    async def run():
        async with paddock.aio.Client("127.0.0.1", server.port, name="aio") as c:
            assert c.welcome.tick_rate_hz == 120
            assert (await c.ping()).round_trip_ns > 0
            info = await c.create_session("py-aio", timing="lockstep")
            s = info.session_id
            await c.take_step_lease(s, deadline_ms=60000)
            v = (await c.spawn(s, "kart", speed_mps=3.0)).vehicle_id
            with pytest.raises(errors.NotFound):
                await c.spawn(999999, "kart")
            sub = await c.subscribe_state(s, rate_hz=60, vehicle_ids=[v], timeout=5)
            reply, (a, b) = await asyncio.gather(c.step(s, 4), _two(sub))
            assert [a.tick, b.tick] == [reply.tick - 2, reply.tick]
            assert a.vehicles[0].vehicle_id == v
            with pytest.raises(TimeoutError):
                await sub.get(timeout=0.2)
            await sub.close()
            with pytest.raises(StopAsyncIteration):
                await sub.__anext__()
            sessions = await c.list_sessions()
            assert any(x.session_id == s for x in sessions)
            await c.close_session(s)
    asyncio.run(run())


async def _two(sub):
    rows = []
    async for row in sub:
        rows.append(row)
        if len(rows) == 2:
            return rows


def test_asyncio_subscriptions_end_drain_and_events(server):
    async def run():
        async with paddock.aio.Client("127.0.0.1", server.port, name="aio-2",
                                      queue_size=4) as c:
            s = (await c.create_session("py-aio-2")).session_id
            v = (await c.spawn(s, "midsize_sedan")).vehicle_id
            # A small buffer not drained keeps the newest rows and counts the rest.
            states = await c.subscribe_state(s, rate_hz=120, timeout=5)
            await asyncio.sleep(0.4)
            kept = states.drain()
            assert len(kept) == 4 and states.dropped > 0
            assert [r.tick for r in kept] == list(range(kept[0].tick, kept[0].tick + 4))
            # A kit message with its CRC goes through the coroutine API.
            kit = paddock.DbwKit(s, v, crc=True)
            assert await c.send_dbw(kit.system(enable=True)) > 0
            # A lease taken over by another connection pushes a ControlEvent.
            # (On a car of its own: the kit message took v's AUTONOMY lease.)
            w = (await c.spawn(s, "kart", y_m=5.0)).vehicle_id
            await c.lease(s, w, "ai")
            async with paddock.aio.Client("127.0.0.1", server.port, name="aio-3") as other:
                await other.lease(s, w, "autonomy")
                event = await c.next_event(timeout=5)
                assert event.preempted == pb.CONTROL_SOURCE_AI
            await c.close_session(s)
            with pytest.raises(errors.Closed, match="ended"):
                while True:
                    await states.get()
        with pytest.raises(errors.ConnectionClosed):
            await c.ping()
    asyncio.run(run())


def test_a_hello_the_server_refuses_raises_its_error(server):
    class Future(paddock.Client):
        protocol_version = 2

    class AioFuture(paddock.aio.Client):
        protocol_version = 2

    with pytest.raises(errors.Version):
        Future("127.0.0.1", server.port)

    async def run():
        with pytest.raises(errors.Version):
            await AioFuture("127.0.0.1", server.port).connect()
    asyncio.run(run())


def test_a_draining_server_says_so_and_stops_when_its_sessions_close(tmp_path):
    """SIGTERM with --drain-seconds: the connection's next event is the
    ServerDraining row, no session is created meanwhile, and closing the
    last session ends the drain at once, with exit status 0."""
    import signal
    from conftest import Server
    srv = Server(str(tmp_path), extra=["--drain-seconds", "60"]).start()
    try:
        with paddock.Client("127.0.0.1", srv.port, name="drained") as c:
            s = c.create_session("drained").session_id
            srv.proc.send_signal(signal.SIGTERM)
            event = c.next_event(timeout=5)
            assert isinstance(event, paddock.rows.ServerDraining)
            assert event.grace_s == 60.0 and event.reason == "SIGTERM" and event.sessions == 1
            with pytest.raises(errors.Closed, match="draining"):
                c.create_session("too late")
            c.close_session(s)
        assert srv.proc.wait(timeout=10) == 0, srv.log()
        assert "drained, stopping" in srv.log()
    finally:
        if srv.proc and srv.proc.poll() is None:
            srv.proc.kill()
            srv.proc.wait()
