-- The inputs table keyed by its primary key alone (WITHOUT ROWID): a row is
-- found, and a session's rows are read in (tick, seq) order, in one B-tree,
-- where a rowid table kept the key in an index beside it and looked every
-- row up again in the table. Reading a recording's inputs, most of what a
-- verify waits for before it re-simulates, takes about a fifth less time,
-- the file is smaller, and each recorded input is written into one B-tree,
-- not two (docs/adr/0020-verify-and-the-load-around-the-step.md). The
-- columns, their meaning and the key are 0001's; the rows are copied as
-- they are. As in 0001, every unsigned 64-bit value is stored as the signed
-- 64-bit integer with the same bits.
CREATE TABLE inputs_by_key (
    session_id INTEGER NOT NULL REFERENCES sessions(session_id),
    tick       INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    kind       INTEGER NOT NULL,
    payload    BLOB NOT NULL,
    PRIMARY KEY (session_id, tick, seq)
) WITHOUT ROWID;

INSERT INTO inputs_by_key (session_id, tick, seq, kind, payload)
    SELECT session_id, tick, seq, kind, payload FROM inputs;

DROP TABLE inputs;

ALTER TABLE inputs_by_key RENAME TO inputs;
