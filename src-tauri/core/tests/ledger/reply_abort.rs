//! Abort: the stream ends at once, the text so far is kept (and was checkpointed), open tools are
//! marked aborted, the session goes idle.

use crate::fake_provider::*;
use crate::reply_support::*;
use crate::support::*;
use dossier_core::wire::assistant_error::AssistantError;
use dossier_core::wire::event::{EventPayload, SessionStatus};
use dossier_core::wire::part::{PartBody, ToolState};
use serde_json::Value;
use std::time::Duration;

#[tokio::test]
async fn abort_ends_a_hanging_stream_at_once_and_keeps_the_text() {
    let (fake, test, session) = hanging_after(&["Still ", "thinking"]).await;
    let BackgroundReply {
        mut events,
        running,
    } = reply_in_background(&test, &session.id, "hello");
    wait_for(&mut events, |event| matches!(&event.payload, EventPayload::PartDelta { delta, .. } if delta == "thinking")).await;
    assert!(matches!(
        test.ledger.replies().status().get(&session.id),
        Some(SessionStatus::Busy)
    ));
    assert!(test.ledger.replies().is_busy(&session.id));
    // Better than OpenCode: the streamed text is in the database within 250 ms, mid-reply.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let stored = test.history(&session.id).await;
    let checkpointed = stored.last().map(text_of).unwrap_or_default();
    assert_eq!(
        checkpointed, "Still thinking",
        "checkpointed while the stream hangs"
    );
    assert!(test.ledger.replies().abort(&session.id));
    // The provider never sends another byte: only the abort can end this run. (How fast it ends
    // is a figure for the benchmarks, not an assertion here.)
    let reply = tokio::time::timeout(Duration::from_secs(5), running)
        .await
        .unwrap_or_else(|_| panic!("abort did not end the run"))
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|error| panic!("{error}"));
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
    assert!(test.ledger.replies().status().is_empty());
    assert!(
        !test.ledger.replies().abort(&session.id),
        "nothing left to abort"
    );
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
    let BackgroundReply {
        mut events,
        running,
    } = reply_in_background(&test, &session.id, "search");
    wait_for(&mut events, |event| matches!(&event.payload, EventPayload::PartUpdated { part, .. } if part.body.type_name() == "tool")).await;
    test.ledger.replies().abort(&session.id);
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
async fn deleting_the_session_mid_reply_stops_it_and_the_caller_hears_not_found() {
    let (_fake, test, session) = hanging_after(&["Soon ", "gone"]).await;
    let BackgroundReply {
        mut events,
        running,
    } = reply_in_background(&test, &session.id, "hello");
    wait_for(
        &mut events,
        |event| matches!(&event.payload, EventPayload::PartDelta { delta, .. } if delta == "gone"),
    )
    .await;
    test.ledger
        .sessions()
        .delete(&session.id)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let outcome = tokio::time::timeout(Duration::from_secs(5), running)
        .await
        .unwrap_or_else(|_| panic!("the reply kept running"))
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(
        matches!(outcome, Err(dossier_core::LedgerError::SessionNotFound(ref id)) if *id == session.id),
        "{outcome:?}"
    );
    assert!(test.ledger.replies().status().is_empty());
}
