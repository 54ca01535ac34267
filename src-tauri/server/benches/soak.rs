//! Memory over many streamed replies: a real `dossier-server` process (this package's binary)
//! on 127.0.0.1, a fake OpenAI-compatible provider streaming a 150-word reply, 4 clients
//! prompting 20 sessions (each client its own five, one prompt at a time per session, as a
//! window does) and one `/event` stream read to the end, as the window's. Every `STEP`
//! replies it prints the server's anonymous and file-backed resident memory (`RssAnon`,
//! `RssFile` from `/proc/<pid>/status`, Linux only), and at the end checks that every prompt and
//! every reply was stored whole. Run with
//! `cargo bench -p dossier-server --bench soak`; knobs: `REPLIES` (3,000), `CLIENTS` (4),
//! `SESSIONS` (20), `STEP` (250), `IDLE_SECONDS` (8), `DOSSIER_SERVER_BIN` (a release server; this package's binary
//! otherwise). Prints figures and asserts nothing about them.

// A benchmark is a test harness: a failed unwrap is its error report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use futures_util::StreamExt;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::process::{Child, Command};

const WORDS_PER_REPLY: usize = 150;

/// Sends the request and reads its JSON answer.
async fn json_of(request: reqwest::RequestBuilder) -> Value {
    request.send().await.unwrap().json().await.unwrap()
}

fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// The reply every prompt gets: 150 different-looking words, so compression or
/// deduplication along the way cannot hide what a stored reply costs.
fn reply_words() -> Vec<String> {
    (0..WORDS_PER_REPLY)
        .map(|index| format!("word{index:03}"))
        .collect()
}

/// A provider speaking OpenAI's streaming chat completions: one chunk per word, then the
/// usage and `[DONE]`. Titles and replies get the same stream.
async fn start_provider() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            tokio::spawn(answer(socket));
        }
    });
    format!("http://{address}/v1")
}

