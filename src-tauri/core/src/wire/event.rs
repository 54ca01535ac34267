//! Typed ledger events on a broadcast channel. Every event gets a monotonically increasing
//! sequence so an adapter can resume a client from where it left off (SSE `Last-Event-ID`),
//! and a bounded replay buffer answers such resumes.
//!
//! A bus is either local (one process owns the ledger: it numbers and delivers its events
//! itself) or relayed (several servers share one database): then `publish` hands the event to
//! the store's relay, which writes it where every server reads it, and the relay `deliver`s
//! what it reads back — this process's events and the others', numbered once for all.

use crate::wire::assistant_error::AssistantError;
use crate::wire::id::{IdGenerator, IdKind};
use crate::wire::message::Message;
use crate::wire::part::Part;
use crate::wire::session::Session;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tokio::sync::{broadcast, mpsc, watch};
use ts_rs::TS;

/// OpenCode's event names and payloads, serialised as `{type, properties}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
#[serde(tag = "type", content = "properties")]
pub enum EventPayload {
    #[serde(rename = "session.created")]
    SessionCreated {
        #[serde(rename = "sessionID")]
        session_id: String,
        info: Session,
    },
    #[serde(rename = "session.updated")]
    SessionUpdated {
        #[serde(rename = "sessionID")]
        session_id: String,
        info: Session,
    },
    #[serde(rename = "session.deleted")]
    SessionDeleted {
        #[serde(rename = "sessionID")]
        session_id: String,
        info: Session,
    },
    #[serde(rename = "session.status")]
    SessionStatus {
        #[serde(rename = "sessionID")]
        session_id: String,
        status: SessionStatus,
    },
    #[serde(rename = "session.idle")]
    SessionIdle {
        #[serde(rename = "sessionID")]
        session_id: String,
    },
    #[serde(rename = "session.error")]
    SessionError {
        #[serde(rename = "sessionID")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        session_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        error: Option<AssistantError>,
    },
    #[serde(rename = "message.updated")]
    MessageUpdated {
        #[serde(rename = "sessionID")]
        session_id: String,
        info: Message,
    },
    #[serde(rename = "message.removed")]
    MessageRemoved {
        #[serde(rename = "sessionID")]
        session_id: String,
        #[serde(rename = "messageID")]
        message_id: String,
    },
    #[serde(rename = "message.part.updated")]
    PartUpdated {
        #[serde(rename = "sessionID")]
        session_id: String,
        part: Part,
        #[ts(type = "number")]
        time: i64,
    },
    #[serde(rename = "message.part.removed")]
    PartRemoved {
        #[serde(rename = "sessionID")]
        session_id: String,
        #[serde(rename = "messageID")]
        message_id: String,
        #[serde(rename = "partID")]
        part_id: String,
    },
    #[serde(rename = "permission.asked")]
    PermissionAsked(crate::wire::permission::PermissionRequest),
    #[serde(rename = "permission.replied")]
    PermissionReplied {
        #[serde(rename = "sessionID")]
        session_id: String,
        #[serde(rename = "requestID")]
        request_id: String,
        reply: crate::wire::permission::PermissionReply,
    },
    #[serde(rename = "message.part.delta")]
    PartDelta {
        #[serde(rename = "sessionID")]
        session_id: String,
        #[serde(rename = "messageID")]
        message_id: String,
        #[serde(rename = "partID")]
        part_id: String,
        field: String,
        delta: String,
    },
    /// An MCP server's status changed (Dossier's own event; OpenCode clients ignore it).
    #[serde(rename = "mcp.status")]
    McpStatus {
        name: String,
        status: crate::wire::mcp_status::McpStatus,
    },
    /// A model download moved on (Dossier's own event; OpenCode clients ignore it).
    #[serde(rename = "dossier.model.download")]
    ModelDownload(crate::wire::model_download::ModelDownloadProgress),
}

