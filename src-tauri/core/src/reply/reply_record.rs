//! Writing a reply as it grows: an assistant message or part is inserted with a sequence number
//! reserved in the same transaction, rewritten as it changes, and announced after each commit.
//! Each insert's transaction starts with the reservation, a write, so it takes SQLite's write
//! lock there (`Store::begin_with_a_write_first`: one hand-off fewer than `BEGIN IMMEDIATE`, on
//! the way to a reply's first text).

use crate::reply::reply_context::ReplyContext;
use crate::store::tables::message_store;
use crate::store::tables::session_store;
use crate::wire::error::LedgerError;
use crate::wire::event::EventPayload;
use crate::wire::message::{AssistantMessage, Message, UserMessage};
use crate::wire::part::Part;
use crate::wire::session::Tokens;

impl ReplyContext {
    pub(crate) async fn insert_reply_message(
        &self,
        message: &AssistantMessage,
    ) -> Result<(), LedgerError> {
        let info = Message::Assistant(message.clone());
        let now = self.store.now();
        let mut transaction = self.store.begin_with_a_write_first().await?;
        let seq = session_store::reserve_sequence(&mut transaction, &message.session_id, 1).await?;
        message_store::insert_message(&mut transaction, &info, seq, now).await?;
        transaction.commit().await?;
        self.store.events.publish(EventPayload::MessageUpdated {
            session_id: message.session_id.clone(),
            info,
        });
        Ok(())
    }

    /// A user message written by the loop itself (compaction marker, "continue"), with its parts.
    pub(crate) async fn insert_user_message(
        &self,
        message: &UserMessage,
        parts: &[Part],
    ) -> Result<(), LedgerError> {
        let info = Message::User(message.clone());
        let now = self.store.now();
        let mut transaction = self.store.begin_with_a_write_first().await?;
        let first = session_store::reserve_sequence(
            &mut transaction,
            &message.session_id,
            1 + parts.len() as i64,
        )
        .await?;
        message_store::insert_message(&mut transaction, &info, first, now).await?;
        for (offset, part) in parts.iter().enumerate() {
            message_store::insert_part(&mut transaction, part, first + 1 + offset as i64, now)
                .await?;
        }
        transaction.commit().await?;
        self.store.events.publish(EventPayload::MessageUpdated {
            session_id: message.session_id.clone(),
            info,
        });
        for part in parts {
            self.publish_part(part, now);
        }
        Ok(())
    }

    pub(crate) async fn store_reply_message(
        &self,
        message: &AssistantMessage,
    ) -> Result<(), LedgerError> {
        let info = Message::Assistant(message.clone());
        let mut connection = self.store.connection().await?;
        message_store::update_message(&mut connection, &info, self.store.now()).await?;
        drop(connection);
        self.store.events.publish(EventPayload::MessageUpdated {
            session_id: message.session_id.clone(),
            info,
        });
        Ok(())
    }

    pub(crate) async fn insert_reply_part(&self, part: &Part) -> Result<(), LedgerError> {
        let now = self.store.now();
        let mut transaction = self.store.begin_with_a_write_first().await?;
        let seq = session_store::reserve_sequence(&mut transaction, &part.session_id, 1).await?;
        message_store::insert_part(&mut transaction, part, seq, now).await?;
        transaction.commit().await?;
        self.publish_part(part, now);
        Ok(())
    }

    /// Rewrites a part; `announce` is false for checkpoints, whose text the deltas already told.
    pub(crate) async fn store_reply_part(
        &self,
        part: &Part,
        announce: bool,
    ) -> Result<(), LedgerError> {
        let now = self.store.now();
        let mut connection = self.store.connection().await?;
        let found = message_store::update_part(&mut connection, part, now).await?;
        drop(connection);
        if !found {
            return Err(LedgerError::PartNotFound {
                message_id: part.message_id.clone(),
                part_id: part.id.clone(),
            });
        }
        if announce {
            self.publish_part(part, now);
        }
        Ok(())
    }

    /// Adds a step's cost and tokens to the session's totals and announces the session.
    pub(crate) async fn add_session_usage(
        &self,
        session_id: &str,
        cost: f64,
        tokens: &Tokens,
    ) -> Result<(), LedgerError> {
        let mut connection = self.store.connection().await?;
        session_store::change_usage(
            &mut connection,
            session_id,
            crate::store::rows::session_page::UsageChange::Add,
            cost,
            tokens,
        )
        .await?;
        let session = session_store::get(&mut connection, session_id).await?;
        drop(connection);
        self.store.events.publish(EventPayload::SessionUpdated {
            session_id: session_id.to_string(),
            info: session,
        });
        Ok(())
    }

    fn publish_part(&self, part: &Part, now: i64) {
        self.store.events.publish(EventPayload::PartUpdated {
            session_id: part.session_id.clone(),
            part: part.clone(),
            time: now,
        });
    }
}
