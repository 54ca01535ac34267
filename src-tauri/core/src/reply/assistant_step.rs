//! One step of a reply, as the loop and compaction both take it: what the step sends
//! (`StepPlan`), streaming it with retries for failures that happened before anything reached the
//! ledger (`stream_step`), and the assistant message it is recorded in, made (`new_assistant`)
//! and completed (`close`). Outside `run_loop` so compaction, which the loop calls, can take a
//! step without reaching back into the loop.

use crate::models::agent::Agent;
use crate::models::provider::{ModelProvider, ModelRequest, ProviderFailure};
use crate::reply::reply_context::ReplyContext;
use crate::reply::reply_stream::{Step, StepEnd};
use crate::reply::retry;
use crate::reply::session_runner::RunControl;
use crate::wire::assistant_error::AssistantError;
use crate::wire::error::LedgerError;
use crate::wire::event::{EventPayload, SessionStatus};
use crate::wire::id::IdKind;
use crate::wire::message::{AssistantMessage, AssistantTime, MessagePath, UserMessage};
use crate::wire::permission::Rule;
use crate::wire::session::{Session, Tokens};
use std::path::PathBuf;

/// What one step sends, and under which rules its tool calls run.
pub(crate) struct StepPlan<'plan> {
    pub provider: &'plan dyn ModelProvider,
    pub request: ModelRequest,
    pub session: &'plan Session,
    pub rules: Vec<Rule>,
}

/// Streams one step, retrying failures that happened before anything reached the ledger.
pub(crate) async fn stream_step(
    context: &ReplyContext,
    control: &RunControl,
    plan: StepPlan<'_>,
    assistant: &mut AssistantMessage,
    recent_calls: &mut Vec<(String, serde_json::Value)>,
) -> Result<StepEnd, LedgerError> {
    let StepPlan {
        provider,
        request,
        session,
        rules,
    } = plan;
    let price =
        crate::models::model_snapshot::price_of(&context.config(), &request_model(assistant));
    let mut attempt: u32 = 0;
    loop {
        let started = tokio::select! {
            biased;
            () = control.aborted() => return Ok(StepEnd::Aborted),
            started = provider.stream(&request) => started,
        };
        let end = match started {
            Ok(stream) => {
                let mut step = Step {
                    context,
                    control,
                    assistant: &mut *assistant,
                    directory: PathBuf::from(&session.directory),
                    session: session.clone(),
                    rules: rules.clone(),
                    price,
                    rejected: false,
                    recent_calls: &mut *recent_calls,
                };
                match step.run(stream).await? {
                    StepEnd::Finished if step.rejected => StepEnd::Refused,
                    other => other,
                }
            }
            Err(failure) => StepEnd::Failed {
                failure,
                produced: false,
            },
        };
        let failure = match end {
            StepEnd::Failed {
                failure,
                produced: false,
            } if retry::is_retryable(&failure) && attempt < retry::MAX_RETRIES => failure,
            other => return Ok(other),
        };
        attempt += 1;
        let headers = match &failure {
            ProviderFailure::Api { retry_headers, .. } => retry_headers.clone(),
            _ => Default::default(),
        };
        let wait = retry::delay(attempt, &headers, context.now());
        control
            .set_status(SessionStatus::Retry {
                attempt,
                message: failure.message().to_string(),
                next: context.now() + i64::try_from(wait.as_millis()).unwrap_or(i64::MAX),
            })
            .await;
        tokio::select! {
            biased;
            () = control.aborted() => return Ok(StepEnd::Aborted),
            () = tokio::time::sleep(wait) => {}
        }
        control.set_status(SessionStatus::Busy).await;
    }
}

fn request_model(assistant: &AssistantMessage) -> crate::wire::message::ModelRef {
    crate::wire::message::ModelRef::new(&assistant.provider_id, &assistant.model_id)
}

/// Completes the assistant message (and reports an error as `session.error`).
pub(crate) async fn close(
    context: &ReplyContext,
    assistant: &mut AssistantMessage,
    error: Option<AssistantError>,
) -> Result<(), LedgerError> {
    assistant.time.completed = Some(context.now());
    if let Some(error) = &error {
        assistant.error = Some(error.clone());
    }
    context.store_reply_message(assistant).await?;
    if let Some(error) = error {
        context
            .store
            .events
            .publish(EventPayload::session_error(&assistant.session_id, error));
    }
    Ok(())
}

pub(crate) fn new_assistant(
    context: &ReplyContext,
    session: &Session,
    user: &UserMessage,
    agent: &Agent,
) -> AssistantMessage {
    AssistantMessage {
        id: context.new_id(IdKind::Message),
        session_id: session.id.clone(),
        time: AssistantTime {
            created: context.now(),
            completed: None,
        },
        error: None,
        parent_id: user.id.clone(),
        model_id: user.model.model_id.clone(),
        provider_id: user.model.provider_id.clone(),
        mode: agent.name.clone(),
        agent: agent.name.clone(),
        path: MessagePath {
            cwd: session.directory.clone(),
            root: session.directory.clone(),
        },
        summary: None,
        cost: 0.0,
        tokens: Tokens::default(),
        structured: None,
        variant: user.model.variant.clone(),
        finish: None,
    }
}
