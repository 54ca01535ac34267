//! The agent loop of one run (reference §5.2): while the newest user message has no finished
//! reply, create the assistant message (persisted before the model is called), stream one step
//! into parts, retry what is retryable, stop on an error, an abort, or a finished reply.

use crate::models::agent::Agent;
use crate::models::model_messages::{ModelMessage, UserContent};
use crate::models::provider::{self, ModelProvider, ModelRequest, ProviderFailure};
use crate::reply::reply_context::ReplyContext;
use crate::reply::reply_stream::{Step, StepEnd};
use crate::reply::retry;
use crate::reply::session_runner::RunControl;
use crate::reply::tools;
use crate::store::rows::message_page::MessageQuery;
use crate::store::tables::message_store;
use crate::wire::assistant_error::AssistantError;
use crate::wire::error::LedgerError;
use crate::wire::event::{EventPayload, SessionStatus};
use crate::wire::id::IdKind;
use crate::wire::message::{
    AssistantMessage, AssistantTime, Message, MessagePath, MessageWithParts, UserMessage,
};
use crate::wire::part::PartBody;
use crate::wire::permission::Rule;
use crate::wire::session::{Session, Tokens};
use std::path::PathBuf;
use turn::{take_step, Next, RunState};

pub const ABORTED_MESSAGE: &str = "The operation was aborted.";

/// Steps until the newest user message has its finished reply, something ends the run, or it is
/// aborted; then tidies up and returns the reply.
pub(crate) async fn run(
    context: &ReplyContext,
    control: &RunControl,
    client: &reqwest::Client,
) -> Result<MessageWithParts, LedgerError> {
    control.set_status(SessionStatus::Busy).await;
    let mut state = RunState::new(context);
    while !control.is_aborted() {
        if take_step(context, control, client, &mut state).await? == Next::Stop {
            break;
        }
    }
    prune_old_tool_outputs(context, &control.session_id).await;
    latest_reply(context, &control.session_id).await
}

/// `compaction.prune: true` clears old tool outputs once the run is over. As in OpenCode,
/// pruning is housekeeping: its failure is logged, never the reply's.
async fn prune_old_tool_outputs(context: &ReplyContext, session_id: &str) {
    if context.config().compaction.prune != Some(true) {
        return;
    }
    let pruned = match history(context, session_id).await {
        Ok(history) => crate::reply::compaction::prune::prune(context, &history).await,
        Err(error) => Err(error),
    };
    if let Err(error) = pruned {
        tracing::warn!(%error, session = session_id, "pruning old tool outputs failed");
    }
}

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
            started = provider.stream(request.clone()) => started,
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

async fn history(
    context: &ReplyContext,
    session_id: &str,
) -> Result<Vec<MessageWithParts>, LedgerError> {
    Ok(
        message_store::list(&context.store.pool, session_id, &MessageQuery::default())
            .await?
            .messages,
    )
}

/// The newest assistant message, or the newest message when there is none.
pub(crate) async fn latest_reply(
    context: &ReplyContext,
    session_id: &str,
) -> Result<MessageWithParts, LedgerError> {
    let mut messages = history(context, session_id).await?;
    let index = messages
        .iter()
        .rposition(|message| matches!(message.info, Message::Assistant(_)))
        .or_else(|| messages.len().checked_sub(1))
        .ok_or_else(|| {
            LedgerError::InvalidRequest(format!("session {session_id} has no messages"))
        })?;
    Ok(messages.swap_remove(index))
}

/// True when the newest user message has not been answered yet (no assistant after it).
pub(crate) async fn awaiting_reply(
    context: &ReplyContext,
    session_id: &str,
) -> Result<bool, LedgerError> {
    let messages = history(context, session_id).await?;
    let last_user = messages
        .iter()
        .rposition(|message| matches!(message.info, Message::User(_)));
    let last_assistant = messages
        .iter()
        .rposition(|message| matches!(message.info, Message::Assistant(_)));
    Ok(match (last_user, last_assistant) {
        (Some(user), Some(assistant)) => user > assistant,
        (Some(_), None) => true,
        _ => false,
    })
}

