-- Paddock's first schema: sessions, their vehicles with fully resolved
-- parameters, every input with the tick it took effect, and state hashes.
-- Every unsigned 64-bit value (session ids, ticks, hashes) is stored as the
-- signed 64-bit integer with the same bits (docs/adr/0002-sqlite-writer-thread.md).
-- The primary keys serve every read the store makes, so no extra index.
CREATE TABLE build (
    build_id   TEXT PRIMARY KEY,
    first_seen_unix_ms INTEGER NOT NULL
);

CREATE TABLE sessions (
    session_id      INTEGER PRIMARY KEY,
    name            TEXT NOT NULL,
    timing          TEXT NOT NULL,
    world_preset    TEXT NOT NULL,
    world_json      TEXT NOT NULL,
    build_id        TEXT NOT NULL,
    dt_s            REAL NOT NULL,
    substeps        INTEGER NOT NULL,
    created_unix_ms INTEGER NOT NULL,
    closed_unix_ms  INTEGER,
    final_tick      INTEGER,
    final_hash      INTEGER
);

CREATE TABLE vehicles (
    session_id   INTEGER NOT NULL REFERENCES sessions(session_id),
    vehicle_id   INTEGER NOT NULL,
    spawn_tick   INTEGER NOT NULL,
    removed_tick INTEGER,
    preset       TEXT NOT NULL,
    overrides    TEXT NOT NULL,
    params_json  TEXT NOT NULL,
    PRIMARY KEY (session_id, vehicle_id, spawn_tick)
);

CREATE TABLE inputs (
    session_id INTEGER NOT NULL REFERENCES sessions(session_id),
    tick       INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    kind       INTEGER NOT NULL,
    payload    BLOB NOT NULL,
    PRIMARY KEY (session_id, tick, seq)
);

CREATE TABLE state_hashes (
    session_id INTEGER NOT NULL REFERENCES sessions(session_id),
    tick       INTEGER NOT NULL,
    hash       INTEGER NOT NULL,
    PRIMARY KEY (session_id, tick)
);
