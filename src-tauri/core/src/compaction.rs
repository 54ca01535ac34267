//! Compaction, reduced to its core (reference §5.7): when the provider says the conversation no
//! longer fits, a compaction marker is recorded, the model writes a summary with no tools, and a
//! synthetic "continue" message follows. From then on the model sees the summary instead of the
//! history before it. Tail retention, pruning and the manual summarize route are not done yet.

use crate::error::LedgerError;
use crate::id::IdKind;
use crate::ledger::Ledger;
use crate::message::{Message, MessageWithParts, UserMessage, UserTime};
use crate::model_messages::{to_model_messages, ModelMessage, UserContent};
use crate::part::{CompactionPart, Part, PartBody, TextPart};
use crate::provider::ModelRequest;
use crate::reply_stream::StepEnd;
use crate::run_loop::{close, new_assistant, stream_step, StepPlan};
use crate::session::Session;
use crate::session_runner::RunControl;
use serde_json::json;
use std::sync::Arc;

pub const CONTINUE_TEXT: &str = "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.";

const SUMMARY_PROMPT: &str = "Provide a detailed summary of our conversation above, for another \
assistant who will continue it without seeing it. Use these sections in Markdown: Goal, \
Constraints, Progress, Key Decisions, Next Steps, Critical Context, Relevant Files. Keep file \
names, figures and quotes that matter; leave out pleasantries.";

/// OpenCode's overflow test (`overflow.ts`): the last step's tokens reach the usable context,
/// i.e. the model's `limit.context` minus room for the reply (`limit.output`, at most 20k).
/// `limit` is the model's `limit` from the config; without a context size nothing overflows.
pub fn is_overflow(tokens: &crate::session::Tokens, limit: Option<&serde_json::Value>) -> bool {
    let number = |key: &str| {
        limit
            .and_then(|limit| limit.get(key))
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0)
    };
    let context = number("context");
    if context == 0 {
        return false;
    }
    let reserved = number("output").min(20_000);
    let used = tokens
        .total
        .unwrap_or(tokens.input + tokens.output + tokens.cache.read + tokens.cache.write);
    used >= context.saturating_sub(reserved)
}

/// Whether the newest finished reply (not itself a summary) filled the context.
pub fn needs_compaction(history: &[MessageWithParts], limit: Option<&serde_json::Value>) -> bool {
    history
        .iter()
        .rev()
        .find_map(|message| match &message.info {
            Message::Assistant(assistant) if assistant.finish.is_some() => Some(assistant),
            _ => None,
        })
        .is_some_and(|assistant| {
            assistant.summary != Some(true) && is_overflow(&assistant.tokens, limit)
        })
}

/// The part of the history the model sees: everything from the newest completed compaction on
/// (its marker, its summary, and what came after). Pure.
pub fn visible_history(mut history: Vec<MessageWithParts>) -> Vec<MessageWithParts> {
    let marker = history
        .iter()
        .rev()
        .find_map(|message| match &message.info {
            Message::Assistant(assistant)
                if assistant.summary == Some(true)
                    && assistant.finish.is_some()
                    && assistant.error.is_none() =>
            {
                Some(assistant.parent_id.clone())
            }
            _ => None,
        });
    let start = marker.and_then(|parent| {
        history
            .iter()
            .position(|message| message.info.id() == parent)
    });
    match start {
        Some(start) => history.split_off(start),
        None => history,
    }
}

/// Compacts the session after a context overflow; `Finished` when the summary and the continue
/// message are recorded.
pub(crate) async fn compact(
    ledger: &Ledger,
    control: &RunControl,
    session: &Session,
    user: &UserMessage,
    history: &[MessageWithParts],
    client: &reqwest::Client,
) -> Result<StepEnd, LedgerError> {
    let marker = synthetic_user(
        ledger,
        session,
        user,
        PartBody::Compaction(CompactionPart {
            auto: true,
            overflow: Some(true),
            tail_start_id: None,
        }),
    )
    .await?;
    let agent = match ledger.agents().get("compaction") {
        Some(agent) => agent.clone(),
        None => ledger.agents().default_agent()?.clone(),
    };
    let mut assistant = new_assistant(ledger, session, &marker, &agent);
    assistant.summary = Some(true);
    ledger.insert_reply_message(&assistant).await?;
    let model = user.model.model_ref();
    let provider = match ledger.model_provider(&model, client).await {
        Ok(provider) => provider,
        Err(failure) => {
            close(
                ledger,
                &mut assistant,
                Some(failure.to_assistant_error(&model.provider_id)),
            )
            .await?;
            return Ok(StepEnd::Failed {
                failure,
                produced: false,
            });
        }
    };
    let mut messages = to_model_messages(history, &model);
    // Attachments are what overflowed most often; the summary works from the text.
    for message in &mut messages {
        if let ModelMessage::User(content) = message {
            content.retain(|item| matches!(item, UserContent::Text(_)));
        }
    }
    messages
        .retain(|message| !matches!(message, ModelMessage::User(content) if content.is_empty()));
    messages.push(ModelMessage::User(vec![UserContent::Text(
        SUMMARY_PROMPT.into(),
    )]));
    let request = ModelRequest {
        model_id: model.model_id.clone(),
        system: vec![SUMMARY_PROMPT.into()],
        messages,
        tools: Vec::new(),
        history: Arc::new(history.to_vec()),
        max_output_tokens: None,
        temperature: None,
        top_p: None,
    };
    let plan = StepPlan {
        provider: provider.as_ref(),
        request,
        session,
        rules: Vec::new(),
    };
    let mut no_calls = Vec::new();
    let end = stream_step(ledger, control, plan, &mut assistant, &mut no_calls).await?;
    if end != StepEnd::Finished {
        return Ok(end);
    }
    close(ledger, &mut assistant, None).await?;
    let mut text = TextPart {
        text: CONTINUE_TEXT.into(),
        synthetic: Some(true),
        ..TextPart::default()
    };
    text.metadata = Some(json!({"compaction_continue": true}));
    synthetic_user(ledger, session, user, PartBody::Text(text)).await?;
    Ok(StepEnd::Finished)
}

/// A user message the loop writes itself, with the agent and model of `like`.
async fn synthetic_user(
    ledger: &Ledger,
    session: &Session,
    like: &UserMessage,
    body: PartBody,
) -> Result<UserMessage, LedgerError> {
    let message = UserMessage {
        id: ledger.new_id(IdKind::Message),
        session_id: session.id.clone(),
        time: UserTime {
            created: ledger.now(),
        },
        format: None,
        summary: None,
        agent: like.agent.clone(),
        model: like.model.clone(),
        system: None,
        tools: None,
    };
    let part = Part {
        id: ledger.new_id(IdKind::Part),
        session_id: session.id.clone(),
        message_id: message.id.clone(),
        body,
    };
    ledger.insert_user_message(&message, &[part]).await?;
    Ok(message)
}

#[cfg(test)]
mod tests;
