//! Commands that move a session in or out of the app: export through the save dialog, import
//! through the open dialog. Each is a thin adapter over one core method. Fork, undo (revert),
//! redo (unrevert), edit and resend and regenerate are declared operations
//! (`declared_operations.rs`).
//!
//! Export and import take no path from the webview: the path always comes from a native dialog
//! the person answered, so a compromised page cannot make the shell write or read a file of its
//! choosing.

use crate::error::ShellError;
pub use dossier_attached_client::export_format::{export_file_name, ExportFormat};
use dossier_core::wire::session::Session;
use dossier_core::Ledger;
use serde::Serialize;
use std::path::Path;
use tauri::State;
use ts_rs::TS;

/// Where an export went, or that the person closed the dialog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum ExportOutcome {
    Saved { path: String },
    Cancelled,
}

/// Asks where to save, then writes the export there.
#[tauri::command]
pub async fn export_session(
    ledger: State<'_, Ledger>,
    session_id: String,
    format: ExportFormat,
) -> Result<ExportOutcome, ShellError> {
    let session = ledger.sessions().get(&session_id).await?;
    let chosen = rfd::AsyncFileDialog::new()
        .set_file_name(export_file_name(&session.title, format))
        .add_filter(format.extension(), &[format.extension()])
        .save_file()
        .await;
    let Some(handle) = chosen else {
        return Ok(ExportOutcome::Cancelled);
    };
    write_export(&ledger, &session_id, format, handle.path()).await?;
    Ok(ExportOutcome::Saved {
        path: handle.path().display().to_string(),
    })
}

/// Asks for a Dossier or `opencode export` JSON file and imports it as a new session;
/// `None` when the person closed the dialog.
#[tauri::command]
pub async fn import_session(ledger: State<'_, Ledger>) -> Result<Option<Session>, ShellError> {
    let chosen = rfd::AsyncFileDialog::new()
        .add_filter("json", &["json"])
        .pick_file()
        .await;
    let Some(handle) = chosen else {
        return Ok(None);
    };
    Ok(Some(import_from(&ledger, handle.path()).await?))
}

/// Writes the export to the path the person chose (the core writes it whole or not at all).
pub async fn write_export(
    ledger: &Ledger,
    session_id: &str,
    format: ExportFormat,
    path: &Path,
) -> Result<(), ShellError> {
    Ok(ledger
        .reshaping()
        .write_export(session_id, format.kind(), path)
        .await?)
}

/// Imports the file the person chose (the core checks its size and shape).
pub async fn import_from(ledger: &Ledger, path: &Path) -> Result<Session, ShellError> {
    Ok(ledger.reshaping().import_file(path).await?)
}

#[cfg(test)]
mod tests;
