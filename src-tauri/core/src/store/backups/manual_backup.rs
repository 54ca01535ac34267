//! Backing up by hand: "Back up now" writes a consistent copy of the open ledger (attachments
//! included: they live in the database) to a file the person chose, and `inspect` tells whether a
//! chosen file is a whole Dossier backup this build can open — refusing a file that is not a
//! database, one cut short or damaged, another program's database, and one from a newer Dossier,
//! each with its own error. Nothing here replaces the ledger in use (restoring is not done yet).

use crate::store::durable_file;
use crate::store::sqlite::{database, integrity_check, schema_upgrade, upgrade_backup};
use crate::wire::error::LedgerError;
use sqlx::Connection;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The first 16 bytes of every SQLite database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// What a backup that passed `inspect` holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupSummary {
    pub schema_version: i64,
    pub sessions: i64,
}

/// Writes a consistent copy of the ledger to `target` (`VACUUM INTO` a temporary file beside it,
/// synced, then renamed over `target`), so a crash or a full disk never leaves a half backup
/// under the chosen name.
pub async fn write_to(pool: &sqlx::SqlitePool, target: &Path) -> Result<(), LedgerError> {
    let mut partial = target.as_os_str().to_os_string();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    durable_file::remove_partial(&partial)?;
    let partial_text = partial
        .to_str()
        .ok_or_else(|| LedgerError::file(&partial, "the path is not valid UTF-8".into()))?
        .to_string();
    let written = sqlx::query("VACUUM INTO ?")
        .bind(partial_text)
        .execute(pool)
        .await;
    if let Err(error) = written {
        if let Err(cleanup) = durable_file::remove_partial(&partial) {
            tracing::debug!(%cleanup, "no partial backup to remove");
        }
        return Err(LedgerError::file(
            target,
            LedgerError::from(error).to_string(),
        ));
    }
    durable_file::sync(&partial).map_err(|error| LedgerError::io(&partial, error))?;
    // The person's last backup under the same name may be held open by a viewer or a scanner
    // on Windows: `replace` waits for it a moment rather than fail at once.
    durable_file::replace(&partial, target).map_err(|error| LedgerError::io(target, error))?;
    Ok(())
}

/// Checks that `path` is a whole Dossier backup that this build can open, without writing to it.
pub async fn inspect(path: &Path) -> Result<BackupSummary, LedgerError> {
    let shown = path.display().to_string();
    let mut header = [0_u8; 100];
    let read = std::fs::File::open(path)
        .and_then(|mut file| file.read(&mut header))
        .map_err(|error| LedgerError::file(path, error.to_string()))?;
    if read < SQLITE_HEADER.len() || &header[..16] != SQLITE_HEADER {
        return Err(LedgerError::BackupNotADatabase { path: shown });
    }
    let length = std::fs::metadata(path)
        .map_err(|error| LedgerError::file(path, error.to_string()))?
        .len();
    if let Some(expected) = expected_length(&header[..read]) {
        if length < expected {
            return Err(LedgerError::BackupIncomplete {
                path: shown,
                detail: format!("{length} of {expected} bytes"),
            });
        }
    }
    let mut connection =
        upgrade_backup::read_only(path)
            .await
            .map_err(|error| LedgerError::BackupIncomplete {
                path: shown.clone(),
                detail: error.to_string(),
            })?;
    let summary = check_contents(&mut connection, path).await;
    if let Err(error) = connection.close().await {
        tracing::debug!(%error, "closing an inspected backup");
    }
    summary
}

/// The file length the header promises: page size × page count (SQLite's file format, bytes
/// 16–17 and 28–31). `None` when the header cannot say (an old writer left the count stale).
fn expected_length(header: &[u8]) -> Option<u64> {
    if header.len() < 32 {
        return None;
    }
    let page_size = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65_536,
        size => u64::from(size),
    };
    let pages = u64::from(u32::from_be_bytes([
        header[28], header[29], header[30], header[31],
    ]));
    (pages > 0).then_some(page_size * pages)
}

async fn check_contents(
    connection: &mut sqlx::SqliteConnection,
    path: &Path,
) -> Result<BackupSummary, LedgerError> {
    let shown = path.display().to_string();
    let incomplete = |detail: String| LedgerError::BackupIncomplete {
        path: shown.clone(),
        detail,
    };
    match integrity_check::quick_check(connection).await {
        Ok(None) => {}
        Ok(Some(finding)) => return Err(incomplete(finding)),
        Err(error) => return Err(incomplete(error.to_string())),
    }
    let applied = schema_upgrade::applied_versions(connection).await?;
    let has_sessions = sqlx::query_scalar::<_, i64>(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'session'",
    )
    .fetch_one(&mut *connection)
    .await?
        > 0;
    if applied.is_empty() || !has_sessions {
        return Err(LedgerError::BackupFromAnotherApp { path: shown });
    }
    let migrations = database::migrations();
    schema_upgrade::refuse_newer(connection, path, &applied, &migrations).await?;
    let sessions: i64 = sqlx::query_scalar("SELECT count(*) FROM session")
        .fetch_one(&mut *connection)
        .await?;
    Ok(BackupSummary {
        schema_version: applied.iter().copied().max().unwrap_or(0),
        sessions,
    })
}
