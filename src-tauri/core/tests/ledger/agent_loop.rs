//! The agent loop against the offline model and a fake OpenAI-compatible server on 127.0.0.1:
//! stored parts, the event sequence, tools across steps, errors, retries, cuts, aborts and a
//! second prompt joining a run.

use crate::fake_provider::*;
use crate::support::*;
use dossier_core::assistant_error::AssistantError;
use dossier_core::draft::{Draft, PromptInput};
use dossier_core::event::{Event, EventPayload, SessionStatus};
use dossier_core::message::{Message, MessageWithParts};
use dossier_core::part::{PartBody, ToolState};
use serde_json::Value;
use std::time::Duration;

pub fn reply_input(parts: Vec<Draft>) -> PromptInput {
    PromptInput {
        parts,
        ..PromptInput::default()
    }
}

pub async fn ask(test: &TestLedger, session_id: &str, text: &str) -> MessageWithParts {
    test.ledger
        .prompt(session_id, reply_input(vec![Draft::text(text)]))
        .await
        .unwrap_or_else(|error| panic!("{error}"))
}

/// The events of the reply, one readable line each (title and session updates left out).
pub fn story(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match &event.payload {
            EventPayload::SessionStatus { status, .. } => Some(format!(
                "status {}",
                match status {
                    SessionStatus::Idle => "idle".to_string(),
                    SessionStatus::Busy => "busy".to_string(),
                    SessionStatus::Retry { attempt, .. } => format!("retry {attempt}"),
                }
            )),
            EventPayload::SessionIdle { .. } => Some("idle".into()),
            EventPayload::SessionError { error, .. } => Some(format!(
                "error {}",
                serde_json::to_value(error)
                    .ok()
                    .and_then(|value| value.get("name").cloned())
                    .unwrap_or(Value::Null)
            )),
            EventPayload::MessageUpdated {
                info: Message::Assistant(assistant),
                ..
            } => Some(format!(
                "assistant{}{}{}",
                assistant
                    .finish
                    .as_deref()
                    .map(|finish| format!(" finish={finish}"))
                    .unwrap_or_default(),
                if assistant.time.completed.is_some() {
                    " completed"
                } else {
                    ""
                },
                if assistant.error.is_some() {
                    " error"
                } else {
                    ""
                }
            )),
            EventPayload::MessageUpdated { .. } => Some("user".into()),
            EventPayload::PartUpdated { part, .. } => Some(match &part.body {
                PartBody::Text(text) => format!("text {:?}", text.text),
                PartBody::Reasoning(reasoning) => format!("reasoning {:?}", reasoning.text),
                PartBody::Tool(tool) => format!(
                    "tool {} {}",
                    tool.tool,
                    match &tool.state {
                        ToolState::Pending { .. } => "pending",
                        ToolState::Running { .. } => "running",
                        ToolState::Completed { .. } => "completed",
                        ToolState::Error { .. } => "error",
                    }
                ),
                PartBody::StepFinish(finish) => format!("step-finish {}", finish.reason),
                other => other.type_name().to_string(),
            }),
            EventPayload::PartDelta { delta, .. } => Some(format!("delta {delta:?}")),
            _ => None,
        })
        .collect()
}

fn strings(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|line| line.to_string()).collect()
}

pub fn assistant_of(message: &MessageWithParts) -> &dossier_core::message::AssistantMessage {
    match &message.info {
        Message::Assistant(assistant) => assistant,
        Message::User(_) => panic!("expected an assistant message, got a user message"),
    }
}

