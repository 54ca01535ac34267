//! `GET /event`: connected first, heartbeats, ledger events in order with increasing `id:`,
//! replay after a reconnect with `Last-Event-ID`, and resync when replay is impossible.

use super::support::{on_postgres, test_options, TestServer};
use dossier_core::wire::event::EventPayload;
use dossier_server::ServerOptions;
use serde_json::json;
use std::time::Duration;

#[tokio::test]
async fn the_first_frame_is_server_connected_without_an_id() {
    let server = TestServer::start().await;
    let mut events = server.events(None).await;
    let first = events.next().await;
    assert_eq!(first.kind(), "server.connected");
    assert_eq!(first.id, None);
    assert!(first.data["id"].as_str().unwrap().starts_with("evt_"));
    assert_eq!(first.data["properties"], json!({}));
}

#[tokio::test]
async fn heartbeats_arrive_at_the_configured_interval() {
    let server = TestServer::start_with(ServerOptions {
        heartbeat: Duration::from_millis(100),
        ..test_options()
    })
    .await;
    let mut events = server.events(None).await;
    assert_eq!(events.next().await.kind(), "server.connected");
    let heartbeat = events.next().await;
    assert_eq!(heartbeat.kind(), "server.heartbeat");
    assert_eq!(heartbeat.id, None);
    assert_eq!(events.next().await.kind(), "server.heartbeat");
}

#[tokio::test]
async fn the_events_of_a_prompt_arrive_in_order_with_increasing_ids() {
    let server = TestServer::start().await;
    let mut events = server.events(None).await;
    assert_eq!(events.next().await.kind(), "server.connected");
    let session = server.create_session(json!({})).await;
    let id = session["id"].as_str().unwrap();
    let (_, url) = server.text_file("notes.txt", "hello\n");
    let response = server
        .post(
            &format!("/session/{id}/message"),
            server.no_reply_prompt(&url, "read it"),
        )
        .await;
    assert_eq!(response.status(), 200);
    let mut kinds = Vec::new();
    let mut last_id = 0;
    for _ in 0..9 {
        let frame = events.next_event().await;
        let sequence = frame.id.expect("ledger events carry an id");
        assert!(sequence > last_id, "ids must increase");
        last_id = sequence;
        assert_eq!(frame.data["properties"]["sessionID"], id);
        kinds.push(frame.kind().to_string());
    }
    // OpenCode's order (wire sample 04), with Dossier's created + updated pair on create.
    assert_eq!(
        kinds,
        vec![
            "session.created",
            "session.updated",
            "session.updated",
            "message.updated",
            "message.part.updated",
            "message.part.updated",
            "message.part.updated",
            "message.part.updated",
            "session.updated",
        ]
    );
}

#[tokio::test]
async fn a_reconnect_with_last_event_id_replays_what_was_missed() {
    let server = TestServer::start().await;
    let mut events = server.events(None).await;
    assert_eq!(events.next().await.kind(), "server.connected");
    let first = server.create_session(json!({"title": "Before"})).await;
    let created = events.next_event().await;
    assert_eq!(created.data["properties"]["info"]["id"], first["id"]);
    let seen = created.id.unwrap();
    drop(events);

    let second = server.create_session(json!({"title": "While away"})).await;
    let mut resumed = server.events(Some(seen)).await;
    assert_eq!(resumed.next().await.kind(), "server.connected");
    let replayed = resumed.next_event().await;
    assert_eq!(replayed.id, Some(seen + 1));
    assert_eq!(replayed.kind(), "session.updated");
    assert_eq!(replayed.data["properties"]["info"]["id"], first["id"]);
    let missed = resumed.next_event().await;
    assert_eq!(missed.kind(), "session.created");
    assert_eq!(missed.data["properties"]["info"]["id"], second["id"]);
    assert_eq!(resumed.next_event().await.kind(), "session.updated");

    // And the stream carries on live after the replay.
    let third = server.create_session(json!({"title": "Live"})).await;
    let live = resumed.next_event().await;
    assert_eq!(live.data["properties"]["info"]["id"], third["id"]);
    assert_eq!(live.id, Some(seen + 4));
}

