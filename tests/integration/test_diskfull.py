"""The disk fills under a recorded session (issue 28): the real paddockd with
its database on an 8 MiB tmpfs, mounted in a private mount namespace so that
nothing leaks and no root is needed (unshare -rm; unshare -m as root).

1. A filler file takes every free byte while a client sends DBW commands to a
   recorded session at about 50 Hz. The session pauses with a reason naming the
   full disk and the database (SessionInfo and `paddock stats`), an unrecorded
   session runs on, a resume or a recorded session's creation is refused naming
   the disk, and commands are still answered. The filler goes: the session
   resumes by itself, verify matches every tick from the first to the last
   with no hole, and every acknowledged command is a row of the recording at
   the tick its reply named.
   A copy with ten hashes deleted verifies with the hole named.
2. Started on a full disk (after a clean stop): paddockd starts read-only and
   says so; the recording is listed, verified, exported and replayed; a
   recorded session, a fork, an import and a delete are refused naming the
   disk; an unrecorded session runs.
3. SIGTERM while the disk is full: paddockd exits 1 saying how many records it
   kept and could not write, and the ticks of the session they belonged to.
   The same files seen without their WAL index: the start is refused,
   naming the WAL. Started again as they are: recorded sessions are refused
   naming the disk until the filler goes, then the session left running is
   marked interrupted and recording works again.
(2 also starts a binary that needs one more migration on the full disk: it
is refused, naming the disk and both schema versions.)

"""
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

SKIP = 77
INSIDE = "PDK_DISKFULL_INSIDE"


def reexec_in_namespace():
    """Runs this script again in a mount namespace of its own; returns its status."""
    if not shutil.which("unshare"):
        print("SKIP: no unshare(1) here to make a private mount namespace", flush=True)
        return SKIP
    env = dict(os.environ, **{INSIDE: "1"})
    flags = ["-m"] if os.geteuid() == 0 else ["-r", "-m"]
    probe = subprocess.run(["unshare"] + flags + ["true"], capture_output=True, text=True)
    if probe.returncode != 0:
        print(f"SKIP: unshare {' '.join(flags)} failed here: {probe.stderr.strip()}", flush=True)
        return SKIP
    return subprocess.call(["unshare"] + flags + [sys.executable] + sys.argv, env=env)


