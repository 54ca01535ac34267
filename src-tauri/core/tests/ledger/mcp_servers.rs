//! The MCP client against real servers from npm (`tests/mcp`, installed by
//! `scripts/install-mcp-test-servers.sh`, which the test run calls): start-up in the background,
//! statuses, resources in prompts with OpenCode's texts, servers that misbehave, a server killed
//! and started again.

use crate::support::{describe, open, TestLedger};
use dossier_core::wire::draft::{Draft, FileDraft};
use dossier_core::wire::mcp_status::McpStatus;
use dossier_core::wire::part::{FilePart, FileSource, SourceText};
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

/// The installed test servers, or `None` (said loudly) when `tests/mcp` was not installed.
pub fn test_servers() -> Option<PathBuf> {
    if cfg!(wine) {
        // A test that reaches the servers through a helper and was not marked: see the
        // `cfg_attr(wine, ignore)` reason on the others.
        eprintln!("SKIPPED under Wine: no Node.js for Windows in the Wine prefix");
        return None;
    }
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/mcp/node_modules/@modelcontextprotocol");
    if folder.join("server-everything/dist/index.js").exists() {
        return Some(folder);
    }
    eprintln!(
        "\n!!!!!!!! SKIPPED: the MCP test servers are not installed.\n\
         !!!!!!!! Run `bash scripts/install-mcp-test-servers.sh` (scripts/test-all.sh does).\n"
    );
    None
}

pub fn everything_command(servers: &std::path::Path) -> Vec<String> {
    vec![
        "node".into(),
        servers
            .join("server-everything/dist/index.js")
            .display()
            .to_string(),
        "stdio".into(),
    ]
}

pub fn config_with_servers(servers: serde_json::Value) -> String {
    json!({
        "model": "fake/fake-model",
        "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "models": {"fake-model": {"name": "Fake"}}}},
        "mcp": servers
    })
    .to_string()
}

