//! MCP servers for the webview: status, connect / disconnect / restart, the settings view's
//! list, save and remove, "Import from Claude Desktop…" (the open dialog here; the core reads
//! and checks the file), and the composer's resources and prompts, the tools' "Always allow" switches. Each hands the call to the
//! ledger.

use crate::error::ShellError;
use dossier_core::mcp::mcp_settings::{McpServerInput, McpSettings};
use dossier_core::mcp::server_offers::{McpPromptItem, McpPromptText, McpResourceItem};
use dossier_core::mcp::tool_permissions::McpToolPermission;
use dossier_core::wire::mcp_status::McpStatus;
use dossier_core::Ledger;
use std::collections::BTreeMap;
use tauri::State;

/// Every configured server's status, in the config's order (as `GET /mcp`).
#[tauri::command]
pub fn mcp_status(ledger: State<'_, Ledger>) -> Vec<(String, McpStatus)> {
    ledger.mcp_status().into_iter().collect()
}

#[tauri::command]
pub async fn connect_mcp(ledger: State<'_, Ledger>, name: String) -> Result<McpStatus, ShellError> {
    Ok(ledger.connect_mcp(&name).await?)
}

#[tauri::command]
pub async fn disconnect_mcp(
    ledger: State<'_, Ledger>,
    name: String,
) -> Result<McpStatus, ShellError> {
    Ok(ledger.disconnect_mcp(&name).await?)
}

#[tauri::command]
pub async fn restart_mcp(ledger: State<'_, Ledger>, name: String) -> Result<McpStatus, ShellError> {
    Ok(ledger.restart_mcp(&name).await?)
}

#[tauri::command]
pub fn mcp_settings(ledger: State<'_, Ledger>) -> Result<McpSettings, ShellError> {
    Ok(ledger.mcp_settings()?)
}

#[tauri::command]
pub async fn save_mcp_server(
    ledger: State<'_, Ledger>,
    input: McpServerInput,
) -> Result<McpSettings, ShellError> {
    Ok(ledger.save_mcp_server(input).await?)
}

#[tauri::command]
pub async fn remove_mcp_server(
    ledger: State<'_, Ledger>,
    name: String,
) -> Result<McpSettings, ShellError> {
    Ok(ledger.remove_mcp_server(&name).await?)
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
        ledger.import_claude_desktop_file(handle.path()).await?,
    ))
}

#[tauri::command]
pub async fn mcp_resources(ledger: State<'_, Ledger>) -> Result<Vec<McpResourceItem>, ShellError> {
    Ok(ledger.mcp_resources().await)
}

#[tauri::command]
pub async fn mcp_prompts(ledger: State<'_, Ledger>) -> Result<Vec<McpPromptItem>, ShellError> {
    Ok(ledger.mcp_prompts().await)
}

#[tauri::command]
pub async fn mcp_prompt_text(
    ledger: State<'_, Ledger>,
    client_name: String,
    name: String,
    arguments: BTreeMap<String, String>,
) -> Result<McpPromptText, ShellError> {
    Ok(ledger
        .mcp_prompt_text(&client_name, &name, arguments.into_iter().collect())
        .await?)
}

#[tauri::command]
pub fn mcp_tool_permissions(ledger: State<'_, Ledger>) -> Vec<McpToolPermission> {
    ledger.mcp_tool_permissions()
}

#[tauri::command]
pub async fn set_mcp_tool_always_allowed(
    ledger: State<'_, Ledger>,
    name: String,
    allowed: bool,
) -> Result<Vec<McpToolPermission>, ShellError> {
    Ok(ledger.set_mcp_tool_always_allowed(&name, allowed).await?)
}