class Server:
    LISTENING = re.compile(r"\) listening on 127\.0\.0\.1:(\d+)")

    def __init__(self, paddockd, source, db, log_path, extra=()):
        self.log_path = log_path
        with open(log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [paddockd, "serve", "--listen", "127.0.0.1:0", "--db", db,
                 "--presets", os.path.join(source, "presets"),
                 "--migrations", os.path.join(source, "migrations")] + list(extra),
                stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            m = self.LISTENING.search(self.log())
            if m:
                self.port = int(m.group(1))
                return
            if self.proc.poll() is not None:
                raise AssertionError(f"paddockd exited with {self.proc.returncode}:\n{self.log()}")
            time.sleep(0.02)
        raise AssertionError("paddockd did not say it was listening within 20 s")

    def log(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=30)


def fill(path):
    """Writes zeros to path until the file system says it is full."""
    chunk = b"\0" * (64 * 1024)
    with open(path, "wb", buffering=0) as f:
        try:
            while True:
                f.write(chunk)
        except OSError:
            pass
        try:  # the last few bytes a 64 KiB write could not take
            while True:
                f.write(b"\0" * 512)
        except OSError:
            pass


def wait_for(what, fn, timeout_s):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        got = fn()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


class Driver(threading.Thread):
    """Sends a DBW command every 20 ms and keeps the tick each reply named."""

    def __init__(self, client, session_id, vehicle_id):
        super().__init__(daemon=True)
        self.c, self.s, self.v = client, session_id, vehicle_id
        self.acked = []  # (tick, throttle_pct)
        self.errors = []
        self.stop_flag = threading.Event()

    def run(self):
        n = 0
        while not self.stop_flag.is_set():
            throttle = float(n % 50)
            try:
                tick = self.c.dbw_command(self.s, self.v, throttle_pct=throttle)
                self.acked.append((tick, throttle))
            except Exception as e:  # every command must be answered with Ok
                self.errors.append(repr(e))
            n += 1
            time.sleep(0.02)


def info_of(client, session_id):
    for s in client.list_sessions():
        if s.session_id == session_id:
            return s
    raise AssertionError(f"session {session_id} is not listed")


def scenario_fill_and_free(paddock, paddockd, cli, source, mnt, work):
    db = os.path.join(mnt, "paddock.db")
    filler = os.path.join(mnt, "filler")
    srv = Server(paddockd, source, db, os.path.join(work, "serve1.log"))
    try:
        c = paddock.Client("127.0.0.1", srv.port, name="diskfull", timeout=10)
        s = c.create_session("recorded").session_id
        free = c.create_session("unrecorded", no_record=True).session_id
        v = c.spawn(s, "midsize_sedan").vehicle_id
        d = Driver(c, s, v)
        d.start()
        time.sleep(0.5)

        fill(filler)
        t_full = time.monotonic()
        reason = wait_for("the recorded session to pause for the disk",
                          lambda: (lambda i: i.paused and i.pause_reason)(info_of(c, s)), 15)
        print(f"paused {time.monotonic() - t_full:.2f} s after the disk filled: {reason}",
              flush=True)
        assert "disk full" in reason and db in reason, reason
        assert "full" in srv.log() and "records are kept in memory" in srv.log(), srv.log()
        paused_tick = info_of(c, s).tick
        free_tick = info_of(c, free).tick
        time.sleep(0.5)
        assert info_of(c, s).tick == paused_tick, "a session paused for the disk ticked"
        assert info_of(c, free).tick > free_tick, "an unrecorded session stopped with the disk"
        # What an operator sees: paddock stats names the pause and the disk.
        out = subprocess.run([cli, "--server", f"127.0.0.1:{srv.port}", "stats", "--session",
                              str(s), "--count", "1"], capture_output=True, text=True, timeout=20)
        assert out.returncode == 0, out.stderr
        assert "paused" in out.stdout and "disk full" in out.stdout and db in out.stdout, out.stdout
        # A resume and a new recorded session are refused, naming the disk.
        for attempt in (lambda: c.resume(s), lambda: c.create_session("more")):
            try:
                attempt()
                raise AssertionError("refused nothing while the disk is full")
            except paddock.PaddockError as e:
                assert "disk full" in str(e) and db in str(e), str(e)
        acked_while_full = len(d.acked)
        time.sleep(0.3)
        assert len(d.acked) > acked_while_full, "commands to a paused session got no reply"

        os.remove(filler)
        t_free = time.monotonic()
        wait_for("the session to resume by itself", lambda: not info_of(c, s).paused, 10)
        print(f"resumed {time.monotonic() - t_free:.2f} s after the filler went", flush=True)
        assert "space returned" in srv.log(), srv.log()
        wait_for("ticks after the resume", lambda: info_of(c, s).tick > paused_tick + 60, 10)
        d.stop_flag.set()
        d.join(5)
        assert not d.errors, d.errors
        # Verify of the live session says how far it checked and where the
        # session is: its match covers the recorded range only.
        out = subprocess.run([cli, "--server", f"127.0.0.1:{srv.port}", "verify", str(s)],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stdout + out.stderr
        live = int(re.search(r"^live_tick: +(\d+)$", out.stdout, re.M).group(1))
        checked_to = int(re.search(r"^last_tick: +(\d+)$", out.stdout, re.M).group(1))
        assert live >= checked_to and re.search(r"^recorded: +0\.\.%d " % checked_to, out.stdout,
                                                re.M), out.stdout
        assert re.search(r"^hole: +-$", out.stdout, re.M), out.stdout
        assert "the session is live at tick" in out.stdout, out.stdout
        c.close_session(s)
        v_reply = c.verify(s)
        print(f"verify: match={v_reply.match} hashes_checked={v_reply.hashes_checked} "
              f"last_tick={v_reply.last_tick}: {v_reply.message}", flush=True)
        c.close()
    finally:
        code = srv.stop()
    log = srv.log()
    assert code == 0, f"paddockd exited {code}:\n{log}"
    assert v_reply.match, v_reply.message
    # Logged once per change of state, not once per failed write.
    assert log.count("paddock store: ") == 2 and log.count("the disk is full (") == 2, log
    print(log, flush=True)

    # Read from a copy: a reader of the file itself would leave a WAL index
    # beside it, which a clean stop does not.
    copy = os.path.join(work, "copy.db")
    shutil.copy(db, copy)
    rdb = sqlite3.connect(copy)
    ticks = [t for (t,) in rdb.execute(
        "SELECT tick FROM state_hashes WHERE session_id = ? ORDER BY tick", (s,))]
    first, last = ticks[0], ticks[-1]
    assert ticks == list(range(first, last + 1)), "the recorded hashes have a hole"
    assert v_reply.hashes_checked == len(ticks), (v_reply.hashes_checked, len(ticks))
    assert last >= v_reply.last_tick
    rows = rdb.execute("SELECT tick, COUNT(*) FROM inputs WHERE session_id = ? GROUP BY tick",
                       (s,)).fetchall()
    recorded = {t: n for (t, n) in rows}
    missing = [tick for (tick, _) in d.acked if recorded.get(tick, 0) == 0]
    assert not missing, f"acknowledged commands missing from the recording at ticks {missing[:10]}"
    assert sum(recorded.values()) >= len(d.acked) + 1  # the spawn is a row too
    rdb.close()

    # A recording with a hole (rows deleted from a copy, as a disk that
    # lost them would leave it): verify names the hole and does not claim
    # those ticks.
    holed = os.path.join(work, "holed.db")
    shutil.copy(copy, holed)
    with sqlite3.connect(holed) as w:
        w.execute("DELETE FROM state_hashes WHERE session_id = ? AND tick BETWEEN 20 AND 29", (s,))
    out = subprocess.run([paddockd, "verify", "--db", holed, "--migrations",
                          os.path.join(source, "migrations"), "--presets",
                          os.path.join(source, "presets"), str(s)],
                         capture_output=True, text=True, timeout=60)
    assert re.search(r"^hole: +20\.\.29 \(10 ticks without a hash, not checked\)$", out.stdout,
                     re.M), out.stdout + out.stderr
    assert "were not checked (a hole, first ticks 20..29)" in out.stdout, out.stdout
    assert re.search(r"^hashes_checked: +%d$" % (len(ticks) - 10), out.stdout, re.M), out.stdout
    print(f"ok: {len(d.acked)} acknowledged commands ({acked_while_full} before the resume "
          f"attempt) all recorded; hashes {first}..{last} without a hole", flush=True)
    return s, len(ticks)


def refused(paddock, what, fn, *words):
    try:
        fn()
    except paddock.PaddockError as e:
        for w in words:
            assert w in str(e), f"{what}: {e}"
        return
    raise AssertionError(f"{what} was not refused")


def refused_start(paddockd, source, db, log_path, migrations=None):
    """Runs paddockd serve on db, which must refuse to start: its output."""
    with open(log_path, "wb") as log:
        code = subprocess.call(
            [paddockd, "serve", "--listen", "127.0.0.1:0", "--db", db,
             "--presets", os.path.join(source, "presets"),
             "--migrations", migrations or os.path.join(source, "migrations")],
            stdout=log, stderr=subprocess.STDOUT, timeout=20)
    with open(log_path, encoding="utf-8") as f:
        said = f.read()
    assert code == 1, f"paddockd exited {code}:\n{said}"
    return said


def try_create(c):
    try:
        return c.create_session("after").session_id
    except Exception:
        return None


def scenario_start_on_full_disk(paddock, paddockd, source, mnt, work, s, n_hashes):
    db = os.path.join(mnt, "paddock.db")
    assert not os.path.exists(db + "-wal") or os.path.getsize(db + "-wal") == 0
    filler = os.path.join(mnt, "filler3")
    fill(filler)
    srv = Server(paddockd, source, db, os.path.join(work, "serve3.log"))
    try:
        assert "serving read-only" in srv.log() and "No space left on device" in srv.log(), \
            srv.log()
        c = paddock.Client("127.0.0.1", srv.port, name="diskfull-ro", timeout=20)
        assert s in [r.session_id for r in c.list_recordings()]
        v = c.verify(s)
        assert v.match and v.hashes_checked == n_hashes and v.missing_ticks == 0, v.message
        exported = c.export_bytes(s)
        assert len(exported) > 0
        refused(paddock, "an import", lambda: c.import_session(exported), "read-only")
        replay = c.replay_open(s, paused=True).session_id
        c.step(replay, 10)
        c.close_session(replay)
        refused(paddock, "a recorded session", lambda: c.create_session("rec"), "read-only", db)
        refused(paddock, "a fork", lambda: c.fork(s, 5), "read-only", db)
        refused(paddock, "a delete", lambda: c.delete_recording(s), "read-only")
        free = c.create_session("unrecorded", no_record=True).session_id
        t0 = info_of(c, free).tick
        wait_for("the unrecorded session to tick", lambda: info_of(c, free).tick > t0 + 30, 5)
        c.close()
    finally:
        code = srv.stop()
        os.remove(filler)
    assert code == 0, f"paddockd exited {code}:\n{srv.log()}"
    print("ok: started read-only on a full disk", flush=True)

    # A binary with a migration the database lacks: migrations must write,
    # so the start on a full disk is refused, naming the disk and versions.
    migrations = os.path.join(work, "migrations")
    shutil.copytree(os.path.join(source, "migrations"), migrations)
    have = len([f for f in os.listdir(migrations) if f.endswith(".sql")])
    with open(os.path.join(migrations, "%04d_extra.sql" % (have + 1)), "w") as f:
        f.write("CREATE TABLE extra(x INTEGER);\n")
    fill(filler)
    try:
        said = refused_start(paddockd, source, db, os.path.join(work, "serve3m.log"), migrations)
    finally:
        os.remove(filler)
    assert (f"the database is at schema version {have} while this binary needs {have + 1}: "
            "the migrations must write" in said and "No space left on device" in said), said
    print("ok: a start needing migrations on a full disk refused", flush=True)


def scenario_kept_bound(paddock, paddockd, source, mnt, work):
    """--max-kept-bytes 1: what is kept when the disk fills is given up and
    the lost ticks are marked; verify, meta and the rows agree on them."""
    db = os.path.join(mnt, "gaps.db")
    filler = os.path.join(mnt, "filler5")
    srv = Server(paddockd, source, db, os.path.join(work, "serve5.log"),
                 ["--max-kept-bytes", "1"])
    try:
        c = paddock.Client("127.0.0.1", srv.port, name="diskfull-gaps", timeout=20)
        s = c.create_session("gaps").session_id
        v = c.spawn(s, "midsize_sedan").vehicle_id
        d = Driver(c, s, v)
        d.start()
        time.sleep(0.5)
        fill(filler)
        wait_for("the session to pause for the disk", lambda: info_of(c, s).paused, 15)
        time.sleep(1.5)  # a retry or two while full: the bound is applied at each
        os.remove(filler)
        wait_for("the session to resume", lambda: not info_of(c, s).paused, 10)
        paused_at = info_of(c, s).tick
        wait_for("ticks after the resume", lambda: info_of(c, s).tick > paused_at + 60, 10)
        d.stop_flag.set()
        d.join(5)
        assert not d.errors, d.errors
        c.close_session(s)
        v_reply = c.verify(s)
        meta = c.session_meta(s)
        c.close()
    finally:
        code = srv.stop()
    log = srv.log()
    assert code == 0, log
    assert "passed 1 bytes (--max-kept-bytes)" in log and f"session {s} loses ticks" in log, log
    assert "were given up past --max-kept-bytes; their ticks are marked" in log, log
    copy = os.path.join(work, "gaps-copy.db")
    shutil.copy(db, copy)
    rdb = sqlite3.connect(copy)
    gaps = rdb.execute("SELECT first_tick, last_tick, records FROM recording_gaps "
                       "WHERE session_id = ?", (s,)).fetchall()
    assert len(gaps) == 1 and gaps[0][2] > 0, gaps
    first, last = gaps[0][0], gaps[0][1]
    hashed = {t for (t,) in rdb.execute("SELECT tick FROM state_hashes WHERE session_id = ?",
                                        (s,))}
    rdb.close()
    # Exact: no hash inside the marked run, hashes on both sides of it.
    assert not any(first <= t <= last for t in hashed), (first, last)
    assert first - 1 in hashed and last + 1 in hashed, (first, last, sorted(hashed)[:5])
    print(f"verify: match={v_reply.match} last_tick={v_reply.last_tick} hole="
          f"{v_reply.hole_first_tick}..{v_reply.hole_last_tick}: {v_reply.message}", flush=True)
    assert v_reply.match and v_reply.last_tick == first - 1, v_reply.message
    assert (v_reply.hole_first_tick, v_reply.hole_last_tick) == (first, last), v_reply.message
    assert v_reply.missing_ticks == last - first + 1, v_reply.missing_ticks
    assert f"ticks {first}..{last} were lost when the disk was full" in v_reply.message
    assert meta["gaps"] == 1 and meta["gap"] == {"first_tick": first, "last_tick": last}, meta
    assert meta["last_tick"] == first - 1, meta
    print(f"ok: past --max-kept-bytes, ticks {first}..{last} marked lost ({gaps[0][2]} records)",
          flush=True)


def scenario_sigterm_on_full_disk(paddock, paddockd, source, mnt, work):
    db = os.path.join(mnt, "paddock.db")
    filler = os.path.join(mnt, "filler2")
    srv = Server(paddockd, source, db, os.path.join(work, "serve2.log"))
    c = paddock.Client("127.0.0.1", srv.port, name="diskfull-term", timeout=10)
    s = c.create_session("doomed").session_id
    c.spawn(s, "midsize_sedan")
    time.sleep(0.3)
    fill(filler)
    wait_for("the session to pause for the disk", lambda: info_of(c, s).paused, 15)
    c.close()
    code = srv.stop()
    log = srv.log()
    assert code == 1, f"paddockd exited {code} on a full disk:\n{log}"
    m = re.search(r"(\d+) records kept in memory were not written", log)
    assert m and int(m.group(1)) > 0, log
    assert re.search(rf"session {s}: \d+ records of ticks \d+\.\.\d+ not written", log), log
    print(f"ok: SIGTERM on a full disk said: {m.group(0)}", flush=True)

    # The same database and WAL seen without their WAL index (hard links
    # cost a full disk nothing): the commits in the WAL cannot be read
    # without a writer, so the start is refused, naming the WAL.
    bare = os.path.join(mnt, "bare.db")
    os.link(db, bare)
    os.link(db + "-wal", bare + "-wal")
    try:
        said = refused_start(paddockd, source, bare, os.path.join(work, "serve3w.log"))
    finally:
        for p in (bare, bare + "-wal", bare + "-shm"):
            if os.path.exists(p):
                os.remove(p)
    wal_bytes = os.path.getsize(db + "-wal")
    assert f"{bare}-wal holds {wal_bytes} bytes of commits" in said and "free some space" in said, \
        said
    print("ok: a WAL with commits and no WAL index on a full disk refused", flush=True)

    # Started again on the same full disk, its WAL and WAL index left
    # beside it: it starts, says the disk is full, refuses recorded sessions
    # naming the disk, lists the recording, and once space returns marks the
    # session left running as interrupted and records again.
    again = Server(paddockd, source, db, os.path.join(work, "serve4.log"))
    try:
        c = paddock.Client("127.0.0.1", again.port, name="diskfull-again", timeout=20)
        wait_for("the start to say the disk is full",
                 lambda: "marked interrupted once space returns" in again.log(), 5)
        refused(paddock, "a recorded session", lambda: c.create_session("rec"), "disk full", db)
        assert s in [r.session_id for r in c.list_recordings()]
        os.remove(filler)
        wait_for("space to be seen", lambda: "space returned" in again.log(), 5)
        wait_for("a recorded session to start", lambda: try_create(c), 5)
        assert [r.session_id for r in c.list_recordings(interrupted_only=True)] == [s]
        c.close()
    finally:
        code = again.stop()
    assert code == 0, again.log()
    print("ok: restarted on the full disk, recorded again once space returned", flush=True)


def main():
    if os.environ.get(INSIDE) != "1":
        return reexec_in_namespace()
    paddockd, cli, source = sys.argv[1:4]
    import paddock
    work = tempfile.mkdtemp(prefix="paddock-diskfull-")
    mnt = os.path.join(work, "disk")
    os.mkdir(mnt)
    mount = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mnt],
                           capture_output=True, text=True)
    if mount.returncode != 0:
        print(f"SKIP: cannot mount a tmpfs in the namespace: {mount.stderr.strip()}", flush=True)
        return SKIP
    try:
        s, n_hashes = scenario_fill_and_free(paddock, paddockd, cli, source, mnt, work)
        scenario_start_on_full_disk(paddock, paddockd, source, mnt, work, s, n_hashes)
        scenario_kept_bound(paddock, paddockd, source, mnt, work)
        scenario_sigterm_on_full_disk(paddock, paddockd, source, mnt, work)
    finally:
        subprocess.run(["umount", mnt])
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
