//! The reply floor's handle: stopping a reply and taking it up again, which sessions are replying (on
//! this server or any sharing its database), summarizing, and the permission questions a reply's
//! tool calls wait on. A feature about replies edits this file, not the `Ledger` facade.
//!
//! The functions an adapter reaches through the operation table (`operations.rs`) follow its
//! one convention: `async`, ids as `&str`, the body by value, `Result<_, LedgerError>`.

use crate::reply::permission_request;
use crate::reply::reply_context::ReplyContext;
use crate::store::rows::message_page::MessageQuery;
use crate::wire::assistant_error::AssistantError;
use crate::wire::draft::{Draft, PromptInput};
use crate::wire::error::LedgerError;
use crate::wire::event::SessionStatus;
use crate::wire::message::{Message, MessageWithParts, ModelRef};
use crate::wire::permission::{PermissionReply, PermissionRequest};
use serde::Deserialize;
use std::collections::BTreeMap;
use ts_rs::TS;

/// Which model writes the summary (OpenCode's `POST /session/:id/summarize` body), and `auto`
/// when the compaction was not asked for by a person.
#[derive(Debug, Clone, Deserialize, TS)]
#[ts(export)]
#[serde(deny_unknown_fields)]
pub struct SummarizeRequest {
    #[serde(rename = "providerID")]
    pub provider_id: String,
    #[serde(rename = "modelID")]
    pub model_id: String,
    #[serde(default)]
    #[ts(optional, as = "Option<bool>")]
    pub auto: bool,
}

/// The answer to a permission request (OpenCode's
/// `POST /session/:id/permissions/:permissionID` body).
#[derive(Debug, Clone, Copy, Deserialize, TS)]
#[ts(export)]
#[serde(deny_unknown_fields)]
pub struct PermissionAnswer {
    pub response: PermissionReply,
}

/// What Continue says: the model reads it after its own stopped text, as a person would type it.
const CONTINUE_PROMPT: &str = "Continue";

/// `Ledger::replies()`: borrows the parts the agent loop runs with.
pub struct ReplyHandle<'ledger> {
    pub(crate) parts: &'ledger ReplyContext,
}

