//! Settling the data folder before the ledger opens: a folder the sessions were moved to must
//! hold them (never an empty ledger started in its place), a move cut short after its switch is
//! finished, and a ledger an earlier release kept in its default folder (the system's data folder
//! + `dossier`) is adopted into today's default once — never an empty ledger beside it.
//!
//! Adoption: the old ledger is backed up into its own `backups/` first, copied beside the new
//! one (`VACUUM INTO` under `.adopting`, then the same checks as a move: `integrity_check` and
//! row counts), renamed `.adopted` (ready), the old folder marked with a note saying where the
//! sessions went, and the ready copy renamed into place. A kill before the ready copy exists
//! leaves the old folder unmarked and it is adopted again; after it, the next open finishes.
//! The old copy stays where it was: a person can remove it once they see their sessions.
//!
//! Both folders holding sessions is refused (`LedgersInTwoPlaces`): the two may differ, and only
//! the person knows which to keep. A new folder holding an empty ledger (a build without this
//! step ran once) is replaced by the old one, and the log says so.

use crate::store::backups::backup_restore;
use crate::store::data_folder::data_folder_move;
use crate::store::data_folder::data_location::{DataFolderSettings, DataFolderSource};
use crate::store::data_folder::process_lock::{Occupancy, ProcessLock};
use crate::store::sqlite::{schema_upgrade, upgrade_backup};
use crate::store::{durable_file, DATABASE_FILE};
use crate::wire::error::LedgerError;
use durable_file::with_suffix;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};
use std::path::Path;

const ADOPTING_SUFFIX: &str = ".adopting";
const ADOPTED_SUFFIX: &str = ".adopted";
/// The note left in the old folder once its sessions were adopted.
pub const ADOPTED_NOTE: &str = "SESSIONS-MOVED.txt";

/// Makes sure the ledger about to open in `data_dir` is the one the person's sessions are in.
pub async fn settle(
    data_dir: &Path,
    settings: &DataFolderSettings,
    keep_backups: usize,
) -> Result<(), LedgerError> {
    if let Some(problem) = &settings.pointer_problem {
        return Err(LedgerError::DataFolderPointerUnreadable {
            pointer: settings
                .pointer_file
                .as_deref()
                .map(|path| path.display().to_string())
                .unwrap_or_default(),
            detail: problem.clone(),
        });
    }
    match settings.source {
        DataFolderSource::Environment => Ok(()),
        DataFolderSource::Moved => {
            data_folder_move::finish_switch(data_dir).await?;
            if holds_ledger(&data_dir.join(DATABASE_FILE)) {
                Ok(())
            } else {
                Err(LedgerError::DataFolderMissing {
                    folder: data_dir.display().to_string(),
                    pointer: settings
                        .pointer_file
                        .as_deref()
                        .map(|path| path.display().to_string())
                        .unwrap_or_default(),
                })
            }
        }
        DataFolderSource::Default => match &settings.former_default {
            Some(former) => adopt(former, data_dir, keep_backups).await,
            None => Ok(()),
        },
    }
}

fn holds_ledger(database: &Path) -> bool {
    std::fs::metadata(database).is_ok_and(|metadata| metadata.len() > 0)
}

