//! The check at open: `PRAGMA quick_check` on a read-only connection before anything writes to
//! the file. A damaged database is never opened for writing (a migration or a checkpoint could
//! make the damage worse): a copy of it is put aside in `damaged/`, and the error names the
//! newest backup that passes the same check.

use crate::store::sqlite::upgrade_backup;
use crate::wire::error::LedgerError;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection, SqliteConnection};
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

/// SQLite's extended codes for a read-only connection that met a write a crash interrupted: a
/// hot rollback journal to roll back (`SQLITE_READONLY_ROLLBACK`) or a write-ahead log whose
/// index must be rebuilt (`SQLITE_READONLY_RECOVERY`, `SQLITE_READONLY_CANTINIT`).
const INTERRUPTED_WRITE: [i32; 3] = [776, 264, 1288];

/// What the read-only check found.
enum Checked {
    Sound(SqliteConnection),
    Damaged(String),
}

/// Opens `database` read-only and checks it. Returns the open connection when the file is
/// sound; refuses a damaged one with `DatabaseDamaged` after putting a copy aside.
pub(crate) async fn open_checked(
    database: &Path,
    data_dir: &Path,
) -> Result<SqliteConnection, LedgerError> {
    let checked = match check_read_only(database).await {
        Err(error) if is_interrupted_write(&error) => {
            // A crash in the middle of a write (a kill during a first-open conversion, say):
            // SQLite itself must finish undoing it before anyone can read the file.
            finish_interrupted_write(database).await?;
            check_read_only(database).await?
        }
        other => other?,
    };
    let finding = match checked {
        Checked::Sound(connection) => return Ok(connection),
        Checked::Damaged(finding) => finding,
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

async fn check_read_only(database: &Path) -> Result<Checked, sqlx::Error> {
    let mut connection = match upgrade_backup::read_only(database).await {
        Ok(connection) => connection,
        Err(error) if is_damage(&error) => return Ok(Checked::Damaged(error.to_string())),
        Err(error) => return Err(error),
    };
    match quick_check(&mut connection).await {
        Ok(None) => Ok(Checked::Sound(connection)),
        Ok(Some(finding)) => {
            close(connection).await;
            Ok(Checked::Damaged(finding))
        }
        Err(error) => {
            close(connection).await;
            if is_damage(&error) {
                Ok(Checked::Damaged(error.to_string()))
            } else {
                Err(error)
            }
        }
    }
}

/// Whether `database` still fails the check at open. Asked again right before a restore
/// replaces it: a file that was put right meanwhile (by hand, say) is no longer the start-up
/// page's to replace.
pub(crate) async fn still_damaged(database: &Path) -> Result<bool, LedgerError> {
    match check_read_only(database).await? {
        Checked::Sound(connection) => {
            close(connection).await;
            Ok(false)
        }
        Checked::Damaged(_) => Ok(true),
    }
}

/// Moves a damaged file whose write-ahead log cannot be folded in (SQLite cannot read it as a
/// database) into `damaged/`, with its log, by renames: nothing of it is deleted, and no log
/// is left beside the copy that takes its place. Used when a restore replaces it.
pub(crate) fn move_aside(database: &Path, data_dir: &Path) -> Result<PathBuf, LedgerError> {
    let folder = data_dir.join(DAMAGED_FOLDER);
    std::fs::create_dir_all(&folder).map_err(|error| LedgerError::io(&folder, error))?;
    let target = folder.join(format!(
        "dossier-{}-replaced.db",
        chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ")
    ));
    // The log first: a file left without its log is still refused as damaged on the next try,
    // while a log left without its file could be replayed into the copy that takes its place.
    let log = with_suffix(database, "-wal");
    if log.exists() {
        let log_target = with_suffix(&target, "-wal");
        std::fs::rename(&log, &log_target).map_err(|error| LedgerError::io(&log_target, error))?;
    }
    std::fs::rename(database, &target).map_err(|error| LedgerError::io(&target, error))?;
    Ok(target)
}

fn is_interrupted_write(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Database(database) => database
            .code()
            .and_then(|code| code.parse::<i32>().ok())
            .is_some_and(|code| INTERRUPTED_WRITE.contains(&code)),
        _ => false,
    }
}

/// SQLite rolls back a hot journal (or rebuilds a log's index) on the first read of a
/// connection that may write; this read is that first read. It restores the last committed
/// state and changes nothing that was committed, so it is no write of ours — a newer
/// database is still never written to by this app.
async fn finish_interrupted_write(database: &Path) -> Result<(), sqlx::Error> {
    let mut connection = SqliteConnectOptions::new()
        .filename(database)
        .connect()
        .await?;
    let outcome: Result<i64, sqlx::Error> =
        sqlx::query_scalar("SELECT count(*) FROM sqlite_master")
            .fetch_one(&mut connection)
            .await;
    close(connection).await;
    outcome.map(drop)
}

async fn close(connection: SqliteConnection) {
    if let Err(error) = connection.close().await {
        tracing::debug!(%error, "closing a damaged database");
    }
}

/// Copies the damaged file (and its write-ahead log, which may hold the newest pages) into
/// `damaged/`, unless the newest copy there already holds the same bytes: a person who starts
/// Dossier ten times before restoring gets one copy, not ten. The original stays where it is.
pub(crate) fn keep_aside(database: &Path, data_dir: &Path) -> Result<PathBuf, LedgerError> {
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

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;
    use crate::store::sqlite::database;
    use sqlx::migrate::Migration;

    fn ours() -> Vec<Migration> {
        sqlx::migrate!("./migrations").iter().cloned().collect()
    }

    /// A database one migration behind, opened once (so an upgrade backup exists), with the
    /// log folded into the file.
    async fn upgraded_database(path: &Path) {
        let mut older = ours();
        older.pop();
        let pool = database::open_with(path, &older, 5).await.unwrap();
        pool.close().await;
        let pool = database::open_with(path, &ours(), 5).await.unwrap();
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    }

    /// Overwrites the middle of every page after the first with noise: the schema still
    /// reads, the tables do not.
    fn damage(path: &Path) {
        let mut bytes = std::fs::read(path).unwrap();
        let page_size = 4096;
        for page in bytes.chunks_mut(page_size).skip(1) {
            let middle = page.len() / 2;
            for (offset, byte) in page[middle - 64..middle + 64].iter_mut().enumerate() {
                *byte = (offset * 37 % 251) as u8;
            }
            page[0] = 0x42; // not a valid b-tree page type
        }
        std::fs::write(path, bytes).unwrap();
    }

    #[tokio::test]
    async fn a_damaged_database_is_not_opened_and_names_the_newest_good_backup() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("dossier.db");
        upgraded_database(&path).await;
        let backup = upgrade_backup::list(&folder.path().join("backups"))
            .unwrap()
            .pop()
            .unwrap();
        damage(&path);
        let damaged = std::fs::read(&path).unwrap();

        let error = database::open_with(&path, &ours(), 5).await.unwrap_err();

        let LedgerError::DatabaseDamaged {
            kept_at: Some(kept_at),
            newest_backup: Some(newest_backup),
            ..
        } = &error
        else {
            panic!("not a damaged database with a backup: {error:?}");
        };
        assert_eq!(newest_backup, &backup.display().to_string());
        assert!(
            std::fs::read(&path).unwrap() == damaged,
            "the damaged file was written to"
        );
        assert!(
            std::fs::read(kept_at).unwrap() == damaged,
            "the copy aside differs"
        );
        let message = error.to_string();
        assert!(message.contains("is damaged"), "{message}");
        assert!(message.contains(&backup.display().to_string()), "{message}");
        assert!(
            message.contains("copy the backup in its place"),
            "{message}"
        );

        // A second start finds the same damage and keeps no second copy of the same bytes.
        database::open_with(&path, &ours(), 5).await.unwrap_err();
        let mut kept: Vec<String> = std::fs::read_dir(folder.path().join(DAMAGED_FOLDER))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().to_string())
            .collect();
        kept.sort();
        // The file, and its (empty) write-ahead log beside it.
        assert_eq!(kept.len(), 2, "{kept:?}");
        assert!(
            kept[0].ends_with(".db") && kept[1].ends_with(".db-wal"),
            "{kept:?}"
        );
    }

    #[tokio::test]
    async fn a_file_that_is_not_a_database_is_refused_untouched() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("dossier.db");
        let noise: Vec<u8> = (0..10_000u32)
            .map(|index| (index * 7 % 256) as u8)
            .collect();
        std::fs::write(&path, &noise).unwrap();

        let error = database::open_with(&path, &ours(), 5).await.unwrap_err();

        assert!(
            matches!(
                &error,
                LedgerError::DatabaseDamaged {
                    newest_backup: None,
                    ..
                }
            ),
            "{error:?}"
        );
        assert!(std::fs::read(&path).unwrap() == noise);
        assert!(error.to_string().contains("no good backup"), "{error}");
    }
}
