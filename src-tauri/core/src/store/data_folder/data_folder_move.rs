//! "Move data folder…": the ledger (attachments included: they live in the database) and the
//! automatic backups copied to a folder the person chose, verified, and switched to by the
//! pointer file (`data_location`); the old copy removed later, only when the person confirms,
//! and only the files Dossier made.
//!
//! The copy is `VACUUM INTO`: SQLite's consistent copy of a live database (its C backup API is
//! out of reach without `unsafe`, which the workspace forbids). While it runs the move holds the
//! write lock, so no write lands in the old ledger after the copy was taken: a write that comes
//! meanwhile waits, and is refused as "locked" past the busy timeout — never acknowledged and
//! then lost.
//!
//! Each step leaves one complete ledger in use. `.moving` (being written, never used) →
//! verified (`PRAGMA integrity_check` and the same row counts) → renamed `.moved` (ready) →
//! the pointer names the new folder (the switch) → renamed `dossier.db`. A kill before the
//! pointer is written leaves the old ledger in use and whole; a kill after it leaves a verified
//! `.moved` that `finish_switch` renames at the next open.

use crate::store::backups::backup_restore;
use crate::store::data_folder::data_location::{self, Pointer};
use crate::store::sqlite::{database, upgrade_backup};
use crate::store::{durable_file, Store, DATABASE_FILE};
use crate::wire::error::LedgerError;
use durable_file::with_suffix;
use serde::Serialize;
use sqlx::SqliteConnection;
use std::path::{Path, PathBuf};
use ts_rs::TS;

const MOVING_SUFFIX: &str = ".moving";
const MOVED_SUFFIX: &str = ".moved";

/// Files the system or a file manager puts in any folder; a target holding only these is empty.
const SYSTEM_FILES: [&str; 3] = [".DS_Store", "Thumbs.db", "desktop.ini"];

/// What a finished move did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct DataFolderMoved {
    pub folder: String,
    /// Where the old copy still is, until the person removes or keeps it.
    pub previous_folder: String,
    #[ts(type = "number")]
    pub sessions: i64,
}

impl Store {
    /// Moves the ledger to `target` and records it in `pointer_file`. The caller closes the
    /// store afterwards: from the switch on, the ledger in use is the new one, opened at the
    /// next start.
    pub async fn move_to(
        &self,
        target: &Path,
        pointer_file: &Path,
    ) -> Result<DataFolderMoved, LedgerError> {
        let current = self.data_dir().to_path_buf();
        check_target(&current, target, &data_location::default_folder())?;
        let Some(process_lock) = &self.upkeep.process_lock else {
            return Err(crate::store::engine::not_on_postgres(
                "Moving the data folder",
            ));
        };
        if !process_lock.try_hold_alone(&current)? {
            return Err(LedgerError::DataFolderInUse {
                folder: current.display().to_string(),
            });
        }
        let created = !target.exists();
        let moved = self.checked_move(&current, target, pointer_file).await;
        if moved.is_err() {
            // Nothing switched: other processes may use the folder again, and a folder this
            // move made is taken away again if nothing of the person's went into it.
            if let Err(error) = self.share_folder() {
                tracing::warn!(%error, "could not share the data folder again");
            }
            if created {
                remove_if_empty(target);
            }
        }
        moved
    }

    async fn checked_move(
        &self,
        current: &Path,
        target: &Path,
        pointer_file: &Path,
    ) -> Result<DataFolderMoved, LedgerError> {
        probe_writable(target)?;
        let needed = room_needed(current)?;
        if let Some(available) = available_space(target) {
            if available < needed {
                return Err(LedgerError::MoveTargetTooSmall {
                    target: target.display().to_string(),
                    needed,
                    available,
                });
            }
        }
        self.copy_and_switch(current, target, pointer_file).await
    }

    async fn copy_and_switch(
        &self,
        current: &Path,
        target: &Path,
        pointer_file: &Path,
    ) -> Result<DataFolderMoved, LedgerError> {
        remove_leftovers(target)?;
        let database = target.join(DATABASE_FILE);
        let moving = with_suffix(&database, MOVING_SUFFIX);
        // No write lands in the old ledger from here on; the copy sees every committed one.
        let pool = self.sqlite_pool("Moving the data folder")?;
        let writes_stopped = pool.begin_with(database::BEGIN_WRITE).await?;
        let expected = {
            let mut reader = pool.acquire().await?;
            copy_checked(&mut reader, &moving, |detail| {
                LedgerError::MoveNotVerified {
                    target: target.display().to_string(),
                    current: current.display().to_string(),
                    detail,
                }
            })
            .await?
        };
        let moved = with_suffix(&database, MOVED_SUFFIX);
        durable_file::replace(&moving, &moved).map_err(|error| LedgerError::io(&moved, error))?;
        copy_backups(current, target)?;
        data_location::sync_folder(target);
        data_location::write_pointer(
            pointer_file,
            &Pointer {
                data_folder: target.to_path_buf(),
                previous_folder: Some(current.to_path_buf()),
            },
        )?;
        finish_switch(target).await?;
        writes_stopped.rollback().await?;
        tracing::info!(
            from = %current.display(),
            to = %target.display(),
            "moved the data folder"
        );
        Ok(DataFolderMoved {
            folder: target.display().to_string(),
            previous_folder: current.display().to_string(),
            sessions: expected.first().copied().unwrap_or(0),
        })
    }
}

