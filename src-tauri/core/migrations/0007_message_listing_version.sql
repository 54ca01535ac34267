-- Which version of a session's messages a listing was built from. `Ledger::messages_json` keeps
-- recent listings in memory and serves one again only while its session's version is unchanged;
-- the version moves on in the same transaction as every write to a message or part row, made by
-- triggers so that no write path (a prompt, a reply, an edit, a revert's clean-up, a compaction,
-- a cascade from a deleted session, a statement not yet written) can forget to.
--
-- Versions come from one clock for the whole database, so a session that is deleted and comes
-- back under the same id (an import) never meets a version it had before.
CREATE TABLE message_listing_clock (tick INTEGER NOT NULL);
INSERT INTO message_listing_clock (tick) VALUES (0);

CREATE TABLE message_listing_version (
    session_id TEXT PRIMARY KEY NOT NULL,
    version    INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TRIGGER message_listing_message_insert AFTER INSERT ON message BEGIN
    UPDATE message_listing_clock SET tick = tick + 1;
    INSERT INTO message_listing_version (session_id, version)
    VALUES (new.session_id, (SELECT tick FROM message_listing_clock))
    ON CONFLICT (session_id) DO UPDATE SET version = excluded.version;
END;

CREATE TRIGGER message_listing_message_update AFTER UPDATE ON message BEGIN
    UPDATE message_listing_clock SET tick = tick + 1;
    INSERT INTO message_listing_version (session_id, version)
    VALUES (old.session_id, (SELECT tick FROM message_listing_clock)),
           (new.session_id, (SELECT tick FROM message_listing_clock))
    ON CONFLICT (session_id) DO UPDATE SET version = excluded.version;
END;

CREATE TRIGGER message_listing_message_delete AFTER DELETE ON message BEGIN
    UPDATE message_listing_clock SET tick = tick + 1;
    INSERT INTO message_listing_version (session_id, version)
    VALUES (old.session_id, (SELECT tick FROM message_listing_clock))
    ON CONFLICT (session_id) DO UPDATE SET version = excluded.version;
END;

CREATE TRIGGER message_listing_part_insert AFTER INSERT ON part BEGIN
    UPDATE message_listing_clock SET tick = tick + 1;
    INSERT INTO message_listing_version (session_id, version)
    VALUES (new.session_id, (SELECT tick FROM message_listing_clock))
    ON CONFLICT (session_id) DO UPDATE SET version = excluded.version;
END;

CREATE TRIGGER message_listing_part_update AFTER UPDATE ON part BEGIN
    UPDATE message_listing_clock SET tick = tick + 1;
    INSERT INTO message_listing_version (session_id, version)
    VALUES (old.session_id, (SELECT tick FROM message_listing_clock)),
           (new.session_id, (SELECT tick FROM message_listing_clock))
    ON CONFLICT (session_id) DO UPDATE SET version = excluded.version;
END;

CREATE TRIGGER message_listing_part_delete AFTER DELETE ON part BEGIN
    UPDATE message_listing_clock SET tick = tick + 1;
    INSERT INTO message_listing_version (session_id, version)
    VALUES (old.session_id, (SELECT tick FROM message_listing_clock))
    ON CONFLICT (session_id) DO UPDATE SET version = excluded.version;
END;

-- A deleted session's row goes with it (this runs after the cascade to its messages and parts).
CREATE TRIGGER message_listing_session_delete AFTER DELETE ON session BEGIN
    DELETE FROM message_listing_version WHERE session_id = old.id;
END;
