//! The commands through Tauri's mock runtime: real IPC requests, a real ledger on a temporary
//! folder, no display.

use crate::builder;
use dossier_core::models::config::Locations;
use dossier_core::LedgerOptions;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::{Arc, Mutex};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{
    get_ipc_response, mock_builder, mock_context, noop_assets, MockRuntime, INVOKE_KEY,
};
use tauri::webview::InvokeRequest;
use tauri::{Listener, WebviewWindow, WebviewWindowBuilder};

pub(crate) struct Harness {
    _folder: tempfile::TempDir,
    pub(crate) app: tauri::App<MockRuntime>,
    window: WebviewWindow<MockRuntime>,
}

pub(crate) fn harness(simulated_drops: bool) -> Harness {
    let folder = tempfile::tempdir().expect("temp dir");
    let locations = Locations::from_values(
        Some(folder.path().join("data")),
        Some(folder.path().join("dossier.json")),
    );
    let ledger =
        tauri::async_runtime::block_on(dossier_core::start_up::open(LedgerOptions::at(locations)))
            .expect("ledger opens");
    harness_with(folder, ledger, simulated_drops)
}

/// The same app around a ledger the test opened itself (in `folder`, kept for the test's life).
pub(crate) fn harness_with(
    folder: tempfile::TempDir,
    ledger: dossier_core::Ledger,
    simulated_drops: bool,
) -> Harness {
    let app = builder(mock_builder(), ledger, simulated_drops)
        .build(mock_context(noop_assets()))
        .expect("app builds");
    crate::start(&app);
    let window = WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .expect("window builds");
    Harness {
        _folder: folder,
        app,
        window,
    }
}

impl Harness {
    pub(crate) fn invoke(&self, command: &str, body: Value) -> Result<Value, Value> {
        let request = InvokeRequest {
            cmd: command.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().expect("url"),
            body: InvokeBody::Json(body),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        };
        get_ipc_response(&self.window, request)
            .map(|response| response.deserialize::<Value>().expect("response is JSON"))
    }

    pub(crate) fn ok(&self, command: &str, body: Value) -> Value {
        self.invoke(command, body)
            .unwrap_or_else(|error| panic!("{command} failed: {error}"))
    }

    pub(crate) fn new_session(&self) -> String {
        let session = self.ok("create_session", json!({"input": {}}));
        session["id"].as_str().expect("id").to_string()
    }
}

fn write(folder: &Path, name: &str, text: &str) -> String {
    let path = folder.join(name);
    std::fs::write(&path, text).expect("write");
    path.display().to_string()
}

