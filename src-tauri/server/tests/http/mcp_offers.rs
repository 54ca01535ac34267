//! The composer's and Settings' MCP routes against the real everything server: its tools with
//! their "Always allow" switches (`GET /dossier/mcp/tools`, `POST /dossier/mcp/tools/:name`,
//! written to the config file), its resources and its prompts' text.

use crate::http::support::{assert_error, json_of, TestServer};
use dossier_core::models::config::Config;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;

const TOOL: &str = "everything_toggle-simulated-logging";

/// A server whose config file holds the everything server, once it is connected; `None` (said
/// loudly) when `tests/mcp` is not installed.
async fn with_everything() -> Option<TestServer> {
    let everything = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if !everything.exists() {
        eprintln!("\n!!!!!!!! SKIPPED: run `bash scripts/install-mcp-test-servers.sh`.\n");
        return None;
    }
    let config = json!({"mcp": {"everything": {
        "type": "local",
        "command": ["node", everything.display().to_string(), "stdio"],
        "timeout": 30000
    }}})
    .to_string();
    let server = TestServer::start_customised(crate::http::support::test_options(), |options| {
        std::fs::write(&options.locations.config_path, &config).unwrap();
        options.config = Some(Config::parse(&config).unwrap());
    })
    .await;
    for _ in 0..1200 {
        let statuses = json_of(server.get("/mcp").await).await;
        if statuses["everything"]["status"] == "connected" {
            return Some(server);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the everything server never connected");
}

fn find<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in {tools}"))
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "starts an MCP server with `node`: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn tools_list_with_their_switches_and_a_switch_is_written_to_the_config_file() {
    let Some(server) = with_everything().await else {
        return;
    };
    let tools = json_of(server.get("/dossier/mcp/tools").await).await;
    assert_eq!(
        find(&tools, TOOL),
        &json!({"server": "everything", "name": TOOL, "tool": "toggle-simulated-logging",
            "description": "Toggles simulated, random-leveled logging on or off.",
            "readOnly": false, "alwaysAllowed": false})
    );
    assert_eq!(find(&tools, "everything_echo")["readOnly"], true);

    let tools = json_of(
        server
            .post(
                &format!("/dossier/mcp/tools/{TOOL}"),
                json!({"alwaysAllowed": true}),
            )
            .await,
    )
    .await;
    assert_eq!(find(&tools, TOOL)["alwaysAllowed"], true);
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(server.ledger.providers().locations().config_path.clone())
            .unwrap(),
    )
    .unwrap();
    assert_eq!(file["permission"], json!({TOOL: "allow"}));

    assert_error(
        server
            .post(
                "/dossier/mcp/tools/everything_nothing",
                json!({"alwaysAllowed": true}),
            )
            .await,
        400,
        "invalid",
    )
    .await;
    assert_error(
        server
            .post(
                &format!("/dossier/mcp/tools/{TOOL}"),
                json!({"allowed": true}),
            )
            .await,
        400,
        "invalid",
    )
    .await;
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "starts an MCP server with `node`: no Node.js for Windows in the Wine prefix (Node 22 for Windows fails on Wine 8.0's stdio pipes with EBADF); the Windows runner has node"
)]
async fn resources_and_a_prompts_text_come_from_the_server() {
    let Some(server) = with_everything().await else {
        return;
    };
    let resources = json_of(server.get("/dossier/mcp/resources").await).await;
    let architecture = resources
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["uri"] == "demo://resource/static/document/architecture.md")
        .unwrap_or_else(|| panic!("{resources}"));
    assert_eq!(architecture["clientName"], "everything");
    assert_eq!(architecture["name"], "architecture.md");

    let prompts = json_of(server.get("/dossier/mcp/prompts").await).await;
    let arguments = prompts
        .as_array()
        .unwrap()
        .iter()
        .find(|prompt| prompt["name"] == "args-prompt")
        .unwrap_or_else(|| panic!("{prompts}"));
    assert_eq!(arguments["arguments"][0]["name"], "city");
    assert_eq!(arguments["arguments"][0]["required"], true);
    let text = json_of(
        server
            .post(
                "/dossier/mcp/prompt",
                json!({"clientName": "everything", "name": "args-prompt", "arguments": {"city": "Lisbon"}}),
            )
            .await,
    )
    .await;
    assert_eq!(text, json!({"text": "What's weather in Lisbon?"}));
}
