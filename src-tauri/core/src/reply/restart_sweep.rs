//! The restart sweep (better than OpenCode, which has none): when the ledger opens, replies a
//! crash left open — no `time.completed`, no error — are closed as `MessageAbortedError`, their
//! pending or running tools become errors marked `interrupted`, and the text checkpointed while
//! streaming is kept.

use crate::reply::reply_stream::TOOL_ABORTED;
use crate::store::tables::message_store;
use crate::store::Store;
use crate::wire::assistant_error::AssistantError;
use crate::wire::error::LedgerError;
use crate::wire::message::{Message, MessageWithParts};
use crate::wire::part::{PartBody, ToolEndTime, ToolState};
use serde_json::json;

pub const INTERRUPTED_MESSAGE: &str = "Dossier stopped before this reply finished";

/// Closes every open reply in one transaction; returns how many there were.
pub async fn close_interrupted(store: &Store, now: i64) -> Result<usize, LedgerError> {
    let open = message_store::open_replies(&store.pool).await?;
    if open.is_empty() {
        return Ok(0);
    }
    close_open_replies(store, &open, now).await?;
    tracing::info!(
        count = open.len(),
        "closed replies interrupted by a previous stop"
    );
    Ok(open.len())
}

/// Closes the given open replies (session id, message id) in one transaction; returns each
/// closed reply with the indexes of the parts it changed, for a caller that announces them.
pub(crate) async fn close_open_replies(
    store: &Store,
    open: &[(String, String)],
    now: i64,
) -> Result<Vec<(MessageWithParts, Vec<usize>)>, LedgerError> {
    let mut closed = Vec::with_capacity(open.len());
    let mut transaction = store.begin_write().await?;
    for (session_id, message_id) in open {
        let mut reply = message_store::get(&mut transaction, session_id, message_id).await?;
        let changed_parts = close_reply(&mut reply, now);
        message_store::update_message(&mut transaction, &reply.info, now).await?;
        for index in &changed_parts {
            message_store::update_part(&mut transaction, &reply.parts[*index], now).await?;
        }
        closed.push((reply, changed_parts));
    }
    transaction.commit().await?;
    Ok(closed)
}

/// Marks one open reply as aborted; returns the indexes of the parts it changed. Pure.
pub fn close_reply(reply: &mut MessageWithParts, now: i64) -> Vec<usize> {
    if let Message::Assistant(assistant) = &mut reply.info {
        assistant.error = Some(AssistantError::MessageAbortedError {
            message: INTERRUPTED_MESSAGE.into(),
        });
        assistant.time.completed = Some(now);
    }
    let mut changed = Vec::new();
    for (index, part) in reply.parts.iter_mut().enumerate() {
        let touched = match &mut part.body {
            PartBody::Text(text) => match text.time.as_mut() {
                Some(time) if time.end.is_none() => {
                    time.end = Some(now);
                    true
                }
                _ => false,
            },
            PartBody::Reasoning(reasoning) if reasoning.time.end.is_none() => {
                reasoning.time.end = Some(now);
                true
            }
            PartBody::Tool(tool) => {
                let open = match &tool.state {
                    ToolState::Pending { input, .. } => Some((input.clone(), now)),
                    ToolState::Running { input, time, .. } => Some((input.clone(), time.start)),
                    _ => None,
                };
                match open {
                    Some((input, start)) => {
                        tool.state = ToolState::Error {
                            input,
                            error: TOOL_ABORTED.into(),
                            metadata: Some(json!({"interrupted": true})),
                            time: ToolEndTime { start, end: now },
                        };
                        true
                    }
                    None => false,
                }
            }
            _ => false,
        };
        if touched {
            changed.push(index);
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::message::{AssistantMessage, AssistantTime, MessagePath};
    use crate::wire::part::{Part, PartTime, StepStartPart, TextPart, ToolPart, ToolStartTime};
    use crate::wire::session::Tokens;

    fn part(body: PartBody) -> Part {
        Part {
            id: "prt".into(),
            session_id: "ses".into(),
            message_id: "msg".into(),
            body,
        }
    }

    #[test]
    fn open_reply_is_closed_keeping_text_and_interrupting_tools() {
        let mut reply = MessageWithParts {
            info: Message::Assistant(AssistantMessage {
                id: "msg".into(),
                session_id: "ses".into(),
                time: AssistantTime {
                    created: 1,
                    completed: None,
                },
                error: None,
                parent_id: "msg_user".into(),
                model_id: "m".into(),
                provider_id: "p".into(),
                mode: "build".into(),
                agent: "build".into(),
                path: MessagePath {
                    cwd: "/".into(),
                    root: "/".into(),
                },
                summary: None,
                cost: 0.0,
                tokens: Tokens::default(),
                structured: None,
                variant: None,
                finish: None,
            }),
            parts: vec![
                part(PartBody::StepStart(StepStartPart { snapshot: None })),
                part(PartBody::Text(TextPart {
                    text: "kept".into(),
                    time: Some(PartTime {
                        start: 2,
                        end: None,
                    }),
                    ..TextPart::default()
                })),
                part(PartBody::Tool(ToolPart {
                    call_id: "c".into(),
                    tool: "read".into(),
                    state: ToolState::Running {
                        input: json!({"filePath": "a"}),
                        title: None,
                        metadata: None,
                        time: ToolStartTime { start: 3 },
                    },
                    metadata: None,
                })),
            ],
        };
        assert_eq!(close_reply(&mut reply, 10), vec![1, 2]);
        let Message::Assistant(assistant) = &reply.info else {
            panic!("not an assistant");
        };
        assert_eq!(assistant.time.completed, Some(10));
        assert_eq!(
            assistant.error,
            Some(AssistantError::MessageAbortedError {
                message: INTERRUPTED_MESSAGE.into()
            })
        );
        assert!(
            matches!(&reply.parts[1].body, PartBody::Text(text) if text.text == "kept" && text.time.as_ref().and_then(|time| time.end) == Some(10))
        );
        assert!(matches!(
            &reply.parts[2].body,
            PartBody::Tool(ToolPart { state: ToolState::Error { error, metadata: Some(metadata), time, .. }, .. })
                if error == TOOL_ABORTED && metadata["interrupted"] == true && time.start == 3 && time.end == 10
        ));
    }
}
