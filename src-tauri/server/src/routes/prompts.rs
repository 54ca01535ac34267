//! Prompt routes: `POST /session/:id/message` waits for the ledger's answer (the user message
//! for `noReply`, otherwise the reply); `prompt_async` checks the body and the session, answers
//! 204 at once, and reports a later failure as a `session.error` event.

use crate::error::{ServerError, ServerResult};
use crate::ledger_writes::LedgerWrites;
use crate::request_body::JsonBody;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use dossier_core::wire::draft::PromptInput;
use dossier_core::wire::message::MessageWithParts;
use dossier_core::Ledger;

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
        .finish(async move { ledger.sessions().prompt(&session_id, input).await })
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
    ledger.sessions().get(&session_id).await?;
    writes.detach(async move {
        // The core publishes the failure to the session's listeners; here it is only logged.
        if let Err(error) = ledger
            .sessions()
            .prompt_in_background(&session_id, input)
            .await
        {
            tracing::warn!(session = %session_id, %error, "background prompt failed");
        }
    });
    Ok(StatusCode::NO_CONTENT)
}
