-- Search, second version: a word index of text prepared in Rust replaces 0002's trigrams.
--
-- Why: the trigram index was about four times the size of the text it indexed, and a query of
-- two common words intersected many long trigram lists (70 ms p95 on a million parts). A
-- `unicode61` word index is a fraction of that, but cannot cut Chinese or Japanese into words
-- (no spaces), so `search_text.rs` prepares the text first — words as they are, unspaced
-- scripts as overlapping bigrams — and `search_index.rs` writes the rows in the same
-- transaction as the part or session. Triggers cannot run that preparation, so they only
-- delete.
--
-- Size choices for the parts' index, the big one:
--   content=''            the text already lives in `part.data`; excerpts are cut in Rust
--                         from there (snippet() offsets would point into the prepared text);
--   contentless_delete=1  rows can be deleted by rowid alone, so triggers (and ON DELETE
--                         CASCADE) keep deletions in step without knowing the text;
--   detail=none           only which rows hold a token, no positions: about a sixth of the
--                         text's size. Phrase queries are lost, which is why a query is an AND
--                         of tokens and `search.rs` checks that a Chinese run's bigrams are
--                         contiguous in the original text.
-- Titles are few, so their index keeps positions for bm25 ranking.
--
-- `search_word` lists every token ever indexed, folded to lower case, so a query word can be
-- widened to the words it begins with one range scan. Words are never removed: a stale word only
-- adds an OR branch that matches nothing.

DROP TRIGGER part_search_insert;
DROP TRIGGER part_search_update;
DROP TRIGGER part_search_delete;
DROP TRIGGER title_search_insert;
DROP TRIGGER title_search_update;
DROP TRIGGER title_search_delete;
DROP TABLE part_search;
DROP TABLE title_search;

CREATE VIRTUAL TABLE part_search USING fts5(
    body, content = '', contentless_delete = 1, detail = none,
    tokenize = 'unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE title_search USING fts5(
    title, content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2');
CREATE TABLE search_word (word TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID;

-- Only parts of the indexed types can have a row: deleting a rowid the index never held would
-- still write a tombstone, and tool parts are rewritten often.
CREATE TRIGGER part_search_delete AFTER DELETE ON part
WHEN old.type IN ('text', 'reasoning', 'file') BEGIN
    DELETE FROM part_search WHERE rowid = old.rowid;
END;
CREATE TRIGGER part_search_update AFTER UPDATE OF data, type ON part
WHEN old.type IN ('text', 'reasoning', 'file') BEGIN
    DELETE FROM part_search WHERE rowid = old.rowid;
END;
CREATE TRIGGER title_search_delete AFTER DELETE ON session BEGIN
    DELETE FROM title_search WHERE rowid = old.rowid;
END;
CREATE TRIGGER title_search_update AFTER UPDATE OF title ON session
WHEN old.title IS NOT new.title BEGIN
    DELETE FROM title_search WHERE rowid = old.rowid;
END;

-- Asks the next open to index what is already in the ledger (search_index.rs).
CREATE TABLE search_rebuild (pending INTEGER NOT NULL);
INSERT INTO search_rebuild (pending) VALUES (1);
