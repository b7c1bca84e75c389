-- Who a session belongs to and the join tokens given for it (issue 28,
-- docs/security.md "Identities and roles"), so that after a restart an
-- --auth key still reaches its own recordings and a token its shared one.
-- Neither table is part of an export: an imported recording has no owner
-- here. As in 0001, every unsigned 64-bit value is stored as the signed
-- 64-bit integer with the same bits.

-- The owner is the name of the --auth key that created the session (or
-- asked for its fork), never the key itself. A session without a row is
-- nobody's: the demo, and everything recorded before this migration or
-- without --auth's identities; only admins and operators reach those.
CREATE TABLE session_owners (
    session_id INTEGER PRIMARY KEY REFERENCES sessions(session_id),
    owner      TEXT NOT NULL
);

-- A SessionShare's token, as its SHA-256 (32 bytes): the token itself is
-- only ever in the reply to its sharer. role is paddock.v1.Role's number.
CREATE TABLE join_tokens (
    token_sha256 BLOB PRIMARY KEY,
    session_id   INTEGER NOT NULL REFERENCES sessions(session_id),
    role         INTEGER NOT NULL
) WITHOUT ROWID;
