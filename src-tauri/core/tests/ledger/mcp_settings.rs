//! MCP servers a person manages: connect / disconnect / restart on request, servers added,
//! changed and removed in Settings (the config file written by the core, the running servers
//! following without a restart), a secret value kept in the keychain and nowhere else, the
//! Claude Desktop import, and the composer's resources and prompts — against the real
//! everything server from npm.

use crate::mcp_servers::{everything_command, is_connected, test_servers, wait_for};
use crate::support::{open_with, subscribe, TestLedger};
use dossier_core::ledger::mcp::McpPromptRequest;
use dossier_core::mcp::mcp_settings::{
    McpServerInput, McpServerKind, McpValueInput, McpValueSource,
};
use dossier_core::models::credentials::{CredentialStore, InMemoryCredentials};
use dossier_core::wire::event::EventPayload;
use dossier_core::wire::mcp_status::McpStatus;
use dossier_core::ErrorKind;
use serde_json::json;
use std::sync::Arc;

const SECRET: &str = "s3cret-token-7f1c2b9e";

/// A ledger whose config file holds `config` (the settings write that file) and whose keychain
/// is `store`.
async fn open_with_file(config: &str, store: Arc<InMemoryCredentials>) -> TestLedger {
    open_with(config, |options| {
        std::fs::write(&options.locations.config_path, config)
            .unwrap_or_else(|error| panic!("{error}"));
        options.credentials = Some(store);
    })
    .await
}

fn config_path(test: &TestLedger) -> std::path::PathBuf {
    test.ledger.providers().locations().config_path.clone()
}

