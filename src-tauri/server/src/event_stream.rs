//! `GET /event`: the ledger's events as Server-Sent Events. The first frame is
//! `server.connected`, `server.heartbeat` follows every 10 s, and every ledger event carries its
//! sequence as the SSE `id:`. A client that reconnects with `Last-Event-ID` gets what it missed
//! from the core's replay buffer; when that is no longer possible (the gap is older than the
//! buffer, the id is from before a restart, or this stream fell behind the broadcast channel)
//! it gets `server.resync-required` and must reload — events are never dropped silently.
//! `GET /global/event` is the same stream with each event wrapped as OpenCode's
//! `{directory, project, payload}`.
//!
//! At every heartbeat the stream asks again whether the credentials it was opened with are
//! still accepted, and ends when they are not (a revoked token, or a first token made while it
//! ran without any): its client's reconnect then gets the typed 401 every other request gets.

use crate::authentication::PresentedCredentials;
use axum::body::Body;
use axum::extract::State;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use bytes::Bytes;
use dossier_core::wire::event::{Event, Replay};
use dossier_core::wire::id::IdKind;
use dossier_core::Ledger;
use serde_json::json;
use std::convert::Infallible;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

pub const CONNECTED: &str = "server.connected";
pub const HEARTBEAT: &str = "server.heartbeat";
pub const RESYNC_REQUIRED: &str = "server.resync-required";

/// Frames buffered per client before the writer waits for the socket.
const FRAME_BUFFER: usize = 256;

#[derive(Clone)]
pub struct EventStreamSettings {
    pub heartbeat: Duration,
    /// Cancelled on shutdown so open streams end and the server can finish.
    pub shutdown: CancellationToken,
}

/// How each frame's JSON is wrapped.
#[derive(Clone)]
enum Envelope {
    /// `GET /event`: `{id, type, properties}`.
    Plain,
    /// `GET /global/event`: `{directory, project, payload: {id, type, properties}}`.
    Global { directory: String },
}

impl Envelope {
    fn wrap(&self, event: String) -> String {
        match self {
            Self::Plain => event,
            Self::Global { directory } => format!(
                "{{\"directory\":{},\"project\":\"global\",\"payload\":{event}}}",
                serde_json::Value::String(directory.clone())
            ),
        }
    }
}

pub async fn subscribe(
    State(ledger): State<Ledger>,
    State(settings): State<EventStreamSettings>,
    credentials: Option<Extension<PresentedCredentials>>,
    headers: HeaderMap,
) -> Response {
    let credentials = credentials.map(|Extension(credentials)| credentials);
    stream(ledger, settings, credentials, &headers, Envelope::Plain)
}

/// The directory is the server's: every Dossier session belongs to the one global project.
pub async fn subscribe_global(
    State(ledger): State<Ledger>,
    State(settings): State<EventStreamSettings>,
    credentials: Option<Extension<PresentedCredentials>>,
    headers: HeaderMap,
) -> Response {
    let credentials = credentials.map(|Extension(credentials)| credentials);
    let directory = ledger.providers().default_directory().display().to_string();
    stream(
        ledger,
        settings,
        credentials,
        &headers,
        Envelope::Global { directory },
    )
}

fn stream(
    ledger: Ledger,
    settings: EventStreamSettings,
    credentials: Option<PresentedCredentials>,
    headers: &HeaderMap,
    envelope: Envelope,
) -> Response {
    let last_seen = headers
        .get("last-event-id")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok());
    let (sender, mut frames) = mpsc::channel::<Bytes>(FRAME_BUFFER);
    let writer = EventWriter {
        ledger,
        sender,
        shutdown: settings.shutdown.clone(),
        envelope,
        credentials,
        last_sent: 0,
    };
    tokio::spawn(writer.run(last_seen, settings));
    let body = futures_util::stream::poll_fn(move |context| {
        frames
            .poll_recv(context)
            .map(|frame| frame.map(Ok::<Bytes, Infallible>))
    });
    let mut response = Body::from_stream(body).into_response();
    let response_headers = response.headers_mut();
    response_headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    response_headers.insert(
        CACHE_CONTROL,
        HeaderValue::from_static("no-cache, no-transform"),
    );
    response_headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// The SSE text of one frame; `sequence` becomes the `id:` line.
pub fn frame(sequence: Option<u64>, data: &str) -> Bytes {
    match sequence {
        Some(sequence) => Bytes::from(format!("id: {sequence}\ndata: {data}\n\n")),
        None => Bytes::from(format!("data: {data}\n\n")),
    }
}

/// The client went away; stop writing.
struct Disconnected;

struct EventWriter {
    ledger: Ledger,
    sender: mpsc::Sender<Bytes>,
    shutdown: CancellationToken,
    envelope: Envelope,
    /// What the stream was opened with, asked again at every heartbeat (absent only when the
    /// router runs without the credentials layer).
    credentials: Option<PresentedCredentials>,
    /// The sequence of the newest ledger event written, to never write one twice.
    last_sent: u64,
}

