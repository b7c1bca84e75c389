-- Exact replay (issue 7): keyframe snapshots, forks, and sessions that
-- paddockd never closed because it was killed.
-- As in 0001, every unsigned 64-bit value (ids, ticks, hashes, layouts) is
-- stored as the signed 64-bit integer with the same bits.

-- Where a session starts and where it came from. A fresh session starts at
-- tick 0 with no parent (parent_session_id 0); a fork starts at its parent's
-- tick. parent_session_id is not a foreign key: an imported fork keeps its
-- parent's id from the file it came from, which need not exist here.
-- keyframe_every_ticks is the distance between keyframe snapshots (0: the
-- session records none, as every session recorded before this migration).
ALTER TABLE sessions ADD COLUMN start_tick INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN parent_session_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN parent_tick INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN keyframe_every_ticks INTEGER NOT NULL DEFAULT 0;

-- 1 when pdk_store_mark_interrupted found the session without a recorded
-- end (paddockd was killed while it ran) and set its final_tick and
-- final_hash to its last committed state hash; closed_unix_ms stays NULL.
ALTER TABLE sessions ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0;

-- Keyframes: the session's complete state at tick (a WorldSnapshot message),
-- the state hash at that tick and the state layout the blob was written in.
-- A replay or fork restores the nearest keyframe at or before its target and
-- steps from there. The primary key serves both the per-session listing in
-- tick order and the lookup of one tick; the last hash of a session
-- (MAX(tick)) is served by state_hashes' primary key, so no extra index.
CREATE TABLE snapshots (
    session_id INTEGER NOT NULL REFERENCES sessions(session_id),
    tick       INTEGER NOT NULL,
    hash       INTEGER NOT NULL,
    layout     INTEGER NOT NULL,
    blob       BLOB NOT NULL,
    PRIMARY KEY (session_id, tick)
);
