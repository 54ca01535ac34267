-- Which state of the session table a session listing was built from. `Store::sessions` keeps
-- recent listings in memory and serves one again only while this clock has not moved; triggers
-- move it in the same transaction as every change to a column a listing shows, so that no write
-- path (a rename, a prompt, a reply's usage, an archive, a cascade, a statement not yet written)
-- can forget to. The sequence counter (`last_seq`) is left out: a listing does not show it, and
-- every prompt moves it.
CREATE TABLE session_listing_clock (tick INTEGER NOT NULL);
INSERT INTO session_listing_clock (tick) VALUES (0);

CREATE TRIGGER session_listing_insert AFTER INSERT ON session BEGIN
    UPDATE session_listing_clock SET tick = tick + 1;
END;

CREATE TRIGGER session_listing_update AFTER UPDATE OF id, parent_id, slug, project_id, directory,
    title, version, agent, model, permission, revert, summary, cost, tokens_input, tokens_output,
    tokens_reasoning, tokens_cache_read, tokens_cache_write, pinned, time_created, time_updated,
    time_compacting, time_archived, created_by_token ON session BEGIN
    UPDATE session_listing_clock SET tick = tick + 1;
END;

CREATE TRIGGER session_listing_delete AFTER DELETE ON session BEGIN
    UPDATE session_listing_clock SET tick = tick + 1;
END;
