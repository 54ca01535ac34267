//! The start-up page's commands (`start_up_problem`): what it shows, "Open read-only", "Restore
//! the newest good backup", "Open data folder" and "Quit"; and, once a ledger is open, whether it
//! is read-only (the window's banner).

use crate::error::ShellError;
use crate::link_opening::SystemOpener;
use crate::start_up_problem::{ProblemKind, StartUp, StartUpProblem};
use dossier_core::store::sqlite::read_only_open::ReadOnlyLedger;
use dossier_core::Ledger;
use serde::Serialize;
use std::path::Path;
use tauri::{AppHandle, Manager, Runtime, State};
use ts_rs::TS;

/// What the webview asks before it shows anything: the page, or the app (read-only or not).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(rename_all = "camelCase")]
pub struct StartUpState {
    pub problem: Option<StartUpProblem>,
    pub read_only: Option<ReadOnlyLedger>,
}

#[tauri::command]
pub fn start_up_state<R: Runtime>(app: AppHandle<R>) -> StartUpState {
    StartUpState {
        problem: app
            .try_state::<StartUp>()
            .and_then(|start_up| start_up.problem()),
        read_only: app
            .try_state::<Ledger>()
            .and_then(|ledger| ledger.read_only().cloned()),
    }
}

/// "Open read-only", offered for a database a newer Dossier wrote: opens it without writing
/// anything (`LedgerOptions::read_only`) and hands it to every other command.
#[tauri::command]
pub async fn open_read_only<R: Runtime>(
    app: AppHandle<R>,
    start_up: State<'_, StartUp>,
) -> Result<ReadOnlyLedger, ShellError> {
    if let Some(ledger) = app.try_state::<Ledger>() {
        // A second click, or a ledger that opened normally: nothing to open.
        return ledger
            .read_only()
            .cloned()
            .ok_or_else(|| ShellError::ReadOnlyNotOffered {
                reason: "your saved sessions are already open".into(),
            });
    }
    match start_up.problem() {
        Some(problem) if problem.kind == ProblemKind::NewerDatabase => {}
        Some(problem) => {
            return Err(ShellError::ReadOnlyNotOffered {
                reason: problem.message,
            })
        }
        None => {
            return Err(ShellError::ReadOnlyNotOffered {
                reason: "there is no start-up problem to get round".into(),
            })
        }
    }
    let mut options = start_up.options();
    options.read_only = true;
    let ledger = dossier_core::start_up::open(options).await?;
    let read_only = ledger
        .read_only()
        .cloned()
        .ok_or_else(|| ShellError::ReadOnlyNotOffered {
            reason: "the ledger did not open read-only".into(),
        })?;
    if app.manage(ledger.clone()) {
        crate::events::spawn_forwarding(app.clone(), &ledger);
    } else {
        // Another call managed one first; this one lets go of the folder again.
        ledger.close().await;
    }
    start_up.solved();
    tracing::info!(made_by = ?read_only.made_by, "opened the ledger read-only");
    Ok(read_only)
}

/// "Restore the newest good backup", offered for a damaged database when the core named a good
/// backup (`safe_copy`; the webview sends no path): puts that backup in place through the
/// restore's checked copy, the damaged file kept in `damaged/`, opens the ledger and hands it
/// to every other command — the window goes on to the app, no restart needed.
#[tauri::command]
pub async fn restore_newest_backup<R: Runtime>(
    app: AppHandle<R>,
    start_up: State<'_, StartUp>,
) -> Result<(), ShellError> {
    let not_offered = |reason: &str| ShellError::RestoreNotOffered {
        reason: reason.into(),
    };
    if app.try_state::<Ledger>().is_some() {
        return Err(not_offered("your saved sessions are already open"));
    }
    let Some(_claim) = start_up.begin_restore() else {
        return Err(not_offered("a restore is already under way"));
    };
    let backup = match start_up.problem() {
        Some(StartUpProblem {
            kind: ProblemKind::DamagedDatabase,
            safe_copy: Some(backup),
            ..
        }) => backup,
        Some(problem) => return Err(not_offered(&problem.message)),
        None => return Err(not_offered("there is no start-up problem to get round")),
    };
    let ledger =
        dossier_core::start_up::restore_damaged(start_up.options(), Path::new(&backup)).await?;
    if app.manage(ledger.clone()) {
        crate::events::spawn_forwarding(app.clone(), &ledger);
    } else {
        ledger.close().await;
    }
    start_up.solved();
    tracing::info!(%backup, "restored the newest good backup over a damaged ledger");
    Ok(())
}

/// "Open data folder" on the start-up page: the folder that was refused, in the file manager
/// (never a file in it).
#[tauri::command]
pub async fn open_start_up_data_folder(
    opener: State<'_, SystemOpener>,
    start_up: State<'_, StartUp>,
) -> Result<(), ShellError> {
    opener
        .open_folder(&start_up.options().locations.data_dir)
        .await
}

/// "Quit" on the start-up page.
#[tauri::command]
pub fn quit_dossier<R: Runtime>(app: AppHandle<R>) {
    tracing::info!("quitting from the start-up page");
    app.exit(0);
}

#[cfg(test)]
mod tests;
