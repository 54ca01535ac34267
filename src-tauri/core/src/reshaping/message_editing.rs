//! Deleting a message, deleting a part, rewriting a part: OpenCode's `deleteMessage`,
//! `deletePart` and `updatePart` (contract §8). Each is one transaction; a step-finish part that
//! goes (or changes) takes its cost and tokens out of the session's totals (or swaps them), as
//! OpenCode's projectors do; events go out after the commit.
//!
//! **Better than OpenCode:** all three are refused while the session replies (OpenCode checks
//! only for `deleteMessage`), since the running reply would go on writing the parts being
//! deleted or rewritten; and a part rewritten as another session's or message's is refused
//! instead of moved.

use crate::reshaping::Reshaping;
use crate::store::rows::session_page::UsageChange;
use crate::store::tables::message_removal;
use crate::store::tables::message_store;
use crate::store::tables::session_store;
use crate::store::tables::session_usage;
use crate::wire::error::LedgerError;
use crate::wire::event::EventPayload;
use crate::wire::part::{Part, PartBody};
use crate::wire::session::Session;

impl Reshaping<'_> {
    /// Deletes the message and its parts for good (not an undo: nothing brings them back).
    pub async fn delete_message(
        &self,
        session_id: &str,
        message_id: &str,
    ) -> Result<(), LedgerError> {
        self.ensure_idle(session_id).await?;
        let mut transaction = self.store.begin_write().await?;
        session_store::get(&mut transaction, session_id).await?;
        let steps =
            message_removal::step_finish_bodies(&mut transaction, session_id, message_id).await?;
        if !message_removal::delete_message(&mut transaction, session_id, message_id).await? {
            return Err(LedgerError::MessageNotFound {
                session_id: session_id.to_string(),
                message_id: message_id.to_string(),
            });
        }
        let usage_changed =
            session_usage::remove_stored(&mut transaction, session_id, &steps).await?;
        let session = session_store::get(&mut transaction, session_id).await?;
        transaction.commit().await?;
        self.store.events.publish(EventPayload::MessageRemoved {
            session_id: session_id.to_string(),
            message_id: message_id.to_string(),
        });
        self.announce_usage(session, usage_changed);
        self.store.wake_search_purge();
        // A message can hold big attachments.
        if let Err(error) = self.store.give_back_free_pages().await {
            tracing::warn!("the deleted message's disk space stays reserved for now: {error}");
        }
        Ok(())
    }

    /// Deletes one part of a message.
    pub async fn delete_part(
        &self,
        session_id: &str,
        message_id: &str,
        part_id: &str,
    ) -> Result<(), LedgerError> {
        self.ensure_idle(session_id).await?;
        let mut transaction = self.store.begin_write().await?;
        let deleted =
            message_removal::delete_part(&mut transaction, session_id, message_id, part_id).await?;
        let Some(deleted) = deleted else {
            return Err(part_not_found(message_id, part_id));
        };
        let usage_changed =
            session_usage::remove_stored(&mut transaction, session_id, &[deleted]).await?;
        let session = session_store::get(&mut transaction, session_id).await?;
        transaction.commit().await?;
        self.store.events.publish(EventPayload::PartRemoved {
            session_id: session_id.to_string(),
            message_id: message_id.to_string(),
            part_id: part_id.to_string(),
        });
        self.announce_usage(session, usage_changed);
        self.store.wake_search_purge();
        Ok(())
    }

    /// Rewrites a part with `part`, whose ids must be the ones it is stored under.
    pub async fn update_part(
        &self,
        session_id: &str,
        message_id: &str,
        part_id: &str,
        part: Part,
    ) -> Result<Part, LedgerError> {
        if (
            part.session_id.as_str(),
            part.message_id.as_str(),
            part.id.as_str(),
        ) != (session_id, message_id, part_id)
        {
            return Err(LedgerError::InvalidRequest(format!(
                "the part's ids (sessionID {}, messageID {}, id {}) must be the ones in the path \
                 ({session_id}, {message_id}, {part_id})",
                part.session_id, part.message_id, part.id
            )));
        }
        self.ensure_idle(session_id).await?;
        let now = self.store.now();
        let mut transaction = self.store.begin_write().await?;
        let previous =
            message_removal::part_body(&mut transaction, session_id, message_id, part_id).await?;
        let Some(previous_data) = previous else {
            return Err(part_not_found(message_id, part_id));
        };
        message_removal::forget_part_text(&mut transaction, &previous_data).await?;
        let mut usage_changed = session_usage::remove_stored(
            &mut transaction,
            session_id,
            std::slice::from_ref(&previous_data),
        )
        .await?;
        message_store::update_part(&mut transaction, &part, now).await?;
        if let PartBody::StepFinish(step) = &part.body {
            session_store::change_usage(
                &mut transaction,
                session_id,
                UsageChange::Add,
                step.cost,
                &step.tokens,
            )
            .await?;
            usage_changed = true;
        }
        let session = session_store::get(&mut transaction, session_id).await?;
        transaction.commit().await?;
        self.store.events.publish(EventPayload::PartUpdated {
            session_id: session_id.to_string(),
            part: part.clone(),
            time: now,
        });
        self.announce_usage(session, usage_changed);
        self.store.wake_search_purge();
        Ok(part)
    }

    fn announce_usage(&self, session: Session, changed: bool) {
        if changed {
            self.store.events.publish(EventPayload::SessionUpdated {
                session_id: session.id.clone(),
                info: session,
            });
        }
    }
}

fn part_not_found(message_id: &str, part_id: &str) -> LedgerError {
    LedgerError::PartNotFound {
        message_id: message_id.to_string(),
        part_id: part_id.to_string(),
    }
}
