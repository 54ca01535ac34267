//! Settings → "Connect to a Dossier server", and the relay the webview's HTTP backend uses while
//! attached (`attached_server`). Thin: each command calls one method and returns.

use crate::attached_server::connection_check::ServerCheck;
use crate::attached_server::request_relay::{RelayedRequest, RelayedResponse};
use crate::attached_server::{AttachedServer, LedgerInUse};
use crate::error::ShellError;
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