#[tokio::test]
async fn a_last_event_id_older_than_the_buffer_gets_resync_required() {
    let server = TestServer::start().await;
    let mut events = server.events(None).await;
    assert_eq!(events.next().await.kind(), "server.connected");
    server.create_session(json!({})).await;
    let seen = events.next_event().await.id.unwrap();
    drop(events);
    // More events than the core's replay buffer holds.
    for _ in 0..5000 {
        server.ledger.events().publish(EventPayload::SessionIdle {
            session_id: "ses_filler".into(),
        });
    }
    server.ledger.events().delivered().await;
    let mut resumed = server.events(Some(seen)).await;
    assert_eq!(resumed.next().await.kind(), "server.connected");
    let resync = resumed.next().await;
    assert_eq!(resync.kind(), "server.resync-required");
    assert_eq!(resync.data["properties"]["lastEventID"], seen);
    let newest = server.ledger.events().next_sequence() - 1;
    assert_eq!(resync.id, Some(newest));
    let live = server.create_session(json!({})).await;
    let next = resumed.next_event().await;
    assert_eq!(next.data["properties"]["info"]["id"], live["id"]);
    assert_eq!(next.id, Some(newest + 1));
}

#[tokio::test]
async fn a_last_event_id_from_before_a_restart_gets_resync_required() {
    let server = TestServer::start().await;
    let mut resumed = server.events(Some(123_456)).await;
    assert_eq!(resumed.next().await.kind(), "server.connected");
    let resync = resumed.next().await;
    assert_eq!(resync.kind(), "server.resync-required");
    assert_eq!(resync.data["properties"]["lastEventID"], 123_456);
    assert_eq!(resync.data["properties"]["oldestAvailable"], json!(null));
}

#[tokio::test]
async fn a_garbled_last_event_id_is_treated_as_a_fresh_subscription() {
    let server = TestServer::start().await;
    let response = server
        .client
        .get(server.url("/event"))
        .header("Last-Event-ID", "evt_not_a_number")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn shutdown_ends_open_event_streams() {
    let server = TestServer::start().await;
    let mut events = server.events(None).await;
    assert_eq!(events.next().await.kind(), "server.connected");
    let stopping = tokio::spawn(server.stop());
    assert!(events.ends_within(Duration::from_secs(5)).await);
    stopping.await.unwrap().unwrap();
}

#[tokio::test]
async fn a_stream_that_falls_behind_gets_resync_required_not_a_silent_gap() {
    let server = TestServer::start().await;
    let mut events = server.events(None).await;
    assert_eq!(events.next().await.kind(), "server.connected");
    // This test's runtime has one thread: the stream's writer cannot run while these are
    // published, so its receiver falls more than the broadcast capacity behind.
    for _ in 0..10_000 {
        server.ledger.events().publish(EventPayload::SessionIdle {
            session_id: "ses_burst".into(),
        });
    }
    // On PostgreSQL the burst goes round the database and is delivered in batches, between
    // which the stream's writer runs: it may keep up. Then every event arrives, in order;
    // either way none is silently skipped.
    server.ledger.events().delivered().await;
    let newest = server.ledger.events().next_sequence() - 1;
    let mut last_id = 0;
    loop {
        let frame = events.next_event().await;
        let id = frame.id.expect("every frame after connected carries an id");
        if frame.kind() == "server.resync-required" {
            assert_eq!(id, newest);
            break;
        }
        // Whatever arrives before the resync is contiguous.
        assert!(
            last_id == 0 || id == last_id + 1,
            "gap after {last_id}: {id}"
        );
        last_id = id;
        if on_postgres() && id == newest {
            break;
        }
    }
    let live = server.create_session(json!({})).await;
    let next = events.next_event().await;
    assert_eq!(next.id, Some(newest + 1));
    assert_eq!(next.data["properties"]["info"]["id"], live["id"]);
}

#[tokio::test]
async fn the_global_stream_wraps_events_with_directory_and_payload() {
    let server = TestServer::start().await;
    let response = server.get("/global/event").await;
    assert_eq!(response.status(), 200);
    let mut events = super::support::EventReader::new(response);
    let connected = events.next().await;
    assert_eq!(connected.data["payload"]["type"], "server.connected");
    assert_eq!(connected.data["project"], "global");
    assert!(connected.data["directory"].is_string());
    let session = server.create_session(json!({})).await;
    let created = events.next().await;
    assert!(created.id.is_some());
    assert_eq!(created.data["payload"]["type"], "session.created");
    assert_eq!(
        created.data["payload"]["properties"]["info"]["id"],
        session["id"]
    );
}
