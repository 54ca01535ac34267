//! MCP servers for the webview: "Import from Claude Desktop…" (the open dialog here; the core
//! reads and checks the file). Status, connect, disconnect and restart, the settings view's
//! list, save and remove, the composer's resources and prompts and the tools' "Always allow"
//! switches are declared operations (`declared_operations.rs`).

use crate::error::ShellError;
use dossier_core::mcp::mcp_settings::McpSettings;
use dossier_core::Ledger;
use tauri::State;

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
