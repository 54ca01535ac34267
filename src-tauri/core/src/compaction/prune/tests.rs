use super::*;
use crate::message::{
    AssistantMessage, AssistantTime, MessagePath, UserMessage, UserModel, UserTime,
};
use crate::part::{ToolCompletedTime, ToolPart};
use crate::session::Tokens;
use serde_json::json;

/// One message of a test history: a user turn, or an assistant with tool outputs of the given
/// estimated token sizes (`(tool, tokens, already compacted)`).
enum Turn {
    User,
    Tools(Vec<(&'static str, u64, bool)>),
    Summary,
}

fn history(turns: &[Turn]) -> Vec<MessageWithParts> {
    turns
        .iter()
        .enumerate()
        .map(|(index, turn)| {
            let id = format!("msg_{index:03}");
            match turn {
                Turn::User => MessageWithParts {
                    info: Message::User(UserMessage {
                        id,
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
                },
                Turn::Tools(_) | Turn::Summary => {
                    let tools: &[(&str, u64, bool)] = match turn {
                        Turn::Tools(tools) => tools,
                        _ => &[],
                    };
                    MessageWithParts {
                        info: Message::Assistant(AssistantMessage {
                            id: id.clone(),
                            session_id: "s".into(),
                            time: AssistantTime {
                                created: 2,
                                completed: Some(3),
                            },
                            error: None,
                            parent_id: String::new(),
                            model_id: "m".into(),
                            provider_id: "p".into(),
                            mode: "build".into(),
                            agent: "build".into(),
                            path: MessagePath {
                                cwd: "/".into(),
                                root: "/".into(),
                            },
                            summary: matches!(turn, Turn::Summary).then_some(true),
                            cost: 0.0,
                            tokens: Tokens::default(),
                            structured: None,
                            variant: None,
                            finish: Some("stop".into()),
                        }),
                        parts: tools
                            .iter()
                            .enumerate()
                            .map(|(number, (tool, tokens, compacted))| Part {
                                id: format!("{id}_part_{number}"),
                                session_id: "s".into(),
                                message_id: id.clone(),
                                body: PartBody::Tool(ToolPart {
                                    call_id: format!("call_{number}"),
                                    tool: (*tool).into(),
                                    state: ToolState::Completed {
                                        input: json!({}),
                                        output: "x".repeat(*tokens as usize * 4),
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
                                }),
                            })
                            .collect(),
                    }
                }
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
