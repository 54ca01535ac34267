//! Building blocks of the unit tests' histories: a user message and an assistant reply with
//! every field a plain value, so a test states only what it is about (its parts, or the one
//! field of the reply it adjusts through `reply_of`).

use crate::wire::message::{
    AssistantMessage, AssistantTime, Message, MessagePath, MessageWithParts, UserMessage,
    UserModel, UserTime,
};
use crate::wire::part::{Part, PartBody};
use crate::wire::session::Tokens;

/// The model every test message records unless a test changes it.
pub const PROVIDER: &str = "fake";
pub const MODEL: &str = "fake-model";

/// Part `index` of message `message_id`, with the id `<message>_part_<index>`.
pub fn part(message_id: &str, index: usize, body: PartBody) -> Part {
    Part {
        id: format!("{message_id}_part_{index}"),
        session_id: "ses".into(),
        message_id: message_id.into(),
        body,
    }
}

fn parts(message_id: &str, bodies: Vec<PartBody>) -> Vec<Part> {
    bodies
        .into_iter()
        .enumerate()
        .map(|(index, body)| part(message_id, index, body))
        .collect()
}

/// A user message of the `build` agent on the test model.
pub fn user_message(id: &str, bodies: Vec<PartBody>) -> MessageWithParts {
    MessageWithParts {
        info: Message::User(UserMessage {
            id: id.into(),
            session_id: "ses".into(),
            time: UserTime { created: 1 },
            format: None,
            summary: None,
            agent: "build".into(),
            model: UserModel {
                provider_id: PROVIDER.into(),
                model_id: MODEL.into(),
                variant: None,
            },
            system: None,
            tools: None,
        }),
        parts: parts(id, bodies),
    }
}

/// A completed reply to `parent` that finished with "stop", on the test model.
pub fn assistant_message(id: &str, parent: &str, bodies: Vec<PartBody>) -> MessageWithParts {
    MessageWithParts {
        info: Message::Assistant(AssistantMessage {
            id: id.into(),
            session_id: "ses".into(),
            time: AssistantTime {
                created: 2,
                completed: Some(3),
            },
            error: None,
            parent_id: parent.into(),
            model_id: MODEL.into(),
            provider_id: PROVIDER.into(),
            mode: "build".into(),
            agent: "build".into(),
            path: MessagePath {
                cwd: "/w".into(),
                root: "/w".into(),
            },
            summary: None,
            cost: 0.0,
            tokens: Tokens::default(),
            structured: None,
            variant: None,
            finish: Some("stop".into()),
        }),
        parts: parts(id, bodies),
    }
}

/// `message` with its reply's fields changed by `change` (a user message is left as it is).
pub fn reply_of(
    mut message: MessageWithParts,
    change: impl FnOnce(&mut AssistantMessage),
) -> MessageWithParts {
    if let Message::Assistant(reply) = &mut message.info {
        change(reply);
    }
    message
}

/// The ids of `history`, oldest first.
pub fn ids(history: &[MessageWithParts]) -> Vec<&str> {
    history.iter().map(|message| message.info.id()).collect()
}
