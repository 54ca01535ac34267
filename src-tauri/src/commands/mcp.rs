//! MCP servers for the webview: status, connect / disconnect / restart and "Import from Claude
//! Desktop…" (the open dialog here; the core reads and checks the file). Each hands the call to
//! the ledger. The settings view's list, save and remove, the composer's resources and prompts
//! and the tools' "Always allow" switches are declared operations (`declared_operations.rs`).

use crate::error::ShellError;
use dossier_core::mcp::mcp_settings::McpSettings;
use dossier_core::wire::mcp_status::McpStatus;
use dossier_core::Ledger;
use tauri::State;

/// Every configured server's status, in the config's order (as `GET /mcp`).
#[tauri::command]
pub fn mcp_status(ledger: State<'_, Ledger>) -> Vec<(String, McpStatus)> {
    ledger.mcp().status().into_iter().collect()
}

#[tauri::command]
pub async fn connect_mcp(ledger: State<'_, Ledger>, name: String) -> Result<McpStatus, ShellError> {
    Ok(ledger.mcp().connect(&name).await?)
}

#[tauri::command]
pub async fn disconnect_mcp(
    ledger: State<'_, Ledger>,
    name: String,
) -> Result<McpStatus, ShellError> {
    Ok(ledger.mcp().disconnect(&name).await?)
}

#[tauri::command]
pub async fn restart_mcp(ledger: State<'_, Ledger>, name: String) -> Result<McpStatus, ShellError> {
    Ok(ledger.mcp().restart(&name).await?)
}

/// Asks for Claude Desktop's `claude_desktop_config.json` and adds its servers; `None` when the
/// person closed the dialog.
#[tauri::command]
pub async fn import_claude_desktop(
    ledger: State<'_, Ledger>,
) -> Result<Option<McpSettings>, ShellError> {
    let chosen = rfd::AsyncFileDialog::new()
        .add_filter("json", &["json"])
        .pick_file()
        .await;
    let Some(handle) = chosen else {
        return Ok(None);
    };
    Ok(Some(
        ledger
            .mcp()
            .import_claude_desktop_file(handle.path())
            .await?,
    ))
}
