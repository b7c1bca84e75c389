"""The package's pieces on their own: framing, enum names, argument checks,
and generating paddock_pb2 from a checkout when no build staged it."""
import os
import shutil
import subprocess
import sys

import pytest

import paddock
from paddock import framing, pb
from paddock._requests import enum_value, state_fields_mask

PACKAGE_SOURCE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def test_frames_cut_from_pieces_of_any_size():
    frames = [pb.Frame(request_id=i, ping=pb.Ping(client_time_ns=i * 1000)).SerializeToString()
              for i in range(1, 200)]
    frames.append(pb.Frame(request_id=7, export_chunk=pb.ExportChunk(data=b"x" * 70000))
                  .SerializeToString())
    stream = b"".join(framing.delimit(f) for f in frames)
    for piece in (1, 3, 127, 128, 4096, len(stream)):
        reader = framing.FrameReader(1 << 20)
        out = []
        for i in range(0, len(stream), piece):
            out += reader.feed(stream[i:i + piece])
        assert out == frames
    assert framing.encode_varint(300) == b"\xac\x02"


def test_a_frame_over_the_limit_or_a_runaway_prefix_is_refused():
    with pytest.raises(framing.FrameTooLarge, match="1001 bytes, above the limit of 1000"):
        framing.FrameReader(1000).feed(framing.encode_varint(1001))
    with pytest.raises(framing.FrameTooLarge, match="longer than 10 bytes"):
        framing.FrameReader(1000).feed(b"\xff" * 11)


def test_enum_names_and_state_fields():
    assert enum_value(pb.Gear, "drive", "GEAR_") == pb.GEAR_DRIVE
    assert enum_value(pb.Gear, "GEAR_REVERSE", "GEAR_") == pb.GEAR_REVERSE
    assert enum_value(pb.Gear, None) == 0 and enum_value(pb.Gear, 5) == 5
    with pytest.raises(ValueError, match="'FLY' is not a Gear"):
        enum_value(pb.Gear, "FLY", "GEAR_")
    assert state_fields_mask(["wheels", "instruments"]) == 3
    assert state_fields_mask("steering_feel") == 4
    assert state_fields_mask([pb.STATE_FIELD_WHEELS, "STATE_FIELD_INSTRUMENTS"]) == 3
    assert state_fields_mask(7) == 7
    with pytest.raises(ValueError, match="not a StateField"):
        state_fields_mask(["tyres"])


def test_one_message_and_one_action_per_call(client):
    with pytest.raises(ValueError, match="exactly one message"):
        client.dbw_message(1, 1)
    with pytest.raises(ValueError, match="exactly one message"):
        client.dbw_message(1, 1, steering=pb.SteeringCmd(), brake=pb.BrakeCmd())
    with pytest.raises(ValueError, match="exactly one action"):
        client.session_control(1, pause=True, resume=True)


def test_csv_to_dataframe_keeps_every_digit():
    text = "tick,time_s,vehicle,Speed\n1,0.0083333333333333332,1,0.10000000000000001\n"
    frame = paddock.csv_to_dataframe(text)
    assert frame["tick"].tolist() == [1] and frame["vehicle"].tolist() == [1]
    assert frame["Speed"][0] == 0.1 and frame["time_s"][0] == 1 / 120


def run_from_source(tmp_path, path_env):
    """Imports paddock from the source tree (as an editable install does) in a
    fresh interpreter with its own cache folder; returns the process."""
    env = {"PATH": path_env, "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "PYTHONPATH": PACKAGE_SOURCE}
    return subprocess.run([sys.executable, "-c",
                           "import paddock; print(paddock.pb.__file__)"],
                          env=env, capture_output=True, text=True, cwd=str(tmp_path))


def test_a_source_tree_import_generates_paddock_pb2_once(tmp_path):
    if not os.path.exists(os.path.join(PACKAGE_SOURCE, "..", "..", "proto")):
        pytest.skip("not run from a checkout")
    protoc_dir = os.path.dirname(shutil.which("protoc"))
    first = run_from_source(tmp_path, protoc_dir)
    assert first.returncode == 0, first.stderr
    generated = first.stdout.strip()
    assert generated.startswith(str(tmp_path / "cache" / "paddock-python"))
    # The second import finds it there and needs no protoc.
    second = run_from_source(tmp_path, "/nonexistent")
    assert second.returncode == 0 and second.stdout.strip() == generated


def test_a_source_tree_import_without_protoc_says_what_is_missing(tmp_path):
    done = run_from_source(tmp_path, "/nonexistent")
    assert done.returncode != 0
    assert "protoc is needed to generate paddock_pb2" in done.stderr