/// The refusals that need no copy: the folder in use or one inside it, and a folder holding
/// files that are not Dossier's or a ledger of its own. `default` is the system's default data
/// folder, which also holds the window's own files (WebKit's storage, the log): moving back there
/// is allowed as long as it holds no ledger.
pub fn check_target(current: &Path, target: &Path, default: &Path) -> Result<(), LedgerError> {
    let shown = target.display().to_string();
    if !target.is_absolute() {
        return Err(LedgerError::MoveTargetReadOnly {
            target: shown,
            detail: "not a full path".into(),
        });
    }
    let current_real = real_path(current);
    let target_real = real_path(target);
    if target_real.starts_with(&current_real) {
        return Err(LedgerError::MoveIntoCurrentFolder {
            target: shown,
            current: current.display().to_string(),
        });
    }
    let entries = match std::fs::read_dir(target) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => {
            return Err(LedgerError::MoveTargetReadOnly {
                target: shown,
                detail: error.to_string(),
            })
        }
    };
    let is_default = target_real == real_path(default);
    for entry in entries {
        let entry = entry.map_err(|error| LedgerError::io(target, error))?;
        let name = entry.file_name().to_string_lossy().to_string();
        if name == DATABASE_FILE {
            return Err(LedgerError::MoveTargetHasLedger { target: shown });
        }
        if is_default || is_dossiers_own(&entry.path(), &name) {
            continue;
        }
        return Err(LedgerError::MoveTargetNotEmpty {
            target: shown,
            example: name,
        });
    }
    Ok(())
}

/// Leftovers of an earlier move that was cut short, the lock file, an automatic-backup folder
/// holding only Dossier's backups, and what the system puts in any folder.
fn is_dossiers_own(path: &Path, name: &str) -> bool {
    let leftovers = [
        format!("{DATABASE_FILE}{MOVING_SUFFIX}"),
        format!("{DATABASE_FILE}{MOVING_SUFFIX}-journal"),
        format!("{DATABASE_FILE}{MOVED_SUFFIX}"),
        crate::store::data_folder::process_lock::LOCK_FILE.to_string(),
    ];
    if SYSTEM_FILES.contains(&name) || leftovers.iter().any(|leftover| leftover == name) {
        return true;
    }
    if name != upgrade_backup::BACKUP_FOLDER || !path.is_dir() {
        return false;
    }
    let Ok(inside) = std::fs::read_dir(path) else {
        return false;
    };
    let ours = upgrade_backup::list(path).unwrap_or_default();
    inside.filter_map(Result::ok).all(|entry| {
        let path = entry.path();
        ours.contains(&path)
            || path
                .extension()
                .is_some_and(|extension| extension == "partial")
    })
}

