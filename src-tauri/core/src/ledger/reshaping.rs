//! The reshaping handle: fork, revert and unrevert, edit and resend, regenerate, deleting a
//! message or a part, editing a part, export and import. A feature about reshaping a session
//! edits this file, not the `Ledger` facade.
//!
//! The functions an adapter reaches through the operation table (`operations.rs`) follow its
//! one convention: `async`, ids as `&str`, the body by value, `Result<_, LedgerError>`.

use crate::reply::reply_context::ReplyContext;
use crate::reshaping::export::SessionExport;
use crate::reshaping::export_file::ExportFileKind;
use crate::reshaping::Reshaping;
use crate::store::Store;
use crate::wire::error::LedgerError;
use crate::wire::message::MessageWithParts;
use crate::wire::part::Part;
use crate::wire::reader_time::ReaderTimeZone;
use crate::wire::session::Session;
use serde::Deserialize;
use ts_rs::TS;

/// Where a fork ends (OpenCode's `POST /session/:id/fork` body): before `messageID`, or after
/// the last message when absent.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[ts(export)]
#[serde(deny_unknown_fields)]
pub struct ForkRequest {
    #[serde(rename = "messageID", default)]
    #[ts(optional)]
    pub message_id: Option<String>,
}

/// What undo hides (OpenCode's `POST /session/:id/revert` body): `messageID` (from `partID`
/// on) and everything after it.
#[derive(Debug, Clone, Deserialize, TS)]
#[ts(export)]
#[serde(deny_unknown_fields)]
pub struct RevertRequest {
    #[serde(rename = "messageID")]
    pub message_id: String,
    #[serde(rename = "partID", default)]
    #[ts(optional)]
    pub part_id: Option<String>,
}

/// Edit and resend (`POST /session/:id/message/:messageID/resend`): the edited text (the
/// original when absent), and `noReply` to send without asking for an answer.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[ts(export)]
#[serde(deny_unknown_fields)]
pub struct ResendRequest {
    #[serde(default)]
    #[ts(optional)]
    pub text: Option<String>,
    #[serde(rename = "noReply", default)]
    #[ts(optional, as = "Option<bool>")]
    pub no_reply: bool,
}

/// `Ledger::reshaping()`: borrows the store and the runtime the reshaping floor works with.
pub struct ReshapingHandle<'ledger> {
    pub(crate) parts: &'ledger ReplyContext,
}

impl ReshapingHandle<'_> {
    fn store(&self) -> &Store {
        &self.parts.store
    }

    fn reshaping(&self) -> Reshaping<'_> {
        Reshaping {
            store: &self.parts.store,
            runtime: &self.parts.runtime,
        }
    }

    pub async fn fork_session(
        &self,
        session_id: &str,
        message_id: Option<&str>,
    ) -> Result<Session, LedgerError> {
        self.store().writable()?;
        self.reshaping().fork_session(session_id, message_id).await
    }

    /// `fork_session` as the operation table calls it.
    pub async fn fork(
        &self,
        session_id: &str,
        request: ForkRequest,
    ) -> Result<Session, LedgerError> {
        self.fork_session(session_id, request.message_id.as_deref())
            .await
    }

    /// `revert` as the operation table calls it.
    pub async fn revert_to(
        &self,
        session_id: &str,
        request: RevertRequest,
    ) -> Result<Session, LedgerError> {
        self.revert(session_id, &request.message_id, request.part_id.as_deref())
            .await
    }

    pub async fn revert(
        &self,
        session_id: &str,
        message_id: &str,
        part_id: Option<&str>,
    ) -> Result<Session, LedgerError> {
        self.store().writable()?;
        self.reshaping()
            .revert(session_id, message_id, part_id)
            .await
    }

    pub async fn unrevert(&self, session_id: &str) -> Result<Session, LedgerError> {
        self.store().writable()?;
        self.reshaping().unrevert(session_id).await
    }

    pub async fn resend(
        &self,
        session_id: &str,
        message_id: &str,
        edited: Option<&str>,
        no_reply: bool,
    ) -> Result<MessageWithParts, LedgerError> {
        self.store().writable()?;
        self.reshaping()
            .resend(session_id, message_id, edited, no_reply)
            .await
    }

    /// `resend` as the operation table calls it.
    pub async fn resend_edited(
        &self,
        session_id: &str,
        message_id: &str,
        request: ResendRequest,
    ) -> Result<MessageWithParts, LedgerError> {
        self.resend(
            session_id,
            message_id,
            request.text.as_deref(),
            request.no_reply,
        )
        .await
    }

    pub async fn regenerate(
        &self,
        session_id: &str,
        message_id: &str,
    ) -> Result<MessageWithParts, LedgerError> {
        self.store().writable()?;
        self.reshaping().regenerate(session_id, message_id).await
    }

    pub async fn delete_message(
        &self,
        session_id: &str,
        message_id: &str,
    ) -> Result<(), LedgerError> {
        self.store().writable()?;
        self.reshaping()
            .delete_message(session_id, message_id)
            .await
    }

    pub async fn delete_part(
        &self,
        session_id: &str,
        message_id: &str,
        part_id: &str,
    ) -> Result<(), LedgerError> {
        self.store().writable()?;
        self.reshaping()
            .delete_part(session_id, message_id, part_id)
            .await
    }

    pub async fn update_part(
        &self,
        session_id: &str,
        message_id: &str,
        part_id: &str,
        part: Part,
    ) -> Result<Part, LedgerError> {
        self.store().writable()?;
        self.reshaping()
            .update_part(session_id, message_id, part_id, part)
            .await
    }

    pub async fn export_json(&self, session_id: &str) -> Result<SessionExport, LedgerError> {
        self.reshaping().export_json(session_id).await
    }

    /// The readable export, its times in the reader's `zone`.
    pub async fn export_markdown(
        &self,
        session_id: &str,
        zone: ReaderTimeZone,
    ) -> Result<String, LedgerError> {
        self.reshaping().export_markdown(session_id, zone).await
    }

    /// Writes the export whole to `path` (a path the person chose).
    pub async fn write_export(
        &self,
        session_id: &str,
        kind: ExportFileKind,
        path: &std::path::Path,
    ) -> Result<(), LedgerError> {
        self.reshaping().write_export(session_id, kind, path).await
    }

    /// Imports the export file at `path` (a path the person chose) as a new session.
    pub async fn import_file(&self, path: &std::path::Path) -> Result<Session, LedgerError> {
        self.store().writable()?;
        self.reshaping().import_file(path).await
    }

    pub async fn import_session(
        &self,
        document: serde_json::Value,
    ) -> Result<Session, LedgerError> {
        self.store().writable()?;
        self.reshaping().import_session(document).await
    }
}
