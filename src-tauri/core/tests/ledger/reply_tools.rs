//! Tool calls across steps: the read tool runs confined to the session folder, permissions are
//! checked, and results go back to the model.

use crate::fake_provider::*;
use crate::reply_support::*;
use crate::support::*;
use dossier_core::wire::draft::Draft;
use dossier_core::wire::event::EventPayload;
use dossier_core::wire::part::{PartBody, ToolState};
use dossier_core::wire::permission::{Action, Rule};
use dossier_core::wire::permission::{PermissionReply, PermissionRequest};
use serde_json::Value;

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
    let mut events = subscribe(&test.ledger).await;
    let reply = ask(&test, &session.id, "what do the notes say?").await;
    assert_eq!(text_of(&reply), "The notes say alpha.");

    let stored = test.history(&session.id).await;
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
    let seen = story(&drain(&test.ledger, &mut events).await);
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
    assert_eq!(names, ["read", "list", "glob", "grep", "task"]);
}

#[tokio::test]
async fn tools_cannot_leave_the_session_folder_and_denied_tools_are_refused() {
    let fake = FakeProvider::start(vec![
        openai_tool_call("call_1", "read", r#"{"filePath": "../../etc/passwd"}"#),
        openai_tool_call("call_2", "grep", r#"{"pattern": "KEY"}"#),
        openai_text(&["ok"]),
    ])
    .await;
    let test = open_with(&fake.openai_config(), |_| {}).await;
    let session = test
        .ledger
        .sessions()
        .create(dossier_core::wire::session::CreateSession {
            permission: Some(vec![Rule::new("grep", "*", Action::Deny)]),
            ..Default::default()
        })
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    ask(&test, &session.id, "read things").await;
    let errors = tool_errors(&test, &session.id).await;
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].contains("outside the session folder"),
        "{}",
        errors[0]
    );
    assert!(
        errors[1].starts_with(
            "The user has specified a rule which prevents you from using this specific tool call."
        ),
        "{}",
        errors[1]
    );
    let offered: Vec<String> = fake.requests()[0].body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["function"]["name"].as_str().map(str::to_string))
        .collect();
    assert_eq!(
        offered,
        ["read", "list", "glob", "task"],
        "a tool denied outright is not offered"
    );
}

