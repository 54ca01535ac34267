//! Prompt routes: `POST /session/:id/message` waits for the ledger's answer (the user message
//! for `noReply`, otherwise the reply); `prompt_async` checks the body and the session, answers
//! 204 at once, and reports a later failure as a `session.error` event.

use crate::error::{ServerError, ServerResult};
use crate::ledger_writes::LedgerWrites;
use crate::request_body::JsonBody;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use dossier_core::wire::assistant_error::AssistantError;
use dossier_core::wire::draft::PromptInput;
use dossier_core::wire::event::EventPayload;
use dossier_core::wire::message::MessageWithParts;
use dossier_core::{Ledger, LedgerError};

fn prompt_input(body: JsonBody) -> ServerResult<PromptInput> {
    let value = body.0.ok_or_else(|| {
        ServerError::InvalidBody("a prompt needs a JSON body with \"parts\"".into())
    })?;
    Ok(PromptInput::from_json(value)?)
}

pub async fn prompt(
    State(ledger): State<Ledger>,
    State(writes): State<LedgerWrites>,
    Path(session_id): Path<String>,
    body: JsonBody,
) -> ServerResult<Json<MessageWithParts>> {
    let input = prompt_input(body)?;
    let message = writes
        .finish(async move { ledger.prompt(&session_id, input).await })
        .await?;
    Ok(Json(message))
}

pub async fn prompt_async(
    State(ledger): State<Ledger>,
    State(writes): State<LedgerWrites>,
    Path(session_id): Path<String>,
    body: JsonBody,
) -> ServerResult<StatusCode> {
    let input = prompt_input(body)?;
    ledger.session(&session_id).await?;
    let names_model = input.model.is_some();
    writes.detach(async move {
        if let Err(error) = ledger.prompt(&session_id, input).await {
            tracing::warn!(session = %session_id, %error, "background prompt failed");
            if !already_reported(&error, names_model) {
                ledger.events().publish(EventPayload::session_error(
                    &session_id,
                    AssistantError::unknown(error.to_string()),
                ));
            }
        }
    });
    Ok(StatusCode::NO_CONTENT)
}

/// The pipeline itself publishes `session.error` for an unknown agent and for an unknown model
/// the caller named, and the session's runner for a reply that failed; reporting those again
/// would show the person the same error twice.
fn already_reported(error: &LedgerError, names_model: bool) -> bool {
    match error {
        LedgerError::AgentNotFound { .. } | LedgerError::ReplyFailed(_) => true,
        LedgerError::ModelNotFound { .. } => names_model,
        _ => false,
    }
}
