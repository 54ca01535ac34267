//! MCP benchmark against the real servers from npm (`tests/mcp`, installed by
//! `bash scripts/install-mcp-test-servers.sh`): prints figures, asserts nothing. Run with
//! `cargo bench -p dossier-core --bench mcp`.
//!
//! 1. Start-up: from `start_up::open` (what the app and `dossier-server` call at start) to every
//!    one of three stdio servers connected (everything ×2 + filesystem), against the same three
//!    servers started bare with the same client (`rmcp`) to their `initialize` answer, and to
//!    the same listings Dossier makes on connecting — so the reader sees what is node's and the
//!    servers' own start-up and what is Dossier's. Rounds interleave the three ways, so a change
//!    of load on the machine falls on all of them alike.
//! 2. One tool round trip: the everything server's `echo`, called by the agent loop for a model
//!    that asks for `everything_echo` (permission allowed by the config), from the tool part's
//!    `running` event to its `completed` event — server lookup, permission rules, the call,
//!    the result mapped into the part, the part written to the ledger and published — against
//!    the bare `rmcp` call of the same tool on a server process of its own, and `McpServers::
//!    call_tool` (Dossier's client layer without the loop) on the ledger's own connection.

#[path = "support/fake_model.rs"]
mod fake_model;

use dossier_core::mcp::mcp_servers::McpTool;
use dossier_core::models::config::Locations;
use dossier_core::wire::draft::{Draft, PromptInput};
use dossier_core::wire::event::EventPayload;
use dossier_core::wire::mcp_status::McpStatus;
use dossier_core::wire::part::{PartBody, ToolState};
use dossier_core::wire::session::CreateSession;
use dossier_core::{Ledger, LedgerOptions};
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

const START_ROUNDS: usize = 16;
/// Tool calls run before counting: the node server's JIT, SQLite's caches, the pool.
const WARM_UP_CALLS: usize = 30;
const CALLS: usize = 400;

