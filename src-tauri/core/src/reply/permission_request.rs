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
