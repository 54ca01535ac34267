//! The server's event stream, held by the shell while attached: `GET /event` with the token,
//! each event forwarded to the webview under the same name and envelope as the local core's
//! (`events::CORE_EVENT`), so the UI's one reducer serves both. When the stream drops the UI is
//! told ("Reconnecting to the server…") and the shell reconnects with `Last-Event-ID`; the
//! server then replays what was missed or answers `server.resync-required`, which becomes the
//! same resync the local forwarder sends when it falls behind.
//!
//! A server that refuses the token (401, or a proxy's 403) is not "unreachable": waiting does not
//! fix a revoked token, so the window is told `refused` and asks the person to act. The stream is
//! the one that says so: a relayed request that was refused wakes it (`recheck`) to ask again at
//! once, so the notice follows the stream's own answer, and a server that keeps a revoked token's
//! open stream flowing is still found out.

use super::request_relay::refuses_token;
use super::server_address::ServerAddress;
use crate::events::{CORE_EVENT, RESYNC_EVENT};
use crate::webview_names::EventName;
use futures::StreamExt;
use serde::Serialize;
use std::sync::Arc;
use std::time::Duration;
use tauri::{AppHandle, Emitter, Runtime};
use tokio::sync::Notify;
use ts_rs::TS;

pub const CONNECTION_EVENT: &str = EventName::ServerConnection.as_str();

/// The server sends a heartbeat every 10 s; three missed ones mean the connection is gone even
/// if no error reached us (a laptop that slept, a proxy that stopped forwarding).
const SILENCE_LIMIT: Duration = Duration::from_secs(35);
const FIRST_RETRY: Duration = Duration::from_secs(1);
const LONGEST_RETRY: Duration = Duration::from_secs(10);
/// While the token is refused the shell still asks, slowly, rather than stopping until the person
/// acts: a refusal is not always final (a proxy answering 403 while it is reconfigured, a server
/// started on the wrong database and then on the right one), and once a minute costs the server
/// one small request. The window recovers by itself then, with `Last-Event-ID`; a revoked token
/// only goes on being refused, and the notice asks the person for a new one meanwhile.
pub const REFUSED_RETRY: Duration = Duration::from_secs(60);

/// Whether the server's event stream is open, for the UI's notice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(rename_all = "snake_case")]
pub enum StreamState {
    Connected,
    Reconnecting,
    /// The server answered, and refused this computer's access token.
    Refused,
}

#[derive(Debug, Clone, Copy, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
pub struct ServerConnectionChange {
    pub state: StreamState,
}

/// One SSE frame: its `id:` (the ledger's sequence) and its `data:` lines joined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub id: Option<u64>,
    pub data: String,
}

/// Cuts the stream's text into frames as it arrives, whatever the chunk boundaries.
#[derive(Debug, Default)]
pub struct FrameReader {
    buffer: String,
}

impl FrameReader {
    pub fn push(&mut self, text: &str) -> Vec<Frame> {
        self.buffer.push_str(&text.replace("\r\n", "\n"));
        let mut frames = Vec::new();
        while let Some(end) = self.buffer.find("\n\n") {
            let block: String = self.buffer.drain(..end + 2).collect();
            let mut frame = Frame {
                id: None,
                data: String::new(),
            };
            let mut has_data = false;
            for line in block.lines() {
                if let Some(id) = line.strip_prefix("id:") {
                    frame.id = id.trim().parse().ok();
                } else if let Some(data) = line.strip_prefix("data:") {
                    if has_data {
                        frame.data.push('\n');
                    }
                    frame.data.push_str(data.strip_prefix(' ').unwrap_or(data));
                    has_data = true;
                }
            }
            if has_data {
                frames.push(frame);
            }
        }
        frames
    }
}

/// What the webview is told about one frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Forward {
    Event(serde_json::Value),
    Resync,
    Connected,
    Nothing,
}

/// Ledger events go through as they are; of the server's own, `connected` opens the stream,
/// `resync-required` asks the UI to reload, heartbeats only keep the stream alive.
pub fn forward_of(frame: &Frame) -> Forward {
    let Ok(event) = serde_json::from_str::<serde_json::Value>(&frame.data) else {
        return Forward::Nothing;
    };
    match event["type"].as_str() {
        Some("server.connected") => Forward::Connected,
        Some("server.resync-required") => Forward::Resync,
        Some(kind) if kind.starts_with("server.") => Forward::Nothing,
        Some(_) => Forward::Event(event),
        None => Forward::Nothing,
    }
}

/// Holds the stream until the task is aborted (switching back to the local ledger, or to
/// another server). `recheck` is woken by a relayed request the server refused.
pub async fn run<R: Runtime>(
    app: AppHandle<R>,
    client: reqwest::Client,
    address: ServerAddress,
    token: String,
    recheck: Arc<Notify>,
) {
    let mut last_seen: Option<u64> = None;
    let mut retry = FIRST_RETRY;
    loop {
        let end = stream_once(&app, &client, &address, &token, &recheck, &mut last_seen).await;
        let (state, pause) = match end {
            // It was open: the next try is quick again.
            StreamEnd::AfterOpening(reason) => {
                tracing::info!(%address, %reason, "server event stream ended; reconnecting");
                retry = FIRST_RETRY;
                (StreamState::Reconnecting, retry)
            }
            StreamEnd::NotOpened(reason) => {
                tracing::warn!(%address, %reason, "server event stream could not be opened");
                (StreamState::Reconnecting, retry)
            }
            StreamEnd::Refused(status) => {
                tracing::warn!(%address, %status, "the server refused this computer's access token");
                retry = FIRST_RETRY;
                (StreamState::Refused, REFUSED_RETRY)
            }
            // Asked again at once; the answer decides what the window is told.
            StreamEnd::Recheck => {
                tracing::info!(%address, "a request was refused; asking the server again");
                continue;
            }
        };
        emit(&app, CONNECTION_EVENT, &ServerConnectionChange { state });
        tokio::select! {
            () = tokio::time::sleep(pause) => {}
            () = recheck.notified() => {}
        }
        if state == StreamState::Reconnecting {
            retry = (retry * 2).min(LONGEST_RETRY);
        }
    }
}

