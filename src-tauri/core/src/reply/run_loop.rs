//! The agent loop of one run (reference §5.2): while the newest user message has no finished
//! reply, create the assistant message (persisted before the model is called), stream one step
//! into parts, retry what is retryable, stop on an error, an abort, or a finished reply.

use crate::models::agent::Agent;
use crate::models::model_messages::{ModelMessage, UserContent};
use crate::models::provider;
use crate::reply::assistant_step::{close, new_assistant, stream_step, StepPlan};
use crate::reply::reply_context::ReplyContext;
use crate::reply::session_runner::RunControl;
use crate::reply::tools;
use crate::store::rows::message_page::MessageQuery;
use crate::store::tables::message_store;
use crate::wire::error::LedgerError;
use crate::wire::event::SessionStatus;
use crate::wire::message::{Message, MessageWithParts, UserMessage};
use crate::wire::part::PartBody;
use crate::wire::permission::Rule;
use crate::wire::session::Session;
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

/// The newest assistant message, or the newest message when there is none: that one message,
/// not the session's whole history (which each reply already reads once to answer).
pub(crate) async fn latest_reply(
    context: &ReplyContext,
    session_id: &str,
) -> Result<MessageWithParts, LedgerError> {
    let mut connection = context.store.connection().await?;
    let id = message_store::newest_reply_id(&mut connection, session_id)
        .await?
        .ok_or_else(|| {
            LedgerError::InvalidRequest(format!("session {session_id} has no messages"))
        })?;
    message_store::get(&mut connection, session_id, &id).await
}

/// True when the newest user message has not been answered yet (no assistant after it).
pub(crate) async fn awaiting_reply(
    context: &ReplyContext,
    session_id: &str,
) -> Result<bool, LedgerError> {
    let mut connection = context.store.connection().await?;
    message_store::awaits_reply(&mut connection, session_id).await
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
