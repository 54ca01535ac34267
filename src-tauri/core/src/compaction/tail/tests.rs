use super::*;
use crate::message::{
    AssistantMessage, AssistantTime, MessagePath, UserMessage, UserModel, UserTime,
};
use crate::part::{CompactionPart, Part, TextPart};
use crate::session::Tokens;
use serde_json::json;

fn part(message_id: &str, body: PartBody) -> Part {
    Part {
        id: format!("{message_id}_part"),
        session_id: "s".into(),
        message_id: message_id.into(),
        body,
    }
}

fn text(message_id: &str, tokens: u64) -> Part {
    part(
        message_id,
        PartBody::Text(TextPart {
            text: "x".repeat(tokens as usize * 4),
            ..TextPart::default()
        }),
    )
}

fn user(id: &str, tokens: u64) -> MessageWithParts {
    MessageWithParts {
        info: Message::User(UserMessage {
            id: id.into(),
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
        parts: vec![text(id, tokens)],
    }
}

fn marker(id: &str, tail: Option<&str>) -> MessageWithParts {
    let mut message = user(id, 0);
    message.parts = vec![part(
        id,
        PartBody::Compaction(CompactionPart {
            auto: false,
            overflow: None,
            tail_start_id: tail.map(str::to_string),
        }),
    )];
    message
}

fn assistant(id: &str, parent: &str, tokens: u64, summary: bool) -> MessageWithParts {
    MessageWithParts {
        info: Message::Assistant(AssistantMessage {
            id: id.into(),
            session_id: "s".into(),
            time: AssistantTime {
                created: 2,
                completed: Some(3),
            },
            error: None,
            parent_id: parent.into(),
            model_id: "m".into(),
            provider_id: "p".into(),
            mode: "build".into(),
            agent: "build".into(),
            path: MessagePath {
                cwd: "/".into(),
                root: "/".into(),
            },
            summary: summary.then_some(true),
            cost: 0.0,
            tokens: Tokens::default(),
            structured: None,
            variant: None,
            finish: Some("stop".into()),
        }),
        parts: vec![text(id, tokens)],
    }
}

fn ids(history: &[MessageWithParts]) -> Vec<&str> {
    history.iter().map(|message| message.info.id()).collect()
}

#[test]
fn tail_table() {
    let table: [(&str, Vec<MessageWithParts>, u64, Option<&str>); 6] = [
        (
            "the last two turns fit",
            vec![
                user("u1", 500),
                assistant("a1", "u1", 500, false),
                user("u2", 100),
                assistant("a2", "u2", 100, false),
                user("u3", 100),
                assistant("a3", "u3", 100, false),
            ],
            8_000,
            Some("u2"),
        ),
        (
            "only the last turn fits the budget",
            vec![
                user("u1", 100),
                assistant("a1", "u1", 100, false),
                user("u2", 3_000),
                assistant("a2", "u2", 100, false),
                user("u3", 100),
                assistant("a3", "u3", 100, false),
            ],
            2_000,
            Some("u3"),
        ),
        (
            "a last turn over the budget keeps nothing",
            vec![
                user("u1", 100),
                assistant("a1", "u1", 100, false),
                user("u2", 9_000),
            ],
            8_000,
            None,
        ),
        (
            "the oldest turn is always left to summarise",
            vec![
                user("u1", 100),
                assistant("a1", "u1", 100, false),
                user("u2", 100),
                assistant("a2", "u2", 100, false),
            ],
            8_000,
            Some("u2"),
        ),
        (
            "the tail stops at an earlier summary",
            vec![
                user("u1", 100),
                marker("c1", None),
                assistant("s1", "c1", 100, true),
                user("u2", 100),
                assistant("a2", "u2", 100, false),
            ],
            8_000,
            None,
        ),
        (
            "after an earlier summary, the turn right after it is summarised",
            vec![
                user("u1", 100),
                marker("c1", None),
                assistant("s1", "c1", 100, true),
                user("u2", 100),
                assistant("a2", "u2", 100, false),
                user("u3", 100),
                assistant("a3", "u3", 100, false),
            ],
            8_000,
            Some("u3"),
        ),
    ];
    for (case, history, budget, expected) in table {
        let start = tail_start(&history, budget).map(|index| history[index].info.id());
        assert_eq!(start, expected, "{case}");
    }
}

#[test]
fn budget_is_a_quarter_of_the_usable_context_within_two_to_eight_thousand() {
    let table = [
        (None, 8_000),
        (Some(json!({"context": 200_000, "output": 64_000})), 8_000),
        (Some(json!({"context": 16_000, "output": 4_000})), 3_000),
        (Some(json!({"context": 4_096, "output": 1_000})), 2_000),
    ];
    for (limit, expected) in table {
        assert_eq!(tail_budget(limit.as_ref()), expected, "{limit:?}");
    }
}

#[test]
fn the_kept_tail_is_visible_and_read_after_the_summary() {
    let history = vec![
        user("u1", 100),
        assistant("a1", "u1", 100, false),
        user("u2", 100),
        assistant("a2", "u2", 100, false),
        marker("c1", Some("u2")),
        assistant("s1", "c1", 100, true),
        user("u3", 100),
    ];
    let visible = crate::compaction::visible_history(history);
    assert_eq!(ids(&visible), ["u2", "a2", "c1", "s1", "u3"]);
    assert_eq!(ids(&model_order(visible)), ["c1", "s1", "u2", "a2", "u3"]);
    // Without a tail the order is already right.
    let plain = vec![
        marker("c1", None),
        assistant("s1", "c1", 10, true),
        user("u3", 10),
    ];
    assert_eq!(ids(&model_order(plain)), ["c1", "s1", "u3"]);
}
