"""The proxy view: draws Paddock's vehicles smoothly on another machine
from the state stream (docs/multiplayer.md "The proxy view").

The same algorithm as the C client's paddock_view.h, described there and in
the docs; this is its own code, not a binding:

- Each batch's arrival updates the one-way latency (arrival minus the stamp
  on this machine's clock, a running mean with gain 1/16), the jitter (the
  running mean of the transit's change, RFC 3550 section 6.4.1) and the
  send interval (the median of the last nine stamp gaps, so a lost batch
  does not count). The delay's target is the latency plus
  ``send_intervals`` intervals plus ``jitter_scale`` jitters, that buffer
  at least ``delay_floor_s`` and at most ``delay_max_s``; the delay moves
  toward it at ``delay_slew`` seconds per second (it jumps there until three
  intervals are known).
- A vehicle is drawn at ``now + clock offset - delay``: between two samples
  by cubic Hermite of position (tangents: velocity times the sim time
  between them) and slerp of the attitude; past the newest sample along the
  arc its velocity and yaw rate describe for at most ``extrapolate_max_s``,
  then held; before the oldest, held there.
- A sample that disagrees with what was drawn last becomes a correction
  that decays with time constant ``blend_time_s``; one larger than
  ``snap_distance_m`` is dropped instead (the vehicle jumps) and counted in
  ``snaps``. A changed ``teleport_count`` empties the vehicle's samples: it
  jumps, counted in ``teleports``.

Times are ints in ns: the caller's clock for arrivals and draws (use the one
``Client.ping()`` measures its offset against, ``time.time_ns()``), the
server's wall clock for stamps (``StateRow.wall_time_ns``).
"""
import math
from dataclasses import dataclass, field, fields, replace

NS_PER_S = 1e9
STATS_GAIN = 1.0 / 16.0
WARMUP_INTERVALS = 3
SAMPLES = 16      # kept per vehicle
INTERVALS = 9     # send intervals remembered for their median
CLOCKS = 8        # clock samples remembered for the shortest round trip
IDENTITY = (1.0, 0.0, 0.0, 0.0)


class StaleSample(ValueError):
    """The sample is older than every one kept for its vehicle, repeats one,
    or comes from before the vehicle's last teleport."""


class NoFreeTrack(RuntimeError):
    """Every track holds a vehicle heard from within forget_after_s."""


class UnknownVehicle(KeyError):
    """The view has no sample of that vehicle."""


@dataclass
class Settings:
    """The view's settings, with their defaults (docs/multiplayer.md)."""
    send_intervals: float = 3.0
    jitter_scale: float = 2.0
    delay_floor_s: float = 0.05
    delay_max_s: float = 1.0
    delay_slew: float = 0.02
    extrapolate_max_s: float = 0.25
    snap_distance_m: float = 4.0
    blend_time_s: float = 0.1
    forget_after_s: float = 2.0

    _RANGES = {
        "send_intervals": (0.0, 100.0), "jitter_scale": (0.0, 100.0),
        "delay_floor_s": (0.0, 10.0), "delay_max_s": (0.0, 10.0), "delay_slew": (0.0, 1.0),
        "extrapolate_max_s": (0.0, 10.0), "snap_distance_m": (0.0, 1e6),
        "blend_time_s": (0.0, 10.0), "forget_after_s": (0.0, 3600.0),
    }

    def check(self):
        """Raises ValueError naming the first setting out of range."""
        for f in fields(self):
            value = getattr(self, f.name)
            lo, hi = self._RANGES[f.name]
            if not (isinstance(value, (int, float)) and lo <= value <= hi):
                raise ValueError(f"{f.name} is {value!r}; it must lie in [{lo:g}, {hi:g}]")
        if self.delay_max_s < self.delay_floor_s:
            raise ValueError(f"delay_max_s ({self.delay_max_s:g} s) is below delay_floor_s "
                             f"({self.delay_floor_s:g} s)")


