//! MCP servers over HTTP. OpenCode's routes: `GET /mcp` (every configured server's status, in
//! the config's order: `{"name": {"status": "connected"}, …}`, with Dossier's counts and stderr
//! lines besides), `POST /mcp/:name/connect` and `POST /mcp/:name/disconnect` (each answering
//! `true`). Dossier's own, under `/dossier/mcp`: restart and the Claude Desktop import (the
//! file's text in the body: a browser has no path). The settings view's list, save and remove,
//! the composer's resources and prompts and the tools' "Always allow" switches are declared
//! operations (`declared_routes.rs`).

use crate::error::ServerResult;
use crate::request_body::JsonBody;
use axum::extract::{Path, State};
use axum::response::IntoResponse;
use axum::Json;
use dossier_core::mcp::mcp_settings::McpSettings;
use dossier_core::Ledger;
use serde::Deserialize;

pub async fn status(State(ledger): State<Ledger>) -> impl IntoResponse {
    Json(ledger.mcp().status())
}

pub async fn connect(
    State(ledger): State<Ledger>,
    Path(name): Path<String>,
) -> ServerResult<Json<bool>> {
    ledger.mcp().connect(&name).await?;
    Ok(Json(true))
}

pub async fn disconnect(
    State(ledger): State<Ledger>,
    Path(name): Path<String>,
) -> ServerResult<Json<bool>> {
    ledger.mcp().disconnect(&name).await?;
    Ok(Json(true))
}

pub async fn restart(
    State(ledger): State<Ledger>,
    Path(name): Path<String>,
) -> ServerResult<Json<bool>> {
    ledger.mcp().restart(&name).await?;
    Ok(Json(true))
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
    Ok(Json(ledger.mcp().import_claude_desktop(&body.text).await?))
}
