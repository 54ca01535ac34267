-- The ledger on PostgreSQL: one schema equivalent to SQLite's after its nine migrations
-- (`src-tauri/core/migrations/`), written fresh because there is no older Postgres ledger to
-- carry forward. Forward-only from here, like SQLite's.
--
-- Choices that differ from SQLite, and why:
--   * Integers and times are BIGINT (SQLite's INTEGER is 64-bit), money DOUBLE PRECISION (its
--     REAL), `pinned` a BOOLEAN, attachment bytes `bytea`. JSON stays TEXT: the Rust side
--     parses it, and TEXT keeps the stored string byte for byte as Rust wrote it.
--   * Ids are TEXT COLLATE "C": listings order and page by id (the keyset cursor compares it),
--     and SQLite compares bytes; a database created with a language's collation would
--     otherwise order mixed-case ids differently and pages would disagree between engines.
--   * `session.rowid` and `part.rowid` stand in for SQLite's implicit rowid, which the search
--     rows are keyed on, so `search_index::index_part(rowid, …)` has the same shape on both.
--   * Search is a `tsvector` per row in side tables (`part_search`, `title_search`) filled from
--     the same Rust text preparation (`store::search_text`) with the `simple` configuration,
--     behind GIN indexes. The rows reference their part or session with ON DELETE CASCADE, so
--     deleted text leaves the index with its row: there is no contentless index keeping
--     tombstoned words, so neither SQLite's word list (`search_word`, prefix queries are
--     tsquery's `:*` here) nor its purge of forgotten words (`search_forgotten`) is needed.
--   * The listing clock is a SEQUENCE rather than a one-row table: a row every writer updates
--     would serialise all writes of every server on one lock; a sequence never blocks and never
--     hands out a number twice.

CREATE TABLE session (
    id                 TEXT COLLATE "C" PRIMARY KEY,
    rowid              BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    parent_id          TEXT COLLATE "C" REFERENCES session(id) ON DELETE CASCADE,
    slug               TEXT NOT NULL,
    project_id         TEXT NOT NULL,
    directory          TEXT NOT NULL,
    title              TEXT NOT NULL,
    version            TEXT NOT NULL,
    agent              TEXT,
    model              TEXT,            -- JSON {id, providerID, variant?}
    permission         TEXT,            -- JSON ruleset
    revert             TEXT,            -- JSON revert marker
    summary            TEXT,            -- JSON file-diff summary
    cost               DOUBLE PRECISION NOT NULL DEFAULT 0,
    tokens_input       BIGINT NOT NULL DEFAULT 0,
    tokens_output      BIGINT NOT NULL DEFAULT 0,
    tokens_reasoning   BIGINT NOT NULL DEFAULT 0,
    tokens_cache_read  BIGINT NOT NULL DEFAULT 0,
    tokens_cache_write BIGINT NOT NULL DEFAULT 0,
    pinned             BOOLEAN NOT NULL DEFAULT FALSE,
    last_seq           BIGINT NOT NULL DEFAULT 0,
    time_created       BIGINT NOT NULL,
    time_updated       BIGINT NOT NULL,
    time_compacting    BIGINT,
    time_archived      BIGINT,
    -- Which access token's holder created the session (a name, not a reference: the record
    -- stays when the token goes).
    created_by_token   TEXT
);
-- Newest-first listing with a keyset cursor on (time_updated, id).
CREATE INDEX session_updated_idx ON session (time_updated DESC, id DESC);
CREATE INDEX session_parent_idx ON session (parent_id);
-- Pinned sessions are listed on their own, however old.
CREATE INDEX session_pinned_idx ON session (time_updated DESC, id DESC) WHERE pinned;

CREATE TABLE message (
    id            TEXT COLLATE "C" PRIMARY KEY,
    session_id    TEXT COLLATE "C" NOT NULL REFERENCES session(id) ON DELETE CASCADE,
    seq           BIGINT NOT NULL,
    role          TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    time_created  BIGINT NOT NULL,
    time_updated  BIGINT NOT NULL,
    data          TEXT NOT NULL     -- JSON of the message
);
CREATE UNIQUE INDEX message_session_seq_idx ON message (session_id, seq);

CREATE TABLE part (
    id            TEXT COLLATE "C" PRIMARY KEY,
    rowid         BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    message_id    TEXT COLLATE "C" NOT NULL REFERENCES message(id) ON DELETE CASCADE,
    session_id    TEXT COLLATE "C" NOT NULL,
    seq           BIGINT NOT NULL,
    type          TEXT NOT NULL,
    time_created  BIGINT NOT NULL,
    time_updated  BIGINT NOT NULL,
    data          TEXT NOT NULL     -- JSON of the part body (tagged by type) without ids
);
CREATE INDEX part_message_seq_idx ON part (message_id, seq);
CREATE INDEX part_session_idx ON part (session_id);

CREATE TABLE blob (
    hash          TEXT COLLATE "C" PRIMARY KEY,  -- sha256 hex of bytes
    mime          TEXT NOT NULL,
    size          BIGINT NOT NULL,
    bytes         BYTEA NOT NULL,
    time_created  BIGINT NOT NULL
);

-- Search. A row per indexed part (text, reasoning, attachment names) and per session title.
-- Parts keep no positions (`strip`, like SQLite's detail=none: smaller, and a query is an AND
-- of tokens); titles keep them for ranking.
CREATE TABLE part_search (
    rowid  BIGINT PRIMARY KEY REFERENCES part(rowid) ON DELETE CASCADE,
    words  TSVECTOR NOT NULL
);
CREATE INDEX part_search_words_idx ON part_search USING GIN (words);

