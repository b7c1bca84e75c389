"""The DBW kit from a client's side: rolling counters and the CRC-8.

A DbwKit builds one vehicle's kit messages (paddock.v1.DbwMessage). Each
of steering, brake, throttle, ULC and system keeps its own rolling counter
(0..15, one step per command, as the kit's watchdog and bad_rc check
expect), and with crc=True every message that can carry one gets the
CRC-8 the kit checks (docs/dbw.md "Watchdog, counter, CRC"): SAE J1850,
polynomial 0x1D, initial 0xFF, final XOR 0xFF, over the message's
canonical bytes.

    kit = paddock.DbwKit(session_id, vehicle_id, crc=True)
    c.send_dbw(kit.system(enable=True))
    c.send_dbw(kit.throttle(20.0, enable=True))
"""
import struct

from ._pb import pb

# The prefix of each coded field's enum values in the contract (proto3 enum
# values share the package's scope, so each carries its enum's name).
_PREFIX = {"SteeringCmdType": "STEERING_CMD_TYPE_", "BrakeCmdType": "BRAKE_CMD_TYPE_",
           "ThrottleCmdType": "THROTTLE_CMD_TYPE_", "UlcCmdType": "ULC_CMD_TYPE_",
           "SystemCmdType": "SYSTEM_CMD_TYPE_", "SyncMode": "SYNC_MODE_"}


def kit_value(enum_name, value):
    """A kit code from a number or a name of the contract's enum: "ANGLE" or
    "STEERING_CMD_TYPE_ANGLE" for SteeringCmdType."""
    from ._requests import enum_value
    return enum_value(getattr(pb, enum_name), value, _PREFIX[enum_name])


def crc8_j1850(data):
    """CRC-8 SAE J1850 of bytes: polynomial 0x1D, initial 0xFF, final XOR 0xFF."""
    crc = 0xFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1D) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc ^ 0xFF


def _f32(value):
    return struct.pack("<f", value)


# The canonical bytes start with the message kind's number (docs/dbw.md).
_KIND = {"steering": 1, "brake": 2, "throttle": 3, "gear": 4, "ulc": 5, "system": 9}


def canonical_bytes(kind, cmd):
    """The bytes a kit message's CRC covers, or None for a kind without a CRC.
    `kind` is the DbwMessage oneof name, `cmd` its message."""
    if kind not in _KIND:
        return None
    out = bytes([_KIND[kind]])
    if kind in ("steering", "brake", "throttle"):
        rate_a, rate_b = ((cmd.cmd_rate, cmd.cmd_accel) if kind == "steering"
                          else (cmd.rate_inc, cmd.rate_dec))
        flags = (1 if cmd.enable else 0) | (2 if cmd.clear else 0) | (4 if cmd.ignore else 0)
        out += _f32(cmd.cmd) + _f32(rate_a) + _f32(rate_b)
        out += bytes([cmd.cmd_type & 0xFF, flags, cmd.rc & 0xFF])
    elif kind == "ulc":
        flags = ((1 if cmd.enable else 0) | (2 if cmd.clear else 0) |
                 (4 if cmd.enable_shift else 0) | (8 if cmd.enable_shift_park else 0) |
                 (16 if cmd.coast_decel else 0))
        out += (_f32(cmd.cmd) + _f32(cmd.limit_accel) + _f32(cmd.limit_decel) +
                _f32(cmd.limit_jerk_throttle) + _f32(cmd.limit_jerk_brake))
        out += bytes([cmd.cmd_type & 0xFF, flags, cmd.rc & 0xFF])
    elif kind == "gear":
        out += bytes([cmd.cmd & 0xFF])
    else:
        def opt(field, value):
            return value & 0xFF if cmd.HasField(field) else 0xFF
        out += bytes([cmd.cmd & 0xFF,
                      opt("sync_mode", cmd.sync_mode),
                      opt("validate_cmd_crc_rc", int(cmd.validate_cmd_crc_rc)),
                      opt("comms_loss_arm", int(cmd.comms_loss_arm)),
                      cmd.rc & 0xFF])
    return out


def message_crc(kind, cmd):
    """The CRC-8 a kit message should carry, or None for a kind without one."""
    data = canonical_bytes(kind, cmd)
    return None if data is None else crc8_j1850(data)


