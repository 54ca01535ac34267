//! MCP servers over HTTP. OpenCode's routes: `GET /mcp` (every configured server's status, in
//! the config's order: `{"name": {"status": "connected"}, …}`, with Dossier's counts and stderr
//! lines besides), `POST /mcp/:name/connect` and `POST /mcp/:name/disconnect` (each answering
//! `true`). Dossier's own, under `/dossier/mcp`: restart, the settings view's list, save and
//! remove, the Claude Desktop import (the file's text in the body: a browser has no path), and
//! the composer's resources and prompts, the tools' "Always allow" switches.

use crate::error::ServerResult;
use crate::request_body::JsonBody;
use axum::extract::{Path, State};
use axum::response::IntoResponse;
use axum::Json;
use dossier_core::mcp::mcp_settings::{McpServerInput, McpSettings};
use dossier_core::mcp::server_offers::{McpPromptItem, McpPromptText, McpResourceItem};
use dossier_core::mcp::tool_permissions::McpToolPermission;
use dossier_core::Ledger;
use serde::Deserialize;
use std::collections::BTreeMap;

pub async fn status(State(ledger): State<Ledger>) -> impl IntoResponse {
    Json(ledger.mcp_status())
}

pub async fn connect(
    State(ledger): State<Ledger>,
    Path(name): Path<String>,
) -> ServerResult<Json<bool>> {
    ledger.connect_mcp(&name).await?;
    Ok(Json(true))
}

pub async fn disconnect(
    State(ledger): State<Ledger>,
    Path(name): Path<String>,
) -> ServerResult<Json<bool>> {
    ledger.disconnect_mcp(&name).await?;
    Ok(Json(true))
}

pub async fn restart(
    State(ledger): State<Ledger>,
    Path(name): Path<String>,
) -> ServerResult<Json<bool>> {
    ledger.restart_mcp(&name).await?;
    Ok(Json(true))
}

pub async fn settings(State(ledger): State<Ledger>) -> ServerResult<Json<McpSettings>> {
    Ok(Json(ledger.mcp_settings()?))
}

pub async fn save(State(ledger): State<Ledger>, body: JsonBody) -> ServerResult<Json<McpSettings>> {
    let input: McpServerInput = body.parse_or_default()?;
    Ok(Json(ledger.save_mcp_server(input).await?))
}

pub async fn remove(
    State(ledger): State<Ledger>,
    Path(name): Path<String>,
) -> ServerResult<Json<McpSettings>> {
    Ok(Json(ledger.remove_mcp_server(&name).await?))
}

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
    Ok(Json(ledger.import_claude_desktop(&body.text).await?))
}

pub async fn resources(State(ledger): State<Ledger>) -> Json<Vec<McpResourceItem>> {
    Json(ledger.mcp_resources().await)
}

pub async fn prompts(State(ledger): State<Ledger>) -> Json<Vec<McpPromptItem>> {
    Json(ledger.mcp_prompts().await)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromptBody {
    client_name: String,
    name: String,
    #[serde(default)]
    arguments: BTreeMap<String, String>,
}

pub async fn prompt_text(
    State(ledger): State<Ledger>,
    body: JsonBody,
) -> ServerResult<Json<McpPromptText>> {
    let body: PromptBody = body.parse_or_default()?;
    Ok(Json(
        ledger
            .mcp_prompt_text(
                &body.client_name,
                &body.name,
                body.arguments.into_iter().collect(),
            )
            .await?,
    ))
}

pub async fn tool_permissions(State(ledger): State<Ledger>) -> Json<Vec<McpToolPermission>> {
    Json(ledger.mcp_tool_permissions())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AlwaysAllowBody {
    always_allowed: bool,
}

pub async fn set_tool_always_allowed(
    State(ledger): State<Ledger>,
    Path(name): Path<String>,
    body: JsonBody,
) -> ServerResult<Json<Vec<McpToolPermission>>> {
    let body: AlwaysAllowBody = body.parse_or_default()?;
    Ok(Json(
        ledger
            .set_mcp_tool_always_allowed(&name, body.always_allowed)
            .await?,
    ))
}
