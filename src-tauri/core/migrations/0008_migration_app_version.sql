-- Which Dossier version applied each migration (written in the same transaction as the
-- migration, `schema_upgrade.rs`). An older Dossier that finds a migration it does not know
-- refuses to touch the file, and this lets it name the version that made it.
CREATE TABLE migration_app_version (
    version INTEGER PRIMARY KEY,
    app_version TEXT NOT NULL
) STRICT;
