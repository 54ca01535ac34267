//! Table tests of the conversion rules (reference §5.5).

use super::*;
use crate::wire::assistant_error::{ApiErrorData, AssistantError};
use crate::wire::message::{MessageWithParts, ModelRef};
use crate::wire::part::{
    AgentPart, CompactionPart, FilePart, Part, PartBody, PartTime, ReasoningPart, StepFinishPart,
    StepStartPart, SubtaskPart, TextPart, ToolCompletedTime, ToolEndTime, ToolPart, ToolStartTime,
    ToolState,
};
use crate::wire::session::Tokens;
use crate::wire::test_history::{assistant_message, part, reply_of, user_message, MODEL, PROVIDER};
use serde_json::json;

fn current() -> ModelRef {
    ModelRef::new(PROVIDER, MODEL)
}

fn user(parts: Vec<PartBody>) -> MessageWithParts {
    user_message("msg_user", parts)
}

fn assistant_from(
    model: (&str, &str),
    error: Option<AssistantError>,
    parts: Vec<PartBody>,
) -> MessageWithParts {
    reply_of(
        assistant_message("msg_assistant", "msg_user", parts),
        |reply| {
            reply.provider_id = model.0.into();
            reply.model_id = model.1.into();
            reply.error = error;
        },
    )
}

fn assistant(parts: Vec<PartBody>) -> MessageWithParts {
    assistant_message("msg_assistant", "msg_user", parts)
}

fn text(text: &str) -> PartBody {
    PartBody::Text(TextPart {
        text: text.into(),
        ..TextPart::default()
    })
}

fn synthetic(text: &str) -> PartBody {
    PartBody::synthetic_text(text)
}

fn ignored(text: &str) -> PartBody {
    PartBody::Text(TextPart {
        text: text.into(),
        ignored: Some(true),
        ..TextPart::default()
    })
}

fn file(mime: &str, url: &str) -> PartBody {
    PartBody::File(FilePart {
        mime: mime.into(),
        filename: Some("f".into()),
        url: url.into(),
        source: None,
    })
}

fn reasoning(text: &str) -> PartBody {
    PartBody::Reasoning(ReasoningPart {
        text: text.into(),
        metadata: None,
        time: PartTime {
            start: 1,
            end: Some(2),
        },
    })
}

fn signed_reasoning(text: &str, signature: &str) -> PartBody {
    PartBody::Reasoning(ReasoningPart {
        text: text.into(),
        metadata: Some(json!({"anthropic": {"signature": signature}})),
        time: PartTime {
            start: 1,
            end: Some(2),
        },
    })
}

fn redacted_reasoning(data: &str) -> PartBody {
    PartBody::Reasoning(ReasoningPart {
        text: String::new(),
        metadata: Some(json!({"anthropic": {"redactedData": data}})),
        time: PartTime {
            start: 1,
            end: Some(2),
        },
    })
}

fn step_start() -> PartBody {
    PartBody::StepStart(StepStartPart { snapshot: None })
}

fn step_finish() -> PartBody {
    PartBody::StepFinish(StepFinishPart {
        reason: "stop".into(),
        snapshot: None,
        cost: 0.0,
        tokens: Tokens::default(),
    })
}

fn tool(call_id: &str, state: ToolState) -> PartBody {
    PartBody::Tool(ToolPart {
        call_id: call_id.into(),
        tool: "read".into(),
        state,
        metadata: None,
    })
}

fn completed(output: &str, compacted: Option<i64>, attachments: Option<Vec<Part>>) -> ToolState {
    ToolState::Completed {
        input: json!({"filePath": "a"}),
        output: output.into(),
        title: "a".into(),
        metadata: json!({}),
        time: ToolCompletedTime {
            start: 1,
            end: 2,
            compacted,
        },
        attachments,
    }
}

fn errored(error: &str, metadata: Option<serde_json::Value>) -> ToolState {
    ToolState::Error {
        input: json!({"filePath": "a"}),
        error: error.into(),
        metadata,
        time: ToolEndTime { start: 1, end: 2 },
    }
}

fn call(call_id: &str) -> AssistantContent {
    AssistantContent::ToolCall {
        call_id: call_id.into(),
        name: "read".into(),
        input: json!({"filePath": "a"}),
    }
}

fn result(call_id: &str, output: &str, is_error: bool) -> ToolResult {
    ToolResult {
        media: Vec::new(),
        call_id: call_id.into(),
        name: "read".into(),
        output: output.into(),
        is_error,
    }
}

