//! The MCP floor's handle: the servers' statuses and lifecycle, the settings view's list and
//! form, the Claude Desktop import, and what connected servers offer (resources, prompts, tools
//! with their "Always allow" switches). A feature of Settings → MCP servers edits this file, not
//! the `Ledger` facade.
//!
//! The functions an adapter reaches through the operation table (`operations.rs`) follow its
//! one convention: `async`, ids as `&str`, the body by value, `Result<_, LedgerError>`.

use crate::mcp::claude_desktop_import;
use crate::mcp::mcp_error::McpError;
use crate::mcp::mcp_settings::{self, McpServerInput, McpSettings};
use crate::mcp::server_offers::{McpPromptItem, McpPromptText, McpResourceItem};
use crate::mcp::tool_permissions::{self, McpToolPermission};
use crate::pipeline::runtime::Runtime;
use crate::wire::error::LedgerError;
use crate::wire::mcp_status::{McpStatus, McpStatuses};
use serde::Deserialize;
use std::collections::BTreeMap;
use ts_rs::TS;

/// `Ledger::mcp()`: borrows the runtime whose MCP servers it drives.
pub struct McpHandle<'ledger> {
    pub(crate) runtime: &'ledger Runtime,
}

/// Which server prompt to fetch, and with what (`POST /dossier/mcp/prompt`).
#[derive(Debug, Clone, Deserialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpPromptRequest {
    pub client_name: String,
    pub name: String,
    #[serde(default)]
    #[ts(optional, as = "Option<BTreeMap<String, String>>")]
    pub arguments: BTreeMap<String, String>,
}

/// The "Always allow" switch of one MCP tool (`POST /dossier/mcp/tools/:name`).
#[derive(Debug, Clone, Copy, Deserialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AlwaysAllowChange {
    pub always_allowed: bool,
}

impl McpHandle<'_> {
    /// Every configured MCP server's status, in the config's order (OpenCode's `GET /mcp`).
    pub fn status(&self) -> indexmap::IndexMap<String, McpStatus> {
        self.runtime.mcp_servers.statuses()
    }

    /// `status` as the operation table calls it.
    pub async fn statuses(&self) -> Result<McpStatuses, LedgerError> {
        Ok(McpStatuses(self.status()))
    }

    /// Connects a configured MCP server (OpenCode's `POST /mcp/:name/connect`).
    pub async fn connect(&self, name: &str) -> Result<McpStatus, LedgerError> {
        Ok(self.runtime.mcp_servers.connect(name).await?)
    }

    /// Disconnects an MCP server; its status becomes `disabled` until it is connected again.
    pub async fn disconnect(&self, name: &str) -> Result<McpStatus, LedgerError> {
        Ok(self.runtime.mcp_servers.disconnect(name).await?)
    }

    pub async fn restart(&self, name: &str) -> Result<McpStatus, LedgerError> {
        Ok(self.runtime.mcp_servers.restart(name).await?)
    }

    /// The settings view's MCP servers (value names only, never a secret).
    pub async fn settings(&self) -> Result<McpSettings, LedgerError> {
        mcp_settings::mcp_settings(&self.runtime.settings)
    }

    /// Adds or changes an MCP server in the config file; the servers follow at once.
    pub async fn save_server(&self, input: McpServerInput) -> Result<McpSettings, LedgerError> {
        let runtime = self.runtime;
        mcp_settings::save_servers(&runtime.settings, &runtime.mcp_servers, vec![input]).await
    }

    pub async fn remove_server(&self, name: &str) -> Result<McpSettings, LedgerError> {
        let runtime = self.runtime;
        mcp_settings::remove_server(&runtime.settings, &runtime.mcp_servers, name).await
    }

    /// Adds the servers of a Claude Desktop `claude_desktop_config.json` (its text).
    pub async fn import_claude_desktop(&self, text: &str) -> Result<McpSettings, LedgerError> {
        let servers = claude_desktop_import::parse(text).map_err(McpError::from)?;
        let runtime = self.runtime;
        mcp_settings::save_servers(&runtime.settings, &runtime.mcp_servers, servers).await
    }

    /// The same, from a file the open dialog chose.
    pub async fn import_claude_desktop_file(
        &self,
        path: &std::path::Path,
    ) -> Result<McpSettings, LedgerError> {
        let text = tokio::fs::read_to_string(path)
            .await
            .map_err(|error| LedgerError::File {
                path: path.display().to_string(),
                reason: error.to_string(),
            })?;
        self.import_claude_desktop(&text).await
    }

    /// Connected servers' resources, for the composer's attach menu. A server that fails to
    /// list them is left out (logged), so this never fails.
    pub async fn resources(&self) -> Result<Vec<McpResourceItem>, LedgerError> {
        Ok(self.runtime.mcp_servers.resources().await)
    }

    /// Connected servers' prompts, for the composer's `/` menu (never fails, as `resources`).
    pub async fn prompts(&self) -> Result<Vec<McpPromptItem>, LedgerError> {
        Ok(self.runtime.mcp_servers.prompts().await)
    }

    /// A server's prompt fetched with its arguments, as the text that goes into the message.
    pub async fn prompt_text(
        &self,
        request: McpPromptRequest,
    ) -> Result<McpPromptText, LedgerError> {
        Ok(self
            .runtime
            .mcp_servers
            .prompt_text(
                &request.client_name,
                &request.name,
                request.arguments.into_iter().collect(),
            )
            .await?)
    }

    /// Connected servers' tools with their "Always allow" switches (Settings → MCP).
    pub async fn tool_permissions(&self) -> Result<Vec<McpToolPermission>, LedgerError> {
        let runtime = self.runtime;
        Ok(tool_permissions::tool_permissions(
            &runtime.settings,
            &runtime.mcp_servers,
        ))
    }

    /// Turns "Always allow" for the MCP tool `name` on or off in the config file; the next call
    /// of the tool follows it.
    pub async fn set_tool_always_allowed(
        &self,
        name: &str,
        change: AlwaysAllowChange,
    ) -> Result<Vec<McpToolPermission>, LedgerError> {
        let runtime = self.runtime;
        tool_permissions::set_always_allowed(
            &runtime.settings,
            &runtime.mcp_servers,
            name,
            change.always_allowed,
        )
        .await
    }
}
