//! Compaction (reference §5.7): when the provider says the conversation no longer fits, or the
//! last reply filled the context, or the user asks for it (`summarize`), a compaction marker is
//! recorded, the model writes a summary with no tools, and — when automatic — a synthetic
//! "continue" message follows. From then on the model sees the summary instead of the history
//! before it, and the last turns kept verbatim beside it (`tail`). Old tool outputs are pruned
//! separately (`prune`).

use crate::models::model_messages::{to_model_messages, ModelMessage, UserContent};
use crate::models::provider::ModelRequest;
use crate::pipeline::attachment_storage;
use crate::reply::assistant_step::{close, new_assistant, stream_step, StepPlan};
use crate::reply::reply_context::ReplyContext;
use crate::reply::reply_stream::StepEnd;
use crate::reply::session_runner::RunControl;
use crate::wire::error::LedgerError;
use crate::wire::id::IdKind;
use crate::wire::message::{Message, MessageWithParts, ModelRef, UserMessage, UserModel, UserTime};
use crate::wire::part::{CompactionPart, Part, PartBody, TextPart};
use crate::wire::session::Session;
use serde_json::json;
use std::sync::Arc;

pub mod prune;
pub mod replay;
pub mod tail;

pub const CONTINUE_TEXT: &str = "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.";

const SUMMARY_PROMPT: &str = "Provide a detailed summary of our conversation above, for another \
assistant who will continue it without seeing it. Use these sections in Markdown: Goal, \
Constraints, Progress, Key Decisions, Next Steps, Critical Context, Relevant Files. Keep file \
names, figures and quotes that matter; leave out pleasantries.";

/// The context a request may fill: the model's `limit.context` minus room for the reply
/// (`limit.output`, at most 20k), as OpenCode reckons it. `None` without a context size.
pub fn usable_context(limit: Option<&serde_json::Value>) -> Option<u64> {
    let number = |key: &str| {
        limit
            .and_then(|limit| limit.get(key))
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0)
    };
    let context = number("context");
    (context > 0).then(|| context.saturating_sub(number("output").min(20_000)))
}

/// OpenCode's overflow test (`overflow.ts`): the last step's tokens reach the usable context.
/// `limit` is the model's `limit` from the config; without a context size nothing overflows.
pub fn is_overflow(
    tokens: &crate::wire::session::Tokens,
    limit: Option<&serde_json::Value>,
) -> bool {
    let Some(usable) = usable_context(limit) else {
        return false;
    };
    let used = tokens
        .total
        .unwrap_or(tokens.input + tokens.output + tokens.cache.read + tokens.cache.write);
    used >= usable
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

/// The part of the history the model sees, in ledger order: everything from the newest
/// completed compaction on (its kept tail, its marker, its summary, and what came after).
/// `tail::model_order` puts the summary first for the model. Pure.
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
    let marker_index = marker.and_then(|parent| {
        history
            .iter()
            .position(|message| message.info.id() == parent)
    });
    let tail_index = marker_index.and_then(|marker_index| {
        let tail_id = history[marker_index]
            .parts
            .iter()
            .find_map(|part| match &part.body {
                PartBody::Compaction(compaction) => compaction.tail_start_id.clone(),
                _ => None,
            })?;
        history[..marker_index]
            .iter()
            .position(|message| message.info.id() == tail_id)
    });
    let start = tail_index.or(marker_index);
    match start {
        Some(start) => history.split_off(start),
        None => history,
    }
}

/// Compacts the session after a context overflow; `Finished` when the summary and the continue
/// message (or the replayed `question`, see `replay`) are recorded.
pub(crate) async fn compact(
    context: &ReplyContext,
    control: &RunControl,
    session: &Session,
    user: &UserMessage,
    history: &[MessageWithParts],
    question: Option<&MessageWithParts>,
    client: &reqwest::Client,
) -> Result<StepEnd, LedgerError> {
    let (marker, marker_part) = synthetic_user(
        context,
        session,
        user,
        PartBody::Compaction(CompactionPart {
            auto: true,
            overflow: Some(true),
            tail_start_id: None,
        }),
    )
    .await?;
    let request = Request {
        marker: &marker,
        part: marker_part,
        auto: true,
        replay: question,
    };
    summarize_before(context, control, session, request, history, client).await
}