class DbwKit:
    """Builds one vehicle's kit messages with their rolling counters and CRCs.

    Each builder returns a DbwMessage ready for Client.send_dbw; `counter`
    holds the next rolling counter of each message kind. `crc` attaches the
    CRC-8 to every message that carries one."""

    ROLLING = ("steering", "brake", "throttle", "ulc", "system")

    def __init__(self, session_id, vehicle_id, crc=True):
        self.session_id = session_id
        self.vehicle_id = vehicle_id
        self.crc = crc
        self.counter = {kind: 0 for kind in self.ROLLING}

    def _message(self, kind, cmd):
        if kind in self.counter:
            cmd.rc = self.counter[kind]
            self.counter[kind] = (self.counter[kind] + 1) % 16
        if self.crc:
            crc = message_crc(kind, cmd)
            if crc is not None:
                cmd.crc = crc
        msg = pb.DbwMessage(session_id=self.session_id, vehicle_id=self.vehicle_id)
        getattr(msg, kind).CopyFrom(cmd)
        return msg

    def steering(self, cmd, cmd_type="ANGLE", enable=True, cmd_rate=0.0, cmd_accel=0.0,
                 clear=False, ignore=False):
        """A SteeringCmd: `cmd` in the cmd_type's unit (ANGLE: steering-wheel deg, left positive)."""
        return self._message("steering", pb.SteeringCmd(
            cmd=cmd, cmd_rate=cmd_rate, cmd_accel=cmd_accel,
            cmd_type=kit_value("SteeringCmdType", cmd_type),
            enable=enable, clear=clear, ignore=ignore))

    def brake(self, cmd, cmd_type="PRESSURE", enable=True, rate_inc=0.0, rate_dec=0.0,
              clear=False, ignore=False):
        """A BrakeCmd: `cmd` in the cmd_type's unit (PRESSURE: bar)."""
        return self._message("brake", pb.BrakeCmd(
            cmd=cmd, rate_inc=rate_inc, rate_dec=rate_dec,
            cmd_type=kit_value("BrakeCmdType", cmd_type),
            enable=enable, clear=clear, ignore=ignore))

    def throttle(self, cmd, cmd_type="PERCENT", enable=True, rate_inc=0.0, rate_dec=0.0,
                 clear=False, ignore=False):
        """A ThrottleCmd: `cmd` in the cmd_type's unit (PERCENT: 0..100)."""
        return self._message("throttle", pb.ThrottleCmd(
            cmd=cmd, rate_inc=rate_inc, rate_dec=rate_dec,
            cmd_type=kit_value("ThrottleCmdType", cmd_type),
            enable=enable, clear=clear, ignore=ignore))

    def gear(self, gear):
        """A GearCmd (a Gear name such as "DRIVE", or its number)."""
        from ._requests import enum_value
        return self._message("gear", pb.GearCmd(cmd=enum_value(pb.Gear, gear, "GEAR_")))

    def ulc(self, cmd, cmd_type="VELOCITY", enable=True, limit_accel=0.0, limit_decel=0.0,
            limit_jerk_throttle=0.0, limit_jerk_brake=0.0, clear=False, enable_shift=False,
            enable_shift_park=False, coast_decel=False):
        """A UlcCmd: `cmd` in m/s (VELOCITY) or m/s^2 (ACCEL)."""
        return self._message("ulc", pb.UlcCmd(
            cmd=cmd, limit_accel=limit_accel, limit_decel=limit_decel,
            limit_jerk_throttle=limit_jerk_throttle, limit_jerk_brake=limit_jerk_brake,
            cmd_type=kit_value("UlcCmdType", cmd_type), enable=enable, clear=clear,
            enable_shift=enable_shift, enable_shift_park=enable_shift_park,
            coast_decel=coast_decel))

    def system(self, enable=False, disable=False, sync_mode=None, validate_cmd_crc_rc=None,
               comms_loss_arm=None):
        """A SystemCmd: enable or disable the kit; the others left None keep the kit's setting."""
        if enable and disable:
            raise ValueError("a SystemCmd either enables or disables the kit, not both")
        cmd = pb.SystemCmd(cmd=kit_value("SystemCmdType",
                                         "ENABLE" if enable else "DISABLE" if disable else "NONE"))
        if sync_mode is not None:
            cmd.sync_mode = kit_value("SyncMode", sync_mode)
        if validate_cmd_crc_rc is not None:
            cmd.validate_cmd_crc_rc = validate_cmd_crc_rc
        if comms_loss_arm is not None:
            cmd.comms_loss_arm = comms_loss_arm
        return self._message("system", cmd)
