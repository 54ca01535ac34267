use super::*;
use crate::wire::part::{CompactionPart, TextPart};
use crate::wire::test_history::{assistant_message, ids, reply_of, user_message};
use serde_json::json;

/// Text of about `tokens` estimated tokens.
fn text(tokens: u64) -> PartBody {
    PartBody::Text(TextPart {
        text: "x".repeat(tokens as usize * 4),
        ..TextPart::default()
    })
}

fn user(id: &str, tokens: u64) -> MessageWithParts {
    user_message(id, vec![text(tokens)])
}

fn marker(id: &str, tail: Option<&str>) -> MessageWithParts {
    user_message(
        id,
        vec![PartBody::Compaction(CompactionPart {
            auto: false,
            overflow: None,
            tail_start_id: tail.map(str::to_string),
        })],
    )
}

fn assistant(id: &str, parent: &str, tokens: u64, summary: bool) -> MessageWithParts {
    reply_of(assistant_message(id, parent, vec![text(tokens)]), |reply| {
        reply.summary = summary.then_some(true);
    })
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
    let visible = crate::reply::compaction::visible_history(history);
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
