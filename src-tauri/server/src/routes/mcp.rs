//! `GET /mcp`: every configured MCP server's status, in the config's order, as OpenCode answers
//! it (`{"name": {"status": "connected"}, …}`, with Dossier's counts and stderr lines besides).

use axum::extract::State;
use axum::response::IntoResponse;
use axum::Json;
use dossier_core::Ledger;

pub async fn status(State(ledger): State<Ledger>) -> impl IntoResponse {
    Json(ledger.mcp_status())
}