/// Adopts the ledger in `former` into `current` when `current` has no sessions yet.
pub async fn adopt(former: &Path, current: &Path, keep_backups: usize) -> Result<(), LedgerError> {
    let database = current.join(DATABASE_FILE);
    let ready = with_suffix(&database, ADOPTED_SUFFIX);
    if ready.exists() {
        // Verified before a kill: mark the old folder (again) and put it in place.
        leave_note(former, current)?;
        return put_in_place(&ready, &database).await;
    }
    durable_file::remove_partial(&with_suffix(&database, ADOPTING_SUFFIX))?;
    let former_database = former.join(DATABASE_FILE);
    if former == current || !holds_ledger(&former_database) || former.join(ADOPTED_NOTE).exists() {
        return Ok(());
    }
    let (former_lock, occupancy) = ProcessLock::acquire(former)?;
    if occupancy == Occupancy::Shared {
        return Err(LedgerError::DataFolderInUse {
            folder: former.display().to_string(),
        });
    }
    let former_sessions = session_count(&former_database).await?;
    let current_sessions = if holds_ledger(&database) {
        session_count(&database).await?
    } else {
        0
    };
    match (former_sessions, current_sessions) {
        (0, _) => {
            tracing::info!(former = %former.display(), "the former data folder holds no sessions");
            Ok(())
        }
        (_, 0) => {
            std::fs::create_dir_all(current).map_err(|error| LedgerError::io(current, error))?;
            let (current_lock, occupancy) = ProcessLock::acquire(current)?;
            if occupancy == Occupancy::Shared {
                return Err(LedgerError::DataFolderInUse {
                    folder: current.display().to_string(),
                });
            }
            copy_in(former, current, keep_backups).await?;
            leave_note(former, current)?;
            put_in_place(&ready, &database).await?;
            release(&former_lock, former);
            release(&current_lock, current);
            tracing::info!(
                from = %former.display(),
                to = %current.display(),
                sessions = former_sessions,
                "moved the ledger from the folder earlier versions used; the old copy stays there"
            );
            Ok(())
        }
        (former_sessions, current_sessions) => Err(LedgerError::LedgersInTwoPlaces {
            current: current.display().to_string(),
            current_sessions,
            former: former.display().to_string(),
            former_sessions,
        }),
    }
}

/// Backs the old ledger up in its own folder, then copies it beside the new one and checks it.
async fn copy_in(former: &Path, current: &Path, keep_backups: usize) -> Result<(), LedgerError> {
    let database = current.join(DATABASE_FILE);
    let mut source = SqliteConnectOptions::new()
        .filename(former.join(DATABASE_FILE))
        .connect()
        .await?;
    let outcome = async {
        let applied = schema_upgrade::applied_versions(&mut source).await?;
        let version = applied.iter().copied().max().unwrap_or(0);
        upgrade_backup::write(&mut source, former, version, keep_backups).await?;
        let adopting = with_suffix(&database, ADOPTING_SUFFIX);
        data_folder_move::copy_checked(&mut source, &adopting, |detail| {
            LedgerError::MoveNotVerified {
                target: current.display().to_string(),
                current: former.display().to_string(),
                detail,
            }
        })
        .await?;
        let ready = with_suffix(&database, ADOPTED_SUFFIX);
        durable_file::replace(&adopting, &ready).map_err(|error| LedgerError::io(&ready, error))
    }
    .await;
    if let Err(error) = source.close().await {
        tracing::debug!(%error, "closing the former ledger");
    }
    outcome
}

async fn put_in_place(ready: &Path, database: &Path) -> Result<(), LedgerError> {
    if holds_ledger(database) {
        tracing::info!(
            database = %database.display(),
            "replacing an empty ledger with the one earlier versions kept"
        );
    } else {
        // A zero-length file is no ledger and has no log worth folding in.
        durable_file::remove_if_present(database)?;
    }
    backup_restore::put_in_place(ready, database).await
}

/// A note in the old folder: the sessions went to `current`, and this copy is no longer used.
fn leave_note(former: &Path, current: &Path) -> Result<(), LedgerError> {
    let note = former.join(ADOPTED_NOTE);
    let text = format!(
        "Dossier now keeps your sessions in {}.\n\
         The files in this folder are the copy they were moved from; Dossier no longer uses \
         them. Once you have checked that your sessions are all there, you may delete this \
         folder.\n",
        current.display()
    );
    std::fs::write(&note, text)
        .and_then(|()| durable_file::sync(&note))
        .map_err(|error| LedgerError::io(&note, error))
}

async fn session_count(database: &Path) -> Result<i64, LedgerError> {
    let mut connection = upgrade_backup::read_only(database).await?;
    let has_table: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'session'",
    )
    .fetch_one(&mut connection)
    .await?;
    let count = if has_table > 0 {
        sqlx::query_scalar("SELECT count(*) FROM session")
            .fetch_one(&mut connection)
            .await
    } else {
        Ok(0)
    };
    if let Err(error) = connection.close().await {
        tracing::debug!(%error, "closing a counted ledger");
    }
    Ok(count?)
}

fn release(lock: &ProcessLock, folder: &Path) {
    if let Err(error) = lock.release(folder) {
        tracing::debug!(%error, "letting go of a folder's lock");
    }
}