pub fn text_of(message: &MessageWithParts) -> String {
    message
        .parts
        .iter()
        .filter_map(|part| match &part.body {
            PartBody::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect()
}

pub async fn wait_for(
    receiver: &mut tokio::sync::broadcast::Receiver<Event>,
    mut wanted: impl FnMut(&Event) -> bool,
) -> Vec<Event> {
    let mut seen = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        match tokio::time::timeout_at(deadline, receiver.recv()).await {
            Ok(Ok(event)) => {
                let done = wanted(&event);
                seen.push(event);
                if done {
                    return seen;
                }
            }
            Ok(Err(error)) => panic!("event channel: {error}"),
            Err(_) => panic!("timed out; saw {:?}", story(&seen)),
        }
    }
}

#[tokio::test]
async fn offline_model_answers_with_what_it_received() {
    let test = open("{}").await;
    let notes = test.write("notes.txt", "alpha\nbeta\ngamma\n");
    let session = test.session().await;
    let mut events = test.ledger.events().subscribe();
    let reply = test
        .ledger
        .prompt(
            &session.id,
            reply_input(vec![
                Draft::text("What is in my notes?"),
                file_draft(&notes),
            ]),
        )
        .await
        .unwrap_or_else(|error| panic!("{error}"));

    let assistant = assistant_of(&reply);
    assert_eq!(
        (assistant.provider_id.as_str(), assistant.model_id.as_str()),
        ("dossier", "offline")
    );
    assert_eq!(assistant.finish.as_deref(), Some("stop"));
    assert!(assistant.time.completed.is_some());
    assert_eq!(assistant.path.cwd, test.work().display().to_string());
    assert_eq!(describe(&reply.parts)[0], "step-start");
    let text = text_of(&reply);
    assert!(text.starts_with("I am Dossier's offline model."), "{text}");
    assert!(
        text.contains("- notes.txt (text/plain, 17 bytes, 3 lines)"),
        "{text}"
    );
    assert!(
        text.contains("Your question: \"What is in my notes?\""),
        "{text}"
    );

    let seen = story(&drain(&mut events));
    let reply_events: Vec<String> = seen
        .iter()
        .skip_while(|line| *line != "status busy")
        .cloned()
        .collect();
    assert_eq!(
        reply_events[..4],
        strings(&["status busy", "assistant", "step-start", "text \"\""])
    );
    let deltas: String = reply_events
        .iter()
        .filter_map(|line| line.strip_prefix("delta "))
        .map(|quoted| serde_json::from_str::<String>(quoted).unwrap_or_default())
        .collect();
    assert_eq!(deltas, text, "the deltas add up to the stored text");
    let tail = &reply_events[reply_events.len() - 6..];
    assert_eq!(
        tail,
        strings(&[
            &format!("text {text:?}"),
            "step-finish stop",
            "assistant finish=stop",
            "assistant finish=stop completed",
            "status idle",
            "idle",
        ])
    );
    // The offline model titles the session with the first line of the question.
    for _ in 0..500 {
        if test
            .ledger
            .session(&session.id)
            .await
            .map(|session| session.title)
            .ok()
            .as_deref()
            == Some("What is in my notes?")
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the session was not titled");
}

#[tokio::test]
async fn plain_text_streams_into_a_text_part_with_the_reference_event_sequence() {
    let fake = FakeProvider::start(vec![openai_text(&[
        "Hello ",
        "from ",
        "the ",
        "fake ",
        "provider.",
    ])])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let mut events = test.ledger.events().subscribe();
    let reply = ask(&test, &session.id, "explain this project").await;

    let assistant = assistant_of(&reply);
    assert_eq!(assistant.finish.as_deref(), Some("stop"));
    assert_eq!(assistant.tokens.input, 42);
    assert_eq!(assistant.tokens.output, 11);
    assert_eq!(assistant.tokens.total, Some(53));
    assert_eq!(
        describe(&reply.parts),
        strings(&[
            "step-start",
            "text: Hello from the fake provider.",
            "step-finish"
        ])
    );
    let stored = test
        .ledger
        .messages(&session.id, &Default::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        stored.messages.last(),
        Some(&reply),
        "what was returned is what was stored"
    );

    let seen: Vec<String> = story(&drain(&mut events))
        .into_iter()
        .skip_while(|line| line != "status busy")
        .collect();
    assert_eq!(
        seen,
        strings(&[
            "status busy",
            "assistant",
            "step-start",
            "text \"\"",
            "delta \"Hello \"",
            "delta \"from \"",
            "delta \"the \"",
            "delta \"fake \"",
            "delta \"provider.\"",
            "text \"Hello from the fake provider.\"",
            "step-finish stop",
            "assistant finish=stop",
            "assistant finish=stop completed",
            "status idle",
            "idle",
        ])
    );
    let request = &fake.requests()[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert!(request.headers.to_ascii_lowercase().contains(&format!(
        "authorization: bearer {}",
        API_KEY.to_ascii_lowercase()
    )));
    assert_eq!(request.body["model"], "fake-model");
    assert_eq!(request.body["stream"], true);
    let messages = request.body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(
        messages.last().map(|message| message["content"].clone()),
        Some(Value::from("explain this project"))
    );
    assert_eq!(
        test.ledger.status().len(),
        0,
        "idle sessions are not listed"
    );
}

#[tokio::test]
async fn reasoning_is_stored_as_its_own_part_before_the_text() {
    let fake = FakeProvider::start(vec![openai_reasoning_then_text(
        &["Let me ", "think."],
        &["Done."],
    )])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let reply = ask(&test, &session.id, "hello").await;
    let kinds: Vec<String> = reply
        .parts
        .iter()
        .map(|part| match &part.body {
            PartBody::Reasoning(reasoning) => format!(
                "reasoning: {} (ended {})",
                reasoning.text,
                reasoning.time.end.is_some()
            ),
            _ => describe(std::slice::from_ref(part)).remove(0),
        })
        .collect();
    assert_eq!(
        kinds,
        strings(&[
            "step-start",
            "reasoning: Let me think. (ended true)",
            "text: Done.",
            "step-finish"
        ])
    );
}

#[tokio::test]
async fn tool_calls_run_the_read_tool_and_the_loop_takes_a_second_step() {
    let fake = FakeProvider::start(vec![
        openai_tool_call("call_1", "read", r#"{"filePath": "notes.txt"}"#),
        openai_text(&["The notes ", "say alpha."]),
    ])
    .await;
    let test = open(&fake.openai_config()).await;
    test.write("notes.txt", "alpha\nbeta\n");
    let session = test.session().await;
    let mut events = test.ledger.events().subscribe();
    let reply = ask(&test, &session.id, "what do the notes say?").await;
    assert_eq!(text_of(&reply), "The notes say alpha.");

    let stored = test
        .ledger
        .messages(&session.id, &Default::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .messages;
    assert_eq!(stored.len(), 3, "user, the tool step, the answer");
    let first = &stored[1];
    assert_eq!(assistant_of(first).finish.as_deref(), Some("tool-calls"));
    assert_eq!(
        assistant_of(&stored[2]).parent_id,
        stored[0].info.id(),
        "both steps answer the user message"
    );
    let tool = first
        .parts
        .iter()
        .find_map(|part| match &part.body {
            PartBody::Tool(tool) => Some(tool.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no tool part"));
    assert_eq!(
        (tool.call_id.as_str(), tool.tool.as_str()),
        ("call_1", "read")
    );
    match &tool.state {
        ToolState::Completed {
            input,
            output,
            title,
            ..
        } => {
            assert_eq!(input["filePath"], "notes.txt");
            assert!(output.contains("1: alpha\n2: beta"), "{output}");
            assert_eq!(title, "notes.txt");
        }
        other => panic!("tool not completed: {other:?}"),
    }
    let seen = story(&drain(&mut events));
    let tool_lines: Vec<&String> = seen
        .iter()
        .filter(|line| line.starts_with("tool "))
        .collect();
    assert_eq!(
        tool_lines,
        [
            "tool read pending",
            "tool read running",
            "tool read completed"
        ]
    );

    let second = &fake.requests()[1].body;
    let messages = second["messages"].as_array().cloned().unwrap_or_default();
    let call = &messages[messages.len() - 2];
    assert_eq!(call["role"], "assistant");
    assert_eq!(call["tool_calls"][0]["id"], "call_1");
    assert_eq!(call["tool_calls"][0]["function"]["name"], "read");
    let result = &messages[messages.len() - 1];
    assert_eq!(result["role"], "tool");
    assert_eq!(result["tool_call_id"], "call_1");
    assert!(result["content"]
        .as_str()
        .unwrap_or("")
        .contains("1: alpha"));
    let tools: Vec<Value> = fake.requests()[0].body["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let names: Vec<&str> = tools
        .iter()
        .filter_map(|tool| tool["function"]["name"].as_str())
        .collect();
    assert_eq!(names, ["read", "list", "glob", "grep"]);
}

#[tokio::test]
async fn tools_cannot_leave_the_session_folder_and_denied_reads_are_refused() {
    let fake = FakeProvider::start(vec![
        openai_tool_call("call_1", "read", r#"{"filePath": "../../etc/passwd"}"#),
        openai_tool_call("call_2", "read", r#"{"filePath": "secrets.env"}"#),
        openai_text(&["ok"]),
    ])
    .await;
    let test = open(&fake.openai_config()).await;
    test.write("secrets.env", "KEY=1");
    let session = test.session().await;
    ask(&test, &session.id, "read things").await;
    let stored = test
        .ledger
        .messages(&session.id, &Default::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .messages;
    let errors: Vec<String> = stored
        .iter()
        .flat_map(|message| message.parts.iter())
        .filter_map(|part| match &part.body {
            PartBody::Tool(tool) => match &tool.state {
                ToolState::Error { error, .. } => Some(error.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].contains("outside the session folder"),
        "{}",
        errors[0]
    );
    assert!(
        errors[1].contains("needs the user's permission"),
        "{}",
        errors[1]
    );
}

#[tokio::test]
async fn unauthorized_becomes_provider_auth_error_and_the_key_goes_nowhere() {
    let fake = FakeProvider::start(vec![status(
        401,
        &[],
        serde_json::json!({"error": {"message": format!("Incorrect API key provided: {API_KEY}"), "type": "invalid_request_error"}}),
    )])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let mut events = test.ledger.events().subscribe();
    let reply = ask(&test, &session.id, "hello").await;
    let assistant = assistant_of(&reply);
    assert_eq!(
        assistant.error,
        Some(AssistantError::ProviderAuthError {
            provider_id: "fake".into(),
            message: "Incorrect API key provided: [redacted]".into()
        })
    );
    assert!(assistant.time.completed.is_some());
    let seen = drain(&mut events);
    assert!(story(&seen).contains(&"error \"ProviderAuthError\"".to_string()));
    let all_events =
        serde_json::to_string(&seen.iter().map(|event| &event.payload).collect::<Vec<_>>())
            .unwrap_or_default();
    assert!(!all_events.contains(API_KEY), "the key leaked into events");
    let database =
        std::fs::read(test.folder.path().join("data").join("dossier.db")).unwrap_or_default();
    assert!(
        !String::from_utf8_lossy(&database).contains(API_KEY),
        "the key leaked into the database"
    );
}

#[tokio::test]
async fn rate_limit_is_retried_after_retry_after_ms_with_a_retry_status() {
    let fake = FakeProvider::start(vec![
        status(
            429,
            &[("retry-after-ms", "120")],
            serde_json::json!({"error": {"message": "Rate limit reached"}}),
        ),
        openai_text(&["Finally."]),
    ])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let mut events = test.ledger.events().subscribe();
    let started = std::time::Instant::now();
    let reply = ask(&test, &session.id, "hello").await;
    assert!(started.elapsed() >= Duration::from_millis(120));
    assert_eq!(text_of(&reply), "Finally.");
    assert!(assistant_of(&reply).error.is_none());
    let seen = drain(&mut events);
    let retry = seen.iter().find_map(|event| match &event.payload {
        EventPayload::SessionStatus {
            status:
                SessionStatus::Retry {
                    attempt,
                    message,
                    next,
                },
            ..
        } => Some((*attempt, message.clone(), *next)),
        _ => None,
    });
    let (attempt, message, _) =
        retry.unwrap_or_else(|| panic!("no retry status in {:?}", story(&seen)));
    assert_eq!((attempt, message.as_str()), (1, "Rate limit reached"));
    let statuses: Vec<String> = story(&seen)
        .into_iter()
        .filter(|line| line.starts_with("status"))
        .collect();
    assert_eq!(
        statuses,
        strings(&[
            "status busy",
            "status retry 1",
            "status busy",
            "status idle"
        ])
    );
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn server_error_is_retried_after_two_seconds_then_succeeds() {
    let fake = FakeProvider::start(vec![
        status(
            500,
            &[],
            serde_json::json!({"error": {"message": "upstream exploded"}}),
        ),
        openai_text(&["Recovered."]),
    ])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let mut events = test.ledger.events().subscribe();
    let reply = ask(&test, &session.id, "hello").await;
    assert_eq!(text_of(&reply), "Recovered.");
    let seen = drain(&mut events);
    let wait = seen.iter().find_map(|event| match &event.payload {
        EventPayload::SessionStatus {
            status: SessionStatus::Retry { next, .. },
            ..
        } => Some(*next - event_time(&seen, event)),
        _ => None,
    });
    let wait = wait.unwrap_or_else(|| panic!("no retry status"));
    assert!((1900..=2100).contains(&wait), "waited {wait} ms");
    assert_eq!(
        reply
            .parts
            .iter()
            .filter(|part| part.body.type_name() == "step-start")
            .count(),
        1,
        "a failed attempt leaves no parts"
    );
}

/// The creation time of the assistant message published before `event`.
fn event_time(events: &[Event], _event: &Event) -> i64 {
    events
        .iter()
        .find_map(|event| match &event.payload {
            EventPayload::MessageUpdated {
                info: Message::Assistant(assistant),
                ..
            } => Some(assistant.time.created),
            _ => None,
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn stream_cut_mid_reply_keeps_the_text_and_records_an_api_error() {
    let fake = FakeProvider::start(vec![openai_stream(
        openai_text_events(&["Half ", "a ", "sentence"]),
        Ending::Cut,
        Duration::ZERO,
    )])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let reply = ask(&test, &session.id, "hello").await;
    let assistant = assistant_of(&reply);
    match &assistant.error {
        Some(AssistantError::ApiError(data)) => {
            assert_eq!(
                data.message,
                "The connection to the provider closed before the reply finished"
            );
            assert!(!data.is_retryable);
        }
        other => panic!("expected an APIError, got {other:?}"),
    }
    assert_eq!(text_of(&reply), "Half a sentence");
    let ended = reply.parts.iter().any(|part| matches!(&part.body, PartBody::Text(text) if text.time.as_ref().is_some_and(|time| time.end.is_some())));
    assert!(ended, "the kept text is closed");
    assert_eq!(
        fake.requests().len(),
        1,
        "a cut after output is not retried"
    );
}

#[tokio::test]
async fn abort_ends_a_hanging_stream_at_once_and_keeps_the_text() {
    let fake = FakeProvider::start(vec![openai_stream(
        openai_text_events(&["Still ", "thinking"]),
        Ending::Hang,
        Duration::ZERO,
    )])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let mut events = test.ledger.events().subscribe();
    let ledger = test.ledger.clone();
    let session_id = session.id.clone();
    let running = tokio::spawn(async move {
        ledger
            .prompt(&session_id, reply_input(vec![Draft::text("hello")]))
            .await
    });
    wait_for(&mut events, |event| matches!(&event.payload, EventPayload::PartDelta { delta, .. } if delta == "thinking")).await;
    assert!(matches!(
        test.ledger.status().get(&session.id),
        Some(SessionStatus::Busy)
    ));
    assert!(matches!(
        test.ledger.ensure_idle(&session.id),
        Err(dossier_core::LedgerError::Busy(_))
    ));
    let aborted_at = std::time::Instant::now();
    assert!(test.ledger.abort(&session.id));
    let reply = tokio::time::timeout(Duration::from_secs(5), running)
        .await
        .unwrap_or_else(|_| panic!("abort did not end the run"))
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(
        aborted_at.elapsed() < Duration::from_millis(500),
        "took {:?}",
        aborted_at.elapsed()
    );
    assert!(matches!(
        assistant_of(&reply).error,
        Some(AssistantError::MessageAbortedError { .. })
    ));
    assert_eq!(text_of(&reply), "Still thinking");
    let seen = story(
        &wait_for(&mut events, |event| {
            matches!(event.payload, EventPayload::SessionIdle { .. })
        })
        .await,
    );
    assert!(
        seen.contains(&"error \"MessageAbortedError\"".to_string()),
        "{seen:?}"
    );
    for _ in 0..50 {
        if fake.closed_by_client() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        fake.closed_by_client(),
        1,
        "the connection to the provider was closed"
    );
    assert!(test.ledger.status().is_empty());
    assert!(!test.ledger.abort(&session.id), "nothing left to abort");
}

#[tokio::test]
async fn abort_during_a_tool_call_marks_the_tool_aborted() {
    let fake = FakeProvider::start(vec![openai_stream(
        openai_tool_call_events("call_9", "grep", r#"{"pattern": "alpha"#),
        Ending::Hang,
        Duration::ZERO,
    )])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let mut events = test.ledger.events().subscribe();
    let ledger = test.ledger.clone();
    let session_id = session.id.clone();
    let running = tokio::spawn(async move {
        ledger
            .prompt(&session_id, reply_input(vec![Draft::text("search")]))
            .await
    });
    wait_for(&mut events, |event| matches!(&event.payload, EventPayload::PartUpdated { part, .. } if part.body.type_name() == "tool")).await;
    test.ledger.abort(&session.id);
    let reply = running
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|error| panic!("{error}"));
    let tool = reply.parts.iter().find_map(|part| match &part.body {
        PartBody::Tool(tool) => Some(tool.clone()),
        _ => None,
    });
    match tool.map(|tool| tool.state) {
        Some(ToolState::Error {
            error, metadata, ..
        }) => {
            assert_eq!(error, "Tool execution aborted");
            assert_eq!(
                metadata.and_then(|metadata| metadata.get("interrupted").cloned()),
                Some(Value::Bool(true))
            );
        }
        other => panic!("expected an aborted tool, got {other:?}"),
    }
}

#[tokio::test]
async fn a_second_prompt_joins_the_run_and_is_seen_on_the_next_step() {
    let mut slow = openai_text_events(&["First ", "answer."]);
    slow.push((
        None,
        serde_json::json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            .to_string(),
    ));
    let fake = FakeProvider::start(vec![
        openai_stream(slow, Ending::Clean, Duration::from_millis(150)),
        openai_text(&["Second ", "answer."]),
    ])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let mut events = test.ledger.events().subscribe();
    let ledger = test.ledger.clone();
    let session_id = session.id.clone();
    let first = tokio::spawn(async move {
        ledger
            .prompt(
                &session_id,
                reply_input(vec![Draft::text("first question")]),
            )
            .await
    });
    wait_for(&mut events, |event| {
        matches!(&event.payload, EventPayload::PartDelta { .. })
    })
    .await;
    let second = ask(&test, &session.id, "also this").await;
    let first = first
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        first.info.id(),
        second.info.id(),
        "both callers get the same final reply"
    );
    assert_eq!(text_of(&second), "Second answer.");
    let stored = test
        .ledger
        .messages(&session.id, &Default::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .messages;
    let roles: Vec<&str> = stored.iter().map(|message| message.info.role()).collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant"]);
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let last = requests[1].body["messages"]
        .as_array()
        .and_then(|messages| messages.last().cloned())
        .unwrap_or_default();
    let content = last["content"].as_str().unwrap_or("");
    assert!(
        content.starts_with("<system-reminder>\nThe user sent the following message:\nalso this"),
        "{content}"
    );
    let busy_runs = story(&drain(&mut events))
        .iter()
        .filter(|line| *line == "idle")
        .count();
    assert_eq!(busy_runs, 1, "one run answered both prompts");
}

#[tokio::test]
async fn missing_provider_settings_become_a_readable_error_not_a_hang() {
    let test = open(FAKE_CONFIG).await;
    let session = test.session().await;
    let reply = ask(&test, &session.id, "hello").await;
    match &assistant_of(&reply).error {
        Some(AssistantError::UnknownError { message }) => {
            assert!(message.contains("has no options.baseURL"), "{message}")
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn anthropic_messages_stream_thinking_text_and_tool_use() {
    let mut first = anthropic_start();
    first.extend(anthropic_thinking_block(0, "Need the file."));
    first.extend(anthropic_tool_block(
        1,
        "toolu_1",
        "read",
        r#"{"filePath": "notes.txt"}"#,
    ));
    first.extend(anthropic_end("tool_use"));
    let fake = FakeProvider::start(vec![
        anthropic_stream(first),
        anthropic_text(&["It says ", "alpha."]),
    ])
    .await;
    let test = open(&fake.anthropic_config()).await;
    test.write("notes.txt", "alpha\n");
    let session = test.session().await;
    let reply = ask(&test, &session.id, "read my notes").await;
    assert_eq!(text_of(&reply), "It says alpha.");
    let requests = fake.requests();
    assert_eq!(requests[0].path, "/v1/messages");
    assert!(requests[0]
        .headers
        .to_ascii_lowercase()
        .contains(&format!("x-api-key: {}", API_KEY.to_ascii_lowercase())));
    assert!(requests[0]
        .headers
        .contains("anthropic-version: 2023-06-01"));
    let messages = requests[1].body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let roles: Vec<&str> = messages
        .iter()
        .filter_map(|message| message["role"].as_str())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user"]);
    assert_eq!(messages[1]["content"][0]["type"], "tool_use");
    assert_eq!(messages[2]["content"][0]["type"], "tool_result");
    assert_eq!(messages[2]["content"][0]["tool_use_id"], "toolu_1");
    let stored = test
        .ledger
        .messages(&session.id, &Default::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .messages;
    let first_reply = describe(&stored[1].parts);
    assert_eq!(
        first_reply,
        strings(&["step-start", "reasoning", "tool", "step-finish"])
    );
    assert_eq!(assistant_of(&stored[1]).tokens.input, 30);
}

#[tokio::test]
async fn step_cost_comes_from_the_configured_price_and_adds_up_on_the_session() {
    let fake = FakeProvider::start(vec![
        openai_tool_call("call_1", "list", "{}"),
        openai_text(&["Two files."]),
    ])
    .await;
    let config = format!(
        r#"{{"model": "fake/priced", "provider": {{"fake": {{"options": {{"baseURL": "{}"}}, "models": {{"priced": {{"cost": {{"input": 1.0, "output": 2.0}}}}}}}}}}}}"#,
        fake.base_url
    );
    let test = open(&config).await;
    let session = test.session().await;
    let reply = ask(&test, &session.id, "what is here?").await;
    // 42 input tokens at $1/M and 11 output tokens at $2/M, per step.
    let per_step = (42.0 + 22.0) / 1e6;
    let assistant = assistant_of(&reply);
    assert!(
        (assistant.cost - per_step).abs() < 1e-12,
        "{}",
        assistant.cost
    );
    let finish = reply.parts.iter().find_map(|part| match &part.body {
        PartBody::StepFinish(finish) => Some(finish.cost),
        _ => None,
    });
    assert!(finish.is_some_and(|cost| (cost - per_step).abs() < 1e-12));
    let stored = test
        .ledger
        .session(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(
        (stored.cost - 2.0 * per_step).abs() < 1e-12,
        "{}",
        stored.cost
    );
    assert_eq!((stored.tokens.input, stored.tokens.output), (84, 22));
}

#[tokio::test]
async fn the_first_reply_titles_the_session_through_the_model() {
    let fake = FakeProvider::start(vec![openai_text(&["Hi."])]).await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    ask(&test, &session.id, "hello there").await;
    // Titles are generated beside the reply; give a loaded machine time.
    for _ in 0..500 {
        let title = test
            .ledger
            .session(&session.id)
            .await
            .map(|session| session.title)
            .unwrap_or_default();
        if title == "Fake title" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the session was not titled");
}