impl EventWriter {
    async fn run(mut self, last_seen: Option<u64>, settings: EventStreamSettings) {
        // The writer ends by returning; a closed client is the normal way out.
        let Ok(mut receiver) = self.start(last_seen).await else {
            return;
        };
        let mut heartbeat = tokio::time::interval(settings.heartbeat);
        // A client that stalled gets one heartbeat when it recovers, not a burst of missed ones.
        heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        heartbeat.reset();
        loop {
            let outcome = tokio::select! {
                () = settings.shutdown.cancelled() => return,
                _ = heartbeat.tick() => {
                    if !self.still_allowed().await {
                        tracing::info!("an event stream's credentials are no longer accepted; ending it");
                        return;
                    }
                    self.server_event(HEARTBEAT, json!({}), None).await
                }
                received = receiver.recv() => match received {
                    Ok(event) => self.ledger_event(&event).await,
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::warn!(missed, "event stream fell behind; refilling from the replay buffer");
                        match self.resume(self.last_sent).await {
                            Ok(resumed) => {
                                receiver = resumed;
                                Ok(())
                            }
                            Err(disconnected) => Err(disconnected),
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
            };
            if outcome.is_err() {
                return;
            }
        }
    }

    async fn still_allowed(&self) -> bool {
        match &self.credentials {
            Some(credentials) => credentials.still_allowed().await,
            None => true,
        }
    }

    /// Subscribes before writing `server.connected`, so a client that acts once it sees that
    /// frame cannot miss the events its action causes.
    async fn start(
        &mut self,
        last_seen: Option<u64>,
    ) -> Result<broadcast::Receiver<std::sync::Arc<Event>>, Disconnected> {
        let events = self.ledger.events().clone();
        let Some(last_seen) = last_seen else {
            let receiver = events.subscribe();
            self.server_event(CONNECTED, json!({}), None).await?;
            return Ok(receiver);
        };
        // An id this process never issued comes from before a restart: nothing it missed can
        // be replayed.
        if last_seen >= events.next_sequence() {
            let receiver = events.subscribe();
            self.server_event(CONNECTED, json!({}), None).await?;
            self.resync(last_seen, None).await?;
            return Ok(receiver);
        }
        let (replay, receiver) = events.subscribe_after(last_seen);
        self.server_event(CONNECTED, json!({}), None).await?;
        self.write_replay(last_seen, replay).await?;
        Ok(receiver)
    }

    /// After falling behind: writes everything after `last_seen` from the replay buffer (or a
    /// resync when it is gone) and returns a receiver that continues right after it.
    async fn resume(
        &mut self,
        last_seen: u64,
    ) -> Result<broadcast::Receiver<std::sync::Arc<Event>>, Disconnected> {
        let (replay, receiver) = self.ledger.events().subscribe_after(last_seen);
        self.write_replay(last_seen, replay).await?;
        Ok(receiver)
    }

    async fn write_replay(&mut self, last_seen: u64, replay: Replay) -> Result<(), Disconnected> {
        match replay {
            Replay::Events(events) => {
                for event in &events {
                    self.ledger_event(event).await?;
                }
                Ok(())
            }
            Replay::Gap { oldest_available } => {
                self.resync(last_seen, Some(oldest_available)).await
            }
        }
    }

    /// Tells the client to reload; its `id:` moves the client's resume point to now, so the
    /// next reconnect does not ask for the same lost range again.
    async fn resync(
        &mut self,
        last_seen: u64,
        oldest_available: Option<u64>,
    ) -> Result<(), Disconnected> {
        let now = self.ledger.events().next_sequence().saturating_sub(1);
        self.last_sent = self.last_sent.max(now);
        let properties = json!({
            "lastEventID": last_seen,
            "oldestAvailable": oldest_available,
            "reason": if oldest_available.is_some() {
                "the events after lastEventID are no longer buffered"
            } else {
                "lastEventID is not from this server run"
            },
        });
        self.server_event(RESYNC_REQUIRED, properties, Some(now))
            .await
    }

    async fn ledger_event(&mut self, event: &Event) -> Result<(), Disconnected> {
        if event.sequence <= self.last_sent {
            return Ok(());
        }
        let data = match serde_json::to_string(event) {
            Ok(data) => data,
            Err(error) => {
                // Cannot happen for the core's plain data types; say so rather than skip.
                tracing::error!(%error, sequence = event.sequence, "event not serialisable");
                return Ok(());
            }
        };
        self.last_sent = event.sequence;
        let data = self.envelope.wrap(data);
        self.send(frame(Some(event.sequence), &data)).await
    }

    async fn server_event(
        &mut self,
        kind: &str,
        properties: serde_json::Value,
        sequence: Option<u64>,
    ) -> Result<(), Disconnected> {
        let data = json!({
            "id": self.ledger.new_id(IdKind::Event),
            "type": kind,
            "properties": properties,
        });
        let data = self.envelope.wrap(data.to_string());
        self.send(frame(sequence, &data)).await
    }

    /// Waits for room in the client's buffer, but not past shutdown: a client that stopped
    /// reading must not hold the server open.
    async fn send(&mut self, frame: Bytes) -> Result<(), Disconnected> {
        tokio::select! {
            sent = self.sender.send(frame) => sent.map_err(|_| Disconnected),
            () = self.shutdown.cancelled() => Err(Disconnected),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;

    #[test]
    fn frames_carry_the_sequence_as_id() {
        assert_eq!(frame(Some(7), "{}"), Bytes::from("id: 7\ndata: {}\n\n"));
        assert_eq!(frame(None, "{}"), Bytes::from("data: {}\n\n"));
    }
}
