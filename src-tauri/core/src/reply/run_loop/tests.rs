use super::*;
use crate::wire::part::{PartBody, StepStartPart, ToolPart, ToolState};
use crate::wire::test_history::{assistant_message, reply_of, user_message};

fn user() -> MessageWithParts {
    user_message("u", Vec::new())
}

fn assistant(finish: Option<&str>, with_tool: bool) -> MessageWithParts {
    let mut parts = vec![PartBody::StepStart(StepStartPart { snapshot: None })];
    if with_tool {
        parts.push(PartBody::Tool(ToolPart {
            call_id: "c".into(),
            tool: "read".into(),
            state: ToolState::Pending {
                input: serde_json::json!({}),
                raw: String::new(),
            },
            metadata: None,
        }));
    }
    reply_of(assistant_message("a", "u", parts), |reply| {
        reply.time.completed = None;
        reply.finish = finish.map(str::to_string);
    })
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
