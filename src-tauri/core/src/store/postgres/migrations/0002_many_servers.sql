-- Several servers on one database (issue 16, item 2): what they must share beyond the ledger.
--
--   * `ledger_event` is every event any server published, in one order for all of them. A
--     server writes its events here (`postgres::event_relay`) and delivers to its own clients
--     only what it reads back, so every server's clients see the same events with the same
--     sequence numbers, and a client that reconnects to another server resumes with its
--     `Last-Event-ID`. Writers take a transaction-scoped advisory lock before inserting, so
--     sequences become visible in the order they were handed out: a reader that has seen
--     sequence N will never later find a smaller one. Rows older than the retention are pruned.
--   * `reply_lease` says which server is replying in a session, until when. The owner renews
--     its leases while it lives; a lease that runs out belongs to a server that died, and
--     another server closes its reply as interrupted (`reply::reply_lease`). The database's
--     clock decides expiry, so servers whose clocks disagree still agree on it.

CREATE TABLE ledger_event (
    sequence    BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    origin      TEXT NOT NULL,      -- the server that published it
    created_at  TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    event       TEXT NOT NULL       -- JSON of the event: {id, type, properties}
);
CREATE INDEX ledger_event_created_idx ON ledger_event (created_at);

CREATE TABLE reply_lease (
    session_id  TEXT COLLATE "C" PRIMARY KEY REFERENCES session(id) ON DELETE CASCADE,
    owner       TEXT NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX reply_lease_owner_idx ON reply_lease (owner);
CREATE INDEX reply_lease_expires_idx ON reply_lease (expires_at);

-- Open replies are looked for on every sweep; without this the sweep reads every message.
-- The predicate is the one `message_store::open_replies` queries with, word for word.
CREATE INDEX message_open_reply_idx ON message (session_id)
    WHERE role = 'assistant'
      AND (data::jsonb -> 'time' ->> 'completed') IS NULL
      AND (data::jsonb ->> 'error') IS NULL;

-- A part that refers to stored bytes holds them, whichever path adds it. `blob_store::put` locks
-- the blob's row for the writer that stores them, but a fork or an import copies file parts that
-- refer to bytes already stored, without `put`; with several servers writing, a deletion of the
-- last other part could release those bytes under it. This lock, taken before the part is
-- written and held to the end of its transaction, makes that deletion's release wait and then
-- see the new part; and a part whose bytes were released already is refused, never stored
-- pointing at nothing. Fired BEFORE the row is written, so the blob is locked before the
-- session's listing row, in the order a deletion takes them (see `part_blob_release`).
CREATE FUNCTION part_blob_hold() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    url TEXT := NEW.data::jsonb ->> 'url';
BEGIN
    IF url IS NULL OR url NOT LIKE 'dossier-blob:sha256-%' THEN
        RETURN NEW;
    END IF;
    PERFORM 1 FROM blob WHERE hash = substr(url, 21) FOR SHARE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'the attachment % is no longer stored', substr(url, 21)
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER blob_hold_on_part_insert BEFORE INSERT ON part
FOR EACH ROW WHEN (NEW.type = 'file')
EXECUTE FUNCTION part_blob_hold();
CREATE TRIGGER blob_hold_on_part_update BEFORE UPDATE OF data ON part
FOR EACH ROW WHEN (NEW.type = 'file')
EXECUTE FUNCTION part_blob_hold();
