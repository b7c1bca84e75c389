"""The official protobuf runtime decodes every frame body the server sends,
each with no unknown fields: the server hand-encodes some frames
(server/wire/wire.c), so a field number or wire type it gets wrong shows
here as an unknown field or a failed parse."""
import collections
import threading
import time

import pytest

import paddock
from paddock import pb

SERVER_BODIES = {
    "welcome", "error", "ok", "pong", "session_created", "session_list_reply",
    "vehicle_spawned", "control_lease_reply", "control_event", "subscribed", "state_batch",
    "dbw_report", "session_control_reply", "session_stats", "verify_reply", "export_chunk",
    "session_imported", "session_meta", "recording_list_reply", "telemetry_schema",
    "telemetry_batch",
}


class Tap:
    """Every frame the clients receive, by body, checked as it arrives."""

    def __init__(self):
        self.bodies = collections.defaultdict(list)
        self.problems = []
        self.lock = threading.Lock()

    def __call__(self, frame):
        problems = list(walk(frame, "Frame"))
        again = pb.Frame.FromString(frame.SerializeToString())
        if again != frame:
            problems.append("Frame: does not survive a serialize and parse")
        with self.lock:
            self.bodies[frame.WhichOneof("body")].append(frame)
            self.problems += problems


def walk(message, path):
    """Each problem of a parsed message: unknown fields, fields not its own."""
    if len(message.UnknownFields()) != 0:
        numbers = [f.field_number for f in message.UnknownFields()]
        yield f"{path}: unknown fields {numbers}"
    for field, value in message.ListFields():
        if field.containing_type is not message.DESCRIPTOR:
            yield f"{path}.{field.name}: not a field of {message.DESCRIPTOR.name}"
        if field.type != field.TYPE_MESSAGE:
            continue
        if field.label == field.LABEL_REPEATED:
            for i, item in enumerate(value):
                yield from walk(item, f"{path}.{field.name}[{i}]")
        else:
            yield from walk(value, f"{path}.{field.name}")


def wait_for(predicate, timeout_s=10.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def test_every_body_the_server_sends_decodes_without_unknown_fields(server):
    tap = Tap()
    mask_subs = {}
    with paddock.Client("127.0.0.1", server.port, name="frames", tap=tap) as c, \
            paddock.Client("127.0.0.1", server.port, name="frames-2", tap=tap) as other:
        c.ping()
        with pytest.raises(paddock.errors.NotFound):
            c.close_session(987654)
        s = c.create_session("frames").session_id
        c.list_sessions()
        v = c.spawn(s, "midsize_sedan", speed_mps=5.0, gear="DRIVE").vehicle_id
        c.dbw_command(s, v, throttle_pct=10.0)
        for mask in (0, 1, 2, 4, 7):
            mask_subs[mask] = c.subscribe_state(s, rate_hz=60, fields=mask, timeout=5)
        dbw = c.subscribe_dbw(s, v, timeout=5)
        kit = paddock.DbwKit(s, v, crc=True)
        c.send_dbw(kit.system(enable=True))
        c.send_dbw(kit.ulc(3.0))
        stats = c.subscribe_stats(s, rate_hz=20, timeout=5)
        telemetry = c.subscribe_telemetry(s, ["Speed", "PosX", "YawRate"], vehicle_ids=[v],
                                          rate_hz=30, timeout=5)
        # A higher source's lease pushes a ControlEvent to the lower holder.
        # (On a vehicle of its own: the DbwCommand above took v's DRIVER lease.)
        leased = c.spawn(s, "kart", y_m=10.0).vehicle_id
        c.lease(s, leased, "autonomy")
        other.lease(s, leased, "driver")
        c.next_event(timeout=5)

        kinds = set()
        deadline = time.monotonic() + 10
        while len(kinds) < len(pb.DbwReportKind.keys()) and time.monotonic() < deadline:
            kinds.add(dbw.get().kind)
        assert len(kinds) == len(pb.DbwReportKind.keys()), kinds
        # Each mask's batches decode (test_client.py checks what each brings).
        for mask, sub in mask_subs.items():
            assert sub.get().vehicles[0].vehicle_id == v, mask
            sub.close()
        stats.get()
        row = telemetry.get()
        assert row.channels == ["Speed", "PosX", "YawRate"] and row.vehicle_ids == [v]
        c.pause(s)
        c.close_session(s)

        c.verify(s)
        c.session_meta(s)
        exported = c.export_bytes(s)
        c.csv_export(s, to_tick=10, channels=["Speed"])
        c.import_session(exported)
        c.list_recordings()

    missing = SERVER_BODIES - set(tap.bodies)
    assert not missing, f"never provoked: {sorted(missing)}"
    assert not tap.problems, "\n".join(tap.problems)
    assert set(tap.bodies) <= SERVER_BODIES, set(tap.bodies) - SERVER_BODIES


def test_the_walk_finds_an_unknown_field_however_deep():
    # A Pong with an extra field 9 (varint 1) inside a Frame: the walk names it.
    pong = pb.Pong(client_time_ns=5).SerializeToString() + bytes([9 << 3, 1])
    raw = pb.Frame(request_id=1).SerializeToString() + bytes([15 << 3 | 2, len(pong)]) + pong
    frame = pb.Frame.FromString(raw)
    assert list(walk(frame, "Frame")) == ["Frame.pong: unknown fields [9]"]
