"""The DBW helper: CRC-8 against the server's vectors, rolling counters, and a
drive through the real kit: CRCs accepted, a wrong one reported bad_crc, and
the watchdog's trip on the documented tick (docs/protocol.md "Ticks")."""
import struct
import time

import pytest

import paddock
from paddock import dbw, pb


def test_crc8_check_value_and_the_c_clients_vector():
    # The check value of CRC-8 SAE J1850, as tests/unit/test_dbw.c asserts.
    assert dbw.crc8_j1850(b"123456789") == 0x4B
    assert dbw.crc8_j1850(b"") == 0x00
    # tests/unit/test_dbw_link.c's steering message, byte for byte.
    cmd = pb.SteeringCmd(cmd=12.5, cmd_rate=float("inf"), cmd_type=2, enable=True,
                         ignore=True, rc=3)
    expected = bytes([1, 0x00, 0x00, 0x48, 0x41, 0x00, 0x00, 0x80, 0x7F, 0, 0, 0, 0, 2, 5, 3])
    assert dbw.canonical_bytes("steering", cmd) == expected
    assert dbw.message_crc("steering", cmd) == dbw.crc8_j1850(expected)


def test_canonical_bytes_of_each_kind():
    ulc = pb.UlcCmd(cmd=5.0, limit_accel=1.0, cmd_type=1, enable=True, coast_decel=True, rc=7)
    assert dbw.canonical_bytes("ulc", ulc) == (
        bytes([5]) + struct.pack("<5f", 5.0, 1.0, 0.0, 0.0, 0.0) + bytes([1, 1 | 16, 7]))
    brake = pb.BrakeCmd(cmd=20.0, rate_inc=3.0, rate_dec=4.0, cmd_type=1, clear=True, rc=15)
    assert dbw.canonical_bytes("brake", brake) == (
        bytes([2]) + struct.pack("<3f", 20.0, 3.0, 4.0) + bytes([1, 2, 15]))
    assert dbw.canonical_bytes("gear", pb.GearCmd(cmd=pb.GEAR_DRIVE)) == bytes([4, 4])
    # The system command's unset options are 0xFF; set ones their value.
    system = pb.SystemCmd(cmd=1, rc=2)
    system.validate_cmd_crc_rc = False
    assert dbw.canonical_bytes("system", system) == bytes([9, 1, 0xFF, 0, 0xFF, 2])
    assert dbw.canonical_bytes("turn_signal", pb.TurnSignalCmd(cmd=1)) is None


def test_kit_counters_roll_per_kind_and_names_resolve():
    kit = paddock.DbwKit(1, 2, crc=True)
    rcs = [kit.steering(1.0).steering.rc for _ in range(17)]
    assert rcs == list(range(16)) + [0]
    assert kit.throttle(5.0).throttle.rc == 0  # each kind has its own counter
    msg = kit.brake(10.0)
    assert msg.brake.HasField("crc") and msg.brake.crc == dbw.message_crc("brake", msg.brake)
    assert paddock.DbwKit(1, 2, crc=False).gear("DRIVE").gear.HasField("crc") is False
    assert kit.steering(1.0, cmd_type="STEERING_CMD_TYPE_PERCENT").steering.cmd_type == 14
    with pytest.raises(ValueError, match="not a SteeringCmdType"):
        kit.steering(1.0, cmd_type="SIDEWAYS")
    with pytest.raises(ValueError, match="not both"):
        kit.system(enable=True, disable=True)


def _steering_reports_until(sub, tick):
    """The steering reports up to and including `tick`, by tick."""
    seen = {}
    while True:
        r = sub.get(5)
        if r.kind == "steering":
            seen[r.tick] = r.report
            if r.tick >= tick:
                return seen


def test_server_takes_good_crcs_refuses_a_bad_one_and_the_watchdog_trips_at_t_plus_13(server):
    with paddock.Client("127.0.0.1", server.port, name="dbw-test") as c:
        s = c.create_session("dbw-watchdog").session_id
        v = c.spawn(s, "midsize_sedan", gear="DRIVE").vehicle_id
        kit = paddock.DbwKit(s, v, crc=True)
        sub = c.subscribe_dbw(s, v, kinds=["steering", "system"])
        c.send_dbw(kit.system(enable=True))
        last_tick = None
        for _ in range(20):  # 50 Hz, well inside the 100 ms watchdog
            last_tick = c.send_dbw(kit.steering(10.0))
            time.sleep(0.02)
        seen = _steering_reports_until(sub, last_tick + 14)
        # Every report while commands came: engaged, CRCs good, no timeout.
        for tick in range(last_tick - 5, last_tick + 13):
            st = seen[tick].status
            assert st.enabled and not st.bad_crc and not st.bad_rc and not st.timeout, tick
        # The last command took at tick T (its step is the first to use it);
        # the watchdog trips in the step of T + 12, first shown at T + 13.
        assert seen[last_tick + 13].status.timeout
        assert not seen[last_tick + 13].status.enabled
        system = None
        while system is None or system.tick < last_tick + 13:
            r = sub.get(5)
            system = r if r.kind == "system" else system
        assert system.report.reason_disengage_str == "SteerCmdTimeout"

        # A wrong CRC is taken as a real kit takes it: bad_crc, not an error.
        c.send_dbw(kit.system(enable=True))
        good = c.send_dbw(kit.steering(5.0))
        wrong = kit.steering(5.0)
        wrong.steering.crc ^= 0x5A
        bad_tick = c.send_dbw(wrong)
        seen = _steering_reports_until(sub, bad_tick + 1)
        assert not seen[good + 1].status.bad_crc
        assert seen[bad_tick + 1].status.bad_crc
        sub.close()


def test_a_crc_above_255_is_refused_with_out_of_range(client):
    s = client.create_session("dbw-crc-range").session_id
    v = client.spawn(s, "midsize_sedan").vehicle_id
    msg = paddock.DbwKit(s, v, crc=False).steering(1.0)
    msg.steering.crc = 300
    with pytest.raises(paddock.errors.OutOfRange, match="crc 300"):
        client.send_dbw(msg)