@dataclass
class Sample:
    """One vehicle's state at one server time, world frame (ISO 8855)."""
    vehicle_id: int
    server_ns: int
    sim_time_s: float
    pos_m: tuple
    vel_mps: tuple
    acc_mps2: tuple = (0.0, 0.0, 0.0)
    yaw_rad: float = 0.0
    pitch_rad: float = 0.0
    roll_rad: float = 0.0
    yaw_rate_radps: float = 0.0
    teleport_count: int = 0

    @classmethod
    def from_state(cls, vs, server_ns, sim_time_s):
        """A VehicleState (a StateRow's vehicle) as a sample: body-frame vx, vy
        turned to the world by the yaw, vz as it is (world frame); the
        extrapolation's acceleration is the velocity turning at the yaw rate."""
        c, s = math.cos(vs.yaw_rad), math.sin(vs.yaw_rad)
        vel = (c * vs.vx_mps - s * vs.vy_mps, s * vs.vx_mps + c * vs.vy_mps, vs.vz_mps)
        r = vs.yaw_rate_radps
        return cls(vehicle_id=vs.vehicle_id, server_ns=server_ns, sim_time_s=sim_time_s,
                   pos_m=(vs.x_m, vs.y_m, vs.z_m), vel_mps=vel,
                   acc_mps2=(-r * vel[1], r * vel[0], 0.0), yaw_rad=vs.yaw_rad,
                   pitch_rad=vs.pitch_rad, roll_rad=vs.roll_rad, yaw_rate_radps=r,
                   teleport_count=getattr(vs, "teleport_count", 0))

    def bad_field(self):
        """The name of the first non-finite number, or None."""
        for name in ("pos_m", "vel_mps", "acc_mps2"):
            for axis, x in zip("xyz", getattr(self, name)):
                if not math.isfinite(x):
                    return f"{name}[{axis}]"
        for name in ("yaw_rad", "pitch_rad", "roll_rad", "yaw_rate_radps", "sim_time_s"):
            if not math.isfinite(getattr(self, name)):
                return name
        return None


WAITING, INTERPOLATING, EXTRAPOLATING, HOLDING = "waiting", "interpolating", \
    "extrapolating", "holding"


@dataclass(frozen=True)
class Pose:
    vehicle_id: int
    pos_m: tuple
    quat: tuple          # w, x, y, z: body to world
    yaw_rad: float
    pitch_rad: float
    roll_rad: float
    mode: str
    drawn_server_ns: int


# ---- quaternions (w, x, y, z) ----

def quat_mul(a, b):
    return (a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
            a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
            a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
            a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0])


def quat_normalise(q):
    n = math.sqrt(sum(x * x for x in q))
    return tuple(x / n for x in q) if n > 0.0 else IDENTITY


def quat_slerp(a, b, u):
    """Shoemake's slerp along the shorter arc; a normalised lerp when the ends
    are closer than 3e-5 rad."""
    d = sum(x * y for x, y in zip(a, b))
    if d < 0.0:
        d, b = -d, tuple(-x for x in b)
    if d > 1.0 - 1e-10:
        wa, wb = 1.0 - u, u
    else:
        th = math.acos(d)
        s = math.sin(th)
        wa, wb = math.sin((1.0 - u) * th) / s, math.sin(u * th) / s
    return quat_normalise(tuple(wa * x + wb * y for x, y in zip(a, b)))


def quat_from_euler(yaw_rad, pitch_rad, roll_rad):
    """ZYX (ISO 8855: pitch positive nose down, roll right side down)."""
    cy, sy = math.cos(0.5 * yaw_rad), math.sin(0.5 * yaw_rad)
    cp, sp = math.cos(0.5 * pitch_rad), math.sin(0.5 * pitch_rad)
    cr, sr = math.cos(0.5 * roll_rad), math.sin(0.5 * roll_rad)
    return (cy * cp * cr + sy * sp * sr, cy * cp * sr - sy * sp * cr,
            cy * sp * cr + sy * cp * sr, sy * cp * cr - cy * sp * sr)


def euler_from_quat(q):
    """(yaw, pitch, roll) of a unit quaternion."""
    w, x, y, z = q
    sp = max(-1.0, min(1.0, 2.0 * (w * y - z * x)))
    return (math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z)), math.asin(sp),
            math.atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y)))


