//! Fork, undo, redo, edit and resend, regenerate through real IPC requests on Tauri's mock
//! runtime; export and import through the functions the dialogs hand their paths to (a native
//! dialog cannot be answered without a display).

use super::{export_file_name, import_from, write_export, ExportFormat};
use crate::commands::tests::{harness, Harness};
use dossier_core::Ledger;
use serde_json::{json, Value};
use tauri::Manager;

fn say(harness: &Harness, session_id: &str, text: &str) -> String {
    let message = harness.ok(
        "send_prompt",
        json!({"sessionId": session_id, "input": {"noReply": true, "parts": [{"type": "text", "text": text}]}}),
    );
    message["info"]["id"]
        .as_str()
        .expect("message id")
        .to_string()
}

fn texts(harness: &Harness, session_id: &str) -> Vec<String> {
    let page = harness.ok("list_messages", json!({"sessionId": session_id}));
    page["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|message| {
            message["parts"]
                .as_array()
                .expect("parts")
                .iter()
                .filter_map(|part| part["text"].as_str())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn fork_copies_the_messages_before_the_chosen_one() {
    let harness = harness(false);
    let id = harness.new_session();
    say(&harness, &id, "one");
    let second = say(&harness, &id, "two");
    say(&harness, &id, "three");
    let fork = harness.ok(
        "fork_session",
        json!({"sessionId": id, "body": {"messageID": second}}),
    );
    let fork_id = fork["id"].as_str().expect("fork id");
    assert_ne!(fork_id, id);
    assert_eq!(texts(&harness, fork_id), vec!["one"]);
    let whole = harness.ok("fork_session", json!({"sessionId": id, "body": {}}));
    assert_eq!(
        texts(&harness, whole["id"].as_str().expect("id")),
        vec!["one", "two", "three"]
    );
}

#[test]
fn undo_marks_and_redo_clears_without_losing_messages() {
    let harness = harness(false);
    let id = harness.new_session();
    say(&harness, &id, "keep");
    let undone = say(&harness, &id, "undo me");
    let session = harness.ok(
        "revert_session",
        json!({"sessionId": id, "body": {"messageID": undone}}),
    );
    assert_eq!(session["revert"]["messageID"], undone.as_str());
    // Soft: the message stays until the next prompt, so redo can bring it back.
    assert_eq!(texts(&harness, &id), vec!["keep", "undo me"]);
    let session = harness.ok("unrevert_session", json!({"sessionId": id}));
    assert!(session.get("revert").is_none_or(Value::is_null));
}

#[test]
fn edit_and_resend_replaces_the_message_and_gets_a_reply() {
    let harness = harness(false);
    let id = harness.new_session();
    say(&harness, &id, "keep");
    let draft = say(&harness, &id, "first draft");
    let reply = harness.ok(
        "resend_message",
        json!({"sessionId": id, "messageId": draft, "body": {"text": "second draft"}}),
    );
    assert_eq!(reply["info"]["role"], "assistant");
    let now = texts(&harness, &id);
    assert_eq!(now[..2], ["keep".to_string(), "second draft".to_string()]);
    assert!(!now.iter().any(|text| text.contains("first draft")));
    assert_eq!(now.len(), 3, "the edited message and its reply: {now:?}");

    let again = harness.ok(
        "regenerate_reply",
        json!({"sessionId": id, "messageId": reply["info"]["id"]}),
    );
    assert_eq!(again["info"]["role"], "assistant");
    assert_ne!(again["info"]["id"], reply["info"]["id"]);
    assert_eq!(texts(&harness, &id).len(), 3);
}

#[test]
fn regenerating_your_own_message_is_refused_with_a_reason() {
    let harness = harness(false);
    let id = harness.new_session();
    let mine = say(&harness, &id, "hello");
    let error = harness
        .invoke(
            "regenerate_reply",
            json!({"sessionId": id, "messageId": mine}),
        )
        .expect_err("a user message is not a reply");
    assert_eq!(error["kind"], "invalid");
    assert!(error["message"]
        .as_str()
        .expect("message")
        .contains("not a reply"));
}

#[test]
fn export_then_import_gives_a_new_session_with_the_same_messages() {
    let harness = harness(false);
    let id = harness.new_session();
    say(&harness, &id, "remember the lighthouse");
    say(&harness, &id, "and the harbour");
    let ledger = harness.app.state::<Ledger>();
    let folder = tempfile::tempdir().expect("temp dir");
    let json_path = folder.path().join("export.json");
    let markdown_path = folder.path().join("export.md");
    tauri::async_runtime::block_on(async {
        write_export(&ledger, &id, ExportFormat::Json, &json_path).await?;
        write_export(&ledger, &id, ExportFormat::Markdown, &markdown_path).await
    })
    .expect("exports written");
    let markdown = std::fs::read_to_string(&markdown_path).expect("markdown");
    assert!(markdown.contains("remember the lighthouse"), "{markdown}");
    assert!(
        std::fs::read_dir(folder.path())
            .expect("folder")
            .all(|entry| !entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .contains("partial")),
        "no temporary file is left behind"
    );

    let imported =
        tauri::async_runtime::block_on(import_from(&ledger, &json_path)).expect("import succeeds");
    assert_ne!(imported.id, id);
    assert_eq!(
        texts(&harness, &imported.id),
        vec!["remember the lighthouse", "and the harbour"]
    );
}

#[test]
fn importing_a_file_that_is_not_an_export_says_why_and_adds_nothing() {
    let harness = harness(false);
    let ledger = harness.app.state::<Ledger>();
    let folder = tempfile::tempdir().expect("temp dir");
    let path = folder.path().join("notes.json");
    std::fs::write(&path, "this is not json").expect("write");
    let error = tauri::async_runtime::block_on(import_from(&ledger, &path)).expect_err("not JSON");
    assert_eq!(error.body().kind, dossier_core::ErrorKind::Invalid);
    assert!(error.to_string().contains("not JSON"), "{error}");

    std::fs::write(&path, r#"{"hello": "world"}"#).expect("write");
    let error = tauri::async_runtime::block_on(import_from(&ledger, &path))
        .expect_err("JSON but not an export");
    assert!(error
        .to_string()
        .contains("not a Dossier or OpenCode session export"));
    let listing = harness.ok("list_sessions", json!({"body": {"roots": true}}));
    assert_eq!(listing["sessions"].as_array().expect("sessions").len(), 0);
}

#[test]
fn export_file_names_are_safe_on_every_platform() {
    assert_eq!(
        export_file_name("Plan: a/b <draft>?", ExportFormat::Markdown),
        "Plan_ a_b _draft__.md"
    );
    assert_eq!(
        export_file_name("  ..  ", ExportFormat::Json),
        "session.json"
    );
    assert_eq!(
        export_file_name(&"长".repeat(200), ExportFormat::Json)
            .chars()
            .count(),
        80 + ".json".len()
    );
}
