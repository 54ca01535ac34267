//! Message routes: paging with `limit` / `before` and the `Link` / `X-Next-Cursor` headers,
//! one message, deleting a message or a part, rewriting a part, and their errors.

use super::support::{assert_error, json_of, TestServer};
use serde_json::{json, Value};

async fn session_with_messages(server: &TestServer, count: usize) -> (String, Vec<String>) {
    let session = server.create_session(json!({})).await;
    let id = session["id"].as_str().unwrap().to_string();
    let mut message_ids = Vec::new();
    for index in 0..count {
        let response = server
            .post(
                &format!("/session/{id}/message"),
                json!({"noReply": true, "parts": [{"type": "text", "text": format!("message {index}")}]}),
            )
            .await;
        let body = json_of(response).await;
        message_ids.push(body["info"]["id"].as_str().unwrap().to_string());
    }
    (id, message_ids)
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|message| message["info"]["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn without_limit_every_message_comes_oldest_first() {
    let server = TestServer::start().await;
    let (id, message_ids) = session_with_messages(&server, 3).await;
    let response = server.get(&format!("/session/{id}/message")).await;
    assert_eq!(response.status(), 200);
    assert!(response.headers().get("link").is_none());
    let list = json_of(response).await;
    assert_eq!(ids(&list), message_ids);
    assert_eq!(list[0]["parts"][0]["text"], "message 0");
}

#[tokio::test]
async fn pages_follow_link_and_next_cursor_to_older_messages() {
    let server = TestServer::start().await;
    let (id, message_ids) = session_with_messages(&server, 5).await;
    let response = server.get(&format!("/session/{id}/message?limit=2")).await;
    let cursor = response.headers()["x-next-cursor"]
        .to_str()
        .unwrap()
        .to_string();
    let link = response.headers()["link"].to_str().unwrap().to_string();
    assert_eq!(
        link,
        format!("</session/{id}/message?limit=2&before={cursor}>; rel=\"next\"")
    );
    assert_eq!(ids(&json_of(response).await), message_ids[3..].to_vec());

    let next_path = link
        .trim_start_matches('<')
        .split('>')
        .next()
        .unwrap()
        .to_string();
    let second = server.get(&next_path).await;
    assert!(second.headers().get("x-next-cursor").is_some());
    assert_eq!(ids(&json_of(second).await), message_ids[1..3].to_vec());

    let last = server
        .get(&format!("/session/{id}/message?limit=2&before={}", {
            let page = server.get(&next_path).await;
            page.headers()["x-next-cursor"]
                .to_str()
                .unwrap()
                .to_string()
        }))
        .await;
    assert!(last.headers().get("x-next-cursor").is_none());
    assert_eq!(ids(&json_of(last).await), message_ids[..1].to_vec());
}

#[tokio::test]
async fn before_without_limit_is_400_like_opencode() {
    let server = TestServer::start().await;
    let (id, _) = session_with_messages(&server, 1).await;
    let response = server.get(&format!("/session/{id}/message?before=5")).await;
    let message = assert_error(response, 400, "invalid").await;
    assert!(message.contains("limit"), "{message}");
}

#[tokio::test]
async fn a_foreign_cursor_is_400() {
    let server = TestServer::start().await;
    let (id, _) = session_with_messages(&server, 1).await;
    let response = server
        .get(&format!("/session/{id}/message?limit=1&before=yesterday"))
        .await;
    assert_error(response, 400, "invalid").await;
}

#[tokio::test]
async fn messages_of_a_missing_session_are_404() {
    let server = TestServer::start().await;
    assert_error(
        server.get("/session/ses_missing/message").await,
        404,
        "not_found",
    )
    .await;
}

#[tokio::test]
async fn one_message_comes_with_its_parts_and_a_missing_one_is_404() {
    let server = TestServer::start().await;
    let (id, message_ids) = session_with_messages(&server, 2).await;
    let message = json_of(
        server
            .get(&format!("/session/{id}/message/{}", message_ids[1]))
            .await,
    )
    .await;
    assert_eq!(message["info"]["id"], message_ids[1].as_str());
    assert_eq!(message["parts"][0]["text"], "message 1");
    let response = server
        .get(&format!("/session/{id}/message/msg_missing"))
        .await;
    let text = assert_error(response, 404, "not_found").await;
    assert!(text.contains("msg_missing"), "{text}");
}

#[tokio::test]
async fn a_deleted_message_is_gone_and_announced() {
    let server = TestServer::start().await;
    let (id, message_ids) = session_with_messages(&server, 3).await;
    let mut events = server.events(None).await;
    assert_eq!(events.next().await.kind(), "server.connected");
    let response = server
        .delete(&format!("/session/{id}/message/{}", message_ids[1]))
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(json_of(response).await, json!(true));
    let list = json_of(server.get(&format!("/session/{id}/message")).await).await;
    assert_eq!(ids(&list), [message_ids[0].clone(), message_ids[2].clone()]);
    let removed = events.next_event().await;
    assert_eq!(removed.kind(), "message.removed");
    assert_eq!(
        removed.data["properties"]["messageID"],
        json!(message_ids[1])
    );

    let again = server
        .delete(&format!("/session/{id}/message/{}", message_ids[1]))
        .await;
    assert_error(again, 404, "not_found").await;
}

#[tokio::test]
async fn a_part_is_rewritten_with_its_ids_or_deleted() {
    let server = TestServer::start().await;
    let (id, message_ids) = session_with_messages(&server, 1).await;
    let message = json_of(
        server
            .get(&format!("/session/{id}/message/{}", message_ids[0]))
            .await,
    )
    .await;
    let mut part = message["parts"][0].clone();
    let part_path = format!(
        "/session/{id}/message/{}/part/{}",
        message_ids[0],
        part["id"].as_str().unwrap()
    );
    part["text"] = json!("message zero, corrected");
    let response = server.patch(&part_path, part.clone()).await;
    assert_eq!(response.status(), 200);
    assert_eq!(json_of(response).await, part);
    let list = json_of(server.get(&format!("/session/{id}/message")).await).await;
    assert_eq!(list[0]["parts"][0]["text"], "message zero, corrected");

    let mut elsewhere = part.clone();
    elsewhere["messageID"] = json!("msg_elsewhere");
    let refused = server.patch(&part_path, elsewhere).await;
    let reason = assert_error(refused, 400, "invalid").await;
    assert!(reason.contains("must be the ones in the path"), "{reason}");
    assert_error(server.patch(&part_path, json!({})).await, 400, "invalid").await;

    let response = server.delete(&part_path).await;
    assert_eq!(json_of(response).await, json!(true));
    let list = json_of(server.get(&format!("/session/{id}/message")).await).await;
    assert_eq!(list[0]["parts"], json!([]));
    assert_error(server.delete(&part_path).await, 404, "not_found").await;
}
