//! Tool calls across steps: the read tool runs confined to the session folder, permissions are
//! checked, and results go back to the model.

use crate::fake_provider::*;
use crate::reply_support::*;
use crate::support::*;
use dossier_core::part::{PartBody, ToolState};
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