fn user_text(text: &str) -> ModelMessage {
    ModelMessage::User(vec![UserContent::Text(text.into())])
}

fn aborted() -> Option<AssistantError> {
    Some(AssistantError::MessageAbortedError {
        message: "aborted".into(),
    })
}

#[test]
fn conversion_table() {
    let image = file("image/png", "data:image/png;base64,AA==");
    let cases: Vec<(&str, Vec<MessageWithParts>, Vec<ModelMessage>)> = vec![
        (
            "plain user text",
            vec![user(vec![text("hi")])],
            vec![user_text("hi")],
        ),
        (
            "message without parts is skipped",
            vec![user(vec![]), user(vec![text("hi")])],
            vec![user_text("hi")],
        ),
        (
            "synthetic text is sent",
            vec![user(vec![synthetic("Called the Read tool"), text("q")])],
            vec![ModelMessage::User(vec![
                UserContent::Text("Called the Read tool".into()),
                UserContent::Text("q".into()),
            ])],
        ),
        (
            "ignored text is not sent",
            vec![user(vec![ignored("x"), text("q")])],
            vec![user_text("q")],
        ),
        (
            "empty text is not sent",
            vec![user(vec![text(""), text("q")])],
            vec![user_text("q")],
        ),
        (
            "text/plain file is not re-sent",
            vec![user(vec![file("text/plain", "file:///a.txt"), text("q")])],
            vec![user_text("q")],
        ),
        (
            "directory is not re-sent",
            vec![user(vec![
                file("application/x-directory", "file:///d"),
                text("q"),
            ])],
            vec![user_text("q")],
        ),
        (
            "image file is sent",
            vec![user(vec![text("q"), image.clone()])],
            vec![ModelMessage::User(vec![
                UserContent::Text("q".into()),
                UserContent::File {
                    url: "data:image/png;base64,AA==".into(),
                    media_type: "image/png".into(),
                    filename: Some("f".into()),
                },
            ])],
        ),
        (
            "pdf file is sent",
            vec![user(vec![file(
                "application/pdf",
                "data:application/pdf;base64,AA==",
            )])],
            vec![ModelMessage::User(vec![UserContent::File {
                url: "data:application/pdf;base64,AA==".into(),
                media_type: "application/pdf".into(),
                filename: Some("f".into()),
            }])],
        ),
        (
            "compaction part asks what was done",
            vec![user(vec![PartBody::Compaction(CompactionPart {
                auto: true,
                overflow: None,
                tail_start_id: None,
            })])],
            vec![user_text(COMPACTION_TEXT)],
        ),
        (
            "subtask part says a tool ran",
            vec![user(vec![PartBody::Subtask(SubtaskPart {
                prompt: "p".into(),
                description: "d".into(),
                agent: "general".into(),
                model: None,
                command: None,
            })])],
            vec![user_text(SUBTASK_TEXT)],
        ),
        (
            "agent part emits nothing",
            vec![user(vec![
                PartBody::Agent(AgentPart {
                    name: "plan".into(),
                    source: None,
                }),
                text("q"),
            ])],
            vec![user_text("q")],
        ),
        (
            "user with only an agent part is dropped",
            vec![user(vec![PartBody::Agent(AgentPart {
                name: "plan".into(),
                source: None,
            })])],
            vec![],
        ),
        (
            "assistant text",
            vec![assistant(vec![step_start(), text("answer"), step_finish()])],
            vec![ModelMessage::Assistant(vec![AssistantContent::Text(
                "answer".into(),
            )])],
        ),
        (
            "assistant with only a step start is dropped",
            vec![assistant(vec![step_start()])],
            vec![],
        ),
        (
            "assistant empty text is dropped",
            vec![assistant(vec![step_start(), text("")])],
            vec![],
        ),
        (
            "same-model reasoning stays reasoning",
            vec![assistant(vec![step_start(), reasoning("hmm"), text("a")])],
            vec![ModelMessage::Assistant(vec![
                AssistantContent::Reasoning {
                    text: "hmm".into(),
                    signature: None,
                },
                AssistantContent::Text("a".into()),
            ])],
        ),
        (
            "other-model reasoning becomes text",
            vec![assistant_from(
                ("other", "m"),
                None,
                vec![step_start(), reasoning("hmm"), text("a")],
            )],
            vec![ModelMessage::Assistant(vec![
                AssistantContent::Text("hmm".into()),
                AssistantContent::Text("a".into()),
            ])],
        ),
        (
            "same-model signed reasoning keeps its signature",
            vec![assistant(vec![
                step_start(),
                signed_reasoning("hmm", "EqQB"),
                text("a"),
            ])],
            vec![ModelMessage::Assistant(vec![
                AssistantContent::Reasoning {
                    text: "hmm".into(),
                    signature: Some("EqQB".into()),
                },
                AssistantContent::Text("a".into()),
            ])],
        ),
        (
            "other-model signed reasoning becomes text without its signature",
            vec![assistant_from(
                ("other", "m"),
                None,
                vec![step_start(), signed_reasoning("hmm", "EqQB"), text("a")],
            )],
            vec![ModelMessage::Assistant(vec![
                AssistantContent::Text("hmm".into()),
                AssistantContent::Text("a".into()),
            ])],
        ),
        (
            "same-model redacted reasoning is replayed as its data",
            vec![assistant(vec![
                step_start(),
                redacted_reasoning("EmwKAhgB"),
                text("a"),
            ])],
            vec![ModelMessage::Assistant(vec![
                AssistantContent::RedactedReasoning("EmwKAhgB".into()),
                AssistantContent::Text("a".into()),
            ])],
        ),
        (
            "other-model redacted reasoning is dropped",
            vec![assistant_from(
                ("other", "m"),
                None,
                vec![step_start(), redacted_reasoning("EmwKAhgB"), text("a")],
            )],
            vec![ModelMessage::Assistant(vec![AssistantContent::Text(
                "a".into(),
            )])],
        ),
        (
            "empty signed reasoning is dropped",
            vec![assistant(vec![
                step_start(),
                signed_reasoning("", "EqQB"),
                text("a"),
            ])],
            vec![ModelMessage::Assistant(vec![AssistantContent::Text(
                "a".into(),
            )])],
        ),
        (
            "completed tool becomes call and result",
            vec![assistant(vec![
                step_start(),
                tool("c1", completed("out", None, None)),
            ])],
            vec![
                ModelMessage::Assistant(vec![call("c1")]),
                ModelMessage::Tool(vec![result("c1", "out", false)]),
            ],
        ),
        (
            "compacted tool output is cleared",
            vec![assistant(vec![tool("c1", completed("out", Some(5), None))])],
            vec![
                ModelMessage::Assistant(vec![call("c1")]),
                ModelMessage::Tool(vec![result("c1", COMPACTED_OUTPUT, false)]),
            ],
        ),
        (
            "tool media moves to a user message",
            vec![assistant(vec![tool(
                "c1",
                completed(
                    "Image read successfully",
                    None,
                    Some(vec![part("msg_assistant", 1, image.clone())]),
                ),
            )])],
            vec![
                ModelMessage::Assistant(vec![call("c1")]),
                ModelMessage::Tool(vec![result("c1", "Image read successfully", false)]),
                ModelMessage::User(vec![
                    UserContent::Text(TOOL_MEDIA_TEXT.into()),
                    UserContent::File {
                        url: "data:image/png;base64,AA==".into(),
                        media_type: "image/png".into(),
                        filename: Some("f".into()),
                    },
                ]),
            ],
        ),
        (
            "errored tool becomes an error result",
            vec![assistant(vec![tool(
                "c1",
                errored("File not found: a", None),
            )])],
            vec![
                ModelMessage::Assistant(vec![call("c1")]),
                ModelMessage::Tool(vec![result("c1", "File not found: a", true)]),
            ],
        ),
        (
            "interrupted tool with partial output sends the output",
            vec![assistant(vec![tool(
                "c1",
                errored(
                    "Tool execution aborted",
                    Some(json!({"interrupted": true, "output": "partial"})),
                ),
            )])],
            vec![
                ModelMessage::Assistant(vec![call("c1")]),
                ModelMessage::Tool(vec![result("c1", "partial", false)]),
            ],
        ),
        (
            "interrupted tool without output stays an error",
            vec![assistant(vec![tool(
                "c1",
                errored("Tool execution aborted", Some(json!({"interrupted": true}))),
            )])],
            vec![
                ModelMessage::Assistant(vec![call("c1")]),
                ModelMessage::Tool(vec![result("c1", "Tool execution aborted", true)]),
            ],
        ),
        (
            "pending tool becomes interrupted",
            vec![assistant(vec![tool(
                "c1",
                ToolState::Pending {
                    input: json!({"filePath": "a"}),
                    raw: String::new(),
                },
            )])],
            vec![
                ModelMessage::Assistant(vec![call("c1")]),
                ModelMessage::Tool(vec![result("c1", INTERRUPTED_TOOL, true)]),
            ],
        ),
        (
            "running tool becomes interrupted",
            vec![assistant(vec![tool(
                "c1",
                ToolState::Running {
                    input: json!({"filePath": "a"}),
                    title: None,
                    metadata: None,
                    time: ToolStartTime { start: 1 },
                },
            )])],
            vec![
                ModelMessage::Assistant(vec![call("c1")]),
                ModelMessage::Tool(vec![result("c1", INTERRUPTED_TOOL, true)]),
            ],
        ),
        (
            "two steps become two assistant messages with results between",
            vec![assistant(vec![
                step_start(),
                tool("c1", completed("out", None, None)),
                step_finish(),
                step_start(),
                text("done"),
            ])],
            vec![
                ModelMessage::Assistant(vec![call("c1")]),
                ModelMessage::Tool(vec![result("c1", "out", false)]),
                ModelMessage::Assistant(vec![AssistantContent::Text("done".into())]),
            ],
        ),
        (
            "aborted assistant with text is kept",
            vec![assistant_from(
                ("fake", "fake-model"),
                aborted(),
                vec![step_start(), text("partial")],
            )],
            vec![ModelMessage::Assistant(vec![AssistantContent::Text(
                "partial".into(),
            )])],
        ),
        (
            "aborted assistant with only reasoning is dropped",
            vec![assistant_from(
                ("fake", "fake-model"),
                aborted(),
                vec![step_start(), reasoning("hmm")],
            )],
            vec![],
        ),
        (
            "assistant with another error is dropped",
            vec![assistant_from(
                ("fake", "fake-model"),
                Some(AssistantError::ApiError(ApiErrorData {
                    message: "x".into(),
                    status_code: Some(500),
                    is_retryable: true,
                    response_headers: None,
                    response_body: None,
                    metadata: None,
                })),
                vec![step_start(), text("partial")],
            )],
            vec![],
        ),
        (
            "auth-errored assistant is dropped",
            vec![assistant_from(
                ("fake", "fake-model"),
                Some(AssistantError::ProviderAuthError {
                    provider_id: "fake".into(),
                    message: "no".into(),
                }),
                vec![text("x")],
            )],
            vec![],
        ),
        (
            "order is kept across turns",
            vec![
                user(vec![text("q1")]),
                assistant(vec![step_start(), text("a1")]),
                user(vec![text("q2")]),
            ],
            vec![
                user_text("q1"),
                ModelMessage::Assistant(vec![AssistantContent::Text("a1".into())]),
                user_text("q2"),
            ],
        ),
        (
            "step-finish and snapshot-like parts emit nothing",
            vec![assistant(vec![step_finish()])],
            vec![],
        ),
    ];
    for (name, history, expected) in cases {
        assert_eq!(to_model_messages(&history, &current()), expected, "{name}");
    }
}

