//! Opening the SQLite database: WAL, foreign keys, a busy timeout, and the embedded
//! forward-only migrations.

use crate::error::LedgerError;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::SqlitePool;
use std::path::Path;
use std::time::Duration;

static MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// Opens (creating if needed) the ledger database at `path` and brings its schema up to date.
pub async fn open(path: &Path) -> Result<SqlitePool, LedgerError> {
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder).map_err(|error| LedgerError::io(folder, error))?;
    }
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        // WAL + NORMAL survives a process crash with no loss of committed data; only an OS
        // crash can lose the last transactions, which is OpenCode's trade-off too.
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(Duration::from_secs(5))
        .pragma("cache_size", "-64000")
        // Deleted conversations should not linger in free pages of the file: "fast" zeroes
        // freed content whenever that costs no extra I/O.
        .pragma("secure_delete", "fast")
        // (Not `auto_vacuum` here: setting it runs a write transaction on every new connection,
        // before the busy timeout applies. `disk_space` sets it once, on one connection.)
        // A write-ahead log that once grew large (a big deletion, an import) is cut back to this
        // after each checkpoint instead of keeping its largest size for good.
        .pragma("journal_size_limit", "67108864");
    let pool = SqlitePoolOptions::new()
        .max_connections(8)
        .min_connections(1)
        .connect_with(options)
        .await?;
    MIGRATIONS.run(&pool).await?;
    crate::disk_space::convert_if_needed(&pool).await;
    crate::search_index::rebuild_if_pending(&pool).await?;
    Ok(pool)
}

/// How every write transaction starts. A deferred `BEGIN` takes the write lock only at its first
/// write; if another connection wrote in between (a reply's checkpoint, a title), SQLite cannot
/// wait and fails at once with "database is locked". `IMMEDIATE` takes the write lock up front,
/// where the busy timeout applies.
pub const BEGIN_WRITE: &str = "BEGIN IMMEDIATE";

/// A write transaction on `connection`: `BEGIN IMMEDIATE` when it has none, a savepoint inside
/// the caller's transaction otherwise.
pub async fn begin_write(
    connection: &mut sqlx::SqliteConnection,
) -> Result<sqlx::Transaction<'_, sqlx::Sqlite>, sqlx::Error> {
    use sqlx::Connection;
    if connection.is_in_transaction() {
        connection.begin().await
    } else {
        connection.begin_with(BEGIN_WRITE).await
    }
}