fn latest_user(history: &[MessageWithParts]) -> Option<&UserMessage> {
    history
        .iter()
        .rev()
        .find_map(|message| match &message.info {
            Message::User(user) => Some(user),
            Message::Assistant(_) => None,
        })
}

fn latest_finished_id(history: &[MessageWithParts]) -> Option<String> {
    history
        .iter()
        .rev()
        .find_map(|message| match &message.info {
            Message::Assistant(assistant) if assistant.finish.is_some() => {
                Some(assistant.id.clone())
            }
            _ => None,
        })
}

/// The loop's exit test (reference §5.2 step 4): the newest assistant finished for a reason
/// other than tool calls, made no tool calls, and is newer than the newest user message.
pub fn reply_is_complete(history: &[MessageWithParts]) -> bool {
    let last_user = history
        .iter()
        .rposition(|message| matches!(message.info, Message::User(_)));
    let Some(last_assistant) = history
        .iter()
        .rposition(|message| matches!(message.info, Message::Assistant(_)))
    else {
        return false;
    };
    let message = &history[last_assistant];
    let Message::Assistant(assistant) = &message.info else {
        return false;
    };
    let finished = assistant
        .finish
        .as_deref()
        .is_some_and(|finish| finish != "tool-calls");
    let made_tool_calls = message
        .parts
        .iter()
        .any(|part| matches!(part.body, PartBody::Tool(_)));
    finished && !made_tool_calls && last_user.is_none_or(|user| user < last_assistant)
}

/// The tools the rules do not switch off entirely.
fn offered_tools(
    context: &ReplyContext,
    agent: &Agent,
    rules: &[Rule],
) -> Vec<provider::ToolDefinition> {
    let task = (agent.mode != crate::models::agent::AgentMode::Subagent)
        .then(|| crate::reply::subtask::definition(context))
        .flatten();
    // Each connected MCP server's tools, as `<server>_<tool>` with the server's schema.
    let mcp =
        context
            .runtime
            .mcp_servers
            .tools()
            .into_iter()
            .map(|tool| provider::ToolDefinition {
                name: tool.name,
                description: tool.description,
                parameters: tool.parameters,
            });
    tools::definitions()
        .into_iter()
        .chain(task)
        .chain(mcp)
        .filter(|tool| !tools::disabled(&tool.name, rules))
        .collect()
}

fn system_prompt(agent: &Agent, session: &Session, user: &UserMessage, model: &str) -> Vec<String> {
    let base = agent.prompt.clone().unwrap_or_else(|| {
        "You are Dossier, an assistant that helps a person understand and work with the documents \
         in a folder (their dossier). Answer clearly and concisely, in the language of the question. \
         Use the read, list, glob and grep tools to look at files when you need their content, and \
         say which files your answer is based on."
            .to_string()
    });
    let environment = format!(
        "<env>\n  Model: {model}\n  Working directory: {}\n  Platform: {}\n  Today's date: {}\n</env>",
        session.directory,
        std::env::consts::OS,
        chrono::Utc::now().format("%a %b %d %Y"),
    );
    let mut system = vec![base, environment];
    if let Some(extra) = user
        .system
        .as_deref()
        .filter(|text| !text.trim().is_empty())
    {
        system.push(extra.to_string());
    }
    system
}

/// Attachments stored as blob references go to the provider as `data:` URLs.
async fn inline_blobs(
    context: &ReplyContext,
    messages: &mut [ModelMessage],
) -> Result<(), LedgerError> {
    for message in messages {
        if let ModelMessage::User(content) = message {
            for item in content {
                if let UserContent::File { url, .. } = item {
                    *url = crate::store::tables::blob_store::inline_url(&context.store.pool, url)
                        .await?;
                }
            }
        }
    }
    Ok(())
}

mod turn;

#[cfg(test)]
mod tests;
