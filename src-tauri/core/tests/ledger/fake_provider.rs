//! A fake model provider that is a real HTTP server on 127.0.0.1: it reads real requests and
//! answers with real streaming responses (OpenAI-compatible SSE ending in `data: [DONE]`, or
//! Anthropic's typed events), scripted per test. Title requests get a fixed title and do not use
//! the script.

use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A 200 event stream: each entry is one SSE event (`data: …` lines, and `event:` when set),
    /// `pause` apart; then `[DONE]` for OpenAI when `done`.
    Stream {
        events: Vec<(Option<String>, String)>,
        pause: Duration,
        done: bool,
        ending: Ending,
    },
    Status {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The chunked body is terminated properly.
    Clean,
    /// The connection is dropped mid-body.
    Cut,
    /// The connection stays open, sending nothing, until the client closes it.
    Hang,
}

#[derive(Debug, Clone)]
pub struct Recorded {
    pub path: String,
    pub headers: String,
    pub body: Value,
}

#[derive(Default)]
struct State {
    script: VecDeque<Reply>,
    requests: Vec<Recorded>,
    title_requests: usize,
    closed_by_client: usize,
}

#[derive(Clone)]
pub struct FakeProvider {
    pub base_url: String,
    state: Arc<Mutex<State>>,
}

pub const API_KEY: &str = "sk-test-secret-4242";

impl FakeProvider {
    pub async fn start(script: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        let address = listener
            .local_addr()
            .unwrap_or_else(|error| panic!("{error}"));
        let state = Arc::new(Mutex::new(State {
            script: script.into(),
            ..State::default()
        }));
        let shared = state.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve(socket, shared.clone()));
            }
        });
        Self {
            base_url: format!("http://{address}/v1"),
            state,
        }
    }

    /// A config naming this server as provider `fake` (OpenAI-compatible) with model `fake-model`.
    pub fn openai_config(&self) -> String {
        format!(
            r#"{{"model": "fake/fake-model", "provider": {{"fake": {{"npm": "@ai-sdk/openai-compatible", "options": {{"baseURL": "{}", "apiKey": "{API_KEY}"}}, "models": {{"fake-model": {{"name": "Fake"}}}}}}}}}}"#,
            self.base_url
        )
    }

    pub fn anthropic_config(&self) -> String {
        format!(
            r#"{{"model": "claude/claude-fake", "provider": {{"claude": {{"npm": "@ai-sdk/anthropic", "options": {{"baseURL": "{}", "apiKey": "{API_KEY}"}}, "models": {{"claude-fake": {{}}}}}}}}}}"#,
            self.base_url
        )
    }

    /// The scripted (non-title) requests received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        lock(&self.state).requests.clone()
    }

    pub fn closed_by_client(&self) -> usize {
        lock(&self.state).closed_by_client
    }
}

fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

async fn read_request(socket: &mut TcpStream) -> Option<(String, String, Vec<u8>)> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(position) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            break position + 4;
        }
        let read = socket.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
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
        let read = socket.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
    let path = head
        .lines()
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .unwrap_or("")
        .to_string();
    Some((path, head, buffer[head_end..head_end + length].to_vec()))
}

async fn serve(mut socket: TcpStream, state: Arc<Mutex<State>>) {
    let Some((path, headers, body)) = read_request(&mut socket).await else {
        return;
    };
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let is_title = body
        .to_string()
        .contains("Generate a title for this conversation");
    let reply = if is_title {
        lock(&state).title_requests += 1;
        if path.ends_with("/messages") {
            anthropic_text(&["Fake ", "title"])
        } else {
            openai_text(&["Fake ", "title"])
        }
    } else {
        let mut locked = lock(&state);
        locked.requests.push(Recorded {
            path,
            headers,
            body,
        });
        locked.script.pop_front().unwrap_or_else(|| Reply::Status {
            status: 500,
            headers: Vec::new(),
            body: r#"{"error": {"message": "the fake provider's script is empty"}}"#.into(),
        })
    };
    match reply {
        Reply::Status {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let written = socket.write_all(head.as_bytes()).await;
            if written.is_ok() {
                socket.write_all(body.as_bytes()).await.unwrap_or_default();
            }
        }
        Reply::Stream {
            events,
            pause,
            done,
            ending,
        } => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
            if socket.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let mut frames: Vec<String> = events
                .into_iter()
                .map(|(name, data)| match name {
                    Some(name) => format!("event: {name}\ndata: {data}\n\n"),
                    None => format!("data: {data}\n\n"),
                })
                .collect();
            if done {
                frames.push("data: [DONE]\n\n".into());
            }
            for frame in frames {
                let chunk = format!("{:x}\r\n{frame}\r\n", frame.len());
                if socket.write_all(chunk.as_bytes()).await.is_err() {
                    lock(&state).closed_by_client += 1;
                    return;
                }
                socket.flush().await.unwrap_or_default();
                if !pause.is_zero() {
                    tokio::time::sleep(pause).await;
                }
            }
            match ending {
                Ending::Clean => {
                    socket.write_all(b"0\r\n\r\n").await.unwrap_or_default();
                }
                Ending::Cut => {}
                Ending::Hang => {
                    let mut sink = [0u8; 64];
                    loop {
                        match socket.read(&mut sink).await {
                            Ok(0) | Err(_) => break,
                            Ok(_) => {}
                        }
                    }
                    lock(&state).closed_by_client += 1;
                }
            }
        }
    }
}