/// A compaction marker: the user message, its compaction part, whether the loop continues on its
/// own after the summary, and the unanswered question to ask again after it (left out of the
/// summarised history).
pub(crate) struct Request<'request> {
    pub marker: &'request UserMessage,
    pub part: Part,
    pub auto: bool,
    pub replay: Option<&'request MessageWithParts>,
}

/// A compaction request recorded by `Ledger::summarize` and not answered yet: the newest user
/// message carries a compaction part and nothing follows it. Its index and the request.
pub(crate) fn pending_request(history: &[MessageWithParts]) -> Option<(usize, Request<'_>)> {
    let last = history.len().checked_sub(1)?;
    let message = &history[last];
    let Message::User(user) = &message.info else {
        return None;
    };
    message.parts.iter().find_map(|part| match &part.body {
        PartBody::Compaction(compaction) => Some((
            last,
            Request {
                marker: user,
                part: part.clone(),
                auto: compaction.auto,
                replay: None,
            },
        )),
        _ => None,
    })
}

/// Writes the summary of `history` (all but the tail it keeps) as the reply to the compaction
/// marker; when `auto`, the synthetic "continue" message follows so the loop carries on.
/// `Finished` when recorded.
pub(crate) async fn summarize_before(
    context: &ReplyContext,
    control: &RunControl,
    session: &Session,
    request: Request<'_>,
    history: &[MessageWithParts],
    client: &reqwest::Client,
) -> Result<StepEnd, LedgerError> {
    let Request {
        marker,
        part: mut marker_part,
        auto,
        replay: question,
    } = request;
    let agent = match context.agents().get("compaction") {
        Some(agent) => agent.clone(),
        None => context.agents().default_agent()?.clone(),
    };
    let mut assistant = new_assistant(context, session, marker, &agent);
    assistant.summary = Some(true);
    context.insert_reply_message(&assistant).await?;
    let model = marker.model.model_ref();
    let limit = crate::models::model_snapshot::limit_of(&context.config(), &model);
    // With a question to replay nothing is kept verbatim: the model reads the summary, then the
    // question, and not the original question a kept tail would bring back beside it.
    let kept_from = match question {
        Some(_) => None,
        None => tail::tail_start(history, tail::tail_budget(limit.as_ref())),
    };
    let head = &history[..kept_from.unwrap_or(history.len())];
    let provider = match context.model_provider(&model, client).await {
        Ok(provider) => provider,
        Err(failure) => {
            close(
                context,
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
    let mut messages = summary_input(to_model_messages(&tail::model_order(head.to_vec()), &model));
    messages.push(ModelMessage::User(vec![UserContent::Text(
        SUMMARY_PROMPT.into(),
    )]));
    let request = ModelRequest {
        model_id: model.model_id.clone(),
        system: vec![SUMMARY_PROMPT.into()],
        messages,
        tools: Vec::new(),
        history: Arc::new(head.to_vec()),
        max_output_tokens: None,
        temperature: None,
        top_p: None,
        options: serde_json::Map::new(),
    };
    let plan = StepPlan {
        provider: provider.as_ref(),
        request,
        session,
        rules: Vec::new(),
    };
    let mut no_calls = Vec::new();
    let end = stream_step(context, control, plan, &mut assistant, &mut no_calls).await?;
    if end != StepEnd::Finished {
        return Ok(end);
    }
    close(context, &mut assistant, None).await?;
    if let (Some(index), PartBody::Compaction(compaction)) = (kept_from, &mut marker_part.body) {
        // Recorded once the summary exists, as OpenCode does: from now on the model sees the
        // summary, then these messages as they were.
        compaction.tail_start_id = Some(history[index].info.id().to_string());
        context.store_reply_part(&marker_part, true).await?;
    }
    if !auto {
        return Ok(StepEnd::Finished);
    }
    if let Some(question) = question {
        replay::replay(context, session, question).await?;
        return Ok(StepEnd::Finished);
    }
    let mut text = TextPart {
        text: CONTINUE_TEXT.into(),
        synthetic: Some(true),
        ..TextPart::default()
    };
    text.metadata = Some(json!({"compaction_continue": true}));
    synthetic_user(context, session, marker, PartBody::Text(text)).await?;
    Ok(StepEnd::Finished)
}

impl ReplyContext {
    /// OpenCode's `POST /session/:id/summarize`: records a compaction request for `model` under
    /// the agent of the newest user message, then runs the loop, which writes the summary (and,
    /// when `auto`, continues). A pending revert is cleaned up first, as for a prompt.
    pub async fn summarize(
        &self,
        session_id: &str,
        model: ModelRef,
        auto: bool,
    ) -> Result<bool, LedgerError> {
        self.store.session(session_id).await?;
        let catalog = self.runtime.settings.models();
        if catalog.find(&model).is_none() {
            return Err(LedgerError::ModelNotFound {
                provider_id: model.provider_id,
                model_id: model.model_id,
                available: catalog.labels(),
            });
        }
        let newest_agent = {
            let mut connection = self.store.connection().await?;
            crate::store::tables::message_store::newest_user_message(&mut connection, session_id)
                .await?
                .map(|user| user.agent)
        };
        let agent = match newest_agent.filter(|name| self.runtime.agents.get(name).is_some()) {
            Some(name) => name,
            None => self.runtime.agents.default_agent()?.name.clone(),
        };
        let message = UserMessage {
            id: self.store.new_id(IdKind::Message),
            session_id: session_id.to_string(),
            time: UserTime {
                created: self.store.now(),
            },
            format: None,
            summary: None,
            agent,
            model: UserModel {
                provider_id: model.provider_id,
                model_id: model.model_id,
                variant: None,
            },
            system: None,
            tools: None,
        };
        let part = Part {
            id: self.store.new_id(IdKind::Part),
            session_id: session_id.to_string(),
            message_id: message.id.clone(),
            body: PartBody::Compaction(CompactionPart {
                auto,
                overflow: None,
                tail_start_id: None,
            }),
        };
        let prepared = attachment_storage::prepare(vec![part]).await;
        self.pipeline()
            .save_prompt(message, prepared, None, &[])
            .await?;
        self.pipeline().hand_to_loop(session_id).await?;
        Ok(true)
    }
}

/// How much of each tool output the summary model reads (OpenCode caps the head at 2,000
/// characters per output).
pub const SUMMARY_TOOL_OUTPUT_CHARS: usize = 2_000;

/// What the summary model reads of the head: attachments (what overflowed most often) and tool
/// media left out, each tool output cut to its first 2,000 characters. Pure.
pub fn summary_input(mut messages: Vec<ModelMessage>) -> Vec<ModelMessage> {
    for message in &mut messages {
        match message {
            ModelMessage::User(content) => {
                content.retain(|item| matches!(item, UserContent::Text(_)));
            }
            ModelMessage::Tool(results) => {
                for result in results {
                    result.media.clear();
                    if let Some((cut, _)) =
                        result.output.char_indices().nth(SUMMARY_TOOL_OUTPUT_CHARS)
                    {
                        result.output.truncate(cut);
                        result.output.push_str("\n[…]");
                    }
                }
            }
            ModelMessage::Assistant(_) => {}
        }
    }
    messages
        .retain(|message| !matches!(message, ModelMessage::User(content) if content.is_empty()));
    messages
}

/// A user message the loop writes itself, with the agent and model of `like`.
async fn synthetic_user(
    context: &ReplyContext,
    session: &Session,
    like: &UserMessage,
    body: PartBody,
) -> Result<(UserMessage, Part), LedgerError> {
    let message = UserMessage {
        id: context.new_id(IdKind::Message),
        session_id: session.id.clone(),
        time: UserTime {
            created: context.now(),
        },
        format: None,
        summary: None,
        agent: like.agent.clone(),
        model: like.model.clone(),
        system: None,
        tools: None,
    };
    let part = Part {
        id: context.new_id(IdKind::Part),
        session_id: session.id.clone(),
        message_id: message.id.clone(),
        body,
    };
    context
        .insert_user_message(&message, std::slice::from_ref(&part))
        .await?;
    Ok((message, part))
}

#[cfg(test)]
mod tests;
