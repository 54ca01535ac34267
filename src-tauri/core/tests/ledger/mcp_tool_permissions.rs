//! Who decides whether an MCP tool runs without asking, against the real everything server:
//! "Always for this session" in an ask allows the tool in that session only (another session
//! asks again), and Settings' "Always allow" switch writes the config file's permission rule and
//! takes effect at the next call, without a restart, and turned off asks again (a session's
//! "Always" still holds there).

use crate::fake_provider::*;
use crate::mcp_servers::{everything_command, is_connected, test_servers, wait_for};
use crate::reply_support::{reply_input, text_of};
use crate::support::{open_with, subscribe, TestLedger};
use dossier_core::ledger::mcp::AlwaysAllowChange;
use dossier_core::wire::draft::Draft;
use dossier_core::wire::event::{Event, EventPayload};
use dossier_core::wire::message::MessageWithParts;
use dossier_core::wire::part::{PartBody, ToolState};
use dossier_core::wire::permission::{PermissionReply, PermissionRequest};
use serde_json::{json, Value};
use std::sync::Arc;

/// The everything server's tool that may change things (its `readOnlyHint` is false), so with no
/// rule naming it, it asks.
const TOOL: &str = "everything_toggle-simulated-logging";

/// A ledger with the everything server, whose config is also the file Settings writes.
async fn open_with_everything(fake: &FakeProvider) -> Option<TestLedger> {
    let servers = test_servers()?;
    let mut config: Value =
        serde_json::from_str(&fake.openai_config()).unwrap_or_else(|error| panic!("{error}"));
    config["mcp"] = json!({
        "everything": {"type": "local", "command": everything_command(&servers), "timeout": 30000}
    });
    let text = config.to_string();
    let test = open_with(&text, |options| {
        std::fs::write(&options.locations.config_path, &text)
            .unwrap_or_else(|error| panic!("{error}"));
    })
    .await;
    wait_for(&test, "everything", is_connected).await;
    Some(test)
}

/// A prompt answered in the background, and every event until it ended; `answer` replies to
/// each permission ask on the way (and says which ones it saw).
async fn prompt_answering(
    test: &TestLedger,
    session_id: &str,
    answer: Option<PermissionReply>,
) -> (MessageWithParts, Vec<PermissionRequest>) {
    let mut events = subscribe(&test.ledger).await;
    let running = {
        let ledger = test.ledger.clone();
        let session_id = session_id.to_string();
        tokio::spawn(async move {
            ledger
                .sessions()
                .prompt(
                    &session_id,
                    reply_input(vec![Draft::text("toggle the logging")]),
                )
                .await
        })
    };
    let mut asked = Vec::new();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
    while !running.is_finished() {
        let event: Arc<Event> = match tokio::time::timeout_at(
            deadline.min(tokio::time::Instant::now() + std::time::Duration::from_millis(100)),
            events.recv(),
        )
        .await
        {
            Ok(Ok(event)) => event,
            Ok(Err(error)) => panic!("event channel: {error}"),
            Err(_) if tokio::time::Instant::now() >= deadline => panic!("the reply never ended"),
            Err(_) => continue,
        };
        if let EventPayload::PermissionAsked(request) = &event.payload {
            asked.push(request.clone());
            let reply = answer.unwrap_or_else(|| panic!("asked unexpectedly: {request:?}"));
            test.ledger
                .replies()
                .reply_permission(&request.id, reply)
                .await
                .unwrap_or_else(|error| panic!("{error}"));
        }
    }
    let reply = running
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|error| panic!("{error}"));
    (reply, asked)
}

