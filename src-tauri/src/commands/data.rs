//! Settings → Data: "Back up now", "Restore from a backup…", the automatic backups and "Open data
//! folder". Each command asks the native dialog for a path (or, under the end-to-end test, takes
//! the path `DOSSIER_E2E_DIALOG_PATH` names, since WebDriver cannot click a native dialog), calls
//! one core function and returns. The webview never sends a path: a restore uses the file the
//! dialog chose, kept here between "choose" and "confirm".

use crate::error::ShellError;
use crate::link_opening::SystemOpener;
use dossier_core::store::sqlite::upgrade_backup::BackupFile;
use dossier_core::Ledger;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use tauri::{AppHandle, Runtime, State};
use ts_rs::TS;

/// The end-to-end test's answer to every file dialog, read once at start-up; `None` in a normal run.
pub struct DialogAnswer(pub Option<PathBuf>);

impl DialogAnswer {
    pub fn from_env() -> Self {
        Self(std::env::var_os("DOSSIER_E2E_DIALOG_PATH").map(PathBuf::from))
    }
}

/// The backup the person chose to restore from, until they confirm or choose again.
#[derive(Default)]
pub struct ChosenBackup(Mutex<Option<PathBuf>>);

/// What Settings → Data shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(rename_all = "camelCase")]
pub struct DataOverview {
    pub data_folder: String,
    /// What decided the folder, whether it can be moved, and an old copy a move left.
    pub location: dossier_core::ledger::DataFolder,
    /// The automatic backups (before each schema change and each restore), newest first.
    pub backups: Vec<BackupFile>,
    /// A restore was staged but is not in place yet: another process (dossier-server, say) had
    /// the data folder open when the app started. The section says so.
    pub restore_waiting: bool,
}

/// Where a backup went, or that the person closed the dialog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum BackupOutcome {
    Saved { path: String },
    Cancelled,
}

/// A backup the person chose, checked, waiting for their confirmation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum ChosenRestore {
    Chosen { path: String, sessions: u32 },
    Cancelled,
}

#[tauri::command]
pub fn data_overview(ledger: State<'_, Ledger>) -> Result<DataOverview, ShellError> {
    Ok(DataOverview {
        data_folder: ledger.store().data_dir().display().to_string(),
        location: ledger.data().data_folder()?,
        backups: ledger.data().automatic_backups()?,
        restore_waiting: ledger.data().restore_waiting(),
    })
}

/// "Back up now": asks where, then writes the backup there. It runs on the async runtime, off the
/// webview's path; the section shows its progress bar until this returns.
#[tauri::command]
pub async fn back_up_now(
    ledger: State<'_, Ledger>,
    answer: State<'_, DialogAnswer>,
) -> Result<BackupOutcome, ShellError> {
    let chosen = match &answer.0 {
        Some(path) => Some(path.clone()),
        None => rfd::AsyncFileDialog::new()
            .set_file_name(backup_file_name(time::OffsetDateTime::now_utc().date()))
            .add_filter("Dossier backup", &["db"])
            .save_file()
            .await
            .map(|handle| handle.path().to_path_buf()),
    };
    let Some(path) = chosen else {
        return Ok(BackupOutcome::Cancelled);
    };
    back_up_to(&ledger, &path).await
}

pub async fn back_up_to(ledger: &Ledger, path: &Path) -> Result<BackupOutcome, ShellError> {
    ledger.data().back_up_to(path).await?;
    Ok(BackupOutcome::Saved {
        path: path.display().to_string(),
    })
}

/// `dossier-backup-2026-12-01.db`: what the save dialog suggests.
pub fn backup_file_name(day: time::Date) -> String {
    format!("dossier-backup-{day}.db")
}

/// "Restore from a backup…", step one: asks for the file and checks it (every refusal happens
/// here, changing nothing); the section then asks the person to confirm.
#[tauri::command]
pub async fn choose_backup(
    ledger: State<'_, Ledger>,
    answer: State<'_, DialogAnswer>,
    chosen: State<'_, ChosenBackup>,
) -> Result<ChosenRestore, ShellError> {
    let picked = match &answer.0 {
        Some(path) => Some(path.clone()),
        None => rfd::AsyncFileDialog::new()
            .add_filter("Dossier backup", &["db"])
            .pick_file()
            .await
            .map(|handle| handle.path().to_path_buf()),
    };
    let Some(path) = picked else {
        return Ok(ChosenRestore::Cancelled);
    };
    check_chosen(&ledger, &chosen, path).await
}

pub async fn check_chosen(
    ledger: &Ledger,
    chosen: &ChosenBackup,
    path: PathBuf,
) -> Result<ChosenRestore, ShellError> {
    remember(chosen, None);
    let summary = ledger.data().inspect_backup(&path).await?;
    let shown = path.display().to_string();
    remember(chosen, Some(path));
    Ok(ChosenRestore::Chosen {
        path: shown,
        sessions: u32::try_from(summary.sessions).unwrap_or(u32::MAX),
    })
}

fn remember(chosen: &ChosenBackup, path: Option<PathBuf>) {
    // A poisoned lock only means an earlier call panicked; the value is still a plain path.
    let mut slot = chosen
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    *slot = path;
}

/// "Restore from a backup…", step two, once the person confirmed: backs up the ledger in use,
/// stages the chosen backup, closes the ledger and restarts, so the restored sessions are what
/// the window shows when it opens again.
#[tauri::command]
pub async fn restore_chosen_backup<R: Runtime>(
    app: AppHandle<R>,
    ledger: State<'_, Ledger>,
    answer: State<'_, DialogAnswer>,
    chosen: State<'_, ChosenBackup>,
) -> Result<(), ShellError> {
    restore_chosen(&ledger, &chosen).await?;
    if answer.0.is_some() {
        // Under the end-to-end test WebDriver starts the app again; a process restarted by
        // itself would be out of its reach.
        tracing::info!("exiting so the test starts the app on the restored ledger");
        app.exit(0);
    } else {
        tracing::info!("restarting to open the restored ledger");
        app.request_restart();
    }
    Ok(())
}

pub async fn restore_chosen(ledger: &Ledger, chosen: &ChosenBackup) -> Result<(), ShellError> {
    let path = chosen
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take()
        .ok_or(ShellError::NoBackupChosen)?;
    ledger.data().restore_from(&path).await?;
    Ok(())
}

/// "Open data folder": the folder in the system's file manager (never a file in it).
#[tauri::command]
pub async fn open_data_folder(
    opener: State<'_, SystemOpener>,
    ledger: State<'_, Ledger>,
) -> Result<(), ShellError> {
    opener.open_folder(ledger.store().data_dir()).await
}

pub mod folder_move;

#[cfg(test)]
mod tests;
