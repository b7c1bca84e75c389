"""protoc's Python output for paddock.proto shows the coded fields (the
protocol version, the DBW kit's commands and reports) by name: each is an
enum with the kit's numbers, and a number no value names still arrives as
that number (proto3 enums are open).

Usage: test_python_enums.py PROTOC PROTO_DIR. Prints 'N passed, N failed'."""
import importlib
import os
import subprocess
import sys
import tempfile

PROTOC, PROTO_DIR = sys.argv[1], sys.argv[2]

# (message, field, enum, {name: number}) for a sample of each enum's values.
FIELDS = [
    ("Hello", "protocol_version", "ProtocolVersion", {"PROTOCOL_VERSION_1": 1}),
    ("Welcome", "protocol_version", "ProtocolVersion", {}),
    ("SteeringCmd", "cmd_type", "SteeringCmdType",
     {"STEERING_CMD_TYPE_NONE": 0, "STEERING_CMD_TYPE_ANGLE": 2, "STEERING_CMD_TYPE_PERCENT": 14}),
    ("BrakeCmd", "cmd_type", "BrakeCmdType",
     {"BRAKE_CMD_TYPE_PRESSURE": 1, "BRAKE_CMD_TYPE_ACCEL_AEB": 10}),
    ("ThrottleCmd", "cmd_type", "ThrottleCmdType", {"THROTTLE_CMD_TYPE_PERCENT": 14}),
    ("UlcCmd", "cmd_type", "UlcCmdType", {"ULC_CMD_TYPE_VELOCITY": 1, "ULC_CMD_TYPE_ACCEL": 2}),
    ("TurnSignalCmd", "cmd", "TurnSignal", {"TURN_SIGNAL_HAZARD": 3}),
    ("MiscCmd", "parking_brake", "ParkingBrakeCmd", {"PARKING_BRAKE_CMD_OFF": 2}),
    ("DriveModeCmd", "drive_mode", "DriveMode", {"DRIVE_MODE_TURF": 0, "DRIVE_MODE_AWD": 2}),
    ("SystemCmd", "cmd", "SystemCmdType", {"SYSTEM_CMD_TYPE_DISABLE": 2}),
    ("SystemCmd", "sync_mode", "SyncMode", {"SYNC_MODE_ALL_OR_NONE_WITH_BTN": 3}),
    ("ButtonPress", "button", "Button", {"BUTTON_EXTERNAL_BRAKE_RELEASE": 4}),
    ("FaultInject", "kind", "FaultKind", {"FAULT_KIND_CLEAR": 0, "FAULT_KIND_MODULE_RESTART": 11}),
    ("AwGearCommand", "command", "AwGear", {"AW_GEAR_REVERSE": 20, "AW_GEAR_LOW": 23}),
    ("AwControlModeCommand", "mode", "AwControlMode", {"AW_CONTROL_MODE_MANUAL": 4}),
    ("SteeringReport", "cmd_type", "SteeringCmdType", {}),
    ("BrakeReport", "cmd_type", "BrakeCmdType", {}),
    ("ThrottleReport", "cmd_type", "ThrottleCmdType", {}),
    ("UlcReport", "cmd_type", "UlcCmdType", {}),
    ("SystemReport", "state", "SystemState", {"SYSTEM_STATE_FAULT": 7}),
    ("SystemReport", "system_sync_mode", "SyncMode", {}),
    ("SystemReport", "reason_disengage", "ReasonDisengage",
     {"REASON_DISENGAGE_STEER_CMD_TIMEOUT": 0x24, "REASON_DISENGAGE_UNKNOWN": 0xFF}),
    ("SystemReport", "reason_not_ready", "ReasonNotReady",
     {"REASON_NOT_READY_MISSING_CMD_BRAKE": 0x39, "REASON_NOT_READY_SYSTEM_DISABLED": 0xFE}),
    ("VehicleVelocity", "dir_src", "DirSrc", {"DIR_SRC_PRNDL": 1}),
    ("DbwSecondary", "turn_signal", "TurnSignal", {}),
    ("DbwSecondary", "parking_brake", "ParkingBrakeStatus", {"PARKING_BRAKE_STATUS_UNKNOWN": 0}),
    ("DbwSecondary", "drive_mode", "DriveMode", {}),
    ("AwStatus", "control_mode", "AwControlMode", {"AW_CONTROL_MODE_NOT_READY": 6}),
    ("AwStatus", "gear", "AwGear", {}),
]
# Target names for FaultInject.target, which stays uint32.
TARGET_ENUMS = {"DbwChannel": {"DBW_CHANNEL_GEAR": 3}, "SensorAxis": {"SENSOR_AXIS_GNSS": 6},
                "DbwReportKind": {"DBW_REPORT_AW_STATUS": 11}}

passed = failed = 0


def value(enum, name):
    """The number of enum's value name, or None where either is missing."""
    e = getattr(pb, enum, None)
    return e.Value(name) if e is not None and name in e.keys() else None


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


with tempfile.TemporaryDirectory() as out:
    subprocess.run([PROTOC, f"--python_out={out}", "-I", PROTO_DIR,
                    os.path.join(PROTO_DIR, "paddock/v1/paddock.proto")], check=True)
    sys.path.insert(0, out)
    pb = importlib.import_module("paddock.v1.paddock_pb2")
    for msg, field, enum, values in FIELDS:
        f = getattr(pb, msg).DESCRIPTOR.fields_by_name[field]
        check(f.enum_type is not None and f.enum_type.name == enum,
              f"{msg}.{field} is enum {enum}")
        for name, number in values.items():
            check(value(enum, name) == number, f"{enum}.{name} == {number}")
    target = pb.FaultInject.DESCRIPTOR.fields_by_name["target"]
    check(target.enum_type is None, "FaultInject.target stays uint32")
    for enum, values in TARGET_ENUMS.items():
        for name, number in values.items():
            check(value(enum, name) == number, f"{enum}.{name} == {number}")
    # An older sender's uint32 99 parses and comes back as 99.
    m = pb.SteeringCmd.FromString(bytes([0x20, 99]))
    check(m.cmd_type == 99, "an unnamed cmd_type keeps its number")
    check(m.SerializeToString() == bytes([0x20, 99]), "and is written back unchanged")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
