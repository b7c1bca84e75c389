"""The requests both clients make, written once.

Each request is a generator that yields what to send and receives the
reply: `Call(body, message)` gets the reply Frame's body message (an Error
reply raises before it comes back), `Next()` the next frame of a reply
that comes as several (an export's chunks). paddock.Client drives these
generators over a socket and a reader thread, paddock.aio.Client over
asyncio streams, so the two cannot disagree on what a method sends.
"""
import json
import os
import time

from ._pb import pb
from . import rows


class Call:
    """Send `message` as the Frame body `body` and wait for its reply."""
    __slots__ = ("body", "message", "stream")

    def __init__(self, body, message, stream=False):
        self.body = body
        self.message = message
        self.stream = stream


class Next:
    """The next frame of the streaming reply a Call(stream=True) started."""
    __slots__ = ()


IMPORT_CHUNK_BYTES = 16 * 1024  # the server's limit per ImportChunk


def enum_value(enum, value, prefix=""):
    """An enum number from a number, a full value name or one without its prefix.

    enum_value(pb.Gear, "DRIVE", "GEAR_") and enum_value(pb.Gear, 4) are both 4."""
    if value is None:
        return 0
    if isinstance(value, str):
        name = value.upper()
        if name not in enum.keys() and prefix + name in enum.keys():
            name = prefix + name
        if name not in enum.keys():
            raise ValueError(f"{value!r} is not a {enum.DESCRIPTOR.name} "
                             f"({', '.join(enum.keys())})")
        return enum.Value(name)
    return int(value)


_STATE_FIELD_NAMES = {"pose": "STATE_FIELD_POSE", "wheels": "STATE_FIELD_WHEELS",
                      "instruments": "STATE_FIELD_INSTRUMENTS",
                      "steering_feel": "STATE_FIELD_STEERING_FEEL"}


def state_fields_mask(fields):
    """Subscribe.fields from an int mask or names/values ("wheels", pb.STATE_FIELD_WHEELS)."""
    if fields is None:
        return 0
    if isinstance(fields, int):
        return fields
    if isinstance(fields, str):
        fields = [fields]
    mask = 0
    for f in fields:
        if isinstance(f, str):
            name = _STATE_FIELD_NAMES.get(f.lower(), f.upper())
            mask |= enum_value(pb.StateField, name, "STATE_FIELD_")
        else:
            mask |= int(f)
    return mask


class Subscribing:
    """What a subscribe generator returns: the reply and how to read its frames."""

    def __init__(self, kind, reply, subscription_id, rate_hz, channels=None):
        self.kind = kind                       # "state", "telemetry", "dbw", "stats", "contacts"
        self.reply = reply
        self.subscription_id = subscription_id
        self.rate_hz = rate_hz
        self.channels = channels               # telemetry: the schema's channel names in order


