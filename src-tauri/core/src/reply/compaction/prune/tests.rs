use super::*;
use crate::wire::part::{ToolCompletedTime, ToolPart};
use crate::wire::test_history::{assistant_message, reply_of, user_message};
use serde_json::json;

/// One message of a test history: a user turn, or an assistant with tool outputs of the given
/// estimated token sizes (`(tool, tokens, already compacted)`).
enum Turn {
    User,
    Tools(Vec<(&'static str, u64, bool)>),
    Summary,
}

fn tool_output(number: usize, tool: &str, tokens: u64, compacted: bool) -> PartBody {
    PartBody::Tool(ToolPart {
        call_id: format!("call_{number}"),
        tool: tool.into(),
        state: ToolState::Completed {
            input: json!({}),
            output: "x".repeat(tokens as usize * 4),
            title: String::new(),
            metadata: json!({}),
            time: ToolCompletedTime {
                start: 1,
                end: 2,
                compacted: compacted.then_some(5),
            },
            attachments: None,
        },
        metadata: None,
    })
}

fn history(turns: &[Turn]) -> Vec<MessageWithParts> {
    turns
        .iter()
        .enumerate()
        .map(|(index, turn)| {
            let id = format!("msg_{index:03}");
            match turn {
                Turn::User => user_message(&id, Vec::new()),
                Turn::Tools(tools) => {
                    let outputs = tools
                        .iter()
                        .enumerate()
                        .map(|(number, (tool, tokens, compacted))| {
                            tool_output(number, tool, *tokens, *compacted)
                        })
                        .collect();
                    assistant_message(&id, "", outputs)
                }
                Turn::Summary => reply_of(assistant_message(&id, "", Vec::new()), |reply| {
                    reply.summary = Some(true);
                }),
            }
        })
        .collect()
}

fn pruned(turns: &[Turn]) -> Vec<String> {
    let history = history(turns);
    outputs_to_prune(&history)
        .into_iter()
        .map(|part| part.id.clone())
        .collect()
}

#[test]
fn prune_table() {
    use Turn::*;
    let table: [(&str, Vec<Turn>, Vec<&str>); 7] = [
        (
            "outputs in the last two turns are kept however large",
            vec![
                User,
                Tools(vec![("read", 90_000, false)]),
                User,
                Tools(vec![("read", 90_000, false)]),
            ],
            vec![],
        ),
        (
            "older outputs beyond 40k protected tokens are pruned, newest kept",
            vec![
                User,
                Tools(vec![("read", 30_000, false), ("grep", 30_000, false)]),
                User,
                Tools(vec![("read", 30_000, false)]),
                User,
                User,
            ],
            // Walking back: 30k kept, then 30k (total 60k > 40k) pruned, then the oldest 30k.
            vec!["msg_001_part_1", "msg_001_part_0"],
        ),
        (
            "too little to free is left alone",
            // 35k kept, then 15k over the window: freeing 15k is not worth it.
            vec![
                User,
                Tools(vec![("read", 15_000, false), ("grep", 35_000, false)]),
                User,
                User,
            ],
            vec![],
        ),
        (
            "skill outputs are protected",
            vec![
                User,
                Tools(vec![("skill", 50_000, false), ("read", 30_000, false)]),
                User,
                Tools(vec![("read", 35_000, false)]),
                User,
                User,
            ],
            vec!["msg_001_part_1"],
        ),
        (
            "the walk stops at an output already pruned",
            vec![
                User,
                Tools(vec![("read", 50_000, false)]),
                Tools(vec![("read", 10_000, true)]),
                User,
                Tools(vec![("read", 30_000, false)]),
                User,
                User,
            ],
            vec![],
        ),
        (
            "the walk stops at a summary",
            vec![
                User,
                Tools(vec![("read", 50_000, false)]),
                User,
                Summary,
                User,
                Tools(vec![("read", 30_000, false)]),
                User,
                User,
            ],
            vec![],
        ),
        (
            "a long session prunes everything older than the protected window",
            vec![
                User,
                Tools(vec![("read", 25_000, false)]),
                User,
                Tools(vec![("read", 25_000, false)]),
                User,
                Tools(vec![("read", 25_000, false)]),
                User,
                User,
            ],
            vec!["msg_003_part_0", "msg_001_part_0"],
        ),
    ];
    for (case, turns, expected) in table {
        assert_eq!(pruned(&turns), expected, "{case}");
    }
}

#[test]
fn estimate_is_four_characters_a_token() {
    assert_eq!(estimate_tokens(""), 0);
    assert_eq!(estimate_tokens("abcd"), 1);
    assert_eq!(estimate_tokens("abcdef"), 2);
    assert_eq!(estimate_tokens(&"x".repeat(40_000)), 10_000);
}
