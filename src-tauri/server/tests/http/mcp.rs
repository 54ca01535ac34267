//! MCP over HTTP and the life of its children: `GET /mcp` answers each server's status as
//! OpenCode does, and a `SIGKILL` of `dossier-server` leaves no MCP server running.

use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;
use tokio::process::Command;

/// The everything server from `tests/mcp`, or `None` (said loudly) when it is not installed.
fn everything_server() -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if path.exists() {
        return Some(path);
    }
    eprintln!(
        "\n!!!!!!!! SKIPPED: the MCP test servers are not installed.\n\
         !!!!!!!! Run `bash scripts/install-mcp-test-servers.sh` (scripts/test-all.sh does).\n"
    );
    None
}

/// The pids whose parent is `parent`, read from `/proc`.
fn children_of(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    // The command may hold spaces: the fields after its closing bracket count.
                    let rest = stat.rsplit_once(')')?.1.to_string();
                    rest.split_whitespace().nth(1)?.parse::<u32>().ok()
                })
                == Some(parent)
        })
        .collect()
}

/// True while `pid` runs (a zombie waiting to be reaped has stopped running).
fn is_running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(')')
                .map(|(_, rest)| rest.trim().to_string())
        })
        .is_some_and(|rest| !rest.starts_with('Z'))
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "starts an MCP server with `node`: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn get_mcp_answers_statuses_and_sigkill_of_the_server_leaves_no_child() {
    let Some(everything) = everything_server() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let command = json!(["node", everything.display().to_string(), "stdio"]);
    // The everything server ends by itself when its stdin closes; this one keeps a timer alive
    // and so runs on after Dossier dies unless the kernel's parent-death signal ends it.
    let stubborn = json!([
        "node",
        "-e",
        format!(
            "setInterval(() => {{}}, 1000); import({:?})",
            everything.display().to_string()
        )
    ]);
    std::fs::write(
        data.path().join("dossier.json"),
        json!({"mcp": {
            "first": {"type": "local", "command": command, "timeout": 30000},
            "second": {"type": "local", "command": stubborn, "timeout": 30000},
            "off": {"type": "remote", "url": "http://127.0.0.1:9/mcp", "enabled": false}
        }})
        .to_string(),
    )
    .unwrap();
    let (mut child, base) =
        super::binary::start_with(data.path(), &[], &[("DOSSIER_OLLAMA", "off")]).await;
    let client = crate::http::support::http_client();
    let mut statuses = Value::Null;
    for _ in 0..600 {
        statuses = client
            .get(format!("{base}/mcp"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if statuses["first"]["status"] == "connected" && statuses["second"]["status"] == "connected"
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(statuses["first"]["status"], "connected", "{statuses}");
    assert_eq!(statuses["second"]["status"], "connected", "{statuses}");
    assert!(
        statuses["first"]["tools"].as_u64().unwrap_or(0) > 0,
        "{statuses}"
    );
    assert_eq!(statuses["off"], json!({"status": "disabled"}));
    let keys: Vec<&String> = statuses.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["first", "second", "off"], "in the config's order");

    // OpenCode's lifecycle routes: disconnect marks the server disabled at once, connect brings
    // it back; an unknown name is a 404 in the `{kind, message}` shape.
    let answer: Value = client
        .post(format!("{base}/mcp/first/disconnect"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer, json!(true));
    let statuses: Value = client
        .get(format!("{base}/mcp"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(statuses["first"], json!({"status": "disabled"}));
    let answer: Value = client
        .post(format!("{base}/mcp/first/connect"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer, json!(true));
    let mut first = Value::Null;
    for _ in 0..600 {
        let statuses: Value = client
            .get(format!("{base}/mcp"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        first = statuses["first"].clone();
        if first["status"] == "connected" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(first["status"], "connected", "{first}");
    let unknown = client
        .post(format!("{base}/mcp/nowhere/connect"))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    let body: Value = unknown.json().await.unwrap();
    assert_eq!(body["kind"], "not_found", "{body}");
    // Dossier's restart answers as connect does: `true`, or the typed 404.
    let answer: Value = client
        .post(format!("{base}/dossier/mcp/off/restart"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer, json!(true));
    let unknown = client
        .post(format!("{base}/dossier/mcp/nowhere/restart"))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    let body: Value = unknown.json().await.unwrap();
    assert_eq!(body["kind"], "not_found", "{body}");

    let server_pid = child.id().unwrap();
    // The child of the first connection is gone; wait until it has been reaped.
    let mut servers = Vec::new();
    for _ in 0..100 {
        servers = children_of(server_pid);
        if servers.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(servers.len(), 2, "two MCP children: {servers:?}");
    let killed = Command::new("kill")
        .args(["-KILL", &server_pid.to_string()])
        .status()
        .await
        .unwrap();
    assert!(killed.success());
    let _ = child.wait().await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let alive: Vec<u32> = servers.into_iter().filter(|pid| is_running(*pid)).collect();
    assert!(
        alive.is_empty(),
        "MCP children still running after SIGKILL: {alive:?}"
    );
}
