//! Reshaping a session over HTTP only: OpenCode's summarize. Fork, revert, unrevert, edit and
//! resend and regenerate are declared operations (`declared_routes.rs`).

use crate::error::ServerResult;
use crate::ledger_writes::LedgerWrites;
use crate::request_body::JsonBody;
use axum::extract::{Path, State};
use axum::Json;
use dossier_core::wire::message::ModelRef;
use dossier_core::Ledger;
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SummarizeBody {
    #[serde(rename = "providerID")]
    provider_id: String,
    #[serde(rename = "modelID")]
    model_id: String,
    #[serde(default)]
    auto: bool,
}

/// `POST /session/:id/summarize` — `{providerID, modelID, auto?}`; waits for the summary and
/// answers `true`, as OpenCode does.
pub async fn summarize(
    State(ledger): State<Ledger>,
    State(writes): State<LedgerWrites>,
    Path(session_id): Path<String>,
    body: JsonBody,
) -> ServerResult<Json<bool>> {
    let body: SummarizeBody = body.parse_or_default()?;
    let model = ModelRef::new(body.provider_id, body.model_id);
    let done = writes
        .finish(async move {
            ledger
                .replies()
                .summarize(&session_id, model, body.auto)
                .await
        })
        .await?;
    Ok(Json(done))
}