fn milliseconds(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

/// Median and spread of a handful of rounds (start-up).
fn report_rounds(label: &str, mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    let median = percentile(&samples, 0.5);
    println!(
        "{label:<58} n={:<3} median={:>7.1} ms  min={:>7.1}  p25={:>7.1}  p75={:>7.1}  max={:>7.1}",
        samples.len(),
        milliseconds(median),
        milliseconds(samples[0]),
        milliseconds(percentile(&samples, 0.25)),
        milliseconds(percentile(&samples, 0.75)),
        milliseconds(samples[samples.len() - 1]),
    );
    median
}

/// p50 and p99 of many calls; returns both.
fn report_calls(label: &str, mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let (p50, p99) = (percentile(&samples, 0.50), percentile(&samples, 0.99));
    println!(
        "{label:<58} n={:<4} p50={:>7.3} ms  p90={:>7.3} ms  p99={:>7.3} ms",
        samples.len(),
        milliseconds(p50),
        milliseconds(percentile(&samples, 0.90)),
        milliseconds(p99),
    );
    (p50, p99)
}

/// The installed servers' folder, or the way to install them and a non-zero exit.
fn servers_folder() -> PathBuf {
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/mcp/node_modules/@modelcontextprotocol");
    let needed = [
        "server-everything/dist/index.js",
        "server-filesystem/dist/index.js",
    ];
    if needed.iter().all(|file| folder.join(file).exists()) {
        return folder;
    }
    eprintln!(
        "The MCP test servers are not installed ({}).\n\
         Install them with `bash scripts/install-mcp-test-servers.sh`, then run this bench again.",
        folder.display()
    );
    std::process::exit(2);
}

/// The three stdio servers: name and command line, as a config's `command` would hold them.
fn three_servers(folder: &Path, allowed: &Path) -> Vec<(String, Vec<String>)> {
    let everything = || {
        vec![
            "node".to_string(),
            folder
                .join("server-everything/dist/index.js")
                .display()
                .to_string(),
            "stdio".to_string(),
        ]
    };
    vec![
        ("everything".to_string(), everything()),
        ("everything_two".to_string(), everything()),
        (
            "files".to_string(),
            vec![
                "node".to_string(),
                folder
                    .join("server-filesystem/dist/index.js")
                    .display()
                    .to_string(),
                allowed.display().to_string(),
            ],
        ),
    ]
}

fn mcp_entries(servers: &[(String, Vec<String>)]) -> Value {
    servers
        .iter()
        .map(|(name, command)| {
            (
                name.clone(),
                json!({"type": "local", "command": command, "timeout": 120_000}),
            )
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// A ledger in `folder` opened as the apps open one: the config read from its file.
async fn open_ledger(folder: &Path, config: &Value) -> Ledger {
    let config_path = folder.join("config.json");
    std::fs::write(&config_path, config.to_string()).unwrap_or_else(|error| panic!("{error}"));
    let work = folder.join("work");
    std::fs::create_dir_all(&work).unwrap_or_else(|error| panic!("{error}"));
    let mut options = LedgerOptions::at(Locations {
        data_dir: folder.join("data"),
        config_path,
    });
    options.default_directory = Some(work);
    dossier_core::start_up::open(options)
        .await
        .unwrap_or_else(|error| panic!("{error}"))
}

/// Waits until every configured server is connected; a failed one ends the bench.
async fn all_connected(ledger: &Ledger) {
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let statuses = ledger.mcp().status();
        if let Some((name, McpStatus::Failed { error, stderr })) = statuses
            .iter()
            .find(|(_, status)| matches!(status, McpStatus::Failed { .. }))
        {
            panic!("MCP server {name} failed: {error}\n{}", stderr.join("\n"));
        }
        if statuses
            .values()
            .all(|status| matches!(status, McpStatus::Connected { .. }))
        {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "servers not connected: {statuses:?}"
        );
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// Dossier's start: (time for `open` to return, time until all servers are connected).
async fn dossier_start(servers: &[(String, Vec<String>)]) -> (Duration, Duration) {
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let config = json!({"mcp": mcp_entries(servers)});
    let started = Instant::now();
    let ledger = open_ledger(folder.path(), &config).await;
    let opened = started.elapsed();
    all_connected(&ledger).await;
    let connected = started.elapsed();
    ledger.close().await;
    (opened, connected)
}

fn bare_process(command: &[String]) -> TokioChildProcess {
    let mut line = tokio::process::Command::new(&command[0]);
    line.args(&command[1..]);
    let (process, _) = TokioChildProcess::builder(line)
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|error| panic!("{error}"));
    process
}

/// One server started bare with `rmcp`: to its `initialize` answer, and with `listings` also
/// the tools, resources and prompts lists Dossier asks for on connecting.
async fn bare_connect(command: Vec<String>, listings: bool) -> RunningService<RoleClient, ()> {
    let service = ().serve(bare_process(&command)).await.unwrap_or_else(|error| panic!("{error}"));
    if listings {
        let capabilities = service
            .peer_info()
            .map(|info| info.capabilities.clone())
            .unwrap_or_default();
        if capabilities.tools.is_some() {
            service
                .list_all_tools()
                .await
                .unwrap_or_else(|error| panic!("{error}"));
        }
        if capabilities.resources.is_some() {
            service
                .list_all_resources()
                .await
                .unwrap_or_else(|error| panic!("{error}"));
        }
        if capabilities.prompts.is_some() {
            service
                .list_all_prompts()
                .await
                .unwrap_or_else(|error| panic!("{error}"));
        }
    }
    service
}

/// The three servers started together, bare: the time until all have answered.
async fn bare_start(servers: &[(String, Vec<String>)], listings: bool) -> Duration {
    let started = Instant::now();
    let services = futures::future::join_all(
        servers
            .iter()
            .map(|(_, command)| bare_connect(command.clone(), listings)),
    )
    .await;
    let elapsed = started.elapsed();
    for service in services {
        if let Err(error) = service.cancel().await {
            eprintln!("a bare session ended badly: {error}");
        }
    }
    elapsed
}

/// Three `node -e 0` together: node's own boot, before it loads any server code.
async fn node_boot() -> Duration {
    let started = Instant::now();
    let runs = (0..3).map(|_| {
        tokio::process::Command::new("node")
            .args(["-e", "0"])
            .status()
    });
    for status in futures::future::join_all(runs).await {
        let status = status.unwrap_or_else(|error| panic!("{error}"));
        assert!(status.success(), "node -e 0: {status}");
    }
    started.elapsed()
}

async fn start_up(folder: &Path) {
    let allowed = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let servers = three_servers(folder, allowed.path());
    // One round of each first, not counted: the disk cache holds node and the servers' files.
    dossier_start(&servers).await;
    bare_start(&servers, true).await;
    let (mut node, mut initialize, mut listed, mut opened, mut connected) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..START_ROUNDS {
        // Each round takes the four ways in another order, so none always follows the same one
        // (whose children may still be ending) or always meets the machine at the same moment.
        for way in 0..4 {
            match (round + way) % 4 {
                0 => node.push(node_boot().await),
                1 => initialize.push(bare_start(&servers, false).await),
                2 => listed.push(bare_start(&servers, true).await),
                _ => {
                    let (open, all) = dossier_start(&servers).await;
                    opened.push(open);
                    connected.push(all);
                }
            }
            // The last way's children have ended before the next one starts.
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    println!("Start-up, 3 stdio servers (everything ×2 + filesystem), started together:");
    let node = report_rounds("  node -e 0 ×3 (node's own boot)", node);
    let initialize = report_rounds(
        "  bare rmcp: spawn → initialize answered, all 3",
        initialize,
    );
    let listed = report_rounds("  bare rmcp: … + tools/resources/prompts listed", listed);
    report_rounds("  Dossier: start_up::open returned", opened);
    let connected = report_rounds("  Dossier: start_up::open → all 3 connected", connected);
    let signed =
        |later: Duration, earlier: Duration| (later.as_secs_f64() - earlier.as_secs_f64()) * 1000.0;
    println!(
        "  medians: node's boot {:.1} ms; the servers' own start to initialize {:+.1} ms more; \
         their listings {:+.1} ms; Dossier's start over the bare start with listings {:+.1} ms",
        milliseconds(node),
        signed(initialize, node),
        signed(listed, initialize),
        signed(connected, listed),
    );
}

/// One prompt whose model calls `everything_echo` once: the time from the tool part's
/// `running` event to its `completed` event, as a subscriber sees them.
async fn loop_call(ledger: &Ledger) -> Duration {
    let session = ledger
        .sessions()
        .create(CreateSession {
            // A titled session needs no title request running beside the measured call.
            title: Some("MCP bench".into()),
            ..CreateSession::default()
        })
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let mut events = ledger.events().subscribe();
    let running = {
        let ledger = ledger.clone();
        let session_id = session.id.clone();
        tokio::spawn(async move {
            ledger
                .sessions()
                .prompt(
                    &session_id,
                    PromptInput {
                        parts: vec![Draft::text("echo it")],
                        ..PromptInput::default()
                    },
                )
                .await
        })
    };
    let mut started: Option<Instant> = None;
    let elapsed = loop {
        let event = events
            .recv()
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        let EventPayload::PartUpdated { part, .. } = &event.payload else {
            continue;
        };
        let PartBody::Tool(tool) = &part.body else {
            continue;
        };
        match &tool.state {
            ToolState::Running { .. } => started = Some(Instant::now()),
            ToolState::Completed { output, .. } => {
                let at = Instant::now();
                assert_eq!(*output, format!("Echo: {}", fake_model::MESSAGE));
                break at.duration_since(started.unwrap_or(at));
            }
            ToolState::Error { error, .. } => panic!("the tool call failed: {error}"),
            ToolState::Pending { .. } => {}
        }
    };
    running
        .await
        .unwrap_or_else(|error| panic!("{error}"))
        .unwrap_or_else(|error| panic!("{error}"));
    elapsed
}

async fn bare_call(service: &RunningService<RoleClient, ()>) -> Duration {
    let mut params = CallToolRequestParams::new("echo");
    params.arguments = json!({"message": fake_model::MESSAGE}).as_object().cloned();
    let started = Instant::now();
    let result = service
        .call_tool(params)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let elapsed = started.elapsed();
    let text = serde_json::to_value(&result).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        text["content"][0]["text"],
        format!("Echo: {}", fake_model::MESSAGE)
    );
    elapsed
}

async fn client_layer_call(ledger: &Ledger, tool: &McpTool) -> Duration {
    let started = Instant::now();
    let result = ledger
        .runtime()
        .mcp_servers
        .call_tool(tool, json!({"message": fake_model::MESSAGE}))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let elapsed = started.elapsed();
    assert_eq!(result.output, format!("Echo: {}", fake_model::MESSAGE));
    elapsed
}

async fn tool_round_trip(folder: &Path) {
    let everything = three_servers(folder, folder)
        .into_iter()
        .next()
        .map(|(_, command)| command)
        .unwrap_or_default();
    let mut config = fake_model::start().await;
    config["mcp"] =
        json!({"everything": {"type": "local", "command": everything, "timeout": 120_000}});
    config["permission"] = json!({fake_model::TOOL: "allow"});
    let data = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let ledger = open_ledger(data.path(), &config).await;
    all_connected(&ledger).await;
    let tool = ledger
        .runtime()
        .mcp_servers
        .tool(fake_model::TOOL)
        .unwrap_or_else(|| panic!("{} not offered", fake_model::TOOL));
    let bare_service = bare_connect(everything, false).await;

    let (mut through_loop, mut through_client, mut through_rmcp) =
        (Vec::new(), Vec::new(), Vec::new());
    for round in 0..WARM_UP_CALLS + CALLS {
        let samples = (
            loop_call(&ledger).await,
            client_layer_call(&ledger, &tool).await,
            bare_call(&bare_service).await,
        );
        if round >= WARM_UP_CALLS {
            through_loop.push(samples.0);
            through_client.push(samples.1);
            through_rmcp.push(samples.2);
        }
    }
    println!("One tool round trip, the everything server's echo (interleaved, after {WARM_UP_CALLS} warm-up rounds):");
    let bare = report_calls("  bare rmcp call_tool (own server process)", through_rmcp);
    let client = report_calls(
        "  McpServers::call_tool (the ledger's connection)",
        through_client,
    );
    let full = report_calls(
        "  agent loop: tool part running → completed event",
        through_loop,
    );
    let difference = |(p50, p99): (Duration, Duration)| {
        format!(
            "p50 {:+.3} ms, p99 {:+.3} ms",
            (p50.as_secs_f64() - bare.0.as_secs_f64()) * 1000.0,
            (p99.as_secs_f64() - bare.1.as_secs_f64()) * 1000.0
        )
    };
    println!("  client layer over bare: {}", difference(client));
    println!("  agent loop over bare:   {}", difference(full));
    if let Err(error) = bare_service.cancel().await {
        eprintln!("the bare session ended badly: {error}");
    }
    ledger.close().await;
}

#[tokio::main]
async fn main() {
    let folder = servers_folder();
    start_up(&folder).await;
    println!();
    tool_round_trip(&folder).await;
}
