//! From stored messages and parts to provider-neutral model messages, with OpenCode's rules
//! (reference §5.5): synthetic text is sent, text/plain and directory file parts are not (their
//! content is already inlined as synthetic text), interrupted tools become errors, aborted
//! assistants are kept only when they produced something, reasoning from another model becomes
//! plain text. Pure: the providers turn these into their wire formats.

use crate::wire::assistant_error::AssistantError;
use crate::wire::message::{Message, MessageWithParts, ModelRef};
use crate::wire::part::{PartBody, ToolState};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub enum ModelMessage {
    User(Vec<UserContent>),
    Assistant(Vec<AssistantContent>),
    /// Results of the tool calls in the assistant message just before.
    Tool(Vec<ToolResult>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum UserContent {
    Text(String),
    File {
        url: String,
        media_type: String,
        filename: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum AssistantContent {
    Text(String),
    /// The provider's signature travels with reasoning it issued (Anthropic's thinking blocks).
    Reasoning {
        text: String,
        signature: Option<String>,
    },
    /// Anthropic's encrypted (`redacted_thinking`) reasoning, replayed to the same model only.
    RedactedReasoning(String),
    ToolCall {
        call_id: String,
        name: String,
        input: Value,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub call_id: String,
    pub name: String,
    pub output: String,
    pub is_error: bool,
    /// Images or PDFs the tool returned, for providers that take media inside a tool result.
    pub media: Vec<UserContent>,
}

pub const INTERRUPTED_TOOL: &str = "[Tool execution was interrupted]";
pub const COMPACTED_OUTPUT: &str = "[Old tool result content cleared]";
pub const COMPACTION_TEXT: &str = "What did we do so far?";
pub const SUBTASK_TEXT: &str = "The following tool was executed by the user";
pub const TOOL_MEDIA_TEXT: &str = "Attached media from tool result:";

/// An assistant turn's text items, joined by `separator`.
pub fn assistant_text(content: &[AssistantContent], separator: &str) -> String {
    content
        .iter()
        .filter_map(|item| match item {
            AssistantContent::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(separator)
}

/// How a tool call's arguments are written in OpenAI's `tool_calls` shape: as JSON text, which
/// OpenAI's API takes, or as the object a model's own chat template reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolArguments {
    Text,
    Object,
}

/// An assistant turn's tool calls in OpenAI's `tool_calls` shape.
pub fn openai_tool_calls(content: &[AssistantContent], arguments: ToolArguments) -> Vec<Value> {
    content
        .iter()
        .filter_map(|item| match item {
            AssistantContent::ToolCall {
                call_id,
                name,
                input,
            } => Some(serde_json::json!({
                "id": call_id,
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": match arguments {
                        ToolArguments::Text => Value::String(input.to_string()),
                        ToolArguments::Object => input.clone(),
                    },
                },
            })),
            _ => None,
        })
        .collect()
}

/// File types whose content the prompt pipeline already inlined as synthetic text.
pub(crate) fn is_inlined(mime: &str) -> bool {
    mime == "text/plain" || mime == "application/x-directory"
}

/// Converts `history` (oldest first) for a call to `current` model; media a tool returned go in a
/// separate user message, which every provider accepts.
pub fn to_model_messages(history: &[MessageWithParts], current: &ModelRef) -> Vec<ModelMessage> {
    to_model_messages_for(history, current, false)
}

/// As `to_model_messages`, with tool media kept inside the tool result when the provider takes
/// them there (Anthropic does; OpenAI's chat completions do not).
pub fn to_model_messages_for(
    history: &[MessageWithParts],
    current: &ModelRef,
    media_in_tool_results: bool,
) -> Vec<ModelMessage> {
    let mut output = Vec::new();
    for message in history {
        if message.parts.is_empty() {
            continue;
        }
        match &message.info {
            Message::User(_) => {
                let content = user_content(message);
                if !content.is_empty() {
                    output.push(ModelMessage::User(content));
                }
            }
            Message::Assistant(assistant) => {
                if !keeps_assistant(message, assistant.error.as_ref()) {
                    continue;
                }
                let same_model = assistant.provider_id == current.provider_id
                    && assistant.model_id == current.model_id;
                output.extend(assistant_messages(
                    message,
                    same_model,
                    media_in_tool_results,
                ));
            }
        }
    }
    output
}

/// An errored assistant is dropped, unless it was aborted after producing something more than
/// a step start and reasoning.
fn keeps_assistant(message: &MessageWithParts, error: Option<&AssistantError>) -> bool {
    match error {
        None => true,
        Some(AssistantError::MessageAbortedError { .. }) => message
            .parts
            .iter()
            .any(|part| !matches!(part.body, PartBody::StepStart(_) | PartBody::Reasoning(_))),
        Some(_) => false,
    }
}

fn user_content(message: &MessageWithParts) -> Vec<UserContent> {
    let mut content = Vec::new();
    for part in &message.parts {
        match &part.body {
            PartBody::Text(text) if text.ignored != Some(true) && !text.text.is_empty() => {
                content.push(UserContent::Text(text.text.clone()));
            }
            PartBody::File(file) if !is_inlined(&file.mime) => {
                content.push(UserContent::File {
                    url: file.url.clone(),
                    media_type: file.mime.clone(),
                    filename: file.filename.clone(),
                });
            }
            PartBody::Compaction(_) => content.push(UserContent::Text(COMPACTION_TEXT.into())),
            PartBody::Subtask(_) => content.push(UserContent::Text(SUBTASK_TEXT.into())),
            _ => {}
        }
    }
    content
}

/// One assistant message per step (split at step starts), each followed by its tool results
/// and, when a tool returned media, a user message carrying it.
fn assistant_messages(
    message: &MessageWithParts,
    same_model: bool,
    media_in_tool_results: bool,
) -> Vec<ModelMessage> {
    let mut output = Vec::new();
    let mut content: Vec<AssistantContent> = Vec::new();
    let mut results: Vec<ToolResult> = Vec::new();
    let mut media: Vec<UserContent> = Vec::new();
    let flush = |content: &mut Vec<AssistantContent>,
                 results: &mut Vec<ToolResult>,
                 media: &mut Vec<UserContent>,
                 output: &mut Vec<ModelMessage>| {
        if !content.is_empty() {
            output.push(ModelMessage::Assistant(std::mem::take(content)));
        }
        if !results.is_empty() {
            output.push(ModelMessage::Tool(std::mem::take(results)));
        }
        if !media.is_empty() {
            let mut user = vec![UserContent::Text(TOOL_MEDIA_TEXT.into())];
            user.append(media);
            output.push(ModelMessage::User(user));
        }
    };
    for part in &message.parts {
        match &part.body {
            PartBody::StepStart(_) => flush(&mut content, &mut results, &mut media, &mut output),
            PartBody::Text(text) if !text.text.is_empty() => {
                content.push(AssistantContent::Text(text.text.clone()));
            }
            PartBody::Reasoning(reasoning)
                if same_model && redacted_reasoning(reasoning.metadata.as_ref()).is_some() =>
            {
                if let Some(data) = redacted_reasoning(reasoning.metadata.as_ref()) {
                    content.push(AssistantContent::RedactedReasoning(data));
                }
            }
            PartBody::Reasoning(reasoning) if !reasoning.text.is_empty() => {
                content.push(if same_model {
                    AssistantContent::Reasoning {
                        text: reasoning.text.clone(),
                        signature: reasoning_signature(reasoning.metadata.as_ref()),
                    }
                } else {
                    AssistantContent::Text(reasoning.text.clone())
                });
            }
            PartBody::Tool(tool) => {
                let mut tool_media = Vec::new();
                let (input, output_text, is_error) = match &tool.state {
                    ToolState::Completed {
                        input,
                        output,
                        time,
                        attachments,
                        ..
                    } => {
                        for attachment in attachments.iter().flatten() {
                            if let PartBody::File(file) = &attachment.body {
                                tool_media.push(UserContent::File {
                                    url: file.url.clone(),
                                    media_type: file.mime.clone(),
                                    filename: file.filename.clone(),
                                });
                            }
                        }
                        let text = if time.compacted.is_some() {
                            COMPACTED_OUTPUT.to_string()
                        } else {
                            output.clone()
                        };
                        (input.clone(), text, false)
                    }
                    ToolState::Error {
                        input,
                        error,
                        metadata,
                        ..
                    } => match interrupted_output(metadata.as_ref()) {
                        Some(partial) => (input.clone(), partial, false),
                        None => (input.clone(), error.clone(), true),
                    },
                    ToolState::Pending { input, .. } | ToolState::Running { input, .. } => {
                        (input.clone(), INTERRUPTED_TOOL.to_string(), true)
                    }
                };
                content.push(AssistantContent::ToolCall {
                    call_id: tool.call_id.clone(),
                    name: tool.tool.clone(),
                    input,
                });
                let kept_inside = if media_in_tool_results {
                    tool_media
                } else {
                    media.append(&mut tool_media);
                    Vec::new()
                };
                results.push(ToolResult {
                    call_id: tool.call_id.clone(),
                    name: tool.tool.clone(),
                    output: output_text,
                    is_error,
                    media: kept_inside,
                });
            }
            _ => {}
        }
    }
    flush(&mut content, &mut results, &mut media, &mut output);
    output
}

/// A tool cut off by an interruption may have left partial output worth sending.
/// Where a reasoning part keeps Anthropic's signature: `metadata.anthropic.signature`, the AI
/// SDK's provider-metadata shape that OpenCode stores.
pub fn reasoning_signature(metadata: Option<&Value>) -> Option<String> {
    metadata?
        .pointer("/anthropic/signature")
        .and_then(Value::as_str)
        .filter(|signature| !signature.is_empty())
        .map(str::to_string)
}

/// Where a reasoning part keeps Anthropic's encrypted thinking: `metadata.anthropic.redactedData`.
pub fn redacted_reasoning(metadata: Option<&Value>) -> Option<String> {
    metadata?
        .pointer("/anthropic/redactedData")
        .and_then(Value::as_str)
        .filter(|data| !data.is_empty())
        .map(str::to_string)
}

fn interrupted_output(metadata: Option<&Value>) -> Option<String> {
    let metadata = metadata?;
    if metadata.get("interrupted") != Some(&Value::Bool(true)) {
        return None;
    }
    metadata
        .get("output")
        .and_then(Value::as_str)
        .filter(|output| !output.is_empty())
        .map(str::to_string)
}

/// On steps after the first, user text that arrived after the last finished reply is wrapped
/// so the model treats it as a message sent while it was working (OpenCode's wording).
pub fn wrap_late_user_text(history: &mut [MessageWithParts], after_message_id: &str) {
    let Some(start) = history
        .iter()
        .position(|message| message.info.id() == after_message_id)
    else {
        return;
    };
    for message in history.iter_mut().skip(start + 1) {
        if !matches!(message.info, Message::User(_)) {
            continue;
        }
        for part in &mut message.parts {
            if let PartBody::Text(text) = &mut part.body {
                if text.synthetic == Some(true)
                    || text.ignored == Some(true)
                    || text.text.trim().is_empty()
                {
                    continue;
                }
                text.text = format!(
                    "<system-reminder>\nThe user sent the following message:\n{}\n\nPlease address this message and continue with your tasks.\n</system-reminder>",
                    text.text
                );
            }
        }
    }
}

#[cfg(test)]
mod tests;