#[test]
fn sessions_are_listed_newest_first_and_paged() {
    let harness = harness(false);
    let first = harness.new_session();
    let second = harness.new_session();
    let third = harness.new_session();
    let page = harness.ok(
        "list_sessions",
        json!({"body": {"roots": true, "limit": 2}}),
    );
    let ids: Vec<&str> = page["sessions"]
        .as_array()
        .expect("array")
        .iter()
        .map(|session| session["id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids, [third.as_str(), second.as_str()]);
    let cursor = page["nextCursor"].as_str().expect("a next page");
    let rest = harness.ok(
        "list_sessions",
        json!({"body": {"roots": true, "limit": 2, "cursor": cursor}}),
    );
    assert_eq!(rest["sessions"][0]["id"], json!(first));
    assert_eq!(rest["nextCursor"], Value::Null);
}

#[test]
fn rename_archive_and_delete_reach_the_ledger() {
    let harness = harness(false);
    let id = harness.new_session();
    let renamed = harness.ok(
        "update_session",
        json!({"sessionId": id, "body": {"title": "Tax return 2025"}}),
    );
    assert_eq!(renamed["title"], "Tax return 2025");
    let archived = harness.ok(
        "archive_session",
        json!({"sessionId": id, "body": {"archived": true}}),
    );
    assert!(archived["time"]["archived"].is_number());
    let listed = harness.ok("list_sessions", json!({"body": {"roots": true}}));
    assert_eq!(
        listed["sessions"],
        json!([]),
        "archived sessions are hidden"
    );
    let restored = harness.ok(
        "archive_session",
        json!({"sessionId": id, "body": {"archived": false}}),
    );
    assert_eq!(restored["time"].get("archived"), None);
    harness.ok("delete_session", json!({"sessionId": id}));
    let error = harness
        .invoke("list_messages", json!({"sessionId": id}))
        .expect_err("deleted");
    assert_eq!(error["kind"], "not_found");
}

#[test]
fn errors_cross_as_kind_and_message() {
    let harness = harness(false);
    let error = harness
        .invoke(
            "update_session",
            json!({"sessionId": "ses_missing", "body": {}}),
        )
        .expect_err("missing session");
    assert_eq!(
        error,
        json!({"kind": "not_found", "message": "Session not found: ses_missing"})
    );
}

#[test]
fn prompt_is_answered_by_the_offline_model() {
    let harness = harness(false);
    let id = harness.new_session();
    let reply = harness.ok(
        "send_prompt",
        json!({"sessionId": id, "input": {"parts": [{"type": "text", "text": "hello"}]}}),
    );
    assert_eq!(reply["info"]["role"], "assistant");
    assert_eq!(reply["info"]["providerID"], "dossier");
    let page = harness.ok("list_messages", json!({"sessionId": id}));
    assert_eq!(page["messages"][0]["parts"][0]["text"], "hello");
    assert_eq!(page["messages"][1]["info"]["role"], "assistant");
}

#[test]
fn delete_message_removes_one_message_for_good() {
    let harness = harness(false);
    let id = harness.new_session();
    let reply = harness.ok(
        "send_prompt",
        json!({"sessionId": id, "input": {"parts": [{"type": "text", "text": "my password is hunter2"}]}}),
    );
    let question = reply["info"]["parentID"].as_str().expect("parentID");
    harness.ok(
        "delete_message",
        json!({"sessionId": id, "messageId": question}),
    );
    let page = harness.ok("list_messages", json!({"sessionId": id}));
    let messages = page["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["info"]["role"], "assistant");
    let error = harness
        .invoke(
            "delete_message",
            json!({"sessionId": id, "messageId": question}),
        )
        .expect_err("already gone");
    assert_eq!(error["kind"], "not_found");
}

#[test]
fn abort_without_a_running_reply_says_nothing_stopped() {
    let harness = harness(false);
    let id = harness.new_session();
    assert_eq!(
        harness.ok("abort_reply", json!({"sessionId": id})),
        json!(false)
    );
    let error = harness
        .invoke(
            "reply_permission",
            json!({"sessionId": id, "permissionId": "per_nope", "body": {"response": "once"}}),
        )
        .expect_err("no such request");
    assert_eq!(error["kind"], "not_found");
}

#[test]
fn file_never_dropped_is_refused() {
    let harness = harness(false);
    let id = harness.new_session();
    let error = harness
        .invoke(
            "send_prompt",
            json!({"sessionId": id, "input": {"noReply": true, "parts": [
                {"type": "file", "mime": "text/plain", "filename": "passwd", "url": "file:///etc/passwd"}
            ]}}),
        )
        .expect_err("refused");
    assert_eq!(error["kind"], "invalid");
    assert!(error["message"]
        .as_str()
        .expect("message")
        .contains("/etc/passwd"));
    let page = harness.ok("list_messages", json!({"sessionId": id}));
    assert_eq!(page["messages"], json!([]), "nothing was saved");
}

#[test]
fn simulated_drop_is_refused_outside_the_end_to_end_test() {
    let harness = harness(false);
    let error = harness
        .invoke("simulate_drop", json!({"paths": ["/etc/passwd"]}))
        .expect_err("hook disabled");
    assert_eq!(error["kind"], "not_found");
}

#[test]
fn dropped_file_and_folder_are_classified_then_read_on_send() {
    let harness = harness(true);
    let files = tempfile::tempdir().expect("temp dir");
    let text = write(files.path(), "notes.txt", "alpha\nbeta\n");
    let folder = files.path().join("project");
    std::fs::create_dir(&folder).expect("mkdir");
    write(&folder, "readme.md", "# hi\n");

    let dropped: Arc<Mutex<Vec<Value>>> = Arc::default();
    let sink = dropped.clone();
    harness
        .app
        .listen_any(crate::drop::DROPPED_EVENT, move |event| {
            let files: Value = serde_json::from_str(event.payload()).expect("JSON payload");
            sink.lock().expect("lock").push(files);
        });
    harness.ok(
        "simulate_drop",
        json!({"paths": [text, folder.display().to_string()]}),
    );
    let files_event = dropped.lock().expect("lock")[0].clone();
    assert_eq!(files_event[0]["kind"], "text");
    assert_eq!(files_event[0]["name"], "notes.txt");
    assert_eq!(files_event[0]["size"], 11);
    assert_eq!(files_event[1]["kind"], "folder");
    assert_eq!(files_event[1]["mime"], "application/x-directory");

    let id = harness.new_session();
    let parts: Vec<Value> = files_event
        .as_array()
        .expect("array")
        .iter()
        .map(|file| {
            json!({"type": "file", "mime": file["mime"], "filename": file["name"], "url": file["url"]})
        })
        .collect();
    let message = harness.ok(
        "send_prompt",
        json!({"sessionId": id, "input": {"noReply": true, "parts": parts}}),
    );
    let texts: Vec<&str> = message["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .filter_map(|part| part["text"].as_str())
        .collect();
    assert!(texts.iter().any(|text| text.contains("alpha")), "{texts:?}");
    assert!(
        texts.iter().any(|text| text.contains("readme.md")),
        "{texts:?}"
    );
}

#[test]
fn core_events_reach_the_webview_as_one_envelope() {
    let harness = harness(false);
    let received: Arc<Mutex<Vec<Value>>> = Arc::default();
    let sink = received.clone();
    harness
        .app
        .listen_any(crate::events::CORE_EVENT, move |event| {
            sink.lock()
                .expect("lock")
                .push(serde_json::from_str(event.payload()).expect("JSON"));
        });
    let id = harness.new_session();
    for _ in 0..100 {
        if !received.lock().expect("lock").is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let events = received.lock().expect("lock").clone();
    let created = events
        .iter()
        .find(|event| event["type"] == "session.created")
        .expect("session.created forwarded");
    assert!(created["id"].as_str().expect("id").starts_with("evt"));
    assert_eq!(created["properties"]["sessionID"], json!(id));
    assert_eq!(created["properties"]["info"]["id"], json!(id));
}

#[test]
fn agents_and_models_are_listed() {
    let harness = harness(false);
    let agents = harness.ok("list_agents", json!({}));
    assert_eq!(agents[0]["name"], "build");
    let models = harness.ok("list_models", json!({}));
    let providers = models["providers"].as_array().expect("providers");
    assert!(providers
        .iter()
        .any(|provider| provider["id"] == "dossier" && provider["models"][0]["id"] == "offline"));
}

fn said(harness: &Harness, session_id: &str, text: &str) -> String {
    let message = harness.ok(
        "send_prompt",
        json!({"sessionId": session_id, "input": {"noReply": true, "parts": [{"type": "text", "text": text}]}}),
    );
    message["info"]["id"].as_str().expect("id").to_string()
}

#[test]
fn search_finds_a_word_with_the_message_it_was_said_in() {
    let harness = harness(false);
    let first = harness.new_session();
    let second = harness.new_session();
    let message = said(&harness, &first, "the quokka hides in the archive");
    said(&harness, &second, "nothing special here");
    let results = harness.ok("search", json!({"body": {"q": "quokka"}}));
    assert_eq!(results.as_array().map(Vec::len), Some(1));
    assert_eq!(results[0]["session"]["id"], json!(first));
    let excerpt = &results[0]["excerpts"][0];
    assert_eq!(excerpt["messageID"], json!(message));
    assert_eq!(excerpt["field"], "text");
    let highlighted: Vec<&str> = excerpt["pieces"]
        .as_array()
        .expect("pieces")
        .iter()
        .filter(|piece| piece["highlighted"] == json!(true))
        .filter_map(|piece| piece["text"].as_str())
        .collect();
    assert_eq!(highlighted, ["quokka"]);
}

#[test]
fn search_hides_archived_sessions_unless_asked_and_scopes_to_one_session() {
    let harness = harness(false);
    let archived = harness.new_session();
    let open = harness.new_session();
    said(&harness, &archived, "walrus one");
    let first = said(&harness, &open, "walrus two");
    let second = said(&harness, &open, "walrus three");
    harness.ok(
        "archive_session",
        json!({"sessionId": archived, "body": {"archived": true}}),
    );
    let visible = harness.ok(
        "search",
        json!({"body": {"q": "walrus", "archived": false}}),
    );
    assert_eq!(visible.as_array().map(Vec::len), Some(1));
    let everything = harness.ok("search", json!({"body": {"q": "walrus", "archived": true}}));
    assert_eq!(everything.as_array().map(Vec::len), Some(2));
    let scoped = harness.ok(
        "search",
        json!({"body": {"q": "walrus", "sessionID": open}}),
    );
    let messages: Vec<&str> = scoped[0]["excerpts"]
        .as_array()
        .expect("excerpts")
        .iter()
        .filter_map(|excerpt| excerpt["messageID"].as_str())
        .collect();
    assert_eq!(messages, [second.as_str(), first.as_str()]);
}

#[test]
fn empty_search_is_invalid_and_pinning_goes_through_update_session() {
    let harness = harness(false);
    let error = harness
        .invoke("search", json!({"body": {"q": "  "}}))
        .expect_err("nothing to search for");
    assert_eq!(error["kind"], "invalid");
    let id = harness.new_session();
    let pinned = harness.ok(
        "update_session",
        json!({"sessionId": id, "body": {"pinned": true}}),
    );
    assert_eq!(pinned["pinned"], json!(true));
    let unpinned = harness.ok(
        "update_session",
        json!({"sessionId": id, "body": {"pinned": false}}),
    );
    assert_eq!(
        unpinned.get("pinned"),
        None,
        "false is omitted, as in OpenCode's shape"
    );
}

#[test]
fn a_provider_saved_in_settings_appears_in_the_models_without_its_key() {
    let harness = harness(false);
    let key = "sk-settings-test-key-2718";
    let settings = harness.ok(
        "save_provider",
        json!({"input": {
            "id": "lmstudio",
            "npm": "@ai-sdk/openai-compatible",
            "baseURL": "http://127.0.0.1:1234/v1",
            "models": ["qwen3-8b"],
            "apiKey": key
        }}),
    );
    assert_eq!(settings["providers"][0]["id"], "lmstudio");
    assert_eq!(settings["providers"][0]["key"]["source"], "keychain");
    assert_eq!(settings["providers"][0]["key"]["hint"], "sk-…2718");
    assert!(!settings.to_string().contains(key));
    let read = harness.ok("read_settings", json!({}));
    assert_eq!(read, settings);
    let models = harness.ok("list_models", json!({}));
    assert_eq!(models["providers"][0]["id"], "lmstudio");
    assert_eq!(models["providers"][0]["models"][0]["id"], "qwen3-8b");

    let removed = harness.ok("remove_provider", json!({"providerId": "lmstudio"}));
    assert_eq!(removed["providers"], json!([]));
    let models = harness.ok("list_models", json!({}));
    assert_eq!(models["providers"][0]["id"], "dossier");
}

#[test]
fn invalid_settings_cross_as_invalid() {
    let harness = harness(false);
    let error = harness
        .invoke(
            "save_provider",
            json!({"input": {"id": "x", "npm": "@ai-sdk/openai-compatible", "models": ["m"]}}),
        )
        .expect_err("no base URL");
    assert_eq!(error["kind"], "invalid");
    assert!(error["message"]
        .as_str()
        .is_some_and(|message| message.contains("needs a base URL")));
}

#[test]
fn storage_use_names_the_data_folder_and_counts_the_database() {
    let harness = harness(false);
    let shown = harness.ok("storage_use", json!({}));
    let folder = shown["dataFolder"].as_str().expect("dataFolder");
    assert!(Path::new(folder).join("dossier.db").is_file(), "{shown}");
    let bytes = shown["bytes"].as_u64().expect("bytes");
    assert!(bytes > 0, "{shown}");
}

#[test]
fn declared_operations_are_commands_taking_their_ids_and_body_by_name() {
    let harness = harness(false);
    let settings = harness.ok("mcp_settings", json!({}));
    assert_eq!(settings["servers"], json!([]), "{settings}");
    let id = harness.new_session();
    let error = harness
        .invoke("continue_reply", json!({"sessionId": id}))
        .expect_err("nothing to continue");
    assert_eq!(error["kind"], "invalid", "{error}");
    let error = harness
        .invoke(
            "set_mcp_tool_always_allowed",
            json!({"name": "everything_echo", "body": {"alwaysAllowed": true}}),
        )
        .expect_err("no server offers the tool");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|message| message.contains("everything_echo")),
        "{error}"
    );
    // Over Tauri a declared operation answers its output even where OpenCode's route answers
    // `true`; the statuses are one object in the config's order.
    assert_eq!(harness.ok("mcp_status", json!({})), json!({}));
    let error = harness
        .invoke("restart_mcp", json!({"name": "nowhere"}))
        .expect_err("no such server");
    assert_eq!(error["kind"], "not_found", "{error}");
    // OpenCode's routes the window does not call are commands too.
    assert_eq!(
        harness.ok("get_session", json!({"sessionId": id}))["id"],
        json!(id)
    );
    assert_eq!(harness.ok("session_statuses", json!({})), json!({}));
    assert_eq!(harness.ok("permission_requests", json!({})), json!([]));
    // A hand-written command still answers beside them.
    assert!(harness.ok("list_models", json!({}))["providers"].is_array());
}
