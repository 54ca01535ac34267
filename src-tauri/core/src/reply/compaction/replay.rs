//! Replaying the question that did not fit (reference §5.7, step 7): when the provider refuses a
//! request because the context is full and the newest user message has not been answered yet,
//! that message is left out of the summary and asked again after it, with media (images, PDFs)
//! replaced by a line naming them, since media is what overflows most often. Without the replay
//! the model would only read the question as the summary retold it.

use crate::models::model_messages::is_inlined;
use crate::reply::reply_context::ReplyContext;
use crate::wire::error::LedgerError;
use crate::wire::id::IdKind;
use crate::wire::message::{Message, MessageWithParts, UserMessage, UserTime};
use crate::wire::part::{Part, PartBody, TextPart};
use crate::wire::session::Session;
use serde_json::json;

/// Splits `history` into what the summary covers and the question to replay: the user message
/// `user_id`, when nothing after it holds an answer (only replies that stopped before their first
/// part). A question already partly answered (a tool loop that overflowed later) is summarised
/// with the rest, and the loop continues instead.
pub(crate) fn split_unanswered(
    mut history: Vec<MessageWithParts>,
    user_id: &str,
) -> (Vec<MessageWithParts>, Option<MessageWithParts>) {
    let Some(index) = history
        .iter()
        .rposition(|message| message.info.id() == user_id)
    else {
        return (history, None);
    };
    let unanswered = history[index + 1..]
        .iter()
        .all(|message| matches!(message.info, Message::Assistant(_)) && message.parts.is_empty());
    if !unanswered {
        return (history, None);
    }
    let question = history.split_off(index).into_iter().next();
    (history, question)
}

/// Records `question` again as the newest user message, under the same agent and model.
pub(crate) async fn replay(
    context: &ReplyContext,
    session: &Session,
    question: &MessageWithParts,
) -> Result<(), LedgerError> {
    let Message::User(original) = &question.info else {
        return Ok(());
    };
    let message = UserMessage {
        id: context.new_id(IdKind::Message),
        time: UserTime {
            created: context.now(),
        },
        ..original.clone()
    };
    let parts: Vec<Part> = question
        .parts
        .iter()
        .filter_map(|part| replayed_body(&part.body))
        .map(|body| Part {
            id: context.new_id(IdKind::Part),
            session_id: session.id.clone(),
            message_id: message.id.clone(),
            body,
        })
        .collect();
    context.insert_user_message(&message, &parts).await
}

/// What a part of the question becomes in the replay: text, agent mentions and the files the
/// model reads as text stay as they were; media becomes a line naming it; a subtask, which ran
/// on its own, is not run again.
fn replayed_body(body: &PartBody) -> Option<PartBody> {
    match body {
        PartBody::File(file) if !is_inlined(&file.mime) => {
            let name = file.filename.as_deref().unwrap_or("unnamed");
            Some(PartBody::Text(TextPart {
                text: format!("[Attached {}: {name}]", file.mime),
                synthetic: Some(true),
                metadata: Some(json!({"compaction_replay": true})),
                ..TextPart::default()
            }))
        }
        PartBody::Text(_) | PartBody::File(_) | PartBody::Agent(_) => Some(body.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::part::FilePart;

    #[test]
    fn media_becomes_a_line_naming_it_and_text_files_stay() {
        let image = PartBody::File(FilePart {
            mime: "image/png".into(),
            filename: Some("chart.png".into()),
            url: "data:image/png;base64,AAAA".into(),
            source: None,
        });
        match replayed_body(&image) {
            Some(PartBody::Text(text)) => {
                assert_eq!(text.text, "[Attached image/png: chart.png]");
                assert_eq!(text.synthetic, Some(true));
            }
            other => panic!("expected a text line, got {other:?}"),
        }
        let notes = PartBody::File(FilePart {
            mime: "text/plain".into(),
            filename: Some("notes.txt".into()),
            url: "file:///tmp/notes.txt".into(),
            source: None,
        });
        assert_eq!(replayed_body(&notes), Some(notes.clone()));
        let words = PartBody::Text(TextPart {
            text: "what is in the chart?".into(),
            ..TextPart::default()
        });
        assert_eq!(replayed_body(&words), Some(words.clone()));
    }
}
