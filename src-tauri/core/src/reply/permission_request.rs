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
    pending: Mutex<IndexMap<String, (PermissionRequest, oneshot::Sender<PermissionReply>)>>,
}

impl PermissionRequests {
    fn lock(
        &self,
    ) -> MutexGuard<'_, IndexMap<String, (PermissionRequest, oneshot::Sender<PermissionReply>)>>
    {
        // Only a plain map lives here; a panic elsewhere leaves it usable.
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn open(&self, request: PermissionRequest) -> oneshot::Receiver<PermissionReply> {
        let (sender, receiver) = oneshot::channel();
        self.lock().insert(request.id.clone(), (request, sender));
        receiver
    }

    /// Drops a request nobody will answer any more (its reply was aborted).
    pub(crate) fn withdraw(&self, id: &str) {
        self.lock().shift_remove(id);
    }

    fn take(&self, id: &str) -> Option<(PermissionRequest, oneshot::Sender<PermissionReply>)> {
        self.lock().shift_remove(id)
    }

    fn list(&self) -> Vec<PermissionRequest> {
        self.lock()
            .values()
            .map(|(request, _)| request.clone())
            .collect()
    }
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
