"""Recordings from Python: list (filtered, after a restart), delete (refused to
a viewer), verify, export and import, MCAP export, metadata, CSV as text and
DataFrame."""
import os

import pytest

import paddock
from paddock import errors, recordings


def record(c, name, preset, ticks, world=""):
    """A closed recording of one vehicle of `preset` run `ticks` ticks."""
    s = c.create_session(name, world_preset=world, timing="lockstep").session_id
    v = c.spawn(s, preset, speed_mps=4.0, gear="DRIVE").vehicle_id
    c.dbw_command(s, v, throttle_pct=20.0)
    c.take_step_lease(s, deadline_ms=60000)
    c.step(s, ticks)
    c.release_step_lease(s)
    c.close_session(s)
    return s


def test_list_after_restart_filter_and_delete_and_a_viewer_may_not(fresh_server):
    with paddock.Client("127.0.0.1", fresh_server.port, name="rec") as c:
        a = record(c, "py-rec-alpha", "ref1_sedan", 240)
        b = record(c, "py-rec-beta", "kart", 120, world="skidpad")
    fresh_server.stop()
    fresh_server.start()
    with paddock.Client("127.0.0.1", fresh_server.port, name="rec") as c:
        listed = {r.session_id: r for r in c.list_recordings()}
        assert {a, b} <= set(listed)
        alpha = listed[a]
        assert alpha.name == "py-rec-alpha" and alpha.world_preset == "flat"
        assert [x.preset for x in alpha.vehicles] == ["ref1_sedan"]
        assert alpha.ticks > 0 and alpha.last_tick >= 240
        assert not alpha.live and not alpha.interrupted and alpha.size_bytes > 0
        assert [r.session_id for r in c.list_recordings(name_contains="beta")] == [b]
        assert [r.session_id for r in c.list_recordings(world_preset="skidpad")] == [b]
        assert [r.session_id for r in c.list_recordings(vehicle_preset="ref1_sedan")] == [a]

        with paddock.Client("127.0.0.1", fresh_server.port, name="looker", viewer=True) as v:
            assert {r.session_id for r in v.list_recordings()} == set(listed)
            with pytest.raises(errors.Protocol, match="viewer"):
                v.delete_recording(a)

        c.delete_recording(a)
        assert a not in {r.session_id for r in c.list_recordings()}
        with pytest.raises(errors.NotFound):
            c.delete_recording(a)
        with pytest.raises(errors.NotFound):
            c.verify(a)
    fresh_server.stop()
    fresh_server.start()
    with paddock.Client("127.0.0.1", fresh_server.port, name="rec") as c:
        assert [r.session_id for r in c.list_recordings()] == [b]


def test_a_session_keeps_the_keyframe_interval_it_asked_for(client, tmp_path):
    s = client.create_session("py-keyframes", timing="lockstep",
                              keyframe_every_ticks=240).session_id
    v = client.spawn(s, "midsize_sedan", speed_mps=4.0, gear="DRIVE").vehicle_id
    client.dbw_command(s, v, throttle_pct=20.0)
    client.take_step_lease(s, deadline_ms=60000)
    client.step(s, 600)
    client.release_step_lease(s)
    client.close_session(s)
    meta = client.session_meta(s)
    assert meta["keyframe_every_ticks"] == 240
    assert meta["keyframes"] == 3  # ticks 0, 240 and 480
    assert client.verify(s).match
    # Exported and imported, the packed keyframes verify as well.
    path = tmp_path / "keyframes.db"
    client.export(s, str(path))
    assert client.verify(client.import_session(str(path)).session_id).match
    with pytest.raises(errors.OutOfRange, match="keyframe_every_ticks 72001 is more than 72000"):
        client.create_session("py-too-sparse", keyframe_every_ticks=72001)


def test_verify_export_import_meta_and_csv(client, tmp_path):
    s = record(client, "py-rec-files", "midsize_sedan", 360)
    verdict = client.verify(s)
    assert verdict.match and verdict.hashes_checked > 0

    path = tmp_path / "session.db"
    size = client.export(s, str(path))
    assert size == os.path.getsize(path) > 0
    with open(path, "rb") as f:
        assert f.read(16) == b"SQLite format 3\x00"
    imported = client.import_session(str(path))
    assert imported.original_session_id == s and imported.session_id != s
    assert client.verify(imported.session_id).match

    meta = client.session_meta(s)
    assert isinstance(meta, dict) and meta

    text = client.csv_export(s, from_tick=10, to_tick=20, channels=["Speed", "PosX"])
    header, rows = recordings.csv_rows(text)
    assert header == ["tick", "time_s", "vehicle", "Speed", "PosX"]
    assert [r[0] for r in rows] == list(range(10, 21))
    frame = client.csv_export(s, from_tick=10, to_tick=20, channels=["Speed", "PosX"],
                              dataframe=True)
    assert frame["tick"].tolist() == [r[0] for r in rows]
    assert frame["Speed"].tolist() == [r[3] for r in rows]

    mcap = tmp_path / "session.mcap"
    size = client.export_mcap(s, str(mcap), channels=["Speed"])
    assert size == os.path.getsize(mcap) > 0
    with open(mcap, "rb") as f:
        data = f.read()
    assert data[:8] == data[-8:] == b"\x89MCAP0\r\n"
    assert b"/session/%d/vehicle/1/telemetry" % s in data

    with pytest.raises(errors.NotFound):
        client.export(987654, str(tmp_path / "none.db"))
    with pytest.raises(errors.NotFound):
        client.export_mcap(987654, str(tmp_path / "none.mcap"))
    with pytest.raises(errors.UnknownKey, match="Nope"):
        client.export_mcap(s, str(tmp_path / "bad.mcap"), channels=["Nope"])
    with pytest.raises(errors.OutOfRange, match="lz4"):
        client.export_mcap(s, str(tmp_path / "bad.mcap"), compression="lz4")
    packed = tmp_path / "session.zstd.mcap"
    assert 0 < client.export_mcap(s, str(packed), compression="zstd") < client.export_mcap(
        s, str(tmp_path / "plain.mcap"))
    with pytest.raises(errors.UnknownKey, match="Nope"):
        client.csv_export(s, channels=["Nope"])
    with pytest.raises(errors.Parse):
        client.import_session(b"this is not a Paddock export")
