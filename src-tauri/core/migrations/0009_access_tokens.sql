-- Named access tokens for a shared server (`dossier-server token create NAME`). Only the
-- SHA-256 of each token is kept: the token itself is shown once, when it is made, so a copy
-- of the database (a backup, an export of it) lets nobody in. Revoking deletes the row.
CREATE TABLE access_token (
    name TEXT PRIMARY KEY,
    token_hash BLOB NOT NULL UNIQUE,
    time_created INTEGER NOT NULL,
    time_last_used INTEGER
) STRICT;

-- Which token's holder created a session (its name; NULL when the desktop app, a password or
-- no credentials made it). A name, not a reference: the record stays when the token goes.
ALTER TABLE session ADD COLUMN created_by_token TEXT;
