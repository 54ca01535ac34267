-- Attachment bytes leave the database with the last part that refers to them. Blobs are
-- content-addressed and shared (a fork, an import or a second drop of the same picture points at
-- the same row), so a blob goes only when no file part references it any more. Triggers do it
-- inside the deleting transaction itself — a session delete (cascading to its parts), the
-- revert cleanup, a part rewritten — so there is never a moment when a deleted conversation's
-- pictures or PDFs are still stored, and never one when a kept part has lost its bytes.

-- Finds "does any file part still point here?" without reading every part.
CREATE INDEX part_file_url_idx ON part (json_extract(data, '$.url')) WHERE type = 'file';

CREATE TRIGGER part_blob_release_on_delete AFTER DELETE ON part
WHEN OLD.type = 'file' AND json_extract(OLD.data, '$.url') LIKE 'dossier-blob:sha256-%'
BEGIN
    DELETE FROM blob
    WHERE hash = substr(json_extract(OLD.data, '$.url'), 21)
      AND NOT EXISTS (
          SELECT 1 FROM part
          WHERE type = 'file' AND json_extract(data, '$.url') = json_extract(OLD.data, '$.url')
      );
END;

CREATE TRIGGER part_blob_release_on_update AFTER UPDATE OF data ON part
WHEN OLD.type = 'file' AND json_extract(OLD.data, '$.url') LIKE 'dossier-blob:sha256-%'
BEGIN
    DELETE FROM blob
    WHERE hash = substr(json_extract(OLD.data, '$.url'), 21)
      AND NOT EXISTS (
          SELECT 1 FROM part
          WHERE type = 'file' AND json_extract(data, '$.url') = json_extract(OLD.data, '$.url')
      );
END;

-- Blobs orphaned before this migration (deleted sessions of earlier versions) go now.
DELETE FROM blob
WHERE NOT EXISTS (
    SELECT 1 FROM part
    WHERE type = 'file' AND json_extract(data, '$.url') = 'dossier-blob:sha256-' || blob.hash
);