enum StreamEnd {
    AfterOpening(String),
    NotOpened(String),
    Refused(reqwest::StatusCode),
    Recheck,
}

async fn stream_once<R: Runtime>(
    app: &AppHandle<R>,
    client: &reqwest::Client,
    address: &ServerAddress,
    token: &str,
    recheck: &Notify,
    last_seen: &mut Option<u64>,
) -> StreamEnd {
    let mut request = client
        .get(address.url("/event"))
        .bearer_auth(token)
        .header("accept", "text/event-stream");
    if let Some(id) = last_seen {
        request = request.header("last-event-id", id.to_string());
    }
    let response = match request.send().await {
        Ok(response) if response.status().is_success() => response,
        Ok(response) if refuses_token(response.status().as_u16()) => {
            return StreamEnd::Refused(response.status())
        }
        Ok(response) => return StreamEnd::NotOpened(format!("HTTP {}", response.status())),
        Err(error) => return StreamEnd::NotOpened(error.to_string()),
    };
    let mut body = response.bytes_stream();
    let mut reader = FrameReader::default();
    // Bytes of a character split across two chunks wait for the rest.
    let mut pending: Vec<u8> = Vec::new();
    loop {
        let next = tokio::select! {
            next = tokio::time::timeout(SILENCE_LIMIT, body.next()) => next,
            () = recheck.notified() => return StreamEnd::Recheck,
        };
        let chunk = match next {
            Err(_) => return StreamEnd::AfterOpening("no heartbeat".into()),
            Ok(None) => return StreamEnd::AfterOpening("the server closed it".into()),
            Ok(Some(Err(error))) => return StreamEnd::AfterOpening(error.to_string()),
            Ok(Some(Ok(chunk))) => chunk,
        };
        pending.extend_from_slice(&chunk);
        let complete = match std::str::from_utf8(&pending) {
            Ok(_) => pending.len(),
            // Bytes that can never be text are replaced rather than waited on.
            Err(error) if error.error_len().is_some() => pending.len(),
            Err(error) => error.valid_up_to(),
        };
        let text = String::from_utf8_lossy(&pending[..complete]).into_owned();
        pending.drain(..complete);
        for frame in reader.push(&text) {
            if frame.id.is_some() {
                *last_seen = frame.id;
            }
            match forward_of(&frame) {
                Forward::Event(event) => emit(app, CORE_EVENT, &event),
                Forward::Resync => emit(app, RESYNC_EVENT, &serde_json::json!({"missed": 0})),
                Forward::Connected => emit(
                    app,
                    CONNECTION_EVENT,
                    &ServerConnectionChange {
                        state: StreamState::Connected,
                    },
                ),
                Forward::Nothing => {}
            }
        }
    }
}

fn emit<R: Runtime, T: Serialize>(app: &AppHandle<R>, name: &str, payload: &T) {
    if let Err(error) = app.emit(name, payload) {
        tracing::warn!(%error, "could not forward a server event to the webview");
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;

    #[test]
    fn frames_are_cut_whatever_the_chunks() {
        let text = "data: {\"type\":\"server.connected\",\"properties\":{}}\n\nid: 7\ndata: {\"type\":\"session.updated\"}\n\nid: 8\nda";
        let mut reader = FrameReader::default();
        let mut frames = Vec::new();
        for piece in text.as_bytes().chunks(5) {
            frames.extend(reader.push(std::str::from_utf8(piece).unwrap()));
        }
        assert_eq!(
            frames,
            vec![
                Frame {
                    id: None,
                    data: "{\"type\":\"server.connected\",\"properties\":{}}".into()
                },
                Frame {
                    id: Some(7),
                    data: "{\"type\":\"session.updated\"}".into()
                },
            ]
        );
        // The unfinished frame completes with the next chunk.
        assert_eq!(
            reader.push("ta: {}\r\n\r\n"),
            vec![Frame {
                id: Some(8),
                data: "{}".into()
            }]
        );
    }

    #[test]
    fn ledger_events_pass_and_server_events_steer() {
        let frame = |data: &str| Frame {
            id: None,
            data: data.into(),
        };
        assert_eq!(
            forward_of(&frame(
                r#"{"type":"message.part.updated","properties":{"x":1}}"#
            )),
            Forward::Event(serde_json::json!({"type":"message.part.updated","properties":{"x":1}}))
        );
        assert_eq!(
            forward_of(&frame(r#"{"type":"server.connected"}"#)),
            Forward::Connected
        );
        assert_eq!(
            forward_of(&frame(r#"{"type":"server.resync-required"}"#)),
            Forward::Resync
        );
        assert_eq!(
            forward_of(&frame(r#"{"type":"server.heartbeat"}"#)),
            Forward::Nothing
        );
        assert_eq!(forward_of(&frame("not json")), Forward::Nothing);
    }
}
