//! Session titles (reference §5.6): the first real user message of a root session that still
//! has its default title gets one from the small model — or, with the offline model, the first
//! line of the user's text. Plain text (a model's Markdown marks taken off, `wire::plain_title`),
//! at most 100 characters; a failure is logged and the default kept.

use crate::models::model_catalog::OFFLINE_PROVIDER_ID;
use crate::models::model_messages::{to_model_messages, ModelMessage, UserContent};
use crate::models::provider::{ModelRequest, ProviderFailure, StreamEvent};
use crate::reply::reply_context::ReplyContext;
use crate::wire::message::{Message, MessageWithParts, ModelRef};
use crate::wire::part::PartBody;
use crate::wire::plain_title::plain_title;
use crate::wire::session::{is_default_title, Session, SessionPatch};
use futures::StreamExt;
use std::sync::Arc;

pub const MAX_TITLE: usize = 100;

const TITLE_PROMPT: &str = "You are a title generator. Reply with a single short line (at most 50 \
characters) that names the topic of the conversation, in the language of the user's message. \
No quotes, no punctuation at the end, no explanation.";

/// A user message counts as real when it has text that is not synthetic.
fn is_real_user(message: &MessageWithParts) -> bool {
    matches!(message.info, Message::User(_))
        && message.parts.iter().any(|part| match &part.body {
            PartBody::Text(text) => text.synthetic != Some(true) && !text.text.trim().is_empty(),
            PartBody::Subtask(_) => true,
            _ => false,
        })
}

/// Whether this run should title the session: a root session, default title, one real user
/// message so far.
pub fn wanted(session: &Session, history: &[MessageWithParts]) -> bool {
    session.parent_id.is_none()
        && is_default_title(&session.title)
        && history
            .iter()
            .filter(|message| is_real_user(message))
            .count()
            == 1
}

/// The title in a model's reply (or in the user's text): `<think>` blocks removed, the first
/// non-empty line, trimmed of quotes and of Markdown's marks ("## Summary" is "Summary"), capped
/// at 100 characters (97 and `...`).
pub fn title_from_text(text: &str) -> Option<String> {
    let mut cleaned = text.to_string();
    while let Some(start) = cleaned.find("<think>") {
        let end = cleaned[start..]
            .find("</think>")
            .map_or(cleaned.len(), |end| start + end + "</think>".len());
        cleaned.replace_range(start..end, "");
    }
    let line = cleaned
        .lines()
        .map(|line| plain_title(without_quotes(&plain_title(without_quotes(line)))))
        .find(|line| !line.is_empty())?;
    if line.chars().count() > MAX_TITLE {
        let cut: String = line.chars().take(MAX_TITLE - 3).collect();
        return Some(format!("{cut}..."));
    }
    Some(line.to_string())
}

fn without_quotes(line: &str) -> &str {
    line.trim()
        .trim_matches(|symbol| symbol == '"' || symbol == '\'')
        .trim()
}

/// Generates and stores the title; runs beside the first step, never fails the reply.
pub(crate) async fn generate(
    context: ReplyContext,
    session: Session,
    history: Vec<MessageWithParts>,
    client: reqwest::Client,
) {
    let Some(first) = history.iter().position(is_real_user) else {
        return;
    };
    let head = &history[..=first];
    let Message::User(user) = &head[first].info else {
        return;
    };
    let model = context
        .config()
        .small_model
        .as_deref()
        .and_then(ModelRef::parse)
        .filter(|model| context.models().find(model).is_some())
        .unwrap_or_else(|| user.model.model_ref());
    // A model on this computer answers one request at a time (one worker per model): a title
    // asked of it first would hold the answer back, seconds on a slow computer. It gets the
    // question's first words, as the offline model does.
    let title = if model.provider_id == OFFLINE_PROVIDER_ID
        || model.provider_id == crate::models::provider::local_model::PROVIDER_ID
    {
        let text: String = head[first]
            .parts
            .iter()
            .filter_map(|part| match &part.body {
                PartBody::Text(text) if text.synthetic != Some(true) => Some(text.text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n");
        title_from_text(&text)
    } else {
        match ask_model(&context, &model, head, &client).await {
            Ok(title) => title,
            Err(failure) => {
                let message = failure.message();
                tracing::warn!(session = %session.id, %message, "title generation failed");
                None
            }
        }
    };
    let Some(title) = title else {
        return;
    };
    // The person may have renamed the session meanwhile; their title wins.
    match context.session(&session.id).await {
        Ok(current) if is_default_title(&current.title) => {}
        _ => return,
    }
    let patch = SessionPatch {
        title: Some(title),
        ..SessionPatch::default()
    };
    if let Err(error) = context.update_session(&session.id, patch).await {
        tracing::warn!(session = %session.id, %error, "could not store the generated title");
    }
}

async fn ask_model(
    context: &ReplyContext,
    model: &ModelRef,
    head: &[MessageWithParts],
    client: &reqwest::Client,
) -> Result<Option<String>, ProviderFailure> {
    let provider = context.model_provider(model, client).await?;
    let mut messages = vec![ModelMessage::User(vec![UserContent::Text(
        "Generate a title for this conversation:\n".into(),
    )])];
    messages.extend(to_model_messages(head, model));
    // Attachments do not help a title and may be large.
    for message in &mut messages {
        if let ModelMessage::User(content) = message {
            content.retain(|item| matches!(item, UserContent::Text(_)));
        }
    }
    let request = ModelRequest {
        model_id: model.model_id.clone(),
        system: vec![TITLE_PROMPT.into()],
        messages,
        tools: Vec::new(),
        history: Arc::new(head.to_vec()),
        max_output_tokens: Some(100),
        temperature: None,
        top_p: None,
        options: serde_json::Map::new(),
    };
    let mut stream = provider.stream(&request).await?;
    let mut text = String::new();
    while let Some(event) = stream.next().await {
        match event? {
            StreamEvent::TextDelta(delta) => text.push_str(&delta),
            StreamEvent::Finish { .. } => break,
            _ => {}
        }
    }
    Ok(title_from_text(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_table() {
        let long = "x".repeat(150);
        let expected_long = format!("{}...", "x".repeat(97));
        let table: [(&str, Option<&str>); 12] = [
            ("Summarise the notes", Some("Summarise the notes")),
            ("\n\n  First line  \nsecond", Some("First line")),
            (
                "<think>hmm, a title</think>\nBudget review",
                Some("Budget review"),
            ),
            ("\"Quoted title\"", Some("Quoted title")),
            ("", None),
            ("<think>unterminated", None),
            (long.as_str(), Some(expected_long.as_str())),
            // A model that answers in Markdown: the marks go, quotes inside or outside them too.
            ("## Summary of your file", Some("Summary of your file")),
            ("**\"Tax return 2025\"**", Some("Tax return 2025")),
            ("\"`cargo test` failures\"", Some("cargo test failures")),
            (
                "<think>x</think>\n# [Lisbon](https://example.org) trip #",
                Some("Lisbon trip"),
            ),
            // A prompt that opens with a table: its header's cells, not its pipes.
            (
                "| Item | Cost |\n|---|---|\n| Tea | 3 |",
                Some("Item · Cost"),
            ),
        ];
        for (text, expected) in table {
            assert_eq!(title_from_text(text).as_deref(), expected, "{text:?}");
        }
    }
}
