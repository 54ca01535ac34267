//! Settings → "Connect to a Dossier server", and the relay the webview's HTTP backend uses while
//! attached (`attached_server`). Thin: each command calls one method and returns.

use crate::attached_server::connection_check::ServerCheck;
use crate::attached_server::request_relay::{RelayedRequest, RelayedResponse};
use crate::attached_server::session_copy::{self, CopyReport};
use crate::attached_server::{server_export, AttachedServer, LedgerInUse};
use crate::commands::data::DialogAnswer;
use crate::commands::reshaping::{ExportFormat, ExportOutcome};
use crate::error::ShellError;
use dossier_core::Ledger;
use tauri::{AppHandle, Runtime, State};

/// Which ledger the window shows: this computer's, or a server's.
#[tauri::command]
pub fn ledger_in_use(attached: State<'_, AttachedServer>) -> LedgerInUse {
    attached.ledger_in_use()
}

/// "Test connection": nothing is saved.
#[tauri::command]
pub async fn test_server_connection(
    attached: State<'_, AttachedServer>,
    url: String,
    token: String,
) -> Result<ServerCheck, ShellError> {
    attached.test(&url, &token).await
}

/// "Connect": the token to the keychain, the address to the settings, then the relay starts.
/// The webview reloads to use it.
#[tauri::command]
pub async fn connect_to_server<R: Runtime>(
    app: AppHandle<R>,
    attached: State<'_, AttachedServer>,
    url: String,
    token: String,
) -> Result<LedgerInUse, ShellError> {
    attached.connect(&app, &url, &token).await
}

/// "Use this computer's ledger".
#[tauri::command]
pub async fn use_local_ledger(
    attached: State<'_, AttachedServer>,
) -> Result<LedgerInUse, ShellError> {
    attached.use_local().await
}

/// Export while attached: the server's file, saved where the person chooses (the end-to-end
/// test's dialog answer, when set).
#[tauri::command]
pub async fn export_from_server(
    attached: State<'_, AttachedServer>,
    answer: State<'_, DialogAnswer>,
    session_id: String,
    format: ExportFormat,
) -> Result<ExportOutcome, ShellError> {
    let response = attached
        .relay(server_export::export_request(&session_id, format))
        .await?;
    let (name, contents) = server_export::exported_file(response, &session_id, format)?;
    let chosen = match &answer.0 {
        Some(path) => Some(path.clone()),
        None => rfd::AsyncFileDialog::new()
            .set_file_name(&name)
            .add_filter(format.extension(), &[format.extension()])
            .save_file()
            .await
            .map(|handle| handle.path().to_path_buf()),
    };
    let Some(path) = chosen else {
        return Ok(ExportOutcome::Cancelled);
    };
    tokio::fs::write(&path, contents)
        .await
        .map_err(|error| ShellError::File {
            path: path.display().to_string(),
            reason: error.to_string(),
        })?;
    Ok(ExportOutcome::Saved {
        path: path.display().to_string(),
    })
}

/// "Copy my local sessions to the server": what was copied, and each session that was not.
#[tauri::command]
pub async fn copy_local_sessions(
    ledger: State<'_, Ledger>,
    attached: State<'_, AttachedServer>,
) -> Result<CopyReport, ShellError> {
    session_copy::copy_local_sessions(&ledger, &attached).await
}

/// One request of the webview's HTTP backend, forwarded with the token.
#[tauri::command]
pub async fn relay_request(
    attached: State<'_, AttachedServer>,
    request: RelayedRequest,
) -> Result<RelayedResponse, ShellError> {
    attached.relay(request).await
}

#[cfg(test)]
mod tests;
