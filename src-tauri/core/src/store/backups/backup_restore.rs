//! Restoring the ledger from a backup, in two steps so that a SIGKILL at any moment leaves
//! exactly one complete ledger in use.
//!
//! `stage`, with the ledger still open: the chosen file passes `manual_backup::inspect` (every
//! refusal happens here, before anything is written), the ledger in use is copied to `backups/`
//! first, and the backup is copied (`VACUUM INTO`) beside the ledger under a `.restoring` name,
//! synced, checked (`PRAGMA integrity_check` and the same row counts as the backup) and only then
//! renamed to `.restore-ready`. The caller then closes the ledger.
//!
//! `finish_pending`, when the ledger opens again and no other process uses the folder: the old
//! file's write-ahead log is folded in and emptied (a log left beside the new file would be
//! replayed into it), and the ready copy is renamed over `dossier.db`. Each step is a rename or a
//! SQLite transaction: before the final rename the old ledger is whole and the ready copy waits
//! for the next open; after it, the restored one is in use. An unverified `.restoring` left by a
//! killed `stage` is never used, only removed.
//!
//! `stage_over_damaged` is `stage` for the start-up page's "Restore", when the ledger was refused
//! as damaged and is not open: no copy of it can be made through SQLite, so its bytes are kept
//! aside in `damaged/` instead, and `finish_pending` moves a file it cannot fold a log into
//! there too, whole, rather than fail.

use crate::store::backups::manual_backup;
use crate::store::durable_file::{self, remove_if_present, remove_partial, with_suffix};
use crate::store::sqlite::{integrity_check, schema_upgrade, upgrade_backup};
use crate::wire::error::LedgerError;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection, SqliteConnection};
use std::path::{Path, PathBuf};

const STAGING_SUFFIX: &str = ".restoring";
const READY_SUFFIX: &str = ".restore-ready";

/// The tables whose row counts must match between a backup and its restored copy.
pub(crate) const COUNTED_TABLES: [&str; 4] = ["session", "message", "part", "blob"];

/// What `stage` did: the copy of the ledger it replaced, and what the backup holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreStaged {
    /// The copy of the ledger in use written to `backups/` before anything else.
    pub previous_ledger: PathBuf,
    pub restored: manual_backup::BackupSummary,
}

/// Checks `backup`, backs up the ledger open on `pool` (whose file is `database`), and leaves a
/// verified copy of `backup` ready beside `database` for `finish_pending`.
pub async fn stage(
    pool: &sqlx::SqlitePool,
    database: &Path,
    backup: &Path,
    keep_backups: usize,
) -> Result<RestoreStaged, LedgerError> {
    let restored = manual_backup::inspect(backup).await?;
    let data_dir = database.parent().unwrap_or(Path::new("."));
    let previous_ledger = {
        let mut connection = pool.acquire().await?;
        let applied = schema_upgrade::applied_versions(&mut connection).await?;
        let version = applied.iter().copied().max().unwrap_or(0);
        upgrade_backup::write(&mut connection, data_dir, version, keep_backups).await?
    };
    stage_verified_copy(database, backup, data_dir).await?;
    tracing::info!(
        backup = %backup.display(),
        previous = %previous_ledger.display(),
        "restore staged; it takes effect when the ledger opens again"
    );
    Ok(RestoreStaged {
        previous_ledger,
        restored,
    })
}

/// Leaves a verified copy of `backup` ready beside the damaged `database` for `finish_pending`,
/// after the same checks as `stage` and after making sure the damaged file's bytes are kept in
/// `damaged/` (the copy the refused open made, or a new one). Refuses a file that now passes
/// the check: that one is no longer the start-up page's to replace.
pub async fn stage_over_damaged(
    database: &Path,
    backup: &Path,
) -> Result<manual_backup::BackupSummary, LedgerError> {
    let restored = manual_backup::inspect(backup).await?;
    if !integrity_check::still_damaged(database).await? {
        return Err(LedgerError::NoLongerDamaged {
            database: database.display().to_string(),
        });
    }
    let data_dir = database.parent().unwrap_or(Path::new("."));
    let kept_at = integrity_check::keep_aside(database, data_dir).map_err(|error| {
        LedgerError::DamagedCopyNotKept {
            database: database.display().to_string(),
            detail: error.to_string(),
        }
    })?;
    stage_verified_copy(database, backup, data_dir).await?;
    tracing::info!(
        backup = %backup.display(),
        damaged = %kept_at.display(),
        "restore over a damaged ledger staged; it takes effect as the ledger opens"
    );
    Ok(restored)
}

/// Copies `backup` beside `database` under the staging name, verifies the copy, and renames it
/// to the name `finish_pending` puts in place at the next open. A copy that fails verification
/// is removed: only a verified one ever carries the ready name.
async fn stage_verified_copy(
    database: &Path,
    backup: &Path,
    data_dir: &Path,
) -> Result<(), LedgerError> {
    let staging = with_suffix(database, STAGING_SUFFIX);
    remove_partial(&staging)?;
    if let Err(error) = copy_and_verify(backup, &staging).await {
        if let Err(cleanup) = remove_partial(&staging) {
            tracing::warn!(%cleanup, "could not remove an unverified restore copy");
        }
        return Err(error);
    }
    let ready = with_suffix(database, READY_SUFFIX);
    durable_file::replace(&staging, &ready).map_err(|error| LedgerError::io(&ready, error))?;
    sync_folder(data_dir);
    Ok(())
}

