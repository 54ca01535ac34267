//! MCP tools in the agent loop against the real everything server: offered as `<server>_<tool>`
//! with the server's schema, a call reaches the server, its result is a completed tool part
//! (images as attachments) and goes back to the model; a tool that may change things asks first.

use crate::fake_provider::*;
use crate::mcp_servers::{everything_command, is_connected, test_servers, wait_for};
use crate::reply_support::{ask, reply_input, sent_texts, text_of};
use crate::support::{open, subscribe, TestLedger};
use dossier_core::wire::draft::Draft;
use dossier_core::wire::event::EventPayload;
use dossier_core::wire::part::{PartBody, ToolPart, ToolState};
use dossier_core::wire::permission::PermissionReply;
use serde_json::{json, Value};

async fn open_with_everything(fake: &FakeProvider) -> Option<TestLedger> {
    let servers = test_servers()?;
    let mut config: Value =
        serde_json::from_str(&fake.openai_config()).unwrap_or_else(|error| panic!("{error}"));
    config["mcp"] = json!({
        "everything": {"type": "local", "command": everything_command(&servers), "timeout": 30000}
    });
    let test = open(&config.to_string()).await;
    wait_for(&test, "everything", is_connected).await;
    Some(test)
}

async fn tool_parts(test: &TestLedger, session_id: &str) -> Vec<ToolPart> {
    test.history(session_id)
        .await
        .iter()
        .flat_map(|message| message.parts.clone())
        .filter_map(|part| match part.body {
            PartBody::Tool(tool) => Some(tool),
            _ => None,
        })
        .collect()
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "starts an MCP server with `node`: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn a_read_only_tool_runs_on_the_real_server_and_its_result_goes_back() {
    let fake = FakeProvider::start(vec![
        openai_tool_call(
            "call_1",
            "everything_echo",
            r#"{"message": "hello over MCP"}"#,
        ),
        openai_tool_call("call_2", "everything_get-tiny-image", "{}"),
        openai_text(&["The server echoed it."]),
    ])
    .await;
    let Some(test) = open_with_everything(&fake).await else {
        return;
    };
    let session = test.session().await;
    let reply = ask(&test, &session.id, "echo something").await;
    assert_eq!(text_of(&reply), "The server echoed it.");

    let requests = fake.requests();
    let offered = requests[0].body["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let echo = offered
        .iter()
        .find(|tool| tool["function"]["name"] == "everything_echo")
        .unwrap_or_else(|| panic!("everything_echo not offered: {offered:?}"));
    assert_eq!(
        echo["function"]["parameters"]["properties"]["message"]["type"],
        "string"
    );
    assert!(offered
        .iter()
        .any(|tool| tool["function"]["name"] == "read"));

    let tools = tool_parts(&test, &session.id).await;
    assert_eq!(tools.len(), 2, "{tools:?}");
    match &tools[0].state {
        ToolState::Completed {
            input,
            output,
            title,
            metadata,
            ..
        } => {
            assert_eq!(input["message"], "hello over MCP");
            assert_eq!(output, "Echo: hello over MCP");
            assert_eq!(title, "everything_echo");
            assert_eq!(metadata["server"], "everything");
        }
        other => panic!("echo not completed: {other:?}"),
    }
    match &tools[1].state {
        ToolState::Completed {
            output,
            attachments,
            ..
        } => {
            assert!(
                output.starts_with("Here's the image you requested:"),
                "{output}"
            );
            let attachments = attachments.clone().unwrap_or_default();
            assert!(
                matches!(&attachments[..], [part] if matches!(&part.body, PartBody::File(file) if file.mime == "image/png")),
                "{attachments:?}"
            );
        }
        other => panic!("tiny image not completed: {other:?}"),
    }
    // The second request carried the echo's result back to the model.
    assert!(
        sent_texts(&requests[1].body)
            .iter()
            .any(|text| text.contains("Echo: hello over MCP")),
        "{:?}",
        sent_texts(&requests[1].body)
    );
    test.ledger.close().await;
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "starts an MCP server with `node`: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn a_tool_that_may_change_things_asks_and_a_rejection_is_an_error_part() {
    let fake = FakeProvider::start(vec![
        openai_tool_call(
            "call_1",
            "everything_gzip-file-as-resource",
            r#"{"name": "x.gz", "data": "data:text/plain;base64,aGk="}"#,
        ),
        openai_text(&["Understood."]),
    ])
    .await;
    let Some(test) = open_with_everything(&fake).await else {
        return;
    };
    let session = test.session().await;
    let mut events = subscribe(&test.ledger).await;
    let running = {
        let ledger = test.ledger.clone();
        let session_id = session.id.clone();
        tokio::spawn(async move {
            ledger
                .sessions()
                .prompt(&session_id, reply_input(vec![Draft::text("compress it")]))
                .await
        })
    };
    let seen = crate::reply_support::wait_for(&mut events, |event| {
        matches!(event.payload, EventPayload::PermissionAsked(_))
    })
    .await;
    let Some(EventPayload::PermissionAsked(request)) =
        seen.last().map(|event| event.payload.clone())
    else {
        panic!("no permission request");
    };
    assert_eq!(request.permission, "everything_gzip-file-as-resource");
    test.ledger
        .replies()
        .reply_permission(&request.id, PermissionReply::Reject)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let _ = running.await;
    let tools = tool_parts(&test, &session.id).await;
    assert!(
        matches!(&tools[..], [ToolPart { state: ToolState::Error { error, .. }, .. }]
            if error == "The user rejected permission to use this specific tool call."),
        "{tools:?}"
    );
    test.ledger.close().await;
}

// Unix only: the server's pid comes from `sh` (`echo $$`) and it is ended with `kill -9`. On
// Windows the same code path (a server whose process ends) is reached through the job object.
#[cfg(unix)]
#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "starts an MCP server with `node`: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn a_server_killed_mid_call_ends_that_call_with_an_error_and_comes_back() {
    let fake = FakeProvider::start(vec![
        openai_tool_call(
            "call_1",
            "everything_trigger-long-running-operation",
            r#"{"duration": 20, "steps": 4}"#,
        ),
        openai_text(&["The operation failed."]),
    ])
    .await;
    let Some(servers) = test_servers() else {
        return;
    };
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let pid_file = folder.path().join("pid");
    let script = format!(
        "echo $$ > '{}'; exec {}",
        pid_file.display(),
        everything_command(&servers).join(" ")
    );
    let mut config: Value =
        serde_json::from_str(&fake.openai_config()).unwrap_or_else(|error| panic!("{error}"));
    config["mcp"] = json!({
        "everything": {"type": "local", "command": ["sh", "-c", script], "timeout": 30000}
    });
    let test = open(&config.to_string()).await;
    wait_for(&test, "everything", is_connected).await;
    let session = test.session().await;
    let mut events = subscribe(&test.ledger).await;
    let running = {
        let ledger = test.ledger.clone();
        let session_id = session.id.clone();
        tokio::spawn(async move {
            ledger
                .sessions()
                .prompt(&session_id, reply_input(vec![Draft::text("run it")]))
                .await
        })
    };
    crate::reply_support::wait_for(&mut events, |event| {
        matches!(&event.payload, EventPayload::PartUpdated { part, .. }
            if matches!(&part.body, PartBody::Tool(ToolPart { state: ToolState::Running { .. }, .. })))
    })
    .await;
    let pid = std::fs::read_to_string(&pid_file).unwrap_or_else(|error| panic!("{error}"));
    let killed = std::process::Command::new("kill")
        .args(["-9", pid.trim()])
        .status()
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(killed.success());
    let reply = tokio::time::timeout(std::time::Duration::from_secs(15), running)
        .await
        .unwrap_or_else(|_| panic!("the reply hung after the server died"))
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(text_of(&reply), "The operation failed.");
    let tools = tool_parts(&test, &session.id).await;
    assert!(
        matches!(&tools[..], [ToolPart { state: ToolState::Error { error, .. }, .. }]
            if error == "The MCP server closed the connection"),
        "{tools:?}"
    );
    wait_for(&test, "everything", is_connected).await;
    test.ledger.close().await;
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "starts an MCP server with `node`: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn the_filesystem_server_reads_inside_its_folder_and_refuses_outside_it() {
    let Some(servers) = test_servers() else {
        return;
    };
    let allowed = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let outside = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let inside_file = allowed.path().join("inside.txt");
    let outside_file = outside.path().join("secret.txt");
    std::fs::write(&inside_file, "inside words\n").unwrap_or_else(|error| panic!("{error}"));
    std::fs::write(&outside_file, "secret words\n").unwrap_or_else(|error| panic!("{error}"));
    let arguments =
        |path: &std::path::Path| json!({"path": path.display().to_string()}).to_string();
    let fake = FakeProvider::start(vec![
        openai_tool_call("call_1", "files_read_text_file", &arguments(&inside_file)),
        openai_tool_call("call_2", "files_read_text_file", &arguments(&outside_file)),
        openai_text(&["Done."]),
    ])
    .await;
    let mut config: Value =
        serde_json::from_str(&fake.openai_config()).unwrap_or_else(|error| panic!("{error}"));
    config["mcp"] = json!({
        "files": {
            "type": "local",
            "command": [
                "node",
                servers.join("server-filesystem/dist/index.js").display().to_string(),
                allowed.path().display().to_string()
            ],
            "timeout": 30000
        }
    });
    let test = open(&config.to_string()).await;
    wait_for(&test, "files", is_connected).await;
    let session = test.session().await;
    let reply = ask(&test, &session.id, "read both").await;
    assert_eq!(text_of(&reply), "Done.");
    let tools = tool_parts(&test, &session.id).await;
    assert!(
        matches!(&tools[0].state, ToolState::Completed { output, .. } if output.contains("inside words")),
        "{:?}",
        tools[0]
    );
    assert!(
        matches!(&tools[1].state, ToolState::Error { error, .. } if error.contains("outside allowed directories") || error.contains("Access denied")),
        "{:?}",
        tools[1]
    );
    assert!(!format!("{tools:?}").contains("secret words"));
    test.ledger.close().await;
}
