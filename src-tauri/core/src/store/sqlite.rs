//! The embedded engine's own file: opening it (`database`: WAL, foreign keys, the busy timeout,
//! the embedded migrations), the checks before anything is written (`integrity_check`,
//! `schema_upgrade`), the copy written to `backups/` before a schema change (`upgrade_backup`,
//! part of opening: the backups a person makes and restores are `backups`), opening a newer
//! ledger read-only, SQLite's error codes, the file's free pages (`disk_space`), and the search
//! index's rows and purge. It uses `search`, `rows`, `postgres` (the index's twin) and the
//! ground (`engine`, `durable_file`, the `Store` handle).

pub mod database;
mod database_error;
pub mod disk_space;
pub(crate) mod integrity_check;
pub mod read_only_open;
pub(crate) mod schema_upgrade;
pub mod search_index;
pub(crate) mod search_purge;
pub mod upgrade_backup;