def _hermite(a, b, u):
    h_s = b.sim_time_s - a.sim_time_s
    if not h_s > 0.0:
        h_s = (b.server_ns - a.server_ns) / NS_PER_S
    u2, u3 = u * u, u * u * u
    h00, h10 = 2.0 * u3 - 3.0 * u2 + 1.0, u3 - 2.0 * u2 + u
    h01, h11 = -2.0 * u3 + 3.0 * u2, u3 - u2
    return tuple(h00 * pa + h10 * h_s * va + h01 * pb + h11 * h_s * vb
                 for pa, va, pb, vb in zip(a.pos_m, a.vel_mps, b.pos_m, b.vel_mps))


def _sample_quat(s):
    return quat_from_euler(s.yaw_rad, s.pitch_rad, s.roll_rad)


@dataclass
class Track:
    """One vehicle's samples (oldest first) and what was drawn of it."""
    vehicle_id: int
    teleport_count: int = 0
    samples: list = field(default_factory=list)
    last_arrival_ns: int = 0
    drawn: bool = False
    drawn_at_ns: int = 0
    drawn_server_ns: int = 0
    drawn_pos_m: tuple = (0.0, 0.0, 0.0)
    drawn_quat: tuple = IDENTITY
    err_pos_m: tuple = (0.0, 0.0, 0.0)
    err_quat: tuple = IDENTITY
    snaps: int = 0
    teleports: int = 0

    def restart(self):
        self.samples.clear()
        self.drawn = False
        self.err_pos_m = (0.0, 0.0, 0.0)
        self.err_quat = IDENTITY

    def eval(self, settings, t_ns):
        """(mode, position, quaternion) of the samples alone at server time t_ns."""
        s = self.samples
        if not s:
            return WAITING, (0.0, 0.0, 0.0), IDENTITY
        if t_ns <= s[0].server_ns:
            mode = INTERPOLATING if t_ns == s[0].server_ns and len(s) == 1 else WAITING
            return mode, tuple(s[0].pos_m), _sample_quat(s[0])
        for a, b in zip(s, s[1:]):
            if t_ns <= b.server_ns:
                u = (t_ns - a.server_ns) / (b.server_ns - a.server_ns)
                return (INTERPOLATING, _hermite(a, b, u),
                        quat_slerp(_sample_quat(a), _sample_quat(b), u))
        last = s[-1]
        ahead_s = (t_ns - last.server_ns) / NS_PER_S
        mode = EXTRAPOLATING
        if ahead_s > settings.extrapolate_max_s:
            ahead_s, mode = settings.extrapolate_max_s, HOLDING
        rate = 1.0
        if len(s) >= 2:
            wall_s = (last.server_ns - s[-2].server_ns) / NS_PER_S
            sim_s = last.sim_time_s - s[-2].sim_time_s
            if wall_s > 0.0 and sim_s > 0.0:
                rate = sim_s / wall_s
        e = ahead_s * rate
        pos = tuple(p + v * e + 0.5 * a * e * e
                    for p, v, a in zip(last.pos_m, last.vel_mps, last.acc_mps2))
        half = 0.5 * last.yaw_rate_radps * e
        return mode, pos, quat_mul((math.cos(half), 0.0, 0.0, math.sin(half)),
                                   _sample_quat(last))