/// The state of the one tool part of `TOOL` in the newest reply of the session.
async fn last_tool_state(test: &TestLedger, session_id: &str) -> ToolState {
    test.history(session_id)
        .await
        .iter()
        .flat_map(|message| message.parts.clone())
        .filter_map(|part| match part.body {
            PartBody::Tool(tool) if tool.tool == TOOL => Some(tool.state),
            _ => None,
        })
        .next_back()
        .unwrap_or_else(|| panic!("no {TOOL} part"))
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "starts an MCP server with `node`: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn always_for_this_session_allows_the_tool_there_and_another_session_asks_again() {
    let fake = FakeProvider::start(vec![
        openai_tool_call("call_1", TOOL, "{}"),
        openai_text(&["first"]),
        openai_tool_call("call_2", TOOL, "{}"),
        openai_text(&["second"]),
        openai_tool_call("call_3", TOOL, "{}"),
        openai_text(&["third"]),
    ])
    .await;
    let Some(test) = open_with_everything(&fake).await else {
        return;
    };
    let first = test.session().await;
    let (reply, asked) = prompt_answering(&test, &first.id, Some(PermissionReply::Always)).await;
    assert_eq!(text_of(&reply), "first");
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].session_id, first.id);
    assert!(matches!(
        last_tool_state(&test, &first.id).await,
        ToolState::Completed { .. }
    ));

    // The same session: the answer holds, nobody is asked.
    let (reply, asked) = prompt_answering(&test, &first.id, None).await;
    assert_eq!(text_of(&reply), "second");
    assert!(asked.is_empty());
    assert!(matches!(
        last_tool_state(&test, &first.id).await,
        ToolState::Completed { .. }
    ));

    // Another session: asked again, and a rejection is an error there.
    let second = test.session().await;
    let (reply, asked) = prompt_answering(&test, &second.id, Some(PermissionReply::Reject)).await;
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].session_id, second.id);
    assert_eq!(asked[0].permission, TOOL);
    assert!(
        matches!(last_tool_state(&test, &second.id).await, ToolState::Error { error, .. }
            if error == "The user rejected permission to use this specific tool call."),
        "{:?}",
        reply.parts
    );
    test.ledger.close().await;
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "starts an MCP server with `node`: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn the_always_allow_switch_is_written_to_the_config_and_followed_without_a_restart() {
    let fake = FakeProvider::start(vec![
        openai_tool_call("call_1", TOOL, "{}"),
        openai_text(&["allowed"]),
        openai_tool_call("call_2", TOOL, "{}"),
        openai_text(&["refused"]),
    ])
    .await;
    let Some(test) = open_with_everything(&fake).await else {
        return;
    };
    let listed = test
        .ledger
        .mcp()
        .tool_permissions()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let switch = listed
        .iter()
        .find(|tool| tool.name == TOOL)
        .unwrap_or_else(|| panic!("{TOOL} not listed: {listed:?}"));
    assert_eq!(switch.server, "everything");
    assert_eq!(switch.tool, "toggle-simulated-logging");
    assert!(!switch.read_only);
    assert!(!switch.always_allowed);
    assert!(listed
        .iter()
        .any(|tool| tool.name == "everything_echo" && tool.read_only));

    let listed = test
        .ledger
        .mcp()
        .set_tool_always_allowed(TOOL, always_allowed(true))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(listed
        .iter()
        .any(|tool| tool.name == TOOL && tool.always_allowed));
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(&test.ledger.providers().locations().config_path)
            .unwrap_or_else(|error| panic!("{error}")),
    )
    .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(file["permission"], json!({TOOL: "allow"}));
    // The rest of the file stays as it was.
    assert!(file["mcp"]["everything"]["command"].is_array());
    assert!(file["provider"].is_object());

    let session = test.session().await;
    let (reply, asked) = prompt_answering(&test, &session.id, None).await;
    assert_eq!(text_of(&reply), "allowed");
    assert!(asked.is_empty());
    assert!(matches!(
        last_tool_state(&test, &session.id).await,
        ToolState::Completed { .. }
    ));

    let listed = test
        .ledger
        .mcp()
        .set_tool_always_allowed(TOOL, always_allowed(false))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(listed
        .iter()
        .any(|tool| tool.name == TOOL && !tool.always_allowed));
    let other = test.session().await;
    let (_, asked) = prompt_answering(&test, &other.id, Some(PermissionReply::Reject)).await;
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(matches!(
        last_tool_state(&test, &other.id).await,
        ToolState::Error { .. }
    ));

    let refused = test
        .ledger
        .mcp()
        .set_tool_always_allowed("everything_no-such-tool", always_allowed(true))
        .await;
    assert!(
        matches!(&refused, Err(error) if error.to_string().contains("no connected MCP server offers the tool \"everything_no-such-tool\"")),
        "{refused:?}"
    );
    test.ledger.close().await;
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "starts an MCP server with `node`: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn an_allow_rule_in_the_file_at_start_is_undone_by_the_switch_without_a_restart() {
    let fake = FakeProvider::start(vec![
        openai_tool_call("call_1", TOOL, "{}"),
        openai_text(&["asked"]),
        openai_tool_call("call_2", TOOL, "{}"),
        openai_text(&["held"]),
    ])
    .await;
    let Some(servers) = test_servers() else {
        return;
    };
    let mut config: Value =
        serde_json::from_str(&fake.openai_config()).unwrap_or_else(|error| panic!("{error}"));
    config["mcp"] = json!({
        "everything": {"type": "local", "command": everything_command(&servers), "timeout": 30000}
    });
    config["permission"] = json!({TOOL: "allow"});
    let text = config.to_string();
    let test = open_with(&text, |options| {
        std::fs::write(&options.locations.config_path, &text)
            .unwrap_or_else(|error| panic!("{error}"));
    })
    .await;
    wait_for(&test, "everything", is_connected).await;
    assert!(test
        .ledger
        .mcp()
        .tool_permissions()
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .iter()
        .any(|tool| tool.name == TOOL && tool.always_allowed));
    test.ledger
        .mcp()
        .set_tool_always_allowed(TOOL, always_allowed(false))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let session = test.session().await;
    let (_, asked) = prompt_answering(&test, &session.id, Some(PermissionReply::Always)).await;
    assert_eq!(
        asked.len(),
        1,
        "the rule from start still allowed the tool: {asked:?}"
    );
    // The session's "Always" equals the file's rule from start, and still holds in the session.
    let (reply, asked) = prompt_answering(&test, &session.id, None).await;
    assert_eq!(text_of(&reply), "held");
    assert!(asked.is_empty());
    test.ledger.close().await;
}

fn always_allowed(always_allowed: bool) -> AlwaysAllowChange {
    AlwaysAllowChange { always_allowed }
}
