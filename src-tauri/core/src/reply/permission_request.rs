//! Asking the person (OpenCode's `permission.asked` / `permission.replied`): a tool call whose
//! rules say `ask` publishes a request and waits; an adapter lists the pending requests and
//! answers `once`, `always` (which adds an allow rule to the session) or `reject`.

use crate::ledger::Ledger;
use crate::wire::error::LedgerError;
use crate::wire::event::EventPayload;
use crate::wire::permission::{Action, Rule};
use crate::wire::session::SessionPatch;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::{Mutex, MutexGuard, PoisonError};
use tokio::sync::oneshot;
use ts_rs::TS;

/// OpenCode's `PermissionRequest`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct PermissionRequest {
    pub id: String,
    #[serde(rename = "sessionID")]
    pub session_id: String,
    pub permission: String,
    pub patterns: Vec<String>,
    pub metadata: Value,
    /// The patterns an `always` answer allows from now on.
    pub always: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tool: Option<PermissionTool>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct PermissionTool {
    #[serde(rename = "messageID")]
    pub message_id: String,
    #[serde(rename = "callID")]
    pub call_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
#[serde(rename_all = "lowercase")]
pub enum PermissionReply {
    Once,
    Always,
    Reject,
}

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

impl Ledger {
    /// Pending permission requests, oldest first (OpenCode's `GET /permission`).
    pub fn permission_requests(&self) -> Vec<PermissionRequest> {
        self.setup.permission_requests.list()
    }

    /// Answers a pending request; the waiting tool call continues (or is refused).
    pub async fn reply_permission(
        &self,
        request_id: &str,
        reply: PermissionReply,
    ) -> Result<(), LedgerError> {
        let (request, sender) = self
            .setup
            .permission_requests
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
            self.update_session(&request.session_id, patch).await?;
        }
        self.events.publish(EventPayload::PermissionReplied {
            session_id: request.session_id.clone(),
            request_id: request.id.clone(),
            reply,
        });
        if sender.send(reply).is_err() {
            tracing::debug!(request = %request.id, "the tool call stopped waiting");
        }
        Ok(())
    }
}
