use super::*;
use crate::wire::session::Tokens;
use crate::wire::test_history::{assistant_message, ids, reply_of, user_message};

fn user(id: &str) -> MessageWithParts {
    user_message(id, Vec::new())
}

fn assistant(id: &str, parent: &str, summary: bool, finished: bool) -> MessageWithParts {
    reply_of(assistant_message(id, parent, Vec::new()), |reply| {
        reply.summary = summary.then_some(true);
        reply.finish = finished.then(|| "stop".into());
    })
}

#[test]
fn history_starts_at_the_newest_completed_compaction() {
    let table: [(&str, Vec<MessageWithParts>, Vec<&str>); 4] = [
        (
            "no compaction",
            vec![user("u1"), assistant("a1", "u1", false, true)],
            vec!["u1", "a1"],
        ),
        (
            "one compaction",
            vec![
                user("u1"),
                assistant("a1", "u1", false, true),
                user("c1"),
                assistant("s1", "c1", true, true),
                user("k1"),
            ],
            vec!["c1", "s1", "k1"],
        ),
        (
            "unfinished summary does not count",
            vec![user("u1"), user("c1"), assistant("s1", "c1", true, false)],
            vec!["u1", "c1", "s1"],
        ),
        (
            "the newest of two compactions",
            vec![
                user("c1"),
                assistant("s1", "c1", true, true),
                user("u2"),
                user("c2"),
                assistant("s2", "c2", true, true),
                user("k2"),
            ],
            vec!["c2", "s2", "k2"],
        ),
    ];
    for (case, history, expected) in table {
        assert_eq!(ids(&visible_history(history)), expected, "{case}");
    }
}

#[test]
fn overflow_table() {
    let tokens = |input: u64, output: u64| Tokens {
        total: None,
        input,
        output,
        reasoning: 0,
        cache: Default::default(),
    };
    let limit = serde_json::json!({"context": 100_000, "output": 30_000});
    let small = serde_json::json!({"context": 8_192, "output": 1_000});
    let table: [(&str, Tokens, Option<&serde_json::Value>, bool); 5] = [
        ("no limit configured", tokens(1_000_000, 0), None, false),
        ("well inside", tokens(50_000, 1_000), Some(&limit), false),
        (
            "reply room capped at 20k",
            tokens(79_000, 1_000),
            Some(&limit),
            true,
        ),
        ("just under", tokens(79_000, 999), Some(&limit), false),
        ("small model", tokens(7_000, 200), Some(&small), true),
    ];
    for (case, tokens, limit, expected) in table {
        assert_eq!(is_overflow(&tokens, limit), expected, "{case}");
    }
}

#[test]
fn the_summary_reads_text_and_the_start_of_each_tool_output() {
    use crate::models::model_messages::ToolResult;
    let long = "é".repeat(SUMMARY_TOOL_OUTPUT_CHARS + 10);
    let image = UserContent::File {
        url: "data:image/png;base64,AAE=".into(),
        media_type: "image/png".into(),
        filename: None,
    };
    let input = vec![
        ModelMessage::User(vec![UserContent::Text("q".into()), image.clone()]),
        ModelMessage::User(vec![image.clone()]),
        ModelMessage::Tool(vec![
            ToolResult {
                call_id: "c1".into(),
                name: "read".into(),
                output: long.clone(),
                is_error: false,
                media: vec![image],
            },
            ToolResult {
                call_id: "c2".into(),
                name: "list".into(),
                output: "short".into(),
                is_error: false,
                media: Vec::new(),
            },
        ]),
    ];
    let output = summary_input(input);
    assert_eq!(output.len(), 2, "the image-only message is gone");
    assert_eq!(
        output[0],
        ModelMessage::User(vec![UserContent::Text("q".into())])
    );
    let ModelMessage::Tool(results) = &output[1] else {
        panic!("tool results stay");
    };
    assert_eq!(
        results[0].output,
        format!("{}\n[…]", "é".repeat(SUMMARY_TOOL_OUTPUT_CHARS))
    );
    assert!(results[0].media.is_empty());
    assert_eq!(results[1].output, "short");
}
