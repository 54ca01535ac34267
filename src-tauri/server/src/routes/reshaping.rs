//! Reshaping a session: OpenCode's fork, revert, unrevert and summarize with their shapes, and
//! Dossier's own edit-and-resend (regenerate is a declared operation: `declared_routes.rs`).

use crate::error::ServerResult;
use crate::ledger_writes::LedgerWrites;
use crate::request_body::JsonBody;
use axum::extract::{Path, State};
use axum::Json;
use dossier_core::wire::message::{MessageWithParts, ModelRef};
use dossier_core::wire::session::Session;
use dossier_core::Ledger;
use serde::Deserialize;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ForkBody {
    #[serde(rename = "messageID")]
    message_id: Option<String>,
}

pub async fn fork(
    State(ledger): State<Ledger>,
    State(writes): State<LedgerWrites>,
    Path(session_id): Path<String>,
    body: JsonBody,
) -> ServerResult<Json<Session>> {
    let body: ForkBody = body.parse_or_default()?;
    let fork = writes
        .finish(async move {
            ledger
                .reshaping()
                .fork_session(&session_id, body.message_id.as_deref())
                .await
        })
        .await?;
    Ok(Json(fork))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RevertBody {
    #[serde(rename = "messageID")]
    message_id: String,
    #[serde(rename = "partID", default)]
    part_id: Option<String>,
}

pub async fn revert(
    State(ledger): State<Ledger>,
    State(writes): State<LedgerWrites>,
    Path(session_id): Path<String>,
    body: JsonBody,
) -> ServerResult<Json<Session>> {
    let body: RevertBody = body.parse_or_default()?;
    let session = writes
        .finish(async move {
            ledger
                .reshaping()
                .revert(&session_id, &body.message_id, body.part_id.as_deref())
                .await
        })
        .await?;
    Ok(Json(session))
}

pub async fn unrevert(
    State(ledger): State<Ledger>,
    State(writes): State<LedgerWrites>,
    Path(session_id): Path<String>,
) -> ServerResult<Json<Session>> {
    let session = writes
        .finish(async move { ledger.reshaping().unrevert(&session_id).await })
        .await?;
    Ok(Json(session))
}

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

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ResendBody {
    /// The edited text; the original text when absent.
    text: Option<String>,
    #[serde(rename = "noReply", default)]
    no_reply: bool,
}

/// `POST /session/:id/message/:messageID/resend` — edit and resend a user message.
pub async fn resend(
    State(ledger): State<Ledger>,
    State(writes): State<LedgerWrites>,
    Path((session_id, message_id)): Path<(String, String)>,
    body: JsonBody,
) -> ServerResult<Json<MessageWithParts>> {
    let body: ResendBody = body.parse_or_default()?;
    let sent = writes
        .finish(async move {
            ledger
                .reshaping()
                .resend(
                    &session_id,
                    &message_id,
                    body.text.as_deref(),
                    body.no_reply,
                )
                .await
        })
        .await?;
    Ok(Json(sent))
}