/// The path with every part that exists resolved (links, `..`), so that a folder reached by
/// another name is still recognised as inside the one in use.
fn real_path(path: &Path) -> PathBuf {
    let mut existing = path;
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            return rest.iter().rev().fold(real, |path, part| path.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Creates the folder if needed and writes (then removes) a small file in it.
fn probe_writable(target: &Path) -> Result<(), LedgerError> {
    let probe = target.join(".dossier-write-check");
    std::fs::create_dir_all(target)
        .and_then(|()| std::fs::write(&probe, b"dossier"))
        .and_then(|()| std::fs::remove_file(&probe))
        .map_err(|error| write_refusal(target, &error))
}

/// A folder that cannot be written is refused as read-only; a full disk as too small.
pub fn write_refusal(target: &Path, error: &std::io::Error) -> LedgerError {
    match error.kind() {
        std::io::ErrorKind::StorageFull => LedgerError::MoveTargetTooSmall {
            target: target.display().to_string(),
            needed: 1,
            available: 0,
        },
        _ => LedgerError::MoveTargetReadOnly {
            target: target.display().to_string(),
            detail: error.to_string(),
        },
    }
}

/// What the new folder needs: the ledger, its write-ahead log and the automatic backups, plus a
/// tenth and 16 MB, since the copy and the log of the first writes after it take some room too.
pub fn room_needed(current: &Path) -> Result<u64, LedgerError> {
    let mut bytes = 0;
    let mut files = vec![
        current.join(DATABASE_FILE),
        with_suffix(&current.join(DATABASE_FILE), "-wal"),
    ];
    files.extend(upgrade_backup::list(
        &current.join(upgrade_backup::BACKUP_FOLDER),
    )?);
    for file in files {
        match std::fs::metadata(&file) {
            Ok(metadata) => bytes += metadata.len(),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(LedgerError::io(&file, error)),
        }
    }
    Ok(with_margin(bytes))
}

pub fn with_margin(bytes: u64) -> u64 {
    bytes + bytes / 10 + 16 * 1024 * 1024
}

/// Free bytes for an unprivileged writer on the disk that holds `path` (or its nearest existing
/// parent). `None` where the system cannot say; the copy then finds out, and a full disk stops it
/// before anything is switched.
#[cfg(unix)]
pub fn available_space(path: &Path) -> Option<u64> {
    let mut existing = path;
    while !existing.exists() {
        existing = existing.parent()?;
    }
    let statistics = rustix::fs::statvfs(existing).ok()?;
    Some(statistics.f_bavail.saturating_mul(statistics.f_frsize))
}

/// On Windows: the free bytes available to this user on the volume that holds `path` (or its
/// nearest existing parent), quotas included.
#[cfg(windows)]
pub fn available_space(path: &Path) -> Option<u64> {
    let mut existing = path;
    while !existing.exists() {
        existing = existing.parent()?;
    }
    fs4::available_space(existing).ok()
}

#[cfg(not(any(unix, windows)))]
pub fn available_space(_path: &Path) -> Option<u64> {
    None
}

/// Removes what a move cut short left in `target`: a copy never verified, or verified but never
/// switched to (the pointer still names the old folder, so it is not in use).
fn remove_leftovers(target: &Path) -> Result<(), LedgerError> {
    let database = target.join(DATABASE_FILE);
    durable_file::remove_partial(&with_suffix(&database, MOVING_SUFFIX))?;
    durable_file::remove_if_present(&with_suffix(&database, MOVED_SUFFIX))
}

/// `VACUUM INTO` `copy` from `source`'s last committed state, synced, then checked on a
/// read-only connection: `PRAGMA integrity_check` (the full one) and the same row counts of
/// sessions, messages, parts and attachment blobs. Returns the counts; a copy that does not
/// check out is removed and reported through `not_verified`.
pub(crate) async fn copy_checked(
    source: &mut SqliteConnection,
    copy: &Path,
    not_verified: impl Fn(String) -> LedgerError,
) -> Result<Vec<i64>, LedgerError> {
    durable_file::remove_partial(copy)?;
    let copy_text = copy
        .to_str()
        .ok_or_else(|| LedgerError::file(copy, "the path is not valid UTF-8".into()))?
        .to_string();
    let written = sqlx::query("VACUUM INTO ?")
        .bind(copy_text)
        .execute(&mut *source)
        .await;
    let outcome = match written {
        Ok(_) => verify(source, copy, &not_verified).await,
        Err(error) => Err(LedgerError::from(error)),
    };
    if outcome.is_err() {
        if let Err(cleanup) = durable_file::remove_partial(copy) {
            tracing::warn!(%cleanup, "could not remove an unverified copy");
        }
    }
    outcome
}

async fn verify(
    source: &mut SqliteConnection,
    copy: &Path,
    not_verified: &impl Fn(String) -> LedgerError,
) -> Result<Vec<i64>, LedgerError> {
    let expected = backup_restore::counts(source).await?;
    durable_file::sync(copy).map_err(|error| LedgerError::io(copy, error))?;
    let mut connection = upgrade_backup::read_only(copy)
        .await
        .map_err(|error| not_verified(error.to_string()))?;
    let findings: Result<Vec<String>, sqlx::Error> =
        sqlx::query_scalar("PRAGMA integrity_check(5)")
            .fetch_all(&mut connection)
            .await;
    let found = backup_restore::counts(&mut connection).await;
    close(connection).await;
    let findings = findings.map_err(|error| not_verified(error.to_string()))?;
    if findings != ["ok"] {
        return Err(not_verified(findings.join("; ")));
    }
    let found = found.map_err(|error| not_verified(error.to_string()))?;
    if found != expected {
        return Err(not_verified(format!(
            "rows of {:?}: {found:?} in the copy, {expected:?} in the ledger",
            backup_restore::COUNTED_TABLES
        )));
    }
    Ok(expected)
}

/// Copies the automatic backups (closed files, so a plain copy is a whole one): each under a
/// `.partial` name, synced, renamed.
fn copy_backups(current: &Path, target: &Path) -> Result<(), LedgerError> {
    let backups = upgrade_backup::list(&current.join(upgrade_backup::BACKUP_FOLDER))?;
    if backups.is_empty() {
        return Ok(());
    }
    let folder = target.join(upgrade_backup::BACKUP_FOLDER);
    std::fs::create_dir_all(&folder).map_err(|error| LedgerError::io(&folder, error))?;
    for backup in backups {
        let Some(name) = backup.file_name() else {
            continue;
        };
        let copy = folder.join(name);
        let partial = with_suffix(&copy, ".partial");
        std::fs::copy(&backup, &partial)
            .and_then(|_| durable_file::sync(&partial))
            .map_err(|error| LedgerError::io(&partial, error))?;
        durable_file::replace(&partial, &copy).map_err(|error| LedgerError::io(&copy, error))?;
    }
    data_location::sync_folder(&folder);
    Ok(())
}

/// Puts a verified `.moved` copy in place after the pointer switched to its folder; called by
/// the move and, for a move cut short after the switch, at the next open.
pub(crate) async fn finish_switch(data_dir: &Path) -> Result<(), LedgerError> {
    let database = data_dir.join(DATABASE_FILE);
    durable_file::remove_partial(&with_suffix(&database, MOVING_SUFFIX))?;
    let moved = with_suffix(&database, MOVED_SUFFIX);
    if moved.exists() {
        backup_restore::put_in_place(&moved, &database).await?;
    }
    Ok(())
}

/// What removing the old copy took away.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct PreviousFolderRemoved {
    pub folder: String,
    /// Files removed, by name relative to the folder.
    pub removed: Vec<String>,
    /// Whether the folder itself was removed (only when nothing else was left in it).
    pub folder_removed: bool,
}

/// Removes the files Dossier made in the folder the ledger was moved from — the ledger and its
/// log, index and lock, cut-short copies, and the automatic backups by their names — then the
/// backup folder and the folder itself only if nothing else is left in them. Never a folder with
/// anything else in it, and never the default folder (it also holds the window's own files).
/// Refused while another process has that folder open.
pub fn remove_previous(
    previous: &Path,
    current: &Path,
) -> Result<PreviousFolderRemoved, LedgerError> {
    if real_path(previous) == real_path(current) {
        return Err(LedgerError::NoPreviousDataFolder);
    }
    if !previous.exists() {
        return Ok(PreviousFolderRemoved {
            folder: previous.display().to_string(),
            removed: Vec::new(),
            folder_removed: false,
        });
    }
    let (lock, occupancy) =
        crate::store::data_folder::process_lock::ProcessLock::acquire(previous)?;
    if occupancy == crate::store::data_folder::process_lock::Occupancy::Shared {
        return Err(LedgerError::DataFolderInUse {
            folder: previous.display().to_string(),
        });
    }
    let database = previous.join(DATABASE_FILE);
    let mut files: Vec<PathBuf> = [
        "",
        "-wal",
        "-shm",
        "-journal",
        MOVING_SUFFIX,
        MOVED_SUFFIX,
        ".restoring",
        ".restore-ready",
    ]
    .iter()
    .map(|suffix| with_suffix(&database, suffix))
    .collect();
    let backup_folder = previous.join(upgrade_backup::BACKUP_FOLDER);
    files.extend(upgrade_backup::list(&backup_folder)?);
    let mut removed = Vec::new();
    for file in &files {
        if file.exists() {
            durable_file::remove_if_present(file)?;
            removed.push(shown_relative(previous, file));
        }
    }
    // The lock last, once nothing of the ledger is left for another process to open.
    drop(lock);
    let lock_file = previous.join(crate::store::data_folder::process_lock::LOCK_FILE);
    if lock_file.exists() {
        durable_file::remove_if_present(&lock_file)?;
        removed.push(crate::store::data_folder::process_lock::LOCK_FILE.to_string());
    }
    remove_if_empty(&backup_folder);
    let folder_removed = real_path(previous) != real_path(&data_location::default_folder())
        && remove_if_empty(previous);
    Ok(PreviousFolderRemoved {
        folder: previous.display().to_string(),
        removed,
        folder_removed,
    })
}

fn shown_relative(folder: &Path, file: &Path) -> String {
    file.strip_prefix(folder)
        .unwrap_or(file)
        .display()
        .to_string()
}

/// `remove_dir`, which fails on a folder with anything in it: never a recursive removal.
fn remove_if_empty(folder: &Path) -> bool {
    std::fs::remove_dir(folder).is_ok()
}

async fn close(connection: SqliteConnection) {
    use sqlx::Connection;
    if let Err(error) = connection.close().await {
        tracing::debug!(%error, "closing a connection of the move");
    }
}

#[cfg(test)]
mod tests;