/// `VACUUM INTO` `staging` from `backup` (read-only), synced, then checked against the backup.
async fn copy_and_verify(backup: &Path, staging: &Path) -> Result<(), LedgerError> {
    let staging_text = staging
        .to_str()
        .ok_or_else(|| LedgerError::file(staging, "the path is not valid UTF-8".into()))?
        .to_string();
    let mut source = upgrade_backup::read_only(backup).await?;
    let copied = sqlx::query("VACUUM INTO ?")
        .bind(staging_text)
        .execute(&mut source)
        .await;
    let expected = match copied {
        Ok(_) => counts(&mut source).await,
        Err(error) => Err(error.into()),
    };
    close(source).await;
    let expected = expected?;
    durable_file::sync(staging).map_err(|error| LedgerError::io(staging, error))?;
    let mut copy = upgrade_backup::read_only(staging)
        .await
        .map_err(|error| not_verified(backup, error.to_string()))?;
    let verdict = verify(&mut copy, &expected, backup).await;
    close(copy).await;
    verdict
}

fn not_verified(backup: &Path, detail: String) -> LedgerError {
    LedgerError::RestoreNotVerified {
        backup: backup.display().to_string(),
        detail,
    }
}

/// `PRAGMA integrity_check` (the full one, not the quick check) and the same row counts.
async fn verify(
    copy: &mut SqliteConnection,
    expected: &[i64],
    backup: &Path,
) -> Result<(), LedgerError> {
    let findings: Vec<String> = sqlx::query_scalar("PRAGMA integrity_check(5)")
        .fetch_all(&mut *copy)
        .await
        .map_err(|error| not_verified(backup, error.to_string()))?;
    if findings != ["ok"] {
        return Err(not_verified(backup, findings.join("; ")));
    }
    let found = counts(copy)
        .await
        .map_err(|error| not_verified(backup, error.to_string()))?;
    if found != expected {
        return Err(not_verified(
            backup,
            format!(
                "rows of {COUNTED_TABLES:?}: {found:?} in the copy, {expected:?} in the backup"
            ),
        ));
    }
    Ok(())
}

pub(crate) async fn counts(connection: &mut SqliteConnection) -> Result<Vec<i64>, LedgerError> {
    let mut counts = Vec::with_capacity(COUNTED_TABLES.len());
    for table in COUNTED_TABLES {
        // Table names come from the constant above, never from input.
        let count: i64 = sqlx::query_scalar(&format!("SELECT count(*) FROM {table}"))
            .fetch_one(&mut *connection)
            .await?;
        counts.push(count);
    }
    Ok(counts)
}

/// Whether a staged restore waits beside `database` for an open that has the folder alone
/// (another process, such as dossier-server, had it open when this one started).
pub fn is_pending(database: &Path) -> bool {
    with_suffix(database, READY_SUFFIX).exists()
}

/// Puts a staged restore in place; called at open while no other process uses the folder.
/// Returns whether one was.
pub(crate) async fn finish_pending(database: &Path) -> Result<bool, LedgerError> {
    // Never verified, so never used: a `stage` killed half-way.
    remove_partial(&with_suffix(database, STAGING_SUFFIX))?;
    let ready = with_suffix(database, READY_SUFFIX);
    if !ready.exists() {
        return Ok(false);
    }
    put_in_place(&ready, database).await?;
    tracing::info!(database = %database.display(), "restored the ledger from a backup");
    Ok(true)
}

/// Renames a verified copy `ready` over `database`, first folding the old file's write-ahead
/// log into it (a log left beside the new file would be replayed into it). Used by a restore, a
/// move and the adoption of an earlier release's folder.
pub(crate) async fn put_in_place(ready: &Path, database: &Path) -> Result<(), LedgerError> {
    if database.exists() {
        fold_in_write_ahead_log(database).await?;
    }
    // The log is gone or empty; its index may still describe the old file.
    remove_if_present(&with_suffix(database, "-shm"))?;
    durable_file::replace(ready, database).map_err(|error| LedgerError::io(database, error))?;
    sync_folder(database.parent().unwrap_or(Path::new(".")));
    Ok(())
}

/// Copies every committed page of the old file's write-ahead log into it and empties the log,
/// so no log is left that SQLite would replay into the restored file.
async fn fold_in_write_ahead_log(database: &Path) -> Result<(), LedgerError> {
    let (busy, _, _) = match checkpoint(database).await {
        Ok(outcome) => outcome,
        Err(error) if integrity_check::is_damage(&error) => {
            // A damaged file replaced by a restore from the start-up page: its log cannot be
            // folded in, so both go to `damaged/` whole instead of being left or deleted.
            let data_dir = database.parent().unwrap_or(Path::new("."));
            let moved = integrity_check::move_aside(database, data_dir)?;
            tracing::info!(moved = %moved.display(), "moved the damaged ledger aside");
            return Ok(());
        }
        Err(error) => return Err(error.into()),
    };
    let log = with_suffix(database, "-wal");
    let log_length = std::fs::metadata(&log)
        .map(|metadata| metadata.len())
        .unwrap_or(0);
    if busy != 0 || log_length > 0 {
        return Err(LedgerError::StorageBusy);
    }
    remove_if_present(&log)
}

async fn checkpoint(database: &Path) -> Result<(i64, i64, i64), sqlx::Error> {
    let mut connection = SqliteConnectOptions::new()
        .filename(database)
        .connect()
        .await?;
    let outcome = sqlx::query_as("PRAGMA wal_checkpoint(TRUNCATE)")
        .fetch_one(&mut connection)
        .await;
    close(connection).await;
    outcome
}

/// Makes a rename durable. Best effort: not every system can open a folder to sync it.
fn sync_folder(folder: &Path) {
    if let Err(error) = std::fs::File::open(folder).and_then(|handle| handle.sync_all()) {
        tracing::debug!(%error, "could not sync the data folder");
    }
}

async fn close(connection: SqliteConnection) {
    if let Err(error) = connection.close().await {
        tracing::debug!(%error, "closing a connection of the restore");
    }
}