fn read_config(test: &TestLedger) -> String {
    std::fs::read_to_string(config_path(test)).unwrap_or_else(|error| panic!("{error}"))
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "starts an MCP server with `node`: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn servers_connect_disconnect_and_restart_on_request() {
    let Some(servers) = test_servers() else {
        return;
    };
    let config = crate::mcp_servers::config_with_servers(json!({
        "everything": {"type": "local", "command": everything_command(&servers), "timeout": 30000}
    }));
    let test = open_with_file(&config, Arc::new(InMemoryCredentials::default())).await;
    wait_for(&test, "everything", is_connected).await;

    let status = test
        .ledger
        .mcp()
        .disconnect("everything")
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(status, McpStatus::Disabled);
    assert_eq!(
        test.ledger.mcp().status()["everything"],
        McpStatus::Disabled
    );
    assert!(test.ledger.runtime().mcp_servers.tools().is_empty());
    let refused = test
        .ledger
        .mcp()
        .prompt_text(prompt_request("simple-prompt", &[]))
        .await
        .err()
        .unwrap_or_else(|| panic!("a disconnected server answered"));
    assert_eq!(refused.kind(), ErrorKind::Conflict);
    assert_eq!(refused.to_string(), "MCP server \"everything\" is disabled");

    test.ledger
        .mcp()
        .connect("everything")
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    wait_for(&test, "everything", is_connected).await;
    assert!(test
        .ledger
        .runtime()
        .mcp_servers
        .tool("everything_echo")
        .is_some());

    let mut events = subscribe(&test.ledger).await;
    test.ledger
        .mcp()
        .restart("everything")
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    wait_for(&test, "everything", is_connected).await;
    let mut seen = Vec::new();
    // On PostgreSQL the ledger's events go round the database: wait until they arrived.
    test.ledger.events().delivered().await;
    while let Ok(event) = events.try_recv() {
        if let EventPayload::McpStatus { name, status } = &event.payload {
            seen.push((name.clone(), status.clone()));
        }
    }
    assert_eq!(
        seen.first().map(|(_, status)| status),
        Some(&McpStatus::Connecting),
        "{seen:?}"
    );
    assert!(
        seen.iter()
            .any(|(name, status)| name == "everything" && is_connected(status)),
        "{seen:?}"
    );

    let unknown = test
        .ledger
        .mcp()
        .connect("nowhere")
        .await
        .err()
        .unwrap_or_else(|| panic!("an unknown server connected"));
    assert_eq!(unknown.kind(), ErrorKind::NotFound);
    assert_eq!(
        unknown.to_string(),
        "MCP server \"nowhere\" is not configured"
    );
    test.ledger.close().await;
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "starts an MCP server with `node`: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn prompts_and_resources_of_connected_servers() {
    let Some(servers) = test_servers() else {
        return;
    };
    let config = crate::mcp_servers::config_with_servers(json!({
        "everything": {"type": "local", "command": everything_command(&servers), "timeout": 30000}
    }));
    let test = open_with_file(&config, Arc::new(InMemoryCredentials::default())).await;
    wait_for(&test, "everything", is_connected).await;

    let prompts = test
        .ledger
        .mcp()
        .prompts()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let arguments = prompts
        .iter()
        .find(|prompt| prompt.name == "args-prompt")
        .unwrap_or_else(|| panic!("{prompts:?}"));
    assert_eq!(arguments.client_name, "everything");
    assert_eq!(
        arguments
            .arguments
            .iter()
            .map(|argument| (argument.name.as_str(), argument.required))
            .collect::<Vec<_>>(),
        [("city", true), ("state", false)]
    );
    let simple = test
        .ledger
        .mcp()
        .prompt_text(prompt_request("simple-prompt", &[]))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(simple.text, "This is a simple prompt without arguments.");
    let filled = test
        .ledger
        .mcp()
        .prompt_text(prompt_request("args-prompt", &[("city", "Lyon")]))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(filled.text, "What's weather in Lyon?");
    let missing = test
        .ledger
        .mcp()
        .prompt_text(prompt_request("no-such-prompt", &[]))
        .await
        .err()
        .unwrap_or_else(|| panic!("an unknown prompt was answered"));
    assert_eq!(missing.kind(), ErrorKind::Unavailable, "{missing}");

    let resources = test
        .ledger
        .mcp()
        .resources()
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let document = resources
        .iter()
        .find(|item| item.uri == "demo://resource/static/document/architecture.md")
        .unwrap_or_else(|| panic!("{resources:?}"));
    assert_eq!(document.client_name, "everything");
    assert!(!document.name.is_empty());
    test.ledger.close().await;
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "starts an MCP server with `node`: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn a_server_added_in_settings_keeps_its_secret_in_the_keychain_only() {
    let Some(servers) = test_servers() else {
        return;
    };
    let store = Arc::new(InMemoryCredentials::default());
    let config = r#"{
        "model": "fake/fake-model",
        "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "models": {"fake-model": {}}}},
        "custom": {"kept": true}
    }"#;
    let test = open_with_file(config, store.clone()).await;
    let mut events = subscribe(&test.ledger).await;

    let input = McpServerInput {
        name: "everything".into(),
        kind: McpServerKind::Local,
        command: Some(everything_command(&servers)),
        url: None,
        values: Some(vec![McpValueInput {
            name: "DOSSIER_TEST_TOKEN".into(),
            value: Some(SECRET.into()),
        }]),
        enabled: Some(true),
        timeout: Some(30000),
    };
    let listed = test
        .ledger
        .mcp()
        .save_server(input)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(listed.servers.len(), 1);
    assert_eq!(
        listed.servers[0].values[0].source,
        McpValueSource::Keychain,
        "{listed:?}"
    );
    // Applied without a restart.
    wait_for(&test, "everything", is_connected).await;

    let written = read_config(&test);
    assert!(!written.contains(SECRET), "{written}");
    assert!(
        written.contains("{keychain:mcp:everything:environment:DOSSIER_TEST_TOKEN}"),
        "{written}"
    );
    let file: serde_json::Value =
        serde_json::from_str(&written).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(file["custom"], json!({"kept": true}));
    assert_eq!(file["provider"]["fake"]["npm"], "@ai-sdk/openai-compatible");
    assert_eq!(
        store
            .read("mcp:everything:environment:DOSSIER_TEST_TOKEN")
            .ok()
            .flatten()
            .as_deref(),
        Some(SECRET)
    );

    // The child got the value itself: the everything server's get-env tool prints its
    // environment.
    let servers_handle = test.ledger.runtime().mcp_servers.clone();
    let get_env = servers_handle
        .tool("everything_get-env")
        .unwrap_or_else(|| panic!("no get-env tool"));
    let printed = servers_handle
        .call_tool(&get_env, json!({}))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(
        printed.output.contains(SECRET),
        "the child never saw the value"
    );

    // Changing the timeout and keeping the stored value restarts the server with the value.
    let edit = McpServerInput {
        name: "everything".into(),
        kind: McpServerKind::Local,
        command: Some(everything_command(&servers)),
        url: None,
        values: Some(vec![McpValueInput {
            name: "DOSSIER_TEST_TOKEN".into(),
            value: None,
        }]),
        enabled: Some(true),
        timeout: Some(40000),
    };
    test.ledger
        .mcp()
        .save_server(edit)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    wait_for(&test, "everything", is_connected).await;
    let written = read_config(&test);
    assert!(
        written.contains("40000") && written.contains("{keychain:"),
        "{written}"
    );

    // The database is written to while the server runs.
    let session = test.session().await;
    test.no_reply(
        &session,
        vec![dossier_core::wire::draft::Draft::text("hello")],
    )
    .await;

    // Nothing but the keychain holds the value: not the database files, not the events.
    let mut published = Vec::new();
    // On PostgreSQL the ledger's events go round the database: wait until they arrived.
    test.ledger.events().delivered().await;
    while let Ok(event) = events.try_recv() {
        published.push(serde_json::to_string(&*event).unwrap_or_else(|error| panic!("{error}")));
    }
    assert!(!published.is_empty());
    assert!(published.iter().all(|event| !event.contains(SECRET)));
    for (place, bytes) in crate::support::stored_bytes(&test).await {
        assert!(
            !bytes
                .windows(SECRET.len())
                .any(|window| window == SECRET.as_bytes()),
            "{place} holds the secret"
        );
    }

    // Removed: gone from the file, the keychain and the statuses.
    let listed = test
        .ledger
        .mcp()
        .remove_server("everything")
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(listed.servers.is_empty());
    assert!(!read_config(&test).contains("everything"));
    assert_eq!(
        store
            .read("mcp:everything:environment:DOSSIER_TEST_TOKEN")
            .ok()
            .flatten(),
        None
    );
    assert!(!test.ledger.mcp().status().contains_key("everything"));
    test.ledger.close().await;
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "starts an MCP server with `node`: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn claude_desktop_servers_are_imported_and_connect() {
    let Some(servers) = test_servers() else {
        return;
    };
    let store = Arc::new(InMemoryCredentials::default());
    let test = open_with_file("{}", store.clone()).await;
    let command = everything_command(&servers);
    let claude = json!({"mcpServers": {"everything": {
        "command": command[0], "args": command[1..], "env": {"API_TOKEN": SECRET}
    }}});
    let path = test.folder.path().join("claude_desktop_config.json");
    std::fs::write(&path, claude.to_string()).unwrap_or_else(|error| panic!("{error}"));
    let listed = test
        .ledger
        .mcp()
        .import_claude_desktop_file(&path)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(listed.servers[0].name, "everything");
    assert_eq!(listed.servers[0].command, command);
    assert!(!read_config(&test).contains(SECRET));
    wait_for(&test, "everything", is_connected).await;

    let bad = test
        .ledger
        .mcp()
        .import_claude_desktop("{\"theme\": \"dark\"}")
        .await
        .err()
        .unwrap_or_else(|| panic!("a file without servers was imported"));
    assert_eq!(bad.kind(), ErrorKind::Invalid);
    assert!(bad.to_string().contains("mcpServers"), "{bad}");
    test.ledger.close().await;
}

