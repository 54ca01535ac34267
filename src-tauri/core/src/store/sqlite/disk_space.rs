//! Deleting a conversation gives its disk space back, and the settings view can say how much
//! room the sessions take.
//!
//! Attachments live in the database (`blob`), so one deleted session of photos or PDFs can free
//! hundreds of megabytes. SQLite keeps freed pages inside the file for reuse: without help the
//! file never shrinks, and a person who deletes old sessions to make room sees nothing change.
//! The ledger therefore runs with `auto_vacuum = INCREMENTAL` and hands the free pages back to
//! the file system after each deletion. The mode is set once, at the first open (a new file's
//! tables are created before it can be) or the first open of a file made before it: a `VACUUM`
//! rewrites the file in the new mode.
//!
//! Incremental vacuum only moves pages, never rows, so the search indexes (which are keyed on
//! the rowids of `part` and `session`) stay valid. The one-time `VACUUM` may renumber rowids, so
//! the search indexes are rebuilt after it.

use crate::store::{Store, DATABASE_FILE};
use crate::wire::error::LedgerError;
use serde::Serialize;
use sqlx::SqlitePool;
use ts_rs::TS;

/// How much room the sessions take on this computer, for the settings view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct StorageUse {
    /// The folder that holds the database (keys are never in it: they live in the keychain).
    pub data_folder: String,
    /// The database file and its write-ahead log, as the file system counts them.
    #[ts(type = "number")]
    pub bytes: u64,
}

impl Store {
    pub fn storage_use(&self) -> Result<StorageUse, LedgerError> {
        let folder = self.data_dir();
        let mut bytes = 0;
        for name in [DATABASE_FILE.to_string(), format!("{DATABASE_FILE}-wal")] {
            let path = folder.join(name);
            match std::fs::metadata(&path) {
                Ok(metadata) => bytes += metadata.len(),
                // No log between checkpoints is normal.
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => return Err(LedgerError::io(&path, error)),
            }
        }
        Ok(StorageUse {
            data_folder: folder.display().to_string(),
            bytes,
        })
    }
}

/// `PRAGMA auto_vacuum` reads 2 for incremental.
const INCREMENTAL: i64 = 2;

/// Makes the database give freed pages back, once: a new one (whose tables were just created
/// in the default mode) and one made before this mode was set. Runs before the search index's
/// pending rebuild, which it asks for. A failure (another process holding the file, a full disk)
/// only postpones it to the next open: the ledger works the same meanwhile.
pub(crate) async fn convert_if_needed(pool: &SqlitePool) {
    if let Err(error) = convert(pool).await {
        tracing::warn!("the ledger keeps its free pages until the next start: {error}");
    }
}

async fn convert(pool: &SqlitePool) -> Result<(), LedgerError> {
    let mut connection = pool.acquire().await?;
    // A connection answers `PRAGMA auto_vacuum` from the file's header only once it has read
    // it (before that, from what it was asked to set): a read of the schema does.
    sqlx::query("SELECT count(*) FROM sqlite_master")
        .fetch_one(&mut *connection)
        .await?;
    let mode: i64 = sqlx::query_scalar("PRAGMA auto_vacuum")
        .fetch_one(&mut *connection)
        .await?;
    if mode == INCREMENTAL {
        return Ok(());
    }
    tracing::info!("converting the ledger so that deleted sessions give their disk space back");
    // The rebuild is asked for first, so a crash right after the VACUUM still gets it at the
    // next open (a crash before the VACUUM simply converts again).
    sqlx::query("INSERT INTO search_rebuild (pending) VALUES (1)")
        .execute(&mut *connection)
        .await?;
    // On an existing file the mode is only a wish until a VACUUM rewrites it.
    sqlx::query("PRAGMA auto_vacuum = INCREMENTAL")
        .execute(&mut *connection)
        .await?;
    sqlx::query("VACUUM").execute(&mut *connection).await?;
    Ok(())
}

/// Returns the file's free pages to the file system after a deletion has committed, and empties
/// the write-ahead log, whose frames still hold the deleted rows' old pages. Failing
/// here loses nothing (the pages stay free inside the file and the next deletion tries again),
/// so the caller logs the error rather than reporting the deletion as failed.
pub(crate) async fn give_back_free_pages(pool: &SqlitePool) -> Result<(), LedgerError> {
    let free: i64 = sqlx::query_scalar("PRAGMA freelist_count")
        .fetch_one(pool)
        .await?;
    if free > 0 {
        // An autocommit write of its own; it waits behind a streaming reply's write under the
        // busy timeout like any other write.
        sqlx::query("PRAGMA incremental_vacuum")
            .execute(pool)
            .await?;
    }
    // The file itself only shrinks when the write-ahead log is folded into it, which otherwise
    // happens at some later checkpoint or at exit; TRUNCATE also empties the log, which holds
    // the deleted rows' old pages and the moved ones.
    truncating_checkpoint(pool).await
}

/// How many times a truncating checkpoint is tried, and the pause before the next try.
const CHECKPOINT_TRIES: u32 = 20;
const CHECKPOINT_RETRY_PAUSE: std::time::Duration = std::time::Duration::from_millis(10);

/// `PRAGMA wal_checkpoint(TRUNCATE)` until SQLite says it finished. Only one checkpoint runs at
/// a time, and SQLite answers a second one at once with "busy" (in the pragma's first column,
/// not as an error), without calling the busy handler: when the background checkpoint happened
/// to be copying pages at that moment, the log stayed as long as before and the freed space came
/// back only at some later checkpoint. A background run takes milliseconds, so a few short
/// pauses are enough; if it is still busy after them, the space comes back later, as before.
async fn truncating_checkpoint(pool: &SqlitePool) -> Result<(), LedgerError> {
    for attempt in 1..=CHECKPOINT_TRIES {
        let (busy, _, _): (i64, i64, i64) = sqlx::query_as("PRAGMA wal_checkpoint(TRUNCATE)")
            .fetch_one(pool)
            .await?;
        if busy == 0 {
            return Ok(());
        }
        if attempt < CHECKPOINT_TRIES {
            tokio::time::sleep(CHECKPOINT_RETRY_PAUSE).await;
        }
    }
    tracing::debug!("the write-ahead log stays until a later checkpoint: another one was busy");
    Ok(())
}