async fn answer(mut socket: TcpStream) {
    // Keep-alive: answer requests on this connection until the client closes it.
    let mut buffer = Vec::new();
    loop {
        let Some(body_start) = find(&buffer, b"\r\n\r\n") else {
            let mut chunk = [0u8; 8192];
            match socket.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(read) => buffer.extend_from_slice(&chunk[..read]),
            }
            continue;
        };
        let head = String::from_utf8_lossy(&buffer[..body_start]).to_lowercase();
        let length: usize = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length:"))
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or(0);
        while buffer.len() < body_start + 4 + length {
            let mut chunk = [0u8; 8192];
            match socket.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(read) => buffer.extend_from_slice(&chunk[..read]),
            }
        }
        let streamed = String::from_utf8_lossy(&buffer[body_start + 4..body_start + 4 + length])
            .replace(' ', "")
            .contains("\"stream\":true");
        buffer.drain(..body_start + 4 + length);
        if !streamed {
            // A title request: one plain completion.
            let body = json!({"id": "chatcmpl-soak", "object": "chat.completion", "created": 0, "model": "fake-model",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "Soak session"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 20, "completion_tokens": 2, "total_tokens": 22}})
            .to_string();
            let response = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            );
            if socket.write_all(response.as_bytes()).await.is_err() {
                return;
            }
            continue;
        }
        let mut stream = String::new();
        let chunk = |delta: Value| {
            format!(
                "data: {}\n\n",
                json!({"id": "chatcmpl-soak", "object": "chat.completion.chunk", "created": 0,
                       "model": "fake-model", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
            )
        };
        stream.push_str(&chunk(json!({"role": "assistant", "content": ""})));
        for word in reply_words() {
            stream.push_str(&chunk(json!({"content": format!("{word} ")})));
        }
        stream.push_str(&format!(
            "data: {}\n\n",
            json!({"id": "chatcmpl-soak", "object": "chat.completion.chunk", "created": 0, "model": "fake-model",
                   "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                   "usage": {"prompt_tokens": 20, "completion_tokens": WORDS_PER_REPLY, "total_tokens": 20 + WORDS_PER_REPLY}})
        ));
        stream.push_str("data: [DONE]\n\n");
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n{stream}",
            stream.len()
        );
        if socket.write_all(response.as_bytes()).await.is_err() {
            return;
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

struct Server {
    child: Child,
    base: String,
    _folder: tempfile::TempDir,
}

async fn start_server(provider: &str) -> Server {
    let folder = tempfile::tempdir().unwrap();
    let config = folder.path().join("config.json");
    std::fs::write(
        &config,
        json!({
            "model": "fake/fake-model",
            "provider": {"fake": {
                "npm": "@ai-sdk/openai-compatible",
                "options": {"baseURL": provider, "apiKey": "sk-soak"},
                "models": {"fake-model": {"name": "Fake"}}
            }}
        })
        .to_string(),
    )
    .unwrap();
    // A release server measures what people run (`DOSSIER_SERVER_BIN`); this package's own
    // binary otherwise.
    let binary = std::env::var("DOSSIER_SERVER_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_dossier-server").to_string());
    let mut child = Command::new(binary)
        .args(["--hostname", "127.0.0.1", "--port", "0"])
        .env("DOSSIER_DATA_DIR", folder.path().join("data"))
        .env("DOSSIER_CONFIG", &config)
        .env("DOSSIER_SERVER_PASSWORD", "")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let base = loop {
        let line = lines
            .next_line()
            .await
            .unwrap()
            .expect("the server ended before it listened");
        if let Some(at) = line.find("http://") {
            break line[at..]
                .split_whitespace()
                .next()
                .unwrap()
                .trim_end_matches('/')
                .to_string();
        }
    };
    // Keep reading its output so a full pipe never stalls it.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Server {
        child,
        base,
        _folder: folder,
    }
}

/// (anonymous, file-backed) resident memory of `pid` in MB.
fn resident_memory(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| -> f64 {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next()?.parse::<f64>().ok())
            .map_or(f64::NAN, |kib| kib / 1024.0)
    };
    (field("RssAnon:"), field("RssFile:"))
}

fn main() {
    // reqwest is built with `rustls-no-provider`, which needs a process-wide provider even for
    // plain HTTP.
    let _ = rustls::crypto::ring::default_provider().install_default();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(soak());
}

async fn soak() {
    let replies = knob("REPLIES", 3000);
    let clients = knob("CLIENTS", 4).max(1);
    let session_count = knob("SESSIONS", 20).max(clients);
    let step = knob("STEP", 250).max(1);
    let provider = start_provider().await;
    let mut server = start_server(&provider).await;
    let pid = server.child.id().unwrap();
    let http = reqwest::Client::new();
    let base = server.base.clone();

    let mut sessions = Vec::new();
    for _ in 0..session_count {
        let created = json_of(http.post(format!("{base}/session")).json(&json!({}))).await;
        sessions.push(created["id"].as_str().unwrap().to_string());
    }
    // The window's event stream, read to the end.
    let events = {
        let response = http.get(format!("{base}/event")).send().await.unwrap();
        assert!(response.status().is_success());
        let mut body = response.bytes_stream();
        tokio::spawn(async move {
            let mut bytes = 0usize;
            while let Some(Ok(chunk)) = body.next().await {
                bytes += chunk.len();
            }
            bytes
        })
    };

    let (anonymous, file) = resident_memory(pid);
    println!("soak: {replies} streamed replies of {WORDS_PER_REPLY} words, {clients} clients, {session_count} sessions");
    println!(
        "{:>8}  {:>10}  {:>10}  {:>9}",
        "replies", "RssAnon MB", "RssFile MB", "replies/s"
    );
    println!("{:>8}  {anonymous:>10.1}  {file:>10.1}  {:>9}", 0, "");
    let done = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let sessions = Arc::new(sessions);
    let mut workers = Vec::new();
    for client in 0..clients {
        let (http, base, done, sessions) =
            (http.clone(), base.clone(), done.clone(), sessions.clone());
        workers.push(tokio::spawn(async move {
            let mine: Vec<&String> = sessions.iter().skip(client).step_by(clients).collect();
            let mut turn = 0usize;
            loop {
                let number = done.fetch_add(1, Ordering::SeqCst);
                if number >= replies {
                    return;
                }
                let session = mine[turn % mine.len()];
                turn += 1;
                let response = http
                    .post(format!("{base}/session/{session}/message"))
                    .json(&json!({"parts": [{"type": "text", "text": format!("prompt {number}: tell me more")}]}))
                    .send()
                    .await
                    .unwrap();
                assert!(response.status().is_success(), "{}", response.status());
                response.bytes().await.unwrap();
            }
        }));
    }
    let mut printed = 0;
    let mut last = (0usize, Instant::now());
    loop {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let finished = done
            .load(Ordering::SeqCst)
            .saturating_sub(clients)
            .min(replies);
        if finished >= printed + step || workers.iter().all(|worker| worker.is_finished()) {
            let (anonymous, file) = resident_memory(pid);
            let rate = (finished - last.0) as f64 / last.1.elapsed().as_secs_f64();
            last = (finished, Instant::now());
            printed = finished / step * step;
            println!("{finished:>8}  {anonymous:>10.1}  {file:>10.1}  {rate:>9.0}");
            if workers.iter().all(|worker| worker.is_finished()) {
                break;
            }
        }
    }
    for worker in workers {
        worker.await.unwrap();
    }
    println!(
        "{replies} replies in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // Nothing lost: every prompt and every reply stored whole.
    let expected_reply = reply_words()
        .iter()
        .map(|word| format!("{word} "))
        .collect::<String>();
    let (mut prompts, mut whole_replies) = (0, 0);
    for session in sessions.iter() {
        let listed = json_of(http.get(format!("{base}/session/{session}/message"))).await;
        for message in listed.as_array().unwrap() {
            match message["info"]["role"].as_str() {
                Some("user") => prompts += 1,
                Some("assistant") => {
                    let text: String = message["parts"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter(|part| part["type"] == "text")
                        .filter_map(|part| part["text"].as_str())
                        .collect();
                    if text.trim_end() == expected_reply.trim_end() {
                        whole_replies += 1;
                    }
                }
                _ => {}
            }
        }
    }
    println!("stored: {prompts} prompts, {whole_replies} whole replies (of {replies})");
    let (anonymous, file) = resident_memory(pid);
    println!("after the listings: RssAnon {anonymous:.1} MB, RssFile {file:.1} MB");
    // What stays once nothing is under way: the figures above include the replies and listings
    // in flight, whose working set grows with the sessions' histories. Longer than the server's
    // interval for handing freed memory back.
    tokio::time::sleep(Duration::from_secs(knob("IDLE_SECONDS", 8) as u64)).await;
    let (anonymous, file) = resident_memory(pid);
    println!("idle afterwards: RssAnon {anonymous:.1} MB, RssFile {file:.1} MB");
    server.child.kill().await.unwrap();
    events.abort();
    assert_eq!(prompts, replies, "every prompt stored");
    assert_eq!(whole_replies, replies, "every reply stored whole");
}
