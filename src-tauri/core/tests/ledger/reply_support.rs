//! Helpers for the reply tests: prompting for a reply, reading the event story of a reply, and
//! waiting for an event.

use crate::support::*;
use dossier_core::wire::draft::{Draft, PromptInput};
use dossier_core::wire::event::{Event, EventPayload, SessionStatus};
use dossier_core::wire::message::{Message, MessageWithParts};
use dossier_core::wire::part::{PartBody, ToolState};
use serde_json::Value;
use std::time::Duration;

pub fn reply_input(parts: Vec<Draft>) -> PromptInput {
    PromptInput {
        parts,
        ..PromptInput::default()
    }
}

/// A prompt answered in the background (its stream often hangs until the test acts), with the
/// event subscription taken before it started so no event is missed.
pub struct BackgroundReply {
    pub events: tokio::sync::broadcast::Receiver<std::sync::Arc<Event>>,
    pub running: tokio::task::JoinHandle<Result<MessageWithParts, dossier_core::LedgerError>>,
}

/// A ledger whose provider streams `words` and then hangs until aborted, and a new session.
pub async fn hanging_after(
    words: &[&str],
) -> (
    crate::fake_provider::FakeProvider,
    TestLedger,
    dossier_core::wire::session::Session,
) {
    use crate::fake_provider::{openai_stream, openai_text_events, Ending, FakeProvider};
    let fake = FakeProvider::start(vec![openai_stream(
        openai_text_events(words),
        Ending::Hang,
        Duration::ZERO,
    )])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    (fake, test, session)
}

pub fn reply_in_background(test: &TestLedger, session_id: &str, text: &str) -> BackgroundReply {
    let events = test.ledger.events().subscribe();
    let ledger = test.ledger.clone();
    let session_id = session_id.to_string();
    let input = reply_input(vec![Draft::text(text)]);
    let running = tokio::spawn(async move { ledger.sessions().prompt(&session_id, input).await });
    BackgroundReply { events, running }
}

pub async fn ask(test: &TestLedger, session_id: &str, text: &str) -> MessageWithParts {
    test.ledger
        .sessions()
        .prompt(session_id, reply_input(vec![Draft::text(text)]))
        .await
        .unwrap_or_else(|error| panic!("{error}"))
}

/// The events of the reply, one readable line each (title and session updates left out).
pub fn story(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match &event.payload {
            EventPayload::SessionStatus { status, .. } => Some(format!(
                "status {}",
                match status {
                    SessionStatus::Idle => "idle".to_string(),
                    SessionStatus::Busy => "busy".to_string(),
                    SessionStatus::Retry { attempt, .. } => format!("retry {attempt}"),
                }
            )),
            EventPayload::SessionIdle { .. } => Some("idle".into()),
            EventPayload::SessionError { error, .. } => Some(format!(
                "error {}",
                serde_json::to_value(error)
                    .ok()
                    .and_then(|value| value.get("name").cloned())
                    .unwrap_or(Value::Null)
            )),
            EventPayload::MessageUpdated {
                info: Message::Assistant(assistant),
                ..
            } => Some(format!(
                "assistant{}{}{}",
                assistant
                    .finish
                    .as_deref()
                    .map(|finish| format!(" finish={finish}"))
                    .unwrap_or_default(),
                if assistant.time.completed.is_some() {
                    " completed"
                } else {
                    ""
                },
                if assistant.error.is_some() {
                    " error"
                } else {
                    ""
                }
            )),
            EventPayload::MessageUpdated { .. } => Some("user".into()),
            EventPayload::PartUpdated { part, .. } => Some(match &part.body {
                PartBody::Text(text) => format!("text {:?}", text.text),
                PartBody::Reasoning(reasoning) => format!("reasoning {:?}", reasoning.text),
                PartBody::Tool(tool) => format!(
                    "tool {} {}",
                    tool.tool,
                    match &tool.state {
                        ToolState::Pending { .. } => "pending",
                        ToolState::Running { .. } => "running",
                        ToolState::Completed { .. } => "completed",
                        ToolState::Error { .. } => "error",
                    }
                ),
                PartBody::StepFinish(finish) => format!("step-finish {}", finish.reason),
                other => other.type_name().to_string(),
            }),
            EventPayload::PartDelta { delta, .. } => Some(format!("delta {delta:?}")),
            _ => None,
        })
        .collect()
}

pub fn strings(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|line| line.to_string()).collect()
}

pub fn assistant_of(message: &MessageWithParts) -> &dossier_core::wire::message::AssistantMessage {
    match &message.info {
        Message::Assistant(assistant) => assistant,
        Message::User(_) => panic!("expected an assistant message, got a user message"),
    }
}

pub fn text_of(message: &MessageWithParts) -> String {
    message
        .parts
        .iter()
        .filter_map(|part| match &part.body {
            PartBody::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect()
}

pub async fn wait_for(
    receiver: &mut tokio::sync::broadcast::Receiver<std::sync::Arc<Event>>,
    mut wanted: impl FnMut(&Event) -> bool,
) -> Vec<Event> {
    let mut seen = Vec::new();
    // A guard against a hang, not a speed check: generous for a loaded 2-core CI machine.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        match tokio::time::timeout_at(deadline, receiver.recv()).await {
            Ok(Ok(event)) => {
                let done = wanted(&event);
                seen.push(Event::clone(&event));
                if done {
                    return seen;
                }
            }
            Ok(Err(error)) => panic!("event channel: {error}"),
            Err(_) => panic!("timed out; saw {:?}", story(&seen)),
        }
    }
}

/// Each message a request sent to the model, oldest first (the system prompt included), as
/// `(role, text)`; a message of several pieces is joined with " | ", media shown as "<media>".
pub fn sent_messages(body: &serde_json::Value) -> Vec<(String, String)> {
    use serde_json::Value;
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|message| {
            let text = match &message["content"] {
                Value::String(text) => text.clone(),
                Value::Array(items) => items
                    .iter()
                    .map(|item| item["text"].as_str().unwrap_or("<media>").to_string())
                    .collect::<Vec<_>>()
                    .join(" | "),
                other => other.to_string(),
            };
            (
                message["role"].as_str().unwrap_or_default().to_string(),
                text,
            )
        })
        .collect()
}

/// The text of each message a request sent, as `sent_messages` reads it.
pub fn sent_texts(body: &serde_json::Value) -> Vec<String> {
    sent_messages(body)
        .into_iter()
        .map(|(_, text)| text)
        .collect()
}