/// Waits (at most 60 s) until `name`'s status satisfies `wanted`, and returns it.
pub async fn wait_for(
    test: &TestLedger,
    name: &str,
    wanted: impl Fn(&McpStatus) -> bool,
) -> McpStatus {
    for _ in 0..1200 {
        if let Some(status) = test.ledger.mcp().status().get(name) {
            if wanted(status) {
                return status.clone();
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "MCP server {name} never reached the wanted status: {:?}",
        test.ledger.mcp().status()
    );
}

pub fn is_connected(status: &McpStatus) -> bool {
    matches!(status, McpStatus::Connected { .. })
}

fn resource(client: &str, uri: &str, filename: &str) -> Draft {
    Draft::File(FileDraft {
        id: None,
        part: FilePart {
            mime: "text/plain".into(),
            filename: Some(filename.into()),
            url: uri.into(),
            source: Some(FileSource::Resource {
                text: SourceText {
                    value: format!("@{filename}"),
                    start: 0,
                    end: 0,
                },
                client_name: client.into(),
                uri: uri.into(),
            }),
        },
    })
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "starts an MCP server with `node`: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn everything_server_connects_and_its_resources_land_in_a_prompt() {
    let Some(servers) = test_servers() else {
        return;
    };
    let config = config_with_servers(json!({
        "everything": {"type": "local", "command": everything_command(&servers), "timeout": 30000},
        "off": {"type": "local", "command": ["node"], "enabled": false}
    }));
    let test = open(&config).await;
    // The ledger opened without waiting for the server.
    assert_eq!(test.ledger.mcp().status()["off"], McpStatus::Disabled);
    let status = wait_for(&test, "everything", is_connected).await;
    let McpStatus::Connected {
        tools,
        resources,
        prompts,
    } = status
    else {
        unreachable!()
    };
    assert!(tools >= 5 && resources >= 3 && prompts >= 1, "{status:?}");

    let session = test.session().await;
    let document = "demo://resource/static/document/architecture.md";
    let blob = "demo://resource/dynamic/blob/7";
    let missing = "demo://resource/static/document/no-such-file.md";
    let saved = test
        .no_reply(
            &session,
            vec![
                resource("everything", document, "architecture.md"),
                resource("everything", blob, "blob 7"),
                resource("everything", missing, "missing"),
                resource("nowhere", document, "elsewhere"),
            ],
        )
        .await;
    let lines = describe(&saved.parts);
    assert_eq!(
        lines[0],
        format!("text*: Reading MCP resource: architecture.md ({document})")
    );
    let expected_text =
        std::fs::read_to_string(servers.join("server-everything/dist/docs/architecture.md"))
            .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(lines[1], format!("text*: {expected_text}"));
    assert_eq!(lines[2], format!("file text/plain {document}"));
    assert_eq!(
        lines[3],
        format!("text*: Reading MCP resource: blob 7 ({blob})")
    );
    assert!(
        lines[4].starts_with(&format!(
            "text*: [Binary MCP resource omitted: {blob} (text/plain, "
        )) && lines[4].ends_with(") is not a supported attachment type]"),
        "{}",
        lines[4]
    );
    assert_eq!(lines[5], format!("file text/plain {blob}"));
    assert_eq!(
        lines[6],
        format!("text*: Reading MCP resource: missing ({missing})")
    );
    assert!(
        lines[7].starts_with("text*: Failed to read MCP resource missing: "),
        "{}",
        lines[7]
    );
    assert_eq!(
        lines[8..],
        [
            format!("text*: Reading MCP resource: elsewhere ({document})"),
            "text*: Failed to read MCP resource elsewhere: MCP server \"nowhere\" is not configured".to_string(),
        ]
    );
    test.ledger.close().await;
}

// Unix only: the misbehaving servers are `sh` scripts, which Windows does not have.
#[cfg(unix)]
#[tokio::test]
async fn servers_that_misbehave_fail_with_a_clear_status() {
    let config = config_with_servers(json!({
        "garbage": {"type": "local", "command": ["sh", "-c", "echo 'this is not json'; echo 'garbage server says why' >&2; exit 3"], "timeout": 5000},
        "silent": {"type": "local", "command": ["sh", "-c", "echo 'waiting forever' >&2; exec sleep 60"], "timeout": 800},
        "missing": {"type": "local", "command": ["/no/such/program"]}
    }));
    let test = open(&config).await;
    let failed = |status: &McpStatus| matches!(status, McpStatus::Failed { .. });
    let garbage = wait_for(&test, "garbage", failed).await;
    assert!(
        matches!(&garbage, McpStatus::Failed { error, stderr } if error.ends_with(": garbage server says why") && stderr.iter().any(|line| line == "garbage server says why")),
        "{garbage:?}"
    );
    let silent = wait_for(&test, "silent", failed).await;
    assert!(
        matches!(&silent, McpStatus::Failed { error, stderr } if error == "The MCP server did not finish starting within 800 ms (it last wrote: waiting forever)" && stderr == &["waiting forever"]),
        "{silent:?}"
    );
    let missing = wait_for(&test, "missing", failed).await;
    assert!(
        matches!(&missing, McpStatus::Failed { error, .. } if error == "Could not start /no/such/program: the command was not found"),
        "{missing:?}"
    );
    test.ledger.close().await;
}

#[tokio::test]
async fn a_remote_server_with_a_malformed_url_fails_with_a_clear_status() {
    let config = config_with_servers(json!({
        "malformed": {"type": "remote", "url": "ftp://example"}
    }));
    let test = open(&config).await;
    let malformed = wait_for(&test, "malformed", |status| {
        matches!(status, McpStatus::Failed { .. })
    })
    .await;
    assert!(
        matches!(&malformed, McpStatus::Failed { error, .. } if error.contains("\"url\" is not a valid http(s) URL")),
        "{malformed:?}"
    );
    test.ledger.close().await;
}

// Unix only: the server's pid comes from `sh` (`echo $$`) and it is ended with `kill -9`. On
// Windows the same code path (a server whose process ends) is reached through the job object.
#[cfg(unix)]
#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "starts an MCP server with `node`: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn a_killed_server_is_marked_failed_and_comes_back() {
    let Some(servers) = test_servers() else {
        return;
    };
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let pid_file = folder.path().join("pid");
    let script = format!(
        "echo $$ > '{}'; exec {}",
        pid_file.display(),
        everything_command(&servers).join(" ")
    );
    let config = config_with_servers(json!({
        "everything": {"type": "local", "command": ["sh", "-c", script], "timeout": 30000}
    }));
    let test = open(&config).await;
    wait_for(&test, "everything", is_connected).await;
    let first_pid = std::fs::read_to_string(&pid_file).unwrap_or_else(|error| panic!("{error}"));
    let killed = std::process::Command::new("kill")
        .args(["-9", first_pid.trim()])
        .status()
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(killed.success());
    let failed = wait_for(&test, "everything", |status| !is_connected(status)).await;
    assert!(
        matches!(&failed, McpStatus::Failed { .. } | McpStatus::Connecting),
        "{failed:?}"
    );
    wait_for(&test, "everything", is_connected).await;
    let second_pid = std::fs::read_to_string(&pid_file).unwrap_or_else(|error| panic!("{error}"));
    assert_ne!(first_pid, second_pid);
    test.ledger.close().await;
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "starts an MCP server with `node`: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn the_everything_server_over_streamable_http_connects_and_serves_a_resource() {
    let Some(servers) = test_servers() else {
        return;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .unwrap_or_else(|error| panic!("{error}"));
    let mut server = tokio::process::Command::new("node")
        .arg(servers.join("server-everything/dist/index.js"))
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|error| panic!("{error}"));
    let stderr = server.stderr.take().unwrap_or_else(|| panic!("no stderr"));
    let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(stderr));
    let listening = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains("listening on port") {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(listening, Ok(true), "the HTTP server did not start");
    let config = config_with_servers(json!({
        "remote": {
            "type": "remote",
            "url": format!("http://127.0.0.1:{port}/mcp"),
            "headers": {"X-Dossier-Test": "yes"},
            "timeout": 30000
        }
    }));
    let test = open(&config).await;
    let status = wait_for(&test, "remote", is_connected).await;
    assert!(
        matches!(status, McpStatus::Connected { tools, resources, .. } if tools > 0 && resources > 0),
        "{status:?}"
    );
    let session = test.session().await;
    let document = "demo://resource/static/document/features.md";
    let saved = test
        .no_reply(&session, vec![resource("remote", document, "features.md")])
        .await;
    let expected = std::fs::read_to_string(servers.join("server-everything/dist/docs/features.md"))
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        describe(&saved.parts)[..2],
        [
            format!("text*: Reading MCP resource: features.md ({document})"),
            format!("text*: {expected}"),
        ]
    );
    test.ledger.close().await;
}