class ProxyView:
    """Draws vehicles from the state stream; see the module's docstring.

    ``max_vehicles`` bounds the tracks as the C view's array does."""

    def __init__(self, settings=None, max_vehicles=64):
        self.settings = replace(settings) if settings is not None else Settings()
        self.settings.check()
        if max_vehicles < 1:
            raise ValueError(f"the view needs at least one track (max_vehicles={max_vehicles})")
        self.max_vehicles = max_vehicles
        self.tracks = {}
        self.offset_ns = 0
        self.round_trip_ns = 0
        self._clocks = []
        self.arrivals = 0
        self.last_server_ns = 0
        self.last_arrival_ns = 0
        self.last_transit_s = 0.0
        self.latency_s = 0.0
        self.jitter_s = 0.0
        self._intervals = []
        self._n_intervals = 0
        self.interval_s = 0.0
        self.delay_s = 0.0
        self.delay_target_s = 0.0
        self._delay_at_ns = 0
        self.dropped = 0

    def clock_sample(self, offset_ns, round_trip_ns):
        """A ping's offset (server minus this machine) and round trip
        (``Client.ping()``); the view uses the shortest round trip of the last
        eight and keeps the drawn time where it was."""
        if round_trip_ns <= 0:
            raise ValueError(f"a clock sample with a round trip of {round_trip_ns} ns "
                             "was not measured")
        self._clocks = (self._clocks + [(round_trip_ns, offset_ns)])[-CLOCKS:]
        rtt, best = min(self._clocks, key=lambda c: c[0])
        change_s = (best - self.offset_ns) / NS_PER_S
        if self.arrivals > 0:
            self.latency_s += change_s
            self.last_transit_s += change_s
            self.delay_s += change_s
            self.delay_target_s += change_s
        self.offset_ns, self.round_trip_ns = best, rtt

    def _advance_delay(self, now_ns):
        dt_s = (now_ns - self._delay_at_ns) / NS_PER_S
        if dt_s <= 0.0:
            return
        self._delay_at_ns = now_ns
        step = self.settings.delay_slew * dt_s
        gap = self.delay_target_s - self.delay_s
        self.delay_s += max(-step, min(step, gap))

    def arrival(self, server_ns, arrival_ns):
        """A batch stamped server_ns arrived at arrival_ns (once per batch)."""
        if not server_ns:
            raise ValueError("the batch has no wall_time_ns stamp: the server is too old "
                             "for the view")
        transit_s = (arrival_ns - (server_ns - self.offset_ns)) / NS_PER_S
        if self.arrivals == 0:
            self.latency_s, self.jitter_s = transit_s, 0.0
            self.last_server_ns = server_ns
            self._delay_at_ns = arrival_ns
        else:
            self.jitter_s += (abs(transit_s - self.last_transit_s) - self.jitter_s) * STATS_GAIN
            self.latency_s += (transit_s - self.latency_s) * STATS_GAIN
            if server_ns > self.last_server_ns:
                self._intervals = (self._intervals
                                   + [(server_ns - self.last_server_ns) / NS_PER_S])[-INTERVALS:]
                ordered = sorted(self._intervals)
                n = len(ordered)
                self.interval_s = (ordered[n // 2] if n % 2
                                   else 0.5 * (ordered[n // 2 - 1] + ordered[n // 2]))
                self.last_server_ns = server_ns
                self._n_intervals += 1
        self.last_transit_s = transit_s
        self.last_arrival_ns = arrival_ns
        self.arrivals += 1
        st = self.settings
        buffer_s = st.send_intervals * self.interval_s + st.jitter_scale * self.jitter_s
        buffer_s = min(max(buffer_s, st.delay_floor_s), st.delay_max_s)
        self.delay_target_s = self.latency_s + buffer_s
        if self._n_intervals < WARMUP_INTERVALS:
            self.delay_s = self.delay_target_s
            self._delay_at_ns = arrival_ns
        else:
            self._advance_delay(arrival_ns)

    def _claim(self, vehicle_id, arrival_ns):
        if len(self.tracks) < self.max_vehicles:
            return Track(vehicle_id)
        oldest = min(self.tracks.values(), key=lambda t: t.last_arrival_ns)
        if (arrival_ns - oldest.last_arrival_ns) / NS_PER_S > self.settings.forget_after_s:
            del self.tracks[oldest.vehicle_id]
            return Track(vehicle_id)
        return None

    def push(self, s, arrival_ns):
        """Adds one vehicle's sample; raises ValueError (a non-finite number,
        named), StaleSample or NoFreeTrack, leaving the view unchanged."""
        bad = s.bad_field()
        if bad is not None:
            self.dropped += 1
            raise ValueError(f"vehicle {s.vehicle_id}'s sample has a non-finite {bad}")
        t = self.tracks.get(s.vehicle_id)
        if t is None:
            t = self._claim(s.vehicle_id, arrival_ns)
            if t is None:
                self.dropped += 1
                raise NoFreeTrack(f"no track free for vehicle {s.vehicle_id}: all "
                                  f"{self.max_vehicles} hold vehicles heard from in the last "
                                  f"{self.settings.forget_after_s:g} s (give the view more "
                                  "tracks)")
            t.teleport_count = s.teleport_count
        elif ((s.teleport_count - t.teleport_count) & 0xFFFFFFFF) >= 0x80000000:
            self.dropped += 1
            raise StaleSample(f"vehicle {s.vehicle_id}'s sample has teleport_count "
                              f"{s.teleport_count}, older than the {t.teleport_count} drawn")
        elif s.teleport_count != t.teleport_count:
            t.restart()
            t.teleport_count = s.teleport_count
            t.teleports += 1
        at = len(t.samples)
        while at > 0 and t.samples[at - 1].server_ns > s.server_ns:
            at -= 1
        if (at > 0 and t.samples[at - 1].server_ns == s.server_ns) or (at == 0 and t.samples):
            self.dropped += 1
            raise StaleSample(f"vehicle {s.vehicle_id}'s sample stamped {s.server_ns} ns is "
                              "older than every sample kept or repeats one")
        self.tracks[s.vehicle_id] = t
        t.samples.insert(at, s)
        if len(t.samples) > SAMPLES:
            del t.samples[0]
        t.last_arrival_ns = arrival_ns
        if t.drawn:
            _, raw_pos, raw_q = t.eval(self.settings, t.drawn_server_ns)
            t.err_pos_m = tuple(d - r for d, r in zip(t.drawn_pos_m, raw_pos))
            inv = (raw_q[0], -raw_q[1], -raw_q[2], -raw_q[3])
            t.err_quat = quat_normalise(quat_mul(t.drawn_quat, inv))
            if math.sqrt(sum(e * e for e in t.err_pos_m)) > self.settings.snap_distance_m:
                t.err_pos_m, t.err_quat = (0.0, 0.0, 0.0), IDENTITY
                t.snaps += 1

    def push_row(self, row, arrival_ns):
        """arrival() and push() for every vehicle of a StateRow (from
        ``Client.subscribe_state``). A bad vehicle does not keep the others
        out: the first error is raised after the rest went in. A tick split
        into parts (``max_batch_vehicles``) has one wall time: its first
        part's arrival stands for the tick's."""
        if getattr(row, "part", 0) == 0:
            self.arrival(row.wall_time_ns, arrival_ns)
        first = None
        for vs in row.vehicles:
            try:
                self.push(Sample.from_state(vs, row.wall_time_ns, row.sim_time_s), arrival_ns)
            except (ValueError, NoFreeTrack) as e:
                first = first or e
        if first is not None:
            raise first

    def draw(self, vehicle_id, now_ns):
        """The Pose to draw vehicle_id at the caller's time now_ns; raises
        UnknownVehicle when the view has no sample of it."""
        t = self.tracks.get(vehicle_id)
        if t is None or not t.samples:
            raise UnknownVehicle(f"the view has no sample of vehicle {vehicle_id}")
        self._advance_delay(now_ns)
        drawn_ns = now_ns + self.offset_ns - round(self.delay_s * NS_PER_S)
        mode, raw_pos, raw_q = t.eval(self.settings, drawn_ns)
        if t.drawn:
            dt_s = (now_ns - t.drawn_at_ns) / NS_PER_S
            tau = self.settings.blend_time_s
            keep = math.exp(-dt_s / tau) if tau > 0.0 and dt_s >= 0.0 else 0.0
            t.err_pos_m = tuple(e * keep for e in t.err_pos_m)
            t.err_quat = quat_slerp(IDENTITY, t.err_quat, keep)
        pos = tuple(r + e for r, e in zip(raw_pos, t.err_pos_m))
        q = quat_normalise(quat_mul(t.err_quat, raw_q))
        yaw, pitch, roll = euler_from_quat(q)
        t.drawn, t.drawn_at_ns, t.drawn_server_ns = True, now_ns, drawn_ns
        t.drawn_pos_m, t.drawn_quat = pos, q
        return Pose(vehicle_id, pos, q, yaw, pitch, roll, mode, drawn_ns)

    def forget(self, vehicle_id):
        """Frees vehicle_id's track (it was removed); UnknownVehicle if none."""
        if self.tracks.pop(vehicle_id, None) is None:
            raise UnknownVehicle(f"the view has no track of vehicle {vehicle_id}")
