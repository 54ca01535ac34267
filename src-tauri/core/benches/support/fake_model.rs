//! A model for the MCP bench: a real OpenAI-compatible streaming server on 127.0.0.1 that asks
//! for one `everything_echo` call when the conversation ends with the person's message, and
//! answers "Done." once the tool's result came back. It keeps no script, so any number of
//! prompts can run through it in any order. (`#[path]` module: benches are separate crates.)

use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The tool the model asks for, and what it passes.
pub const TOOL: &str = "everything_echo";
pub const MESSAGE: &str = "round trip";

/// Starts the server; returns a config naming it as provider `fake`, model `fake-model`.
pub async fn start() -> Value {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let address = listener
        .local_addr()
        .unwrap_or_else(|error| panic!("{error}"));
    let calls = Arc::new(AtomicU64::new(0));
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            tokio::spawn(answer(socket, calls.clone()));
        }
    });
    json!({
        "model": "fake/fake-model",
        "provider": {"fake": {
            "npm": "@ai-sdk/openai-compatible",
            "options": {"baseURL": format!("http://{address}/v1"), "apiKey": "sk-bench"},
            "models": {"fake-model": {"name": "Fake"}}
        }}
    })
}

async fn answer(mut socket: TcpStream, calls: Arc<AtomicU64>) {
    let Some(body) = read_body(&mut socket).await else {
        return;
    };
    let last_role = body["messages"]
        .as_array()
        .and_then(|messages| messages.last())
        .and_then(|message| message["role"].as_str())
        .unwrap_or_default()
        .to_string();
    let chunks = if last_role == "user" {
        let call_id = format!("call_{}", calls.fetch_add(1, Ordering::Relaxed));
        vec![
            chunk(
                json!({"role": "assistant", "tool_calls": [{"index": 0, "id": call_id, "type": "function",
                    "function": {"name": TOOL, "arguments": json!({"message": MESSAGE}).to_string()}}]}),
                None,
            ),
            chunk(json!({}), Some("tool_calls")),
            usage(),
        ]
    } else {
        vec![
            chunk(json!({"role": "assistant", "content": "Done."}), None),
            chunk(json!({}), Some("stop")),
            usage(),
        ]
    };
    let mut stream: String = chunks
        .iter()
        .map(|chunk| format!("data: {chunk}\n\n"))
        .collect();
    stream.push_str("data: [DONE]\n\n");
    let response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{stream}",
        stream.len()
    );
    // A client that went away needs no answer.
    if socket.write_all(response.as_bytes()).await.is_ok() {
        socket.flush().await.unwrap_or_default();
    }
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "chatcmpl-bench", "object": "chat.completion.chunk", "model": "fake-model",
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

fn usage() -> Value {
    json!({"id": "chatcmpl-bench", "object": "chat.completion.chunk", "choices": [],
           "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
}

/// The JSON body of one HTTP request (its `Content-Length` bytes after the head).
async fn read_body(socket: &mut TcpStream) -> Option<Value> {
    let mut buffer = Vec::new();
    let mut piece = [0u8; 8192];
    let head_end = loop {
        if let Some(position) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            break position + 4;
        }
        let read = socket.read(&mut piece).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&piece[..read]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
    let length: usize = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0);
    while buffer.len() < head_end + length {
        let read = socket.read(&mut piece).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&piece[..read]);
    }
    serde_json::from_slice(&buffer[head_end..head_end + length]).ok()
}
