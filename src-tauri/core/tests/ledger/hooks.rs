//! The `chat.message` hook point: in-process and external command hooks edit before saving;
//! failing, slow or misbehaving hooks are reported and the input is saved untouched.

use crate::support::*;
use async_trait::async_trait;
use dossier_core::pipeline::chat_message_hook::{ChatMessage, ChatMessageHook, HookError};
use dossier_core::wire::draft::Draft;
use dossier_core::wire::event::EventPayload;
use dossier_core::wire::part::PartBody;
use std::sync::Arc;

struct Shout;

#[async_trait]
impl ChatMessageHook for Shout {
    fn name(&self) -> String {
        "shout".into()
    }

    async fn chat_message(&self, mut input: ChatMessage) -> Result<ChatMessage, HookError> {
        for part in &mut input.parts {
            if let PartBody::Text(text) = &mut part.body {
                text.text = text.text.to_uppercase();
            }
        }
        input.message.system = Some("be loud".into());
        Ok(input)
    }
}

struct Thief;

#[async_trait]
impl ChatMessageHook for Thief {
    fn name(&self) -> String {
        "thief".into()
    }

    async fn chat_message(&self, mut input: ChatMessage) -> Result<ChatMessage, HookError> {
        input.message.id = "msg_stolen".into();
        Ok(input)
    }
}

fn hook_errors(events: &[dossier_core::wire::event::Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match &event.payload {
            EventPayload::SessionError {
                error: Some(error), ..
            } => serde_json::to_value(error).ok().map(|value| {
                value["data"]["message"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            }),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn in_process_hook_edits_message_and_parts_before_saving() {
    let test = open_with(FAKE_CONFIG, |options| options.hooks = vec![Arc::new(Shout)]).await;
    let session = test.session().await;
    let saved = test
        .no_reply(&session, vec![Draft::text("quiet words")])
        .await;
    assert_eq!(describe(&saved.parts), ["text: QUIET WORDS"]);
    let stored = test
        .ledger
        .sessions()
        .message(&session.id, saved.info.id())
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(describe(&stored.parts), ["text: QUIET WORDS"]);
    let dossier_core::wire::message::Message::User(user) = stored.info else {
        panic!()
    };
    assert_eq!(user.system.as_deref(), Some("be loud"));
}

#[tokio::test]
async fn hook_that_changes_identity_is_refused_and_input_kept() {
    let test = open_with(FAKE_CONFIG, |options| options.hooks = vec![Arc::new(Thief)]).await;
    let session = test.session().await;
    let mut events = subscribe(&test.ledger).await;
    let saved = test.no_reply(&session, vec![Draft::text("mine")]).await;
    assert_ne!(saved.info.id(), "msg_stolen");
    let errors = hook_errors(&drain(&test.ledger, &mut events).await);
    assert_eq!(errors, ["The chat.message hook \"thief\" failed (it changed the message's id or session); your message was saved without its changes"]);
}

/// A command hook written in JavaScript for `node`, which every CI runner has (macOS, Windows and
/// Linux alike), rather than `sh` and Unix tools.
fn command_config(script: &str, timeout: u64) -> String {
    serde_json::json!({"hooks": {"chat.message": [{"command": ["node", "-e", script], "timeout": timeout}]}}).to_string()
}

/// Reads the whole input, then runs `then` with it as `input`.
fn with_input(then: &str) -> String {
    format!("let input = ''; process.stdin.on('data', (chunk) => {{ input += chunk; }}).on('end', () => {{ {then} }});")
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "runs a `node` hook: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn command_hook_gets_json_on_stdin_and_its_output_is_saved() {
    let test = open(&command_config(
        &with_input("process.stdout.write(input.replace(/hello/g, 'HELLO'));"),
        5000,
    ))
    .await;
    let session = test.session().await;
    let saved = test
        .no_reply(&session, vec![Draft::text("hello there")])
        .await;
    assert_eq!(describe(&saved.parts), ["text: HELLO there"]);
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "runs a `node` hook: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn failing_command_hook_is_reported_and_original_saved() {
    let test = open(&command_config(
        "process.stderr.write('broken\\n', () => process.exit(3));",
        5000,
    ))
    .await;
    let session = test.session().await;
    let mut events = subscribe(&test.ledger).await;
    let saved = test.no_reply(&session, vec![Draft::text("keep me")]).await;
    assert_eq!(describe(&saved.parts), ["text: keep me"]);
    let errors = hook_errors(&drain(&test.ledger, &mut events).await);
    assert_eq!(errors.len(), 1);
    assert!(
        // "exit status: 3" on Unix, "exit code: 3" on Windows.
        errors[0].contains("exited with exit ") && errors[0].contains(": 3: broken"),
        "{}",
        errors[0]
    );
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "runs a `node` hook: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn slow_command_hook_times_out_and_original_is_saved() {
    let test = open(&command_config("setTimeout(() => {}, 10000);", 200)).await;
    let session = test.session().await;
    let mut events = subscribe(&test.ledger).await;
    let started = std::time::Instant::now();
    let saved = test.no_reply(&session, vec![Draft::text("not lost")]).await;
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(describe(&saved.parts), ["text: not lost"]);
    let errors = hook_errors(&drain(&test.ledger, &mut events).await);
    assert!(errors[0].contains("timed out after 200 ms"), "{errors:?}");
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "runs a `node` hook: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn command_hook_printing_garbage_is_reported() {
    let test = open(&command_config(
        &with_input("console.log('not-json');"),
        5000,
    ))
    .await;
    let session = test.session().await;
    let mut events = subscribe(&test.ledger).await;
    let saved = test.no_reply(&session, vec![Draft::text("safe")]).await;
    assert_eq!(describe(&saved.parts), ["text: safe"]);
    assert!(hook_errors(&drain(&test.ledger, &mut events).await)[0]
        .contains("not {message, parts} JSON"));
}