impl ReplyHandle<'_> {
    /// Stops the session's running reply, if any: the stream ends at once, the reply is marked
    /// `MessageAbortedError` and keeps its text. Returns whether something was running.
    pub fn abort(&self, session_id: &str) -> bool {
        self.parts.runtime.agent_loop.abort(session_id)
    }

    /// Takes up a stopped reply where it stopped (its Continue): a prompt saying "Continue",
    /// sent with the stopped reply's agent, model and variant, so the answer goes on from the
    /// text the stopped reply kept. Refused (`invalid`) unless the session's last message is a
    /// reply stopped by an abort, and (`busy`) while a reply runs.
    pub async fn continue_after_stop(
        &self,
        session_id: &str,
    ) -> Result<MessageWithParts, LedgerError> {
        self.parts.store.writable()?;
        if self.is_busy(session_id) {
            return Err(LedgerError::Busy(session_id.to_string()));
        }
        let newest = MessageQuery {
            limit: Some(1),
            before: None,
        };
        let page = self.parts.store.messages(session_id, &newest).await?;
        let stopped = page
            .messages
            .last()
            .and_then(|message| match &message.info {
                Message::Assistant(reply)
                    if matches!(
                        reply.error,
                        Some(AssistantError::MessageAbortedError { .. })
                    ) =>
                {
                    Some(reply)
                }
                _ => None,
            });
        let Some(stopped) = stopped else {
            return Err(LedgerError::InvalidRequest(format!(
                "There is no stopped reply to continue in session {session_id}: only a reply \
                 that was stopped, and is the last message, can be continued"
            )));
        };
        let input = PromptInput {
            agent: Some(stopped.agent.clone()),
            model: Some(ModelRef::new(&stopped.provider_id, &stopped.model_id)),
            variant: stopped.variant.clone(),
            parts: vec![Draft::text(CONTINUE_PROMPT)],
            ..PromptInput::default()
        };
        self.parts.pipeline().prompt(session_id, input).await
    }

    /// The sessions that are not idle, with their status (OpenCode's `GET /session/status`).
    pub fn status(&self) -> BTreeMap<String, SessionStatus> {
        self.parts.runtime.agent_loop.status()
    }

    /// `abort` on whichever server runs the reply: on a database several servers share, a
    /// reply another server runs is stopped by that server when asked (`reply_lease`).
    pub async fn abort_on_any_server(&self, session_id: &str) -> Result<bool, LedgerError> {
        if self.abort(session_id) {
            return Ok(true);
        }
        let store = &self.parts.store;
        if crate::reply::reply_lease::held_elsewhere(store, session_id).await? {
            store.ask_others_to_abort(session_id).await?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Stop (OpenCode's `POST /session/:id/abort`): `abort_on_any_server` for a session that
    /// exists (a missing one is `not_found`). Returns whether something was running.
    pub async fn stop(&self, session_id: &str) -> Result<bool, LedgerError> {
        self.parts.store.session(session_id).await?;
        let stopped = self.abort_on_any_server(session_id).await?;
        tracing::debug!(%session_id, stopped, "abort requested");
        Ok(stopped)
    }

    /// `status` with, on a database several servers share, the sessions other servers are
    /// replying in, as their servers shared it (busy, or retrying with the countdown).
    pub async fn status_on_every_server(
        &self,
    ) -> Result<BTreeMap<String, SessionStatus>, LedgerError> {
        let mut statuses = self.status();
        for (session_id, status) in
            crate::reply::reply_lease::replying_elsewhere(&self.parts.store).await?
        {
            statuses.entry(session_id).or_insert(status);
        }
        Ok(statuses)
    }

    /// Whether a reply is running in the session (revert, fork and resend refuse with `Busy`).
    pub fn is_busy(&self, session_id: &str) -> bool {
        self.parts.runtime.agent_loop.is_busy(session_id)
    }

    pub async fn summarize(
        &self,
        session_id: &str,
        model: ModelRef,
        auto: bool,
    ) -> Result<bool, LedgerError> {
        self.parts.store.writable()?;
        self.parts.summarize(session_id, model, auto).await
    }

    /// `summarize` as the operation table calls it: waits for the summary.
    pub async fn summarize_with(
        &self,
        session_id: &str,
        request: SummarizeRequest,
    ) -> Result<bool, LedgerError> {
        let model = ModelRef::new(request.provider_id, request.model_id);
        self.summarize(session_id, model, request.auto).await
    }

    /// Pending permission requests, oldest first (OpenCode's `GET /permission`).
    pub fn permission_requests(&self) -> Vec<PermissionRequest> {
        permission_request::pending(&self.parts.permission_requests)
    }

    /// `permission_requests` with, on a database several servers share, those that replies on
    /// other servers wait on (answered through `reply_permission_on_any_server`).
    pub async fn permission_requests_on_every_server(
        &self,
    ) -> Result<Vec<PermissionRequest>, LedgerError> {
        permission_request::pending_on_every_server(
            &self.parts.store,
            &self.parts.permission_requests,
        )
        .await
    }

    /// `reply_permission` for a question a reply in `session_id` asked, on whichever server
    /// runs it: on a database several servers share, a question another server's reply asked
    /// is answered there.
    pub async fn reply_permission_on_any_server(
        &self,
        session_id: &str,
        request_id: &str,
        reply: PermissionReply,
    ) -> Result<(), LedgerError> {
        match self.reply_permission(request_id, reply).await {
            Err(LedgerError::PermissionRequestNotFound(id))
                if crate::reply::reply_lease::held_elsewhere(&self.parts.store, session_id)
                    .await? =>
            {
                tracing::debug!(request = %id, "sent to the server replying in the session");
                self.parts.store.send_permission_answer(&id, reply).await
            }
            outcome => outcome,
        }
    }

    /// `reply_permission_on_any_server` as the operation table calls it.
    pub async fn answer_permission(
        &self,
        session_id: &str,
        request_id: &str,
        answer: PermissionAnswer,
    ) -> Result<(), LedgerError> {
        self.reply_permission_on_any_server(session_id, request_id, answer.response)
            .await
    }

    /// Answers a pending request; the waiting tool call continues (or is refused).
    pub async fn reply_permission(
        &self,
        request_id: &str,
        reply: PermissionReply,
    ) -> Result<(), LedgerError> {
        self.parts.store.writable()?;
        permission_request::answer(
            &self.parts.store,
            &self.parts.permission_requests,
            request_id,
            reply,
        )
        .await
    }
}
