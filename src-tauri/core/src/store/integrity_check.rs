//! The check at open: `PRAGMA quick_check` on a read-only connection before anything writes to
//! the file. A damaged database is never opened for writing (a migration or a checkpoint could
//! make the damage worse): a copy of it is put aside in `damaged/`, and the error names the
//! newest backup that passes the same check.

use crate::store::upgrade_backup;
use crate::wire::error::LedgerError;
use sqlx::{Connection, SqliteConnection};
use std::path::{Path, PathBuf};

pub const DAMAGED_FOLDER: &str = "damaged";

/// SQLite's result codes for a file that is damaged or is not a database at all.
const SQLITE_CORRUPT: i32 = 11;
const SQLITE_NOTADB: i32 = 26;

/// `None` when SQLite finds nothing wrong, otherwise what it found (its first lines).
pub(crate) async fn quick_check(
    connection: &mut SqliteConnection,
) -> Result<Option<String>, sqlx::Error> {
    let findings: Vec<String> = sqlx::query_scalar("PRAGMA quick_check(5)")
        .fetch_all(connection)
        .await?;
    if findings.len() == 1 && findings[0] == "ok" {
        Ok(None)
    } else {
        Ok(Some(findings.join("; ")))
    }
}

/// Whether a database error means the file itself is damaged (not busy, not missing).
pub(crate) fn is_damage(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Database(database) => database
            .code()
            .and_then(|code| code.parse::<i32>().ok())
            .is_some_and(|code| matches!(code & 0xff, SQLITE_CORRUPT | SQLITE_NOTADB)),
        _ => false,
    }
}

/// Opens `database` read-only and checks it. Returns the open connection when the file is
/// sound; refuses a damaged one with `DatabaseDamaged` after putting a copy aside.
pub(crate) async fn open_checked(
    database: &Path,
    data_dir: &Path,
) -> Result<SqliteConnection, LedgerError> {
    let finding = match upgrade_backup::read_only(database).await {
        Ok(mut connection) => match quick_check(&mut connection).await {
            Ok(None) => return Ok(connection),
            Ok(Some(finding)) => {
                close(connection).await;
                finding
            }
            Err(error) if is_damage(&error) => {
                close(connection).await;
                error.to_string()
            }
            Err(error) => return Err(error.into()),
        },
        Err(error) if is_damage(&error) => error.to_string(),
        Err(error) => return Err(error.into()),
    };
    let kept_at = match keep_aside(database, data_dir) {
        Ok(kept_at) => Some(kept_at.display().to_string()),
        Err(error) => {
            tracing::warn!(%error, "could not put a copy of the damaged database aside");
            None
        }
    };
    Err(LedgerError::DatabaseDamaged {
        database: database.display().to_string(),
        detail: finding,
        kept_at,
        newest_backup: upgrade_backup::newest_good(data_dir)
            .await
            .map(|backup| backup.display().to_string()),
    })
}

async fn close(connection: SqliteConnection) {
    if let Err(error) = connection.close().await {
        tracing::debug!(%error, "closing a damaged database");
    }
}

/// Copies the damaged file (and its write-ahead log, which may hold the newest pages) into
/// `damaged/`, unless the newest copy there already holds the same bytes: a person who starts
/// Dossier ten times before restoring gets one copy, not ten. The original stays where it is.
fn keep_aside(database: &Path, data_dir: &Path) -> Result<PathBuf, LedgerError> {
    let folder = data_dir.join(DAMAGED_FOLDER);
    std::fs::create_dir_all(&folder).map_err(|error| LedgerError::io(&folder, error))?;
    let bytes = std::fs::read(database).map_err(|error| LedgerError::io(database, error))?;
    let mut earlier: Vec<PathBuf> = std::fs::read_dir(&folder)
        .map_err(|error| LedgerError::io(&folder, error))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "db"))
        .collect();
    earlier.sort();
    if let Some(newest) = earlier.last() {
        if std::fs::read(newest).is_ok_and(|kept| kept == bytes) {
            return Ok(newest.clone());
        }
    }
    let name = format!(
        "dossier-{}.db",
        chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ")
    );
    let target = folder.join(name);
    std::fs::write(&target, &bytes).map_err(|error| LedgerError::io(&target, error))?;
    let log = with_suffix(database, "-wal");
    if log.exists() {
        let log_target = with_suffix(&target, "-wal");
        std::fs::copy(&log, &log_target).map_err(|error| LedgerError::io(&log_target, error))?;
    }
    Ok(target)
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut text = path.as_os_str().to_os_string();
    text.push(suffix);
    PathBuf::from(text)
}
