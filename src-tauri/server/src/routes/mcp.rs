//! MCP servers over HTTP, the route the table does not declare: the Claude Desktop import (the
//! file's text in the body: a browser has no path; the desktop's open dialog reads the file in
//! the shell instead). OpenCode's `GET /mcp`, connect and disconnect, Dossier's restart, the
//! settings view's list, save and remove, the composer's resources and prompts and the tools'
//! "Always allow" switches are declared operations (`declared_routes.rs`).

use crate::error::ServerResult;
use crate::request_body::JsonBody;
use axum::extract::State;
use axum::Json;
use dossier_core::mcp::mcp_settings::McpSettings;
use dossier_core::Ledger;
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportBody {
    text: String,
}

pub async fn import_claude_desktop(
    State(ledger): State<Ledger>,
    body: JsonBody,
) -> ServerResult<Json<McpSettings>> {
    let body: ImportBody = body.parse_or_default()?;
    Ok(Json(ledger.mcp().import_claude_desktop(&body.text).await?))
}