class Requests:
    """Every request method, each as a generator for the client's driver.

    A subclass provides _drive(generator) (returns the generator's result, or
    a coroutine of it) and _drive_subscription(generator)."""

    # ---- connection ----

    def ping(self):
        """Round trip and the server's wall-clock offset from this host's (a PingResult)."""
        return self._drive(self._g_ping())

    def _g_ping(self):
        sent_ns = time.time_ns()
        pong = yield Call("ping", pb.Ping(client_time_ns=sent_ns))
        received_ns = time.time_ns()
        midpoint_ns = (sent_ns + received_ns) // 2
        return rows.PingResult(received_ns - sent_ns, pong.wall_time_ns - midpoint_ns,
                               pong.wall_time_ns, pong.monotonic_ns)

    # ---- sessions ----

    def create_session(self, name, world_preset="", world_overrides="", timing=None,
                       no_record=False, keyframe_every_ticks=0):
        """A new session (its SessionInfo); timing "realtime", "fast" or "lockstep";
        keyframe_every_ticks: ticks between its recording's keyframes (0: 120)."""
        msg = pb.SessionCreate(name=name, world_preset=world_preset,
                               world_overrides=world_overrides,
                               timing=enum_value(pb.TimingMode, timing, "TIMING_MODE_"),
                               no_record=no_record, keyframe_every_ticks=keyframe_every_ticks)
        return self._drive(self._g_one("session_create", msg,
                                       lambda r: rows.to_row(r.session)))

    def list_sessions(self):
        """Every session on the server (SessionInfo rows), asking page after page."""
        return self._drive(self._g_list_sessions())

    def _g_list_sessions(self):
        sessions = []
        while True:
            reply = yield Call("session_list", pb.SessionList(offset=len(sessions), limit=0))
            sessions += [rows.to_row(s) for s in reply.sessions]
            if not reply.sessions or len(sessions) >= reply.total:
                return sessions

    def close_session(self, session_id):
        """Closes a session; returns the tick it closed at."""
        return self._drive(self._g_one("session_close", pb.SessionClose(session_id=session_id),
                                       lambda r: r.tick))

    def share_session(self, session_id, role="driver"):
        """A join token to session_id for role ("driver", "viewer", pb.ROLE_DRIVER...):
        whoever presents it with join_session may then act on the session as the role
        allows. Only its owner, an operator or an admin may share (docs/security.md)."""
        msg = pb.SessionShare(session_id=session_id, role=enum_value(pb.Role, role, "ROLE_"))
        return self._drive(self._g_one("session_share", msg, lambda r: r.token))

    def join_session(self, token):
        """Presents a join token; returns the role this connection now has on its session
        (a row of session_id and role)."""
        return self._drive(self._g_one("session_join", pb.SessionJoin(token=token)))

    def _g_one(self, body, message, convert=rows.to_row):
        reply = yield Call(body, message)
        return convert(reply)

    # ---- vehicles and inputs ----

    def spawn(self, session_id, preset, x_m=0.0, y_m=0.0, yaw_deg=0.0, speed_mps=0.0,
              gear=None, overrides=""):
        """Spawns a vehicle; returns VehicleSpawned (vehicle_id, tick)."""
        msg = pb.VehicleSpawn(session_id=session_id, preset=preset, overrides=overrides,
                              x_m=x_m, y_m=y_m, yaw_deg=yaw_deg, speed_mps=speed_mps,
                              gear=enum_value(pb.Gear, gear, "GEAR_"))
        return self._drive(self._g_one("vehicle_spawn", msg))

    def remove(self, session_id, vehicle_id):
        """Removes a vehicle; returns the tick it was removed at."""
        msg = pb.VehicleRemove(session_id=session_id, vehicle_id=vehicle_id)
        return self._drive(self._g_one("vehicle_remove", msg, lambda r: r.tick))

    def spawn_batch(self, session_id, spawns):
        """Spawns many vehicles at one tick, all or none (docs/protocol.md
        "Batches"): spawns is a list of dicts of spawn()'s keywords, preset
        among them. Returns VehicleSpawnBatchReply (tick, vehicle_ids in the
        list's order)."""
        msg = pb.VehicleSpawnBatch(session_id=session_id)
        for one in spawns:
            one = dict(one)
            gear = one.pop("gear", None)
            msg.spawns.add(gear=enum_value(pb.Gear, gear, "GEAR_"), **one)
        return self._drive(self._g_one("vehicle_spawn_batch", msg))

    @staticmethod
    def _dbw(msg, throttle_pct=None, brake_bar=None, steer_wheel_deg=None, gear=None,
             gear_number=None):
        msg.gear = enum_value(pb.Gear, gear, "GEAR_")
        if throttle_pct is not None:
            msg.throttle_pct = throttle_pct
        if brake_bar is not None:
            msg.brake_bar = brake_bar
        if steer_wheel_deg is not None:
            msg.steer_wheel_deg = steer_wheel_deg
        if gear_number is not None:
            msg.gear_number = gear_number
        return msg

    def dbw_command(self, session_id, vehicle_id, throttle_pct=None, brake_bar=None,
                    steer_wheel_deg=None, gear=None, gear_number=None):
        """The driver's controls; a setpoint left None keeps its value. Returns Ok.tick."""
        msg = self._dbw(pb.DbwCommand(session_id=session_id, vehicle_id=vehicle_id),
                        throttle_pct, brake_bar, steer_wheel_deg, gear, gear_number)
        return self._drive(self._g_one("dbw_command", msg, lambda r: r.tick))

    def dbw_command_batch(self, session_id, commands):
        """The driver's controls of many vehicles at one tick, all or none:
        commands is a list of dicts of dbw_command()'s keywords, vehicle_id
        among them. Returns Ok.tick."""
        msg = pb.DbwCommandBatch(session_id=session_id)
        for one in commands:
            one = dict(one)
            self._dbw(msg.commands.add(vehicle_id=one.pop("vehicle_id")), **one)
        return self._drive(self._g_one("dbw_command_batch", msg, lambda r: r.tick))

    def tyre_command(self, session_id, vehicle_id, action, value=0.0, wheel_mask=0xF):
        """A TyreCommand (action a TyreAction name or number); returns Ok.tick."""
        msg = pb.TyreCommand(session_id=session_id, vehicle_id=vehicle_id,
                             wheel_mask=wheel_mask,
                             action=enum_value(pb.TyreAction, action, "TYRE_ACTION_"),
                             value=value)
        return self._drive(self._g_one("tyre_command", msg, lambda r: r.tick))

    def reset_vehicle(self, session_id, vehicle_id, x_m=None, y_m=None, yaw_deg=None):
        """Rights a vehicle (a recorded input): upright at rest on the ground with
        its fault cleared, where it stands, or at (x_m, y_m) heading yaw_deg
        (default 0) when a place is given. Returns Ok.tick."""
        if (x_m is None) != (y_m is None) or (yaw_deg is not None and x_m is None):
            raise ValueError("a place is x_m and y_m together (and yaw_deg, default 0); "
                             "give none to right the vehicle where it is")
        msg = pb.VehicleReset(session_id=session_id, vehicle_id=vehicle_id,
                              at_pose=x_m is not None)
        if x_m is not None:
            msg.x_m, msg.y_m, msg.yaw_deg = x_m, y_m, yaw_deg or 0.0
        return self._drive(self._g_one("vehicle_reset", msg, lambda r: r.tick))

    def dbw_message(self, session_id, vehicle_id, **one):
        """One kit message, given as its DbwMessage oneof name and message:
        dbw_message(s, v, steering=pb.SteeringCmd(...)). Returns Ok.tick (see
        DbwKit for rolling counters and CRCs)."""
        if len(one) != 1:
            raise ValueError("dbw_message takes exactly one message, e.g. steering=pb.SteeringCmd()")
        (kind, body), = one.items()
        msg = pb.DbwMessage(session_id=session_id, vehicle_id=vehicle_id)
        getattr(msg, kind).CopyFrom(body)
        return self._drive(self._g_one("dbw_message", msg, lambda r: r.tick))

    def send_dbw(self, message):
        """A whole DbwMessage as built (DbwKit builds them); returns Ok.tick."""
        return self._drive(self._g_one("dbw_message", message, lambda r: r.tick))

    def lease(self, session_id, vehicle_id, source, release=False):
        """Takes (or releases) a control lease; source "driver", "autonomy" or "ai"."""
        msg = pb.ControlLease(session_id=session_id, vehicle_id=vehicle_id,
                              source=enum_value(pb.ControlSource, source, "CONTROL_SOURCE_"),
                              release=release)
        return self._drive(self._g_one("control_lease", msg))

    # ---- session control ----

    def session_control(self, session_id, **action):
        """One SessionControl action by its oneof name: session_control(s, step=10)."""
        if len(action) != 1:
            raise ValueError("session_control takes exactly one action, e.g. step=10")
        (name, value), = action.items()
        msg = pb.SessionControl(session_id=session_id)
        if name == "take_step_lease":
            msg.take_step_lease.CopyFrom(value if isinstance(value, pb.StepLease)
                                         else pb.StepLease(**value))
        elif name == "set_timing":
            msg.set_timing = enum_value(pb.TimingMode, value, "TIMING_MODE_")
        else:
            setattr(msg, name, value)
        return self._drive(self._g_one("session_control", msg))

    def pause(self, session_id):
        return self.session_control(session_id, pause=True)

    def resume(self, session_id):
        return self.session_control(session_id, resume=True)

    def step(self, session_id, ticks=1):
        """Advances a session `ticks` ticks, then leaves it paused; answered when done."""
        return self.session_control(session_id, step=ticks)

    def run_to_tick(self, session_id, tick):
        return self.session_control(session_id, run_to_tick=tick)

    def reset(self, session_id):
        return self.session_control(session_id, reset=True)

    def reseed(self, session_id, seed):
        return self.session_control(session_id, reseed=seed)

    def set_timing(self, session_id, timing):
        return self.session_control(session_id, set_timing=timing)

    def take_step_lease(self, session_id, deadline_ms=0, on_lapse=0):
        return self.session_control(session_id, take_step_lease=pb.StepLease(
            deadline_ms=deadline_ms, on_lapse=enum_value(pb.LapsePolicy, on_lapse, "LAPSE_")))

    def release_step_lease(self, session_id):
        return self.session_control(session_id, release_step_lease=True)

    def renew_step_lease(self, session_id):
        return self.session_control(session_id, renew_step_lease=True)

    def seek(self, session_id, tick):
        return self.session_control(session_id, seek=tick)

    def set_speed(self, session_id, speed):
        return self.session_control(session_id, speed=speed)

    # ---- subscriptions ----

    def subscribe_state(self, session_id, rate_hz=0, vehicle_ids=(), fields=0, timeout=None,
                        max_batch_vehicles=0, aoi_radius_m=0.0, aoi_x_m=0.0, aoi_y_m=0.0,
                        aoi_vehicle_id=0):
        """StateRow frames at rate_hz (a divisor of 120; 0 is 120). fields: StateField
        names or bits ("wheels", "instruments", "steering_feel"). max_batch_vehicles > 0
        has the server send a tick in batches of at most that many vehicles, which a
        session too large for one frame needs (docs/protocol.md "Large sessions").
        aoi_radius_m > 0 keeps to the vehicles within that distance of (aoi_x_m, aoi_y_m),
        or of vehicle aoi_vehicle_id (docs/protocol.md "Areas of interest")."""
        msg = pb.Subscribe(session_id=session_id, rate_hz=rate_hz, vehicle_ids=list(vehicle_ids),
                           fields=state_fields_mask(fields), max_batch_vehicles=max_batch_vehicles,
                           aoi_radius_m=aoi_radius_m, aoi_x_m=aoi_x_m, aoi_y_m=aoi_y_m,
                           aoi_vehicle_id=aoi_vehicle_id)
        return self._drive_subscription(self._g_subscribe("state", "subscribe", msg), timeout)

    def subscribe_telemetry(self, session_id, channels, vehicle_ids=(), rate_hz=0, timeout=None):
        """TelemetryRows frames of the named channels (as `paddockd channels` lists them)."""
        msg = pb.TelemetrySubscribe(session_id=session_id, rate_hz=rate_hz,
                                    vehicle_ids=list(vehicle_ids), channels=list(channels))
        return self._drive_subscription(self._g_subscribe("telemetry", "telemetry_subscribe",
                                                          msg), timeout)

    def subscribe_dbw(self, session_id, vehicle_id, kinds=(), timeout=None):
        """DbwReport frames of one vehicle's kit; kinds DbwReportKind names ("system",
        "DBW_REPORT_STEERING") or numbers, none for every kind."""
        msg = pb.DbwSubscribe(session_id=session_id, vehicle_id=vehicle_id,
                              reports=[enum_value(pb.DbwReportKind, k, "DBW_REPORT_")
                                       for k in kinds])
        return self._drive_subscription(self._g_subscribe("dbw", "dbw_subscribe", msg), timeout)

    def subscribe_stats(self, session_id, rate_hz=0, timeout=None):
        """SessionStats rows at rate_hz (1..60; 0 is 10)."""
        msg = pb.StatsSubscribe(session_id=session_id, rate_hz=rate_hz)
        return self._drive_subscription(self._g_subscribe("stats", "stats_subscribe", msg),
                                        timeout)

    def subscribe_contacts(self, session_id, timeout=None):
        """ContactEvents rows, one a frame, after each tick in which bodies touched
        (docs/multiplayer.md "Contact events"); paddock.contact_events(sub) flattens
        them into (tick, ContactEvent) pairs."""
        msg = pb.ContactSubscribe(session_id=session_id)
        return self._drive_subscription(self._g_subscribe("contacts", "contact_subscribe", msg),
                                        timeout)

    def _g_subscribe(self, kind, body, msg):
        reply = yield Call(body, msg)
        if kind == "telemetry":
            return Subscribing(kind, reply, reply.subscription_id, reply.rate_hz,
                               [c.name for c in reply.channels])
        return Subscribing(kind, reply, reply.subscription_id, reply.rate_hz)

    def unsubscribe(self, subscription_id):
        return self._drive(self._g_one("unsubscribe",
                                       pb.Unsubscribe(subscription_id=subscription_id),
                                       lambda r: r.tick))

    # ---- recordings ----

    def replay_open(self, session_id, speed=0.0, paused=False):
        """Serves a recording as a new read-only session; returns its SessionInfo."""
        msg = pb.ReplayOpen(session_id=session_id, speed=speed, paused=paused)
        return self._drive(self._g_one("replay_open", msg, lambda r: rows.to_row(r.session)))

    def fork(self, session_id, tick, name="", timing=None):
        msg = pb.ForkRequest(session_id=session_id, tick=tick, name=name,
                             timing=enum_value(pb.TimingMode, timing, "TIMING_MODE_"))
        return self._drive(self._g_one("fork_request", msg, lambda r: rows.to_row(r.session)))

    def verify(self, session_id, to_tick=0):
        """Re-simulates a recording against its hashes (a VerifyReply row)."""
        msg = pb.VerifyRequest(session_id=session_id, to_tick=to_tick)
        return self._drive(self._g_one("verify_request", msg))

    def session_meta(self, session_id):
        """A recording's metadata, the server's JSON document as a dict."""
        msg = pb.SessionMetaRequest(session_id=session_id)
        return self._drive(self._g_one("session_meta_request", msg, lambda r: json.loads(r.json)))

    def export_bytes(self, session_id):
        """A recorded session as a standalone SQLite file's bytes."""
        return self._drive(self._g_chunks("export_request", pb.ExportRequest(session_id=session_id)))

    def export(self, session_id, path):
        """Writes a recorded session to `path` as a standalone SQLite file; returns its size."""
        return self._drive(self._g_export_to(session_id, path))

    def _g_export_to(self, session_id, path):
        data = yield from self._g_chunks("export_request", pb.ExportRequest(session_id=session_id))
        with open(path, "wb") as f:
            f.write(data)
        return len(data)

    def export_mcap(self, session_id, path, channels=(), compression=""):
        """Writes a recorded session, re-simulated, to `path` as an indexed MCAP
        file (docs/web.md "MCAP export"): per vehicle its state, telemetry (the
        chosen channels, all when empty) and DBW reports, its chunks compressed
        with `compression` ("" none, or "zstd"); returns its size."""
        msg = pb.McapExportRequest(session_id=session_id, channels=list(channels),
                                   compression=compression)
        return self._drive(self._g_mcap_to(msg, path))

    def _g_mcap_to(self, msg, path):
        data = yield from self._g_chunks("mcap_export_request", msg)
        with open(path, "wb") as f:
            f.write(data)
        return len(data)

    def _g_chunks(self, body, msg):
        chunks = []
        chunk = yield Call(body, msg, stream=True)
        while True:
            chunks.append(chunk.data)
            if chunk.last:
                return b"".join(chunks)
            chunk = yield Next()

    def import_session(self, path_or_bytes):
        """Uploads an exported session file (a path or its bytes); returns SessionImported."""
        return self._drive(self._g_import(path_or_bytes))

    def _g_import(self, path_or_bytes):
        if isinstance(path_or_bytes, (bytes, bytearray)):
            data = bytes(path_or_bytes)
        else:
            with open(os.fspath(path_or_bytes), "rb") as f:
                data = f.read()
        offset = 0
        while True:
            piece = data[offset:offset + IMPORT_CHUNK_BYTES]
            last = offset + len(piece) >= len(data)
            reply = yield Call("import_chunk", pb.ImportChunk(offset=offset, data=piece, last=last))
            offset += len(piece)
            if last:
                return rows.to_row(reply)

    def csv_export(self, session_id, from_tick=0, to_tick=0, channels=(), vehicle_ids=(),
                   every_ticks=0, dataframe=False):
        """Telemetry re-simulated from a recording as CSV text, or as a pandas
        DataFrame with dataframe=True (paddock.recordings.csv_to_dataframe)."""
        msg = pb.CsvExportRequest(session_id=session_id, from_tick=from_tick, to_tick=to_tick,
                                  channels=list(channels), vehicle_ids=list(vehicle_ids),
                                  every_ticks=every_ticks)
        return self._drive(self._g_csv(msg, dataframe))

    def _g_csv(self, msg, dataframe):
        data = yield from self._g_chunks("csv_export_request", msg)
        text = data.decode("utf-8")
        if dataframe:
            from .recordings import csv_to_dataframe
            return csv_to_dataframe(text)
        return text

    def list_recordings(self, name_contains="", world_preset="", vehicle_preset="",
                        started_after_wall_ns=0, started_before_wall_ns=0,
                        interrupted_only=False):
        """Every recording matching the filters (RecordingInfo rows), page after page."""
        return self._drive(self._g_list_recordings(dict(
            name_contains=name_contains, world_preset=world_preset,
            vehicle_preset=vehicle_preset, started_after_wall_ns=started_after_wall_ns,
            started_before_wall_ns=started_before_wall_ns, interrupted_only=interrupted_only)))

    def _g_list_recordings(self, filters):
        recordings = []
        while True:
            reply = yield Call("recording_list",
                               pb.RecordingList(offset=len(recordings), limit=0, **filters))
            recordings += [rows.to_row(r) for r in reply.recordings]
            if not reply.recordings or len(recordings) >= reply.total:
                return recordings

    def delete_recording(self, session_id):
        """Deletes a finished recording from the server's database; returns Ok.tick."""
        return self._drive(self._g_one("recording_delete",
                                       pb.RecordingDelete(session_id=session_id),
                                       lambda r: r.tick))
