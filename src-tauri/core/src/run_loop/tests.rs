use super::*;
use crate::message::{AssistantMessage, AssistantTime, MessagePath, UserModel, UserTime};
use crate::part::{Part, PartBody, StepStartPart, ToolPart, ToolState};

fn user() -> MessageWithParts {
    MessageWithParts {
        info: Message::User(UserMessage {
            id: "u".into(),
            session_id: "s".into(),
            time: UserTime { created: 1 },
            format: None,
            summary: None,
            agent: "build".into(),
            model: UserModel {
                provider_id: "p".into(),
                model_id: "m".into(),
                variant: None,
            },
            system: None,
            tools: None,
        }),
        parts: Vec::new(),
    }
}

fn assistant(finish: Option<&str>, with_tool: bool) -> MessageWithParts {
    let mut parts = vec![Part {
        id: "p1".into(),
        session_id: "s".into(),
        message_id: "a".into(),
        body: PartBody::StepStart(StepStartPart { snapshot: None }),
    }];
    if with_tool {
        parts.push(Part {
            id: "p2".into(),
            session_id: "s".into(),
            message_id: "a".into(),
            body: PartBody::Tool(ToolPart {
                call_id: "c".into(),
                tool: "read".into(),
                state: ToolState::Pending {
                    input: serde_json::json!({}),
                    raw: String::new(),
                },
                metadata: None,
            }),
        });
    }
    MessageWithParts {
        info: Message::Assistant(AssistantMessage {
            id: "a".into(),
            session_id: "s".into(),
            time: AssistantTime {
                created: 2,
                completed: None,
            },
            error: None,
            parent_id: "u".into(),
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
            finish: finish.map(str::to_string),
        }),
        parts,
    }
}

#[test]
fn exit_test_table() {
    let table: [(&str, Vec<MessageWithParts>, bool); 8] = [
        ("no messages", vec![], false),
        ("only a user message", vec![user()], false),
        (
            "finished reply after the user",
            vec![user(), assistant(Some("stop"), false)],
            true,
        ),
        (
            "reply finished for tool calls",
            vec![user(), assistant(Some("tool-calls"), true)],
            false,
        ),
        (
            "finished but made tool calls",
            vec![user(), assistant(Some("stop"), true)],
            false,
        ),
        (
            "unfinished reply",
            vec![user(), assistant(None, false)],
            false,
        ),
        (
            "new user message after the reply",
            vec![user(), assistant(Some("stop"), false), user()],
            false,
        ),
        (
            "length finish still ends",
            vec![user(), assistant(Some("length"), false)],
            true,
        ),
    ];
    for (name, history, expected) in table {
        assert_eq!(reply_is_complete(&history), expected, "{name}");
    }
}