fn chunk(delta: Value, finish: Option<&str>) -> (Option<String>, String) {
    (
        None,
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "fake-model",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        .to_string(),
    )
}

fn usage_chunk() -> (Option<String>, String) {
    (
        None,
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [],
               "usage": {"prompt_tokens": 42, "completion_tokens": 11, "total_tokens": 53}})
        .to_string(),
    )
}

/// OpenAI text deltas only (no finish): for cut and hanging streams.
pub fn openai_text_events(words: &[&str]) -> Vec<(Option<String>, String)> {
    let mut events = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    events.extend(
        words
            .iter()
            .map(|word| chunk(json!({"content": word}), None)),
    );
    events
}

pub fn openai_stream(
    events: Vec<(Option<String>, String)>,
    ending: Ending,
    pause: Duration,
) -> Reply {
    Reply::Stream {
        events,
        pause,
        done: ending == Ending::Clean,
        ending,
    }
}

pub fn openai_text(words: &[&str]) -> Reply {
    let mut events = openai_text_events(words);
    events.push(chunk(json!({}), Some("stop")));
    events.push(usage_chunk());
    openai_stream(events, Ending::Clean, Duration::ZERO)
}

pub fn openai_reasoning_then_text(thoughts: &[&str], words: &[&str]) -> Reply {
    let mut events: Vec<_> = thoughts
        .iter()
        .map(|thought| chunk(json!({"reasoning_content": thought}), None))
        .collect();
    events.extend(
        words
            .iter()
            .map(|word| chunk(json!({"content": word}), None)),
    );
    events.push(chunk(json!({}), Some("stop")));
    events.push(usage_chunk());
    openai_stream(events, Ending::Clean, Duration::ZERO)
}

/// One tool call whose arguments arrive in pieces, ending with `tool_calls`.
pub fn openai_tool_call_events(
    call_id: &str,
    name: &str,
    arguments: &str,
) -> Vec<(Option<String>, String)> {
    let mut events = vec![chunk(
        json!({"role": "assistant", "tool_calls": [{"index": 0, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
        None,
    )];
    let characters: Vec<char> = arguments.chars().collect();
    for piece in characters.chunks(7) {
        let piece: String = piece.iter().collect();
        events.push(chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
            None,
        ));
    }
    events
}

pub fn openai_tool_call(call_id: &str, name: &str, arguments: &str) -> Reply {
    let mut events = openai_tool_call_events(call_id, name, arguments);
    events.push(chunk(json!({}), Some("tool_calls")));
    events.push(usage_chunk());
    openai_stream(events, Ending::Clean, Duration::ZERO)
}

pub fn status(status: u16, headers: &[(&str, &str)], body: Value) -> Reply {
    Reply::Status {
        status,
        headers: headers
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect(),
        body: body.to_string(),
    }
}

fn anthropic_event(name: &str, data: Value) -> (Option<String>, String) {
    (Some(name.to_string()), data.to_string())
}

pub fn anthropic_start() -> Vec<(Option<String>, String)> {
    vec![anthropic_event(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude-fake", "usage": {"input_tokens": 30, "output_tokens": 1}}}),
    )]
}

pub fn anthropic_end(reason: &str) -> Vec<(Option<String>, String)> {
    vec![
        anthropic_event(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": reason}, "usage": {"output_tokens": 9}}),
        ),
        anthropic_event("message_stop", json!({"type": "message_stop"})),
    ]
}

pub fn anthropic_text_block(index: u64, words: &[&str]) -> Vec<(Option<String>, String)> {
    let mut events = vec![anthropic_event(
        "content_block_start",
        json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
    )];
    events.push(anthropic_event("ping", json!({"type": "ping"})));
    for word in words {
        events.push(anthropic_event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": word}}),
        ));
    }
    events.push(anthropic_event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": index}),
    ));
    events
}

pub fn anthropic_thinking_block(index: u64, thought: &str) -> Vec<(Option<String>, String)> {
    vec![
        anthropic_event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {"type": "thinking", "thinking": ""}}),
        ),
        anthropic_event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": {"type": "thinking_delta", "thinking": thought}}),
        ),
        anthropic_event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": {"type": "signature_delta", "signature": "c2ln"}}),
        ),
        anthropic_event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ),
    ]
}

pub fn anthropic_tool_block(
    index: u64,
    id: &str,
    name: &str,
    arguments: &str,
) -> Vec<(Option<String>, String)> {
    let mut events = vec![anthropic_event(
        "content_block_start",
        json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
    )];
    let characters: Vec<char> = arguments.chars().collect();
    for piece in characters.chunks(5) {
        let piece: String = piece.iter().collect();
        events.push(anthropic_event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}}),
        ));
    }
    events.push(anthropic_event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": index}),
    ));
    events
}

pub fn anthropic_text(words: &[&str]) -> Reply {
    let mut events = anthropic_start();
    events.extend(anthropic_text_block(0, words));
    events.extend(anthropic_end("end_turn"));
    Reply::Stream {
        events,
        pause: Duration::ZERO,
        done: false,
        ending: Ending::Clean,
    }
}

pub fn anthropic_stream(events: Vec<(Option<String>, String)>) -> Reply {
    Reply::Stream {
        events,
        pause: Duration::ZERO,
        done: false,
        ending: Ending::Clean,
    }
}