async fn tool_errors(test: &TestLedger, session_id: &str) -> Vec<String> {
    test.ledger
        .sessions()
        .messages(session_id, &Default::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .messages
        .iter()
        .flat_map(|message| message.parts.iter())
        .filter_map(|part| match &part.body {
            PartBody::Tool(tool) => match &tool.state {
                ToolState::Error { error, .. } => Some(error.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Starts a reply that reads `secrets.env` (an `ask` rule by default) and returns the request.
async fn asked(
    fake_script: Vec<Reply>,
) -> (
    TestLedger,
    FakeProvider,
    String,
    tokio::task::JoinHandle<
        Result<dossier_core::wire::message::MessageWithParts, dossier_core::LedgerError>,
    >,
    PermissionRequest,
) {
    let fake = FakeProvider::start(fake_script).await;
    let test = open(&fake.openai_config()).await;
    test.write("secrets.env", "KEY=1\n");
    let session = test.session().await;
    let mut events = subscribe(&test.ledger).await;
    let ledger = test.ledger.clone();
    let session_id = session.id.clone();
    let running = tokio::spawn(async move {
        ledger
            .sessions()
            .prompt(
                &session_id,
                reply_input(vec![Draft::text("read the secrets")]),
            )
            .await
    });
    let seen = wait_for(&mut events, |event| {
        matches!(event.payload, EventPayload::PermissionAsked(_))
    })
    .await;
    let Some(EventPayload::PermissionAsked(request)) =
        seen.last().map(|event| event.payload.clone())
    else {
        panic!("no permission request");
    };
    (test, fake, session.id, running, request)
}

#[tokio::test]
async fn an_ask_rule_waits_for_the_person_and_once_lets_the_tool_run() {
    let (test, _fake, session_id, running, request) = asked(vec![
        openai_tool_call("call_1", "read", r#"{"filePath": "secrets.env"}"#),
        openai_text(&["It holds a key."]),
    ])
    .await;
    assert_eq!(request.permission, "read");
    assert_eq!(request.patterns, ["secrets.env"]);
    assert_eq!(request.session_id, session_id);
    assert_eq!(
        request.tool.as_ref().map(|tool| tool.call_id.as_str()),
        Some("call_1")
    );
    assert_eq!(
        test.ledger.replies().permission_requests(),
        vec![request.clone()]
    );
    let wire = serde_json::to_value(&request).unwrap_or_default();
    assert!(
        wire["id"].as_str().is_some_and(|id| id.starts_with("per_")),
        "{wire}"
    );
    test.ledger
        .replies()
        .reply_permission(&request.id, PermissionReply::Once)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let reply = running
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(text_of(&reply), "It holds a key.");
    assert!(test.ledger.replies().permission_requests().is_empty());
    assert!(tool_errors(&test, &session_id).await.is_empty());
    let missing = test
        .ledger
        .replies()
        .reply_permission(&request.id, PermissionReply::Once)
        .await;
    assert!(matches!(
        missing,
        Err(dossier_core::LedgerError::PermissionRequestNotFound(_))
    ));
}

#[tokio::test]
async fn reject_refuses_the_call_and_stops_the_run() {
    let (test, fake, session_id, running, request) = asked(vec![
        openai_tool_call("call_1", "read", r#"{"filePath": "secrets.env"}"#),
        openai_text(&["never asked for"]),
    ])
    .await;
    test.ledger
        .replies()
        .reply_permission(&request.id, PermissionReply::Reject)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    running
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        tool_errors(&test, &session_id).await,
        ["The user rejected permission to use this specific tool call."]
    );
    assert_eq!(fake.requests().len(), 1, "the run stops after a refusal");
}

#[tokio::test]
async fn always_adds_an_allow_rule_to_the_session() {
    let (test, _fake, session_id, running, request) = asked(vec![
        openai_tool_call("call_1", "read", r#"{"filePath": "secrets.env"}"#),
        openai_text(&["done"]),
    ])
    .await;
    test.ledger
        .replies()
        .reply_permission(&request.id, PermissionReply::Always)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    running
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|error| panic!("{error}"));
    let session = test
        .ledger
        .sessions()
        .get(&session_id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        session.permission,
        Some(vec![Rule::new("read", "secrets.env", Action::Allow)])
    );
}

#[tokio::test]
async fn abort_while_waiting_for_permission_withdraws_the_request() {
    let (test, _fake, session_id, running, _request) = asked(vec![openai_tool_call(
        "call_1",
        "read",
        r#"{"filePath": "secrets.env"}"#,
    )])
    .await;
    assert!(test.ledger.replies().abort(&session_id));
    let reply = running
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(matches!(
        assistant_of(&reply).error,
        Some(dossier_core::wire::assistant_error::AssistantError::MessageAbortedError { .. })
    ));
    assert!(test.ledger.replies().permission_requests().is_empty());
    assert_eq!(
        tool_errors(&test, &session_id).await,
        ["Tool execution aborted"]
    );
}

#[tokio::test]
async fn a_third_identical_call_asks_about_a_doom_loop() {
    let fake = FakeProvider::start(vec![
        openai_tool_call("call_1", "list", "{}"),
        openai_tool_call("call_2", "list", "{}"),
        openai_tool_call("call_3", "list", "{}"),
        openai_text(&["never asked for"]),
    ])
    .await;
    let test = open(&fake.openai_config()).await;
    let session = test.session().await;
    let BackgroundReply {
        mut events,
        running,
    } = reply_in_background(&test, &session.id, "look around");
    let seen = wait_for(&mut events, |event| {
        matches!(event.payload, EventPayload::PermissionAsked(_))
    })
    .await;
    let Some(EventPayload::PermissionAsked(request)) =
        seen.last().map(|event| event.payload.clone())
    else {
        panic!("no permission request");
    };
    assert_eq!(
        (request.permission.as_str(), request.patterns.clone()),
        ("doom_loop", vec!["list".to_string()])
    );
    assert_eq!(
        request.tool.map(|tool| tool.call_id),
        Some("call_3".to_string())
    );
    test.ledger
        .replies()
        .reply_permission(&request.id, PermissionReply::Reject)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    running
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        tool_errors(&test, &session.id).await,
        ["The user rejected permission to use this specific tool call."]
    );
    assert_eq!(fake.requests().len(), 3);
}
