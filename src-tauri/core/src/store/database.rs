//! Opening the SQLite database: WAL, foreign keys, a busy timeout, and the embedded
//! forward-only migrations; and the background task that checkpoints the write-ahead log.

use crate::wire::error::LedgerError;
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
        .pragma("journal_size_limit", "67108864")
        // SQLite's own checkpoint runs inside the commit that crosses the threshold, so one
        // request in every few dozen paid for copying the log into the file and syncing it: with
        // the default 1,000 pages, 1,000 noReply prompts in a row had a p99 of 9.5 ms against a
        // p50 of 0.8 ms, and 1.6 ms with `BackgroundCheckpoint` doing it between requests. The
        // log starts over only after a checkpoint that finished while no write was under way,
        // which a long unbroken burst of writes never leaves room for; this larger threshold
        // (32 MB of log) is for such a burst.
        .pragma("wal_autocheckpoint", "8192");
    let pool = SqlitePoolOptions::new()
        .max_connections(8)
        .min_connections(1)
        .connect_with(options)
        .await?;
    MIGRATIONS.run(&pool).await?;
    crate::store::disk_space::convert_if_needed(&pool).await;
    crate::store::search_index::rebuild_if_pending(&pool).await?;
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

/// How often the background task looks at the write-ahead log while writes keep coming, and
/// while nothing was written.
const CHECKPOINT_BUSY: Duration = Duration::from_millis(250);
const CHECKPOINT_IDLE: Duration = Duration::from_secs(1);

/// Copies committed pages from the write-ahead log into the database file off the request
/// path, for as long as it is held (the ledger holds it). PASSIVE never waits for readers or
/// writers, so it blocks no request; pages a reader still needs stay for the next run. A run
/// with nothing new to copy costs a read of the log's header.
pub(crate) struct BackgroundCheckpoint {
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl BackgroundCheckpoint {
    pub(crate) fn start(pool: SqlitePool) -> Self {
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let mut pause = CHECKPOINT_IDLE;
            let mut frames_seen = 0;
            loop {
                tokio::select! {
                    () = tokio::time::sleep(pause) => {}
                    _ = &mut stopped => return,
                }
                if pool.is_closed() {
                    return;
                }
                let outcome: Result<(i64, i64, i64), sqlx::Error> =
                    sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)")
                        .fetch_one(&pool)
                        .await;
                pause = match outcome {
                    // (busy, frames in the log, frames copied): a log that changed since the
                    // last look is being written to, so look again soon.
                    Ok((_, frames, _)) => {
                        let written = frames != frames_seen;
                        frames_seen = frames;
                        if written {
                            CHECKPOINT_BUSY
                        } else {
                            CHECKPOINT_IDLE
                        }
                    }
                    Err(error) => {
                        if pool.is_closed() {
                            return;
                        }
                        tracing::warn!(
                            "background checkpoint failed; SQLite's own still runs: {error}"
                        );
                        CHECKPOINT_IDLE
                    }
                };
            }
        });
        Self { _stop: stop }
    }
}