CREATE TABLE title_search (
    rowid  BIGINT PRIMARY KEY REFERENCES session(rowid) ON DELETE CASCADE,
    words  TSVECTOR NOT NULL
);
CREATE INDEX title_search_words_idx ON title_search USING GIN (words);

-- A rewritten part or a renamed session loses its index row here, and the Rust code that
-- wrote the new text adds the new row in the same transaction (`postgres::search_index`): a
-- write path that forgot to re-index leaves a row missing, never stale text (as on SQLite).
CREATE FUNCTION part_search_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM part_search WHERE rowid = OLD.rowid;
    RETURN NULL;
END;
$$;
CREATE TRIGGER part_search_update AFTER UPDATE OF data, type ON part
FOR EACH ROW WHEN (OLD.type IN ('text', 'reasoning', 'file'))
EXECUTE FUNCTION part_search_forget();

CREATE FUNCTION title_search_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM title_search WHERE rowid = OLD.rowid;
    RETURN NULL;
END;
$$;
CREATE TRIGGER title_search_update AFTER UPDATE OF title ON session
FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title)
EXECUTE FUNCTION title_search_forget();

-- Attachment bytes leave the database with the last file part that refers to them, inside the
-- deleting (or rewriting) transaction, as on SQLite.
CREATE INDEX part_file_url_idx ON part ((data::jsonb ->> 'url')) WHERE type = 'file';

CREATE FUNCTION part_blob_release() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    url TEXT := OLD.data::jsonb ->> 'url';
BEGIN
    IF url IS NULL OR url NOT LIKE 'dossier-blob:sha256-%' THEN
        RETURN NULL;
    END IF;
    -- Unlike SQLite, writers run side by side here: another transaction may be adding a part
    -- that refers to the same bytes. `blob_store::put` locks the blob's row for such a writer,
    -- so this waits for it to finish; the check that follows is a new statement, which under
    -- READ COMMITTED takes a new snapshot and so sees that writer's committed part.
    PERFORM 1 FROM blob WHERE hash = substr(url, 21) FOR UPDATE;
    DELETE FROM blob
    WHERE hash = substr(url, 21)
      AND NOT EXISTS (
          SELECT 1 FROM part WHERE type = 'file' AND data::jsonb ->> 'url' = url
      );
    RETURN NULL;
END;
$$;
-- Postgres fires a table's triggers in the order of their names: these are named to fire
-- before `message_listing_part`, so a deletion waits for the blob's lock before it takes its
-- session's listing row, never while holding it (a writer adding a part to that session would
-- then wait on the listing row while holding the blob: a deadlock).
CREATE TRIGGER blob_release_on_part_delete AFTER DELETE ON part
FOR EACH ROW WHEN (OLD.type = 'file')
EXECUTE FUNCTION part_blob_release();
CREATE TRIGGER blob_release_on_part_update AFTER UPDATE OF data ON part
FOR EACH ROW WHEN (OLD.type = 'file')
EXECUTE FUNCTION part_blob_release();

-- Which version of a session's messages a listing was built from (`Ledger::messages_json`
-- serves a cached listing only while it is unchanged). Moved on by triggers on every write to a
-- message or part row, so no write path can forget to.
CREATE SEQUENCE message_listing_clock;

CREATE TABLE message_listing_version (
    session_id TEXT COLLATE "C" PRIMARY KEY,
    version    BIGINT NOT NULL
);

CREATE FUNCTION message_listing_touch(touched TEXT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    -- A row removed by a session's cascade: the session's version row goes with the session
    -- (below), and must not come back for it.
    IF NOT EXISTS (SELECT 1 FROM session WHERE id = touched) THEN
        RETURN;
    END IF;
    INSERT INTO message_listing_version (session_id, version)
    VALUES (touched, nextval('message_listing_clock'))
    ON CONFLICT (session_id) DO UPDATE SET version = excluded.version;
END;
$$;

CREATE FUNCTION message_listing_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM message_listing_touch(OLD.session_id);
    END IF;
    -- One upsert per session: Postgres refuses an INSERT … ON CONFLICT that touches one row
    -- twice, so a row that stays in its session is counted once.
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.session_id IS DISTINCT FROM OLD.session_id) THEN
        PERFORM message_listing_touch(NEW.session_id);
    END IF;
    RETURN NULL;
END;
$$;
CREATE TRIGGER message_listing_message AFTER INSERT OR UPDATE OR DELETE ON message
FOR EACH ROW EXECUTE FUNCTION message_listing_changed();
CREATE TRIGGER message_listing_part AFTER INSERT OR UPDATE OR DELETE ON part
FOR EACH ROW EXECUTE FUNCTION message_listing_changed();

CREATE FUNCTION message_listing_session_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM message_listing_version WHERE session_id = OLD.id;
    RETURN NULL;
END;
$$;
CREATE TRIGGER message_listing_session_delete AFTER DELETE ON session
FOR EACH ROW EXECUTE FUNCTION message_listing_session_deleted();

-- Which Dossier version applied each migration, so an older build that finds a migration it
-- does not know can name the version that made the database (`postgres::database`).
CREATE TABLE migration_app_version (
    version     BIGINT PRIMARY KEY,
    app_version TEXT NOT NULL
);

-- Named access tokens for a shared server. Only the SHA-256 of each token is kept.
CREATE TABLE access_token (
    name           TEXT PRIMARY KEY,
    token_hash     BYTEA NOT NULL UNIQUE,
    time_created   BIGINT NOT NULL,
    time_last_used BIGINT
);
