//! The copies written to `backups/` in the data folder before a schema change: how they are
//! made (`VACUUM INTO`, a consistent snapshot even while other processes write, never a file
//! copy of a live write-ahead-logged database), named (the time first, so names sort oldest
//! first, then the schema version they hold), pruned (the last `keep`, never the newest) and
//! found again (the newest that passes SQLite's quick check).

use crate::store::durable_file;
use crate::wire::error::LedgerError;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection, SqliteConnection};
use std::path::{Path, PathBuf};

pub const BACKUP_FOLDER: &str = "backups";
/// How many upgrade backups are kept when the config does not say (`backups.keep`).
pub const DEFAULT_KEEP: usize = 5;

const PREFIX: &str = "dossier-";
const SCHEMA_MARK: &str = "-schema-";
const EXTENSION: &str = ".db";

/// `dossier-20261201T183300.123Z-schema-7.db`: when it was made, and the schema it holds.
pub(crate) fn backup_name(time: chrono::DateTime<chrono::Utc>, schema_version: i64) -> String {
    format!(
        "{PREFIX}{}{SCHEMA_MARK}{schema_version}{EXTENSION}",
        time.format("%Y%m%dT%H%M%S%.3fZ")
    )
}

fn is_backup_name(name: &str) -> bool {
    name.starts_with(PREFIX) && name.contains(SCHEMA_MARK) && name.ends_with(EXTENSION)
}

/// A read-only connection: the checks before an upgrade must never write to the file.
pub(crate) async fn read_only(path: &Path) -> Result<SqliteConnection, sqlx::Error> {
    SqliteConnectOptions::new()
        .filename(path)
        .read_only(true)
        .connect()
        .await
}

/// Writes a consistent copy of the database open on `connection` and prunes older copies down
/// to `keep`. The copy is written under a temporary name and renamed once complete, so a crash
/// halfway leaves no file that looks like a backup.
pub(crate) async fn write(
    connection: &mut SqliteConnection,
    data_dir: &Path,
    schema_version: i64,
    keep: usize,
) -> Result<PathBuf, LedgerError> {
    let folder = data_dir.join(BACKUP_FOLDER);
    std::fs::create_dir_all(&folder).map_err(|error| LedgerError::io(&folder, error))?;
    let target = folder.join(backup_name(chrono::Utc::now(), schema_version));
    let partial = target.with_extension("db.partial");
    durable_file::remove_partial(&partial)?;
    let partial_text = partial
        .to_str()
        .ok_or_else(|| LedgerError::file(&partial, "the path is not valid UTF-8".into()))?;
    sqlx::query("VACUUM INTO ?")
        .bind(partial_text.to_string())
        .execute(&mut *connection)
        .await?;
    // Durable before it counts as a backup: the rename must not reach the disk before the bytes.
    durable_file::sync(&partial).map_err(|error| LedgerError::io(&partial, error))?;
    durable_file::replace(&partial, &target).map_err(|error| LedgerError::io(&target, error))?;
    prune(&folder, keep)?;
    Ok(target)
}

/// The upgrade backups in `folder`, oldest first.
pub fn list(folder: &Path) -> Result<Vec<PathBuf>, LedgerError> {
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(LedgerError::io(folder, error)),
    };
    let mut backups: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(is_backup_name)
        })
        .collect();
    backups.sort();
    Ok(backups)
}

/// One automatic backup as Settings → Data lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct BackupFile {
    pub path: String,
    pub name: String,
    #[ts(type = "number")]
    pub bytes: u64,
    /// When the file was last written, in milliseconds since the epoch.
    #[ts(type = "number")]
    pub modified: i64,
}

/// The automatic backups in the data folder, newest first, with their size and date.
pub fn describe(data_dir: &Path) -> Result<Vec<BackupFile>, LedgerError> {
    let mut described = Vec::new();
    for path in list(&data_dir.join(BACKUP_FOLDER))?.into_iter().rev() {
        let metadata = std::fs::metadata(&path).map_err(|error| LedgerError::io(&path, error))?;
        let modified = metadata
            .modified()
            .ok()
            .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |since| {
                i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
            });
        described.push(BackupFile {
            name: path
                .file_name()
                .map(|name| name.to_string_lossy().to_string())
                .unwrap_or_default(),
            path: path.display().to_string(),
            bytes: metadata.len(),
            modified,
        });
    }
    Ok(described)
}

/// Deletes the oldest backups beyond `keep`; only files named like ours, and never the newest.
fn prune(folder: &Path, keep: usize) -> Result<(), LedgerError> {
    let backups = list(folder)?;
    let surplus = backups.len().saturating_sub(keep.max(1));
    for old in &backups[..surplus] {
        std::fs::remove_file(old).map_err(|error| LedgerError::io(old, error))?;
    }
    Ok(())
}

/// The newest backup in the data folder that SQLite's quick check passes.
pub(crate) async fn newest_good(data_dir: &Path) -> Option<PathBuf> {
    let backups = list(&data_dir.join(BACKUP_FOLDER)).ok()?;
    for backup in backups.into_iter().rev() {
        if passes_quick_check(&backup).await {
            return Some(backup);
        }
    }
    None
}

async fn passes_quick_check(path: &Path) -> bool {
    let Ok(mut connection) = read_only(path).await else {
        return false;
    };
    let verdict = crate::store::sqlite::integrity_check::quick_check(&mut connection).await;
    if let Err(error) = connection.close().await {
        tracing::debug!(%error, "closing a backup after its check");
    }
    matches!(verdict, Ok(None))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;

    #[test]
    fn names_sort_by_time_whatever_the_schema() {
        let early = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let late = chrono::DateTime::from_timestamp(1_800_000_000, 5_000_000).unwrap();
        let older = backup_name(early, 12);
        let newer = backup_name(late, 7);
        assert_eq!(older, "dossier-20231114T221320.000Z-schema-12.db");
        assert_eq!(newer, "dossier-20270115T080000.005Z-schema-7.db");
        assert!(older < newer);
        assert!(is_backup_name(&older));
        assert!(!is_backup_name("dossier.db"));
        assert!(!is_backup_name(
            "dossier-20231114T221320.000Z-schema-12.db.partial"
        ));
    }

    #[test]
    fn pruning_keeps_the_newest_and_touches_nothing_else() {
        let folder = tempfile::tempdir().unwrap();
        let names: Vec<String> = (0..7)
            .map(|second| {
                backup_name(
                    chrono::DateTime::from_timestamp(1_700_000_000 + second, 0).unwrap(),
                    3,
                )
            })
            .collect();
        for name in &names {
            std::fs::write(folder.path().join(name), b"x").unwrap();
        }
        std::fs::write(folder.path().join("notes.txt"), b"mine").unwrap();
        prune(folder.path(), 5).unwrap();
        let left: Vec<String> = list(folder.path())
            .unwrap()
            .iter()
            .map(|path| path.file_name().unwrap().to_string_lossy().to_string())
            .collect();
        assert_eq!(left, names[2..].to_vec());
        assert!(folder.path().join("notes.txt").exists());
        // Zero is read as one: the newest copy is never deleted.
        prune(folder.path(), 0).unwrap();
        assert_eq!(
            list(folder.path()).unwrap(),
            vec![folder.path().join(&names[6])]
        );
    }
}
