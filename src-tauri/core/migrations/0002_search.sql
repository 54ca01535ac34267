-- Full-text search over what people said: user and assistant text, reasoning, the file names
-- of attachments (parts), and session titles.
--
-- The trigram tokenizer is chosen for Chinese (and Japanese, Thai…): those scripts do not put
-- spaces between words, so word tokenizers such as unicode61 index a whole sentence as one
-- token and a search for 文件 inside 这个文件很大 finds nothing. Trigrams match any substring of
-- three or more characters in any script, case-insensitively; shorter queries fall back to a
-- LIKE scan of the index's own text (see search.rs).
--
-- Triggers keep both indexes in the same transaction as every write, update and delete
-- (including ON DELETE CASCADE from a session), so the index cannot drift from the ledger.
-- Synthetic text (the Read tool's output of a dropped file, hints) is context for the model,
-- not something a person said, and is left out.

CREATE VIRTUAL TABLE part_search USING fts5(body, tokenize = 'trigram remove_diacritics 1');
CREATE VIRTUAL TABLE title_search USING fts5(title, tokenize = 'trigram remove_diacritics 1');

CREATE TRIGGER part_search_insert AFTER INSERT ON part
WHEN new.type IN ('text', 'reasoning', 'file') BEGIN
    INSERT INTO part_search (rowid, body)
    SELECT new.rowid, body FROM (SELECT CASE
        WHEN new.type = 'file' THEN json_extract(new.data, '$.filename')
        WHEN coalesce(json_extract(new.data, '$.synthetic'), 0) THEN NULL
        ELSE json_extract(new.data, '$.text') END AS body)
    WHERE body IS NOT NULL AND body != '';
END;

CREATE TRIGGER part_search_update AFTER UPDATE OF data, type ON part BEGIN
    DELETE FROM part_search WHERE rowid = old.rowid;
    INSERT INTO part_search (rowid, body)
    SELECT new.rowid, body FROM (SELECT CASE
        WHEN new.type = 'file' THEN json_extract(new.data, '$.filename')
        WHEN new.type NOT IN ('text', 'reasoning') THEN NULL
        WHEN coalesce(json_extract(new.data, '$.synthetic'), 0) THEN NULL
        ELSE json_extract(new.data, '$.text') END AS body)
    WHERE body IS NOT NULL AND body != '';
END;

CREATE TRIGGER part_search_delete AFTER DELETE ON part BEGIN
    DELETE FROM part_search WHERE rowid = old.rowid;
END;

CREATE TRIGGER title_search_insert AFTER INSERT ON session BEGIN
    INSERT INTO title_search (rowid, title) VALUES (new.rowid, new.title);
END;

CREATE TRIGGER title_search_update AFTER UPDATE OF title ON session BEGIN
    DELETE FROM title_search WHERE rowid = old.rowid;
    INSERT INTO title_search (rowid, title) VALUES (new.rowid, new.title);
END;

CREATE TRIGGER title_search_delete AFTER DELETE ON session BEGIN
    DELETE FROM title_search WHERE rowid = old.rowid;
END;

-- Index what is already there.
INSERT INTO part_search (rowid, body)
SELECT rowid, body FROM (SELECT rowid, CASE
    WHEN type = 'file' THEN json_extract(data, '$.filename')
    WHEN type NOT IN ('text', 'reasoning') THEN NULL
    WHEN coalesce(json_extract(data, '$.synthetic'), 0) THEN NULL
    ELSE json_extract(data, '$.text') END AS body FROM part)
WHERE body IS NOT NULL AND body != '';
INSERT INTO title_search (rowid, title) SELECT rowid, title FROM session;
