//! Undo and redo of the last turns (OpenCode's revert / unrevert): a soft marker on the
//! session; the messages from the marker on are removed for good only when the next prompt
//! arrives (`revert_cleanup`), so redo can bring them back until then.

use crate::reshaping::Reshaping;
use crate::store::tables::message_store;
use crate::store::tables::session_store;
use crate::wire::error::LedgerError;
use crate::wire::event::EventPayload;
use crate::wire::message::Message;
use crate::wire::part::PartBody;
use crate::wire::session::{RevertMarker, Session};

impl Reshaping<'_> {
    /// Marks `message_id` (optionally from `part_id` on) as reverted. Reverting at an assistant
    /// part with no text or tool before it moves the mark to the user message it answered.
    pub async fn revert(
        &self,
        session_id: &str,
        message_id: &str,
        part_id: Option<&str>,
    ) -> Result<Session, LedgerError> {
        self.ensure_idle(session_id).await?;
        let target = self.store.message(session_id, message_id).await?;
        let mut marker = RevertMarker {
            message_id: message_id.to_string(),
            part_id: part_id.map(str::to_string),
            snapshot: None,
            diff: None,
        };
        if let (Message::Assistant(assistant), Some(part_id)) = (&target.info, part_id) {
            let position = target
                .parts
                .iter()
                .position(|part| part.id == part_id)
                .ok_or_else(|| LedgerError::PartNotFound {
                    message_id: message_id.to_string(),
                    part_id: part_id.to_string(),
                })?;
            let has_content_before = target.parts[..position]
                .iter()
                .any(|part| matches!(part.body, PartBody::Text(_) | PartBody::Tool(_)));
            if !has_content_before {
                marker = RevertMarker {
                    message_id: assistant.parent_id.clone(),
                    part_id: None,
                    snapshot: None,
                    diff: None,
                };
            }
        }
        self.set_revert(session_id, Some(marker)).await
    }

    /// Clears the revert marker: every message comes back.
    pub async fn unrevert(&self, session_id: &str) -> Result<Session, LedgerError> {
        self.ensure_idle(session_id).await?;
        self.set_revert(session_id, None).await
    }

    async fn set_revert(
        &self,
        session_id: &str,
        marker: Option<RevertMarker>,
    ) -> Result<Session, LedgerError> {
        let mut transaction = self.store.begin_write().await?;
        let mut session = session_store::get_to_change(&mut transaction, session_id).await?;
        if let Some(marker) = &marker {
            // The marked message must exist in this session.
            message_store::seq_of(&mut transaction, session_id, &marker.message_id)
                .await?
                .ok_or_else(|| LedgerError::MessageNotFound {
                    session_id: session_id.to_string(),
                    message_id: marker.message_id.clone(),
                })?;
        }
        session.revert = marker;
        session.time.updated = self.store.now().max(session.time.updated);
        session_store::save(&mut transaction, &session).await?;
        transaction.commit().await?;
        self.store.events.publish(EventPayload::SessionUpdated {
            session_id: session.id.clone(),
            info: session.clone(),
        });
        Ok(session)
    }

    /// Refuses reshaping a session while a reply runs in it, here or on another server sharing
    /// the database.
    pub(crate) async fn ensure_idle(&self, session_id: &str) -> Result<(), LedgerError> {
        if self.runtime.agent_loop.is_busy(session_id)
            || crate::store::tables::reply_lease::held_elsewhere(self.store, session_id).await?
        {
            return Err(LedgerError::Busy(session_id.to_string()));
        }
        Ok(())
    }
}
