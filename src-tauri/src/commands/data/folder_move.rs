//! Settings → Data, "Move data folder…": the folder dialog (or, under the end-to-end test, the
//! folder `DOSSIER_E2E_DIALOG_PATH` names), then the core's move, on the async runtime and off
//! the webview's path (the section shows a progress bar until it returns). The moved ledger is
//! closed, so the app restarts cleanly to open it from its new folder rather than swapping the
//! ledger under the running window; after the restart the section asks whether to remove the
//! old copy.

use super::DialogAnswer;
use crate::error::ShellError;
use dossier_core::store::data_folder::data_folder_move::{DataFolderMoved, PreviousFolderRemoved};
use dossier_core::Ledger;
use serde::Serialize;
use std::path::Path;
use tauri::{AppHandle, Runtime, State};
use ts_rs::TS;

/// Where the data folder went, or that the person closed the dialog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum FolderMoveOutcome {
    Moved {
        folder: String,
        #[serde(rename = "previousFolder")]
        previous_folder: String,
        #[ts(type = "number")]
        sessions: i64,
    },
    Cancelled,
}

/// "Move data folder…": asks for the folder, moves the ledger there, then restarts the app on it.
#[tauri::command]
pub async fn move_data_folder<R: Runtime>(
    app: AppHandle<R>,
    ledger: State<'_, Ledger>,
    answer: State<'_, DialogAnswer>,
) -> Result<FolderMoveOutcome, ShellError> {
    let picked = match &answer.0 {
        Some(path) => Some(path.clone()),
        None => rfd::AsyncFileDialog::new()
            .set_title("Move Dossier's data to…")
            .pick_folder()
            .await
            .map(|handle| handle.path().to_path_buf()),
    };
    let Some(folder) = picked else {
        return Ok(FolderMoveOutcome::Cancelled);
    };
    let outcome = move_to(&ledger, &folder).await?;
    if answer.0.is_some() {
        // Under the end-to-end test WebDriver starts the app again; a process restarted by
        // itself would be out of its reach.
        tracing::info!("exiting so the test starts the app on the moved ledger");
        app.exit(0);
    } else {
        tracing::info!("restarting to open the moved ledger");
        app.request_restart();
    }
    Ok(outcome)
}

pub async fn move_to(ledger: &Ledger, folder: &Path) -> Result<FolderMoveOutcome, ShellError> {
    let DataFolderMoved {
        folder,
        previous_folder,
        sessions,
    } = ledger.data().move_data_folder(folder).await?;
    Ok(FolderMoveOutcome::Moved {
        folder,
        previous_folder,
        sessions,
    })
}

/// "Remove the old copy", once the person confirmed: only the files Dossier made there.
#[tauri::command]
pub fn remove_previous_data_folder(
    ledger: State<'_, Ledger>,
) -> Result<PreviousFolderRemoved, ShellError> {
    Ok(ledger.data().remove_previous_data_folder()?)
}

/// "Keep it": the old copy stays, and the section stops asking.
#[tauri::command]
pub fn keep_previous_data_folder(ledger: State<'_, Ledger>) -> Result<(), ShellError> {
    Ok(ledger.data().keep_previous_data_folder()?)
}

#[cfg(test)]
mod tests;
