#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/)
from the proto and the presets, so the seeds follow the protocol when it
changes: run it from the repository's root after a proto change, and commit
what it writes. fuzz_import's seed (corpus/import/, a small export) is
made by hand, as docs/security.md ("Files from elsewhere: imports") says,
and is left as it is.

Needs protoc and Python's protobuf (Debian: protobuf-compiler,
python3-protobuf)."""
import importlib
import os
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")


def load_proto():
    out = tempfile.mkdtemp(prefix="pdk-corpus-")
    subprocess.run(["protoc", "-I", os.path.join(ROOT, "proto"), "--python_out", out,
                    "paddock/v1/paddock.proto"], check=True)
    sys.path.insert(0, out)
    return importlib.import_module("paddock.v1.paddock_pb2"), out


def frame(pb, request_id, **body):
    f = pb.Frame(request_id=request_id, **body)
    return f.SerializeToString()


def record(op, data):
    """One fuzz_requests record: op, length (u16 little-endian), the frame."""
    return struct.pack("<BH", op, len(data)) + data


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def requests_seeds(pb):
    """Request sequences for fuzz_requests. Session id 1 is the first
    session the input created (fuzz_requests.c maps it)."""
    S = 1
    create_fast = frame(pb, 2, session_create=pb.SessionCreate(
        name="fuzz", timing=pb.TIMING_MODE_FAST))
    create_rt = frame(pb, 2, session_create=pb.SessionCreate(name="rt"))
    create_lock = frame(pb, 2, session_create=pb.SessionCreate(
        name="lock", timing=pb.TIMING_MODE_LOCKSTEP, no_record=True))
    spawn = frame(pb, 3, vehicle_spawn=pb.VehicleSpawn(
        session_id=S, preset="kart", speed_mps=5.0, gear=pb.GEAR_DRIVE))
    spawn_sedan = frame(pb, 4, vehicle_spawn=pb.VehicleSpawn(
        session_id=S, preset="midsize_sedan", overrides="chassis.mass=1500", y_m=6.0))
    dbw = frame(pb, 5, dbw_command=pb.DbwCommand(
        session_id=S, vehicle_id=1, throttle_pct=40.0, steer_wheel_deg=30.0))
    step = frame(pb, 6, session_control=pb.SessionControl(session_id=S, step=60))
    pause = frame(pb, 7, session_control=pb.SessionControl(session_id=S, pause=True))
    resume = frame(pb, 8, session_control=pb.SessionControl(session_id=S, resume=True))
    sub = frame(pb, 9, subscribe=pb.Subscribe(session_id=S, rate_hz=60, fields=7))
    stats = frame(pb, 10, stats_subscribe=pb.StatsSubscribe(session_id=S, rate_hz=60))
    close = frame(pb, 11, session_close=pb.SessionClose(session_id=S))
    verify = frame(pb, 12, verify_request=pb.VerifyRequest(session_id=S))
    meta = frame(pb, 13, session_meta_request=pb.SessionMetaRequest(session_id=S))
    export = frame(pb, 14, export_request=pb.ExportRequest(session_id=S))
    csv = frame(pb, 15, csv_export_request=pb.CsvExportRequest(
        session_id=S, channels=["Speed"], every_ticks=10))
    lease = frame(pb, 16, control_lease=pb.ControlLease(
        session_id=S, vehicle_id=1, source=pb.CONTROL_SOURCE_DRIVER))
    tyre = frame(pb, 17, tyre_command=pb.TyreCommand(
        session_id=S, vehicle_id=1, wheel_mask=1, action=pb.TYRE_ACTION_PUNCTURE, value=0.5))
    remove = frame(pb, 18, vehicle_remove=pb.VehicleRemove(session_id=S, vehicle_id=1))
    replay = frame(pb, 19, replay_open=pb.ReplayOpen(session_id=S, speed=10.0))
    fork = frame(pb, 20, fork_request=pb.ForkRequest(session_id=S, tick=30, name="fork",
                                                     timing=pb.TIMING_MODE_FAST))
    listing = frame(pb, 21, recording_list=pb.RecordingList(limit=10))
    sessions = frame(pb, 22, session_list=pb.SessionList())
    telemetry = frame(pb, 23, telemetry_subscribe=pb.TelemetrySubscribe(
        session_id=S, rate_hz=30, channels=["Speed", "YawRate"]))
    take_step = frame(pb, 24, session_control=pb.SessionControl(
        session_id=S, take_step_lease=pb.StepLease(deadline_ms=100)))
    reset = frame(pb, 25, session_control=pb.SessionControl(session_id=S, reset=True))
    proxy = frame(pb, 26, proxy_register=pb.ProxyRegister(
        session_id=S, half_length_m=2.0, half_width_m=1.0, half_height_m=0.7, mass_kg=1200.0,
        label="box"))
    contact = frame(pb, 27, contact_subscribe=pb.ContactSubscribe(session_id=S))
    share = frame(pb, 28, session_share=pb.SessionShare(session_id=S, role=pb.ROLE_DRIVER))
    dbw_sub = frame(pb, 29, dbw_subscribe=pb.DbwSubscribe(session_id=S, vehicle_id=1))
    ping = frame(pb, 30, ping=pb.Ping())
    create_sparse = frame(pb, 2, session_create=pb.SessionCreate(
        name="sparse", timing=pb.TIMING_MODE_FAST, keyframe_every_ticks=240))
    sub_parts = frame(pb, 31, subscribe=pb.Subscribe(session_id=S, rate_hz=120,
                                                      max_batch_vehicles=1))
    sub_near = frame(pb, 32, subscribe=pb.Subscribe(session_id=S, rate_hz=60, aoi_radius_m=10.0,
                                                     aoi_x_m=1.0, aoi_y_m=2.0))
    sub_around = frame(pb, 33, subscribe=pb.Subscribe(session_id=S, rate_hz=30, fields=1,
                                                       aoi_radius_m=25.0, aoi_vehicle_id=1,
                                                       max_batch_vehicles=1))
    spawn_batch = frame(pb, 34, vehicle_spawn_batch=pb.VehicleSpawnBatch(session_id=S, spawns=[
        pb.VehicleSpawn(preset="ref1_sedan", gear=pb.GEAR_DRIVE),
        pb.VehicleSpawn(preset="traffic_sedan", x_m=12.0, overrides="chassis.mass=1400"),
        pb.VehicleSpawn(preset="kart", y_m=-8.0, speed_mps=3.0)]))
    dbw_batch = frame(pb, 35, dbw_command_batch=pb.DbwCommandBatch(session_id=S, commands=[
        pb.DbwCommand(vehicle_id=1, throttle_pct=20.0),
        pb.DbwCommand(vehicle_id=2, brake_bar=5.0, steer_wheel_deg=-15.0),
        pb.DbwCommand(vehicle_id=3, gear=pb.GEAR_DRIVE)]))

    seeds = {
        "fast_drive_record": [(0, create_fast), (0, spawn), (0, dbw), (0, step), (0, sub),
                              (0, stats), (0, resume), (0, pause), (0, close), (0, verify),
                              (0, meta)],
        "realtime_two_clients": [(0, create_rt), (0, spawn), (1, sub), (0, lease), (1, dbw),
                                 (0, dbw), (1, tyre), (0, step), (1, 0x80 | 1, ping), (0, remove)],
        "lockstep": [(0, create_lock), (0, take_step), (0, spawn_sedan), (0, step), (0, step),
                     (0, reset), (0, step)],
        "recording_jobs": [(0, create_fast), (0, spawn), (0, step), (0, close), (1, export),
                           (2, csv), (3, listing), (1, replay), (2, fork), (0, sessions)],
        "subscriptions": [(0, create_fast), (0, spawn), (1, telemetry), (2, dbw_sub),
                          (3, contact), (0, proxy), (0, step), (0, share), (1, 0x80 | 1, ping)],
        "no_hello": [(0x20, ping), (0x20 | 1, create_fast)],
        "parts_and_areas": [(0, create_sparse), (0, spawn), (0, spawn_sedan), (1, sub_parts),
                            (2, sub_near), (3, sub_around), (0, step), (0, remove), (0, step),
                            (0, close), (1, verify)],
        "batches": [(0, create_fast), (0, spawn_batch), (1, sub), (0, dbw_batch), (0, step),
                    (1, dbw_batch), (0, spawn_batch), (0, close)],
    }
    for name, recs in seeds.items():
        data = b""
        for r in recs:
            op, body = (r[0], r[1]) if len(r) == 2 else (r[1], r[2])
            data += record(op, body)
        write("requests", name, data)
    # The same requests alone, as Frame bodies for fuzz_frame.
    for name, body in [("hello", frame(pb, 1, hello=pb.Hello(protocol_version=1,
                                                               client_name="fuzz"))),
                       ("session_create", create_fast), ("vehicle_spawn", spawn_sedan),
                       ("dbw_command", dbw), ("subscribe", sub), ("csv_export", csv),
                       ("proxy_register", proxy), ("telemetry_subscribe", telemetry),
                       ("vehicle_spawn_batch", spawn_batch), ("dbw_command_batch", dbw_batch)]:
        write("frame", name, body)


def file_seeds():
    """Drive scripts for fuzz_script, presets with overrides for fuzz_params."""
    for name in ["brake_test.json", "step_steer.json"]:
        shutil.copy(os.path.join(ROOT, "presets", "scripts", name),
                    os.path.join(CORPUS, "script", name))
    for name, overrides in [("kart", "chassis.mass=180"),
                            ("midsize_sedan", "chassis.mass=1500;tyres.rear.law=grip")]:
        with open(os.path.join(ROOT, "presets", "vehicles", name + ".json"), "rb") as f:
            write("params", name, f.read() + b"\0" + overrides.encode())


def main():
    pb, tmp = load_proto()
    try:
        requests_seeds(pb)
        os.makedirs(os.path.join(CORPUS, "script"), exist_ok=True)
        file_seeds()
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
