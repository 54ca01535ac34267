//! Graceful shutdown: accepted work is finished before the database pool closes.

use super::support::TestServer;
use dossier_core::store::rows::message_page::MessageQuery;
use dossier_core::wire::event::EventPayload;
use serde_json::json;
use std::time::{Duration, Instant};

#[tokio::test]
async fn a_prompt_accepted_just_before_shutdown_is_saved() {
    let server = TestServer::start().await;
    let session = server.create_session(json!({})).await;
    let id = session["id"].as_str().unwrap().to_string();
    let response = server
        .post(
            &format!("/session/{id}/prompt_async"),
            json!({"noReply": true, "parts": [{"type": "text", "text": "keep me"}]}),
        )
        .await;
    assert_eq!(response.status(), 204);
    let reopening = server.reopening_options();
    // Held so the temporary folder outlives the server.
    let _folder = server.folder.clone();
    server.stop().await.unwrap();
    let reopened = dossier_core::start_up::open(reopening).await.unwrap();
    let page = reopened
        .sessions()
        .messages(&id, &MessageQuery::default())
        .await
        .unwrap();
    assert_eq!(page.messages.len(), 1);
    reopened.close().await;
}

#[tokio::test]
async fn a_client_that_stopped_reading_events_does_not_hold_shutdown() {
    let server = TestServer::start().await;
    let mut events = server.events(None).await;
    assert_eq!(events.next().await.kind(), "server.connected");
    for _ in 0..3000 {
        server.ledger.events().publish(EventPayload::SessionIdle {
            session_id: "ses_unread".into(),
        });
    }
    let started = Instant::now();
    server.stop().await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    drop(events);
}
