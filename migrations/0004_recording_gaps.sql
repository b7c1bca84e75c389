-- Ticks a recording lost while the disk was full: the records kept in
-- memory for it passed the server's bound (--max-kept-bytes) and those past it
-- were given up, to be marked here once space returned. One row per run
-- of lost ticks, first_tick..last_tick both included, with how many records
-- (inputs, state hashes, keyframes) they held. Verify, replay and meta name
-- them instead of matching across them (docs/security.md "The disk fills").
-- As in 0001, every unsigned 64-bit value is stored as the signed 64-bit
-- integer with the same bits.
CREATE TABLE recording_gaps (
    session_id INTEGER NOT NULL REFERENCES sessions(session_id),
    first_tick INTEGER NOT NULL,
    last_tick  INTEGER NOT NULL,
    records    INTEGER NOT NULL,
    PRIMARY KEY (session_id, first_tick)
) WITHOUT ROWID;
