"""The typed rows that subscriptions yield, and their conversion from frames.

The per-object classes (VehicleState, WheelState, Instruments, the DBW
report blocks, SessionStats) are dataclasses made from the contract's
message descriptors, so their fields are the proto's, with the units in
their names, and cannot drift from it. A nested message becomes its own
dataclass (None when the frame leaves it out, as VehicleState.instruments
is without STATE_FIELD_INSTRUMENTS), a repeated field a list, an enum its
number.
"""
import dataclasses
from typing import List

from google.protobuf.descriptor import FieldDescriptor

from ._pb import pb

try:
    import numpy
except ImportError:  # numpy is optional: telemetry values are then lists
    numpy = None

_classes = {}


def row_class(descriptor):
    """The dataclass mirroring a message descriptor (made once, then reused)."""
    cls = _classes.get(descriptor.full_name)
    if cls is None:
        fields = [(f.name, object, dataclasses.field(default=None)) for f in descriptor.fields]
        cls = dataclasses.make_dataclass(descriptor.name, fields, frozen=True,
                                         namespace={"__module__": __name__})
        _classes[descriptor.full_name] = cls
    return cls


def to_row(message):
    """A message as its dataclass, nested messages and lists included."""
    descriptor = message.DESCRIPTOR
    values = {}
    for f in descriptor.fields:
        value = getattr(message, f.name)
        if f.type == FieldDescriptor.TYPE_MESSAGE:
            if f.label == FieldDescriptor.LABEL_REPEATED:
                value = [to_row(v) for v in value]
            elif message.HasField(f.name):
                value = to_row(value)
            else:
                value = None
        elif f.label == FieldDescriptor.LABEL_REPEATED:
            value = list(value)
        elif f.containing_oneof is not None and not message.HasField(f.name):
            value = None
        values[f.name] = value
    return row_class(descriptor)(**values)


VehicleState = row_class(pb.VehicleState.DESCRIPTOR)
WheelState = row_class(pb.WheelState.DESCRIPTOR)
Instruments = row_class(pb.Instruments.DESCRIPTOR)
SessionStats = row_class(pb.SessionStats.DESCRIPTOR)


@dataclasses.dataclass(frozen=True)
class StateRow:
    """One StateBatch: the vehicles after the step of tick - 1 (docs/protocol.md "Ticks")."""
    subscription_id: int
    session_id: int
    tick: int
    sim_time_s: float
    wall_time_ns: int            # UTC ns when the server stepped this tick
    vehicles: List[object]       # VehicleState rows
    # A tick split by max_batch_vehicles: this is part `part` of `parts`
    # (both 0 for a tick in one batch).
    part: int = 0
    parts: int = 0


@dataclasses.dataclass(frozen=True)
class TelemetryRows:
    """One TelemetryBatch: `values[i][j]` is channel `channels[j]` of vehicle `vehicle_ids[i]`.

    `values` is a float64 numpy array of shape (vehicles, channels) when numpy
    is importable, else a list of lists."""
    subscription_id: int
    session_id: int
    tick: int
    sim_time_s: float
    wall_time_ns: int
    channels: List[str]
    vehicle_ids: List[int]
    values: object


@dataclasses.dataclass(frozen=True)
class DbwReport:
    """One DbwReport: `kind` is its block's name ("steering", "system", ...),
    `report` the block as a dataclass (SteeringReport, SystemReport, ...)."""
    subscription_id: int
    session_id: int
    vehicle_id: int
    tick: int
    sim_time_s: float
    kind: str
    report: object


@dataclasses.dataclass(frozen=True)
class ControlEvent:
    """A pushed ControlEvent: the active source of a vehicle this connection leases changed."""
    session_id: int
    vehicle_id: int
    active_source: int
    preempted: int
    reason: str
    tick: int


@dataclasses.dataclass(frozen=True)
class ServerDraining:
    """A pushed ServerDraining: the server is stopping. It creates no session
    now, and ends those still running within grace_s seconds."""
    grace_s: float
    reason: str
    sessions: int


def state_row(batch):
    return StateRow(batch.subscription_id, batch.session_id, batch.tick, batch.sim_time_s,
                    batch.wall_time_ns, [to_row(v) for v in batch.vehicles], batch.part,
                    batch.parts)


def telemetry_rows(batch, channels):
    if numpy is not None:
        values = numpy.array([list(r.values) for r in batch.rows], dtype=numpy.float64)
        values = values.reshape(len(batch.rows), len(channels))
    else:
        values = [list(r.values) for r in batch.rows]
    return TelemetryRows(batch.subscription_id, batch.session_id, batch.tick, batch.sim_time_s,
                         batch.wall_time_ns, list(channels), [r.vehicle_id for r in batch.rows],
                         values)


def dbw_report(report):
    kind = report.WhichOneof("report")
    block = to_row(getattr(report, kind)) if kind else None
    return DbwReport(report.subscription_id, report.session_id, report.vehicle_id, report.tick,
                     report.sim_time_s, kind, block)


def contact_events(frames):
    """Each contact of an iterable of ContactEvents rows (a subscribe_contacts
    subscription, or a list of its rows), in order, as (tick, ContactEvent):
    bodies a and b (a vehicle or a proxy id, the other 0), the point, the
    normal from a to b, the impulse on b (a takes the opposite), its normal
    part, the closing speed and the depth. A tick's events may span frames
    (64 a frame); a frame's `dropped` and `missed` count those not reported."""
    for frame in frames:
        for event in frame.events:
            yield frame.tick, event


def stats_row(stats):
    return to_row(stats)


def control_event(event):
    """A connection's pushed event as its row: a ControlEvent or a ServerDraining."""
    if event.DESCRIPTOR.name == "ServerDraining":
        return ServerDraining(event.grace_s, event.reason, event.sessions)
    return ControlEvent(event.session_id, event.vehicle_id, event.active_source,
                        event.preempted, event.reason, event.tick)


@dataclasses.dataclass(frozen=True)
class PingResult:
    """A ping's round trip and the server clock's offset from this host's.

    `offset_ns` is the server's wall clock minus this host's at the same
    instant, estimated as NTP does from one exchange: the server's stamp
    against the midpoint of the round trip, good to within round_trip_ns / 2."""
    round_trip_ns: int
    offset_ns: int
    server_wall_ns: int
    server_monotonic_ns: int