#[test]
fn late_user_text_is_wrapped_only_after_the_finished_reply() {
    let first = user_message("msg_1", vec![text("first")]);
    let finished = assistant_message("msg_2", "msg_1", vec![text("a")]);
    let late = user_message(
        "msg_3",
        vec![text("also this"), synthetic("inlined file"), ignored("x")],
    );
    let mut history = vec![first, finished, late];
    wrap_late_user_text(&mut history, "msg_2");
    assert_eq!(
        to_model_messages(&history[..1], &current()),
        vec![user_text("first")]
    );
    assert_eq!(
        to_model_messages(&history[2..], &current()),
        vec![ModelMessage::User(vec![
            UserContent::Text("<system-reminder>\nThe user sent the following message:\nalso this\n\nPlease address this message and continue with your tasks.\n</system-reminder>".into()),
            UserContent::Text("inlined file".into()),
        ])]
    );
}

#[test]
fn tool_media_stays_in_the_result_for_providers_that_take_it() {
    let image = file("image/png", "data:image/png;base64,AA==");
    let history = vec![assistant(vec![tool(
        "c1",
        completed(
            "Image read successfully",
            None,
            Some(vec![part("msg_assistant", 1, image)]),
        ),
    )])];
    let inside = to_model_messages_for(&history, &current(), true);
    let mut expected = result("c1", "Image read successfully", false);
    expected.media = vec![UserContent::File {
        url: "data:image/png;base64,AA==".into(),
        media_type: "image/png".into(),
        filename: Some("f".into()),
    }];
    assert_eq!(
        inside,
        vec![
            ModelMessage::Assistant(vec![call("c1")]),
            ModelMessage::Tool(vec![expected])
        ]
    );
    assert_eq!(
        to_model_messages(&history, &current()).len(),
        3,
        "elsewhere a user message carries it"
    );
}
