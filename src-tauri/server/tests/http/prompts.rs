//! Prompt routes: a noReply prompt's four parts in OpenCode's order, typed 400s for bad
//! bodies, 404 for a missing session, an honest 503 while replies are unavailable, and
//! `prompt_async`.

use super::support::{assert_error, json_of, TestServer};
use serde_json::{json, Value};

async fn session_id(server: &TestServer) -> String {
    let session = server.create_session(json!({})).await;
    session["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn no_reply_prompt_returns_the_user_message_with_four_parts_in_opencode_order() {
    let server = TestServer::start().await;
    let id = session_id(&server).await;
    let (path, url) = server.text_file("notes.txt", "first line\nsecond line\n");
    let response = server
        .post(
            &format!("/session/{id}/message"),
            server.no_reply_prompt(&url, "summarise these notes"),
        )
        .await;
    assert_eq!(response.status(), 200);
    let body = json_of(response).await;
    assert_eq!(body["info"]["role"], "user");
    assert_eq!(body["info"]["sessionID"], id.as_str());
    assert_eq!(body["info"]["agent"], "build");
    assert_eq!(body["info"]["model"]["providerID"], "fake");
    assert_eq!(body["info"]["model"]["modelID"], "fake-model");
    let parts = body["parts"].as_array().unwrap();
    let kinds: Vec<(&str, bool)> = parts
        .iter()
        .map(|part| {
            (
                part["type"].as_str().unwrap(),
                part["synthetic"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("text", true),
            ("text", true),
            ("file", false),
            ("text", false)
        ]
    );
    let path = path.display().to_string();
    // The input is JSON: a Windows path's `\` arrives escaped.
    let input = serde_json::json!({ "filePath": path }).to_string();
    assert_eq!(
        parts[0]["text"],
        format!("Called the Read tool with the following input: {input}")
    );
    let read = parts[1]["text"].as_str().unwrap();
    assert!(read.starts_with(&format!("<path>{path}</path>")), "{read}");
    assert!(read.contains("1: first line\n2: second line"), "{read}");
    assert_eq!(parts[2]["url"], url.as_str());
    assert_eq!(parts[3]["text"], "summarise these notes");
    for part in parts {
        assert!(part["id"].as_str().unwrap().starts_with("prt_"));
        assert_eq!(part["messageID"], body["info"]["id"]);
    }
}

#[tokio::test]
async fn a_forged_part_type_is_400_naming_the_part() {
    let server = TestServer::start().await;
    let id = session_id(&server).await;
    let response = server
        .post(
            &format!("/session/{id}/message"),
            json!({"noReply": true, "parts": [
                {"type": "text", "text": "hi"},
                {"type": "tool", "tool": "bash", "state": {"status": "completed"}}
            ]}),
        )
        .await;
    let message = assert_error(response, 400, "invalid").await;
    assert!(message.contains("part 1"), "{message}");
    assert!(message.contains("\"tool\""), "{message}");
}

#[tokio::test]
async fn an_unknown_prompt_field_is_400_naming_it() {
    let server = TestServer::start().await;
    let id = session_id(&server).await;
    let response = server
        .post(
            &format!("/session/{id}/message"),
            json!({"noReply": true, "urgent": true, "parts": [{"type": "text", "text": "hi"}]}),
        )
        .await;
    let message = assert_error(response, 400, "invalid").await;
    assert!(message.contains("urgent"), "{message}");
}

#[tokio::test]
async fn malformed_or_empty_prompt_bodies_are_400_with_a_reason() {
    let server = TestServer::start().await;
    let id = session_id(&server).await;
    let path = format!("/session/{id}/message");
    let message = assert_error(
        server.post_raw(&path, "{\"parts\": [").await,
        400,
        "invalid",
    )
    .await;
    assert!(message.contains("not valid JSON"), "{message}");
    let message = assert_error(server.post_raw(&path, "").await, 400, "invalid").await;
    assert!(message.contains("parts"), "{message}");
    let message = assert_error(
        server.post(&path, json!({"parts": []})).await,
        400,
        "invalid",
    )
    .await;
    assert!(message.contains("at least one part"), "{message}");
}

#[tokio::test]
async fn a_prompt_to_a_missing_session_is_404() {
    let server = TestServer::start().await;
    let response = server
        .post(
            "/session/ses_missing/message",
            json!({"noReply": true, "parts": [{"type": "text", "text": "hi"}]}),
        )
        .await;
    assert_error(response, 404, "not_found").await;
}

#[tokio::test]
async fn an_unknown_agent_is_404_listing_the_agents() {
    let server = TestServer::start().await;
    let id = session_id(&server).await;
    let response = server
        .post(
            &format!("/session/{id}/message"),
            json!({"noReply": true, "agent": "nobody", "parts": [{"type": "text", "text": "hi"}]}),
        )
        .await;
    let message = assert_error(response, 404, "not_found").await;
    assert!(message.contains("build"), "{message}");
}

#[tokio::test]
async fn a_prompt_wanting_a_reply_returns_the_finished_reply() {
    let server = TestServer::start().await;
    let id = session_id(&server).await;
    let response = server
        .post(
            &format!("/session/{id}/message"),
            json!({"model": {"providerID": "dossier", "modelID": "offline"}, "parts": [{"type": "text", "text": "please answer"}]}),
        )
        .await;
    assert_eq!(response.status(), 200);
    let reply = json_of(response).await;
    assert_eq!(reply["info"]["role"], "assistant");
    assert_eq!(reply["info"]["providerID"], "dossier");
    let text: String = reply["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|part| part["type"] == "text")
        .map(|part| part["text"].as_str().unwrap().to_string())
        .collect();
    assert!(text.contains("please answer"), "{text}");
    let messages = json_of(server.get(&format!("/session/{id}/message")).await).await;
    assert_eq!(messages.as_array().unwrap().len(), 2);
    assert_eq!(messages[0]["parts"][0]["text"], "please answer");
}

#[tokio::test]
async fn prompt_async_answers_204_at_once_and_saves_the_message() {
    let server = TestServer::start().await;
    let id = session_id(&server).await;
    let mut events = server.events(None).await;
    assert_eq!(events.next().await.kind(), "server.connected");
    let response = server
        .post(
            &format!("/session/{id}/prompt_async"),
            json!({"noReply": true, "parts": [{"type": "text", "text": "later"}]}),
        )
        .await;
    assert_eq!(response.status(), 204);
    assert_eq!(response.text().await.unwrap(), "");
    let part = wait_for(&mut events, "message.part.updated").await;
    assert_eq!(part["properties"]["part"]["text"], "later");
    let messages = json_of(server.get(&format!("/session/{id}/message")).await).await;
    assert_eq!(messages.as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn prompt_async_failure_becomes_a_session_error_event() {
    let server = TestServer::start().await;
    let id = session_id(&server).await;
    let mut events = server.events(None).await;
    assert_eq!(events.next().await.kind(), "server.connected");
    let response = server
        .post(
            &format!("/session/{id}/prompt_async"),
            json!({"parts": [{"type": "text", "text": "answer me"}]}),
        )
        .await;
    assert_eq!(response.status(), 204);
    let error = wait_for(&mut events, "session.error").await;
    assert_eq!(error["properties"]["sessionID"], id.as_str());
    assert_eq!(error["properties"]["error"]["name"], "UnknownError");
    let message = error["properties"]["error"]["data"]["message"]
        .as_str()
        .unwrap();
    // The test config names a provider without a base URL: the person is told exactly that.
    assert!(message.contains("baseURL"), "{message}");
}

#[tokio::test]
async fn prompt_async_with_an_unknown_agent_reports_one_session_error() {
    let server = TestServer::start().await;
    let id = session_id(&server).await;
    let mut events = server.events(None).await;
    assert_eq!(events.next().await.kind(), "server.connected");
    let response = server
        .post(
            &format!("/session/{id}/prompt_async"),
            json!({"noReply": true, "agent": "nobody", "parts": [{"type": "text", "text": "x"}]}),
        )
        .await;
    assert_eq!(response.status(), 204);
    let error = wait_for(&mut events, "session.error").await;
    assert!(error["properties"]["error"]["data"]["message"]
        .as_str()
        .unwrap()
        .contains("nobody"));
    // A later event proves no second session.error was queued before it.
    server.create_session(json!({})).await;
    assert_eq!(events.next_event().await.kind(), "session.created");
}

#[tokio::test]
async fn prompt_async_checks_the_body_and_the_session_first() {
    let server = TestServer::start().await;
    let id = session_id(&server).await;
    let forged = json!({"parts": [{"type": "step-start"}]});
    assert_error(
        server
            .post(&format!("/session/{id}/prompt_async"), forged)
            .await,
        400,
        "invalid",
    )
    .await;
    let response = server
        .post(
            "/session/ses_missing/prompt_async",
            json!({"parts": [{"type": "text", "text": "x"}]}),
        )
        .await;
    assert_error(response, 404, "not_found").await;
}

async fn wait_for(events: &mut super::support::EventReader, kind: &str) -> Value {
    loop {
        let frame = events.next_event().await;
        if frame.kind() == kind {
            return frame.data;
        }
    }
}

#[tokio::test]
async fn reusing_a_message_id_is_409_conflict() {
    let server = TestServer::start().await;
    let id = session_id(&server).await;
    let path = format!("/session/{id}/message");
    let first = json_of(
        server
            .post(
                &path,
                json!({"noReply": true, "parts": [{"type": "text", "text": "one"}]}),
            )
            .await,
    )
    .await;
    let message_id = first["info"]["id"].as_str().unwrap();
    let response = server
        .post(
            &path,
            json!({"noReply": true, "messageID": message_id, "parts": [{"type": "text", "text": "two"}]}),
        )
        .await;
    let message = assert_error(response, 409, "conflict").await;
    assert!(message.contains(message_id), "{message}");
}

#[tokio::test]
async fn a_body_over_the_limit_is_413_with_json() {
    let server = TestServer::start_with(dossier_server::ServerOptions {
        body_limit: 1024,
        ..super::support::test_options()
    })
    .await;
    let id = session_id(&server).await;
    let text = "x".repeat(4096);
    let response = server
        .post(
            &format!("/session/{id}/message"),
            json!({"noReply": true, "parts": [{"type": "text", "text": text}]}),
        )
        .await;
    assert_error(response, 413, "too_large").await;
}