#[tokio::test]
async fn a_name_with_a_space_is_saved_and_a_name_with_the_same_tool_prefix_is_refused() {
    let config = r#"{
        "model": "fake/fake-model",
        "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "models": {"fake-model": {}}}}
    }"#;
    let test = open_with_file(config, Arc::new(InMemoryCredentials::default())).await;
    let input = |name: &str| McpServerInput {
        name: name.into(),
        kind: McpServerKind::Local,
        command: Some(vec!["node".into(), "/nonexistent/files.js".into()]),
        url: None,
        values: None,
        enabled: Some(false),
        timeout: None,
    };
    let listed = test
        .ledger
        .mcp()
        .save_server(input("My files"))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(listed.servers[0].name, "My files");
    let refused = test
        .ledger
        .mcp()
        .save_server(input("My_files"))
        .await
        .err()
        .unwrap_or_else(|| panic!("a second name with the prefix My_files was saved"));
    assert_eq!(refused.kind(), ErrorKind::Conflict);
    assert_eq!(
        refused.to_string(),
        "The server name \"My_files\" gives its tools the same names as the server \"My files\" (My_files_…); choose a name that differs in more than spaces and punctuation"
    );
    // Saving the same server again is no clash with itself.
    test.ledger
        .mcp()
        .save_server(input("My files"))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    test.ledger.close().await;
}

/// The composer's request for the everything server's prompt `name`.
fn prompt_request(name: &str, arguments: &[(&str, &str)]) -> McpPromptRequest {
    McpPromptRequest {
        client_name: "everything".into(),
        name: name.into(),
        arguments: arguments
            .iter()
            .map(|(key, value)| (key.to_string(), value.to_string()))
            .collect(),
    }
}
