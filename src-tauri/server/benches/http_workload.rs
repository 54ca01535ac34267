//! The HTTP workload OpenCode was measured with (`shared/tools/opencode-bench`), against an
//! in-process `dossier-server` on 127.0.0.1 over a fresh ledger: noReply prompts with a text
//! file (p50/p95/p99 and throughput), `GET` of a session with 1,000 messages, and the first
//! 100 of 1,000 sessions. Run with `cargo bench -p dossier-server`; knobs: `PROMPTS`,
//! `MESSAGES`, `SESSIONS`, `REPS`.

// A benchmark is a test harness: a failed unwrap is its error report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dossier_core::models::config::{Config, Locations};
use dossier_core::store::rows::message_page::MessageQuery;
use dossier_core::LedgerOptions;
use dossier_server::{bind, serve, ServerOptions};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const CONFIG: &str = r#"{"model": "fake/fake-model",
  "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "models": {"fake-model": {}}}}}"#;
const PACKAGE_JSON: &str = r#"{
  "name": "oc-anchor-demo",
  "version": "0.1.0",
  "description": "Tiny demo project used as a fixture for OpenCode prompt-pipeline benchmarks",
  "main": "index.js",
  "scripts": { "start": "node index.js", "test": "node --test" },
  "license": "MIT"
}
"#;

fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

fn percentile(sorted: &[Duration], fraction: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted[index].as_secs_f64() * 1000.0
}

fn median_ms(mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    percentile(&samples, 0.5)
}

struct Client {
    http: reqwest::Client,
    base: String,
}

impl Client {
    async fn post(&self, path: &str, body: &Value) -> Value {
        let response = self
            .http
            .post(format!("{}{path}", self.base))
            .json(body)
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success(), "{}", response.status());
        response.json().await.unwrap()
    }

    async fn timed_get(&self, path: &str) -> (Duration, usize) {
        let started = Instant::now();
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success());
        let body = response.bytes().await.unwrap();
        let elapsed = started.elapsed();
        let count = serde_json::from_slice::<Value>(&body)
            .unwrap()
            .as_array()
            .map_or(0, Vec::len);
        (elapsed, count)
    }
}

#[tokio::main]
async fn main() {
    let prompts = knob("PROMPTS", 200);
    let messages = knob("MESSAGES", 1000);
    let sessions = knob("SESSIONS", 1000);
    let reps = knob("REPS", 5).max(1);

    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("package.json");
    std::fs::write(&file, PACKAGE_JSON).unwrap();
    let mut options = LedgerOptions::at(Locations::from_values(
        Some(folder.path().join("data")),
        Some(folder.path().join("dossier.json")),
    ));
    options.config = Some(Config::parse(CONFIG).unwrap());
    options.default_directory = Some(folder.path().to_path_buf());
    let ledger = dossier_core::start_up::open(options).await.unwrap();
    let server_options = ServerOptions {
        port: 0,
        ..ServerOptions::default()
    };
    let direct = ledger.clone();
    let listener = bind(&server_options).await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        serve(
            listener,
            async move { Ok(ledger) },
            &server_options,
            async move {
                let _ = stopped.await;
            },
            |_| {},
        )
        .await
    });
    let client = Client {
        http: {
            // As the tests' `support::http_client`: reqwest is built with `rustls-no-provider`
            // (the core's, rmcp's and the updater's), which needs a process-wide TLS provider.
            let _ = rustls::crypto::ring::default_provider().install_default();
            reqwest::Client::new()
        },
        base,
    };

    let body = json!({"noReply": true, "parts": [
        {"type": "file", "mime": "text/plain", "filename": "package.json",
         "url": format!("file://{}", file.display())},
        {"type": "text", "text": "explain this project"}
    ]});
    let session = client
        .post("/session", &json!({"title": "bench-prompts"}))
        .await;
    let session_id = session["id"].as_str().unwrap().to_string();
    let path = format!("/session/{session_id}/message");
    for _ in 0..3 {
        client.post(&path, &body).await;
    }
    let mut latencies = Vec::with_capacity(prompts);
    let started = Instant::now();
    for _ in 0..prompts {
        let sent = Instant::now();
        client.post(&path, &body).await;
        latencies.push(sent.elapsed());
    }
    let total = started.elapsed();
    latencies.sort();
    println!(
        "noReply prompt with a text file x{prompts}: p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms, {:.1} prompts/s  (OpenCode 1.18.33: p50 65, p99 185 ms, 13.6/s)",
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.95),
        percentile(&latencies, 0.99),
        prompts as f64 / total.as_secs_f64()
    );

    // Filled with the same prompt, as opencode-bench does: 4 parts per message.
    for _ in (prompts + 3)..messages {
        client.post(&path, &body).await;
    }
    let mut reads = Vec::new();
    let mut returned = 0;
    for _ in 0..reps {
        let (elapsed, count) = client.timed_get(&path).await;
        reads.push(elapsed);
        returned = count;
    }
    println!(
        "GET /session/:id/message, {returned} messages: median {:.2} ms over {reps}  (OpenCode: 195 ms)",
        median_ms(reads)
    );
    // Where that time goes: the core's read, then the adapter's JSON encoding.
    let mut core_reads = Vec::new();
    let mut encodings = Vec::new();
    for _ in 0..reps {
        let started = Instant::now();
        let page = direct
            .sessions()
            .messages(&session_id, &MessageQuery::default())
            .await
            .unwrap();
        core_reads.push(started.elapsed());
        let started = Instant::now();
        let encoded = serde_json::to_vec(&page.messages).unwrap();
        encodings.push(started.elapsed());
        assert!(!encoded.is_empty());
    }
    println!(
        "  of which ledger.sessions().messages(): median {:.2} ms; JSON encoding: median {:.2} ms",
        median_ms(core_reads),
        median_ms(encodings)
    );

    let mut creates = Vec::new();
    for _ in 1..sessions {
        let sent = Instant::now();
        client.post("/session", &json!({})).await;
        creates.push(sent.elapsed());
    }
    println!(
        "POST /session x{}: median {:.2} ms",
        creates.len(),
        median_ms(creates)
    );
    let mut lists = Vec::new();
    let mut returned = 0;
    for _ in 0..reps {
        let (elapsed, count) = client.timed_get("/session?limit=100").await;
        lists.push(elapsed);
        returned = count;
    }
    println!(
        "GET /session?limit=100 of {sessions} sessions, {returned} returned: median {:.2} ms over {reps}  (OpenCode: 21 ms)",
        median_ms(lists)
    );

    stop.send(()).unwrap();
    server.await.unwrap().unwrap();
}