impl EventPayload {
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::SessionCreated { .. } => "session.created",
            Self::SessionUpdated { .. } => "session.updated",
            Self::SessionDeleted { .. } => "session.deleted",
            Self::SessionStatus { .. } => "session.status",
            Self::SessionIdle { .. } => "session.idle",
            Self::SessionError { .. } => "session.error",
            Self::MessageUpdated { .. } => "message.updated",
            Self::MessageRemoved { .. } => "message.removed",
            Self::PartUpdated { .. } => "message.part.updated",
            Self::PartRemoved { .. } => "message.part.removed",
            Self::PartDelta { .. } => "message.part.delta",
            Self::PermissionAsked(_) => "permission.asked",
            Self::PermissionReplied { .. } => "permission.replied",
            Self::McpStatus { .. } => "mcp.status",
            Self::ModelDownload(_) => "dossier.model.download",
        }
    }

    pub fn session_error(session_id: &str, error: AssistantError) -> Self {
        Self::SessionError {
            session_id: Some(session_id.to_string()),
            error: Some(error),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum SessionStatus {
    Idle,
    Busy,
    Retry {
        attempt: u32,
        message: String,
        #[ts(type = "number")]
        next: i64,
    },
}

/// The envelope every adapter sends: `{id, type, properties}`. `sequence` travels beside it (as
/// the SSE `id:` line), not inside, so the JSON matches OpenCode's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Event {
    pub id: String,
    #[serde(skip)]
    #[ts(type = "number")]
    pub sequence: u64,
    #[serde(flatten)]
    pub payload: EventPayload,
}

/// The answer to "what did I miss since sequence N?".
#[derive(Debug)]
pub enum Replay {
    /// Every event after N, in order; the receiver continues right after them.
    Events(Vec<Arc<Event>>),
    /// N is older than the buffer holds: the client must reload its state.
    Gap { oldest_available: u64 },
}

const CHANNEL_CAPACITY: usize = 8192;
const REPLAY_CAPACITY: usize = 4096;

#[derive(Clone)]
pub struct EventBus {
    inner: Arc<EventBusInner>,
}

struct EventBusInner {
    // Shared, not copied: the channel preallocates every slot (8,192 inline events were 5.8 MB
    // of the app's memory before the first event), and the replay buffer holds the same events.
    sender: broadcast::Sender<Arc<Event>>,
    // Sequencing and buffering happen under one lock so that replay + live subscription never
    // skip or duplicate an event.
    state: Mutex<ReplayState>,
    ids: Arc<IdGenerator>,
    /// Where a relayed bus sends what it publishes; none on a local bus.
    relay: Option<mpsc::UnboundedSender<Event>>,
    /// On a relayed bus: how many events this process published, and how many of those the
    /// relay has delivered back (or given up on), for `delivered`.
    published_here: std::sync::atomic::AtomicU64,
    delivered_here: watch::Sender<u64>,
}

struct ReplayState {
    next_sequence: u64,
    buffer: VecDeque<Arc<Event>>,
    capacity: usize,
}

impl EventBus {
    pub fn new(ids: Arc<IdGenerator>) -> Self {
        Self::with_replay_capacity(ids, REPLAY_CAPACITY)
    }

    pub fn with_replay_capacity(ids: Arc<IdGenerator>, capacity: usize) -> Self {
        Self::build(ids, capacity, None)
    }

    /// A bus whose events go out through a relay (see the module's comment): what it publishes
    /// arrives, unnumbered, on the returned receiver, and reaches subscribers only once the relay
    /// `deliver`s it with its shared sequence.
    pub fn relayed(ids: Arc<IdGenerator>) -> (Self, mpsc::UnboundedReceiver<Event>) {
        let (sender, receiver) = mpsc::unbounded_channel();
        (Self::build(ids, REPLAY_CAPACITY, Some(sender)), receiver)
    }

    fn build(
        ids: Arc<IdGenerator>,
        capacity: usize,
        relay: Option<mpsc::UnboundedSender<Event>>,
    ) -> Self {
        let (sender, _) = broadcast::channel(CHANNEL_CAPACITY);
        Self {
            inner: Arc::new(EventBusInner {
                sender,
                state: Mutex::new(ReplayState {
                    next_sequence: 1,
                    buffer: VecDeque::with_capacity(capacity.min(1024)),
                    capacity: capacity.max(1),
                }),
                ids,
                relay,
                published_here: std::sync::atomic::AtomicU64::new(0),
                delivered_here: watch::channel(0).0,
            }),
        }
    }

    /// Publishes an event. On a relayed bus the returned event has no sequence yet (0): it gets
    /// one when the relay delivers it.
    pub fn publish(&self, payload: EventPayload) -> Arc<Event> {
        if let Some(relay) = &self.inner.relay {
            let event = Event {
                id: self.inner.ids.next(IdKind::Event),
                sequence: 0,
                payload,
            };
            self.inner
                .published_here
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if relay.send(event.clone()).is_err() {
                // The relay stops only when the store closes; nothing is left to tell then.
                tracing::debug!(
                    event = event.payload.type_name(),
                    "event published after the relay stopped"
                );
            }
            return Arc::new(event);
        }
        let mut state = self.lock();
        let event = Arc::new(Event {
            id: self.inner.ids.next(IdKind::Event),
            sequence: state.next_sequence,
            payload,
        });
        state.next_sequence += 1;
        if state.buffer.len() == state.capacity {
            state.buffer.pop_front();
        }
        state.buffer.push_back(event.clone());
        // No subscriber is not an error: events are also kept for replay.
        if self.inner.sender.send(event.clone()).is_err() {
            tracing::trace!(event = event.payload.type_name(), "no live subscriber");
        }
        event
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.inner.sender.subscribe()
    }

    /// Subscribes and, in the same breath, collects what happened after `last_seen`.
    pub fn subscribe_after(&self, last_seen: u64) -> (Replay, broadcast::Receiver<Arc<Event>>) {
        let state = self.lock();
        let receiver = self.inner.sender.subscribe();
        let oldest = state
            .buffer
            .front()
            .map_or(state.next_sequence, |event| event.sequence);
        // An id at or beyond the next sequence comes from an earlier run of the process (the
        // sequence restarts at 1): nothing can be replayed, the client must reload.
        let replay = if last_seen + 1 < oldest || last_seen >= state.next_sequence {
            Replay::Gap {
                oldest_available: oldest,
            }
        } else {
            Replay::Events(
                state
                    .buffer
                    .iter()
                    .filter(|event| event.sequence > last_seen)
                    .cloned()
                    .collect(),
            )
        };
        (replay, receiver)
    }

    /// The sequence the next event will get.
    pub fn next_sequence(&self) -> u64 {
        self.lock().next_sequence
    }

    /// Whether this bus's events go through a relay (several servers share the ledger).
    pub fn is_relayed(&self) -> bool {
        self.inner.relay.is_some()
    }

    /// Hands events the relay read back, in sequence order, to the replay buffer and the
    /// subscribers. `subscribers` false fills the buffer only: the events from before this
    /// process started, so a client that moved here from another server can still resume.
    // Called only by the PostgreSQL engine's event relay (`store::postgres::event_relay`).
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    pub(crate) fn deliver(&self, events: Vec<Event>, subscribers: bool) {
        let mut state = self.lock();
        for event in events {
            if event.sequence < state.next_sequence {
                // Already delivered: a fetch raced another, or the tail overlapped.
                continue;
            }
            state.next_sequence = event.sequence + 1;
            let event = Arc::new(event);
            if state.buffer.len() == state.capacity {
                state.buffer.pop_front();
            }
            state.buffer.push_back(event.clone());
            if subscribers && self.inner.sender.send(event).is_err() {
                tracing::trace!("no live subscriber");
            }
        }
    }

    /// Counts `count` of this process's events as delivered (or given up on) by the relay.
    // Called only by the PostgreSQL engine's event relay (`store::postgres::event_relay`).
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    pub(crate) fn delivered_here(&self, count: u64) {
        if count > 0 {
            self.inner
                .delivered_here
                .send_modify(|delivered| *delivered += count);
        }
    }

    /// Resolves once every event this process published before the call has reached the
    /// subscribers. Immediate on a local bus, where `publish` delivers; on a relayed bus the
    /// events go round the database first. For callers that must see their own events, such as
    /// tests that collect what an action announced.
    pub async fn delivered(&self) {
        if self.inner.relay.is_none() {
            return;
        }
        let target = self
            .inner
            .published_here
            .load(std::sync::atomic::Ordering::SeqCst);
        let mut delivered = self.inner.delivered_here.subscribe();
        if delivered.wait_for(|count| *count >= target).await.is_err() {
            tracing::debug!("the event relay stopped");
        }
    }

    /// Moves the next sequence past `last` without events: where the shared log stands when this
    /// process starts, so an id from it is never taken for one from an earlier run.
    // Called only by the PostgreSQL engine's event relay (`store::postgres::event_relay`).
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    pub(crate) fn start_after(&self, last: u64) {
        let mut state = self.lock();
        state.next_sequence = state.next_sequence.max(last + 1);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ReplayState> {
        // A panic while holding this lock leaves only plain data behind; keep serving.
        self.inner
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests;
