//! Asking the person (OpenCode's `permission.asked` / `permission.replied`): a tool call whose
//! rules say `ask` publishes a request and waits; an adapter lists the pending requests and
//! answers `once`, `always` (which adds an allow rule to the session) or `reject`.

use crate::store::Store;
use crate::wire::error::LedgerError;
use crate::wire::event::EventPayload;
use crate::wire::permission::{Action, PermissionReply, PermissionRequest, Rule};
use crate::wire::session::SessionPatch;
use indexmap::IndexMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use tokio::sync::oneshot;

/// The requests waiting for an answer, each with the channel its tool call waits on.
#[derive(Default)]
pub struct PermissionRequests {
    pending: Mutex<Pending>,
}

#[derive(Default)]
struct Pending {
    requests: IndexMap<String, (PermissionRequest, oneshot::Sender<PermissionReply>)>,
    /// Changes so far: the version the other servers' copy of a session's list is written
    /// with (`share`), so an older list never replaces a newer one.
    changes: u64,
}

impl PermissionRequests {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        // Only a plain map lives here; a panic elsewhere leaves it usable.
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn open(&self, request: PermissionRequest) -> oneshot::Receiver<PermissionReply> {
        let (sender, receiver) = oneshot::channel();
        let mut pending = self.lock();
        pending.changes += 1;
        pending
            .requests
            .insert(request.id.clone(), (request, sender));
        receiver
    }

    /// Drops a request nobody will answer any more (its reply was aborted).
    pub(crate) fn withdraw(&self, id: &str) {
        let mut pending = self.lock();
        pending.changes += 1;
        pending.requests.shift_remove(id);
    }

    fn take(&self, id: &str) -> Option<(PermissionRequest, oneshot::Sender<PermissionReply>)> {
        let mut pending = self.lock();
        pending.changes += 1;
        pending.requests.shift_remove(id)
    }

    fn list(&self) -> Vec<PermissionRequest> {
        self.lock()
            .requests
            .values()
            .map(|(request, _)| request.clone())
            .collect()
    }

    /// The session's pending requests and the count of changes they are as of.
    fn of_session(&self, session_id: &str) -> (Vec<PermissionRequest>, u64) {
        let pending = self.lock();
        let requests = pending
            .requests
            .values()
            .filter(|(request, _)| request.session_id == session_id)
            .map(|(request, _)| request.clone())
            .collect();
        (requests, pending.changes)
    }
}

/// Tells the other servers on a shared database which requests the session's reply waits on
/// now, after a change to them (nothing to do on SQLite).
pub(crate) async fn share(store: &Store, requests: &PermissionRequests, session_id: &str) {
    if store.shared().is_none() {
        return;
    }
    let (listed, version) = requests.of_session(session_id);
    crate::store::tables::reply_lease::share_permission_requests(
        store, session_id, &listed, version,
    )
    .await;
}

/// The pending requests of every server on a shared database, oldest first: this server's and
/// those of replies other servers run (their ids are ordered by time, whichever server made
/// them).
pub async fn pending_on_every_server(
    store: &Store,
    requests: &PermissionRequests,
) -> Result<Vec<PermissionRequest>, LedgerError> {
    let mut listed = requests.list();
    let elsewhere = crate::store::tables::reply_lease::permission_requests_elsewhere(store).await?;
    if elsewhere.is_empty() {
        return Ok(listed);
    }
    for request in elsewhere {
        if !listed.iter().any(|known| known.id == request.id) {
            listed.push(request);
        }
    }
    listed.sort_by(|first, second| first.id.cmp(&second.id));
    Ok(listed)
}

/// Pending permission requests, oldest first (OpenCode's `GET /permission`).
pub fn pending(requests: &PermissionRequests) -> Vec<PermissionRequest> {
    requests.list()
}

/// Answers a pending request; the waiting tool call continues (or is refused).
pub async fn answer(
    store: &Store,
    requests: &PermissionRequests,
    request_id: &str,
    reply: PermissionReply,
) -> Result<(), LedgerError> {
    let (request, sender) = requests
        .take(request_id)
        .ok_or_else(|| LedgerError::PermissionRequestNotFound(request_id.to_string()))?;
    share(store, requests, &request.session_id).await;
    if reply == PermissionReply::Always {
        let rules = request
            .always
            .iter()
            .map(|pattern| Rule::new(&request.permission, pattern, Action::Allow))
            .collect();
        let patch = SessionPatch {
            permission: Some(rules),
            ..SessionPatch::default()
        };
        store.update_session(&request.session_id, patch).await?;
    }
    store.events.publish(EventPayload::PermissionReplied {
        session_id: request.session_id.clone(),
        request_id: request.id.clone(),
        reply,
    });
    if sender.send(reply).is_err() {
        tracing::debug!(request = %request.id, "the tool call stopped waiting");
    }
    Ok(())
}

/// Answers given on other servers sharing the database (`Store::send_permission_answer`) to
/// questions this server's replies asked; questions asked elsewhere are left to their server.
/// Ends when the store closes.
pub async fn take_answers_from_other_servers(
    store: Store,
    requests: std::sync::Arc<PermissionRequests>,
    mut answers: tokio::sync::broadcast::Receiver<String>,
) {
    loop {
        let received = tokio::select! {
            received = answers.recv() => received,
            // The store's own clone here keeps the sender alive: look for its closing instead.
            () = tokio::time::sleep(std::time::Duration::from_secs(5)) => {
                if store.pool.is_closed() {
                    return;
                }
                continue;
            }
        };
        let answer = match received {
            Ok(answer) => answer,
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
        };
        let Ok(answer) = serde_json::from_str::<serde_json::Value>(&answer) else {
            continue;
        };
        let (Some(request_id), Ok(reply)) = (
            answer["requestID"].as_str(),
            serde_json::from_value::<PermissionReply>(answer["reply"].clone()),
        ) else {
            continue;
        };
        match self::answer(&store, &requests, request_id, reply).await {
            Ok(()) => tracing::info!(request = request_id, "answered on another server"),
            // Asked by another server: its answer is for that one.
            Err(LedgerError::PermissionRequestNotFound(_)) => {}
            Err(error) => {
                tracing::warn!(%error, request = request_id, "an answer from another server failed")
            }
        }
    }
}
