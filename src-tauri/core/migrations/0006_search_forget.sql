-- Deleted words leave the search index too (`search_purge.rs`).
--
-- The word index is contentless: deleting a row only records a tombstone, and the words stay in
-- the index's pages until its segments are merged; `search_word` keeps every word ever indexed.
-- So a password pasted by mistake and then deleted with its message would still be on disk, in
-- plain text. These triggers note the text of every indexed part, and every title, that leaves
-- (deleted, cascaded, renamed) inside the deleting transaction itself; after the commit Rust
-- prepares that text into words as `search_text` does, forgets the words nothing else holds, and
-- merges the index so the tombstoned entries are rewritten away. A crash in between leaves the
-- note for the next open.

CREATE TABLE search_forgotten (
    kind TEXT NOT NULL CHECK (kind IN ('part', 'title')),
    text TEXT NOT NULL      -- a part: its `data` JSON; a title: the title
);

CREATE TRIGGER part_search_forget AFTER DELETE ON part
WHEN old.type IN ('text', 'reasoning', 'file') BEGIN
    INSERT INTO search_forgotten (kind, text) VALUES ('part', old.data);
END;
-- A default title ("New session - <time>") says nothing of the person's, and is replaced by a
-- generated one in nearly every session: noting it would only make work.
CREATE TRIGGER title_search_forget_delete AFTER DELETE ON session
WHEN old.title NOT LIKE 'New session - %' AND old.title NOT LIKE 'Child session - %' BEGIN
    INSERT INTO search_forgotten (kind, text) VALUES ('title', old.title);
END;
CREATE TRIGGER title_search_forget_rename AFTER UPDATE OF title ON session
WHEN old.title IS NOT new.title
    AND old.title NOT LIKE 'New session - %' AND old.title NOT LIKE 'Child session - %' BEGIN
    INSERT INTO search_forgotten (kind, text) VALUES ('title', old.title);
END;
