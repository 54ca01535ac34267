-- The ledger: sessions, messages and parts, plus content-addressed attachment bytes.
-- Order inside a session is `seq`, drawn from `session.last_seq` in the writing transaction,
-- never the ids (which clients may mint).

CREATE TABLE session (
    id             TEXT PRIMARY KEY NOT NULL,
    parent_id      TEXT REFERENCES session(id) ON DELETE CASCADE,
    slug           TEXT NOT NULL,
    project_id     TEXT NOT NULL,
    directory      TEXT NOT NULL,
    title          TEXT NOT NULL,
    version        TEXT NOT NULL,
    agent          TEXT,
    model          TEXT,            -- JSON {id, providerID, variant?}
    permission     TEXT,            -- JSON ruleset
    revert         TEXT,            -- JSON revert marker
    summary        TEXT,            -- JSON file-diff summary
    cost           REAL NOT NULL DEFAULT 0,
    tokens_input       INTEGER NOT NULL DEFAULT 0,
    tokens_output      INTEGER NOT NULL DEFAULT 0,
    tokens_reasoning   INTEGER NOT NULL DEFAULT 0,
    tokens_cache_read  INTEGER NOT NULL DEFAULT 0,
    tokens_cache_write INTEGER NOT NULL DEFAULT 0,
    pinned         INTEGER NOT NULL DEFAULT 0,
    last_seq       INTEGER NOT NULL DEFAULT 0,
    time_created   INTEGER NOT NULL,
    time_updated   INTEGER NOT NULL,
    time_compacting INTEGER,
    time_archived  INTEGER
);
-- Newest-first listing with a keyset cursor on (time_updated, id).
CREATE INDEX session_updated_idx ON session (time_updated DESC, id DESC);
CREATE INDEX session_parent_idx ON session (parent_id);

CREATE TABLE message (
    id            TEXT PRIMARY KEY NOT NULL,
    session_id    TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL,
    role          TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    time_created  INTEGER NOT NULL,
    time_updated  INTEGER NOT NULL,
    data          TEXT NOT NULL     -- JSON of the message without id and sessionID
);
CREATE UNIQUE INDEX message_session_seq_idx ON message (session_id, seq);

CREATE TABLE part (
    id            TEXT PRIMARY KEY NOT NULL,
    message_id    TEXT NOT NULL REFERENCES message(id) ON DELETE CASCADE,
    session_id    TEXT NOT NULL,
    seq           INTEGER NOT NULL,
    type          TEXT NOT NULL,
    time_created  INTEGER NOT NULL,
    time_updated  INTEGER NOT NULL,
    data          TEXT NOT NULL     -- JSON of the part body (tagged by type) without ids
);
CREATE INDEX part_message_seq_idx ON part (message_id, seq);
CREATE INDEX part_session_idx ON part (session_id);

CREATE TABLE blob (
    hash          TEXT PRIMARY KEY NOT NULL,  -- sha256 hex of bytes
    mime          TEXT NOT NULL,
    size          INTEGER NOT NULL,
    bytes         BLOB NOT NULL,
    time_created  INTEGER NOT NULL
);
