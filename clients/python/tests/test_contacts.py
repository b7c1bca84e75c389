"""Contact events (docs/multiplayer.md "Contact events"): two sedans rolled
head-on in a lockstep session; a contact subscription yields the tick's
events with the cars as bodies, the point between them, the normal from a to
b, an impulse on b that pushes it back and the closing speed; the recording's
replay sends the same events again; a session that does not exist is refused
by name."""
import math

import pytest

import paddock
from paddock import errors


def head_on(client, name):
    """A recorded lockstep session with two sedans 8 m apart closing at 10 m/s."""
    s = client.create_session(name, timing="lockstep").session_id
    a = client.spawn(s, "midsize_sedan", x_m=-4.0, speed_mps=5.0, gear="NEUTRAL").vehicle_id
    b = client.spawn(s, "midsize_sedan", x_m=4.0, yaw_deg=180.0, speed_mps=5.0,
                     gear="NEUTRAL").vehicle_id
    client.take_step_lease(s, deadline_ms=60000)
    return s, a, b


def test_head_on_contact_events_and_their_replay(client):
    s, a, b = head_on(client, "py-contacts")
    sub = client.subscribe_contacts(s, timeout=5.0)
    assert sub.rate_hz == 120
    client.step(s, 120)
    client.ping()  # every frame pushed before the reply to this has been read
    frames = sub.drain()
    events = list(paddock.contact_events(frames))
    assert events, "no contact events in 120 ticks"
    for frame in frames:
        assert frame.session_id == s
        assert frame.dropped == 0 and frame.missed == 0
        assert frame.first == 0 and frame.total == len(frame.events)
    for tick, e in events:
        assert (e.a_vehicle_id, e.b_vehicle_id, e.a_proxy_id, e.b_proxy_id) == (a, b, 0, 0)
        assert abs(e.x_m) < 0.5 and abs(e.y_m) < 1.2 and 0.0 < e.z_m < 2.0
        assert e.nx > 0.95
        assert math.isclose(math.hypot(e.nx, e.ny, e.nz), 1.0, abs_tol=1e-9)
        along = e.nx * e.ix_ns + e.ny * e.iy_ns + e.nz * e.iz_ns
        assert math.isclose(along, e.normal_impulse_ns, rel_tol=1e-9, abs_tol=1e-9)
        assert 1 <= e.points <= 4
    first = events[0][1]
    assert 9.0 < first.approach_mps < 10.2
    # b moved towards -x: the impulse on it points back along +x, about a
    # sedan's mass times the 10 m/s it loses and more (restitution 0.1).
    impulse_x = sum(e.ix_ns for _, e in events)
    assert 5000.0 < impulse_x < 20000.0
    sub.close()
    client.close_session(s)

    # The replay steps the same world: the same events come again.
    r = client.replay_open(s, paused=True).session_id
    rsub = client.subscribe_contacts(r, timeout=5.0)
    client.run_to_tick(r, max(t for t, _ in events) + 1)
    client.ping()
    again = list(paddock.contact_events(rsub.drain()))
    assert [(t, e) for t, e in again] == events
    rsub.close()
    client.close_session(r)


def test_contact_subscription_refusals_name_what_was_wrong(client):
    with pytest.raises(errors.NotFound, match="does not exist"):
        client.subscribe_contacts(987654321)
