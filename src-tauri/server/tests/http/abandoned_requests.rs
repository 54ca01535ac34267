//! A write whose client gives up still completes, events included.

use super::support::{json_of, test_options, TestServer};
use async_trait::async_trait;
use dossier_core::pipeline::chat_message_hook::{ChatMessage, ChatMessageHook, HookError};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// Holds every prompt for a while, so the client can give up in the middle of it.
struct SlowHook;

#[async_trait]
impl ChatMessageHook for SlowHook {
    fn name(&self) -> String {
        "slow".into()
    }

    async fn chat_message(&self, input: ChatMessage) -> Result<ChatMessage, HookError> {
        tokio::time::sleep(Duration::from_millis(400)).await;
        Ok(input)
    }
}

#[tokio::test]
async fn a_prompt_whose_client_gives_up_is_still_saved_and_announced() {
    let server = TestServer::start_customised(test_options(), |options| {
        options.hooks.push(Arc::new(SlowHook));
    })
    .await;
    let session = server.create_session(json!({})).await;
    let id = session["id"].as_str().unwrap();
    let mut events = server.events(None).await;
    assert_eq!(events.next().await.kind(), "server.connected");
    let abandoned = server
        .client
        .post(server.url(&format!("/session/{id}/message")))
        .json(&json!({"noReply": true, "parts": [{"type": "text", "text": "still here"}]}))
        .timeout(Duration::from_millis(100))
        .send()
        .await;
    assert!(abandoned.unwrap_err().is_timeout());
    loop {
        let frame = events.next_event().await;
        if frame.kind() == "message.part.updated" {
            assert_eq!(frame.data["properties"]["part"]["text"], "still here");
            break;
        }
    }
    let messages = json_of(server.get(&format!("/session/{id}/message")).await).await;
    assert_eq!(messages.as_array().unwrap().len(), 1);
}
